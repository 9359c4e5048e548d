"""The `foldsim` command line. Each command lives in its own small function; this module wires them
into one Typer app and owns the shared conventions: one-line errors on stderr, exit codes, --json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from .progress import counting_bar

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


@app.command("enumerate")
def enumerate_command(
    rules: Annotated[str, typer.Option("--rules", help="physical | mentalblackboard")] = "physical",
    pattern: Annotated[str | None, typer.Option("--pattern", help="only this action pattern, e.g. FRF")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="write the configurations as a columnar .npz")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {rules, total, by_pattern, ...} as JSON")] = False,
) -> None:
    """Enumerate a rule set's configurations on the device and count them per pattern (SPEC §5)."""
    from .enumerate import enumeration_report, render_enumeration
    from .errors import InputError
    from .io import atomic_write_bytes

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
def verify(
    tasks: Annotated[Path, typer.Argument(help="planning tasks: a MentalBlackboard planning file")],
    answers: Annotated[Path, typer.Argument(help="proposed plans: model answers, or MentalBlackboard records")],
    as_json: Annotated[bool, typer.Option("--json", help="print {items, correct, by_reason, by_folds} as JSON")] = False,
    details: Annotated[bool, typer.Option("--details", help="add one verdict per item")] = False,
) -> None:
    """Replay every proposed plan in one batched kernel call and judge it against its task."""
    from .errors import InputError
    from .verify import render_verify, verify_files

    try:
        bar, advance = counting_bar("replaying plans", "plans", console=err)
        with bar:
            report = verify_files(tasks, answers, on_progress=advance)
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json(report.summary(details=details))
    else:
        render_verify(report, out, details=details)


@app.command()
def solve(
    tasks: Annotated[Path, typer.Argument(help="planning tasks: a MentalBlackboard planning file")],
    limit: Annotated[int | None, typer.Option("--limit", help="only the first N tasks")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the counts per task as JSON")] = False,
    out_file: Annotated[Path | None, typer.Option("--out", help="write every task's solutions as JSON")] = None,
) -> None:
    """Find ALL plans (<= 2 punches, -F folds, no rotation) that reproduce each task's result holes."""
    from .errors import InputError
    from .io import atomic_write_json
    from .solve import render_solve, solutions_json, solve_file, solve_summary

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


# options shared by the commands that write media (generate, render)
VideoOption = Annotated[bool, typer.Option("--video", help="3-D folding/unfolding MP4s and the result PNG")]
ImagesOption = Annotated[bool, typer.Option("--images", help="2-D step images")]
TextOption = Annotated[bool, typer.Option("--text", help="text grids")]
WorkersOption = Annotated[int | None, typer.Option("--workers", help="render processes (default: min(2, CPUs))")]
WidthOption = Annotated[int | None, typer.Option("--width", help="video width in pixels (even)")]
HeightOption = Annotated[int | None, typer.Option("--height", help="video height in pixels (even)")]
FpsOption = Annotated[int | None, typer.Option("--fps", help="video frames per second")]


def _worker_count(workers: int | None) -> int:
    """The --workers value, or the default; a one-line error for a value below 1."""
    from .media import default_workers

    if workers is not None and workers < 1:
        fail("--workers: must be at least 1")
    return workers or default_workers()


@app.command()
def generate(
    task: Annotated[str, typer.Option("--task", help="prediction | planning | generalization | backward")],
    group: Annotated[list[str], typer.Option("--group", help="structure group, e.g. two_step_with_rotation (repeatable)")],
    out_dir: Annotated[Path, typer.Option("--out", help="dataset folder (JSON, media, manifest)")],
    count: Annotated[int, typer.Option("--count", help="items per group (pairs, for generalization)")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="random seed: same seed, same dataset")] = 0,
    video: VideoOption = False,
    images: ImagesOption = False,
    text: TextOption = False,
    workers: WorkersOption = None,
    first_id: Annotated[int, typer.Option("--first-id", help="number of the first item (PFHP_<n>)")] = 1,
    attribute: Annotated[str | None, typer.Option(
        "--attribute", help="generalization: shape | size | direction | location (default: all four in turn)")] = None,
    allow_odd_totals: Annotated[bool, typer.Option(
        "--allow-odd-totals", help="keep items with an odd number of result holes (the reference refuses them)")] = False,
    width: WidthOption = None,
    height: HeightOption = None,
    fps: FpsOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {data, records, rendered, skipped, failed}")] = False,
) -> None:
    """Generate a MentalBlackboard-format dataset by structure group, with the media asked for."""
    from .errors import InputError
    from .generate import GenerateOptions, write_dataset
    from .media import MediaRequest

    try:
        options = GenerateOptions(task, tuple(group), count, seed, first_id, not allow_odd_totals, attribute).validate()
        request = MediaRequest.of(video=video, images=images, text=text, width=width, height=height, fps=fps)
    except InputError as error:
        fail(str(error))
    path, records, report = write_dataset(options, out_dir, request, workers=_worker_count(workers), console=err)
    if not as_json:
        out.print(f"wrote {len(records)} records to {path}", markup=False)
    _print_render_report(report, as_json, {"data": str(path), "records": len(records)})


