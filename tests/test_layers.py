"""The import contract (issue 24; docs/development.md, "Architecture"): one-way layers, independent
families, no import cycles, checked by import-linter (`lint-imports`, pyproject.toml
[tool.importlinter]), and the layers picture in docs/development.md drawn from the same imports.

The contract is not vacuous: planted imports that break each of its rules, in a copy of the
package, are reported by name (import-linter builds its graph from the folder it is run in).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())"]


def lint(folder: Path) -> subprocess.CompletedProcess:
    """`lint-imports` with the checkout's contract on the foldsim package found in `folder`."""
    return subprocess.run([*LINT, "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=folder,
                          capture_output=True, text=True, timeout=300)


def test_the_code_keeps_the_contract():
    run = lint(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


#: (module of a copy of foldsim/, code appended to it, what lint-imports must name): an import up
#: the layers from each layer, one at module level or inside a function alike
UPWARD = [
    ("kernels/step.py", "def _planted():\n    from ..sheets import Fold\n", "foldsim.kernels.step -> foldsim.sheets"),
    ("sheets.py", "def _planted():\n    from .eval import rewards\n", "foldsim.sheets -> foldsim.eval.rewards"),
    ("render/text.py", "from ..families import base\n", "foldsim.render.text -> foldsim.families.base"),
    ("families/audit.py", "from ..dataset import media\n", "foldsim.families.audit -> foldsim.dataset.media"),
    ("dataset/levels.py", "def _planted():\n    from ..eval import prompts\n", "foldsim.dataset.levels -> foldsim.eval.prompts"),
    ("eval/item.py", "def _planted():\n    from ..outputs import export\n", "foldsim.eval.item -> foldsim.outputs.export"),
]
#: one family importing another, the JAX core importing a drawing library
SIDEWAYS = [("families/spatialviz.py", "from .srbench import SRBENCH\n"),
            ("kernels/motion.py", "def _planted_pil():\n    import PIL\n")]
#: a cycle inside the model, through an import inside a function (simulate imports engine)
CYCLE = [("engine.py", "def _planted_cycle():\n    from .simulate import simulate\n")]


def lint_planted(folder: Path, plants, new_modules: dict[str, str] | None = None) -> str:
    """lint-imports' report on a copy of foldsim/ (in `folder`) with `plants` appended to its modules
    and `new_modules` (name -> text) added."""
    shutil.copytree(ROOT / "foldsim", folder / "foldsim", ignore=shutil.ignore_patterns("__pycache__"))
    for name, text, *_ in plants:
        module = folder / "foldsim" / name
        module.write_text(module.read_text(encoding="utf-8") + "\n\n" + text, encoding="utf-8")
    for name, text in (new_modules or {}).items():
        (folder / "foldsim" / name).write_text(text, encoding="utf-8")
    run = lint(folder)
    assert run.returncode != 0, run.stdout
    return run.stdout


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> str:
    """The report on a copy with every upward and sideways plant, and a new module directly in
    foldsim/ that the contract's layers do not name."""
    return lint_planted(tmp_path_factory.mktemp("planted"), UPWARD + SIDEWAYS,
                        {"unplaced.py": '"""A module no layer names."""\n'})


def _section(report: str, contract: str) -> str:
    """The broken-contract section of `report` for the contract whose name starts with `contract`."""
    broken = report.split("Broken contracts")[-1]
    assert contract in broken, report
    return broken.split(contract, 1)[1]


@pytest.mark.parametrize("name, text, reported", UPWARD, ids=[p[0] for p in UPWARD])
def test_a_planted_upward_import_is_reported(planted, name, text, reported):
    assert reported in _section(planted, "one-way layers"), planted


def test_a_module_no_layer_names_is_reported(planted):
    """A new module directly in foldsim/ must be placed in a layer of the contract first."""
    assert "unplaced" in _section(planted, "one-way layers"), planted


def test_a_family_importing_another_is_reported(planted):
    section = _section(planted, "each benchmark family stands alone")
    assert "foldsim.families.spatialviz" in section and "foldsim.families.srbench" in section, planted


def test_the_kernels_importing_a_drawing_library_is_reported(planted):
    assert "foldsim.kernels.motion -> PIL" in _section(planted, "the JAX core imports JAX and NumPy only"), planted


def test_a_cycle_is_reported(tmp_path):
    report = lint_planted(tmp_path, CYCLE)
    section = _section(report, "no import cycles")
    assert ".engine -> .simulate" in section or ".simulate -> .engine" in section, report


def test_the_architecture_picture_is_fresh():
    """docs/development.md's picture is what tools/architecture.py draws from today's imports
    (`make architecture` redraws it)."""
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "architecture.py"), "--check"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


#: past this many lines a module needs a reason in its docstring (docs/development.md, Architecture)
MAX_MODULE_LINES = 600


def test_a_module_past_600_lines_says_why():
    """Modules are sized by what they own: a longer one states why in its docstring ("Size ...")."""
    import ast

    silent = []
    for path in sorted((ROOT / "foldsim").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_MODULE_LINES and "Size (" not in (ast.get_docstring(ast.parse(text)) or ""):
            silent.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert not silent, "split these by what they own, or say why not in the docstring:\n" + "\n".join(silent)
