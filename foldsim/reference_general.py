"""A plain, one-item, pure-Python exact reading of docs/engine.md ("Semantics"): the oracle the
batched general kernel (`foldsim.engine`) is checked against.

It shares no code with the kernel on purpose. The paper is a list of convex polygons in flat sheet
coordinates (exact `Fraction`s), each with an isometry (a 2x2 integer matrix with entries in
{-1, 0, 1} plus a Fraction translation) taking it to where it lies now, and a layer number. A fold
clips every piece the line crosses into two halves (textbook one-plane polygon clipping on the flat
polygon, with the signed distances measured where the piece lies now), reflects the moving pieces
and restacks them reversed on top or underneath. Rotations and flips act about the sheet centre.
A punch is a closed point-in-convex-polygon test on each piece, its preimage, and a dedupe by
preimage. Slow by design (every step touches every piece); never on a hot path.

With `rigid_pieces` (a preset's initial pieces, e.g. MentalBlackboard's 32 triangles) a fold whose
line crosses the interior of a piece is "not realizable" instead of splitting it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from .sheets import SIDE_SIGNS, Flip, Fold, PointHole, Rotate, SheetItem

Q = Fraction
Point = tuple[Fraction, Fraction]
Matrix = tuple[int, int, int, int]  # row-major [[a, b], [c, d]]

STATUS_OK = "ok"
STATUS_NOT_REALIZABLE = "not_realizable"
STATUS_OFF_PAPER = "off_paper"


# -- isometries --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Iso:
    """p -> m p + t, with m one of the 8 symmetries of the square (entries in {-1, 0, 1})."""

    m: Matrix
    t: Point

    def apply(self, p: Point) -> Point:
        # m is a signed permutation: pick and negate instead of multiplying (Fractions are slow)
        a, b, c, d = self.m
        x = p[0] if a == 1 else -p[0] if a == -1 else p[1] if b == 1 else -p[1]
        y = p[0] if c == 1 else -p[0] if c == -1 else p[1] if d == 1 else -p[1]
        return (x + self.t[0], y + self.t[1])

    def apply_linear(self, v: Point) -> Point:
        a, b, c, d = self.m
        return (a * v[0] + b * v[1], c * v[0] + d * v[1])

    def inverse(self) -> "Iso":
        """m is orthogonal, so its inverse is its transpose."""
        a, b, c, d = self.m
        mt = (a, c, b, d)
        tx, ty = self.t
        return Iso(mt, (-(a * tx + c * ty), -(b * tx + d * ty)))

    def after(self, inner: "Iso") -> "Iso":
        """self ∘ inner (inner applied first)."""
        a, b, c, d = self.m
        e, f, g, h = inner.m
        m = (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)
        return Iso(m, self.apply(inner.t))

    @property
    def det(self) -> int:
        a, b, c, d = self.m
        return a * d - b * c


IDENTITY = Iso((1, 0, 0, 1), (Q(0), Q(0)))
_QUARTER = (0, -1, 1, 0)  # counter-clockwise quarter turn


def phi(family: str, p: Point) -> Fraction:
    """The functional a line family fixes: H y, V x, D y - x, N x + y."""
    if family == "H":
        return p[1]
    if family == "V":
        return p[0]
    return p[1] - p[0] if family == "D" else p[0] + p[1]


def reflection(family: str, c: Fraction) -> Iso:
    """The reflection across the line phi_family = c."""
    if family == "H":  # (x, y) -> (x, 2c - y)
        return Iso((1, 0, 0, -1), (Q(0), 2 * c))
    if family == "V":  # (x, y) -> (2c - x, y)
        return Iso((-1, 0, 0, 1), (2 * c, Q(0)))
    if family == "D":  # across y = x + c: (x, y) -> (y - c, x + c)
        return Iso((0, 1, 1, 0), (-c, c))
    return Iso((0, -1, -1, 0), (c, c))  # N, across x + y = c: (x, y) -> (c - y, c - x)


def rotation_about(centre: Point, quarters: int) -> Iso:
    """k counter-clockwise quarter turns about `centre`: p -> R (p - centre) + centre."""
    m = (1, 0, 0, 1)
    for _ in range(quarters % 4):
        m = Iso(_QUARTER, (Q(0), Q(0))).after(Iso(m, (Q(0), Q(0)))).m
    linear = Iso(m, (Q(0), Q(0)))
    moved = linear.apply(centre)
    return Iso(m, (centre[0] - moved[0], centre[1] - moved[1]))


def flip_across(x: Fraction) -> Iso:
    """The reflection across the vertical line through x."""
    return Iso((-1, 0, 0, 1), (2 * x, Q(0)))


_DIRECTION_OF_COLUMN = {(1, 0): 0, (0, 1): 90, (-1, 0): 180, (0, -1): 270}


def map_direction(h: Iso, direction: int) -> int:
    """A hole direction (degrees, 0 = upright) under h's linear part: a rotation by a turns d into
    d + a; a reflection across a line at angle f (first column at angle 2f) turns d into 2f + 180 - d."""
    a, _, c, _ = h.m
    angle = _DIRECTION_OF_COLUMN[(a, c)]
    if h.det == 1:
        return (direction + angle) % 360
    return (angle + 180 - direction) % 360


# -- pieces ------------------------------------------------------------------------------------


def _signed_area2(poly: Sequence[Point]) -> Fraction:
    return sum((p[0] * q[1] - q[0] * p[1] for p, q in zip(poly, [*poly[1:], poly[0]])), Q(0))


@dataclass(frozen=True)
class Piece:
    """A flat convex polygon (counter-clockwise, flat sheet coordinates), its isometry to where it
    lies now, and its layer (larger = nearer the viewer)."""

    polygon: tuple[Point, ...]
    iso: Iso
    layer: int
    _current: tuple[Point, ...] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._current is None:  # computed once: every step reads it
            current = self.polygon if self.iso is IDENTITY else tuple(self.iso.apply(p) for p in self.polygon)
            object.__setattr__(self, "_current", current)

    def with_layer(self, layer: int) -> "Piece":
        return Piece(self.polygon, self.iso, layer, self._current)

    def current(self) -> tuple[Point, ...]:
        """The polygon where it lies now."""
        return self._current

    def contains(self, p: Point) -> bool:
        """Closed test: the point's preimage is inside or on the flat polygon (counter-clockwise, so
        every edge's cross product is >= 0); a box test first rejects most pieces cheaply."""
        xs = [q[0] for q in self._current]
        ys = [q[1] for q in self._current]
        if not (min(xs) <= p[0] <= max(xs) and min(ys) <= p[1] <= max(ys)):
            return False
        u = self.iso.inverse().apply(p)
        poly = self.polygon
        for (ax, ay), (bx, by) in zip(poly, [*poly[1:], poly[0]]):
            if (bx - ax) * (u[1] - ay) - (by - ay) * (u[0] - ax) < 0:
                return False
        return True


