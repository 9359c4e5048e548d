"""Pictures and motion of cube nets (issue 25; docs/nets.md, "Pictures and motion"): the posed
tiles, the flat net's hinges and cuts, the cube view against the exact engine's views, the folding
motion's geometry against the engine's cube, the video's frames, and deterministic bytes."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import imageio.v2 as imageio
import numpy as np
import pytest

from foldsim.errors import InputError
from foldsim.kernels import nets as K
from foldsim.nets import Pattern, fold_net, make_net, net_from_rows
from foldsim.render.images import png_bytes
from foldsim.render.net_images import (INK, LABEL_BOX, NO_FACE, PALETTE, SHADE, cube_view_image, flat_net_image,
                                       glyph_covers, net_cube_view, net_edges, pattern_tile, posed, view_sides)
from test_nets import flat_and_folded_corners

ROOT = Path(__file__).resolve().parents[1]
CROSS = [".1..", "2345", ".6.."]
#: every turn and both mirror states among the six faces
PATTERNS = tuple(Pattern(turn=i % 4, mirror=i in (1, 4)) for i in range(6))
#: probe points of the pattern's frame: even tenths, each at least 0.1 from the glyph's edges
PROBES = [(u / 10, v / 10) for u in range(-8, 9, 2) for v in range(-8, 9, 2)]
POSES = [(turn, mirror) for turn in range(4) for mirror in (False, True)]


def patterned(rows, **kwargs):
    base = net_from_rows(rows, **kwargs)
    return make_net(base.cells, base.labels, PATTERNS[:len(base)], hinges=base.hinges)


def pattern_point(u: float, v: float, turn: int, mirror: bool) -> tuple[float, float]:
    """Where the posed tile shows the pattern's point (u, v): mirrored (u -> -u), then turned
    counter-clockwise (u, v) -> (-v, u), `turn` times; written out apart from the module."""
    if mirror:
        u = -u
    for _ in range(turn % 4):
        u, v = -v, u
    return u, v


def unposed(u: float, v: float, turn: int, mirror: bool) -> tuple[float, float]:
    """The pattern's point that a tile posed by (turn, mirror) shows at (u, v)."""
    for _ in range(turn % 4):
        u, v = v, -u
    return (-u, v) if mirror else (u, v)


def in_label(u: float, v: float) -> bool:
    u0, v0, u1, v1 = LABEL_BOX
    return u0 - 0.05 <= u <= u1 + 0.05 and v0 - 0.05 <= v <= v1 + 0.05


def expected_glyph(turn: int, mirror: bool) -> dict[tuple[float, float], bool]:
    """Glyph or not at each probe of a tile posed by (turn, mirror), probes showing the label left out."""
    out = {}
    for u, v in PROBES:
        source = unposed(u, v, turn, mirror)
        if not in_label(*source):
            out[u, v] = glyph_covers(*source)
    return out


def is_ink(pixel) -> bool:
    return int(np.asarray(pixel, int)[:3].sum()) < 300


def tile_pixel(tile: np.ndarray, u: float, v: float):
    size = tile.shape[0]
    return tile[int((1 - v) / 2 * size), int((u + 1) / 2 * size)]


# -- tiles ------------------------------------------------------------------------------------------


def test_the_glyph_tells_all_eight_poses_apart():
    signatures = {tuple(sorted(expected_glyph(turn, mirror).items())) for turn, mirror in POSES}
    assert len(signatures) == 8
    for turn, mirror in POSES:  # the helper's inverse is the inverse
        assert all(np.allclose(unposed(*pattern_point(u, v, turn, mirror), turn, mirror), (u, v)) for u, v in PROBES)


@pytest.mark.parametrize("turn, mirror", POSES)
def test_a_posed_tile_shows_the_glyph_turned_counter_clockwise_after_the_mirror(turn, mirror):
    tile = np.asarray(posed(pattern_tile("ab", PALETTE[0], 90), turn, mirror))
    seen = {probe: is_ink(tile_pixel(tile, *probe)) for probe in expected_glyph(turn, mirror)}
    assert seen == expected_glyph(turn, mirror)
    # one quarter turn counter-clockwise: the glyph's top bar (pattern up) lies on the left
    if (turn, mirror) == (1, False):
        assert is_ink(tile_pixel(tile, -0.6, 0.0)) and not is_ink(tile_pixel(tile, 0.6, 0.0))


# -- the flat net --------------------------------------------------------------------------------------


def _edge_ink(image: np.ndarray, ends: np.ndarray, cell: int, margin: int, top: int, left: int) -> float:
    """The share of dark pixels along an edge (grid units) of a flat-net image."""
    points = ends[0] + np.linspace(0.1, 0.9, 40)[:, None] * (ends[1] - ends[0])
    columns = np.round(margin + (points[:, 0] - left) * cell).astype(int)
    rows = np.round(margin + (top - points[:, 1]) * cell).astype(int)
    return float(np.mean([int(image[r, c].sum()) < 400 for r, c in zip(rows, columns)]))


