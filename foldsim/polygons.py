"""Exact plane geometry on rational polygons, and polygon sheets (docs/cutting.md).

Every coordinate is a `Fraction`; nothing here rounds. What the fold-and-cut engine
(`foldsim.cutfold`) needs and nothing more:

- a simple polygon (convex or not) read and checked once (`polygon_from_value`): at least 3 and at
  most MAX_VERTICES vertices, coordinates bounded, no repeated vertex, no spike, no two edges that
  cross or touch but at their shared corner, positive area; straight-angle vertices dropped and the
  order made counter-clockwise, so the region is the one stated and every later step may assume it;
- convex pieces: clipping by a half-plane and by a convex polygon, the difference of two convex
  polygons, exact ear-clipping triangulation of a simple polygon (its convex parts);
- connectivity of a set of convex pieces with disjoint interiors: two pieces join when edges of
  theirs overlap along one line in a segment of positive length; touching at a point does not join;
- `PolygonSheet` and PFP's named sheet shapes, their irrational vertices rounded to a stated grid.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .errors import InputError, describe
from .sheets import as_fraction

Point = tuple[Fraction, Fraction]
Polygon = tuple[Point, ...]

#: the most vertices one polygon (a sheet or a cut shape) may have: the simplicity check is
#: quadratic and triangulation cubic in the worst case, in exact arithmetic
MAX_VERTICES = 128
#: the largest |coordinate| and denominator an input vertex may have (PFP's frame is 360 pixels)
MAX_COORDINATE = 10**6
MAX_DENOMINATOR = 10**6

ZERO = Fraction(0)


# -- primitives ------------------------------------------------------------------------------------


def cross(o: Point, a: Point, b: Point) -> Fraction:
    """(a - o) x (b - o): > 0 when o, a, b turn counter-clockwise."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def area2(poly: Sequence[Point]) -> Fraction:
    """Twice the signed area (> 0 counter-clockwise), the shoelace sum."""
    n = len(poly)
    return sum((poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1] for i in range(n)), ZERO)


def area(poly: Sequence[Point]) -> Fraction:
    return abs(area2(poly)) / 2


def counter_clockwise(poly: Sequence[Point]) -> Polygon:
    poly = tuple(poly)
    return poly if area2(poly) >= 0 else poly[::-1]


def _on_segment(p: Point, a: Point, b: Point) -> bool:
    """p lies on the closed segment ab (collinearity assumed checked by the caller or here)."""
    return (cross(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))


def segments_meet(a: Point, b: Point, c: Point, d: Point) -> bool:
    """The closed segments ab and cd share at least one point."""
    d1, d2, d3, d4 = cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True
    return _on_segment(a, c, d) or _on_segment(b, c, d) or _on_segment(c, a, b) or _on_segment(d, a, b)


def drop_straight(poly: Sequence[Point]) -> Polygon:
    """The same region without vertices where the boundary runs straight on (collinear and between
    their neighbours) and without repeated consecutive points; spikes are kept for the caller."""
    out = list(poly)
    changed = True
    while changed and len(out) >= 3:
        changed = False
        for i in range(len(out)):
            prev, here, nxt = out[i - 1], out[i], out[(i + 1) % len(out)]
            if here == prev or (cross(prev, here, nxt) == 0 and _strictly_between(here, prev, nxt)):
                del out[i]
                changed = True
                break
    return tuple(out)


def _strictly_between(p: Point, a: Point, b: Point) -> bool:
    return (p[0] - a[0]) * (p[0] - b[0]) + (p[1] - a[1]) * (p[1] - b[1]) < 0


def is_convex(poly: Sequence[Point]) -> bool:
    """Counter-clockwise and every corner turns left (straight corners dropped beforehand)."""
    n = len(poly)
    return all(cross(poly[i - 1], poly[i], poly[(i + 1) % n]) > 0 for i in range(n))


