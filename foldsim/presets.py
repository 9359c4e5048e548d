"""MentalBlackboard as a preset of the general engine (docs/engine.md): its 4x4 sheet of 32 rigid
triangles, its fold codes as box-relative lines with named moving sides, and its grid ids as
triangle centroids.

Coordinates are the general engine's: origin at the sheet's bottom-left corner, y up (SPEC §1's
centred coordinates plus 2). Used by the reference cross-check and by the kernel's preset.
"""

from __future__ import annotations

from fractions import Fraction

from .config import Config
from .holes import SHAPE_PERIOD, Hole, direction_value
from .sheets import Flip, Fold, Line, PointHole, Punch, Rotate, SheetItem, SheetSpec

Point = tuple[Fraction, Fraction]

MB_SHEET = SheetSpec(4, 4)
_HALF = Fraction(1, 2)


def _triangles() -> tuple[tuple[Point, Point, Point], ...]:
    """The 32 triangles of SPEC §1, index = location id - 1. Cell (r, c) covers
    [c, c+1] x [3-r, 4-r]; r + c even: diagonal top-left to bottom-right, tri 0 = lower-left half,
    tri 1 = upper-right; r + c odd: diagonal bottom-left to top-right, tri 0 = upper-left, tri 1 =
    lower-right (tri 0 always holds the cell's left edge). id = 8r + 2c + tri + 1."""
    out = []
    for r in range(4):
        for c in range(4):
            left, right, bottom, top = Fraction(c), Fraction(c + 1), Fraction(3 - r), Fraction(4 - r)
            tl, tr, bl, br = (left, top), (right, top), (left, bottom), (right, bottom)
            if (r + c) % 2 == 0:
                out += [(tl, bl, br), (tl, br, tr)]
            else:
                out += [(tl, bl, tr), (bl, br, tr)]
    return tuple(out)


#: the rigid initial pieces of the MentalBlackboard sheet; MB_RIGID_TRIANGLES[id - 1] is location id
MB_RIGID_TRIANGLES = _triangles()
#: the centroid of each location (index = id - 1): where a hole at that location is punched
MB_CENTROIDS: tuple[Point, ...] = tuple((sum(p[0] for p in t) / 3, sum(p[1] for p in t) / 3) for t in MB_RIGID_TRIANGLES)
_LOCATION_OF_CENTROID = {point: i + 1 for i, point in enumerate(MB_CENTROIDS)}

#: fold type -> (crease, moving side) (SPEC §3: H1 moves the top half down, V1 the left half right,
#: D1 the top-left half over the (x0,y0)-(x1,y1) diagonal, D2 the top-right half over the other one)
MB_FOLD_LINES = {
    "H1": (Line.box("H", _HALF), "above"),
    "H2": (Line.box("H", _HALF), "below"),
    "V1": (Line.box("V", _HALF), "left"),
    "V2": (Line.box("V", _HALF), "right"),
    "D1": (Line.box("D", _HALF, square=True), "upper_left"),
    "D4": (Line.box("D", _HALF, square=True), "lower_right"),
    "D2": (Line.box("N", _HALF, square=True), "upper_right"),
    "D3": (Line.box("N", _HALF, square=True), "lower_left"),
}


def location_of_point(x: Fraction, y: Fraction) -> int | None:
    """The location id (1..32) whose triangle's centroid is exactly (x, y); None elsewhere."""
    return _LOCATION_OF_CENTROID.get((Fraction(x), Fraction(y)))


def mb_action(code: str) -> Fold | Rotate | Flip:
    """The general action of one canonical MentalBlackboard code ("D1-F", "H2-B", "R-90")."""
    if code.startswith("R-"):
        return Rotate(int(code[2:]) // 90)
    line, moves = MB_FOLD_LINES[code[:2]]
    return Fold(line, moves=moves, front=code.endswith("-F"))


def mb_punch(hole: Hole) -> Punch:
    """A MentalBlackboard hole as a point punch at its location's centroid (direction in degrees,
    reduced by the shape's symmetry as the benchmark writes it)."""
    x, y = MB_CENTROIDS[hole.location - 1]
    return Punch(x, y, hole.shape, hole.size, 90 * hole.quarter)


def mentalblackboard_item(config: Config | dict) -> SheetItem:
    """The general item of a MentalBlackboard configuration (a Config or a benchmark record).
    Simulate it with the preset's rigid pieces (MB_RIGID_TRIANGLES) so that a crease through a
    triangle is not realizable, as SPEC §3 requires."""
    if not isinstance(config, Config):
        config = Config.from_record(config)
    return SheetItem(MB_SHEET, tuple(mb_action(code) for code in config.actions),
                     tuple(mb_punch(hole) for hole in config.holes), id=config.id)


def mb_hole(hole: PointHole) -> Hole | None:
    """A general result hole back as a MentalBlackboard Hole (location from the centroid, direction
    by the shape's class); None when it is not at a triangle centroid or not a benchmark shape."""
    location = location_of_point(hole.x, hole.y)
    if location is None or hole.shape not in SHAPE_PERIOD or hole.direction % 90:
        return None
    return Hole(hole.shape, hole.size, direction_value(hole.shape, hole.direction // 90), location, hole.mirrored)
