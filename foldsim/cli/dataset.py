"""The dataset commands: generate, render."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import app, check_output_path, err, fail, out, print_json
from .help import DATASETS, FoldsimCommand, family_names

# options shared by the commands that write media (generate, render)
VideoOption = Annotated[bool, typer.Option("--video", help="3-D folding/unfolding MP4s and the result PNG")]
ImagesOption = Annotated[bool, typer.Option("--images", help="2-D step images")]
TextOption = Annotated[bool, typer.Option("--text", help="text grids")]
WorkersOption = Annotated[int | None, typer.Option("--workers", help="render processes (default: min(2, CPUs))")]
WidthOption = Annotated[int | None, typer.Option("--width", help="video width in pixels (even)")]
HeightOption = Annotated[int | None, typer.Option("--height", help="video height in pixels (even)")]
FpsOption = Annotated[int | None, typer.Option("--fps", help="frames per second of both videos (see --folding-fps, --unfolding-fps)")]
FramesOption = Annotated[bool, typer.Option("--frames", help="3-D animation frames as PNG folders and the result PNG")]
CadenceOption = Annotated[str | None, typer.Option(
    "--cadence", metavar="[reference|smooth]", help="reference (the benchmark's: ~7 frames per fold, 2/3 fps, "
                      "camera straight down, captions in words; default) or smooth (eased, 24 fps, for people)")]
FoldingFpsOption = Annotated[int | None, typer.Option("--folding-fps", help="folding video frames per second")]
UnfoldingFpsOption = Annotated[int | None, typer.Option("--unfolding-fps", help="unfolding video frames per second")]
SecondsOption = Annotated[float | None, typer.Option("--seconds-per-action", help="smooth cadence: seconds per fold or rotation")]
ElevationOption = Annotated[float | None, typer.Option("--elevation", help="camera elevation in degrees (90: straight down)")]
CaptionsOption = Annotated[str | None, typer.Option("--captions", metavar="[words|codes|none]", help="captions "
                                                 "of the 3-D media: words (no codes), codes or none")]
BackendOption = Annotated[str, typer.Option("--backend", metavar="[local|ray]", help="local (worker "
                                           "processes) or ray (Ray tasks)")]
AddressOption = Annotated[str | None, typer.Option(
    "--address", help="ray: the cluster to run on (auto, HOST:6379, ray://HOST:10001); default: a local instance")]
VerboseOption = Annotated[bool, typer.Option("--verbose", help="with --video/--frames: say which OpenGL renderer "
                                             "draws the 3-D media (platform, vendor, renderer, version)")]


def say_renderer(request, verbose: bool) -> None:
    """With --verbose and 3-D media asked for: one `note:` line naming the OpenGL renderer (a GPU's
    EGL or Mesa's llvmpipe on the CPU; render workers inherit the same environment, so the same one),
    before any work."""
    if verbose and request.animated:
        from ..render.scene import gl_renderer
        from .common import note

        note(f"3-D renderer: {gl_renderer()}")


def _worker_count(workers: int | None) -> int:
    """The --workers value, or the default; a one-line error for a value below 1."""
    from ..dataset.media import default_workers

    if workers is not None and workers < 1:
        fail("--workers: must be at least 1")
    return workers or default_workers()


@app.command(cls=FoldsimCommand, rich_help_panel=DATASETS)
def generate(
    out_dir: Annotated[Path, typer.Option("--out", help="dataset folder (JSON, media, manifest)")],
    task: Annotated[str | None, typer.Option("--task", metavar="TASK", help="prediction, planning, generalization, backward, choice, split or plan-choice")] = None,
    family: Annotated[str | None, typer.Option("--family", metavar="FAMILY", help=f"{family_names()}: that "
                                               "benchmark's items in its own format and in foldsim's family item "
                                               "format (docs/families.md)")] = None,
    group: Annotated[list[str] | None, typer.Option(
        "--group", help="structure group, e.g. two_step_with_rotation (repeatable; default: every group the task allows)")] = None,
    count: Annotated[int, typer.Option(
        "--count", help="items per --group (pairs, for generalization); with no --group, items in all, spread over every group")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="random seed: same seed, same dataset")] = 0,
    video: VideoOption = False,
    images: ImagesOption = False,
    text: TextOption = False,
    frames: FramesOption = False,
    workers: WorkersOption = None,
    first_id: Annotated[int, typer.Option("--first-id", help="number of the first item (PFHP_<n>)")] = 1,
    attribute: Annotated[str | None, typer.Option(
        "--attribute", metavar="[shape|size|direction|location]", help="generalization: the attribute that changes "
                       "(default: all four in turn)")] = None,
    allow_odd_totals: Annotated[bool, typer.Option(
        "--allow-odd-totals", help="keep items with an odd number of result holes (the reference refuses them)")] = False,
    level: Annotated[str | None, typer.Option(
        "--level", metavar="LEVEL", help="easy, medium or hard: only items whose difficulty level is in the "
                   "preset's range; with --family, one of the family's levels")] = None,
    splits: Annotated[str | None, typer.Option(
        "--splits", metavar="NAME=SHARE,...", help="shares of the splits, e.g. train=0.8,test=0.2: a split field, no problem in two splits")] = None,
    options_per_item: Annotated[int | None, typer.Option(
        "--options", help="choice tasks: options per item, 3..8 (default 5)")] = None,
    distractors: Annotated[str | None, typer.Option(
        "--distractors", help="choice tasks: error models for wrong options, comma-separated (default: all)")] = None,
    similarity: Annotated[str | None, typer.Option(
        "--similarity", metavar="[random|hard|easy]", help="choice tasks: hard picks wrong options sharing most "
                        "holes with the answer")] = None,
    cues: Annotated[str | None, typer.Option(
        "--cues", help="choice, split: cue conditions none,true,counterfactual (every item once per condition)")] = None,
    width: WidthOption = None,
    height: HeightOption = None,
    fps: FpsOption = None,
    cadence: CadenceOption = None,
    folding_fps: FoldingFpsOption = None,
    unfolding_fps: UnfoldingFpsOption = None,
    seconds_per_action: SecondsOption = None,
    elevation: ElevationOption = None,
    captions: CaptionsOption = None,
    backend: BackendOption = "local",
    address: AddressOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {data, records, rendered, skipped, failed}")] = False,
    no_media: Annotated[bool, typer.Option("--no-media", help="with --family: write the records only, not the "
                                           "family's images")] = False,
    verbose: VerboseOption = False,
) -> None:
    """Generate a dataset of new items, with the media asked for.

    --task writes a MentalBlackboard-format dataset by structure group; --family writes a peer
    benchmark's items (multiple-choice or yes/no) in its own format and in foldsim's family format
    (foldsim.families, docs/families.md), with --splits keyed under the family's symmetries.
    Run the same command again to resume: finished items are kept.

    Exit codes:
      0  every item and its media are written
      1  some item's media failed (one error line each; the others are written)
      2  a bad option, or the output cannot be written

    Examples:
      foldsim generate --task choice --count 3 --seed 1 --out demo-out/choice-small --text
      foldsim generate --family visfactor --level normal --count 2 --out demo-out/visfactor
    """
    if family is not None:
        if task is not None:
            fail(f"--task: not used with --family (generate --family {family} writes that family's "
                 "items; --task writes a MentalBlackboard task)")
        from .core import refuse_unused

        task_only = {"--group": group, "--attribute": attribute, "--allow-odd-totals": allow_odd_totals or None,
                     "--options": options_per_item, "--distractors": distractors, "--similarity": similarity,
                     "--cues": cues, "--video": video or None, "--images": images or None, "--text": text or None,
                     "--frames": frames or None}
        refuse_unused(task_only, "with --family (a family's items are drawn by its own rules, in its own images; "
                      "--no-media leaves them out; --task takes these options)")
        media_only = {"--width": width, "--height": height, "--fps": fps, "--cadence": cadence,
                      "--folding-fps": folding_fps, "--unfolding-fps": unfolding_fps,
                      "--seconds-per-action": seconds_per_action, "--elevation": elevation, "--captions": captions}
        refuse_unused(media_only, "with --family (a family's images are drawn at that benchmark's own size and "
                      "style; these options shape --task videos and frames)")
        from ..errors import InputError
        from ..families.registry import family as family_of

        try:
            item_bytes = family_of(family).item_bytes
        except InputError as problem:
            fail(problem)
        most = family_count_bound(item_bytes)
        if not 0 <= count <= most:  # before any work: a run holds every record until it writes them
            more = ("several runs with --first-id" if family == "mentalblackboard" else
                    "several runs with other --seed values, each into its own --out")  # --first-id: mentalblackboard's
            fail(f"--count: must be 0 to {most:,} items per --family run (a run holds all its records in memory, "
                 f"{item_bytes >> 10} KiB each; write more as {more}), got {count:,}")
        generate_family_command(family, level, count, seed, out_dir, first_id, as_json, splits=splits,
                                media=not no_media, workers=_worker_count(workers), backend=backend,
                                address=address)
        return
    if task is None:
        fail("--task: give a task (or --family)")
    from ..errors import InputError
    from ..dataset.generate import GenerateOptions, default_groups, write_dataset
    from ..dataset.media import MediaRequest
    from ..dataset.splits import parse_splits

    try:
        split_spec = parse_splits(splits) if splits is not None else ()
        from ..dataset.choice import choice_spec_of

        choice = choice_spec_of(task, options_per_item, distractors, similarity, cues)
        groups = tuple(group) if group else default_groups(task)
        options = GenerateOptions(task, groups, count, seed, first_id, not allow_odd_totals, attribute, level,
                                  split_spec, choice=choice, total=None if group else count).validate()
        request = MediaRequest.of(video=video, frames=frames, images=images, text=text, width=width, height=height,
                                  fps=fps, cadence=cadence, folding_fps=folding_fps, unfolding_fps=unfolding_fps,
                                  seconds_per_action=seconds_per_action, camera_elevation=elevation, captions=captions)
        _check_backend(backend, address)
    except InputError as error:
        fail(str(error))
    check_output_path(out_dir, "dir")  # the one output check (no device, FIFO, file, unwritable place)
    say_renderer(request, verbose)
    try:
        path, records, report = write_dataset(options, out_dir, request, workers=_worker_count(workers),
                                              backend=backend, address=address, console=err)
    except InputError as error:  # the output folder: unwritable, full, busy; an unreachable Ray cluster
        fail(str(error))
    if not as_json:
        out.print(f"wrote {len(records)} records to {path}", markup=False)
    _print_render_report(report, as_json, {"data": str(path), "records": len(records)}, media=bool(request.modalities))


def _print_render_report(report, as_json: bool = False, extra: dict | None = None, *, media: bool = True) -> None:
    """A summary on stdout (a line, or JSON; no media line when no media were asked for), one error
    line per failed item on stderr; exit 1 if any item failed."""
    if as_json:
        print_json({**(extra or {}), **report.summary()})
    elif media and (report.rendered or report.skipped or report.failed):
        out.print(f"media: {len(report.rendered)} rendered, {len(report.skipped)} already complete, "
                  f"{len(report.failed)} failed", markup=False)
    if report.removed_temps and not as_json:
        err.print(f"note: removed {report.removed_temps} temp file(s) left by an interrupted run", markup=False)
    for item_id, reason in report.failed.items():
        err.print(f"error: {item_id}: {reason}", markup=False)
    if report.fatal:  # the output itself failed (full, read-only): finished items are kept, rerun resumes
        fail(report.fatal)
    raise typer.Exit(1 if report.failed else 0)


def family_count_bound(item_bytes: int | None = None) -> int:
    """The most items one `generate --family` run may hold: MAX_FAMILY_COUNT, or fewer where the
    memory budget (never below limits.MAX_ROW_BYTES) holds fewer at `item_bytes` each (the family's
    `item_bytes`; FAMILY_ITEM_BYTES by default)."""
    from ..batching import call_bytes_bound, memory_budget_bytes
    from ..limits import FAMILY_ITEM_BYTES, MAX_FAMILY_COUNT

    return min(MAX_FAMILY_COUNT, call_bytes_bound(memory_budget_bytes()) // (item_bytes or FAMILY_ITEM_BYTES))


def _check_backend(backend: str, address: str | None) -> None:
    """--backend/--address before any work: a known backend, Ray installed when asked for."""
    from ..dataset.media import BACKENDS
    from ..errors import InputError

    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r} (expected {' or '.join(BACKENDS)})", field="--backend")
    if address is not None and backend != "ray":
        raise InputError("only the ray backend runs on a cluster (add --backend ray)", field="--address")
    if backend == "ray":
        from ..dataset.backends import require_ray

        require_ray()


def generate_family_command(name: str, level: str | None, count: int, seed: int, out_dir: Path, first_id: int,
                            as_json: bool, *, splits: str | None = None, media: bool = True, workers: int = 1,
                            backend: str = "local", address: str | None = None) -> None:
    """`foldsim generate --family F`: `foldsim.dataset.families.write_run` (the family's items in
    foldsim's format and its own, the images through the media machinery: resume, lock, progress,
    workers, Ray), a summary line (or JSON); exit 1 if an item's images failed."""
    from ..errors import InputError
    from ..dataset.families import write_run
    from ..families.registry import family

    try:
        fam = family(name)
        from ..dataset.splits import parse_splits

        split_spec = parse_splits(splits) if splits is not None else ()
        _check_backend(backend, address)
        check_output_path(out_dir, "dir")  # before any item is drawn
        written, report = write_run(fam, out_dir, count, seed, level, console=err, media=media, splits=split_spec,
                                    workers=workers, backend=backend, address=address, first_id=first_id)
    except InputError as problem:
        fail(problem)
    if not as_json:
        out.print(f"wrote {written['count']} {name} items to {written['items']} and {written['native']}", markup=False)
    _print_render_report(report, as_json, written, media=media)


@app.command(cls=FoldsimCommand, rich_help_panel=DATASETS)
def render(
    file: Annotated[Path, typer.Argument(help="MentalBlackboard-format JSON/JSONL file")],
    out_dir: Annotated[Path, typer.Option("--out", help="dataset folder to write the media into")],
    video: VideoOption = False,
    images: ImagesOption = False,
    text: TextOption = False,
    frames: FramesOption = False,
    workers: WorkersOption = None,
    ids: Annotated[list[str] | None, typer.Option("--ids", help="only these ids (repeatable, or comma-separated)")] = None,
    width: WidthOption = None,
    height: HeightOption = None,
    fps: FpsOption = None,
    cadence: CadenceOption = None,
    folding_fps: FoldingFpsOption = None,
    unfolding_fps: UnfoldingFpsOption = None,
    seconds_per_action: SecondsOption = None,
    elevation: ElevationOption = None,
    captions: CaptionsOption = None,
    backend: BackendOption = "local",
    address: AddressOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {rendered, skipped, failed} as JSON")] = False,
    verbose: VerboseOption = False,
) -> None:
    """Render the media of an existing dataset file.

    Items that cannot be drawn are reported, one line each, and skipped; items whose media are
    complete are skipped too, so running it again resumes.

    Exit codes:
      0  every item is rendered or was complete
      1  some item failed (one error line each; the others are rendered)
      2  a bad option, an unreadable file, or the output cannot be written

    Examples:
      foldsim render demo-out/PFHP_Prediction_Data.json --out demo-out --text
      foldsim render demo-out/PFHP_Prediction_Data.json --out demo-out/first --images --ids PFHP_1
    """
    from ..errors import InputError
    from ..io import read_records
    from ..dataset.media import MediaRequest, render_items, renderable

    try:
        request = MediaRequest.of(video=video, frames=frames, images=images, text=text, width=width, height=height,
                                  fps=fps, cadence=cadence, folding_fps=folding_fps, unfolding_fps=unfolding_fps,
                                  seconds_per_action=seconds_per_action, camera_elevation=elevation, captions=captions)
        _check_backend(backend, address)
        records = read_records(file)
    except InputError as error:
        fail(str(error))
    if not request.modalities:
        fail("--video/--frames/--images/--text: ask for at least one modality")
    check_output_path(out_dir, "dir")  # the one output check (no device, FIFO, file, unwritable place)
    say_renderer(request, verbose)
    wanted = [i for chunk in ids for i in chunk.split(",") if i] if ids else None
    drawable, failed = renderable(records, wanted)
    try:
        report = render_items(drawable, out_dir, request, workers=_worker_count(workers), backend=backend,
                              address=address, console=err, source=Path(file).name)
    except InputError as error:  # the output folder: unwritable, full, busy; an unreachable Ray cluster
        fail(str(error))
    report.failed = {**failed, **report.failed}
    _print_render_report(report, as_json)
