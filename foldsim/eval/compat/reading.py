"""Reading answers and holes the way each reference scorer does (`RefAnswer`, `RefHole`): which
fields it takes, how it coerces them, where it would crash."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ...errors import describe
from ..score_base import TruthItem
from .text import (
    PREDICTION_KEYS, RefCrash, _DIGITS, candidates_prediction, is_error_row, loads, model_text, parse_candidates,
    parse_last_block, repair_backward,
)

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
