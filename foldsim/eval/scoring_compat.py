"""`--compat mentalblackboard`: the reference scorers' numbers, quirks included (formats doc §2, §3).

Each reference scorer of the prediction family and generalization is described by a `Scorer` value
(how it finds the answer JSON, reads the answer and each hole, which fields it counts and which
denominators it uses); one scoring routine serves them all. Planning follows the reference
pipeline: the runner's converter, animate.py/run.py's replay (emulated with the foldsim simulator),
then planning_scoring.py on the replay records.

Two modes differ only for the prediction task, because the reference ships two prediction scorers:
`mentalblackboard` follows the top-level prediction_scoring.py (the one the reference's own runner,
run_MentalBlackboard_prediction.py, calls: it reads the runner's rows and error rows), and
`mentalblackboard-scoring-dir` follows scoring/prediction_scoring.py (the one beside the backward,
text and generalization scorers). Every other task has a single reference scorer.

Answer records are read the way foldsim reads them (every file format and provider envelope, through
`answers.response_text`); the scorer's own rules are then applied to the model's text. Where the
reference would crash, the item is listed in `Report.crashes` with the reason and the rest go on
(a crash the reference would have for the whole run, such as its direction check, is reported
once, naming the answer that causes it).

Text searches reproduce the reference's regular expressions without their worst cases: fences are
found with str.find, the greedy `{...}` is the span from the first "{" to the last "}", so the
time stays linear in the answer's size.
"""

from __future__ import annotations

import ast
import bisect
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from .answers import Answer, response_text, structure_problem
from ..config import Config
from ..errors import InputError, describe
from ..holes import SHAPE_PERIOD, Hole
from .score_base import (
    COMPAT_MODES, FIELDS, MOD_SUFFIX, ItemScore, Report, TruthItem, greedy_first_fit, group_breakdown, in_row_chunks, maximum_matching_sizes,
    ratio,
)

MODES = COMPAT_MODES
MODE_TOP_LEVEL, MODE_SCORING_DIR = COMPAT_MODES

PREDICTION_KEYS = ("resultHoles", "totalNumberofHoles", "unfoldingTypes")
DIRECTION_WORDS = 6  # 360 angle bits in uint64 words
FENCE = "```"


class RefCrash(Exception):
    """The reference scorer would raise here; the message says where and why."""


# --------------------------------------------------------------------------------------------------
# finding the answer JSON the reference way (linear-time equivalents of its patterns)


_JSON_TAG_ANY_CASE = re.compile(r"```json", re.IGNORECASE)
_F_CODE = re.compile(r'(?<!")\b([DHV]\d-F)\b(?!")')
_ANY_CODE = re.compile(r"\b([DHV]\d-[BF])\b")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_DIGITS = re.compile(r"-?\d+")


def json_fences(text: str) -> list[str]:
    """The content of every ```json fence, the tag in any case (`re.findall(r"```json\\s*(.*?)```",
    re.I)`; leading whitespace is kept, callers strip)."""
    blocks, position = [], 0
    while (tag := _JSON_TAG_ANY_CASE.search(text, position)) is not None:
        end = text.find(FENCE, tag.end())
        if end < 0:
            break
        blocks.append(text[tag.end() : end])
        position = end + len(FENCE)
    return blocks


def plain_fences(text: str) -> list[str]:
    """The content of every ``` fence, a ```json fence included with its tag (`re.findall(r"```\\s*
    (.*?)```")`): after a draft in a json fence, a final plain fence is a candidate of its own."""
    blocks, position = [], 0
    while (start := text.find(FENCE, position)) >= 0:
        end = text.find(FENCE, start + len(FENCE))
        if end < 0:
            break
        blocks.append(text[start + len(FENCE) : end])
        position = end + len(FENCE)
    return blocks


def greedy_object(text: str) -> list[str]:
    """`re.findall(r"\\{.*\\}", re.S)`: at most one match, from the first "{" to the last "}"."""
    first, last = text.find("{"), text.rfind("}")
    return [text[first : last + 1]] if 0 <= first < last else []


def first_json_object_fence(text: str) -> str | None:
    """planning_converter's `re.search(r"```json\\s*(\\{.*?\\})\\s*```", re.S)` (tag case-sensitive):
    the first ```json fence opening with "{", up to the first "}" that a fence follows (after
    whitespace)."""
    closings = []  # positions of "}" followed, after whitespace, by a fence; increasing
    fence = text.find(FENCE)
    while fence >= 0:
        before = fence
        while before > 0 and text[before - 1].isspace():
            before -= 1
        if before > 0 and text[before - 1] == "}":
            closings.append(before - 1)
        fence = text.find(FENCE, fence + 1)
    tag = text.find(FENCE + "json")
    while tag >= 0:
        start = tag + len(FENCE) + 4
        while start < len(text) and text[start].isspace():
            start += 1
        if start < len(text) and text[start] == "{":
            k = bisect.bisect_right(closings, start)
            if k < len(closings):
                return text[start : closings[k] + 1]
        tag = text.find(FENCE + "json", tag + 1)
    return None


