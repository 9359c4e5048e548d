"""The exact general reference (foldsim.reference_general) on hand-worked cases, and the
MentalBlackboard preset (foldsim.presets) run through it against the MentalBlackboard simulator.

Every expected answer below is worked by hand in the comment above it: F(x) is the flat preimage of
a punch, "g" a layer's isometry, h = V ∘ g⁻¹ the map of its hole's descriptor (docs/engine.md).
Triangles (period 4) are used wherever directions matter.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction as Q

import numpy as np
import pytest

import foldsim
from foldsim import Config, Hole
from foldsim.holes import SHAPE_PERIOD, SHAPES, SIZES
from foldsim.presets import (MB_CENTROIDS, MB_RIGID_TRIANGLES, location_of_point, mb_hole,
                             mentalblackboard_item)
from foldsim.reference_general import reference_pieces, reference_simulate
from foldsim.sheets import Flip, Fold, Line, PointHole, Punch, Rotate, SheetItem, SheetSpec

H = Q(1, 2)


def item(cols, rows, actions, punches):
    return SheetItem(SheetSpec(cols, rows), tuple(actions), tuple(punches))


def tri(x, y, direction=0):
    return Punch(Q(x), Q(y), "triangle", "small", direction)


def hole(x, y, direction=0, mirrored=False):
    return PointHole(Q(x), Q(y), "triangle", "small", direction, mirrored)


def run(it, rigid=None):
    return reference_simulate(it, rigid)


def holes_with_flags(result):
    """Holes with `mirrored` too (PointHole equality ignores it)."""
    return [(h, h.mirrored) for h in result.holes]


# -- folds -----------------------------------------------------------------------------------------


def test_third_folded_over_no_overhang():
    # 3x3, left third (x < 1) over x = 1 to the front: it lands on [1, 2]; paper is [1, 3] x [0, 3].
    # Punch (3/2, 1/2), triangle at 90: the sheet layer (g = id) gives (3/2, 1/2) at 90; the flap
    # (g = reflection x -> 2 - x, a reflection across a vertical line, 2φ = 180) gives
    # (1/2, 1/2) at 180 + 180 - 90 = 270, mirrored. Two layers.
    # Punch (5/2, 1/2): the sheet layer only -> (5/2, 1/2) at 90.
    r = run(item(3, 3, [Fold(Line("V", at=1), "left", True)], [tri(H * 3, H, 90), tri(Q(5, 2), H, 90)]))
    assert r.status == "ok" and r.failed_step is None
    assert holes_with_flags(r) == [(hole(H, H, 270), True), (hole(Q(3, 2), H, 90), False),
                                   (hole(Q(5, 2), H, 90), False)]
    assert r.layers_under == (2, 1)


def test_smaller_side_and_box_third_give_the_same_fold():
    # "smaller" at x = 1: extents 1 (left) against 2 (right), the left moves; Line.box("V", 1/3) of
    # the 3-wide box is x = 0 + 3/3 = 1; away_from (5/2, 1/2) moves the side without it: the left.
    punches = [tri(Q(3, 2), H, 90)]
    base = run(item(3, 3, [Fold(Line("V", at=1), "left")], punches))
    for fold in (Fold(Line("V", at=1), "smaller"), Fold(Line.box("V", Q(1, 3)), "smaller"),
                 Fold(Line("V", at=1), "away_from", point=(Q(5, 2), H))):
        assert holes_with_flags(run(item(3, 3, [fold], punches))) == holes_with_flags(base)


def test_smaller_tie_and_away_from_on_the_line():
    # x = 3/2 on a 3-wide sheet: both extents 3/2. tie="left" moves the left half onto [3/2, 3]
    # (punch (2, 1/2) hits the flap at preimage 3 - 2 = 1); default tie is the first named side,
    # "right", which moves the right half onto [0, 3/2] (punch (1, 1/2) hits the flap at 3 - 1 = 2).
    # away_from a point on the line falls back to smaller with the first named side: right again.
    left = run(item(3, 1, [Fold(Line("V", at=Q(3, 2)), "smaller", tie="left")], [tri(2, H)]))
    assert [(h.x, h.y) for h in left.holes] == [(1, H), (2, H)]
    right = run(item(3, 1, [Fold(Line("V", at=Q(3, 2)), "smaller")], [tri(1, H)]))
    assert [(h.x, h.y) for h in right.holes] == [(1, H), (2, H)]
    away = run(item(3, 1, [Fold(Line("V", at=Q(3, 2)), "away_from", point=(Q(3, 2), H))], [tri(1, H)]))
    assert away.holes == right.holes
    assert run(item(3, 1, [Fold(Line("V", at=Q(3, 2)), "smaller")], [tri(2, H)])).status == "off_paper"


def test_bigger_side_over_with_overhang():
    # 3x3, the LEFT side of x = 2 (two cells wide) folds to the back: x -> 4 - x puts it on [2, 4],
    # one cell past the sheet's old right edge. Paper: [2, 4] x [0, 3].
    # Punch (7/2, 1/2) in the overhang: the flap only, preimage (4 - 7/2, 1/2) = (1/2, 1/2), direction
    # 90 -> 180 + 180 - 90 = 270, mirrored; one layer.
    # Punch (5/2, 3/2) on the double layer: sheet (5/2, 3/2) at 90, flap (3/2, 3/2) at 270; two layers.
    r = run(item(3, 3, [Fold(Line("V", at=2), "left", False)], [tri(Q(7, 2), H, 90), tri(Q(5, 2), Q(3, 2), 90)]))
    assert r.status == "ok"
    assert holes_with_flags(r) == [(hole(H, H, 270), True), (hole(Q(3, 2), Q(3, 2), 270), True),
                                   (hole(Q(5, 2), Q(3, 2), 90), False)]
    assert r.layers_under == (1, 2)
    state = reference_pieces(item(3, 3, [Fold(Line("V", at=2), "left", False)], []))
    xs = [p[0] for piece in state.pieces for p in piece.current()]
    assert (min(xs), max(xs)) == (2, 4)
    # to the back: the flap is underneath
    [flap] = [p for p in state.pieces if p.iso.det == -1]
    [sheet] = [p for p in state.pieces if p.iso.det == 1]
    assert flap.layer < sheet.layer


def test_horizontal_then_diagonal_fold():
    # 5x5. Fold 1: y = 2, the lower part (below) to the front: y -> 4 - y, it lands on [2, 4].
    # Paper [0, 5] x [2, 5]. Fold 2: x + y = 5 (N), the lower-left side moves: ρN (x, y) = (5 - y, 5 - x).
    # Punch p = (5/2, 7/2): x + y = 6 > 5 stays; ρN(p) = (3/2, 5/2), on the moving side and on paper.
    # Layers at p before fold 2: sheet (5/2, 7/2) [g = id], lower flap (5/2, 4 - 7/2) = (5/2, 1/2) [ρH];
    # at (3/2, 5/2): sheet (3/2, 5/2) and lower flap (3/2, 3/2). After fold 2 all four are under p:
    #   (5/2, 7/2)  h = id             -> 0,   not mirrored
    #   (5/2, 1/2)  h = ρH (2φ = 0)    -> 0 + 180 - 0 = 180, mirrored
    #   (3/2, 5/2)  h = ρN (2φ = 270)  -> 270 + 180 - 0 = 90, mirrored (SPEC: "\" swaps 0 and 90)
    #   (3/2, 3/2)  h = ρH ρN = [[0,-1],[1,0]], a quarter turn -> 90, not mirrored
    r = run(item(5, 5, [Fold(Line("H", at=2), "below"), Fold(Line("N", at=5), "lower_left")],
                 [tri(Q(5, 2), Q(7, 2))]))
    assert holes_with_flags(r) == [(hole(Q(3, 2), Q(3, 2), 90), False), (hole(Q(3, 2), Q(5, 2), 90), True),
                                   (hole(Q(5, 2), H, 180), True), (hole(Q(5, 2), Q(7, 2), 0), False)]
    assert r.layers_under == (4,)


def test_diagonal_direction_table():
    # 2x2, y - x = 0 (D, "/"), the upper-left half to the front: ρD (x, y) = (y, x).
    # Punch (3/2, 1/2): sheet (3/2, 1/2) unchanged; flap (1/2, 3/2) with h = ρD, first column (0, 1),
    # 2φ = 90: d -> 270 - d, so 0 -> 270 and 90 -> 180 (SPEC §4: "/" swaps 0/270 and 90/180).
    fold = [Fold(Line("D", at=0), "upper_left")]
    r0 = run(item(2, 2, fold, [tri(Q(3, 2), H, 0)]))
    r90 = run(item(2, 2, fold, [tri(Q(3, 2), H, 90)]))
    assert holes_with_flags(r0) == [(hole(H, Q(3, 2), 270), True), (hole(Q(3, 2), H, 0), False)]
    assert holes_with_flags(r90) == [(hole(H, Q(3, 2), 180), True), (hole(Q(3, 2), H, 90), False)]


@pytest.mark.parametrize("front", [True, False])
def test_punch_on_the_crease_is_one_hole_from_the_topmost_layer(front):
    # 2x1, x = 1, the left cell over (front or back). Punch (1, 1/2) lies on the crease: the sheet
    # layer's preimage is (1, 1/2) and so is the flap's (2 - 1 = 1): one hole, two layers.
    # Its descriptor comes from the topmost layer: the flap when folded to the front (90 -> 270,
    # mirrored), the sheet when folded to the back (90, not mirrored).
    r = run(item(2, 1, [Fold(Line("V", at=1), "left", front)], [tri(1, H, 90)]))
    assert holes_with_flags(r) == ([(hole(1, H, 270), True)] if front else [(hole(1, H, 90), False)])
    assert r.layers_under == (2,)


def test_split_pieces_keep_one_layer_and_seams_are_one_hole():
    # 2x2, y = 1 (H) below to the front, then x = 1 (V) left to the front: the lower flap is split by
    # the second crease; its two halves have one layer each. Punch (1, 3/2): on the second crease;
    # preimages (1, 3/2) (sheet) and (1, 1/2) (lower flap): 2 holes, but 4 layers (every one of the
    # four quarters touches the point).
    r = run(item(2, 2, [Fold(Line("H", at=1), "below"), Fold(Line("V", at=1), "left")], [tri(1, Q(3, 2))]))
    assert [(h.x, h.y) for h in r.holes] == [(1, H), (1, Q(3, 2))]
    assert r.layers_under == (4,)
    state = reference_pieces(item(2, 2, [Fold(Line("H", at=1), "below"), Fold(Line("V", at=1), "left")], []))
    assert len(state.pieces) == 4 and sorted(p.layer for p in state.pieces) == [0, 1, 2, 3]


# -- failures --------------------------------------------------------------------------------------


def test_point_off_the_paper():
    # after folding the left third over, paper is [1, 3] x [0, 3]: (1/2, 1/2) holds none.
    # The first punch is fine, the second is off: failed_step names punch 2.
    r = run(item(3, 3, [Fold(Line("V", at=1), "left")], [tri(2, 2), tri(H, H)]))
    assert (r.status, r.failed_step, r.holes) == ("off_paper", 2, ())
    assert "punch 2" in r.reason


@pytest.mark.parametrize("rows, actions, step", [
    (3, [Fold(Line("V", at=4), "left")], 1),  # misses the 3-wide sheet
    (3, [Fold(Line("V", at=3), "left")], 1),  # runs along its right edge: no paper on the right
    (3, [Fold(Line("D", at=3), "upper_left")], 1),  # y - x = 3 only touches the corner (0, 3)
    (3, [Fold(Line("V", at=1), "left"), Fold(Line("V", at=H), "left")], 2),  # the paper is now [1, 3]
    (2, [Rotate(1), Fold(Line.box("D", H, square=True), "upper_left")], 2),  # the 2x3 box is not square
])
def test_line_that_leaves_one_side_empty_is_not_realizable(rows, actions, step):
    r = run(item(3, rows, actions, [tri(2, 1)]))
    assert (r.status, r.failed_step, r.holes) == ("not_realizable", step, ())
    assert f"action {step}" in r.reason


def test_rigid_piece_cut_is_not_realizable():
    # MentalBlackboard: H1 leaves a 4x2 strip; a diagonal of a 4x2 box is refused (not square), and
    # an absolute line through the middle of a triangle is refused too (rigid pieces never split).
    h1 = mentalblackboard_item(Config.from_codes("H1-F"))
    r = run(SheetItem(h1.sheet, h1.actions + (Fold(Line.box("D", H, square=True), "upper_left"),)), MB_RIGID_TRIANGLES)
    assert (r.status, r.failed_step) == ("not_realizable", 2) and "not square" in r.reason
    r = run(SheetItem(h1.sheet, (Fold(Line("V", at=Q(3, 2)), "left"),)), MB_RIGID_TRIANGLES)
    assert (r.status, r.failed_step) == ("not_realizable", 1) and "rigid piece" in r.reason
    # without rigid pieces the same fold just splits
    assert run(SheetItem(h1.sheet, (Fold(Line("V", at=Q(3, 2)), "left"),))).status == "ok"


# -- rotations and flips ---------------------------------------------------------------------------


def test_rotation_of_a_strip():
    # 2 wide x 1 high, centre (1, 1/2). Fold x = 1, the right cell over to the front: paper [0, 1]^2.
    # Rotate(1) about the centre: (x, y) -> (1 - (y - 1/2), 1/2 + (x - 1)), the paper is
    # [1/2, 3/2] x [-1/2, 1/2]; the viewed sheet is [1/2, 3/2] x [-1/2, 3/2], origin (1/2, -1/2).
    # Punch (1, 1/4): before the turn it was at (3/4, 1/2): sheet layer (3/4, 1/2), flap (5/4, 1/2).
    # Viewed: (3/4, 1/2) -> (1, 1/4) -> (1/2, 3/4); (5/4, 1/2) -> (1, 3/4) -> (1/2, 5/4).
    # Directions (0): the sheet layer h = R R⁻¹ = id -> 0; the flap h = R ρV R⁻¹, a reflection across
    # a horizontal line (2φ = 0) -> 180, mirrored.
    r = run(item(2, 1, [Fold(Line("V", at=1), "right"), Rotate(1)], [tri(1, Q(1, 4))]))
    assert holes_with_flags(r) == [(hole(H, Q(3, 4), 0), False), (hole(H, Q(5, 4), 180), True)]
    # every hole of a turned 2x1 sheet lies on the 1x2 viewed sheet
    assert all(0 <= h.x <= 1 and 0 <= h.y <= 2 for h in r.holes)


def test_rotation_alone():
    # 2x1 turned a quarter: punch (1, 1) -> preimage R⁻¹: (1,1) - (1, 1/2) = (0, 1/2) -> (1/2, 0)
    # -> (3/2, 1/2), the right cell; viewed at (1, 1) - (1/2, -1/2) = (1/2, 3/2), the top of the 1x2
    # view, direction unchanged (h = id).
    r = run(item(2, 1, [Rotate(1)], [tri(1, 1, 90)]))
    assert holes_with_flags(r) == [(hole(H, Q(3, 2), 90), False)]
    # a half turn of a 3x2 sheet: (1/2, 1/2) -> preimage (5/2, 3/2); viewed where punched
    r = run(item(3, 2, [Rotate(2)], [tri(H, H, 90)]))
    assert holes_with_flags(r) == [(hole(H, H, 90), False)]


def test_flip():
    # 2x1, x = 1, the left cell over to the front (flap on top), then Flip (across x = 1, layers
    # reversed: the flap is now at the back). Paper [0, 1].
    # Punch (1/2, 1/2): sheet layer g = F, preimage (3/2, 1/2), viewed F(u) = (1/2, 1/2), h = id -> 90;
    # flap g = F ρ = id (both reflect across x = 1), preimage (1/2, 1/2), viewed (3/2, 1/2),
    # h = F -> 180 + 180 - 90 = 270, mirrored.
    r = run(item(2, 1, [Fold(Line("V", at=1), "left"), Flip()], [tri(H, H, 90)]))
    assert holes_with_flags(r) == [(hole(H, H, 90), False), (hole(Q(3, 2), H, 270), True)]
    # on the crease (1, 1/2): one hole, from the topmost layer, which after the flip is the sheet layer
    r = run(item(2, 1, [Fold(Line("V", at=1), "left"), Flip()], [tri(1, H, 90)]))
    assert holes_with_flags(r) == [(hole(1, H, 90), False)] and r.layers_under == (2,)
    # a flip alone: the viewer sees the back, the hole appears where punched, not mirrored
    r = run(item(2, 1, [Flip()], [tri(Q(1, 4), H, 90)]))
    assert holes_with_flags(r) == [(hole(Q(1, 4), H, 90), False)]
    assert reference_pieces(item(2, 1, [Flip()], [])).view.apply((Q(1, 4), H)) == (Q(7, 4), H)


def test_mirrored_flags_and_directions_of_a_triangle():
    # 2x2: x = 1 left over, then y = 1 lower over. Punch (3/2, 3/2), direction 0, hits 4 layers:
    #   (3/2, 3/2) id -> 0;  (1/2, 3/2) ρV (2φ = 180) -> 0, mirrored;  (3/2, 1/2) ρH (2φ = 0) -> 180,
    #   mirrored;  (1/2, 1/2) ρH ρV = a half turn -> 180, not mirrored (two reflections).
    r = run(item(2, 2, [Fold(Line("V", at=1), "left"), Fold(Line("H", at=1), "below")], [tri(Q(3, 2), Q(3, 2))]))
    assert holes_with_flags(r) == [(hole(H, H, 180), False), (hole(H, Q(3, 2), 0), True),
                                   (hole(Q(3, 2), H, 180), True), (hole(Q(3, 2), Q(3, 2), 0), False)]


def test_never_raises_on_box_lines_off_the_paper():
    # a box diagonal of an L-shaped paper can miss every piece's far corner: a status, not an error
    it = item(2, 2, [Fold(Line("D", at=0), "upper_left"), Fold(Line.box("N", Q(1, 3)), "smaller")], [tri(Q(3, 2), H)])
    assert run(it).status in ("ok", "off_paper", "not_realizable")


# -- the MentalBlackboard preset -------------------------------------------------------------------


def test_preset_triangles_and_locations():
    # SPEC §1: location 1 is the lower-left half of the top-left cell [0,1] x [3,4]: (0,4), (0,3), (1,3),
    # centroid (1/3, 10/3); location 4 the lower-right half of cell (0, 1): (1,3), (2,3), (2,4) ->
    # (5/3, 10/3); location 32 the upper-right half of cell (3, 3) = [3,4] x [0,1] (r + c even, "\"):
    # (3,1), (4,1), (4,0) -> (11/3, 2/3). The 32 triangles have area 1/2 each: 16 in all.
    assert location_of_point(Q(1, 3), Q(10, 3)) == 1
    assert location_of_point(Q(5, 3), Q(10, 3)) == 4
    assert location_of_point(Q(11, 3), Q(2, 3)) == 32
    assert location_of_point(Q(1, 2), Q(1, 2)) is None
    assert len(set(MB_CENTROIDS)) == 32
    assert sum(abs(Q((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]), 2))
               for a, b, c in MB_RIGID_TRIANGLES) == 16


def mb_keys_of_reference(result):
    out = Counter()
    for h in result.holes:
        mb = mb_hole(h)
        assert mb is not None, h
        out[(*mb.key, mb.mirrored)] += 1
    return out


def mb_mismatch(config: Config, expected) -> str | None:
    """Why the preset run through the reference disagrees with the MentalBlackboard simulator's
    Result (status, failed step, holes by class with mirrored flags, layers under each punch)."""
    got = reference_simulate(mentalblackboard_item(config), MB_RIGID_TRIANGLES)
    if got.status != expected.status:
        return f"status {got.status} ({got.reason}) != {expected.status} ({expected.reason})"
    if got.status != "ok":
        return None if got.failed_step == expected.failed_step else f"failed step {got.failed_step} != {expected.failed_step}"
    want = Counter((*h.key, h.mirrored) for h in expected.holes)
    if mb_keys_of_reference(got) != want:
        return f"holes {sorted(mb_keys_of_reference(got).elements())} != {sorted(want.elements())}"
    layers = tuple(expected.layers[h.location] for h in config.holes)
    if got.layers_under != layers:
        return f"layers under {got.layers_under} != {layers}"
    return None


def assert_matches(configs):
    results = foldsim.simulate(configs)
    bad = [(c.id or ",".join(c.actions), why) for c, r in zip(configs, results)
           if (why := mb_mismatch(c, r)) is not None]
    assert not bad, f"{len(bad)} of {len(configs)} differ, e.g. {bad[:3]}"
    return results


def test_preset_matches_mentalblackboard_on_the_published_files(planning_file, generalization_file):
    configs = [Config.from_record(r) for path in (planning_file, generalization_file)
               for r in json.loads(path.read_text())]
    assert len(configs) == 880
    results = assert_matches(configs)
    # SPEC §6: the 5 published items with a fold that cuts a triangle are not realizable
    assert sum(r.status == "not_realizable" for r in results) == 5


def random_holes(rng, n):
    return [Hole.make(str(s), str(z), 90 * int(q), int(loc)) for s, z, q, loc in
            zip(rng.choice(SHAPES, n), rng.choice(SIZES, n), rng.integers(0, 4, n), rng.integers(1, 33, n))]


def test_preset_matches_mentalblackboard_on_random_codes():
    # any code sequence of 1-6 actions, realizable or not, with 1-3 random holes (often off paper)
    rng = np.random.default_rng(17)
    codes = [f"{t}-{s}" for t in ("H1", "H2", "V1", "V2", "D1", "D2", "D3", "D4") for s in "FB"] + ["R-90", "R-180", "R-270"]
    configs = [Config.from_codes([str(c) for c in rng.choice(codes, int(rng.integers(1, 7)))], random_holes(rng, int(rng.integers(1, 4))))
               for _ in range(250)]
    results = assert_matches(configs)
    assert {r.status for r in results} == {"ok", "off_paper", "not_realizable"}


@pytest.mark.slow
def test_preset_matches_mentalblackboard_on_the_physical_space():
    # 300 configurations drawn from the enumerated physical space (every pattern), each punched at
    # its folded paper's locations (so most are "ok") plus sometimes one random location
    from foldsim.codes import action_code
    from foldsim.enumerate import enumerate_space
    from foldsim.rules import PHYSICAL

    space = enumerate_space(PHYSICAL)
    assert len(space) == 71_776
    rng = np.random.default_rng(5)
    rows = space.actions[rng.choice(len(space), 300, replace=False)]
    bare = [Config.from_codes([action_code(int(a)) for a in row if a]) for row in rows]
    folded = foldsim.simulate(bare)
    configs = []
    for config, result in zip(bare, folded):
        on_paper = sorted(result.layers)
        picks = list(rng.choice(on_paper, min(len(on_paper), int(rng.integers(1, 4))), replace=False))
        if rng.random() < 0.2:
            picks.append(int(rng.integers(1, 33)))
        holes = random_holes(rng, len(picks))
        configs.append(Config.from_codes(config.actions, [Hole.make(h.shape, h.size, h.direction, int(loc))
                                                          for h, loc in zip(holes, picks)]))
    results = assert_matches(configs)
    assert sum(r.status == "ok" for r in results) > 200
