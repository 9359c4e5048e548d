"""The 3-D animation: motion geometry (folding ends where unfolding starts, unfolding ends on the flat
sheet turned by Θ with its cuts on the result holes), the hole texture, rendered pixels (not blank,
faces coloured by side, holes where the result says and see-through) and the files (MP4 frame counts,
result PNG, determinism).

Tiny frames and a low frame rate keep the renderer cheap; traces and options are module fixtures so
JAX compiles only a few shapes."""

from __future__ import annotations

import itertools
from dataclasses import replace
from functools import partial

import imageio.v2 as imageio
import numpy as np
import pytest

from foldsim import Config, Hole
from foldsim.errors import InputError
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.holes import SHAPES
from foldsim.kernels import motion as M
from foldsim.mesh import QUARTER_ROTATIONS
from foldsim.render import animation, scene
from foldsim.render.animation import AnimationOptions, carried, render_segments, still, turned
from foldsim.render.scene import camera_pose, project, sheet_geometry
from foldsim.render.shapes import hole_polygons
from foldsim.trace import trace

SMALL = AnimationOptions(width=96, height=72, fps=4, seconds_per_action=1.0, hold_seconds=0.5)
#: MentalBlackboard's sheet, as the renderer sees it
GEOMETRY = sheet_geometry(SHEET)
CENTROIDS, FRONT_TRIANGLES = SHEET.centroids, GEOMETRY.front


# the renderer's entry points on MentalBlackboard's sheet
folding_segments = partial(animation.folding_segments, sheet=SHEET)
unfolding_segments = partial(animation.unfolding_segments, sheet=SHEET)
folding_frames = partial(animation.folding_frames, sheet=SHEET)
unfolding_frames = partial(animation.unfolding_frames, sheet=SHEET)
render_frame = partial(animation.render_frame, sheet=SHEET)
write_videos = partial(animation.write_videos, sheet=SHEET)
hole_cuts = partial(scene.hole_cuts, sheet=SHEET)
hole_mask = partial(scene.hole_mask, geometry=GEOMETRY)


@pytest.fixture(scope="module")
def rotated():
    """A forward fold, a backward fold and a quarter turn; 2 punches through 2-4 layers each."""
    holes = [Hole.make("star", "large", 0, 13), Hole.make("letter", "large", 90, 22)]
    return trace(Config.from_codes("D1-F,H1-B,R-90", holes, id="PFHP_7"))


@pytest.fixture(scope="module")
def one_fold():
    """The top half folded down onto the bottom half; one punch through both, near the bottom edge."""
    return trace(Config.from_codes("H1-F", [Hole.make("circle", "large", "", 28)], id="PFHP_1"))


def is_front(pixel) -> bool:
    """Warm paper (front colour) rather than the pale-blue back: red above blue."""
    return int(pixel[0]) > int(pixel[2]) + 10


def is_back(pixel) -> bool:
    return int(pixel[2]) > int(pixel[0]) + 30


def lifted(segment, flat_point: np.ndarray, s: float) -> np.ndarray:
    """float[3]: where a point of the flat sheet is at progress s of the segment (on the flat sheet,
    triangle t lies on grid position t, so the nearest centroid names the point's triangle)."""
    triangle = np.argmin(np.linalg.norm(CENTROIDS - flat_point, axis=1))
    return turned(np.asarray(M.positions(segment.motion, triangle, np.float32(flat_point), s)), segment.turn)


def pixel_at(frame: np.ndarray, point, opts: AnimationOptions) -> np.ndarray:
    [(col, row)] = project(np.asarray([point], float), opts)
    return frame[int(row), int(col)]


# -- geometry ---------------------------------------------------------------------------------------


