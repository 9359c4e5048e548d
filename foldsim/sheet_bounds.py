"""How big a sheet family's enumeration may get (docs/errors.md, "Sizes and bounds"): a family whose
single prefix's children pass the memory budget is refused before any work (`check_space`); the
configurations kept are bounded by the budget at `limits.space_configuration_bytes` each
(`SpaceBounds.max_configurations`), and a family whose estimated size (`estimate_levels`, Knuth's
random-walk estimator) passes it is refused before the enumeration starts.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import numpy as np

from .batching import call_bytes_bound, check_rows_fit, fmt_bytes, memory_budget_bytes
from .engine import check_size, triangle_count
from .errors import InputError
from .kernels.state import OK
from .limits import MAX_SPACE_CONFIGURATIONS, space_child_bytes, space_configuration_bytes
from .sheet_extender import chunk_prefixes, extender, finer_needed, fold_children, take
from .sheet_family import SheetFamily
from .sheet_holes import PositionGrid
from .sheets import SheetItem, SheetSpec


@dataclass(frozen=True)
class SpaceBounds:
    """What a family's enumeration may hold at mesh resolution r: bytes of one prefix's children
    (a call holds at least that) and the most configurations the budget keeps."""

    budget: int
    prefix_bytes: int
    configuration_bytes: int

    @property
    def max_configurations(self) -> int:
        return min(MAX_SPACE_CONFIGURATIONS, call_bytes_bound(self.budget) // self.configuration_bytes)


def space_bounds(family: SheetFamily, *, punch: bool = True, resolution: int = 1,
                 budget: int | None = None) -> SpaceBounds:
    """The memory figures of a family (no kernel runs): from `foldsim.limits`' measured formulas."""
    t = triangle_count(family.cols, family.rows, resolution)
    a = len(family.fold_choices())
    p = len(family.punch_points()) if punch else 0
    words = PositionGrid(family.cols, family.rows, resolution, family.punch_denominator(resolution)).words
    return SpaceBounds(memory_budget_bytes() if budget is None else budget, a * space_child_bytes(t, p, words),
                       space_configuration_bytes(t, p, words if punch else 0, family.folds))


def check_space(family: SheetFamily, *, punch: bool = True, resolution: int = 1, budget: int | None = None) -> SpaceBounds:
    """Refuse, before any work, a family whose sheet passes the engine's triangles or whose one
    prefix's children (the smallest call) pass the memory budget; the bounds it will run under."""
    check_size(SheetItem(SheetSpec(family.cols, family.rows), ()), resolution)
    bounds = space_bounds(family, punch=punch, resolution=resolution, budget=budget)
    check_rows_fit(bounds.prefix_bytes, bounds.budget, field="--sheet",
                   what=f"a {family.cols}x{family.rows} family's smallest enumeration call "
                        f"({len(family.fold_choices())} folds x {len(family.punch_points()) if punch else 0} punches)")
    return bounds


#: random fold sequences the size estimate follows (Knuth's estimator: each walk multiplies the
#: realizable choices it meets; their mean is an unbiased estimate of every level's size)
ESTIMATE_WALKS = 256
ESTIMATE_SEED = 0


def too_many(family: SheetFamily, what: str, bounds: SpaceBounds) -> InputError:
    return InputError(f"a {family.cols}x{family.rows} family of {family.folds} fold{'s' * (family.folds != 1)} has "
                      f"{what}; the memory budget of {fmt_bytes(call_bytes_bound(bounds.budget))} holds at most "
                      f"{bounds.max_configurations:,} at {fmt_bytes(bounds.configuration_bytes)} each (and never more "
                      f"than {MAX_SPACE_CONFIGURATIONS:,}): fewer --folds, a smaller sheet or fewer --lines",
                      field="--sheet")


def estimate_levels(mesh, states, alphabet: np.ndarray, folds: int, budget: int, *,
                    walks: int = ESTIMATE_WALKS, seed: int = ESTIMATE_SEED) -> dict[int, float]:
    """Estimated configurations per fold count (1..folds) by Knuth's random-walk estimator, before
    any enumeration: `walks` walks from the flat sheet each fold all A children of their current
    state (walks x A children a level, never the space), multiply their weight by the number that
    are realizable and go on from a random one; a level's estimate is the mean weight (dead walks
    count 0). Unbiased; deterministic for a seed. Raises `Finer` as the enumeration would."""
    rng = np.random.default_rng(seed)
    a, t = len(alphabet), len(mesh)
    step = extender(1, 3, 1, True, False)
    none = np.zeros((1, 3), np.int32)
    chunk = min(chunk_prefixes(a, t, 0, 0, False, budget), walks)
    states = jax.tree.map(lambda x: np.repeat(np.asarray(x), walks, 0), states)
    weight = np.ones(walks)
    estimates = {}
    for k in range(1, folds + 1):
        code, merged = fold_children(step, mesh, states, walks, chunk, alphabet, none, check=finer_needed)
        ok = code == OK
        weight = weight * ok.sum(1)
        estimates[k] = float(weight.mean())
        if not weight.any():
            estimates.update({j: 0.0 for j in range(k + 1, folds + 1)})
            break
        pick = np.where(ok, rng.random(ok.shape), -1.0).argmax(1)  # a random realizable child (any, when dead)
        states = take(merged, (np.arange(walks), pick))
    return estimates
