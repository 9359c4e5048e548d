"""Punch and unfold (SPEC §4): which layers a punch meets and where each one's hole lands.

Everything here is a function of the final sheet and the total rotation; the punches only select
layers. That is what lets the bulk paths punch every location at once.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from . import actions as A
from .sheet import N_TRIANGLES, QUARTER_ROTATIONS, ROTATION_PERMUTATIONS
from .state import Sheet

def quarter_of(cos: jnp.ndarray, sin: jnp.ndarray) -> jnp.ndarray:
    """k with (cos, sin) = (cos 90k, sin 90k), for entries in {-1, 0, 1}."""
    return jnp.where(cos == 1, 0, jnp.where(sin == 1, 1, jnp.where(cos == -1, 2, 3))).astype(jnp.int32)


class Unfolded(NamedTuple):
    """Per triangle t of the flat sheet, what a hole punched through it becomes after unfolding.

    A hole of direction q (quarter turns) punched through layer t becomes a hole at grid index
    `location[t]` with direction `(sign[t] * q + offset[t]) mod 4`; `mirrored[t]` says the glyph is
    seen from its back (h is a reflection).
    """

    location: jnp.ndarray  # int32[32]
    sign: jnp.ndarray  # int32[32], +1 or -1
    offset: jnp.ndarray  # int32[32]
    mirrored: jnp.ndarray  # bool[32]


def total_rotation(actions: jnp.ndarray) -> jnp.ndarray:
    """Θ in quarter turns (mod 4) from an action row."""
    quarters = jnp.where(actions >= A.FIRST_ROTATION, actions - A.FIRST_ROTATION + 1, 0)
    return (quarters.sum() % 4).astype(jnp.int32)


def direction_map(h: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """Per isometry h (int32[..., 2, 2], a square symmetry): a hole direction q (quarter turns) maps to
    (sign q + offset) mod 4, and `mirrored` says h is a reflection (the glyph seen from its back).

    A rotation by k quarter turns: d -> d + k; a reflection whose matrix is [[cos 2φ, sin 2φ],
    [sin 2φ, -cos 2φ]] with 2φ = m quarter turns: d -> m + 2 - d."""
    det = h[..., 0, 0] * h[..., 1, 1] - h[..., 0, 1] * h[..., 1, 0]
    k = quarter_of(h[..., 0, 0], h[..., 1, 0])
    mirrored = det < 0
    return jnp.where(mirrored, -1, 1).astype(jnp.int32), jnp.where(mirrored, k + 2, k) % 4, mirrored


def unfold(sheet: Sheet, theta: jnp.ndarray) -> Unfolded:
    """Where each layer's hole lands: location R_Θ(flat t), direction map h = R_Θ ∘ g_t⁻¹."""
    rot = jnp.asarray(QUARTER_ROTATIONS)[theta]
    # R_Θ A_tᵀ (A orthogonal), as multiply-and-sum (no einsum: see state.current_vertices)
    h = (rot[None, :, None, :] * sheet.linear[:, None, :, :]).sum(-1)
    sign, offset, mirrored = direction_map(h)
    return Unfolded(location=jnp.asarray(ROTATION_PERMUTATIONS)[theta], sign=sign, offset=offset, mirrored=mirrored)


def layer_counts(grid_index: jnp.ndarray) -> jnp.ndarray:
    """int32[32]: how many layers lie on each grid position."""
    return (grid_index[:, None] == jnp.arange(N_TRIANGLES)[None]).sum(0).astype(jnp.int32)


def punch_hits(grid_index: jnp.ndarray, punch_locations: jnp.ndarray) -> jnp.ndarray:
    """bool[P, 32]: punch p (grid index, -1 = padding) goes through triangle t."""
    return (grid_index[None, :] == punch_locations[:, None]) & (punch_locations[:, None] >= 0)


class Stacks(NamedTuple):
    """The folded sheet's layers grouped by grid position, as slots 0..31 of one array.

    The layers on grid position g fill the slots `first[g]` .. `first[g] + count[g] - 1`, in
    ascending triangle order, so a punch at g meets exactly those slots, in the order of
    `punch_hits`. `slot[t]` is where triangle t sits (off-grid triangles take the last slots).
    """

    slot: jnp.ndarray  # int32[32]
    first: jnp.ndarray  # int32[32]
    count: jnp.ndarray  # int32[32]: layers on each grid position (`layer_counts`)


def stacks_of(grid_index: jnp.ndarray) -> Stacks:
    """Counting sort of the triangles by grid position, as 32x32 comparisons (no sort, no scatter:
    it fuses into a few elementwise loops on any backend)."""
    key = jnp.where(grid_index >= 0, grid_index, N_TRIANGLES)  # off the grid: after every position
    triangle = jnp.arange(N_TRIANGLES)
    before = (key[None, :] < key[:, None]) | ((key[None, :] == key[:, None]) & (triangle[None, :] < triangle[:, None]))
    position = jnp.arange(N_TRIANGLES)
    return Stacks(
        slot=before.sum(-1).astype(jnp.int32),  # triangles ordered before t by (grid position, triangle)
        first=(key[None, :] < position[:, None]).sum(-1).astype(jnp.int32),
        count=layer_counts(grid_index),
    )


def by_slot(slot: jnp.ndarray, values: jnp.ndarray) -> jnp.ndarray:
    """`values` (per triangle) reordered by stack slot: out[slot[t]] = values[t] (a one-hot sum, so
    no scatter)."""
    one_hot = slot[None, :] == jnp.arange(N_TRIANGLES)[:, None]  # [slot k, triangle t]
    return jnp.where(one_hot, values[None, :], 0).sum(-1).astype(values.dtype)


def at_locations(per_position: jnp.ndarray, punch_locations: jnp.ndarray) -> jnp.ndarray:
    """per_position[location] for each punch, 0 for padding (-1); a one-hot sum, so no gather."""
    one_hot = punch_locations[:, None] == jnp.arange(N_TRIANGLES)[None, :]
    return jnp.where(one_hot, per_position[None, :], 0).sum(-1).astype(per_position.dtype)


def hole_directions(unfolded: Unfolded, punch_quarters: jnp.ndarray) -> jnp.ndarray:
    """int32[P, 32]: the result direction (quarter turns) of punch p through layer t."""
    return (unfolded.sign[None, :] * punch_quarters[:, None] + unfolded.offset[None, :]) % 4


def unfolding_codes(actions: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Unfolding codes (SPEC §4) as fold actions, last fold first, padded with NOOP; and their count.

    Each fold type is turned by every rotation after it and replaced by its opposite; F/B is kept.
    """
    quarters = jnp.where(actions >= A.FIRST_ROTATION, actions - A.FIRST_ROTATION + 1, 0)
    after = (jnp.cumsum(quarters[::-1])[::-1] - quarters) % 4  # rotations strictly after each step
    is_fold = (actions >= A.FIRST_FOLD_FRONT) & (actions < A.FIRST_ROTATION)
    fold_type = (actions - 1) % 8
    back = actions >= A.FIRST_FOLD_BACK
    turned = jnp.asarray(A.TURNED_FOLD)[after, fold_type]
    code = jnp.asarray(A.OPPOSITE)[turned] + 1 + 8 * back
    code = jnp.where(is_fold, code, A.NOOP)[::-1]
    order = jnp.argsort(code == A.NOOP, stable=True)  # compact folds to the front, keep their order
    return code[order].astype(jnp.int32), is_fold.sum().astype(jnp.int32)
