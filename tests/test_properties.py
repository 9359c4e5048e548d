"""Property-based tests of the symmetry invariants (issue 2, item 7 a-g)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from foldsim import Config, Hole, simulate
from foldsim.batching import pad_columns
from foldsim.codes import action_code
from foldsim.holes import SHAPES, SIZES
from foldsim.kernels import OK, fold_batch
from foldsim.kernels import actions as A
from foldsim.kernels.sheet import FLAT_CENTROID_SUMS
from foldsim.reference import simulate_reference
from foldsim.trace import trace

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FOLD_CODES = [f"{t}-{s}" for t in A.FOLD_TYPES for s in "FB"]
ALL_CODES = FOLD_CODES + ["R-90", "R-180", "R-270"]


def _realizable_pool(n_candidates: int = 6000, seed: int = 7) -> list[tuple[str, ...]]:
    """Realizable action sequences of 1-6 actions, found by filtering random ones in one batch."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n_candidates):
        length = int(rng.integers(1, 7))
        rows.append([int(a) for a in rng.integers(1, A.N_ACTION_CODES, size=length)])
    folded = fold_batch(pad_columns(rows, 6, A.NOOP))
    ok = np.asarray(folded.status.code) == OK
    pool = sorted({tuple(action_code(a) for a in row) for row, good in zip(rows, ok) if good})
    assert len(pool) > 200
    return pool


POOL = _realizable_pool()

holes_st = st.builds(
    lambda shape, size, quarter, loc: Hole.make(shape, size, 90 * quarter, loc),
    st.sampled_from(SHAPES), st.sampled_from(SIZES), st.integers(0, 3), st.integers(1, 32),
)


def run(codes, holes):
    [result] = simulate([Config.from_codes(codes, holes)])
    return result


def keys(holes):
    return Counter(h.key for h in holes)


def on_paper_holes(drawn, layers):
    """Keep holes whose location holds paper (drawn holes elsewhere would be off-paper)."""
    return [h for h in drawn if h.location in layers]


def grid_of_point(x: float, y: float) -> int | None:
    """Grid id whose centroid is (x, y) (sheet units), or None."""
    sums = np.round(np.array([x, y]) * 6).astype(int)
    hit = np.flatnonzero((FLAT_CENTROID_SUMS == sums).all(1))
    return int(hit[0]) + 1 if hit.size else None


# SPEC §4 direction tables for one crease, by crease orientation (in the frame of the fold)
MIRROR = {"H": {0: 2, 1: 1, 2: 0, 3: 3}, "V": {0: 0, 1: 3, 2: 2, 3: 1},
          "/": {0: 3, 1: 2, 2: 1, 3: 0}, "\\": {0: 1, 1: 0, 2: 3, 3: 2}}
ORIENTATION = {"H1": "H", "H2": "H", "V1": "V", "V2": "V", "D1": "/", "D4": "/", "D2": "\\", "D3": "\\"}


@SETTINGS
@given(st.sampled_from(POOL), st.sampled_from(FOLD_CODES), holes_st, st.data())
def test_a_unfolding_a_fold_mirrors_across_its_crease(prefix, last, drawn, data):
    """Punching after a last fold = punching before it at the spot (stationary layers) and at its
    mirror image across the crease (flap layers), that hole's direction reflected by the SPEC rule."""
    codes = (*prefix, last)
    folded = run(codes, [])
    assume(folded.ok)
    step = trace(Config.from_codes(codes)).steps[-1]
    location = data.draw(st.sampled_from(sorted(folded.layers)))
    hole = Hole.make(drawn.shape, drawn.size, 90 * drawn.quarter, location)
    mirror = mirror_across(step.crease, location)
    before = run(prefix, []).layers
    expected = Counter()
    if _stationary(step, location):
        expected += keys(run(prefix, [hole]).holes)
    if mirror in before and not _stationary(step, mirror):
        flipped = Hole.make(hole.shape, hole.size, 90 * MIRROR[ORIENTATION[last[:2]]][hole.quarter], mirror)
        expected += keys(run(prefix, [flipped]).holes)
    assert keys(run(codes, [hole]).holes) == expected


def mirror_across(crease, location: int) -> int | None:
    """Grid id of the mirror image of `location`'s centroid across the crease line."""
    (ax, ay), (bx, by) = crease
    cx, cy = FLAT_CENTROID_SUMS[location - 1] / 6.0
    dx, dy = bx - ax, by - ay
    k = ((cx - ax) * dx + (cy - ay) * dy) / (dx * dx + dy * dy)
    return grid_of_point(ax + 2 * k * dx - (cx - ax), ay + 2 * k * dy - (cy - ay))


def _stationary(step, location: int) -> bool:
    """Does grid position `location` lie on the stationary side of this fold (before it)?"""
    from foldsim.kernels.state import grid_index_of

    before = np.asarray(grid_index_of(step.before))
    layers_here = np.flatnonzero(before == location - 1)
    return bool(layers_here.size) and not step.moving[layers_here].any()