def loads(text: str) -> tuple[str, object]:
    """("ok", value), ("invalid", None) for a JSONDecodeError, or ("fatal", None) for the errors the
    reference's `except json.JSONDecodeError` lets through (too deep, a number over Python's digit
    limit): those end its search for an answer."""
    try:
        return "ok", json.loads(text)
    except json.JSONDecodeError:
        return "invalid", None
    except (ValueError, RecursionError, MemoryError):
        return "fatal", None


def repair_f_codes(block: str) -> str:
    """The prediction-family repair: quote bare `[DHV]n-F` codes (not -B), drop trailing commas."""
    return _TRAILING_COMMA.sub(r"\1", _F_CODE.sub(r'"\1"', block))


def repair_backward(block: str) -> str:
    """The backward repair: quote every code, already quoted ones too (which breaks them), drop
    trailing commas, turn every ' into "."""
    return _TRAILING_COMMA.sub(r"\1", _ANY_CODE.sub(r'"\1"', block)).replace("'", '"')


def candidates_prediction(text: str) -> list[str]:
    """prediction/text scorers: every ```json fence, then every ``` fence; with no fence, the greedy
    {...} (the reference prefers a match naming an answer key, but the greedy pattern has at most one)."""
    return json_fences(text) + plain_fences(text) or greedy_object(text)


_JSON_START = frozenset('{["-0123456789tfnNI') | frozenset("DHV")  # a value, or a bare code the repair quotes


def parse_candidates(blocks: Sequence[str]) -> object:
    """The last candidate that parses, as is or after the -F repair; None when none does or when one
    fails fatally (the reference's outer `except Exception` gives the empty answer). A block that
    cannot start a JSON value fails both attempts at once, and a block seen before fails as it did,
    so thousands of tiny fences cost little."""
    failed = set()
    for block in reversed(blocks):
        block = block.strip()
        if not block or block[0] not in _JSON_START or block in failed:
            continue
        for attempt in (block, repair_f_codes(block)):
            outcome, value = loads(attempt)
            if outcome == "ok":
                return value
            if outcome == "fatal":
                return None
        failed.add(block)
    return None


def parse_last_block(text: str, repair: Callable[[str], str] | None) -> object:
    """backward/generalization: the last ```json fence, else the greedy {...}; one attempt, plus one
    after `repair` if given. None when nothing parses."""
    blocks = json_fences(text) or greedy_object(text)
    if not blocks:
        return None
    block = blocks[-1].strip()
    outcome, value = loads(block)
    if outcome == "invalid" and repair is not None:
        outcome, value = loads(repair(block))
    return value if outcome == "ok" else None


def model_text(record: object, *, raw_response: bool) -> str | None:
    """The model's text in an answer record: a raw-text answer itself, else what
    `answers.response_text` finds (every provider envelope). The scoring/ scorers never read
    `raw_response` (the runner's error rows carry it)."""
    if isinstance(record, str):
        return record
    if not isinstance(record, dict):
        return None
    text, source = response_text(record)
    if source == "raw_response" and not raw_response:
        return None
    return text


def answer_record(answer: Answer) -> object:
    """The record a scorer re-reads, or None (no answer: the empty answer) for a record no JSON text
    could hold (`answers.structure_problem`). Answers from the parser never keep such a record; this
    covers an Answer a caller builds around one, so no scorer here meets an int a float cannot hold,
    recursion past the interpreter's limit (json.dumps, str) or a cycle."""
    record = answer.record
    if isinstance(record, (dict, list, tuple)) and structure_problem(record) is not None:
        return None
    return record


def is_error_row(record: object) -> bool:
    """An error row of the runner or a provider. `"error": null` is OpenAI's batch success line."""
    return isinstance(record, dict) and record.get("error") is not None


# --------------------------------------------------------------------------------------------------
# reading answers per scorer


@dataclass(frozen=True)
class RefAnswer:
    """An answer as one reference scorer reads it: the elements it iterates as holes, the total P it
    compares (with the total it uses for the extra/missing counts), the unfolding value."""

    holes: tuple = ()
    total: object = 0
    unfolding: object = ()
    note: str = ""
    rate_total: object = None  # generalization: P for the extra/missing counts (None: `total`)


EMPTY_TOP_LEVEL = {"resultHoles": (), "totalNumberofHoles": 0, "unfoldingTypes": []}
EMPTY_SCORING_DIR = {"resultHoles": [], "totalNumberofHoles": 0, "unfoldingTypes": []}


