"""The looking commands: report (scores of one or several models as one web page), browse (a
dataset's items as the same page, without answers)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..outputs.report.limits import DRAW_LIMIT, MAX_ITEMS
from .common import app, check_output_path, err, fail, item_errors, items_exit_code, out, write_output
from .help import EVALUATE, FoldsimCommand

TaskOption = Annotated[str | None, typer.Option(
    "--task", metavar="TASK", help="prediction, backward, text, generalization, planning, choice, split, plan-choice, "
                   "holes, count or opposite (default: from the records; text, holes, count and opposite (family "
                   "records, open-ended) must be named)")]
DrawLimitOption = Annotated[int, typer.Option(
    "--draw-limit", help="draw missing step images when the page holds at most this many items")]
MaxItemsOption = Annotated[int, typer.Option(
    "--max-items", help="items in the browser (metrics and plots always cover all)")]


def _positive(value: int, option: str) -> None:
    if value < 0:
        fail(f"{option}: must be at least 0, got {value}")


def _write(data, page: Path, *, assets: bool, draw_limit: int) -> None:
    """Draw the page with a progress bar and write it atomically (its assets first)."""
    from ..progress import counting_bar
    from ..outputs.report import page_text

    bar, advance = counting_bar("drawing the page", "items", len(data.items), console=err)
    try:
        with bar:
            html = page_text(data, page, assets=assets, draw_limit=draw_limit, advance=advance)
    except OSError as problem:
        fail(f"--out: {page}: cannot write the media: {problem.strerror or problem}")
    write_output(page, html)


@app.command(cls=FoldsimCommand, rich_help_panel=EVALUATE)
def report(
    dataset: Annotated[Path, typer.Argument(help="the dataset the answers are for (MentalBlackboard-format JSON/JSONL)")],
    answers: Annotated[list[Path], typer.Argument(help="one answers file per model (any format `foldsim score` reads)")],
    out_file: Annotated[Path, typer.Option("--out", help="the HTML page to write")],
    task: TaskOption = None,
    names: Annotated[list[str] | None, typer.Option("--name", metavar="NAME", help="a model's name, once per answers file, in order")] = None,
    assets: Annotated[bool, typer.Option(
        "--assets", help="media as files in <page>_files/ beside the page, not inside it (no size bound)")] = False,
    draw_limit: DrawLimitOption = DRAW_LIMIT,
    max_items: MaxItemsOption = MAX_ITEMS,
) -> None:
    """Score models on a dataset and write one web page comparing them.

    The page holds the headline metrics side by side, accuracy plots, and an item browser drawing
    every answer against the truth; it is self-contained unless --assets.

    Exit codes:
      0  the page is written
      1  some item or answer cannot be read (one error line each; the page shows the rest)
      2  a bad option, an unreadable file, or --out cannot be written

    Examples:
      foldsim report demo-out/choice/PFHP_Choice_Data.json
          demo-out/choice/answers-oracle.json demo-out/choice/answers-mirror-model.json
          --name oracle --name mirror-model --out demo-out/report.html
    """
    from ..errors import InputError
    from ..outputs.report import assets_folder, build_report

    _positive(draw_limit, "--draw-limit")
    _positive(max_items, "--max-items")
    check_output_path(out_file, "file")
    if assets:
        check_output_path(assets_folder(out_file), "dir", option="--assets")
    try:
        data = build_report(dataset, answers, task=task, names=names, max_items=max_items)
    except InputError as error:
        fail(error)
    _write(data, out_file, assets=assets, draw_limit=draw_limit)
    bad = item_errors(None, data.errors)
    out.print(f"wrote {out_file}: {data.total_items} items, {len(data.models)} model(s)", markup=False)
    raise typer.Exit(items_exit_code(bad))


@app.command(cls=FoldsimCommand, rich_help_panel=EVALUATE)
def browse(
    dataset: Annotated[Path, typer.Argument(help="a MentalBlackboard-format dataset (JSON/JSONL), its media beside it")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for index.html and its media")],
    task: TaskOption = None,
    draw_limit: DrawLimitOption = DRAW_LIMIT,
    max_items: MaxItemsOption = MAX_ITEMS,
) -> None:
    """Write a browser of a dataset's items, to inspect it before publishing.

    The page (index.html and its media, in --out) shows each item's media, its record and whether
    it matches its simulation.

    Exit codes:
      0  every item is readable and matches its simulation
      1  some item is unreadable or does not match its simulation (one error line each)
      2  a bad option, an unreadable file, or --out cannot be written

    Examples:
      foldsim browse demo-out/choice/PFHP_Choice_Data.json --out demo-out/browse
    """
    from ..errors import InputError
    from ..outputs.report import build_report

    _positive(draw_limit, "--draw-limit")
    _positive(max_items, "--max-items")
    check_output_path(out_dir, "dir")
    try:
        data = build_report(dataset, task=task, max_items=max_items)
    except InputError as error:
        fail(error)
    _write(data, out_dir / "index.html", assets=True, draw_limit=draw_limit)
    bad = item_errors(None, [*data.errors, *data.check_failures])
    out.print(f"wrote {out_dir / 'index.html'}: {data.total_items} items", markup=False)
    raise typer.Exit(items_exit_code(bad))
