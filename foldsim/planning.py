"""Planning tasks and hole keys: what a planning task asks for, and result holes as small integer
keys that sort and compare as multisets. Shared by the solver (core) and the verifier (eval)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from .errors import InputError, describe
from .codes import canonical_code, code_of_entry
from .holes import SHAPE_PERIOD, SHAPES, SIZES, Hole, direction_value, parse_hole, parse_holes
from .io import read_records, record_name, record_object

NO_HOLE = np.iinfo(np.int16).max  # sorts after every hole key


# -- hole keys -------------------------------------------------------------------------------------

#: period (directions that look alike, in quarter turns) of each shape-size id = 2 * shape + size
PERIOD_OF_KIND = np.array([SHAPE_PERIOD[s] for s in SHAPES for _ in SIZES], dtype=np.int16)


def kind_of(hole: Hole) -> int:
    """Shape-size id 0..17 of a hole."""
    return 2 * SHAPES.index(hole.shape) + SIZES.index(hole.size)


def hole_key(kind: np.ndarray, location0: np.ndarray, quarter: np.ndarray) -> np.ndarray:
    """int16 key of holes: (shape-size id, grid index 0..31, direction class), ordered that way."""
    kind = np.asarray(kind, dtype=np.int16)
    return (kind * 32 + location0) * 4 + np.asarray(quarter) % PERIOD_OF_KIND[kind]


def key_of(hole: Hole) -> int:
    """`hole_key` of one Hole, in plain Python (its quarter is already reduced by the period)."""
    return _key_of_fields(hole.shape, hole.size, hole.direction, hole.location)


@lru_cache(maxsize=8192)
def _key_of_fields(shape: str, size: str, direction: int | str, location: int) -> int:
    """key_of, remembered: a task file repeats the same few thousand holes, and reading a Hole's
    direction class parses its direction each time."""
    hole = Hole(shape, size, direction, location)
    return (kind_of(hole) * 32 + location - 1) * 4 + hole.quarter


def hole_of_key(key: int) -> Hole:
    """The Hole a key stands for (direction written canonically)."""
    kind, rest = divmod(int(key), 128)
    location0, quarter = divmod(rest, 4)
    shape, size = SHAPES[kind // 2], SIZES[kind % 2]
    return Hole(shape, size, direction_value(shape, quarter), location0 + 1)


def target_keys(tasks: Sequence["PlanningTask"]) -> np.ndarray:
    """int16[N, T]: each task's target keys sorted, padded with NO_HOLE (equal targets share a row)."""
    index: dict[tuple[int, ...], int] = {}
    rows = np.fromiter((index.setdefault(task.keys, len(index)) for task in tasks), dtype=np.int64, count=len(tasks))
    unique = np.full((max(len(index), 1), max([1, *map(len, index)])), NO_HOLE, dtype=np.int16)
    for keys, row in index.items():
        unique[row, : len(keys)] = keys
    return unique[rows] if len(tasks) else unique[:0]


def multiset_difference(have: np.ndarray, want: np.ndarray) -> tuple[list[int], list[int]]:
    """(keys in `want` not in `have`, keys in `have` not in `want`), as multisets; NO_HOLE ignored."""
    have_counts, want_counts = (Counter(keys[keys != NO_HOLE].tolist()) for keys in (have, want))
    return sorted((want_counts - have_counts).elements()), sorted((have_counts - want_counts).elements())


# -- tasks -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanningTask:
    """A planning task: its id, the number of folds a plan must use, and the target result holes.
    `error` is set (and the rest empty) when the record cannot be read."""

    id: str
    folds: int = 0
    target: tuple[Hole, ...] = ()
    error: str = ""
    keys: tuple[int, ...] | None = field(default=None, repr=False, compare=False)  # the target's hole keys, sorted

    def __post_init__(self) -> None:
        if self.keys is None:
            object.__setattr__(self, "keys", tuple(sorted(map(key_of, self.target))))


