"""Bulk planning verifier: replay every proposed plan in one batch and judge it.

A plan is correct iff it parses, all its codes are known, it has no rotation, it uses exactly the
task's number of folds, it punches at most 2 holes, every hole is well formed, every fold is
realizable, every punch meets paper, and its result-hole multiset equals the task's resultHoles
(directions by class). Each item gets the FIRST failing reason, checked in this order:

    invalid_task, missing_answer, parse_error, unknown_code, has_rotation, wrong_fold_count,
    too_many_punches, invalid_hole, not_realizable, off_paper, holes_differ

Every plan whose codes and holes can be encoded is replayed, whatever its verdict, so callers
(the planning scorer) also get the result holes of plans that break a rule.

The hot path is vectorized: plain plans are read with dict lookups (the tolerant reader only where
that fails); a plan of 1..4 folds without rotation is replayed by gathers from a table of every
fold sequence x punch location (foldsim.planning.sequence_table, 4,680 sequences, built once per
process with the kernel); other plans go to the kernel in one chunked call. Result holes become
integer keys (shape-size, location, direction class) sorted per row, which compare as multisets
column by column; Hole and Verdict objects are only made when asked for (`Judgement` is columnar).

Size (~610 lines): parsing plans into kernel rows, the batched replay and the verdicts in checking
order are one pipeline whose order defines each item's first failing reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain, repeat
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path

import numpy as np

from .. import kernels as K
from ..batching import run_chunked
from ..codes import parse_action
from ..enumerate import WIDTH, Progress, pad_actions
from ..errors import InputError
from ..holes import SHAPE_PERIOD, SHAPES, SIZES, Hole
from ..planning import (
    NO_HOLE, PlanningTask, ReadMemo, hole_key, hole_of_key, kind_of, multiset_difference, planning_task, read_tasks,
    table_replay, table_replayable, target_keys,
)
from .answers import (
    ANSWER_KEYS, PLAN_KEYS, STATUS_OK, Answer, answer_of_completion, assistant_text, fast_answer_data, index_answers, load_answers,
    paused_gc, structure_problem,
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

    @property
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


# -- parsing plans into kernel rows ----------------------------------------------------------------

#: fast spellings of codes: exact canonical or lower-case tokens -> (kernel int, normalised code)
_FAST_ACTIONS = {spelling: (parse_action(code), code) for code in (
    *(f"{t}-{s}" for t in K.actions.FOLD_TYPES for s in "FB"), "R-90", "R-180", "R-270")
    for spelling in (code, code.lower())}


def _fast_holes() -> dict[tuple, tuple[int, int]]:
    """(shape, size, direction) -> (shape-size id, direction class) for the plain spellings: lower-case
    names, a direction of 0/90/180/270, a class string where it names one class, none for circles and
    squares. Exactly what the tolerant reader makes of them (tested)."""
    table = {}
    for kind, (shape, size) in enumerate((shape, size) for shape in SHAPES for size in SIZES):
        period = SHAPE_PERIOD[shape]
        directions = {d: (d // 90) % period for d in (0, 90, 180, 270)}
        if period < 4:
            directions |= {"0, 180": 0, "90, 270": 1 % period}
        if period == 1:
            directions |= {None: 0, "": 0}
        table |= {(shape, size, d): (kind, q) for d, q in directions.items()}
    return table


_FAST_HOLES = _fast_holes()
_FAST_LOCATIONS = {location: location - 1 for location in range(1, 33)}


def fast_plan(data: dict) -> tuple[tuple[str, ...], list[int], list[tuple[int, int, int]]] | None:
    """(codes, kernel ints, punches) of a plan written in the plain form (`folds` a list of exact or
    lower-case codes; `holes` objects with a lower-case shape and size, a location 1..32 and a
    plain direction, see `_fast_holes`). None for anything else: the tolerant reader
    (`Answer.plan()`) reads it instead, with the same result for every plan this accepts. Dict
    lookups only: this is the hot path of verify."""
    folds = data.get("folds")
    if folds.__class__ is not list:
        return None
    holes = data.get("holes") if "holes" in data or "initialHoles" not in data else False
    if holes is not None and holes.__class__ is not list:
        return None
    codes, ints, punches = [], [], []
    try:
        for token in folds:
            action, code = _FAST_ACTIONS[token]
            ints.append(action)
            codes.append(code)
        for hole in holes or ():
            if hole.__class__ is not dict:
                return None
            direction, location = hole.get("direction"), hole.get("location")
            if direction.__class__ is bool or location.__class__ is bool:  # True == 1 in a dict lookup
                return None
            kind, quarter = _FAST_HOLES[hole.get("shape"), hole.get("size"), direction]
            punches.append((_FAST_LOCATIONS[location], quarter, kind))
    except (KeyError, TypeError):  # an unknown spelling, or an unhashable value
        return None
    return tuple(codes), ints, punches


def _general_plan(answer: Answer, memo: dict) -> tuple[tuple[str, ...], list[int], list[tuple[int, int, int]]] | tuple[str, str, dict]:
    """The plan read by the tolerant parser: (codes, ints, punches), or (reason, note, described)
    when it fails before any rule is checked (parse_error, unknown_code, invalid_hole)."""
    plan = answer.plan()
    if plan.notes:
        return "parse_error", "; ".join(plan.notes), {}
    described = dict(steps=len(plan.folds), punches=len(plan.holes), codes=plan.folds)
    ints = [_action_of(token, memo) for token in plan.folds]
    if None in ints:
        i = ints.index(None)
        return "unknown_code", f"folds[{i}]: unknown code {plan.folds[i]!r}", described
    holes = [_punch_of(predicted, memo) for predicted in plan.holes]
    if None in holes:
        i = holes.index(None)
        predicted = plan.holes[i]
        why = predicted.note or f"direction {sorted(predicted.directions)} names no single direction class"
        return "invalid_hole", f"holes[{i}]: {why}", described
    return plan.folds, ints, holes


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


def _rule_broken(task: PlanningTask, ints: list[int], n_punches: int) -> tuple[str, str] | None:
    """The first task rule a parsed plan breaks (has_rotation, wrong_fold_count, too_many_punches)."""
    if ints and max(ints) >= K.actions.FIRST_ROTATION:
        rotations = sum(a >= K.actions.FIRST_ROTATION for a in ints)
        return "has_rotation", f"{rotations} rotation(s); plans may only fold"
    if len(ints) != task.folds:
        return "wrong_fold_count", f"{len(ints)} folds, the task asks for {task.folds}"
    if n_punches > MAX_PUNCHES:
        return "too_many_punches", f"{n_punches} punches, at most {MAX_PUNCHES} allowed"
    return None


@dataclass
class _Encoded:
    """Every item's pre-replay judgement and the kernel rows of the plans that can be replayed
    (plain lists while filling: a NumPy scalar store per item would cost more than the parse)."""

    early: list[int]  # reason code decided before replaying, 0 if none
    steps: list[int]  # actions in the plan (-1: it did not parse)
    punches: list[int]  # punches in the plan (-1: it did not parse)
    codes: list[tuple[str, ...]]
    notes: list[str]
    rows: list[int] = field(default_factory=list)  # item index of each replayable plan
    actions: list[list[int]] = field(default_factory=list)
    holes: list[list[tuple[int, int, int]]] = field(default_factory=list)


def _encode(tasks: Sequence[PlanningTask], answers: Sequence[Answer | None], fast: bool,
            preparsed: Sequence[tuple | None] | None = None) -> _Encoded:
    """Parse every plan (the fast reader first where `fast`, else the tolerant one; `preparsed`
    plans were read by `fast_plan` already) and decide the reasons that need no replay. Strings
    are only built for items that fail. The loop body is the hot path of verify: attribute and
    global lookups are hoisted out of it."""
    n = len(tasks)
    enc = _Encoded([0] * n, [-1] * n, [-1] * n, [()] * n, [""] * n)
    early, notes, steps, punches, codes_of = enc.early, enc.notes, enc.steps, enc.punches, enc.codes
    add_row, add_actions, add_holes = enc.rows.append, enc.actions.append, enc.holes.append
    first_rotation = K.actions.FIRST_ROTATION
    memo: dict = {}
    for i, (task, parsed) in enumerate(zip(tasks, preparsed if preparsed is not None else repeat(None, n))):
        if parsed is None or task.error:
            parsed = _read_plan(task, answers[i], fast, memo, enc, i)
            if parsed is None:  # decided before any replay
                continue
        codes, ints, holes = parsed
        steps[i], punches[i], codes_of[i] = len(ints), len(holes), codes
        if len(ints) != task.folds or len(holes) > MAX_PUNCHES or (ints and max(ints) >= first_rotation):
            reason, notes[i] = _rule_broken(task, ints, len(holes))
            early[i] = _CODE[reason]
        add_row(i)
        add_actions(ints)
        add_holes(holes)
    return enc


def _read_plan(task: PlanningTask, answer: Answer | None, fast: bool, memo: dict, enc: _Encoded, i: int
               ) -> tuple[tuple[str, ...], list[int], list[tuple[int, int, int]]] | None:
    """Item i's plan (codes, ints, punches) when no fast-path plan was handed over, or None after
    recording the reason it fails before any replay (invalid_task, missing_answer, parse_error,
    unknown_code, invalid_hole) in `enc`."""
    if task.error:
        enc.early[i], enc.notes[i] = _CODE["invalid_task"], task.error
        return None
    if answer is None:
        enc.early[i], enc.notes[i] = _CODE["missing_answer"], "no answer with this id"
        return None
    if answer.status != STATUS_OK:
        enc.early[i], enc.notes[i] = _CODE["parse_error"], f"answer {answer.status}: {answer.reason}"
        return None
    if answer.data.keys().isdisjoint(PLAN_KEYS):
        enc.early[i], enc.notes[i] = _CODE["parse_error"], "the answer has no plan (folds and holes)"
        return None
    parsed = fast_plan(answer.data) if fast else None
    if parsed is not None:
        return parsed
    parsed = _general_plan(answer, memo)
    if isinstance(parsed[0], str):
        reason, note, described = parsed
        enc.early[i], enc.notes[i] = _CODE[reason], note
        if described:
            enc.steps[i], enc.punches[i], enc.codes[i] = described["steps"], described["punches"], described["codes"]
        return None
    return parsed


def _kernel_arrays(enc: _Encoded) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Padded kernel inputs of the replayable plans: actions int32[R, S] (NOOP-padded), punch grid
    indices int32[R, P] (-1 unused), direction classes int32[R, P], shape-size ids int16[R, P].
    Filled by one masked store each from the flattened lists, not row by row."""
    rows = len(enc.rows)
    action_counts = np.fromiter(map(len, enc.actions), np.int64, rows)
    punch_counts = np.fromiter(map(len, enc.holes), np.int64, rows)
    width = max(WIDTH, int(action_counts.max(initial=0)))
    n_punch = max(PUNCH_COLUMNS, int(punch_counts.max(initial=0)))
    actions = np.full((rows, width), K.actions.NOOP, dtype=np.int32)
    actions[np.arange(width) < action_counts[:, None]] = np.fromiter(chain.from_iterable(enc.actions), np.int32,
                                                                     int(action_counts.sum()))
    punch = np.zeros((rows, n_punch, 3), dtype=np.int32)
    punch[:, :, 0] = -1
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(enc.holes)), np.int32, 3 * int(punch_counts.sum()))
    punch[np.arange(n_punch) < punch_counts[:, None]] = flat.reshape(-1, 3)
    return actions, punch[..., 0], punch[..., 1], punch[..., 2].astype(np.int16)


