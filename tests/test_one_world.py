"""One world (issue 17 item 9; docs/engine.md, "One world: sheets as data").

A sheet is data: code reads a family's `TriangleSheet` (foldsim.mesh), never one benchmark's
constants. The 32-triangle kernel's tables (foldsim/kernels/sheet.py) belong to MentalBlackboard's
fast path, so a static scan of every module fails, naming file and line, where anything else reads
them: an import of them, and also an attribute read through the kernels package (`K.sheet.GRID`),
which no import contract sees. The family's sheet gives exactly the tables the kernel and the
independent reference derive. (Who may import whom, render not importing the families included, is
the import contract's: pyproject.toml [tool.importlinter], tests/test_layers.py.)
"""

from __future__ import annotations

import ast
from fnmatch import fnmatch
from fractions import Fraction as Q
from pathlib import Path

import numpy as np
import pytest

from foldsim import reference as R
from foldsim.dataset.canonical import SYMMETRIES
from foldsim.families.registry import family
from foldsim.mentalblackboard_sheet import SHEET, location_to_rct, rct_to_location
from foldsim.kernels import sheet as KS

ROOT = Path(__file__).resolve().parents[1]
#: source folder -> the package its modules are imported as
PACKAGES = {"foldsim": "foldsim", "benchmarks": "benchmarks", "examples": "examples"}
SHEET_MODULE = "foldsim.kernels.sheet"
#: the kernel sheet's public names: importing them from any kernel module (which re-export some)
#: reads the same tables
SHEET_NAMES = {"FLAT_VERTICES", "FLAT_CENTROID_SUMS", "N_TRIANGLES", "HALF", "GRID", "QUARTER_ROTATIONS",
               "ROTATION_PERMUTATIONS", "grid_index_of_centroid_sums", "rct_to_location", "location_to_rct"}
#: who may read the kernel's sheet tables, and why
ALLOWED = (
    "foldsim/kernels/*",  # the 32-triangle fast path itself: its tables are its own
    "foldsim/mentalblackboard_sheet.py",  # MentalBlackboard's own sheet data builds SHEET from them
    "foldsim/trace.py",  # the fast path's own Python face: decodes kernel states onto the kernel's grid
)


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root)
    parts = [PACKAGES[rel.parts[0]], *rel.parts[1:-1]]
    if rel.stem != "__init__":
        parts.append(rel.stem)
    return ".".join(parts)


def _absolute(module_name: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom reads from (relative levels resolved)."""
    if not node.level:
        return node.module or ""
    package = module_name.split(".") if is_package else module_name.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path, root: Path = ROOT):
    """(line, absolute module name, local name) for every module-level or nested import in `path`;
    `from X import y` yields X.y (y may be a module or a name in X)."""
    name = _module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, alias.asname or alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(name, path.name == "__init__.py", node)
            for alias in node.names:
                yield node.lineno, f"{source}.{alias.name}", alias.asname or alias.name


def sheet_table_reads(path: Path, root: Path = ROOT) -> list[str]:
    """Every place `path` (a module under `root`) reads the kernel's sheet tables, as 'file:line: what'."""
    rel = path.relative_to(root)
    found, kernels_names = [], set()
    for line, target, local in _imports(path, root):
        source, _, last = target.rpartition(".")
        if target == SHEET_MODULE or target.startswith(SHEET_MODULE + "."):
            found.append((line, f"imports {target}"))
        elif source.startswith("foldsim.kernels") and last in SHEET_NAMES | {"*"}:
            found.append((line, f"imports {last} from {source}"))
        elif target == "foldsim.kernels":
            kernels_names.add(local)  # `from foldsim import kernels as K`, `from .. import kernels`
        elif target.startswith("foldsim.kernels.") and local == "foldsim":
            kernels_names.add("foldsim")  # `import foldsim.kernels.x` binds foldsim: foldsim.kernels.sheet
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr == "sheet"):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in kernels_names and value.id != "foldsim":
            found.append((node.lineno, f"reads {value.id}.sheet"))  # K.sheet.X
        elif isinstance(value, ast.Attribute) and value.attr == "kernels":
            found.append((node.lineno, "reads kernels.sheet"))  # foldsim.kernels.sheet.X, K_pkg.kernels.sheet
    return [f"{rel}:{line}: {what}" for line, what in sorted(set(found))]


def _allowed(path: Path) -> bool:
    return any(fnmatch(path.relative_to(ROOT).as_posix(), pattern) for pattern in ALLOWED)


@pytest.mark.parametrize("folder", ["foldsim", "benchmarks", "examples"])
def test_only_the_fast_path_and_its_family_read_the_kernel_sheet(folder):
    bad = [hit for path in _sources(folder) if not _allowed(path) for hit in sheet_table_reads(path)]
    assert not bad, "read the sheet as data (foldsim.mentalblackboard_sheet.SHEET, " \
        "Family.mesh(level)) and foldsim.mesh, not the kernel's tables:\n" + "\n".join(bad)


