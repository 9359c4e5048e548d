"""MentalBlackboard as a preset of the general engine: its 32-triangle sheet is a rigid mesh on the
4x4 lattice (the engine's resolution-1 lattice of a 4x4 sheet is SPEC §1's half-unit lattice), its
eight fold types are box-relative lines with a named moving side, its holes are point punches at
triangle centroids. `simulate_via_engine` answers MentalBlackboard configurations through the
general kernel; a test proves it agrees with the 32-triangle fast path on the whole physical space
times every punch location.

This is the model layer's home of MentalBlackboard's own sheet data (SHEET, FOLD_CODES, the
location ids): the core (check, enumerate), the renderer, the dataset writers and the scorers all
read it, so it sits below them; the family (foldsim.families.mentalblackboard) points to it."""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .kernels import engine as E
from .mesh import TriangleSheet

#: The benchmark's sheet (SPEC §1): 4x4 cells, 32 triangles on the half-unit lattice; triangle
#: index t is location id t + 1. Code outside the fast path reads it through this name (or
#: `family("mentalblackboard").mesh()`), never through the kernel's constant tables.
SHEET = TriangleSheet("mentalblackboard", K.sheet.FLAT_VERTICES, K.sheet.HALF, K.sheet.GRID, K.sheet.GRID)
#: the eight fold types by their codes, in action-int order (SPEC §3)
FOLD_CODES = ("H1", "H2", "V1", "V2", "D1", "D2", "D3", "D4")


def location_to_rct(location: int) -> tuple[int, int, int]:
    """Location id 1..32 -> (row, col, tri), the benchmark's 0-based triple."""
    return K.sheet.location_to_rct(location)


def rct_to_location(row: int, col: int, tri: int) -> int:
    """(row, col, tri) -> location id 1..32."""
    return K.sheet.rct_to_location(row, col, tri)


#: engine line family and named moving side (+1: where the functional is above c) of H1..D4
FOLD_LINES = (
    (E.H, 1), (E.H, -1),  # H1 top moves, H2 bottom moves
    (E.V, -1), (E.V, 1),  # V1 left moves, V2 right moves
    (E.D, 1), (E.N, 1),  # D1 top-left of the "/" box diagonal, D2 top-right of the "\" one
    (E.N, -1), (E.D, -1),  # D3 bottom-left, D4 bottom-right
)
RIGID_MESH = SHEET.vertices  # int32[32, 3, 2], half units: the engine's lattice for a 4x4 sheet


def _engine_action_table() -> np.ndarray:
    """int32[N_ACTION_CODES, ACTION_WIDTH]: the engine row of every MentalBlackboard action int."""
    table = np.zeros((K.actions.N_ACTION_CODES, E.ACTION_WIDTH), np.int32)
    for code in range(K.actions.FIRST_FOLD_FRONT, K.actions.FIRST_ROTATION):
        fold_type, front = (code - 1) % 8, code < K.actions.FIRST_FOLD_BACK
        family, side = FOLD_LINES[fold_type]
        row = table[code]
        row[E.KIND], row[E.FAMILY], row[E.NUM], row[E.DEN] = E.FOLD, family, 1, 2
        row[E.LINE_MODE] = E.BOX if family in (E.H, E.V) else E.SQUARE_BOX
        row[E.SIDE_RULE], row[E.SIDE_A], row[E.FRONT] = E.NAMED, side, int(front)
    for quarters in (1, 2, 3):
        row = table[K.actions.rotation_action(quarters)]
        row[E.KIND], row[E.NUM] = E.ROTATE, quarters
    return table


ENGINE_ACTIONS = _engine_action_table()


def engine_actions(actions: np.ndarray) -> np.ndarray:
    """int32[N, S, ACTION_WIDTH] from MentalBlackboard action ints int[N, S]."""
    return ENGINE_ACTIONS[np.asarray(actions, np.int32)]


def engine_punches(locations: np.ndarray) -> np.ndarray:
    """int32[N, P, 3]: the centroid of each punch's grid triangle (index 0..31, -1 = none) as the
    point (3 x centroid) / 3 on the lattice; D = 0 for none."""
    locations = np.asarray(locations, np.int32)
    sums = SHEET.centroid_sums[np.clip(locations, 0, None)]
    return np.concatenate([sums, np.full((*locations.shape, 1), 3, np.int32)], -1) * (locations >= 0)[..., None]


def grid_index_of_positions(position: np.ndarray) -> np.ndarray:
    """Grid index (0..31) of view positions given as 3 x centroid (what a centroid punch maps to),
    -1 where none matches."""
    return SHEET.index_of_centroid_sums(np.asarray(position, np.int32))


# -- MentalBlackboard configurations through the general engine -------------------------------------

#: the 32 centroid punches that count the layers on every grid position
EVERY_LOCATION = np.arange(SHEET.n_triangles, dtype=np.int32)


def engine_simulated(rows, chunk_rows: int | None = None):
    """What `foldsim.simulate` decodes (`Simulated`), computed by the general engine on the rigid
    32-triangle mesh instead of the 32-triangle kernel: the same Results, by another road."""
    import jax

    from .engine import hole_positions, run_mesh
    from .simulate import Simulated, encode

    actions, locations, quarters = encode(rows)
    n, punches = locations.shape
    every = np.broadcast_to(EVERY_LOCATION, (n, SHEET.n_triangles))
    punch_rows = engine_punches(np.concatenate([locations, every], 1))
    out = run_mesh(RIGID_MESH, engine_actions(actions), punch_rows, chunk_rows=chunk_rows)
    codes, n_folds = jax.device_get(jax.jit(jax.vmap(K.unfolding_codes))(actions))
    first = out.first[:, :punches]  # [N, P, T]
    row, punch, triangle = np.nonzero(first)
    location = grid_index_of_positions(hole_positions(out, row, punch, triangle, punch_rows))
    quarter = quarters[row, punch] & 3
    sign, offset = out.sign[row, triangle], out.offset[row, triangle]
    direction = (sign * quarter + offset) & 3
    # the layer-counting punches may miss the paper; only the item's own punches make it off_paper
    code, step = out.status.code.copy(), out.status.step.copy()
    missed = (locations >= 0) & ~first.any(-1)
    counted = code == K.OFF_PAPER
    code[counted] = np.where(missed[counted].any(-1), K.OFF_PAPER, K.OK)
    step[counted] = np.where(missed[counted].any(-1), missed[counted].argmax(-1), -1)
    status = np.stack([code, step, out.status.triangle], 1)
    offsets = np.searchsorted(row, np.arange(n + 1))
    return Simulated(status.tolist(), out.layers_under[:, punches:].tolist(),
                     [c[:k] for c, k in zip(codes.tolist(), n_folds.tolist(), strict=True)], offsets.tolist(),
                     punch.tolist(), location.tolist(), direction.tolist(), out.mirrored[row, triangle].tolist())
