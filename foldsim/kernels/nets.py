"""Cube nets: exact, batched folding of a net of unit squares along its hinge tree (issue 25).

Integer-only JAX (jit + vmap, the same on CPU and CUDA); the conventions are stated once here and
explained in docs/nets.md:

- The flat net lies in the plane z = 0, printed side up (+z, toward the reader). Face f is the unit
  square [x, x+1] x [y, y+1] of its cell (x, y), x right, y up. Positions are kept *doubled*, so
  every corner, centre and edge midpoint is an integer.
- A face is joined to its parent by a hinge along their shared edge, turned `turn` quarter turns
  toward the unprinted side (-z): +1 folds the printed side out, 0 leaves the hinge flat, -1 folds
  toward the printed side. Face 0 is the root and keeps its place; a face's pose (rotation R,
  doubled shift t: flat point p -> R p + t) is its parent's pose composed with its hinge's turn.
- The unit cube of a net lies under its root cell (x0, y0): [x0, x0+1] x [y0, y0+1] x [-1, 0].
  Its sides, by outward normal in the net's frame: 0 +x, 1 -x, 2 +y, 3 -y, 4 +z (the root's),
  5 -z; side s is opposite side s ^ 1. A face lands on side s when its centre is that side's centre
  and its printed side faces out.
- Each side has an "up" (sides ±x and ±z: +y; +y: -z; -y: +z) and "right" = up x normal, so seen
  from outside right and up are as on a page. A direction on a side is counted in quarter turns
  counter-clockwise from up, seen from outside. A face's `quarter` is where its flat +y went.
- Orientation o = 4 s + k (24 of them): the cube turned so that side s faces the viewer with its
  up turned k quarter turns counter-clockwise from screen-up. The view frame is x right, y up,
  z toward the viewer; the viewer sees the three sides front (+z), top (+y) and right (+x), each
  read with the up of the same-named side above (top's up is -z: away from the viewer).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

SIDE_NAMES = ("+x", "-x", "+y", "-y", "+z", "-z")
SIDE_NORMALS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.int32)
SIDE_UPS = np.array([[0, 1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1], [0, 1, 0], [0, 1, 0]], np.int32)
#: parent -> child steps in the flat net, by index: +x, +y, -x, -y
STEPS = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]], np.int32)
#: the three visible sides, named in the view frame: front (+z), top (+y), right (+x)
VIEW_NAMES = ("front", "top", "right")
VIEW_FRAME_SIDES = np.array([4, 2, 0], np.int32)
#: why a net does not fold into the cube (0: it does); the first that holds is reported
REASONS = ("valid", "count", "disconnected", "off_cube", "folds_into", "two_on_one_side")
CUBE_FACES = 6


def axis_turn(axis: np.ndarray, quarters: int) -> np.ndarray:
    """int32[3, 3]: the rotation by `quarters` quarter turns counter-clockwise about a unit
    integer axis (Rodrigues' formula with cos and sin in {-1, 0, 1}, so exact)."""
    cos, sin = ((1, 0), (0, 1), (-1, 0), (0, -1))[quarters % 4]
    a = np.asarray(axis, np.int64)
    cross = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    outer = np.outer(a, a)
    return (outer + cos * (np.eye(3, dtype=np.int64) - outer) + sin * cross).astype(np.int32)


def hinge_axis(step: np.ndarray) -> np.ndarray:
    """The axis a hinge turns about (+1 = toward -z): step x (-z), so the child's step goes to -z."""
    return np.cross(np.array([step[0], step[1], 0]), np.array([0, 0, -1]))


#: int32[4 steps, 4 turns (mod 4), 3, 3]
HINGE_ROTATIONS = np.array([[axis_turn(hinge_axis(s), q) for q in range(4)] for s in STEPS], np.int32)


def _orientations() -> np.ndarray:
    """int32[24, 3, 3]: orientation 4 s + k = (k quarter turns about the view axis) . B_s, where
    B_s (rows: right, up, normal of side s) brings side s to the front, its up to screen-up."""
    out = []
    for normal, up in zip(SIDE_NORMALS, SIDE_UPS):
        bring = np.stack([np.cross(up, normal), up, normal])
        out += [axis_turn(np.array([0, 0, 1]), k) @ bring for k in range(4)]
    return np.array(out, np.int32)


ORIENTATIONS = _orientations()


def quarter_of(vector, normal, up, xp=jnp):
    """Quarter turns (0..3) counter-clockwise from `up` to `vector` about `normal` (all integer unit
    vectors, `vector` and `up` in the plane normal to `normal`)."""
    left = xp.cross(normal, up)
    along_up = (vector * up).sum(-1)
    along_left = (vector * left).sum(-1)
    return xp.where(along_up == 1, 0, xp.where(along_left == 1, 1, xp.where(along_up == -1, 2, 3)))


def _side_tables() -> tuple[np.ndarray, np.ndarray]:
    """SIDE_MAP[o, s]: the side (of the unturned cube's names) that side s moves to under
    orientation o; SIDE_TURNS[o, s]: quarter turns added to a direction on side s by that move."""
    moves = np.zeros((24, 6), np.int32)
    turns = np.zeros((24, 6), np.int32)
    for o, rotation in enumerate(ORIENTATIONS):
        for s in range(6):
            to = int(np.flatnonzero((SIDE_NORMALS == rotation @ SIDE_NORMALS[s]).all(1))[0])
            moves[o, s] = to
            turns[o, s] = quarter_of(rotation @ SIDE_UPS[s], SIDE_NORMALS[to], SIDE_UPS[to], np)
    return moves, turns


SIDE_MAP, SIDE_TURNS = _side_tables()


def _view_tables() -> tuple[np.ndarray, np.ndarray]:
    """VIEW_SIDES[o, w]: the cube side shown at view side w (front, top, right) in orientation o;
    VIEW_TURNS[o, w]: quarter turns added to a direction on that side by the turn to the view."""
    sides = np.argmax(SIDE_MAP[:, None, :] == VIEW_FRAME_SIDES[None, :, None], -1).astype(np.int32)
    return sides, np.take_along_axis(SIDE_TURNS, sides, 1).astype(np.int32)


VIEW_SIDES, VIEW_TURNS = _view_tables()


class NetFold(NamedTuple):
    """One net folded (all int32; F faces, padding included)."""

    rotation: jnp.ndarray  # [F, 3, 3]: flat -> folded
    shift: jnp.ndarray  # [F, 3]: doubled units
    joined: jnp.ndarray  # bool[F]: present and joined to the root by hinges
    side: jnp.ndarray  # [F]: the cube side the face lands on, -1: none (off the cube, not joined, padding)
    quarter: jnp.ndarray  # [F]: where the face's flat +y points on its side (quarter turns from up)
    face_on_side: jnp.ndarray  # [6]: the face on each side (the lowest index when several), -1: none
    opposite: jnp.ndarray  # [F]: the face on the opposite side, -1: none
    reason: jnp.ndarray  # []: index into REASONS, 0 = folds into the cube


class NetView(NamedTuple):
    """What one orientation of a labelled net's cube shows at front, top, right (int32[3] each)."""

    face: jnp.ndarray  # the face shown (-1: no face on that side)
    label: jnp.ndarray  # its label (-1: none)
    turn: jnp.ndarray  # its pattern's up, quarter turns counter-clockwise from the view side's up
    mirror: jnp.ndarray  # its pattern's mirror flag (bool)


def _mat_mat(a: jnp.ndarray, b: jnp.ndarray) -> jnp.ndarray:
    """[..., 3, 3] products as broadcast multiply-and-sum: integer dots stay elementwise (fused, and
    the same on every backend; see state.current_vertices for why the kernels avoid int einsum)."""
    return (a[..., :, :, None] * b[..., None, :, :]).sum(-2)


def _mat_vec(a: jnp.ndarray, v: jnp.ndarray) -> jnp.ndarray:
    return (a * v[..., None, :]).sum(-1)


def _step_index(delta: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """(index into STEPS, whether delta is a unit step at all) of flat cell differences [..., 2]."""
    matches = (delta[..., None, :] == jnp.asarray(STEPS)).all(-1)
    return jnp.argmax(matches, -1), matches.any(-1)


def fold_one(cells: jnp.ndarray, parent: jnp.ndarray, turn: jnp.ndarray, present: jnp.ndarray) -> NetFold:
    """Fold one net: cells int32[F, 2], parent int32[F] (the hinge tree; the root, face 0, and faces
    with no hinge to a parent: -1), turn int32[F] (the hinge to the parent, quarter turns), present
    bool[F] (False: padding). A parent that is not a flat neighbour counts as no hinge."""
    faces = cells.shape[0]
    index = jnp.arange(faces)
    own_parent = jnp.where(parent >= 0, parent, index)
    step, adjacent = _step_index(cells - cells[own_parent])
    hinged = (parent >= 0) & (index > 0) & adjacent & present & present[own_parent]
    eye = jnp.broadcast_to(jnp.eye(3, dtype=jnp.int32), (faces, 3, 3))
    hinge_rotation = jnp.where(hinged[:, None, None], jnp.asarray(HINGE_ROTATIONS)[step, turn % 4], eye)
    middle = jnp.concatenate([2 * cells[own_parent] + 1 + jnp.asarray(STEPS)[step], jnp.zeros((faces, 1), jnp.int32)], 1)
    hinge_shift = jnp.where(hinged[:, None], middle - _mat_vec(hinge_rotation, middle), 0)

    def compose(_, pose):  # after d rounds every face at depth <= d has its pose: F rounds suffice
        rotation, shift, joined = pose
        new_rotation = _mat_mat(rotation[own_parent], hinge_rotation)
        new_shift = _mat_vec(rotation[own_parent], hinge_shift) + shift[own_parent]
        new_joined = (index == 0) & present | hinged & joined[own_parent]
        return (jnp.where(hinged[:, None, None], new_rotation, eye), jnp.where(hinged[:, None], new_shift, 0),
                new_joined)

    rotation, shift, joined = jax.lax.fori_loop(0, faces, compose, (eye, jnp.zeros((faces, 3), jnp.int32),
                                                                      (index == 0) & present))
    flat_centre = jnp.concatenate([2 * cells + 1, jnp.zeros((faces, 1), jnp.int32)], 1)
    centre = _mat_vec(rotation, flat_centre) + shift
    normal = rotation[:, :, 2]
    cube_centre = flat_centre[0] - jnp.array([0, 0, 1], jnp.int32)
    normals = jnp.asarray(SIDE_NORMALS)
    on = ((normal[:, None, :] == normals).all(-1) & ((centre - cube_centre)[:, None, :] == normals).all(-1)
          & joined[:, None])
    side = jnp.where(on.any(1), jnp.argmax(on, 1), -1)
    quarter = jnp.where(side >= 0, quarter_of(rotation[:, :, 1], normal, jnp.asarray(SIDE_UPS)[side]), 0)
    face_on_side = jnp.where(on.any(0), jnp.argmax(on, 0), -1)
    opposite = jnp.where(side >= 0, face_on_side[jnp.bitwise_xor(side, 1)], -1)

    placed = side >= 0
    same = (side[:, None] == side[None, :]) & placed[:, None] & placed[None, :] & (index[:, None] < index[None, :])
    _, neighbours = _step_index(cells[None, :, :] - cells[:, None, :])
    reason = jnp.int32(0)
    for code, failed in reversed(list(enumerate([
            present.sum() != CUBE_FACES,
            (present & ~joined).any(),
            (joined & ~placed).any(),
            (same & neighbours).any(),
            same.any()], start=1))):
        reason = jnp.where(failed, code, reason)
    return NetFold(rotation, shift, joined, side, quarter, face_on_side, opposite, reason)


def view_one(fold: NetFold, labels: jnp.ndarray, pattern_turn: jnp.ndarray, pattern_mirror: jnp.ndarray,
             orientation: jnp.ndarray) -> NetView:
    """What orientation `orientation` (0..23) of a folded net shows, given its faces' labels
    (int32[F]) and patterns (turn int32[F]: quarter turns counter-clockwise on the printed side,
    mirror bool[F])."""
    sides = jnp.asarray(VIEW_SIDES)[orientation]
    face = fold.face_on_side[sides]
    shown = face >= 0
    safe = jnp.where(shown, face, 0)
    turn = (fold.quarter[safe] + pattern_turn[safe] + jnp.asarray(VIEW_TURNS)[orientation]) % 4
    return NetView(face, jnp.where(shown, labels[safe], -1), jnp.where(shown, turn, 0),
                   shown & pattern_mirror[safe].astype(bool))


fold_batch = jax.jit(jax.vmap(fold_one))
fold_batch.__doc__ = "fold_one over a leading batch axis of nets (jit + vmap)."


def _views_nets_labellings_orientations(fold, labels, pattern_turn, pattern_mirror, orientations):
    per_orientation = jax.vmap(view_one, (None, None, None, None, 0))
    per_labelling = jax.vmap(per_orientation, (None, 0, 0, 0, None))
    return jax.vmap(per_labelling, (0, 0, 0, 0, None))(fold, labels, pattern_turn, pattern_mirror, orientations)


views_batch = jax.jit(_views_nets_labellings_orientations)
views_batch.__doc__ = """NetView [N, L, O, 3] for folds [N, ...] (fold_batch's output), labels / pattern turns /
pattern mirrors [N, L, F] (L labellings per net) and orientations int32[O]: nets x labellings x
orientations, each by view_one."""


@jax.jit
def net_views(cells, parent, turn, present, labels, pattern_turn, pattern_mirror, orientations):
    """fold_batch then views_batch in one compiled call: (NetFold [N], NetView [N, L, O, 3])."""
    fold = jax.vmap(fold_one)(cells, parent, turn, present)
    return fold, _views_nets_labellings_orientations(fold, labels, pattern_turn, pattern_mirror, orientations)


# -- continuous motion ------------------------------------------------------------------------------


def _turn_about(axis: jnp.ndarray, angle: jnp.ndarray) -> jnp.ndarray:
    """float32[..., 3, 3]: rotation by `angle` (radians, counter-clockwise) about unit `axis`."""
    cos, sin = jnp.cos(angle)[..., None, None], jnp.sin(angle)[..., None, None]
    x, y, z = axis[..., 0], axis[..., 1], axis[..., 2]
    zero = jnp.zeros_like(x)
    cross = jnp.stack([jnp.stack([zero, -z, y], -1), jnp.stack([z, zero, -x], -1), jnp.stack([-y, x, zero], -1)], -2)
    outer = axis[..., :, None] * axis[..., None, :]
    return outer + cos * (jnp.eye(3) - outer) + sin * cross


@jax.jit
def corner_positions(cells: jnp.ndarray, parent: jnp.ndarray, turn: jnp.ndarray, present: jnp.ndarray,
                     angles: jnp.ndarray) -> jnp.ndarray:
    """float32[F, 4, 3]: every face's corners in 3-D (net units, the net's frame) with each face's
    hinge to its parent turned by angles[f] radians times its `turn` (0: flat; pi/2: folded, where
    the corners are the exact poses'). Corners in the flat order (x, y), (x+1, y), (x+1, y+1),
    (x, y+1): counter-clockwise seen from the printed side, so a renderer can tell the two sides.
    Smooth in `angles` (jax.grad works through it); faces with no hinge stay flat."""
    faces = cells.shape[0]
    index = jnp.arange(faces)
    own_parent = jnp.where(parent >= 0, parent, index)
    step, adjacent = _step_index(cells - cells[own_parent])
    hinged = (parent >= 0) & (index > 0) & adjacent & present & present[own_parent]
    steps = jnp.asarray(STEPS, jnp.float32)[step]
    axis = jnp.stack([-steps[:, 1], steps[:, 0], jnp.zeros(faces)], -1)  # step x (-z)
    hinge_rotation = _turn_about(axis, jnp.where(hinged, angles * turn.astype(jnp.float32), 0.0))
    middle = jnp.concatenate([cells[own_parent].astype(jnp.float32) + 0.5 + steps / 2, jnp.zeros((faces, 1))], 1)
    hinge_shift = middle - jnp.einsum("fij,fj->fi", hinge_rotation, middle)
    eye = jnp.broadcast_to(jnp.eye(3), (faces, 3, 3))

    def compose(_, pose):
        rotation, shift = pose
        new_rotation = jnp.einsum("fij,fjk->fik", rotation[own_parent], hinge_rotation)
        new_shift = jnp.einsum("fij,fj->fi", rotation[own_parent], hinge_shift) + shift[own_parent]
        return jnp.where(hinged[:, None, None], new_rotation, eye), jnp.where(hinged[:, None], new_shift, 0.0)

    rotation, shift = jax.lax.fori_loop(0, faces, compose, (eye, jnp.zeros((faces, 3))))
    offsets = jnp.array([[0, 0], [1, 0], [1, 1], [0, 1]], jnp.float32)
    flat = cells.astype(jnp.float32)[:, None, :] + offsets
    flat3 = jnp.concatenate([flat, jnp.zeros((faces, 4, 1))], -1)
    return jnp.einsum("fij,fcj->fci", rotation, flat3) + shift[:, None, :]
