"""`foldsim render-item`: the media of general items (foldsim.sheets records, docs/engine.md): 3-D
folding/unfolding MP4s and/or frame folders and the result PNG (`render.items`), 2-D step images
(`render.item_images`), at the places `foldsim render` writes MentalBlackboard's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import app, err, fail, out, print_json
from .help import DATASETS, FoldsimCommand
from .dataset import (CadenceOption, CaptionsOption, ElevationOption, FpsOption, FramesOption, HeightOption,
                      ImagesOption, SecondsOption, VideoOption, WidthOption)


@app.command("render-item", cls=FoldsimCommand, rich_help_panel=DATASETS)
def render_item(
    file: Annotated[Path, typer.Argument(help="general items: a JSON array or JSON Lines of foldsim.sheets records")],
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
    as_json: Annotated[bool, typer.Option("--json", help="print {rendered, failed} as JSON")] = False,
) -> None:
    """Render general items: 3-D videos or frames, and 2-D step images.

    General items have any sheet, folds at any offset, rotations, flips and point punches. Family
    records (generate --family) are drawn, in 3-D and 2-D, in their benchmark's look unless --look
    says otherwise. Items that cannot be drawn are reported, one line each, and skipped.

    Exit codes:
      0  every item is rendered
      1  some item cannot be drawn (one error line each; the others are rendered)
      2  a bad option, or the file cannot be read

    Examples:
      foldsim render-item demo-out/families/spatialviz/spatialviz_items.json --images
          --out demo-out/families/spatialviz-2d
    """
    from ..dataset.media import MediaRequest
    from ..errors import InputError
    from ..io import read_records
    from ..render.item_images import look_of
    from ..sheets import item_from_record

    try:
        request = MediaRequest.of(video=video, frames=frames, images=images, width=width, height=height, fps=fps,
                                  cadence=cadence, seconds_per_action=seconds_per_action,
                                  camera_elevation=elevation, captions=captions)
        records = read_records(file)
    except InputError as error:
        fail(str(error))
    if not request.modalities:
        fail("--video/--frames/--images: ask for at least one modality")
    wanted = {i for chunk in ids for i in chunk.split(",") if i} if ids else None
    opts = request.animation_options() if request.animated else None
    try:
        look_of({}, look)  # an unknown --look is a usage error before any work
    except InputError as error:
        fail(str(error))
    rendered, failed = [], {}
    for index, record in enumerate(records):
        name = f"item {index + 1}"
        if wanted is not None and not (isinstance(record, dict) and record.get("id") in wanted):
            continue
        try:
            item = item_from_record(record, index=index)
            name = item.id or name
            if request.animated:
                from ..render.items import write_item_media

                write_item_media(item, out_dir, opts, item_name=name, video="video" in request.modalities,
                                 frames="frames" in request.modalities, look=look_of(record, look))
            if images:
                from ..render.item_images import write_item_images

                write_item_images(item, out_dir, item_name=name, look=look_of(record, look))
            rendered.append(name)
        except InputError as error:
            failed[error.item or name] = str(error if error.item else error.at(item=name))
    if as_json:
        print_json({"rendered": rendered, "failed": failed})
    else:
        out.print(f"media: {len(rendered)} rendered, {len(failed)} failed", markup=False)
    for reason in failed.values():
        err.print(f"error: {reason}", markup=False)
    raise typer.Exit(1 if failed else 0)
