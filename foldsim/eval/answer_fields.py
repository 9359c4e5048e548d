"""Reading the fields of an answer object into typed values: predicted holes (shape, size, location,
directions, each with a note for what is wrong with it), declared totals, unfolding and fold codes.
Nothing here raises on a bad answer: a bad hole still counts as a prediction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..codes import canonical_code, code_of_entry
from ..errors import InputError, describe
from ..holes import SHAPE_PERIOD, SIZES, Hole
from ..mentalblackboard_sheet import SHEET, rct_to_location
from .answer_json import _SPACE, loads_lenient, loads_strict, one_line

#: characters of a hole written as a string ("ellipse large (2,1,1)")
MAX_HOLE_STRING = 200

_NUMBER_RE = re.compile(r"-?\d++(?:\.\d++)?")
_INT_TEXT = re.compile(r"\s*+\d{1,9}\s*+")
_LOCATION_TRIPLE = re.compile(r"[\[(]?+\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+[\])]?+")
_TEXT_HOLE_RE = re.compile(
    r"\s*+([A-Za-z]++)\s++(small|large)\s*+[\[(]?+\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+[\])]?+\s*+",
    re.IGNORECASE,
)
_CODE_SPLIT = re.compile(r"[,\s]++")


# --------------------------------------------------------------------------------------------------
# typed answers


@dataclass(frozen=True)
class PredictedHole:
    """One hole as the model gave it, normalised but not judged.

    `shape`/`size` are lower-cased and stripped (possibly unknown words), `location` a grid id 1..32
    or None, `directions` every angle given, in degrees mod 360 (empty = none given). `note` says
    what is wrong with it; a hole with a note never matches anything but still counts as predicted.
    """

    shape: str
    size: str
    location: int | None
    directions: frozenset[int] = frozenset()
    note: str = ""

    def quarter_for(self, period: int) -> int | None:
        """The direction class (quarter turns mod `period`) the given angles all denote, or None.

        The single-direction rule: an answer listing several angles denotes a class only when all of
        them denote the same class for a shape of this period (e.g. 90 and 270 for an ellipse).
        Period 1 (circle, square) has one class, so any answer, even none, denotes it.
        """
        if period == 1:
            return 0
        if not self.directions or any(d % 90 for d in self.directions):
            return None
        classes = {(d // 90) % period for d in self.directions}
        return classes.pop() if len(classes) == 1 else None

    @property
    def valid(self) -> bool:
        """Whether every field is usable (it may still denote no single direction)."""
        return not self.note and self.shape in SHAPE_PERIOD and self.size in SIZES and self.location is not None

    def hole(self) -> Hole | None:
        """The proper Hole when the hole is fully valid and names one direction class, else None."""
        if not self.valid:
            return None
        quarter = self.quarter_for(SHAPE_PERIOD[self.shape])
        if quarter is None:
            return None
        return Hole.make(self.shape, self.size, 90 * quarter, self.location)


@dataclass(frozen=True)
class Prediction:
    """A prediction answer: listed holes, the declared total (None if absent or unreadable) and the
    unfolding codes (canonical where they parse, else the upper-cased token as given)."""

    holes: tuple[PredictedHole, ...] = ()
    declared_total: int | None = None
    unfolding: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """A planning answer: fold codes as given (upper-cased, whitespace removed, not validated) and
    the punches."""

    folds: tuple[str, ...] = ()
    holes: tuple[PredictedHole, ...] = ()
    notes: tuple[str, ...] = ()

# --------------------------------------------------------------------------------------------------
# reading fields


def prediction_of(data: dict, *, directions: bool = True) -> Prediction:
    """Typed prediction fields of an answer object (`directions=False`: direction fields ignored)."""
    notes: list[str] = []
    holes = parse_predicted_holes(data.get("resultHoles"), "resultHoles", notes, directions=directions)
    total = parse_total(data.get("totalNumberofHoles"), notes)
    unfolding = parse_unfolding(data.get("unfoldingTypes"), notes)
    return Prediction(holes, total, unfolding, tuple(notes))


def plan_of(data: dict) -> Plan:
    """Typed plan fields: `folds`/`holes` first, else a MentalBlackboard record's
    `foldingTypes`/`initialHoles` (either may be stored as a JSON string, as dataset dumps do)."""
    notes: list[str] = []
    if "folds" in data or "foldingTypes" not in data:
        folds = tuple(normalise_code(c) for c in split_codes(data.get("folds"), "folds", notes))
    else:
        entries = _json_list(data.get("foldingTypes"), "foldingTypes", notes)
        folds = tuple(_code_of_entry_or_note(e, i, notes) for i, e in enumerate(entries))
    key = "holes" if "holes" in data or "initialHoles" not in data else "initialHoles"
    holes = parse_predicted_holes(data.get(key), key, notes)
    return Plan(folds, holes, tuple(notes))


def _json_list(value: object, field_name: str, notes: list[str]) -> list:
    """A list field, also when stored as a JSON string; anything else is noted and empty."""
    if isinstance(value, str):
        try:
            value = loads_lenient(value)
        except ValueError:
            notes.append(f"{field_name}: {one_line(value, 60)!r} is not a JSON list")
            return []
    if isinstance(value, list):
        return value
    if value is not None:
        notes.append(f"{field_name}: expected a list, got {type(value).__name__}")
    return []


def _code_of_entry_or_note(entry: object, index: int, notes: list[str]) -> str:
    try:
        return code_of_entry(entry)
    except InputError as err:
        notes.append(f"foldingTypes[{index}]: {err}")
        name = entry.get("foldType", "?") if isinstance(entry, dict) else "?"
        return name if isinstance(name, str) else "?"


def split_codes(value: object, field_name: str, notes: list[str]) -> list[str]:
    """Code tokens from a list or a comma/whitespace separated string; None gives []."""
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in _CODE_SPLIT.split(value) if t]
    if isinstance(value, list):
        tokens = []
        for i, token in enumerate(value):
            if isinstance(token, str) and token.strip():
                tokens.append(token)
            elif not isinstance(token, str):
                notes.append(f"{field_name}[{i}]: {describe(token)} is not a code")
                tokens.append(describe(token))
        return tokens
    notes.append(f"{field_name}: expected a list of codes, got {type(value).__name__}")
    return []


def normalise_code(token: str) -> str:
    """A code token upper-cased with whitespace removed ("h1 -f " -> "H1-F"); not validated."""
    return _SPACE.sub("", token).upper()


def parse_unfolding(value: object, notes: list[str]) -> tuple[str, ...]:
    """Unfolding codes, canonical where they parse ("h2-f" -> "H2-F"), else the normalised token."""
    codes = []
    for token in split_codes(value, "unfoldingTypes", notes):
        try:
            codes.append(canonical_code(token))
        except InputError:
            notes.append(f"unfoldingTypes: unknown code {one_line(token, 60)!r}")
            codes.append(normalise_code(token))
    return tuple(codes)


def parse_total(value: object, notes: list[str]) -> int | None:
    """The declared totalNumberofHoles as an int (numeric strings accepted), None when absent."""
    if value is None:
        return None
    if isinstance(value, bool):
        notes.append(f"totalNumberofHoles: {value!r} is not a count")
        return None
    if isinstance(value, int) and abs(value) < 10**9:
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 10**9:
        return int(value)
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        return int(value)
    notes.append(f"totalNumberofHoles: {describe(value)} is not a count")
    return None


def parse_predicted_holes(value: object, field_name: str, notes: list[str], *, directions: bool = True) -> tuple[PredictedHole, ...]:
    """The holes of a hole list (also a list stored as a JSON string); a missing or null list is
    empty, anything else is noted."""
    if value is None:
        return ()
    if isinstance(value, str):
        try:
            value = loads_lenient(value)
        except ValueError:
            notes.append(f"{field_name}: expected a list of holes, got a string")
            return ()
    if not isinstance(value, list):
        notes.append(f"{field_name}: expected a list of holes, got {type(value).__name__}")
        return ()
    return tuple(parse_predicted_hole(item, directions=directions) for item in value)


def parse_predicted_hole(obj: object, *, directions: bool = True) -> PredictedHole:
    """One predicted hole from an object (or a string: JSON, or "ellipse large (2,1,1)").
    `directions=False` ignores the direction field (no note, no angles)."""
    if isinstance(obj, str):
        obj = _hole_of_string(obj)
    if not isinstance(obj, dict):
        return PredictedHole("", "", None, note=f"hole {one_line(obj, 60)} is not an object")
    notes: list[str] = []
    shape = _word(obj.get("shape"), "shape", tuple(SHAPE_PERIOD), notes)
    size = _word(obj.get("size"), "size", SIZES, notes)
    location = parse_predicted_location(obj.get("location"), notes)
    angles = parse_directions(obj.get("direction"), notes) if directions else frozenset()
    return PredictedHole(shape, size, location, angles, "; ".join(notes))


def _hole_of_string(text: str) -> object:
    if len(text) > MAX_HOLE_STRING:
        return text
    try:
        return loads_strict(text)
    except ValueError:
        pass
    match = _TEXT_HOLE_RE.fullmatch(text)
    if not match:
        return text
    shape, size, row, col, tri = match.groups()
    return {"shape": shape, "size": size, "location": [int(row), int(col), int(tri)]}


def _word(value: object, field_name: str, known: tuple[str, ...], notes: list[str]) -> str:
    word = value.strip().lower() if isinstance(value, str) and len(value) <= 40 else ""
    if value is None:
        notes.append(f"{field_name} missing")
    elif word not in known:
        notes.append(f"unknown {field_name} {describe(value)}")
    return word


def parse_predicted_location(value: object, notes: list[str]) -> int | None:
    """A grid id 1..32 from an int, a numeric string, or a 0-based [row, col, tri] list or
    "(r, c, t)" string; None (with a note) for anything else or out of range."""
    if value is None:
        notes.append("location missing")
        return None
    numbers = _location_numbers(value)
    if numbers is None:
        notes.append(f"location {one_line(value, 60)} is not a grid id or [row, col, tri]")
        return None
    n = SHEET.n_triangles
    if len(numbers) == 1:
        if 1 <= numbers[0] <= n:
            return numbers[0]
        notes.append(f"location {numbers[0]} is outside 1..{n}")
        return None
    row, col, tri = numbers
    per_cell = n // (SHEET.rows * SHEET.cols)
    if 0 <= row < SHEET.rows and 0 <= col < SHEET.cols and 0 <= tri < per_cell:
        return rct_to_location(row, col, tri)
    notes.append(f"location [{row}, {col}, {tri}] is outside the {SHEET.cols}x{SHEET.rows} grid")
    return None


def _location_numbers(value: object) -> list[int] | None:
    """[id] or [row, col, tri] from the accepted location forms, else None (numbers beyond nine
    digits are no location)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return [value] if abs(value) < 10**9 else None
    if isinstance(value, float):
        return [int(value)] if value.is_integer() and abs(value) < 1e9 else None
    if isinstance(value, str):
        if len(value) > 40:
            return None
        if _INT_TEXT.fullmatch(value):
            return [int(value)]
        triple = _LOCATION_TRIPLE.fullmatch(value.strip())
        return [int(n) for n in triple.groups()] if triple else None
    if isinstance(value, (list, tuple)) and len(value) == 3:
        parts = [_location_numbers(v) if not isinstance(v, (list, tuple)) else None for v in value]
        if all(p is not None and len(p) == 1 for p in parts):
            return [p[0] for p in parts]
    return None


