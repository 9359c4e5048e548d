"""One action applied to one sheet: fold, rotation or no-op, as pure integer functions (SPEC §3).

Every action is expressed as a lattice isometry (M, t) applied to a subset of the triangles, so a
fold, a rotation and the padding no-op share one code path and one compiled program.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from . import actions as A
from .sheet import QUARTER_ROTATIONS
from .state import (
    CREASE_CUTS_TRIANGLE,
    EMPTY_SIDE,
    OBLIQUE_CREASE,
    OK,
    Sheet,
    Status,
    current_vertices,
)


class Crease(NamedTuple):
    """A fold's crease for one sheet: functional f(p) = a.p + c (zero on the crease), the reflection
    across it (p -> M p + t), and the moving sign. Exact integers on the half-unit lattice."""

    normal: jnp.ndarray  # int32[2]  (a)
    offset: jnp.ndarray  # int32[]   (c)
    reflect_linear: jnp.ndarray  # int32[2, 2]
    reflect_shift: jnp.ndarray  # int32[2]
    moving_sign: jnp.ndarray  # int32[]
    is_square: jnp.ndarray  # bool[]: box diagonals are at 45 degrees


class StepInfo(NamedTuple):
    """What one action did: the isometry, which triangles moved, and the crease endpoints (half units)."""

    linear: jnp.ndarray  # int32[2, 2]
    shift: jnp.ndarray  # int32[2]
    moving: jnp.ndarray  # bool[32]
    crease_ends: jnp.ndarray  # int32[2, 2]: two points on the crease (zeros for non-folds)


def bounding_box(vertices: jnp.ndarray) -> tuple[jnp.ndarray, ...]:
    """x0, x1, y0, y1 of all current vertices."""
    xs, ys = vertices[..., 0], vertices[..., 1]
    return xs.min(), xs.max(), ys.min(), ys.max()


def crease_for(fold_type: jnp.ndarray, vertices: jnp.ndarray) -> tuple[Crease, jnp.ndarray]:
    """The crease of fold type 0..7 on the current box, and its two end points."""
    x0, x1, y0, y1 = bounding_box(vertices)
    w, h = x1 - x0, y1 - y0
    i32 = lambda *v: jnp.array(v, jnp.int32)  # noqa: E731
    # family 0: horizontal mid-line, f = 2y - (y0 + y1); 1: vertical, f = 2x - (x0 + x1);
    # 2: "/" diagonal (x0,y0)-(x1,y1), f = w(y - y0) - h(x - x0) (> 0 top-left);
    # 3: "\" diagonal (x0,y1)-(x1,y0), f = w(y - y1) + h(x - x0) (> 0 top-right).
    normals = jnp.stack([i32(0, 2), i32(2, 0), jnp.stack([-h, w]), jnp.stack([h, w])])
    offsets = jnp.stack([-(y0 + y1), -(x0 + x1), h * x0 - w * y0, -w * y1 - h * x0])
    lin = jnp.array(
        [[[1, 0], [0, -1]], [[-1, 0], [0, 1]], [[0, 1], [1, 0]], [[0, -1], [-1, 0]]], jnp.int32
    )
    shifts = jnp.stack(
        [jnp.stack([0 * x0, y0 + y1]), jnp.stack([x0 + x1, 0 * y0]), jnp.stack([x0 - y0, y0 - x0]),
         jnp.stack([x0 + y1, x0 + y1])]
    )
    # the two end points of each crease, doubled so mid-lines stay integer (quarter units)
    ends = jnp.stack(
        [
            jnp.stack([jnp.stack([2 * x0, y0 + y1]), jnp.stack([2 * x1, y0 + y1])]),
            jnp.stack([jnp.stack([x0 + x1, 2 * y0]), jnp.stack([x0 + x1, 2 * y1])]),
            jnp.stack([jnp.stack([2 * x0, 2 * y0]), jnp.stack([2 * x1, 2 * y1])]),
            jnp.stack([jnp.stack([2 * x0, 2 * y1]), jnp.stack([2 * x1, 2 * y0])]),
        ]
    )
    fam = jnp.asarray(A.FOLD_FAMILY)[fold_type]
    crease = Crease(
        normal=normals[fam],
        offset=offsets[fam],
        reflect_linear=lin[fam],
        reflect_shift=shifts[fam],
        moving_sign=jnp.asarray(A.MOVING_SIGN)[fold_type],
        is_square=(fam < 2) | (w == h),
    )
    return crease, ends[fam]


def classify(crease: Crease, vertices: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Per triangle: does the crease cut its interior, and does it lie on the moving side."""
    f = (vertices * crease.normal).sum(-1) + crease.offset  # no einsum: see state.current_vertices
    above, below = (f > 0).any(-1), (f < 0).any(-1)
    side = jnp.where(above, 1, -1)
    return above & below, side == crease.moving_sign


