"""`--compat mentalblackboard`: the reference scorers' numbers, quirks included (formats doc §2, §3).

Each reference scorer is described by a `RefRules` value (how it finds the answer JSON, reads a
hole, compares fields, pairs holes and which denominators it uses); one scoring routine serves the
prediction family (prediction = the top-level prediction_scoring.py, backward, text) and
generalization, and `score_planning` replays plans the way animate.py/run.py would.

Where the reference would crash on an item, that item is listed in `Report.crashes` with the
reason and left out of every pooled number (the hard-coded N still counts it); the rest go on.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from .answers import Answer, response_text
from ..codes import code_of_entry
from ..config import Config
from ..errors import InputError
from ..holes import SHAPES, Hole, parse_hole
from .score_base import (
    FIELDS, MOD_SUFFIX, ItemScore, Report, TruthItem, greedy_first_fit, group_breakdown, in_row_chunks, maximum_matching_sizes,
    ratio,
)

PREDICTION_KEYS = ("resultHoles", "totalNumberofHoles", "unfoldingTypes")
DIRECTION_WORDS = 6  # 360 angle bits in uint64 words


class RefCrash(Exception):
    """The reference scorer would raise here; the message says where and why."""


# --------------------------------------------------------------------------------------------------
# finding the answer JSON the reference way


_JSON_FENCE = re.compile(r"```json\s*(.*?)```", re.DOTALL)
_PLAIN_FENCE = re.compile(r"```(?!json)\s*(.*?)```", re.DOTALL)
_GREEDY_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_FIRST_JSON_OBJECT_FENCE = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_BARE_F_CODE = re.compile(r'(?<!")\b([DHV]\d-F)\b(?!")')
_ANY_CODE = re.compile(r"([DHV]\d-[BF])")
_DIGITS = re.compile(r"-?\d+")


def _loads_dict(text: str) -> dict | list | None:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def candidates_prediction(text: str, keys: Sequence[str]) -> list[str]:
    """prediction/text scorers: every ```json block, then every other ``` block; if none, every
    greedy {...} match, those naming an answer key last. Tried last first."""
    blocks = _JSON_FENCE.findall(text) + _PLAIN_FENCE.findall(text)
    if not blocks:
        matches = _GREEDY_OBJECT.findall(text)
        blocks = [m for m in matches if not any(k in m for k in keys)] + [m for m in matches if any(k in m for k in keys)]
    return blocks[::-1]


def parse_prediction_text(text: str, keys: Sequence[str]) -> object:
    """The first candidate that parses, as is or after quoting bare -F codes and dropping trailing
    commas (a bare -B code is not repaired). None when nothing parses."""
    for block in candidates_prediction(text, keys):
        for attempt in (block, _TRAILING_COMMA.sub(r"\1", _BARE_F_CODE.sub(r'"\1"', block))):
            data = _loads_dict(attempt.strip())
            if data is not None:
                return data
    return None


def parse_backward_text(text: str) -> object:
    """backward scorer: the last ```json block, else the greedy {...}; on failure quote every code
    (already quoted ones too, which breaks them), drop trailing commas and turn ' into "."""
    blocks = _JSON_FENCE.findall(text) or _GREEDY_OBJECT.findall(text)
    if not blocks:
        return None
    block = blocks[-1].strip()
    data = _loads_dict(block)
    if data is None:
        data = _loads_dict(_TRAILING_COMMA.sub(r"\1", _ANY_CODE.sub(r'"\1"', block)).replace("'", '"'))
    return data


def parse_generalization_text(text: str) -> object:
    """generalization scorer: the last ```json block, else the greedy {...}; no repair."""
    blocks = _JSON_FENCE.findall(text) or _GREEDY_OBJECT.findall(text)
    return _loads_dict(blocks[-1].strip()) if blocks else None


def envelope_text(record: dict, *, raw_response: bool) -> str | None:
    """The reference envelopes: `response`, `result.message.content`, `response.body.choices`, and
    for the top-level scorer also `raw_response`."""
    text, source = response_text(record)
    if source == "raw_response" and not raw_response:
        return None
    return text


# --------------------------------------------------------------------------------------------------
# reading answers per scorer


@dataclass(frozen=True)
class RefAnswer:
    """An answer as one reference scorer reads it: raw holes, declared total P, unfolding value."""

    holes: tuple = ()
    total: object = 0
    unfolding: object = None
    note: str = ""


EMPTY = RefAnswer()


def read_top_level(record: dict) -> RefAnswer:
    """prediction_scoring.py (top level): error rows are empty; records holding answer fields are
    taken as is (total coerced to int, else the list length); otherwise text is parsed and its
    total used uncoerced (a string total crashes later)."""
    if "error" in record:
        return RefAnswer(note="error row")
    if any(k in record for k in PREDICTION_KEYS):
        holes = record.get("resultHoles") or []
        holes = holes if isinstance(holes, list) else []
        try:
            total = int(record.get("totalNumberofHoles"))
        except (TypeError, ValueError):
            total = len(holes)
        return RefAnswer(tuple(holes), total, record.get("unfoldingTypes"))
    text = envelope_text(record, raw_response=True)
    data = parse_prediction_text(text if text is not None else json.dumps(record), PREDICTION_KEYS)
    if not isinstance(data, dict):
        return RefAnswer(note="no parseable answer")
    holes = data.get("resultHoles") or []
    holes = holes if isinstance(holes, list) else []
    return RefAnswer(tuple(holes), data.get("totalNumberofHoles", len(holes)), data.get("unfoldingTypes"))


def _scoring_dir_answer(data: object, who: str) -> RefAnswer:
    """The scoring/ scorers' reading of a parsed object (they crash on arrays and null lists)."""
    if data is None:
        return RefAnswer(note="no parseable answer")
    if not isinstance(data, dict):
        raise RefCrash(f"{who}: the answer JSON is a {type(data).__name__}, not an object (AttributeError)")
    holes = data.get("resultHoles", [])
    if not isinstance(holes, list):
        raise RefCrash(f"{who}: resultHoles is {type(holes).__name__} (TypeError)")
    return RefAnswer(tuple(holes), data.get("totalNumberofHoles", len(holes)), data.get("unfoldingTypes", []))


