"""FOLD files (edemaine/fold, spec 1.2) of general items: the crease pattern of the final state as
the key frame, one flat-folded frame after each action, the holes and the item under `foldsim:`
keys (docs/engine.md, "FOLD files"). The graph, the assignments and the document are built by
`foldsim.fold_document`, shared with the polygon sheets' files (`foldsim.cut_fold_file`).

Everything is computed from the engine's trace (`foldsim.engine.trace_item`) in exact integer
lattice units and turned into floats only when written:

- **faces** are the maximal edge-connected groups of mesh triangles that share the same final
  placement (linear part and shift). Folding a convex sheet along full lines keeps each group
  convex, so a face is the convex hull of its triangles (checked: hull area = triangles' area);
  every crease-pattern vertex that lies on a face's side is inserted there (T-junctions), so the
  faces and edges form one planar graph;
- an **edge** with one face is a border (B); between two faces it is a crease: unfolded (F) in a
  frame where both faces still have the same placement, else valley (V, +180°) when the face that
  lies face-down is stacked above the face-up one at the crease (their fronts meet), mountain
  (M, -180°) otherwise;
- **faceOrders** of a frame: two faces overlap iff some of their triangles land on the same mesh
  position (every placed triangle coincides with one); the triangles' layers order them, and
  [f, g, s] has s = +1 when f lies on g's normal side (g face-up and f above it, or g face-down and
  f below it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from .errors import InputError
from .fold_document import (FoldExportError, assignments, face_edges, face_order, fold_object, folded_vertices,
                            planar_faces)
from .sheets import Flip, Fold, Rotate, SheetItem, item_from_record, item_to_record

Lattice = tuple[int, int]


# -- the item -------------------------------------------------------------------------------------


def resolve_item(item: object, *, index: int | None = None) -> tuple[SheetItem, np.ndarray | None, str]:
    """(SheetItem, rigid mesh or None, what it is) of a SheetItem, a general record, or a
    MentalBlackboard Config / record ("foldingTypes", "initialHoles"; through the preset, on its 32
    rigid triangles)."""
    from .config import Config

    if isinstance(item, SheetItem):
        return item, None, "general"
    mentalblackboard = isinstance(item, Mapping) and "sheet" not in item and (
        "foldingTypes" in item or "initialHoles" in item)
    if isinstance(item, Mapping) and not mentalblackboard:
        return item_from_record(item, index=index), None, "general"
    if isinstance(item, (Config, Mapping)):
        from .presets import mentalblackboard_item

        config = item if isinstance(item, Config) else Config.from_record(item, index=index)
        return mentalblackboard_item(config), mentalblackboard_mesh(), "mentalblackboard"
    raise InputError(f"must be a general item record (with \"sheet\") or a MentalBlackboard record, got "
                     f"{type(item).__name__}", item=f"item {index}" if index is not None else None)


def mentalblackboard_mesh() -> np.ndarray:
    """The MentalBlackboard preset's 32 rigid triangles in lattice units (resolution 1: X = 2x - 4)."""
    from .presets import MB_RIGID_TRIANGLES, MB_SHEET

    tris = [[[int(2 * x - MB_SHEET.cols), int(2 * y - MB_SHEET.rows)] for x, y in t] for t in MB_RIGID_TRIANGLES]
    return np.asarray(tris, np.int32)


# -- exact geometry in lattice units --------------------------------------------------------------


def _cross(o: Lattice, a: Lattice, b: Lattice) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points: set[Lattice]) -> list[Lattice]:
    """The hull's corners counter-clockwise (collinear points dropped), monotone chain."""
    pts = sorted(points)
    if len(pts) < 3:
        return pts
    lower: list[Lattice] = []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[Lattice] = []
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def twice_area(polygon: list[Lattice]) -> int:
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(polygon, polygon[1:] + polygon[:1]))


