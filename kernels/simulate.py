"""Batched, jitted entry points: a whole configuration (actions then punches) per row.

`simulate_batch` is `jax.jit(jax.vmap(simulate_one))`: it compiles once per (batch size, number of
actions, number of punches) and serves any mix of patterns, because short rows are padded with
the no-op action and unused punches with location -1.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from .punch import (
    Unfolded,
    hole_directions,
    layer_counts,
    punch_hits,
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
    off_paper = (folded.status.code == OK) & missed.any()
    status = Status(
        code=jnp.where(off_paper, OFF_PAPER, folded.status.code).astype(jnp.int32),
        step=jnp.where(off_paper, jnp.argmax(missed), folded.status.step).astype(jnp.int32),
        triangle=folded.status.triangle,
    )
    return Punched(folded, status, hits, hole_directions(folded.unfolded, punch_quarters))


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
fold_batch = jax.jit(jax.vmap(fold_one))
trace = jax.jit(trace_one)
