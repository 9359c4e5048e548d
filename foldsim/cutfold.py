"""Fold and cut on any polygon sheet, exactly (docs/cutting.md).

The folded paper is a list of **layers**, bottom to top. A layer is a connected region of the
original sheet, held as convex pieces with disjoint interiors (exact `Fraction` polygons in flat
sheet coordinates, x right, y up), and one isometry taking it to where it lies now. A fold along a
directed line P1 -> P2 keeps the paper on its left (and on it) and reflects the paper on its right
across it: every taking-part layer is split by the line, the staying parts keep their order, and
the moved parts go on top in reverse order (PFP's rule, reference §1.3). A fold may take only the
top *n* layers; it is realizable only when the paper that moves is joined to the rest through the
fold line alone.

Lines have rational points, so their reflections are rational matrices: every position stays
exact. A cut is a set of polygons placed on the folded paper; the unfolded answer is, for every
layer, (cut ∩ layer) carried back through the layer's isometry, and pieces that share an edge of
positive length are one cut-out (`foldsim.polygons.components`).

Fold kinds (all points in foldsim's frame, y up; PFP's screen picture turned upright):

- "line": P1, P2 absolute points;
- "angle": P1, P2 as fractions of the ORIGINAL sheet's bounding box, x from the left, y from the
  top (PFP's `Angle`);
- "Hori_Left", "Hori_Right", "Vert_Top", "Vert_Bottom": a vertical (Hori_*) or horizontal
  (Vert_*) crease at `rate` of the CURRENT folded box (x from the left, y from the top), snapped to
  a grid of `snap` units as PFP rounds to its pixels (`None`: exact). Hori_Left keeps the left part
  (the right part folds over to the left), Hori_Right the right part, Vert_Top the upper part,
  Vert_Bottom the lower part.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .errors import InputError, describe
from .io import item_label
from .polygons import (
    MAX_VERTICES,
    Point,
    Polygon,
    PolygonSheet,
    area,
    bounding_box,
    clip_convex,
    clip_halfplane,
    components,
    convex_parts,
    counter_clockwise,
    disjoint_convex,
    outline,
    read_number,
    polygon_from_value,
    sheet_from_record,
    touching_edges,
)
from .sheets import Fold as SheetFold

RATE_KINDS = ("Hori_Left", "Hori_Right", "Vert_Top", "Vert_Bottom")
POINT_KINDS = ("line", "angle")
FOLD_KINDS = (*POINT_KINDS, *RATE_KINDS)
#: bounds refused before work: folds in all (2^folds layers at most), folds per step, cut shapes
MAX_FOLDS = 10
MAX_GROUP = 8
MAX_CUTS = 8
MAX_CIRCLE_SIDES = 64
#: the cut shapes' vertices in all: splitting overlapping shapes into disjoint convex cells grows
#: with their square (8 overlapping 64-gons: 9 s on one core), refused on reading
MAX_CUT_VERTICES = 256
#: final layer pieces x cut vertices: the unfolding clips every piece against every cell (64 pieces
#: x 512 vertices took 54 s on one core); refused after folding, before any cut is unfolded
MAX_CUT_WORK = 8192

STATUS_OK = "ok"
STATUS_NOT_REALIZABLE = "not_realizable"
STATUS_OFF_PAPER = "off_paper"


# -- isometries -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Affine:
    """p -> m p + t with a rational matrix m = (a, b, c, d) row-major (here always orthogonal)."""

    m: tuple[Fraction, Fraction, Fraction, Fraction]
    t: Point

    def apply(self, p: Point) -> Point:
        a, b, c, d = self.m
        return (a * p[0] + b * p[1] + self.t[0], c * p[0] + d * p[1] + self.t[1])

    def after(self, inner: "Affine") -> "Affine":
        """self ∘ inner (inner first)."""
        a, b, c, d = self.m
        e, f, g, h = inner.m
        return Affine((a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h), self.apply(inner.t))

    def inverse(self) -> "Affine":
        a, b, c, d = self.m
        det = a * d - b * c
        mi = (d / det, -b / det, -c / det, a / det)
        tx, ty = self.t
        return Affine(mi, (-(mi[0] * tx + mi[1] * ty), -(mi[2] * tx + mi[3] * ty)))

    @property
    def det(self) -> Fraction:
        a, b, c, d = self.m
        return a * d - b * c

    def polygon(self, poly: Sequence[Point]) -> Polygon:
        """The image of a polygon, counter-clockwise again (a reflection reverses the order)."""
        return counter_clockwise(tuple(self.apply(p) for p in poly))


ONE, ZERO = Fraction(1), Fraction(0)
IDENTITY = Affine((ONE, ZERO, ZERO, ONE), (ZERO, ZERO))


def reflection_across(p1: Point, p2: Point) -> Affine:
    """The reflection across the line through p1 and p2: with d = p2 - p1 and n = |d|^2,
    m = [[dx² - dy², 2 dx dy], [2 dx dy, dy² - dx²]] / n, rational for rational points."""
    dx, dy = p2[0] - p1[0], p2[1] - p1[1]
    n = dx * dx + dy * dy
    m = ((dx * dx - dy * dy) / n, 2 * dx * dy / n, 2 * dx * dy / n, (dy * dy - dx * dx) / n)
    linear = Affine(m, (ZERO, ZERO))
    image = linear.apply(p1)
    return Affine(m, (p1[0] - image[0], p1[1] - image[1]))


# -- the item ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fold:
    """One fold: its `kind` (see the module docstring) with `p1`/`p2` (point kinds) or `rate` and
    `snap` (rate kinds); `layers`: fold only the top n layers (None: all)."""

    kind: str
    p1: Point | None = None
    p2: Point | None = None
    rate: Fraction | None = None
    snap: Fraction | None = None
    layers: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in FOLD_KINDS:
            raise InputError(f"must be one of {', '.join(FOLD_KINDS)}, got {describe(self.kind)}", field="fold.type")
        if self.kind in POINT_KINDS and (self.p1 is None or self.p2 is None or self.p1 == self.p2):
            raise InputError("needs two different points p1 and p2", field="fold")
        if self.kind in RATE_KINDS and (self.rate is None or not 0 < self.rate < 1):
            raise InputError(f"must lie strictly between 0 and 1, got {describe(self.rate)}", field="fold.rate")
        if self.layers is not None and (isinstance(self.layers, bool) or not isinstance(self.layers, int)
                                        or self.layers < 1):
            raise InputError(f"must be a positive whole number, got {describe(self.layers)}", field="fold.layers")

    def describe(self) -> str:
        if self.kind in RATE_KINDS:
            return f"{self.kind} at {self.rate}" + (f" (snapped to {self.snap})" if self.snap else "")
        return f"{self.kind} ({self.p1[0]}, {self.p1[1]}) -> ({self.p2[0]}, {self.p2[1]})"


@dataclass(frozen=True)
class Cut:
    """One cut shape placed on the folded paper: an exact polygon; `shape` names it."""

    polygon: Polygon
    shape: str = "polygon"
    #: a circle's (centre, radius, sides) when the polygon was made from one (`circle_polygon`)
    circle: tuple[Point, Fraction, int] | None = None


@dataclass(frozen=True)
class CutItem:
    """A sheet, its folding steps (each a group of one or more folds done as one step) and cuts."""

    sheet: PolygonSheet
    steps: tuple[tuple[Fold, ...], ...]
    cuts: tuple[Cut, ...]
    id: str | None = None


# -- folding -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layer:
    """A connected region of the flat sheet (convex pieces, disjoint interiors) and its isometry
    to where it lies now."""

    parts: tuple[Polygon, ...]
    iso: Affine

    def placed(self) -> tuple[Polygon, ...]:
        return tuple(self.iso.polygon(p) for p in self.parts)

    @property
    def reflected(self) -> bool:
        """Face down (an odd number of folds moved it): PFP draws it in the back colour."""
        return self.iso.det < 0


class NotRealizable(Exception):
    """A fold the paper cannot make; the message says why."""


def _snap(value: Fraction, grid: Fraction | None, upward: bool) -> Fraction:
    """PFP's ⌊v + 0.5⌋ on its screen axis: along x half-steps round up; along y (screen y runs
    down) they round toward the screen's bottom, which is down in foldsim's frame."""
    if grid is None:
        return value
    steps = value / grid
    return grid * (math.floor(steps + Fraction(1, 2)) if upward else math.ceil(steps - Fraction(1, 2)))


def resolve_line(fold: Fold, layers: Sequence[Layer], sheet: PolygonSheet) -> tuple[Point, Point]:
    """The fold's directed line P1 -> P2 in the folded frame (the paper on its left stays)."""
    if fold.kind == "line":
        return fold.p1, fold.p2
    if fold.kind == "angle":
        x0, y0, x1, y1 = bounding_box(sheet.vertices)
        w, h = x1 - x0, y1 - y0
        return ((x0 + w * fold.p1[0], y1 - h * fold.p1[1]), (x0 + w * fold.p2[0], y1 - h * fold.p2[1]))
    x0, y0, x1, y1 = bounding_box(p for layer in layers for part in layer.placed() for p in part)
    if fold.kind.startswith("Hori"):
        x = _snap(x0 + (x1 - x0) * fold.rate, fold.snap, True)
        low, high = (x, ZERO), (x, ONE)  # upward: its left is x < X
        return (low, high) if fold.kind == "Hori_Left" else (high, low)
    y = _snap(y1 - (y1 - y0) * fold.rate, fold.snap, False)
    left, right = (ZERO, y), (ONE, y)
    return (left, right) if fold.kind == "Vert_Top" else (right, left)