def normalised_unfolding(value: object) -> list[str]:
    """The top-level scorer's unfolding normalisation: list items stripped, strings split on commas
    and whitespace, None empty, anything else as its string."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(t).strip() for t in value if str(t).strip()]
    if isinstance(value, str):
        return [t for t in re.split(r"[,\s]+", value.strip()) if t]
    return normalised_unfolding(str(value))


def top_level_fields(data: object, *, coerce_total: bool) -> dict | None:
    """The top-level scorer's answer object: resultHoles (falsy: none; a string or an object is
    iterated), the total (coerced when the record held the fields), unfolding normalised. None where
    it gives the empty answer (not an object, unsized resultHoles, a total int() refuses)."""
    if not isinstance(data, dict):
        return None
    holes = data.get("resultHoles", []) or []
    if not isinstance(holes, (list, str, dict)):
        return None  # len() of a number: TypeError, caught
    total = data.get("totalNumberofHoles", len(holes))
    if coerce_total and not isinstance(total, int):
        try:
            total = int(total) if str(total).isdigit() else len(holes)
        except ValueError:
            return None
    return {"resultHoles": tuple(holes), "totalNumberofHoles": total, "unfoldingTypes": normalised_unfolding(data.get("unfoldingTypes", []))}


def extract_top_level(record: object) -> dict:
    """prediction_scoring.py: error rows are empty; a record holding an answer field is the answer;
    otherwise the model text (the whole record as JSON when there is none) is searched."""
    if is_error_row(record):
        return EMPTY_TOP_LEVEL
    if isinstance(record, dict) and any(k in record for k in PREDICTION_KEYS):
        return top_level_fields(record, coerce_total=True) or EMPTY_TOP_LEVEL
    text = model_text(record, raw_response=True)
    if text is None:
        text = json.dumps(record, default=repr)
    data = parse_candidates(candidates_prediction(text))
    return top_level_fields(data, coerce_total=False) or EMPTY_TOP_LEVEL


def answer_top_level(data: dict) -> RefAnswer:
    note = "" if data is not EMPTY_TOP_LEVEL else "empty answer (error row or no parseable answer)"
    return RefAnswer(data["resultHoles"], data["totalNumberofHoles"], data["unfoldingTypes"], note)


def extract_prediction_family(record: object) -> object:
    """scoring/prediction_scoring.py and text_prediction_scoring.py: the model text's candidates,
    the parsed value as it is (any JSON type); the empty answer when nothing parses."""
    text = model_text(record, raw_response=False)
    if text is None or not text.strip():
        return EMPTY_SCORING_DIR
    value = parse_candidates(candidates_prediction(text))
    return EMPTY_SCORING_DIR if value is None else value


def extract_backward(record: object) -> object:
    text = model_text(record, raw_response=False)
    value = parse_last_block(text, repair_backward) if text is not None and text.strip() else None
    return EMPTY_SCORING_DIR if value is None else value


def extract_generalization(record: object) -> object:
    text = model_text(record, raw_response=False)
    value = parse_last_block(text, None) if text is not None and text.strip() else None
    return {"resultHoles": [], "totalNumberofHoles": 0} if value is None else value


def _iterated_holes(data: object, who: str) -> tuple:
    """`data.get("resultHoles", [])` iterated as the scoring/ scorers do (a string or an object gives
    its characters or keys); RefCrash where they raise."""
    if not isinstance(data, dict):
        raise RefCrash(f"{who}: the answer JSON is a {type(data).__name__}, not an object (AttributeError)")
    holes = data.get("resultHoles", [])
    if not isinstance(holes, (list, str, dict)):
        raise RefCrash(f"{who}: resultHoles is {describe(holes)} (TypeError: not iterable)")
    return tuple(holes)


def answer_scoring_dir(who: str, data: object) -> RefAnswer:
    """The scoring/ prediction, text and backward scorers' reading of a parsed answer."""
    holes = _iterated_holes(data, who)
    note = "" if data is not EMPTY_SCORING_DIR else "empty answer (no parseable answer)"
    return RefAnswer(holes, data.get("totalNumberofHoles", len(holes)), data.get("unfoldingTypes", []), note)


KEPT_COUNT = object()  # generalization's default total: the number of holes kept, known after reading them


def answer_generalization(data: object) -> RefAnswer:
    """generalization: holes without a usable location are dropped later; the total defaults to the
    kept count, the total of its extra/missing counts to the listed count."""
    holes = _iterated_holes(data, "generalization_scoring")
    if "totalNumberofHoles" in data:
        return RefAnswer(holes, data["totalNumberofHoles"])
    note = "" if data.get("resultHoles") else "empty answer (no parseable answer or no holes)"
    return RefAnswer(holes, KEPT_COUNT, note=note, rate_total=len(holes))


# --------------------------------------------------------------------------------------------------
# reading holes per scorer


@dataclass(frozen=True)
class RefHole:
    """A hole as a reference scorer compares it.

    `location` is the value compared for a match (a number; anything else never matches),
    `location_key` the value the location field counts, `angles` the digit runs of the direction
    mod 360 (empty: no digits, a wildcard on the truth side, a non-match on the prediction side),
    `folded` the case-folded (shape, size) planning and generalization match on, `direction_key`
    the direction string planning's fields count.
    """

    shape: object
    size: object
    location: object
    angles: frozenset[int] = frozenset()
    location_key: object = None
    folded: tuple = ()
    direction_key: object = None


EMPTY_HOLE = RefHole("", "", -1, location_key=-1)


