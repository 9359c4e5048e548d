"""An independent check of the cube-net engine: a cube rolled under the net, cell by cell.

Pure Python with exact integer tuples; it shares nothing with `foldsim.kernels.nets` but the input
type (`foldsim.nets.Net`, read through its cells, labels, patterns and hinges). Where the engine
composes each face's pose from its parent's in the net's frame (rotation about the flat hinge edge,
multiplied on the right), this rolls a physical cube: it starts under the root, and crossing a hinge
in direction d it turns a quarter turn about that edge in the world frame (multiplied on the left),
so the side that faced d comes up against the next cell. The cube's own frame is the world frame
at the root, so its sides are named as the engine's (docs/nets.md states the conventions; this file
writes its tables out again rather than importing them).

Only hinges of +1 quarter turn (printed side out, a cube net) can be rolled; others are refused.
"""

from __future__ import annotations

import functools
import itertools
from collections import deque
from dataclasses import dataclass

Vector = tuple[int, int, int]
Matrix = tuple[Vector, Vector, Vector]  # rows

X, Y, Z = (1, 0, 0), (0, 1, 0), (0, 0, 1)
#: side name -> (outward normal, up), as the engine's convention states them
SIDES: dict[str, tuple[Vector, Vector]] = {
    "+x": (X, Y), "-x": ((-1, 0, 0), Y), "+y": (Y, (0, 0, -1)), "-y": ((0, -1, 0), Z), "+z": (Z, Y), "-z": ((0, 0, -1), Y)}
#: the view sides in the viewer's frame: name -> (normal, up)
VIEW = (("front", Z, Y), ("top", Y, (0, 0, -1)), ("right", X, Y))


def neg(v: Vector) -> Vector:
    return (-v[0], -v[1], -v[2])


def dot(a: Vector, b: Vector) -> int:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vector, b: Vector) -> Vector:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def apply(m: Matrix, v: Vector) -> Vector:
    return (dot(m[0], v), dot(m[1], v), dot(m[2], v))


def transpose(m: Matrix) -> Matrix:
    return tuple(zip(*m))  # type: ignore[return-value]


def multiply(a: Matrix, b: Matrix) -> Matrix:
    columns = transpose(b)
    return tuple(tuple(dot(row, col) for col in columns) for row in a)  # type: ignore[return-value]


IDENTITY: Matrix = (X, Y, Z)


def quarter_turn(axis: Vector) -> Matrix:
    """The rotation by 90 degrees counter-clockwise about a unit axis: v -> (a.v) a + a x v."""
    columns = []
    for e in IDENTITY:
        along = dot(axis, e)
        turned = cross(axis, e)
        columns.append(tuple(along * a + t for a, t in zip(axis, turned)))
    return transpose(tuple(columns))  # type: ignore[arg-type]


def turn_ccw(vector: Vector, normal: Vector, quarters: int) -> Vector:
    """`vector` turned `quarters` quarter turns counter-clockwise about `normal`."""
    for _ in range(quarters % 4):
        vector = cross(normal, vector)
    return vector


def quarters_between(vector: Vector, normal: Vector, up: Vector) -> int:
    """How many quarter turns counter-clockwise about `normal` take `up` to `vector`."""
    return next(k for k in range(4) if turn_ccw(up, normal, k) == vector)


def side_of(normal: Vector) -> str:
    return next(name for name, (n, _) in SIDES.items() if n == normal)


