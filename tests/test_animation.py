"""The 3-D animation: motion geometry (folding ends where unfolding starts, unfolding ends on the flat
sheet turned by Θ with decals on the result holes), rendered pixels (not blank, faces coloured by
side, holes where the result says) and the files (MP4 frame counts, result PNG, determinism).

Tiny frames and a low frame rate keep the renderer cheap; traces and options are module fixtures so
JAX compiles only a few shapes."""

from __future__ import annotations

from dataclasses import replace

import imageio.v2 as imageio
import numpy as np
import pytest

from foldsim import Config, Hole
from foldsim.errors import InputError
from foldsim.kernels.sheet import QUARTER_ROTATIONS
from foldsim.render.animation import (AnimationOptions, carried, folding_frames, folding_segments, render_frame,
                                      still, turned, unfolding_frames, unfolding_segments, write_videos)
from foldsim.render.images import CENTROIDS
from foldsim.render.scene import FRONT_TRIANGLES, hole_decals, project
from foldsim.trace import trace

SMALL = AnimationOptions(width=96, height=72, fps=4, seconds_per_action=1.0, hold_seconds=0.5)


@pytest.fixture(scope="module")
def rotated():
    """A forward fold, a backward fold and a quarter turn; 2 punches through 2-4 layers each."""
    holes = [Hole.make("star", "large", 0, 13), Hole.make("letter", "large", 90, 22)]
    return trace(Config.from_codes("D1-F,H1-B,R-90", holes, id="PFHP_7"))


@pytest.fixture(scope="module")
def one_fold():
    return trace(Config.from_codes("H1-F", [Hole.make("circle", "large", "", 25)], id="PFHP_1"))


def is_front(pixel) -> bool:
    """Warm paper (front colour) rather than the pale-blue back: red above blue."""
    return int(pixel[0]) > int(pixel[2]) + 10


def is_back(pixel) -> bool:
    return int(pixel[2]) > int(pixel[0]) + 30


def pixel_at(frame: np.ndarray, point, opts: AnimationOptions) -> np.ndarray:
    [(col, row)] = project(np.asarray([point], float), opts)
    return frame[int(row), int(col)]


# -- geometry ---------------------------------------------------------------------------------------


def test_unfolding_ends_on_the_flat_sheet_turned_with_holes_at_the_result(rotated):
    decals = hole_decals(rotated)
    last = unfolding_segments(rotated, SMALL)[-1]
    xyz = carried(last, decals)[-1]
    sheet = np.c_[FRONT_TRIANGLES.reshape(-1, 2) @ QUARTER_ROTATIONS[1].T, np.zeros(96)]  # Θ = 90°
    np.testing.assert_allclose(xyz[:96], sheet, atol=1e-5)
    centres = xyz[96:][np.unique(decals.anchor), :2]
    distance = np.linalg.norm(centres[:, None] - CENTROIDS[None], axis=-1)
    assert distance.min(axis=1).max() < 1e-5  # every hole sits on a grid centroid
    got = sorted(distance.argmin(axis=1) + 1)
    assert len(got) == 6 and got == sorted(h.location for h in rotated.result.holes)


def test_unfolding_starts_where_folding_ends_and_each_unfold_joins_the_next(rotated):
    decals = hole_decals(rotated)
    at = lambda segment, s: carried(replace(segment, progress=np.array([s])), decals)[0]  # noqa: E731
    punch = folding_segments(rotated, SMALL)[-1]
    unfold = unfolding_segments(rotated, SMALL)
    chain = [(punch, 0.0)] + [(seg, s) for seg in unfold[1:-1] for s in (1.0, 0.0)] + [(unfold[-1], 0.0)]
    for (a, s_a), (b, s_b) in zip(chain[0::2], chain[1::2]):
        np.testing.assert_allclose(at(a, s_a), at(b, s_b), atol=1e-5)


def test_forward_flap_rises_toward_the_viewer_backward_flap_away():
    for code, sign in (("V2-F", 1), ("V2-B", -1)):
        history = trace(Config.from_codes(code))
        segment = replace(folding_segments(history, SMALL)[1], progress=np.array([0.5]))
        z = carried(segment, hole_decals(history))[0, :96, 2].reshape(32, 3)
        moving = history.steps[0].moving
        assert ((sign * z[moving]).max(axis=1) > 0.5).all() and np.abs(z[~moving]).max() < 0.1


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
    decals = hole_decals(one_fold)
    np.testing.assert_allclose(carried(segment, decals), carried(end, decals), atol=1e-5)


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
