"""Batched, jitted entry points: a whole configuration (actions then punches) per row.

`simulate_batch` is `jax.jit(jax.vmap(simulate_one))`: it compiles once per (batch size, number of
actions, number of punches) and serves any mix of patterns, because short rows are padded with
the no-op action and unused punches with location -1.

`simulate_compact_batch` answers the same question in O(32 + P) small integers per row instead of
the dense O(32 P) per-punch-per-layer tensors and the whole folded sheet: what callers that want
every result hole need (`foldsim.simulate.hole_table` expands it on the host).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from .punch import (
    Unfolded,
    at_locations,
    by_slot,
    hole_directions,
    layer_counts,
    punch_hits,
    stacks_of,
    total_rotation,
    unfold,
    unfolding_codes,
)
from .state import OFF_PAPER, OK, Sheet, Status, flat_sheet, grid_index_of, ok_status
from .step import StepInfo, apply_action


class Folded(NamedTuple):
    """The sheet after the whole action sequence, and what unfolding it does to each layer."""

    status: Status
    sheet: Sheet
    grid_index: jnp.ndarray  # int32[32]: grid position of each triangle (its layer stack)
    layers: jnp.ndarray  # int32[32]: number of layers on each grid position
    unfolded: Unfolded
    unfolding: jnp.ndarray  # int32[S]: unfolding codes as fold actions, NOOP-padded
    n_folds: jnp.ndarray  # int32[]


class Punched(NamedTuple):
    """A configuration with its punches: the folded state plus, per punch, the layers it meets."""

    folded: Folded
    status: Status  # the fold status, or OFF_PAPER naming the first punch that meets no layer
    hits: jnp.ndarray  # bool[P, 32]: punch p goes through triangle t
    directions: jnp.ndarray  # int32[P, 32]: result direction (quarter turns) of punch p via layer t


class CompactPunched(NamedTuple):
    """A configuration with its punches, compact: per punch a count and a start, per stack slot one
    small record (`kernels.punch.Stacks`), instead of `Punched`'s per-punch-per-layer tensors.

    Punch p makes `hole_count[p]` result holes (0 for padding), one per stack slot k from
    `hole_start[p]` on: through triangle `stack_triangle[k]`, at grid index `stack_location[k]`,
    with direction (±q + stack_offset[k]) mod 4 for the punch's q quarter turns (minus where
    `stack_mirrored[k]`). These are exactly the holes of `Punched` (hits, directions), in its order.
    """

    status: Status  # as Punched.status
    layers: jnp.ndarray  # int8[32]: layers on each grid position (Folded.layers)
    unfolding: jnp.ndarray  # int8[S]: unfolding codes, NOOP-padded (Folded.unfolding)
    n_folds: jnp.ndarray  # int8[]
    hole_count: jnp.ndarray  # int8[P]
    hole_start: jnp.ndarray  # int8[P]
    stack_triangle: jnp.ndarray  # int8[32]
    stack_location: jnp.ndarray  # int8[32]: result grid index of a hole through that layer
    stack_offset: jnp.ndarray  # int8[32]
    stack_mirrored: jnp.ndarray  # bool[32]


def fold_one(actions: jnp.ndarray) -> Folded:
    """Run one padded action row on the flat sheet."""

    def body(carry, indexed_action):
        sheet, status = carry
        index, action = indexed_action
        sheet, status, _ = apply_action(sheet, status, action, index)
        return (sheet, status), None

    steps = jnp.arange(actions.shape[0], dtype=jnp.int32)
    (sheet, status), _ = jax.lax.scan(body, (flat_sheet(), ok_status()), (steps, actions))
    grid_index = grid_index_of(sheet)
    codes, n_folds = unfolding_codes(actions)
    return Folded(
        status=status,
        sheet=sheet,
        grid_index=grid_index,
        layers=layer_counts(grid_index),
        unfolded=unfold(sheet, total_rotation(actions)),
        unfolding=codes,
        n_folds=n_folds,
    )


def simulate_one(actions: jnp.ndarray, punch_locations: jnp.ndarray, punch_quarters: jnp.ndarray) -> Punched:
    """Fold, then punch at grid indices `punch_locations` (-1 = unused) with directions in quarter turns."""
    folded = fold_one(actions)
    hits = punch_hits(folded.grid_index, punch_locations)
    missed = (punch_locations >= 0) & ~hits.any(-1)
    return Punched(folded, punch_status(folded.status, missed), hits, hole_directions(folded.unfolded, punch_quarters))


def simulate_compact_one(actions: jnp.ndarray, punch_locations: jnp.ndarray, punch_quarters: jnp.ndarray) -> CompactPunched:
    """`simulate_one` with compact outputs. The quarters are not needed on the device (directions
    are expanded on the host); they are taken so both entry points have one signature."""
    del punch_quarters
    folded = fold_one(actions)
    stacks = stacks_of(folded.grid_index)
    hole_count = at_locations(stacks.count, punch_locations)
    missed = (punch_locations >= 0) & (hole_count == 0)
    i8 = lambda x: x.astype(jnp.int8)  # noqa: E731  (every value here is below 64)
    return CompactPunched(
        status=punch_status(folded.status, missed),
        layers=i8(stacks.count),
        unfolding=i8(folded.unfolding),
        n_folds=i8(folded.n_folds),
        hole_count=i8(hole_count),
        hole_start=i8(at_locations(stacks.first, punch_locations)),
        stack_triangle=i8(by_slot(stacks.slot, jnp.arange(stacks.slot.shape[0], dtype=jnp.int32))),
        stack_location=i8(by_slot(stacks.slot, folded.unfolded.location)),
        stack_offset=i8(by_slot(stacks.slot, folded.unfolded.offset)),
        stack_mirrored=by_slot(stacks.slot, folded.unfolded.mirrored),
    )


def punch_status(fold_status: Status, missed: jnp.ndarray) -> Status:
    """The fold status, or OFF_PAPER naming the first punch that meets no layer (`missed`)."""
    off_paper = (fold_status.code == OK) & missed.any()
    return Status(
        code=jnp.where(off_paper, OFF_PAPER, fold_status.code).astype(jnp.int32),
        step=jnp.where(off_paper, jnp.argmax(missed), fold_status.step).astype(jnp.int32),
        triangle=fold_status.triangle,
    )


def trace_one(actions: jnp.ndarray) -> tuple[Sheet, StepInfo, Status]:
    """Every intermediate sheet (S + 1 of them, the flat sheet first) and what each step did.

    This is the history the renderer and the motion function animate.
    """

    def body(carry, indexed_action):
        sheet, status = carry
        index, action = indexed_action
        new_sheet, status, info = apply_action(sheet, status, action, index)
        return (new_sheet, status), (new_sheet, info)

    steps = jnp.arange(actions.shape[0], dtype=jnp.int32)
    start = flat_sheet()
    (_, status), (sheets, infos) = jax.lax.scan(body, (start, ok_status()), (steps, actions))
    sheets = jax.tree.map(lambda first, rest: jnp.concatenate([first[None], rest]), start, sheets)
    return sheets, infos, status


simulate_batch = jax.jit(jax.vmap(simulate_one))
simulate_compact_batch = jax.jit(jax.vmap(simulate_compact_one))
fold_batch = jax.jit(jax.vmap(fold_one))
trace = jax.jit(trace_one)
