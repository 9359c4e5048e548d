"""The reference scorers of the prediction family and generalization: one `Scorer` value per
reference script, one scoring routine for them all (`score_compat`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..answers import Answer
from ...errors import describe
from ..score_base import MOD_SUFFIX, ItemScore, Report, TruthItem, group_breakdown, in_row_chunks, ratio
from .reading import (
    KEPT_COUNT, RefAnswer, RefHole, _iterated_holes, answer_generalization, answer_scoring_dir, answer_top_level,
    extract_backward, extract_generalization, extract_prediction_family, extract_top_level, hole_generalization,
    hole_scoring_dir, hole_text, hole_top_level, hole_truth, normalised_unfolding, raw_truth_holes, raw_truth_list,
)
from .tensors import Interner, count_matches, ref_tensors, ref_tests, truth_wildcards
from .text import MODE_SCORING_DIR, RefCrash, answer_record

# --------------------------------------------------------------------------------------------------
# the prediction family and generalization


@dataclass(frozen=True)
class Scorer:
    """One reference scorer of the prediction family or generalization."""

    name: str  # the reference file, for messages
    task: str
    extract: Callable[[object], object]  # answer record -> the parsed answer (never raises)
    answer: Callable[[object], RefAnswer]  # parsed answer -> RefAnswer (RefCrash where the scorer raises)
    read_hole: Callable[[object], RefHole | None]  # None: the hole is dropped
    read_truth_hole: Callable[[dict], RefHole | None]
    n_fixed: int | None  # the hard-coded N (None: the number of scored records)
    group_of: Callable[[str], str | None]
    fields: tuple[str, ...]
    with_direction: bool = True
    gate: Callable[[object], bool] | None = None  # direction fields shown only if a parsed answer passes
    unfolding: str | None = None  # "normalised" (top level) or "raw" list comparison
    steps_crash_on_zero: bool = False  # ZeroDivisionError instead of a guard
    group_names: tuple[str, ...] = ()  # groups always printed (generalization), over `group_total`
    group_total: int | None = None
    field_truth_total: int | None = None  # generalization's hard-coded 708


def numbered_group(size: int, count: int) -> Callable[[str], str | None]:
    """The number after the first "PFHP_" in the id -> group count - (n - 1) // size for n in
    1..size*count, else None (the reference's group 0, left out of the group table)."""
    def group_of(item_id: str) -> str | None:
        match = re.search(r"PFHP_(\d+)", item_id)
        n = int(match[1]) if match and len(match[1]) < 10 else 0
        return str(count - (n - 1) // size) if 1 <= n <= size * count else None
    return group_of


GENERALIZATION_GROUPS = ("direction", "size", "shape", "location", "other")


def attribute_group(item_id: str) -> str:
    """generalization: the first of direction, size, shape, location in the lower-cased id, else "other"."""
    lowered = item_id.lower()
    return next((a for a in GENERALIZATION_GROUPS[:4] if a in lowered), "other")


def gate_top_level(data: dict) -> bool:
    """prediction_scoring.py's direction check on one parsed answer: a hole whose direction is not
    None, "" or "None"; `.get` on a hole that is not an object raises."""
    for i, hole in enumerate(data["resultHoles"]):
        if not isinstance(hole, dict):
            raise RefCrash(f"the direction check calls .get on hole {i}, {describe(hole)} (AttributeError)")
        if hole.get("direction") not in (None, "", "None"):
            return True
    return False


def gate_scoring_dir(data: object) -> bool:
    """scoring/prediction_scoring.py's check: `"direction" in hole` (an object's key, a list's member,
    a substring of a string); a number or null hole raises."""
    for i, hole in enumerate(_iterated_holes(data, "the direction check")):
        if not isinstance(hole, (dict, list, str)):
            raise RefCrash(f"the direction check tests `in` on hole {i}, {describe(hole)} (TypeError)")
        if "direction" in hole:
            return True
    return False


COMPOUNDS = ("location_shape", "location_direction", "shape_direction", "location_shape_direction")
DIRECTION_FIELDS = ("direction", "location_direction", "shape_direction", "location_shape_direction")
PREDICTION_FIELDS = ("shape", "size", "location", "direction", *COMPOUNDS)


def _prediction_scorer(name: str, extract, answer, read_hole, read_truth_hole, gate, unfolding, crash_on_zero) -> Scorer:
    return Scorer(name, "prediction", extract, answer, read_hole, read_truth_hole, 900, numbered_group(100, 9), PREDICTION_FIELDS,
                  gate=gate, unfolding=unfolding, steps_crash_on_zero=crash_on_zero)


TOP_LEVEL_PREDICTION = _prediction_scorer("prediction_scoring.py", extract_top_level, answer_top_level, hole_top_level,
                                          partial(hole_truth, int_zero_bug=True), gate_top_level, "normalised", False)
SCORING_DIR_PREDICTION = _prediction_scorer("scoring/prediction_scoring.py", extract_prediction_family,
                                            partial(answer_scoring_dir, "scoring/prediction_scoring"), hole_scoring_dir, hole_truth,
                                            gate_scoring_dir, "raw", True)
BACKWARD = Scorer("scoring/backward_scoring.py", "backward", extract_backward, partial(answer_scoring_dir, "backward_scoring"),
                  hole_scoring_dir, hole_truth, None, numbered_group(20, 9), ("shape", "size", "location", "direction"),
                  unfolding="raw", steps_crash_on_zero=True)
TEXT = Scorer("scoring/text_prediction_scoring.py", "text", extract_prediction_family, partial(answer_scoring_dir, "text_prediction_scoring"),
              hole_text, hole_text, 315, numbered_group(100, 9), ("shape", "size", "location", "location_shape"), with_direction=False,
              unfolding="raw")
GENERALIZATION = Scorer("scoring/generalization_scoring.py", "generalization", extract_generalization, answer_generalization,
                        hole_generalization, hole_generalization, 240, attribute_group, ("shape", "size", "location", "direction"),
                        group_names=GENERALIZATION_GROUPS, group_total=60, field_truth_total=708)


def scorer_for(task: str, mode: str) -> Scorer:
    """The reference scorer of a task; the two modes differ for prediction only."""
    if task == "prediction":
        return SCORING_DIR_PREDICTION if mode == MODE_SCORING_DIR else TOP_LEVEL_PREDICTION
    return {"backward": BACKWARD, "text": TEXT, "generalization": GENERALIZATION}[task]


def scored_pairs(scorer: Scorer, truth: Sequence[TruthItem], answers: Sequence[Answer]) -> list[tuple[TruthItem, Answer]]:
    """The (truth, answer) pairs the scorer visits: prediction family in truth order with the last
    duplicate winning and unanswered truth skipped; generalization in answer order, id + "_mod",
    duplicates visited twice."""
    by_id = {t.id: t for t in truth}
    if scorer.task == "generalization":
        return [(by_id[a.id + MOD_SUFFIX], a) for a in answers if a.id + MOD_SUFFIX in by_id]
    last = {a.id: a for a in answers}
    return [(t, last[t.id]) for t in truth if t.id in last]


def direction_gate(scorer: Scorer, parsed: dict[str, object]) -> tuple[bool, list[str]]:
    """Whether the direction fields are reported: the scorer's check over every parsed answer, in
    file order of first appearance (answers without a truth record too), stopping at the first
    success. Where the check raises (a whole-run crash in the reference) the answer is reported
    and the check goes on with the next one."""
    crashes = []
    for item_id, data in parsed.items():
        try:
            if scorer.gate(data):
                return True, crashes
        except RefCrash as crash:
            crashes.append(f"{item_id}: {crash}; the reference stops before scoring anything")
    return False, crashes


@dataclass(frozen=True)
class ReadPair:
    """One visited (truth, answer) pair as the scorer reads it."""

    truth: TruthItem
    answer: RefAnswer
    truth_holes: tuple[RefHole, ...]
    holes: tuple[RefHole, ...]
    g: object  # G: the truth's declared total
    p: object  # P: the answer's total
    rate_p: object  # P of the extra/missing counts
    unfolding: tuple | None
    rate_g: object = None  # G of the extra/missing counts (None: `g`)


def read_pair(scorer: Scorer, truth: TruthItem, data: object) -> ReadPair:
    """The answer, its holes, the totals and the unfolding comparison; RefCrash where the reference
    raises."""
    truth_holes = tuple(h for h in map(scorer.read_truth_hole, raw_truth_holes(truth)) if h is not None)
    ref = scorer.answer(data)
    holes = tuple(h for h in map(scorer.read_hole, ref.holes) if h is not None)
    p = len(holes) if ref.total is KEPT_COUNT else ref.total
    g = truth.record.get("totalNumberofHoles", len(truth_holes))
    for value, whose in ((p, "the answer's"), (g, "the truth's")):
        if not isinstance(value, (int, float)):
            raise RefCrash(f"totalNumberofHoles {describe(value)} ({whose}) is not a number (TypeError)")
    unfolding = unfolding_compare(scorer, truth.record, ref.unfolding) if scorer.unfolding else None
    # generalization's extra/missing counts take an absent total from the raw lists on both sides
    # (compare_json_files), where exact and the fields use the kept holes (compare_result_holes)
    rate_g = len(raw_truth_list(truth)) if scorer.task == "generalization" and "totalNumberofHoles" not in truth.record else g
    return ReadPair(truth, ref, truth_holes, holes, g, p, ref.rate_total if ref.total is KEPT_COUNT else p, unfolding, rate_g)


def unfolding_compare(scorer: Scorer, truth_record: dict, predicted: object) -> tuple[bool, int, int]:
    """(equal, equal positions, len(truth)) as the scorer computes them: lists compared as they are
    (the top level normalises both sides first); len() of null or a number, or indexing an object,
    raises there."""
    truth_value = truth_record.get("unfoldingTypes", [])
    if scorer.unfolding == "normalised":
        truth_value = normalised_unfolding(truth_value)
    try:
        common = min(len(truth_value), len(predicted))
        matches = sum(truth_value[i] == predicted[i] for i in range(common))
    except (TypeError, KeyError) as why:
        raise RefCrash(f"unfoldingTypes is {describe(predicted)} ({type(why).__name__})") from None
    return truth_value == predicted, matches, len(truth_value)


def score_family(scorer: Scorer, truth: Sequence[TruthItem], answers: Sequence[Answer], mode: str) -> Report:
    """Score the prediction family or generalization the way the reference scorer does."""
    crashes: list[str] = []
    show_direction = True
    if scorer.gate is not None:
        parsed = {a.id: scorer.extract(answer_record(a)) for a in {a.id: a for a in answers}.values()}
        show_direction, crashes = direction_gate(scorer, parsed)
        pairs = [(t, parsed[a.id]) for t, a in scored_pairs(scorer, truth, answers)]
    else:
        pairs = [(t, scorer.extract(answer_record(a))) for t, a in scored_pairs(scorer, truth, answers)]
    read = []
    for t, data in pairs:
        try:
            read.append(read_pair(scorer, t, data))
        except RefCrash as crash:
            crashes.append(f"{t.id}: {crash}")
    counts = in_row_chunks(partial(family_counts, scorer, Interner()), [r.truth_holes for r in read], [r.holes for r in read])
    items, rates = [], []
    for b, r in enumerate(read):
        m = int(counts["exact"][b])
        group = scorer.group_of(r.truth.id)
        item = ItemScore(r.truth.id, "scored", r.answer.note, r.g, r.p, m, {f: int(counts[f][b]) for f in scorer.fields},
                         len(r.truth_holes), len(r.holes), exact=(r.p == r.g and m == r.g), groups={"group": group} if group else {})
        if r.unfolding is not None:
            item.unfolding_exact, item.unfolding_matches, item.unfolding_total = r.unfolding
        items.append(item)
        rates.append((r.rate_g, r.rate_p))
    return family_report(scorer, mode, items, rates, crashes, show_direction=show_direction)


def family_counts(scorer: Scorer, intern: Interner, truth_rows: Sequence, predicted_rows: Sequence) -> dict[str, np.ndarray]:
    """Matched holes per item: "exact" (greedy first-fit on shape, size, location, direction) and
    one count per field of the scorer."""
    truth = ref_tensors(truth_rows, intern)
    tests = ref_tests(truth, ref_tensors(predicted_rows, intern))
    same = tests["shape"] & tests["size"] & tests["location"]
    exact = count_matches(same & tests["overlap"] if scorer.with_direction else same, "greedy")
    return {"exact": exact, **family_field_counts(scorer, tests, truth_wildcards(truth))}


def family_field_counts(scorer: Scorer, tests: dict[str, np.ndarray], wildcards: np.ndarray) -> dict[str, np.ndarray]:
    """Matched holes per field: shape/size/location as multisets, direction and compounds greedy;
    generalization counts its location field on str(location) and credits a truth wildcard
    direction (bool[B, G] `wildcards`) without consuming a prediction, even when there is none."""
    location = tests["location_key"] if scorer.task == "generalization" else tests["location"]
    shape, overlap = tests["shape"], tests["overlap"]
    by_field = {"shape": (shape, "multiset"), "size": (tests["size"], "multiset"), "location": (location, "multiset"),
                "direction": (overlap, "greedy"), "location_shape": (location & shape, "greedy"),
                "location_direction": (location & overlap, "greedy"), "shape_direction": (shape & overlap, "greedy"),
                "location_shape_direction": (location & shape & overlap, "greedy")}
    if scorer.task == "generalization":
        by_field["direction"] = (overlap & ~wildcards[:, :, None], "greedy")
    counts = {f: count_matches(*by_field[f]) for f in scorer.fields}
    if scorer.task == "generalization":
        counts["direction"] = counts["direction"] + wildcards.sum(axis=1)
    return counts


def family_report(scorer: Scorer, mode: str, items: list[ItemScore], rates: list[tuple], crashes: list[str], *,
                  show_direction: bool) -> Report:
    """Pooled numbers with the scorer's own denominators (formats doc §3.4-§3.6). `rates` holds the
    (G, P) of each item's extra/missing count."""
    scored = len(items)
    n = scorer.n_fixed if scorer.n_fixed is not None else scored
    unique = list({i.id: i for i in items}.values())  # generalization: its exact view keeps one copy per id
    extras = sum(max(0, i.predicted - i.truth) for i in items)
    field_extras = sum(max(0, i.field_predicted - i.field_truth) for i in items)
    field_truth = scorer.field_truth_total if scorer.field_truth_total is not None else sum(i.field_truth for i in items)
    notes = [f"{scorer.name}: N = {n} ({'hard-coded by the reference' if scorer.n_fixed else 'the scored records'}); "
             f"{scored} records scored"]
    if n == 0:
        crashes.append("ZeroDivisionError: no record was scored")
    metrics = {
        "exact_match": ratio(sum(i.exact for i in unique), n),
        "partial": None if scorer.task == "generalization" else ratio(sum(i.matched for i in items),
                                                                       sum(i.truth for i in items) + extras),
        **{f"field_{f}": ratio(sum(i.fields[f] for i in items), field_truth + field_extras) for f in scorer.fields},
        "extra_rate": ratio(sum(p > g for g, p in rates), n),
        "missing_rate": ratio(sum(p < g for g, p in rates), n),
    }
    if not show_direction:
        metrics.update({f"field_{f}": None for f in DIRECTION_FIELDS if f in scorer.fields})
        notes.append("no predicted hole has a direction: the direction fields are not reported")
    if scorer.unfolding:
        metrics["unfolding_exact"] = ratio(sum(bool(i.unfolding_exact) for i in items), n)
        steps = sum(i.unfolding_total for i in items)
        metrics["unfolding_steps"] = ratio(sum(i.unfolding_matches for i in items), steps)
        if not steps and scorer.steps_crash_on_zero:
            crashes.append("ZeroDivisionError: the truth has no unfolding steps")
    counts = {"N": n, "scored": scored, "exact": sum(i.exact for i in unique), "crashed": len(crashes),
              "correct": sum(i.matched for i in items), "incorrect": sum(i.predicted - i.matched for i in items),
              "missing": sum(i.truth - i.matched for i in items)}
    return Report(scorer.task, f"compat {mode}", items, metrics, counts, family_groups(scorer, items), notes, crashes)


def family_groups(scorer: Scorer, items: list[ItemScore]) -> dict:
    """Group-wise exact (and unfolding exact) over the scored records of each group, or, for
    generalization, over the hard-coded 60 with every attribute group printed, answered or not."""
    def summarize(members: Sequence[ItemScore]) -> dict:
        total = scorer.group_total or len(members)
        summary = {"items": len(members), "exact_match": ratio(sum(i.exact for i in members), total)}
        if scorer.unfolding:
            summary["unfolding_exact"] = ratio(sum(bool(i.unfolding_exact) for i in members), total)
        return summary

    groups = group_breakdown(items, summarize)
    if scorer.group_names:
        found = groups.get("group", {})
        groups["group"] = {name: found.get(name, summarize([])) for name in scorer.group_names}
    return groups