def _pull_back(iso: Affine, a: Fraction, b: Fraction, c: Fraction) -> tuple[Fraction, Fraction, Fraction]:
    """The half-plane a x + b y + c >= 0 of the folded frame, in a layer's flat frame."""
    m, t = iso.m, iso.t
    return a * m[0] + b * m[2], a * m[1] + b * m[3], a * t[0] + b * t[1] + c


def _split(layer: Layer, a: Fraction, b: Fraction, c: Fraction) -> list[Layer]:
    """The layer's part where a x + b y + c >= 0 (folded frame) as connected layers."""
    pa, pb, pc = _pull_back(layer.iso, a, b, c)
    parts = [q for part in layer.parts if (q := clip_halfplane(part, pa, pb, pc))]
    return [Layer(tuple(parts[i] for i in group), layer.iso) for group in components(parts)]


def fold_layers(layers: Sequence[Layer], fold: Fold, sheet: PolygonSheet) -> tuple[Layer, ...]:
    """The layers after one fold; NotRealizable says why it cannot be made."""
    taking = len(layers) if fold.layers is None else fold.layers
    if taking > len(layers):
        raise NotRealizable(f"it folds the top {taking} layers of {len(layers)}")
    p1, p2 = resolve_line(fold, layers, sheet)
    if p1 == p2:
        raise NotRealizable("its two points coincide")
    a, b = p1[1] - p2[1], p2[0] - p1[0]
    c = -(a * p1[0] + b * p1[1])  # >= 0: on the left of p1 -> p2 (stays) or on the line
    resting = list(layers[: len(layers) - taking])
    staying: list[Layer] = []
    moving: list[Layer] = []
    for layer in layers[len(layers) - taking:]:
        staying.extend(_split(layer, a, b, c))
        moving.extend(_split(layer, -a, -b, -c))
    if not moving or not (staying or resting):
        raise NotRealizable("the line leaves no paper on one side")
    if fold.layers is not None and resting:
        _check_joined(resting + staying, moving, a, b, c)
    rho = reflection_across(p1, p2)
    return tuple(resting + staying + [Layer(layer.parts, rho.after(layer.iso)) for layer in reversed(moving)])