def parse_directions(value: object, notes: list[str]) -> frozenset[int]:
    """Every angle in a direction field, in degrees mod 360: ints, numeric strings, class strings
    ("0, 180", "(90, 270)") and flat lists of these. None/"" give the empty set; non-integer,
    over-long or unreadable angles are noted."""
    if value is None or value == "":
        return frozenset()
    if isinstance(value, bool):
        notes.append(f"direction {value!r} is not an angle")
        return frozenset()
    if isinstance(value, (int, float)):
        return _angles([value], value, notes)
    if isinstance(value, str):
        numbers = _NUMBER_RE.findall(value) if len(value) <= 200 else []
        if not numbers or any(len(n) > 12 for n in numbers):
            notes.append(f"direction {one_line(value, 60)!r} is not an angle")
            return frozenset()
        return _angles([float(n) for n in numbers], value, notes)
    if isinstance(value, (list, tuple)) and len(value) <= 16:
        angles: set[int] = set()
        for item in value:
            if isinstance(item, (list, tuple, dict)):
                notes.append(f"direction {one_line(value, 60)} is not an angle or a flat list of angles")
                return frozenset()
            angles |= parse_directions(item, notes)
        return frozenset(angles)
    notes.append(f"direction {one_line(value, 60)} is not an angle")
    return frozenset()


def _angles(numbers: list[float], original: object, notes: list[str]) -> frozenset[int]:
    if any(not (isinstance(n, int) or n.is_integer()) or abs(n) >= 1e9 for n in numbers):  # float(int) can overflow
        notes.append(f"direction {one_line(original, 60)} is not a whole number of degrees")
        return frozenset()
    return frozenset(int(n) % 360 for n in numbers)
