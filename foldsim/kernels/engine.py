"""The general engine's kernel: any triangle mesh on an integer lattice, folds along H/V/D/N lines,
rotations and flips, point punches (docs/engine.md). Pure integer functions, vmapped over rows and
jitted once per (mesh size, actions, punches) shape; the same code on CPU and CUDA.

The state is the mesh's per-triangle placement (a square symmetry plus an integer shift) and layer,
exactly as for the 32-triangle sheet; the mesh is an argument, not a constant, so a sheet of any
size is one more shape. A crease must run along mesh edges: a fold whose line crosses a triangle
reports CREASE_CUTS_TRIANGLE (for a rigid preset that is "not realizable"; for a subdivided
rectangle the caller refines the mesh and runs the row again), and a box-relative line that falls
between lattice points reports OFF_LATTICE with the denominator it needs.

An action is one int32 row of ACTION_WIDTH fields (see the constants below); a punch is
(X, Y, D): the point (X/D, Y/D) in lattice units, D = 0 for padding.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from .punch import direction_map
from .sheet import QUARTER_ROTATIONS
from .state import CREASE_CUTS_TRIANGLE, EMPTY_SIDE, OBLIQUE_CREASE, OFF_PAPER, OK, Status, ok_status
from .step import restack

OFF_LATTICE = 5  # a box-relative line between lattice points; Status.triangle holds the denominator
GENERAL_STATUS_NAMES = ("ok", "crease_cuts_triangle", "empty_side", "oblique_crease", "off_paper", "off_lattice")

# action fields
KIND, FAMILY, LINE_MODE, NUM, DEN, SIDE_RULE, SIDE_A, SIDE_B, SIDE_D, FRONT, TIE = range(11)
ACTION_WIDTH = 11
# kinds
NOOP, FOLD, ROTATE, FLIP = 0, 1, 2, 3
# families: the functional n . p with n = (0,1) y, (1,0) x, (-1,1) y - x, (1,1) x + y
H, V, D, N = 0, 1, 2, 3
# line modes: ABSOLUTE c = NUM; BOX: c = lo + (hi - lo) NUM / DEN over the box corners;
# SQUARE_BOX: BOX that also needs a square box (MentalBlackboard's diagonals)
ABSOLUTE, BOX, SQUARE_BOX = 0, 1, 2
# side rules: NAMED (SIDE_A = +1 / -1: the side where the functional is above / below c moves);
# SMALLER (the side of smaller extent in the box; TIE = +1 / -1 moves on equal extents); AWAY_FROM
# the point (SIDE_A, SIDE_B) / SIDE_D (as SMALLER when the point is on the line)
NAMED, SMALLER, AWAY_FROM = 0, 1, 2

NORMALS = ((0, 1), (1, 0), (-1, 1), (1, 1))
#: reflection across n . p = c: p -> M p + c * s
REFLECT_LINEAR = (((1, 0), (0, -1)), ((-1, 0), (0, 1)), ((0, 1), (1, 0)), ((0, -1), (-1, 0)))
REFLECT_SHIFT_PER_C = ((0, 2), (2, 0), (-1, 1), (1, 1))
FLIP_LINEAR = ((-1, 0), (0, 1))


class MeshState(NamedTuple):
    """Placement (linear, shift) and layer of every triangle, and the view V (rotations and flips)."""

    linear: jnp.ndarray  # int32[T, 2, 2]
    shift: jnp.ndarray  # int32[T, 2]
    layer: jnp.ndarray  # int32[T]
    view: jnp.ndarray  # int32[2, 2]


class EngineStep(NamedTuple):
    """What one action did: its isometry, which triangles moved, the crease (family, c) of a fold."""

    linear: jnp.ndarray  # int32[2, 2]
    shift: jnp.ndarray  # int32[2]
    moving: jnp.ndarray  # bool[T]
    family: jnp.ndarray  # int32[] (-1 for non-folds)
    value: jnp.ndarray  # int32[]


class EnginePunched(NamedTuple):
    """A row's answer, compact: per punch and triangle only `first[p, t]` (the punch goes through t
    and t stands for a result hole: the topmost layer at that position); the hole's place follows
    from t's final placement (`hole_positions` on the host, for the hits only), so no per-punch
    per-triangle coordinates leave the device. Per triangle, the direction map of a hole through it
    (`kernels.punch.direction_map`)."""

    status: Status
    first: jnp.ndarray  # bool[P, T]
    layers_under: jnp.ndarray  # int32[P]: distinct layers the punch goes through
    linear: jnp.ndarray  # int8[T, 2, 2]: final placements
    shift: jnp.ndarray  # int32[T, 2]
    sign: jnp.ndarray  # int8[T]
    offset: jnp.ndarray  # int8[T]
    mirrored: jnp.ndarray  # bool[T]
    view: jnp.ndarray  # int32[2, 2]


def initial_state(mesh: jnp.ndarray) -> MeshState:
    t = mesh.shape[0]
    return MeshState(jnp.broadcast_to(jnp.eye(2, dtype=jnp.int32), (t, 2, 2)), jnp.zeros((t, 2), jnp.int32),
                     jnp.zeros((t,), jnp.int32), jnp.eye(2, dtype=jnp.int32))


def placed_vertices(mesh: jnp.ndarray, state: MeshState) -> jnp.ndarray:
    """int32[T, 3, 2]: where each triangle's vertices are now (multiply-and-sum, no einsum)."""
    return (state.linear[:, None, :, :] * mesh[:, :, None, :]).sum(-1) + state.shift[:, None, :]