def digit_angles(text: str) -> frozenset[int]:
    """Every `-?\\d+` run of a direction string, mod 360; RefCrash for a run int() refuses."""
    try:
        return frozenset(int(n) % 360 for n in _DIGITS.findall(text))
    except ValueError:
        raise RefCrash("a direction holds a number over Python's digit limit (ValueError)") from None


def grid_index(row: object, col: object, tri: object) -> object:
    """The scorers' pos_to_index, unchecked: row*8 + col*2 + tri + 1 (no range check). Anything but
    numbers ends in a TypeError there (a string row repeats, then + 1 fails), raised here too."""
    if not all(isinstance(v, (int, float)) for v in (row, col, tri)):
        raise TypeError(f"location [{row!r}, {col!r}, {tri!r}] is not numeric")
    return row * 8 + col * 2 + tri + 1


def int_or_minus_one(value: object) -> object:
    """int(value), -1 where int() raises TypeError/ValueError (the scorers' guard); int() of an
    infinite number is not guarded there (OverflowError)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1
    except OverflowError:
        raise RefCrash(f"location {value!r} is infinite (OverflowError)") from None


def _is_triple(value: object) -> bool:
    return isinstance(value, list) and len(value) == 3


def hole_top_level(hole: object) -> RefHole:
    """prediction_scoring.py: a non-object is an empty hole; [r, c, t] not numeric, or a location
    int() refuses, gives -1; `value or ""` turns an int 0 direction (and a 0 shape) into ""."""
    if not isinstance(hole, dict):
        return EMPTY_HOLE
    location = hole.get("location")
    if _is_triple(location):
        try:
            location = grid_index(*location)
        except TypeError:
            location = -1
    else:
        location = -1 if location is None else int_or_minus_one(location)
    direction = str(hole.get("direction", "") or "")
    return RefHole(str(hole.get("shape", "") or ""), str(hole.get("size", "") or ""), location, digit_angles(direction), location)


def hole_scoring_dir(hole: object) -> RefHole:
    """scoring/ prediction and backward: `str(direction)` (0 stays 0); crash on a non-object hole
    and on a [r, c, t] that is not numeric."""
    if not isinstance(hole, dict):
        raise RefCrash(f"a hole is {describe(hole)}, not an object (AttributeError)")
    location = hole.get("location")
    if _is_triple(location):
        try:
            location = grid_index(*location)
        except TypeError as why:
            raise RefCrash(f"{why} (TypeError)") from None
    else:
        location = -1 if location is None else int_or_minus_one(location)
    return RefHole(str(hole.get("shape", "")), str(hole.get("size", "")), location, digit_angles(str(hole.get("direction", ""))), location)


# the text scorer's "shape size (r, c, t)" pattern; `\s+(?:\(\s*)?` matches what its `\s+\(?\s*` does
# without the quadratic backtracking over a long run of spaces
_TEXT_HOLE = re.compile(r"(?<![A-Za-z])(?P<shape>[A-Za-z]+)\s+(?P<size>small|large)\s+(?:\(\s*)?(?P<row>\d+)[,\s]+(?P<col>\d+)[,\s]+"
                        r"(?P<tri>\d+)", re.IGNORECASE)


def text_hole_object(hole: object) -> dict:
    """text scorer: an object as is; a string as JSON if it is an object, else "shape size r,c,t"
    (size and row need whitespace between them: "star large (2 1 1)" reads, "star large(2,1,1)"
    does not); anything else an empty hole. (The look-behind only skips starts inside a word,
    which cannot change the first match; it keeps the search linear.)"""
    if isinstance(hole, dict):
        return hole
    if isinstance(hole, str):
        outcome, value = loads(hole.strip())
        if outcome == "fatal":
            raise RefCrash("a hole string is JSON too deep or with a number over the digit limit")
        if isinstance(value, dict):
            return value
        match = _TEXT_HOLE.search(hole.strip())
        if match:
            try:
                location = [int(match["row"]), int(match["col"]), int(match["tri"])]
            except ValueError:
                raise RefCrash("a hole string holds a number over Python's digit limit (ValueError)") from None
            return {"shape": match["shape"].lower(), "size": match["size"].lower(), "location": location}
    return {"shape": "", "size": "", "location": None}


def text_location(value: object) -> object:
    """text scorer's location: None/blank -1; a list of 3 (or 2, tri 0) through int() of each item
    (text that is not a number crashes); an integer string; else the `-?\\d+` runs of its string: 3
    give (r, c, t), 2 give (r, c, 0) (so "(-1, 2, 0)" is row -1), others -1. `true` reads "True": -1."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return -1
    try:
        if isinstance(value, list) and len(value) in (2, 3):
            parts = [int(v) for v in value]
            return grid_index(*parts, *([0] if len(parts) == 2 else []))
        text = str(value).strip()
        if text.lstrip("-").isdigit():
            return int(text)
        numbers = [int(n) for n in _DIGITS.findall(text)]
    except (TypeError, ValueError, OverflowError) as why:
        raise RefCrash(f"location {describe(value)} is not numeric ({type(why).__name__})") from None
    if len(numbers) in (2, 3):
        return grid_index(*numbers, *([0] if len(numbers) == 2 else []))
    return -1