def check_simple(poly: Polygon, what: str) -> None:
    """InputError unless the polygon is simple: no spike, no two edges that meet except adjacent
    edges at their shared corner. Quadratic in the vertices (bounded by MAX_VERTICES)."""
    n = len(poly)
    if len(set(poly)) != n:
        raise InputError("repeats a vertex (the boundary must not touch itself)", field=what)
    for i in range(n):
        if cross(poly[i - 1], poly[i], poly[(i + 1) % n]) == 0:  # drop_straight kept it: a spike
            raise InputError(f"turns back on itself at vertex {i + 1}", field=what)
    edges = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # adjacent through the closing corner
            if segments_meet(*edges[i], *edges[j]):
                raise InputError(f"is not simple: edges {i + 1} and {j + 1} meet", field=what)


def point_in_polygon(p: Point, poly: Sequence[Point]) -> int:
    """+1 strictly inside, 0 on the boundary, -1 outside (exact crossing count on a simple polygon)."""
    inside = False
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        if _on_segment(p, a, b):
            return 0
        if (a[1] > p[1]) != (b[1] > p[1]):
            x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if x > p[0]:
                inside = not inside
    return 1 if inside else -1


# -- convex pieces ----------------------------------------------------------------------------------


def _clip_raw(poly: Sequence[Point], a: Fraction, b: Fraction, c: Fraction) -> Polygon:
    """One-plane clipping of a convex polygon to a x + b y + c >= 0, without the final tidying: a
    crossing point is made only where an edge's ends lie strictly apart, so no point repeats."""
    values = [a * x + b * y + c for x, y in poly]
    if all(v >= 0 for v in values):
        return tuple(poly)  # wholly kept: nothing to cut (most calls)
    if all(v <= 0 for v in values):
        return ()
    out: list[Point] = []
    n = len(poly)
    for i in range(n):
        p, s = poly[i], values[i]
        q, t = poly[(i + 1) % n], values[(i + 1) % n]
        if s >= 0:
            out.append(p)
        if (s > 0 > t) or (s < 0 < t):
            k = s / (s - t)
            out.append((p[0] + (q[0] - p[0]) * k, p[1] + (q[1] - p[1]) * k))
    return tuple(out)


def _solid(poly: Sequence[Point]) -> Polygon:
    """The polygon without straight corners, or () when it has no area."""
    if len(poly) < 3:
        return ()
    tidy = drop_straight(poly)
    return tidy if len(tidy) >= 3 and area2(tidy) > 0 else ()


def clip_halfplane(poly: Sequence[Point], a: Fraction, b: Fraction, c: Fraction) -> Polygon:
    """The part of a convex counter-clockwise polygon where a x + b y + c >= 0, counter-clockwise;
    () when that part has no area."""
    out = _clip_raw(poly, a, b, c)
    return out if out is poly or out == tuple(poly) else _solid(out)


def edge_halfplane(p: Point, q: Point) -> tuple[Fraction, Fraction, Fraction]:
    """(a, b, c) with a x + b y + c >= 0 exactly on the left of p -> q (and on the line)."""
    a, b = p[1] - q[1], q[0] - p[0]
    return a, b, -(a * p[0] + b * p[1])


def clip_convex(poly: Sequence[Point], clipper: Sequence[Point]) -> Polygon:
    """poly ∩ clipper for convex counter-clockwise polygons; () when it has no area. The one with
    more vertices is clipped by the other's edges (fewer planes; the intersection is the same)."""
    if not _boxes_overlap(poly, clipper):
        return ()
    if len(clipper) > len(poly):
        poly, clipper = clipper, poly
    out: Polygon = tuple(poly)
    n = len(clipper)
    for i in range(n):
        out = _clip_raw(out, *edge_halfplane(clipper[i], clipper[(i + 1) % n]))
        if len(out) < 3:
            return ()
    return _solid(out)


def subtract_convex(poly: Sequence[Point], hole: Sequence[Point]) -> list[Polygon]:
    """poly \\ hole for convex counter-clockwise polygons, as convex pieces with disjoint interiors:
    the part outside the hole's first edge, then outside its second edge but inside the first, ..."""
    if not _boxes_overlap(poly, hole):
        return [tuple(poly)]
    pieces: list[Polygon] = []
    rest: Polygon = tuple(poly)
    n = len(hole)
    for i in range(n):
        a, b, c = edge_halfplane(hole[i], hole[(i + 1) % n])
        outside = clip_halfplane(rest, -a, -b, -c)
        if outside:
            pieces.append(outside)
        rest = clip_halfplane(rest, a, b, c)
        if not rest:
            break
    return pieces


