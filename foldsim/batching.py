"""Host-side batching: pad rows to a few bucket sizes so a jitted kernel compiles a handful of
times, and run large inputs in chunks so memory stays bounded.

The chunk size can come from the memory there is: a memory budget (an explicit argument, else the
`FOLDSIM_MEMORY_BUDGET` environment variable, else half of the available memory: free GPU memory per
`device.memory_stats()`, or MemAvailable from /proc/meminfo on a CPU) divided by the bytes one row
needs (its inputs and outputs per `jax.eval_shape`, times a safety factor for XLA's temporaries and
the host copy of the chunk's output), rounded down to a size on the row ladder (`ladder_size`). A
kernel whose temporaries dwarf its inputs and outputs (the general engine's) passes its measured
peak bytes per row instead (`foldsim.limits`): rows too big for eight to fit the budget run in
chunks of fewer rows, down to one; a single row (or a single smallest call) is refused before any
work only when it needs more than the budget and more than `limits.MAX_ROW_BYTES` (`check_rows_fit`),
so any positive budget still runs everything within the record bounds, only slower.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import jax
import numpy as np

from .errors import InputError, describe
from .limits import MAX_ROW_BYTES, MAX_ROWS_PER_CALL

#: sizes from this many rows up are 2^k + ALIASING_OFFSET rather than 2^k: on CPU a batch whose
#: row count has a large power-of-two factor runs 1.5-2x slower per row (cache-set aliasing of the
#: per-row arrays; measured 16.0 us/row at 65,536 rows against 7.4 at 65,600), the offset avoids it
OFFSET_FROM_ROWS = 1024
ALIASING_OFFSET = 64


def ladder_size(k: int) -> int:
    """The k-th size of the row ladder every bucket and derived chunk is drawn from: 2^k below
    OFFSET_FROM_ROWS, 2^k + ALIASING_OFFSET from there on."""
    size = 1 << k
    return size + ALIASING_OFFSET if size >= OFFSET_FROM_ROWS else size


DEFAULT_CHUNK_ROWS = ladder_size(14)  # the fixed chunk size of callers that pass one
MIN_CHUNK_ROWS = 8  # also the smallest bucket, unless fewer rows are all that fit the memory budget
#: the largest derived chunk: throughput no longer grows well before it (see benchmarks/scaling),
#: and a cap keeps the padding of one huge chunk small (a ladder size: 2^16 + ALIASING_OFFSET)
MAX_CHUNK_ROWS = MAX_ROWS_PER_CALL
#: bytes a row really takes over its inputs + outputs: XLA's temporaries (measured 0.1x-1.3x of the
#: outputs for simulate_batch/fold_batch on CPU) plus the host copy of the output, with headroom
SAFETY_FACTOR = 4
#: rows at least this big are not padded up to MIN_CHUNK_ROWS: one 64x64 item with 256 punches
#: (~170 MB a row) ran as 8 padded rows, 8x the memory and time, to share a compilation it does not need
UNPADDED_ROW_BYTES = 16 << 20
AVAILABLE_FRACTION = 0.5  # share of the available memory a derived budget may use
MEMORY_BUDGET_ENV = "FOLDSIM_MEMORY_BUDGET"
FALLBACK_AVAILABLE_BYTES = 1 << 30  # when the platform reports no available memory at all

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_BUDGET_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)


class Chunk(NamedTuple):
    """One kernel call: rows [start, start + rows) of the input, padded to `bucket` rows."""

    start: int
    rows: int
    bucket: int


def bucket_rows(n: int, *, minimum: int = MIN_CHUNK_ROWS, maximum: int = DEFAULT_CHUNK_ROWS) -> int:
    """The padded row count for n rows: the next ladder size, from `minimum`, stopping at the first
    one that reaches `maximum`."""
    k = max(minimum, 1).bit_length() - 1
    while ladder_size(k) < n and ladder_size(k) < maximum:
        k += 1
    return ladder_size(k)


def floor_ladder_size(n: int) -> int:
    """The largest ladder size <= n (1 for n < 1)."""
    k = max(int(n), 1).bit_length() - 1
    return ladder_size(k) if ladder_size(k) <= n or k == 0 else ladder_size(k - 1)


def chunk_plan(n: int, chunk_rows: int, minimum: int = MIN_CHUNK_ROWS) -> list[Chunk]:
    """How `run_chunked` cuts n rows: chunks of `chunk_rows`, each padded to a ladder size (so at
    most two shapes compile), from `minimum` rows and never past `chunk_rows` (a chunk of fewer than
    MIN_CHUNK_ROWS rows is what fits memory: padding it would undo that); zero rows still make one
    (empty) call, so outputs keep their shape."""
    plan = []
    for start in range(0, max(n, 1), chunk_rows):
        rows = min(chunk_rows, n - start)
        plan.append(Chunk(start, rows, bucket_rows(rows, minimum=min(minimum, chunk_rows), maximum=chunk_rows)))
    return plan


# -- memory ----------------------------------------------------------------------------------------


def parse_memory_budget(value: int | str, *, field: str = MEMORY_BUDGET_ENV) -> int:
    """Bytes from an int or a string such as "4096", "64M", "1.5G", "512KiB" (binary units)."""
    if isinstance(value, bool):
        raise InputError(f"{describe(value)} is not a number of bytes", field=field)
    if isinstance(value, int):
        number, unit = value, ""
    else:
        match = _BUDGET_RE.match(str(value))
        if not match:
            raise InputError(f"{describe(value)} is not a number of bytes (examples: 4096, 64M, 1.5G)", field=field)
        number, unit = float(match.group(1)), match.group(2).upper()
    if isinstance(number, float) and not math.isfinite(number * _UNITS[unit]):  # thousands of digits: float() gives inf, int() fails
        raise InputError(f"{describe(value)} is too large to be a number of bytes", field=field)
    budget = int(number * _UNITS[unit])
    if budget <= 0:
        raise InputError(f"{describe(value)}: the memory budget must be positive", field=field)
    return budget


def meminfo_available(path: str = "/proc/meminfo") -> int | None:
    """MemAvailable in bytes from a Linux meminfo file, None where there is none."""
    try:
        with open(path, encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def available_memory(device: jax.Device | None = None) -> int:
    """Bytes free for a kernel on `device` (default: JAX's first device): bytes_limit - bytes_in_use
    where the device reports memory stats (GPUs), else the host's MemAvailable."""
    device = device or jax.devices()[0]
    stats = device.memory_stats() or {}
    if "bytes_limit" in stats:
        return max(int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0)), 0)
    host = meminfo_available()
    if host is not None:
        return host
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return FALLBACK_AVAILABLE_BYTES


