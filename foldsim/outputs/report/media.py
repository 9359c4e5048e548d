"""An item's step media for the page: found in the dataset folder where `foldsim generate`/`render`
wrote them (2-D step images, text grids, the 3-D result image and videos), or drawn on the fly with
foldsim.render for small datasets; then embedded as data URIs (within a size budget, so a page stays
openable) or copied beside the page (`--assets`).

Only files inside the dataset folder are read: an id or a record field that points elsewhere
(`../..`) finds nothing.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from urllib.parse import quote
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import InputError
from ...mentalblackboard_sheet import SHEET
from ...io import atomic_write_bytes, safe_file_name  # the one sanitiser of file names from data
from ...render.images import ImageStyle, image_dir, png_bytes, step_images
from ...render.text import steps_text, text_dir
from ...trace import trace

#: the drawn step images: the benchmark's 900x750 layout at 40 % (legend text scaled alike)
DRAWN_STYLE = ImageStyle(width=360, height=300, supersample=2, font_size=7.2, edge_width=1.0)
#: record fields naming media files, relative to the dataset folder, and their captions
RECORD_MEDIA = {"resultImg": "result (3-D)", "foldingVideo": "folding video", "unfoldingVideo": "unfolding video",
                "questionImg": "question (choice)", "optionImg": "option (split row)",
                "stepsImg": "fold steps and punch"}
#: a record field naming one image per option label (the choice tasks)
OPTION_IMAGES = "optionImgs"
_STEP_RE = re.compile(r"_fold_(\d+)_[^/]*\.png$")
TEXT_CHARS = 20_000  # a text grid longer than this is cut (it is a few hundred characters normally)


@dataclass(frozen=True)
class Medium:
    """One picture, video or text grid of an item: a file in the dataset folder or drawn bytes."""

    caption: str
    kind: str  # "image", "video" or "text"
    name: str  # file name, unique within the item
    source: Path | None = None
    data: bytes | None = None
    step: bool = False  # one of the 2-D step images

    def read(self) -> bytes:
        return self.data if self.data is not None else self.source.read_bytes()

    @property
    def size(self) -> int:
        return len(self.data) if self.data is not None else self.source.stat().st_size


@dataclass
class ItemMedia:
    """What an item shows: its media, and a note for what could not be shown."""

    media: list[Medium] = field(default_factory=list)
    note: str = ""


def inside(root: Path, relative: str | Path) -> Path | None:
    """root / relative when that is an existing file inside root, else None."""
    try:
        path = (root / relative).resolve()
        return path if path.is_file() and path.is_relative_to(root.resolve()) else None
    except (OSError, ValueError):
        return None


def _is_folder_inside(root: Path, folder: Path) -> bool:
    try:
        return folder.is_dir() and folder.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def _step_order(name: str) -> tuple[int, int]:
    """Initial and actions by number, then punching, then result."""
    match = _STEP_RE.search(name)
    if match:
        return 0, int(match.group(1))
    return (1, 0) if name.endswith("_punching_holes.png") else (2, 0)


def _step_caption(name: str, item_id: str) -> str:
    stem = name.removeprefix(f"{item_id}_").removesuffix(".png")
    match = re.fullmatch(r"fold_(\d+)_(.*)", stem)
    if match:
        return "initial" if match.group(2) == "initial" else f"{match.group(1)}: {match.group(2).replace('_', ' ')}"
    return stem.replace("_holes", "").replace("_", " ")


def found_media(root: Path, record: object, item_id: str) -> list[Medium]:
    """The media of an item already in the dataset folder, in the order a reader wants them."""
    media = []
    folder = root / image_dir(Path(), item_id)
    if _is_folder_inside(root, folder):
        for path in sorted(folder.glob("*.png"), key=lambda p: _step_order(p.name)):
            media.append(Medium(_step_caption(path.name, item_id), "image", path.name, path, step=True))
    steps = inside(root, text_dir(Path(), item_id) / f"{item_id}_textual_steps.txt")
    if steps is not None:
        media.append(Medium("text grids", "text", steps.name, steps))
    if isinstance(record, dict):
        named = [(key, caption, record.get(key)) for key, caption in RECORD_MEDIA.items()]
        options = record.get(OPTION_IMAGES)
        if isinstance(options, list):  # family records: one image per option, labels A, B, ... in order
            options = {chr(ord("A") + k): value for k, value in enumerate(options[:26])}
        if isinstance(options, dict):
            named += [(f"option-{label}", f"option {label}", value) for label, value in options.items() if str(label).isalnum()]
        if record.get("stepsImg") == record.get("questionImg"):  # VisFactor: the question is the steps image
            named = [n for n in named if n[0] != "stepsImg"]
        for key, caption, value in named:
            path = inside(root, value) if isinstance(value, str) and value else None
            if path is not None:
                kind = "video" if path.suffix.lower() in (".mp4", ".webm") else "image"
                media.append(Medium(caption, kind, f"{key}{path.suffix.lower()}", path))
    return media


def drawn_media(record: object, item_id: str) -> list[Medium]:
    """The 2-D step images and text grids of an item, drawn now. Raises InputError or ValueError
    for an item the simulator cannot draw."""
    history = trace(record)
    media = [Medium(_step_caption(name, item_id), "image", name, data=png_bytes(image), step=True)
             for name, image in step_images(history, item_id, DRAWN_STYLE, sheet=SHEET)]
    media.append(Medium("text grids", "text", f"{item_id}_textual_steps.txt",
                        data=steps_text(history, sheet=SHEET).encode()))
    return media


def item_media(root: Path, record: object, item_id: str, *, draw: bool) -> ItemMedia:
    """The dataset folder's media for an item; drawn ones when it has no step images and `draw`."""
    found = found_media(root, record, item_id)
    if any(m.step for m in found) or not draw:
        note = "" if found or draw else "no media in the dataset folder"
        return ItemMedia(found, note)
    try:
        drawn = drawn_media(record, item_id)
    except (InputError, ValueError) as err:
        return ItemMedia(found, f"step images cannot be drawn: {err}")
    names = {m.name for m in found}
    return ItemMedia([*(m for m in drawn if m.name not in names), *found])