def _clip(poly: Sequence[Point], values: Sequence[Fraction], keep: int) -> tuple[Point, ...]:
    """The part of a convex polygon where keep * value >= 0 (value affine in the point): keep the
    vertices on that side and add the crossing point of every edge whose ends lie strictly apart."""
    out: list[Point] = []
    n = len(poly)
    for i in range(n):
        p, s = poly[i], values[i] * keep
        q, t = poly[(i + 1) % n], values[(i + 1) % n] * keep
        if s >= 0:
            out.append(p)
        if (s > 0 > t) or (s < 0 < t):
            k = s / (s - t)
            out.append((p[0] + (q[0] - p[0]) * k, p[1] + (q[1] - p[1]) * k))
    return tuple(out)


def _restack(pieces: list[Piece]) -> list[Piece]:
    """Layer numbers renumbered to dense ranks 0..L-1, order kept (so they stay small and readable)."""
    rank = {layer: i for i, layer in enumerate(sorted({p.layer for p in pieces}))}
    return [p.with_layer(rank[p.layer]) for p in pieces]


# -- state -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResolvedFold:
    """A fold made concrete: the line phi_family = c and the moving side (sign * (phi - c) > 0)."""

    family: str
    c: Fraction
    sign: int

    @property
    def reflection(self) -> Iso:
        return reflection(self.family, self.c)


@dataclass(frozen=True)
class RefState:
    """The paper after some actions: its pieces, the view V (all rotations and flips so far), the
    resolved line of every fold done (None for rotations and flips), and whether a fold failed."""

    pieces: tuple[Piece, ...]
    view: Iso
    folds: tuple[ResolvedFold | None, ...]
    status: str = STATUS_OK
    reason: str = ""
    failed_step: int | None = None


