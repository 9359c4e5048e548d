"""The device side of a sheet family's enumeration: one jitted call extends a chunk of prefix states
by every action of the alphabet (each prefix is folded once; its children start from its state) and
returns the children's status codes, and optionally their states and hole bit sets
(`foldsim.sheet_holes`). `chunk_prefixes` sizes a chunk to the memory budget at
`limits.space_child_bytes` per child; `children` runs the chunks of a batch of states.

Lines that fall between mesh lines (box-relative lines on a box of odd extent) make the kernel ask
for a finer mesh: `Finer` says so, and the enumeration restarts at that resolution, so counts stay
exact.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .kernels import engine as E
from .kernels.state import CREASE_CUTS_TRIANGLE, ok_status
from .limits import space_child_bytes
from .sheet_holes import hole_masks


#: the most prefixes of one extender call (past it calls grow, rows/s do not)
MAX_PREFIXES_PER_CALL = 4096


@functools.lru_cache(maxsize=64)
def extender(offset: int, side: int, words: int, want_states: bool, want_masks: bool):
    """A jitted call: every prefix state (batched) times every alphabet row -> the children's status
    codes (and details) [n, A], and optionally their states and hole bit sets."""

    def child(mesh, state, action, punches):
        new, status, _ = E.apply_engine_action(mesh, state, ok_status(), action, jnp.int32(0))
        out = {"code": status.code, "detail": status.triangle}
        if want_states:
            out["state"] = new
        if want_masks:
            out["masks"], out["on_paper"] = hole_masks(mesh, new, punches, offset, side, words)
        return out

    over_actions = jax.vmap(child, in_axes=(None, None, 0, None))
    return jax.jit(jax.vmap(over_actions, in_axes=(None, 0, None, None)))


@functools.lru_cache(maxsize=64)
def state_puncher(offset: int, side: int, words: int):
    """A jitted call: every punch through each of a batch of states -> its hole bit sets and on-paper flags."""
    return jax.jit(jax.vmap(lambda mesh, state, punches: hole_masks(mesh, state, punches, offset, side, words),
                            in_axes=(None, 0, None)))


class Finer(Exception):
    """A line fell between mesh lines: restart on a mesh `factor` times finer."""

    def __init__(self, factor: int):
        super().__init__(factor)
        self.factor = factor


def chunk_prefixes(n_alphabet: int, triangles: int, punches: int, words: int, masks: bool, budget: int) -> int:
    """Prefixes per extender call within `budget` bytes (at least one: `check_space` refused the
    family before work if one prefix's children do not fit)."""
    per_prefix = n_alphabet * space_child_bytes(triangles, punches if masks else 0, words)
    return max(1, min(MAX_PREFIXES_PER_CALL, budget // max(1, per_prefix)))


def finer_needed(code: np.ndarray, detail: np.ndarray) -> None:
    """Raise `Finer` (as the enumeration would) when a chunk's children need a finer mesh."""
    if (code == E.OFF_LATTICE).any():
        raise Finer(int(detail[code == E.OFF_LATTICE].max()))
    if (code == CREASE_CUTS_TRIANGLE).any():
        raise Finer(2)


def fold_children(step, mesh, states, count: int, chunk: int, alphabet, punches, *, check=None):
    """Every child (state x alphabet fold) of the first `count` states, `chunk` states a kernel call:
    (codes int[count, A], children's states stacked). `check(code, detail)` sees each chunk first."""
    codes, children = [], []
    for lo in range(0, count, chunk):
        n = min(chunk, count - lo)
        out = jax.device_get(step(mesh, pad_to(take(states, slice(lo, lo + n)), chunk), alphabet, punches))
        if check is not None:
            check(out["code"][:n], out["detail"][:n])
        codes.append(out["code"][:n])
        children.append(take(out["state"], slice(0, n)))
    return np.concatenate(codes), jax.tree.map(lambda *xs: np.concatenate(xs), *children)


def take(tree, index):
    """The rows `index` of every array of a batched state."""
    return jax.tree.map(lambda x: x[index], tree)


def pad_to(tree, rows: int):
    """A batch padded to `rows` with copies of its first row (one compiled shape per chunk size)."""
    n = jax.tree.leaves(tree)[0].shape[0]
    if n == rows:
        return tree
    return jax.tree.map(lambda x: np.concatenate([x, np.repeat(x[:1], rows - n, 0)]), tree)
