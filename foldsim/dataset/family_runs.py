"""Writing a sampled family's run (`foldsim generate --family spatialviz|visfactor|srbench`): the
records of `foldsim.families.generate.generate_family`, the family's own file, the yes/no rows, the
splits and the images, through the media machinery of `foldsim generate --task`."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from ..families.base import Family
from ..families.generate import generate_family
from ..families.records import split_records
from ..io import atomic_write_text
from ..progress import counting_bar
from .media import MediaRequest, RenderReport, listed, open_output
from .splits import add_splits


def items_file_name(fam: Family) -> str:
    return f"{fam.name}_items.json"


def write_json_list(path, rows: list, out_dir) -> None:
    """A JSON list written atomically; an InputError naming --out when the folder refuses it."""
    try:
        atomic_write_text(path, json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    except OSError as err:
        raise InputError(f"cannot write into {out_dir}: {err.strerror or err}", field="--out") from None


def write_native_and_media(out: Path, folder, records: list, write_items, native_path: Path, native_text: str, *,
                           media: bool, workers: int, backend: str, address: str | None, console,
                           source: str) -> RenderReport:
    """What every family's run does once its records are made: the items written naming no image
    yet, the family's own file, then (with `media`) the images through the media machinery and the
    items again, naming the images their manifests vouch for. Returns the RenderReport."""
    write_items({})  # before drawing: no image is vouched for yet
    try:
        atomic_write_text(native_path, native_text)
    except OSError as err:
        raise InputError(f"cannot write into {out}: {err.strerror or err}", field="--out") from None
    report = RenderReport(removed_temps=folder.removed_temps)
    if media:
        report = folder.render(records, workers=workers, backend=backend, address=address, console=console,
                               source=source, sheet=False)
        write_items(folder.manifests)
    return report


def write_sampled_run(fam: Family, out_dir, count: int, seed: int, level: str | None = None, *, console=None,
                      media: bool = True, splits=(), workers: int = 1, backend: str = "local",
                      address: str | None = None, first_id: int = 1):
    """`generate --family NAME` of a family that samples its items (`generate_family`): the items
    written atomically as foldsim's machine-readable items (`<family>_items.json`) and the family's own
    format (`native_file`); a yes/no family also its rows in foldsim's split format
    (`<family>_split.json`); `media`: the images (foldsim.dataset.family_media) through the media
    machinery of `foldsim generate --task` (foldsim.dataset.media): the folder checked and locked
    before any work, per-item manifests, resume, `workers` local processes or Ray tasks (`backend`,
    `address`). The items file names an image only where the item's verified manifest lists it
    (`foldsim.dataset.media.listed`). Returns ({items, native[, split], count, images}, the RenderReport)."""
    if first_id != 1:
        raise InputError(f"is not used with --family {fam.name} (ids are {fam.name}_<n>)", field="--first-id")
    if level is not None:
        fam.level(level)
    out = Path(out_dir)
    items_path, native_path = out / items_file_name(fam), out / fam.native_file
    split_path = out / f"{fam.name}_split.json"
    request = MediaRequest.of(family=media)
    with open_output(out, request, (items_path.name, native_path.name, split_path.name)) as folder:
        bar, advance = counting_bar(f"generating {fam.name}", "items", total=count, console=console)
        with bar:
            records = generate_family(fam, count, seed, level, on_progress=advance)
        if splits:  # leak-free: items equal under the rectangle's symmetries share a split
            add_splits(records, splits)
        native = [row for r in records for row in r["native"]]
        yes_no = fam.task_type == "YesNo"

        def write_items(manifests: dict) -> None:
            """The items (and split rows) naming only the images the manifests vouch for."""
            named = [listed(r, manifests.get(r["id"])) for r in records]
            write_json_list(items_path, named, out)
            if yes_no:
                rows = []
                for record in named:
                    for row in split_records(record):
                        row = {k: v for k, v in row.items() if not (k.endswith("Img") and v is None)}
                        if record.get("split") is not None:
                            row["split"] = record["split"]
                        rows.append(row)
                write_json_list(split_path, rows, out)

        report = write_native_and_media(out, folder, records, write_items, native_path, fam.native_text(native),
                                        media=media, workers=workers, backend=backend, address=address,
                                        console=console, source=items_path.name)
    images = sum(len(m.files(["family"])) for m in folder.manifests.values()) if media else 0
    written = {"items": str(items_path), "native": str(native_path), "count": len(records), "images": images}
    if yes_no:
        written["split"] = str(split_path)
    return written, report
