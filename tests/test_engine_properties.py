"""Property tests of the general engine's invariants (docs/engine.md, "Semantics"), asked of every
engine in ENGINES: today the exact reference (foldsim.reference_general); the batched kernel is
appended to ENGINES to be held to the same properties.

`check_properties(simulate_fn, item)` asks one engine about an item and the items derived from it
(each punch alone, the whole problem turned by 1-3 quarter turns, mirrored) in ONE call of
`simulate_fn(items) -> results` (each with .status, .holes, .layers_under and, optionally,
.failed_step), and checks:

- status: not_realizable at the same fold as the reference's walk, else off_paper at the first punch
  over no paper, else ok; the same status for the turned and mirrored problems;
- per punch: at most 2^k holes and layers after k folds, every hole on the viewed sheet, no two holes
  at one place, holes <= layers under the point;
- the hole positions are exactly the flat points that the actions carry onto the punch (a point
  tracker: a point's path through half-plane reflections, rotations and flips, enumerated backward
  from the punch over every fold's two branches; it shares only the resolved fold lines with the
  reference, which box-relative lines need);
- at a *generic* punch (coordinates n + a/7 with a, b, a - b, a + b not multiples of 7, while every
  crease has a 2,3-smooth offset) no crease can pass: there holes = layers = tracked points, and each
  hole's direction and `mirrored` flag are exactly the tracked layer's (mirrored = an odd number of
  folds moved that layer: a flip turns the layer and the view alike); elsewhere the descriptor is one of the tracked
  layers' at that point (the topmost one's, which the tracker does not know);
- the item's holes are the multiset union of its punches' holes;
- turning the whole problem a quarter turn (sheet transposed) turns the answer; mirroring it
  (x -> cols - x) mirrors the answer (directions d -> -d, `mirrored` unchanged: conjugating by a
  reflection keeps a map's handedness).

Examples: 3 % of FOLDSIM_FUZZ_EXAMPLES (60 by default, 300 under `make fuzz`).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as Q
from math import ceil, floor

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from conftest import fuzz_settings
from foldsim.engine import simulate_items
from foldsim.holes import SHAPES, SIZES
from foldsim.limits import MAX_DENOMINATOR
from foldsim.reference_general import IDENTITY, Iso, flip_across, reference_batch, reference_pieces, rotation_about
from foldsim.sheets import SIDE_SIGNS, Flip, Fold, Line, PointHole, Punch, Rotate, SheetItem, SheetSpec

ENGINES = [("reference", reference_batch), ("kernel", simulate_items)]
SHARE = 0.03
#: the kernel compiles once per new (sheet, mesh, actions, punches) shape, a few seconds each on the
#: 2-core CPU, so it gets a smaller share of the examples here (make fuzz runs 5x as many); the
#: MentalBlackboard space, the families and the FOLD readers hold it to the reference too
KERNEL_SHARE = 0.002

FAMILY_PHI = {"H": lambda p: p[1], "V": lambda p: p[0], "D": lambda p: p[1] - p[0], "N": lambda p: p[0] + p[1]}


# -- the point tracker ------------------------------------------------------------------------------


def _reflection(family: str, c: Q) -> Iso:
    """The mirror across phi = c, written out here apart from the reference's."""
    return {"H": Iso((1, 0, 0, -1), (Q(0), 2 * c)), "V": Iso((-1, 0, 0, 1), (2 * c, Q(0))),
            "D": Iso((0, 1, 1, 0), (-c, c)), "N": Iso((0, -1, -1, 0), (c, c))}[family]


def _direction(h: Iso, d: int) -> int:
    """docs/engine.md: a rotation by a: d + a; a reflection across a line at angle f: 2f + 180 - d."""
    a, _, c, _ = h.m
    angle = {(1, 0): 0, (0, 1): 90, (-1, 0): 180, (0, -1): 270}[(a, c)]  # of the first column
    return (d + angle) % 360 if h.det == 1 else (angle + 180 - d) % 360


