"""Wrong options for the choice tasks, each the simulator's answer to one named mistake.

A distractor is never a hand-edited hole list: every error model is a *modified configuration*
(a different action row, different punches, or a punch that meets a different set of layers) and
the kernel computes its result exactly like the truth's. All variants of all items go through one
batched kernel call (`run_variants`); a preparatory fold call gives the folded states the models
are built from.

Error models (choice and split; the README describes each with an example):

    wrong_crease       the last fold is unfolded across another crease of the folded shape
                       (horizontal, vertical or, on a square shape, a diagonal through its centre):
                       the layers that fold moved are mirrored across the wrong line. As a
                       configuration: the actions without that fold, punched where the holes lie
                       after that mistaken unfolding step (tested: the true crease gives the truth)
    missing_layer      one punch misses one of the layers it goes through
    extra_layer        one punch also goes through the top layer of a neighbouring stack
    replaced_fold      one fold replaced by another realizable fold (the other side of the same
                       crease, or another axis), same punches
    rotation_ignored   the rotations are not kept after unfolding (the result turned back by the
                       total rotation: the actions plus a compensating rotation, punches turned)
    wrong_direction    right locations, glyphs carried without turning or mirroring: every hole
                       keeps its punched direction, turned only with the sheet's rotation
    pattern_turned     the whole result turned by a quarter, half or three-quarter turn (actions
                       plus a rotation, punches turned along)
    pattern_reflected  the whole result reflected left-right, top-bottom or across a diagonal (the
                       mirror image of every action and punch)

Plan-choice options are fold sequences; their models are `replaced_fold`, `swapped_folds`,
`pattern_turned` and `pattern_reflected` applied to the generating sequence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np

from .. import kernels as K
from ..batching import run_chunked
from ..codes import action_code, entry_of_code, parse_action
from ..config import Config
from ..mentalblackboard_sheet import SHEET
from ..holes import SHAPE_PERIOD, SHAPES, SIZES, Hole, direction_value
from ..kernels import actions as A
from ..kernels.punch import punch_hits, total_rotation

CHOICE_MODELS = ("wrong_crease", "missing_layer", "extra_layer", "replaced_fold", "rotation_ignored",
                 "wrong_direction", "pattern_turned", "pattern_reflected")
PLAN_MODELS = ("replaced_fold", "swapped_folds", "pattern_turned", "pattern_reflected")
SIMILARITY = ("random", "hard", "easy")

WIDTH = 7  # action columns of every variant row: the longest pattern (6) plus one appended rotation
PUNCHES = 6  # punch columns: a wrong-crease row may split each of 3 punches in two
CHUNK = 512  # variant rows are padded to a multiple of this, so the kernel compiles one shape
CREASES = ("horizontal", "vertical", "diagonal /", "diagonal \\")  # crease families of A.FOLD_FAMILY
MIRRORS = {0: "left-right", 1: "diagonal \\", 2: "top-bottom", 3: "diagonal /"}  # mirror + quarter turns
PERIOD = np.array([SHAPE_PERIOD[s] for s in SHAPES], dtype=np.int32)
NO_HOLE = np.iinfo(np.int32).max


# -- sheet symmetries as tables ------------------------------------------------------------------------

# The sheet's own symmetry tables (grid index of each triangle mirrored left-right, turned by k
# quarter turns; edge neighbours) come from the family's TriangleSheet: SHEET.mirror_permutation,
# SHEET.turn_permutations, SHEET.edge_neighbours.

#: action int mirrored left-right: H1, H2 stay, V1 <-> V2, D1 <-> D2, D3 <-> D4 (same -F/-B),
#: R-90 <-> R-270
MIRROR_FOLD_TYPE = np.array([0, 1, 3, 2, 5, 4, 7, 6], dtype=np.int32)


def mirror_action(action: np.ndarray) -> np.ndarray:
    """Action ints of the mirror-image configuration (x -> -x)."""
    action = np.asarray(action)
    fold = (action >= A.FIRST_FOLD_FRONT) & (action < A.FIRST_ROTATION)
    base = np.where(action >= A.FIRST_FOLD_BACK, A.FIRST_FOLD_BACK, A.FIRST_FOLD_FRONT)
    folded = base + MIRROR_FOLD_TYPE[(action - 1) % 8]
    turned = A.FIRST_ROTATION + (A.N_ACTION_CODES - 1 - action)  # 17 <-> 19, 18 stays
    return np.where(fold, folded, np.where(action >= A.FIRST_ROTATION, turned, action)).astype(np.int32)


def reflect_sums(sums: np.ndarray, family: int, box: Sequence[int]) -> np.ndarray:
    """Centroid vertex sums (3 x centroid, half units) reflected across the crease of `family` on the
    box (x0, x1, y0, y1): the same isometries as the kernel's folds (kernels/step.py)."""
    x0, x1, y0, y1 = box
    x, y = sums[..., 0], sums[..., 1]
    if family == 0:
        out = (x, 3 * (y0 + y1) - y)
    elif family == 1:
        out = (3 * (x0 + x1) - x, y)
    elif family == 2:
        out = (y + 3 * (x0 - y0), x + 3 * (y0 - x0))
    else:
        out = (-y + 3 * (x0 + y1), -x + 3 * (x0 + y1))
    return np.stack(out, -1)


