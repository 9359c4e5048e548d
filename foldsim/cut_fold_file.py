"""FOLD files (edemaine/fold, spec 1.2) of fold-and-cut items on polygon sheets (`foldsim.cutfold`;
docs/cutting.md, "FOLD files of polygon sheets"): the crease pattern of the final state as the key
frame, one flat-folded frame after every fold (a group's folds each get one), the cut-outs and the
item under `foldsim:` keys. The rectangular sheets' files are `foldsim.foldfile`'s; this one reads
the cut engine's layers instead of the point engine's trace, and writes the same fields.

Everything is exact (`Fraction`) until written, where each coordinate is given twice: as a float
(`vertices_coords`, what FOLD readers read) and as its exact "p/q" (`vertices_foldsim:exactCoords`):

- **faces** are the final state's layers: each is a connected region of the flat sheet with one
  isometry in every state (layers only ever split), written as its outline (one ring,
  counter-clockwise; convex on a convex sheet). Every face corner that lies on another face's side
  is inserted there (T-junctions), so faces and edges make one planar graph;
- an **edge** with one face is a border (B); between two faces it is a crease: unfolded (F) in a
  frame where both faces still have one isometry, else valley (V, +180°) when the face that lies
  face down is stacked above the face-up one (their fronts meet), mountain (M, -180°) otherwise;
- **faceOrders** of a frame: [f, g, s] for every two faces whose placed regions overlap with
  positive area (exactly: `polygons.intersection_area`), s = +1 when f lies on the side g's normal
  points to (g face up and f above it, or g face down and f below it).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cutfold import CutItem, CutResult, Layer, cut_item, cut_item_to_record
from .foldfile import CREATOR, FILE_SPEC, FOLD_ANGLE, FoldExportError
from .cut_history import layer_history
from .polygons import Point, bounding_box, cross, intersection_area, is_convex, outline

#: the most faces (final layers) a FOLD file is written for: face orders compare every two faces of
#: every frame, exactly (refused after folding, before that work)
MAX_FOLD_FACES = 128


def _on_open_segment(p: Point, a: Point, b: Point) -> bool:
    if cross(a, b, p) != 0:
        return False
    dot = (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])
    return 0 < dot < (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2


class CutCreasePattern:
    """Faces (final layers), vertices and edges of a cut item's final state, exact, and each face's
    layer and isometry in every state after a fold (`states`: flattened, states[0] the flat sheet)."""

    def __init__(self, item: CutItem, result: CutResult, name: str) -> None:
        self.final: tuple[Layer, ...] = result.final
        if len(self.final) > MAX_FOLD_FACES:
            raise FoldExportError(f"its {len(self.final)} layers are more faces than the {MAX_FOLD_FACES} a FOLD "
                                  "file is written for", item=name)
        self.states = [layers for step in result.states for layers in step]
        rings = []
        for f, layer in enumerate(self.final):
            found = outline(layer.parts)
            if len(found) != 1:
                raise FoldExportError(f"layer {f} is not one simple polygon (it touches itself at a point), which "
                                      "a FOLD face cannot be", item=name)
            rings.append(found[0])
        self.vertices: list[Point] = sorted({p for ring in rings for p in ring}, key=lambda p: (p[1], p[0]))
        index = {p: i for i, p in enumerate(self.vertices)}
        self.faces: list[list[int]] = []
        for ring in rings:
            x0, y0, x1, y1 = bounding_box(ring)
            near = [p for p in self.vertices if x0 <= p[0] <= x1 and y0 <= p[1] <= y1]
            face: list[int] = []
            for a, b in zip(ring, ring[1:] + ring[:1]):
                between = sorted((p for p in near if _on_open_segment(p, a, b)),
                                 key=lambda p: (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1]))
                face += [index[a], *(index[p] for p in between)]
            self.faces.append(face)
        self.convex = all(is_convex(ring) for ring in rings)
        edge_faces: dict[tuple[int, int], list[int]] = {}
        self.edges: list[tuple[int, int]] = []
        for f, face in enumerate(self.faces):
            for u, v in zip(face, face[1:] + face[:1]):
                key = (min(u, v), max(u, v))
                if key not in edge_faces:
                    edge_faces[key] = []
                    self.edges.append((u, v))
                edge_faces[key].append(f)
        self.edge_faces = [edge_faces[(min(u, v), max(u, v))] for u, v in self.edges]
        for (u, v), faces in zip(self.edges, self.edge_faces):
            if len(faces) > 2 or (len(faces) == 2 and faces[0] == faces[1]):
                raise AssertionError(f"edge {u}-{v} is not a border or a crease between two faces")
        #: per state, per face: the index of the state's layer that holds it
        self.layer_of = layer_history(item, result)

    def layer(self, k: int, f: int) -> Layer:
        return self.states[k][self.layer_of[k][f]]

    def folded_vertices(self, k: int) -> list[Point]:
        """Every vertex after state k (the same through every face that holds it)."""
        out: list[Point | None] = [None] * len(self.vertices)
        for f, face in enumerate(self.faces):
            iso = self.layer(k, f).iso
            for v in face:
                p = iso.apply(self.vertices[v])
                if out[v] is None:
                    out[v] = p
                elif out[v] != p:
                    raise AssertionError(f"vertex {v} tears in state {k}")
        return out  # type: ignore[return-value]

    def assignments(self, k: int) -> list[str]:
        """B, F, M or V for every edge in state k."""
        out = []
        for faces in self.edge_faces:
            if len(faces) == 1:
                out.append("B")
                continue
            a, b = faces
            la, lb = self.layer_of[k][a], self.layer_of[k][b]
            if la == lb:
                out.append("F")
                continue
            up_a = self.states[k][la].iso.det > 0
            if up_a == (self.states[k][lb].iso.det > 0):
                raise AssertionError(f"faces {a} and {b} are folded apart but face the same way in state {k}")
            down, up = (lb, la) if up_a else (la, lb)
            out.append("V" if down > up else "M")
        return out

    def face_orders(self, k: int) -> list[list[int]]:
        """[f, g, s] (f < g) for every two faces that overlap in state k."""
        placed = [self.layer(k, f).iso for f in range(len(self.faces))]
        pieces = [[iso.polygon(part) for part in layer.parts] for iso, layer in zip(placed, self.final)]
        boxes = [bounding_box(p for piece in face for p in piece) for face in pieces]
        orders = []
        for f in range(len(self.faces)):
            for g in range(f + 1, len(self.faces)):
                lf, lg = self.layer_of[k][f], self.layer_of[k][g]
                (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[f], boxes[g]
                if lf == lg or ax0 >= bx1 or bx0 >= ax1 or ay0 >= by1 or by0 >= ay1:
                    continue
                if intersection_area(pieces[f], pieces[g]) > 0:
                    g_up = placed[g].det > 0
                    orders.append([f, g, 1 if (lf > lg) == g_up else -1])
        return orders


def _coords(points: Sequence[Point]) -> tuple[list[list[float]], list[list[str]]]:
    return [[float(x), float(y)] for x, y in points], [[str(x), str(y)] for x, y in points]


def cut_fold_document(item: CutItem, name: str | None = None) -> dict:
    """The FOLD object of one fold-and-cut item (module docstring). FoldExportError (an InputError)
    for an item that does not fold and cut (not realizable, a cut over no paper) or whose layers
    pass MAX_FOLD_FACES."""
    name = item.id or name or "item"
    result = cut_item(item)
    if not result.ok:
        raise FoldExportError(f"{result.status}: {result.reason}", item=name)
    cp = CutCreasePattern(item, result, name)
    folds = [(s, k, fold) for s, step in enumerate(item.steps, 1) for k, fold in enumerate(step, 1)]
    final_assignment = cp.assignments(len(folds))
    flat, flat_exact = _coords(cp.vertices)
    doc: dict = {
        "file_spec": FILE_SPEC,
        "file_creator": CREATOR,
        "file_classes": ["singleModel"],
        "file_title": name,
        "file_description": f"foldsim fold-and-cut item {name}: {item.sheet.name} sheet, {len(item.steps)} steps, "
                            f"{len(folds)} folds, {len(item.cuts)} cut shapes",
        "frame_title": "crease pattern (every crease of the final state)",
        "frame_classes": ["creasePattern"],
        "frame_attributes": ["2D", *(["convexFaces"] if cp.convex else [])],
        "frame_unit": "unit",
        "vertices_coords": flat,
        "vertices_foldsim:exactCoords": flat_exact,
        "edges_vertices": [list(e) for e in cp.edges],
        "edges_assignment": final_assignment,
        "edges_foldAngle": [FOLD_ANGLE[a] for a in final_assignment],
        "faces_vertices": cp.faces,
    }
    frames = []
    for k, (s, number, fold) in enumerate(folds, 1):
        folded, folded_exact = _coords(cp.folded_vertices(k))
        assignment = cp.assignments(k)
        where = f"step {s}" + (f", fold {number}" if len(item.steps[s - 1]) > 1 else "")
        frames.append({
            "frame_title": f"after {where}: {fold.describe()}",
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
    doc["foldsim:cutouts"] = [c.to_dict() for c in result.cutouts]
    doc["foldsim:item"] = cut_item_to_record(item)
    return doc


__all__ = ["MAX_FOLD_FACES", "CutCreasePattern", "FoldExportError", "cut_fold_document"]