def _replay_keys(enc: _Encoded, engine: str, on_progress: Progress | None) -> tuple[np.ndarray, ...]:
    """Replay every replayable plan: status, step, triangle and sorted result keys per row. With
    engine "table", plans of 1..4 folds without rotation are looked up in the fold-sequence table
    and only the rest go to the kernel; engine "kernel" runs the kernel on all of them."""
    n = len(enc.rows)
    if n == 0:
        empty = np.zeros(0, dtype=np.int32)
        return empty, empty, empty, np.zeros((0, 1), dtype=np.int16)
    actions, locations, quarters, kinds = _kernel_arrays(enc)
    by_table = table_replayable(actions) if engine == "table" else np.zeros(n, bool)
    parts = []
    for rows, replay in ((by_table, table_replay), (~by_table, partial(_kernel_replay, on_progress=on_progress))):
        if rows.any():
            parts.append((rows, replay(actions[rows], locations[rows], quarters[rows], kinds[rows])))
    if on_progress is not None and by_table.any():
        on_progress(int(by_table.sum()))
    status, step, triangle = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32)
    keys = np.full((n, max(part[3].shape[1] for _, part in parts)), NO_HOLE, np.int16)
    for rows, (row_status, row_step, row_triangle, row_keys) in parts:
        status[rows], step[rows], triangle[rows] = row_status, row_step, row_triangle
        keys[rows, : row_keys.shape[1]] = row_keys
    return status, step, triangle, keys