def hole_text(hole: object) -> RefHole:
    """text scorer: direction ignored; shape and size as strings, case-sensitive."""
    hole = text_hole_object(hole)
    location = text_location(hole.get("location"))
    return RefHole(str(hole.get("shape", "")), str(hole.get("size", "")), location, location_key=location)


def hole_generalization(hole: object) -> RefHole | None:
    """generalization: a hole is kept only if it is an object whose location is an int (true
    included) or a numeric [r, c, t]; shape/size lower-cased and stripped; the location field
    counts str(location) (so [r, c, t] counts as its grid id)."""
    if not isinstance(hole, dict):
        return None
    location = hole.get("location")
    if _is_triple(location):
        try:
            location = grid_index(*location)
        except TypeError:
            return None
    elif not isinstance(location, int):
        return None
    try:
        as_int = int(location)
    except (ValueError, OverflowError):
        raise RefCrash(f"location {location!r} is not finite (int() in the match)") from None
    shape, size = (str(hole.get(f, "")).lower().strip() for f in ("shape", "size"))
    return RefHole(shape, size, as_int, digit_angles(str(hole.get("direction", "")).strip()), str(location).lower().strip(), (shape, size))


def hole_truth(hole: dict, *, int_zero_bug: bool = False) -> RefHole:
    """A truth hole as the prediction family reads it (the top level's `or ""` makes a 0 a wildcard)."""
    direction = hole.get("direction", "")
    direction = str(direction or "") if int_zero_bug else str(direction)
    location = int_or_minus_one(hole.get("location"))
    return RefHole(str(hole.get("shape", "")), str(hole.get("size", "")), location, digit_angles(direction), location)


def hole_planning(hole: object) -> RefHole:
    """planning_scoring.py's normalize_hole: the four keys are required and the location goes
    through int(); matches compare shape and size case-folded, the fields exact strings."""
    try:
        shape, size, direction = str(hole["shape"]), str(hole["size"]), str(hole["direction"])
        location = int(hole["location"])
    except (KeyError, TypeError, ValueError, OverflowError) as why:
        raise RefCrash(f"a replayed hole {describe(hole)} lacks a field or a numeric location ({type(why).__name__})") from None
    return RefHole(shape, size, location, digit_angles(direction), location, (shape.strip().lower(), size.strip().lower()), direction)


def raw_truth_list(truth: TruthItem) -> list:
    """The truth record's resultHoles list as given, every element (a hole list stored as a JSON
    string, as in the Hugging Face copy, is decoded first)."""
    holes = truth.record.get("resultHoles") or []
    if isinstance(holes, str):
        outcome, holes = loads(holes)
    return holes if isinstance(holes, list) else []


def raw_truth_holes(truth: TruthItem) -> list:
    """The truth record's resultHoles as the reference reads them: the objects of the list."""
    return [h for h in raw_truth_list(truth) if isinstance(h, dict)]


# --------------------------------------------------------------------------------------------------
# hole tensors and per-field tests


class Interner:
    """Small ids for arbitrary hashable values, shared by truth and prediction in one run."""

    def __init__(self) -> None:
        self.ids: dict = {}

    def __call__(self, value: object) -> int:
        key = (type(value) is str, value if isinstance(value, (str, int, float, type(None), tuple)) else repr(value))
        return self.ids.setdefault(key, len(self.ids))


def location_id(location: object, intern: Interner) -> int:
    """Locations compare as numbers (17 == 17.0 == the grid index of [2, 0, 0]); a value that cannot
    equal a truth location (-1, not a number, not finite, beyond float precision) is -1, no match."""
    if isinstance(location, (int, float)) and location != -1:
        if isinstance(location, float) and not math.isfinite(location):
            return -1
        if abs(location) < 2**53:
            return intern(float(location))
    return -1


