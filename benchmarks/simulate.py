"""simulate: configurations/s and result holes/s of the batched kernel against the plain per-item
loop over `foldsim.reference.simulate_reference`, on the same configurations with a punch at every
grid position that holds paper (so every layer makes a result hole: 32 per configuration).

Batches of 1, 1K and the whole physical space (71,776 configurations). The kernel is timed on
device-resident inputs (compile = first call - steady state); the host path (NumPy in and out,
memory-derived chunks) and `enumerate.punch_everywhere` are timed on the largest batch too. The
reference runs on a seeded sample of each batch; its per-item rate is extrapolated to the batch.
Peak memory of the largest batch is measured in a fresh process (benchmarks.peak_memory).

The compact path (`simulate_compact_batch`, expanded by `hole_table`: `foldsim.simulate.simulate_arrays`)
is timed beside the dense host path on the largest batch, in the same run: kernel only
(device-resident) and with NumPy in and every result hole out as flat columns; its holes are checked
against the dense output's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np
from rich.table import Table

from foldsim import kernels as K
from foldsim.batching import SAFETY_FACTOR, chunk_plan, chunk_rows_for, row_bytes, run_chunked
from foldsim.enumerate import CODE_OF_ACTION, punch_everywhere
from foldsim.holes import Hole
from foldsim.reference import simulate_reference
from foldsim.simulate import compact_chunk_rows, hole_table, simulate_arrays

from .harness import (N_LOCATIONS, REPO, Context, every_location, first_and_steady, fmt_bytes, fmt_rate,
                      fmt_seconds, rate, time_kernel, timed_loop)

PUNCH_SHAPE = ("letter", "small")  # period 4: every direction class is checked
TARGET_SECONDS = {"cpu": 2.0, "gpu": 0.05}  # the whole space after compilation (2-core CPU; H100)
TARGET_SPEEDUP = 50
#: the whole space with NumPy in and every result hole out through the compact path (issue 13)
TARGET_COMPACT_SECONDS = {"cpu": 0.5}
#: glibc would otherwise keep freed buffers resident and reuse them, hiding a call's real peak
FIXED_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_TRIM_THRESHOLD_": "65536"}


def batch_sizes(ctx: Context) -> tuple[int, ...]:
    return (1, 64, 1024) if ctx.options.quick else (1, 1024, len(ctx.physical))


def reference_inputs(actions: np.ndarray, layers: np.ndarray) -> list[tuple[list[str], list[Hole]]]:
    """(codes, holes) per row for `simulate_reference`: a hole at every grid position with paper."""
    codes = [[str(c) for c in CODE_OF_ACTION[row[row != K.actions.NOOP]]] for row in actions]
    holes = [[Hole.make(*PUNCH_SHAPE, 0, int(loc) + 1) for loc in np.flatnonzero(row > 0)] for row in layers]
    return list(zip(codes, holes))


def kernel_holes(out: K.Punched, row: int) -> list[tuple[int, int]]:
    """Sorted (grid id, quarter) of every result hole of one row of the kernel output."""
    punch, layer = np.nonzero(out.hits[row])
    locations = out.folded.unfolded.location[row][layer] + 1
    return sorted(zip(locations.tolist(), out.directions[row][punch, layer].tolist()))


def reference_holes(result) -> list[tuple[int, int]]:
    return sorted((h.location, h.quarter) for h in result.holes)


def baseline(ctx: Context, actions: np.ndarray, out: K.Punched, label: str, sample: int) -> dict:
    """Time `simulate_reference` on a seeded sample of the batch and check it agrees with the kernel."""
    n = len(actions)
    size = min(n, sample)
    rows = np.sort(np.random.default_rng([ctx.options.seed, n]).choice(n, size, replace=False))
    picked = jax.tree.map(lambda x: np.asarray(x[rows]), out)  # the sampled rows, on the host
    inputs = reference_inputs(actions[rows], picked.folded.layers)
    seconds, results = timed_loop(inputs, lambda item: simulate_reference(*item), f"reference loop ({label})")
    disagree = sum(reference_holes(r) != kernel_holes(picked, i) for i, r in enumerate(results))
    per_item = seconds / size
    return {"sample": size, "sample_s": seconds, "per_item_s": per_item, "batch_s": per_item * n,
            "extrapolated": size < n, "configs_per_s": rate(1, per_item),
            "holes_per_s": rate(sum(len(r.holes) for r in results), seconds), "disagreements": disagree}


def measure_batch(ctx: Context, n: int, n_actions: int | None = None, sample: int | None = None) -> tuple[dict, dict]:
    """(kernel figures, reference figures) of a batch of n physical configurations (of `n_actions`
    actions, exact width, if given), memoized in the context."""
    key = (n, n_actions)
    if key not in ctx.reference_timings:
        actions = ctx.sample_rows(n, n_actions=n_actions)
        ctx.kernel_timings[key], out = time_kernel(ctx, actions)
        label = f"{n:,} rows" + (f", {n_actions} actions" if n_actions else "")
        ctx.reference_timings[key] = baseline(ctx, actions, out, label, sample or ctx.options.baseline_sample)
    return ctx.kernel_timings[key], ctx.reference_timings[key]


def host_path(ctx: Context, actions: np.ndarray) -> tuple[dict, K.Punched]:
    """NumPy in, NumPy out through `run_chunked` with the memory-derived chunk size (the dense
    outputs); the figures and the last output."""
    arrays = every_location(actions)
    chunk_rows = chunk_rows_for(K.simulate_batch, arrays)
    timing, out = first_and_steady(lambda: run_chunked(K.simulate_batch, arrays, (K.actions.NOOP, -1, 0)),
                                   ctx.options.repeats)
    plan = chunk_plan(len(actions), chunk_rows)
    return {**timing, "chunk_rows": chunk_rows, "chunks": len(plan), "buckets": sorted({c.bucket for c in plan}),
            "configs_per_s": rate(len(actions), timing["steady_s"])}, out


def compact_kernel(ctx: Context, actions: np.ndarray) -> dict:
    """`simulate_compact_batch` alone on device-resident inputs (as `time_kernel` times the dense one)."""
    inputs = [jax.device_put(x) for x in every_location(actions)]
    timing, out = first_and_steady(lambda: K.simulate_compact_batch(*inputs), ctx.options.repeats)
    holes = int(np.asarray(out.hole_count, dtype=np.int64).sum())
    return {**timing, "holes": holes, "configs_per_s": rate(len(actions), timing["steady_s"]),
            "holes_per_s": rate(holes, timing["steady_s"])}


def compact_path(ctx: Context, actions: np.ndarray, dense: K.Punched) -> dict:
    """NumPy in, every result hole out as flat columns (`simulate_arrays`: the compact kernel in
    memory-derived chunks, then `hole_table`); its holes checked against the dense host path's."""
    arrays = every_location(actions)
    chunk_rows = compact_chunk_rows(arrays)
    timing, (out, table) = first_and_steady(lambda: simulate_arrays(*arrays), ctx.options.repeats)
    decode, _ = first_and_steady(lambda: hole_table(out, arrays[2]), ctx.options.repeats, min_seconds=0.2)
    plan = chunk_plan(len(actions), chunk_rows)
    holes = len(table.row)
    return {**timing, "chunk_rows": chunk_rows, "chunks": len(plan), "buckets": sorted({c.bucket for c in plan}),
            "holes": holes, "configs_per_s": rate(len(actions), timing["steady_s"]),
            "holes_per_s": rate(holes, timing["steady_s"]), "hole_table_s": decode["steady_s"],
            "output_bytes": sum(x.nbytes for x in jax.tree.leaves((out, table))),
            "dense_output_bytes": sum(x.nbytes for x in jax.tree.leaves(dense)),
            "agrees_with_dense": same_holes(table, dense)}