def test_unfolding_ends_on_the_flat_sheet_turned_with_holes_at_the_result(rotated):
    last = unfolding_segments(rotated, SMALL)[-1]
    xyz = carried(last)[-1]
    sheet = np.c_[FRONT_TRIANGLES.reshape(-1, 2) @ QUARTER_ROTATIONS[1].T, np.zeros(96)]  # Θ = 90°
    np.testing.assert_allclose(xyz, sheet, atol=1e-5)
    centres = turned(np.array([cut.centre for cut in hole_cuts(rotated)]), 1)  # the texture turns with the sheet
    distance = np.linalg.norm(centres[:, None] - CENTROIDS[None], axis=-1)
    assert distance.min(axis=1).max() < 1e-5  # every hole sits on a grid centroid
    got = sorted(distance.argmin(axis=1) + 1)
    assert len(got) == 6 and got == sorted(h.location for h in rotated.result.holes)


def test_unfolding_starts_where_folding_ends_and_each_unfold_joins_the_next(rotated):
    at = lambda segment, s: carried(replace(segment, progress=np.array([s])))[0]  # noqa: E731
    punch = folding_segments(rotated, SMALL)[-1]
    unfold = unfolding_segments(rotated, SMALL)
    chain = [(punch, 0.0)] + [(seg, s) for seg in unfold[1:-1] for s in (1.0, 0.0)] + [(unfold[-1], 0.0)]
    for (a, s_a), (b, s_b) in zip(chain[0::2], chain[1::2]):
        np.testing.assert_allclose(at(a, s_a), at(b, s_b), atol=1e-5)


def test_forward_flap_rises_toward_the_viewer_backward_flap_away():
    for code, sign in (("V2-F", 1), ("V2-B", -1)):
        history = trace(Config.from_codes(code))
        segment = replace(folding_segments(history, SMALL)[1], progress=np.array([0.5]))
        z = carried(segment)[0, :, 2].reshape(32, 3)
        moving = history.steps[0].moving
        assert ((sign * z[moving]).max(axis=1) > 0.5).all() and np.abs(z[~moving]).max() < 0.1


def test_hole_texture_is_cut_at_every_hole_and_whole_elsewhere(rotated):
    cuts = hole_cuts(rotated)
    centres = np.array([cut.centre for cut in cuts])
    full, half = hole_mask(cuts, 1.0), hole_mask(cuts, 0.5)
    assert full.shape == (1024, 1024) and full.dtype == np.uint8
    at = lambda alpha, points: alpha[tuple(np.rint(GEOMETRY.texel(points)[:, ::-1]).astype(int).T)]  # noqa: E731
    assert (at(full, centres) == 0).all() and (at(half, centres) == 0).all()
    away = CENTROIDS[np.linalg.norm(CENTROIDS[:, None] - centres[None], axis=-1).min(axis=1) > 0.5]
    assert len(away) >= 20 and (at(full, away) == 255).all()
    assert 0.2 < (half < 128).sum() / (full < 128).sum() < 0.3  # growth 1/2 opens a quarter of the area


def test_every_hole_fits_its_own_triangle():
    """The texture draws a cut where its triangle lies on the flat sheet, so a cut must not reach a
    neighbouring triangle (which may lie elsewhere mid-fold): every shape, turned or mirrored, stays
    inside its triangle but for a hair (a large triangle's corners pass the diagonal by 0.0118)."""
    edges = np.roll(FRONT_TRIANGLES, -1, axis=1) - FRONT_TRIANGLES  # [32, 3, 2], counter-clockwise
    length = np.linalg.norm(edges, axis=-1)
    for shape in SHAPES:
        for quarter, mirrored in itertools.product(range(4), (False, True)):
            points = np.stack([np.concatenate(hole_polygons(shape, "large", quarter, centre, mirrored=mirrored))
                               for centre in CENTROIDS])  # [32, N, 2]
            rel = points[:, :, None] - FRONT_TRIANGLES[:, None]  # [32, N, 3, 2]
            inside = (edges[:, None, :, 0] * rel[..., 1] - edges[:, None, :, 1] * rel[..., 0]) / length[:, None]
            assert inside.min() > -0.012, shape


