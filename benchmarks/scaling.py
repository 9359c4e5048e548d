"""scaling: how the kernel's time grows with the batch size (1 .. the whole physical space) and with
the number of actions (1..6, one batch size, exact action width), each next to the plain per-item
loop extrapolated to the same batch; drawn into a two-panel PNG (log-scale axes).

Every row punches every grid position (32 result holes per configuration), as in `simulate`.
"""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from .harness import Context, fmt_rate, fmt_seconds, measure_kernel
from .plot import Panel, Series, si_count, si_seconds, write_panels
from .simulate import measure_batch

ACTION_COUNTS = range(1, 7)
KERNEL, FIRST, REFERENCE, TARGET = (31, 119, 180), (150, 150, 150), (214, 39, 40), (44, 160, 44)
TARGET_SECONDS = 2.0  # the whole physical space on a 2-core CPU, after compilation


def batch_sizes(ctx: Context) -> tuple[int, ...]:
    return (1, 16, 256, 1024) if ctx.options.quick else (1, 16, 256, 1024, 4096, 16384, len(ctx.physical))


def action_batch(ctx: Context) -> int:
    return 256 if ctx.options.quick else 4096


def run(ctx: Context) -> dict:
    sizes = batch_sizes(ctx)
    by_batch = [measure_kernel(ctx, (n, None), ctx.sample_rows(n)) for n in sizes]
    _, reference = measure_batch(ctx, sizes[-1])
    batch = action_batch(ctx)
    sample = max(ctx.options.baseline_sample // len(ACTION_COUNTS), 5)
    by_actions = []
    for k in ACTION_COUNTS:
        kernel, ref = measure_batch(ctx, batch, n_actions=k, sample=sample)
        by_actions.append({"actions": k, "kernel": kernel, "reference": ref})
    return {"reference_per_item_s": reference["per_item_s"], "by_batch": by_batch,
            "action_batch": batch, "by_actions": by_actions}


def panels(result: dict) -> list[Panel]:
    """The two panels of scaling.png."""
    rows = [b["rows"] for b in result["by_batch"]]
    per_item = result["reference_per_item_s"]
    left = Panel(
        "time per batch vs batch size (6-action slots)", "configurations per batch (log)", "seconds (log)",
        [Series("kernel, steady state", rows, [b["steady_s"] for b in result["by_batch"]], KERNEL),
         Series("kernel, first call (compiles)", rows, [b["first_s"] for b in result["by_batch"]], FIRST),
         Series("plain loop (extrapolated)", rows, [per_item * n for n in rows], REFERENCE, dashed=True),
         Series(f"target: whole space < {TARGET_SECONDS:g} s", [rows[0], rows[-1]], [TARGET_SECONDS] * 2, TARGET,
                dashed=True, markers=False)],
        log_x=True, log_y=True, x_format=si_count, y_format=si_seconds)
    counts = [a["actions"] for a in result["by_actions"]]
    batch = result["action_batch"]
    right = Panel(
        f"time per batch vs actions ({batch:,} configurations)", "actions per configuration", "seconds (log)",
        [Series("kernel, steady state", counts, [a["kernel"]["steady_s"] for a in result["by_actions"]], KERNEL),
         Series("plain loop (extrapolated)", counts, [a["reference"]["batch_s"] for a in result["by_actions"]],
                REFERENCE, dashed=True)],
        log_y=True, y_format=si_seconds)
    return [left, right]


def write_plot(result: dict, path: Path) -> Path:
    return write_panels(path, panels(result))


def report(result: dict) -> list[Table]:
    per_item = result["reference_per_item_s"]
    size = Table("rows", "first call", "steady", "per config", "configs/s", "plain loop (extrapolated)", "speedup",
                 title="scaling with batch size (6 action slots, 32 punches per configuration)", title_justify="left")
    for b in result["by_batch"]:
        size.add_row(f"{b['rows']:,}", fmt_seconds(b["first_s"]), fmt_seconds(b["steady_s"]),
                     fmt_seconds(b["steady_s"] / b["rows"]), fmt_rate(b["configs_per_s"]),
                     fmt_seconds(per_item * b["rows"]), f"{per_item * b['rows'] / b['steady_s']:,.0f}x")
    actions = Table("actions", "first call", "steady", "configs/s", "plain loop per item", "plain loop (extrapolated)",
                    "speedup", title=f"scaling with the number of actions ({result['action_batch']:,} configurations, "
                    "exact width)", title_justify="left")
    for a in result["by_actions"]:
        k, r = a["kernel"], a["reference"]
        actions.add_row(str(a["actions"]), fmt_seconds(k["first_s"]), fmt_seconds(k["steady_s"]),
                        fmt_rate(k["configs_per_s"]), fmt_seconds(r["per_item_s"]), fmt_seconds(r["batch_s"]),
                        f"{r['batch_s'] / k['steady_s']:,.0f}x")
    return [size, actions]
