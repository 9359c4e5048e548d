"""The geometry of a general item's pictures, shared by the 3-D animation (render/items.py) and
the 2-D images (render/item_images.py): pure NumPy on the engine's exact history
(`foldsim.engine.trace_item`), no renderer.

Coordinates are *centred cell units* (cell units minus (cols/2, rows/2)): the frame in which the
engine's rotations and flips turn about the origin. Lattice units are the engine's (X = 2r x - r
cols): placements and crease values are exact integers there.

A punch's cuts: its outline (`shapes.outline_polygons`, about the punch point in the final folded
frame) clipped to every placed triangle of every layer the point goes through, carried back to
that triangle's flat place: exactly where the punch cut each layer, so a punch on a crease opens
one hole across it, and no cut strays onto paper that lies elsewhere mid-fold.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engine import ItemTrace, failure_reason, trace_item
from ..errors import InputError
from ..kernels import engine as E
from ..kernels import motion as M
from ..sheets import SIDE_SIGNS, Flip, Rotate, SheetItem
from .shapes import Cut, outline_polygons

#: the direction along each family's line (normals H (0, 1), V (1, 0), D (-1, 1), N (1, 1))
LINE_DIRECTIONS = np.array([[1, 0], [0, 1], [1, 1], [1, -1]], np.int64)
LINE_NORMALS = np.array(E.NORMALS, np.int64)
FAMILY_WORDS = {"H": "y", "V": "x", "D": "y - x", "N": "x + y"}


# -- the item and its history ----------------------------------------------------------------------


def item_trace(item: SheetItem | ItemTrace | dict) -> ItemTrace:
    """The history of a renderable item: InputError (naming the item) for one that cannot be read,
    a fold that is not realizable, or a punch over no paper (there is no true picture to draw)."""
    trace = item if isinstance(item, ItemTrace) else trace_item(item)
    code, step, detail = trace.status
    if code != E.OK:
        raise InputError(f"cannot render: {failure_reason(trace.item, code, step, detail)}", item=trace.item.id)
    for p, punch in enumerate(trace.item.punches):
        if not punch_hits(trace, p).any():
            raise InputError(f"cannot render: {failure_reason(trace.item, E.OFF_PAPER, p, -1)}", item=trace.item.id)
    return trace


def centre_of(trace: ItemTrace) -> np.ndarray:
    return np.array([trace.item.sheet.cols, trace.item.sheet.rows], np.float64) / 2


def placed_lattice(trace: ItemTrace, k: int) -> np.ndarray:
    """int64[T, 3, 2]: the triangles after k actions in lattice units (exact)."""
    linear = np.asarray(trace.states.linear[k], np.int64)
    return np.einsum("tij,tvj->tvi", linear, np.asarray(trace.mesh, np.int64)) + np.asarray(
        trace.states.shift[k], np.int64)[:, None, :]


def punch_lattice(trace: ItemTrace, p: int) -> tuple[np.ndarray, int]:
    """(int64[2] X, D): punch p at (X / D) in lattice units."""
    punch, r = trace.item.punches[p], trace.resolution
    x = 2 * r * punch.x - r * trace.item.sheet.cols
    y = 2 * r * punch.y - r * trace.item.sheet.rows
    d = int(np.lcm(x.denominator, y.denominator))
    return np.array([int(x * d), int(y * d)], np.int64), d


def punch_hits(trace: ItemTrace, p: int) -> np.ndarray:
    """bool[T]: the closed triangles of the final state that hold punch p (exact, as the kernel)."""
    vertices = placed_lattice(trace, len(trace.item.actions))
    point, d = punch_lattice(trace, p)
    edge = np.roll(vertices, -1, axis=1) - vertices
    rel = point[None, None, :] - d * vertices
    cross = edge[..., 0] * rel[..., 1] - edge[..., 1] * rel[..., 0]
    return (cross >= 0).all(-1) | (cross <= 0).all(-1)


def crease_pieces(trace: ItemTrace, k: int) -> np.ndarray | None:
    """float[K, 2, 2]: where fold k's flap hinges, in centred cell units of the state before it: the
    edges of its moving triangles that lie on the line, merged into pieces (more than one where the
    paper along the line has gaps). None for rotations and flips."""
    family = int(trace.steps.family[k])
    if family < 0:
        return None
    value = int(trace.steps.value[k])
    normal, direction = LINE_NORMALS[family], LINE_DIRECTIONS[family]
    vertices = placed_lattice(trace, k)[np.asarray(trace.steps.moving[k], bool)]  # [m, 3, 2]
    on = (vertices @ normal) == value  # [m, 3]
    spans = []
    for a, b in ((0, 1), (1, 2), (2, 0)):
        both = on[:, a] & on[:, b]
        ta, tb = vertices[both, a] @ direction, vertices[both, b] @ direction
        spans += list(zip(np.minimum(ta, tb).tolist(), np.maximum(ta, tb).tolist()))
    if not spans:
        return None
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    # a point of the line: value * n / |n|^2, plus t * direction / |direction|^2
    base = value * normal / float(normal @ normal)
    unit = direction / float(direction @ direction)
    pieces = np.array([[base + lo * unit, base + hi * unit] for lo, hi in merged])
    return pieces / (2.0 * trace.resolution)


def view_transforms(trace: ItemTrace, layer_gap: float = M.LAYER_GAP) -> list[np.ndarray]:
    """float[4, 4] per action: how it maps the 3-D paper when it is a rotation (a turn about the
    z axis) or a flip (x -> -x and z -> top - z, the top the layer gap times the stack's highest
    layer), the identity for a fold. Composed from action i + 1 on, they take a state shown before
    those actions to the frame of the end (`after`)."""
    out = []
    for k, action in enumerate(trace.item.actions):
        matrix = np.eye(4)
        if isinstance(action, (Rotate, Flip)):
            matrix[:2, :2] = np.asarray(trace.steps.linear[k], np.float64)
        if isinstance(action, Flip):
            matrix[2, 2] = -1.0
            matrix[2, 3] = layer_gap * float(np.asarray(trace.states.layer[k]).max())
        out.append(matrix)
    return out


def after(transforms: Sequence[np.ndarray], k: int) -> np.ndarray:
    """float[4, 4]: the rotations and flips after action k composed (k = -1: all of them, the view)."""
    matrix = np.eye(4)
    for transform in transforms[k + 1:]:
        matrix = transform @ matrix
    return matrix


def circle_outline(point: np.ndarray, radius: float, points: int = 48) -> list[np.ndarray]:
    """A circle of `radius` about `point` as one polygon (what a family draws every hole as)."""
    angles = np.linspace(0.0, 2 * np.pi, points, endpoint=False)
    return [np.asarray(point, np.float64) + radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)]


def item_cuts(trace: ItemTrace, *, folded: bool = False, radius: float | None = None) -> list[Cut]:
    """Every cut every punch makes, on the flat sheet (centred cell units): the punch's outline about
    its point in the final frame, clipped to each placed triangle of each layer the point goes
    through (the triangles sharing a hit triangle's layer and placement), carried back by that
    triangle's inverse placement. `folded`: the same cuts where they lie on the folded paper.
    `radius`: every punch a circle of that radius in cell units (a family's look, whose holes are
    all one size) instead of its own shape and size."""
    n = len(trace.item.actions)
    centre = centre_of(trace)
    two_r = 2.0 * trace.resolution
    placed = placed_lattice(trace, n) / two_r  # centred cell units
    linear = np.asarray(trace.states.linear[n], np.float64)
    shift = np.asarray(trace.states.shift[n], np.float64) / two_r
    layer = np.asarray(trace.states.layer[n])
    keys = np.c_[layer, np.asarray(trace.states.linear[n]).reshape(-1, 4), np.asarray(trace.states.shift[n])]
    cuts = []
    for p, punch in enumerate(trace.item.punches):
        point = np.array([float(punch.x), float(punch.y)]) - centre
        outline = (outline_polygons(punch.shape, punch.size, punch.direction, point) if radius is None
                   else circle_outline(point, radius))
        hit_keys = {tuple(key) for key in keys[punch_hits(trace, p)]}
        pieces = np.flatnonzero([tuple(key) in hit_keys for key in keys])
        for t in pieces:
            clipped = [q for q in (clip_convex(polygon, placed[t]) for polygon in outline) if len(q) >= 3]
            if not clipped:
                continue
            back = (lambda q: q) if folded else (lambda q: (q - shift[t]) @ linear[t])  # A^T (q - b), rows
            cuts.append(Cut(back(point), tuple(back(q) for q in clipped), p))
    return cuts


def clip_convex(polygon: np.ndarray, triangle: np.ndarray) -> np.ndarray:
    """float[N, 2]: `polygon` clipped to the convex `triangle` float[3, 2] (Sutherland-Hodgman)."""
    cross = lambda u, v: u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]  # noqa: E731
    corners = triangle if cross(triangle[1] - triangle[0], triangle[2] - triangle[0]) > 0 else triangle[::-1]
    out = np.asarray(polygon, np.float64)
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        if not len(out):
            break
        side = cross(b - a, out - a)  # >= 0: inside
        kept = []
        for i in range(len(out)):
            j = (i + 1) % len(out)
            if side[i] >= 0:
                kept.append(out[i])
            if (side[i] >= 0) != (side[j] >= 0):
                kept.append(out[i] + (out[j] - out[i]) * side[i] / (side[i] - side[j]))
        out = np.array(kept).reshape(-1, 2)
    return out


def result_hole_count(trace: ItemTrace, cuts: Sequence[Cut]) -> int:
    """Holes on the opened sheet: distinct (punch, preimage) pairs, as the engine counts them."""
    return len({(cut.hole, *np.round(cut.centre, 6)) for cut in cuts})


def extent(trace: ItemTrace) -> float:
    """The largest |x| or |y| of the paper in any state (centred cell units): what the camera frames."""
    return float(max(np.abs(placed_lattice(trace, k)).max() for k in range(len(trace.item.actions) + 1))
                 / (2.0 * trace.resolution))


def line_words(trace: ItemTrace, k: int) -> str:
    """"y = 2", "y - x = 1/2": fold k's line in cell units (origin at the sheet's bottom-left)."""
    name, value = trace.crease(k)
    return f"{FAMILY_WORDS[name]} = {value}"


def moving_side(trace: ItemTrace, k: int) -> str:
    """The named side of fold k's line that moved ("below", "upper left", ...)."""
    family = int(trace.steps.family[k])
    vertices = placed_lattice(trace, k)[np.asarray(trace.steps.moving[k], bool)]
    sign = 1 if (vertices @ LINE_NORMALS[family] - int(trace.steps.value[k])).sum() > 0 else -1
    named = SIDE_SIGNS["HVDN"[family]]
    return next(side for side, s in named.items() if s == sign).replace("_", " ")
