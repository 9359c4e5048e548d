"""Issue 18 item 2: `generate --family` writes its images through the media machinery of
`generate --task` (foldsim.dataset.media): per-item manifests, resume that redraws exactly the
missing or damaged images and ends byte-identical to an uninterrupted run (also after a SIGKILL
midway), the folder lock refusing a concurrent run, and Ray tasks writing the bytes of one local
worker. SRBench level 2 (the 1x1 sheet tests/test_families_road.py uses: compilations shared)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
import ray  # installed with foldsim[ray] (make test installs it): never skipped
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.dataset.media import LOCK_FILE, MANIFEST_DIR, MediaRequest, open_output
from killed_run import sigkill_once_written

runner = CliRunner()
COUNT = 6
ARGS = ["generate", "--family", "srbench", "--level", "2", "--count", str(COUNT), "--seed", "3"]


def files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def generate(out: Path, *extra: str):
    return runner.invoke(app, [*ARGS, "--out", str(out), *extra])


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """One uninterrupted run, one local worker."""
    out = tmp_path_factory.mktemp("reference")
    result = generate(out, "--workers", "1")
    assert result.exit_code == 0, result.output
    assert f"media: {COUNT} rendered, 0 already complete, 0 failed" in result.stdout
    return out


def test_a_finished_folder_has_the_images_their_manifests_and_no_lock(reference):
    names = files(reference)
    assert LOCK_FILE not in names and "paper_structure.png" not in names
    assert len([n for n in names if n.startswith(f"{MANIFEST_DIR}/")]) == COUNT
    assert len([n for n in names if n.endswith(".png")]) == 2 * COUNT  # composite + steps row


def test_resume_redraws_only_the_missing_and_damaged_images(reference, tmp_path):
    out = tmp_path / "out"
    assert generate(out, "--workers", "1").exit_code == 0
    (out / "srbench_00002.png").unlink()
    damaged = out / "srbench_00005_steps.png"
    damaged.write_bytes(damaged.read_bytes()[:100])
    again = generate(out, "--workers", "1")
    assert again.exit_code == 0, again.output
    assert f"media: 2 rendered, {COUNT - 2} already complete, 0 failed" in again.stdout
    assert files(out) == files(reference)


def test_a_run_killed_midway_then_rerun_ends_identical(reference, tmp_path):
    """A real process, SIGKILLed as soon as its first item is finished (its manifest written): the
    lock file stays (the kernel released the lock), the rest is not drawn; the rerun takes the
    folder over, sweeps the temp files and draws only what is missing."""
    out = tmp_path / "out"
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl"}
    sigkill_once_written([*ARGS, "--out", str(out), "--workers", "1"], out, f"{MANIFEST_DIR}/*.json", env)
    done = len(list((out / MANIFEST_DIR).glob("*.json")))
    assert 1 <= done < COUNT and (out / LOCK_FILE).exists()
    (out / ".srbench_00006.png.k1LLed00.tmp").write_bytes(b"half")  # as an atomic write cut short leaves it
    again = generate(out, "--workers", "1")
    assert again.exit_code == 0, again.output
    assert f"media: {COUNT - done} rendered, {done} already complete, 0 failed" in again.stdout
    assert files(out) == files(reference)


def test_a_concurrent_run_is_refused_with_one_line(reference, tmp_path):
    with open_output(tmp_path, MediaRequest(())):  # another run holds the folder
        result = generate(tmp_path, "--workers", "1")
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert "another foldsim run is writing into this folder" in line
    assert not (tmp_path / "srbench_items.json").exists()  # refused before any work


def test_ray_writes_the_bytes_of_one_local_worker_and_resumes(reference, tmp_path):
    with warnings.catch_warnings():  # JAX warns on any fork; Ray starts its processes by fork + exec
        warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        result = generate(tmp_path, "--backend", "ray")
        assert result.exit_code == 0, result.output
        assert f"media: {COUNT} rendered, 0 already complete, 0 failed" in result.stdout
        assert files(tmp_path) == files(reference)
        (tmp_path / "srbench_00003_steps.png").unlink()
        again = generate(tmp_path, "--backend", "ray")
        assert again.exit_code == 0 and f"media: 1 rendered, {COUNT - 1} already complete" in again.stdout
        assert files(tmp_path) == files(reference)
    finally:
        ray.shutdown()


def test_render_sends_family_items_to_generate_in_one_line_each(reference, tmp_path):
    """`render` draws MentalBlackboard-format items; a family item is named with the command that
    draws it (it said "InputError" before), the batch goes on, nothing is drawn for it."""
    items = reference / "srbench_items.json"
    done = runner.invoke(app, ["render", str(items), "--images", "--out", str(tmp_path / "media"), "--ids",
                               "srbench_00001,srbench_00002"])
    assert done.exit_code == 1, done.output
    lines = [line for line in done.output.splitlines() if line.startswith("error: ")]
    assert lines == [f"error: srbench_0000{k}: is a srbench family item: its images are drawn by `foldsim generate "
                     "--family srbench` (run it again with the same arguments, without --no-media, to add them)"
                     for k in (1, 2)]
    assert not list((tmp_path / "media").rglob("srbench_*"))
