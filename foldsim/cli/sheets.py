"""`foldsim render-item`: the media of general items (foldsim.sheets records, docs/engine.md): 3-D
folding/unfolding MP4s and/or frame folders and the result PNG (`render.items`), 2-D step images
(`render.item_images`), at the places `foldsim render` writes MentalBlackboard's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import app, check_output_path, fail, item_errors, items_exit_code, note, out, print_json
from .help import DATASETS, FoldsimCommand
from .dataset import (CadenceOption, CaptionsOption, ElevationOption, FpsOption, FramesOption, HeightOption,
                      ImagesOption, SecondsOption, VerboseOption, VideoOption, WidthOption, say_renderer)


@app.command("render-item", cls=FoldsimCommand, rich_help_panel=DATASETS)
def render_item(
    file: Annotated[Path, typer.Argument(help="general items: a JSON array or JSON Lines of foldsim.sheets records "
                                              "(or of fold-and-cut records, with \"cuts\")")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder to write the media into")],
    video: VideoOption = False,
    frames: FramesOption = False,
    images: ImagesOption = False,
    ids: Annotated[list[str] | None, typer.Option("--ids", help="only these ids (repeatable, or comma-separated)")] = None,
    width: WidthOption = None,
    height: HeightOption = None,
    fps: FpsOption = None,
    cadence: CadenceOption = None,
    seconds_per_action: SecondsOption = None,
    elevation: ElevationOption = None,
    captions: CaptionsOption = None,
    look: Annotated[str, typer.Option("--look", metavar="LOOK", help="look of the 3-D media and the 2-D step images: "
                                                      "family (a family record's benchmark look: SpatialViz grid paper, "
                                                      "VisFactor/SRBench plain sheets; the default look for other "
                                                      "records), default, spatialviz, visfactor or srbench")] = "family",
    as_json: Annotated[bool, typer.Option("--json", help="print {rendered: [ids], failed: [error lines], renamed: "
                                          "{id: file name}} as JSON")] = False,
    verbose: VerboseOption = False,
) -> None:
    """Render general items: 3-D videos or frames, and 2-D step images.

    General items have any sheet, folds at any offset, rotations, flips and point punches; fold-and-cut
    items (records with "cuts": polygon sheets) get 3-D videos or frames with their cut-outs as holes
    in the paper (docs/cutting.md, "3-D motion"). Family
    records (generate --family) are drawn, in 3-D and 2-D, in their benchmark's look unless --look
    says otherwise. Items that cannot be drawn are reported, one line each, and skipped, and so is
    every --ids that names no record. File names come from the ids through one sanitiser
    (foldsim.io.FileNames): never outside --out, never one item's files over another's.

    Exit codes:
      0  every item is rendered
      1  some item cannot be drawn, or some --ids names no record (one error line each; the others
         are rendered)
      2  a bad option, the file cannot be read, or --out cannot be written

    Examples:
      foldsim render-item demo-out/families/spatialviz/spatialviz_items.json --images
          --out demo-out/families/spatialviz-2d
    """
    from ..dataset.media import MediaRequest
    from ..errors import InputError
    from ..render.item_images import look_of

    try:
        request = MediaRequest.of(video=video, frames=frames, images=images, width=width, height=height, fps=fps,
                                  cadence=cadence, seconds_per_action=seconds_per_action,
                                  camera_elevation=elevation, captions=captions)
        look_of({}, look)  # an unknown --look is a usage error before any work
    except InputError as error:  # render-item has one --fps for both videos: name the option typed
        typed = "--fps" if error.field in ("--folding-fps", "--unfolding-fps") else error.field
        fail(InputError(error.message, item=error.item, field=typed))
    if not request.modalities:
        fail("--video/--frames/--images: ask for at least one modality")
    check_output_path(out_dir, "dir")
    say_renderer(request, verbose)
    wanted = [i for chunk in ids for i in chunk.split(",") if i] if ids else None
    rendered, errors, renamed = render_records(file, out_dir, request, look, wanted)
    if as_json:
        print_json({"rendered": rendered, "failed": errors, "renamed": renamed})
    else:
        out.print(f"media: {len(rendered)} rendered, {len(errors)} failed", markup=False)
    for item_id, name in renamed.items():
        note(f"{file}: {item_id}: its files are named {name} (ids become file names through foldsim.io.safe_file_name)")
    raise typer.Exit(items_exit_code(item_errors(file, errors)))


def render_records(file: Path, out_dir: Path, request, look: str, wanted: list[str] | None
                   ) -> tuple[list[str], list[str], dict[str, str]]:
    """Draw every record of `file` (or those whose id is in `wanted`) into `out_dir`: the ids drawn,
    one error line per item that could not be (and per wanted id in no record), and the ids whose
    file names differ from them. One bad item never stops the others; the file unreadable, or the
    output failing (disk full, read-only), ends the command (EXIT_USAGE, one line)."""
    from ..errors import InputError, debugging, internal_error_text
    from ..io import FileNames, NotRegularFileError, read_records, record_name, safe_file_name
    from ..render.animation import video_number
    from ..record_kinds import KIND_CUT, KIND_NET, read_cut_item, record_kind
    from ..render.item_images import look_of
    from ..sheets import item_from_record
    from ..simulate import record_positions

    try:
        records = read_records(file)
    except InputError as error:
        fail(error)
    errors: list[str] = []
    if wanted is not None:
        present = {str(r["id"]) for r in records if isinstance(r, dict) and r.get("id") is not None}
        errors += [f"{i}: --ids: no record has this id" for i in dict.fromkeys(wanted) if i not in present]
        chosen = present.intersection(wanted)
        records_kept = [(i, r) for i, r in enumerate(records)
                        if isinstance(r, dict) and r.get("id") is not None and str(r["id"]) in chosen]
    else:
        records_kept = list(enumerate(records))
    positions = record_positions(records, len(records))  # "line 4" / "item 3" for a record without an id
    names = FileNames(key=lambda name: safe_file_name(video_number(name)))  # PFHP_1 and 1 share PF_1_...
    opts = request.animation_options() if request.animated else None
    rendered: list[str] = []
    renamed: dict[str, str] = {}
    for index, record in records_kept:
        name = record_name(record, index)
        name = positions[index] if name == f"item {index}" else name
        try:
            kind = record_kind(record)
            if kind == KIND_CUT:
                item = read_cut_item(record, index, positions[index])
                refuse_images(request, name)
            elif kind == KIND_NET:
                raise InputError("is a cube net (it has \"cells\"): render-item draws folded sheets, not nets",
                                 item=name)
            else:
                item = item_from_record(record, index=index, name=positions[index])
            item_id = file_id(record)
            file_name = names.claim(item_id, name)
            if item_id is not None and file_name != item_id:
                renamed[name] = file_name
            if kind == KIND_CUT:
                draw_cut_item(item, out_dir, request, opts, file_name)
            else:
                draw_item(item, out_dir, request, opts, file_name, look_of(record, look))
            rendered.append(name)
        except InputError as error:
            errors.append(str(error if error.item else error.at(item=name)))
        except NotRegularFileError as problem:  # a device or FIFO where one of this item's files goes
            errors.append(f"{name}: {problem.filename}: cannot write: {problem.strerror}")
        except OSError as problem:  # the output itself failed: later items would fail alike
            item_errors(file, errors)
            fail(f"--out: {out_dir}: cannot write: {problem.strerror or problem} (while drawing {name})")
        except Exception as problem:  # noqa: BLE001  (one item's bug is that item's error line)
            if debugging():
                raise
            errors.append(f"{name}: {internal_error_text(problem)}")
    return rendered, errors, renamed


def file_id(record: object) -> str | None:
    """The id an item's file names come from: the id of the record holding the sheet (a family
    record's item's), uncut; None when it has none (or a blank one: the item is named by position,
    as `foldsim.io.record_name` names it)."""
    inner = record.get("item") if isinstance(record, dict) and "sheet" not in record else record
    value = inner.get("id") if isinstance(inner, dict) else None
    return None if value is None or not str(value).strip() else str(value)


def draw_item(item, out_dir: Path, request, opts, file_name: str, look) -> None:
    """One item's media under `out_dir`, its files named from `file_name` (already safe and unique)."""
    if request.animated:
        from ..render.items import write_item_media

        write_item_media(item, out_dir, opts, item_name=file_name, video="video" in request.modalities,
                         frames="frames" in request.modalities, look=look)
    if "images" in request.modalities:
        from ..render.item_images import write_item_images

        write_item_images(item, out_dir, item_name=file_name, look=look)


def refuse_images(request, name: str) -> None:
    """A fold-and-cut item has 3-D media only: --images (2-D step images) is its error line."""
    from ..errors import InputError

    if "images" in request.modalities:
        raise InputError("--images: 2-D step images are not drawn for fold-and-cut items (a record with \"cuts\"); "
                         "ask for --video or --frames", item=name)


def draw_cut_item(item, out_dir: Path, request, opts, file_name: str) -> None:
    """A fold-and-cut item's 3-D media under `out_dir` (render/polygon_motion.py; no family look)."""
    from ..render.polygon_motion import write_cut_item_media

    write_cut_item_media(item, out_dir, opts, item_name=file_name, video="video" in request.modalities,
                         frames="frames" in request.modalities)
