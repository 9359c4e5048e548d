"""Configuration spaces of general sheets (docs/engine.md, "Configuration spaces"): a described
family of fold sequences and punches (`foldsim.sheet_family`), counted exactly, every plan of it
punched, proposed plans verified in bulk, and exhaustive solving with solution counts.

A **configuration** is a fold sequence of the family whose every fold is realizable
(docs/engine.md: both sides of each line hold paper); a **plan** is a configuration and one punch
of the set that lands on paper.

How: enumeration extends every realizable prefix state by every action of the alphabet on the
device, one jitted call per fixed-size chunk of prefixes (`foldsim.sheet_extender`), and keeps the
realizable children: a failed fold freezes a row, so dropping a non-realizable prefix early loses
nothing. The holes of a punch are a bit set over the lattice points of the (viewed) sheet
(`foldsim.sheet_holes`). The whole family's holes are one uint32 table
``masks[k][config, punch, word]``; solving a target is one vectorized comparison against it, and
`hole_set_histogram` counts the plans of every distinct hole set at once. Lines that fall between
mesh lines restart the whole enumeration on a finer mesh, so counts stay exact.

Memory (docs/errors.md, "Sizes and bounds", `foldsim.sheet_bounds`): a family whose single prefix's
children pass the budget is refused before any work (`check_space`), and so is one whose estimated
size passes the configurations the budget holds; a level that keeps more stops at once, naming the
count and the bound.

This module is also the face of the family's other modules: `SheetFamily`, `PositionGrid`,
`check_space`, `sample_sequences` and the rest import from here too. The CLI's presentation is in
`foldsim.sheet_space_io`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np

from .batching import memory_budget_bytes
from .engine import rectangle_mesh
from .kernels import engine as E
from .kernels.state import OFF_PAPER, OK
from .sheet_bounds import (
    ESTIMATE_SEED,
    ESTIMATE_WALKS,
    SpaceBounds,
    check_space,
    estimate_levels,
    space_bounds,
    too_many,
)
from .sheet_extender import (
    MAX_PREFIXES_PER_CALL,
    Finer,
    chunk_prefixes,
    extender,
    finer_needed,
    pad_to,
    state_puncher,
    take,
)
from .sheet_family import FACE_OPTIONS, LINE_SETS, MAX_FOLDS, PUNCH_SETS, SIDE_OPTIONS, SheetFamily, lattice
from .sheet_holes import PositionGrid, hole_masks, target_masks, target_points
from .sheet_samples import sample_sequences
from .sheets import Fold, Punch, SheetItem, SheetSpec, as_fraction

__all__ = [
    # the family (foldsim.sheet_family)
    "FACE_OPTIONS", "LINE_SETS", "MAX_FOLDS", "PUNCH_SETS", "SIDE_OPTIONS", "SheetFamily", "lattice",
    # hole bit sets (foldsim.sheet_holes)
    "PositionGrid", "target_masks",
    # the memory bounds and size estimate (foldsim.sheet_bounds)
    "ESTIMATE_SEED", "ESTIMATE_WALKS", "SpaceBounds", "check_space", "estimate_levels", "space_bounds",
    # the extension kernels (foldsim.sheet_extender)
    "MAX_PREFIXES_PER_CALL",
    # random sequences (foldsim.sheet_samples)
    "sample_sequences",
    # this module
    "LevelStart", "PlanCheck", "Progress", "SheetSpace", "Solutions", "enumerate_family", "hole_set_histogram",
    "histogram_summary", "plan_holes", "solve_targets", "verify_plans",
]


Progress = Callable[[int], None]
#: called before each level with (fold count k, prefixes to extend x alphabet = children to fold)
LevelStart = Callable[[int, int], None]


@dataclass
class SheetSpace:
    """A family's configurations, per fold count k: `sequences[k]` int16[N_k, k] (indices into the
    alphabet, lexicographic), and with punches `masks[k]` uint32[N_k, P, words] (the holes of each
    punch as a bit set over `grid`) and `on_paper[k]` bool[N_k, P]."""

    family: SheetFamily
    resolution: int
    alphabet: np.ndarray  # int32[A, ACTION_WIDTH]
    punches: np.ndarray  # int32[P, 3]
    grid: PositionGrid
    sequences: dict[int, np.ndarray]
    masks: dict[int, np.ndarray] | None = None
    on_paper: dict[int, np.ndarray] | None = None
    children_folded: int = 0  # kernel rows run (prefix x alphabet), the work done
    folds: tuple[Fold, ...] = field(default=())

    def counts(self) -> dict[int, int]:
        """Configurations per fold count."""
        return {k: len(v) for k, v in self.sequences.items()}

    @property
    def total(self) -> int:
        return sum(self.counts().values())

    def plan_counts(self) -> dict[int, int]:
        """Plans (configuration, punch on paper) per fold count."""
        if self.on_paper is None:
            raise ValueError("enumerated without punches")
        return {k: int(v.sum()) for k, v in self.on_paper.items()}

    def actions(self, k: int) -> np.ndarray:
        """int32[N_k, k, ACTION_WIDTH]: the configurations of k folds as kernel rows."""
        return self.alphabet[self.sequences[k]]

    def item(self, k: int, index: int, punch: int | None = None) -> SheetItem:
        """Configuration `index` of k folds (and a punch of the set) as a `SheetItem`."""
        folds = tuple(self.folds[a] for a in self.sequences[k][index].tolist())
        punches = () if punch is None else (Punch(*self.family.punch_points()[punch]),)
        return SheetItem(SheetSpec(self.family.cols, self.family.rows), folds, punches,
                         id=f"{k}-fold configuration {index + 1}")

    def summary(self) -> dict:
        out = {"family": self.family.to_dict(), "description": self.family.describe(),
               "alphabet": len(self.alphabet), "punch_points": len(self.punches), "mesh_resolution": self.resolution,
               "by_folds": {str(k): n for k, n in self.counts().items()}, "total": self.total,
               "sequences_without_realizability": {str(k): len(self.alphabet) ** k for k in self.sequences}}
        if self.on_paper is not None:
            plans = self.plan_counts()
            out["plans_by_folds"] = {str(k): n for k, n in plans.items()}
            out["plans"] = sum(plans.values())
        return out


def _enumerate_at(family: SheetFamily, r: int, punch: bool, on_progress: Progress | None,
                  on_level: LevelStart | None = None, budget: int | None = None) -> SheetSpace:
    bounds = check_space(family, punch=punch, resolution=r, budget=budget)
    mesh = rectangle_mesh(family.cols, family.rows, r)
    alphabet = family.alphabet_rows(r)
    punches = family.punch_rows(r)
    grid = PositionGrid(family.cols, family.rows, r, family.punch_denominator(r))
    a, t = len(alphabet), len(mesh)
    start = jax.device_get(E.initial_state(mesh))
    states = jax.tree.map(lambda x: np.asarray(x)[None], start)  # the prefixes of the level: [n, ...]
    most = sum(len(alphabet) ** k for k in range(max(family.min_folds, 1), family.folds + 1))  # every sequence
    estimate = estimate_levels(mesh, states, alphabet, family.folds, bounds.budget) if most > bounds.max_configurations else {}
    expected = sum(n for k, n in estimate.items() if k >= family.min_folds)
    if expected > bounds.max_configurations:  # refused before the enumeration starts
        raise too_many(family, f"about {expected:,.0f} configurations (estimated from {ESTIMATE_WALKS} random fold "
                       "sequences)", bounds)
    prefixes = np.zeros((1, 0), np.int16)
    sequences, masks, on_paper = {}, {}, {}
    work = 0
    if punch and family.min_folds == 0:
        m, p = state_puncher(grid.offset, grid.side, grid.words)(mesh, states, punches)
        sequences[0], masks[0], on_paper[0] = prefixes, np.asarray(m), np.asarray(p)
    elif family.min_folds == 0:
        sequences[0] = prefixes
    for k in range(1, family.folds + 1):
        last = k == family.folds
        want_masks = punch and k >= family.min_folds
        step = extender(grid.offset, grid.side, grid.words, not last, want_masks)
        chunk = chunk_prefixes(a, t, len(punches), grid.words, want_masks, bounds.budget)
        chunk = min(chunk, 1 << max(0, (len(prefixes) - 1).bit_length()))  # a small level: one small call
        kept_seq, kept_states, kept_masks, kept_paper = [], [], [], []
        kept = 0
        if on_level:
            on_level(k, len(prefixes) * a)
        for lo in range(0, len(prefixes), chunk):
            n = min(chunk, len(prefixes) - lo)
            part = pad_to(take(states, slice(lo, lo + n)), chunk)
            out = jax.device_get(step(mesh, part, alphabet, punches))
            code = out["code"][:n]
            finer_needed(code, out["detail"][:n])
            i, j = np.nonzero(code == OK)
            kept += len(i)
            if kept > bounds.max_configurations:  # the estimate was low: stop before passing the budget
                raise too_many(family, f"more than {bounds.max_configurations:,} configurations of {k} fold"
                               f"{'s' * (k != 1)} ({kept:,} found before stopping)", bounds)
            kept_seq.append(np.concatenate([prefixes[lo + i], j[:, None].astype(np.int16)], 1))
            if not last:
                kept_states.append(take(out["state"], (i, j)))
            if want_masks:
                kept_masks.append(out["masks"][i, j])
                kept_paper.append(out["on_paper"][i, j])
            work += n * a
            if on_progress:
                on_progress(n * a)
        prefixes = np.concatenate(kept_seq) if kept_seq else np.zeros((0, k), np.int16)
        if k >= family.min_folds:
            sequences[k] = prefixes
            if want_masks:
                masks[k] = np.concatenate(kept_masks) if kept_masks else np.zeros((0, len(punches), grid.words), np.uint32)
                on_paper[k] = np.concatenate(kept_paper) if kept_paper else np.zeros((0, len(punches)), bool)
        if not last:
            if not kept_states:
                break
            states = jax.tree.map(lambda *xs: np.concatenate(xs), *kept_states)
    for k in range(family.min_folds, family.folds + 1):  # levels after an empty one are empty
        sequences.setdefault(k, np.zeros((0, k), np.int16))
        if punch:
            masks.setdefault(k, np.zeros((0, len(punches), grid.words), np.uint32))
            on_paper.setdefault(k, np.zeros((0, len(punches)), bool))
    return SheetSpace(family, r, alphabet, punches, grid, dict(sorted(sequences.items())),
                      dict(sorted(masks.items())) if punch else None, dict(sorted(on_paper.items())) if punch else None,
                      work, family.fold_choices())


def enumerate_family(family: SheetFamily, *, punch: bool = False, on_progress: Progress | None = None,
                     on_level: LevelStart | None = None, memory_budget: int | None = None) -> SheetSpace:
    """Every configuration of the family, exactly, level by level on the device; with `punch`, every
    punch of the set through every configuration (`SheetSpace.masks`). A family whose box-relative
    lines fall between mesh lines is run again on a finer mesh (InputError past the engine's size).
    InputError before any work when one call passes the memory budget (`check_space`), and as soon
    as a level keeps more configurations than the budget holds. `on_level(k, children)` announces
    each level, `on_progress(n)` counts the children folded."""
    r = 1
    budget = memory_budget_bytes() if memory_budget is None else memory_budget
    while True:
        try:
            return _enumerate_at(family, r, punch, on_progress, on_level, budget)
        except Finer as finer:
            r *= finer.factor


# -- verification of proposed plans ----------------------------------------------------------------


class PlanCheck(dict):
    """Columns of a bulk verification: `status` int32[N] (kernel status codes, OFF_PAPER when a punch
    misses the paper), `masks` uint32[N, words] (the plan's holes), `turned` bool[N] (its view is a
    quarter turn), `match` bool[N] (status ok and holes equal the target)."""

    __getattr__ = dict.__getitem__


@functools.lru_cache(maxsize=32)
def _plan_runner(offset: int, side: int, words: int):
    def one(mesh, actions, punches):
        state, status = E.fold_mesh(mesh, actions)
        masks, on_paper = hole_masks(mesh, state, punches, offset, side, words)
        used = punches[:, 2] > 0
        union = jax.lax.reduce(jnp.where(used[:, None], masks, jnp.uint32(0)), np.uint32(0), jax.lax.bitwise_or, (0,))
        missed = used & ~on_paper
        code = jnp.where((status.code == OK) & missed.any(), OFF_PAPER, status.code)
        return code, union, state.view[0, 0] == 0

    return jax.jit(jax.vmap(one, in_axes=(None, 0, 0)))


def plan_holes(cols: int, rows: int, actions: np.ndarray, punches: np.ndarray, *, resolution: int = 1,
               denominator: int = 1, chunk_rows: int = 4096) -> PlanCheck:
    """Run plans given as kernel rows (actions int32[N, S, ACTION_WIDTH], punches int32[N, P, 3] with
    D = `denominator` or 0 for none) on a `cols x rows` sheet at mesh `resolution`: per plan its status
    and the union of its punches' holes as a bit set over `PositionGrid(cols, rows, resolution,
    denominator)`."""
    grid = PositionGrid(cols, rows, resolution, denominator)
    mesh = rectangle_mesh(cols, rows, resolution)
    run = _plan_runner(grid.offset, grid.side, grid.words)
    actions, punches = np.asarray(actions, np.int32), np.asarray(punches, np.int32)
    n = len(actions)
    code, masks, turned = np.zeros(n, np.int32), np.zeros((n, grid.words), np.uint32), np.zeros(n, bool)
    size = min(chunk_rows, 1 << max(0, (n - 1).bit_length()))
    for lo in range(0, n, size):
        part = [pad_to(x[lo: lo + size], size) for x in (actions, punches)]
        c, m, t = jax.device_get(run(mesh, *part))
        k = min(size, n - lo)
        code[lo: lo + k], masks[lo: lo + k], turned[lo: lo + k] = c[:k], m[:k], t[:k]
    return PlanCheck(status=code, masks=masks, turned=turned, grid=grid)


def verify_plans(space: SheetSpace, sequences: np.ndarray, punch_index: np.ndarray,
                 targets: Sequence[Sequence[tuple[object, object]]] | np.ndarray) -> PlanCheck:
    """Bulk verification: plans of a family (alphabet indices int[N, k] with -1 for no fold, one punch
    index int[N] into the punch set) against target hole sets (a list of N point lists in cell
    units, or of one for all plans, or uint32[N | 1, words] bit sets): `match[i]` says plan i is realizable,
    lands on paper and makes exactly target i's holes."""
    sequences = np.asarray(sequences).reshape(len(sequences), -1)
    rows = np.where((sequences >= 0)[..., None], space.alphabet[np.clip(sequences, 0, None)], 0)
    punches = space.punches[np.asarray(punch_index)][:, None, :]
    width = max(4, rows.shape[1])  # one compiled shape for short plans
    rows = np.concatenate([rows, np.zeros((len(rows), width - rows.shape[1], E.ACTION_WIDTH), np.int32)], 1)
    check = plan_holes(space.family.cols, space.family.rows, rows, punches, resolution=space.resolution,
                       denominator=space.grid.denominator)
    target = target_masks(space.grid, targets)
    found = target[1] if target[1].shape[0] == len(rows) else np.broadcast_to(target[1], (len(rows), space.grid.words))
    valid = target[0] if target[0].shape[0] == len(rows) else np.broadcast_to(target[0], (len(rows),))
    check["match"] = (check.status == OK) & valid & (check.masks == found).all(1)
    return check


# -- solving ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solutions:
    """Every plan of a family that makes a target's holes: per fold count, (configuration, punch)
    index pairs, lexicographic."""

    target: tuple[tuple[Fraction, Fraction], ...]
    on_grid: bool
    plans: dict[int, np.ndarray]  # k -> int64[M_k, 2]: (configuration index, punch index)

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.plans.values())

    def by_folds(self) -> dict[int, int]:
        return {k: len(v) for k, v in self.plans.items()}


def solve_targets(space: SheetSpace, targets: Sequence[Sequence[tuple[object, object]]]) -> list[Solutions]:
    """Exhaustive solving: for each target hole set (points in cell units), every plan of the family
    that makes exactly those holes (one vectorized comparison over the whole punched space)."""
    if space.masks is None:
        raise ValueError("solving needs a space enumerated with punch=True")
    valid, masks = target_masks(space.grid, targets)
    out = []
    for target, ok, mask in zip(targets, valid, masks):
        plans = {}
        for k, table in space.masks.items():
            if not ok:
                plans[k] = np.zeros((0, 2), np.int64)
                continue
            hit = (table == mask).all(-1) & space.on_paper[k]
            plans[k] = np.argwhere(hit).astype(np.int64)
        exact = tuple(sorted((as_fraction(x, "x"), as_fraction(y, "y")) for x, y in target_points(target))) if ok else ()
        out.append(Solutions(exact, bool(ok), plans))
    return out


def hole_set_histogram(space: SheetSpace) -> tuple[np.ndarray, np.ndarray]:
    """(distinct hole sets uint32[H, words], plans making each int64[H]): every target the family can
    pose and its exact solution count, at once."""
    if space.masks is None:
        raise ValueError("needs a space enumerated with punch=True")
    rows = [m[p] for m, p in zip(space.masks.values(), space.on_paper.values())]
    table = np.concatenate(rows) if rows else np.zeros((0, space.grid.words), np.uint32)
    if len(table) == 0:
        return table, np.zeros(0, np.int64)
    keys = np.ascontiguousarray(table).view(np.dtype((np.void, table.dtype.itemsize * table.shape[1]))).ravel()
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    return table[first], counts.astype(np.int64)


def histogram_summary(counts: np.ndarray) -> dict:
    """How many plans a posed target has: distinct targets, uniquely solvable ones, the most."""
    if len(counts) == 0:
        return {"distinct_hole_sets": 0}
    return {"distinct_hole_sets": int(len(counts)), "uniquely_solvable": int((counts == 1).sum()),
            "max_solutions": int(counts.max()), "median_solutions": float(np.median(counts)),
            "mean_solutions": float(counts.mean())}
