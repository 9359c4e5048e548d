"""A plain, one-item, pure-Python reading of SPEC §1-§4: the oracle the batched kernel is tested
against, and the baseline the benchmarks compare with.

It shares no geometry with the kernel on purpose: vertices are exact Fractions in sheet units, the
crease is a general line (point + direction), the reflection is the textbook formula, and the moving
side is found from the box corner or edge the fold type names. Slow by design; never on a hot path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction as Q

from .holes import Hole, direction_value

Point = tuple[Q, Q]
_OPPOSITE = {"H1": "H2", "H2": "H1", "V1": "V2", "V2": "V1", "D1": "D4", "D4": "D1", "D2": "D3", "D3": "D2"}
_QUARTER_TURN = {"H1": "V1", "H2": "V2", "V1": "H2", "V2": "H1", "D1": "D3", "D2": "D1", "D3": "D4", "D4": "D2"}


def flat_triangles() -> list[list[Point]]:
    """Vertices of grid triangles 1..32 (index = id - 1), sheet units, y up."""
    tris = []
    for row in range(4):
        for col in range(4):
            left, right, top, bottom = Q(col - 2), Q(col - 1), Q(2 - row), Q(1 - row)
            tl, tr, bl, br = (left, top), (right, top), (left, bottom), (right, bottom)
            if (row + col) % 2 == 0:
                tris += [[tl, bl, br], [tl, tr, br]]
            else:
                tris += [[tl, bl, tr], [bl, br, tr]]
    return tris


FLAT = flat_triangles()


def centroid(tri: Sequence[Point]) -> Point:
    return (sum(p[0] for p in tri) / 3, sum(p[1] for p in tri) / 3)


FLAT_CENTROIDS = [centroid(t) for t in FLAT]


def rotate(p: Point, quarters: int) -> Point:
    x, y = p
    for _ in range(quarters % 4):
        x, y = -y, x
    return (x, y)


def reflect(p: Point, origin: Point, direction: Point) -> Point:
    """Mirror p across the line through `origin` along `direction`."""
    vx, vy = p[0] - origin[0], p[1] - origin[1]
    dx, dy = direction
    k = (vx * dx + vy * dy) / (dx * dx + dy * dy)
    return (origin[0] + 2 * k * dx - vx, origin[1] + 2 * k * dy - vy)


def side(p: Point, origin: Point, direction: Point) -> int:
    cross = direction[0] * (p[1] - origin[1]) - direction[1] * (p[0] - origin[0])
    return (cross > 0) - (cross < 0)


def crease_and_target(fold: str, box: tuple[Q, Q, Q, Q]) -> tuple[Point, Point, Point]:
    """Crease (origin, direction) and a point on the moving side, for fold type H1..D4."""
    x0, x1, y0, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return {
        "H1": ((x0, cy), (Q(1), Q(0)), (cx, y1)),
        "H2": ((x0, cy), (Q(1), Q(0)), (cx, y0)),
        "V1": ((cx, y0), (Q(0), Q(1)), (x0, cy)),
        "V2": ((cx, y0), (Q(0), Q(1)), (x1, cy)),
        "D1": ((x0, y0), (x1 - x0, y1 - y0), (x0, y1)),
        "D4": ((x0, y0), (x1 - x0, y1 - y0), (x1, y0)),
        "D2": ((x0, y1), (x1 - x0, y0 - y1), (x1, y1)),
        "D3": ((x0, y1), (x1 - x0, y0 - y1), (x0, y0)),
    }[fold]


@dataclass
class ReferenceResult:
    status: str  # "ok", "not_realizable", "off_paper"
    step: int | None = None  # 0-based failing action (or punch) index
    holes: tuple[Hole, ...] = ()
    unfolding: tuple[str, ...] = ()


def unfolding_codes(codes: Sequence[str]) -> tuple[str, ...]:
    """SPEC §4 read literally: last fold first, turned by later rotations, opposite, same suffix."""
    out = []
    for i in reversed(range(len(codes))):
        if codes[i].startswith("R-"):
            continue
        fold, suffix = codes[i].split("-")
        turns = sum(int(c[2:]) // 90 for c in codes[i + 1 :] if c.startswith("R-"))
        for _ in range(turns % 4):
            fold = _QUARTER_TURN[fold]
        out.append(f"{_OPPOSITE[fold]}-{suffix}")
    return tuple(out)


def simulate_reference(codes: Sequence[str], holes: Sequence[Hole]) -> ReferenceResult:
    """Simulate one configuration given in canonical codes."""
    verts = [list(t) for t in FLAT]
    # images of the flat basis vectors under each triangle's placement (its linear part)
    basis = [[(Q(1), Q(0)), (Q(0), Q(1))] for _ in FLAT]
    theta = 0
    for step, code in enumerate(codes):
        if code.startswith("R-"):
            k = int(code[2:]) // 90
            theta += k
            verts = [[rotate(p, k) for p in tri] for tri in verts]
            basis = [[rotate(v, k) for v in b] for b in basis]
            continue
        fold = code.split("-")[0]
        xs = [p[0] for tri in verts for p in tri]
        ys = [p[1] for tri in verts for p in tri]
        box = (min(xs), max(xs), min(ys), max(ys))
        origin, direction, target = crease_and_target(fold, box)
        moving_side = side(target, origin, direction)
        signs = [{side(p, origin, direction) for p in tri} - {0} for tri in verts]
        if any(len(s) == 2 for s in signs):
            return ReferenceResult("not_realizable", step)
        if fold[0] == "D" and box[1] - box[0] != box[3] - box[2]:
            return ReferenceResult("not_realizable", step)
        moving = [s == {moving_side} for s in signs]
        if all(moving) or not any(moving):
            return ReferenceResult("not_realizable", step)
        zero = (Q(0), Q(0))
        for t, moves in enumerate(moving):
            if moves:
                verts[t] = [reflect(p, origin, direction) for p in verts[t]]
                basis[t] = [reflect(v, zero, direction) for v in basis[t]]
    result = []
    for p, hole in enumerate(holes):
        target = FLAT_CENTROIDS[hole.location - 1]
        layers = [t for t in range(32) if centroid(verts[t]) == target]
        if not layers:
            return ReferenceResult("off_paper", p, unfolding=unfolding_codes(codes))
        for t in layers:
            where = rotate(FLAT_CENTROIDS[t], theta)
            location = FLAT_CENTROIDS.index(where) + 1
            result.append(Hole(hole.shape, hole.size, direction_value(hole.shape, _turn(hole.quarter, basis[t], theta)), location))
    return ReferenceResult("ok", None, tuple(result), unfolding_codes(codes))


def _turn(quarter: int, basis: list[Point], theta: int) -> int:
    """Direction (quarter turns) of a hole punched at `quarter` through a layer whose placement has
    linear part `basis`, after unfolding in the frame turned by theta (h = R_θ ∘ g⁻¹)."""
    (a, c), (b, d) = basis  # columns of g's linear part
    inv = ((a, c), (b, d))  # g is orthogonal: g⁻¹ = gᵀ, rows = the columns of g
    h00 = float(rotate((inv[0][0], inv[1][0]), theta)[0])
    h10 = float(rotate((inv[0][0], inv[1][0]), theta)[1])
    det = a * d - b * c
    angle = round(math.degrees(math.atan2(h10, h00)) / 90)
    return (angle + quarter) % 4 if det > 0 else (angle + 2 - quarter) % 4
