"""Frames on disk and the cadences: `--frames` writes folding_frames/PF_<n>/frame_0000.png ... and
the unfolding counterpart exactly where the records say, a record names only what was written, the
reference cadence has the reference's frame counts, rates, camera and code-free captions; and the
fast renderer draws the same pictures as the former per-frame-rebuild path (a per-frame mean
absolute difference bound, on several items and both cadences).

Frames are small (96x72 to 160x120) so the renderer stays cheap."""

from __future__ import annotations

import json
import re
from pathlib import Path

import imageio.v2 as imageio
import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from foldsim import Config, Hole
from foldsim.cli import app
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.render import baseline
from foldsim.render.animation import (REFERENCE_FRAMES, AnimationOptions, folding_frames, folding_segments,
                                      result_image, unfolding_frames, unfolding_segments)
from foldsim.trace import trace

runner = CliRunner()
DATA = "PFHP_Prediction_Data.json"
SMALL = {"--width": "96", "--height": "72"}
#: the bound of the pixel test: mean absolute difference per frame, in 8-bit levels per channel (the
#: measured difference is about 0.002: only the odd pixel of a caption's edge is off by one)
PIXEL_BOUND = 0.25
#: a fold code or an unfold code anywhere in a caption
CODE = re.compile(r"\b[HVD][1-4]-[FB]\b|\bR-\d+")


@pytest.fixture(scope="module")
def items():
    """One fold; two folds and a rotation with two punches; a backward fold through 2 layers."""
    return [trace(Config.from_codes("H1-F", [Hole.make("circle", "large", "", 28)], id="PFHP_1")),
            trace(Config.from_codes("D1-F,H1-B,R-90", [Hole.make("star", "large", 0, 13),
                                                         Hole.make("letter", "large", 90, 22)], id="PFHP_7")),
            trace(Config.from_codes("V2-B", [Hole.make("triangle", "small", 180, 1)], id="PFHP_9"))]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A prediction dataset with frames only (reference cadence, the default)."""
    out = tmp_path_factory.mktemp("frames")
    args = ["generate", "--task", "prediction", "--group", "one_step", "--group", "two_step_with_rotation",
            "--count", "1", "--seed", "3", "--out", str(out), "--frames", "--workers", "1",
            *[x for pair in SMALL.items() for x in pair]]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def expected_counts(record: dict) -> tuple[int, int]:
    """Frames of the folding and unfolding folders under the reference cadence."""
    kinds = [t["foldType"].startswith("rotation") for t in record["foldingTypes"]]
    folds, rotations = kinds.count(False), kinds.count(True)
    holes = len(record["initialHoles"])
    folding = folds * REFERENCE_FRAMES["fold"] + rotations * REFERENCE_FRAMES["rotation"] + holes + REFERENCE_FRAMES["punch_hold"]
    unfolding = folds * (REFERENCE_FRAMES["unfold"] + REFERENCE_FRAMES["unfolded"]) + REFERENCE_FRAMES["result"]
    return folding, unfolding


def test_frames_are_where_the_records_say_and_nothing_else_is_named(generated):
    records = json.loads((generated / DATA).read_text())
    assert len(records) == 2
    for record in records:
        n = record["id"].removeprefix("PFHP_")
        assert record["foldingFramesDir"] == f"folding_frames/PF_{n}"
        assert record["unfoldingFramesDir"] == f"unfolding_frames/UP_{n}"
        assert record["resultImg"] == f"prediction_results/PFHP_{n}_result.png"
        assert "foldingVideo" not in record and "unfoldingVideo" not in record  # no --video
        keys = list(record)  # the published field order
        assert keys.index("unfoldingTypes") < keys.index("foldingFramesDir") < keys.index("initialHoles")
        for field, count in zip(("foldingFramesDir", "unfoldingFramesDir"), expected_counts(record)):
            names = sorted(p.name for p in (generated / record[field]).iterdir())
            assert names == [f"frame_{i:04d}.png" for i in range(count)]
            with Image.open(generated / record[field] / names[0]) as frame:
                assert frame.size == (96, 72) and frame.mode == "RGB"
        assert (generated / record["resultImg"]).is_file()
    assert not list(generated.rglob(".*.tmp"))


def test_reference_cadence_counts_rates_camera_and_captions(items):
    opts = AnimationOptions.preset("reference")
    assert (opts.folding_fps, opts.unfolding_video_fps, opts.camera_elevation) == (2, 3, 90.0)
    history = items[1]  # D1-F, H1-B, R-90, two punches
    folding, unfolding = folding_segments(history, opts, sheet=SHEET), unfolding_segments(history, opts, sheet=SHEET)
    assert [len(s.progress) for s in folding] == [7, 7, 6, 2 + 3]
    assert list(folding[-1].holes_open) == [1, 2, 2, 2, 2]  # one punch per frame, then the punched sheet
    assert [len(s.progress) for s in unfolding] == [7, 7, 1]
    np.testing.assert_allclose(folding[0].progress, np.linspace(0, 1, 7))
    captions = [s.caption for s in folding + unfolding]
    assert captions[0] == "Fold 1/2: diagonal top-left to bottom-right, forward"
    assert not any(CODE.search(caption) for caption in captions), captions
    smooth = AnimationOptions.preset("smooth", fps=4)
    assert any(CODE.search(s.caption) for s in folding_segments(history, smooth, sheet=SHEET))  # captions keep codes
    quiet = AnimationOptions.preset("smooth", captions="none")
    assert not any(s.caption for s in folding_segments(history, quiet, sheet=SHEET))


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # imageio's ffmpeg reader: fork + exec is safe
def test_video_and_frames_come_from_one_render(tmp_path):
    """With --video and --frames the MP4s hold exactly the frames of the folders, at the cadence's rates."""
    result = runner.invoke(app, ["generate", "--task", "prediction", "--group", "one_step", "--count", "1",
                                 "--seed", "4", "--out", str(tmp_path), "--frames", "--video", "--workers", "1",
                                 "--width", "64", "--height", "48", "--unfolding-fps", "5"])
    assert result.exit_code == 0, result.output
    [record] = json.loads((tmp_path / DATA).read_text())
    for video, frames, fps in (("foldingVideo", "foldingFramesDir", 2), ("unfoldingVideo", "unfoldingFramesDir", 5)):
        with imageio.get_reader(tmp_path / record[video]) as reader:
            decoded = [frame for frame in reader]  # noqa: C416 (list() asks an ffmpeg reader for len = inf)
            assert reader.get_meta_data()["fps"] == fps
        pngs = sorted((tmp_path / record[frames]).iterdir())
        assert len(decoded) == len(pngs)
        first = np.asarray(Image.open(pngs[0]), int)
        assert np.abs(decoded[0].astype(int) - first).mean() < 6  # H.264 of the same picture