def _check_joined(fixed: Sequence[Layer], moving: Sequence[Layer], a: Fraction, b: Fraction, c: Fraction) -> None:
    """NotRealizable when paper that moves is joined to paper that does not along an edge that
    does not lie on the fold line (the fold would tear the sheet there)."""
    pieces = [part for layer in [*moving, *fixed] for part in layer.parts]
    owner = [i for i, layer in enumerate([*moving, *fixed]) for _ in layer.parts]
    n_moving = sum(len(layer.parts) for layer in moving)
    for i, ei, j, ej in touching_edges(pieces):
        if (i < n_moving) == (j < n_moving):
            continue
        k, e = (i, ei) if i < n_moving else (j, ej)
        iso = moving[owner[k]].iso
        poly = pieces[k]
        ends = (iso.apply(poly[e]), iso.apply(poly[(e + 1) % len(poly)]))
        if any(a * x + b * y + c != 0 for x, y in ends):
            raise NotRealizable("the layers it moves are joined to layers it leaves along a crease off the "
                                "fold line, so the fold would tear the paper")


@dataclass(frozen=True)
class Cutout:
    """One connected cut-out of the opened sheet: convex pieces (flat sheet coordinates, disjoint
    interiors), its exact area, and the final state's layers (0 = bottom) it was cut from."""

    pieces: tuple[Polygon, ...]
    area: Fraction
    layers: tuple[int, ...]

    def outline(self) -> list[Polygon]:
        """Its boundary as rings: the outer one counter-clockwise, any holes clockwise."""
        return outline(self.pieces)

    def to_dict(self) -> dict:
        return {"area": str(self.area), "layers": list(self.layers),
                "outline": [[[str(x), str(y)] for x, y in ring] for ring in self.outline()],
                "pieces": [[[str(x), str(y)] for x, y in piece] for piece in self.pieces]}