def _apply(linear: np.ndarray, shift: np.ndarray, p: Lattice) -> Lattice:
    return (int(linear[0, 0] * p[0] + linear[0, 1] * p[1] + shift[0]),
            int(linear[1, 0] * p[0] + linear[1, 1] * p[1] + shift[1]))


# -- the crease pattern ---------------------------------------------------------------------------


class CreasePattern:
    """Faces, vertices and edges of a traced item's final state, in lattice units, with what every
    frame needs (placements, layers, one pair of triangles across every crease)."""

    def __init__(self, trace) -> None:
        self.trace = trace
        mesh = np.asarray(trace.mesh, np.int64)
        self.mesh = mesh
        n_states = trace.states.linear.shape[0]
        self.linear = np.asarray(trace.states.linear, np.int64)  # [S+1, T, 2, 2]
        self.shift = np.asarray(trace.states.shift, np.int64)  # [S+1, T, 2]
        self.layer = np.asarray(trace.states.layer, np.int64)  # [S+1, T]
        final = n_states - 1
        t_count = mesh.shape[0]
        keys = [tuple(self.linear[final, t].ravel()) + tuple(self.shift[final, t]) for t in range(t_count)]

        # mesh edges -> triangles; union triangles of the same final placement across shared edges
        parent = list(range(t_count))

        def find(t: int) -> int:
            while parent[t] != t:
                parent[t] = parent[parent[t]]
                t = parent[t]
            return t

        edge_triangles: dict[tuple[Lattice, Lattice], list[int]] = {}
        for t in range(t_count):
            corners = [(int(mesh[t, i, 0]), int(mesh[t, i, 1])) for i in range(3)]
            for i in range(3):
                a, b = corners[i], corners[(i + 1) % 3]
                edge_triangles.setdefault((min(a, b), max(a, b)), []).append(t)
        crossings: list[tuple[int, int, tuple[Lattice, Lattice]]] = []
        for edge, tris in edge_triangles.items():
            if len(tris) > 2:
                raise AssertionError(f"mesh edge {edge} has {len(tris)} triangles")
            if len(tris) == 2:
                a, b = tris
                if keys[a] == keys[b]:
                    parent[find(a)] = find(b)
                else:
                    crossings.append((a, b, edge))
        roots: dict[int, int] = {}
        self.face_of_triangle = np.empty(t_count, np.int64)
        for t in range(t_count):
            self.face_of_triangle[t] = roots.setdefault(find(t), len(roots))
        n_faces = len(roots)
        self.face_triangles = [[] for _ in range(n_faces)]
        for t in range(t_count):
            self.face_triangles[self.face_of_triangle[t]].append(t)
        self.face_triangle = [tris[0] for tris in self.face_triangles]  # the triangle that stands for each face

        # every triangle of a face keeps one placement in every state (faces only ever split)
        for k in range(n_states):
            for f, tris in enumerate(self.face_triangles):
                lin, sh = self.linear[k, tris], self.shift[k, tris]
                if (lin != lin[0]).any() or (sh != sh[0]).any():
                    raise AssertionError(f"face {f} is not one piece after {k} actions")

        # each face: the convex hull of its triangles (and it must fill it: the faces are convex)
        hulls = []
        for f, tris in enumerate(self.face_triangles):
            points = {(int(x), int(y)) for t in tris for x, y in mesh[t]}
            hull = convex_hull(points)
            area = sum(abs(_cross(*[(int(x), int(y)) for x, y in mesh[t]])) for t in tris)
            if twice_area(hull) != area:
                raise AssertionError(f"face {f} is not convex")
            hulls.append(hull)

        # vertices, faces (the hulls with the vertices on their sides) and edges (fold_document)
        self.vertices, self.faces = planar_faces(hulls)
        self.edges, self.edge_faces = face_edges(self.faces)

        # a pair of triangles across the crease between two adjacent faces (they stay stacked there)
        self.across: dict[tuple[int, int], tuple[int, int]] = {}
        for a, b, _ in crossings:
            fa, fb = int(self.face_of_triangle[a]), int(self.face_of_triangle[b])
            self.across.setdefault((fa, fb), (a, b))
            self.across.setdefault((fb, fa), (b, a))
        for faces in self.edge_faces:
            if len(faces) == 2 and (faces[0], faces[1]) not in self.across:
                raise AssertionError(f"faces {faces} share a side but no mesh edge")

    # -- per state -----------------------------------------------------------------------------

    def placement(self, k: int, f: int) -> tuple[np.ndarray, np.ndarray]:
        t = self.face_triangle[f]
        return self.linear[k, t], self.shift[k, t]

    def face_up(self, k: int, f: int) -> bool:
        lin = self.placement(k, f)[0]
        return int(lin[0, 0] * lin[1, 1] - lin[0, 1] * lin[1, 0]) > 0

    def folded_vertices(self, k: int) -> list[Lattice]:
        """Every vertex's position after k actions (the same through every face that holds it)."""
        return folded_vertices(self.vertices, self.faces, lambda f, p: _apply(*self.placement(k, f), p), k)

    def assignments(self, k: int) -> list[str]:
        """B, F, M or V for every edge after k actions; at a crease, a face is above the other where
        its triangle across the crease has the higher layer."""
        def together(a: int, b: int) -> bool:
            (la, sa), (lb, sb) = self.placement(k, a), self.placement(k, b)
            return bool((la == lb).all() and (sa == sb).all())

        def above(f: int, g: int) -> bool:
            tf, tg = self.across[(f, g)]
            return bool(self.layer[k, tf] > self.layer[k, tg])

        return assignments(self.edge_faces, together, lambda f: self.face_up(k, f), above, k)

    def face_orders(self, k: int) -> list[list[int]]:
        """[f, g, s] (f < g) for every pair of faces that overlap after k actions."""
        placed = np.einsum("tij,tvj->tvi", self.linear[k], self.mesh) + self.shift[k][:, None, :]
        positions: dict[tuple, list[int]] = {}
        for t in range(placed.shape[0]):
            key = tuple(sorted((int(x), int(y)) for x, y in placed[t]))
            positions.setdefault(key, []).append(t)
        above: dict[tuple[int, int], bool] = {}
        for tris in positions.values():
            if len(tris) < 2:
                continue
            for i, first in enumerate(tris):
                for second in tris[i + 1:]:
                    t, u = (first, second) if self.face_of_triangle[first] < self.face_of_triangle[second] else (second, first)
                    f, g = int(self.face_of_triangle[t]), int(self.face_of_triangle[u])
                    if f == g or self.layer[k, t] == self.layer[k, u]:
                        raise AssertionError(f"triangles {t} and {u} coincide after {k} actions in one layer")
                    higher = bool(self.layer[k, t] > self.layer[k, u])
                    if above.setdefault((f, g), higher) != higher:
                        raise AssertionError(f"faces {f} and {g} cross each other after {k} actions")
        return [face_order(f, g, higher, self.face_up(k, g)) for (f, g), higher in sorted(above.items())]