def compose(linear: jnp.ndarray, shift: jnp.ndarray, state: MeshState, moving: jnp.ndarray) -> MeshState:
    """Apply p -> linear p + shift to the moving triangles' placements."""
    new_linear = (linear[None, :, :, None] * state.linear[:, None, :, :]).sum(2)
    new_shift = (state.shift[:, None, :] * linear[None]).sum(-1) + shift
    return state._replace(linear=jnp.where(moving[:, None, None], new_linear, state.linear),
                          shift=jnp.where(moving[:, None], new_shift, state.shift))


def crease_value(action: jnp.ndarray, vertices: jnp.ndarray) -> tuple[jnp.ndarray, ...]:
    """The fold line's c, the box extent (lo, hi) along its functional, and a status code for the
    line itself (OK, OFF_LATTICE with the denominator it needs, OBLIQUE_CREASE)."""
    normal = jnp.asarray(NORMALS, jnp.int32)[action[FAMILY]]
    xs, ys = vertices[..., 0], vertices[..., 1]
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    corners = jnp.stack([jnp.stack([x0, y0]), jnp.stack([x1, y0]), jnp.stack([x0, y1]), jnp.stack([x1, y1])])
    phi = (corners * normal).sum(-1)
    lo, hi = phi.min(), phi.max()
    den = jnp.maximum(action[DEN], 1)
    numer = lo * den + (hi - lo) * action[NUM]
    relative = action[LINE_MODE] != ABSOLUTE
    value = jnp.where(relative, jnp.floor_divide(numer, den), action[NUM])
    needed = (den // jnp.gcd(numer, den)).astype(jnp.int32)
    off_lattice = relative & (jnp.remainder(numer, den) != 0)
    oblique = (action[LINE_MODE] == SQUARE_BOX) & ((x1 - x0) != (y1 - y0))
    code = jnp.where(off_lattice, OFF_LATTICE, jnp.where(oblique, OBLIQUE_CREASE, OK))
    return value, lo, hi, code, needed


def oblique_diagonal_cuts(action: jnp.ndarray, vertices: jnp.ndarray) -> jnp.ndarray:
    """bool[T]: the box diagonal through the box's corners (D: bottom-left to top-right, N: top-left
    to bottom-right) crosses the triangle, for a box of any aspect."""
    xs, ys = vertices[..., 0], vertices[..., 1]
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    w, h = x1 - x0, y1 - y0
    slash = w * (ys - y0) - h * (xs - x0)
    backslash = w * (ys - y1) + h * (xs - x0)
    f = jnp.where(action[FAMILY] == D, slash, backslash)
    return (f > 0).any(-1) & (f < 0).any(-1)


def moving_sign(action: jnp.ndarray, value: jnp.ndarray, lo: jnp.ndarray, hi: jnp.ndarray) -> jnp.ndarray:
    """+1 / -1: which side of the line moves, by the action's side rule."""
    below, above = value - lo, hi - value
    smaller = jnp.where(above < below, 1, jnp.where(below < above, -1, action[TIE]))
    normal = jnp.asarray(NORMALS, jnp.int32)[action[FAMILY]]
    point_phi = normal[0] * action[SIDE_A] + normal[1] * action[SIDE_B]  # D-scaled
    scaled = value * jnp.maximum(action[SIDE_D], 1)
    away = jnp.where(point_phi > scaled, -1, jnp.where(point_phi < scaled, 1, smaller))
    rule = action[SIDE_RULE]
    return jnp.where(rule == NAMED, action[SIDE_A], jnp.where(rule == SMALLER, smaller, away)).astype(jnp.int32)


def apply_engine_action(mesh: jnp.ndarray, state: MeshState, status: Status, action: jnp.ndarray,
                        index: jnp.ndarray) -> tuple[MeshState, Status, EngineStep]:
    """One action on one row; a failed row stays frozen at its first failure."""
    kind = action[KIND]
    is_fold, is_rotation, is_flip = kind == FOLD, kind == ROTATE, kind == FLIP
    vertices = placed_vertices(mesh, state)
    value, lo, hi, line_code, needed = crease_value(action, vertices)
    normal = jnp.asarray(NORMALS, jnp.int32)[action[FAMILY]]
    f = (vertices * normal).sum(-1) - value  # [T, 3]
    above, below = (f > 0).any(-1), (f < 0).any(-1)
    cut = above & below
    moving_fold = jnp.where(above, 1, -1) == moving_sign(action, value, lo, hi)
    n_moving = moving_fold.sum()
    # a box diagonal of a box that is not square is not at 45 degrees: the fold is named by a
    # triangle that the real (oblique) diagonal crosses, if any (SPEC §3), else as oblique
    cut = jnp.where(line_code == OBLIQUE_CREASE, oblique_diagonal_cuts(action, vertices), cut)
    line_code = jnp.where((line_code == OBLIQUE_CREASE) & cut.any(), CREASE_CUTS_TRIANGLE, line_code)
    code = jnp.where(line_code != OK, line_code,
                     jnp.where(cut.any(), CREASE_CUTS_TRIANGLE,
                               jnp.where((n_moving == 0) | (n_moving == moving_fold.size), EMPTY_SIDE, OK)))
    code = jnp.where(is_fold, code, OK).astype(jnp.int32)
    detail = jnp.where(code == OFF_LATTICE, needed, jnp.where(cut.any(), jnp.argmax(cut), -1)).astype(jnp.int32)
    active = status.code == OK
    fails = active & (code != OK)
    proceed = active & ~fails

    family = action[FAMILY]
    reflect = jnp.asarray(REFLECT_LINEAR, jnp.int32)[family]
    reflect_shift = jnp.asarray(REFLECT_SHIFT_PER_C, jnp.int32)[family] * value
    quarter = jnp.where(is_rotation, action[NUM] % 4, 0)
    turn = jnp.asarray(QUARTER_ROTATIONS)[quarter]
    flip = jnp.asarray(FLIP_LINEAR, jnp.int32)
    linear = jnp.where(is_fold, reflect, jnp.where(is_flip, flip, turn))
    shift = jnp.where(is_fold, reflect_shift, jnp.zeros(2, jnp.int32))
    moving = jnp.where(is_fold, moving_fold, is_rotation | is_flip) & proceed
    state = compose(linear, shift, state, moving)
    flipped_layer = state.layer.max() - state.layer
    layer = jnp.where(is_fold & proceed, restack(state.layer, moving, action[FRONT] == 1),
                      jnp.where(is_flip & proceed, flipped_layer, state.layer))
    global_turn = (is_rotation | is_flip) & proceed
    view = jnp.where(global_turn, (linear[:, :, None] * state.view[None, :, :]).sum(1), state.view)
    state = state._replace(layer=layer, view=view)
    new_status = jax.tree.map(lambda new, old: jnp.where(fails, new, old),
                              Status(code, index.astype(jnp.int32), detail), status)
    step = EngineStep(linear, shift, moving, jnp.where(is_fold, family, -1).astype(jnp.int32),
                      jnp.where(is_fold, value, 0).astype(jnp.int32))
    return state, new_status, step


def fold_mesh(mesh: jnp.ndarray, actions: jnp.ndarray) -> tuple[MeshState, Status]:
    """Run one row's actions (int32[S, ACTION_WIDTH]) on the flat mesh."""

    def body(carry, indexed):
        state, status = carry
        index, action = indexed
        state, status, _ = apply_engine_action(mesh, state, status, action, index)
        return (state, status), None

    steps = jnp.arange(actions.shape[0], dtype=jnp.int32)
    (state, status), _ = jax.lax.scan(body, (initial_state(mesh), ok_status()), (steps, actions))
    return state, status


def edge_cross(vertices: jnp.ndarray, point: jnp.ndarray, denominator: jnp.ndarray) -> jnp.ndarray:
    """int32[T, 3]: the cross product of each triangle edge with the point point/denominator (exact)."""
    edge = jnp.roll(vertices, -1, axis=1) - vertices  # [T, 3, 2]
    rel = point[None, None, :] - denominator * vertices
    return edge[..., 0] * rel[..., 1] - edge[..., 1] * rel[..., 0]


def contains(vertices: jnp.ndarray, point: jnp.ndarray, denominator: jnp.ndarray) -> jnp.ndarray:
    """bool[T]: the closed triangle holds the point point/denominator (exact integer cross products)."""
    cross = edge_cross(vertices, point, denominator)
    return (cross >= 0).all(-1) | (cross <= 0).all(-1)


#: meshes up to this many triangles find coinciding holes by comparing every pair of layers (no sort:
#: it fuses into elementwise loops, fastest for small meshes); larger ones sort the layers. Measured
#: on the 2-core CPU, a punch at every cell centre: 4x4 (64 triangles) 9.5K rows/s pairwise against
#: 3.8K sorted; 6x6 (144) about even; 8x8 (256) 94 against 257 rows/s
PAIRWISE_MAX_TRIANGLES = 128


class Ranks(NamedTuple):
    """Per row, what the punches of a small mesh share: `above[t, t']` (t' is above t: a higher layer,
    or the same layer and a lower index: one strict order, so exactly one triangle of a group is
    on top) and `same_layer_before[t, t']` (same layer, lower index). Computed once per row, not
    per punch."""

    above: jnp.ndarray  # bool[T, T]
    same_layer_before: jnp.ndarray  # bool[T, T]


def ranks_of(layer: jnp.ndarray) -> Ranks:
    t = layer.shape[0]
    rank = layer * t + (t - 1 - jnp.arange(t))
    index = jnp.arange(t)
    return Ranks(rank[None, :] > rank[:, None], (layer[None, :] == layer[:, None]) & (index[None, :] < index[:, None]))


def first_of_position(hit: jnp.ndarray, seen: jnp.ndarray, layer: jnp.ndarray, ranks: Ranks | None) -> jnp.ndarray:
    """bool[T]: the hit triangle is the topmost (then lowest-index) one at its view position, so it
    stands for the one hole that every layer through that position makes."""
    if ranks is not None:
        same = hit[None, :] & (seen[None, :, 0] == seen[:, None, 0]) & (seen[None, :, 1] == seen[:, None, 1])
        return hit & ~(same & ranks.above).any(-1)
    t = hit.shape[0]
    big = jnp.int32(1 << 30)
    keys = (jnp.where(hit, 0, 1), jnp.where(hit, seen[:, 0], big), jnp.where(hit, seen[:, 1], big), -layer)
    order = jnp.lexsort(keys[::-1])
    s_pos = seen[order]
    new = jnp.concatenate([jnp.ones(1, bool), (s_pos[1:] != s_pos[:-1]).any(-1)])
    return jnp.zeros(t, bool).at[order].set(hit[order] & new)


def distinct_layers(hit: jnp.ndarray, layer: jnp.ndarray, ranks: Ranks | None) -> jnp.ndarray:
    """How many distinct layers the hit triangles lie in."""
    if ranks is not None:
        return (hit & ~(hit[None, :] & ranks.same_layer_before).any(-1)).sum().astype(jnp.int32)
    big = jnp.int32(1 << 30)
    layers = jnp.sort(jnp.where(hit, layer, big))
    return ((layers != jnp.concatenate([jnp.full(1, -1, layers.dtype), layers[:-1]])) & (layers < big)).sum().astype(jnp.int32)


def punch_hits(mesh: jnp.ndarray, state: MeshState, punch: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """One punch (X, Y, D) through the folded mesh: bool[T] the triangles it goes through, and bool[T]
    those where it lies on an edge. Only there can two preimages coincide: two flat triangles share
    no interior point, so a punch inside every triangle it hits makes one hole per hit, each in its
    own layer (triangles of one layer never overlap)."""
    point, den = punch[:2], punch[2]
    cross = edge_cross(placed_vertices(mesh, state), point, den)
    hit = ((cross >= 0).all(-1) | (cross <= 0).all(-1)) & (den > 0)
    return hit, hit & (cross == 0).any(-1)


def punch_mesh(mesh: jnp.ndarray, state: MeshState, punch: jnp.ndarray, hit: jnp.ndarray,
               ranks: Ranks | None) -> tuple[jnp.ndarray, ...]:
    """The exact answer of one punch that may lie on a crease: per hit triangle whether it stands for
    a result hole (coinciding preimages, seen through the view in D-scaled lattice units, are one
    hole); the distinct layers hit."""
    point, den = punch[:2], punch[2]
    rel = point[None, :] - den * state.shift  # [T, 2]
    preimage = (state.linear * rel[:, :, None]).sum(1)  # A^T (p - D b)
    seen = (state.view[None, :, :] * preimage[:, None, :]).sum(-1)  # V u
    return first_of_position(hit, seen, state.layer, ranks), distinct_layers(hit, state.layer, ranks)


def fold_and_punch(mesh: jnp.ndarray, actions: jnp.ndarray, punches: jnp.ndarray) -> tuple:
    """Fold one row, then find what each punch (int32[P, 3]) goes through."""
    state, status = fold_mesh(mesh, actions)
    hit, on_edge = jax.vmap(lambda p: punch_hits(mesh, state, p))(punches)
    return state, status, hit, on_edge


def exact_holes(mesh: jnp.ndarray, state: MeshState, punches: jnp.ndarray, hit: jnp.ndarray) -> tuple:
    """first bool[P, T], layers_under int32[P] of one row, comparing coinciding preimages."""
    ranks = ranks_of(state.layer) if mesh.shape[0] <= PAIRWISE_MAX_TRIANGLES else None
    return jax.vmap(lambda p, h: punch_mesh(mesh, state, p, h, ranks))(punches, hit)


def punched(state: MeshState, status: Status, punches: jnp.ndarray, first: jnp.ndarray,
            layers_under: jnp.ndarray) -> EnginePunched:
    """One row's compact answer: the status (off_paper when a punch hits nothing) and the final
    placements and direction maps the host reads hole places from."""
    missed = (punches[:, 2] > 0) & ~first.any(-1)
    off_paper = (status.code == OK) & missed.any()
    status = Status(jnp.where(off_paper, OFF_PAPER, status.code).astype(jnp.int32),
                    jnp.where(off_paper, jnp.argmax(missed), status.step).astype(jnp.int32), status.triangle)
    # h = V A_t^T (A_t orthogonal, so A_t^T = A_t^-1), as multiply-and-sum
    h = (state.view[None, :, :, None] * jnp.swapaxes(state.linear, 1, 2)[:, None, :, :]).sum(2)
    sign, offset, mirrored = direction_map(h)
    i8 = lambda x: x.astype(jnp.int8)  # noqa: E731
    return EnginePunched(status, first, layers_under, i8(state.linear), state.shift, i8(sign), i8(offset), mirrored,
                         state.view)


def simulate_mesh_rows(mesh: jnp.ndarray, actions: jnp.ndarray, punches: jnp.ndarray) -> EnginePunched:
    """Fold and punch a batch of rows (int32[N, S, ACTION_WIDTH], int32[N, P, 3]) on one mesh. The
    comparison of coinciding preimages runs only when some punch of the batch lies on an edge of a
    triangle it hits (a `cond` outside the row map, so the other branch costs nothing): a batch of
    punches inside triangles (MentalBlackboard's centroids) needs no comparison at all."""
    state, status, hit, on_edge = jax.vmap(fold_and_punch, in_axes=(None, 0, 0))(mesh, actions, punches)
    first, layers_under = jax.lax.cond(
        on_edge.any(),
        lambda: jax.vmap(exact_holes, in_axes=(None, 0, 0, 0))(mesh, state, punches, hit),
        lambda: (hit, hit.sum(-1).astype(jnp.int32)))
    return jax.vmap(punched)(state, status, punches, first, layers_under)


def trace_mesh_one(mesh: jnp.ndarray, actions: jnp.ndarray) -> tuple[MeshState, EngineStep, Status]:
    """Every intermediate state (S + 1, the flat mesh first) and what each action did: the history
    the renderer, the motion function and the FOLD writer read."""

    def body(carry, indexed):
        state, status = carry
        index, action = indexed
        state, status, step = apply_engine_action(mesh, state, status, action, index)
        return (state, status), (state, step)

    steps = jnp.arange(actions.shape[0], dtype=jnp.int32)
    start = initial_state(mesh)
    (_, status), (states, infos) = jax.lax.scan(body, (start, ok_status()), (steps, actions))
    states = jax.tree.map(lambda first, rest: jnp.concatenate([first[None], rest]), start, states)
    return states, infos, status


simulate_mesh_batch = jax.jit(simulate_mesh_rows)
fold_mesh_batch = jax.jit(jax.vmap(fold_mesh, in_axes=(None, 0)))
trace_mesh = jax.jit(trace_mesh_one)
