"""Scoring model answers against ground truth (formats doc §3): the correct metrics by default, the
reference scorers' numbers in `--compat mentalblackboard` mode (foldsim.eval.compat).

Default mode, per item (g = truth holes, p = listed predicted holes, M = matched holes):
- holes are paired by a maximum bipartite matching (not greedy), shape/size case-insensitive,
  directions compared by class with the single-direction rule of `PredictedHole.quarter_for`;
- exact = (M == g == p) and an answer object was found (a missing or unreadable answer is never
  exact, even against a truth with no holes); partial = M / (g + max(0, p - g)); fields likewise
  with a per-field test; the text task ignores direction fields entirely;
- every truth item counts (a missing answer is an empty one), and so does every invalid truth
  record, as a failure (reported in `Report.errors`); declared totals are only reported.
Aggregates are micro averages (pooled counts), see `aggregate`; reports are built on columns
(`ItemColumns`), so 100K items cost arrays, not objects.

The hole comparison is vectorized over the batch: holes become padded int arrays, every field test
a boolean [items, truth holes, predictions] tensor, and matchings are found for all items at once
(greedy first-fit as a vectorized sweep, then augmenting paths only on the few items where greedy
may have fallen short).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..holes import SHAPE_PERIOD, SHAPES, SIZES, Hole
from ..kernels import OK
from ..planning import NO_HOLE, PERIOD_OF_KIND, PlanningTask, ReadMemo, task_folds
from .answers import STATUS_OK, Answer, PredictedHole, answer_of_completion, index_answers, load_answers, paused_gc
from .score_base import (
    COMPAT_MODES, FIELDS, TASKS, TEXT_FIELDS, UNFOLDING_TASKS, ItemScore, Report, TruthItem, aggregate,
    _group_order, answer_for, in_row_chunks, load_truth, maximum_matching_sizes, ratio, truth_item,
)
from .verify import Judgement, judge_plans, read_completions


# --------------------------------------------------------------------------------------------------
# default mode: hole tensors


_SHAPE_ID = {s: i for i, s in enumerate(SHAPES)}
_SIZE_ID = {s: i for i, s in enumerate(SIZES)}


def _padded(rows: Sequence[Sequence[tuple]], width: int, columns: int) -> np.ndarray:
    """int[B, width, columns] from ragged rows of tuples, padded with -1."""
    out = np.full((len(rows), max(width, 1), columns), -1, np.int64)
    for b, row in enumerate(rows):
        if row:
            out[b, : len(row)] = row
    return out


def truth_tensor(holes: Sequence[Sequence[Hole]]) -> np.ndarray:
    """int[B, G, 5]: shape id, size id, location, period, quarter (-1 = padding)."""
    rows = [[(_SHAPE_ID[h.shape], _SIZE_ID[h.size], h.location, SHAPE_PERIOD[h.shape], h.quarter) for h in hs] for hs in holes]
    return _padded(rows, max(map(len, holes), default=0), 5)


def _predicted_row(hole: PredictedHole) -> tuple[int, ...]:
    return (_SHAPE_ID.get(hole.shape, -1), _SIZE_ID.get(hole.size, -1), hole.location or -1,
            _or_minus_one(hole.quarter_for(2)), _or_minus_one(hole.quarter_for(4)), int(not hole.note), 1)


def _or_minus_one(value: int | None) -> int:
    return -1 if value is None else value


def predicted_tensor(holes: Sequence[Sequence[PredictedHole]]) -> np.ndarray:
    """int[B, P, 7]: shape id, size id, location (-1 = unknown), direction class mod 2 and mod 4
    (-1 = none), clean (no note), present (0 = padding)."""
    rows = [[_predicted_row(h) for h in hs] for hs in holes]
    out = _padded(rows, max(map(len, holes), default=0), 7)
    out[..., 6] = np.maximum(out[..., 6], 0)
    return out


def field_tests(truth: np.ndarray, predicted: np.ndarray, *, with_direction: bool = True) -> dict[str, np.ndarray]:
    """bool[B, G, P] per field (and "exact"): does prediction p agree with truth hole g on it.

    A field whose predicted value is unknown never agrees; "exact" also needs a hole with no note.
    Direction: period 1 always agrees; period 2 and 4 need the prediction's class for that period.
    """
    t = truth[:, :, None, :]
    p = predicted[:, None, :, :]
    present = (t[..., 0] >= 0) & (p[..., 6] == 1)
    shape = present & (t[..., 0] == p[..., 0])
    size = present & (t[..., 1] == p[..., 1])
    location = present & (t[..., 2] == p[..., 2])
    period, quarter = t[..., 3], t[..., 4]
    direction = present & ((period == 1) | ((period == 2) & (p[..., 3] == quarter % 2)) | ((period == 4) & (p[..., 4] == quarter)))
    if not with_direction:
        direction = present
    tests = {
        "shape": shape, "size": size, "location": location, "direction": direction,
        "location_shape": location & shape, "location_direction": location & direction,
        "shape_direction": shape & direction, "location_shape_direction": location & shape & direction,
    }
    tests["exact"] = location & shape & size & direction & (p[..., 5] == 1)
    return tests


def hole_counts(truth_holes: Sequence[Sequence[Hole]], predicted: Sequence[Sequence[PredictedHole]], fields: Sequence[str],
                *, with_direction: bool = True, max_cells: int = 1 << 21) -> dict[str, np.ndarray]:
    """Matched holes per item (int[B]) by maximum matching: "exact" (M) and one per field."""
    def counts(truth_rows, predicted_rows) -> dict[str, np.ndarray]:
        tests = field_tests(truth_tensor(truth_rows), predicted_tensor(predicted_rows), with_direction=with_direction)
        return {name: maximum_matching_sizes(tests[name]) for name in ("exact", *fields)}
    return in_row_chunks(counts, truth_holes, predicted, max_cells=max_cells)


def unfolding_score(truth: Sequence[str], predicted: Sequence[str]) -> tuple[bool, int, int]:
    """(lists equal, positions equal, denominator max(len, len)): extra codes count against."""
    matches = sum(a == b for a, b in zip(truth, predicted))
    return tuple(truth) == tuple(predicted), matches, max(len(truth), len(predicted))


# --------------------------------------------------------------------------------------------------
# default mode: scoring


@dataclass(frozen=True)
class Predicted:
    """What an item's answer predicts, ready to score: holes, codes, status and notes."""

    holes: tuple[PredictedHole, ...] = ()
    unfolding: tuple[str, ...] = ()
    status: str = "missing"
    reason: str = "no answer"
    notes: tuple[str, ...] = ()
    valid_plan: bool = False
    declared_total: int | None = None
    answered: bool = False


