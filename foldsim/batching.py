"""Host-side batching: pad rows to a few bucket sizes so a jitted kernel compiles a handful of
times, and run large inputs in chunks so memory stays bounded."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import numpy as np

DEFAULT_CHUNK_ROWS = 1 << 14


def bucket_rows(n: int, *, minimum: int = 8, maximum: int = DEFAULT_CHUNK_ROWS) -> int:
    """The padded row count for n rows: the next power of two, between `minimum` and `maximum`."""
    size = minimum
    while size < n and size < maximum:
        size *= 2
    return size


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
    fn: Callable, arrays: Sequence[np.ndarray], fills: Sequence[int], *, chunk_rows: int = DEFAULT_CHUNK_ROWS,
    on_chunk: Callable[[int], None] | None = None,
):
    """Apply a jitted, row-wise `fn` to `arrays` in padded chunks; returns its pytree as NumPy arrays.

    Rows are independent, so padding rows (filled with no-op values) are simply cut off again.
    """
    n = arrays[0].shape[0]
    outputs = []
    for start in range(0, max(n, 1), chunk_rows):
        chunk = [a[start : start + chunk_rows] for a in arrays]
        rows = chunk[0].shape[0]
        size = bucket_rows(rows, maximum=chunk_rows)
        padded = [pad_rows(a, size, f) for a, f in zip(chunk, fills)]
        result = jax.device_get(fn(*padded))
        outputs.append(jax.tree.map(lambda x: x[:rows], result))
        if on_chunk:
            on_chunk(rows)
    return jax.tree.map(lambda *xs: np.concatenate(xs), *outputs)
