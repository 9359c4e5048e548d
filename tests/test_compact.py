"""The compact kernel outputs (issue 13, item 3): `simulate_compact_batch` expanded by `hole_table`
gives exactly the holes of the dense `simulate_batch` (hits, directions, in its order), and the same
hole multisets as the plain reference simulator."""

from __future__ import annotations

from collections import Counter

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foldsim import kernels as K
from foldsim.batching import SAFETY_FACTOR, chunk_rows_for, floor_ladder_size, row_bytes, run_chunked
from foldsim.codes import action_code
from foldsim.holes import Hole
from foldsim.reference import simulate_reference
from foldsim.simulate import FILLS, compact_chunk_rows, hole_table, simulate_arrays

A = K.actions
ROWS, PUNCHES, WIDTH = 256, 12, 6
CHUNK = 128  # ROWS run in two chunks
STATUS_OF_REFERENCE = {"ok": K.OK, "off_paper": K.OFF_PAPER}


def random_inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of 0-6 random actions (mostly unrealizable folds, some no-ops inside a row too) with
    punches anywhere (-1 = padding, trailing or not), duplicated punches, and quarter turns of any
    sign and size (directions are taken mod 4)."""
    rng = np.random.default_rng(seed)
    actions = rng.integers(1, A.N_ACTION_CODES, (ROWS, WIDTH)).astype(np.int32)
    actions[np.arange(WIDTH) >= rng.integers(0, WIDTH + 1, ROWS)[:, None]] = A.NOOP
    actions[rng.random((ROWS, WIDTH)) < 0.05] = A.NOOP
    actions[: ROWS // 4, 2:] = A.NOOP  # short rows: most of them realizable, so many holes
    locations = rng.integers(-1, 32, (ROWS, PUNCHES)).astype(np.int32)
    locations[np.arange(PUNCHES) >= rng.integers(0, PUNCHES + 1, ROWS)[:, None]] = -1
    twice = rng.random(ROWS) < 0.3
    locations[twice, 1] = locations[twice, 0]  # the same location punched twice
    quarters = rng.integers(-9, 10, (ROWS, PUNCHES)).astype(np.int32)
    return actions, locations, quarters


@pytest.fixture(scope="module")
def both() -> tuple[tuple, K.CompactPunched, object, K.Punched]:
    """Random inputs, their compact output and hole table (in two chunks), and the dense output."""
    inputs = random_inputs(13)
    out, table = simulate_arrays(*inputs, chunk_rows=CHUNK)
    dense = run_chunked(K.simulate_batch, inputs, FILLS)
    return inputs, out, table, dense


def test_compact_holes_are_the_dense_holes_in_order(both):
    (_, locations, _), _, table, dense = both
    row, punch, layer = np.nonzero(dense.hits)
    assert len(row) > ROWS  # many holes, duplicates included
    assert np.array_equal(table.row, row)
    assert np.array_equal(table.punch, punch)
    assert np.array_equal(table.layer, layer)
    assert np.array_equal(table.location, dense.folded.unfolded.location[row, layer])
    assert np.array_equal(table.direction, dense.directions[row, punch, layer])
    assert np.array_equal(table.mirrored, dense.folded.unfolded.mirrored[row, layer])
    assert (locations[row, punch] >= 0).all()
    dup = locations[:, 1] == locations[:, 0]
    assert dup.any() and (table.punch[np.isin(table.row, np.flatnonzero(dup))] == 1).any()


def test_compact_status_and_folded_state_are_the_dense_ones(both):
    _, out, _, dense = both
    for got, want in zip(out.status, dense.status, strict=True):
        assert np.array_equal(got, want)
    codes = set(out.status.code.tolist())
    assert {K.OK, K.OFF_PAPER, K.CREASE_CUTS_TRIANGLE} <= codes  # every kind of row is exercised
    assert np.array_equal(out.layers, dense.folded.layers)
    assert np.array_equal(out.unfolding, dense.folded.unfolding)
    assert np.array_equal(out.n_folds, dense.folded.n_folds)


def test_compact_output_is_small(both):
    """O(32 + P) bytes a row, against the dense O(32 P) tensors and the whole folded sheet: a byte
    per value (five per-position arrays, two per-punch ones, the unfolding codes and their count)
    and the int32 status."""
    _, out, _, dense = both
    compact_bytes = sum(x.nbytes for x in jax.tree.leaves(out)) / ROWS
    dense_bytes = sum(x.nbytes for x in jax.tree.leaves(dense)) / ROWS
    assert compact_bytes == 5 * 32 + 2 * PUNCHES + WIDTH + 1 + 3 * 4
    assert dense_bytes > 15 * compact_bytes


def test_row_offsets_delimit_each_rows_holes(both):
    _, out, table, _ = both
    offsets = table.row_offsets(ROWS)
    assert np.array_equal(np.diff(offsets), out.hole_count.astype(int).sum(1))
    for r in (0, 7, ROWS - 1):
        assert (table.row[offsets[r] : offsets[r + 1]] == r).all()


def test_hole_table_of_no_rows(both):
    (_, _, quarters), out, _, _ = both
    table = hole_table(jax.tree.map(lambda x: x[:0], out), quarters[:0])
    assert all(len(column) == 0 for column in table)
    assert table.row_offsets(0).tolist() == [0]


def test_compact_chunks_count_the_fold_state(both):
    """The derived chunk size counts the state the kernel folds inside (its outputs alone would make
    chunks 4x larger than the budget allows), and the compact path really runs in such chunks."""
    inputs, out, table, _ = both
    per_row = row_bytes(K.simulate_compact_batch, inputs) + row_bytes(K.fold_batch, inputs[:1])
    budget = CHUNK * per_row * SAFETY_FACTOR + 100
    assert compact_chunk_rows(inputs, memory_budget=budget) == floor_ladder_size(CHUNK) == CHUNK
    assert chunk_rows_for(K.simulate_compact_batch, inputs, memory_budget=budget) >= 4 * CHUNK
    chunks = []
    again, again_table = simulate_arrays(*inputs, memory_budget=budget, on_chunk=chunks.append)
    assert chunks == [CHUNK, ROWS - CHUNK]
    assert all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves((again, again_table)),
                                                    jax.tree.leaves((out, table)), strict=True))


# -- against the plain reference ---------------------------------------------------------------------

BATCH, REF_PUNCHES = 16, 6
CODES = [action_code(a) for a in range(1, A.N_ACTION_CODES)]


@st.composite
def batches(draw) -> list[tuple[list[int], list[tuple[int, int]]]]:
    """BATCH configurations of 1-4 actions (realizable or not; short rows keep many realizable) with
    1-REF_PUNCHES punches (location 0..31, quarter turns), duplicates likely."""
    rows = []
    for _ in range(BATCH):
        actions = draw(st.lists(st.integers(1, A.N_ACTION_CODES - 1), min_size=1, max_size=4))
        spots = draw(st.lists(st.integers(0, 31), min_size=1, max_size=3))  # few spots: repeats
        punches = draw(st.lists(st.tuples(st.sampled_from(spots), st.integers(0, 3)), min_size=1,
                                max_size=REF_PUNCHES))
        rows.append((actions, punches))
    return rows


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_hole_multisets_equal_the_reference(rows):
    actions = np.full((BATCH, WIDTH), A.NOOP, np.int32)
    locations = np.full((BATCH, REF_PUNCHES), -1, np.int32)
    quarters = np.zeros((BATCH, REF_PUNCHES), np.int32)
    for r, (acts, punches) in enumerate(rows):
        actions[r, : len(acts)] = acts
        locations[r, : len(punches)] = [loc for loc, _ in punches]
        quarters[r, : len(punches)] = [q for _, q in punches]
    out, table = simulate_arrays(actions, locations, quarters)
    offsets = table.row_offsets(BATCH)
    for r, (acts, punches) in enumerate(rows):
        holes = [Hole.make("letter", "small", 90 * q, loc + 1) for loc, q in punches]
        reference = simulate_reference([CODES[a - 1] for a in acts], holes)
        code = int(out.status.code[r])
        if reference.status == "not_realizable":
            assert code not in (K.OK, K.OFF_PAPER) and int(out.status.step[r]) == reference.step
            continue
        assert code == STATUS_OF_REFERENCE[reference.status]
        if reference.status == "off_paper":
            assert int(out.status.step[r]) == reference.step
            continue
        span = slice(offsets[r], offsets[r + 1])
        got = Counter(zip((table.location[span] + 1).tolist(), table.direction[span].tolist()))
        assert got == Counter((h.location, h.quarter) for h in reference.holes)