def predicted_of(answer: Answer | None, *, directions: bool = True) -> Predicted:
    """A prediction answer read for scoring (missing and unparseable answers are empty and not
    answered); `directions=False` ignores direction fields (the text task)."""
    if answer is None:
        return Predicted()
    prediction = answer.prediction(directions=directions)
    notes = [*prediction.notes, *(f"resultHoles[{i}]: {h.note}" for i, h in enumerate(prediction.holes) if h.note)]
    return Predicted(prediction.holes, prediction.unfolding, answer.status, answer.reason, tuple(notes),
                     declared_total=prediction.declared_total, answered=answer.ok)


def default_groups(truth: TruthItem) -> dict[str, str]:
    return {"pattern": truth.pattern or "?", "folds": str(truth.folds)}


class LazyColumn(Sequence):
    """A per-item column whose values are made when read (the verifier's one-line detail of a wrong
    plan costs more than its whole replay, and a 100K-answer run seldom reads them), with plain
    values appended after it (`column + [...]`)."""

    def __init__(self, length: int, value_of: Callable[[int], object], tail: Sequence = ()):
        self.length, self.value_of, self.tail = length, value_of, list(tail)

    def __len__(self) -> int:
        return self.length + len(self.tail)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]
        return self.value_of(i) if i < self.length else self.tail[i - self.length]

    def __add__(self, other: Sequence) -> "LazyColumn":
        return LazyColumn(self.length, self.value_of, [*self.tail, *other])


@dataclass
class Scored:
    """Per-item columns of a default-mode scoring run, before they become ItemScores: the answer's
    status, reason and notes, whether it was answered (and, for planning, kept the plan rules), the
    number of predicted holes and the matched holes per field ("exact" = M)."""

    status: list[str]
    reason: list[str]
    notes: list[tuple[str, ...]]
    answered: np.ndarray  # bool[N]
    valid_plan: np.ndarray  # bool[N]: planning: the plan kept the task's rules; else all True
    predicted: np.ndarray  # int[N]
    matched: dict[str, np.ndarray]  # int[N] per field and "exact"
    unfolding: list[tuple[str, ...]] | None = None
    declared_totals: list[int | None] | None = None


