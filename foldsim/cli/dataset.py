"""The dataset commands: generate, render."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import app, err, fail, out, print_json

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
    from ..dataset.media import default_workers

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
    from ..errors import InputError
    from ..dataset.generate import GenerateOptions, write_dataset
    from ..dataset.media import MediaRequest

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
    from ..errors import InputError
    from ..io import read_records
    from ..dataset.media import MediaRequest, render_items, renderable

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
