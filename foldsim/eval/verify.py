"""Bulk planning verifier: replay every proposed plan in one batched kernel call and judge it.

A plan is correct iff it parses, all its codes are known, it has no rotation, it uses exactly the
task's number of folds, it punches at most 2 holes, every hole is well formed, every fold is
realizable, every punch meets paper, and its result-hole multiset equals the task's resultHoles
(directions by class). Each item gets the FIRST failing reason, checked in this order:

    invalid_task, missing_answer, parse_error, unknown_code, has_rotation, wrong_fold_count,
    too_many_punches, invalid_hole, not_realizable, off_paper, holes_differ

Every plan whose codes and holes can be encoded is replayed, whatever its verdict, so callers
(the planning scorer) also get the result holes of plans that break a rule.

The hot path is vectorized: plans become kernel arrays, the kernel runs once (in fixed chunks), and
result holes become integer keys (shape-size, location, direction class) sorted per row, which
compare as multisets column by column; Hole objects are only made when asked for.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from .. import kernels as K
from .answers import PLAN_KEYS, Answer, index_answers, load_answers
from ..codes import parse_action
from ..batching import run_chunked
from ..enumerate import WIDTH, Progress, pad_actions
from ..errors import InputError
from ..holes import Hole
from ..planning import (
    NO_HOLE, PlanningTask, hole_key, hole_of_key, kind_of, multiset_difference, planning_task,
    read_tasks, target_keys,
)

CORRECT = "correct"
REASONS = (
    "invalid_task", "missing_answer", "parse_error", "unknown_code", "has_rotation", "wrong_fold_count",
    "too_many_punches", "invalid_hole", "not_realizable", "off_paper", "holes_differ",
)
MAX_PUNCHES = 2
PUNCH_COLUMNS = 4  # kernel punch columns; more only when some plan has more holes

_CODE = {name: i + 1 for i, name in enumerate((CORRECT, *REASONS))}  # reason -> small int (0 unused)
_NAME = np.array(["", CORRECT, *REASONS])


# -- verdicts --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """The columnar result of one batched replay: kernel status per item and sorted hole keys of
    the replayed result and of the target (NO_HOLE-padded)."""

    status: np.ndarray  # int32[N]: kernel status code, -1 for items not replayed
    step: np.ndarray  # int32[N]: failing action (or punch) index, 0-based
    triangle: np.ndarray  # int32[N]: grid index a crease cuts, -1 if none
    result: np.ndarray  # int16[N, W]
    target: np.ndarray  # int16[N, T]


@dataclass(frozen=True)
class Verdict:
    """The judgement on one planning item.

    `reason` is "correct" or the first failing reason (module docstring); `detail` says it in one
    line. `steps` (actions incl. rotations) and `punches` describe the plan as given (None when it
    did not parse). `result_holes()` are the replayed holes (empty when it was not replayed).
    """

    id: str
    reason: str
    folds: int | None = None
    steps: int | None = None
    punches: int | None = None
    codes: tuple[str, ...] = ()
    note: str = ""  # the detail known before replaying
    replay: Replay | None = field(default=None, repr=False, compare=False)
    row: int = field(default=-1, repr=False, compare=False)

    @property
    def correct(self) -> bool:
        return self.reason == CORRECT

    @property
    def replayed(self) -> bool:
        """The kernel ran this plan (its codes and holes could be encoded)."""
        return self.replay is not None and self.replay.status[self.row] >= 0

    @property
    def folded(self) -> bool:
        """The plan was replayed and every fold was realizable, so its result holes mean something
        (an off-paper punch just adds none)."""
        return self.replayed and self.replay.status[self.row] in (K.OK, K.OFF_PAPER)

    def result_holes(self) -> tuple[Hole, ...]:
        """The replayed result holes, in key order (directions canonical); empty unless `folded`."""
        if not self.folded:
            return ()
        keys = self.replay.result[self.row]
        return tuple(hole_of_key(k) for k in keys[keys != NO_HOLE])

    def differences(self) -> tuple[tuple[Hole, ...], tuple[Hole, ...]]:
        """(target holes the replay lacks, replayed holes the target lacks); empty unless `folded`."""
        if not self.folded:
            return (), ()
        missing, extra = multiset_difference(self.replay.result[self.row], self.replay.target[self.row])
        return tuple(map(hole_of_key, missing)), tuple(map(hole_of_key, extra))

    @cached_property
    def detail(self) -> str:
        if self.note or self.reason in (CORRECT, "missing_answer"):
            return self.note
        status, step = int(self.replay.status[self.row]), int(self.replay.step[self.row])
        if self.reason == "not_realizable":
            triangle = int(self.replay.triangle[self.row])
            cut = f": its crease cuts triangle {triangle + 1}" if triangle >= 0 else (
                ": the folded shape's box diagonal is not at 45 degrees" if status == K.OBLIQUE_CREASE
                else ": one side of its crease holds no paper")
            return f"fold {self.codes[step]} (action {step + 1}) is not realizable{cut}"
        if self.reason == "off_paper":
            return f"punch {step + 1} is not on the folded paper"
        missing, extra = self.differences()
        parts = [f"missing {[h.to_dict() for h in missing]}" if missing else "",
                 f"extra {[h.to_dict() for h in extra]}" if extra else ""]
        return "; ".join(p for p in parts if p)

    def to_dict(self) -> dict:
        return {"id": self.id, "correct": self.correct, "reason": self.reason, "detail": self.detail,
                "folds": self.folds, "steps": self.steps, "punches": self.punches}


@dataclass(frozen=True)
class _Encoded:
    """Kernel inputs for the replayable plans, and every item's pre-replay verdict."""

    early: np.ndarray  # int8[N]: reason code decided before replaying, 0 if none
    replayed: np.ndarray  # int64[R]: item index of each replayed row
    actions: np.ndarray  # int32[R, S]
    locations: np.ndarray  # int32[R, P]: grid index, -1 unused
    quarters: np.ndarray  # int32[R, P]
    kinds: np.ndarray  # int16[R, P]: shape-size id
    verdicts: list[Verdict]  # without replay