#: direction (quarter turns) reflected across a crease of each family: horizontal d -> 180 - d,
#: vertical d -> -d, "/" d -> 270 - d, "\" d -> 90 - d (SPEC §4)
REFLECT_QUARTER = np.array([2, 0, 3, 1], dtype=np.int32)


def reflect_quarter(quarter: int, family: int) -> int:
    return int(REFLECT_QUARTER[family] - quarter) % 4


# -- items and variant rows ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Items:
    """Base items as kernel arrays: action rows and up to MAX punches (location -1 = none)."""

    actions: np.ndarray  # int32[B, WIDTH]
    location: np.ndarray  # int32[B, H], grid index
    quarter: np.ndarray  # int32[B, H]
    shape: np.ndarray  # int32[B, H], index into SHAPES
    size: np.ndarray  # int32[B, H], index into SIZES

    def __len__(self) -> int:
        return len(self.actions)

    @classmethod
    def of_configs(cls, configs: Sequence[Config]) -> "Items":
        holes = max([1, *(len(c.holes) for c in configs)])
        actions = np.zeros((len(configs), WIDTH), np.int32)
        location = np.full((len(configs), holes), -1, np.int32)
        quarter, shape, size = (np.zeros((len(configs), holes), np.int32) for _ in range(3))
        for i, config in enumerate(configs):
            actions[i, : len(config.actions)] = [parse_action(a) for a in config.actions]
            for k, hole in enumerate(config.holes):
                location[i, k], quarter[i, k] = hole.location - 1, hole.quarter
                shape[i, k], size[i, k] = SHAPES.index(hole.shape), SIZES.index(hole.size)
        return cls(actions, location, quarter, shape, size)

    def codes(self, i: int) -> list[str]:
        return [action_code(int(a)) for a in self.actions[i] if a != A.NOOP]

    def holes(self, i: int) -> list[Hole]:
        return [Hole(SHAPES[s], SIZES[z], direction_value(SHAPES[s], int(q)), int(loc) + 1)
                for loc, q, s, z in zip(self.location[i], self.quarter[i], self.shape[i], self.size[i]) if loc >= 0]

    def config(self, i: int, item_id: str | None = None) -> Config:
        return Config.from_codes(self.codes(i), self.holes(i), item_id)


