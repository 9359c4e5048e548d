"""Where each final layer of a fold-and-cut item lay in every earlier state (`foldsim.cutfold`):
what its FOLD file's frames (`foldsim.cut_fold_file`) and its 3-D motion
(`foldsim.render.polygon_motion`) place every face by.

Layers only ever split, so a final layer lies inside exactly one layer of every state. It is
found by replaying the folds on one point strictly inside it: at each fold the point moves (its
isometry composed with the fold's reflection) iff its layer takes part and the point lies strictly
right of the fold line, as `cutfold.fold_layers` moves paper; then the state's layer with that
isometry holds it (several layers share one only where a non-convex sheet fell apart: a point test
among those few decides). Linear in layers × folds, where testing the point against every layer of
every state is quadratic (over a minute at 10 folds, 1,024 layers).
"""

from __future__ import annotations

from fractions import Fraction

from .cutfold import IDENTITY, CutItem, CutResult, Layer, reflection_across, resolve_line
from .polygons import Point, point_in_polygon


def inside_point(layer: Layer) -> Point:
    """A point strictly inside a layer (the vertex mean of its first convex piece)."""
    piece = layer.parts[0]
    n = len(piece)
    return (sum((p[0] for p in piece), Fraction(0)) / n, sum((p[1] for p in piece), Fraction(0)) / n)


def layer_history(item: CutItem, result: CutResult) -> list[list[int]]:
    """held[k][f]: the index of the layer of state k (0 the flat sheet, then one state after every
    fold, a group's folds one by one) that holds final layer f."""
    states = [layers for step in result.states for layers in step]
    folds = [fold for step in item.steps for fold in step]
    points = [inside_point(layer) for layer in result.final]
    isos = [IDENTITY] * len(points)
    held = [[0] * len(points)]
    for j, fold in enumerate(folds, 1):
        before, after = states[j - 1], states[j]
        p1, p2 = resolve_line(fold, before, item.sheet)
        a, b = p1[1] - p2[1], p2[0] - p1[0]
        c = -(a * p1[0] + b * p1[1])  # < 0: right of p1 -> p2, the side that moves
        reflection = reflection_across(p1, p2)
        first_taking = len(before) - (len(before) if fold.layers is None else fold.layers)
        by_iso: dict = {}
        for i, layer in enumerate(after):
            by_iso.setdefault(layer.iso, []).append(i)
        row = []
        for f, point in enumerate(points):
            if held[-1][f] >= first_taking:
                x, y = isos[f].apply(point)
                if a * x + b * y + c < 0:
                    isos[f] = reflection.after(isos[f])
            candidates = by_iso.get(isos[f], [])
            if len(candidates) > 1:
                candidates = [i for i in candidates if any(point_in_polygon(point, part) > 0 for part in after[i].parts)]
            if len(candidates) != 1:
                raise AssertionError(f"final layer {f} is held by {len(candidates)} layers after fold {j}")
            row.append(candidates[0])
        held.append(row)
    return held
