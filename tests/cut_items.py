"""Random fold-and-cut items and the point-by-point comparison of the engine (`foldsim.cutfold`)
with the independent reference (`foldsim.cut_reference`), shared by tests/test_cut.py (a small
default scale) and tests/test_fuzz_cut.py (scaled by FOLDSIM_FUZZ_EXAMPLES)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction as F

from foldsim.cut_reference import ReferenceCut, _strict_inside
from foldsim.cutfold import PFP_CUT_SHAPES, RATE_KINDS, Cut, CutItem, CutResult, Fold, cut_item, fold_states, pfp_cut
from foldsim.polygons import PolygonSheet, bounding_box, preset_sheet

CONVEX_PRESETS = ("square", "rectangle", "hexagon", "house", "circle", "pentagon", "octagon", "triangle",
                  "diamond", "parallelogram", "trapezoid")
#: a non-convex sheet of foldsim's own (an L with a notch), beside PFP's star
NOTCHED = PolygonSheet(tuple((F(x), F(y)) for x, y in [(0, 0), (240, 0), (240, 120), (150, 120), (150, 90),
                                                          (90, 90), (90, 240), (0, 240)]), "notched")
RATES = (F(1, 4), F(1, 3), F(1, 2), F(2, 3), F(3, 4), F(2, 5), F(5, 8))


def random_fold(rng: random.Random, partial_ok: bool) -> Fold:
    layers = rng.randint(1, 3) if partial_ok and rng.random() < 0.3 else None
    kind = rng.choice([*RATE_KINDS, "angle", "angle", "line"])
    if kind in RATE_KINDS:
        return Fold(kind, rate=rng.choice(RATES), snap=rng.choice([None, F(1)]), layers=layers)
    if kind == "angle":
        edge = [F(k, 8) for k in range(9)]
        p1 = rng.choice([(rng.choice(edge), F(0)), (F(0), rng.choice(edge))])
        p2 = rng.choice([(rng.choice(edge), F(1)), (F(1), rng.choice(edge))])
        if rng.random() < 0.5:
            p1, p2 = p2, p1
        if p1 == p2:  # the box's corner (1, 0) drawn twice: no line
            return random_fold(rng, partial_ok)
        return Fold("angle", p1, p2, layers=layers)
    p1 = (F(rng.randint(60, 300)), F(rng.randint(60, 300)))
    d = (0, 0)
    while d == (0, 0):
        d = (rng.randint(-3, 3), rng.randint(-3, 3))
    return Fold("line", p1, (p1[0] + d[0], p1[1] + d[1]), layers=layers)


def cut_shape(rng: random.Random, centre) -> Cut:
    """One of PFP's four cut shapes (its circle as a 16-gon on the circle, for speed)."""
    return pfp_cut(rng.choice(PFP_CUT_SHAPES), centre, circle_sides=16)


def random_item(rng: random.Random, index: int = 0) -> CutItem:
    """A random sheet (PFP's shapes, the notched L), 1-3 steps (a step is one fold or a group of
    2-4), partial folds on convex sheets, 1-4 cut shapes centred at a vertex of the folded paper
    or a point of its box."""
    name = rng.choice([*CONVEX_PRESETS, "star", "notched"])
    sheet = NOTCHED if name == "notched" else preset_sheet(name)
    convex = name in CONVEX_PRESETS
    placeholder = Cut(((F(0), F(0)), (F(1), F(0)), (F(0), F(1))))
    for _attempt in range(6):  # most fold sequences that cannot be made are drawn again; some stay
        steps = []
        for _ in range(rng.randint(1, 3)):
            size = 1 if rng.random() < 0.7 else rng.randint(2, 4)
            steps.append(tuple(random_fold(rng, convex) for _ in range(size)))
        item = CutItem(sheet, tuple(steps), (placeholder,), f"random-{index}")
        states, reason, _ = fold_states(item)
        if not reason or rng.random() < 0.15:
            break
    final = states[-1][-1]
    vertices = sorted({p for layer in final for part in layer.placed() for p in part})
    x0, y0, x1, y1 = bounding_box(vertices)
    cuts = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.4:
            centre = rng.choice(vertices)
        else:
            centre = (x0 + (x1 - x0) * F(rng.randint(1, 15), 16), y0 + (y1 - y0) * F(rng.randint(1, 15), 16))
        cuts.append(cut_shape(rng, centre))
    return CutItem(sheet, tuple(steps), tuple(cuts), item.id)


@dataclass
class Agreement:
    items: int = 0
    compared: int = 0  # items whose cut-outs were compared point by point
    points: int = 0
    not_realizable: int = 0
    torn: int = 0  # partial folds the engine refused as tearing (outside the reference)
    off_paper: int = 0
    cutouts: int = 0
    unsupported: int = 0


def sample_points(item: CutItem, result: CutResult, grid: int) -> list:
    """A grid over the sheet's box at offsets no fold or cut line of these items passes through,
    and eight points about every vertex of every cut-out piece, just inside and outside it."""
    x0, y0, x1, y1 = bounding_box(item.sheet.vertices)
    w, h = x1 - x0, y1 - y0
    points = [(x0 + w * F(2 * i + 1, 2 * grid) + F(1, 7919), y0 + h * F(2 * j + 1, 2 * grid) + F(1, 7907))
              for i in range(grid) for j in range(grid)]
    step = w / 3989
    for cutout in result.cutouts:
        for piece in cutout.pieces:
            for x, y in piece:
                points.extend((x + dx * step, y + dy * step) for dx in (-1, 1) for dy in (F(-1, 3), F(1, 2))
                              for dx, dy in ((dx, dy), (dy, dx)))
    return points


def compare(item: CutItem, tally: Agreement, grid: int = 16) -> None:
    """Engine and reference agree on the item's status, and point by point on the cut-outs;
    an AssertionError names the item and the point."""
    tally.items += 1
    result = cut_item(item)
    ref = ReferenceCut(item)
    if not ref.supported:
        tally.unsupported += 1
        return
    if ref.failed:
        assert result.status == "not_realizable", (item.id, ref.failed, result.status)
        tally.not_realizable += 1
        return
    if result.status == "not_realizable":
        assert "tear" in result.reason, (item.id, result.reason)
        tally.torn += 1
        return
    if result.status == "off_paper":
        tally.off_paper += 1
        return
    assert result.ok, (item.id, result.reason)
    tally.compared += 1
    tally.cutouts += len(result.cutouts)
    pieces = [(bounding_box(piece), piece) for cutout in result.cutouts for piece in cutout.pieces]
    for q in sample_points(item, result, grid):
        expected = ref.hole(q)
        if expected is None:
            continue
        tally.points += 1
        got = any(x0 <= q[0] <= x1 and y0 <= q[1] <= y1 and _strict_inside(q, piece) >= 0
                  for (x0, y0, x1, y1), piece in pieces)
        assert got == expected, (item.id, q, got, expected)