@dataclass
class Rows:
    """Variant rows under construction: one per (item, model, variant)."""

    item: list[int] = field(default_factory=list)
    model: list[str] = field(default_factory=list)
    detail: list[dict] = field(default_factory=list)
    actions: list[np.ndarray] = field(default_factory=list)
    punches: list[list[tuple[int, int, int, int]]] = field(default_factory=list)  # (location, quarter, shape, size)
    drop: list[tuple[int, int]] = field(default_factory=list)  # (punch, triangle) or (-1, -1)
    add: list[tuple[int, int]] = field(default_factory=list)
    plain: list[bool] = field(default_factory=list)
    plain_config: list[bool] = field(default_factory=list)  # the row is an ordinary configuration

    def append(self, item: int, model: str, detail: dict, actions: np.ndarray, punches, *,
               drop=(-1, -1), add=(-1, -1), plain: bool = False) -> None:
        self.item.append(item)
        self.model.append(model)
        self.detail.append(detail)
        self.actions.append(np.asarray(actions, np.int32))
        self.punches.append(list(punches))
        self.drop.append(drop)
        self.add.append(add)
        self.plain.append(plain)
        self.plain_config.append(drop[0] < 0 and add[0] < 0 and not plain)

    def __len__(self) -> int:
        return len(self.item)

    def config(self, v: int) -> Config:
        """The modified configuration of an ordinary row (what `foldsim.simulate` reproduces)."""
        codes = [action_code(int(a)) for a in self.actions[v] if a != A.NOOP]
        holes = [Hole(SHAPES[s], SIZES[z], direction_value(SHAPES[s], q), loc + 1) for loc, q, s, z in self.punches[v]]
        return Config.from_codes(codes, holes)


def punches_of(items: Items, i: int) -> list[tuple[int, int, int, int]]:
    return [(int(loc), int(q), int(s), int(z))
            for loc, q, s, z in zip(items.location[i], items.quarter[i], items.shape[i], items.size[i]) if loc >= 0]


# -- the kernel: fold, punch (with a modified set of layers), unfold ---------------------------------------


def _variant_one(actions, locations, quarters, drop, add, plain):
    """One variant row: the folded state, then each punch through its layers minus `drop` plus `add`;
    `plain` makes every direction the punched one turned by the total rotation only. Also returns
    the folded state itself (grid position and stacking layer of every triangle, bounding box), which
    the models are built from, so a single compiled program serves every call."""
    folded = K.fold_one(actions)
    met = punch_hits(folded.grid_index, locations)
    used = (locations >= 0)[:, None]
    hits = (met & ~drop) | (add & used)
    missed = (locations >= 0) & ~met.any(-1)
    code = jnp.where((folded.status.code == K.OK) & missed.any(), K.OFF_PAPER, folded.status.code)
    theta = total_rotation(actions)
    sign = jnp.where(plain, 1, folded.unfolded.sign)
    offset = jnp.where(plain, theta, folded.unfolded.offset)
    directions = (sign[None, :] * quarters[:, None] + offset[None, :]) % 4
    vertices = K.current_vertices(folded.sheet)
    box = jnp.stack([vertices[..., 0].min(), vertices[..., 0].max(), vertices[..., 1].min(), vertices[..., 1].max()])
    return (code, hits, directions, folded.unfolded.location, folded.grid_index, folded.sheet.layer, folded.layers, box,
            folded.unfolding)


variant_batch = jax.jit(jax.vmap(_variant_one))


