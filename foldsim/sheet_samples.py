"""Random realizable fold sequences of a sheet family, for benchmarks and spot checks."""

from __future__ import annotations

import jax
import numpy as np

from .batching import memory_budget_bytes
from .engine import rectangle_mesh
from .errors import InputError
from .kernels import engine as E
from .kernels.state import OK
from .sheet_extender import chunk_prefixes, extender, fold_children, take
from .sheet_family import SheetFamily


def sample_sequences(family: SheetFamily, count: int, *, seed: int = 0, folds: int | None = None) -> np.ndarray:
    """int16[count, folds]: random realizable fold sequences of the family (alphabet indices on the
    family's resolution-1 mesh; absolute lines only), by a random walk on the device: each row picks
    a uniformly random realizable next fold; a row with none left is replaced by a copy of a random
    surviving row. Not uniform over the configuration space (a walk favours short-branching
    prefixes); for benchmarks and spot checks. Every prefix of a row is realizable too."""
    folds = family.folds if folds is None else folds
    if any(name in ("halves", "thirds", "centre-diagonals") for name in family.lines):
        raise InputError("samples absolute lines only (grid, diagonal)", field="lines")
    rng = np.random.default_rng(seed)
    mesh = rectangle_mesh(family.cols, family.rows, 1)
    alphabet, punches = family.alphabet_rows(1), family.punch_rows(1)[:1]
    step = extender(1, 3, 1, True, False)
    chunk = chunk_prefixes(len(alphabet), len(mesh), 0, 0, False, memory_budget_bytes())
    chunk = min(chunk, 1 << max(0, (count - 1).bit_length()))
    start = jax.device_get(E.initial_state(mesh))
    states = jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], count, 0), start)
    rows = np.zeros((count, 0), np.int16)
    for _ in range(folds):
        code, merged = fold_children(step, mesh, states, count, chunk, alphabet, punches)
        ok = code == OK
        score = np.where(ok, rng.random(code.shape), -1.0)
        pick = score.argmax(1)
        alive = np.flatnonzero(ok.any(1))
        if len(alive) == 0:
            raise InputError(f"has no realizable sequence of {rows.shape[1] + 1} folds", field="folds")
        source = np.where(ok.any(1), np.arange(count), rng.choice(alive, count))
        states = take(merged, (source, pick[source]))
        rows = np.concatenate([rows[source], pick[source, None].astype(np.int16)], 1)
    return rows