def _kernel_replay(actions, locations, quarters, kinds, *, on_progress=None):
    """The kernel's replay (the reference the table is tested against): one chunked call."""
    out = run_chunked(K.simulate_batch, [pad_actions(actions), locations, quarters], [K.actions.NOOP, -1, 0],
                      on_chunk=on_progress)
    keys = hole_key(kinds[:, :, None], out.folded.unfolded.location[:, None, :], out.directions)
    keys = np.where(out.hits, keys, NO_HOLE).astype(np.int16).reshape(len(actions), -1)
    keys.sort(axis=1)
    return out.status.code, out.status.step, out.status.triangle, keys


ENGINES = ("table", "kernel")


@dataclass(frozen=True)
class Judgement:
    """The verdicts of one batch as columns (cheap for 100K items); `verdict(i)`/`verdicts()` give
    Verdict objects. `reason_code` indexes REASON_NAMES; `steps`/`punches` are -1 where the plan did
    not parse."""

    ids: list[str]
    reason_code: np.ndarray  # int8[N]
    folds: np.ndarray  # int16[N]: the task's fold count (-1: invalid task)
    steps: np.ndarray  # int16[N]
    punches: np.ndarray  # int16[N]
    codes: list[tuple[str, ...]]
    notes: list[str]
    replay: Replay

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def correct(self) -> np.ndarray:
        """bool[N]"""
        return self.reason_code == _CODE[CORRECT]

    @property
    def reasons(self) -> np.ndarray:
        """str[N]: "correct" or the first failing reason."""
        return _NAME[self.reason_code]

    @property
    def valid_plan(self) -> np.ndarray:
        """bool[N]: the plan obeyed the task's rules (it may still make other holes)."""
        return np.isin(self.reason_code, (_CODE[CORRECT], _CODE["holes_differ"]))

    def detail(self, i: int) -> str:
        """Item i's one-line detail, as `verdict(i).detail` says it; the note alone when it has one."""
        return self.notes[i] if self.notes[i] else self.verdict(i).detail

    def verdict(self, i: int) -> Verdict:
        def known(value: int) -> int | None:
            return None if value < 0 else int(value)
        return Verdict(self.ids[i], str(_NAME[self.reason_code[i]]), known(self.folds[i]), known(self.steps[i]),
                       known(self.punches[i]), self.codes[i], self.notes[i], self.replay, i)

    def verdicts(self) -> list[Verdict]:
        return [self.verdict(i) for i in range(len(self))]


