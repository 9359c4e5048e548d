"""The images of family items, in each benchmark's look (foldsim/render/item_images.py draws them):

- `<id>.png`: the question. SpatialViz and SRBench: the composite as the benchmark prints it, the
  fold steps and the punched paper in the top row, the options A-D / A-C below. VisFactor: the
  steps row alone (each option is asked on its own, yes/no).
- `<id>_<label>.png` (VisFactor): one option, the unfolded sheet with its holes.
- `<id>_steps.png` (SpatialViz, SRBench): the steps row alone, for the open-ended task (no
  options shown); VisFactor's `<id>.png` is already that image.

The file names are the ones the records (`questionImg`, `stepsImg`, `optionImgs`) and the
family's own rows reference. Same record, same bytes. A record family (`RECORD_FAMILIES`) draws
its own (`RecordFamily.images`); its names must be plain PNG file names that start with the item's
id (`<id>.png`, `<id>_<anything>.png`) and that its record's image fields name (`questionImg`,
`stepsImgs`, `optionImgs`): nothing is written outside the folder, over the run's data files or
over another item's images. `generate --family` writes them through
the media machinery (foldsim.dataset.media): per-item manifests, resume, the folder lock, workers, Ray.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, describe
from ..families.base import holes_from_json
from ..families.records import media_fields
from ..io import atomic_write_bytes, safe_file_name
from .media_names import IMAGE_FIELDS


def item_images(record: dict) -> dict[str, bytes]:
    """file name -> PNG bytes of one family record (InputError naming the item when it cannot be
    drawn); a record family's record is drawn by its family (`record_family_images`)."""
    from ..families.registry import RECORD_FAMILIES

    family = record.get("family")
    if isinstance(family, str) and family in RECORD_FAMILIES:
        return record_family_images(RECORD_FAMILIES[family], record)
    from ..render.images import png_bytes
    from ..render.item_geometry import item_trace
    from ..render.item_images import FAMILY_LOOKS, family_composite, family_option_panel, family_step_panels

    item_id = str(record.get("id"))
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


def named_images(record: dict) -> set[str]:
    """The image file names a record's image fields (IMAGE_FIELDS: a name or a list of names) hold."""
    names = set()
    for field in IMAGE_FIELDS:
        value = record.get(field)
        for name in value if isinstance(value, list) else [value]:
            if isinstance(name, str):
                names.add(name)
    return names


def own_image_name(name: object, item_id: str) -> bool:
    """Whether `name` may be one of item `item_id`'s images: a plain PNG file name (`safe_file_name`
    keeps it as it is) that is the id's or starts with the id and one of `_ - .`."""
    return (isinstance(name, str) and name.endswith(".png") and safe_file_name(name) == name
            and (name == f"{item_id}.png" or name[len(item_id):len(item_id) + 1] in ("_", "-", ".")
                 and name.startswith(item_id)))


def record_family_images(fam, record: dict) -> dict[str, bytes]:
    """`fam.images(record)`, each name checked (`own_image_name`, and named by the record's image
    fields); InputError naming the item otherwise."""
    item_id = str(record.get("id"))
    images = fam.images(record)
    named = named_images(record)
    for name, data in images.items():
        if not (own_image_name(name, item_id) and name in named):
            raise InputError(f"{fam.name} drew {describe(name)}: an image must be a PNG file name that starts with "
                             "the item's id and that the record's image fields name", item=item_id, field="images")
        if not isinstance(data, bytes):
            raise InputError(f"{fam.name} drew {describe(name)} as {type(data).__name__}, not PNG bytes",
                             item=item_id, field="images")
    return images


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
