"""Holes: shapes, sizes, directions and their equivalence classes (SPEC §4, formats §1.5).

Directions are held internally as quarter turns q in 0..3 (q * 90 degrees counter-clockwise). A
shape's *period* says which quarter turns look alike: 1 for circle and square (all), 2 for ellipse
and rectangle ("0, 180" / "90, 270"), 4 for the rest. Two holes are the same hole when shape, size,
location and `q mod period` agree; that is `Hole.key`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import InputError, describe

#: the generator's shapes and their symmetry periods in quarter turns
SHAPE_PERIOD = {
    "circle": 1,
    "square": 1,
    "ellipse": 2,
    "rectangle": 2,
    "triangle": 4,
    "trapezoid": 4,
    "star": 4,
    "letter": 4,
    "text": 4,
}
SHAPES = tuple(SHAPE_PERIOD)
SIZES = ("small", "large")
#: text-grid letter of each shape (upper case = large)
SHAPE_LETTER = {
    "circle": "C",
    "square": "Q",
    "ellipse": "E",
    "rectangle": "R",
    "triangle": "A",
    "trapezoid": "Z",
    "star": "S",
    "letter": "T",
    "text": "X",
}
CLASS_STRINGS = ("0, 180", "90, 270")


def direction_value(shape: str, quarter: int) -> int | str:
    """The benchmark's direction field for a shape turned by `quarter` quarter turns."""
    period = SHAPE_PERIOD[shape]
    if period == 1:
        return ""
    if period == 2:
        return CLASS_STRINGS[quarter % 2]
    return 90 * (quarter % 4)


#: the longest number a direction string may hold (angles are short; a longer one is garbage, and
#: int() refuses strings beyond sys.get_int_max_str_digits())
MAX_ANGLE_DIGITS = 12


def _quarter_of_degrees(value: int) -> int:
    if value % 90:
        raise InputError(f"direction {describe(value)} is not a multiple of 90", field="direction")
    return (value // 90) % 4


def direction_quarter(shape: str, value: object) -> int:
    """Quarter turns of a direction given as an int, a numeric string or a class string.

    Accepts what the published data holds (including an ellipse's single int), so reading is
    tolerant; anything else raises an InputError naming the direction field.
    """
    period = SHAPE_PERIOD[shape]
    if period == 1 and (value is None or value == ""):
        return 0
    if isinstance(value, bool):
        raise InputError(f"direction {describe(value)} is not an angle", field="direction")
    if isinstance(value, int):
        return _quarter_of_degrees(value) % period
    if isinstance(value, float) and value.is_integer():
        return _quarter_of_degrees(int(value)) % period
    if isinstance(value, str):
        numbers = re.findall(r"-?\d+", value)
        short = all(len(n.lstrip("-")) <= MAX_ANGLE_DIGITS for n in numbers)
        if numbers and short and re.fullmatch(r"\s*-?\d+(\s*,\s*-?\d+)*\s*", value):
            quarters = {_quarter_of_degrees(int(n)) % period for n in numbers}
            if len(quarters) == 1:
                return quarters.pop()
            raise InputError(f"direction {describe(value)} names more than one class for a {shape}", field="direction")
    raise InputError(f"direction {describe(value)} is not an angle", field="direction")


def is_canonical_direction(shape: str, value: object) -> bool:
    """Whether a direction is written the way SPEC §4 prescribes for its shape."""
    try:
        return direction_value(shape, direction_quarter(shape, value)) == value
    except InputError:
        return False


@dataclass(frozen=True)
class Hole:
    """One hole: shape, size, benchmark direction value and grid location 1..32.

    `mirrored` is an extension for result holes: the glyph is seen from its back (the layer was
    flipped an odd number of times). It never changes `direction` and is not part of equality.
    """

    shape: str
    size: str
    direction: int | str
    location: int
    mirrored: bool = field(default=False, compare=False)

    @property
    def quarter(self) -> int:
        """The direction as quarter turns, reduced by the shape's symmetry."""
        return direction_quarter(self.shape, self.direction)

    @property
    def key(self) -> tuple[str, str, int, int]:
        """What identifies the hole in a multiset comparison (direction by class)."""
        return (self.shape, self.size, self.location, self.quarter)

    def to_dict(self, *, with_extensions: bool = False) -> dict:
        record = {"shape": self.shape, "size": self.size, "direction": self.direction, "location": self.location}
        if with_extensions:
            record["mirrored"] = self.mirrored
        return record

    @classmethod
    def make(cls, shape: str, size: str, direction: object, location: int, *, mirrored: bool = False) -> "Hole":
        """A hole with its direction written canonically for its shape; validates every field."""
        return parse_hole({"shape": shape, "size": size, "direction": direction, "location": location}, mirrored=mirrored)


def parse_location(value: object) -> int:
    """A grid id 1..32 from an int or an integer string; InputError otherwise."""
    if isinstance(value, bool):
        raise InputError(f"location {describe(value)} is not a grid id", field="location")
    if isinstance(value, str) and re.fullmatch(r"\s*\d{1,%d}\s*" % MAX_ANGLE_DIGITS, value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise InputError(f"location {describe(value)} is not a grid id", field="location")
    if not 1 <= value <= 32:
        raise InputError(f"location {describe(value)} is outside 1..32", field="location")
    return value


def parse_hole(obj: object, *, mirrored: bool = False) -> Hole:
    """A Hole from a benchmark hole object, normalising its direction; InputError names the field."""
    if not isinstance(obj, dict):
        raise InputError(f"a hole must be an object, got {type(obj).__name__}")
    for key in ("shape", "size", "location"):
        if key not in obj:
            raise InputError("missing", field=key)
    shape, size = obj["shape"], obj["size"]
    if not isinstance(shape, str) or shape not in SHAPE_PERIOD:
        raise InputError(f"unknown shape {describe(shape)} (expected one of {', '.join(SHAPES)})", field="shape")
    if not isinstance(size, str) or size not in SIZES:
        raise InputError(f"unknown size {describe(size)} (expected small or large)", field="size")
    location = parse_location(obj["location"])
    quarter = direction_quarter(shape, obj.get("direction", ""))
    return Hole(shape, size, direction_value(shape, quarter), location, mirrored)


def parse_holes(items: object, field_name: str) -> tuple[Hole, ...]:
    """A list of holes; the error names `field_name[i].<field>`."""
    if items is None:
        return ()
    if not isinstance(items, list):
        raise InputError(f"must be a list, got {type(items).__name__}", field=field_name)
    holes = []
    for i, obj in enumerate(items):
        try:
            holes.append(parse_hole(obj))
        except InputError as err:
            raise err.at(field_prefix=f"{field_name}[{i}]") from None
    return tuple(holes)