def read_backward(record: dict) -> RefAnswer:
    text = envelope_text(record, raw_response=False)
    return EMPTY if text is None else _scoring_dir_answer(parse_backward_text(text), "backward_scoring")


def read_text_modality(record: dict) -> RefAnswer:
    text = envelope_text(record, raw_response=False)
    if text is None:
        return RefAnswer(note="unknown record format")
    return _scoring_dir_answer(parse_prediction_text(text, PREDICTION_KEYS[:2]), "text_prediction_scoring")


def read_generalization(record: dict) -> RefAnswer:
    text = envelope_text(record, raw_response=False)
    data = parse_generalization_text(text) if text is not None else None
    if not isinstance(data, dict):
        return RefAnswer(note="no parseable answer")
    holes = data.get("resultHoles") or []
    kept = tuple(h for h in (holes if isinstance(holes, list) else [])
                 if isinstance(h, dict) and (isinstance(h.get("location"), int) or _is_triple(h.get("location"))))
    return RefAnswer(kept, data.get("totalNumberofHoles", len(holes)))


def _is_triple(value: object) -> bool:
    return isinstance(value, list) and len(value) == 3


# --------------------------------------------------------------------------------------------------
# reading holes per scorer


@dataclass(frozen=True)
class RefHole:
    """A hole as a reference scorer compares it. `angles` are the digit runs of the direction mod
    360 (empty = no digits: a wildcard on the truth side, a non-match on the prediction side)."""

    shape: object
    size: object
    location: object
    angles: frozenset[int] = frozenset()
    direction_key: object = None  # the value compared by planning's exact-string direction field
    location_key: object = None  # the value counted by the location field


def digit_angles(value: object) -> frozenset[int]:
    return frozenset(int(n) % 360 for n in _DIGITS.findall(str(value)))


def _pos_to_index(row: object, col: object, tri: object) -> object:
    """The scorers' pos_to_index, unchecked (no range check; strings end in a TypeError)."""
    try:
        return row * 8 + col * 2 + tri + 1
    except TypeError:
        raise RefCrash(f"location [{row!r}, {col!r}, {tri!r}] is not numeric (TypeError)") from None


def _int_or_minus_one(value: object) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def hole_top_level(hole: object) -> RefHole:
    """Top level: non-objects are empty holes; `direction or ""` turns an int 0 into no direction."""
    if not isinstance(hole, dict):
        return RefHole("", "", -1)
    location = hole.get("location")
    if _is_triple(location):
        parts = [_int_or_minus_one(v) for v in location]
        location = -1 if -1 in parts else _pos_to_index(*parts)
    else:
        location = _int_or_minus_one(location)
    direction = hole.get("direction") or ""
    return RefHole(str(hole.get("shape", "")), str(hole.get("size", "")), location, digit_angles(direction), location_key=location)


def hole_scoring_dir(hole: object) -> RefHole:
    """scoring/ (backward): `str(direction)` (so 0 stays 0); crashes on non-objects and on a
    [row, col, tri] of strings."""
    if not isinstance(hole, dict):
        raise RefCrash(f"a hole is a {type(hole).__name__}, not an object (AttributeError)")
    location = hole.get("location")
    if _is_triple(location):
        if any(isinstance(v, str) for v in location):
            raise RefCrash(f"location {location!r} holds strings (TypeError)")
        location = _pos_to_index(*location)
    else:
        location = _int_or_minus_one(location)
    return RefHole(str(hole.get("shape", "")), str(hole.get("size", "")), location, digit_angles(hole.get("direction")),
                   location_key=location)