def score_default(task: str, truth: Sequence[TruthItem], answers: Sequence[Answer], *,
                  invalid: Sequence[InputError] = ()) -> Report:
    """Default-mode report for a task (see the module docstring). `invalid` truth records count in N
    as failures (never exact) and are reported in `errors`."""
    with paused_gc():
        by_id, duplicates = index_answers(answers)
        chosen = [answer_for(t.id, by_id, task) for t in truth]
        scored = scored_plans(truth, chosen) if task == "planning" else scored_predictions(task, truth, chosen)
        report = report_of(task, truth, scored, invalid)
    report.notes += [f"duplicate answer id {d}: the last one is used" for d in duplicates]
    report.counts["duplicate_ids"] = len(duplicates)
    return report


def scored_predictions(task: str, truth: Sequence[TruthItem], chosen: Sequence[Answer | None]) -> Scored:
    """Prediction, backward, text and generalization answers read and matched (text: directions
    ignored everywhere, also when unreadable)."""
    predicted = [predicted_of(a, directions=task != "text") for a in chosen]
    fields = TEXT_FIELDS if task == "text" else FIELDS
    matched = hole_counts([t.holes for t in truth], [p.holes for p in predicted], fields, with_direction=task != "text")
    return Scored([p.status for p in predicted], [p.reason for p in predicted], [p.notes for p in predicted],
                  np.array([p.answered for p in predicted], bool), np.ones(len(truth), bool),
                  np.array([len(p.holes) for p in predicted], np.int64), matched,
                  [p.unfolding for p in predicted] if task in UNFOLDING_TASKS else None,
                  [p.declared_total for p in predicted])


def report_of(task: str, truth: Sequence[TruthItem], scored: Scored, invalid: Sequence[InputError] = ()) -> Report:
    """The Report of scored items (exact = M == g == p, answered and, for planning, a valid plan),
    with the invalid truth records appended as failures. Metrics, counts and groups are computed on
    the columns (the same formulas as `aggregate`/`group_summary`, tested); the ItemScores are made
    only when `Report.items` is read."""
    fields = TEXT_FIELDS if task == "text" else FIELDS
    items = item_columns(task, truth, scored, invalid)
    metrics = column_metrics(items, fields)
    totals = scored.declared_totals or [None] * len(truth)
    inconsistent = [t.id for t, total, n in zip(truth, totals, scored.predicted.tolist()) if total not in (None, n)]
    counts = column_counts(items, len(inconsistent))
    counts["invalid_truth"] = len(invalid)
    if task == "planning":
        counts["valid_plans"] = int(scored.valid_plan.sum())
        metrics["valid_plan_rate"] = ratio(counts["valid_plans"], len(items))
    notes = [f"answer {i}: declared totalNumberofHoles differs from the holes listed (the list is scored)" for i in inconsistent]
    return Report(task, "default", items, metrics, counts, column_groups(items), notes)


@dataclass(eq=False)  # no generated __eq__: NumPy columns have no single truth value
class ItemColumns(Sequence):
    """Per-item scores as columns, read as a sequence of ItemScore (made on access): a report of
    100K items costs arrays, not 100K objects, until someone asks for them."""

    ids: list[str]
    status: list[str]
    reason: list[str]
    notes: list[tuple[str, ...]]
    truth: np.ndarray  # int[N]: g
    predicted: np.ndarray  # int[N]: p
    matched: np.ndarray  # int[N]: M
    fields: dict[str, np.ndarray]
    exact: np.ndarray  # bool[N]
    answered: np.ndarray  # bool[N]
    groups: dict[str, list[str]]
    unfolding_exact: np.ndarray | None = None  # bool[N], None when the task has no unfolding
    unfolding_matches: np.ndarray | None = None
    unfolding_total: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]
        unfolding = self.unfolding_exact is not None
        return ItemScore(self.ids[i], self.status[i], self.reason[i], int(self.truth[i]), int(self.predicted[i]),
                         int(self.matched[i]), {f: int(v[i]) for f, v in self.fields.items()}, int(self.truth[i]),
                         int(self.predicted[i]), bool(self.exact[i]),
                         bool(self.unfolding_exact[i]) if unfolding else None,
                         int(self.unfolding_matches[i]) if unfolding else 0, int(self.unfolding_total[i]) if unfolding else 0,
                         {kind: labels[i] for kind, labels in self.groups.items()}, self.notes[i], bool(self.answered[i]))