@pytest.mark.parametrize("source, expected", [
    ("from ..kernels import sheet\n", "imports foldsim.kernels.sheet"),
    ("from ..kernels.sheet import FLAT_VERTICES\n", "imports foldsim.kernels.sheet.FLAT_VERTICES"),
    ("import foldsim.kernels.sheet as S\n", "imports foldsim.kernels.sheet"),
    ("from ..kernels.state import N_TRIANGLES\n", "imports N_TRIANGLES from foldsim.kernels.state"),
    ("from .. import kernels as K\nn = K.sheet.N_TRIANGLES\n", "reads K.sheet"),
    ("import foldsim.kernels\nn = foldsim.kernels.sheet.GRID\n", "reads kernels.sheet"),
])
def test_the_scan_finds_every_spelling(tmp_path, source, expected):
    """A planted read in a module at foldsim/dataset/ is found (the scan is not vacuous)."""
    planted = tmp_path / "foldsim" / "dataset" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(source, encoding="utf-8")
    hits = sheet_table_reads(planted, tmp_path)
    assert any(hit.startswith("foldsim/dataset/planted.py:") and hit.endswith(expected) for hit in hits), hits


def test_clean_spellings_are_not_flagged(tmp_path):
    """Other `.sheet` attributes (a trace's state, an item's size) and the family's SHEET are fine."""
    planted = tmp_path / "foldsim" / "dataset" / "clean.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("from .. import kernels as K\nfrom ..mentalblackboard_sheet import SHEET\n"
                       "s = trace.sheet(0)\nx = item.sheet.cols\nK.fold_one\n", encoding="utf-8")
    assert sheet_table_reads(planted, tmp_path) == []


# -- the family's sheet is the kernel's sheet ----------------------------------------------------------


def test_the_family_sheet_has_the_kernel_tables():
    assert family("mentalblackboard").mesh() is SHEET
    assert SHEET.n_triangles == KS.N_TRIANGLES and (SHEET.cols, SHEET.rows, SHEET.per_unit) == (KS.GRID, KS.GRID, KS.HALF)
    assert np.array_equal(SHEET.vertices, KS.FLAT_VERTICES)
    assert np.array_equal(SHEET.centroid_sums, KS.FLAT_CENTROID_SUMS)
    assert np.array_equal(SHEET.turn_permutations, KS.ROTATION_PERMUTATIONS)
    assert all(rct_to_location(*location_to_rct(i)) == i for i in range(1, 33))
    assert [location_to_rct(i) for i in range(1, 33)] == [KS.location_to_rct(i) for i in range(1, 33)]


def _reference_index(point) -> int:
    return R.FLAT_CENTROIDS.index(point)


def test_the_sheet_symmetries_agree_with_the_reference_geometry():
    """Mirror, turns and every square symmetry (canonical forms) against exact Fraction geometry."""
    origin = (Q(0), Q(0))
    mirror = [_reference_index(R.reflect(c, origin, (Q(0), Q(1)))) for c in R.FLAT_CENTROIDS]
    assert SHEET.mirror_permutation.tolist() == mirror
    for k in range(4):
        assert SHEET.turn_permutations[k].tolist() == [_reference_index(R.rotate(c, k)) for c in R.FLAT_CENTROIDS]
    for g in SYMMETRIES:
        # g = turn by quarter_turns after the top-bottom mirror (if mirrored)
        images = [R.rotate((c[0], -c[1]) if g.mirrored else c, g.quarter_turns) for c in R.FLAT_CENTROIDS]
        assert g.locations.tolist() == [_reference_index(p) for p in images], g.name


def test_edge_neighbours_agree_with_the_reference_geometry():
    keys = [{tuple(p) for p in tri} for tri in R.FLAT]
    expected = [[a != b and len(keys[a] & keys[b]) == 2 for b in range(32)] for a in range(32)]
    assert SHEET.edge_neighbours.tolist() == expected


def test_every_family_has_a_sheet_and_its_symmetry_tables():
    """A general family's sheet is the engine's mesh of its level: four triangles per cell, the
    quarter turns a group of permutations on a square sheet, the mirror an involution, shared edges
    symmetric; a sheet that a quarter turn does not map onto itself says so."""
    from foldsim.mesh import TriangleSheet

    sheet = family("spatialviz").mesh("L2")
    assert (sheet.cols, sheet.rows, sheet.n_triangles) == (5, 5, 100)
    turns = sheet.turn_permutations
    assert np.array_equal(turns[0], np.arange(100)) and np.array_equal(turns[1][turns[3]], np.arange(100))
    assert np.array_equal(sheet.mirror_permutation[sheet.mirror_permutation], np.arange(100))
    assert np.array_equal(sheet.edge_neighbours, sheet.edge_neighbours.T)
    assert (sheet.edge_neighbours.sum(1) <= 3).all() and sheet.edge_neighbours.sum(1).min() == 2
    assert np.allclose(sheet.centroids.mean(0), 0) and sheet.index_of_centroid_sums(np.array([[999, 0]]))[0] == -1
    with pytest.raises(ValueError, match="not mapped onto itself"):
        TriangleSheet.rectangle("strip", 3, 2).turn_permutations
