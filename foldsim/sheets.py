"""General paper-folding items: any rectangular sheet, folds along axis or 45° lines at any rational
offset, rotations and flips of the stack, punches as exact points (docs/engine.md).

Coordinates are sheet cell units as exact Fractions: origin at the sheet's bottom-left corner,
x right, y up; cell (row, col) has row 0 at the top. A line of family

    H: y = at      V: x = at      D: y - x = at ("/")      N: x + y = at ("\\")

is given absolutely (`Line(family, at)`) or relative to the current paper's bounding box
(`Line.box(family, fraction)`: `fraction` of the way along the box's extent in the family's
functional; 1/2 is the line through the box centre). The side that moves is named ("above",
"left", …), or "smaller" (the side of smaller extent; `tie` breaks equal halves), or the side that
does not hold a point (`away_from`).

These are plain frozen dataclasses with validation that names the item and field (InputError);
`foldsim.engine` turns them into kernel rows.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from .errors import InputError, describe
from .holes import SHAPES, SIZES
from .limits import (
    MAX_ACTIONS,
    MAX_COORDINATE,
    MAX_DENOMINATOR,
    MAX_EXPONENT,
    MAX_LATTICE_SIDE,
    MAX_NUMBER_CHARS,
    MAX_PUNCHES,
    MAX_SHEET_SIDE,
)

#: the line families and the functional each one fixes
FAMILIES = ("H", "V", "D", "N")
FAMILY_FUNCTIONAL = {"H": "y", "V": "x", "D": "y - x", "N": "x + y"}
#: the named sides of each family and the sign of its functional there (+1: functional > at)
SIDE_SIGNS = {
    "H": {"above": 1, "below": -1},
    "V": {"right": 1, "left": -1},
    "D": {"upper_left": 1, "lower_right": -1},
    "N": {"upper_right": 1, "lower_left": -1},
}
RULE_SIDES = ("smaller", "away_from")
#: an exact number as text: a decimal with an optional exponent, or "p/q" (Fraction's own syntax,
#: without underscores); the exponent is read and bounded before Fraction expands it
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?|[+-]?\d+/\d+")


def as_fraction(value: object, what: str, *, max_magnitude: int = MAX_COORDINATE,
                max_denominator: int = MAX_DENOMINATOR) -> Fraction:
    """The one reader of exact numbers from data: an int, a Fraction, a decimal or "p/q" string
    ("0.25", "-3/4", "1e-2") or a float that is exactly a short decimal (0.25, 1.5). Refused with an
    InputError naming `what`, before any arithmetic that could take long: bools, containers, NaN and
    infinities, strings longer than MAX_NUMBER_CHARS or with an exponent past MAX_EXPONENT; then
    values the engine's int32 lattice cannot hold: magnitude past MAX_COORDINATE cells or a
    denominator past MAX_DENOMINATOR (foldsim.limits, docs/errors.md General records). An engine of
    other bounds (the exact polygon engine, foldsim.polygons) passes its own `max_magnitude` and
    `max_denominator`."""
    exact = _exact_number(value, what, max_magnitude)
    if exact.denominator > max_denominator:
        raise InputError(f"{describe(value)} is finer than the engine's lattice holds "
                         f"(denominator {exact.denominator:,}, at most {max_denominator:,})", field=what)
    if abs(exact) > max_magnitude:
        raise InputError(f"{describe(value)} is beyond the engine's reach (at most {max_magnitude} "
                         "either way: no sheet is larger)", field=what)
    return exact


def _exact_number(value: object, what: str, max_magnitude: int = MAX_COORDINATE) -> Fraction:
    """`as_fraction` without the lattice bounds: the value as a Fraction, never a long computation
    (an int or Fraction past the bounds is compared, never expanded)."""
    if isinstance(value, bool):
        raise InputError(f"must be a number, got {describe(value)}", field=what)
    if isinstance(value, int):
        if value.bit_length() > max_magnitude.bit_length():
            raise InputError(f"{describe(value)} is beyond the engine's reach (at most {max_magnitude} "
                             "either way: no sheet is larger)", field=what)
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"must be a finite number, got {describe(value)}", field=what)
        if abs(value) > max_magnitude:
            raise InputError(f"{describe(value)} is beyond the engine's reach (at most {max_magnitude} "
                             "either way: no sheet is larger)", field=what)
        exact = Fraction(repr(value))
        if exact.denominator > MAX_DENOMINATOR:
            raise InputError(f"must be a short decimal or a fraction 'p/q', got {describe(value)}", field=what)
        return exact
    if isinstance(value, str) and len(value) <= MAX_NUMBER_CHARS:
        text = value.strip()
        match = _NUMBER_TEXT.fullmatch(text)
        if match:
            if match.group(1) is not None and abs(int(match.group(1))) > MAX_EXPONENT:
                raise InputError(f"{describe(value)}: an exponent past {MAX_EXPONENT} is more than the engine's "
                                 "lattice holds", field=what)
            try:
                return Fraction(text)
            except ZeroDivisionError:
                raise InputError(f"has a zero denominator: {describe(value)}", field=what) from None
    raise InputError(f"must be a number or a fraction 'p/q', got {describe(value)}", field=what)


def exact_point(value: object, what: str) -> tuple[Fraction, Fraction]:
    """A point [x, y] (a list or tuple of two exact numbers) read with `as_fraction`."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise InputError(f"must be a point [x, y], got {describe(value)}", field=what)
    return as_fraction(value[0], f"{what}.x"), as_fraction(value[1], f"{what}.y")


