"""The reference scorers' holes as tensors, and their per-field tests and match counts."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..score_base import greedy_first_fit, maximum_matching_sizes
from .reading import RefHole
from .text import DIRECTION_WORDS

# --------------------------------------------------------------------------------------------------
# hole tensors and per-field tests


class Interner:
    """Small ids for arbitrary hashable values, shared by truth and prediction in one run."""

    def __init__(self) -> None:
        self.ids: dict = {}

    def __call__(self, value: object) -> int:
        key = (type(value) is str, value if isinstance(value, (str, int, float, type(None), tuple)) else repr(value))
        return self.ids.setdefault(key, len(self.ids))


def location_id(location: object, intern: Interner) -> int:
    """Locations compare as numbers (17 == 17.0 == the grid index of [2, 0, 0]); a value that cannot
    equal a truth location (-1, not a number, not finite, beyond float precision) is -1, no match."""
    if isinstance(location, (int, float)) and location != -1:
        if isinstance(location, float) and not math.isfinite(location):
            return -1
        if abs(location) < 2**53:
            return intern(float(location))
    return -1


def ref_tensors(holes: Sequence[Sequence[RefHole]], intern: Interner) -> tuple[np.ndarray, np.ndarray]:
    """int[B, H, 8] (shape, size, folded shape+size, location, location key, direction key, has
    digits, present) and uint64[B, H, 6] angle bits, for the comparisons of `ref_tests`."""
    width = max([1, *map(len, holes)])
    table = np.zeros((len(holes), width, 8), np.int64)
    table[..., :6] = -1
    bits = np.zeros((len(holes), width, DIRECTION_WORDS), np.uint64)
    for b, row in enumerate(holes):
        for h, hole in enumerate(row):
            table[b, h] = (intern(hole.shape), intern(hole.size), intern(hole.folded), location_id(hole.location, intern),
                           intern(hole.location_key), intern(hole.direction_key), bool(hole.angles), 1)
            for angle in hole.angles:
                bits[b, h, angle // 64] |= np.uint64(1 << (angle % 64))
    return table, bits


def ref_tests(truth: tuple[np.ndarray, np.ndarray], pred: tuple[np.ndarray, np.ndarray]) -> dict[str, np.ndarray]:
    """bool[B, G, P] per comparison: shape, size, folded (shape and size case-folded), location,
    location_key, direction_key (equal values), overlap (a truth direction without digits is a
    wildcard, else both digit sets must intersect)."""
    (t, t_bits), (p, p_bits) = truth, pred
    t4, p4 = t[:, :, None, :], p[:, None, :, :]
    present = (t4[..., 7] == 1) & (p4[..., 7] == 1)
    tests = {name: present & (t4[..., c] == p4[..., c]) for c, name in
             enumerate(("shape", "size", "folded", "location", "location_key", "direction_key"))}
    tests["location"] &= t4[..., 3] >= 0
    intersect = ((t_bits[:, :, None, :] & p_bits[:, None, :, :]) != 0).any(axis=-1)
    tests["overlap"] = present & ((t4[..., 6] == 0) | ((p4[..., 6] == 1) & intersect))
    return tests


def truth_wildcards(truth: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """bool[B, G]: truth holes whose direction has no digits."""
    table = truth[0]
    return (table[..., 7] == 1) & (table[..., 6] == 0)


def count_matches(test: np.ndarray, how: str) -> np.ndarray:
    """Pairs per item: "greedy" first-fit (the reference's pairing) or "multiset" (optimal; for
    equality tests this is the multiset intersection the reference computes with counters)."""
    if how == "greedy":
        return (greedy_first_fit(test) >= 0).sum(axis=1)
    return maximum_matching_sizes(test)