def item_columns(task: str, truth: Sequence[TruthItem], scored: Scored, invalid: Sequence[InputError]) -> ItemColumns:
    """The columns of the scored items, then one failing row per invalid truth record."""
    fields = TEXT_FIELDS if task == "text" else FIELDS
    extra = len(invalid)
    g = np.array([len(t.holes) for t in truth] + [0] * extra, np.int64)
    m = np.concatenate([scored.matched["exact"], np.zeros(extra, np.int64)])
    p = np.concatenate([scored.predicted, np.zeros(extra, np.int64)])
    answered = np.concatenate([scored.answered, np.zeros(extra, bool)])
    valid = np.concatenate([scored.valid_plan, np.zeros(extra, bool)])
    columns = ItemColumns(
        [t.id for t in truth] + [e.item or "?" for e in invalid],
        scored.status + ["invalid_truth"] * extra, scored.reason + [str(e) for e in invalid],
        scored.notes + [()] * extra, g, p, m,
        {f: np.concatenate([scored.matched[f], np.zeros(extra, np.int64)]) for f in fields},
        (m == g) & (p == g) & answered & valid, answered,
        {"pattern": [t.pattern or "?" for t in truth] + ["?"] * extra,
         "folds": [str(p.count("F")) for p in (t.pattern for t in truth)] + ["?"] * extra})
    if task in UNFOLDING_TASKS:
        scores = [unfolding_score(t.unfolding, codes) for t, codes in zip(truth, scored.unfolding)] + [(False, 0, 0)] * extra
        same, matches, total = (np.array(column) for column in zip(*scores)) if scores else (np.zeros(0, bool),) * 3
        columns.unfolding_exact = same.astype(bool) & answered
        columns.unfolding_matches, columns.unfolding_total = matches.astype(np.int64), total.astype(np.int64)
    return columns


def column_metrics(items: ItemColumns, fields: Sequence[str], rows: np.ndarray | slice = slice(None)) -> dict[str, float | None]:
    """`aggregate` on columns (optionally on some rows): the same pooled formulas."""
    g, p, m = items.truth[rows], items.predicted[rows], items.matched[rows]
    n = len(g)
    denominator = int((g + np.maximum(0, p - g)).sum())
    metrics = {
        "exact_match": ratio(int(items.exact[rows].sum()), n),
        "partial": ratio(int(m.sum()), denominator),
        **{f"field_{f}": ratio(int(items.fields[f][rows].sum()), denominator) for f in fields},
        "extra_rate": ratio(int((p > m).sum()), n),
        "missing_rate": ratio(int((g > m).sum()), n),
    }
    if items.unfolding_exact is not None:
        metrics["unfolding_exact"] = ratio(int(items.unfolding_exact[rows].sum()), n)
        metrics["unfolding_steps"] = ratio(int(items.unfolding_matches[rows].sum()), int(items.unfolding_total[rows].sum()))
    return metrics


def column_counts(items: ItemColumns, inconsistent: int) -> dict[str, int]:
    """`default_counts` on columns."""
    statuses = Counter(items.status)
    return {"items": len(items), "exact": int(items.exact.sum()), "matched_holes": int(items.matched.sum()),
            "truth_holes": int(items.truth.sum()), "predicted_holes": int(items.predicted.sum()),
            "duplicate_ids": 0, "declared_total_inconsistent": inconsistent,
            **{f"answers_{k}": v for k, v in sorted(statuses.items())}}