def judge_plans(tasks: Sequence[PlanningTask | dict], answers: Sequence[Answer | None], *, engine: str = "table",
                fast: bool = True, on_progress: Progress | None = None,
                _preparsed: Sequence[tuple | None] | None = None) -> Judgement:
    """Judge answers[i] against tasks[i] (positionally; None = no answer), all in one batch.

    `engine` "table" replays 1..4-fold plans by lookups in the fold-sequence table (the rest by the
    kernel), "kernel" replays everything with the kernel; `fast` reads plain plans with dict lookups
    before the tolerant reader. Every combination gives the same verdicts (tested); the defaults
    are the fast ones. Pass PlanningTasks (parsed once) rather than records when judging often.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (expected one of {', '.join(ENGINES)})")
    if len(tasks) != len(answers):
        raise ValueError(f"{len(tasks)} tasks but {len(answers)} answers")
    with paused_gc():
        memo = ReadMemo()
        tasks = [t if isinstance(t, PlanningTask) else planning_task(t, i, memo=memo) for i, t in enumerate(tasks)]
        enc = _encode(tasks, answers, fast, _preparsed)
        status, step, triangle, result = _replay_keys(enc, engine, on_progress)
        replay = _full_replay(len(tasks), np.asarray(enc.rows, np.int64), status, step, triangle, result, target_keys(tasks))
        folds = np.fromiter((-1 if t.error else t.folds for t in tasks), np.int16, len(tasks))
        early = np.array(enc.early, np.int8)
        return Judgement([t.id for t in tasks], _final_reasons(early, replay).astype(np.int8), folds,
                         np.array(enc.steps, np.int16), np.array(enc.punches, np.int16), enc.codes, enc.notes, replay)


def verify_completions(tasks: Sequence[PlanningTask | dict], completions: Sequence[object], *,
                       engine: str = "table") -> Judgement:
    """Judge raw completions (model text, a list of chat messages, or a record) against their tasks,
    positionally, without files: the batched entry point for reward functions. Never raises on a
    completion. See `read_completions`."""
    answers, preparsed = read_completions(completions)
    return judge_plans(tasks, answers, engine=engine, _preparsed=preparsed)


def read_completions(completions: Sequence[object]) -> tuple[list[Answer], list[tuple | None]]:
    """Every completion read as an answer, and its plan where the fast path read it. A completion
    (text, or chat messages whose last assistant message is that text) that is, or holds in its one
    fenced block, a plain plan is decoded once and read by dict lookups (its answer is a shared stand-in with status ok); anything else goes through the
    tolerant parser, with the same verdict in the end."""
    answers: list[Answer] = []
    preparsed: list[tuple | None] = []
    with paused_gc():
        for i, completion in enumerate(completions):
            if completion.__class__ is list:  # chat messages, as TRL hands over conversational completions
                text = assistant_text(completion)
                data = fast_answer_data(text) if text.__class__ is str else None
            elif completion.__class__ is str:
                data = fast_answer_data(completion)
            elif completion.__class__ is dict and not completion.keys().isdisjoint(ANSWER_KEYS) \
                    and structure_problem(completion) is None:  # else the parser refuses it, with its status
                data = completion
            else:
                data = None
            plan = fast_plan(data) if data is not None else None
            preparsed.append(plan)
            answers.append(_FAST_READ if plan is not None else answer_of_completion(completion, i))
    return answers, preparsed


#: stands in for an answer `verify_completions` read on the fast path
_FAST_READ = Answer("", STATUS_OK, "read on the fast path")


def replay_plans(tasks: Sequence[PlanningTask | dict], answers: Iterable[Answer], *,
                 on_progress: Progress | None = None, engine: str = "table", fast: bool = True) -> list[Verdict]:
    """Judge the answer to every task (answers matched by id, the last duplicate winning).

    `tasks` are PlanningTasks or MentalBlackboard planning records. See `judge_plans`.
    """
    tasks = [t if isinstance(t, PlanningTask) else planning_task(t, i) for i, t in enumerate(tasks)]
    by_id, _ = index_answers(answers)
    judged = judge_plans(tasks, [by_id.get(t.id) for t in tasks], engine=engine, fast=fast, on_progress=on_progress)
    return judged.verdicts()


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
    """One verification run: the judgement, the answers that matched no task or were duplicated, and
    one line per bad item ("<file>: <item>: <message>": an invalid task, an unreadable answer record)."""

    judgement: Judgement
    unmatched_answers: tuple[str, ...] = ()
    duplicate_answers: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    @cached_property
    def verdicts(self) -> list[Verdict]:
        return self.judgement.verdicts()

    @property
    def all_correct(self) -> bool:
        return bool(self.judgement.correct.all())

    def summary(self, *, details: bool = False) -> dict:
        """The `--json` object: items, correct, by_reason, by_folds, errors (and per-item verdicts)."""
        judged = self.judgement
        correct, folds = judged.correct, judged.folds
        names, counts = np.unique(judged.reasons[~correct].astype(str), return_counts=True)
        out = {
            "items": len(judged),
            "correct": int(correct.sum()),
            "by_reason": {str(n): int(c) for n, c in zip(names, counts)},
            "by_folds": {str(n): {"items": int((folds == n).sum()), "correct": int(correct[folds == n].sum())}
                         for n in np.unique(folds).tolist() if n >= 0},
            "unmatched_answers": list(self.unmatched_answers),
            "duplicate_answers": list(self.duplicate_answers),
            "errors": list(self.errors),
        }
        if details:
            out["verdicts"] = [v.to_dict() for v in self.verdicts]
        return out


def verify_files(tasks_path: str | Path, answers_path: str | Path, *, on_progress: Progress | None = None,
                 engine: str = "table") -> VerifyReport:
    """Read a planning file and an answer file and judge every task; InputError if a file cannot
    be read at all (bad items are verdicts, and reported in `errors`)."""
    with paused_gc():
        tasks = read_tasks(tasks_path)
        answers = load_answers(answers_path)
        by_id, duplicates = index_answers(answers)
        task_ids = {t.id for t in tasks}
        unmatched = tuple(a.id for a in by_id.values() if a.id not in task_ids and not a.unreadable)
        errors = [f"{tasks_path}: {t.error}" for t in tasks if t.error]
        errors += [f"{answers_path}: {a.id}: {a.reason}" for a in answers if a.unreadable]
        judged = judge_plans(tasks, [by_id.get(t.id) for t in tasks], engine=engine, on_progress=on_progress)
    return VerifyReport(judged, unmatched, duplicates, tuple(errors))


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
