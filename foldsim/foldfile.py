"""FOLD files (edemaine/fold, spec 1.2) of general items: the crease pattern of the final state as
the key frame, one flat-folded frame after each action, the holes and the item under `foldsim:`
keys (docs/engine.md, "FOLD files").

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
from .sheets import Flip, Fold, Rotate, SheetItem, item_from_record, item_to_record

FILE_SPEC = 1.2
CREATOR = "foldsim"
#: fold angles of the assignments (positive = valley, as FOLD says)
FOLD_ANGLE = {"B": 0, "F": 0, "V": 180, "M": -180}

Lattice = tuple[int, int]


class FoldExportError(InputError):
    """An item that simulates but has no FOLD file: not realizable, a punch off the paper."""


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


def _on_open_segment(p: Lattice, a: Lattice, b: Lattice) -> bool:
    if _cross(a, b, p) != 0:
        return False
    dot = (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])
    return 0 < dot < (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2


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

        # vertices: every hull corner; each face's boundary gets the vertices on its sides
        self.vertices: list[Lattice] = sorted({p for hull in hulls for p in hull}, key=lambda p: (p[1], p[0]))
        index = {p: i for i, p in enumerate(self.vertices)}
        self.faces: list[list[int]] = []
        for hull in hulls:
            ring: list[int] = []
            for a, b in zip(hull, hull[1:] + hull[:1]):
                between = [p for p in self.vertices if _on_open_segment(p, a, b)]
                between.sort(key=lambda p: (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1]))
                ring += [index[a], *(index[p] for p in between)]
            self.faces.append(ring)

        # edges: the faces' sides; one face = border, two = crease
        edge_faces: dict[tuple[int, int], list[int]] = {}
        self.edges: list[tuple[int, int]] = []
        for f, ring in enumerate(self.faces):
            for u, v in zip(ring, ring[1:] + ring[:1]):
                key = (min(u, v), max(u, v))
                if key not in edge_faces:
                    edge_faces[key] = []
                    self.edges.append((u, v))
                edge_faces[key].append(f)
        self.edge_faces = [edge_faces[(min(u, v), max(u, v))] for u, v in self.edges]
        for e, faces in enumerate(self.edge_faces):
            if len(faces) > 2 or (len(faces) == 2 and faces[0] == faces[1]):
                raise AssertionError(f"edge {self.edges[e]} is not a border or a crease between two faces")

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
        out: list[Lattice | None] = [None] * len(self.vertices)
        for f, ring in enumerate(self.faces):
            lin, sh = self.placement(k, f)
            for v in ring:
                p = _apply(lin, sh, self.vertices[v])
                if out[v] is None:
                    out[v] = p
                elif out[v] != p:
                    raise AssertionError(f"vertex {v} tears after {k} actions")
        return out  # type: ignore[return-value]

    def assignments(self, k: int) -> list[str]:
        """B, F, M or V for every edge after k actions."""
        out = []
        for faces in self.edge_faces:
            if len(faces) == 1:
                out.append("B")
                continue
            a, b = faces
            (la, sa), (lb, sb) = self.placement(k, a), self.placement(k, b)
            if (la == lb).all() and (sa == sb).all():
                out.append("F")
                continue
            up_a, up_b = self.face_up(k, a), self.face_up(k, b)
            if up_a == up_b:
                raise AssertionError(f"faces {a} and {b} are folded apart but face the same way")
            ta, tb = self.across[(a, b)]
            down_layer, up_layer = (self.layer[k, ta], self.layer[k, tb]) if not up_a else (self.layer[k, tb], self.layer[k, ta])
            out.append("V" if down_layer > up_layer else "M")
        return out

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
        return [[f, g, 1 if higher == self.face_up(k, g) else -1] for (f, g), higher in sorted(above.items())]


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

    def coords(points: list[Lattice]) -> tuple[list[list[float]], list[list[str]]]:
        values = [exact(p) for p in points]
        return [[float(x), float(y)] for x, y in values], [[str(x), str(y)] for x, y in values]

    n_actions = len(sheet_item.actions)
    final_assignment = cp.assignments(n_actions)
    flat, flat_exact = coords(cp.vertices)
    doc: dict = {
        "file_spec": FILE_SPEC,
        "file_creator": CREATOR,
        "file_classes": ["singleModel"],
        "file_title": name,
        "file_description": f"foldsim item {name}: {cols} x {rows} cells, {n_actions} actions"
                            + (" (MentalBlackboard preset)" if kind == "mentalblackboard" else ""),
        "frame_title": "crease pattern (every crease of the final state)",
        "frame_classes": ["creasePattern"],
        "frame_attributes": ["2D", "convexFaces"],
        "frame_unit": "unit",
        "vertices_coords": flat,
        "vertices_foldsim:exactCoords": flat_exact,
        "edges_vertices": [list(e) for e in cp.edges],
        "edges_assignment": final_assignment,
        "edges_foldAngle": [FOLD_ANGLE[a] for a in final_assignment],
        "faces_vertices": cp.faces,
    }
    frames = []
    for k in range(1, n_actions + 1):
        folded, folded_exact = coords(cp.folded_vertices(k))
        assignment = cp.assignments(k)
        frames.append({
            "frame_title": f"after action {k}: {describe_action(sheet_item.actions[k - 1])}",
            "frame_classes": ["foldedForm"],
            "frame_parent": 0,
            "frame_inherit": True,
            "vertices_coords": folded,
            "vertices_foldsim:exactCoords": folded_exact,
            "edges_assignment": assignment,
            "edges_foldAngle": [FOLD_ANGLE[a] for a in assignment],
            "faceOrders": cp.face_orders(k),
        })
    doc["file_frames"] = frames
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