def fold_failure(cut: jnp.ndarray, moving: jnp.ndarray, is_square: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Status code and named triangle for a fold; OK when it is realizable."""
    n_moving = moving.sum()
    code = jnp.where(
        cut.any(),
        CREASE_CUTS_TRIANGLE,
        jnp.where(~is_square, OBLIQUE_CREASE, jnp.where((n_moving == 0) | (n_moving == moving.size), EMPTY_SIDE, OK)),
    )
    return code.astype(jnp.int32), jnp.where(cut.any(), jnp.argmax(cut), -1).astype(jnp.int32)


def restack(layer: jnp.ndarray, moving: jnp.ndarray, front: jnp.ndarray) -> jnp.ndarray:
    """The flap's layers reverse and go above (front) or below (back) the stack; min layer is 0."""
    big = jnp.int32(1 << 20)
    mov_max = jnp.where(moving, layer, -big).max()
    mov_min = jnp.where(moving, layer, big).min()
    on_top = layer.max() + 1 + (mov_max - layer)
    under = layer.min() - 1 - (layer - mov_min)
    new = jnp.where(moving, jnp.where(front, on_top, under), layer)
    return new - new.min()


def apply_action(sheet: Sheet, status: Status, action: jnp.ndarray, index: jnp.ndarray) -> tuple[Sheet, Status, StepInfo]:
    """Apply one encoded action. A failed configuration stays frozen at its first failure."""
    is_fold = (action >= A.FIRST_FOLD_FRONT) & (action < A.FIRST_ROTATION)
    is_rotation = action >= A.FIRST_ROTATION
    fold_type = jnp.where(is_fold, (action - 1) % 8, 0)
    front = action < A.FIRST_FOLD_BACK
    vertices = current_vertices(sheet)

    crease, ends = crease_for(fold_type, vertices)
    cut, fold_moving = classify(crease, vertices)
    code, triangle = fold_failure(cut, fold_moving, crease.is_square)
    code = jnp.where(is_fold, code, OK)
    active = status.code == OK
    fails = active & (code != OK)
    proceed = active & ~fails

    quarter = jnp.where(is_rotation, action - A.FIRST_ROTATION + 1, 0)
    linear = jnp.where(is_fold, crease.reflect_linear, jnp.asarray(QUARTER_ROTATIONS)[quarter])
    shift = jnp.where(is_fold, crease.reflect_shift, jnp.zeros(2, jnp.int32))
    moving = jnp.where(is_fold, fold_moving, is_rotation) & proceed

    new_sheet = Sheet(
        # M A_t and M s_t + t as multiply-and-sum (no einsum: see state.current_vertices)
        linear=jnp.where(moving[:, None, None], (linear[None, :, :, None] * sheet.linear[:, None, :, :]).sum(2),
                         sheet.linear),
        shift=jnp.where(moving[:, None], (sheet.shift[:, None, :] * linear[None]).sum(-1) + shift, sheet.shift),
        layer=jnp.where(is_fold & proceed, restack(sheet.layer, moving, front), sheet.layer),
    )
    new_status = jax.tree.map(
        lambda new, old: jnp.where(fails, new, old), Status(code, index.astype(jnp.int32), triangle), status
    )
    info = StepInfo(linear, shift, moving, jnp.where(is_fold, ends, 0))
    return new_sheet, new_status, info