def ref_tensors(holes: Sequence[Sequence[RefHole]], intern: Interner) -> tuple[np.ndarray, np.ndarray]:
    """int[B, H, 8] (shape, size, folded shape+size, location, location key, direction key, has
    digits, present) and uint64[B, H, 6] angle bits, for the comparisons of `ref_tests`."""
    width = max([1, *map(len, holes)])
    table = np.zeros((len(holes), width, 8), np.int64)
    table[..., :6] = -1
    bits = np.zeros((len(holes), width, DIRECTION_WORDS), np.uint64)
    for b, row in enumerate(holes):
        for h, hole in enumerate(row):
            table[b, h] = (intern(hole.shape), intern(hole.size), intern(hole.folded), location_id(hole.location, intern),
                           intern(hole.location_key), intern(hole.direction_key), bool(hole.angles), 1)
            for angle in hole.angles:
                bits[b, h, angle // 64] |= np.uint64(1 << (angle % 64))
    return table, bits


def ref_tests(truth: tuple[np.ndarray, np.ndarray], pred: tuple[np.ndarray, np.ndarray]) -> dict[str, np.ndarray]:
    """bool[B, G, P] per comparison: shape, size, folded (shape and size case-folded), location,
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


def score_compat(task: str, truth: Sequence[TruthItem], answers: Sequence[Answer], mode: str = MODE_TOP_LEVEL) -> Report:
    """The reference scorer for `task` in compat `mode` (`MODES`), its numbers reproduced."""
    if mode not in MODES:
        raise InputError(f"unknown compat mode {mode!r} (expected {', '.join(MODES)})", field="compat")
    if task == "planning":
        return score_planning(truth, answers, mode)
    return score_family(scorer_for(task, mode), truth, answers, mode)


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


# --------------------------------------------------------------------------------------------------
# planning: the reference pipeline (the runner's converter, animate.py + run.py's replay, emulated
# with the foldsim simulator), then planning_scoring.py on the replay records


RUN_PY_CODES = frozenset({f"{a}{n}-{s}" for a in "HVD" for n in "12" for s in "FB"} | {f"D{n}-{s}" for n in "34" for s in "FB"}
                         | {"R-90", "R-180", "R-270", "R-360"})
GRID_IDS = frozenset(range(1, 33))
PLAN_MAX_PUNCHES = 2
REPLAY_KEYS = ("resultHoles", "initialHoles", "foldingTypes", "numberofFoldingSteps", "totalNumberofHoles")
MISSING_REPLAY = {"resultHoles": [], "totalNumberofHoles": 0, "numberofFoldingSteps": -1, "initialHoles": []}


class Skipped(Exception):
    """The pipeline writes no replay for this answer (it is scored as a missing replay)."""


class CannotReplay(Exception):
    """run.py would replay this plan, but foldsim cannot reproduce its 3-D result."""


def converted_row(data: dict) -> dict:
    """The runner's convert_to_target_format: folds joined with commas (a string is joined character
    by character, an object by its keys), holes as they are; where the join raises the runner
    writes an error row, which animate.py skips."""
    try:
        folds = ",".join(data.get("folds", []))
    except TypeError:
        raise Skipped("folds cannot be joined: the runner writes an error row, animate.py skips it") from None
    return {"folds": folds, "holes": data.get("holes", [])}


def planning_input(record: object) -> tuple[str, dict]:
    """What the pipeline makes of one answer record: ("replay", record) for a replay record (the
    animate.py output, or a MentalBlackboard record), which planning_scoring.py reads as it is;
    ("row", row) for a row animate.py replays: the runner's own row (`folds` one comma-joined
    string) as it is, a plan object (`folds` a list) or model text (its first ```json {...}```
    block) converted as the runner does. Skipped where no replay results."""
    if isinstance(record, dict):
        if "folds" in record or "holes" in record:
            return "row", record if isinstance(record.get("folds"), str) else converted_row(record)
        if any(k in record for k in REPLAY_KEYS):
            return "replay", record
        if is_error_row(record):
            raise Skipped("an error row: animate.py skips it")
    text = model_text(record, raw_response=True)
    block = first_json_object_fence(text) if text is not None else None
    outcome, data = loads(block) if block is not None else ("invalid", None)
    if outcome != "ok":
        raise Skipped("no ```json {...}``` block that parses: the runner writes an error row, animate.py skips it")
    return "row", converted_row(data)


@dataclass(frozen=True)
class Punch:
    """One punch run.py makes: the hole spec as written and the hole foldsim simulates."""

    spec: dict
    hole: Hole


def run_py_plan(row: dict) -> tuple[list[str], list[Punch]]:
    """animate.py + run.py on one row: the codes and the punches made. Skipped for a row without
    folds or holes; RefCrash where run.py (or animate.py) raises, which aborts the reference's
    remaining batch; CannotReplay for a direction foldsim does not model."""
    folds, holes = row.get("folds"), row.get("holes")
    if not folds or not holes:
        raise Skipped("no folds or no holes: animate.py skips the row")
    if not isinstance(folds, str):
        raise RefCrash(f"folds {describe(folds)} is not a string: animate.py cannot pass it to run.py (TypeError)")
    try:
        specs = ast.literal_eval(str(holes))
        iter(specs)
    except Exception:
        raise RefCrash("run.py cannot read the hole list (ast.literal_eval of its text)") from None
    codes = [c.strip() for c in folds.split(",")]
    unknown = next((c for c in codes if c not in RUN_PY_CODES), None)
    if unknown is not None:
        raise RefCrash(f"unknown folding action {unknown!r}: run.py raises")
    return codes, [p for p in map(run_py_punch, specs) if p is not None]


def run_py_punch(spec: object) -> Punch | None:
    """One hole spec as run.py's planning() takes it: None when its location is not a grid id
    (skipped with a message); RefCrash for a missing key, a non-numeric direction (math.radians) or
    an unknown shape (punch_hole)."""
    try:
        shape, size, direction, location = spec["shape"], spec["size"], spec["direction"], spec["location"]
        known = location in GRID_IDS
    except (TypeError, KeyError, IndexError) as why:
        raise RefCrash(f"hole spec {describe(spec)} lacks shape, size, direction or a hashable location ({type(why).__name__})") from None
    if not known:
        return None
    if not isinstance(direction, (int, float)):
        raise RefCrash(f"direction {describe(direction)} is not numeric: math.radians raises")
    if not isinstance(shape, str) or shape not in SHAPE_PERIOD:
        raise RefCrash(f"unknown shape {describe(shape)}: punch_hole raises")
    if SHAPE_PERIOD[shape] == 1:
        quarter_degrees = 0
    elif type(direction) is int and direction in (0, 90, 180, 270):
        quarter_degrees = direction
    else:
        raise CannotReplay(f"a {shape} punched at direction {direction!r} (foldsim replays 0, 90, 180, 270)")
    return Punch(spec, Hole.make(shape, "small" if size == "small" else "large", quarter_degrees, int(location)))


def run_py_direction(shape: str, direction: object) -> object:
    """The direction run.py writes for a punch: "" for circle and square, the class string for an
    ellipse or rectangle at 0/90/180/270, else the value as given."""
    if SHAPE_PERIOD[shape] == 1:
        return ""
    if SHAPE_PERIOD[shape] == 2 and direction in (90, 270):
        return "90, 270"
    if SHAPE_PERIOD[shape] == 2 and direction in (0, 180):
        return "0, 180"
    return direction


def planning_replays(truth: Sequence[TruthItem], answers: Sequence[Answer]) -> tuple[dict[str, dict], list[str], list[str]]:
    """The replay record of every truth id, as the results file would hold it after the pipeline ran
    over the answers in order (a later replay of the same id replaces an earlier one; a skipped or
    failed row leaves an earlier replay in place). Rows are simulated in one batch, one row per
    punch, so a punch where no paper lies makes no holes while the others count, as in run.py.
    Returns (replays, notes, crashes)."""
    from ..simulate import simulate

    wanted = {t.id for t in truth}
    plans, notes, crashes = [], [], []  # plans: (id, record or None, codes, punches) in answer order
    for answer in answers:
        if answer.id not in wanted:
            continue
        try:
            kind, value = planning_input(answer_record(answer))
            plans.append((answer.id, value, (), ()) if kind == "replay" else (answer.id, None, *run_py_plan(value)))
        except Skipped as why:
            notes.append(f"{answer.id}: no replay ({why})")
        except CannotReplay as why:
            notes.append(f"{answer.id}: not replayed ({why}); scored as a missing replay")
        except RefCrash as crash:
            crashes.append(f"{answer.id}: {crash}; animate.py aborts the remaining batch")
    rows = [Config(tuple(c for c in codes if c != "R-360"), (p.hole,), item_id) for item_id, record, codes, punches in plans for p in punches]
    results = iter(simulate(rows) if rows else [])
    replays = {}
    for item_id, record, codes, punches in plans:
        if record is not None:
            replays[item_id] = record
            continue
        try:
            replays[item_id] = replay_record(codes, punches, [next(results) for _ in punches])
        except CannotReplay as why:
            notes.append(f"{item_id}: not replayed ({why}); scored as a missing replay")
        except RefCrash as crash:
            crashes.append(f"{item_id}: {crash}; animate.py aborts the remaining batch")
    return replays, notes, crashes


def replay_record(codes: list[str], punches: list[Punch], results: list) -> dict:
    """The record run.py appends for a replayed row: every executed code is a step (rotations
    included), every accepted punch an initial hole, the result holes with the size as written."""
    holes = []
    for punch, result in zip(punches, results):
        if result.status == "not_realizable":
            raise CannotReplay(f"{result.reason}; run.py does not check this")
        holes += [{**h.to_dict(), "size": punch.spec["size"]} for h in result.holes] if result.ok else []
    if len(holes) % 2:
        raise RefCrash(f"{len(holes)} result holes: run.py raises on an odd total")
    initial = [{"shape": p.spec["shape"], "size": p.spec["size"], "direction": run_py_direction(p.spec["shape"], p.spec["direction"]),
                "location": p.spec["location"]} for p in punches]
    return {"numberofFoldingSteps": len(codes), "initialHoles": initial, "resultHoles": holes, "totalNumberofHoles": len(holes)}


@dataclass(frozen=True)
class ReadReplay:
    """One truth record and its replay as planning_scoring.py reads them."""

    truth: TruthItem
    truth_holes: tuple[RefHole, ...]
    holes: tuple[RefHole, ...]
    g: object
    p: object
    broken: tuple[str, ...]  # the rules broken: invalid_initial_holes, steps_mismatch
    wrong_step_correct_answer: bool
    replayed: bool


def planning_holes(value: object) -> tuple[RefHole, ...]:
    """A hole list as normalize_hole reads it (iterated as it is: a string by characters)."""
    try:
        return tuple(map(hole_planning, value))
    except TypeError:
        raise RefCrash(f"a hole list is {describe(value)} (TypeError: not iterable)") from None


def initial_hole_count(record: dict) -> int:
    """count_initial_holes: the initialHoles list's length, else one of three count keys, else 0."""
    initial = record.get("initialHoles", [])
    if isinstance(initial, list):
        return len(initial)
    for key in ("totalNumberofInitialHoles", "numberOfInitialHoles", "initialHoleCount"):
        if key in record:
            try:
                return int(record[key])
            except Exception:
                pass
    return 0


