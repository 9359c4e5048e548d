"""`python -m benchmarks` (`make bench`): run the benchmark families, print their tables, write the
results file (this device's entry; other devices' entries are kept) and the scaling plot."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from . import cut, engine, families, hotpath, nets, parse, render, rewards, scaling, simulate, solve, verify, volume
from .harness import REPO, Context, Options, device_key, machine, write_results

FAMILIES = {"simulate": simulate, "scaling": scaling, "profile": hotpath, "verify": verify, "parse": parse,
            "solve": solve, "render": render, "rewards": rewards, "engine": engine,
            "families": families, "nets": nets, "cut": cut, "volume": volume}
RESULTS = REPO / "benchmarks" / "results.json"
PLOT = REPO / "benchmarks" / "scaling.png"
QUICK_RESULTS = REPO / "out" / "benchmarks-quick.json"  # a smoke test never overwrites the real figures
QUICK_PLOT = REPO / "out" / "scaling-quick.png"
ENGINE_PLOT = REPO / "benchmarks" / "engine_scaling.png"  # the general engine by sheet size and folds
QUICK_ENGINE_PLOT = REPO / "out" / "engine-scaling-quick.png"

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
out_console = Console(width=None if sys.stdout.isatty() else 170)  # tables stay whole in logs
err_console = Console(stderr=True)


def parse_only(text: str | None) -> list[str]:
    """The families named by --only (all of them, in order, when none is given)."""
    if not text:
        return list(FAMILIES)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise typer.BadParameter(f"unknown benchmark {unknown[0] if unknown else text!r} "
                                 f"(expected some of {', '.join(FAMILIES)})", param_hint="--only")
    return [n for n in FAMILIES if n in names]


def one_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def run_family(name: str, ctx: Context) -> dict:
    """Run one family and print its tables; a failing family is reported and the others go on."""
    out_console.rule(f"[bold]{name}")
    started = time.perf_counter()
    try:
        result = FAMILIES[name].run(ctx)
    except Exception as error:  # noqa: BLE001 - one broken family must not lose the others' figures
        err_console.print(f"[red]benchmark {name} failed:[/] {one_line(error)}", markup=True, highlight=False)
        return {"error": one_line(error)}
    result["seconds"] = time.perf_counter() - started
    for table in FAMILIES[name].report(result):
        out_console.print(table)
    return result


@app.command()
def main(
    quick: Annotated[bool, typer.Option("--quick", help="small sizes: a smoke test (about two minutes on 2 cores)")]
    = False,
    only: Annotated[str | None, typer.Option("--only", help=f"comma-separated subset of: {', '.join(FAMILIES)}")]
    = None,
    out: Annotated[Path | None, typer.Option("--out", help="results JSON (default benchmarks/results.json; "
                                             "out/benchmarks-quick.json with --quick)")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", help="scaling PNG (default benchmarks/scaling.png; "
                                              "out/scaling-quick.png with --quick)")] = None,
) -> None:
    """Benchmark simulate, verify, solve and render against their plain per-item baselines."""
    names = parse_only(only)
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    ctx = Context(Options(quick=quick))
    info = machine()
    out_console.print(f"[bold]foldsim benchmarks[/] on {device_key(info)}, JAX {info['jax']} "
                      f"({info['jax_backend']}: {info['device']}), {info['date']}, load {info['load_average_1m']}"
                      + (" [yellow](quick)[/]" if quick else ""))
    results = {name: run_family(name, ctx) for name in names}
    for result in results.values():
        result["date"] = info["date"]
        result["quick"] = quick
    info["load_average_1m_end"] = round(os.getloadavg()[0], 2)
    if "error" not in results.get("scaling", {"error": None}):
        path = scaling.write_plot(results["scaling"], plot or (QUICK_PLOT if quick else PLOT))
        out_console.print(f"scaling plot: {path}")
    if "error" not in results.get("engine", {"error": None}):
        path = engine.write_plot(results["engine"], QUICK_ENGINE_PLOT if quick else ENGINE_PLOT)
        out_console.print(f"engine scaling plot: {path}")
    path = out or (QUICK_RESULTS if quick else RESULTS)
    write_results(path, device_key(info), info, results, replace_entry=only is None)
    out_console.print(f"results: {path}")
    failed = [n for n, r in results.items() if "error" in r]
    if failed:
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