def test_flat_net_draws_hinges_dashed_and_cuts_solid_and_its_bytes_are_stable():
    net = patterned(["12.", "345"])  # a 2x2 block: the default tree leaves one of its edges cut
    kinds = [kind for _, kind, _ in net_edges(net)]
    assert kinds.count("cut") == 1 and kinds.count("hinge") == 5 - 1
    image = flat_net_image(net, 40, margin=10)
    assert image.size == (3 * 40 + 20, 2 * 40 + 20)
    pixels = np.asarray(image)
    for ends, kind, _ in net_edges(net):
        share = _edge_ink(pixels, ends, 40, 10, top=2, left=0)
        if kind == "hinge":
            assert 0.2 < share < 0.85, (ends, share)  # dashes and gaps
        else:
            assert share > 0.95, (kind, ends, share)  # solid
    assert png_bytes(flat_net_image(net, 40, margin=10)) == png_bytes(image)
    assert png_bytes(flat_net_image(net, 40, margin=10)) != png_bytes(flat_net_image(patterned(["12.", "354"]), 40,
                                                                                      margin=10))


def test_flat_net_shows_each_face_posed_by_its_pattern():
    net = patterned(CROSS)
    cell, margin = 80, 20
    pixels = np.asarray(flat_net_image(net, cell, margin=margin))
    left, top = min(x for x, _ in net.cells), max(y for _, y in net.cells) + 1
    for (x, y), pattern in zip(net.cells, net.patterns):
        tile = pixels[margin + (top - y - 1) * cell:margin + (top - y) * cell, margin + (x - left) * cell:][:, :cell]
        expected = expected_glyph(pattern.turn, pattern.mirror)
        assert {p: is_ink(tile_pixel(tile, *p)) for p in expected} == expected, (x, y, pattern)


def test_pictures_refuse_sizes_past_their_bounds():
    net = patterned(CROSS)
    with pytest.raises(InputError, match="cell"):
        flat_net_image(net, 4)
    wide = make_net([(x, 0) for x in range(64)])
    with pytest.raises(InputError, match="MAX_FRAME_SIDE"):
        flat_net_image(wide, 128)
    with pytest.raises(InputError, match="margin"):
        flat_net_image(net, 16, margin=-1)
    with pytest.raises(InputError, match="orientation"):
        net_cube_view(net, 24)
    with pytest.raises(InputError, match="view"):
        cube_view_image([("1", 0, False)])


# -- the cube view -----------------------------------------------------------------------------------


def test_the_view_layout_follows_the_side_ups_of_the_docs():
    _, (front, top, right) = view_sides(60, 8)
    assert np.array_equal(front[1], [60, 0]) and np.array_equal(front[2], [0, -60])  # right, up on screen
    assert top[1][0] > 0 and top[2][1] < 0 and top[2][0] > 0  # the top's up runs away from the viewer
    assert right[1][0] > 0 and right[1][1] < 0 and np.array_equal(right[2], [0, -60])  # right's right: to the back
    assert np.array_equal(top[0], front[0] + front[2]) and np.array_equal(right[0], front[0] + front[1])


@pytest.mark.parametrize("rows", [CROSS, ["12..", ".34.", "..56"]])
def test_each_visible_side_shows_the_pattern_as_the_engine_views_it(rows):
    net = patterned(rows)
    folded = fold_net(net)
    assert folded.valid
    size, margin = 64, 8
    _, sides = view_sides(size, margin)
    for orientation in range(24):
        pixels = np.asarray(net_cube_view(folded, orientation, size))
        for side, ((origin, right, up), seen) in enumerate(zip(sides, folded.views[orientation])):
            expected = expected_glyph(seen.turn, seen.mirror)
            drawn = {}
            for u, v in expected:
                column, row = origin + (u + 1) / 2 * right + (v + 1) / 2 * up
                drawn[u, v] = is_ink(pixels[int(row), int(column)])
            assert drawn == expected, (orientation, side, seen)


def test_cube_view_colours_follow_the_labels_and_bytes_are_stable():
    net = patterned(CROSS)
    image = net_cube_view(net, 16, 48)
    assert png_bytes(net_cube_view(net, 16, 48)) == png_bytes(image)
    # the engine's view 16 is front 1, top 5, right 4: each side painted in its label's colour
    assert [s.label for s in fold_net(net).views[16]] == ["1", "5", "4"]
    pixels = np.asarray(image).astype(int)
    _, sides = view_sides(48, 6)
    for (origin, right, up), label in zip(sides, "154"):
        column, row = origin + 0.93 * right + 0.07 * up  # a corner of the tile: the face's colour
        colour = np.asarray(PALETTE["123456".index(label)])
        assert np.abs(pixels[int(row), int(column)] - colour).max() < 60, label
    assert tuple(INK) != tuple(PALETTE[0])


