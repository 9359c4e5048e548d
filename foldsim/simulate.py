"""`simulate(batch)`: configurations in, result holes, unfolding codes and folded state out.

The whole batch goes through one jitted kernel (in bounded chunks); only decoding the answer into
Hole objects is per item. Bad items come back as status "invalid" and never stop the batch.

Array callers skip the objects: `simulate_arrays` takes kernel rows (action codes, punch grid
indices, quarter turns) and returns the compact kernel output with every result hole of the batch as
flat columns (`HoleTable`), expanded on the host by `hole_table` with no per-row Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from . import kernels as K
from .batching import chunk_rows_for, pad_columns, row_bytes, run_chunked
from .codes import action_code, parse_action
from .config import Config
from .errors import InputError, debugging, describe, internal_error_text
from .holes import SHAPE_PERIOD, Hole, direction_value, parse_location
from .io import record_name
from .result import STATUS_INVALID, STATUS_NOT_REALIZABLE, STATUS_OFF_PAPER, STATUS_OK, Result, not_realizable_text
from .sheets import SheetItem

MIN_ACTION_COLUMNS = 6  # the benchmark's longest pattern, so typical batches share one compilation
MIN_PUNCH_COLUMNS = 4
#: kernel fill values of (actions, punch locations, punch quarters) for padding rows and columns
FILLS = (K.actions.NOOP, -1, 0)

def as_config(item: object, index: int) -> Config:
    """A Config from a Config or a MentalBlackboard record dict."""
    if isinstance(item, Config):
        return item
    return Config.from_record(item, index=index)


class Row(NamedTuple):
    """One configuration as kernel integers: action codes, punch grid indices 0..31, quarter turns."""

    actions: list[int]
    locations: list[int]
    quarters: list[int]


def encode_row(config: Config) -> Row:
    """The kernel row of one configuration; InputError for what would silently go wrong in the
    kernel (a Config built directly with an unknown code, a hole off the grid or of no known shape)."""
    actions = []
    for i, code in enumerate(config.actions):
        try:
            actions.append(parse_action(code))
        except InputError as err:
            raise err.at(item=config.id, field_prefix=f"actions[{i}]") from None
    quarters = []
    for i, hole in enumerate(config.holes):
        try:
            quarters.append(hole.quarter)
            parse_location(hole.location)
        except (InputError, KeyError, AttributeError, TypeError):  # AttributeError: not a Hole at all
            raise InputError(f"not a valid hole: {describe(hole)}", item=config.id, field=f"holes[{i}]") from None
    return Row(actions, [h.location - 1 for h in config.holes], quarters)


def encode(rows: Sequence[Row]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kernel inputs: actions int32[B, S] (NOOP-padded), punch grid indices and quarters int32[B, P]."""
    width = max([MIN_ACTION_COLUMNS, *(len(r.actions) for r in rows)])
    punches = max([MIN_PUNCH_COLUMNS, *(len(r.locations) for r in rows)])
    actions = pad_columns([r.actions for r in rows], width, K.actions.NOOP)
    locations = pad_columns([r.locations for r in rows], punches, -1)
    quarters = pad_columns([r.quarters for r in rows], punches, 0)
    return actions, locations, quarters


class HoleTable(NamedTuple):
    """Every result hole of a batch as flat columns, ordered by (row, punch, layer): the order of
    `np.nonzero(Punched.hits)`. Holes of rows that failed are included (those of the sheet frozen at
    the failure, as in `Punched`); select `status.code[row] == OK` for the answers."""

    row: np.ndarray  # intp[H]: the configuration
    punch: np.ndarray  # intp[H]: the punch (column of the punch inputs)
    layer: np.ndarray  # int8[H]: the triangle (0..31) of the flat sheet the punch went through
    location: np.ndarray  # int8[H]: grid index (0..31) of the result hole
    direction: np.ndarray  # int8[H]: its direction in quarter turns (0..3)
    mirrored: np.ndarray  # bool[H]: its glyph is seen from the back

    def row_offsets(self, rows: int) -> np.ndarray:
        """intp[rows + 1]: the holes of row r are [offsets[r], offsets[r + 1])."""
        return np.searchsorted(self.row, np.arange(rows + 1))


def hole_table(out: K.CompactPunched, quarters: np.ndarray) -> HoleTable:
    """Expand the compact kernel output (NumPy, as `run_chunked` returns it) into one entry per result
    hole, with whole-array operations only. `quarters` int[N, P] are the punch directions the kernel
    was given (the device leaves them out; a hole's direction is ±q + offset of its layer)."""
    rows, punches = out.hole_count.shape
    width = out.stack_triangle.shape[1]
    counts = out.hole_count.reshape(-1).astype(np.intp)
    total = int(counts.sum())
    punch_id = np.repeat(np.arange(rows * punches), counts)  # row * P + punch of every hole
    # flat stack slot of hole h of punch i: row * 32 + start[i] + (h - first hole of punch i)
    first_hole = np.cumsum(counts) - counts
    base = np.arange(rows * punches) // punches * width + out.hole_start.reshape(-1) - first_hole
    flat_slot = np.arange(total) + base[punch_id]
    row = flat_slot // width
    mirrored = out.stack_mirrored.reshape(-1)[flat_slot]
    quarter = (np.asarray(quarters).reshape(-1) & 3).astype(np.int8)[punch_id]  # q mod 4, any int dtype
    direction = (np.where(mirrored, -quarter, quarter) + out.stack_offset.reshape(-1)[flat_slot]) & 3
    return HoleTable(row=row, punch=punch_id - row * punches, layer=out.stack_triangle.reshape(-1)[flat_slot],
                     location=out.stack_location.reshape(-1)[flat_slot], direction=direction.astype(np.int8),
                     mirrored=mirrored)