class ReadMemo:
    """`parse_holes` and `code_of_entry` remembering what they read: a file of many records repeats
    a few thousand distinct holes and fold entries, and reading one costs microseconds. One memo per
    file read; the same results as the plain functions (errors included)."""

    def __init__(self) -> None:
        self._holes: dict[tuple, Hole] = {}
        self._lists: dict[tuple, tuple[Hole, ...]] = {}  # equal lists share one tuple (and its hole keys)
        self._codes: dict[tuple, str] = {}
        self._canonical: dict[str, str] = {}
        self._keys: dict[int, tuple] = {}  # id(hole tuple) -> (the tuple, its keys): holding it keeps the id valid

    def holes(self, items: object, field_name: str) -> tuple[Hole, ...]:
        if not isinstance(items, list):
            return parse_holes(items, field_name)
        out, specs = [], []
        for i, obj in enumerate(items):
            try:  # the values and their types (True == 1, but True is no location)
                shape, size, direction, location = obj["shape"], obj["size"], obj.get("direction", ""), obj["location"]
                spec = (shape, size, direction, location, shape.__class__, size.__class__, direction.__class__,
                        location.__class__)
                hole = self._holes.get(spec)
            except (TypeError, KeyError, AttributeError):
                spec, hole = None, None
            if hole is None:
                try:
                    hole = parse_hole(obj)
                except InputError as err:
                    raise err.at(field_prefix=f"{field_name}[{i}]") from None
                if spec is not None:
                    self._holes[spec] = hole
            out.append(hole)
            specs.append(spec)
        if None in specs:
            return tuple(out)
        return self._lists.setdefault(tuple(specs), tuple(out))

    def keys(self, holes: tuple[Hole, ...]) -> tuple[int, ...]:
        """The sorted hole keys of a hole tuple `holes()` returned (shared tuples share their keys)."""
        known = self._keys.get(id(holes))
        if known is None or known[0] is not holes:
            known = self._keys[id(holes)] = (holes, tuple(sorted(map(key_of, holes))))
        return known[1]

    def canonical(self, code: object) -> str:
        """`canonical_code`, remembered for string codes."""
        if code.__class__ is not str:
            return canonical_code(code)
        known = self._canonical.get(code)
        if known is None:
            known = self._canonical[code] = canonical_code(code)
        return known

    def code(self, entry: object) -> str:
        try:
            spec = (entry["foldType"], entry["foldType"].__class__, entry.get("foldToFront", True),
                    entry.get("foldToFront", True).__class__) if entry.__class__ is dict else None
            code = self._codes.get(spec) if spec is not None else None
        except (TypeError, KeyError):  # an unhashable foldType, or none: the plain reader says why
            spec, code = None, None
        if code is None:
            code = code_of_entry(entry)
            if spec is not None:
                self._codes[spec] = code
        return code


def planning_task(record: object, index: int, *, memo: ReadMemo | None = None) -> PlanningTask:
    """A PlanningTask from a MentalBlackboard planning record; never raises. `memo` speeds up
    reading many records (see ReadMemo)."""
    item = record_name(record, index)
    try:
        record = record_object(record, item)
        folds = task_folds(record)
        if not isinstance(record.get("resultHoles"), list):
            raise InputError("missing or not a list (the holes a plan must produce)", field="resultHoles")
        target = memo.holes(record["resultHoles"], "resultHoles") if memo else parse_holes(record["resultHoles"], "resultHoles")
    except InputError as err:
        return PlanningTask(item, error=str(err.at(item=item)))
    return PlanningTask(item, folds, target, keys=memo.keys(target) if memo else None)


#: the most folds a planning task may ask for (far beyond any plan; the verifier keeps counts in int16)
MAX_TASK_FOLDS = 2**15 - 1


def task_folds(record: dict) -> int:
    """The number of folds a planning record asks for: `numberofFoldingSteps`, else the length of
    `foldingTypes`; InputError when it is not a positive integer."""
    folds = record.get("numberofFoldingSteps")
    if folds is None and isinstance(record.get("foldingTypes"), list):
        folds = len(record["foldingTypes"])
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 1:
        raise InputError(f"{describe(folds)} is not a positive number of folds", field="numberofFoldingSteps")
    if folds > MAX_TASK_FOLDS:  # the verifier's fold-count column is int16
        raise InputError(f"{describe(folds)} folds: more than any plan can hold ({MAX_TASK_FOLDS:,})", field="numberofFoldingSteps")
    return folds


def read_tasks(path: str | Path) -> list[PlanningTask]:
    """The planning tasks of a file; raises InputError only when the file cannot be read."""
    memo = ReadMemo()
    return [planning_task(r, i, memo=memo) for i, r in enumerate(read_records(path))]


# -- replay by table lookup ------------------------------------------------------------------------

#: a plan folds at most this many times with no rotation, so its fold sequence is one of
#: 8 + 8^2 + 8^3 + 8^4 = 4,680 (a -B fold lands every hole where its -F twin does)
TABLE_FOLDS = 4
_FIRST_INDEX = np.cumsum([0] + [8**k for k in range(1, TABLE_FOLDS + 1)])  # first sequence index per length


@dataclass(frozen=True)
class SequenceTable:
    """What every fold sequence of 1..TABLE_FOLDS -F folds does to a punch at every grid position:
    the kernel's fold status (code, failing step, cut triangle) and, per (sequence, punch location),
    up to 2^TABLE_FOLDS result holes as their grid index (-1 = none) and `PunchTable` direction map."""

    status: np.ndarray  # int32[S]
    step: np.ndarray  # int32[S]
    triangle: np.ndarray  # int32[S]
    location: np.ndarray  # int8[S, 32, 16]: grid index of each hole a punch at L makes, -1 padding
    direction_map: np.ndarray  # int8[S, 32, 16]


