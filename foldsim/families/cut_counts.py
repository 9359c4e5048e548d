"""Naming and counting the cut-outs of an opened sheet exactly (the open "count" task), shared by
the fold-and-cut families: pfp (its A-mirror level) and visworld. Not a family module: it stays
out of the independence contract, like `pfp_rules` and `pfp_tasks`.

A cut-out is named by its exact boundary up to translation: one ring, counter-clockwise, moved so
its least vertex is the origin, equal to a named shape's. A cut-out that merged across a crease,
or lost a part off the sheet, has another boundary and is none of the named shapes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..cutfold import Cutout
from ..polygons import counter_clockwise
from . import pfp_rules as R
from .pfp_tasks import ring_key


def shape_form(poly: Sequence) -> tuple:
    """A polygon up to translation: counter-clockwise, moved so its least vertex is the origin."""
    poly = ring_key(counter_clockwise(tuple(poly)))
    x0, y0 = poly[0]
    return tuple((x - x0, y - y0) for x, y in poly)


def shape_forms(shapes: Mapping[str, Sequence]) -> dict[tuple, str]:
    """form -> name of named shapes given as vertex lists about their centres."""
    return {shape_form([(Fraction(x), Fraction(y)) for x, y in poly]): name for name, poly in shapes.items()}


COUNTED_FORMS = shape_forms(R.COUNTED_SHAPES)


def named_counts(cutouts: Sequence[Cutout], forms: Mapping[tuple, str]) -> dict[str, int]:
    """How many cut-outs are exactly each named shape (every name of `forms`, 0 included)."""
    counts = dict.fromkeys(forms.values(), 0)
    for cutout in cutouts:
        rings = cutout.outline()
        name = forms.get(shape_form(rings[0])) if len(rings) == 1 else None
        if name:
            counts[name] += 1
    return counts


def count_answer(cutouts: Sequence[Cutout], named: bool) -> dict:
    """{"cutouts": n} and, where `named`, how many cut-outs are each of pfp's counted shapes
    exactly (a cut-out that merged across a crease or lost a part off the sheet is none of them)."""
    answer = {"cutouts": len(cutouts)}
    if named:
        answer.update(named_counts(cutouts, COUNTED_FORMS))
    return answer
