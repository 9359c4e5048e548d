"""The images of family items, in each benchmark's look (foldsim/render/item_images.py draws them):

- `<id>.png`: the question. SpatialViz and SRBench: the composite as the benchmark prints it, the
  fold steps and the punched paper in the top row, the options A-D / A-C below. VisFactor: the
  steps row alone (each option is asked on its own, yes/no).
- `<id>_<label>.png` (VisFactor): one option, the unfolded sheet with its holes.
- `<id>_steps.png` (SpatialViz, SRBench): the steps row alone, for the open-ended task (no
  options shown); VisFactor's `<id>.png` is already that image.

The file names are the ones the records (`questionImg`, `stepsImg`, `optionImgs`) and the
family's own rows reference. Same record, same bytes. `generate --family` writes them through
the media machinery (foldsim.dataset.media): per-item manifests, resume, the folder lock, workers, Ray.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..families.base import holes_from_json
from ..families.records import media_fields
from ..io import atomic_write_bytes




def item_images(record: dict) -> dict[str, bytes]:
    """file name -> PNG bytes of one family record (InputError naming the item when it cannot be
    drawn)."""
    from ..render.images import png_bytes
    from ..render.item_geometry import item_trace
    from ..render.item_images import FAMILY_LOOKS, family_composite, family_option_panel, family_step_panels

    item_id = str(record.get("id"))
    family = record.get("family")
    if family not in FAMILY_LOOKS:
        raise InputError(f"no family look for {family!r}", item=item_id, field="family")
    look = FAMILY_LOOKS[family]
    trace = item_trace(record["item"])
    options = [(str(o["label"]), holes_from_json(o["resultHoles"], f"options[{i}].resultHoles"))
               for i, o in enumerate(record["options"])]
    steps = family_step_panels(trace, look)
    names = media_fields(family, item_id, [label for label, _ in options])
    out = {}
    if family == "visfactor":
        out[names["questionImg"]] = png_bytes(family_composite(trace, [], look, steps))
        for (label, holes), name in zip(options, names["optionImgs"], strict=True):
            out[name] = png_bytes(family_option_panel(trace, holes, look))
    else:
        out[names["questionImg"]] = png_bytes(family_composite(trace, options, look, steps))
        out[names["stepsImg"]] = png_bytes(family_composite(trace, [], look, steps))
    return out


def write_record_images(record: dict, out_dir: str | Path) -> list[Path]:
    """Draw one record's images into `out_dir` (atomic writes); returns their paths. Called per item
    by the media machinery (`foldsim.dataset.media.render_item`, modality "family"), which lists
    them in the item's manifest: resume, workers and Ray as for MentalBlackboard's media."""
    out = Path(out_dir)
    paths = []
    for name, data in item_images(record).items():
        atomic_write_bytes(out / name, data)
        paths.append(out / name)
    return paths
