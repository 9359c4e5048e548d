"""The core commands: check, enumerate, solve."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..progress import counting_bar
from .common import app, err, fail, out, print_json

@app.command()
def check(
    files: Annotated[list[Path], typer.Argument(help="MentalBlackboard-format JSON/JSONL files")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per file (a list for several)")] = False,
) -> None:
    """Re-simulate every record and compare result holes and unfolding codes with what it recorded."""
    from ..check import check_file

    checks = [check_file(f) for f in files]
    if as_json:
        summaries = [c.summary() for c in checks]
        print_json(summaries[0] if len(summaries) == 1 else summaries)
    else:
        for fc in checks:
            _print_check(fc)
    for fc in checks:
        for item in fc.items:
            if item.verdict == "invalid":
                err.print(f"error: {fc.file}: {item.reason}", markup=False)
        if fc.error:
            err.print(f"error: {fc.error}", markup=False)
    raise typer.Exit(0 if all(c.all_match for c in checks) else 1)


def _print_check(fc) -> None:
    from ..check import MATCH

    if fc.error:
        out.print(f"[bold]{fc.file}[/]: [red]unreadable[/]")
        return
    s = fc.summary()
    colour = "green" if fc.all_match else "yellow"
    out.print(f"[bold]{fc.file}[/]: [{colour}]{s['match']}/{s['items']} match[/]")
    for item in fc.items:
        if item.verdict == MATCH:
            continue
        out.print(f"  [red]{item.verdict}[/] {item.id}: {item.reason}", markup=True)
        for hole in item.missing:
            out.print(f"      - recorded only:  {hole.to_dict()}", markup=False)
        for hole in item.extra:
            out.print(f"      + simulated only: {hole.to_dict()}", markup=False)
    inconsistent = [i for i in fc.items if i.inconsistencies]
    if inconsistent:
        out.print(f"  [dim]{len(inconsistent)} inconsistent records (read tolerantly):[/]")
        for item in inconsistent:
            out.print(f"    {item.id}: {'; '.join(item.inconsistencies)}", markup=False)


@app.command("enumerate")
def enumerate_command(
    rules: Annotated[str, typer.Option("--rules", help="physical | mentalblackboard")] = "physical",
    pattern: Annotated[str | None, typer.Option("--pattern", help="only this action pattern, e.g. FRF")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="write the configurations as a columnar .npz")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {rules, total, by_pattern, ...} as JSON")] = False,
) -> None:
    """Enumerate a rule set's configurations on the device and count them per pattern (SPEC §5)."""
    from ..enumerate import enumeration_report, render_enumeration
    from ..errors import InputError
    from ..io import atomic_write_bytes

    try:
        bar, advance = counting_bar(f"enumerating {rules}", "rows", console=err)
        with bar:
            report = enumeration_report(rules, pattern, on_progress=advance)
    except InputError as error:
        fail(str(error))
    if out_file is not None:
        atomic_write_bytes(out_file, report.table.npz_bytes())
    if as_json:
        print_json(report.summary())
    else:
        render_enumeration(report, out)
        if out_file is not None:
            out.print(f"wrote {len(report.table):,} configurations to {out_file}", markup=False)


@app.command()
def solve(
    tasks: Annotated[Path, typer.Argument(help="planning tasks: a MentalBlackboard planning file")],
    limit: Annotated[int | None, typer.Option("--limit", help="only the first N tasks")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the counts per task as JSON")] = False,
    out_file: Annotated[Path | None, typer.Option("--out", help="write every task's solutions as JSON")] = None,
) -> None:
    """Find ALL plans (<= 2 punches, -F folds, no rotation) that reproduce each task's result holes."""
    from ..errors import InputError
    from ..io import atomic_write_json
    from ..solve import render_solve, solutions_json, solve_file, solve_summary

    if limit is not None and limit < 0:
        fail(f"--limit: must be 0 or more, got {limit}")
    try:
        bar, advance = counting_bar("solving", "tasks", console=err)
        with bar:
            results = solve_file(tasks, limit=limit, on_progress=advance)
    except InputError as error:
        fail(str(error))
    if out_file is not None:
        atomic_write_json(out_file, solutions_json(results))
    summary = solve_summary(results)
    if as_json:
        print_json(summary)
    else:
        render_solve(summary, out)