@dataclass(frozen=True)
class RefResult:
    """The reference answer for one item (see docs/engine.md "Result holes")."""

    status: str
    reason: str = ""
    failed_step: int | None = None
    holes: tuple[PointHole, ...] = ()
    layers_under: tuple[int, ...] = ()


class _NotRealizable(Exception):
    pass


def _box(pieces: Iterable[Piece]) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    points = [p for piece in pieces for p in piece.current()]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _describe_line(family: str, c: Fraction) -> str:
    return {"H": "y", "V": "x", "D": "y - x", "N": "x + y"}[family] + f" = {c}"


def resolve_fold(fold: Fold, pieces: Sequence[Piece], rigid: bool) -> ResolvedFold:
    """The fold's line and moving side on the current paper; _NotRealizable says why not."""
    family, line = fold.line.family, fold.line
    x0, y0, x1, y1 = _box(pieces)
    corners = [phi(family, (x, y)) for x in (x0, x1) for y in (y0, y1)]
    lo, hi = min(corners), max(corners)
    if line.at is not None:
        c = line.at
    else:
        if line.square_box and x1 - x0 != y1 - y0:
            raise _NotRealizable(f"the paper's box is {x1 - x0} x {y1 - y0}, not square, so it has no 45° diagonal")
        c = lo + (hi - lo) * line.box_fraction
    text = _describe_line(family, c)
    values = [[phi(family, p) - c for p in piece.current()] for piece in pieces]
    if not any(v > 0 for vs in values for v in vs) or not any(v < 0 for vs in values for v in vs):
        raise _NotRealizable(f"the line {text} leaves no paper on one side")
    if rigid:
        for index, vs in enumerate(values):
            if any(v > 0 for v in vs) and any(v < 0 for v in vs):
                raise _NotRealizable(f"the line {text} crosses rigid piece {index + 1}")
    named = SIDE_SIGNS[family]
    if fold.moves in named:
        sign = named[fold.moves]
    else:
        tie = fold.tie if fold.moves in ("smaller", "away_from") else next(iter(named))
        if fold.moves == "away_from":
            side = phi(family, fold.point) - c
            if side != 0:
                return ResolvedFold(family, c, -1 if side > 0 else 1)
        below, above = c - lo, hi - c  # extents of the phi < c and phi > c sides
        sign = named[tie] if below == above else (1 if above < below else -1)
    return ResolvedFold(family, c, sign)


def _apply_fold(pieces: list[Piece], fold: Fold, resolved: ResolvedFold) -> list[Piece]:
    rho = resolved.reflection
    staying: list[Piece] = []
    moving: list[Piece] = []
    for piece in pieces:
        values = [resolved.sign * (phi(resolved.family, p) - resolved.c) for p in piece.current()]
        if all(v <= 0 for v in values):
            staying.append(piece)
        elif all(v >= 0 for v in values):
            moving.append(piece)
        else:  # the line crosses it: split the flat polygon (values are affine in the flat point too)
            staying.append(Piece(_clip(piece.polygon, values, -1), piece.iso, piece.layer))
            moving.append(Piece(_clip(piece.polygon, values, 1), piece.iso, piece.layer))
    layers = [p.layer for p in pieces]
    top, bottom = max(layers), min(layers)
    hi = max(p.layer for p in moving)
    lo = min(p.layer for p in moving)
    moved = []
    for piece in moving:  # reversed order, all above (front) or all below (back) the others
        layer = top + 1 + (hi - piece.layer) if fold.front else bottom - 1 - (piece.layer - lo)
        moved.append(Piece(piece.polygon, rho.after(piece.iso), layer))
    return _restack(staying + moved)


@lru_cache(maxsize=8)
def _rigid_polygons(rigid_pieces: tuple) -> tuple[tuple[Point, ...], ...]:
    """Exact, counter-clockwise copies of a preset's pieces (cached: presets pass one tuple)."""
    polygons = []
    for poly in rigid_pieces:
        poly = tuple((Q(x), Q(y)) for x, y in poly)
        polygons.append(poly if _signed_area2(poly) > 0 else poly[::-1])
    return tuple(polygons)


