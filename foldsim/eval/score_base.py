"""What both scorers build on (default `scoring` and `compat`): the parsed truth items, the
per-item score and report types, pooled aggregation, group breakdowns and the hole matchings. Kept
below both so neither scorer imports the other."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .answers import Answer
from ..codes import pattern_of
from ..errors import InputError
from ..holes import Hole
from ..io import read_records, record_name, record_object
from ..tasks import OPEN_TASKS
from ..planning import ReadMemo

TASKS = OPEN_TASKS
#: --compat modes: the top-level prediction_scoring.py (the one the reference runner calls) and
#: scoring/prediction_scoring.py (beside the other scorers); the two differ only for prediction
COMPAT_MODES = ("mentalblackboard", "mentalblackboard-scoring-dir")
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


def truth_item(record: object, index: int, *, memo: ReadMemo | None = None) -> TruthItem:
    """A TruthItem from a MentalBlackboard record; InputError names the item and field. `memo`
    speeds up reading many records (foldsim.planning.ReadMemo)."""
    memo = memo or ReadMemo()
    item = record_name(record, index)
    record = record_object(record, item)
    if not isinstance(record.get("id"), (str, int)) or isinstance(record.get("id"), bool):
        raise InputError("a truth record must have an id (a string or an integer)", item=item, field="id")
    try:
        entries = record.get("foldingTypes")
        if entries is not None and not isinstance(entries, list):
            raise InputError("must be a list of folds", field="foldingTypes")
        codes = [memo.code(e) for e in entries or ()]
        holes = memo.holes(record.get("resultHoles"), "resultHoles")
        unfolding = record.get("unfoldingTypes")
        if unfolding is not None and not isinstance(unfolding, list):
            raise InputError("must be a list of codes", field="unfoldingTypes")
        unfolding = tuple(memo.canonical(c) for c in unfolding or ())
    except InputError as err:
        raise err.at(item=item) from None
    total = record.get("totalNumberofHoles")
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    return TruthItem(item, holes, total, unfolding, pattern_of(codes), record)


@dataclass(frozen=True)
class TruthSet:
    """The truth items of a file that are scored, the records that could not be read (each is
    scored as a failure and reported), and notes on inconsistent records."""

    items: list[TruthItem]
    invalid: list[InputError]
    notes: list[str]


def load_truth(path: str | Path, task: str) -> TruthSet:
    """The scored truth of a file (see TruthSet).

    Generalization scores the modified variants: the `_mod` records (all records if none is one);
    an unreadable record counts there unless its id names an original. Raises InputError when the
    file as a whole cannot be read, or holds no record at all.
    """
    records = read_records(path)
    items: list[TruthItem] = []
    invalid: list[InputError] = []
    memo = ReadMemo()
    for i, record in enumerate(records):
        try:
            items.append(truth_item(record, i, memo=memo))
        except InputError as err:
            invalid.append(err if err.item else err.at(item=record_name(record, i)))
    if task == "generalization" and any(t.id.endswith(MOD_SUFFIX) for t in items):
        items = [t for t in items if t.id.endswith(MOD_SUFFIX)]
        named = {t.record.get("id") for t in items}
        invalid = [e for e in invalid if e.item.endswith(MOD_SUFFIX) or not _names_an_original(e.item, named)]
    if not items and not invalid:
        raise InputError("no truth record", item=str(path))
    notes = [f"truth {t.id}: totalNumberofHoles is {t.declared_total} but resultHoles lists {len(t.holes)}"
             for t in items if t.declared_total is not None and t.declared_total != len(t.holes)]
    return TruthSet(items, invalid, notes)


def _names_an_original(item: str, mod_ids: set) -> bool:
    """Whether an unreadable generalization record is the original of a scored `_mod` record."""
    return f"{item}{MOD_SUFFIX}" in mod_ids


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
    answered: bool = True  # an answer object was found (default mode: a missing or unreadable one never scores)

    @property
    def partial(self) -> float:
        """This item's overall partial accuracy (when truth and answer are both empty: 1.0 if it
        was answered, 0.0 if not)."""
        denominator = self.truth + max(0, self.predicted - self.truth)
        return self.matched / denominator if denominator else float(self.answered)

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
    errors: list[str] = field(default_factory=list)  # one line per bad input item: "<file>: <item>: <field>: <message>"

    def to_dict(self, *, details: bool = False) -> dict:
        data = {"task": self.task, "mode": self.mode, "metrics": self.metrics, "counts": self.counts,
                "groups": self.groups, "notes": self.notes, "crashes": self.crashes, "errors": self.errors}
        if details:
            data["items"] = [i.to_dict() for i in self.items]
        return data


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, None when undefined."""
    return numerator / denominator if denominator else None


def family_counts_and_groups(units: Sequence, n_invalid: int, summary) -> tuple[dict, dict[str, dict[str, dict]]]:
    """The counts and the by-family / by-level summaries of a family task's per-item units (each
    with `answered`, `exact`, `status` and `groups`), shared by the holes and the named-values
    scorers: unreadable truth records count in N; families are broken down only when there are
    several, levels always."""
    counts = {"items": len(units) + n_invalid, "answered": sum(u.answered for u in units),
              "exact": sum(u.exact for u in units), "missing": sum(u.status == "missing" for u in units),
              "unreadable": sum(u.status not in ("ok", "missing") for u in units), "invalid_truth": n_invalid}
    groups: dict[str, dict[str, dict]] = {}
    for kind in ("family", "level"):
        members: dict[str, list] = {}
        for u in units:
            members.setdefault(u.groups[kind], []).append(u)
        if len(members) > 1 or kind == "level":
            groups[kind] = {name: summary(m) for name, m in sorted(members.items())}
    return counts, groups


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