# -- the document ---------------------------------------------------------------------------------


def describe_action(action) -> str:
    if isinstance(action, Rotate):
        return f"rotate by {90 * action.quarters} degrees"
    if isinstance(action, Flip):
        return "flip"
    assert isinstance(action, Fold)
    where = "toward the viewer, on top" if action.front else "away from the viewer, underneath"
    return f"fold along {action.line.describe()} ({action.moves} side moves {where})"


def _direction_through(linear: np.ndarray, direction: int) -> int:
    """A hole direction (degrees counter-clockwise, 0 = upright) mapped by a square symmetry."""
    angle = round(math.degrees(math.atan2(int(linear[1, 0]), int(linear[0, 0]))))  # rotation, or 2*mirror angle
    det = int(linear[0, 0] * linear[1, 1] - linear[0, 1] * linear[1, 0])
    return (direction + angle) % 360 if det > 0 else (angle + 180 - direction) % 360


def fold_document(item: object, *, index: int | None = None, name: str | None = None) -> dict:
    """The FOLD object of one item: a SheetItem, a general item record, or a MentalBlackboard Config
    or record (through its preset). Raises InputError for an item that cannot be read and
    FoldExportError (an InputError) for one that does not simulate (not realizable, off paper).
    `name`: what errors and the title call an item without an id (its position, "line 4")."""
    from .engine import simulate_items, trace_item

    sheet_item, rigid, kind = resolve_item(item, index=index)
    name = sheet_item.id or name or (f"item {index}" if index is not None else "item")
    result = simulate_items([sheet_item], rigid_mesh=rigid)[0]
    if not result.ok:
        reason = result.reason
        if reason.startswith(f"{name}: "):
            reason = reason[len(name) + 2:]
        raise FoldExportError(f"{result.status}: {reason}", item=name)
    trace = trace_item(sheet_item, rigid_mesh=rigid)
    if trace.status[0] != 0:
        raise AssertionError(f"the trace of {name} fails where its simulation does not: {trace.status}")
    cp = CreasePattern(trace)
    cols, rows, r = sheet_item.sheet.cols, sheet_item.sheet.rows, trace.resolution

    def exact(p: Lattice) -> tuple[Fraction, Fraction]:
        return Fraction(p[0] + r * cols, 2 * r), Fraction(p[1] + r * rows, 2 * r)

    actions = sheet_item.actions
    doc = fold_object(cp, title=name, convex=True, exact=exact,
                      description=f"foldsim item {name}: {cols} x {rows} cells, {len(actions)} actions"
                                  + (" (MentalBlackboard preset)" if kind == "mentalblackboard" else ""),
                      frame_titles=[f"after action {k}: {describe_action(a)}" for k, a in enumerate(actions, 1)])
    doc["foldsim:holes"] = _holes(result, cp, trace, sheet_item)
    doc["foldsim:item"] = item_to_record(sheet_item)
    if kind == "mentalblackboard":
        doc["foldsim:preset"] = "mentalblackboard"
    return doc


