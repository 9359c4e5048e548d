"""FOLD files (edemaine/fold, spec 1.2) of fold-and-cut items on polygon sheets (`foldsim.cutfold`;
docs/cutting.md, "FOLD files of polygon sheets"): the crease pattern of the final state as the key
frame, one flat-folded frame after every fold (a group's folds each get one), the cut-outs and the
item under `foldsim:` keys. The rectangular sheets' files are `foldsim.foldfile`'s; this one reads
the cut engine's layers instead of the point engine's trace, and writes the same fields (both
through `foldsim.fold_document`, which holds the rules below once).

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

from .cutfold import CutItem, CutResult, Layer, cut_item, cut_item_to_record
from .cut_history import layer_history
from .fold_document import (FoldExportError, assignments, face_edges, face_order, fold_object, folded_vertices,
                            planar_faces)
from .polygons import Point, bounding_box, intersection_area, is_convex, outline

#: the most faces (final layers) a FOLD file is written for: face orders compare every two faces of
#: every frame, exactly (refused after folding, before that work)
MAX_FOLD_FACES = 128


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
        self.vertices, self.faces = planar_faces(rings)
        self.convex = all(is_convex(ring) for ring in rings)
        self.edges, self.edge_faces = face_edges(self.faces)
        #: per state, per face: the index of the state's layer that holds it
        self.layer_of = layer_history(item, result)

    def layer(self, k: int, f: int) -> Layer:
        return self.states[k][self.layer_of[k][f]]

    def folded_vertices(self, k: int) -> list[Point]:
        """Every vertex after state k (the same through every face that holds it)."""
        return folded_vertices(self.vertices, self.faces, lambda f, p: self.layer(k, f).iso.apply(p), k)

    def assignments(self, k: int) -> list[str]:
        """B, F, M or V for every edge in state k: two faces are together while they are one layer,
        and a face is above another where its layer's number is higher."""
        at = self.layer_of[k]
        return assignments(self.edge_faces, lambda a, b: at[a] == at[b], lambda f: self.layer(k, f).iso.det > 0,
                           lambda f, g: at[f] > at[g], k)

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
                    orders.append(face_order(f, g, lf > lg, placed[g].det > 0))
        return orders


def cut_fold_document(item: CutItem, name: str | None = None) -> dict:
    """The FOLD object of one fold-and-cut item (module docstring). FoldExportError (an InputError)
    for an item that does not fold and cut (not realizable, a cut over no paper) or whose layers
    pass MAX_FOLD_FACES."""
    name = item.id or name or "item"
    result = cut_item(item)
    if not result.ok:
        raise FoldExportError(f"{result.status}: {result.reason}", item=name)
    cp = CutCreasePattern(item, result, name)
    titles = [f"after step {s}" + (f", fold {number}" if len(step) > 1 else "") + f": {fold.describe()}"
              for s, step in enumerate(item.steps, 1) for number, fold in enumerate(step, 1)]
    doc = fold_object(cp, title=name, convex=cp.convex, exact=lambda p: p, frame_titles=titles,
                      description=f"foldsim fold-and-cut item {name}: {item.sheet.name} sheet, {len(item.steps)} "
                                  f"steps, {len(titles)} folds, {len(item.cuts)} cut shapes")
    doc["foldsim:cutouts"] = [c.to_dict() for c in result.cutouts]
    doc["foldsim:item"] = cut_item_to_record(item)
    return doc


__all__ = ["MAX_FOLD_FACES", "CutCreasePattern", "FoldExportError", "cut_fold_document"]
