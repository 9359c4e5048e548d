"""Exhaustive planning solver: every plan that reproduces a planning task's result holes.

The search space (what the planning prompt allows, and what `foldsim verify` accepts): a fold
sequence of exactly the task's length from `rules.PLANNING` (the physical sequences with no
rotation and -F folds only; -B folds put holes in the same places, so each solution stands for
2^folds F/B variants), then 1 or 2 punches, each of a shape and size from the target, at any grid
position and any direction class.

A **distinct solution** is a fold sequence (its -F codes) plus an unordered multiset of 1 or 2
punches (location, shape, size, direction class). Punching the same hole twice is a 2-punch
solution only when it reproduces the target, which then lists every hole twice.

How: per fold count, every sequence is folded once (`fold_batch`) and, for each (sequence, punch
location, punch direction), the result of a single punch is written as bit masks over the 32
result locations, one mask per result direction class. A punch meets each layer once and layers
unfold to distinct locations, so these masks are exact. For a target shape-size with count masks
C1 (>= 1 hole) and C2 (>= 2 holes) per direction class:

- a punch fits when its masks lie inside C1 (a sub-multiset of the target);
- it is a 1-punch solution when its masks equal C1 and C2 is empty;
- two punches of one shape-size solve it when V_j = (C1 & ~V_i) | (C2 & V_i) and C2 & ~V_i is
  empty, found by one vectorized join on (task, sequence, masks);
- for two shape-sizes, the exact punches of each are paired within a sequence.

A target needs more than 2 * 2^folds holes from 2 punches of at most 2^folds layers each, which
is the cheap counting bound; the search proves every other unsolvable task unsolvable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .enumerate import Progress, enumerate_space, fold_rows
from .holes import SHAPES, SIZES, Hole, direction_value
from .errors import debugging, describe, internal_error_text
from .io import read_records, record_name
from .rules import PLANNING
from .planning import PERIOD_OF_KIND, PlanningTask, kind_of, planning_task

CELLS = 32
BLOCK_TASKS = 64  # tasks searched together (bounds memory; one progress step each)


@dataclass(frozen=True)
class SequenceTable:
    """Every -F fold sequence of one length and the masks of every single punch.

    `masks[s, L, q, d]` (uint32): the result locations (bit = grid index) whose hole has direction
    d (quarter turns) when sequence s is punched at grid index L with direction q.
    """

    codes: tuple[tuple[str, ...], ...]
    masks: np.ndarray  # uint32[K, 32, 4, 4]

    def masks_for_period(self, period: int) -> np.ndarray:
        """The masks with directions reduced to classes mod `period` (unused classes empty)."""
        if period == 4:
            return self.masks
        reduced = np.zeros_like(self.masks)
        for d in range(4):
            reduced[..., d % period] |= self.masks[..., d]
        return reduced


def sequence_tables(fold_counts: Sequence[int]) -> dict[int, SequenceTable]:
    """Per fold count, every planning sequence (rules.PLANNING) folded once, its single punches
    tabulated; one enumeration and one kernel call for all of them."""
    patterns = ["F" * n for n in sorted(set(fold_counts))]
    table = enumerate_space(PLANNING, patterns)
    folded = fold_rows(table.actions)
    k = len(table)
    masks = np.zeros((k, CELLS, 4, 4), dtype=np.uint32)
    s = np.repeat(np.arange(k), CELLS)
    where = folded.grid_index.reshape(-1)
    bit = (np.uint32(1) << folded.unfolded.location.astype(np.uint32)).reshape(-1)
    sign, offset = folded.unfolded.sign.reshape(-1), folded.unfolded.offset.reshape(-1)
    for q in range(4):
        np.bitwise_or.at(masks, (s, where, np.full_like(s, q), (sign * q + offset) % 4), bit)
    codes = [tuple(c.split(",")) for c in table.codes()]
    rows = {p: np.flatnonzero(table.pattern == p) for p in patterns}
    return {len(p): SequenceTable(tuple(codes[i] for i in rows[p]), masks[rows[p]]) for p in patterns}


# -- targets ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Targets:
    """One row per (task, target shape-size): the kind, its period and its count masks."""

    task: np.ndarray  # int64[R]: task index within the block
    kind: np.ndarray  # int64[R]
    period: np.ndarray  # int64[R]
    c1: np.ndarray  # uint32[R, 4]: locations with >= 1 hole of that class
    c2: np.ndarray  # uint32[R, 4]: locations with >= 2 holes of that class
    slots: np.ndarray  # int64[T]: shape-sizes per task
    feasible: np.ndarray  # bool[T]: at most 2 shape-sizes and at most 2 equal holes


def targets_of(tasks: Sequence[PlanningTask]) -> Targets:
    """Count masks of each task's target holes, per shape-size."""
    task, kind, c1, c2 = [], [], [], []
    slots = np.zeros(len(tasks), dtype=np.int64)
    feasible = np.ones(len(tasks), dtype=bool)
    for i, t in enumerate(tasks):
        counts: dict[int, dict[tuple[int, int], int]] = {}
        for h in t.target:
            cell = counts.setdefault(kind_of(h), {})
            cell[(h.location - 1, h.quarter)] = cell.get((h.location - 1, h.quarter), 0) + 1
        slots[i] = len(counts)
        feasible[i] = len(counts) <= 2 and all(c <= 2 for cell in counts.values() for c in cell.values())
        for kd, cell in sorted(counts.items()):
            m1, m2 = np.zeros(4, np.uint32), np.zeros(4, np.uint32)
            for (loc, d), c in cell.items():
                m1[d] |= np.uint32(1 << loc)
                if c >= 2:
                    m2[d] |= np.uint32(1 << loc)
            task.append(i), kind.append(kd), c1.append(m1), c2.append(m2)
    kind_arr = np.asarray(kind, dtype=np.int64)
    return Targets(np.asarray(task, dtype=np.int64), kind_arr, PERIOD_OF_KIND[kind_arr].astype(np.int64),
                   np.asarray(c1, dtype=np.uint32).reshape(-1, 4), np.asarray(c2, dtype=np.uint32).reshape(-1, 4),
                   slots, feasible)