# --------------------------------------------------------------------------------------------------
# where the bytes go


def data_uri(data: bytes, name: str) -> str:
    mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


class InlineSink:
    """Media as data URIs, until `budget` bytes of them are in the page: past it, media are left
    out (and the page says so) so a big dataset still makes a page a browser opens."""

    def __init__(self, budget: int):
        self.budget = budget
        self.used = 0
        self.left_out = 0

    def url(self, item_key: str, medium: Medium) -> str | None:
        size = medium.size
        if self.used + size > self.budget:
            self.left_out += 1
            return None
        self.used += size
        return data_uri(medium.read(), medium.name)


class AssetSink:
    """Media as files in a folder beside the page, linked by relative URL (no size bound). Every
    file lands in `<folder>/<item key>/` under a safe, unique name."""

    def __init__(self, folder: Path, page: Path):
        self.folder = folder
        self.relative = folder.relative_to(page.parent).as_posix()
        self.left_out = 0
        self.used: set[tuple[str, str]] = set()

    def url(self, item_key: str, medium: Medium) -> str | None:
        name = safe_file_name(medium.name)
        stem, dot, suffix = name.rpartition(".")
        number = 1
        while (item_key, name) in self.used:
            number += 1
            name = f"{stem}-{number}.{suffix}" if dot else f"{name}-{number}"
        self.used.add((item_key, name))
        atomic_write_bytes(self.folder / safe_file_name(item_key) / name, medium.read())
        return f"{quote(self.relative)}/{quote(safe_file_name(item_key))}/{quote(name)}"