def _boxes_overlap(p: Sequence[Point], q: Sequence[Point]) -> bool:
    return (min(x for x, _ in p) < max(x for x, _ in q) and min(x for x, _ in q) < max(x for x, _ in p)
            and min(y for _, y in p) < max(y for _, y in q) and min(y for _, y in q) < max(y for _, y in p))


def disjoint_convex(polys: Iterable[Sequence[Point]]) -> list[Polygon]:
    """The union of convex counter-clockwise polygons as convex pieces with disjoint interiors (each
    polygon less every earlier one), so areas add up exactly."""
    done: list[Polygon] = []
    for poly in polys:
        pieces = [tuple(poly)]
        for earlier in done[:]:
            pieces = [part for piece in pieces for part in subtract_convex(piece, earlier)]
            if not pieces:
                break
        done.extend(pieces)
    return done


def triangulate(poly: Polygon) -> list[Polygon]:
    """Ear clipping of a simple counter-clockwise polygon (straight corners dropped): an ear is a
    left-turning corner whose triangle holds no other vertex (closed test), which a simple polygon
    always has. Exact; at worst cubic in the vertices."""
    rest = list(poly)
    triangles: list[Polygon] = []
    while len(rest) > 3:
        n = len(rest)
        for i in range(n):
            a, b, c = rest[i - 1], rest[i], rest[(i + 1) % n]
            if cross(a, b, c) <= 0:
                continue
            tri = (a, b, c)
            if any(point_in_polygon(p, tri) >= 0 for p in rest if p not in tri):
                continue
            triangles.append(tri)
            del rest[i]
            rest = list(drop_straight(rest))
            break
        else:  # cannot happen for a checked simple polygon
            raise ValueError("no ear found: the polygon is not simple")
    if len(rest) == 3 and area2(rest) > 0:
        triangles.append(tuple(rest))
    return triangles


def convex_parts(poly: Polygon) -> list[Polygon]:
    """A checked counter-clockwise polygon as convex pieces: itself when convex, else its triangles."""
    return [poly] if is_convex(poly) else triangulate(poly)


# -- connectivity ------------------------------------------------------------------------------------


def _line_key(p: Point, q: Point) -> tuple[tuple[Fraction, Fraction, Fraction], bool]:
    """The supporting line of pq normalised (first non-zero of a, b is 1) and whether positions
    along it are read off x (else y)."""
    a, b, c = edge_halfplane(p, q)
    s = a if a != 0 else b
    return (a / s, b / s, c / s), q[0] != p[0]


def touching_edges(pieces: Sequence[Sequence[Point]]) -> list[tuple[int, int, int, int]]:
    """(i, edge of i, j, edge of j), i < j: two pieces whose edges lie on one line and overlap in a
    segment of positive length (edges bucketed by their normalised line, then swept along it)."""
    by_line: dict[tuple, list[tuple[Fraction, Fraction, int, int]]] = {}
    for index, poly in enumerate(pieces):
        n = len(poly)
        for k in range(n):
            p, q = poly[k], poly[(k + 1) % n]
            key, along_x = _line_key(p, q)
            s, t = (p[0], q[0]) if along_x else (p[1], q[1])
            by_line.setdefault(key, []).append((min(s, t), max(s, t), index, k))
    found: list[tuple[int, int, int, int]] = []
    for intervals in by_line.values():
        if len(intervals) < 2:
            continue
        intervals.sort()
        for i, (_, end, owner, edge) in enumerate(intervals):
            for other_start, _, other, other_edge in intervals[i + 1:]:
                if other_start >= end:
                    break
                if other != owner:
                    found.append((owner, edge, other, other_edge) if owner < other else (other, other_edge, owner, edge))
    return sorted(found)


def touching_pairs(pieces: Sequence[Sequence[Point]]) -> list[tuple[int, int]]:
    """Pairs (i, j) of pieces that share a segment of positive length of their boundaries."""
    return sorted({(i, j) for i, _, j, _ in touching_edges(pieces)})


