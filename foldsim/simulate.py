"""`simulate(batch)`: configurations in, result holes, unfolding codes and folded state out.

The whole batch goes through one jitted kernel (in bounded chunks); only decoding the answer into
Hole objects is per item. Bad items come back as status "invalid" and never stop the batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from . import kernels as K
from .batching import pad_columns, run_chunked
from .codes import action_code, parse_action
from .config import Config
from .errors import InputError, debugging, describe, internal_error_text
from .holes import Hole, direction_value, parse_location
from .io import record_name

MIN_ACTION_COLUMNS = 6  # the benchmark's longest pattern, so typical batches share one compilation
MIN_PUNCH_COLUMNS = 4

STATUS_OK = "ok"
STATUS_NOT_REALIZABLE = "not_realizable"
STATUS_OFF_PAPER = "off_paper"
STATUS_INVALID = "invalid"


@dataclass(frozen=True)
class Result:
    """The simulator's answer for one item.

    status: "ok", "not_realizable" (a fold the paper cannot make), "off_paper" (a punch meets no
    layer) or "invalid" (bad input); `reason` says why in one line. `holes` is the result-hole
    multiset, `unfolding` the unfolding codes, `layers` the folded state: grid id -> number of
    layers there (grid ids without paper are absent).
    """

    id: str | None
    status: str
    reason: str = ""
    holes: tuple[Hole, ...] = ()
    unfolding: tuple[str, ...] = ()
    layers: dict[int, int] = field(default_factory=dict)
    failed_step: int | None = None  # 1-based action (or hole) index named by the reason
    failed_triangle: int | None = None  # grid id of a triangle the crease cuts
    config: Config | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def to_record(self, *, with_extensions: bool = False) -> dict:
        """The benchmark's result fields: resultHoles, totalNumberofHoles, unfoldingTypes."""
        return {
            "resultHoles": [h.to_dict(with_extensions=with_extensions) for h in self.holes],
            "totalNumberofHoles": len(self.holes),
            "unfoldingTypes": list(self.unfolding),
        }


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


def simulate(batch: Iterable[Config | dict], *, chunk_rows: int | None = None) -> list[Result]:
    """Simulate every item of `batch` (Config objects or MentalBlackboard records) in one batched
    kernel call; returns one Result per item, in order. Large batches run in chunks sized from the
    available memory (`foldsim.batching`) unless `chunk_rows` is given. An item that cannot be read
    comes back `invalid` with a one-line reason naming it; the batch goes on."""
    items = list(batch)
    configs: list[Config | None] = []
    rows: list[Row] = []
    errors: dict[int, Result] = {}
    for i, item in enumerate(items):
        try:
            config = as_config(item, i)
            rows.append(encode_row(config))
            configs.append(config)
        except Exception as err:  # noqa: BLE001  (one item's failure, whatever it is, is that item's)
            if debugging() and not isinstance(err, InputError):
                raise
            configs.append(None)
            errors[i] = invalid_result(item, i, err)
    valid = [i for i, c in enumerate(configs) if c is not None]
    out = _run(rows, chunk_rows) if rows else None
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
            results.append(invalid_result(items[i], i, err))
    return results


def invalid_result(item: object, index: int, error: Exception) -> Result:
    """The `invalid` Result of an item that could not be read or decoded. An InputError says what is
    wrong with the input; any other exception is a bug, reported as an internal error of this item
    (named, counted, never dropped) instead of stopping the batch."""
    name = item.id if isinstance(item, Config) and item.id else record_name(item, index)
    if isinstance(error, InputError):
        return Result(error.item or name, STATUS_INVALID, str(error if error.item else error.at(item=name)))
    return Result(name, STATUS_INVALID, f"{name}: {internal_error_text(error)}")


def simulate_one(config: Config | dict) -> Result:
    """Convenience wrapper: simulate a single item."""
    return simulate([config])[0]


def _run(rows: Sequence[Row], chunk_rows: int | None) -> K.Punched:
    actions, locations, quarters = encode(rows)
    return run_chunked(K.simulate_batch, (actions, locations, quarters), (K.actions.NOOP, -1, 0), chunk_rows=chunk_rows)


def failure_reason(config: Config, code: int, step: int, triangle: int) -> str:
    """One line saying why a configuration failed."""
    if code == K.OFF_PAPER:
        hole = config.holes[step]
        return f"hole {step + 1}: location {hole.location} is not on the folded paper"
    fold = f"fold {config.actions[step]} (action {step + 1})"
    if code == K.CREASE_CUTS_TRIANGLE:
        return f"{fold} is not realizable: its crease cuts triangle {triangle + 1}"
    if code == K.OBLIQUE_CREASE:
        return f"{fold} is not realizable: the diagonal of the folded shape's box is not at 45 degrees"
    return f"{fold} is not realizable: one side of its crease holds no paper"


def decode(config: Config, out: K.Punched, row: int) -> Result:
    """Result for row `row` of the kernel output."""
    folded = out.folded
    code, step, triangle = (int(x[row]) for x in out.status)
    layers = {g + 1: int(n) for g, n in enumerate(folded.layers[row]) if n}
    base = dict(id=config.id, config=config, layers=layers)
    if code in (K.CREASE_CUTS_TRIANGLE, K.EMPTY_SIDE, K.OBLIQUE_CREASE):
        reason = failure_reason(config, code, step, triangle)
        return Result(status=STATUS_NOT_REALIZABLE, reason=reason, failed_step=step + 1,
                      failed_triangle=triangle + 1 if triangle >= 0 else None, **base)
    unfolding = tuple(action_code(int(a)) for a in folded.unfolding[row][: int(folded.n_folds[row])])
    if code == K.OFF_PAPER:
        return Result(status=STATUS_OFF_PAPER, reason=failure_reason(config, code, step, triangle),
                      unfolding=unfolding, failed_step=step + 1, **base)
    location, mirrored = folded.unfolded.location[row], folded.unfolded.mirrored[row]
    holes = []
    for p, hole in enumerate(config.holes):
        for t in np.flatnonzero(out.hits[row, p]):
            q = int(out.directions[row, p, t])
            holes.append(Hole(hole.shape, hole.size, direction_value(hole.shape, q), int(location[t]) + 1, bool(mirrored[t])))
    holes.sort(key=lambda h: (h.location, h.shape, h.size, h.quarter))
    return Result(status=STATUS_OK, holes=tuple(holes), unfolding=unfolding, **base)
