"""A flat sheet cut into triangles, as data: what dataset, eval and render code reads instead of one
benchmark's constants (docs/engine.md, "One world").

A `TriangleSheet` holds its triangles on an integer lattice (`per_unit` lattice points per sheet
unit, origin at the sheet's centre, y up), so every vertex, centroid sum and symmetry image is an
integer and every comparison is exact. Which triangles a family's sheet has, and what it calls
them (MentalBlackboard's location ids 1..32), is that family's data (`foldsim.families`); the
tables derived here (centroids, symmetry permutations, edge neighbours) are the same for any sheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

#: int32[4, 2, 2]: counter-clockwise rotation by k quarter turns (y up).
QUARTER_ROTATIONS = np.array(
    [[[1, 0], [0, 1]], [[0, -1], [1, 0]], [[-1, 0], [0, -1]], [[0, 1], [-1, 0]]], dtype=np.int32
)
#: int32[2, 2]: the left-right mirror x -> -x.
MIRROR_X = np.array([[-1, 0], [0, 1]], dtype=np.int32)


@dataclass(frozen=True, eq=False)
class TriangleSheet:
    """A rectangular sheet of `cols` x `rows` cells cut into triangles.

    `vertices` int[T, 3, 2]: triangle t's corners in lattice units (centred, y up); the triangle
    index is the sheet's own numbering (a family may name it otherwise). Derived tables are cached
    on first use."""

    name: str
    vertices: np.ndarray
    per_unit: int
    cols: int
    rows: int

    def __post_init__(self) -> None:
        vertices = np.asarray(self.vertices, dtype=np.int32)
        if vertices.ndim != 3 or vertices.shape[1:] != (3, 2):
            raise ValueError(f"{self.name}: vertices must be int[T, 3, 2], got shape {vertices.shape}")
        vertices.setflags(write=False)
        object.__setattr__(self, "vertices", vertices)

    @classmethod
    def rectangle(cls, name: str, cols: int, rows: int, resolution: int = 1) -> TriangleSheet:
        """The general engine's mesh of a cols x rows sheet: r x r squares per cell, each cut into four
        triangles by both diagonals (foldsim.engine.rectangle_mesh), 2r lattice points per unit."""
        from .engine import rectangle_mesh

        return cls(name, rectangle_mesh(cols, rows, resolution), 2 * resolution, cols, rows)

    @property
    def n_triangles(self) -> int:
        return int(self.vertices.shape[0])

    @property
    def is_square(self) -> bool:
        return self.cols == self.rows

    @cached_property
    def centroid_sums(self) -> np.ndarray:
        """int32[T, 2]: vertex sums (3 x centroid) in lattice units: exact centroids."""
        return self.vertices.sum(axis=1).astype(np.int32)

    @cached_property
    def triangles(self) -> np.ndarray:
        """float[T, 3, 2]: corners in sheet units (centred, y up), for drawing."""
        return self.vertices.astype(float) / self.per_unit

    @cached_property
    def centroids(self) -> np.ndarray:
        """float[T, 2]: centroids in sheet units (centred, y up), where holes are drawn."""
        return self.centroid_sums.astype(float) / (3 * self.per_unit)

    def everywhere(self) -> np.ndarray:
        """bool[T]: every triangle (a flat sheet's paper mask)."""
        return np.ones(self.n_triangles, dtype=bool)

    def index_of_centroid_sums(self, sums: np.ndarray) -> np.ndarray:
        """Triangle index of each vertex sum in `sums[..., 2]`, or -1 where none matches."""
        eq = np.all(np.asarray(sums)[..., None, :] == self.centroid_sums, axis=-1)
        return np.where(eq.any(-1), eq.argmax(-1), -1).astype(np.int32)

    def image_permutation(self, matrix: np.ndarray) -> np.ndarray:
        """int32[T]: index of the image of each triangle under the linear isometry `matrix` (2x2,
        about the sheet's centre); raises if the sheet is not mapped onto itself."""
        table = self.index_of_centroid_sums(self.centroid_sums @ np.asarray(matrix).T)
        if (np.sort(table) != np.arange(self.n_triangles)).any():
            raise ValueError(f"{self.name}: the isometry {np.asarray(matrix).tolist()} does not map the sheet onto itself")
        return table

    @cached_property
    def turn_permutations(self) -> np.ndarray:
        """int32[4, T]: `[k, t]` = index of triangle t turned by k quarter turns (square sheets)."""
        if not self.is_square:
            raise ValueError(f"{self.name}: a {self.cols}x{self.rows} sheet is not mapped onto itself by a quarter turn")
        return np.stack([self.image_permutation(QUARTER_ROTATIONS[k]) for k in range(4)])

    @cached_property
    def mirror_permutation(self) -> np.ndarray:
        """int32[T]: index of each triangle mirrored left-right (x -> -x)."""
        return self.image_permutation(MIRROR_X)

    @cached_property
    def edge_neighbours(self) -> np.ndarray:
        """bool[T, T]: triangles that share an edge."""
        keys = [{tuple(v) for v in tri} for tri in self.vertices.tolist()]
        n = self.n_triangles
        return np.array([[a != b and len(keys[a] & keys[b]) == 2 for b in range(n)] for a in range(n)])

    @property
    def triangles_per_row(self) -> int:
        """Triangles in one row of cells (a text grid's characters per line)."""
        return self.n_triangles // self.rows
