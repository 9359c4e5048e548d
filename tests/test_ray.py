"""`--backend ray`: media rendered as Ray tasks on a local Ray instance (one for the whole module,
2 CPUs, no dashboard) with the local workers' guarantees: the same bytes as `--workers 1`, resume,
one failing item reported while the others finish, Ray's own failures reported per item, a clear
one-line error when Ray is missing, and the tasks in flight cancelled when the run stops early."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest
import ray  # installed with foldsim[ray] (make test installs it): never skipped
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.dataset.backends import ray_jobs, task_error
from foldsim.dataset.media import LOCK_FILE, ItemPlan, Manifest, MediaRequest, _render_job, record_hash

runner = CliRunner()
DATA = "PFHP_Prediction_Data.json"
ARGS = ["generate", "--task", "prediction", "--group", "one_step", "--group", "two_step", "--count", "2",
        "--seed", "11", "--text", "--images"]
TINY_VIDEO = ["--video", "--width", "64", "--height", "48"]


@pytest.fixture(scope="module")
def local_ray():
    """One small local Ray instance for every test here, shut down at the end."""
    with warnings.catch_warnings():  # JAX warns on any fork; Ray starts its processes by fork + exec
        warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield ray
    ray.shutdown()


def files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != LOCK_FILE}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local")
    result = runner.invoke(app, [*ARGS, "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    return out


def test_ray_writes_the_same_bytes_as_one_local_worker_and_resumes(local_ray, local_run, tmp_path):
    result = runner.invoke(app, [*ARGS, "--out", str(tmp_path), "--backend", "ray"])
    assert result.exit_code == 0, result.output
    assert "media: 4 rendered, 0 already complete, 0 failed" in result.stdout
    assert files(tmp_path) == files(local_run)  # data file, media and manifests (sizes and hashes)
    again = runner.invoke(app, [*ARGS, "--out", str(tmp_path), "--backend", "ray"])
    assert again.exit_code == 0 and "media: 0 rendered, 4 already complete, 0 failed" in again.stdout


def test_a_video_on_ray_is_the_video_of_one_local_worker(local_ray, tmp_path):
    args = ["generate", "--task", "prediction", "--group", "one_step", "--count", "1", "--seed", "2", *TINY_VIDEO]
    local = runner.invoke(app, [*args, "--out", str(tmp_path / "local"), "--workers", "1"])
    on_ray = runner.invoke(app, [*args, "--out", str(tmp_path / "ray"), "--backend", "ray"])
    assert local.exit_code == on_ray.exit_code == 0, on_ray.output
    assert files(tmp_path / "ray") == files(tmp_path / "local")


def test_one_failing_item_is_reported_and_the_others_finish(local_ray, local_run, tmp_path):
    """PFHP_2's text file cannot be written (a folder stands where it goes): PFHP_2 fails inside its
    Ray task, with its own one-line reason; the three others are rendered and listed."""
    blocked = tmp_path / "img_text_outputs/PFHP_2/text/PFHP_2_textual_steps.txt"
    blocked.mkdir(parents=True)
    result = runner.invoke(app, ["render", str(local_run / DATA), "--out", str(tmp_path), "--text", "--backend", "ray"])
    assert result.exit_code == 1
    assert "media: 3 rendered, 0 already complete, 1 failed" in result.stdout
    [line] = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith("error: PFHP_2: ") and "Traceback" not in result.stderr
    for item_id in ("PFHP_1", "PFHP_3", "PFHP_4"):
        assert "text" in Manifest.read(tmp_path, item_id).modalities
    assert Manifest.read(tmp_path, "PFHP_2") is None


def test_ray_failures_become_one_line_reasons(local_ray):
    @ray.remote
    def broken():
        raise ValueError("PFHP_9: foldingTypes: bad\nsecond line")

    with pytest.raises(ray.exceptions.RayTaskError) as caught:
        ray.get(broken.remote())
    error = task_error(ray, caught.value)
    assert isinstance(error, ValueError) and str(error).splitlines()[0] == "PFHP_9: foldingTypes: bad"
    lost = task_error(ray, ray.exceptions.WorkerCrashedError())
    assert isinstance(lost, RuntimeError) and str(lost).startswith("Ray: WorkerCrashedError") and "\n" not in str(lost)


def test_stopping_early_cancels_the_tasks_in_flight(local_ray, local_run, tmp_path):
    records = json.loads((local_run / DATA).read_text())
    request = MediaRequest.of(text=True)
    plans = [ItemPlan(record, ("text",), Manifest(record["id"], record_hash(record), None)) for record in records]
    jobs = ray_jobs(_render_job, plans, str(tmp_path), request, workers=2)
    item_id, outcome = next(jobs)
    assert item_id in {r["id"] for r in records} and set(outcome) == {"text"}
    jobs.close()  # what an interrupt does: the generator's cleanup cancels the rest
    assert ray.is_initialized()  # a Ray instance the run did not start is left running


def test_missing_ray_is_one_line_before_any_work(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` sees when Ray is not installed
    result = runner.invoke(app, [*ARGS, "--out", str(tmp_path / "out"), "--backend", "ray"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --backend: Ray is not installed; install it with: pip install 'foldsim[ray]'"]
    assert not (tmp_path / "out").exists()


def test_an_unreachable_cluster_is_one_line_at_once(tmp_path):
    """Nothing listening at --address: one line naming it (exit 2) after a TCP try, not Ray's minutes
    of retries. The CLI in a fresh process, so the module's local Ray instance is not the one reached."""
    import socket
    import subprocess

    from foldsim.dataset.backends import check_reachable
    from foldsim.errors import InputError

    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    result = subprocess.run([sys.executable, "-m", "foldsim", *ARGS, "--out", str(tmp_path / "out"), "--backend",
                             "ray", "--address", address], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: --address: cannot reach the Ray cluster at {address}: ")
    for bad, words in ((f"ray://{address}", "cannot reach"), ("127.0.0.1:http", "is not HOST:PORT")):
        with pytest.raises(InputError, match=words):
            check_reachable(bad)
    check_reachable("auto")  # left to Ray
