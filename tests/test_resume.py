"""Resume that cannot lie (issue 12): rerunning `generate` with another seed into the same folder,
or running two generators into one folder, never leaves a mixed dataset; a truncated file is
rendered again; temp files of a killed run are swept; the output folder is checked and locked before
any work, with one-line errors (exit 2); an output failing as a whole stops the run with one line,
keeping what was finished.

Text and 2-D images only (plus one tiny video) keep these runs cheap."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.dataset import media
from foldsim.dataset.media import (LOCK_FILE, Manifest, MediaRequest, open_output, record_hash, render_items)

runner = CliRunner()
DATA = "PFHP_Prediction_Data.json"
GROUPS = ["--group", "one_step", "--group", "two_step"]


def generate(out: Path, seed: int, *extra: str):
    return runner.invoke(app, ["generate", "--task", "prediction", *GROUPS, "--count", "2", "--seed", str(seed),
                               "--out", str(out), "--text", "--images", "--workers", "1", *extra])


def media_files(out: Path) -> dict[str, bytes]:
    """Every media file under a dataset folder (relative path -> bytes), manifests and lock aside."""
    skip = {"manifest", LOCK_FILE}
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.relative_to(out).parts[0] not in skip}


@pytest.fixture(scope="module")
def seed6(tmp_path_factory) -> Path:
    """The seed-6 dataset, generated into a fresh folder: what any folder holding seed 6 must equal."""
    out = tmp_path_factory.mktemp("seed6")
    assert generate(out, 6).exit_code == 0
    return out


def test_another_seed_into_the_same_folder_rerenders_everything(tmp_path, seed6):
    """The measured failure: seed 5 then seed 6 into one folder kept seed-5 media as 'already
    complete'. Now every item is redrawn and the folder equals a fresh seed-6 folder byte for byte."""
    assert generate(tmp_path, 5).exit_code == 0
    seed5 = media_files(tmp_path)
    result = generate(tmp_path, 6)
    assert result.exit_code == 0, result.output
    assert "media: 4 rendered, 0 already complete, 0 failed" in result.stdout
    assert media_files(tmp_path) == media_files(seed6)
    assert media_files(tmp_path) != seed5
    for record in json.loads((tmp_path / DATA).read_text()):
        assert Manifest.read(tmp_path, record["id"]).record == record_hash(record)


def test_same_seed_again_skips_everything_and_changes_nothing(seed6, tmp_path):
    before = media_files(seed6)
    result = generate(seed6, 6)
    assert result.exit_code == 0 and "media: 0 rendered, 4 already complete, 0 failed" in result.stdout
    assert media_files(seed6) == before


def test_a_truncated_or_altered_file_is_rendered_again(tmp_path, seed6):
    assert generate(tmp_path, 6).exit_code == 0
    truncated = tmp_path / "img_text_outputs/PFHP_2/img/PFHP_2_punching_holes.png"
    truncated.write_bytes(truncated.read_bytes()[:100])
    altered = tmp_path / "img_text_outputs/PFHP_3/text/PFHP_3_textual_steps.txt"
    altered.write_text(altered.read_text().replace("1", "0"))  # same size, other bytes
    result = generate(tmp_path, 6, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["rendered"] == 2
    assert media_files(tmp_path) == media_files(seed6)


def test_stale_temp_files_of_a_killed_run_are_removed(tmp_path, seed6):
    assert generate(tmp_path, 6).exit_code == 0
    leftovers = [tmp_path / ".PFHP_Prediction_Data.json.k2j4x9a1.tmp",
                 tmp_path / "img_text_outputs/PFHP_1/img/.PFHP_1_result_holes.png.ab12cd34.tmp",
                 tmp_path / "folding_videos/.PF_1_animation.mp4.zz99yy88.tmp",
                 tmp_path / "folding_videos/.PF_1_animation.q1w2e3r4.mp4"]  # an earlier version's MP4 temp
    for path in leftovers:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"partial")
    frames_tmp = tmp_path / "folding_frames/.PF_1.a1b2c3d4.tmp"
    frames_tmp.mkdir(parents=True)
    (frames_tmp / "frame_0000.png").write_bytes(b"partial")
    keep = tmp_path / "img_text_outputs/notes.tmp"  # not a temp name of ours: left alone
    keep.write_text("mine")
    result = generate(tmp_path, 6)
    assert result.exit_code == 0
    assert "removed 5 temp file(s)" in result.stderr
    assert not any(p.exists() for p in [*leftovers, frames_tmp]) and keep.exists()


def test_a_second_run_into_a_locked_folder_refuses_with_one_line(tmp_path):
    """Another process holds the lock (a real second process, so the lock works across processes)."""
    request = MediaRequest.of(text=True)
    with open_output(tmp_path, request):
        script = ("import sys; from foldsim.cli import main; "
                  f"main(['generate', '--task', 'prediction', '--group', 'one_step', '--count', '1', "
                  f"'--out', {str(tmp_path)!r}, '--text'])")
        other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert other.returncode == 2, other.stderr
    lines = other.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {tmp_path}: another foldsim run is writing"), other.stderr
    assert not (tmp_path / DATA).exists()  # the refused run wrote nothing
    assert generate(tmp_path, 6).exit_code == 0  # the lock goes with the process that held it