def _encode(tasks: Sequence[PlanningTask], answers: dict[str, Answer]) -> _Encoded:
    """Parse every plan into codes and holes (per item: this is the parsing step) and decide the
    reasons that need no replay."""
    memo: dict = {}  # code tokens and predicted holes already converted in this call
    early = np.zeros(len(tasks), dtype=np.int8)
    verdicts, rows, actions, punches = [], [], [], []
    for i, task in enumerate(tasks):
        verdict, encoded = _judge_plan(task, answers.get(task.id), memo)
        verdicts.append(verdict)
        if verdict.reason != CORRECT:
            early[i] = _CODE[verdict.reason]
        if encoded is not None:
            rows.append(i)
            actions.append(encoded[0])
            punches.append(encoded[1])
    width = max([WIDTH, *(len(a) for a in actions)])
    n_punch = max([PUNCH_COLUMNS, *(len(p) for p in punches)])
    act = np.full((len(rows), width), K.actions.NOOP, dtype=np.int32)
    punch = np.zeros((len(rows), n_punch, 3), dtype=np.int32)
    punch[:, :, 0] = -1
    for r, (a, holes) in enumerate(zip(actions, punches)):
        act[r, : len(a)] = a
        punch[r, : len(holes)] = np.reshape(holes, (-1, 3))
    return _Encoded(early, np.asarray(rows, dtype=np.int64), act, punch[..., 0], punch[..., 1],
                    punch[..., 2].astype(np.int16), verdicts)


def _action_of(token: str, memo: dict) -> int | None:
    """Kernel int of a code token, None when it is not a code."""
    if token not in memo:
        try:
            memo[token] = parse_action(token)
        except InputError:
            memo[token] = None
    return memo[token]


def _punch_of(predicted, memo: dict) -> tuple[int, int, int] | None:
    """(grid index, direction class, shape-size id) of a predicted hole, None when it is not a
    proper hole with one direction class."""
    if predicted not in memo:
        hole = predicted.hole()
        memo[predicted] = None if hole is None else (hole.location - 1, hole.quarter, kind_of(hole))
    return memo[predicted]