def track(item: SheetItem, folds, p) -> dict[tuple[Q, Q], set[tuple[Iso, int]]]:
    """Every flat sheet point u that the actions carry onto p, with the isometries (and reflection
    counts) of the paths that do: backward from p, a fold's stationary branch keeps the point and its
    moving branch reflects it (both only from the stationary closed half-plane: after a fold nothing
    lies strictly on the moving side); rotations and flips are undone. The count is of the folds
    that moved the point."""
    centre = (Q(item.sheet.cols, 2), Q(item.sheet.rows, 2))
    states = {(p, IDENTITY, 0)}  # (point at time i, isometry from time i to the end, reflections)
    for action, fold in reversed(list(zip(item.actions, folds))):
        if isinstance(action, Rotate):
            a = rotation_about(centre, action.quarters)
        elif isinstance(action, Flip):
            a = flip_across(centre[0])
        else:
            rho = _reflection(fold.family, fold.c)
            nxt = set()
            for q, g, n in states:
                if fold.sign * (FAMILY_PHI[fold.family](q) - fold.c) <= 0:
                    nxt.add((q, g, n))
                    nxt.add((rho.apply(q), g.after(rho), n + 1))
            states = nxt
            continue
        inverse = a.inverse()
        states = {(inverse.apply(q), g.after(a), n) for q, g, n in states}
    cols, rows = item.sheet.cols, item.sheet.rows
    out: dict[tuple[Q, Q], set[tuple[Iso, int]]] = {}
    for u, g, n in states:
        if 0 <= u[0] <= cols and 0 <= u[1] <= rows:
            out.setdefault(u, set()).add((g, n))
    return out


def view_of(item: SheetItem) -> Iso:
    centre = (Q(item.sheet.cols, 2), Q(item.sheet.rows, 2))
    view = IDENTITY
    for action in item.actions:
        if isinstance(action, Rotate):
            view = rotation_about(centre, action.quarters).after(view)
        elif isinstance(action, Flip):
            view = flip_across(centre[0]).after(view)
    return view


def viewed_size(item: SheetItem) -> tuple[int, int]:
    quarters = sum(a.quarters for a in item.actions if isinstance(a, Rotate))
    return (item.sheet.rows, item.sheet.cols) if quarters % 2 else (item.sheet.cols, item.sheet.rows)


def is_generic(punch: Punch) -> bool:
    a, b = (punch.x * 7) % 7, (punch.y * 7) % 7
    return punch.x.denominator == 7 and punch.y.denominator == 7 and a not in (b, 7 - b)


# -- turning and mirroring a whole problem --------------------------------------------------------

TURN_SIDE = {"above": "left", "below": "right", "right": "above", "left": "below",
             "upper_left": "lower_left", "lower_right": "upper_right", "upper_right": "upper_left",
             "lower_left": "lower_right"}
MIRROR_SIDE = {"above": "above", "below": "below", "right": "left", "left": "right",
               "upper_left": "upper_right", "lower_right": "lower_left", "upper_right": "upper_left",
               "lower_left": "lower_right"}


def _moves(action: Fold, resolved, sides: dict) -> tuple[str, str | None]:
    """The transformed fold's moving rule and tie: named sides and the tie (of "smaller" and of
    "away_from" a point on the line) turn with the problem. `resolved` is kept for callers."""
    del resolved
    return sides.get(action.moves, action.moves), sides[action.tie] if action.tie else None


def turn_item(item: SheetItem, folds=()) -> tuple[SheetItem, list[int]]:
    """The problem turned a quarter turn counter-clockwise, T(x, y) = (rows - y, x), on the
    transposed sheet, and the new 1-based index of each action. A flip (across the old vertical
    centre line, now horizontal) becomes Flip then Rotate(2)."""
    rows = item.sheet.rows

    def point(p):
        return (rows - p[1], p[0])

    actions, index = [], []
    for i, action in enumerate(item.actions):
        index.append(len(actions) + 1)
        if isinstance(action, Rotate):
            actions.append(action)
        elif isinstance(action, Flip):
            actions += [Flip(), Rotate(2)]
        else:
            family, line = action.line.family, action.line
            new_family = {"H": "V", "V": "H", "D": "N", "N": "D"}[family]
            if line.at is not None:
                at = {"H": rows - line.at, "V": line.at, "D": rows - line.at, "N": line.at - rows}[family]
                new_line = Line(new_family, at=at)
            else:
                f = 1 - line.box_fraction if family in "HD" else line.box_fraction
                new_line = Line.box(new_family, f, square=line.square_box)
            moves, tie = _moves(action, folds[i] if i < len(folds) else None, TURN_SIDE)
            actions.append(Fold(new_line, moves, action.front, tie=tie,
                                point=point(action.point) if moves == "away_from" else None))
    punches = [Punch(*point((p.x, p.y)), p.shape, p.size, p.direction + 90) for p in item.punches]
    return SheetItem(SheetSpec(rows, item.sheet.cols), tuple(actions), tuple(punches)), index