def _padded(array: np.ndarray, fill) -> np.ndarray:
    """`array` with rows of `fill` appended up to a positive multiple of CHUNK."""
    rows = max(CHUNK, -(-len(array) // CHUNK) * CHUNK)
    pad = np.full((rows - len(array), *array.shape[1:]), fill, dtype=array.dtype)
    return np.concatenate([array, pad])


@dataclass(frozen=True)
class Outcome:
    """Per variant row: whether it simulates (realizable, every punch on paper), its result as a
    sorted tuple of hole keys (see `hole_key`), and its folded state."""

    ok: np.ndarray  # bool[V]
    status: np.ndarray  # int32[V]: kernel status code
    keys: list[tuple[int, ...]]
    grid_index: np.ndarray  # int32[V, 32]: grid position of every triangle (-1 off the grid)
    stack: np.ndarray  # int32[V, 32]: drawing layer of every triangle, larger = nearer the viewer
    layers: np.ndarray  # int32[V, 32]: layers per grid position
    box: np.ndarray  # int32[V, 4]: x0, x1, y0, y1 of the folded shape (half units)
    unfolding: np.ndarray  # int32[V, WIDTH]: unfolding codes as fold actions, NOOP-padded

    def unfolding_codes(self, v: int) -> tuple[str, ...]:
        return tuple(action_code(int(a)) for a in self.unfolding[v] if a != A.NOOP)


def hole_key(location: np.ndarray, shape: np.ndarray, size: np.ndarray, quarter: np.ndarray) -> np.ndarray:
    """One int per hole, equal exactly when the holes are equal (direction by class); sorting keys
    sorts holes by location first."""
    return ((location * len(SHAPES) + shape) * len(SIZES) + size) * 4 + quarter % PERIOD[shape]


def hole_of_key(key: int) -> Hole:
    quarter, rest = key % 4, key // 4
    size, rest = rest % len(SIZES), rest // len(SIZES)
    shape, location = rest % len(SHAPES), rest // len(SHAPES)
    return Hole(SHAPES[shape], SIZES[size], direction_value(SHAPES[shape], quarter), location + 1)


def run_variants(rows: Rows) -> Outcome:
    """Simulate every variant row in ONE batched kernel call (padded to CHUNK-row chunks, so the
    program compiles once whatever the number of rows)."""
    n = len(rows)
    actions = np.zeros((n, WIDTH), np.int32)
    location = np.full((n, PUNCHES), -1, np.int32)
    quarter, shape, size = (np.zeros((n, PUNCHES), np.int32) for _ in range(3))
    drop = np.zeros((n, PUNCHES, SHEET.n_triangles), bool)
    add = np.zeros((n, PUNCHES, SHEET.n_triangles), bool)
    for v in range(n):
        actions[v, : len(rows.actions[v])] = rows.actions[v][:WIDTH]
        for p, (loc, q, s, z) in enumerate(rows.punches[v]):
            location[v, p], quarter[v, p], shape[v, p], size[v, p] = loc, q, s, z
        if rows.drop[v][0] >= 0:
            drop[v, rows.drop[v][0], rows.drop[v][1]] = True
        if rows.add[v][0] >= 0:
            add[v, rows.add[v][0], rows.add[v][1]] = True
    plain = np.asarray(rows.plain, bool).reshape(n)
    fills = (A.NOOP, -1, 0, False, False, False)
    inputs = [_padded(a, f) for a, f in zip((actions, location, quarter, drop, add, plain), fills)]
    out = run_chunked(variant_batch, inputs, fills, chunk_rows=CHUNK)
    code, hits, directions, unfolded, grid_index, stack, layers, box, unfolding = (x[:n] for x in out)
    where = np.broadcast_to(unfolded[:, None, :], hits.shape)
    keys = hole_key(where, shape[:, :, None], size[:, :, None], directions)
    keys = np.sort(np.where(hits, keys, NO_HOLE).reshape(n, -1), axis=1)
    counts = hits.reshape(n, -1).sum(1)
    return Outcome(code == K.OK, code, [tuple(row[:c].tolist()) for row, c in zip(keys, counts)],
                   grid_index, stack, layers, box, unfolding)


# -- the folded states the models are built from ------------------------------------------------------------


@dataclass(frozen=True)
class Prep:
    """Per item: the folded state (grid position and stacking order of every triangle), the state
    without the last fold (its layers per grid position and its bounding box), the last fold's
    index and crease family in the final frame, and the total rotation."""

    grid_index: np.ndarray  # int32[B, 32]
    stack: np.ndarray  # int32[B, 32]: drawing layer, larger = nearer the viewer
    last_fold: np.ndarray  # int32[B]: action index of the last fold
    last_family: np.ndarray  # int32[B]: its crease family after the rotations that follow it
    prime_layers: np.ndarray  # int32[B, 32]: layers per grid position without the last fold
    prime_box: np.ndarray  # int32[B, 4]: x0, x1, y0, y1 (half units) without the last fold
    theta: np.ndarray  # int32[B]: total rotation, quarter turns


def without(actions: np.ndarray, index: int) -> np.ndarray:
    """An action row with one action removed (NOOP-padded to the same width)."""
    row = np.delete(actions, index)
    return np.concatenate([row, [A.NOOP]]).astype(np.int32)


def rotation_quarters(actions: np.ndarray) -> np.ndarray:
    return np.where(actions >= A.FIRST_ROTATION, actions - A.FIRST_ROTATION + 1, 0)


def prepare(items: Items) -> Prep:
    """One kernel call over every item's actions and its actions without the last fold."""
    actions = items.actions
    b = len(items)
    is_fold = (actions >= A.FIRST_FOLD_FRONT) & (actions < A.FIRST_ROTATION)
    last = (WIDTH - 1 - np.argmax(is_fold[:, ::-1], axis=1)).astype(np.int32)
    rows = Rows()
    for i in range(b):
        rows.append(i, "folded", {}, actions[i], ())
    for i in range(b):
        rows.append(i, "without_last_fold", {}, without(actions[i], int(last[i])), ())
    out = run_variants(rows)
    quarters = rotation_quarters(actions)
    after = np.array([quarters[i, last[i] + 1 :].sum() % 4 for i in range(b)], np.int32)
    fold_type = (actions[np.arange(b), last] - 1) % 8
    family = A.FOLD_FAMILY[A.TURNED_FOLD[after, fold_type]]
    return Prep(out.grid_index[:b], out.stack[:b], last, family.astype(np.int32), out.layers[b:], out.box[b:],
                (quarters.sum(1) % 4).astype(np.int32))


# -- configuration transforms -------------------------------------------------------------------------------


def append_rotation(actions: np.ndarray, quarters: int) -> np.ndarray:
    """The action row followed by a rotation of `quarters` quarter turns, merged into a trailing
    rotation (dropped when they cancel), so rows stay within WIDTH."""
    row = [int(a) for a in actions if a != A.NOOP]
    quarters %= 4
    if row and row[-1] >= A.FIRST_ROTATION:
        quarters = (quarters + row.pop() - A.FIRST_ROTATION + 1) % 4
    if quarters:
        row.append(A.rotation_action(quarters))
    return np.array(row + [A.NOOP] * (WIDTH - len(row)), np.int32)


def transformed(actions: np.ndarray, punches, mirror: bool, turn: int):
    """The configuration whose result is the original result mirrored left-right (if `mirror`) and
    then turned by `turn` quarter turns: every action mirrored, a rotation appended, every punch
    moved and turned along (SPEC §4: rotations are never undone)."""
    row = mirror_action(actions) if mirror else actions
    row = append_rotation(row, turn)
    moved = []
    for loc, q, s, z in punches:
        loc = int(SHEET.mirror_permutation[loc]) if mirror else loc
        q = -q if mirror else q
        moved.append((int(SHEET.turn_permutations[turn % 4][loc]), (q + turn) % 4, s, z))
    return row, moved


# -- choice models --------------------------------------------------------------------------------------------


def fold_positions(actions: np.ndarray) -> list[int]:
    return [j for j, a in enumerate(actions) if A.FIRST_FOLD_FRONT <= a < A.FIRST_ROTATION]


def replaced_folds(actions: np.ndarray, *, positions: Sequence[int] | None = None, front_only: bool = False):
    """(detail, action row) for every fold replaced by another fold type (same -F/-B)."""
    for j in fold_positions(actions) if positions is None else positions:
        old = int(actions[j])
        base = A.FIRST_FOLD_BACK if old >= A.FIRST_FOLD_BACK else A.FIRST_FOLD_FRONT
        for fold_type in range(8):
            new = base + fold_type
            if new == old or (front_only and base != A.FIRST_FOLD_FRONT):
                continue
            row = actions.copy()
            row[j] = new
            yield {"step": j + 1, "fold": action_code(new), "replaces": action_code(old)}, row


def wrong_crease_punches(punches, prep: Prep, i: int, family: int):
    """The punches of the wrong-crease configuration for crease `family` (None when the mirrored
    position is not a grid triangle): on the state without the last fold, each punch stays where it
    is for the layers that fold did not move, and is mirrored across the crease for those it did."""
    box = prep.prime_box[i]
    out = []
    for loc, q, s, z in punches:
        total = int((prep.grid_index[i] == loc).sum())
        stay = int(prep.prime_layers[i, loc])
        if stay:
            out.append((loc, q, s, z))
        if total > stay:
            mirrored = reflect_sums(SHEET.centroid_sums[loc], family, box)
            target = int(SHEET.index_of_centroid_sums(mirrored[None])[0])
            if target < 0:
                return None
            out.append((target, reflect_quarter(q, family), s, z))
    return out


def choice_rows(items: Items, prep: Prep, models: Sequence[str]) -> Rows:
    """The base row (model "truth") and every variant of every requested model, for every item."""
    rows = Rows()
    for i in range(len(items)):
        actions, punches = items.actions[i], punches_of(items, i)
        rows.append(i, "truth", {}, actions, punches)
        if "replaced_fold" in models:
            for detail, row in replaced_folds(actions):
                rows.append(i, "replaced_fold", detail, row, punches)
        if "wrong_crease" in models:
            x0, x1, y0, y1 = prep.prime_box[i]
            families = [0, 1] + ([2, 3] if x1 - x0 == y1 - y0 else [])
            for family in families:
                if family == prep.last_family[i]:
                    continue
                moved = wrong_crease_punches(punches, prep, i, family)
                if moved is not None:
                    detail = {"step": int(prep.last_fold[i]) + 1, "crease": CREASES[family]}
                    rows.append(i, "wrong_crease", detail, without(actions, int(prep.last_fold[i])), moved)
        undo = (-int(prep.theta[i])) % 4
        if "rotation_ignored" in models and undo:
            row, moved = transformed(actions, punches, False, undo)
            rows.append(i, "rotation_ignored", {"turn": 90 * undo}, row, moved)
        if "pattern_turned" in models:
            for turn in (1, 2, 3):
                if turn != undo:
                    row, moved = transformed(actions, punches, False, turn)
                    rows.append(i, "pattern_turned", {"turn": 90 * turn}, row, moved)
        if "pattern_reflected" in models:
            for turn, name in MIRRORS.items():
                row, moved = transformed(actions, punches, True, turn)
                rows.append(i, "pattern_reflected", {"mirror": name}, row, moved)
        if "wrong_direction" in models:
            rows.append(i, "wrong_direction", {}, actions, punches, plain=True)
        for p, (loc, *_rest) in enumerate(punches):
            under = np.flatnonzero(prep.grid_index[i] == loc)
            if "missing_layer" in models:
                for t in under:
                    rows.append(i, "missing_layer", {"hole": p + 1, "layer": int(t) + 1}, actions, punches, drop=(p, int(t)))
            if "extra_layer" in models:
                punched = {c[0] for c in punches}
                for q in np.flatnonzero(SHEET.edge_neighbours[loc]):
                    stack = np.flatnonzero(prep.grid_index[i] == q)
                    if len(stack) and q not in punched:
                        top = int(stack[np.argmax(prep.stack[i, stack])])
                        detail = {"hole": p + 1, "layer": top + 1, "from": int(q) + 1}
                        rows.append(i, "extra_layer", detail, actions, punches, add=(p, top))
    return rows


# -- plan-choice models -------------------------------------------------------------------------------------------


def plan_rows(items: Items, models: Sequence[str]) -> Rows:
    """The generating fold sequence ("truth") and every sequence-level variant, punched with the
    item's own punches (which tells how many target holes a wrong sequence still reproduces)."""
    rows = Rows()
    for i in range(len(items)):
        actions, punches = items.actions[i], punches_of(items, i)
        folds = fold_positions(actions)
        rows.append(i, "truth", {}, actions, punches)
        if "replaced_fold" in models:
            for detail, row in replaced_folds(actions, front_only=True):
                rows.append(i, "replaced_fold", detail, row, punches)
        if "swapped_folds" in models:
            for a, j in enumerate(folds):
                for k in folds[a + 1 :]:
                    if actions[j] != actions[k]:
                        row = actions.copy()
                        row[j], row[k] = actions[k], actions[j]
                        rows.append(i, "swapped_folds", {"steps": [j + 1, k + 1]}, row, punches)
        fold_type = (actions - 1) % 8
        is_fold = (actions >= A.FIRST_FOLD_FRONT) & (actions < A.FIRST_ROTATION)
        if "pattern_turned" in models:
            for turn in (1, 2, 3):
                row = np.where(is_fold, A.FIRST_FOLD_FRONT + A.TURNED_FOLD[turn][fold_type], actions)
                rows.append(i, "pattern_turned", {"turn": 90 * turn}, row, punches)
        if "pattern_reflected" in models:
            for turn, name in MIRRORS.items():
                mirrored = MIRROR_FOLD_TYPE[fold_type]
                row = np.where(is_fold, A.FIRST_FOLD_FRONT + A.TURNED_FOLD[turn][mirrored], actions)
                rows.append(i, "pattern_reflected", {"mirror": name}, row, punches)
    return rows


# -- choosing options ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One simulated variant of an item."""

    model: str
    detail: dict
    keys: tuple[int, ...]  # result holes (sorted hole keys)
    row: int  # index into the Rows it came from
    shared: int = 0  # holes it shares with the answer (multiset intersection)

    def holes(self) -> list[Hole]:
        return [hole_of_key(k) for k in self.keys]


def shared_holes(a: Sequence[int], b: Sequence[int]) -> int:
    return sum((Counter(a) & Counter(b)).values())


def candidates(rows: Rows, outcome: Outcome) -> tuple[list[tuple[int, ...] | None], list[list[Candidate]]]:
    """Per item: the truth's keys (None when the item itself does not simulate) and every variant
    that simulates, has at least one hole and differs from the truth."""
    n_items = max(rows.item) + 1 if rows.item else 0
    truth: list[tuple[int, ...] | None] = [None] * n_items
    for v, (i, model) in enumerate(zip(rows.item, rows.model)):
        if model == "truth" and outcome.ok[v]:
            truth[i] = outcome.keys[v]
    found: list[list[Candidate]] = [[] for _ in range(n_items)]
    for v, (i, model) in enumerate(zip(rows.item, rows.model)):
        keys = outcome.keys[v]
        if model != "truth" and outcome.ok[v] and keys and truth[i] is not None and keys != truth[i]:
            found[i].append(Candidate(model, rows.detail[v], keys, v, shared_holes(keys, truth[i])))
    return truth, found


def pick_one(rng: np.random.Generator, pool: Sequence[Candidate], similarity: str) -> Candidate:
    """A candidate: uniformly at random, or among those sharing the most (hard) or fewest (easy)
    holes with the answer, ties broken at random."""
    if similarity != "random":
        best = max(c.shared for c in pool) if similarity == "hard" else min(c.shared for c in pool)
        pool = [c for c in pool if c.shared == best]
    return pool[int(rng.integers(len(pool)))]


def choose(rng: np.random.Generator, pool: Sequence[Candidate], wanted: int, models: Sequence[str], similarity: str,
           taken: Sequence[tuple[int, ...]] = (), forced: Sequence[Candidate] = ()) -> list[Candidate] | None:
    """`wanted` candidates with pairwise different results, none equal to a result in `taken`: the
    `forced` ones first, then one per model in a random order of the models, then further ones
    round after round; None when fewer than `wanted` distinct results exist (the item is redrawn)."""
    chosen = list(forced)
    seen = set(taken) | {c.keys for c in chosen}
    by_model = {m: [c for c in pool if c.model == m] for m in models}
    order = [models[k] for k in rng.permutation(len(models))]
    while len(chosen) < wanted:
        progress = False
        for model in order:
            fresh = [c for c in by_model[model] if c.keys not in seen]
            if not fresh or len(chosen) >= wanted:
                continue
            pick = pick_one(rng, fresh, similarity)
            chosen.append(pick)
            seen.add(pick.keys)
            progress = True
        if not progress:
            return None
    return chosen


def option_entry(label: str, candidate: Candidate | None, truth_keys: tuple[int, ...], rows: Rows) -> dict:
    """The record's view of an option: its holes, its error model (None for the answer), the model's
    parameters and, for an ordinary modified configuration, that configuration."""
    keys = truth_keys if candidate is None else candidate.keys
    entry = {"label": label, "resultHoles": [hole_of_key(k).to_dict() for k in keys],
             "error": None if candidate is None else candidate.model}
    if candidate is not None:
        entry["errorDetail"] = candidate.detail
        entry["sharedHoles"] = candidate.shared
        config = rows.config(candidate.row) if rows.plain_config[candidate.row] else None
        if config is not None and config.actions:  # a wrong crease of a one-fold item leaves no action:
            entry["errorConfig"] = {"foldingTypes": [entry_of_code(c) for c in config.actions],  # no record holds it
                                    "initialHoles": [h.to_dict() for h in config.holes]}
    return entry
