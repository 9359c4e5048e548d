"""`make test-harness`: foldsim's exports run through the real harnesses, each in its own venv.

Environments (under $HARNESS_DIR, default .harness/, ignored by git; reused while their
requirements are unchanged):

- lmms:    lmms-eval (PyPI, $LMMS_EVAL_VERSION, default 0.7.3) + torch (CPU wheel) + foldsim
- vlmeval: VLMEvalKit from the source checkout $VLMEVALKIT_SRC (it is on no registry; copied to
           $HARNESS_DIR/vlmevalkit-src, where the exported dataset class is registered) + foldsim
- trl:     TRL (PyPI, $TRL_VERSION, default 1.16.0) + torch + foldsim
- dslow:   `datasets` at the lowest version pyproject.toml declares + foldsim

Then, on one small generated prediction set (train / validation / test items; images, video):
lmms_check.py (TaskManager and CLI with a recording chat model, on a moved export),
lmms_record_check.py (a record family's yes/no items exported in STARE's task shape), vlmeval_check.py
(dataset building and run.py against a loopback OpenAI-compatible server, a plain chat model and
the InternVL3 adapter that has its own prompt builder), trl_check.py (TRL's own reward call; and
trl_record_check.py, the record families' rewards) and
datasets_check.py (export and load at the lower bound). A harness that cannot be installed is a
FAILED line saying why; the run exits 1 unless every check passed.

    python3 tests/harness/run.py [--only lmms,vlmeval,trl,datasets]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HARNESS = Path(os.environ.get("HARNESS_DIR", ROOT / ".harness")).resolve()
TORCH = os.environ.get("TORCH_VERSION", "2.13.0")  # the CPU wheel; plain `torch` would pull a CUDA build
TORCHVISION = os.environ.get("TORCHVISION_VERSION", "0.28.0")  # the release made for that torch
LMMS_EVAL = os.environ.get("LMMS_EVAL_VERSION", "0.7.3")
TRL = os.environ.get("TRL_VERSION", "1.16.0")
HARNESSES = ("lmms", "vlmeval", "trl", "datasets")


class Unavailable(Exception):
    """A harness that cannot be installed here (the message says why)."""


def log(message: str) -> None:
    print(f"[harness] {message}", flush=True)


def datasets_lower_bound() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    found = re.search(r'"datasets>=([0-9][0-9.]*)', text)
    if not found:
        raise Unavailable("pyproject.toml declares no `datasets>=` bound")
    return found.group(1)


def foldsim_requirements() -> list:
    """What foldsim's editable install pulls in (a venv is rebuilt when it changes)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [project.get("requires-python"), project.get("dependencies"),
            project.get("optional-dependencies", {}).get("datasets")]