def folding_steps(record: dict) -> int:
    try:
        return int(record.get("numberofFoldingSteps", -1))
    except (TypeError, ValueError, OverflowError):
        raise RefCrash(f"numberofFoldingSteps {describe(record.get('numberofFoldingSteps'))} is not a number") from None


def content_key(hole: RefHole) -> tuple:
    return (hole.shape, hole.size, hole.direction_key, hole.location)


def read_replay(truth: TruthItem, replay: dict, replayed: bool) -> ReadReplay:
    """planning_scoring.py's reading of one (truth, replay) pair; RefCrash where it raises."""
    truth_holes = planning_holes(truth.record.get("resultHoles", []))
    holes = planning_holes(replay.get("resultHoles", []))
    g = truth.record.get("totalNumberofHoles", len(truth_holes))
    p = replay.get("totalNumberofHoles", len(holes))
    for value, whose in ((p, "the replay's"), (g, "the truth's")):
        if not isinstance(value, (int, float)):
            raise RefCrash(f"totalNumberofHoles {describe(value)} ({whose}) is not a number (TypeError)")
    punches = initial_hole_count(replay)
    steps_match = folding_steps(truth.record) == folding_steps(replay)
    broken = tuple(name for name, bad in (("invalid_initial_holes", punches > PLAN_MAX_PUNCHES), ("steps_mismatch", not steps_match)) if bad)
    same_content = Counter(map(content_key, truth_holes)) == Counter(map(content_key, holes))
    punched_is_result = Counter(map(content_key, planning_holes(replay.get("initialHoles", [])))) == Counter(map(content_key, holes))
    return ReadReplay(truth, truth_holes, holes, g, p, broken, bool(broken) and same_content and not punched_is_result, replayed)