def column_groups(items: ItemColumns) -> dict[str, dict]:
    """`group_breakdown(items, group_summary)` on columns: per group kind and group, the item count,
    exact match, partial (and unfolding exact), by one bincount per number."""
    denominator = items.truth + np.maximum(0, items.predicted - items.truth)
    sums = {"exact": items.exact, "matched": items.matched, "denominator": denominator}
    if items.unfolding_exact is not None:
        sums["unfolding_exact"] = items.unfolding_exact
    out = {}
    for kind, labels in items.groups.items():
        index: dict[str, int] = {}
        inverse = np.fromiter((index.setdefault(label, len(index)) for label in labels), np.int64, len(labels))
        counts = np.bincount(inverse, minlength=len(index))
        totals = {name: np.bincount(inverse, weights=values, minlength=len(index)).round().astype(np.int64)
                  for name, values in sums.items()}
        groups = {}
        for name in sorted(index, key=_group_order):
            k, n = index[name], int(counts[index[name]])
            groups[name] = {"items": n, "exact_match": ratio(int(totals["exact"][k]), n),
                            "partial": ratio(int(totals["matched"][k]), int(totals["denominator"][k]))}
            if "unfolding_exact" in totals:
                groups[name]["unfolding_exact"] = ratio(int(totals["unfolding_exact"][k]), n)
        out[kind] = groups
    return out


def group_summary(members: Sequence[ItemScore], *, unfolding: bool) -> dict:
    """The group-wise numbers: item count, exact match, partial (and unfolding exact)."""
    metrics = aggregate(members, (), unfolding=unfolding)
    keep = ("exact_match", "partial", "unfolding_exact")
    return {"items": len(members), **{k: metrics[k] for k in keep if k in metrics}}


def default_counts(items: Sequence[ItemScore], duplicates: int, inconsistent: int) -> dict[str, int]:
    """Pooled hole counts, answer statuses, duplicate ids and declared-total inconsistencies."""
    statuses = defaultdict(int)
    for item in items:
        statuses[item.status] += 1
    return {"items": len(items), "exact": sum(i.exact for i in items), "matched_holes": sum(i.matched for i in items),
            "truth_holes": sum(i.truth for i in items), "predicted_holes": sum(i.predicted for i in items),
            "duplicate_ids": duplicates, "declared_total_inconsistent": inconsistent,
            **{f"answers_{k}": v for k, v in sorted(statuses.items())}}


# --------------------------------------------------------------------------------------------------
# default mode: planning replay


#: verify reasons after which the plan obeyed the task's rules (its holes may still differ)
PLAN_RULES_KEPT = ("correct", "holes_differ")


def planning_task_of(truth: TruthItem) -> PlanningTask:
    """The planning task a truth item poses (its holes already parsed), or an invalid one."""
    return planning_tasks_of([truth])[0]


def planning_tasks_of(truth: Sequence[TruthItem]) -> list[PlanningTask]:
    """`planning_task_of` for a batch. Items posing the same task (the same parsed holes and fold
    count: copies of one record, as a reward batch holds) share one PlanningTask, whose id is the
    first such item's: the scorer reads verdicts by position, never by task id."""
    shared: dict[tuple[int, int], tuple] = {}  # (id(holes), folds) -> (holes, task); holding holes keeps the id valid
    tasks = []
    for t in truth:
        try:
            folds = task_folds(t.record)
        except InputError as err:
            tasks.append(PlanningTask(t.id, error=str(err.at(item=t.id))))
            continue
        key = (id(t.holes), folds)
        if key not in shared:
            shared[key] = (t.holes, PlanningTask(t.id, folds, t.holes))
        tasks.append(shared[key][1])
    return tasks


def scored_plans(truth: Sequence[TruthItem], chosen: Sequence[Answer | None], *,
                 judged: Judgement | None = None) -> Scored:
    """Replay every plan with foldsim.eval.verify (one batch); the replayed result holes are the
    prediction, compared as hole keys in array form. A plan that cannot be replayed (unreadable,
    not realizable, off the paper) predicts nothing; one that replays but breaks a task rule
    (rotation, fold count, more than 2 punches) keeps its holes for the partial scores but cannot
    be exact. `judged` is the judgement of `chosen` when the caller has it already."""
    if judged is None:
        judged = judge_plans(planning_tasks_of(truth), chosen)
    replay = judged.replay
    replayed = replay.status == OK
    result = replayed_keys(judged)
    matched = key_hole_counts(replay.target, result, FIELDS)
    reasons, was_replayed = judged.reasons.tolist(), replayed.tolist()
    answered = np.fromiter((a is not None and a.ok for a in chosen), bool, len(chosen))
    status = ["missing" if answer is None else answer.status if answer.status != STATUS_OK or replayed_i else reason
              for answer, replayed_i, reason in zip(chosen, was_replayed, reasons)]
    correct = judged.correct.tolist()

    def why(i: int) -> str:
        return "" if correct[i] else f"{reasons[i]}: {judged.detail(i)}"

    def notes(i: int) -> tuple[str, ...]:
        return () if correct[i] else (why(i),)

    n = len(chosen)
    return Scored(status, LazyColumn(n, why), LazyColumn(n, notes), answered, judged.valid_plan,
                  (result != NO_HOLE).sum(1), matched)