@pytest.mark.parametrize("cadence", ["smooth", "reference"])
def test_fast_renderer_draws_what_the_per_frame_rebuild_drew(cadence, items):
    opts = AnimationOptions.preset(cadence, width=96, height=72, fps=2, unfolding_fps=2)
    for history in items if cadence == "smooth" else items[1:]:
        for new, old in ((folding_frames, baseline.folding_frames), (unfolding_frames, baseline.unfolding_frames)):
            fast, rebuilt = list(new(history, opts, sheet=SHEET)), list(old(history, opts, sheet=SHEET))
            assert len(fast) == len(rebuilt) > 0
            differences = [np.abs(a.astype(int) - b.astype(int)).mean() for a, b in zip(fast, rebuilt)]
            assert max(differences) < PIXEL_BOUND, (history.config.id, new.__name__, max(differences))
        image = np.asarray(result_image(history, opts, sheet=SHEET), int)
        former = np.asarray(baseline.labelled(baseline.result_frame(history, opts, sheet=SHEET), opts, sheet=SHEET), int)
        assert np.abs(image - former).mean() < PIXEL_BOUND
        assert sum(1 for _ in fast) and len(set(map(bytes, fast))) > 1  # frames move: the test can fail


@pytest.mark.parametrize("args, flag", [
    (["--cadence", "reference", "--seconds-per-action", "2"], "--seconds-per-action"),
    (["--captions", "emoji"], "--captions"),
    (["--cadence", "jumpy"], "--cadence"),
    (["--elevation", "0"], "--elevation"),
    (["--unfolding-fps", "0"], "--unfolding-fps"),
    (["--backend", "cloud"], "--backend"),
])
def test_bad_media_options_are_one_line_naming_the_option(args, flag, tmp_path):
    result = runner.invoke(app, ["generate", "--task", "prediction", "--group", "one_step", "--count", "1",
                                 "--out", str(tmp_path / "out"), "--frames", *args])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag}:"), result.stderr
    assert not (tmp_path / "out").exists()  # nothing was created before the options were checked
