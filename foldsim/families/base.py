"""The one family interface: a benchmark family's rules as data (levels with sheet size, fold and
hole counts; allowed lines; the side rule; the punch rule) plus small predicates, a sampler of
candidate items, the family's own distractor rules and its own file format (docs/families.md).
`foldsim.families.generate.generate_family` turns any family into keyed multiple-choice items,
`foldsim.families.registry.FAMILIES` maps names to families; writing a run (files, media, splits)
is the dataset layer's (foldsim.dataset.families).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError, describe
from ..limits import FAMILY_ITEM_BYTES
from ..sheets import SIDE_SIGNS, Fold, PointHole, SheetItem

Q = Fraction
LABELS = "ABCDEFGH"


@dataclass(frozen=True)
class Level:
    """One difficulty level: sheet `cols` x `rows`, `folds` and `holes` as inclusive ranges."""

    name: str
    cols: int
    rows: int
    folds: tuple[int, int]
    holes: tuple[int, int] = (1, 1)

    def to_dict(self) -> dict:
        return {"name": self.name, "sheet": f"{self.cols}x{self.rows}", "folds": list(self.folds),
                "holes": list(self.holes)}


@dataclass
class Plan:
    """A sampled candidate: the general item and what the family knows about it without the engine
    (its own fold names, the moving side of each fold where known, punch cells or pixels ...)."""

    item: SheetItem
    level: str
    info: dict = field(default_factory=dict)
    #: per fold: the named side that moves (None where only the engine knows)
    movers: tuple[str | None, ...] = ()


@dataclass
class Option:
    holes: tuple[PointHole, ...]
    error: str | None
    detail: dict


class Family:
    """Rules as data plus predicates; subclasses fill in the sampler, distractors and format."""

    name = ""
    summary = ""
    levels: dict[str, Level] = {}
    lines = ""  # the allowed fold lines, in words
    side_rule = ""  # which side moves, in words
    punch_rule = ""  # where punches go, in words
    n_options = 4
    task_type = "Choice"
    native_file = ""  # the family's own format file in the output folder
    #: the family's own distractor rules, by their names
    distractor_rules: tuple[str, ...] = ()
    #: bytes one of its records holds until a run writes them all (the --count bound's unit)
    item_bytes = FAMILY_ITEM_BYTES
    #: how the open-ended task names holes: "cell" (row, col) when every hole is at a cell centre,
    #: else "point" (exact x, y)
    hole_names = "point"
    #: the multiple-choice question, as the family words it (the composite image shows the rest)
    question = ("The top row of the image shows a sheet of paper being folded (each fold drawn as a dashed line, "
                "the arrow shows which part moves) and, last, the folded paper with the holes punched through it. "
                "Which option below shows the paper after it is completely unfolded?")

    # -- data ----------------------------------------------------------------------------------

    def level(self, name: str | None) -> Level:
        if name is None:
            return next(iter(self.levels.values()))
        if name not in self.levels:
            raise InputError(f"must be one of {', '.join(self.levels)} for {self.name}, got {describe(name)}",
                             field="--level")
        return self.levels[name]

    def mesh(self, level: str | None = None):
        """The level's flat sheet as a `foldsim.mesh.TriangleSheet` (the general engine's finest
        common mesh of its cells): what sheet-speaking code (drawing, symmetry tables) reads."""
        from ..mesh import TriangleSheet

        lv = self.level(level)
        return TriangleSheet.rectangle(f"{self.name}:{lv.name}", lv.cols, lv.rows)

    def rules(self) -> dict:
        return {"family": self.name, "summary": self.summary, "levels": [lv.to_dict() for lv in self.levels.values()],
                "lines": self.lines, "side_rule": self.side_rule, "punch_rule": self.punch_rule,
                "options": self.n_options, "task_type": self.task_type,
                "distractor_rules": list(self.distractor_rules)}

    # -- to be provided -------------------------------------------------------------------------

    def sample(self, rng: random.Random, level: Level) -> Plan | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def rule_violations(self, item: SheetItem, level: Level) -> list[str]:
        """What in `item` breaks the family's rules at `level` (empty: it follows them)."""
        return base_violations(item, level)

    def offset_variants(self, plan: Plan) -> list[tuple[dict, SheetItem]]:
        """Wrong-crease-offset variants: the same item with one fold line moved to a neighbouring
        allowed line of the family."""
        return []

    def family_distractors(self, plan: Plan, key: tuple[PointHole, ...], rng: random.Random) -> list[Option]:
        """The family's own distractor rules, computed exactly from the key (and the plan)."""
        return []

    def native_rows(self, record: dict) -> list[dict]:  # pragma: no cover - abstract
        raise NotImplementedError

    def native_text(self, rows: list[dict]) -> str:
        """The family's own file: a JSON list by default."""
        import json

        return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"

    def count_space(self, level: Level, on_progress: Callable[[int], None] | None = None) -> dict:
        raise NotImplementedError  # pragma: no cover - abstract


def base_violations(item: SheetItem, level: Level) -> list[str]:
    out = []
    if (item.sheet.cols, item.sheet.rows) != (level.cols, level.rows):
        out.append(f"sheet {item.sheet.cols}x{item.sheet.rows}, level {level.name} has {level.cols}x{level.rows}")
    folds = [a for a in item.actions if isinstance(a, Fold)]
    if len(folds) != len(item.actions):
        out.append("rotations or flips are not part of this family")
    if not level.folds[0] <= len(folds) <= level.folds[1]:
        out.append(f"{len(folds)} folds, level {level.name} has {level.folds[0]}..{level.folds[1]}")
    if not level.holes[0] <= len(item.punches) <= level.holes[1]:
        out.append(f"{len(item.punches)} punches, level {level.name} has {level.holes[0]}..{level.holes[1]}")
    return out