_TEXT_HOLE = re.compile(r"(\w+)\s+(small|large)\s*\((\d+),\s*(\d+),\s*(\d+)\)", re.IGNORECASE)


def hole_text_modality(hole: object) -> RefHole:
    """text scorer: string holes as JSON or "shape size (r,c,t)"; the many location forms of §2.3."""
    if isinstance(hole, str):
        parsed = _loads_dict(hole)
        if not isinstance(parsed, dict):
            match = _TEXT_HOLE.search(hole)
            parsed = ({"shape": match[1].lower(), "size": match[2].lower(), "location": [int(match[3]), int(match[4]), int(match[5])]}
                      if match else {})
        hole = parsed
    if not isinstance(hole, dict):
        hole = {}
    location = text_location(hole.get("location"))
    return RefHole(str(hole.get("shape", "")), str(hole.get("size", "")), location, location_key=location)


def text_location(value: object) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        return -1
    if isinstance(value, (list, tuple)) and len(value) in (2, 3):
        if any(isinstance(v, str) and not v.strip().lstrip("-").isdigit() for v in value):
            raise RefCrash(f"location {value!r} holds non-numeric text (ValueError)")
        try:
            parts = [int(v) for v in value] + [0] * (3 - len(value))
        except (TypeError, ValueError):
            raise RefCrash(f"location {value!r} is not numeric (TypeError)") from None
        return _pos_to_index(*parts)
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    if len(numbers) in (2, 3):
        return _pos_to_index(*(numbers + [0] * (3 - len(numbers))))
    return -1


def hole_generalization(hole: dict) -> RefHole:
    """generalization: shape/size lower-cased and stripped; the location field counts str(value)."""
    location = hole.get("location")
    as_int = _pos_to_index(*location) if _is_triple(location) else int(location)
    return RefHole(str(hole.get("shape", "")).lower().strip(), str(hole.get("size", "")).lower().strip(), as_int,
                   digit_angles(str(hole.get("direction", "")).strip()), location_key=str(location).lower().strip())


def hole_truth(hole: dict, *, int_zero_bug: bool = False) -> RefHole:
    """A truth hole as the scorers read it (the top level's `or ""` bug makes a 0 a wildcard)."""
    direction = hole.get("direction")
    if int_zero_bug:
        direction = direction or ""
    return RefHole(str(hole.get("shape", "")), str(hole.get("size", "")), _int_or_minus_one(hole.get("location")),
                   digit_angles(direction if direction is not None else ""), direction, _int_or_minus_one(hole.get("location")))


# --------------------------------------------------------------------------------------------------
# hole tensors and per-field tests


class Interner:
    """Small ids for arbitrary hashable values, shared by truth and prediction in one run."""

    def __init__(self) -> None:
        self.ids: dict = {}

    def __call__(self, value: object) -> int:
        key = (type(value) is str, value if isinstance(value, (str, int, float, type(None))) else repr(value))
        return self.ids.setdefault(key, len(self.ids))


