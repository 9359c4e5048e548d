"""Explicit simulator state as pytrees of integer arrays (SPEC §2)."""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from .sheet import FLAT_CENTROID_SUMS, FLAT_VERTICES, N_TRIANGLES

# Status codes, shared by the kernel and the Python API.
OK = 0
CREASE_CUTS_TRIANGLE = 1  # the crease crosses the interior of a triangle
EMPTY_SIDE = 2  # one side of the crease holds no paper
OBLIQUE_CREASE = 3  # a box diagonal that is not at 45 degrees (no lattice reflection)
OFF_PAPER = 4  # a punch location holds no layer
STATUS_NAMES = ("ok", "crease_cuts_triangle", "empty_side", "oblique_crease", "off_paper")


class Sheet(NamedTuple):
    """Placement g_t = (linear, shift) and stacking layer of each of the 32 triangles.

    The current vertices of triangle t are `linear[t] @ FLAT_VERTICES[t] + shift[t]` (half units).
    `layer` only orders drawing; larger is nearer the viewer.
    """

    linear: jnp.ndarray  # int32[32, 2, 2]
    shift: jnp.ndarray  # int32[32, 2]
    layer: jnp.ndarray  # int32[32]


class Status(NamedTuple):
    """First failure of a configuration: code, the 0-based step (or punch) and triangle it names."""

    code: jnp.ndarray  # int32[]
    step: jnp.ndarray  # int32[]: action index for fold failures, punch index for OFF_PAPER
    triangle: jnp.ndarray  # int32[]: grid index 0..31 of a triangle the crease cuts, else -1


def flat_sheet() -> Sheet:
    """The unfolded sheet: every placement the identity, every layer 0."""
    return Sheet(
        linear=jnp.broadcast_to(jnp.eye(2, dtype=jnp.int32), (N_TRIANGLES, 2, 2)),
        shift=jnp.zeros((N_TRIANGLES, 2), jnp.int32),
        layer=jnp.zeros((N_TRIANGLES,), jnp.int32),
    )


def ok_status() -> Status:
    return Status(jnp.int32(OK), jnp.int32(-1), jnp.int32(-1))


def current_vertices(sheet: Sheet) -> jnp.ndarray:
    """int32[32, 3, 2]: where each triangle's vertices are now.

    The 2x2 products here and in the fold step are written as broadcast multiply-and-sum, never as
    einsum/matmul: XLA:CPU lowers a batched int32 dot of 2x2 matrices to a generic dot loop that
    took two thirds of the whole fold (0.6 s -> 0.2 s for the physical space); the sums fuse.
    """
    products = sheet.linear[:, None, :, :] * jnp.asarray(FLAT_VERTICES)[:, :, None, :]  # [t, v, i, j]
    return products.sum(-1) + sheet.shift[:, None, :]


def current_centroid_sums(sheet: Sheet) -> jnp.ndarray:
    """int32[32, 2]: 3 x the current centroid of each triangle."""
    return (sheet.linear * jnp.asarray(FLAT_CENTROID_SUMS)[:, None, :]).sum(-1) + 3 * sheet.shift


def grid_index_of(sheet: Sheet) -> jnp.ndarray:
    """int32[32]: the grid position (0..31) each triangle lies on now, -1 if it is off the grid."""
    eq = jnp.all(current_centroid_sums(sheet)[:, None, :] == jnp.asarray(FLAT_CENTROID_SUMS)[None], axis=-1)
    return jnp.where(eq.any(-1), jnp.argmax(eq, -1), -1).astype(jnp.int32)