def opposite(family: str, side: str) -> str:
    a, b = SIDE_SIGNS[family]
    return b if side == a else a


#: shapes whose drawing does not change when turned: their direction is no part of what an option shows
ROUND_SHAPES = frozenset({"circle"})


def seen_as(hole: PointHole) -> PointHole:
    """The hole as an option shows it: a circle's direction (carried through the layers' isometries)
    is invisible, so it is set to 0; a shape that looks the same after a half or quarter turn
    (foldsim.holes.SHAPE_PERIOD: MentalBlackboard's ellipse, square ...) keeps its direction only up
    to that turn, the way the benchmark writes it."""
    from ..holes import SHAPE_PERIOD

    if hole.shape in ROUND_SHAPES:
        direction = 0
    elif hole.shape in SHAPE_PERIOD:
        direction = hole.direction % (90 * SHAPE_PERIOD[hole.shape])
    else:
        return hole
    if direction == hole.direction:
        return hole
    return PointHole(hole.x, hole.y, hole.shape, hole.size, direction, hole.mirrored)


def hole_key(holes: Sequence[PointHole]) -> tuple:
    """A hole multiset as a hashable value, as it is seen (PointHole equality: position, shape, size,
    direction; circles' directions ignored)."""
    return tuple(sorted(seen_as(h) for h in holes))


def holes_to_json(holes: Sequence[PointHole]) -> list[dict]:
    return [h.to_dict() for h in sorted(holes)]


def holes_from_json(rows: object, where: str) -> tuple[PointHole, ...]:
    """PointHoles from [{"x", "y", "shape", "size", "direction"}] (InputError naming `where`)."""
    from ..sheets import PUNCH_SHAPES, PUNCH_SIZES, as_fraction

    if not isinstance(rows, list):
        raise InputError(f"must be a list of holes, got {describe(rows)}", field=where)
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(f"must be an object, got {describe(row)}", field=f"{where}[{i}]")
        try:
            direction = row.get("direction", 0)
            if isinstance(direction, bool) or not isinstance(direction, int):
                raise InputError(f"must be whole degrees, got {describe(direction)}", field="direction")
            for key, allowed, default in (("shape", PUNCH_SHAPES, "circle"), ("size", PUNCH_SIZES, "small")):
                value = row.get(key, default)
                if not isinstance(value, str) or value not in allowed:
                    raise InputError(f"must be one of {', '.join(allowed)}, got {describe(value)}", field=key)
            mirrored = row.get("mirrored", False)
            if not isinstance(mirrored, bool):
                raise InputError(f"must be true or false, got {describe(mirrored)}", field="mirrored")
            out.append(PointHole(as_fraction(row.get("x"), "x"), as_fraction(row.get("y"), "y"),
                                 row.get("shape", "circle"), row.get("size", "small"), direction % 360, mirrored))
        except InputError as err:
            raise InputError(err.message, field=f"{where}[{i}].{err.field}") from None
    return tuple(sorted(out))


# -- counting the space with the batched kernel ---------------------------------------------------


def count_sequences(cols: int, rows: int, alphabets: Sequence[Sequence[Fold]], *, min_folds: int = 1,
                    on_progress: Callable[[int], None] | None = None, resolution: int = 1) -> dict[int, int]:
    """Realizable fold sequences of 1..len(alphabets) folds (fold k from alphabets[k-1]), counted level
    by level on the engine's batched kernel: the realizable prefixes of level k-1 times the alphabet
    of step k, all rows in one batched run per level (non-realizable prefixes dropped). A line off
    the mesh restarts the count on a finer mesh, so counts stay exact."""
    import numpy as np

    from ..engine import encode_action, rectangle_mesh, run_mesh
    from ..kernels import engine as E
    from ..kernels.state import CREASE_CUTS_TRIANGLE, OK

    r = resolution
    while True:
        mesh = rectangle_mesh(cols, rows, r)
        counts: dict[int, int] = {}
        prefixes = np.zeros((1, 0, E.ACTION_WIDTH), np.int32)
        finer = 0
        for k, alphabet in enumerate(alphabets, 1):
            table = np.array([encode_action(a, cols, rows, r) for a in alphabet], np.int32)
            n, a = len(prefixes), len(table)
            rows_ = np.concatenate([np.repeat(prefixes, a, 0), np.tile(table, (n, 1))[:, None, :]], 1)
            width = max(4, k)
            padded = np.zeros((len(rows_), width, E.ACTION_WIDTH), np.int32)
            padded[:, :k] = rows_
            out = run_mesh(mesh, padded, np.zeros((len(rows_), 2, 3), np.int32))
            code = np.asarray(out.status.code)
            if (code == E.OFF_LATTICE).any():
                finer = int(np.asarray(out.status.triangle)[code == E.OFF_LATTICE].max())
                break
            if (code == CREASE_CUTS_TRIANGLE).any():
                finer = 2
                break
            if on_progress:
                on_progress(len(rows_))
            prefixes = rows_[code == OK]
            if k >= min_folds:
                counts[k] = int(len(prefixes))
        if not finer:
            return counts
        r *= max(2, finer)