def test_a_sheets_geometry_is_its_triangles_on_its_square_texture():
    """The renderer's mesh of MentalBlackboard's sheet (made once): its triangles counter-clockwise in
    the sheet's order, the texture [-2, 2]^2 at 256 texels a cell, the crease rod's fixed radius."""
    assert sheet_geometry(SHEET) is GEOMETRY
    assert (GEOMETRY.low, GEOMETRY.size, GEOMETRY.pixels) == ((-2.0, -2.0), (4.0, 4.0), (1024, 1024))
    assert GEOMETRY.crease_radius == scene.CREASE_RADIUS
    np.testing.assert_allclose(FRONT_TRIANGLES.mean(axis=1), CENTROIDS, atol=1e-6)
    edge1, edge2 = FRONT_TRIANGLES[:, 1] - FRONT_TRIANGLES[:, 0], FRONT_TRIANGLES[:, 2] - FRONT_TRIANGLES[:, 0]
    assert (edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0] > 0).all()


def test_turned_is_a_quarter_turn_about_the_origin():
    np.testing.assert_allclose(turned(np.array([[1.0, 0.0, 0.3]]), 1), [[0.0, 1.0, 0.3]], atol=1e-7)


# -- pixels -----------------------------------------------------------------------------------------


def test_frame_is_not_blank_and_moves_with_the_fold(one_fold):
    start, end = render_frame(one_fold, 0, 0.0, SMALL), render_frame(one_fold, 0, 1.0, SMALL)
    assert start.shape == (72, 96, 3) and start.dtype == np.uint8
    assert start.std() > 20
    paper = np.abs(start.astype(int) - SMALL.front_colour).sum(-1) < 40
    assert paper.mean() > 0.1
    assert np.abs(start.astype(int) - end.astype(int)).sum(-1).astype(bool).mean() > 0.05


def test_a_forward_flap_shows_its_back_to_the_viewer(one_fold):
    below_crease = (0.0, -1.0, 0.02)
    assert is_front(pixel_at(render_frame(one_fold, 0, 0.0, SMALL), below_crease, SMALL))
    assert is_back(pixel_at(render_frame(one_fold, 0, 1.0, SMALL), below_crease, SMALL))


def test_same_trace_renders_identical_frames(one_fold):
    first = list(folding_frames(one_fold, SMALL))
    again = list(folding_frames(one_fold, SMALL))
    assert len(first) == len(again) == 2 + 4 + 4
    assert all(np.array_equal(a, b) for a, b in zip(first, again))


def test_final_unfolding_frame_shows_holes_at_the_result_locations(rotated):
    opts = replace(SMALL, width=160, height=120, camera_elevation=90.0, camera_distance=6.0)
    final = list(unfolding_frames(rotated, opts))[-1]
    holes = {h.location for h in rotated.result.holes}
    dark = lambda p: int(np.abs(p.astype(int) - opts.background_colour).sum()) < 60  # noqa: E731
    for location in range(1, 33):
        pixel = pixel_at(final, (*CENTROIDS[location - 1], 0.0), opts)
        assert dark(pixel) == (location in holes), location


