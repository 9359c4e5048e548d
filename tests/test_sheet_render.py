"""3-D frames, videos and 2-D images of general items (issue 17 item 7): the 5x5 item (a fold at
y = 2, then a 45° fold), the 3x3 overhang (x = 2, the left side moving) and a punch on a crease,
through the same renderer and files as MentalBlackboard's media. Holes are checked against the
engine's result, pixels at known places, MP4 frame counts, the CLI.

Tiny frames and a low frame rate keep the renderer cheap; items are module fixtures."""

from __future__ import annotations

import json
from dataclasses import replace

import imageio.v2 as imageio
import numpy as np
import pytest

from foldsim.engine import view_size
from foldsim.reference_general import reference_simulate
from foldsim.errors import InputError
from foldsim.render.animation import AnimationOptions, carried, top_view
from foldsim.render.item_images import ITEM_STYLE, item_frame, item_step_images, write_item_images
from foldsim.render.item_geometry import after, crease_pieces, item_trace, view_transforms
from foldsim.render.items import (ItemMedia, item_folding_segments, item_result_image, item_unfolding_segments,
                                  render_item_frame, write_item_media)
from foldsim.render.scene import project
from foldsim.sheets import Flip, Fold, Line, Punch, Rotate, SheetItem, SheetSpec, item_to_record

SMALL = AnimationOptions(width=96, height=72, fps=4, seconds_per_action=1.0, hold_seconds=0.5)
PAPER, BACKGROUND = np.array(SMALL.front_colour), np.array(SMALL.background_colour)

ITEMS = {
    "5x5": SheetItem(SheetSpec(5, 5), (Fold(Line("H", at=2), moves="below"), Fold(Line("D", at=0))),
                     (Punch("1/2", "5/2", "circle", "large"), Punch("7/2", "9/2", "star", "large")), id="sv_5x5"),
    "overhang": SheetItem(SheetSpec(3, 3), (Fold(Line("V", at=2), moves="left"),),
                          (Punch("5/2", "1/2", "circle", "large"),), id="vz_overhang"),
    "crease": SheetItem(SheetSpec(4, 4), (Fold(Line("H", at=2), moves="above", front=False), Rotate(1), Flip()),
                        (Punch("2", "3/2", "circle", "large"), Punch("1/2", "1/2", "circle", "large")), id="on_crease"),
}


@pytest.fixture(scope="module")
def media():
    return {name: ItemMedia.of(item, SMALL) for name, item in ITEMS.items()}


def engine_holes(item) -> list[tuple[float, float]]:
    """The result holes (the exact reference of the engine's semantics: no kernel compile), in cell
    units of the viewed sheet."""
    result = reference_simulate(item)
    assert result.status == "ok", result
    return sorted((float(h.x), float(h.y)) for h in result.holes)


def viewed_cut_centres(media) -> list[tuple[float, float]]:
    view = after(view_transforms(media.trace), -1)[:2, :2]
    wide, high = view_size(np.asarray(media.trace.states.view[-1]), media.trace.item.sheet.cols,
                           media.trace.item.sheet.rows)
    centres = {tuple(np.round(cut.centre @ view.T + [wide / 2, high / 2], 9)) for cut in media.cuts}
    return sorted(centres)


def pixel(frame, point, opts):
    [(col, row)] = project(np.asarray([point], float), opts)
    return frame[int(row), int(col)].astype(int)


def is_paper(colour) -> bool:
    return bool(np.abs(colour - PAPER).sum() < 60 or np.abs(colour - np.array(SMALL.back_colour)).sum() < 60)


def is_background(colour) -> bool:
    return bool(np.abs(colour - BACKGROUND).sum() < 40)


# -- geometry -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ITEMS))
def test_cuts_open_exactly_the_engines_holes(media, name):
    np.testing.assert_allclose(viewed_cut_centres(media[name]), engine_holes(ITEMS[name]), atol=1e-9)


def test_a_punch_on_a_crease_is_one_hole_cut_on_both_sides_of_it(media):
    cuts = [cut for cut in media["crease"].cuts if cut.hole == 0]
    assert {tuple(np.round(cut.centre, 9)) for cut in cuts} == {(-0.5, 0.0)}  # one preimage: (3/2, 2) centred
    sides = {int(np.sign(np.concatenate(cut.polygons)[:, 1].mean())) for cut in cuts}
    assert sides == {-1, 1}  # half a disc above the crease, half below


