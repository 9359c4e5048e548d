"""The documentation: the site builds strictly, every page is reachable, the README's links resolve
and its figures are the ones benchmarks/results.json holds."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def _nav_files(items) -> list[str]:
    found = []
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        found += _nav_files(value) if isinstance(value, list) else [value]
    return found


def _optional() -> set[str]:
    sys.path.insert(0, str(DOCS))
    try:
        import hooks  # docs/hooks.py: pages that join the nav once their file exists
    finally:
        sys.path.remove(str(DOCS))
    return set(hooks.OPTIONAL)


def test_strict_site_build(tmp_path):
    """mkdocs build --strict: a broken link or anchor, a page missing from the nav, a module the API
    reference cannot read, any warning fails it."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert (tmp_path / "site" / "api" / "kernels" / "index.html").exists()
    # the API reference was generated from the docstrings, not left empty
    api = (tmp_path / "site" / "api" / "foldsim" / "index.html").read_text(encoding="utf-8")
    assert "simulate_arrays" in api and "Config" in api


def test_every_page_is_in_the_nav():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = _nav_files(config["nav"])
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert not pages - set(listed), f"pages missing from mkdocs.yml's nav: {sorted(pages - set(listed))}"
    missing = [p for p in listed if p not in pages and p not in _optional()]
    assert not missing, f"nav entries without a page: {missing}"


def test_readme_starts_with_the_two_commands_and_its_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert text.startswith("# foldsim\n\n```\nmake demo\nmake test\n```\n"), "make demo / make test must come first"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
    assert "pip install foldsim" not in text  # no such package on PyPI


def _cpu_results() -> tuple[dict, dict]:
    devices = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))["devices"]
    name = next(n for n, d in devices.items() if d["machine"]["jax_backend"] == "cpu")
    return devices[name]["machine"], devices[name]["families"]


def test_readme_figures_are_those_of_results_json():
    """The README quotes `make bench`'s CPU entry; after a new run, update the README's table."""
    _, fam = _cpu_results()
    space = fam["simulate"]["batches"][-1]
    render = [item for item in fam["render"]["items"]]
    fps = [r["fast"]["frames_per_s"] for r in render]
    gains = [r["speedup"] for r in render]
    # (not the entry's date: a partial run, `--only FAMILY`, refreshes it without touching these)
    expected = {
        "whole space": f"{space['kernel']['steady_s'] * 1000:.0f} ms",
        "whole space speed-up": f"{space['speedup']:,.0f}×",
        "compact path": f"{fam['simulate']['compact']['path']['steady_s'] * 1000:.0f} ms",
        "verify": f"{fam['verify']['fast']['steady_s']:.2f} s",
        "verify speed-up": f"{fam['verify']['speedup_vs_loop']:,.0f}×",
        "reward": f"{fam['rewards']['planning_correct']['steady_s']:.2f} s",
        "reward speed-up": f"{fam['rewards']['planning_correct']['speedup']:,.0f}×",
        "render": f"{min(fps):.0f}–{max(fps):.0f} frames/s",
        "render speed-up": f"{min(gains):.1f}–{max(gains):.1f}×",
    }
    text = README.read_text(encoding="utf-8")
    stale = {k: v for k, v in expected.items() if v not in text}
    assert not stale, f"README figures differ from benchmarks/results.json: expected {stale}"