def mirror_item(item: SheetItem, folds=()) -> SheetItem:
    """The problem mirrored across x = cols/2."""
    cols = item.sheet.cols

    def point(p):
        return (cols - p[0], p[1])

    actions = []
    for i, action in enumerate(item.actions):
        if isinstance(action, Rotate):
            actions.append(Rotate(-action.quarters))
        elif isinstance(action, Flip):
            actions.append(action)
        else:
            family, line = action.line.family, action.line
            new_family = {"H": "H", "V": "V", "D": "N", "N": "D"}[family]
            if line.at is not None:
                at = {"H": line.at, "V": cols - line.at, "D": line.at + cols, "N": line.at - cols}[family]
                new_line = Line(new_family, at=at)
            else:
                f = 1 - line.box_fraction if family == "V" else line.box_fraction
                new_line = Line.box(new_family, f, square=line.square_box)
            moves, tie = _moves(action, folds[i] if i < len(folds) else None, MIRROR_SIDE)
            actions.append(Fold(new_line, moves, action.front, tie=tie,
                                point=point(action.point) if moves == "away_from" else None))
    punches = [Punch(*point((p.x, p.y)), p.shape, p.size, -p.direction) for p in item.punches]
    return SheetItem(item.sheet, tuple(actions), tuple(punches))


def turned_holes(holes, size) -> list[PointHole]:
    w, h = size
    return sorted(PointHole(h - p.y, p.x, p.shape, p.size, (p.direction + 90) % 360, p.mirrored) for p in holes)


def mirrored_holes(holes, size) -> list[PointHole]:
    w, _ = size
    return sorted(PointHole(w - p.x, p.y, p.shape, p.size, (-p.direction) % 360, p.mirrored) for p in holes)


def with_flags(holes):
    return sorted((h, h.mirrored) for h in holes)


# -- the properties -------------------------------------------------------------------------------


def check_properties(simulate_fn, item: SheetItem) -> None:
    """Every invariant of the module docstring for one item, asking `simulate_fn` once."""
    state = reference_pieces(item)  # the walk's fold lines (box-relative lines need the paper)
    singles = [SheetItem(item.sheet, item.actions, (p,)) for p in item.punches]
    turned, steps = [], []  # the turned items; where each original action went in them
    current, folds, where = item, state.folds, list(range(1, len(item.actions) + 1))
    for _ in range(3):  # after the first turn no away_from point lies on its line
        current, index = turn_item(current, folds)
        where = [index[w - 1] for w in where]
        turned.append(current)
        steps.append(where)
        folds = ()
    mirrored = mirror_item(item, state.folds)
    batch = [item, *singles, *turned, mirrored]
    results = list(simulate_fn(batch))
    assert len(results) == len(batch)
    if any(r.status == "invalid" and "mesh resolution" in r.reason for r in results):
        # the kernel's documented limit: lines that need a finer mesh than MAX_TRIANGLES holds
        # (repeated box thirds of a wide sheet) are refused with one line, not answered
        reject()
    result, single_results = results[0], results[1:1 + len(singles)]
    turned_results, mirrored_result = results[1 + len(singles):-1], results[-1]
    step = getattr(result, "failed_step", None)

    # status
    if state.status != "ok":
        assert result.status == "not_realizable", (result.status, state.reason)
        if step is not None:
            assert step == state.failed_step
        assert all(r.status == "not_realizable" for r in results), [r.status for r in results]
        if step is not None:
            assert [r.failed_step for r in turned_results] == [w[step - 1] for w in steps]
            assert mirrored_result.failed_step == step
        return
    folds = [f for f in state.folds]
    tracked = [track(item, folds, (p.x, p.y)) for p in item.punches]
    off = [i for i, t in enumerate(tracked) if not t]
    assert result.status == ("off_paper" if off else "ok"), (result.status, getattr(result, "reason", ""))
    if off and step is not None:
        assert step == off[0] + 1
    for r, t in zip(single_results, tracked):
        assert r.status == ("ok" if t else "off_paper")
    for r in [*turned_results, mirrored_result]:
        assert r.status == result.status

    # per punch
    n_folds = sum(isinstance(a, Fold) for a in item.actions)
    view = view_of(item)
    w, h = viewed_size(item)
    corners = [view.apply((Q(x), Q(y))) for x in (0, item.sheet.cols) for y in (0, item.sheet.rows)]
    origin = (min(c[0] for c in corners), min(c[1] for c in corners))
    for punch, r, t in zip(item.punches, single_results, tracked):
        if not t:
            continue
        [layers] = r.layers_under
        holes = list(r.holes)
        assert len(holes) <= 2 ** n_folds and layers <= 2 ** n_folds
        assert len(holes) <= layers
        assert all(0 <= p.x <= w and 0 <= p.y <= h for p in holes), holes
        assert all((p.shape, p.size) == (punch.shape, punch.size) for p in holes)
        positions = [(p.x, p.y) for p in holes]
        assert len(set(positions)) == len(positions), holes
        expected = {}
        for u, paths in t.items():
            x, y = view.apply(u)
            maps = [(view.after(g.inverse()), n) for g, n in paths]  # h = V ∘ g⁻¹ of each layer there
            expected[(x - origin[0], y - origin[1])] = {
                (_direction(hh, punch.direction), hh.det == -1, n % 2 == 1) for hh, n in maps}
        assert set(positions) == set(expected), (sorted(positions), sorted(expected))
        for p in holes:
            descriptors = expected[(p.x, p.y)]
            assert all(det == odd for _, det, odd in descriptors)  # handedness = parity of the folds
            assert (p.direction, p.mirrored, p.mirrored) in descriptors, (p, descriptors)
        if is_generic(punch):
            assert len(holes) == layers == len(t) and all(len(paths) == 1 for paths in t.values())

    if result.status != "ok":
        return
    # the item is the union of its punches
    assert with_flags(result.holes) == with_flags(h for r in single_results for h in r.holes)
    assert list(result.layers_under) == [n for r in single_results for n in r.layers_under]
    # turning and mirroring the whole problem
    size, holes = (w, h), list(result.holes)
    for r in turned_results:
        holes, size = turned_holes(holes, size), (size[1], size[0])
        assert with_flags(r.holes) == with_flags(holes)
        assert tuple(r.layers_under) == tuple(result.layers_under)
    assert with_flags(mirrored_result.holes) == with_flags(mirrored_holes(result.holes, (w, h)))
    assert tuple(mirrored_result.layers_under) == tuple(result.layers_under)