def _holes(result, cp: CreasePattern, trace, item: SheetItem) -> list[dict]:
    """The result holes as foldsim reports them (the opened sheet seen through the rotations and
    flips), each also where it lies on the crease pattern (the key frame) and in which faces."""
    view = np.asarray(trace.states.view[-1], np.int64)
    cols, rows, r = item.sheet.cols, item.sheet.rows, trace.resolution
    wide, high = (cols, rows) if view[0, 0] != 0 else (rows, cols)
    inverse = view.T  # orthogonal
    out = []
    for hole in result.holes:
        rx, ry = hole.x - Fraction(wide, 2), hole.y - Fraction(high, 2)
        ux = inverse[0, 0] * rx + inverse[0, 1] * ry + Fraction(cols, 2)
        uy = inverse[1, 0] * rx + inverse[1, 1] * ry + Fraction(rows, 2)
        lattice = (2 * r * ux - r * cols, 2 * r * uy - r * rows)
        faces = [f for f, ring in enumerate(cp.faces) if _in_convex(lattice, [cp.vertices[v] for v in ring])]
        det = int(view[0, 0] * view[1, 1] - view[0, 1] * view[1, 0])
        out.append({
            "x": str(hole.x), "y": str(hole.y), "coords": [float(hole.x), float(hole.y)],
            "shape": hole.shape, "size": hole.size, "direction": hole.direction, "mirrored": hole.mirrored,
            "creasePattern": {"x": str(ux), "y": str(uy), "coords": [float(ux), float(uy)],
                              "direction": _direction_through(inverse, hole.direction),
                              "mirrored": hole.mirrored != (det < 0), "faces": faces},
        })
    return out


def _in_convex(p: tuple[Fraction, Fraction], polygon: list[Lattice]) -> bool:
    """The closed counter-clockwise convex polygon holds p."""
    return all((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0
               for a, b in zip(polygon, polygon[1:] + polygon[:1]))