def same_holes(table, dense: K.Punched) -> bool:
    """The hole table is the dense output's holes, in its order."""
    row, punch, layer = np.nonzero(dense.hits)
    return bool(np.array_equal(table.row, row) and np.array_equal(table.punch, punch)
                and np.array_equal(table.layer, layer)
                and np.array_equal(table.location, dense.folded.unfolded.location[row, layer])
                and np.array_equal(table.direction, dense.directions[row, punch, layer])
                and np.array_equal(table.mirrored, dense.folded.unfolded.mirrored[row, layer]))


def punch_table(ctx: Context, actions: np.ndarray) -> dict:
    """`enumerate.punch_everywhere`: the library's whole-space answer (fold once, scatter all holes)."""
    timing, table = first_and_steady(lambda: punch_everywhere(actions), ctx.options.repeats)
    holes = int(table.hits.sum())
    return {**timing, "holes": holes, "configs_per_s": rate(len(actions), timing["steady_s"]),
            "holes_per_s": rate(holes, timing["steady_s"])}


def peak_memory(actions: np.ndarray, kernel: str = "dense") -> dict:
    """Peak memory of one batch of the dense or the compact kernel in a fresh process (see
    benchmarks.peak_memory), with the estimate `foldsim.batching` sizes chunks by."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "actions.npy"
        np.save(path, actions)
        done = subprocess.run([sys.executable, "-m", "benchmarks.peak_memory", str(path), kernel], cwd=REPO,
                              env={**os.environ, **FIXED_MALLOC}, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    one = every_location(actions[:1])
    per_row = row_bytes(K.simulate_batch, one) if kernel == "dense" else (
        row_bytes(K.simulate_compact_batch, one) + row_bytes(K.fold_batch, one[:1]))  # as compact_chunk_rows
    return {**measured, "row_bytes": per_row, "estimate_bytes": per_row * SAFETY_FACTOR * len(actions)}


def run(ctx: Context) -> dict:
    sizes = batch_sizes(ctx)
    batches = []
    for n in sizes:
        kernel, reference = measure_batch(ctx, n)
        batches.append({"rows": n, "kernel": kernel, "reference": reference,
                        "speedup": reference["batch_s"] / kernel["steady_s"]})
    largest = ctx.sample_rows(sizes[-1])
    host, dense = host_path(ctx, largest)
    host["speedup"] = batches[-1]["reference"]["batch_s"] / host["steady_s"]
    compact = {"kernel": compact_kernel(ctx, largest), "path": compact_path(ctx, largest, dense)}
    del dense
    compact["path"]["speedup_over_host_path"] = host["steady_s"] / compact["path"]["steady_s"]
    whole_space = sizes[-1] == len(ctx.physical)
    return {"punches_per_config": N_LOCATIONS, "batches": batches, "host_path": host, "compact": compact,
            "punch_everywhere": punch_table(ctx, largest), "peak_memory": peak_memory(largest),
            "compact_peak_memory": peak_memory(largest, "compact"),
            "targets": targets(batches[-1], host, whole_space=whole_space),
            "compact_target": compact_target(compact["path"], host, whole_space=whole_space)}


def compact_target(path: dict, host: dict, *, whole_space: bool) -> dict:
    """Issue 13: the whole space with NumPy out through the compact path in <= 0.5 s on the 2-core
    CPU, beside the dense host path measured in the same run."""
    if not whole_space:
        return {"lines": ["compact path: not checked, the largest batch is not the whole physical space (--quick)"]}
    backend = jax.default_backend()
    limit = TARGET_COMPACT_SECONDS.get(backend)
    seconds = path["steady_s"]
    met = None if limit is None else seconds <= limit
    verdict = "no target for this backend" if limit is None else \
        f"{'met' if met else 'NOT met'} (target <= {fmt_seconds(limit)})"
    line = (f"whole space with NumPy out through the compact path: {fmt_seconds(seconds)}: {verdict}; "
            f"the dense host path {fmt_seconds(host['steady_s'])} in the same run "
            f"({path['speedup_over_host_path']:.1f}x)")
    return {"seconds": seconds, "limit_s": limit, "time_met": met, "lines": [line]}


def targets(largest: dict, host: dict, *, whole_space: bool) -> dict:
    """The project's targets for the whole physical space: under 2 s after compilation on a 2-core
    CPU (50 ms on an H100) and at least 50x the plain loop."""
    if not whole_space:
        return {"lines": ["not checked: the largest batch is not the whole physical space (--quick)"]}
    limit = TARGET_SECONDS[jax.default_backend()] if jax.default_backend() in TARGET_SECONDS else None
    seconds, speedup = largest["kernel"]["steady_s"], largest["speedup"]
    time_met = None if limit is None else seconds < limit
    lines = [f"whole space in {fmt_seconds(seconds)} after compilation: "
             + ("no target for this backend" if limit is None else
                f"{'met' if time_met else 'NOT met'} (target < {fmt_seconds(limit)})"),
             f"{speedup:,.0f}x the plain loop: {'met' if speedup >= TARGET_SPEEDUP else 'NOT met'} "
             f"(target >= {TARGET_SPEEDUP}x)",
             f"with NumPy in and out (host path): {fmt_seconds(host['steady_s'])}, "
             f"{host['speedup']:,.0f}x the plain loop"]
    return {"seconds": seconds, "limit_s": limit, "time_met": time_met, "speedup": speedup,
            "speedup_met": speedup >= TARGET_SPEEDUP, "lines": lines}


def report(result: dict) -> list[Table]:
    table = Table("rows", "first call", "compile", "steady", "configs/s", "holes/s", "plain loop", "loop configs/s",
                  "basis", "speedup", "disagree",
                  title="simulate: kernel (every location punched, 32 holes per configuration) vs the plain "
                  "per-item loop (simulate_reference)", title_justify="left")
    for b in result["batches"]:
        k, r = b["kernel"], b["reference"]
        basis = f"extrapolated from {r['sample']}" if r["extrapolated"] else f"measured on {r['sample']}"
        table.add_row(f"{b['rows']:,}", fmt_seconds(k["first_s"]), fmt_seconds(k["compile_s"]),
                      fmt_seconds(k["steady_s"]), fmt_rate(k["configs_per_s"]), fmt_rate(k["holes_per_s"]),
                      fmt_seconds(r["batch_s"]), fmt_rate(r["configs_per_s"]), basis, f"{b['speedup']:,.0f}x",
                      str(r["disagreements"]))
    host, punch = result["host_path"], result["punch_everywhere"]
    kernel, compact = result["compact"]["kernel"], result["compact"]["path"]
    rows = result["batches"][-1]["rows"]
    dense_kernel = result["batches"][-1]["kernel"]
    extra = Table("largest batch", "first call", "steady", "configs/s", "notes", title_justify="left")
    extra.add_row("dense kernel (simulate_batch)", fmt_seconds(dense_kernel["first_s"]),
                  fmt_seconds(dense_kernel["steady_s"]), fmt_rate(dense_kernel["configs_per_s"]),
                  "device-resident inputs (the first table's last row)")
    extra.add_row("compact kernel (simulate_compact_batch)", fmt_seconds(kernel["first_s"]),
                  fmt_seconds(kernel["steady_s"]), fmt_rate(kernel["configs_per_s"]),
                  f"device-resident inputs; {fmt_rate(kernel['holes_per_s'])} holes/s")
    extra.add_row("host path, dense (run_chunked)", fmt_seconds(host["first_s"]), fmt_seconds(host["steady_s"]),
                  fmt_rate(host["configs_per_s"]), f"{rows:,} rows, chunks of {host['chunk_rows']:,} "
                  f"(buckets {host['buckets']}), NumPy in and out; {host['speedup']:,.0f}x the plain loop")
    extra.add_row("[bold]compact path (simulate_arrays)[/]", fmt_seconds(compact["first_s"]),
                  f"[bold]{fmt_seconds(compact['steady_s'])}[/]", fmt_rate(compact["configs_per_s"]),
                  f"NumPy in, {compact['holes']:,} holes out as flat columns (hole_table "
                  f"{fmt_seconds(compact['hole_table_s'])}); chunks of {compact['chunk_rows']:,}; "
                  f"{compact['speedup_over_host_path']:.1f}x the dense host path; "
                  f"{fmt_bytes(compact['output_bytes'])} out against {fmt_bytes(compact['dense_output_bytes'])}; "
                  f"{'same holes as the dense output' if compact['agrees_with_dense'] else 'DIFFERS from the dense output'}")
    extra.add_row("punch_everywhere", fmt_seconds(punch["first_s"]), fmt_seconds(punch["steady_s"]),
                  fmt_rate(punch["configs_per_s"]), f"{fmt_rate(punch['holes_per_s'])} holes/s")
    for name, memory in (("dense", result["peak_memory"]), ("compact", result["compact_peak_memory"])):
        if "error" in memory:
            extra.add_row(f"peak memory, {name}", "", "", "", f"not measured: {memory['error']}")
            continue
        steady = f", steady {fmt_bytes(memory['steady_bytes'])}" if memory["steady_bytes"] is not None else ""
        extra.add_row(f"peak memory, {name} kernel (fresh process)", "", "", "",
                      f"{memory['method']}: first call {fmt_bytes(memory['first_call_bytes'])}{steady}; "
                      f"chunk-size model {fmt_bytes(memory['estimate_bytes'])} "
                      f"({memory['row_bytes']:,} B/row x {SAFETY_FACTOR})")
    for line in [*result["targets"]["lines"], *result["compact_target"]["lines"]]:
        extra.add_row("target", "", "", "", line)
    return [table, extra]