@SETTINGS
@given(st.sampled_from(POOL), st.lists(holes_st, min_size=1, max_size=4))
def test_b_one_hole_per_layer_under_each_punch(codes, holes):
    layers = run(codes, []).layers
    holes = on_paper_holes(holes, layers)
    assume(holes)
    result = run(codes, holes)
    assert result.ok
    assert len(result.holes) == sum(layers[h.location] for h in holes)


@SETTINGS
@given(st.sampled_from(POOL), st.lists(holes_st, min_size=1, max_size=3), st.data())
def test_c_front_and_back_give_identical_holes(codes, holes, data):
    flips = data.draw(st.lists(st.booleans(), min_size=len(codes), max_size=len(codes)))
    flipped = tuple(c[:-1] + {"F": "B", "B": "F"}[c[-1]] if f and not c.startswith("R-") else c
                    for c, f in zip(codes, flips))
    a, b = run(codes, holes), run(flipped, holes)
    assert a.status == b.status
    assert keys(a.holes) == keys(b.holes)
    assert [u[:2] for u in a.unfolding] == [u[:2] for u in b.unfolding]


QUARTER = dict(zip(A.FOLD_TYPES, (A.FOLD_TYPES[i] for i in A.QUARTER_TURN)))
MIRROR_LR = {"H1": "H1", "H2": "H2", "V1": "V2", "V2": "V1", "D1": "D2", "D2": "D1", "D3": "D4", "D4": "D3"}


def turn_location(location: int) -> int:
    x, y = FLAT_CENTROID_SUMS[location - 1] / 6.0
    return grid_of_point(-y, x)


def mirror_location(location: int) -> int:
    x, y = FLAT_CENTROID_SUMS[location - 1] / 6.0
    return grid_of_point(-x, y)


def map_code(code: str, table: dict, rotation_map) -> str:
    if code.startswith("R-"):
        return rotation_map(code)
    return f"{table[code[:2]]}-{code[-1]}"


@SETTINGS
@given(st.sampled_from(POOL), st.lists(holes_st, min_size=1, max_size=3))
def test_d_rotation_equivariance(codes, holes):
    turned_codes = tuple(map_code(c, QUARTER, lambda r: r) for c in codes)
    turn = lambda h: Hole.make(h.shape, h.size, 90 * (h.quarter + 1), turn_location(h.location))  # noqa: E731
    a, b = run(codes, holes), run(turned_codes, [turn(h) for h in holes])
    assert a.status == b.status
    assert keys(turn(h) for h in a.holes) == keys(b.holes)
    assert tuple(map_code(c, QUARTER, lambda r: r) for c in a.unfolding) == b.unfolding


@SETTINGS
@given(st.sampled_from(POOL), st.lists(holes_st, min_size=1, max_size=3))
def test_e_mirror_equivariance(codes, holes):
    opposite_turn = {"R-90": "R-270", "R-180": "R-180", "R-270": "R-90"}
    mirrored_codes = tuple(map_code(c, MIRROR_LR, opposite_turn.get) for c in codes)
    # a left-right mirror is a reflection across a vertical line: d -> 2*90 + 180 - d = -d
    mirror = lambda h: Hole.make(h.shape, h.size, 90 * (-h.quarter % 4), mirror_location(h.location))  # noqa: E731
    a, b = run(codes, holes), run(mirrored_codes, [mirror(h) for h in holes])
    assert a.status == b.status
    assert keys(mirror(h) for h in a.holes) == keys(b.holes)


@SETTINGS
@given(st.sampled_from(POOL), st.lists(holes_st, min_size=2, max_size=4), st.randoms(use_true_random=False))
def test_f_hole_order_does_not_matter(codes, holes, rnd):
    shuffled = list(holes)
    rnd.shuffle(shuffled)
    a, b = run(codes, holes), run(codes, shuffled)
    assert a.status == b.status
    assert keys(a.holes) == keys(b.holes)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(ALL_CODES), min_size=1, max_size=6), st.lists(holes_st, min_size=0, max_size=3))
def test_g_batched_kernel_equals_plain_reference(codes, holes):
    """Any sequence, realizable or not: same status, failing step, holes and unfolding codes."""
    a = run(codes, holes)
    b = simulate_reference(tuple(codes), holes)
    assert a.status == b.status
    if a.status == "ok":
        assert keys(a.holes) == keys(b.holes)
        assert a.unfolding == b.unfolding
    else:
        assert a.failed_step == b.step + 1


def test_g_on_realizable_pool_in_one_batch():
    """400 realizable configurations of the pool, each with a random punch, in one kernel call."""
    rng = np.random.default_rng(3)
    configs = []
    for index in rng.permutation(len(POOL))[:400]:
        codes = POOL[index]
        holes = [Hole.make(SHAPES[rng.integers(9)], SIZES[rng.integers(2)], 90 * int(rng.integers(4)), int(rng.integers(1, 33)))]
        configs.append(Config.from_codes(codes, holes))
    for config, result in zip(configs, simulate(configs)):
        reference = simulate_reference(config.actions, config.holes)
        assert result.status == reference.status
        if result.ok:
            assert keys(result.holes) == keys(reference.holes)
