"""The publishing commands: overlap (splits without leaks) and export (harness formats)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import EXIT_ITEMS, EXIT_OK, app, check_output_path, err, error, fail, out, print_json
from .help import DATASETS, FoldsimCommand

#: overlapping items listed one per line in the readable output (--json lists them all)
LISTED_OVERLAPS = 50


@app.command(cls=FoldsimCommand, rich_help_panel=DATASETS)
def overlap(
    a: Annotated[Path, typer.Argument(help="the items to check, e.g. a training set (JSON or JSONL)")],
    b: Annotated[Path | None, typer.Argument(
        help="the items to compare with, e.g. a benchmark file; without it, A's splits against each other")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as one JSON object")] = False,
) -> None:
    """Find the items of A whose problem occurs in B: leaks between sets.

    A problem is an item's canonical configuration (up to the square's symmetries) or its planning
    target. Without B, A's splits are compared with each other.

    Exit codes:
      0  no item overlaps
      1  some item overlaps or cannot be read
      2  a file cannot be read

    Examples:
      foldsim overlap demo-out/choice/PFHP_Choice_Data.json demo-out/PFHP_Prediction_Data.json
    """
    from ..errors import InputError
    from ..dataset.splits import overlap_files, split_overlaps

    try:
        report = overlap_files(a, b) if b is not None else split_overlaps(a)
    except InputError as problem:
        fail(problem)
    for line in report.errors:
        error(line)
    if as_json:
        print_json(report.summary())
    else:
        render_overlap(report)
    raise typer.Exit(EXIT_ITEMS if report.overlaps or report.errors else EXIT_OK)


def render_overlap(report) -> None:
    """A headline, counts per task and per pattern, and one line per overlapping item."""
    from rich.table import Table

    out.print(f"{len(report.overlaps)} of {len(report.items)} items of {report.a} occur in {report.b} "
              f"({report.compared} items)", markup=False)
    for attribute in ("task", "pattern"):
        table = Table(attribute, "items", "overlapping", title=f"by {attribute}", title_justify="left")
        for name, counts in report.counts(attribute).items():
            table.add_row(name, str(counts["items"]), str(counts["overlapping"]))
        out.print(table)
    for item in report.overlaps[:LISTED_OVERLAPS]:
        where = f", {item.split}" if item.split else ""
        also = ", ".join(item.matches[:5]) + (f" and {len(item.matches) - 5} more" if len(item.matches) > 5 else "")
        splits = f" (in {', '.join(item.matched_splits)})" if item.matched_splits else ""
        out.print(f"  {item.id} ({item.task}, {item.pattern}{where}): same {item.kind} as {also}{splits}",
                  markup=False, highlight=False)
    if len(report.overlaps) > LISTED_OVERLAPS:
        out.print(f"  ... and {len(report.overlaps) - LISTED_OVERLAPS} more (--json lists them all)", markup=False)


@app.command("export", cls=FoldsimCommand, rich_help_panel=DATASETS)
def export_command(
    dataset: Annotated[Path, typer.Argument(help="dataset file (PFHP_*_Data.json) or the folder holding it")],
    fmt: Annotated[str, typer.Option("--format", metavar="[hf|vlmevalkit|lmms-eval]", help="the harness's format")],
    task: Annotated[str, typer.Option("--task", metavar="TASK", help="the task to export: prediction, planning, generalization, "
                                    "backward, text, choice, ...")],
    modality: Annotated[str, typer.Option("--modality", metavar="[text|images|frames|video]", help="what the "
                                            "prompts show")],
    out_dir: Annotated[Path, typer.Option("--out", help="the folder to write the export into")],
    templates: Annotated[Path | None, typer.Option("--templates", help="a folder of prompt templates overriding the built-ins")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="render processes for missing media (default: min(2, CPUs))")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {format, out, config, items, splits, evaluated, left_out, files, rendered, failed}")] = False,
) -> None:
    """Export a dataset for Hugging Face datasets, VLMEvalKit or lmms-eval.

    Missing media are rendered first. The harnesses evaluate the test split (else validation).

    Exit codes:
      0  every item is exported
      1  some items could not be exported (one error line each)
      2  nothing could run (also: --format vlmevalkit with --modality video, and a README.md in
         --out that is not a foldsim dataset card, for hf and lmms-eval)

    Examples:
      foldsim export demo-out/choice --format hf --task choice --modality text --out demo-out/hf
    """
    from ..errors import InputError
    from ..outputs.export import export_dataset
    from ..dataset.media import default_workers

    if workers is not None and workers < 1:
        fail("--workers: must be at least 1")
    check_output_path(out_dir, "dir")
    try:
        report = export_dataset(dataset, fmt, task, modality, out_dir, templates=templates,
                                workers=workers or default_workers(), console=err)
    except InputError as problem:
        fail(problem)
    for item_id, reason in report.failed.items():
        error(f"{item_id}: {reason}")
    if as_json:
        print_json(report.summary())
    else:
        splits = ", ".join(f"{name} {count}" for name, count in report.splits.items()) or "none"
        left_out = ", ".join(f"{name} {count}" for name, count in report.left_out.items())
        out.print(f"exported {sum(report.splits.values())} items ({splits}) as {fmt} to {out_dir}"
                  + (f"; evaluated split: {report.evaluated}" if report.evaluated else "")
                  + (f"; not exported (VLMEvalKit scores the whole TSV): {left_out}" if left_out else "")
                  + (f"; rendered media for {report.rendered}" if report.rendered else ""), markup=False)
    if not report.splits and not report.failed:
        fail("the dataset has no item for this task")
    raise typer.Exit(EXIT_ITEMS if report.failed else EXIT_OK)
