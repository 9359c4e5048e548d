"""The package as a user gets it: the wheel built from this tree, installed somewhere else.

Fast (`make test`): build the wheel without build isolation (setuptools comes with the `test`
extra), check that it holds every module and every data file of the package folders (the list is
derived from the source tree: anything under a package folder that is not a Python cache), install
it into a fresh venv whose only foldsim is the wheel's copy (the dependencies are borrowed from the
running environment through a .pth line, which adds that folder to sys.path without running its own
.pth files, so the editable foldsim there stays off), then run the `foldsim` script from an empty
folder: --help, generate, score, requests (the prompt templates) and export's harness templates.

Clean (`make test-package`, FOLDSIM_TEST_PACKAGE=1): `pip install` the wheel into a bare venv,
every dependency resolved from the registry, and run the same commands.

Lowest bounds (`make test-lowest`): `python tests/test_package.py lowest-constraints EXTRAS` prints
a pip constraints file pinning every `>=` bound of pyproject.toml at its lower end;
`python tests/test_package.py check-lowest EXTRAS` checks that the running environment holds exactly
those versions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
CACHE_NAMES = {"__pycache__"}
CACHE_SUFFIXES = {".pyc", ".pyo"}


def _project() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- dependency bounds

def requirements(extras: list[str]) -> list:
    """The project's requirements (packaging Requirement objects): the core ones and those of `extras`."""
    from packaging.requirements import Requirement

    project = _project()["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        found += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return found


def lower_bounds(extras: list[str]) -> dict[str, str]:
    """name -> the version of its `>=` bound, for every requirement; a requirement without one is an error."""
    bounds: dict[str, str] = {}
    for req in requirements(extras):
        lows = [s.version for s in req.specifier if s.operator == ">="]
        if len(lows) != 1:
            raise ValueError(f"{req}: needs exactly one >= lower bound to be tested at its lower end")
        bounds[req.name.lower()] = lows[0]
    return bounds


def test_every_dependency_has_a_lower_bound():
    extras = list(_project()["project"]["optional-dependencies"])
    bounds = lower_bounds(extras)
    assert "jax" in bounds and "numpy" in bounds


# --------------------------------------------------------------------------- what the wheel must hold

def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """package name -> its source folder under `root`, from [tool.setuptools] packages and package-dir."""
    tool = _project()["tool"]["setuptools"]
    mapping = tool.get("package-dir", {})
    dirs = {}
    for package in tool["packages"]:
        # the nearest mapped ancestor decides the folder (foldsim.kernels -> kernels)
        parts = package.split(".")
        for cut in range(len(parts), 0, -1):
            head = ".".join(parts[:cut])
            if head in mapping:
                dirs[package] = root / mapping[head] / Path(*parts[cut:])
                break
        else:
            dirs[package] = root / Path(*parts)
    return dirs


def expected_files(root: Path = ROOT) -> set[str]:
    """Every file the wheel must carry, as its path inside the wheel: each package folder's
    modules, and every other file below it that is not a package of its own (data: templates,
    report assets, harness templates, ...)."""
    dirs = package_dirs(root)
    own = {path.resolve() for path in dirs.values()}
    files = set()
    for package, folder in dirs.items():
        target = Path(*package.split("."))
        for path in folder.rglob("*"):
            if not path.is_file() or path.suffix in CACHE_SUFFIXES or CACHE_NAMES & set(path.parts):
                continue
            rel = path.relative_to(folder)
            # a file inside a sub-package is that package's (it is listed there)
            owner = next((p for p in reversed(rel.parents[:-1]) if (folder / p).resolve() in own), None)
            if owner is not None:
                continue
            files.add((target / rel).as_posix())
    return files


def test_every_package_folder_is_declared():
    """A folder with an __init__.py under a package folder is a package the wheel must list."""
    dirs = package_dirs()
    own = {path.resolve() for path in dirs.values()}
    for folder in dirs.values():
        for init in folder.rglob("__init__.py"):
            if CACHE_NAMES & set(init.parts):
                continue
            assert init.parent.resolve() in own, f"{init.parent} is a package missing from [tool.setuptools] packages"


# --------------------------------------------------------------------------- building and installing

def _copy_source(dest: Path) -> Path:
    """The files a build reads, copied away from the working tree (whose build/ and egg-info of an
    earlier build could carry stale modules into the wheel)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, dest / name)
    tops = {Path(p).parts[0] for p in _project()["tool"]["setuptools"].get("package-dir", {}).values()}
    tops |= {p.split(".")[0] for p in _project()["tool"]["setuptools"]["packages"]}
    for top in sorted(tops):
        shutil.copytree(ROOT / top, dest / top, ignore=ignore)
    return dest


def build_wheel(out: Path, *, isolated: bool = False) -> Path:
    """The wheel of this tree, built in `out` from a copy of the sources. Not isolated (the fast
    test): the running environment's setuptools builds it, offline. Isolated: pip installs the
    declared build requirements from the registry first, as a user's pip does."""
    src = out / "src"
    src.mkdir(parents=True)
    _copy_source(src)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out / "dist"), str(src)]
    if not isolated:
        cmd[4:4] = ["--no-build-isolation", "--no-index"]
    _run(cmd, cwd=out)
    [wheel] = (out / "dist").glob("foldsim-*.whl")
    return wheel


def wheel_version(wheel: Path) -> str:
    return wheel.name.split("-")[1]


