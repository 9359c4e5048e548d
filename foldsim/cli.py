"""The `foldsim` command line. Each command lives in its own small function; this module wires them
into one Typer app and owns the shared conventions: one-line errors on stderr, exit codes, --json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Exact, batched paper folding & hole punching.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


@app.callback()
def root() -> None:
    """foldsim: check, enumerate, verify, solve, score, generate and render paper-folding items."""


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error and exit nonzero."""
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def print_json(data: object) -> None:
    typer.echo(json.dumps(data, indent=1))


@app.command()
def check(
    files: Annotated[list[Path], typer.Argument(help="MentalBlackboard-format JSON/JSONL files")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per file (a list for several)")] = False,
) -> None:
    """Re-simulate every record and compare result holes and unfolding codes with what it recorded."""
    from .check import check_file

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
    from .check import MATCH

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


@app.command()
def score(
    task: Annotated[str, typer.Argument(help="prediction | backward | text | generalization | planning")],
    truth: Annotated[Path, typer.Argument(help="ground-truth MentalBlackboard file (JSON array or JSONL)")],
    answers: Annotated[Path, typer.Argument(help="model answers: JSON, JSONL, provider batch output or raw text")],
    compat: Annotated[str | None, typer.Option("--compat", help="reproduce a reference scorer: mentalblackboard")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print every number as one JSON object")] = False,
    details: Annotated[bool, typer.Option("--details", help="with --json: add the per-item scores")] = False,
) -> None:
    """Score model answers against the truth (correct metrics; --compat for the reference's numbers)."""
    from .errors import InputError
    from .scoring import render_report, score_files

    try:
        report = score_files(task, truth, answers, compat=compat)
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json(report.to_dict(details=details))
    else:
        render_report(report, out)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