def sequence_rows() -> np.ndarray:
    """int32[4680, TABLE_FOLDS]: every -F fold sequence (actions 1..8), NOOP-padded, shortest first
    and lexicographic within a length: the order `sequence_index` numbers them in."""
    from itertools import product

    return np.array([[1 + t for t in types] + [0] * (TABLE_FOLDS - k)
                     for k in range(1, TABLE_FOLDS + 1) for types in product(range(8), repeat=k)], dtype=np.int32)


@cache
def sequence_table() -> SequenceTable:
    """The table, computed once per process on first use (two batched kernel calls over 4,680 rows,
    a fraction of a second after compilation) and never changed."""
    from .enumerate import fold_rows, punch_everywhere

    rows = sequence_rows()
    punched = punch_everywhere(rows)
    folded = fold_rows(rows).status
    layers = 2**TABLE_FOLDS
    order = np.argsort(punched.holes < 0, axis=-1, kind="stable")[..., :layers]  # the hit grid indices first
    maps = np.take_along_axis(punched.holes, order, axis=-1)
    return SequenceTable(punched.status.astype(np.int32), np.asarray(folded.step, np.int32),
                         np.asarray(folded.triangle, np.int32), np.where(maps >= 0, order, -1).astype(np.int8),
                         maps.astype(np.int8))


def table_replayable(actions: np.ndarray) -> np.ndarray:
    """bool[R]: rows of kernel actions (NOOP-padded) the table covers: 1..TABLE_FOLDS folds, no rotation."""
    from .kernels import actions as A

    actions = np.asarray(actions)
    used = actions != A.NOOP
    folds = used.sum(1)
    only_folds = ~(used & ((actions < A.FIRST_FOLD_FRONT) | (actions >= A.FIRST_ROTATION))).any(1)
    beyond = used[:, TABLE_FOLDS:].any(1) if actions.shape[1] > TABLE_FOLDS else np.zeros(len(actions), bool)
    return (folds >= 1) & (folds <= TABLE_FOLDS) & only_folds & ~beyond


def sequence_index(actions: np.ndarray) -> np.ndarray:
    """int64[R]: the table row of each replayable action row (-B folds read as their -F twins)."""
    actions = np.asarray(actions)[:, :TABLE_FOLDS].astype(np.int64)
    used = actions != 0
    index = np.zeros(len(actions), dtype=np.int64)
    for column in range(TABLE_FOLDS):
        index = np.where(used[:, column], index * 8 + (actions[:, column] - 1) % 8, index)
    return index + _FIRST_INDEX[used.sum(1) - 1]


def table_replay(actions: np.ndarray, locations: np.ndarray, quarters: np.ndarray, kinds: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's replay of replayable rows by table gathers: (status, step, triangle, sorted hole
    keys int16[R, P' * 16]), the same holes as `simulate_batch` followed by `hole_key` (P' = the
    punch columns in use). `locations` are grid indices (-1 = unused punch), `quarters` direction
    classes, `kinds` shape-size ids, all [R, P]."""
    from .kernels import OFF_PAPER, OK

    table = sequence_table()
    rows = sequence_index(actions)
    status, step, triangle = table.status[rows], table.step[rows], table.triangle[rows]
    used = locations >= 0
    columns = int(np.flatnonzero(used.any(0)).max(initial=-1)) + 1
    used, locations = used[:, :columns], locations[:, :columns]
    quarters, kinds = quarters[:, :columns].astype(np.int16), kinds[:, :columns].astype(np.int16)
    at = (rows[:, None], np.maximum(locations, 0))
    landing, maps = table.location[at].astype(np.int16), table.direction_map[at].astype(np.int16)  # [R, P', 16]
    missed = used & (landing[..., 0] < 0)
    off = (status == OK) & missed.any(1)
    status = np.where(off, OFF_PAPER, status).astype(np.int32)
    step = np.where(off, missed.argmax(1) if columns else 0, step).astype(np.int32)
    quarter = quarters[..., None]
    directions = np.where(maps >= 4, maps - quarter, maps + quarter) & 3
    keys = ((kinds[..., None] * 32 + landing) * 4 + (directions & (PERIOD_OF_KIND[kinds][..., None] - 1))).astype(np.int16)
    hit = (landing >= 0) & used[..., None] & (table.status[rows] == OK)[:, None, None]
    keys = np.where(hit, keys, NO_HOLE).reshape(len(rows), -1)
    keys.sort(axis=1)
    return status, step, triangle.astype(np.int32), keys
