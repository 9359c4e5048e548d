"""The general engine's Python face: `SheetItem`s in, `Result`s with exact `PointHole`s out, through
one jitted kernel call per (sheet, mesh resolution, shape) group (docs/engine.md).

A rectangle becomes a mesh of lattice triangles: each cell is cut into r x r squares, each square
into four triangles by both diagonals, so every H/V/D/N line at a multiple of 1/r cell runs along
mesh edges. Lattice coordinates are X = 2r x - r cols, Y = 2r y - r rows (the sheet centre is the
origin, a small square's side is 2). The least r that holds every absolute line is tried first;
rows whose box-relative lines fall between mesh lines come back from the kernel asking for a finer
mesh and run again with it, up to MAX_TRIANGLES.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import NamedTuple

import jax
import numpy as np

from . import kernels as K
from .batching import pad_columns, run_chunked
from .errors import InputError, debugging, internal_error_text
from .kernels import engine as E
from .limits import MAX_ACTIONS, MAX_DENOMINATOR, MAX_LATTICE_SIDE, MAX_LATTICE_VALUE, MAX_PUNCHES, MAX_TRIANGLES
from .result import STATUS_INVALID, STATUS_NOT_REALIZABLE, STATUS_OFF_PAPER, STATUS_OK, Result, not_realizable_text
from .sheets import (
    Flip,
    Fold,
    PointHole,
    Rotate,
    SheetItem,
    item_from_record,
)

MIN_ACTION_ROWS = 4
MIN_PUNCH_ROWS = 2
FAMILY_INDEX = {"H": E.H, "V": E.V, "D": E.D, "N": E.N}
#: what the functional's constant picks up from centring the sheet: c_lat = 2r c - r K(cols, rows)
FAMILY_CENTRING = {"H": lambda c, r: r, "V": lambda c, r: c, "D": lambda c, r: r - c, "N": lambda c, r: c + r}


# -- meshes ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def rectangle_mesh(cols: int, rows: int, resolution: int) -> np.ndarray:
    """int32[4 cols rows r^2, 3, 2]: the sheet's small squares, each cut into four triangles by both
    diagonals (bottom, right, top, left), in lattice units."""
    nx, ny = cols * resolution, rows * resolution
    x0 = -nx + 2 * np.arange(nx)
    y0 = -ny + 2 * np.arange(ny)
    gx, gy = np.meshgrid(x0, y0, indexing="xy")
    gx, gy = gx.reshape(-1), gy.reshape(-1)
    bl = np.stack([gx, gy], -1)
    br, tr, tl, c = bl + (2, 0), bl + (2, 2), bl + (0, 2), bl + (1, 1)
    tris = np.stack([np.stack([bl, br, c], 1), np.stack([br, tr, c], 1), np.stack([tr, tl, c], 1),
                     np.stack([tl, bl, c], 1)], 1)
    return tris.reshape(-1, 3, 2).astype(np.int32)


def triangle_count(cols: int, rows: int, resolution: int) -> int:
    return 4 * cols * rows * resolution * resolution


# -- encoding -------------------------------------------------------------------------------------


def lattice_point(x: Fraction, y: Fraction, cols: int, rows: int, r: int) -> tuple[Fraction, Fraction]:
    return 2 * r * x - r * cols, 2 * r * y - r * rows


def resolution_for(item: SheetItem) -> int:
    """The least r that puts every absolute line of `item` on the mesh (r * at an integer); the
    item's own `resolution` when it gives one and it does (InputError when it does not)."""
    r = 1
    for action in item.actions:
        if isinstance(action, Fold) and action.line.at is not None:
            r = math.lcm(r, action.line.at.denominator)
    if item.resolution is None:
        return r
    if item.resolution % r:
        raise InputError(f"{item.resolution} puts no mesh line on every fold line (a line at a multiple of 1/{r} "
                         f"needs a multiple of {r}; leave it out for the least that does)", item=item.id,
                         field="resolution")
    return item.resolution