def run(command: list[str], *, cwd: Path | None = None, env: dict | None = None, timeout: int = 3600,
        check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:6])} ... exited {done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")
    return done


def venv(name: str, installs: list[list[str]], extra_key: str = "") -> Path:
    """A venv under HARNESS with `installs` (pip argument lists, in order), rebuilt only when they,
    foldsim's requirements or extra_key change. Unavailable when pip fails (its last lines say why)."""
    folder = HARNESS / name
    key = hashlib.sha256(json.dumps([installs, foldsim_requirements(), extra_key, TORCH, TORCHVISION]).encode()).hexdigest()
    stamp = folder / ".foldsim-harness-stamp"
    if stamp.is_file() and stamp.read_text() == key and (folder / "bin" / "python").is_file():
        return folder
    log(f"{name}: creating the environment in {folder}")
    shutil.rmtree(folder, ignore_errors=True)
    run([sys.executable, "-m", "venv", str(folder)])
    pip = [str(folder / "bin" / "python"), "-m", "pip"]
    # every install of every venv keeps torch at the CPU wheel: without the constraint a dependency
    # asking for the newest torchvision makes pip replace it with a CUDA build (7 GB)
    constraints = HARNESS / "constraints.txt"
    constraints.write_text(f"torch=={TORCH}\ntorchvision=={TORCHVISION}\n")
    for args in [["--upgrade", "pip"], *installs]:
        if args[0] == "uninstall":
            done = run([*pip, "uninstall", "-q", "-y", *args[1:]], check=False)
        elif args[0] == "shim":
            purelib = run([str(folder / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
            site = Path(purelib.stdout.strip())
            shutil.copyfile(HERE / "torchvision_shim.py", site / "_foldsim_harness_torchvision.py")
            (site / "_foldsim_harness_torchvision.pth").write_text("import _foldsim_harness_torchvision\n")
            continue
        else:
            done = run([*pip, "install", "-q", "--disable-pip-version-check", "-c", str(constraints), *args],
                       timeout=3600, check=False)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
            raise Unavailable(f"pip install {' '.join(args)} failed:\n{tail}")
    stamp.write_text(key)
    return folder


def foldsim_install() -> list[str]:
    return ["-e", f"{ROOT}[datasets]"]


#: torchvision on PyPI is the CUDA build (its _C.so needs libc10_cuda.so, which the CPU torch wheel
#: lacks: importing it fails with "operator torchvision::nms does not exist" and takes transformers
#: down). Nothing these checks run needs it, and transformers skips torchvision when it is absent.
NO_TORCHVISION = ["uninstall", "torchvision"]
#: VLMEvalKit imports torchvision when it loads: there, torchvision stays and a start-up shim defines
#: the two op schemas its import registers fake kernels for (tests/harness/torchvision_shim.py)
TORCHVISION_SHIM = ["shim"]


def vlmevalkit_source() -> tuple[Path, str]:
    """The VLMEvalKit checkout named by VLMEVALKIT_SRC, copied to HARNESS/vlmevalkit-src (the copy
    gets the exported dataset class registered; the user's checkout is never touched)."""
    source = os.environ.get("VLMEVALKIT_SRC")
    if not source:
        raise Unavailable("VLMEVALKIT_SRC is not set: VLMEvalKit is on no package registry; clone "
                          "https://github.com/open-compass/VLMEvalKit and set VLMEVALKIT_SRC to the checkout")
    source_path = Path(source).expanduser().resolve()
    if not (source_path / "vlmeval" / "dataset" / "__init__.py").is_file() or not (source_path / "run.py").is_file():
        raise Unavailable(f"VLMEVALKIT_SRC={source_path} is not a VLMEvalKit checkout (no vlmeval/dataset, run.py)")
    revision = run(["git", "-C", str(source_path), "rev-parse", "HEAD"], check=False).stdout.strip() or "no-git"
    copy = HARNESS / "vlmevalkit-src"
    marker = copy / ".foldsim-harness-source"
    wanted = f"{source_path}@{revision}"
    if not (marker.is_file() and marker.read_text() == wanted):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(source_path, copy, ignore=shutil.ignore_patterns(".git", "outputs", "__pycache__"))
        marker.write_text(wanted)
    return copy, revision


def make_dataset(python: Path, work: Path) -> Path:
    """Twelve one/two-fold prediction items with 2-D images and videos (six per group), put in
    train / validation / test as 3 : 1 : 2."""
    data = work / "data"
    if (data / "PFHP_Prediction_Data.json").is_file():
        return data
    foldsim = [str(python), "-m", "foldsim.cli"]
    run([*foldsim, "generate", "--task", "prediction", "--group", "one_step", "--group", "two_step", "--count", "6",
         "--seed", "7", "--images", "--video", "--width", "160", "--height", "120", "--workers", "2",
         "--out", str(data)], env=dict(os.environ, PYOPENGL_PLATFORM="egl"))
    path = data / "PFHP_Prediction_Data.json"
    records = json.loads(path.read_text())
    for index, record in enumerate(records):
        record["split"] = ("train", "train", "train", "validation", "test", "test")[index % 6]
    path.write_text(json.dumps(records, indent=1))
    return data


def export(python: Path, data: Path, fmt: str, modality: str, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    run([str(python), "-m", "foldsim.cli", "export", str(data), "--format", fmt, "--task", "prediction",
         "--modality", modality, "--out", str(out), "--workers", "1"], env=dict(os.environ, PYOPENGL_PLATFORM="egl"))


def check_script(python: Path, script: str, *args: str, env: dict | None = None) -> None:
    command = [str(python), str(HERE / script), *map(str, args)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail: list[str] = []
    for line in process.stdout:
        if line.startswith(("[lmms-eval]", "[vlmeval]", "[trl]", "[datasets]")):
            print(line, end="", flush=True)
        tail = (tail + [line])[-40:]
    if process.wait() != 0:
        raise RuntimeError(f"{script} failed:\n{''.join(tail)}")


def harness_lmms(work: Path) -> None:
    # filelock<4: lmms-eval 0.7.3's evaluator imports filelock._api, which filelock 4 no longer has
    # (ModuleNotFoundError inside the CLI, which still exits 0)
    env = venv("lmms", [[f"torch=={TORCH}", f"lmms-eval=={LMMS_EVAL}"], foldsim_install(), NO_TORCHVISION,
                        ["--no-build-isolation", "-e", str(HERE / "plugin")], ["filelock<4"]])
    python = env / "bin" / "python"
    data = make_dataset(python, work)
    exports = work / "lmms-exports"
    shutil.rmtree(exports, ignore_errors=True)
    for modality in ("images", "video"):
        export(python, data, "lmms-eval", modality, work / "lmms-first" / f"lmms_{modality}")
    exports.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(work / "lmms-first"), exports)  # a moved export must load
    check_script(python, "lmms_check.py", exports, data, work / "lmms-run")
    check_script(python, "lmms_record_check.py", work / "lmms-record")  # a record family in STARE's shape


def harness_vlmeval(work: Path) -> None:
    source, revision = vlmevalkit_source()
    # rouge-score: VLMEvalKit imports rouge_score when it loads, and its requirements list only `rouge`
    env = venv("vlmeval", [[f"torch=={TORCH}"], ["-e", str(source)], ["rouge-score"], foldsim_install(),
                           TORCHVISION_SHIM], revision)
    python = env / "bin" / "python"
    data = make_dataset(python, work)
    out = work / "vlm-export"
    export(python, data, "vlmevalkit", "images", out)
    refused = run([str(python), "-m", "foldsim.cli", "export", str(data), "--format", "vlmevalkit", "--task",
                   "prediction", "--modality", "video", "--out", str(work / "vlm-video")], check=False)
    if refused.returncode != 2 or len(refused.stderr.strip().splitlines()) != 1:
        raise RuntimeError(f"a video export for VLMEvalKit must be refused with one line and exit 2, got "
                           f"{refused.returncode}: {refused.stderr}")
    log(f"vlmeval: video export refused (exit 2): {refused.stderr.strip()}")
    check_script(python, "vlmeval_check.py", source, out, data, work / "vlmeval-run")


def harness_trl(work: Path) -> None:
    env = venv("trl", [[f"torch=={TORCH}", f"trl=={TRL}"], foldsim_install(), NO_TORCHVISION])
    python = env / "bin" / "python"
    data = make_dataset(python, work)
    export(python, data, "hf", "images", work / "trl-hf")
    check_script(python, "trl_check.py", work / "trl-hf", data, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    check_script(python, "trl_record_check.py", work / "trl-record")  # the record families' rewards


def harness_datasets(work: Path) -> None:
    bound = datasets_lower_bound()
    env = venv("dslow", [[*foldsim_install(), f"datasets=={bound}"]])
    python = env / "bin" / "python"
    data = make_dataset(python, work)
    check_script(python, "datasets_check.py", bound, data, work / "dslow-run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(HARNESSES), help="comma-separated: " + ", ".join(HARNESSES))
    args = parser.parse_args()
    chosen = [h for h in args.only.split(",") if h]
    unknown = [h for h in chosen if h not in HARNESSES]
    if unknown:
        sys.exit(f"error: --only: unknown harness {', '.join(unknown)} (expected {', '.join(HARNESSES)})")
    HARNESS.mkdir(parents=True, exist_ok=True)
    work = HARNESS / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    steps = {"lmms": harness_lmms, "vlmeval": harness_vlmeval, "trl": harness_trl, "datasets": harness_datasets}
    outcome = {}
    for name in chosen:
        started = time.monotonic()
        log(f"{name}: start")
        try:
            steps[name](work)
        except Unavailable as problem:
            outcome[name] = f"FAILED (cannot be installed here: {problem})"
        except Exception as problem:  # noqa: BLE001 (any failure of a check is reported, not hidden)
            outcome[name] = f"FAILED: {problem}"
        else:
            outcome[name] = "passed"
        log(f"{name}: {outcome[name]} ({time.monotonic() - started:.0f} s)")
    print("\nmake test-harness:")
    for name, result in outcome.items():
        print(f"  {name}: {result.splitlines()[0]}")
    sys.exit(0 if all(r == "passed" for r in outcome.values()) else 1)


if __name__ == "__main__":
    main()