def cube_rotations() -> list[Matrix]:
    """The 24 proper rotations of the cube: signed permutation matrices of determinant +1."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            rows = tuple(tuple(signs[r] if c == perm[r] else 0 for c in range(3)) for r in range(3))
            if dot(rows[0], cross(rows[1], rows[2])) == 1:
                out.append(rows)
    return out


@functools.cache
def orientation(index: int) -> Matrix:
    """Orientation 4 s + k (sides in the order +x, -x, +y, -y, +z, -z): the rotation that brings
    side s to the front with its up turned k quarter turns counter-clockwise from screen-up."""
    normal, up = list(SIDES.values())[index // 4]
    screen_up = turn_ccw(Y, Z, index % 4)
    return next(g for g in cube_rotations() if apply(g, normal) == Z and apply(g, up) == screen_up)


@dataclass(frozen=True)
class Rolled:
    """What rolling found: the reason (the engine's names), each face's side (None: not reached),
    its pattern's turn on that side, the opposite-face map and the 24 views (label, turn, mirror)."""

    reason: str
    sides: tuple[str | None, ...]
    turns: tuple[int, ...]
    opposite: dict[str, str]
    views: tuple[tuple[tuple[str | None, int, bool], ...], ...]


def roll_frames(net) -> list[Matrix | None]:
    """The cube's frame (cube -> world, rows) when it lies under each face, None where the hinges
    do not reach: breadth-first from the root over the hinges, one roll per hinge."""
    links: dict[int, list[int]] = {i: [] for i in range(len(net.cells))}
    for hinge in net.hinges:
        if hinge.turn != 1:
            raise ValueError("the rolling reference folds only +1 quarter-turn hinges (cube nets)")
        links[hinge.a].append(hinge.b)
        links[hinge.b].append(hinge.a)
    frames: list[Matrix | None] = [None] * len(net.cells)
    frames[0] = IDENTITY
    queue = deque([0])
    while queue:
        face = queue.popleft()
        for other in links[face]:
            if frames[other] is None:
                dx, dy = net.cells[other][0] - net.cells[face][0], net.cells[other][1] - net.cells[face][1]
                roll = quarter_turn(cross((dx, dy, 0), Z))  # the side facing (dx, dy) comes up
                frames[other] = multiply(roll, frames[face])
                queue.append(other)
    return frames


def roll(net, orientations=range(24)) -> Rolled:
    """Roll a cube under `net` (a foldsim.nets.Net with +1 hinges) and read everything off (the
    views of the orientations asked for, all 24 by default)."""
    frames = roll_frames(net)
    sides, pattern_ups = [], []
    for frame, pattern in zip(frames, net.patterns):
        if frame is None:
            sides.append(None)
            pattern_ups.append(None)
            continue
        to_cube = transpose(frame)
        sides.append(side_of(apply(to_cube, Z)))  # the cube side touching the cell: world +z
        pattern_ups.append(apply(to_cube, turn_ccw(Y, Z, pattern.turn)))
    turns = tuple(quarters_between(up, *SIDES[s]) if s else 0 for s, up in zip(sides, pattern_ups))
    reason = _reason(net, sides)
    by_side: dict[str, int] = {}
    for face, side in enumerate(sides):
        if side is not None and side not in by_side:
            by_side[side] = face
    opposite = {}
    for face, side in enumerate(sides):
        other = side_of(neg(SIDES[side][0])) if side else None
        if other in by_side:
            opposite[net.labels[face]] = net.labels[by_side[other]]
    views = []
    for index in orientations:
        g = orientation(index)
        shown = []
        for _, view_normal, view_up in VIEW:
            side = next(name for name, (n, _) in SIDES.items() if apply(g, n) == view_normal)
            face = by_side.get(side)
            if face is None:
                shown.append((None, 0, False))
                continue
            seen = quarters_between(apply(g, pattern_ups[face]), view_normal, view_up)
            shown.append((net.labels[face], seen, net.patterns[face].mirror))
        views.append(tuple(shown))
    return Rolled(reason, tuple(sides), turns, opposite, tuple(views))


def _reason(net, sides: list[str | None]) -> str:
    if len(net.cells) != 6:
        return "count"
    if None in sides:
        return "disconnected"
    index = {cell: i for i, cell in enumerate(net.cells)}
    for i, (x, y) in enumerate(net.cells):
        for j in (index.get((x + 1, y)), index.get((x, y + 1))):
            if j is not None and sides[i] == sides[j]:
                return "folds_into"
    if len(set(sides)) < 6:
        return "two_on_one_side"
    return "valid"


def view(net, orientation_index: int) -> tuple[tuple[str | None, int, bool], ...]:
    """One view of one net, rolled from scratch (the per-item loop the benchmark times)."""
    return roll(net, (orientation_index,)).views[0]