def encode_action(action, cols: int, rows: int, r: int) -> list[int]:
    row = [0] * E.ACTION_WIDTH
    if isinstance(action, Rotate):
        row[E.KIND], row[E.NUM] = E.ROTATE, action.quarters
        return row
    if isinstance(action, Flip):
        row[E.KIND] = E.FLIP
        return row
    line = action.line
    row[E.KIND], row[E.FAMILY] = E.FOLD, FAMILY_INDEX[line.family]
    if line.at is not None:
        value = 2 * r * line.at - FAMILY_CENTRING[line.family](cols, rows) * r
        if value.denominator != 1 or abs(value) > MAX_LATTICE_VALUE:
            raise InputError(f"the line {line.describe()} is off this mesh's lattice (resolution {r}: lattice "
                             f"value {value}, whole and at most {MAX_LATTICE_VALUE:,} either way)", field="line")
        row[E.LINE_MODE], row[E.NUM] = E.ABSOLUTE, int(value)
    else:
        row[E.LINE_MODE] = E.SQUARE_BOX if line.square_box else E.BOX
        row[E.NUM], row[E.DEN] = line.box_fraction.numerator, line.box_fraction.denominator
    if action.moves == "smaller":
        row[E.SIDE_RULE], row[E.TIE] = E.SMALLER, action.sign()
    elif action.moves == "away_from":
        try:
            a, b, d = lattice_row(*action.point, cols, rows, r)
        except InputError as err:
            raise err.at(field_prefix="point") from None
        row[E.SIDE_RULE], row[E.SIDE_A], row[E.SIDE_B], row[E.SIDE_D] = E.AWAY_FROM, a, b, d
        row[E.TIE] = action.sign()
    else:
        row[E.SIDE_RULE], row[E.SIDE_A] = E.NAMED, action.sign()
    row[E.FRONT] = int(action.front)
    return row


def lattice_row(x: Fraction, y: Fraction, cols: int, rows: int, r: int) -> list[int]:
    """[X * D, Y * D, D] of a point on the mesh's lattice, as the kernel takes it; InputError where
    the int32 kernel cannot hold it (denominator past MAX_DENOMINATOR, |X|, |Y| past
    MAX_LATTICE_VALUE: foldsim.limits)."""
    px, py = lattice_point(x, y, cols, rows, r)
    d = math.lcm(px.denominator, py.denominator)
    if d > MAX_DENOMINATOR or max(abs(px), abs(py)) > MAX_LATTICE_VALUE:
        raise InputError(f"({x}, {y}) is finer or farther than the engine holds (denominator {d} on the mesh, "
                         f"at most {MAX_DENOMINATOR}; lattice coordinates at most {MAX_LATTICE_VALUE:,})")
    return [int(px * d), int(py * d), d]


def encode_punches(item: SheetItem, r: int) -> list[list[int]]:
    rows = []
    for i, punch in enumerate(item.punches):
        try:
            rows.append(lattice_row(punch.x, punch.y, item.sheet.cols, item.sheet.rows, r))
        except InputError as err:
            raise err.at(item=item.id, field_prefix=f"punches[{i}]") from None
    return rows


def encode_actions(item: SheetItem, cols: int, rows: int, r: int) -> list[list[int]]:
    rows_out = []
    for i, action in enumerate(item.actions):
        try:
            rows_out.append(encode_action(action, cols, rows, r))
        except InputError as err:
            raise err.at(item=item.id, field_prefix=f"actions[{i}]") from None
    return rows_out


def check_size(item: SheetItem, r: int) -> None:
    """InputError, before any kernel call, for an item past a bound of foldsim.limits: its actions,
    its punches (a SheetItem built in Python is held to the record reader's bounds), its mesh."""
    for name, count, bound in (("actions", len(item.actions), MAX_ACTIONS), ("punches", len(item.punches), MAX_PUNCHES)):
        if count > bound:
            raise InputError(f"has {count:,} entries; an item holds at most {bound} (docs/errors.md, General records)",
                             item=item.id, field=name)
    t = triangle_count(item.sheet.cols, item.sheet.rows, r)
    if t > MAX_TRIANGLES or r * max(item.sheet.cols, item.sheet.rows) > MAX_LATTICE_SIDE:
        raise InputError(f"a {item.sheet.cols}x{item.sheet.rows} sheet at mesh resolution {r} needs {t:,} triangles; "
                         f"the engine holds at most {MAX_TRIANGLES:,} (lines at coarser offsets need fewer)",
                         item=item.id, field="sheet")


# -- running --------------------------------------------------------------------------------------


