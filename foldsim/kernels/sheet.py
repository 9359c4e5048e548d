"""The flat sheet as constant integer tensors (SPEC §1).

Coordinates are kept on the half-unit lattice: a value v in these arrays means v/2 sheet units,
so every vertex that can ever occur is an integer and every computation is exact. Centroids are
kept as *vertex sums* (3x the centroid), which are integers too.
"""

from __future__ import annotations

import numpy as np

N_TRIANGLES = 32
GRID = 4
HALF = 2  # lattice points per sheet unit


def _cell_triangles(row: int, col: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (half units, y up) of tri 0 and tri 1 of cell (row, col)."""
    x0, x1 = HALF * (col - 2), HALF * (col - 1)
    yt, yb = HALF * (2 - row), HALF * (1 - row)
    tl, tr, bl, br = (x0, yt), (x1, yt), (x0, yb), (x1, yb)
    if (row + col) % 2 == 0:  # "\" diagonal: tri 0 lower-left, tri 1 upper-right
        return np.array([tl, bl, br]), np.array([tl, tr, br])
    return np.array([tl, bl, tr]), np.array([bl, br, tr])  # "/": tri 0 upper-left, tri 1 lower-right


def _flat_vertices() -> np.ndarray:
    tris = np.zeros((N_TRIANGLES, 3, 2), dtype=np.int32)
    for row in range(GRID):
        for col in range(GRID):
            t0, t1 = _cell_triangles(row, col)
            base = 8 * row + 2 * col
            tris[base], tris[base + 1] = t0, t1
    return tris


#: int32[32, 3, 2]: vertices of triangle index t (grid id t + 1), half units, y up.
FLAT_VERTICES = _flat_vertices()
#: int32[32, 2]: vertex sums (3 x centroid) of the flat triangles.
FLAT_CENTROID_SUMS = FLAT_VERTICES.sum(axis=1).astype(np.int32)

#: int32[4, 2, 2]: counter-clockwise rotation by k quarter turns (y up).
QUARTER_ROTATIONS = np.array(
    [[[1, 0], [0, 1]], [[0, -1], [1, 0]], [[-1, 0], [0, -1]], [[0, 1], [-1, 0]]], dtype=np.int32
)


def grid_index_of_centroid_sums(sums: np.ndarray) -> np.ndarray:
    """Grid index (0..31) of each vertex sum in `sums[..., 2]`, or -1 where none matches."""
    eq = np.all(sums[..., None, :] == FLAT_CENTROID_SUMS, axis=-1)
    return np.where(eq.any(-1), eq.argmax(-1), -1).astype(np.int32)


def _rotation_permutations() -> np.ndarray:
    perms = np.zeros((4, N_TRIANGLES), dtype=np.int32)
    for k in range(4):
        turned = FLAT_CENTROID_SUMS @ QUARTER_ROTATIONS[k].T
        perms[k] = grid_index_of_centroid_sums(turned)
    assert (np.sort(perms, axis=1) == np.arange(N_TRIANGLES)).all()
    return perms


#: int32[4, 32]: ROTATION_PERMUTATIONS[k, t] = grid index of triangle t turned by k quarter turns.
ROTATION_PERMUTATIONS = _rotation_permutations()


def location_to_rct(location: int) -> tuple[int, int, int]:
    """Grid id 1..32 -> (row, col, tri), the benchmark's 0-based triple."""
    i = location - 1
    return i // 8, (i % 8) // 2, i % 2


def rct_to_location(row: int, col: int, tri: int) -> int:
    """(row, col, tri) -> grid id 1..32."""
    return 8 * row + 2 * col + tri + 1
