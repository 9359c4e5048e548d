"""Scoring model answers against ground truth (formats doc §3): the correct metrics by default, the
reference scorers' numbers in `--compat mentalblackboard` mode (foldsim.scoring_compat).

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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .answers import STATUS_OK, Answer, PredictedHole, index_answers, load_answers
from .codes import canonical_code, code_of_entry, pattern_of
from .errors import InputError
from .holes import SHAPE_PERIOD, SHAPES, SIZES, Hole, parse_holes
from .io import read_records

TASKS = ("prediction", "backward", "text", "generalization", "planning")
COMPAT_MODES = ("mentalblackboard",)
FIELDS = ("shape", "size", "location", "direction", "location_shape", "location_direction", "shape_direction",
          "location_shape_direction")
TEXT_FIELDS = ("shape", "size", "location", "location_shape")  # the text modality has no directions
UNFOLDING_TASKS = ("prediction", "backward", "text")
MOD_SUFFIX = "_mod"


# --------------------------------------------------------------------------------------------------
# ground truth


@dataclass(frozen=True)
class TruthItem:
    """One ground-truth record, parsed: result holes, declared total, unfolding codes, action pattern."""

    id: str
    holes: tuple[Hole, ...]
    declared_total: int | None
    unfolding: tuple[str, ...]
    pattern: str
    record: dict = field(repr=False, compare=False)

    @property
    def folds(self) -> int:
        """Number of folds (rotations excluded)."""
        return self.pattern.count("F")


def truth_item(record: object, index: int) -> TruthItem:
    """A TruthItem from a MentalBlackboard record; InputError names the item and field."""
    if not isinstance(record, dict) or not isinstance(record.get("id"), (str, int)):
        raise InputError("a truth record must be an object with an id", item=f"record {index}")
    item = str(record["id"])
    try:
        entries = record.get("foldingTypes")
        codes = [code_of_entry(e) for e in entries] if isinstance(entries, list) else []
        holes = parse_holes(record.get("resultHoles"), "resultHoles")
        unfolding = tuple(canonical_code(c) for c in record.get("unfoldingTypes") or ())
    except InputError as err:
        raise err.at(item=item) from None
    total = record.get("totalNumberofHoles")
    return TruthItem(item, holes, total if isinstance(total, int) else None, unfolding, pattern_of(codes), record)


def load_truth(path: str | Path, task: str) -> tuple[list[TruthItem], list[str]]:
    """The scored truth items of a file and notes on records left out or inconsistent.

    Generalization scores the modified variants: the `_mod` records (all records if none is one).
    Raises InputError when the file is unreadable or holds no usable record.
    """
    records = read_records(path)
    items, notes = [], []
    for i, record in enumerate(records):
        try:
            items.append(truth_item(record, i))
        except InputError as err:
            notes.append(f"truth record left out: {err}")
    if task == "generalization" and any(t.id.endswith(MOD_SUFFIX) for t in items):
        items = [t for t in items if t.id.endswith(MOD_SUFFIX)]
    if not items:
        raise InputError("no usable truth record", item=str(path))
    notes += [f"truth {t.id}: totalNumberofHoles is {t.declared_total} but resultHoles lists {len(t.holes)}"
              for t in items if t.declared_total is not None and t.declared_total != len(t.holes)]
    return items, notes


def answer_for(truth_id: str, by_id: dict[str, Answer], task: str) -> Answer | None:
    """The answer for a truth item; generalization answers may carry the original or the _mod id."""
    if task == "generalization" and truth_id.endswith(MOD_SUFFIX):
        return by_id.get(truth_id, by_id.get(truth_id[: -len(MOD_SUFFIX)]))
    return by_id.get(truth_id)


# --------------------------------------------------------------------------------------------------
# report


@dataclass
class ItemScore:
    """The score of one truth item: the counts every metric is pooled from."""

    id: str
    status: str  # the answer's parse status or "missing"; planning: the verify reason if not replayed; compat: "scored"
    reason: str = ""
    truth: int = 0  # g: holes in the truth (G: the declared total in compat mode)
    predicted: int = 0  # p: holes predicted (P: the declared total in compat mode)
    matched: int = 0  # M
    fields: dict[str, int] = field(default_factory=dict)  # matched holes per field
    field_truth: int = 0  # g, p as list lengths: the field denominators
    field_predicted: int = 0
    exact: bool = False
    unfolding_exact: bool | None = None
    unfolding_matches: int = 0  # codes equal position by position
    unfolding_total: int = 0  # this item's share of the step-accuracy denominator
    groups: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def partial(self) -> float:
        """This item's overall partial accuracy (1.0 when truth and answer are both empty)."""
        denominator = self.truth + max(0, self.predicted - self.truth)
        return self.matched / denominator if denominator else 1.0

    def to_dict(self) -> dict:
        return {**asdict(self), "partial": self.partial}