def _judge_plan(task: PlanningTask, answer: Answer | None, memo: dict) -> tuple[Verdict, tuple | None]:
    """The pre-replay verdict of one item (reason "correct" = nothing found yet), and its kernel
    encoding (action ints, punches) when it can be replayed."""
    base = dict(id=task.id, folds=task.folds or None)
    if task.error:
        return Verdict(reason="invalid_task", note=task.error, **base), None
    if answer is None:
        return Verdict(reason="missing_answer", note="no answer with this id", **base), None
    if not answer.ok:
        return Verdict(reason="parse_error", note=f"answer {answer.status}: {answer.reason}", **base), None
    if not any(k in (answer.data or {}) for k in PLAN_KEYS):
        return Verdict(reason="parse_error", note="the answer has no plan (folds and holes)", **base), None
    plan = answer.plan()
    if plan.notes:
        return Verdict(reason="parse_error", note="; ".join(plan.notes), **base), None
    described = dict(steps=len(plan.folds), punches=len(plan.holes), codes=plan.folds, **base)
    ints = [_action_of(token, memo) for token in plan.folds]
    if None in ints:
        i = ints.index(None)
        return Verdict(reason="unknown_code", note=f"folds[{i}]: unknown code {plan.folds[i]!r}", **described), None
    holes = [_punch_of(predicted, memo) for predicted in plan.holes]
    if None in holes:
        i = holes.index(None)
        predicted = plan.holes[i]
        why = predicted.note or f"direction {sorted(predicted.directions)} names no single direction class"
        return Verdict(reason="invalid_hole", note=f"holes[{i}]: {why}", **described), None
    encoded = (ints, holes)
    rotations = sum(a >= K.actions.FIRST_ROTATION for a in ints)
    n_folds = len(ints) - rotations
    if rotations:
        return Verdict(reason="has_rotation", note=f"{rotations} rotation(s); plans may only fold", **described), encoded
    if n_folds != task.folds:
        return Verdict(reason="wrong_fold_count", note=f"{n_folds} folds, the task asks for {task.folds}", **described), encoded
    if len(holes) > MAX_PUNCHES:
        return Verdict(reason="too_many_punches", note=f"{len(holes)} punches, at most {MAX_PUNCHES} allowed", **described), encoded
    return Verdict(reason=CORRECT, **described), encoded