def run_mesh(mesh: np.ndarray, actions: np.ndarray, punches: np.ndarray, *, chunk_rows: int | None = None):
    """The kernel over rows (actions int32[N, S, W], punches int32[N, P, 3]) as NumPy, in chunks
    that fit the memory budget at the kernel's measured bytes per row (`limits.simulate_row_bytes`)."""
    from .limits import simulate_row_bytes

    fn = functools.partial(E.simulate_mesh_batch, np.asarray(mesh, np.int32))
    return run_chunked(fn, [actions, punches], [0, 0], chunk_rows=chunk_rows,
                       peak_row_bytes=simulate_row_bytes(len(mesh), actions.shape[1], punches.shape[1]))


def bucket(n: int) -> int:
    """The next power of two: action and punch counts padded to a few sizes, so batches of mixed
    items share compilations (the kernel compiles once per shape)."""
    return 1 << max(0, n - 1).bit_length()


def pad3(rows: Sequence[Sequence[Sequence[int]]], length: int, width: int) -> np.ndarray:
    out = np.zeros((len(rows), length, width), np.int32)
    for i, row in enumerate(rows):
        if row:
            out[i, : len(row)] = row
    return out


def hole_positions(out, row: np.ndarray, punch: np.ndarray, triangle: np.ndarray, punches: np.ndarray) -> np.ndarray:
    """int64[H, 2]: where each hit (row, punch, triangle) of the compact kernel output lands seen
    through the view, D-scaled lattice units: V A_t^T (p - D b_t), the kernel's own formula."""
    point, den = punches[row, punch, :2].astype(np.int64), punches[row, punch, 2:3].astype(np.int64)
    rel = point - den * out.shift[row, triangle]
    preimage = np.einsum("hji,hj->hi", out.linear[row, triangle].astype(np.int64), rel)
    return np.einsum("hij,hj->hi", out.view[row].astype(np.int64), preimage)


def view_size(view: np.ndarray, cols: int, rows: int) -> tuple[int, int]:
    """Cells across and up of the sheet seen through the view (a quarter turn swaps them)."""
    return (cols, rows) if view[0, 0] != 0 else (rows, cols)


def decode_holes(item: SheetItem, r: int, out, k: int, punches: np.ndarray) -> tuple[tuple[PointHole, ...], tuple[int, ...]]:
    """Row k of the kernel output as exact holes in the view frame."""
    wide, high = view_size(out.view[k], item.sheet.cols, item.sheet.rows)
    punch, triangle = np.nonzero(out.first[k, : len(item.punches)])
    row = np.full(len(punch), k)
    seen = hole_positions(out, row, punch, triangle, punches)
    holes = []
    for p, t, (u, v) in zip(punch.tolist(), triangle.tolist(), seen.tolist(), strict=True):
        spec, d = item.punches[p], int(punches[k, p, 2])
        x = (Fraction(u, d) + r * wide) / (2 * r)
        y = (Fraction(v, d) + r * high) / (2 * r)
        sign, offset = int(out.sign[k, t]), int(out.offset[k, t])
        holes.append(PointHole(x, y, spec.shape, spec.size, (sign * spec.direction + 90 * offset) % 360,
                               bool(out.mirrored[k, t])))
    holes.sort()
    return tuple(holes), tuple(int(n) for n in out.layers_under[k, : len(item.punches)])


def describe_action(action) -> str:
    if isinstance(action, Rotate):
        return f"rotation by {90 * action.quarters}"
    if isinstance(action, Flip):
        return "flip"
    return f"fold along {action.line.describe()}"


def failure_reason(item: SheetItem, code: int, step: int, detail: int) -> str:
    if code == K.OFF_PAPER:
        punch = item.punches[step]
        return f"punch {step + 1} at ({punch.x}, {punch.y}) is not on the folded paper"
    return f"action {step + 1} ({describe_action(item.actions[step])}) is not realizable: {not_realizable_text(code, detail)}"