def simulate_arrays(actions: np.ndarray, locations: np.ndarray, quarters: np.ndarray, *,
                    chunk_rows: int | None = None, memory_budget: int | str | None = None,
                    on_chunk: Callable[[int], None] | None = None) -> tuple[K.CompactPunched, HoleTable]:
    """Kernel rows in (actions int[N, S] NOOP-padded, punch grid indices int[N, P] with -1 for none,
    quarter turns int[N, P]); the compact kernel output and every result hole out, as NumPy. Runs in
    chunks sized from the memory budget (`foldsim.batching`) unless `chunk_rows` is given."""
    arrays = [np.asarray(a, dtype=np.int32) for a in (actions, locations, quarters)]
    if chunk_rows is None:
        chunk_rows = compact_chunk_rows(arrays, memory_budget=memory_budget)
    out = run_chunked(K.simulate_compact_batch, arrays, FILLS, chunk_rows=chunk_rows, on_chunk=on_chunk)
    return out, hole_table(out, arrays[2])


def compact_chunk_rows(arrays: Sequence[np.ndarray], *, memory_budget: int | str | None = None) -> int:
    """`chunk_rows_for` the compact kernel: its outputs are a few hundred bytes a row, but inside it
    every row holds the folded state that `fold_batch` returns, so that is counted too."""
    return chunk_rows_for(K.simulate_compact_batch, arrays, memory_budget=memory_budget,
                          working_row_bytes=row_bytes(K.fold_batch, arrays[:1]))


def is_sheet_item(item: object) -> bool:
    """A general item (`foldsim.sheets`): a SheetItem, a record with a "sheet" field, or a family
    record holding one under "item"."""
    return isinstance(item, SheetItem) or (isinstance(item, dict) and (
        "sheet" in item or (isinstance(item.get("item"), dict) and "sheet" in item["item"])))


def simulate(batch: Iterable[Config | SheetItem | dict], *, chunk_rows: int | None = None,
             run: Callable[[Sequence[Row], int | None], "Simulated"] | None = None) -> list[Result]:
    """Simulate every item of `batch` in one batched kernel call per kind; one Result per item, in
    order. MentalBlackboard items (Config objects or records) go through the 32-triangle kernel (or
    `run`, another way to compute the same `Simulated`, e.g. the general engine's MentalBlackboard
    preset); general items (`foldsim.sheets.SheetItem` or records with a "sheet") through the
    general engine (`foldsim.engine`). Large batches run in chunks sized from the available memory
    (`foldsim.batching`) unless `chunk_rows` is given. An item that cannot be read comes back
    `invalid` with a one-line reason naming it; the batch goes on."""
    items = list(batch)
    names = record_positions(batch, len(items))
    general = [i for i, item in enumerate(items) if is_sheet_item(item)]
    rest = [i for i in range(len(items)) if i not in set(general)]
    answers: dict[int, Result] = {}
    if general:
        from .engine import simulate_items

        answers.update(zip(general, simulate_items([items[i] for i in general], chunk_rows=chunk_rows,
                                                   names=[names[i] for i in general]), strict=True))
    if rest:
        answers.update(zip(rest, _simulate_configs(items, rest, names, chunk_rows=chunk_rows, run=run), strict=True))
    return [answers[i] for i in range(len(items))]


def record_positions(batch: object, count: int) -> list[str]:
    """How errors name each item of a batch that has no id: its JSON Lines line where the reader
    kept it (`foldsim.io` records carry `positions`), else its place in the batch from 0 ("item 2",
    as `foldsim.io.record_name`)."""
    positions = getattr(batch, "positions", None)
    if isinstance(positions, (list, tuple)) and len(positions) == count:
        return [str(p) for p in positions]
    return [f"item {i}" for i in range(count)]