def test_a_lifted_flap_shows_the_paper_below_through_its_hole(one_fold):
    """Unfolding H1-F at s = 0.85: the flap's hole is in the air above bottom-half paper that is not
    punched there, so the hole shows that paper (front colour), and the flap around it its back."""
    opts = replace(SMALL, width=160, height=120, camera_distance=5.0)
    segment = replace(unfolding_segments(one_fold, opts)[1], progress=np.array([0.85]), hole_scale=np.ones(1))
    [frame] = render_segments([segment], hole_cuts(one_fold), opts)
    [on_flap] = [cut.centre for cut in hole_cuts(one_fold) if cut.centre[1] > 0]  # the top half is the flap
    hole, beside = lifted(segment, on_flap, 0.85), lifted(segment, on_flap + [0.4, 0.0], 0.85)
    eye = camera_pose(opts)[:3, 3]
    below = eye + (hole - eye) * eye[2] / (eye[2] - hole[2])  # where the sight line through the hole meets z = 0
    assert hole[2] > 0.3 and -2 < below[0] < 2 and -2 < below[1] < 0  # a lifted hole, over the bottom half
    assert np.linalg.norm(below[:2] - CENTROIDS[28 - 1]) > 0.3  # ... away from that half's own hole
    assert is_front(pixel_at(frame, hole, opts))
    assert is_back(pixel_at(frame, beside, opts))


# -- files ------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # imageio's ffmpeg reader: fork + exec is safe
def test_write_videos_writes_decodable_mp4s_and_the_result_png(rotated, tmp_path):
    paths = write_videos(rotated, tmp_path, "PFHP_7", SMALL)
    assert paths["folding"] == tmp_path / "folding_videos" / "PF_7_animation.mp4"
    assert paths["unfolding"] == tmp_path / "unfolding_videos" / "UP_7_animation.mp4"
    assert paths["result"] == tmp_path / "prediction_results" / "PFHP_7_result.png"
    counts = {}
    for key in ("folding", "unfolding"):
        with imageio.get_reader(paths[key]) as reader:
            frames = [frame for frame in reader]  # noqa: C416 (list() asks an ffmpeg reader for len = inf)
        counts[key] = len(frames)
        assert frames[0].shape == (72, 96, 3)
    assert counts == {"folding": 2 + 3 * 4 + 4, "unfolding": 2 + 2 * 4 + 2}
    assert imageio.imread(paths["result"]).shape == (72, 96, 3)
    assert not list(tmp_path.rglob(".*"))  # no temporary files left behind
    before = {key: path.read_bytes() for key, path in paths.items()}
    write_videos(rotated, tmp_path, "PFHP_7", SMALL)
    assert {key: path.read_bytes() for key, path in paths.items()} == before


def test_unanswerable_items_are_refused_with_the_item_named(tmp_path):
    off_paper = trace(Config.from_codes("H1-F", [Hole.make("circle", "large", "", 1)], id="PFHP_9"))
    with pytest.raises(InputError, match="PFHP_9"):
        write_videos(off_paper, tmp_path, "PFHP_9", SMALL)
    assert not any(tmp_path.iterdir())


def test_still_motion_holds_the_sheet(one_fold):
    segment = replace(folding_segments(one_fold, SMALL)[0], motion=still(one_fold.sheet(1)), progress=np.array([0.7]))
    end = replace(folding_segments(one_fold, SMALL)[1], progress=np.array([1.0]))
    np.testing.assert_allclose(carried(segment), carried(end), atol=1e-5)


def test_captions_name_the_action_like_the_benchmark(rotated):
    captions = [segment.caption for segment in folding_segments(rotated, SMALL)]
    assert captions == ["Initial sheet", "Fold 1/2: D1-F diagonal top-left to bottom-right (forward)",
                        "Fold 2/2: H1-B horizontal top to bottom (backward)",
                        "Rotate 90\N{DEGREE SIGN} counter-clockwise", "Punch: 2 holes"]
    captions = [segment.caption for segment in unfolding_segments(rotated, SMALL)]
    assert captions == ["Punched: now unfold", "Unfold 1/2: V2-B vertical right to left (backward)",
                        "Unfold 2/2: D2-F diagonal top-right to bottom-left (forward)", "Result: 6 holes"]


@pytest.mark.parametrize(("field", "value"), [("width", 95), ("height", 0), ("fps", 0), ("seconds_per_action", -1.0)])
def test_bad_options_name_the_field(field, value):
    with pytest.raises(InputError, match=f"^{field}: "):
        AnimationOptions(**{field: value})