def components(pieces: Sequence[Sequence[Point]]) -> list[list[int]]:
    """Indices of pieces grouped into connected components (joined across positive-length shared
    edges only), each sorted, in order of their first piece."""
    parent = list(range(len(pieces)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in touching_pairs(pieces):
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = {}
    for i in range(len(pieces)):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values())


def intersection_area(first: Sequence[Sequence[Point]], second: Sequence[Sequence[Point]]) -> Fraction:
    """Area of (∪ first) ∩ (∪ second) for two sets of convex pieces, each set with disjoint
    interiors. Two regions are the same exactly when this equals both their areas."""
    return sum((area(c) for p in first for q in second if (c := clip_convex(p, q))), ZERO)


def _turn_key(incoming: Point, outgoing: Point) -> tuple[int, Fraction, Fraction]:
    """Orders candidate directions by their counter-clockwise turn from `incoming`, (-π, π]: a
    half (left turns and the U-turn above) then, within it, exact comparison by cross products."""
    c = incoming[0] * outgoing[1] - incoming[1] * outgoing[0]
    d = incoming[0] * outgoing[0] + incoming[1] * outgoing[1]
    return (1 if c > 0 or (c == 0 and d < 0) else 0), c, d


def _sharper_left(incoming: Point, a: Point, b: Point) -> bool:
    """Whether direction a turns further counter-clockwise from `incoming` than b."""
    ha, hb = _turn_key(incoming, a)[0], _turn_key(incoming, b)[0]
    if ha != hb:
        return ha > hb
    return b[0] * a[1] - b[1] * a[0] > 0  # one half spans less than a turn: a lies counter-clockwise of b


def outline(pieces: Sequence[Sequence[Point]]) -> list[Polygon]:
    """The boundary of the union of convex counter-clockwise pieces with disjoint interiors, as
    rings: outer boundaries counter-clockwise, holes clockwise (the region on each ring's left).
    Edges are split where another piece's corner lies on them, segments walked both ways (inside
    the union) cancel, and the rest are chained, taking the sharpest left turn where rings touch
    at a point, so rings that touch stay apart."""
    by_line: dict[tuple, list[Fraction]] = {}
    edges = []
    for poly in pieces:
        for k in range(len(poly)):
            p, q = poly[k], poly[(k + 1) % len(poly)]
            key, along_x = _line_key(p, q)
            edges.append((p, q, key, along_x))
            by_line.setdefault(key, []).extend((p[0], q[0]) if along_x else (p[1], q[1]))
    segments: dict[tuple[Point, Point], int] = {}
    for p, q, key, along_x in edges:
        s, t = (p[0], q[0]) if along_x else (p[1], q[1])
        cuts = sorted({u for u in by_line[key] if min(s, t) < u < max(s, t)}, reverse=s > t)
        points = [p, *(_point_on(p, q, (u - s) / (t - s)) for u in cuts), q]
        for a, b in zip(points, points[1:]):
            if segments.get((b, a)):
                segments[(b, a)] -= 1
            else:
                segments[(a, b)] = segments.get((a, b), 0) + 1
    outgoing: dict[Point, list[Point]] = {}
    for (a, b), count in segments.items():
        for _ in range(count):
            outgoing.setdefault(a, []).append(b)
    rings = []
    for start in sorted(outgoing):
        while outgoing.get(start):
            ring, here, prev = [start], outgoing[start].pop(), start
            while here != start:
                ring.append(here)
                d_in = (here[0] - prev[0], here[1] - prev[1])
                options = outgoing[here]
                best = 0
                for i in range(1, len(options)):
                    d_i = (options[i][0] - here[0], options[i][1] - here[1])
                    d_best = (options[best][0] - here[0], options[best][1] - here[1])
                    if _sharper_left(d_in, d_i, d_best):
                        best = i
                prev, here = here, options.pop(best)
            rings.append(drop_straight(ring))
    return rings


def _point_on(p: Point, q: Point, k: Fraction) -> Point:
    return (p[0] + (q[0] - p[0]) * k, p[1] + (q[1] - p[1]) * k)


def bounding_box(points: Iterable[Point]) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(xmin, ymin, xmax, ymax)."""
    pts = list(points)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


# -- reading polygons ---------------------------------------------------------------------------------


def read_number(value: object, what: str) -> Fraction:
    """An exact number of a polygon item (a coordinate, a rate, a radius): foldsim's one number reader
    (`sheets.as_fraction`) with this engine's bounds, MAX_COORDINATE and MAX_DENOMINATOR."""
    return as_fraction(value, what, max_magnitude=MAX_COORDINATE, max_denominator=MAX_DENOMINATOR, unit="")





def polygon_from_value(value: object, what: str) -> Polygon:
    """A checked simple polygon from a list of [x, y] pairs (numbers or "p/q" strings): bounded
    before any geometry, straight corners dropped, counter-clockwise. InputError names `what`."""
    if not isinstance(value, (list, tuple)):
        raise InputError(f"must be a list of [x, y] points, got {describe(value)}", field=what)
    if not 3 <= len(value) <= MAX_VERTICES:
        raise InputError(f"must have 3 to {MAX_VERTICES} vertices, got {len(value)}", field=what)
    points = []
    for i, entry in enumerate(value):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise InputError(f"must be a point [x, y], got {describe(entry)}", field=f"{what}[{i}]")
        points.append((read_number(entry[0], f"{what}[{i}].x"), read_number(entry[1], f"{what}[{i}].y")))
    if len(set(points)) != len(points):
        raise InputError("repeats a vertex (the boundary must not touch itself)", field=what)
    poly = drop_straight(points)
    if len(poly) < 3:
        raise InputError("has no area (its vertices are collinear)", field=what)
    check_simple(poly, what)
    if area2(poly) == 0:  # a simple polygon always has area; kept as a guard
        raise InputError("has no area", field=what)
    return counter_clockwise(poly)


# -- sheets ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolygonSheet:
    """A sheet of paper: a checked simple polygon (counter-clockwise, exact), x right, y up.
    `name` and `rounding` record where it came from (a preset and the grid its irrational vertices
    were rounded to); the answer is exact for `vertices` as stated."""

    vertices: Polygon
    name: str = "polygon"
    rounding: str = ""
    parts: tuple[Polygon, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        checked = polygon_from_value([list(p) for p in self.vertices], "sheet.vertices")
        object.__setattr__(self, "vertices", checked)
        object.__setattr__(self, "parts", tuple(convex_parts(checked)))
        for name in ("name", "rounding"):
            value = getattr(self, name)
            if not isinstance(value, str) or len(value) > 200:
                raise InputError(f"must be a short text, got {describe(value)}", field=f"sheet.{name}")

    @property
    def area(self) -> Fraction:
        return area(self.vertices)

    def to_record(self) -> dict:
        record = {"name": self.name, "vertices": [[str(x), str(y)] for x, y in self.vertices]}
        if self.rounding:
            record["rounding"] = self.rounding
        return record


def sheet_from_record(value: object) -> PolygonSheet:
    """{"vertices": [[x, y], ...], "name"?, "rounding"?} or {"preset": NAME, "grid"?}."""
    if not isinstance(value, Mapping):
        raise InputError(f"must be an object, got {describe(value)}", field="sheet")
    if "preset" in value and "vertices" not in value:
        grid = read_number(value.get("grid", 1), "sheet.grid")
        return preset_sheet(value["preset"], grid)
    if "vertices" not in value:
        raise InputError("needs 'vertices' or 'preset'", field="sheet")
    vertices = polygon_from_value(value["vertices"], "sheet.vertices")
    return PolygonSheet(vertices, value.get("name", "polygon"), value.get("rounding", ""))


# -- PFP's sheet shapes -------------------------------------------------------------------------------
# In PFP's 360-pixel frame turned to foldsim's (x right, y UP): (x, y_screen) -> (x, 360 - y_screen).
# The picture is the same; "left of P1 -> P2" as seen stays left. Reference: §1.2.

PFP_FRAME = 360
_EXACT = {
    "square": [(0, 0), (360, 0), (360, 360), (0, 360)],
    "rectangle": [(0, 45), (360, 45), (360, 315), (0, 315)],
    "house": [(180, 0), (0, 80), (0, 280), (360, 280), (360, 80)],
    "diamond": [(180, 0), (300, 180), (180, 360), (60, 180)],
    "parallelogram": [(0, 60), (300, 60), (330, 300), (30, 300)],
    "trapezoid": [(60, 0), (300, 0), (360, 360), (0, 360)],
}
#: regular shapes: (vertex count, circumradius) about (180, 180), first vertex at the top
_REGULAR = {"hexagon": (6, 180), "pentagon": (5, 180), "octagon": (8, 180), "triangle": (3, 180),
            "circle": (36, 180)}
#: PFP's 13 sheet types in its enum order ("irregular_heptagon": jittered by .NET's System.Random(42))
PFP_SHEETS = ("square", "hexagon", "pentagon", "octagon", "triangle", "rectangle", "house", "circle",
              "diamond", "parallelogram", "trapezoid", "star", "irregular_heptagon")


def round_to_grid(value: float, grid: Fraction) -> Fraction:
    """The multiple of `grid` nearest to a float (ties away from zero: round-half-up on |value|)."""
    steps = Fraction(value) / grid
    whole = math.floor(abs(steps) + Fraction(1, 2))
    return grid * (whole if steps >= 0 else -whole)


def _screen_to_up(points: Iterable[tuple[object, object]]) -> list[Point]:
    return [(Fraction(x), PFP_FRAME - Fraction(y)) for x, y in points]


def star_screen_points(outer: float = 180, inner: float = 120) -> list[tuple[float, float]]:
    """PFP's 5-point star: radii alternating outer/inner, first at the top, 36° apart (screen frame)."""
    return [(180 + r * math.cos(math.radians(-90 + 36 * i)), 180 + r * math.sin(math.radians(-90 + 36 * i)))
            for i, r in enumerate([outer, inner] * 5)]


def regular_screen_points(sides: int, radius: float) -> list[tuple[float, float]]:
    """A regular polygon about (180, 180), first vertex at the top (screen frame, y down)."""
    return [(180 + radius * math.cos(math.radians(-90 + 360 * i / sides)),
             180 + radius * math.sin(math.radians(-90 + 360 * i / sides))) for i in range(sides)]


def heptagon_screen_points(radius: float = 180, irregularity: float = 0.3) -> list[tuple[float, float]]:
    """PFP's irregular heptagon (screen frame): seven vertices about (180, 180) whose angles and radii
    are jittered by .NET's `Random(42)` (two NextDouble draws a vertex: the angle's, then the
    radius's), computed in single precision as PFP's C# does (its floats; doubles only where it
    writes Math.PI, Math.Cos and Math.Sin)."""
    import numpy as np

    from .dotnet_random import DotNetRandom

    f32 = np.float32
    draws = DotNetRandom(42)
    step = f32(math.pi * 2 / 7)
    points = []
    for i in range(7):
        offset = f32(draws.next_double() * 2 - 1) * f32(irregularity) * step / f32(2)
        angle = f32(float(f32(i) * step + offset) - math.pi / 2)
        scale = f32(1) + f32(draws.next_double() * 2 - 1) * f32(irregularity) / f32(2)
        r = f32(radius) * scale
        points.append((float(f32(180) + r * f32(math.cos(float(angle)))),
                       float(f32(180) + r * f32(math.sin(float(angle))))))
    return points


def preset_sheet(name: object, grid: Fraction = Fraction(1)) -> PolygonSheet:
    """One of PFP's sheet shapes in foldsim's frame. Shapes with irrational vertices (the regular
    ones, the 36-gon circle, the star) have them rounded to the nearest multiple of `grid` (PFP
    pixels; grid 1 = whole pixels), recorded in the sheet's `rounding`."""
    if not isinstance(name, str) or name not in PFP_SHEETS:
        raise InputError(f"must be one of {', '.join(PFP_SHEETS)}, got {describe(name)}", field="sheet.preset")
    if not isinstance(grid, Fraction) or grid <= 0 or grid.denominator > 1000 or grid > 60:
        raise InputError(f"must be a positive step of at most 60 pixels, denominator at most 1000, got "
                         f"{describe(grid)}", field="sheet.grid")
    if name in _EXACT:
        return PolygonSheet(tuple(_screen_to_up(_EXACT[name])), name)
    if name == "irregular_heptagon":
        floats = heptagon_screen_points()
    else:
        floats = star_screen_points() if name == "star" else regular_screen_points(*_REGULAR[name])
    rounded = [(round_to_grid(x, grid), round_to_grid(y, grid)) for x, y in floats]
    return PolygonSheet(tuple(_screen_to_up(rounded)), name,
                        f"PFP {name}: vertices rounded to the nearest multiple of {grid} pixel")