def simulate_items(items: Iterable[SheetItem | dict], *, rigid_mesh: np.ndarray | None = None,
                   chunk_rows: int | None = None, names: Sequence[str] | None = None):
    """Simulate general items; one `foldsim.simulate.Result` per item, in order, never an exception:
    an item that cannot be read, is too large or cannot be encoded is that item's `invalid` Result
    (named by its id, else `names[i]`, else "item i"). `rigid_mesh` (int32[T, 3, 2] lattice
    triangles, a preset's own mesh at resolution 1) replaces the subdivided rectangle; a line that
    crosses one of its triangles makes the fold not realizable."""
    items = list(items)
    names = list(names) if names is not None else [f"item {i}" for i in range(len(items))]
    results: list = [None] * len(items)
    pending: dict[int, tuple[SheetItem, int]] = {}

    def invalid(i: int, err: Exception) -> None:
        if not isinstance(err, InputError):
            if debugging():
                raise err
            results[i] = Result(names[i], STATUS_INVALID, f"{names[i]}: {internal_error_text(err)}")
            return
        err = err if err.item else err.at(item=names[i])
        results[i] = Result(err.item, STATUS_INVALID, str(err))

    for i, raw in enumerate(items):
        try:
            item = raw if isinstance(raw, SheetItem) else item_from_record(raw, name=names[i])
            r = 1 if rigid_mesh is not None else resolution_for(item)
            check_size(item, r)
            pending[i] = (item, r)
        except Exception as err:  # noqa: BLE001  (one item's failure is that item's)
            invalid(i, err)
    while pending:
        groups: dict[tuple[int, int, int], list[int]] = {}
        for i, (item, r) in pending.items():
            groups.setdefault((item.sheet.cols, item.sheet.rows, r), []).append(i)
        retry: dict[int, tuple[SheetItem, int]] = {}
        for (cols, rows, r), members in groups.items():
            mesh = rigid_mesh if rigid_mesh is not None else rectangle_mesh(cols, rows, r)
            encoded, valid = [], []
            for i in members:
                item = pending[i][0]
                try:
                    encoded.append((encode_actions(item, cols, rows, r), encode_punches(item, r)))
                    valid.append(i)
                except Exception as err:  # noqa: BLE001
                    invalid(i, err)
            if not valid:
                continue
            try:
                answered = _run_group(mesh, [pending[i][0] for i in valid], encoded, r, rigid_mesh is not None,
                                      chunk_rows)
            except Exception as err:  # noqa: BLE001  (a failure of the call is every member's, not the batch's)
                for i in valid:
                    invalid(i, err)
                continue
            for i, answer in zip(valid, answered, strict=True):
                if isinstance(answer, int):
                    try:
                        check_size(pending[i][0], answer)
                        retry[i] = (pending[i][0], answer)
                    except Exception as err:  # noqa: BLE001
                        invalid(i, err)
                else:
                    results[i] = answer
        pending = retry
    return results


def _run_group(mesh: np.ndarray, items: list[SheetItem], encoded: list, r: int, rigid: bool,
               chunk_rows: int | None) -> list:
    """One kernel call for items of one (sheet, resolution); per item its Result, or the finer
    resolution it asks for (an int: a line between mesh lines, never a box diagonal of a box that
    is not square, which no mesh makes realizable)."""
    length = bucket(max([MIN_ACTION_ROWS, *(len(a) for a, _ in encoded)]))
    width = bucket(max([MIN_PUNCH_ROWS, *(len(p) for _, p in encoded)]))
    punch_rows = pad3([p for _, p in encoded], width, 3)
    out = run_mesh(mesh, pad3([a for a, _ in encoded], length, E.ACTION_WIDTH), punch_rows, chunk_rows=chunk_rows)
    answers: list = []
    for k, item in enumerate(items):
        code, step, detail = int(out.status.code[k]), int(out.status.step[k]), int(out.status.triangle[k])
        finer = {E.OFF_LATTICE: detail, K.CREASE_CUTS_TRIANGLE: 2}.get(code) if not rigid else None
        if finer and code == K.CREASE_CUTS_TRIANGLE and not square_box_holds(item, mesh, r, step):
            code, detail = K.OBLIQUE_CREASE, -1
        elif finer:
            answers.append(r * finer)
            continue
        if code in (K.CREASE_CUTS_TRIANGLE, K.EMPTY_SIDE, K.OBLIQUE_CREASE):
            answers.append(Result(item.id, STATUS_NOT_REALIZABLE, failure_reason(item, code, step, detail),
                                  failed_step=step + 1, failed_triangle=detail + 1 if detail >= 0 else None))
        elif code == K.OFF_PAPER:
            answers.append(Result(item.id, STATUS_OFF_PAPER, failure_reason(item, code, step, detail),
                                  failed_step=step + 1))
        else:
            holes, under = decode_holes(item, r, out, k, punch_rows)
            answers.append(Result(item.id, STATUS_OK, holes=holes, layers_under=under))
    return answers


