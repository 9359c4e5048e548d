"""The conformance suite on a CUDA device. Every test here is marked `gpu`: tests/conftest.py
deselects them when JAX sees no GPU, so on a CPU machine they are collected and deselected."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import foldsim
from foldsim import kernels as K
from foldsim.batching import available_memory, chunk_rows_for, ladder_size, run_chunked
from foldsim.check import MATCH
from foldsim.simulate import FILLS, simulate_arrays

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu() -> jax.Device:
    return jax.devices("gpu")[0]


def test_default_backend_is_the_gpu():
    assert jax.default_backend() == "gpu"


def test_planning_file_matches_on_gpu(planning_file):
    check = foldsim.check_file(planning_file)
    assert check.error is None
    assert (len(check.items), len(check.ids(MATCH))) == (400, 400)


def test_generalization_file_matches_on_gpu(generalization_file):
    check = foldsim.check_file(generalization_file)
    assert check.error is None
    assert (len(check.items), len(check.ids(MATCH))) == (480, 473)


def test_kernel_outputs_live_on_the_gpu(gpu):
    actions = np.array([[1, 3, 17, 0, 0, 0], [5, 0, 0, 0, 0, 0]], dtype=np.int32)
    locations = np.array([[0, 5, -1, -1], [9, -1, -1, -1]], dtype=np.int32)
    out = K.simulate_batch(actions, locations, np.zeros_like(locations))
    devices = {d for leaf in jax.tree.leaves(out) for d in leaf.devices()}
    assert devices == {gpu}


def test_compact_outputs_live_on_the_gpu_and_hold_the_dense_holes(gpu):
    """The compact path runs the same code on the GPU: its outputs stay there, and its hole table is
    the dense output's holes (duplicate, off-paper and padding punches, an unrealizable fold)."""
    actions = np.array([[1, 3, 17, 0, 0, 0], [5, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]], dtype=np.int32)
    locations = np.array([[0, 5, 5, -1], [9, -1, 9, 31], [3, -1, -1, -1]], dtype=np.int32)
    quarters = np.array([[1, 2, 3, 0], [3, 0, 1, 2], [2, 0, 0, 0]], dtype=np.int32)
    out = K.simulate_compact_batch(actions, locations, quarters)
    assert {d for leaf in jax.tree.leaves(out) for d in leaf.devices()} == {gpu}
    _, table = simulate_arrays(actions, locations, quarters)
    dense = run_chunked(K.simulate_batch, (actions, locations, quarters), FILLS)
    row, punch, layer = np.nonzero(dense.hits)
    assert len(row) > 0
    assert np.array_equal(table.row, row) and np.array_equal(table.punch, punch)
    assert np.array_equal(table.location, dense.folded.unfolded.location[row, layer])
    assert np.array_equal(table.direction, dense.directions[row, punch, layer])


def test_chunk_size_comes_from_gpu_memory(gpu):
    stats = gpu.memory_stats()
    assert 0 < available_memory(gpu) <= stats["bytes_limit"]
    actions = np.zeros((4, 6), dtype=np.int32)
    rows = chunk_rows_for(K.fold_batch, [actions], device=gpu, environ={})
    assert rows in {ladder_size(k) for k in range(31)}  # a size of the row ladder (2^k, + 64 from 1024 on)


def test_general_engine_on_the_gpu_equals_the_cpu(gpu):
    """The general engine runs the same code on CUDA: the MentalBlackboard preset over a slice of the
    physical space x 32 punches and a few general items give bit-identical outputs on both."""
    from fractions import Fraction as Q

    from foldsim.engine import run_mesh, simulate_items
    from foldsim.enumerate import enumerate_space, pad_actions
    from foldsim import mentalblackboard_sheet as MB
    from foldsim.rules import PHYSICAL
    from foldsim.sheets import Fold, Line, Punch, SheetItem, SheetSpec

    rows = pad_actions(enumerate_space(PHYSICAL).actions)[::7][:4096]
    punches = MB.engine_punches(np.broadcast_to(np.arange(32, dtype=np.int32), (len(rows), 32)))
    on_gpu = run_mesh(MB.RIGID_MESH, MB.engine_actions(rows), punches)
    with jax.default_device(jax.devices("cpu")[0]):
        on_cpu = run_mesh(MB.RIGID_MESH, MB.engine_actions(rows), punches)
    for a, b in zip(jax.tree.leaves(on_gpu), jax.tree.leaves(on_cpu), strict=True):
        assert np.array_equal(a, b)
    items = [SheetItem(SheetSpec(5, 5), (Fold(Line("H", at=2)), Fold(Line("N", at=7), "upper_right")),
                       (Punch(Q(7, 2), Q(7, 2)), Punch(Q(1, 2), Q(5, 2)))),
             SheetItem(SheetSpec(3, 3), (Fold(Line.box("V", Q(1, 3)), "right"),), (Punch(Q(-1, 2), Q(1, 2)),))]
    gpu_results = simulate_items(items)
    with jax.default_device(jax.devices("cpu")[0]):
        assert simulate_items(items) == gpu_results
    assert all(r.ok for r in gpu_results)


def test_net_engine_on_the_gpu_equals_the_cpu(gpu):
    """The cube-net engine (foldsim.kernels.nets) is integer-exact on CUDA too: all 35 hexominoes
    under all 720 labellings and 24 orientations give the same sides, turns, opposites, reasons and
    views on the GPU as on the CPU, and the 11 cube nets are the valid ones on both."""
    import dataclasses

    from foldsim.net_space import hexomino_nets, whole_space

    nets = hexomino_nets()
    on_gpu = whole_space(nets, labellings="all")
    with jax.default_device(jax.devices("cpu")[0]):
        on_cpu = whole_space(nets, labellings="all")
    for field in dataclasses.fields(on_gpu):
        if field.name != "nets":
            assert np.array_equal(getattr(on_gpu, field.name), getattr(on_cpu, field.name)), field.name
    assert int((np.asarray(on_gpu.reasons) == 0).sum()) == 11