def test_the_lock_file_goes_with_the_run_and_a_run_never_holds_a_removed_one(tmp_path, monkeypatch):
    """The lock is removed when the run ends, and removing it never lets two runs in: a run that
    opened the file just before the holder removed it, and then got the flock on that removed
    file, must try again on the path's file (which a third run may hold) instead of going on."""
    request = MediaRequest.of(text=True)
    first = open_output(tmp_path, request)
    first.__enter__()
    with pytest.raises(media.FolderBusy, match=f"pid {os.getpid()}"):
        open_output(tmp_path, request).__enter__()
    stale = open(tmp_path / LOCK_FILE, "a+")  # opened while the first run holds it ...
    first.__exit__(None, None, None)  # ... which then removes the file and releases its lock
    assert not (tmp_path / LOCK_FILE).exists()
    opened = []

    def opening(path, *args, **kwargs):  # the next run's first open() hands over the stale file
        handle = stale if not opened else open(path, *args, **kwargs)
        opened.append(handle)
        return handle

    monkeypatch.setattr(media, "open", opening, raising=False)
    with open_output(tmp_path, request):
        assert len(opened) == 2 and opened[0].closed  # locked the removed file, saw it, locked the path's
        monkeypatch.undo()
        with pytest.raises(media.FolderBusy):
            open_output(tmp_path, request).__enter__()
    assert not (tmp_path / LOCK_FILE).exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("blocker", ["out", "manifest", "folding_frames", DATA])
def test_output_paths_are_checked_before_any_work(tmp_path, blocker):
    out = tmp_path / "out"
    if blocker == "out":
        out.write_text("a file where the folder goes")
    elif blocker == DATA:
        (out / DATA).mkdir(parents=True)  # a folder where the data file goes
    else:
        out.mkdir()
        (out / blocker).write_text("a file where a folder goes")
    result = generate(out, 6, "--frames")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and ("is a file" in lines[0] or "is a folder" in lines[0])
    assert not (out / "manifest").is_dir() and not (out / "paper_structure.png").exists()


def test_a_full_output_is_one_line_before_the_work(tmp_path, monkeypatch):
    monkeypatch.setattr(media.shutil, "disk_usage", lambda path: type("Usage", (), {"free": 4096})())
    result = generate(tmp_path / "out", 6)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: {tmp_path / 'out'}: no space left on the device (4,096 bytes free)"]


def test_an_output_failing_mid_run_stops_with_one_line_and_keeps_the_finished_items(tmp_path, seed6, monkeypatch):
    calls = []
    real = media.write_text

    def fills_up(history, out_dir, item_id, **kwargs):
        calls.append(item_id)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(history, out_dir, item_id, **kwargs)

    monkeypatch.setattr(media, "write_text", fills_up)
    result = generate(tmp_path, 6)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == f"error: {tmp_path}: No space left on device"
    assert len(calls) == 3  # the run stopped: the fourth item was never started
    records = json.loads((tmp_path / DATA).read_text())
    assert [r["id"] for r in records] == ["PFHP_1", "PFHP_2", "PFHP_3", "PFHP_4"]
    monkeypatch.setattr(media, "write_text", real)
    rerun = generate(tmp_path, 6)
    assert rerun.exit_code == 0 and "media: 2 rendered, 2 already complete" in rerun.stdout
    assert media_files(tmp_path) == media_files(seed6)


def test_media_of_another_data_file_are_never_overwritten(tmp_path, seed6):
    """A planning file's PFHP_1 rendered into a folder holding the prediction PFHP_1: refused per item."""
    data, plan = tmp_path / "data", tmp_path / "plan"
    assert generate(data, 6).exit_code == 0
    planning = runner.invoke(app, ["generate", "--task", "planning", "--group", "one_step", "--count", "1",
                                   "--seed", "1", "--out", str(plan)])
    assert planning.exit_code == 0
    result = runner.invoke(app, ["render", str(plan / "PFHP_Planning_Data.json"), "--out", str(data),
                                 "--text", "--workers", "1"])
    assert result.exit_code == 1
    assert "error: PFHP_1: this folder holds the media of another item PFHP_1, from PFHP_Prediction_Data.json" in result.stderr
    assert media_files(data) == media_files(seed6)


def test_render_items_lists_and_resumes_by_modality(tmp_path, seed6):
    """A later run asking only for text keeps (and still vouches for) the images it does not redo."""
    records = json.loads((seed6 / DATA).read_text())
    first = render_items(records, tmp_path, MediaRequest.of(text=True, images=True))
    assert len(first.rendered) == 4
    again = render_items(records, tmp_path, MediaRequest.of(text=True))
    assert len(again.skipped) == 4
    manifest = Manifest.read(tmp_path, "PFHP_1")
    assert set(manifest.modalities) == {"text", "images"}


def test_new_video_options_do_not_leave_frames_vouching_for_a_redrawn_result_image(tmp_path, seed6):
    """Frames at 64x48, then video only at 96x72: the shared result image is redrawn, so the frames
    entry (which listed the old one) is dropped and the record no longer names the frames folder."""
    [record] = [r for r in json.loads((seed6 / DATA).read_text()) if r["id"] == "PFHP_1"]
    render_items([record], tmp_path, MediaRequest.of(frames=True, width=64, height=48))
    render_items([record], tmp_path, MediaRequest.of(video=True, width=96, height=72))
    manifest = Manifest.read(tmp_path, "PFHP_1")
    assert set(manifest.modalities) == {"video"}
    assert set(media.listed(record, manifest)) >= {"foldingVideo", "resultImg"}
    assert "foldingFramesDir" not in media.listed(record, manifest)
