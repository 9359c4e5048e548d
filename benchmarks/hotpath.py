"""profile (module hotpath, so it never shadows the standard library's `profile`): where the wall
time of a large simulate goes on the host path (`run_chunked`, NumPy in and out).

The time inside the compiled calls (each call waited for) against the whole call gives the compiled
share; cProfile lists the top Python entries and counts Python function calls, which stay flat as
the batch grows when no per-item Python runs."""

from __future__ import annotations

import cProfile
import pstats
import time

import jax
from rich.table import Table

from foldsim import kernels as K
from foldsim.batching import chunk_rows_for, run_chunked

from .harness import Context, every_location, fmt_seconds

FILLS = (K.actions.NOOP, -1, 0)
TOP_ENTRIES = 10


def inside_outside(arrays) -> dict:
    """Wall seconds of the whole host path and of the compiled calls inside it (same chunking)."""
    inside = [0.0]

    def compiled(*args):
        start = time.perf_counter()
        out = jax.block_until_ready(K.simulate_batch(*args))
        inside[0] += time.perf_counter() - start
        return out

    chunk_rows = chunk_rows_for(K.simulate_batch, arrays)  # the default's size, without tracing the wrapper
    start = time.perf_counter()
    run_chunked(compiled, arrays, FILLS, chunk_rows)
    total = time.perf_counter() - start
    return {"total_s": total, "compiled_s": inside[0], "compiled_share": inside[0] / total}


def profiled(arrays) -> pstats.Stats:
    profiler = cProfile.Profile()
    profiler.runcall(run_chunked, K.simulate_batch, arrays, FILLS)
    return pstats.Stats(profiler)


def top_entries(stats: pstats.Stats, n: int = TOP_ENTRIES) -> list[dict]:
    """The n entries with the most own time: where, calls, own and cumulative seconds."""
    rows = []
    for (path, line, name), (_, calls, own, cumulative, _) in stats.stats.items():
        where = f"{path.split('site-packages/')[-1].split('/work/main/')[-1]}:{line}({name})" if line else name
        rows.append({"function": where, "calls": calls, "own_s": own, "cumulative_s": cumulative})
    return sorted(rows, key=lambda r: r["own_s"], reverse=True)[:n]


def run(ctx: Context) -> dict:
    largest = ctx.sample_rows(1024 if ctx.options.quick else len(ctx.physical))
    small = ctx.sample_rows(64 if ctx.options.quick else 1024)
    arrays, small_arrays = every_location(largest), every_location(small)
    run_chunked(K.simulate_batch, arrays, FILLS)  # compile the chunk shapes first
    run_chunked(K.simulate_batch, small_arrays, FILLS)
    timing = inside_outside(arrays)
    stats, small_stats = profiled(arrays), profiled(small_arrays)
    return {"rows": len(largest), **timing, "python_calls": stats.total_calls, "profiled_s": stats.total_tt,
            "small_rows": len(small), "small_python_calls": small_stats.total_calls, "top": top_entries(stats)}


def report(result: dict) -> list[Table]:
    summary = Table("rows", "host path", "inside compiled calls", "compiled share", "Python calls",
                    title="profile: the host path (run_chunked) of simulate", title_justify="left")
    summary.add_row(f"{result['rows']:,}", fmt_seconds(result["total_s"]), fmt_seconds(result["compiled_s"]),
                    f"{result['compiled_share']:.0%}", f"{result['python_calls']:,}")
    summary.add_row(f"{result['small_rows']:,}", "", "", "", f"{result['small_python_calls']:,}")
    top = Table("own time", "cumulative", "calls", "function", title=f"cProfile, top {len(result['top'])} by own time "
                f"({result['rows']:,} rows)", title_justify="left")
    for entry in result["top"]:
        top.add_row(fmt_seconds(entry["own_s"]), fmt_seconds(entry["cumulative_s"]), f"{entry['calls']:,}",
                    entry["function"])
    return [summary, top]
