"""Scoring model answers against ground truth (formats doc §3): the correct metrics by default, the
reference scorers' numbers in `--compat mentalblackboard` mode (foldsim.eval.scoring_compat).

Default mode, per item (g = truth holes, p = listed predicted holes, M = matched holes):
- holes are paired by a maximum bipartite matching (not greedy), shape/size case-insensitive,
  directions compared by class with the single-direction rule of `PredictedHole.quarter_for`;
- exact = (M == g == p); partial = M / (g + max(0, p - g)); fields likewise with a per-field test;
- every truth item counts (a missing answer is an empty one); declared totals are only reported.
Aggregates are micro averages (pooled counts), see `aggregate`.

The hole comparison is vectorized over the batch: holes become padded int arrays, every field test
a boolean [items, truth holes, predictions] tensor, and matchings are found for all items at once
(greedy first-fit as a vectorized sweep, then augmenting paths only on the few items where greedy
may have fallen short).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .answers import STATUS_OK, Answer, PredictedHole, index_answers, load_answers
from ..errors import InputError
from ..holes import SHAPE_PERIOD, SHAPES, SIZES, Hole
from .score_base import (
    COMPAT_MODES, FIELDS, TASKS, TEXT_FIELDS, UNFOLDING_TASKS, ItemScore, Report, TruthItem, aggregate,
    answer_for, group_breakdown, in_row_chunks, load_truth, maximum_matching_sizes, ratio,
)



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
    valid_plan: bool = True
    declared_total: int | None = None


def predicted_of(answer: Answer | None) -> Predicted:
    """A prediction answer read for scoring (missing and unparseable answers are empty)."""
    if answer is None:
        return Predicted()
    prediction = answer.prediction()
    notes = [*prediction.notes, *(f"resultHoles[{i}]: {h.note}" for i, h in enumerate(prediction.holes) if h.note)]
    return Predicted(prediction.holes, prediction.unfolding, answer.status, answer.reason, tuple(notes),
                     declared_total=prediction.declared_total)


def default_groups(truth: TruthItem) -> dict[str, str]:
    return {"pattern": truth.pattern or "?", "folds": str(truth.folds)}


def score_default(task: str, truth: Sequence[TruthItem], answers: Sequence[Answer]) -> Report:
    """Default-mode report for a task (see the module docstring)."""
    by_id, duplicates = index_answers(answers)
    chosen = [answer_for(t.id, by_id, task) for t in truth]
    predicted = replay_for_scoring(truth, chosen) if task == "planning" else [predicted_of(a) for a in chosen]
    fields = TEXT_FIELDS if task == "text" else FIELDS
    unfolding = task in UNFOLDING_TASKS
    matched = hole_counts([t.holes for t in truth], [p.holes for p in predicted], fields, with_direction=task != "text")
    items = []
    for b, (t, p) in enumerate(zip(truth, predicted)):
        g, n_pred, m = len(t.holes), len(p.holes), int(matched["exact"][b])
        item = ItemScore(t.id, p.status, p.reason, g, n_pred, m, {f: int(matched[f][b]) for f in fields}, g, n_pred,
                         exact=(m == g == n_pred) and p.valid_plan, groups=default_groups(t), notes=p.notes)
        if unfolding:
            item.unfolding_exact, item.unfolding_matches, item.unfolding_total = unfolding_score(t.unfolding, p.unfolding)
        items.append(item)
    metrics = aggregate(items, fields, unfolding=unfolding)
    inconsistent = [t.id for t, p in zip(truth, predicted) if p.declared_total not in (None, len(p.holes))]
    counts = default_counts(items, len(duplicates), len(inconsistent))
    if task == "planning":
        counts["valid_plans"] = sum(p.valid_plan for p in predicted)
        metrics["valid_plan_rate"] = ratio(counts["valid_plans"], len(items))
    notes = [f"duplicate answer id {d}: the last one is used" for d in duplicates]
    notes += [f"answer {i}: declared totalNumberofHoles differs from the holes listed (the list is scored)" for i in inconsistent]
    groups = group_breakdown(items, lambda members: group_summary(members, unfolding=unfolding))
    return Report(task, "default", items, metrics, counts, groups, notes)


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


def replay_for_scoring(truth: Sequence[TruthItem], answers: Sequence[Answer | None]) -> list[Predicted]:
    """Replay every plan with foldsim.eval.verify (one batched kernel call); the replayed result holes
    are the prediction. A plan that cannot be replayed (unreadable, not realizable, off the paper)
    predicts nothing; one that replays but breaks a task rule (rotation, fold count, more than 2
    punches) keeps its holes for the partial scores but cannot be exact."""
    from ..kernels import OK
    from .verify import replay_plans

    verdicts = replay_plans([t.record for t in truth], [a for a in answers if a is not None])
    out = []
    for answer, verdict in zip(answers, verdicts):
        if answer is None:
            out.append(Predicted())
            continue
        replayed = verdict.replayed and int(verdict.replay.status[verdict.row]) == OK
        holes = tuple(PredictedHole(h.shape, h.size, h.location, frozenset({90 * h.quarter}))
                      for h in (verdict.result_holes() if replayed else ()))
        reason = "" if verdict.correct else f"{verdict.reason}: {verdict.detail}"
        status = answer.status if answer.status != STATUS_OK or replayed else verdict.reason
        out.append(Predicted(holes, status=status, reason=reason, notes=(reason,) if reason else (),
                             valid_plan=verdict.reason in PLAN_RULES_KEPT))
    return out


# --------------------------------------------------------------------------------------------------
# entry point and rendering


def score_files(task: str, truth_path: str | Path, answers_path: str | Path, *, compat: str | None = None) -> Report:
    """Score an answers file against a truth file. Raises InputError for an unknown task or mode, or
    an unreadable truth/answers file; bad answers are scored as empty, never raised."""
    if task not in TASKS:
        raise InputError(f"unknown task {task!r} (expected one of {', '.join(TASKS)})", field="task")
    if compat is not None and compat not in COMPAT_MODES:
        raise InputError(f"unknown compat mode {compat!r} (expected {', '.join(COMPAT_MODES)})", field="compat")
    truth, notes = load_truth(truth_path, task)
    answers = load_answers(answers_path)
    if compat:
        from .scoring_compat import score_compat

        report = score_compat(task, truth, answers)
    else:
        report = score_default(task, truth, answers)
    report.notes = notes + report.notes
    return report


def render_report(report: Report, console) -> None:
    """Readable rich tables of a report: metrics, counts and group-wise exact match."""
    from rich.table import Table

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
