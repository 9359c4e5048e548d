"""An independent exact reading of fold-and-cut (docs/cutting.md), the oracle `foldsim.cutfold`
is checked against. It shares only the input type (`CutItem`) with the engine.

It never builds cut-out regions. It answers, for one point q of the flat sheet, "is q cut out?" by
folding q forward exactly: at each fold q's current position is tested against the directed line
(left: stays, right: reflected across it), and at the end the position is tested against the cut
polygons. The paper is tracked only as **classes** of points that every fold so far treated alike
(each class: its isometry as a 3x3 rational matrix and its flat region as convex pieces: the
sheet cut into trapezoids by horizontal lines through its vertices, then clipped one plane at a
time), ordered bottom to top by the stacking rule; the regions serve only the box-relative lines
and whether a fold leaves paper on both sides.

On a convex sheet every class is one connected layer, so the top n classes are the top n layers;
on a non-convex sheet a class may be several layers, so a partial fold there is outside this
reference (`supported` says so). Whether a partial fold tears the paper is the engine's
judgement, checked by hand-worked cases, not here.

The answer for q is True (cut out), False (not), or None when q's fate is a matter of boundaries:
q on the sheet's edge, on a fold line when it is folded, or on a cut shape's edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .cutfold import RATE_KINDS, CutItem

Q = Fraction
Matrix = tuple[Fraction, ...]  # 3x3 row-major affine, last row (0, 0, 1)
Pt = tuple[Fraction, Fraction]

_ID: Matrix = (Q(1), Q(0), Q(0), Q(0), Q(1), Q(0), Q(0), Q(0), Q(1))


def _mul(a: Matrix, b: Matrix) -> Matrix:
    return tuple(sum(a[3 * i + k] * b[3 * k + j] for k in range(3)) for i in range(3) for j in range(3))


def _map(m: Matrix, p: Pt) -> Pt:
    return (m[0] * p[0] + m[1] * p[1] + m[2], m[3] * p[0] + m[4] * p[1] + m[5])


def _mirror(p1: Pt, p2: Pt) -> Matrix:
    """Reflection across the line p1 p2: p -> p1 + 2 proj_d(p - p1) - (p - p1)."""
    dx, dy = p2[0] - p1[0], p2[1] - p1[1]
    n = dx * dx + dy * dy
    a, b, d = 2 * dx * dx / n - 1, 2 * dx * dy / n, 2 * dy * dy / n - 1
    return (a, b, p1[0] - a * p1[0] - b * p1[1], b, d, p1[1] - b * p1[0] - d * p1[1], Q(0), Q(0), Q(1))


def _side(p1: Pt, p2: Pt, p: Pt) -> Fraction:
    """> 0 left of p1 -> p2 (stays), < 0 right (moves), 0 on the line."""
    return (p2[0] - p1[0]) * (p[1] - p1[1]) - (p2[1] - p1[1]) * (p[0] - p1[0])


def _sh_clip(poly: list[Pt], keep) -> list[Pt]:
    """One-plane Sutherland-Hodgman: the vertices where keep(p) >= 0 and the crossings."""
    out = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        s, t = keep(p), keep(q)
        if s >= 0:
            out.append(p)
        if s * t < 0:
            out.append((p[0] + (q[0] - p[0]) * s / (s - t), p[1] + (q[1] - p[1]) * s / (s - t)))
    return out


def _twice_area(poly: list[Pt]) -> Fraction:
    return sum((poly[i - 1][0] * p[1] - p[0] * poly[i - 1][1] for i, p in enumerate(poly)), Q(0))


def _strict_inside(p: Pt, poly) -> int:
    """+1 inside, 0 on the boundary, -1 outside: winding by signed crossings (its own test)."""
    winding = 0
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        if (p[1] < a[1] and p[1] < b[1]) or (p[1] > a[1] and p[1] > b[1]):
            continue  # the edge neither holds p nor crosses its rightward ray
        c = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        if c == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]):
            return 0
        if a[1] <= p[1] < b[1] and c > 0:
            winding += 1
        elif b[1] <= p[1] < a[1] and c < 0:
            winding -= 1
    return 1 if winding else -1


def _slabs(poly: list[Pt]) -> list[list[Pt]]:
    """A simple polygon cut into trapezoids by horizontal lines through its vertices: in each slab
    between two successive vertex heights, the edges that cross it sorted by x bound the inside
    in pairs (even-odd). Convex pieces, so one-plane clipping stays exact."""
    heights = sorted({p[1] for p in poly})
    edges = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    pieces = []
    for y0, y1 in zip(heights, heights[1:]):
        mid = (y0 + y1) / 2
        cuts = []
        for a, b in edges:
            if min(a[1], b[1]) < mid < max(a[1], b[1]):
                at = lambda y, a=a, b=b: a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1])  # noqa: E731
                cuts.append((at(mid), at(y0), at(y1)))
        cuts.sort()
        for (_, l0, l1), (_, r0, r1) in zip(cuts[::2], cuts[1::2]):
            corners = [(l0, y0), (r0, y0), (r1, y1), (l1, y1)]
            pieces.append([p for i, p in enumerate(corners) if p != corners[i - 1]])
    return pieces


@dataclass
class _Class:
    matrix: Matrix  # flat -> now
    region: list[list[Pt]]  # flat region: convex pieces (the sheet's trapezoids, clipped)


@dataclass(frozen=True)
class _Fold:
    p1: Pt
    p2: Pt
    first: int  # classes from this index up take part
    moved: tuple[int | None, ...]  # old class -> new index when its part on the right moves
    stayed: tuple[int | None, ...]  # old class -> new index of its part on the left
    mirror: Matrix


class ReferenceCut:
    """The item's folds resolved once; `hole(q)` then folds one point forward."""

    def __init__(self, item: CutItem):
        self.item = item
        sheet = [tuple(p) for p in item.sheet.vertices]
        self.sheet = sheet
        self.convex = all(_side(sheet[i - 1], sheet[i], sheet[(i + 1) % len(sheet)]) > 0 for i in range(len(sheet)))
        self.supported = self.convex or not any(f.layers is not None for step in item.steps for f in step)
        self.failed = ""
        classes = [_Class(_ID, _slabs(sheet))]
        self.folds: list[_Fold] = []
        for step in item.steps:
            for fold in step:
                p1, p2 = self._line(fold, classes)
                if p1 == p2:
                    self.failed = "no line"
                    return
                n = len(classes) if fold.layers is None else fold.layers
                if n > len(classes):
                    self.failed = "too few layers"
                    return
                first = len(classes) - n
                kept, stays, moves = classes[:first], [], []
                stayed: list[int | None] = list(range(first)) + [None] * n
                moved: list[int | None] = [None] * len(classes)
                for index in range(first, len(classes)):
                    cls = classes[index]
                    here = lambda u, cls=cls: _side(p1, p2, _map(cls.matrix, u))  # noqa: E731
                    left = [c for piece in cls.region if _twice_area(c := _sh_clip(piece, here)) > 0]
                    right = [c for piece in cls.region
                             if _twice_area(c := _sh_clip(piece, lambda u, here=here: -here(u))) > 0]
                    if left:
                        stayed[index] = first + len(stays)
                        stays.append(_Class(cls.matrix, left))
                    if right:
                        moves.append((index, _Class(_mul(_mirror(p1, p2), cls.matrix), right)))
                if not moves or not (kept or stays):
                    self.failed = "no paper on one side"
                    return
                base = first + len(stays)
                for k, (index, cls) in enumerate(reversed(moves)):
                    moved[index] = base + k
                classes = kept + stays + [cls for _, cls in reversed(moves)]
                self.folds.append(_Fold(p1, p2, first, tuple(moved), tuple(stayed), _mirror(p1, p2)))
        self.classes = classes

    def _line(self, fold, classes) -> tuple[Pt, Pt]:
        if fold.kind == "line":
            return fold.p1, fold.p2
        if fold.kind == "angle":
            xs, ys = [p[0] for p in self.sheet], [p[1] for p in self.sheet]
            w, h = max(xs) - min(xs), max(ys) - min(ys)
            return tuple((min(xs) + w * f[0], max(ys) - h * f[1]) for f in (fold.p1, fold.p2))
        placed = [_map(c.matrix, u) for c in classes for piece in c.region for u in piece]
        xs, ys = [p[0] for p in placed], [p[1] for p in placed]
        if fold.kind in RATE_KINDS[:2]:
            x = min(xs) + (max(xs) - min(xs)) * fold.rate
            if fold.snap is not None:  # half a step rounds up along x
                x = fold.snap * math.floor(x / fold.snap + Q(1, 2))
            a, b = (x, Q(0)), (x, Q(1))
            return (a, b) if fold.kind == "Hori_Left" else (b, a)
        y = max(ys) - (max(ys) - min(ys)) * fold.rate
        if fold.snap is not None:  # half a step rounds toward the screen's bottom: down here
            y = fold.snap * math.ceil(y / fold.snap - Q(1, 2))
        a, b = (Q(0), y), (Q(1), y)
        return (a, b) if fold.kind == "Vert_Top" else (b, a)

    def position(self, q: Pt) -> tuple[Pt, int] | None:
        """Where the flat point q lies after every fold, and its final class; None on a crease."""
        index, p = 0, q
        for fold in self.folds:
            if index >= fold.first:
                s = _side(fold.p1, fold.p2, p)
                if s == 0:
                    return None
                if s < 0:
                    index = fold.moved[index]
                    p = _map(fold.mirror, p)
                    continue
                index = fold.stayed[index]
            else:
                index = fold.stayed[index]
        return p, index

    def hole(self, q: Pt) -> bool | None:
        """True when q is cut out, False when not, None on a boundary (sheet edge, crease, cut edge)."""
        if _strict_inside(q, self.sheet) != 1:
            return None
        where = self.position(q)
        if where is None:
            return None
        p, _ = where
        tests = [_strict_inside(p, cut.polygon) for cut in self.item.cuts]
        if 1 in tests:
            return True
        return None if 0 in tests else False