def memory_budget_bytes(budget: int | str | None = None, *, environ: Mapping[str, str] | None = None,
                  device: jax.Device | None = None) -> int:
    """Bytes one chunk may use: `budget` if given, else $FOLDSIM_MEMORY_BUDGET, else a share of the
    available memory. Raises InputError for a budget that is not a positive number of bytes."""
    if budget is not None:
        return parse_memory_budget(budget, field="memory_budget")
    text = (os.environ if environ is None else environ).get(MEMORY_BUDGET_ENV, "").strip()
    if text:
        return parse_memory_budget(text, field=MEMORY_BUDGET_ENV)
    return int(available_memory(device) * AVAILABLE_FRACTION)


def row_bytes(fn: Callable, arrays: Sequence[np.ndarray]) -> int:
    """Bytes of one row's inputs and outputs of a row-wise `fn`, from its abstract evaluation (no
    compilation, no data)."""
    specs = [jax.ShapeDtypeStruct((1, *np.shape(a)[1:]), np.asarray(a).dtype) for a in arrays]
    out = jax.eval_shape(fn, *specs)
    leaves = [*specs, *jax.tree.leaves(out)]
    return sum(int(np.prod(x.shape)) * np.dtype(x.dtype).itemsize for x in leaves)


def chunk_rows_for(fn: Callable, arrays: Sequence[np.ndarray], *, memory_budget: int | str | None = None,
                   device: jax.Device | None = None, environ: Mapping[str, str] | None = None,
                   working_row_bytes: int = 0, peak_row_bytes: int | None = None) -> int:
    """The chunk size that fits the memory budget: a ladder size in [MIN_CHUNK_ROWS, MAX_CHUNK_ROWS],
    or fewer rows (down to one) when `peak_row_bytes` says eight do not fit.

    `working_row_bytes`: state a row holds inside `fn` that its inputs and outputs do not show (a
    kernel that folds a whole sheet and returns a few hundred bytes); counted like them.
    `peak_row_bytes`: a measured bound on everything one row holds (inputs, outputs, temporaries;
    `foldsim.limits`), used instead of the estimate; InputError when one row passes the budget."""
    budget = memory_budget_bytes(memory_budget, environ=environ, device=device)
    if peak_row_bytes is not None:
        return rows_within(budget, peak_row_bytes)
    rows = budget // ((row_bytes(fn, arrays) + working_row_bytes) * SAFETY_FACTOR)
    return min(max(floor_ladder_size(rows), MIN_CHUNK_ROWS), MAX_CHUNK_ROWS)