def ref_tensors(holes: Sequence[Sequence[RefHole]], intern: Interner) -> tuple[np.ndarray, np.ndarray]:
    """int[B, H, 8] (shape, size, case-folded shape+size, location, location key, direction key,
    has digits, present) and uint64[B, H, 6] angle bits, for the comparisons of `ref_tests`."""
    width = max([1, *map(len, holes)])
    table = np.zeros((len(holes), width, 8), np.int64)
    table[..., :6] = -1
    bits = np.zeros((len(holes), width, DIRECTION_WORDS), np.uint64)
    for b, row in enumerate(holes):
        for h, hole in enumerate(row):
            folded = (str(hole.shape).lower(), str(hole.size).lower())
            table[b, h] = (intern(hole.shape), intern(hole.size), intern(folded), _location_id(hole.location, intern),
                           intern(hole.location_key), intern(hole.direction_key), bool(hole.angles), 1)
            for angle in hole.angles:
                bits[b, h, angle // 64] |= np.uint64(1 << (angle % 64))
    return table, bits


def _location_id(location: object, intern: Interner) -> int:
    """Locations compare as numbers (17 == 17.0); -1 (unreadable) never matches."""
    if isinstance(location, (int, float)) and location != -1:
        return intern(float(location))
    return -1


def ref_tests(truth: tuple[np.ndarray, np.ndarray], pred: tuple[np.ndarray, np.ndarray]) -> dict[str, np.ndarray]:
    """bool[B, G, P] per comparison: shape, size, folded (shape and size ignoring case), location,
    location_key, direction_key (equal values), overlap (a truth direction without digits is a
    wildcard, else both digit sets must intersect)."""
    (t, t_bits), (p, p_bits) = truth, pred
    t4, p4 = t[:, :, None, :], p[:, None, :, :]
    present = (t4[..., 7] == 1) & (p4[..., 7] == 1)
    tests = {name: present & (t4[..., c] == p4[..., c]) for c, name in
             enumerate(("shape", "size", "folded", "location", "location_key", "direction_key"))}
    tests["location"] &= t4[..., 3] >= 0
    intersect = ((t_bits[:, :, None, :] & p_bits[:, None, :, :]) != 0).any(axis=-1)
    tests["overlap"] = present & ((t4[..., 6] == 0) | ((p4[..., 6] == 1) & intersect))
    return tests


def truth_wildcards(truth: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """bool[B, G]: truth holes whose direction has no digits."""
    table = truth[0]
    return (table[..., 7] == 1) & (table[..., 6] == 0)


def count_matches(test: np.ndarray, how: str) -> np.ndarray:
    """Pairs per item: "greedy" first-fit (the reference's pairing) or "multiset" (optimal; for
    equality tests this is the multiset intersection the reference computes with counters)."""
    if how == "greedy":
        return (greedy_first_fit(test) >= 0).sum(axis=1)
    return maximum_matching_sizes(test)


# --------------------------------------------------------------------------------------------------
# the prediction family and generalization


@dataclass(frozen=True)
class RefRules:
    """What distinguishes one reference scorer of the prediction family or generalization."""

    task: str
    read_answer: Callable[[dict], RefAnswer]
    read_hole: Callable[[object], RefHole]
    read_truth_hole: Callable[[dict], RefHole]
    n_fixed: int | None  # the hard-coded N (None: the number of scored records)
    group_of: Callable[[str], str | None]
    fields: tuple[str, ...]
    with_direction: bool = True
    gate_direction: bool = False  # direction fields shown only if some prediction has a direction
    unfolding: str | None = None  # "normalised" (top level) or "raw" list equality
    steps_crash_on_zero: bool = False  # ZeroDivisionError instead of a guard
    group_total: int | None = None  # generalization prints group exact over a hard-coded 60
    field_truth_total: int | None = None  # generalization's hard-coded 708


def numbered_group(size: int, count: int) -> Callable[[str], str | None]:
    """PFHP_<n> -> group count - (n - 1) // size for n in 1..size*count, else None (group 0)."""
    def group_of(item_id: str) -> str | None:
        match = re.match(r"PFHP_(\d+)", item_id)
        n = int(match[1]) if match else 0
        return str(count - (n - 1) // size) if 1 <= n <= size * count else None
    return group_of


def attribute_group(item_id: str) -> str:
    """generalization: the first of direction, size, shape, location in the id, else "other"."""
    return next((a for a in ("direction", "size", "shape", "location") if a in item_id), "other")


COMPOUNDS = ("location_shape", "location_direction", "shape_direction", "location_shape_direction")
DIRECTION_FIELDS = ("direction", "location_direction", "shape_direction", "location_shape_direction")

RULES = {
    "prediction": RefRules("prediction", read_top_level, hole_top_level, lambda h: hole_truth(h, int_zero_bug=True), 900,
                           numbered_group(100, 9), ("shape", "size", "location", "direction", *COMPOUNDS),
                           gate_direction=True, unfolding="normalised"),
    "backward": RefRules("backward", read_backward, hole_scoring_dir, hole_truth, None, numbered_group(20, 9),
                         ("shape", "size", "location", "direction"), unfolding="raw", steps_crash_on_zero=True),
    "text": RefRules("text", read_text_modality, hole_text_modality, hole_truth, 315, numbered_group(100, 9),
                     ("shape", "size", "location", "location_shape"), with_direction=False, unfolding="raw"),
    "generalization": RefRules("generalization", read_generalization, hole_generalization, hole_generalization, 240,
                               attribute_group, ("shape", "size", "location", "direction"), group_total=60,
                               field_truth_total=708),
}


def normalised_unfolding(value: object) -> list[str]:
    """The top-level scorer's unfolding normalisation: list items stripped, strings split."""
    if isinstance(value, str):
        return [t for t in re.split(r"[,\s]+", value) if t]
    if isinstance(value, list):
        return [str(t).strip() for t in value if str(t).strip()]
    return []


def unfolding_compare(rules: RefRules, truth: object, predicted: object) -> tuple[bool, int, int]:
    """(equal, equal positions, len(truth)) as the scorer computes them."""
    if rules.unfolding == "normalised":
        truth, predicted = normalised_unfolding(truth), normalised_unfolding(predicted)
    truth = truth if isinstance(truth, list) else []
    predicted = [] if predicted is None else predicted
    if not isinstance(predicted, (list, str)):
        raise RefCrash(f"unfoldingTypes is {type(predicted).__name__} (TypeError in len)")
    return truth == predicted, sum(a == b for a, b in zip(truth, predicted)), len(truth)


def score_compat(task: str, truth: Sequence[TruthItem], answers: Sequence[Answer]) -> Report:
    """The reference scorer for `task`, its numbers reproduced."""
    if task == "planning":
        return score_planning(truth, answers)
    return score_family(RULES[task], truth, answers)


def scored_pairs(rules: RefRules, truth: Sequence[TruthItem], answers: Sequence[Answer]) -> list[tuple[TruthItem, Answer]]:
    """The (truth, answer) pairs the scorer visits: prediction family in truth order with the last
    duplicate winning and unanswered truth skipped; generalization in answer order, id + "_mod",
    duplicates visited twice."""
    by_id = {t.id: t for t in truth}
    if rules.task == "generalization":
        return [(by_id[a.id + MOD_SUFFIX], a) for a in answers if a.id + MOD_SUFFIX in by_id]
    last = {a.id: a for a in answers}
    return [(t, last[t.id]) for t in truth if t.id in last]


def read_pair(rules: RefRules, truth: TruthItem, answer: Answer) -> tuple[RefAnswer, tuple[RefHole, ...], tuple | None]:
    """The answer, its holes and the unfolding comparison; RefCrash where the reference crashes."""
    if not isinstance(answer.record, dict):
        raise RefCrash("the answer record is not an object (AttributeError)")
    ref = rules.read_answer(answer.record)
    holes = tuple(rules.read_hole(h) for h in ref.holes)
    if not isinstance(ref.total, (int, float)):
        raise RefCrash(f"totalNumberofHoles {ref.total!r} is not a number (TypeError)")
    unfolding = unfolding_compare(rules, truth.record.get("unfoldingTypes"), ref.unfolding) if rules.unfolding else None
    return ref, holes, unfolding


def score_family(rules: RefRules, truth: Sequence[TruthItem], answers: Sequence[Answer]) -> Report:
    """Score the prediction family or generalization the way the reference scorer does."""
    read, crashes = [], []
    for t, answer in scored_pairs(rules, truth, answers):
        try:
            read.append((t, *read_pair(rules, t, answer)))
        except RefCrash as crash:
            crashes.append(f"{t.id}: {crash}")
    truth_holes = [[rules.read_truth_hole(h) for h in (t.record.get("resultHoles") or []) if isinstance(h, dict)] for t, *_ in read]
    counts = in_row_chunks(partial(family_counts, rules, Interner()), truth_holes, [holes for _, _, holes, _ in read])
    items = []
    for b, (t, ref, holes, unfolding) in enumerate(read):
        g = t.declared_total if t.declared_total is not None else len(truth_holes[b])
        m = int(counts["exact"][b])
        group = rules.group_of(t.id)
        item = ItemScore(t.id, "scored", ref.note, g, ref.total, m, {f: int(counts[f][b]) for f in rules.fields},
                         len(truth_holes[b]), len(holes), exact=(ref.total == g and m == g),
                         groups={"group": group} if group is not None else {})
        if unfolding is not None:
            item.unfolding_exact, item.unfolding_matches, item.unfolding_total = unfolding
        items.append(item)
    has_direction = any(isinstance(h, dict) and h.get("direction") not in (None, "", "None")
                        for _, ref, _, _ in read for h in ref.holes)
    return family_report(rules, items, crashes, show_direction=has_direction or not rules.gate_direction)


def family_counts(rules: RefRules, intern: Interner, truth_rows: Sequence, predicted_rows: Sequence) -> dict[str, np.ndarray]:
    """Matched holes per item: "exact" (greedy first-fit on shape, size, location, direction) and
    one count per field of the scorer."""
    truth = ref_tensors(truth_rows, intern)
    tests = ref_tests(truth, ref_tensors(predicted_rows, intern))
    same = tests["shape"] & tests["size"] & tests["location"]
    exact = count_matches(same & tests["overlap"] if rules.with_direction else same, "greedy")
    return {"exact": exact, **family_field_counts(rules, tests, truth_wildcards(truth))}


def family_field_counts(rules: RefRules, tests: dict[str, np.ndarray], wildcards: np.ndarray) -> dict[str, np.ndarray]:
    """Matched holes per field: shape/size/location as multisets, direction and compounds greedy;
    generalization credits a truth wildcard direction (bool[B, G] `wildcards`) without consuming a
    prediction, even when there is none."""
    location = tests["location_key"] if rules.task == "generalization" else tests["location"]
    shape, overlap = tests["shape"], tests["overlap"]
    by_field = {"shape": (shape, "multiset"), "size": (tests["size"], "multiset"), "location": (location, "multiset"),
                "direction": (overlap, "greedy"), "location_shape": (location & shape, "greedy"),
                "location_direction": (location & overlap, "greedy"), "shape_direction": (shape & overlap, "greedy"),
                "location_shape_direction": (location & shape & overlap, "greedy")}
    if rules.task == "generalization":
        by_field["direction"] = (overlap & ~wildcards[:, :, None], "greedy")
    counts = {f: count_matches(*by_field[f]) for f in rules.fields}
    if rules.task == "generalization":
        counts["direction"] = counts["direction"] + wildcards.sum(axis=1)
    return counts


def family_report(rules: RefRules, items: list[ItemScore], crashes: list[str], *, show_direction: bool) -> Report:
    """Pooled numbers with the scorer's own denominators (formats doc §3.4-§3.6)."""
    scored = len(items)
    n = rules.n_fixed if rules.n_fixed is not None else scored
    unique = list({i.id: i for i in items}.values())  # generalization: its exact view keeps one copy per id
    extras = sum(max(0, i.predicted - i.truth) for i in items)
    field_extras = sum(max(0, i.field_predicted - i.field_truth) for i in items)
    field_truth = rules.field_truth_total if rules.field_truth_total is not None else sum(i.field_truth for i in items)
    notes = [f"N = {n} ({'hard-coded by the reference' if rules.n_fixed else 'the scored records'}); {scored} records scored"]
    if n == 0:
        crashes.append("ZeroDivisionError: no record was scored")
    metrics = {
        "exact_match": ratio(sum(i.exact for i in unique), n),
        "partial": None if rules.task == "generalization" else ratio(sum(i.matched for i in items),
                                                                     sum(i.truth for i in items) + extras),
        **{f"field_{f}": ratio(sum(i.fields[f] for i in items), field_truth + field_extras) for f in rules.fields},
        "extra_rate": ratio(sum(i.predicted > i.truth for i in items), n),
        "missing_rate": ratio(sum(i.predicted < i.truth for i in items), n),
    }
    if not show_direction:
        metrics.update({f"field_{f}": None for f in DIRECTION_FIELDS if f in rules.fields})
        notes.append("no predicted hole has a direction: the direction fields are not reported")
    if rules.unfolding:
        metrics["unfolding_exact"] = ratio(sum(bool(i.unfolding_exact) for i in items), n)
        steps = sum(i.unfolding_total for i in items)
        metrics["unfolding_steps"] = ratio(sum(i.unfolding_matches for i in items), steps)
        if not steps and rules.steps_crash_on_zero:
            crashes.append("ZeroDivisionError: the truth has no unfolding steps")
    counts = {"N": n, "scored": scored, "exact": sum(i.exact for i in unique), "crashed": len(crashes),
              "correct": sum(i.matched for i in items), "incorrect": sum(i.predicted - i.matched for i in items),
              "missing": sum(i.truth - i.matched for i in items)}
    return Report(rules.task, "compat mentalblackboard", items, metrics, counts, family_groups(rules, items), notes, crashes)


def family_groups(rules: RefRules, items: list[ItemScore]) -> dict:
    """Group-wise exact (and unfolding exact) over the scored records of each group, or over the
    hard-coded 60 with an "other" line always present (generalization)."""
    def summarize(members: Sequence[ItemScore]) -> dict:
        total = rules.group_total or len(members)
        summary = {"items": len(members), "exact_match": ratio(sum(i.exact for i in members), total)}
        if rules.unfolding:
            summary["unfolding_exact"] = ratio(sum(bool(i.unfolding_exact) for i in members), total)
        return summary

    groups = group_breakdown(items, summarize)
    if rules.group_total:
        groups.setdefault("group", {}).setdefault("other", {"items": 0, "exact_match": 0.0})
    return groups


# --------------------------------------------------------------------------------------------------
# planning: replay as animate.py/run.py would, then planning_scoring.py


REF_CODES = frozenset({f"{a}{n}-{s}" for a in "HVD" for n in "1234" for s in "FB"} | {"R-90", "R-180", "R-270", "R-360"})
PLAN_MAX_PUNCHES = 2


@dataclass(frozen=True)
class Replay:
    """A replayed plan as run.py records it: steps (rotations included), accepted punches (their
    hole objects) and result holes (hole objects with the size as written)."""

    steps: int
    punches: tuple[dict, ...]
    holes: tuple[dict, ...]


MISSING_REPLAY = Replay(-1, (), ())


def plan_row(answer: Answer) -> dict:
    """The plan row the pipeline replays: converted rows as they are, MentalBlackboard records
    as already replayed plans, model text through planning_converter (the first ```json {...}```
    block). RefCrash says why the row would be skipped or abort the replay."""
    record = answer.record
    if not isinstance(record, dict):
        raise RefCrash("not an object")
    if "folds" not in record and ("foldingTypes" in record or "initialHoles" in record):
        return record
    if "folds" in record or "holes" in record:
        return record
    if "error" in record:
        raise RefCrash("an error row: animate.py skips it")
    text = envelope_text(record, raw_response=True) or ""
    match = _FIRST_JSON_OBJECT_FENCE.search(text)
    data = _loads_dict(match[1]) if match else None
    if not isinstance(data, dict) or "folds" not in data or "holes" not in data:
        raise RefCrash("no ```json {...}``` block with folds and holes: the runner writes an error row")
    return data


def plan_punches(row: dict) -> tuple[list[str], list[tuple[dict, Hole]], int]:
    """(codes to simulate, accepted punches with the hole to simulate, step count) of a row, or
    RefCrash where run.py would skip the row or raise."""
    if "folds" not in row:
        try:
            codes = [code_of_entry(e) for e in row.get("foldingTypes") or []]
            holes = [(h, parse_hole(h)) for h in row.get("initialHoles") or []]
        except InputError as err:
            raise RefCrash(f"unreadable record: {err}") from None
        return [c for c in codes if c != "R-360"], holes, len(codes)
    folds, holes = row.get("folds"), row.get("holes")
    if not folds or not holes:
        raise RefCrash("no folds or no holes: animate.py skips the row")
    if isinstance(folds, str):
        raise RefCrash("folds is a string: planning_converter joins it character by character")
    if not isinstance(folds, list) or not all(isinstance(c, str) for c in folds):
        raise RefCrash("folds is not a list of strings (TypeError in the converter)")
    unknown = [c for c in folds if c not in REF_CODES]
    if unknown:
        raise RefCrash(f"unknown code {unknown[0]!r}: run.py raises")
    if not isinstance(holes, list):
        raise RefCrash("holes is not a list")
    return [c for c in folds if c != "R-360"], [p for p in map(ref_punch, holes) if p is not None], len(folds)


def ref_punch(hole: object) -> tuple[dict, Hole] | None:
    """A punch as run.py takes it: None when its location is not a grid id (skipped with a message);
    RefCrash for an unknown shape or a non-numeric direction."""
    if not isinstance(hole, dict):
        raise RefCrash("a hole is not an object")
    location, shape, direction = hole.get("location"), hole.get("shape"), hole.get("direction")
    if not isinstance(location, (int, float)) or not float(location).is_integer() or not 1 <= location <= 32:
        return None
    if shape not in SHAPES:
        raise RefCrash(f"unknown shape {shape!r}: punch_hole raises")
    if not isinstance(direction, (int, float)):
        raise RefCrash(f"direction {direction!r} is not numeric: math.radians raises")
    if direction % 90:
        raise RefCrash(f"direction {direction!r} is not a multiple of 90: foldsim cannot replay it")
    size = "small" if hole.get("size") == "small" else "large"
    return hole, Hole.make(shape, size, int(direction), int(location))


def replay_plans_compat(truth: Sequence[TruthItem], answers: Sequence[Answer]) -> tuple[dict[str, Replay], list[str]]:
    """Replays of the last answer per truth id, all punches in one batched simulation (one row per
    punch, so a punch off the paper yields nothing while the others count, as in run.py)."""
    from ..simulate import simulate

    wanted = {t.id for t in truth}
    last = {a.id: a for a in answers if a.id in wanted}
    notes, prepared = [], []
    for item_id, answer in last.items():
        try:
            codes, punches, steps = plan_punches(plan_row(answer))
        except RefCrash as why:
            notes.append(f"{item_id}: replay skipped or failed ({why}); scored as a missing replay")
            continue
        prepared.append((item_id, codes, punches, steps))
    rows = [Config(tuple(codes), (hole,), item_id) for item_id, codes, punches, _ in prepared for _, hole in punches]
    results = iter(simulate(rows) if rows else [])
    replays = {}
    for item_id, codes, punches, steps in prepared:
        holes, failure = [], ""
        for raw, _ in punches:
            result = next(results)
            if result.status == "not_realizable":
                failure = f"{result.reason}; run.py does not check this"
            holes += [{**h.to_dict(), "size": raw.get("size")} for h in result.holes] if result.ok else []
        if not failure and len(holes) % 2:
            failure = f"{len(holes)} result holes: run.py raises on an odd total"
        if failure:
            notes.append(f"{item_id}: replay failed ({failure}); scored as a missing replay")
            continue
        replays[item_id] = Replay(steps, tuple(raw for raw, _ in punches), tuple(holes))
    return replays, notes


def replayed_hole(hole: dict) -> RefHole:
    direction = hole.get("direction")
    return RefHole(hole.get("shape"), hole.get("size"), hole.get("location"), digit_angles(direction), direction, hole.get("location"))


def score_planning(truth: Sequence[TruthItem], answers: Sequence[Answer]) -> Report:
    """planning_scoring.py on the replays: greedy exact matching (shape/size ignoring case), simulator
    totals, exact forced to 0 when the step count differs from the truth or more than 2 punches were
    made; fields as multisets on exact values; N = number of truth records."""
    replays, notes = replay_plans_compat(truth, answers)
    chosen = [replays.get(t.id, MISSING_REPLAY) for t in truth]
    truth_holes = [[hole_truth(h) for h in (t.record.get("resultHoles") or []) if isinstance(h, dict)] for t in truth]
    matched = in_row_chunks(partial(planning_counts, Interner()), truth_holes, [[replayed_hole(h) for h in r.holes] for r in chosen])
    items, crashes, rules = [], [], Counter()
    for b, (t, replay) in enumerate(zip(truth, chosen)):
        broken = broken_plan_rules(t, replay)
        rules.update(broken)
        rules["wrong_step_correct_answer"] += bool(broken) and wrong_step_correct_answer(t, replay)
        item = planning_item(t, replay, len(truth_holes[b]), {name: int(c[b]) for name, c in matched.items()}, broken)
        if item.exact and not item.groups:
            crashes.append(f"{t.id}: exact, but its id is outside PFHP_1-400 (KeyError in the group table)")
            continue
        item.status = "scored" if t.id in replays else "missing"
        items.append(item)
    counts = {"N": len(truth), "replayed": len(replays), "exact": sum(i.exact for i in items), "crashed": len(crashes),
              **{k: rules[k] for k in ("invalid_initial_holes", "steps_mismatch", "wrong_step_correct_answer")}}
    return Report("planning", "compat mentalblackboard", items, planning_metrics(items, len(truth)), counts,
                  group_breakdown(items, planning_group_summary), notes, crashes)


def broken_plan_rules(truth: TruthItem, replay: Replay) -> list[str]:
    """The scorer's two rules: at most 2 punches, and the truth's numberofFoldingSteps."""
    return [name for name, broken in (("invalid_initial_holes", len(replay.punches) > PLAN_MAX_PUNCHES),
                                      ("steps_mismatch", truth.record.get("numberofFoldingSteps") != replay.steps)) if broken]


def wrong_step_correct_answer(truth: TruthItem, replay: Replay) -> bool:
    """The scorer's diagnostic (for a plan that broke a rule): the right hole pattern, and a replay
    whose own punches differ from its result holes."""
    return _same_holes(truth.record.get("resultHoles"), replay.holes) and not _same_holes(list(replay.punches), replay.holes)


def planning_item(truth: TruthItem, replay: Replay, listed_truth: int, matched: dict[str, int], broken: list[str]) -> ItemScore:
    """One item's score: G the truth's declared total, P the replayed total."""
    g = truth.declared_total if truth.declared_total is not None else listed_truth
    p, m = len(replay.holes), matched["exact"]
    group = numbered_group(100, 4)(truth.id)
    return ItemScore(truth.id, "scored", "; ".join(broken), g, p, m, {f: matched[f] for f in FIELDS}, listed_truth, p,
                     exact=p == g and m == g and not broken, groups={"group": group} if group else {})


def planning_metrics(items: Sequence[ItemScore], n: int) -> dict[str, float | None]:
    """Pooled planning numbers over N = the number of truth records."""
    field_denominator = sum(i.field_truth + max(0, i.field_predicted - i.field_truth) for i in items)
    return {
        "exact_match": ratio(sum(i.exact for i in items), n),
        "partial": ratio(sum(i.matched for i in items), sum(i.truth + max(0, i.predicted - i.truth) for i in items)),
        **{f"field_{f}": ratio(sum(i.fields[f] for i in items), field_denominator) for f in FIELDS},
        "extra_rate": ratio(sum(i.predicted > i.truth for i in items), n),
        "missing_rate": ratio(sum(i.predicted < i.truth for i in items), n),
    }


def planning_group_summary(members: Sequence[ItemScore]) -> dict:
    return {"items": len(members), "exact_match": ratio(sum(i.exact for i in members), len(members))}


def planning_counts(intern: Interner, truth_rows: Sequence, replayed_rows: Sequence) -> dict[str, np.ndarray]:
    """Matched holes per item: "exact" greedy (shape and size ignoring case, location, direction
    overlap) and the fields as multisets of exact values (tuples for the compounds)."""
    tests = ref_tests(ref_tensors(truth_rows, intern), ref_tensors(replayed_rows, intern))
    location, shape, direction = tests["location"], tests["shape"], tests["direction_key"]
    by_field = {"shape": shape, "size": tests["size"], "location": location, "direction": direction,
                "location_shape": location & shape, "location_direction": location & direction,
                "shape_direction": shape & direction, "location_shape_direction": location & shape & direction}
    return {"exact": count_matches(tests["folded"] & location & tests["overlap"], "greedy"),
            **{f: count_matches(test, "multiset") for f, test in by_field.items()}}


def _same_holes(first: object, second: Sequence[dict]) -> bool:
    """Multiset equality on exact (shape, size, direction string, location)."""
    def key(h: object) -> tuple:
        return (h.get("shape"), h.get("size"), str(h.get("direction")), h.get("location")) if isinstance(h, dict) else (repr(h),)
    return Counter(map(key, first if isinstance(first, list) else [])) == Counter(map(key, second))
