"""Differentiable 3-D motion of the sheet during one action (SPEC §3, issue 2 item 3; any mesh:
issue 17 item 7).

The discrete kernel says *what* an action does (an exact lattice isometry of some triangles); this
module says *how it looks on the way*, continuously in the fold progress s ∈ [0, 1]:

- a fold turns the flap about its crease by π·s, toward the viewer (+z) for -F and away (-z) for -B;
  at s = 1 every point is exactly its flat reflection;
- a rotation turns the whole sheet in its plane by θ·s about the folded shape's own centre while
  that centre slides to its image, so s = 1 equals the data convention (a turn about the origin);
- layers sit `layer_gap` apart in z and move from their old to their new stacking height;
- a flip (general items) turns the whole stack over about the vertical line through the folded
  shape's centre, its right side rising toward the viewer, while that line slides to x = 0: at s = 1
  every point is reflected across x = 0 and the layer order is reversed.

A `Motion` holds the triangles' placements, so one function serves every mesh: MentalBlackboard's 32
triangles (`motion_of`, sheet units centred on the sheet, `flat` left None) and any general item's
mesh (`mesh_motion` of a `foldsim.engine.ItemTrace`: centred cell units, i.e. cell units minus
(cols/2, rows/2), the frame in which the engine's rotations and flips turn about the origin).

Everything is float32 and smooth in s and in the positions of the points carried (vertices, punch
centres), so `jax.grad` works through it; the renderer samples it per frame.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

import numpy as np

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
    #: general meshes: a flip of the stack (bool[]); None (MentalBlackboard) has none
    is_flip: jnp.ndarray | None = None
    #: general meshes: the flat triangles float32[T, 3, 2] (the frame of `linear`/`shift`);
    #: None: MentalBlackboard's 32 (FLAT_VERTICES / HALF)
    flat: jnp.ndarray | None = None


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


def mesh_motion(trace, k: int) -> Motion:
    """The Motion of action k of a general item's trace (`foldsim.engine.ItemTrace`, read by its
    fields only), in centred cell units: lattice / (2 r)."""
    two_r = 2.0 * trace.resolution
    states, steps = trace.states, trace.steps
    family = int(steps.family[k])
    step_linear = np.asarray(steps.linear[k])
    is_fold = family >= 0
    is_flip = not is_fold and round(float(np.linalg.det(step_linear))) < 0
    angle = 0.0 if is_fold or is_flip else float(np.arctan2(step_linear[1, 0], step_linear[0, 0]))
    return Motion(
        linear=jnp.asarray(states.linear[k], jnp.float32),
        shift=jnp.asarray(np.asarray(states.shift[k], np.float64) / two_r, jnp.float32),
        moving=jnp.asarray(steps.moving[k], bool),
        crease=jnp.asarray(crease_points(family, int(steps.value[k]) / two_r) if is_fold else np.zeros((2, 2)),
                           jnp.float32),
        angle=jnp.float32(angle),
        is_fold=jnp.asarray(is_fold),
        toward_viewer=jnp.asarray(bool(getattr(trace.item.actions[k], "front", False))),
        layer_before=jnp.asarray(states.layer[k], jnp.float32),
        layer_after=jnp.asarray(states.layer[k + 1], jnp.float32),
        is_flip=jnp.asarray(is_flip),
        flat=jnp.asarray(flat_triangles(trace), jnp.float32),
    )


def mesh_still(trace, k: int) -> Motion:
    """A motion that holds a general item's state k (0: flat) where it is, for still frames."""
    layer = jnp.asarray(trace.states.layer[k], jnp.float32)
    return Motion(jnp.asarray(trace.states.linear[k], jnp.float32),
                  jnp.asarray(np.asarray(trace.states.shift[k], np.float64) / (2.0 * trace.resolution), jnp.float32),
                  jnp.zeros(trace.mesh.shape[0], bool), jnp.zeros((2, 2), jnp.float32), jnp.float32(0),
                  jnp.asarray(False), jnp.asarray(False), layer, layer, jnp.asarray(False),
                  jnp.asarray(flat_triangles(trace), jnp.float32))


def flat_triangles(trace) -> np.ndarray:
    """float64[T, 3, 2]: a general trace's flat mesh in centred cell units (lattice / 2r)."""
    return np.asarray(trace.mesh, np.float64) / (2.0 * trace.resolution)


def crease_points(family: int, value: float) -> np.ndarray:
    """float[2, 2]: two points a unit apart along x (or y for V) on the line n . p = value of a
    family H, V, D, N (0..3; n = (0, 1), (1, 0), (-1, 1), (1, 1))."""
    return np.array([[[0, value], [1, value]], [[value, 0], [value, 1]], [[0, value], [1, 1 + value]],
                     [[0, value], [1, value - 1]]][family], np.float64)


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


def _flip_xyz(points: jnp.ndarray, layer: jnp.ndarray, motion: Motion, s: jnp.ndarray, centre: jnp.ndarray,
              layer_gap: float) -> jnp.ndarray:
    """The stack turned over about the vertical line x = centre_x at mid-height of the stack (its
    right side rising toward the viewer), that line sliding to x = 0: at s = 1 x -> -x and a layer
    l -> top - l, the kernel's flip."""
    half = layer_gap * motion.layer_before.max() / 2
    u, w = points[..., 0] - centre[0], layer_gap * layer - half
    c, n = jnp.cos(jnp.pi * s), jnp.sin(jnp.pi * s)
    x = centre[0] + u * c - w * n - 2 * s * centre[0]
    return jnp.stack([x, points[..., 1], half + u * n + w * c], axis=-1)


def flat_of(motion: Motion) -> jnp.ndarray:
    """float32[T, 3, 2]: the motion's flat triangles (MentalBlackboard's 32 when `flat` is None)."""
    return jnp.asarray(FLAT_VERTICES, jnp.float32) / HALF if motion.flat is None else motion.flat


def positions(motion: Motion, triangle: jnp.ndarray, flat_point: jnp.ndarray, s: jnp.ndarray,
              layer_gap: float = LAYER_GAP) -> jnp.ndarray:
    """3-D positions at progress s of points `flat_point[..., 2]` (sheet units, flat frame) attached
    to triangles `triangle[...]`. Differentiable in s and in `flat_point`."""
    s = jnp.asarray(s, jnp.float32)
    points = place(motion, triangle, flat_point)
    flat = flat_of(motion)
    all_vertices = place(motion, jnp.arange(flat.shape[0])[:, None], flat)
    centre = (all_vertices.reshape(-1, 2).min(0) + all_vertices.reshape(-1, 2).max(0)) / 2
    moves = motion.moving[triangle]
    xyz = jnp.where(motion.is_fold, _fold_xyz(points, moves, motion, s), _rotation_xyz(points, motion, s, centre))
    layer = (1 - s) * motion.layer_before[triangle] + s * motion.layer_after[triangle]
    xyz = xyz.at[..., 2].add(layer_gap * layer)
    if motion.is_flip is None:  # MentalBlackboard: no flips
        return xyz
    flipped = _flip_xyz(points, motion.layer_before[triangle], motion, s, centre, layer_gap)
    return jnp.where(motion.is_flip, flipped, xyz)


def triangle_positions(motion: Motion, s: jnp.ndarray, layer_gap: float = LAYER_GAP) -> jnp.ndarray:
    """float32[T, 3, 3]: the 3 vertices of every triangle at progress s (T = 32 for MentalBlackboard)."""
    flat = flat_of(motion)
    triangles = jnp.broadcast_to(jnp.arange(flat.shape[0])[:, None], flat.shape[:2])
    return positions(motion, triangles, flat, s, layer_gap)