def _print_render_report(report, as_json: bool = False, extra: dict | None = None) -> None:
    """A summary on stdout (a line, or JSON), one error line per failed item on stderr; exit 1 if
    any item failed."""
    if as_json:
        print_json({**(extra or {}), **report.summary()})
    elif report.rendered or report.skipped or report.failed:
        out.print(f"media: {len(report.rendered)} rendered, {len(report.skipped)} already complete, "
                  f"{len(report.failed)} failed", markup=False)
    for item_id, reason in report.failed.items():
        err.print(f"error: {item_id}: {reason}", markup=False)
    raise typer.Exit(1 if report.failed else 0)


@app.command()
def render(
    file: Annotated[Path, typer.Argument(help="MentalBlackboard-format JSON/JSONL file")],
    out_dir: Annotated[Path, typer.Option("--out", help="dataset folder to write the media into")],
    video: VideoOption = False,
    images: ImagesOption = False,
    text: TextOption = False,
    workers: WorkersOption = None,
    ids: Annotated[list[str] | None, typer.Option("--ids", help="only these ids (repeatable, or comma-separated)")] = None,
    width: WidthOption = None,
    height: HeightOption = None,
    fps: FpsOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {rendered, skipped, failed} as JSON")] = False,
) -> None:
    """Render the media of an existing file; items that cannot be drawn are reported and skipped."""
    from .errors import InputError
    from .io import read_records
    from .media import MediaRequest, render_items, renderable

    try:
        request = MediaRequest.of(video=video, images=images, text=text, width=width, height=height, fps=fps)
        records = read_records(file)
    except InputError as error:
        fail(str(error))
    if not request.modalities:
        fail("--video/--images/--text: ask for at least one modality")
    wanted = [i for chunk in ids for i in chunk.split(",") if i] if ids else None
    drawable, failed = renderable(records, wanted)
    report = render_items(drawable, out_dir, request, workers=_worker_count(workers), console=err)
    report.failed = {**failed, **report.failed}
    _print_render_report(report, as_json)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI. Usage errors (unknown command or option, a missing or malformed argument) are one
    line on stderr with exit code 2, like every other input error."""
    import sys

    from typer.exceptions import Abort, TyperException

    try:
        code = app(args=argv, prog_name="foldsim", standalone_mode=False)
    except Abort:
        err.print("error: interrupted", markup=False)
        code = 130
    except TyperException as error:  # Typer's (vendored click) usage errors
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        if type(error).__name__ == "NoArgsIsHelpError":  # bare `foldsim`: the help, not an error
            err.print(message, markup=False)
        else:
            ctx = getattr(error, "ctx", None)
            where = f"{ctx.command_path}: " if ctx is not None else ""
            err.print(f"error: {where}{' '.join(message.split())}", markup=False)
        code = getattr(error, "exit_code", 2)
    sys.exit(code or 0)


if __name__ == "__main__":
    main()