# -- strategies -----------------------------------------------------------------------------------

BOX_FRACTIONS = (Q(1, 2), Q(1, 3), Q(2, 3), Q(1, 4), Q(3, 4))


def _box(state):
    points = [p for piece in state.pieces for p in piece.current()]
    return (min(p[0] for p in points), min(p[1] for p in points), max(p[0] for p in points), max(p[1] for p in points))


def _lattice(draw, lo: Q, hi: Q) -> Q:
    """A rational with denominator 1, 2 or 3 in [lo - 1, hi + 1]."""
    d = draw(st.sampled_from((1, 2, 3)))
    return Q(draw(st.integers(floor((lo - 1) * d), ceil((hi + 1) * d))), d)


def _fold(draw, state) -> Fold:
    family = draw(st.sampled_from("HVDN"))
    x0, y0, x1, y1 = _box(state)
    phis = [FAMILY_PHI[family]((x, y)) for x in (x0, x1) for y in (y0, y1)]
    if draw(st.integers(0, 9)) < 4:
        line = Line(family, at=_lattice(draw, min(phis), max(phis)))
    else:
        fraction = draw(st.sampled_from(BOX_FRACTIONS))
        line = Line.box(family, fraction, square=family in "DN" and fraction == Q(1, 2) and draw(st.integers(0, 9)) == 0)
    sides = list(SIDE_SIGNS[family])
    moves = draw(st.sampled_from([*sides, *sides, "smaller", "away_from"]))
    tie = draw(st.sampled_from(sides)) if moves in ("smaller", "away_from") else None
    point = None
    if moves == "away_from":
        point = (Q(draw(st.integers(2 * floor(x0), 2 * ceil(x1))), 2), Q(draw(st.integers(2 * floor(y0), 2 * ceil(y1))), 2))
    return Fold(line, moves, draw(st.booleans()), tie=tie, point=point)


def _punch(draw, state) -> Punch:
    """A punch in the paper's box: drawn again (up to 3 times) while it misses the paper, unless
    the draw keeps the miss (about 1 in 8)."""
    for attempt in range(4):
        punch = _punch_in_box(draw, _box(state))
        if attempt == 3 or any(piece.contains((punch.x, punch.y)) for piece in state.pieces):
            return punch
        if draw(st.integers(0, 7)) == 0:
            return punch