def score_planning(truth: Sequence[TruthItem], answers: Sequence[Answer], mode: str = MODE_TOP_LEVEL) -> Report:
    """planning_scoring.py on the replays: greedy matching (shape and size case-folded, int location,
    direction overlap) on the declared totals, exact forced to 0 when the step count differs from
    the truth's or more than 2 punches were made; fields as multisets of exact values; N = the truth
    records."""
    replays, notes, crashes = planning_replays(truth, answers)
    read = []
    for t in truth:
        try:
            read.append(read_replay(t, replays.get(t.id, MISSING_REPLAY), t.id in replays))
        except RefCrash as crash:
            crashes.append(f"{t.id}: {crash}")
    matched = in_row_chunks(partial(planning_counts, Interner()), [r.truth_holes for r in read], [r.holes for r in read])
    items = []
    for b, r in enumerate(read):
        item = planning_item(r, {name: int(c[b]) for name, c in matched.items()})
        if item.exact and not item.groups:
            crashes.append(f"{r.truth.id}: exact, but its id is outside PFHP_1-400 (KeyError in the group table)")
            continue
        items.append(item)
    counts = {"N": len(truth), "replayed": sum(r.replayed for r in read), "exact": sum(i.exact for i in items), "crashed": len(crashes),
              **{rule: sum(rule in r.broken for r in read) for rule in ("invalid_initial_holes", "steps_mismatch")},
              "marked_wrong": sum(bool(r.broken) for r in read), "wrong_step_correct_answer": sum(r.wrong_step_correct_answer for r in read)}
    return Report("planning", f"compat {mode}", items, planning_metrics(items, len(truth)), counts,
                  group_breakdown(items, planning_group_summary), notes, crashes)


def planning_item(r: ReadReplay, matched: dict[str, int]) -> ItemScore:
    """One item's score: G and P the declared totals, the fields over the listed holes."""
    m = matched["exact"]
    group = numbered_group(100, 4)(r.truth.id)
    return ItemScore(r.truth.id, "scored" if r.replayed else "missing", "; ".join(r.broken), r.g, r.p, m,
                     {f: matched[f] for f in FIELDS}, len(r.truth_holes), len(r.holes),
                     exact=r.p == r.g and m == r.g and not r.broken, groups={"group": group} if group else {})


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
    """Matched holes per item: "exact" greedy (shape and size case-folded, location, direction
    overlap) and the fields as multisets of exact values (tuples for the compounds)."""
    tests = ref_tests(ref_tensors(truth_rows, intern), ref_tensors(replayed_rows, intern))
    location, shape, direction = tests["location"], tests["shape"], tests["direction_key"]
    by_field = {"shape": shape, "size": tests["size"], "location": location, "direction": direction,
                "location_shape": location & shape, "location_direction": location & direction,
                "shape_direction": shape & direction, "location_shape_direction": location & shape & direction}
    return {"exact": count_matches(tests["folded"] & location & tests["overlap"], "greedy"),
            **{f: count_matches(test, "multiset") for f, test in by_field.items()}}