def test_the_crease_rod_spans_the_paper_the_fold_hinges_on(media):
    np.testing.assert_allclose(crease_pieces(media["overhang"].trace, 0), [[[0.5, -1.5], [0.5, 1.5]]])
    [[start, stop]] = crease_pieces(media["5x5"].trace, 1)  # y = x over the strip y in [2, 5]: centred
    np.testing.assert_allclose(sorted([start.tolist(), stop.tolist()]), [[-0.5, -0.5], [2.5, 2.5]])


def test_unfolding_joins_the_punched_sheet_and_ends_on_the_viewed_flat_sheet(media):
    item = media["crease"]  # a fold, a quarter turn and a flip: the unfolding runs in the final frame
    at = lambda segment, s: carried(replace(segment, progress=np.array([s])))[0]  # noqa: E731
    hold, unfold, result = item.unfolding[0], item.unfolding[1], item.unfolding[-1]
    np.testing.assert_allclose(at(hold, 0.0), at(unfold, 1.0), atol=1e-5)
    np.testing.assert_allclose(at(unfold, 0.0), at(result, 0.0), atol=1e-5)
    flat = item.geometry.front.reshape(-1, 2) @ after(view_transforms(item.trace), -1)[:2, :2].T
    np.testing.assert_allclose(at(result, 0.0)[:, :2], flat, atol=1e-5)
    np.testing.assert_allclose(at(item.folding[-1], 0.0), at(hold, 0.0), atol=1e-5)


def test_the_reference_cadence_counts_frames_as_mentalblackboards(media):
    opts = AnimationOptions.preset("reference", width=96, height=72)
    trace = media["crease"].trace  # a fold, a rotation, a flip; 2 punches
    folding = [len(segment.progress) for segment in item_folding_segments(trace, opts)]
    unfolding = [len(segment.progress) for segment in item_unfolding_segments(trace, opts)]
    assert folding == [7, 6, 6, 2 + 3] and unfolding == [6 + 1, 1]


def test_the_camera_frames_a_sheet_of_any_size(media):
    assert media["5x5"].opts.camera_distance == pytest.approx(SMALL.camera_distance * 2.5 / 2)
    assert media["overhang"].opts.camera_distance == pytest.approx(SMALL.camera_distance * 2.5 / 2)  # x to 4


# -- pixels ---------------------------------------------------------------------------------------


def test_mid_fold_frames_show_the_sheet_moving(media):
    start, middle = (render_item_frame(ITEMS["5x5"], 1, s, SMALL) for s in (0.0, 0.5))
    assert start.shape == (72, 96, 3) and start.std() > 20
    assert np.abs(start.astype(int) - middle.astype(int)).sum(-1).astype(bool).mean() > 0.02


@pytest.mark.parametrize("name", sorted(ITEMS))
def test_result_frame_shows_every_hole_and_paper_between(media, name):
    item = media[name]
    opts = replace(item.opts, width=192, height=144)
    frame = np.asarray(item_result_image(ITEMS[name], replace(SMALL, width=192, height=144)))
    top = top_view(opts)
    wide, high = view_size(np.asarray(item.trace.states.view[-1]), item.trace.item.sheet.cols,
                           item.trace.item.sheet.rows)
    holes = engine_holes(ITEMS[name])
    for x, y in holes:
        assert is_background(pixel(frame, (x - wide / 2, y - high / 2, 0.0), top)), (x, y)
    for x, y in [(x + 0.5, y + 0.5) for x in range(wide) for y in range(high)]:
        if min(np.hypot(x - hx, y - hy) for hx, hy in holes) > 0.4:
            assert is_paper(pixel(frame, (x - wide / 2, y - high / 2, 0.0), top)), (x, y)


# -- files ----------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # imageio's ffmpeg reader: fork + exec is safe
def test_write_item_media_writes_mp4s_frames_and_the_result(tmp_path):
    paths = write_item_media(ITEMS["overhang"], tmp_path, SMALL, frames=True)
    assert paths["folding"] == tmp_path / "folding_videos" / "PF_vz_overhang_animation.mp4"
    counts = {}
    for key in ("folding", "unfolding"):
        with imageio.get_reader(paths[key]) as reader:
            frames = [frame for frame in reader]  # noqa: C416 (list() asks an ffmpeg reader for len = inf)
        counts[key] = len(frames)
        assert frames[0].shape == (72, 96, 3)
        assert len(list(paths[f"{key}_frames"].glob("frame_*.png"))) == len(frames)
    assert counts == {"folding": 2 + 4 + 4, "unfolding": 2 + 4 + 2}
    assert imageio.imread(paths["result"]).shape == (72, 96, 3)
    assert not list(tmp_path.rglob(".*"))