def _replay_keys(enc: _Encoded, on_progress: Progress | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Run the kernel once over all replayable plans: status, step, triangle and sorted result keys."""
    n = len(enc.replayed)
    if n == 0:
        empty = np.zeros(0, dtype=np.int32)
        return empty, empty, empty, np.zeros((0, 1), dtype=np.int16)
    out = run_chunked(K.simulate_batch, [pad_actions(enc.actions), enc.locations, enc.quarters],
                      [K.actions.NOOP, -1, 0], on_chunk=on_progress)
    location0 = out.folded.unfolded.location[:, None, :]  # [R, 1, 32]
    kinds = enc.kinds[:, :, None]  # [R, P, 1]
    keys = hole_key(kinds, location0, out.directions)
    keys = np.where(out.hits, keys, NO_HOLE).astype(np.int16).reshape(n, -1)
    keys.sort(axis=1)
    return out.status.code, out.status.step, out.status.triangle, keys


def replay_plans(tasks: Sequence[PlanningTask | dict], answers: Iterable[Answer], *,
                 on_progress: Progress | None = None) -> list[Verdict]:
    """Judge the answer to every task (answers matched by id, the last duplicate winning).

    `tasks` are PlanningTasks or MentalBlackboard planning records. One kernel call (chunked)
    replays every plan that can be encoded.
    """
    tasks = [t if isinstance(t, PlanningTask) else planning_task(t, i) for i, t in enumerate(tasks)]
    by_id, _ = index_answers(answers)
    enc = _encode(tasks, by_id)
    status, step, triangle, result = _replay_keys(enc, on_progress)
    target = target_keys(tasks)
    replay = _full_replay(len(tasks), enc.replayed, status, step, triangle, result, target)
    reasons = _final_reasons(enc.early, replay)
    return [
        Verdict(v.id, str(_NAME[code]), v.folds, v.steps, v.punches, v.codes, v.note, replay, i)
        for i, (v, code) in enumerate(zip(enc.verdicts, reasons))
    ]


def _full_replay(n: int, rows: np.ndarray, status, step, triangle, result, target) -> Replay:
    """Scatter the replayed rows back to item order (-1 status for items not replayed)."""
    full_status = np.full(n, -1, dtype=np.int32)
    full_step, full_triangle = np.zeros(n, dtype=np.int32), np.full(n, -1, dtype=np.int32)
    width = max(result.shape[1], target.shape[1])
    full_result = np.full((n, width), NO_HOLE, dtype=np.int16)
    full_status[rows], full_step[rows], full_triangle[rows] = status, step, triangle
    full_result[rows, : result.shape[1]] = result
    return Replay(full_status, full_step, full_triangle, full_result, target)


def _final_reasons(early: np.ndarray, replay: Replay) -> np.ndarray:
    """Reason codes: the pre-replay reason, else not_realizable / off_paper / holes_differ / correct."""
    status = replay.status
    width = replay.target.shape[1]
    same = (replay.result[:, :width] == replay.target).all(1)
    same &= (replay.result.shape[1] == width) | (replay.result[:, width:] == NO_HOLE).all(1)
    fold_failure = np.isin(status, (K.CREASE_CUTS_TRIANGLE, K.EMPTY_SIDE, K.OBLIQUE_CREASE))
    late = np.select([fold_failure, status == K.OFF_PAPER, ~same],
                     [_CODE["not_realizable"], _CODE["off_paper"], _CODE["holes_differ"]], _CODE[CORRECT])
    return np.where(early > 0, early, late)


# -- reports ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VerifyReport:
    """All verdicts of one verification run, plus the answers that matched no task."""

    verdicts: list[Verdict]
    unmatched_answers: tuple[str, ...] = ()
    duplicate_answers: tuple[str, ...] = ()

    def summary(self, *, details: bool = False) -> dict:
        """The `--json` object: items, correct, by_reason, by_folds (and per-item verdicts)."""
        reasons = np.array([v.reason for v in self.verdicts], dtype=object)
        folds = np.array([v.folds if v.folds is not None else -1 for v in self.verdicts])
        correct = reasons == CORRECT
        names, counts = np.unique(reasons[~correct].astype(str), return_counts=True)
        out = {
            "items": len(self.verdicts),
            "correct": int(correct.sum()),
            "by_reason": {str(n): int(c) for n, c in zip(names, counts)},
            "by_folds": {str(n): {"items": int((folds == n).sum()), "correct": int(correct[folds == n].sum())}
                         for n in sorted(set(folds.tolist())) if n >= 0},
            "unmatched_answers": list(self.unmatched_answers),
            "duplicate_answers": list(self.duplicate_answers),
        }
        if details:
            out["verdicts"] = [v.to_dict() for v in self.verdicts]
        return out


def verify_files(tasks_path: str | Path, answers_path: str | Path, *, on_progress: Progress | None = None) -> VerifyReport:
    """Read a planning file and an answer file and judge every task; InputError if a file cannot
    be read at all (bad items are verdicts, never errors)."""
    tasks = read_tasks(tasks_path)
    answers = load_answers(answers_path)
    by_id, duplicates = index_answers(answers)
    task_ids = {t.id for t in tasks}
    unmatched = tuple(a for a in by_id if a not in task_ids)
    return VerifyReport(replay_plans(tasks, answers, on_progress=on_progress), unmatched, duplicates)


def render_verify(report: VerifyReport, console, *, details: bool = False) -> None:
    """Counts by reason and by fold count; with `details`, one line per failed item."""
    from rich.table import Table

    summary = report.summary()
    console.print(f"[bold]{summary['correct']}/{summary['items']} correct[/]")
    reasons = Table("reason", "items", title="first failing reason", title_justify="left")
    for reason in REASONS:
        if reason in summary["by_reason"]:
            reasons.add_row(reason, str(summary["by_reason"][reason]))
    if summary["by_reason"]:
        console.print(reasons)
    folds = Table("folds", "items", "correct", title="by number of folds", title_justify="left")
    for n, row in summary["by_folds"].items():
        folds.add_row(n, str(row["items"]), str(row["correct"]))
    console.print(folds)
    for key in ("unmatched_answers", "duplicate_answers"):
        if summary[key]:
            console.print(f"[yellow]{key.replace('_', ' ')}[/]: {', '.join(summary[key])}", markup=True)
    if details:
        for verdict in report.verdicts:
            if not verdict.correct:
                console.print(f"  {verdict.id}: {verdict.reason}: {verdict.detail}", markup=False)
