"""What the two FOLD exporters share (edemaine/fold, spec 1.2): `foldsim.foldfile` (rectangular
sheets, from the point engine's trace, in integer lattice units) and `foldsim.cut_fold_file`
(polygon sheets, from the cut engine's layers, in Fractions) build the same planar graph from their
faces' outlines, fold its vertices, assign its edges and write the same document. What differs is
only where a face's outline and its placement in each state come from: they hand those in as rings
of exact points and small callables, so each rule below is written once.

- **vertices and faces**: every ring corner, sorted by (y, x); each face its ring with every vertex
  that lies on one of its sides inserted there (T-junctions), so faces and edges make one graph;
- **edges**: the faces' sides; one face = border (B), two = crease: unfolded (F) in a state where
  both faces still have one placement, else valley (V, +180°) when the face that lies face down is
  stacked above the face-up one at the crease (their fronts meet), mountain (M, -180°) otherwise;
- **faceOrders**: [f, g, s] with s = +1 when f lies on the side g's normal points to (g face up and
  f above it, or g face down and f below it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Protocol

from .errors import InputError

FILE_SPEC = 1.2
CREATOR = "foldsim"
#: fold angles of the assignments (positive = valley, as FOLD says)
FOLD_ANGLE = {"B": 0, "F": 0, "V": 180, "M": -180}

#: an exact point: integer lattice units (foldfile) or Fractions (cut_fold_file)
Point = tuple[Any, Any]


class FoldExportError(InputError):
    """An item that simulates but has no FOLD file: not realizable, a punch or cut off the paper,
    too many faces."""


def on_open_segment(p: Point, a: Point, b: Point) -> bool:
    """p lies on the segment ab, strictly between its ends."""
    if (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) != 0:
        return False
    dot = (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])
    return 0 < dot < (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2


def planar_faces(rings: Sequence[Sequence[Point]]) -> tuple[list[Point], list[list[int]]]:
    """(vertices, faces) of the faces' outlines (one counter-clockwise ring each): the vertices are
    every corner sorted by (y, x); a face is its ring's vertex numbers with every vertex that lies
    inside one of its sides inserted there, in order along it."""
    vertices: list[Point] = sorted({p for ring in rings for p in ring}, key=lambda p: (p[1], p[0]))
    index = {p: i for i, p in enumerate(vertices)}
    faces: list[list[int]] = []
    for ring in rings:
        x0, x1 = min(p[0] for p in ring), max(p[0] for p in ring)
        y0, y1 = min(p[1] for p in ring), max(p[1] for p in ring)
        near = [p for p in vertices if x0 <= p[0] <= x1 and y0 <= p[1] <= y1]  # only these can lie on a side
        face: list[int] = []
        for a, b in zip(ring, [*ring[1:], *ring[:1]]):
            between = sorted((p for p in near if on_open_segment(p, a, b)),
                             key=lambda p: (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1]))
            face += [index[a], *(index[p] for p in between)]
        faces.append(face)
    return vertices, faces


def face_edges(faces: Sequence[Sequence[int]]) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """(edges, the faces of each edge): every side of a face once, in the order the faces first
    walk them; an edge with one face is a border, with two a crease (anything else is a bug)."""
    by_key: dict[tuple[int, int], list[int]] = {}
    edges: list[tuple[int, int]] = []
    for f, face in enumerate(faces):
        for u, v in zip(face, [*face[1:], *face[:1]]):
            key = (min(u, v), max(u, v))
            if key not in by_key:
                by_key[key] = []
                edges.append((u, v))
            by_key[key].append(f)
    edge_faces = [by_key[(min(u, v), max(u, v))] for u, v in edges]
    for (u, v), owners in zip(edges, edge_faces):
        if len(owners) > 2 or (len(owners) == 2 and owners[0] == owners[1]):
            raise AssertionError(f"edge {u}-{v} is not a border or a crease between two faces")
    return edges, edge_faces


def folded_vertices(vertices: Sequence[Point], faces: Sequence[Sequence[int]],
                    place: Callable[[int, Point], Point], state: int) -> list[Point]:
    """Every vertex in one state, where `place(f, p)` puts face f's point p; each vertex lands in one
    place through every face that holds it (the paper does not tear)."""
    out: list[Point | None] = [None] * len(vertices)
    for f, face in enumerate(faces):
        for v in face:
            p = place(f, vertices[v])
            if out[v] is None:
                out[v] = p
            elif out[v] != p:
                raise AssertionError(f"vertex {v} tears in state {state}")
    return out  # type: ignore[return-value]


def assignments(edge_faces: Sequence[Sequence[int]], together: Callable[[int, int], bool],
                face_up: Callable[[int], bool], above: Callable[[int, int], bool], state: int) -> list[str]:
    """B, F, M or V for every edge in one state: `together(a, b)` says faces a and b still have one
    placement, `face_up(f)` that f shows its front, `above(f, g)` that f lies above g at their crease."""
    out = []
    for owners in edge_faces:
        if len(owners) == 1:
            out.append("B")
            continue
        a, b = owners
        if together(a, b):
            out.append("F")
            continue
        up_a = face_up(a)
        if up_a == face_up(b):
            raise AssertionError(f"faces {a} and {b} are folded apart but face the same way in state {state}")
        down, up = (b, a) if up_a else (a, b)
        out.append("V" if above(down, up) else "M")
    return out


def face_order(f: int, g: int, f_above: bool, g_up: bool) -> list[int]:
    """FOLD's [f, g, s] of two overlapping faces: s = +1 when f lies on g's normal side."""
    return [f, g, 1 if f_above == g_up else -1]


class FoldPattern(Protocol):
    """What `fold_object` reads of a crease pattern (foldfile's and cut_fold_file's)."""

    vertices: list
    edges: list[tuple[int, int]]
    faces: list[list[int]]

    def assignments(self, k: int) -> list[str]: ...

    def folded_vertices(self, k: int) -> list: ...

    def face_orders(self, k: int) -> list[list[int]]: ...


def coords(points: Sequence[tuple[Fraction, Fraction]]) -> tuple[list[list[float]], list[list[str]]]:
    """Exact points written twice: as floats (`vertices_coords`, what FOLD readers read) and as
    their exact "p/q" (`vertices_foldsim:exactCoords`)."""
    return [[float(x), float(y)] for x, y in points], [[str(x), str(y)] for x, y in points]


def fold_object(cp: FoldPattern, *, title: str, description: str, convex: bool, frame_titles: Sequence[str],
                exact: Callable[[Point], tuple[Fraction, Fraction]]) -> dict:
    """The FOLD document of a crease pattern: the final state's crease pattern as the key frame, then
    one folded frame per entry of `frame_titles` (state k = 1, 2, ...), each with its face orders;
    `exact` turns a pattern point into sheet coordinates. The caller adds its `foldsim:` keys."""
    final_assignment = cp.assignments(len(frame_titles))
    flat, flat_exact = coords([exact(p) for p in cp.vertices])
    doc: dict = {
        "file_spec": FILE_SPEC,
        "file_creator": CREATOR,
        "file_classes": ["singleModel"],
        "file_title": title,
        "file_description": description,
        "frame_title": "crease pattern (every crease of the final state)",
        "frame_classes": ["creasePattern"],
        "frame_attributes": ["2D", *(["convexFaces"] if convex else [])],
        "frame_unit": "unit",
        "vertices_coords": flat,
        "vertices_foldsim:exactCoords": flat_exact,
        "edges_vertices": [list(e) for e in cp.edges],
        "edges_assignment": final_assignment,
        "edges_foldAngle": [FOLD_ANGLE[a] for a in final_assignment],
        "faces_vertices": cp.faces,
    }
    frames = []
    for k, frame_title in enumerate(frame_titles, 1):
        folded, folded_exact = coords([exact(p) for p in cp.folded_vertices(k)])
        assignment = cp.assignments(k)
        frames.append({
            "frame_title": frame_title,
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
    return doc