@dataclass
class Report:
    """A scoring run: pooled metrics, counts, group-wise breakdowns, notes and per-item scores."""

    task: str
    mode: str
    items: list[ItemScore]
    metrics: dict[str, float | None]
    counts: dict[str, int]
    groups: dict[str, dict[str, dict[str, float | int | None]]]
    notes: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)

    def to_dict(self, *, details: bool = False) -> dict:
        data = {"task": self.task, "mode": self.mode, "metrics": self.metrics, "counts": self.counts,
                "groups": self.groups, "notes": self.notes, "crashes": self.crashes}
        if details:
            data["items"] = [i.to_dict() for i in self.items]
        return data


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, None when undefined."""
    return numerator / denominator if denominator else None


def aggregate(items: Sequence[ItemScore], fields: Sequence[str], *, unfolding: bool) -> dict[str, float | None]:
    """Default-mode pooled metrics over all truth items (N = len(items)):

    exact_match = #exact / N; partial = ΣM / Σ(g + max(0, p - g)); field_f = ΣM_f / (same);
    extra_rate = #{p > M} / N (an unmatched prediction); missing_rate = #{g > M} / N;
    unfolding_exact = #equal code lists / N; unfolding_steps = Σ equal positions / Σ max(len, len).
    """
    n = len(items)
    denominator = sum(i.truth + max(0, i.predicted - i.truth) for i in items)
    metrics = {
        "exact_match": ratio(sum(i.exact for i in items), n),
        "partial": ratio(sum(i.matched for i in items), denominator),
        **{f"field_{f}": ratio(sum(i.fields.get(f, 0) for i in items), denominator) for f in fields},
        "extra_rate": ratio(sum(i.predicted > i.matched for i in items), n),
        "missing_rate": ratio(sum(i.truth > i.matched for i in items), n),
    }
    if unfolding:
        metrics["unfolding_exact"] = ratio(sum(bool(i.unfolding_exact) for i in items), n)
        metrics["unfolding_steps"] = ratio(sum(i.unfolding_matches for i in items), sum(i.unfolding_total for i in items))
    return metrics


def group_breakdown(items: Sequence[ItemScore], summarize: Callable[[Sequence[ItemScore]], dict]) -> dict[str, dict]:
    """`summarize` applied to the items of every group, for each group kind the items carry."""
    kinds: dict[str, dict[str, list[ItemScore]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        for kind, group in item.groups.items():
            kinds[kind][group].append(item)
    return {kind: {g: summarize(members) for g, members in sorted(groups.items(), key=lambda kv: _group_order(kv[0]))}
            for kind, groups in kinds.items()}


def _group_order(name: str) -> tuple:
    return (0, int(name), "") if name.lstrip("-").isdigit() else (1, len(name), name)


# --------------------------------------------------------------------------------------------------
# matching (vectorized over the batch)


def greedy_first_fit(compatible: np.ndarray) -> np.ndarray:
    """The reference's pairing for bool[B, G, P]: truth holes in order, each takes the first unused
    compatible prediction. Returns int[B, G], the prediction index per truth hole or -1."""
    batch, n_truth, n_pred = compatible.shape
    used = np.zeros((batch, n_pred), bool)
    pairs = np.full((batch, n_truth), -1, np.int64)
    rows = np.arange(batch)
    for j in range(n_truth):
        free = compatible[:, j, :] & ~used
        has = free.any(axis=1)
        first = free.argmax(axis=1)
        pairs[has, j] = first[has]
        used[rows[has], first[has]] = True
    return pairs


def maximum_matching_sizes(compatible: np.ndarray) -> np.ndarray:
    """Size of a maximum matching for every bool[G, P] in bool[B, G, P].

    Greedy first, then augmenting paths (Kuhn) only where a truth hole was left unmatched although
    it has a compatible prediction: elsewhere no augmenting path can start, so greedy is maximum.
    """
    pairs = greedy_first_fit(compatible)
    sizes = (pairs >= 0).sum(axis=1)
    open_rows = np.flatnonzero(((pairs < 0) & compatible.any(axis=2)).any(axis=1))
    for b in open_rows:
        sizes[b] = augmented_size(compatible[b], pairs[b])
    return sizes


def augmented_size(compatible: np.ndarray, pairs: np.ndarray) -> int:
    """Kuhn's augmenting-path algorithm on one bool[G, P], started from a partial matching
    (`pairs`: prediction per truth hole or -1). Plain Python on adjacency lists: G, P are small."""
    neighbours = [np.flatnonzero(row).tolist() for row in compatible]
    owner = {int(p): j for j, p in enumerate(pairs.tolist()) if p >= 0}

    def augment(j: int, seen: set[int]) -> bool:
        for p in neighbours[j]:
            if p not in seen:
                seen.add(p)
                if p not in owner or augment(owner[p], seen):
                    owner[p] = j
                    return True
        return False

    for j, p in enumerate(pairs.tolist()):
        if p < 0 and neighbours[j]:
            augment(j, set())
    return len(owner)


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


def row_chunks(truth_rows: Sequence[Sequence], predicted_rows: Sequence[Sequence], max_cells: int) -> list[slice]:
    """Consecutive item ranges whose padded [items, G, P] tensors stay under `max_cells` (at least
    one item each), so an answer listing thousands of holes costs memory only for itself."""
    chunks, start, widest = [], 0, (1, 1)
    for i, (truth, predicted) in enumerate(zip(truth_rows, predicted_rows)):
        grown = (max(widest[0], len(truth)), max(widest[1], len(predicted)))
        if i > start and (i - start + 1) * grown[0] * grown[1] > max_cells:
            chunks.append(slice(start, i))
            start, grown = i, (max(len(truth), 1), max(len(predicted), 1))
        widest = grown
    return [*chunks, slice(start, len(truth_rows))]


def in_row_chunks(counts: Callable[[Sequence, Sequence], dict[str, np.ndarray]], truth_rows: Sequence[Sequence],
                  predicted_rows: Sequence[Sequence], *, max_cells: int = 1 << 21) -> dict[str, np.ndarray]:
    """`counts(truth_rows, predicted_rows)` (int[items] per name) computed chunk by chunk."""
    parts = [counts(truth_rows[c], predicted_rows[c]) for c in row_chunks(truth_rows, predicted_rows, max_cells)]
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


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
    """Replay every plan with foldsim.verify (one batched kernel call); the replayed result holes
    are the prediction. A plan that cannot be replayed (unreadable, not realizable, off the paper)
    predicts nothing; one that replays but breaks a task rule (rotation, fold count, more than 2
    punches) keeps its holes for the partial scores but cannot be exact."""
    from .kernels import OK
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
