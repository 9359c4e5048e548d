"""Planning tasks and hole keys: what a planning task asks for, and result holes as small integer
keys that sort and compare as multisets. Shared by the solver (core) and the verifier (eval)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InputError, describe
from .holes import SHAPE_PERIOD, SHAPES, SIZES, Hole, direction_value, parse_holes
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
    return (kind_of(hole) * 32 + hole.location - 1) * 4 + hole.quarter


def hole_of_key(key: int) -> Hole:
    """The Hole a key stands for (direction written canonically)."""
    kind, rest = divmod(int(key), 128)
    location0, quarter = divmod(rest, 4)
    shape, size = SHAPES[kind // 2], SIZES[kind % 2]
    return Hole(shape, size, direction_value(shape, quarter), location0 + 1)


def target_keys(tasks: Sequence["PlanningTask"]) -> np.ndarray:
    """int16[N, T]: each task's target keys sorted, padded with NO_HOLE (equal targets share work)."""
    by_target: dict[tuple[Hole, ...], list[int]] = {}
    rows = []
    for task in tasks:
        if task.target not in by_target:
            by_target[task.target] = sorted(map(key_of, task.target))
        rows.append(by_target[task.target])
    out = np.full((len(rows), max([1, *map(len, by_target.values())])), NO_HOLE, dtype=np.int16)
    for i, keys in enumerate(rows):
        out[i, : len(keys)] = keys
    return out


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


def planning_task(record: object, index: int) -> PlanningTask:
    """A PlanningTask from a MentalBlackboard planning record; never raises."""
    item = record_name(record, index)
    try:
        record = record_object(record, item)
        folds = record.get("numberofFoldingSteps")
        if folds is None and isinstance(record.get("foldingTypes"), list):
            folds = len(record["foldingTypes"])
        if isinstance(folds, bool) or not isinstance(folds, int) or folds < 1:
            raise InputError(f"{describe(folds)} is not a positive number of folds", field="numberofFoldingSteps")
        if not isinstance(record.get("resultHoles"), list):
            raise InputError("missing or not a list (the holes a plan must produce)", field="resultHoles")
        target = parse_holes(record["resultHoles"], "resultHoles")
    except InputError as err:
        return PlanningTask(item, error=str(err.at(item=item)))
    return PlanningTask(item, folds, target)


def read_tasks(path: str | Path) -> list[PlanningTask]:
    """The planning tasks of a file; raises InputError only when the file cannot be read."""
    return [planning_task(r, i) for i, r in enumerate(read_records(path))]