def _initial_pieces(item: SheetItem, rigid_pieces: Sequence[Sequence[Point]] | None) -> list[Piece]:
    if rigid_pieces is None:
        cols, rows = Q(item.sheet.cols), Q(item.sheet.rows)
        polygons = (((Q(0), Q(0)), (cols, Q(0)), (cols, rows), (Q(0), rows)),)
    else:
        polygons = _rigid_polygons(tuple(tuple(tuple(p) for p in poly) for poly in rigid_pieces))
    return [Piece(poly, IDENTITY, 0) for poly in polygons]


def reference_pieces(item: SheetItem, upto: int | None = None, rigid_pieces=None) -> RefState:
    """The paper after the first `upto` actions (all when None): pieces, view, resolved folds. A
    fold that cannot be made stops the walk: the state is the one before it, with the status,
    reason and 1-based step set."""
    pieces = _initial_pieces(item, rigid_pieces)
    centre = (Q(item.sheet.cols, 2), Q(item.sheet.rows, 2))
    view = IDENTITY
    folds: list[ResolvedFold | None] = []
    actions = item.actions if upto is None else item.actions[:upto]
    for step, action in enumerate(actions, 1):
        if isinstance(action, Rotate):
            turn = rotation_about(centre, action.quarters)
            pieces = [Piece(p.polygon, turn.after(p.iso), p.layer) for p in pieces]
            view = turn.after(view)
            folds.append(None)
        elif isinstance(action, Flip):
            flip = flip_across(centre[0])
            pieces = _restack([Piece(p.polygon, flip.after(p.iso), -p.layer) for p in pieces])
            view = flip.after(view)
            folds.append(None)
        else:
            try:
                resolved = resolve_fold(action, pieces, rigid_pieces is not None)
            except _NotRealizable as err:
                reason = f"action {step} (fold along {action.line.describe()}) is not realizable: {err}"
                return RefState(tuple(pieces), view, tuple(folds), STATUS_NOT_REALIZABLE, reason, step)
            pieces = _apply_fold(pieces, action, resolved)
            folds.append(resolved)
    return RefState(tuple(pieces), view, tuple(folds))


def viewed_corner(item: SheetItem, view: Iso) -> Point:
    """The bottom-left corner of the viewed sheet V([0, cols] x [0, rows]): the result frame's origin."""
    cols, rows = Q(item.sheet.cols), Q(item.sheet.rows)
    corners = [view.apply((x, y)) for x in (Q(0), cols) for y in (Q(0), rows)]
    return min(p[0] for p in corners), min(p[1] for p in corners)


def reference_simulate(item: SheetItem, rigid_pieces=None) -> RefResult:
    """Fold, punch and unfold one item exactly (docs/engine.md). `rigid_pieces`: the preset's
    initial pieces as Fraction polygons in sheet coordinates (origin bottom-left); a fold that would
    cut one is not realizable. Statuses: "ok", "not_realizable" (failed_step: the action),
    "off_paper" (failed_step: the 1-based punch)."""
    state = reference_pieces(item, rigid_pieces=rigid_pieces)
    if state.status != STATUS_OK:
        return RefResult(state.status, state.reason, state.failed_step)
    view = state.view
    ox, oy = viewed_corner(item, view)
    holes: list[PointHole] = []
    layers_under: list[int] = []
    for index, punch in enumerate(item.punches, 1):
        p = (punch.x, punch.y)
        hits = [piece for piece in state.pieces if piece.contains(p)]
        if not hits:
            reason = f"punch {index} at ({punch.x}, {punch.y}) is not over the folded paper"
            return RefResult(STATUS_OFF_PAPER, reason, index)
        layers_under.append(len({piece.layer for piece in hits}))
        topmost: dict[Point, Piece] = {}  # preimage -> the topmost hit piece there
        for piece in hits:
            u = piece.iso.inverse().apply(p)
            if u not in topmost or piece.layer > topmost[u].layer:
                topmost[u] = piece
        for u, piece in topmost.items():
            h = view.after(piece.iso.inverse())
            x, y = view.apply(u)
            holes.append(PointHole(x - ox, y - oy, punch.shape, punch.size,
                                   map_direction(h, punch.direction), mirrored=h.det == -1))
    return RefResult(STATUS_OK, "", None, tuple(sorted(holes)), tuple(layers_under))


def reference_batch(items: Sequence[SheetItem], rigid_pieces=None) -> list[RefResult]:
    """`reference_simulate` over a list: the `simulate_fn(items)` shape the property tests take."""
    return [reference_simulate(item, rigid_pieces) for item in items]