def test_a_side_no_face_lands_on_is_drawn_blank():
    strip = patterned(["123456"])  # wraps around: two sides stay open
    folded = fold_net(strip)
    assert folded.reason == "two_on_one_side"
    orientation = next(o for o in range(24) if any(s.label is None for s in folded.views[o]))
    pixels = np.asarray(net_cube_view(folded, orientation, 48)).astype(int)
    _, sides = view_sides(48, 6)
    for (origin, right, up), seen, shade in zip(sides, folded.views[orientation], SHADE):
        if seen.label is None:  # no glyph anywhere, only the blank colour (probes clear of the outline)
            for u, v in [(u, v) for u, v in PROBES if max(abs(u), abs(v)) <= 0.6]:
                column, row = origin + (u + 1) / 2 * right + (v + 1) / 2 * up
                assert np.abs(pixels[int(row), int(column)] - np.round(np.asarray(NO_FACE) * shade)).max() <= 2


# -- the 3-D motion ------------------------------------------------------------------------------------

pytest.importorskip("pyrender")
from foldsim.render.nets import (NET_MOTION, NetMotion, fold_progress, net_folding_frames,  # noqa: E402
                                 write_net_folding)

TINY = replace(NET_MOTION, width=64, height=48, fps=4, seconds_per_action=1.0, hold_seconds=0.25)


@pytest.mark.parametrize("rows", [CROSS, ["123.", "..456"]])
def test_the_last_frame_is_the_engines_cube_and_the_first_the_flat_net(rows):
    net = patterned(rows)
    motion = NetMotion.of(net, TINY)
    assert len(motion) == len(fold_progress(TINY)) == 1 + 4 + 1
    flat, exact = flat_and_folded_corners(net)
    np.testing.assert_allclose(motion.corners[-1], exact, atol=1e-5)
    np.testing.assert_allclose(motion.corners[0], flat, atol=1e-6)
    # every face on its side of the unit cube under the root, printed side (counter-clockwise) out
    root = np.array([*net.cells[0], 0.0])
    centre = root + [0.5, 0.5, -0.5]
    for corners, face in zip(motion.corners[-1], fold_net(net).faces):
        normal = K.SIDE_NORMALS[K.SIDE_NAMES.index(face.side)]
        np.testing.assert_allclose(corners.mean(0) - centre, normal / 2, atol=1e-5)
        winding = np.cross(corners[1] - corners[0], corners[2] - corners[0])
        assert winding @ normal > 0.9
    # what the renderer is given: the same triangles about the frame's centre
    drawn = motion.triangles(len(motion) - 1) + motion.centres[-1]
    np.testing.assert_allclose(drawn.reshape(6, 2, 3, 3)[:, 0], exact[:, [0, 1, 2]], atol=1e-5)


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # imageio's ffmpeg reader: fork + exec is safe
def test_the_video_has_the_frames_and_shows_the_net(tmp_path):
    net = patterned(CROSS)
    paths = write_net_folding(net, tmp_path / "fold.mp4", tmp_path / "frames", TINY)
    assert set(paths) == {"video", "frames"}
    expected = len(fold_progress(TINY))
    with imageio.get_reader(paths["video"]) as reader:
        decoded = [frame for frame in reader]  # noqa: C416 (list() asks an ffmpeg reader for len = inf)
    assert len(decoded) == expected and decoded[0].shape == (48, 64, 3)
    pngs = sorted(paths["frames"].iterdir())
    assert [p.name for p in pngs] == [f"frame_{i:04d}.png" for i in range(expected)]
    background = np.asarray(TINY.background_colour)
    for path in (pngs[0], pngs[-1]):
        frame = imageio.imread(path).astype(int)
        painted = (np.abs(frame - background).max(-1) > 30).mean()
        assert 0.05 < painted < 0.9, (path.name, painted)
    first = [p.read_bytes() for p in pngs]
    again = write_net_folding(net, tmp_path / "again.mp4", tmp_path / "again", TINY)
    assert [p.read_bytes() for p in sorted(again["frames"].iterdir())] == first
    assert again["video"].read_bytes() == paths["video"].read_bytes()
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind


def test_any_net_folds_on_screen_even_one_that_is_no_cube():
    strip = make_net([(0, 0), (1, 0), (2, 0)])
    frames = list(net_folding_frames(strip, TINY))
    assert len(frames) == len(fold_progress(TINY)) and frames[-1].shape == (48, 64, 3)


def test_bad_angles_are_refused_before_drawing():
    net = patterned(CROSS)
    with pytest.raises(InputError, match="angles"):
        NetMotion.of(net, TINY, np.zeros((3, 5)))
    with pytest.raises(InputError, match="angles"):
        NetMotion.of(net, TINY, np.full((3, 6), np.nan))


def test_the_docs_pictures_are_fresh():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "net_pictures.py"), "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
