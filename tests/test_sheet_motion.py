"""Differentiable 3-D motion of general items (issue 17 item 7): `kernels.motion.mesh_motion` on any
mesh: progress 0 and 1 are the trace's states exactly, folds turn about their crease toward or away
from the viewer, rotations and flips of the stack, and jax.grad through it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from foldsim.engine import trace_item
from foldsim.kernels import motion as M
from foldsim.sheets import Flip, Fold, Line, Punch, Rotate, SheetItem, SheetSpec

ITEMS = {
    # SpatialViz-like: a fold at the 3rd grid line (the smaller part up), then a 45° fold
    "5x5": SheetItem(SheetSpec(5, 5), (Fold(Line("H", at=2), moves="below"), Fold(Line("D", at=0))),
                     (Punch("1/2", "5/2"),), id="5x5"),
    # the larger flap overhangs: x = 2 on a 3-wide sheet, the left side moves
    "overhang": SheetItem(SheetSpec(3, 3), (Fold(Line("V", at=2), moves="left"),), (Punch("5/2", "3/2"),),
                          id="overhang"),
    # backward fold, quarter turn, flip, a 45° fold at a half-cell offset (a finer mesh)
    "turns": SheetItem(SheetSpec(4, 3), (Fold(Line("H", at="3/2"), moves="above", front=False), Rotate(1), Flip(),
                                         Fold(Line("N", at="5/2"), front=True)), (Punch("1/2", "1/2"),), id="turns"),
}


@pytest.fixture(scope="module")
def traces():
    return {name: trace_item(item) for name, item in ITEMS.items()}


#: jitted once per mesh size (eager calls would compile every small op for every shape)
at = jax.jit(M.triangle_positions)


def centred(trace, k):
    return trace.vertices(k) - np.array([trace.item.sheet.cols, trace.item.sheet.rows]) / 2


@pytest.mark.parametrize("name", sorted(ITEMS))
def test_progress_zero_and_one_are_the_states_of_the_trace(traces, name):
    trace = traces[name]
    assert trace.status[0] == 0
    for k in range(len(trace.item.actions)):
        motion = M.mesh_motion(trace, k)
        for s, state in ((0.0, k), (1.0, k + 1)):
            xyz = np.asarray(at(motion, s))
            assert xyz.shape == (len(trace.mesh), 3, 3)
            np.testing.assert_allclose(xyz[..., :2], centred(trace, state), atol=1e-5)
            layer = np.broadcast_to(np.asarray(trace.states.layer[state], float)[:, None], xyz.shape[:2])
            np.testing.assert_allclose(xyz[..., 2], M.LAYER_GAP * layer, atol=1e-5)


def test_still_motion_holds_every_state(traces):
    trace = traces["turns"]
    for k in range(len(trace.item.actions) + 1):
        for s in (0.0, 0.6):
            np.testing.assert_allclose(np.asarray(at(M.mesh_still(trace, k), s))[..., :2],
                                       centred(trace, k), atol=1e-5)


@pytest.mark.parametrize(("front", "sign"), [(True, 1), (False, -1)])
def test_a_flap_rises_toward_the_viewer_forward_and_away_backward(front, sign):
    item = SheetItem(SheetSpec(3, 3), (Fold(Line("V", at=2), moves="left", front=front),))
    trace = trace_item(item)
    mid = np.asarray(at(M.mesh_motion(trace, 0), 0.5))
    moving = np.asarray(trace.steps.moving[0])
    assert (sign * mid[moving][..., 2]).max() > 1.5  # the 2-wide flap stands up about x = 2
    assert np.abs(mid[~moving][..., 2]).max() <= 2 * M.LAYER_GAP  # the rest only restacks
    np.testing.assert_allclose(mid[moving][..., 0].min(), 0.5, atol=1e-5)  # centred x of the crease


def test_a_45_degree_fold_turns_about_its_crease(traces):
    trace = traces["5x5"]
    motion = M.mesh_motion(trace, 1)  # y - x = 0 in cell units: y - x = 0 centred too (a square sheet)
    moving = np.asarray(trace.steps.moving[1])
    for s in (0.3, 0.5, 0.8):
        xyz = np.asarray(at(motion, s))[moving].reshape(-1, 3)
        before = np.asarray(at(motion, 0.0))[moving].reshape(-1, 3)
        # distance to the crease line (in 3-D) is kept; the along-crease coordinate too
        d0 = np.abs(before[:, 1] - before[:, 0]) / np.sqrt(2)
        d = np.hypot((xyz[:, 1] - xyz[:, 0]) / np.sqrt(2), xyz[:, 2] - before[:, 2])
        np.testing.assert_allclose(d, d0, atol=0.05)
        np.testing.assert_allclose(xyz[:, 0] + xyz[:, 1], before[:, 0] + before[:, 1], atol=1e-5)


def test_a_flip_turns_the_stack_over_its_right_side_rising(traces):
    trace = traces["turns"]
    motion = M.mesh_motion(trace, 2)
    mid = np.asarray(at(motion, 0.5)).reshape(-1, 3)
    start = np.asarray(at(motion, 0.0)).reshape(-1, 3)
    centre = (start[:, 0].min() + start[:, 0].max()) / 2
    right = start[:, 0] > centre + 0.1
    assert (mid[right, 2] > 0.05).all() and (mid[~right & (start[:, 0] < centre - 0.1), 2] < 0).all()


def test_grad_of_a_flap_height_wrt_progress_matches_analytic(traces):
    trace = traces["5x5"]  # H at y = 2 (centred -1/2), the part below moves up toward the viewer
    motion = M.mesh_motion(trace, 0)
    point = jnp.array([-2.25, -2.0])  # centred: 1.5 below the crease, on flat triangle `t`
    t = int(np.flatnonzero([(np.abs(np.asarray(tri).mean(0) - [-2.25, -2.25]) < 0.3).all()
                            for tri in np.asarray(motion.flat)])[0])
    assert bool(motion.moving[t])
    layer_term = M.LAYER_GAP * float(motion.layer_after[t] - motion.layer_before[t])
    velocity = jax.jit(jax.vmap(jax.jacfwd(lambda s: M.positions(motion, jnp.int32(t), point, s))))
    grad_z = jax.jit(jax.vmap(jax.grad(lambda s: M.positions(motion, jnp.int32(t), point, s)[2])))
    progress = jnp.array([0.1, 0.45, 0.9])
    np.testing.assert_allclose(grad_z(progress), velocity(progress)[:, 2], rtol=1e-6)
    for s, (_, dy, dz) in zip(np.asarray(progress), np.asarray(velocity(progress))):
        np.testing.assert_allclose(dz, np.pi * 1.5 * np.cos(np.pi * s) + layer_term, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(dy, np.pi * 1.5 * np.sin(np.pi * s), rtol=1e-4)


def test_grad_through_a_rotation_and_a_jitted_batch_of_frames(traces):
    trace = traces["turns"]
    motion = M.mesh_motion(trace, 1)  # the quarter turn
    frames = jax.jit(jax.vmap(M.triangle_positions, in_axes=(None, 0)))(motion, jnp.linspace(0, 1, 5))
    assert frames.shape == (5, len(trace.mesh), 3, 3) and bool(jnp.isfinite(frames).all())
    height = jax.jit(lambda s: M.triangle_positions(motion, s)[0, 0, 0])
    grad = jax.jit(jax.grad(height))(0.5)
    step = 1e-3
    numeric = (height(0.5 + step) - height(0.5 - step)) / (2 * step)
    np.testing.assert_allclose(grad, numeric, rtol=2e-2)