def replayed_keys(judged: Judgement) -> np.ndarray:
    """The holes each plan made, as keys (int16[N, W]); none where the plan could not be replayed."""
    return np.where((judged.replay.status == OK)[:, None], judged.replay.result, NO_HOLE)


def plan_partial(judged: Judgement) -> np.ndarray:
    """Each plan's partial accuracy (float[N]): its replayed holes matched against the task's target,
    over the target's holes plus the extra ones, 1.0 where both are empty: what `score_item` gives
    a planning answer, from the judgement's arrays alone (the planning_partial reward)."""
    target, result = judged.replay.target, replayed_keys(judged)
    matched = key_hole_counts(target, result, ())["exact"]
    truth, predicted = (target != NO_HOLE).sum(1), (result != NO_HOLE).sum(1)
    denominator = truth + np.maximum(0, predicted - truth)
    return np.where(denominator > 0, matched / np.maximum(denominator, 1), 1.0)


def key_tensors(keys: np.ndarray, *, predicted: bool) -> np.ndarray:
    """The hole tensors of `field_tests` straight from hole keys (int16[N, W], NO_HOLE padding):
    truth int[N, W, 5] or, with `predicted`, int[N, W, 7] (a replayed hole is clean and names
    its own class)."""
    present = keys != NO_HOLE
    k = keys.astype(np.int64)
    kind, location, quarter = k // 128, (k // 4) % 32 + 1, k % 4
    kind = np.where(present, kind, 0)
    if predicted:
        columns = [kind // 2, kind % 2, location, quarter % 2, quarter, np.ones_like(k), np.ones_like(k)]
    else:
        columns = [kind // 2, kind % 2, location, PERIOD_OF_KIND[kind].astype(np.int64), quarter]
    out = np.stack(columns, axis=-1)
    out[~present] = -1
    if predicted:
        out[..., 6] = present
    return out


def key_hole_counts(truth_keys: np.ndarray, predicted_keys: np.ndarray, fields: Sequence[str], *,
                    max_cells: int = 1 << 21) -> dict[str, np.ndarray]:
    """`hole_counts` for holes given as keys: matched holes per item (int[N]), "exact" and per
    field, by maximum matching, in chunks of at most `max_cells` [items, G, P] cells."""
    truth_keys = np.sort(truth_keys, axis=1)
    predicted_keys = np.sort(predicted_keys, axis=1)
    width = max(1, int((truth_keys != NO_HOLE).sum(1).max(initial=0)), int((predicted_keys != NO_HOLE).sum(1).max(initial=0)))
    truth_keys, predicted_keys = _width(truth_keys, width), _width(predicted_keys, width)
    truth_count = (truth_keys != NO_HOLE).sum(1)
    # equal multisets match hole for hole under every field test: only the others need a matching
    same = (truth_keys == predicted_keys).all(1)
    counts = {name: np.where(same, truth_count, 0) for name in ("exact", *fields)}
    rows = np.flatnonzero(~same)
    step = max(1, max_cells // (width * width))
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        tests = field_tests(key_tensors(truth_keys[chunk], predicted=False), key_tensors(predicted_keys[chunk], predicted=True))
        for name in counts:
            counts[name][chunk] = maximum_matching_sizes(tests[name])
    return counts


def _width(keys: np.ndarray, width: int) -> np.ndarray:
    """Sorted key rows cut or NO_HOLE-padded to `width` columns."""
    if keys.shape[1] >= width:
        return keys[:, :width]
    return np.concatenate([keys, np.full((len(keys), width - keys.shape[1]), NO_HOLE, keys.dtype)], axis=1)


# --------------------------------------------------------------------------------------------------
# batched entry points and files


def score_completions(task: str, truth: Sequence[TruthItem | dict], completions: Sequence[object]) -> Report:
    """Default-mode report for completions[i] answering truth[i] (positionally), without files: the
    batched entry point for reward functions. Completions are model text, lists of chat messages or
    records; none ever raises. Truth may be TruthItems (parse once, reuse) or records (InputError
    when one cannot be read). Planning reads plain plans on verify's fast path."""
    if task not in TASKS:
        raise InputError(f"unknown task {task!r} (expected one of {', '.join(TASKS)})", field="task")
    memo = ReadMemo()
    truth = [t if isinstance(t, TruthItem) else truth_item(t, i, memo=memo) for i, t in enumerate(truth)]
    if len(truth) != len(completions):
        raise ValueError(f"{len(truth)} truth items but {len(completions)} completions")
    with paused_gc():
        if task == "planning":
            answers, preparsed = read_completions(completions)
            judged = judge_plans(planning_tasks_of(truth), answers, _preparsed=preparsed)
            return report_of(task, truth, scored_plans(truth, answers, judged=judged))
        chosen = [replace(answer_of_completion(c, i), id=t.id) for i, (t, c) in enumerate(zip(truth, completions))]
        return report_of(task, truth, scored_predictions(task, truth, chosen))


def score_files(task: str, truth_path: str | Path, answers_path: str | Path, *, compat: str | None = None) -> Report:
    """Score an answers file against a truth file, for every task: the open-ended ones here, the
    multiple-choice ones (choice, split, plan-choice) by foldsim.eval.choice. Raises InputError for
    an unknown task or mode, or a truth/answers file that cannot be read as a whole; bad items are
    reported in `Report.errors` (invalid truth records also count in N as failures), bad answers are
    scored as empty."""
    from ..tasks import CHOICE_TASKS
    from .choice import score_choice_files
    from .holes import score_holes_files
    from .open_values import VALUE_TASKS, score_values_files

    # foldsim's own tasks, none with a reference scorer: family holes (foldsim.eval.holes), the
    # record families' named values (foldsim.eval.open_values), the choice tasks (foldsim.eval.choice)
    if task == "holes" or task in VALUE_TASKS or task in CHOICE_TASKS:
        if compat is not None:
            raise InputError(f"the reference has no {task} task, so there is no reference scorer to reproduce",
                             field="--compat")
        if task in VALUE_TASKS:
            return score_values_files(task, truth_path, answers_path)
        if task == "holes":
            return score_holes_files(truth_path, answers_path)
        return score_choice_files(task, truth_path, answers_path)
    if task not in TASKS:
        raise InputError(f"unknown task {task!r} (expected one of {', '.join((*TASKS, *CHOICE_TASKS))})", field="task")
    if compat is not None and compat not in COMPAT_MODES:
        raise InputError(f"unknown compat mode {compat!r} (expected {', '.join(COMPAT_MODES)})", field="compat")
    with paused_gc():
        truth = load_truth(truth_path, task)
        answers = load_answers(answers_path)
        if compat:
            from .compat import score_compat

            report = score_compat(task, truth.items, answers, compat)
        else:
            report = score_default(task, truth.items, answers, invalid=truth.invalid)
    report.notes = truth.notes + report.notes
    report.errors = [f"{truth_path}: {error}" for error in truth.invalid]
    report.errors += [f"{answers_path}: {a.id}: {a.reason}" for a in answers if a.unreadable]
    return report


def render_report(report: Report, console) -> None:
    """Readable rich tables of a report: metrics, counts and group-wise exact match (a choice-task
    report is drawn by foldsim.eval.choice)."""
    from rich.table import Table

    from .choice import ChoiceReport, render_choice_report

    if isinstance(report, ChoiceReport):
        render_choice_report(report, console)
        return

    metrics = Table(title=f"foldsim score {report.task} ({report.mode})", show_header=True)
    metrics.add_column("metric")
    metrics.add_column("value", justify="right")
    for name, value in report.metrics.items():
        metrics.add_row(name, "n/a" if value is None else f"{100 * value:.2f} %")
    for name, value in report.counts.items():
        metrics.add_row(f"[dim]{name}[/]", str(value))
    console.print(metrics)
    for kind, groups in report.groups.items():
        table = Table(title=f"by {kind}")
        columns = sorted({k for g in groups.values() for k in g}, key=lambda k: (k != "items", k))
        table.add_column(kind)
        for column in columns:
            table.add_column(column, justify="right")
        for name, values in groups.items():
            table.add_row(name, *(_cell(values.get(c)) for c in columns))
        console.print(table)
    for line in [*report.notes, *report.crashes]:
        console.print(f"note: {line}", markup=False, highlight=False)


def _cell(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{100 * value:.2f} %"
    return str(value)