def _run(cmd: list, *, cwd: Path, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _clean_env(venv: Path) -> dict:
    """The environment a user's shell would give the venv's scripts: nothing pointing back here."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PYTHONNOUSERSITE="1", PYOPENGL_PLATFORM="egl", VIRTUAL_ENV=str(venv),
               PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    return env


def smoke(venv: Path, work: Path, version: str) -> None:
    """The installed package used as a user would, from a folder that holds no sources."""
    bin_ = venv / "bin"
    env = _clean_env(venv)
    where = _run([bin_ / "python", "-c",
                  "import importlib.metadata as m, foldsim, foldsim.kernels, foldsim.render, foldsim.eval;"
                  "print(foldsim.__version__, m.version('foldsim'));"
                  "print(foldsim.__file__); print(foldsim.kernels.__file__); print(foldsim.render.__file__)"],
                 cwd=work, env=env).stdout.split()
    assert where[0] == where[1] == version, where
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})).resolve()
    for path in where[2:]:
        assert Path(path).resolve().is_relative_to(site), f"foldsim imported from {path}, not from the wheel in {site}"

    help_ = _run([bin_ / "foldsim", "--help"], cwd=work, env=env).stdout
    assert "generate" in help_ and "score" in help_
    _run([bin_ / "foldsim", "generate", "--task", "prediction", "--group", "one_step", "--count", "1",
          "--seed", "1", "--text", "--out", "data"], cwd=work, env=env)
    truth = work / "data" / "PFHP_Prediction_Data.json"
    scored = _run([bin_ / "foldsim", "score", "prediction", truth, truth, "--json"], cwd=work, env=env).stdout
    import json

    assert json.loads(scored)["metrics"]["exact_match"] == 1.0
    # the prompt templates (package data) on the way to a model
    _run([bin_ / "foldsim", "requests", "data", "--task", "prediction", "--modality", "text", "--provider", "chat",
          "--out", "chat.jsonl"], cwd=work, env=env)
    first = json.loads((work / "chat.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert "paper folding" in json.dumps(first["messages"]).lower()


def fresh_venv_borrowing_deps(venv: Path) -> Path:
    """A new venv without pip whose site-packages sees this environment's packages only through
    a .pth line: a plain path entry, so the .pth files there (the editable foldsim) are not run."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    lines = dict.fromkeys(sysconfig.get_path(k) for k in ("purelib", "platlib"))
    (site / "_foldsim_test_deps.pth").write_text("".join(f"{p}\n" for p in lines), encoding="utf-8")
    return venv


# --------------------------------------------------------------------------- the tests

def test_wheel_installs_and_runs(tmp_path):
    wheel = build_wheel(tmp_path / "build")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    # the files of the sources the wheel was built from (the working tree may change meanwhile)
    missing = sorted(expected_files(tmp_path / "build" / "src") - names)
    assert not missing, f"the wheel lacks {missing}: declare them in [tool.setuptools.package-data]"
    dist_info = f"foldsim-{wheel_version(wheel)}.dist-info"
    assert f"{dist_info}/licenses/LICENSE" in names or f"{dist_info}/LICENSE" in names, "the wheel carries no LICENSE"
    meta = zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: MIT" in meta

    venv = fresh_venv_borrowing_deps(tmp_path / "venv")
    _run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q", "--no-deps",
          "--no-index", wheel], cwd=tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    smoke(venv, work, wheel_version(wheel))


@pytest.mark.skipif(not os.environ.get("FOLDSIM_TEST_PACKAGE"),
                    reason="the clean install downloads every dependency: `make test-package` runs it")
def test_clean_install_from_registry(tmp_path):
    """`pip install foldsim-*.whl` into a bare venv, every dependency from the registry."""
    wheel = build_wheel(tmp_path / "build", isolated=True)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], cwd=tmp_path, timeout=1800)
    work = tmp_path / "work"
    work.mkdir()
    smoke(venv, work, wheel_version(wheel))
    env = _clean_env(venv)
    # the extras the exports and the report's plots need, as the install page says
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", f"{wheel}[datasets,report]"], cwd=tmp_path,
         timeout=1800)
    # the harness templates (package data) of an export
    _run([venv / "bin" / "foldsim", "export", "data", "--format", "vlmevalkit", "--task", "prediction",
          "--modality", "text", "--out", "vlm"], cwd=work, env=env)
    assert list((work / "vlm").glob("*.py")), "the export wrote no dataset class"
    # the report page's assets
    truth = work / "data" / "PFHP_Prediction_Data.json"
    _run([venv / "bin" / "foldsim", "report", truth, truth, "--out", "report.html"], cwd=work, env=env)
    page = (work / "report.html").read_text(encoding="utf-8")
    assert "<style" in page and "<script" in page


# --------------------------------------------------------------------------- make test-lowest helpers

def _main(argv: list[str]) -> int:
    what, extras = argv[0], [e for e in (argv[1] if len(argv) > 1 else "").split(",") if e]
    bounds = lower_bounds(extras)
    if what == "lowest-constraints":
        print("# every >= bound of pyproject.toml at its lower end (tests/test_package.py)")
        for name, version in sorted(bounds.items()):
            print(f"{name}=={version}")
        return 0
    if what == "check-lowest":
        from packaging.version import Version

        wrong = [f"{n} {metadata.version(n)} (bound {v})" for n, v in sorted(bounds.items())
                 if Version(metadata.version(n)) != Version(v)]
        for line in wrong:
            print(f"not at its lower bound: {line}")
        print(f"{len(bounds) - len(wrong)} of {len(bounds)} requirements at their lower bound")
        return 1 if wrong else 0
    print(f"usage: {sys.argv[0]} lowest-constraints|check-lowest [EXTRA,...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