def rows_within(budget: int, peak_row_bytes: int, *, what: str = "one kernel row") -> int:
    """The chunk size for rows of `peak_row_bytes` each within `budget` bytes: a ladder size up to
    MAX_CHUNK_ROWS, below MIN_CHUNK_ROWS (down to one row) when no more fit; InputError when one
    row cannot run at all (`check_rows_fit`)."""
    check_rows_fit(peak_row_bytes, budget, what=what)
    rows = max(budget // max(peak_row_bytes, 1), 1)
    return min(floor_ladder_size(rows), MAX_CHUNK_ROWS) if rows >= MIN_CHUNK_ROWS else 1 << (rows.bit_length() - 1)


def call_bytes_bound(budget: int) -> int:
    """The most one smallest kernel call (one row, one prefix) may need: the budget, but never less
    than MAX_ROW_BYTES (a tiny budget makes chunks small, it does not refuse what the record bounds
    allow)."""
    return max(budget, MAX_ROW_BYTES)


def check_rows_fit(needed: int, budget: int | None = None, *, what: str = "one kernel row",
                   field: str | None = None, item: str | None = None) -> None:
    """InputError (before any work) when `needed` bytes pass `call_bytes_bound` of the memory budget
    (`budget`, else `memory_budget_bytes()`): one line naming both numbers."""
    budget = memory_budget_bytes() if budget is None else budget
    if needed > call_bytes_bound(budget):
        raise InputError(f"{what} needs {fmt_bytes(needed)}, over the memory budget of "
                         f"{fmt_bytes(call_bytes_bound(budget))} (${MEMORY_BUDGET_ENV}, default half the free "
                         "memory)", field=field, item=item)


def fmt_bytes(n: int) -> str:
    """Bytes for people in the binary units a budget is written in: 1.5 GiB, 97.6 TiB."""
    for unit, size in (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


# -- padding and running ---------------------------------------------------------------------------


def pad_rows(array: np.ndarray, rows: int, fill: int) -> np.ndarray:
    """`array` with extra rows of `fill` appended up to `rows`."""
    if array.shape[0] == rows:
        return array
    pad = np.full((rows - array.shape[0], *array.shape[1:]), fill, dtype=array.dtype)
    return np.concatenate([array, pad])


def pad_columns(rows: Sequence[Sequence[int]], width: int, fill: int) -> np.ndarray:
    """int32[len(rows), width] from ragged rows, right-padded with `fill`."""
    out = np.full((len(rows), width), fill, dtype=np.int32)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def run_chunked(
    fn: Callable, arrays: Sequence[np.ndarray], fills: Sequence[int], chunk_rows: int | None = None, *,
    on_chunk: Callable[[int], None] | None = None, memory_budget: int | str | None = None,
    peak_row_bytes: int | None = None,
):
    """Apply a jitted, row-wise `fn` to `arrays` in padded chunks; returns its pytree as NumPy arrays.

    Rows are independent, so padding rows (filled with no-op values) are simply cut off again.
    `chunk_rows=None` derives the chunk size from the memory budget (`chunk_rows_for`, with the
    kernel's measured `peak_row_bytes` where its temporaries dwarf its outputs). Each chunk's
    output is copied into arrays allocated once for all rows, so the host holds the result plus one
    chunk, never the chunks and their concatenation together.
    """
    if chunk_rows is None:
        chunk_rows = chunk_rows_for(fn, arrays, memory_budget=memory_budget, peak_row_bytes=peak_row_bytes)
    n = arrays[0].shape[0]
    outputs = None
    big_rows = peak_row_bytes is not None and peak_row_bytes >= UNPADDED_ROW_BYTES
    for chunk in chunk_plan(n, chunk_rows, minimum=1 if big_rows else MIN_CHUNK_ROWS):
        padded = [pad_rows(a[chunk.start : chunk.start + chunk.rows], chunk.bucket, f) for a, f in zip(arrays, fills)]
        result = jax.device_get(fn(*padded))
        if outputs is None:
            outputs = jax.tree.map(lambda x: np.empty((n, *x.shape[1:]), dtype=x.dtype), result)
        for out, part in zip(jax.tree.leaves(outputs), jax.tree.leaves(result), strict=True):
            out[chunk.start : chunk.start + chunk.rows] = part[: chunk.rows]
        if on_chunk:
            on_chunk(chunk.rows)
    return outputs
