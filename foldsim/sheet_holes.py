"""Hole positions of a sheet family as bit sets: every lattice point a hole can have is a bit
(`PositionGrid`), a punch through triangle t of a folded mesh makes a hole at t's preimage of the
point (the kernel's `punch_mesh` arithmetic, `hole_masks`, on the device), and holes whose
preimages coincide are one bit, which is the engine's dedupe (positions only: shape and direction
are not part of a target here). Targets given as point lists become the same bit sets
(`target_masks`), so comparing a plan's holes with a target is comparing words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np

from .errors import InputError, describe
from .kernels import engine as E
from .sheets import as_fraction


@dataclass(frozen=True)
class PositionGrid:
    """Every lattice point a hole can have, as bit ids: centred lattice coordinates (D-scaled) in
    [-offset, offset]^2, id = (X + offset) * side + (Y + offset), packed in `words` uint32 words."""

    cols: int
    rows: int
    resolution: int
    denominator: int

    @property
    def offset(self) -> int:
        return self.resolution * max(self.cols, self.rows) * self.denominator

    @property
    def side(self) -> int:
        return 2 * self.offset + 1

    @property
    def words(self) -> int:
        return -(-self.side * self.side // 32)

    def ids_of(self, points: Iterable[tuple[object, object]], *, turned: bool = False) -> list[int] | None:
        """Bit ids of hole points given in the viewed sheet's cell units (origin at its bottom-left;
        `turned`: the view is a quarter turn, so the viewed sheet is rows x cols); None when a point
        is not on this grid (no plan of the family can make it)."""
        wide, high = (self.rows, self.cols) if turned else (self.cols, self.rows)
        r, d, off = self.resolution, self.denominator, self.offset
        ids = []
        for i, (x, y) in enumerate(points):
            x, y = as_fraction(x, f"target[{i}].x"), as_fraction(y, f"target[{i}].y")
            X, Y = (2 * r * x - r * wide) * d, (2 * r * y - r * high) * d
            if X.denominator != 1 or Y.denominator != 1 or abs(X) > off or abs(Y) > off:
                return None
            ids.append((int(X) + off) * self.side + int(Y) + off)
        return ids

    def mask_of(self, points: Iterable[tuple[object, object]], *, turned: bool = False) -> np.ndarray | None:
        """uint32[words]: the bit set of a hole set (None: a hole no plan can make)."""
        ids = self.ids_of(points, turned=turned)
        if ids is None:
            return None
        mask = np.zeros(self.words, np.uint32)
        for i in ids:
            mask[i >> 5] |= np.uint32(1 << (i & 31))
        return mask

    def points_of(self, mask: np.ndarray, *, turned: bool = False) -> list[tuple[Fraction, Fraction]]:
        """The hole points of a bit set, in the viewed sheet's cell units, sorted."""
        wide, high = (self.rows, self.cols) if turned else (self.cols, self.rows)
        r, d, off = self.resolution, self.denominator, self.offset
        bits = np.flatnonzero(np.unpackbits(np.asarray(mask, "<u4").view(np.uint8), bitorder="little"))
        points = []
        for i in bits.tolist():
            X, Y = i // self.side - off, i % self.side - off
            points.append(((Fraction(X, d) + r * wide) / (2 * r), (Fraction(Y, d) + r * high) / (2 * r)))
        return sorted(points)


def hole_masks(mesh, state: E.MeshState, punches, offset: int, side: int, words: int):
    """Per punch (int32[P, 3]) of one folded state: the bit set of its holes (uint32[P, words]) and
    whether it lands on paper (bool[P]). Triangle t is hit when its closed placed triangle holds the
    point; its hole is the point's preimage under t's placement, seen through the view (as in
    `kernels.engine.punch_mesh`); coinciding preimages set one bit."""
    vertices = E.placed_vertices(mesh, state)
    word_index = jnp.arange(words, dtype=jnp.int32)

    def one(punch):
        point, den = punch[:2], punch[2]
        hit = E.contains(vertices, point, den) & (den > 0)
        rel = point[None, :] - den * state.shift
        preimage = (state.linear * rel[:, :, None]).sum(1)
        seen = (state.view[None, :, :] * preimage[:, None, :]).sum(-1)
        ids = (seen[:, 0] + offset) * side + (seen[:, 1] + offset)
        bit = jnp.left_shift(jnp.uint32(1), (ids & 31).astype(jnp.uint32))
        bits = jnp.where(hit[:, None] & ((ids >> 5)[:, None] == word_index[None, :]), bit[:, None], jnp.uint32(0))
        return jax.lax.reduce(bits, np.uint32(0), jax.lax.bitwise_or, (0,)), hit.any()

    return jax.vmap(one)(punches)


def target_masks(grid: PositionGrid, targets) -> tuple[np.ndarray, np.ndarray]:
    """(valid bool[T], masks uint32[T, words]) of targets given as a list of point lists, or as bit
    sets; a target with a point off the grid is not valid (no plan makes it)."""
    if isinstance(targets, np.ndarray) and targets.dtype == np.uint32:
        masks = targets.reshape(-1, grid.words)
        return np.ones(len(masks), bool), masks
    valid, masks = [], []
    for target in targets:
        mask = grid.mask_of(target_points(target))
        valid.append(mask is not None)
        masks.append(mask if mask is not None else np.zeros(grid.words, np.uint32))
    return np.array(valid, bool), np.array(masks, np.uint32).reshape(-1, grid.words)


def target_points(target) -> list[tuple[object, object]]:
    """A target's holes as (x, y) pairs, from [x, y] lists or {"x", "y"} objects (a bad hole is an
    InputError naming it)."""
    points = []
    for i, hole in enumerate(target):
        if isinstance(hole, dict):
            if "x" not in hole or "y" not in hole:
                raise InputError("must have x and y", field=f"target[{i}]")
            points.append((hole["x"], hole["y"]))
        elif isinstance(hole, (list, tuple)) and len(hole) == 2:
            points.append((hole[0], hole[1]))
        else:
            raise InputError(f"must be [x, y] or {{\"x\": .., \"y\": ..}}, got {describe(hole)}", field=f"target[{i}]")
    return points