def test_an_item_that_cannot_be_drawn_is_refused_naming_it(tmp_path):
    off = SheetItem(SheetSpec(3, 3), (Fold(Line("V", at=2), moves="left"),), (Punch("1/2", "1/2"),), id="off")
    with pytest.raises(InputError, match="^off: cannot render: punch 1"):
        item_trace(off)
    with pytest.raises(InputError, match="^off: "):
        write_item_media(off, tmp_path, SMALL)
    assert not any(tmp_path.iterdir())


# -- 2-D images -----------------------------------------------------------------------------------


def image_pixel(image, trace, point):
    frame = item_frame(trace, ITEM_STYLE)
    [(x, y)] = frame.pixels(np.asarray(point, float))
    return np.asarray(image)[int(y / ITEM_STYLE.supersample), int(x / ITEM_STYLE.supersample)].astype(int)


def test_step_images_mark_the_fold_show_the_folded_outline_and_the_holes(media):
    trace = media["5x5"].trace
    images = dict(item_step_images(trace))
    assert list(images) == ["sv_5x5_step_0.png", "sv_5x5_step_1.png", "sv_5x5_punching.png", "sv_5x5_result.png"]
    assert all(image.size == (480, 480) for image in images.values())
    red = lambda c: c[0] > 150 and c[1] < 90  # noqa: E731
    green = lambda c: c[1] > 100 and c[0] < 60  # noqa: E731
    white = lambda c: (c > 240).all()  # noqa: E731
    first = images["sv_5x5_step_0.png"]
    dashes = [red(image_pixel(first, trace, (x, -0.5))) for x in np.linspace(-2.4, 2.4, 49)]
    assert 0.3 < np.mean(dashes) < 0.9  # the crease y = 2 (centred -1/2), dashed
    second = images["sv_5x5_step_1.png"]
    grey = lambda c: 120 < c[0] < 235 and abs(c[0] - c[2]) < 10  # noqa: E731
    assert grey(image_pixel(first, trace, (0.5, -2.0))) and white(image_pixel(second, trace, (0.5, -2.0)))
    assert grey(image_pixel(second, trace, (0.5, 2.0)))  # grid lines on the folded strip
    assert red(image_pixel(second, trace, (0.0, 0.0))) or red(image_pixel(second, trace, (0.1, 0.1)))  # y = x
    result = images["sv_5x5_result.png"]
    for x, y in engine_holes(ITEMS["5x5"]):
        assert green(image_pixel(result, trace, (x - 2.5, y - 2.5)))
    assert white(image_pixel(result, trace, (0.0, 0.0)))
    punched = images["sv_5x5_punching.png"]
    assert green(image_pixel(punched, trace, (-2.0, 0.0))) and green(image_pixel(punched, trace, (1.0, 2.0)))


def test_item_images_are_written_like_mentalblackboards_and_are_deterministic(media, tmp_path):
    paths = write_item_images(media["crease"].trace, tmp_path)
    assert [p.name for p in paths] == ["on_crease_step_0.png", "on_crease_step_1.png", "on_crease_step_2.png",
                                       "on_crease_punching.png", "on_crease_result.png"]
    assert all(p.parent == tmp_path / "img_text_outputs" / "on_crease" / "img" for p in paths)
    before = [p.read_bytes() for p in paths]
    write_item_images(media["crease"].trace, tmp_path)
    assert [p.read_bytes() for p in paths] == before


# -- CLI ------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")
def test_render_item_cli_writes_media_and_reports_bad_items(tmp_path, capsys):
    from foldsim.cli import main

    records = [item_to_record(ITEMS["overhang"]), {"id": "broken", "sheet": {"cols": 0, "rows": 3}, "actions": []}]
    source = tmp_path / "items.json"
    source.write_text(json.dumps(records))
    with pytest.raises(SystemExit) as exit_info:
        main(["render-item", str(source), "--out", str(tmp_path / "out"), "--video", "--images", "--width", "96",
              "--height", "72", "--cadence", "smooth", "--fps", "2"])
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert "broken: sheet.cols" in captured.err and "1 rendered" in captured.out
    assert (tmp_path / "out" / "folding_videos" / "PF_vz_overhang_animation.mp4").exists()
    assert (tmp_path / "out" / "img_text_outputs" / "vz_overhang" / "img" / "vz_overhang_result.png").exists()