def square_box_holds(item: SheetItem, mesh: np.ndarray, r: int, step: int) -> bool:
    """False when action `step` is a box diagonal that needs a square box (MentalBlackboard's D
    folds) and the paper's box before it is not square: the diagonal is not at 45 degrees on any
    mesh, so the fold is not realizable (as the exact reference says), and refining cannot help.
    True for every other action (a crease between mesh lines: a finer mesh may hold it)."""
    action = item.actions[step]
    if not (isinstance(action, Fold) and action.line.square_box):
        return True
    cols, rows = item.sheet.cols, item.sheet.rows
    actions = np.zeros((max(1, step), E.ACTION_WIDTH), np.int32)
    for i, earlier in enumerate(item.actions[:step]):
        actions[i] = encode_action(earlier, cols, rows, r)
    states, _, _ = jax.device_get(E.trace_mesh(np.asarray(mesh, np.int32), actions))
    linear, shift = np.asarray(states.linear[step]), np.asarray(states.shift[step])
    placed = np.einsum("tij,tvj->tvi", linear.astype(np.int64), np.asarray(mesh, np.int64)) + shift[:, None, :]
    extent = placed.reshape(-1, 2).max(0) - placed.reshape(-1, 2).min(0)
    return bool(extent[0] == extent[1])


# -- traces: every intermediate state, for the renderer, the motion function and FOLD files --------


class ItemTrace(NamedTuple):
    """The history of one general item on its mesh: `states` hold S + 1 stacked `MeshState`s (the
    flat mesh first), `steps` what each action did (its isometry, moving triangles, crease family
    and lattice value). Lattice units: X = 2r x - r cols, Y = 2r y - r rows."""

    item: SheetItem
    resolution: int
    mesh: np.ndarray  # int32[T, 3, 2]
    states: E.MeshState  # leaves [S + 1, ...]
    steps: E.EngineStep  # leaves [S, ...]
    status: tuple[int, int, int]

    def vertices(self, k: int) -> np.ndarray:
        """float64[T, 3, 2]: the triangles' vertices after k actions, in sheet cell units."""
        linear, shift = self.states.linear[k], self.states.shift[k]
        placed = np.einsum("tij,tvj->tvi", linear, self.mesh) + shift[:, None, :]
        return to_cells(placed, self.item.sheet.cols, self.item.sheet.rows, self.resolution)

    def flat_vertices(self) -> np.ndarray:
        return to_cells(self.mesh, self.item.sheet.cols, self.item.sheet.rows, self.resolution)

    def crease(self, k: int) -> tuple[str, Fraction] | None:
        """Action k's fold line as (family, c) in cell units (c of y, x, y - x or x + y), None for
        rotations and flips."""
        family = int(self.steps.family[k])
        if family < 0:
            return None
        name = "HVDN"[family]
        value = Fraction(int(self.steps.value[k]))
        return name, (value + FAMILY_CENTRING[name](self.item.sheet.cols, self.item.sheet.rows) * self.resolution) / (
            2 * self.resolution)


def to_cells(lattice: np.ndarray, cols: int, rows: int, r: int) -> np.ndarray:
    """Lattice coordinates (..., 2) to sheet cell units (origin bottom-left), as floats."""
    return (np.asarray(lattice, np.float64) + r * np.array([cols, rows])) / (2 * r)


def trace_item(item: SheetItem | dict, *, rigid_mesh: np.ndarray | None = None) -> ItemTrace:
    """Run one item's actions step by step, keeping every state; the mesh is refined as
    `simulate_items` would. InputError for an item that cannot be read or is too large."""
    item = item if isinstance(item, SheetItem) else item_from_record(item)
    r = 1 if rigid_mesh is not None else resolution_for(item)
    while True:
        check_size(item, r)
        cols, rows = item.sheet.cols, item.sheet.rows
        mesh = rigid_mesh if rigid_mesh is not None else rectangle_mesh(cols, rows, r)
        actions = np.zeros((max(1, len(item.actions)), E.ACTION_WIDTH), np.int32)
        if item.actions:
            actions[: len(item.actions)] = encode_actions(item, cols, rows, r)
        states, steps, status = jax.device_get(E.trace_mesh(np.asarray(mesh, np.int32), actions))
        code, step, detail = int(status.code), int(status.step), int(status.triangle)
        finer = {E.OFF_LATTICE: detail, K.CREASE_CUTS_TRIANGLE: 2}.get(code) if rigid_mesh is None else None
        if not finer:
            n = len(item.actions)
            states = jax.tree.map(lambda x: x[: n + 1], states)
            steps = jax.tree.map(lambda x: x[:n], steps)
            return ItemTrace(item, r, np.asarray(mesh), states, steps, (code, step, detail))
        r *= finer