def distinct_points(points: Iterable[tuple[object, object]], what: str) -> list[tuple[Fraction, Fraction]]:
    """Exact hole points, refusing a repeated one: punches at one point make one hole in each layer
    there, so a hole set never holds a point twice and a target that does names no physical result."""
    seen: dict[tuple[Fraction, Fraction], int] = {}
    out = []
    for i, (x, y) in enumerate(points):
        point = (as_fraction(x, f"{what}[{i}].x"), as_fraction(y, f"{what}[{i}].y"))
        if point in seen:
            raise InputError(f"repeats hole {seen[point] + 1} at ({point[0]}, {point[1]}): punches at one point make "
                             "one hole in each layer, so a hole set names each point once", field=f"{what}[{i}]")
        seen[point] = i
        out.append(point)
    return out


@dataclass(frozen=True)
class SheetSpec:
    """A rectangle of `cols` x `rows` unit cells."""

    cols: int
    rows: int

    def __post_init__(self) -> None:
        for name in ("cols", "rows"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SHEET_SIDE:
                raise InputError(f"must be a whole number of cells from 1 to {MAX_SHEET_SIDE}, got {describe(value)}",
                                 field=f"sheet.{name}")


@dataclass(frozen=True)
class Line:
    """A crease line: absolute (`at` set) or a fraction of the current box's extent (`box_fraction`).
    `square_box` (MentalBlackboard's box diagonals) also requires the current box to be square."""

    family: str
    at: Fraction | None = None
    box_fraction: Fraction | None = None
    square_box: bool = False

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise InputError(f"must be one of {', '.join(FAMILIES)} (H: y = c, V: x = c, D: y - x = c, N: x + y = c), "
                             f"got {describe(self.family)}", field="line.family")
        if (self.at is None) == (self.box_fraction is None):
            raise InputError("give exactly one of 'at' (absolute) and 'box' (fraction of the box)", field="line")
        if not isinstance(self.square_box, bool):
            raise InputError(f"must be true or false, got {describe(self.square_box)}", field="line.square")
        if self.at is not None:
            object.__setattr__(self, "at", as_fraction(self.at, "line.at"))
        if self.box_fraction is not None:
            fraction = as_fraction(self.box_fraction, "line.box")
            if not 0 < fraction < 1:
                raise InputError(f"must lie strictly between 0 and 1, got {fraction}", field="line.box")
            object.__setattr__(self, "box_fraction", fraction)
        if self.square_box and (self.family not in ("D", "N") or self.box_fraction != Fraction(1, 2)):
            raise InputError("only the box diagonals (D or N at 1/2 of the box) can require a square box",
                             field="line.square")

    @classmethod
    def box(cls, family: str, fraction: object = Fraction(1, 2), *, square: bool = False) -> "Line":
        return cls(family, box_fraction=fraction, square_box=square)

    def describe(self) -> str:
        lhs = FAMILY_FUNCTIONAL.get(self.family, "?")
        if self.at is not None:
            return f"{lhs} = {self.at}"
        return f"{lhs} at {self.box_fraction} of the box"


@dataclass(frozen=True)
class Fold:
    """Fold every layer on one side of `line` across it. `moves`: a named side of the family,
    "smaller" (with `tie` the named side that moves when both extents are equal) or "away_from"
    (the side not holding `point`; when the point is on the line, as "smaller" with `tie`). `front`:
    the flap turns toward the viewer and lands on top (else away, underneath), reversed."""

    line: Line
    moves: str = "smaller"
    front: bool = True
    tie: str | None = None
    point: tuple[Fraction, Fraction] | None = None

    def __post_init__(self) -> None:
        named = SIDE_SIGNS[self.line.family]
        if not isinstance(self.moves, str) or (self.moves not in named and self.moves not in RULE_SIDES):
            raise InputError(f"must be one of {', '.join([*named, *RULE_SIDES])}, got {describe(self.moves)}",
                             field="fold.moves")
        if self.tie is not None and (not isinstance(self.tie, str) or self.tie not in named):
            raise InputError(f"must be one of {', '.join(named)}, got {describe(self.tie)}", field="fold.tie")
        if self.moves in RULE_SIDES and self.tie is None:
            object.__setattr__(self, "tie", next(iter(named)))
        if self.moves == "away_from":
            object.__setattr__(self, "point", exact_point(self.point, "fold.point"))
        elif self.point is not None:
            raise InputError("only applies when moves is away_from", field="fold.point")
        if not isinstance(self.front, bool):
            raise InputError(f"must be true or false, got {describe(self.front)}", field="fold.front")

    def sign(self) -> int:
        """+1 / -1: the functional's sign on the named side that moves (for the rules: on the tie side)."""
        return SIDE_SIGNS[self.line.family][self.tie if self.moves in RULE_SIDES else self.moves]


@dataclass(frozen=True)
class Rotate:
    """Turn the whole stack counter-clockwise by `quarters` quarter turns about the sheet centre."""

    quarters: int

    def __post_init__(self) -> None:
        if isinstance(self.quarters, bool) or not isinstance(self.quarters, int) or self.quarters % 4 == 0:
            raise InputError(f"must be 1, 2 or 3 quarter turns, got {describe(self.quarters)}", field="rotate")
        object.__setattr__(self, "quarters", self.quarters % 4)


@dataclass(frozen=True)
class Flip:
    """Turn the whole stack over, left to right, about the sheet's vertical centre line."""


Action = Fold | Rotate | Flip


@dataclass(frozen=True)
class Punch:
    """A point punch through every layer at (x, y), carrying a hole descriptor: shape, size and
    direction (degrees counter-clockwise, 0 = upright; mapped exactly by each layer's isometry)."""

    x: Fraction
    y: Fraction
    shape: str = "circle"
    size: str = "small"
    direction: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", as_fraction(self.x, "punch.x"))
        object.__setattr__(self, "y", as_fraction(self.y, "punch.y"))
        if isinstance(self.direction, bool) or not isinstance(self.direction, int) or abs(self.direction) > 10**6:
            raise InputError(f"must be whole degrees, got {describe(self.direction)}", field="punch.direction")
        object.__setattr__(self, "direction", self.direction % 360)
        for name in ("shape", "size"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value or len(value) > 40:
                raise InputError(f"must be a short name, got {describe(value)}", field=f"punch.{name}")


@dataclass(frozen=True)
class SheetItem:
    """One general item: a sheet, actions, punches. `resolution` subdivides each cell for the
    kernel's mesh (None: the least that puts every absolute line on the mesh, see
    `foldsim.engine.resolution_for`)."""

    sheet: SheetSpec
    actions: tuple[Action, ...]
    punches: tuple[Punch, ...] = ()
    id: str | None = None
    resolution: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", tuple(self.actions))
        object.__setattr__(self, "punches", tuple(self.punches))
        for i, action in enumerate(self.actions):
            if not isinstance(action, (Fold, Rotate, Flip)):
                raise InputError(f"must be a Fold, Rotate or Flip, got {describe(action)}", item=self.id,
                                 field=f"actions[{i}]")
        for i, punch in enumerate(self.punches):
            if not isinstance(punch, Punch):
                raise InputError(f"must be a Punch, got {describe(punch)}", item=self.id, field=f"punches[{i}]")


@dataclass(frozen=True, order=True)
class PointHole:
    """A result hole of a general item, in the final view frame (cell units from the viewed
    sheet's bottom-left corner; the sheet is turned by the item's rotations and flips)."""

    x: Fraction
    y: Fraction
    shape: str = "circle"
    size: str = "small"
    direction: int = 0
    mirrored: bool = field(default=False, compare=False)

    def cell(self, rows: int) -> tuple[int, int] | None:
        """(row, col) of the cell that holds the hole strictly inside, None when it is on a grid line."""
        if self.x.denominator == 1 or self.y.denominator == 1:
            return None
        return rows - 1 - int(self.y // 1), int(self.x // 1)

    def to_dict(self) -> dict:
        return {"x": str(self.x), "y": str(self.y), "shape": self.shape, "size": self.size,
                "direction": self.direction, "mirrored": self.mirrored}


# -- reading items from JSON-like records -------------------------------------------------------

def _get(record: Mapping, key: str, item: str | None, where: str):
    if key not in record:
        raise InputError("is missing", item=item, field=f"{where}{key}")
    return record[key]


#: what a general record's punch may name (the shapes and sizes the renderers and families know)
PUNCH_SHAPES = SHAPES
PUNCH_SIZES = SIZES


def _action_from_record(entry: object) -> Action:
    """One action of a general record; an InputError's field is relative to the action."""
    if not isinstance(entry, Mapping):
        raise InputError(f"must be an object, got {describe(entry)}")
    kind = entry.get("type", "fold")
    if kind == "rotate":
        degrees = _get(entry, "degrees", None, "")
        if isinstance(degrees, bool) or not isinstance(degrees, int) or degrees % 90:
            raise InputError(f"must be a multiple of 90, got {describe(degrees)}", field="degrees")
        if degrees % 360 == 0:
            raise InputError(f"must be a quarter, half or three-quarter turn, got {describe(degrees)}", field="degrees")
        return Rotate(degrees // 90)
    if kind == "flip":
        return Flip()
    if kind != "fold":
        raise InputError(f"must be fold, rotate or flip, got {describe(kind)}", field="type")
    raw_line = _get(entry, "line", None, "")
    if not isinstance(raw_line, Mapping):
        raise InputError(f"must be an object, got {describe(raw_line)}", field="line")
    if "box" in raw_line and "at" in raw_line:
        raise InputError("give exactly one of 'at' (absolute) and 'box' (fraction of the box), not both", field="line")
    if "box" in raw_line:
        line = Line.box(raw_line.get("family"), raw_line["box"], square=raw_line.get("square", False))
    elif "square" in raw_line:
        raise InputError("only applies to a box line ('box': 1/2 of a D or N diagonal), not to 'at'",
                         field="line.square")
    else:
        line = Line(raw_line.get("family"), at=raw_line.get("at"))
    try:
        return Fold(line, moves=entry.get("moves", "smaller"), front=entry.get("front", True), tie=entry.get("tie"),
                    point=entry.get("point"))
    except InputError as err:  # the fold's own fields sit directly in the action record
        raise InputError(err.message, field=err.field.removeprefix("fold.") if err.field else None) from None


def _punch_from_record(entry: object) -> Punch:
    """One punch of a general record; an InputError's field is relative to the punch."""
    if not isinstance(entry, Mapping):
        raise InputError(f"must be an object, got {describe(entry)}")
    for name, allowed in (("shape", PUNCH_SHAPES), ("size", PUNCH_SIZES)):
        value = entry.get(name, allowed[0] if name == "shape" else "small")
        if not isinstance(value, str) or value not in allowed:
            raise InputError(f"must be one of {', '.join(allowed)}, got {describe(value)}", field=name)
    try:
        return Punch(_get(entry, "x", None, ""), _get(entry, "y", None, ""), entry.get("shape", "circle"),
                     entry.get("size", "small"), entry.get("direction", 0))
    except InputError as err:
        raise InputError(err.message, field=err.field.removeprefix("punch.") if err.field else None) from None


def _bounded_list(record: Mapping, key: str, limit: int, *, required: bool) -> list:
    """A list field of a record, at most `limit` long (foldsim.limits)."""
    value = _get(record, key, None, "") if required else record.get(key, [])
    if not isinstance(value, list):
        raise InputError(f"must be a list, got {describe(value)}", field=key)
    if len(value) > limit:
        raise InputError(f"has {len(value):,} entries; an item holds at most {limit} (docs/errors.md, General records)",
                         field=key)
    return value


def item_from_record(record: object, *, index: int | None = None, name: str | None = None) -> SheetItem:
    """A SheetItem from foldsim's general item record (or a family record holding one under "item"):
    {"id", "sheet": {"cols", "rows"}, "actions": [{"type": "fold", "line": {"family", "at" | "box"},
    "moves", "front"}, {"type": "rotate", "degrees"}, {"type": "flip"}], "punches": [{"x", "y",
    "shape", "size", "direction"}], "resolution"?}. Errors name the record by its id, else by `name`
    (its position: "line 4" of a JSON Lines file), else "item <index>" (from 0, as
    foldsim.io.record_name), and the field by its path in the record."""
    item = name if name is not None else (f"item {index}" if index is not None else None)
    if not isinstance(record, Mapping):
        raise InputError(f"must be an object, got {describe(record)}", item=item)
    if "sheet" not in record and isinstance(record.get("item"), Mapping):
        record = record["item"]  # a family record (`generate --family`) holds its item under "item"
    if isinstance(record.get("id"), str) and record["id"]:
        item = record["id"][:80]
    try:
        return _item_fields(record, item)
    except InputError as err:
        raise err.at(item=item) from None


def _item_fields(record: Mapping, item: str | None) -> SheetItem:
    sheet = _get(record, "sheet", None, "")
    if not isinstance(sheet, Mapping):
        raise InputError(f"must be an object, got {describe(sheet)}", field="sheet")
    spec = SheetSpec(sheet.get("cols"), sheet.get("rows"))
    parsed = []
    for i, entry in enumerate(_bounded_list(record, "actions", MAX_ACTIONS, required=True)):
        try:
            parsed.append(_action_from_record(entry))
        except InputError as err:
            raise err.at(field_prefix=f"actions[{i}]") from None
    holes = []
    for i, entry in enumerate(_bounded_list(record, "punches", MAX_PUNCHES, required=False)):
        try:
            holes.append(_punch_from_record(entry))
        except InputError as err:
            raise err.at(field_prefix=f"punches[{i}]") from None
    resolution = record.get("resolution")
    if resolution is not None and (isinstance(resolution, bool) or not isinstance(resolution, int)
                                   or not 1 <= resolution <= MAX_LATTICE_SIDE):
        raise InputError(f"must be a whole number from 1 to {MAX_LATTICE_SIDE}, got {describe(resolution)}",
                         field="resolution")
    return SheetItem(spec, tuple(parsed), tuple(holes), item, resolution)


def item_to_record(item: SheetItem) -> dict:
    """The inverse of `item_from_record` (exact values as strings "p/q")."""
    actions = []
    for action in item.actions:
        if isinstance(action, Rotate):
            actions.append({"type": "rotate", "degrees": 90 * action.quarters})
        elif isinstance(action, Flip):
            actions.append({"type": "flip"})
        else:
            line = {"family": action.line.family}
            if action.line.at is not None:
                line["at"] = str(action.line.at)
            else:
                line["box"] = str(action.line.box_fraction)
                if action.line.square_box:
                    line["square"] = True
            entry = {"type": "fold", "line": line, "moves": action.moves, "front": action.front}
            if action.moves in RULE_SIDES:
                entry["tie"] = action.tie
            if action.point is not None:
                entry["point"] = [str(action.point[0]), str(action.point[1])]
            actions.append(entry)
    record = {"id": item.id, "sheet": {"cols": item.sheet.cols, "rows": item.sheet.rows}, "actions": actions,
              "punches": [{"x": str(p.x), "y": str(p.y), "shape": p.shape, "size": p.size, "direction": p.direction}
                          for p in item.punches]}
    if item.resolution is not None:
        record["resolution"] = item.resolution
    return record


def items_from_records(records: Iterable[object]) -> list[SheetItem]:
    return [item_from_record(r, index=i) for i, r in enumerate(records)]
