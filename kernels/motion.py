"""Differentiable 3-D motion of the sheet during one action (SPEC §3, issue 2 item 3).

The discrete kernel says *what* an action does (an exact lattice isometry of some triangles); this
module says *how it looks on the way*, continuously in the fold progress s ∈ [0, 1]:

- a fold turns the flap about its crease by π·s, toward the viewer (+z) for -F and away (-z) for -B;
  at s = 1 every point is exactly its flat reflection;
- a rotation turns the whole sheet in its plane by θ·s about the folded shape's own centre while
  that centre slides to its image, so s = 1 equals the data convention (a turn about the origin);
- layers sit `layer_gap` apart in z and move from their old to their new stacking height.

Everything is float32 and smooth in s and in the positions of the points carried (vertices, punch
centres), so `jax.grad` works through it; the renderer samples it per frame.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from .sheet import FLAT_VERTICES, HALF
from .state import Sheet

LAYER_GAP = 0.012  # sheet units between stacked layers; small enough to read as one sheet


class Motion(NamedTuple):
    """One action, as the continuous motion needs it (float32, sheet units)."""

    linear: jnp.ndarray  # [32, 2, 2] placements before the action
    shift: jnp.ndarray  # [32, 2]
    moving: jnp.ndarray  # bool[32]
    crease: jnp.ndarray  # [2, 2]: two points on the crease (folds)
    angle: jnp.ndarray  # []: rotation angle in radians (rotations), 0 for folds
    is_fold: jnp.ndarray  # bool[]
    toward_viewer: jnp.ndarray  # bool[]: -F
    layer_before: jnp.ndarray  # [32]
    layer_after: jnp.ndarray  # [32]


def motion_of(sheet_before: Sheet, sheet_after: Sheet, moving, crease_ends, action) -> Motion:
    """Build a Motion from the kernel's trace (sheets before/after, StepInfo fields, action int)."""
    from . import actions as A

    action = jnp.asarray(action)
    is_rotation = action >= A.FIRST_ROTATION
    quarters = jnp.where(is_rotation, action - A.FIRST_ROTATION + 1, 0)
    return Motion(
        linear=jnp.asarray(sheet_before.linear, jnp.float32),
        shift=jnp.asarray(sheet_before.shift, jnp.float32) / HALF,
        moving=jnp.asarray(moving, bool),
        crease=jnp.asarray(crease_ends, jnp.float32) / (2 * HALF),
        angle=jnp.float32(jnp.pi / 2) * quarters,
        is_fold=(action >= A.FIRST_FOLD_FRONT) & ~is_rotation,
        toward_viewer=action < A.FIRST_FOLD_BACK,
        layer_before=jnp.asarray(sheet_before.layer, jnp.float32),
        layer_after=jnp.asarray(sheet_after.layer, jnp.float32),
    )


def place(motion: Motion, triangle: jnp.ndarray, flat_point: jnp.ndarray) -> jnp.ndarray:
    """Where a point of the flat sheet (attached to `triangle`) lies before the action, in 2-D."""
    return jnp.einsum("...ij,...j->...i", motion.linear[triangle], flat_point) + motion.shift[triangle]


def unplace(linear: jnp.ndarray, shift: jnp.ndarray, point: jnp.ndarray) -> jnp.ndarray:
    """Inverse placement: the flat-sheet point that lies at `point` now (placements are orthogonal)."""
    return jnp.einsum("...ji,...j->...i", linear, point - shift)


def _fold_xyz(points: jnp.ndarray, moves: jnp.ndarray, motion: Motion, s: jnp.ndarray) -> jnp.ndarray:
    a, b = motion.crease[0], motion.crease[1]
    along = (b - a) / jnp.maximum(jnp.linalg.norm(b - a), 1e-6)
    normal = jnp.stack([-along[1], along[0]])
    rel = points - a
    t = rel @ along
    d = rel @ normal
    # all moving points lie on one side of the crease: orient so their distance is >= 0
    side = jnp.where(jnp.sum(jnp.where(moves, d, 0.0)) >= 0, 1.0, -1.0)
    lift_sign = jnp.where(motion.toward_viewer, 1.0, -1.0)
    angle = jnp.pi * s
    turned = a + t[..., None] * along + (d * jnp.cos(angle))[..., None] * normal
    lift = side * d * jnp.sin(angle) * lift_sign
    xy = jnp.where(moves[..., None], turned, points)
    return jnp.concatenate([xy, jnp.where(moves, lift, 0.0)[..., None]], axis=-1)


def _rotation_xyz(points: jnp.ndarray, motion: Motion, s: jnp.ndarray, centre: jnp.ndarray) -> jnp.ndarray:
    def turn(angle, v):
        c, n = jnp.cos(angle), jnp.sin(angle)
        return jnp.stack([c * v[..., 0] - n * v[..., 1], n * v[..., 0] + c * v[..., 1]], axis=-1)

    slide = turn(motion.angle, centre) - centre
    xy = turn(motion.angle * s, points - centre) + centre + s * slide
    return jnp.concatenate([xy, jnp.zeros_like(xy[..., :1])], axis=-1)


def positions(motion: Motion, triangle: jnp.ndarray, flat_point: jnp.ndarray, s: jnp.ndarray,
              layer_gap: float = LAYER_GAP) -> jnp.ndarray:
    """3-D positions at progress s of points `flat_point[..., 2]` (sheet units, flat frame) attached
    to triangles `triangle[...]`. Differentiable in s and in `flat_point`."""
    s = jnp.asarray(s, jnp.float32)
    points = place(motion, triangle, flat_point)
    all_vertices = place(motion, jnp.arange(32)[:, None], jnp.asarray(FLAT_VERTICES, jnp.float32) / HALF)
    centre = (all_vertices.reshape(-1, 2).min(0) + all_vertices.reshape(-1, 2).max(0)) / 2
    moves = motion.moving[triangle]
    xyz = jnp.where(motion.is_fold, _fold_xyz(points, moves, motion, s), _rotation_xyz(points, motion, s, centre))
    layer = (1 - s) * motion.layer_before[triangle] + s * motion.layer_after[triangle]
    return xyz.at[..., 2].add(layer_gap * layer)


def triangle_positions(motion: Motion, s: jnp.ndarray, layer_gap: float = LAYER_GAP) -> jnp.ndarray:
    """float32[32, 3, 3]: the 3 vertices of every triangle at progress s."""
    triangles = jnp.broadcast_to(jnp.arange(32)[:, None], (32, 3))
    return positions(motion, triangles, jnp.asarray(FLAT_VERTICES, jnp.float32) / HALF, s, layer_gap)