def _simulate_configs(batch: list, indices: list[int], names: list[str], *, chunk_rows: int | None,
                      run) -> list[Result]:
    """The MentalBlackboard part of `simulate`: items `indices` of the batch, one 32-triangle kernel
    call for every readable one; an id-less item is named by its position in the whole batch."""
    configs: list[Config | None] = []
    rows: list[Row] = []
    errors: dict[int, Result] = {}
    for i in indices:
        item = batch[i]
        try:
            config = as_config(item, i)
            if config.id == record_name(None, i) != names[i]:  # no id: named by its position (a line)
                config = replace(config, id=names[i])
            rows.append(encode_row(config))
            configs.append(config)
        except Exception as err:  # noqa: BLE001  (one item's failure, whatever it is, is that item's)
            if debugging() and not isinstance(err, InputError):
                raise
            configs.append(None)
            errors[len(configs) - 1] = invalid_result(item, i, err, name=names[i])
    valid = [k for k, c in enumerate(configs) if c is not None]
    out = (run or _run)(rows, chunk_rows) if rows else None
    results: list[Result] = []
    position = {i: k for k, i in enumerate(valid)}
    for i, config in enumerate(configs):
        if config is None:
            results.append(errors[i])
            continue
        try:
            results.append(decode(config, out, position[i]))
        except Exception as err:  # noqa: BLE001
            if debugging():
                raise
            results.append(invalid_result(batch[indices[i]], indices[i], err, name=names[indices[i]]))
    return results


def invalid_result(item: object, index: int, error: Exception, *, name: str | None = None) -> Result:
    """The `invalid` Result of an item that could not be read or decoded. An InputError says what is
    wrong with the input; any other exception is a bug, reported as an internal error of this item
    (named, counted, never dropped) instead of stopping the batch. `name`: the item's position when
    it has no id ("line 4"), in place of "item <index>"."""
    fallback = record_name(item, index)
    name = item.id if isinstance(item, Config) and item.id else (
        name if name is not None and fallback == record_name(None, index) else fallback)
    if isinstance(error, InputError):
        if error.item == fallback:
            error = InputError(error.message, item=name, field=error.field)
        return Result(error.item or name, STATUS_INVALID, str(error if error.item else error.at(item=name)))
    return Result(name, STATUS_INVALID, f"{name}: {internal_error_text(error)}")


def simulate_one(config: Config | dict) -> Result:
    """Convenience wrapper: simulate a single item."""
    return simulate([config])[0]


class Simulated(NamedTuple):
    """What `simulate` decodes, as Python lists made once for the whole batch (one `tolist` per
    column is far cheaper than indexing NumPy arrays item by item)."""

    status: list[list[int]]  # per row: code, step, triangle
    layers: list[list[int]]  # per row: layers on each grid position
    unfolding: list[list[int]]  # per row: the unfolding codes (n_folds of them)
    offsets: list[int]  # the holes of row r are [offsets[r], offsets[r + 1]) of the columns below
    punch: list[int]
    location: list[int]
    direction: list[int]
    mirrored: list[bool]


def _run(rows: Sequence[Row], chunk_rows: int | None) -> Simulated:
    out, holes = simulate_arrays(*encode(rows), chunk_rows=chunk_rows)
    status = np.stack(out.status, axis=1).tolist()
    unfolding = [codes[:n] for codes, n in zip(out.unfolding.tolist(), out.n_folds.tolist(), strict=True)]
    return Simulated(status, out.layers.tolist(), unfolding, holes.row_offsets(len(rows)).tolist(), holes.punch.tolist(),
                     holes.location.tolist(), holes.direction.tolist(), holes.mirrored.tolist())


def failure_reason(config: Config, code: int, step: int, triangle: int) -> str:
    """One line saying why a configuration failed."""
    if code == K.OFF_PAPER:
        hole = config.holes[step]
        return f"hole {step + 1}: location {hole.location} is not on the folded paper"
    return f"fold {config.actions[step]} (action {step + 1}) is not realizable: {not_realizable_text(code, triangle)}"


def decode(config: Config, simulated: Simulated, row: int) -> Result:
    """Result for row `row` of the kernel output."""
    code, step, triangle = simulated.status[row]
    layers = {g + 1: n for g, n in enumerate(simulated.layers[row]) if n}
    base = dict(id=config.id, config=config, layers=layers)
    if code in (K.CREASE_CUTS_TRIANGLE, K.EMPTY_SIDE, K.OBLIQUE_CREASE):
        reason = failure_reason(config, code, step, triangle)
        return Result(status=STATUS_NOT_REALIZABLE, reason=reason, failed_step=step + 1,
                      failed_triangle=triangle + 1 if triangle >= 0 else None, **base)
    unfolding = tuple(action_code(a) for a in simulated.unfolding[row])
    if code == K.OFF_PAPER:
        return Result(status=STATUS_OFF_PAPER, reason=failure_reason(config, code, step, triangle),
                      unfolding=unfolding, failed_step=step + 1, **base)
    span = slice(simulated.offsets[row], simulated.offsets[row + 1])
    found = []  # (location, shape, size, quarter class): Hole's order, without re-parsing directions
    for p, location, q, mirrored in zip(simulated.punch[span], simulated.location[span], simulated.direction[span],
                                        simulated.mirrored[span], strict=True):
        shape, size = config.holes[p].shape, config.holes[p].size
        found.append((location + 1, shape, size, q % SHAPE_PERIOD[shape], q, mirrored))
    found.sort(key=lambda f: f[:4])
    holes = tuple(Hole(shape, size, direction_value(shape, q), location, mirrored)
                  for location, shape, size, _, q, mirrored in found)
    return Result(status=STATUS_OK, holes=holes, unfolding=unfolding, **base)
