"""The differentiable 3-D motion (issue 2, item 3)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from foldsim import Config
from foldsim.kernels import motion as M
from foldsim.kernels.state import current_vertices
from foldsim.trace import trace


@pytest.fixture(scope="module")
def h1_front():
    return trace(Config.from_codes("H1-F,V2-B,R-90"))


def flat_xy(sheet):
    return np.asarray(current_vertices(sheet)) / 2.0


@pytest.mark.parametrize("codes", ["H1-F", "V2-B", "D1-F", "D3-B", "H1-F,V2-B,R-90", "D2-F,R-270,H1-F"])
def test_progress_one_is_the_flat_reflection_and_zero_the_start(codes):
    for step in trace(Config.from_codes(codes)).steps:
        motion = step.motion()
        start, end = np.asarray(M.triangle_positions(motion, 0.0)), np.asarray(M.triangle_positions(motion, 1.0))
        np.testing.assert_allclose(start[..., :2], flat_xy(step.before), atol=1e-5)
        np.testing.assert_allclose(end[..., :2], flat_xy(step.after), atol=1e-5)
        np.testing.assert_allclose(end[..., 2], np.broadcast_to(M.LAYER_GAP * np.asarray(step.after.layer)[:, None], (32, 3)), atol=1e-5)


def test_front_folds_rise_toward_the_viewer_back_folds_away():
    for codes, sign in (("H1-F", 1), ("H1-B", -1)):
        step = trace(Config.from_codes(codes)).steps[0]
        mid = np.asarray(M.triangle_positions(step.motion(), 0.5))
        flap = mid[np.asarray(step.moving)]
        assert (sign * flap[..., 2]).max() > 1.0  # the flap stands up, about its crease
        assert np.abs(mid[~np.asarray(step.moving)][..., 2]).max() <= M.LAYER_GAP  # the rest only restacks


def test_grad_wrt_progress_matches_analytic(h1_front):
    motion = h1_front.steps[0].motion()  # H1 on the flat sheet: crease y = 0, flap rows 0-1
    # a flap point at height y0 above the crease sits at (x, y0 cos πs, y0 sin πs + layer term)
    point = jnp.array([-1.5, 1.7])
    layer_term = M.LAYER_GAP * (h1_front.steps[0].after.layer[0] - h1_front.steps[0].before.layer[0])
    for s in (0.1, 0.37, 0.8):
        dy = jax.grad(lambda s: M.positions(motion, jnp.int32(0), point, s)[1])(s)
        dz = jax.grad(lambda s: M.positions(motion, jnp.int32(0), point, s)[2])(s)
        np.testing.assert_allclose(dy, -np.pi * 1.7 * np.sin(np.pi * s), rtol=1e-5)
        np.testing.assert_allclose(dz, np.pi * 1.7 * np.cos(np.pi * s) + layer_term, rtol=1e-5, atol=1e-6)


def test_grad_wrt_punch_position_matches_analytic(h1_front):
    """A punch centre carried on the flap: d(position)/d(point) is the turn's Jacobian."""
    motion = h1_front.steps[0].motion()
    s = 0.3
    jac = jax.jacobian(lambda p: M.positions(motion, jnp.int32(0), p, s))(jnp.array([-1.5, 1.2]))
    expected = np.array([[1, 0], [0, np.cos(np.pi * s)], [0, np.sin(np.pi * s)]])
    np.testing.assert_allclose(np.asarray(jac), expected, atol=1e-6)


def test_grad_through_a_later_fold_and_rotation(h1_front):
    """Chain rule through placements: a point of flat triangle 0 during the rotation step."""
    step = h1_front.steps[2]  # R-90 after H1-F, V2-B
    motion = step.motion()
    angle = np.pi / 2
    for s in (0.25, 0.6):
        jac = np.asarray(jax.jacobian(lambda p: M.positions(motion, jnp.int32(0), p, s))(jnp.array([-1.6, 1.8])))
        # placement of triangle 0 before the step is linear L (orthogonal); the turn adds R(angle s)
        c, n = np.cos(angle * s), np.sin(angle * s)
        linear = np.asarray(step.before.linear[0], float)
        np.testing.assert_allclose(jac[:2], np.array([[c, -n], [n, c]]) @ linear, atol=1e-6)
        ds = jax.grad(lambda s: M.positions(motion, jnp.int32(0), jnp.array([-1.6, 1.8]), s)[0])(s)
        assert np.isfinite(ds)