def _punch_in_box(draw, box) -> Punch:
    x0, y0, x1, y1 = box
    shape = draw(st.sampled_from((*SHAPES, "glyph")))
    size = draw(st.sampled_from(SIZES))
    direction = draw(st.one_of(st.sampled_from((0, 90, 180, 270)), st.integers(0, 359)))
    if draw(st.booleans()):  # generic: off every crease
        a = draw(st.integers(1, 6))
        b = draw(st.sampled_from([b for b in range(1, 7) if b not in (a, 7 - a)]))
        x = Q(draw(st.integers(floor(x0), max(floor(x0), ceil(x1) - 1)))) + Q(a, 7)
        y = Q(draw(st.integers(floor(y0), max(floor(y0), ceil(y1) - 1)))) + Q(b, 7)
    else:  # a lattice point of the paper's box, often on a crease
        x = x0 + (x1 - x0) * Q(draw(st.integers(0, 6)), 6)
        y = y0 + (y1 - y0) * Q(draw(st.integers(0, 6)), 6)
        if max(x.denominator, y.denominator) > MAX_DENOMINATOR:  # finer than the engine's lattice holds
            x, y = x0, y0  # (docs/errors.md, General records): the box's corner, also often on a crease
    return Punch(x, y, shape, size, direction)


@st.composite
def items(draw) -> SheetItem:
    """A random sheet (1..6 x 1..6), 1-5 folds with up to 2 rotations or flips between them, and
    1-3 punches, most over the folded paper. A fold that cannot be made is drawn again (up to 3
    times) unless the draw keeps it (about 1 in 8); a kept one ends the action list."""
    sheet = SheetSpec(draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    n_folds = draw(st.sampled_from((1, 2, 3, 4, 5)))
    kinds = ["fold"] * n_folds + ["turn"] * draw(st.integers(0, 2))
    kinds = draw(st.permutations(kinds))
    actions: list = []
    state = reference_pieces(SheetItem(sheet, ()))
    for kind in kinds:
        if kind == "turn":
            actions.append(Flip() if draw(st.integers(0, 3)) == 0 else Rotate(draw(st.integers(1, 3))))
            state = reference_pieces(SheetItem(sheet, tuple(actions)))
            continue
        for attempt in range(4):
            fold = _fold(draw, state)
            trial = reference_pieces(SheetItem(sheet, (*actions, fold)))
            if trial.status == "ok" or attempt == 3 or draw(st.integers(0, 7)) == 0:
                break
        actions.append(fold)
        state = trial
        if state.status != "ok":
            break
    punches = [_punch(draw, state) for _ in range(draw(st.integers(1, 3)))]
    return SheetItem(sheet, tuple(actions), tuple(punches))


# -- tests ----------------------------------------------------------------------------------------


@pytest.mark.fuzz
@pytest.mark.parametrize("name, simulate_fn", ENGINES, ids=[name for name, _ in ENGINES])
def test_properties(name, simulate_fn):
    statuses = Counter()

    @fuzz_settings(SHARE if name == "reference" else KERNEL_SHARE)
    @given(items())
    def run(item):
        check_properties(simulate_fn, item)
        statuses[simulate_fn([item])[0].status] += 1

    run()
    assert statuses["ok"] >= sum(statuses.values()) // 3, statuses  # the strategy mostly makes real answers


@pytest.mark.parametrize("name, simulate_fn", ENGINES, ids=[name for name, _ in ENGINES])
def test_properties_on_fixed_items(name, simulate_fn):
    # a few structured items that must pass whatever the random draw: overhang, a 45° fold of a
    # non-square sheet, a flip between folds, punches on creases and at generic points
    h = Q(1, 2)
    cases = [
        SheetItem(SheetSpec(3, 3), (Fold(Line("V", at=2), "left", False),),
                  (Punch(Q(7, 2), h, "triangle"), Punch(Q(5, 2), Q(3, 2), "letter", direction=90))),
        SheetItem(SheetSpec(5, 5), (Fold(Line("H", at=2), "below"), Fold(Line("N", at=5), "lower_left")),
                  (Punch(Q(5, 2), Q(7, 2), "star"), Punch(Q(22, 7), Q(26, 7), "text", direction=45))),
        SheetItem(SheetSpec(4, 2), (Fold(Line.box("V"), "smaller"), Flip(), Fold(Line("D", at=0), "upper_left"), Rotate(1)),
                  (Punch(Q(3, 2), h, "trapezoid", direction=270), Punch(Q(1), Q(1), "circle"))),
        SheetItem(SheetSpec(6, 1), (Fold(Line.box("V", Q(1, 3)), "away_from", point=(Q(5), h)), Rotate(3),
                                    Fold(Line.box("H", Q(3, 4)), "smaller", tie="below")),
                  (Punch(Q(22, 7), Q(15, 7), "triangle", direction=30),)),
    ]
    for item in cases:
        check_properties(simulate_fn, item)