# -- search ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Punches:
    """Candidate single punches, one row each: target row, sequence, location, direction, masks."""

    row: np.ndarray  # int64[N]: index into Targets
    seq: np.ndarray  # int64[N]
    location: np.ndarray  # int64[N]: grid index
    quarter: np.ndarray  # int64[N]: direction class
    masks: np.ndarray  # uint32[N, 4]

    def where(self, mask: np.ndarray) -> "Punches":
        return Punches(self.row[mask], self.seq[mask], self.location[mask], self.quarter[mask], self.masks[mask])

    @staticmethod
    def concat(parts: Sequence["Punches"]) -> "Punches":
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return Punches(empty, empty, empty, empty, np.zeros((0, 4), np.uint32))
        columns = ("row", "seq", "location", "quarter", "masks")
        return Punches(*(np.concatenate([getattr(p, c) for p in parts]) for c in columns))


def fitting_punches(table: SequenceTable, targets: Targets) -> Punches:
    """Every single punch whose result is a non-empty sub-multiset of its target row."""
    found = []
    for period in np.unique(targets.period):
        rows = np.flatnonzero(targets.period == period)
        masks = table.masks_for_period(int(period))  # [K, 32, 4, 4]
        footprint = np.bitwise_or.reduce(masks[:, :, 0, :], axis=-1)  # [K, 32]: q-independent
        allowed = np.bitwise_or.reduce(targets.c1[rows], axis=-1)  # [r]
        r, s, loc = np.nonzero(((footprint[None] & ~allowed[:, None, None]) == 0) & (footprint[None] != 0))
        r, s, loc = (np.repeat(x, period) for x in (rows[r], s, loc))
        q = np.tile(np.arange(period), len(r) // period)
        v = masks[s, loc, q]  # [n, 4]
        inside = ((v & ~targets.c1[r]) == 0).all(1)
        found.append(Punches(r, s, loc, q, v).where(inside))
    return Punches.concat(found)


def join(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (i, j) with left[i] == right[j] (int64 rows), vectorized: a sort plus a ragged expansion."""
    if len(left) == 0 or len(right) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    _, ids = np.unique(np.concatenate([left, right]), axis=0, return_inverse=True)
    ids = ids.reshape(-1)
    left_ids, right_ids = ids[: len(left)], ids[len(left):]
    order = np.argsort(right_ids, kind="stable")
    ranked = right_ids[order]
    lo, hi = np.searchsorted(ranked, left_ids, "left"), np.searchsorted(ranked, left_ids, "right")
    counts = hi - lo
    i = np.repeat(np.arange(len(left)), counts)
    within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return i, order[np.repeat(lo, counts) + within]


@dataclass(frozen=True)
class Found:
    """Solutions of a block, columnar: task, sequence and one or two punches (second = -1 if none)."""

    task: np.ndarray  # int64[M]
    seq: np.ndarray
    first: np.ndarray  # int64[M]: index into the punches
    second: np.ndarray  # int64[M]: index into the punches, -1 for 1-punch solutions


def solutions_of(targets: Targets, punches: Punches) -> Found:
    """Every 1- and 2-punch solution (see the module docstring)."""
    c1, c2 = targets.c1[punches.row], targets.c2[punches.row]
    ok_task = targets.feasible[targets.task[punches.row]]
    slots = targets.slots[targets.task[punches.row]]
    exact = ok_task & (punches.masks == c1).all(1) & (c2 == 0).all(1)
    ones = np.flatnonzero(exact & (slots == 1))
    # one shape-size, two punches: V_j must equal what V_i leaves of the target
    rest = (c1 & ~punches.masks) | (c2 & punches.masks)
    pairable = ok_task & (slots == 1) & ((c2 & ~punches.masks) == 0).all(1)
    cand = np.flatnonzero(pairable)

    def key(masks: np.ndarray) -> np.ndarray:
        return np.column_stack([punches.row[cand], punches.seq[cand], masks[cand].astype(np.int64)])

    i, j = join(key(rest), key(punches.masks))
    i, j = cand[i], cand[j]
    keep = i <= j
    same_i, same_j = i[keep], j[keep]
    # two shape-sizes: an exact punch of the first with an exact punch of the second, same sequence
    two = exact & (slots == 2)
    first_kind = targets.kind[punches.row] == targets.kind[np.searchsorted(targets.task, targets.task[punches.row])]
    a, b = np.flatnonzero(two & first_kind), np.flatnonzero(two & ~first_kind)
    task_of = targets.task[punches.row]
    x, y = join(np.column_stack([task_of[a], punches.seq[a]]), np.column_stack([task_of[b], punches.seq[b]]))
    first = np.concatenate([ones, same_i, a[x]])
    second = np.concatenate([np.full(len(ones), -1), same_j, b[y]])
    return Found(task_of[first], punches.seq[first], first, second)


# -- results ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """A plan: -F fold codes and 1 or 2 punches (directions canonical)."""

    folds: tuple[str, ...]
    holes: tuple[Hole, ...]

    def to_dict(self) -> dict:
        return {"folds": list(self.folds), "holes": [h.to_dict() for h in self.holes]}


@dataclass(frozen=True)
class TaskSolutions:
    """All distinct solutions of one task, and the counting bound."""

    id: str
    folds: int
    holes: int  # target holes
    solutions: tuple[Solution, ...] = ()
    published_punches: int | None = None  # punches of the record's own plan, if it has one
    error: str = ""

    @property
    def count(self) -> int:
        return len(self.solutions)

    @property
    def one_punch(self) -> int:
        return sum(len(s.holes) == 1 for s in self.solutions)

    @property
    def two_punch(self) -> int:
        return sum(len(s.holes) == 2 for s in self.solutions)

    @property
    def over_bound(self) -> bool:
        """More holes than 2 punches through at most 2^folds layers each can make (never said of a
        task that could not be read: its fold count may be anything)."""
        return not self.error and self.holes > 2 * 2 ** self.folds

    def summary(self, *, with_solutions: bool = False) -> dict:
        out = {"id": self.id, "folds": self.folds, "holes": self.holes, "solutions": self.count,
               "one_punch": self.one_punch, "two_punch": self.two_punch, "over_bound": self.over_bound,
               "published_punches": self.published_punches}
        if self.error:
            out["error"] = self.error
        if with_solutions:
            out["plans"] = [s.to_dict() for s in self.solutions]
        return out


def _decode(table: SequenceTable, targets: Targets, punches: Punches, found: Found, rows: np.ndarray) -> tuple[Solution, ...]:
    """The Solution objects of one task (only the few found for it are turned into objects)."""
    out = []
    for m in rows:
        holes = []
        for p in (found.first[m], found.second[m]):
            if p < 0:
                continue
            kind = int(targets.kind[punches.row[p]])
            shape, size = SHAPES[kind // 2], SIZES[kind % 2]
            holes.append(Hole(shape, size, direction_value(shape, int(punches.quarter[p])), int(punches.location[p]) + 1))
        out.append(Solution(table.codes[found.seq[m]], tuple(holes)))
    return tuple(sorted(out, key=lambda s: (s.folds, [h.key for h in s.holes])))


def _task_error(task: PlanningTask) -> str:
    """Why a task cannot be searched ("" when it can)."""
    if task.error:
        return task.error
    if task.folds not in {len(p) for p in PLANNING.patterns}:
        return f"{task.id}: numberofFoldingSteps: no physical sequence has {describe(task.folds)} folds"
    return ""


def search(tasks: Sequence[PlanningTask], *, on_progress: Progress | None = None):
    """Search every searchable task, a block of tasks of one fold count at a time. Yields
    (task indices, their SequenceTable, Targets, Punches, Found), task indices in Found being
    positions within the block."""
    searchable = [t.folds for t in tasks if not _task_error(t)]
    if not searchable:  # nothing to fold (and no empty table to build)
        return
    tables = sequence_tables(searchable)
    for folds, table in tables.items():
        todo = [i for i, t in enumerate(tasks) if not _task_error(t) and t.folds == folds]
        for start in range(0, len(todo), BLOCK_TASKS):
            block = todo[start : start + BLOCK_TASKS]
            targets = targets_of([tasks[i] for i in block])
            punches = fitting_punches(table, targets)
            yield block, table, targets, punches, solutions_of(targets, punches)
            if on_progress:
                on_progress(len(block))


def _as_tasks(items: Sequence[PlanningTask | dict]) -> list[PlanningTask]:
    return [t if isinstance(t, PlanningTask) else _read_task(t, i) for i, t in enumerate(items)]


def _read_task(record: object, index: int) -> PlanningTask:
    """planning_task, where an unexpected exception is this task's internal error (named, counted
    among the errors), not the end of the run."""
    try:
        return planning_task(record, index)
    except Exception as err:  # noqa: BLE001
        if debugging():
            raise
        item = record_name(record, index)
        return PlanningTask(item, error=f"{item}: {internal_error_text(err)}")


def count_solutions(items: Sequence[PlanningTask | dict]) -> np.ndarray:
    """int64[N]: the number of distinct solutions of each task (-1 where the task cannot be searched),
    without building Solution objects."""
    tasks = _as_tasks(items)
    counts = np.array([-1 if _task_error(t) else 0 for t in tasks], dtype=np.int64)
    for block, _, _, _, found in search(tasks):
        counts[block] = np.bincount(found.task, minlength=len(block))
    return counts


def solve_tasks(items: Sequence[PlanningTask | dict], *, on_progress: Progress | None = None) -> list[TaskSolutions]:
    """All solutions of every task, in task order (records or PlanningTasks; bad ones get `error`)."""
    tasks = _as_tasks(items)
    published = [_published_punches(r) for r in items]
    results = [TaskSolutions(t.id, t.folds, len(t.target), published_punches=p, error=_task_error(t))
               for t, p in zip(tasks, published)]
    for block, table, targets, punches, found in search(tasks, on_progress=on_progress):
        order = np.argsort(found.task, kind="stable")
        bounds = np.searchsorted(found.task[order], np.arange(len(block) + 1))
        for k, i in enumerate(block):
            solutions = _decode(table, targets, punches, found, order[bounds[k] : bounds[k + 1]])
            results[i] = TaskSolutions(tasks[i].id, tasks[i].folds, len(tasks[i].target), solutions, published[i])
    if on_progress:
        on_progress(sum(1 for r in results if r.error))
    return results


def _published_punches(record: object) -> int | None:
    if isinstance(record, dict) and isinstance(record.get("initialHoles"), list):
        return len(record["initialHoles"])
    return None


def solve_file(path: str | Path, *, limit: int | None = None, on_progress: Progress | None = None) -> list[TaskSolutions]:
    """solve_tasks on the first `limit` records of a planning file; InputError if unreadable."""
    records = read_records(path)
    return solve_tasks(records[:limit] if limit is not None else records, on_progress=on_progress)


def solve_summary(results: Sequence[TaskSolutions]) -> dict:
    """The `--json` object of `foldsim solve`."""
    ok = [r for r in results if not r.error]
    three = [r for r in ok if r.published_punches is not None and r.published_punches > 2]
    return {
        "tasks": len(results),
        "solvable": sum(r.count > 0 for r in ok),
        "unsolvable": [r.id for r in ok if r.count == 0],
        "unsolvable_by_bound": [r.id for r in ok if r.over_bound],
        "errors": [r.error for r in results if r.error],
        "solutions": sum(r.count for r in ok),
        "published_three_punch": len(three),
        "published_three_punch_unsolvable": [r.id for r in three if r.count == 0],
        "published_three_punch_unsolvable_by_bound": [r.id for r in three if r.over_bound],
        "items": [r.summary() for r in results],
    }


def solutions_json(results: Sequence[TaskSolutions]) -> list[dict]:
    """What `--out` writes: every task's counts and its plans."""
    return [r.summary(with_solutions=True) for r in results]


def render_solve(summary: dict, console) -> None:
    """Solution counts per task group and the unsolvable tasks, with the counting bound."""
    from rich.table import Table

    items = summary["items"]
    table = Table("folds", "tasks", "solvable", "solutions", "min", "max", title="solutions per task", title_justify="left")
    for folds in sorted({i["folds"] for i in items if "error" not in i}):
        counts = [i["solutions"] for i in items if i["folds"] == folds and "error" not in i]
        table.add_row(str(folds), str(len(counts)), str(sum(c > 0 for c in counts)), str(sum(counts)),
                      str(min(counts)), str(max(counts)))
    console.print(table)
    unsolvable, bound = summary["unsolvable"], set(summary["unsolvable_by_bound"])
    console.print(f"[bold]{summary['solvable']}/{summary['tasks']} solvable[/]; {len(unsolvable)} proved unsolvable "
                  f"by exhaustive search, {len(bound)} of them already by the bound holes > 2 * 2^folds")
    if unsolvable:
        console.print("  " + ", ".join(f"{i}{'*' if i in bound else ''}" for i in unsolvable), markup=False)
        console.print("  [dim]* over the counting bound[/]")
    if summary["published_three_punch"]:
        console.print(f"published plans with 3 punches: {summary['published_three_punch']}, of which "
                      f"{len(summary['published_three_punch_unsolvable'])} have no plan with at most 2 punches "
                      f"({len(summary['published_three_punch_unsolvable_by_bound'])} by the bound)")
    if summary["errors"]:  # each one is an `error:` line on stderr (the CLI prints them)
        count = len(summary["errors"])
        console.print(f"[red]{count} task{'s' if count != 1 else ''} could not be read[/] and {'were' if count != 1 else 'was'} not searched")