@dataclass(frozen=True)
class CutResult:
    """The answer for one item. `states[s][k]`: the layers after fold k of step s (a group keeps
    every intermediate state, for pictures); the cut-outs come from the final state only."""

    id: str | None
    status: str
    reason: str = ""
    failed_step: int | None = None
    states: tuple[tuple[tuple[Layer, ...], ...], ...] = ()
    cutouts: tuple[Cutout, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    @property
    def final(self) -> tuple[Layer, ...]:
        return self.states[-1][-1]

    @property
    def area(self) -> Fraction:
        return sum((c.area for c in self.cutouts), ZERO)

    def to_json(self) -> dict:
        data: dict = {"id": self.id, "status": self.status}
        if not self.ok:
            return {**data, "reason": self.reason, "failed_step": self.failed_step}
        return {**data, "count": len(self.cutouts), "area": str(self.area),
                "cutouts": [c.to_dict() for c in self.cutouts]}


def fold_states(item: CutItem) -> tuple[tuple[tuple[tuple[Layer, ...], ...], ...], str, int | None]:
    """Every state: the flat sheet first (a step of its own), then each step's states; a fold that
    cannot be made stops the walk with the reason and its 1-based step."""
    layers: tuple[Layer, ...] = (Layer(item.sheet.parts, IDENTITY),)
    states = [(layers,)]
    for s, step in enumerate(item.steps, 1):
        inside = []
        for k, fold in enumerate(step, 1):
            try:
                layers = fold_layers(layers, fold, item.sheet)
            except NotRealizable as err:
                where = f"fold {k} of step {s}" if len(step) > 1 else f"step {s}"
                return tuple(states), f"{where} ({fold.describe()}) is not realizable: {err}", s
            inside.append(layers)
        states.append(tuple(inside))
    return tuple(states), "", None


def cut_cells(cuts: Sequence[Cut]) -> list[Polygon]:
    """The union of the cut shapes as convex cells with disjoint interiors (folded frame)."""
    return disjoint_convex(part for cut in cuts for part in convex_parts(cut.polygon))


def unfold_cut(layers: Sequence[Layer], cuts: Sequence[Cut]) -> tuple[Cutout, ...]:
    """(cut ∩ layer) carried back to the flat sheet for every layer, joined into cut-outs."""
    cells = cut_cells(cuts)
    pieces: list[Polygon] = []
    owners: list[int] = []
    boxes = [bounding_box(cell) for cell in cells]
    for index, layer in enumerate(layers):
        back = layer.iso.inverse()
        for part, placed in zip(layer.parts, layer.placed()):
            x0, y0, x1, y1 = bounding_box(placed)
            for cell, (cx0, cy0, cx1, cy1) in zip(cells, boxes):
                if cx0 >= x1 or x0 >= cx1 or cy0 >= y1 or y0 >= cy1:
                    continue  # boxes apart: no area in common
                if (piece := clip_convex(part, back.polygon(cell))):
                    pieces.append(piece)
                    owners.append(index)
    cutouts = []
    for group in components(pieces):
        chosen = sorted(pieces[i] for i in group)
        cutouts.append(Cutout(tuple(chosen), sum((area(p) for p in chosen), ZERO),
                              tuple(sorted({owners[i] for i in group}))))
    return tuple(sorted(cutouts, key=lambda c: (min(p for piece in c.pieces for p in piece), c.area)))


def cut_item(item: CutItem) -> CutResult:
    """Fold, cut and unfold one item exactly. Statuses: ok, not_realizable (a fold the paper cannot
    make: failed_step names its step), off_paper (a cut shape over no paper: failed_step is the
    1-based cut). An item past MAX_CUT_WORK once folded raises InputError (field "cuts")."""
    states, reason, failed = fold_states(item)
    if reason:
        return CutResult(item.id, STATUS_NOT_REALIZABLE, reason, failed, states)
    final = states[-1][-1]
    placed = [part for layer in final for part in layer.placed()]
    vertices = sum(len(cut.polygon) for cut in item.cuts)
    if len(placed) * vertices > MAX_CUT_WORK:
        raise InputError(f"{len(placed)} folded layer pieces x {vertices} cut vertices is past the bound of "
                         f"{MAX_CUT_WORK} (fewer folds, or fewer or simpler cut shapes)", item=item.id, field="cuts")
    for index, cut in enumerate(item.cuts, 1):
        if not any(clip_convex(part, cell) for cell in convex_parts(cut.polygon) for part in placed):
            return CutResult(item.id, STATUS_OFF_PAPER, f"cut {index} ({cut.shape}) is over no paper", index, states)
    return CutResult(item.id, STATUS_OK, "", None, states, unfold_cut(final, item.cuts))


def from_sheet_fold(fold: "SheetFold") -> Fold:
    """The twin of a `foldsim.sheets.Fold` (absolute H/V/D/N line, a named side moving, the flap to
    the front): the functional φ = n·p fixed to c, the side sign·(φ - c) > 0 moving, as a directed
    line whose left stays, d = (-sign n_y, sign n_x). Point punches and cuts then see one paper."""
    from .sheets import SIDE_SIGNS

    family, at = fold.line.family, fold.line.at
    if at is None or fold.moves not in SIDE_SIGNS[family] or not fold.front:
        raise InputError("only an absolute line with a named moving side and the flap to the front has a "
                         "fold-and-cut twin", field="fold")
    sign = SIDE_SIGNS[family][fold.moves]
    nx, ny = {"H": (0, 1), "V": (1, 0), "D": (-1, 1), "N": (1, 1)}[family]
    p1 = (at, ZERO) if family == "V" else (ZERO, at)
    return Fold("line", p1, (p1[0] - sign * ny, p1[1] + sign * nx))


# -- circles ------------------------------------------------------------------------------------------


def circle_polygon(centre: Point, radius: Fraction, sides: int) -> Polygon:
    """A circle as a `sides`-gon (a multiple of 4) whose vertices lie EXACTLY on the circle: each is
    centre + radius ((1 - t²)/(1 + t²), 2t/(1 + t²)) for a rational t near tan(θ/2), θ spaced
    evenly from angle 0, t rounded to 1/1024; the quarter circle is turned by exact quarter turns,
    so the polygon has the square's symmetries about its centre."""
    quarter = []
    for k in range(sides // 4):
        t = Fraction(round(math.tan(math.pi * k / sides) * 1024), 1024)
        quarter.append(((1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)))
    unit = [q for turn in range(4) for q in (_turn(p, turn) for p in quarter)]
    return tuple((centre[0] + radius * x, centre[1] + radius * y) for x, y in unit)


#: PFP's four cut shapes (reference §1.5), each centred on its position, in foldsim's frame
PFP_CUT_SHAPES = ("square", "circle", "rectangle", "hexagon")
#: the grid PFP's hexagon cut (circumradius 35, irrational corners) is rounded to, in pixels
PFP_HEXAGON_GRID = Fraction(1, 2)


def pfp_cut(kind: str, centre: Point, circle_sides: int = 32) -> Cut:
    """One of PFP's cut shapes about `centre`: a 70 x 70 square, a circle of diameter 70 (a
    `circle_sides`-gon on the circle), a 45 wide x 60 tall rectangle, a regular hexagon of
    circumradius 35 with a vertex at the top (corners rounded to PFP_HEXAGON_GRID)."""
    from .polygons import round_to_grid

    cx, cy = centre
    if kind == "circle":
        return Cut(circle_polygon(centre, Fraction(35), circle_sides), kind, (centre, Fraction(35), circle_sides))
    if kind == "hexagon":
        corners = [(round_to_grid(35 * math.cos(math.radians(90 + 60 * k)), PFP_HEXAGON_GRID),
                    round_to_grid(35 * math.sin(math.radians(90 + 60 * k)), PFP_HEXAGON_GRID)) for k in range(6)]
        return Cut(tuple((cx + x, cy + y) for x, y in corners), kind)
    half = {"square": (Fraction(35), Fraction(35)), "rectangle": (Fraction(45, 2), Fraction(30))}.get(kind)
    if half is None:
        raise InputError(f"must be one of {', '.join(PFP_CUT_SHAPES)}, got {describe(kind)}", field="cut.shape")
    w, h = half
    return Cut(((cx - w, cy - h), (cx + w, cy - h), (cx + w, cy + h), (cx - w, cy + h)), kind)


def _turn(p: Point, quarters: int) -> Point:
    x, y = p
    for _ in range(quarters):
        x, y = -y, x
    return (x, y)


# -- reading items ------------------------------------------------------------------------------------


def _point(value: object, what: str) -> Point:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise InputError(f"must be a point [x, y], got {describe(value)}", field=what)
    return read_number(value[0], f"{what}.x"), read_number(value[1], f"{what}.y")


def _bounded(value: Fraction, what: str, limit: int = 10**6) -> Fraction:
    if abs(value) > limit or value.denominator > limit:
        raise InputError(f"must be at most {limit} in size with a denominator of at most {limit}, got {value}",
                         field=what)
    return value


def fold_from_record(entry: object, what: str) -> Fold:
    """{"type": "line"|"angle", "p1", "p2", "layers"?} or {"type": RATE_KIND, "rate", "snap"?, "layers"?}."""
    if not isinstance(entry, Mapping):
        raise InputError(f"must be an object, got {describe(entry)}", field=what)
    kind = entry.get("type")
    if kind not in FOLD_KINDS:
        raise InputError(f"must be one of {', '.join(FOLD_KINDS)}, got {describe(kind)}", field=f"{what}.type")
    layers = entry.get("layers")
    if layers is not None and (isinstance(layers, bool) or not isinstance(layers, int) or not 1 <= layers <= 1 << MAX_FOLDS):
        raise InputError(f"must be a whole number of layers from 1 to {1 << MAX_FOLDS}, got {describe(layers)}",
                         field=f"{what}.layers")
    if kind in POINT_KINDS:
        p1 = tuple(_bounded(v, f"{what}.p1") for v in _point(entry.get("p1"), f"{what}.p1"))
        p2 = tuple(_bounded(v, f"{what}.p2") for v in _point(entry.get("p2"), f"{what}.p2"))
        if p1 == p2:
            raise InputError("must differ from p1 (two points make the line)", field=f"{what}.p2")
        return Fold(kind, p1, p2, layers=layers)
    rate = read_number(entry.get("rate", Fraction(1, 2)), f"{what}.rate")
    if not 0 < rate < 1 or rate.denominator > 10**6:
        raise InputError(f"must lie strictly between 0 and 1 (denominator at most 10^6), got {rate}",
                         field=f"{what}.rate")
    snap = entry.get("snap")
    if snap is not None:
        snap = _bounded(read_number(snap, f"{what}.snap"), f"{what}.snap")
        if snap <= 0:
            raise InputError(f"must be a positive grid step, got {snap}", field=f"{what}.snap")
    return Fold(kind, rate=rate, snap=snap, layers=layers)


def cut_from_record(entry: object, what: str) -> Cut:
    """{"polygon": [[x, y], ...], "shape"?} or {"circle": {"centre", "radius", "sides"}}."""
    if not isinstance(entry, Mapping):
        raise InputError(f"must be an object, got {describe(entry)}", field=what)
    shape = entry.get("shape", "circle" if "circle" in entry else "polygon")
    if not isinstance(shape, str) or not shape or len(shape) > 40:
        raise InputError(f"must be a short name, got {describe(shape)}", field=f"{what}.shape")
    if "circle" in entry:
        circle = entry["circle"]
        if not isinstance(circle, Mapping):
            raise InputError(f"must be an object, got {describe(circle)}", field=f"{what}.circle")
        centre = tuple(_bounded(v, f"{what}.circle.centre") for v in _point(circle.get("centre"), f"{what}.circle.centre"))
        radius = _bounded(read_number(circle.get("radius"), f"{what}.circle.radius"), f"{what}.circle.radius")
        sides = circle.get("sides", 32)
        if isinstance(sides, bool) or not isinstance(sides, int) or sides % 4 or not 8 <= sides <= MAX_CIRCLE_SIDES:
            raise InputError(f"must be a multiple of 4 from 8 to {MAX_CIRCLE_SIDES}, got {describe(sides)}",
                             field=f"{what}.circle.sides")
        if radius <= 0:
            raise InputError(f"must be positive, got {radius}", field=f"{what}.circle.radius")
        return Cut(circle_polygon(centre, radius, sides), shape, (centre, radius, sides))
    return Cut(polygon_from_value(entry.get("polygon"), f"{what}.polygon"), shape)


def cut_item_from_record(record: object, *, index: int | None = None) -> CutItem:
    """A CutItem from {"id"?, "sheet": {"vertices"} | {"preset", "grid"?}, "steps": [FOLD |
    {"group": [FOLD, ...]}], "cuts": [CUT, ...]}. Every bound is checked before any geometry;
    InputError names the item and the field."""
    item = item_label(record, index)
    if not isinstance(record, Mapping):
        raise InputError(f"must be an object, got {describe(record)}", item=item)
    try:
        steps_raw, cuts_raw = record.get("steps"), record.get("cuts")
        if not isinstance(steps_raw, list) or not isinstance(cuts_raw, list):
            bad = "steps" if not isinstance(steps_raw, list) else "cuts"
            raise InputError(f"must be a list, got {describe(record.get(bad))}", field=bad)
        groups = []
        for s, entry in enumerate(steps_raw):
            folds = entry.get("group") if isinstance(entry, Mapping) and "group" in entry else [entry]
            if not isinstance(folds, list) or not 1 <= len(folds) <= MAX_GROUP:
                raise InputError(f"must be a list of 1 to {MAX_GROUP} folds, got {describe(folds)}",
                                 field=f"steps[{s}].group")
            groups.append(folds)
        if sum(len(g) for g in groups) > MAX_FOLDS:
            raise InputError(f"must hold at most {MAX_FOLDS} folds in all", field="steps")
        if not 1 <= len(cuts_raw) <= MAX_CUTS:
            raise InputError(f"must hold 1 to {MAX_CUTS} cut shapes, got {len(cuts_raw)}", field="cuts")
        steps = tuple(tuple(fold_from_record(f, f"steps[{s}]" + (f".group[{k}]" if len(g) > 1 else ""))
                            for k, f in enumerate(g)) for s, g in enumerate(groups))
        cuts = tuple(cut_from_record(c, f"cuts[{i}]") for i, c in enumerate(cuts_raw))
        if sum(len(cut.polygon) for cut in cuts) > MAX_CUT_VERTICES:
            raise InputError(f"must hold at most {MAX_CUT_VERTICES} vertices in all, got "
                             f"{sum(len(cut.polygon) for cut in cuts)}", field="cuts")
        sheet = sheet_from_record(record.get("sheet"))
    except InputError as err:
        raise err.at(item=item) from None
    return CutItem(sheet, steps, cuts, item)


def fold_to_record(fold: Fold) -> dict:
    entry: dict = {"type": fold.kind}
    if fold.kind in POINT_KINDS:
        entry["p1"] = [str(v) for v in fold.p1]
        entry["p2"] = [str(v) for v in fold.p2]
    else:
        entry["rate"] = str(fold.rate)
        if fold.snap is not None:
            entry["snap"] = str(fold.snap)
    if fold.layers is not None:
        entry["layers"] = fold.layers
    return entry


def cut_item_to_record(item: CutItem) -> dict:
    """The inverse of `cut_item_from_record`: polygons as exact "p/q" vertices, circles as the
    centre, radius and sides their polygon is made from."""
    steps = [fold_to_record(g[0]) if len(g) == 1 else {"group": [fold_to_record(f) for f in g]} for g in item.steps]
    cuts = [{"shape": c.shape, "polygon": [[str(x), str(y)] for x, y in c.polygon]} if c.circle is None else
            {"shape": c.shape, "circle": {"centre": [str(v) for v in c.circle[0]], "radius": str(c.circle[1]),
                                          "sides": c.circle[2]}} for c in item.cuts]
    return {"id": item.id, "sheet": item.sheet.to_record(), "steps": steps, "cuts": cuts}


assert MAX_CIRCLE_SIDES <= MAX_VERTICES
