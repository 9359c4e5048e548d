"""Every modality of an item (text grids, 2-D step images, 3-D videos + result image) written into a
dataset folder, in parallel worker processes, resumably: shared by `foldsim generate` and
`foldsim render`.

Layout (the benchmark's, formats §1.2 and §5), under the dataset root:
    paper_structure.png                           the numbered sheet, once per folder
    folding_videos/PF_<n>_animation.mp4           --video
    unfolding_videos/UP_<n>_animation.mp4         --video
    prediction_results/PFHP_<n>_result.png        --video
    img_text_outputs/<id>/img/<id>_fold_<i>_<foldType>.png ...   --images
    img_text_outputs/<id>/text/<id>_textual_steps.txt ...        --text
    manifest/<id>.json                            what was written for the item, and how

Resuming: an item is skipped when its manifest covers the requested modalities (and the same video
options) and every file it lists exists; the manifest is written atomically once the item's files
are all in place, so an interrupted item is simply rendered again.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from ..errors import InputError
from ..io import atomic_write_json
from ..progress import counting_bar
from ..render.images import write_images, write_numbered_sheet
from ..render.text import write_text
from ..simulate import simulate
from ..trace import trace

if TYPE_CHECKING:
    from ..render.animation import AnimationOptions

MODALITIES = ("video", "images", "text")
MANIFEST_DIR = "manifest"
SHEET_FILE = "paper_structure.png"
#: ids become file and folder names, so they are kept to a safe alphabet
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


@dataclass(frozen=True)
class MediaRequest:
    """Which modalities to write, and the video options (AnimationOptions field overrides, kept as
    plain data so the request pickles to workers and compares in the manifest)."""

    modalities: tuple[str, ...]
    animation: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        unknown = [m for m in self.modalities if m not in MODALITIES]
        if unknown:
            raise InputError(f"unknown modality {unknown[0]!r} (expected {', '.join(MODALITIES)})", field="modalities")

    @classmethod
    def of(cls, *, video: bool = False, images: bool = False, text: bool = False, **animation: object) -> "MediaRequest":
        """MediaRequest.of(video=True, text=True, width=320, height=240, fps=12); None values mean
        the AnimationOptions default. Bad sizes raise an InputError naming the option."""
        animation = {k: v for k, v in animation.items() if v is not None}
        for name in ("width", "height", "fps"):
            if name in animation:
                check_video_option(name, animation[name])
        wanted = {"video": video, "images": images, "text": text}
        return cls(tuple(m for m in MODALITIES if wanted[m]), tuple(sorted(animation.items())))

    def animation_options(self) -> "AnimationOptions":
        from ..render.animation import AnimationOptions  # imported on use: it starts pyrender/EGL

        return AnimationOptions(**dict(self.animation))

    def video_signature(self) -> dict | None:
        """What must match for existing videos to count as done (as it reads back from JSON)."""
        return json.loads(json.dumps(dict(self.animation))) if "video" in self.modalities else None


@dataclass
class RenderReport:
    """Item ids by outcome: rendered now, skipped (already complete), failed (id -> one-line reason)."""

    rendered: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    def summary(self) -> dict:
        return {"rendered": len(self.rendered), "skipped": len(self.skipped), "failed": self.failed}


def check_video_option(name: str, value: object) -> None:
    """Frame sizes must be even (yuv420p H.264), frame rates positive; InputError names the option."""
    integer = isinstance(value, int) and not isinstance(value, bool)
    if name == "fps":
        ok, rule = integer and value >= 1, "a positive integer"
    else:
        ok, rule = integer and value >= 2 and value % 2 == 0, "an even integer of at least 2"
    if not ok:
        raise InputError(f"must be {rule}, got {value!r}", field=f"--{name}")


def default_workers() -> int:
    """Worker processes for rendering: two, or fewer on a smaller machine."""
    return max(1, min(2, os.cpu_count() or 1))


# -- names ----------------------------------------------------------------------------------------------


def asset_fields(item_id: str) -> dict:
    """The record's media fields for an item id (foldingVideo ... resultImg), relative to the
    dataset root; the names come from the animation module that writes the files."""
    from ..render.animation import video_number, video_paths

    paths = video_paths(Path(), item_id)
    n = video_number(item_id)
    return {
        "foldingVideo": paths["folding"].as_posix(),
        "foldingFramesDir": f"folding_frames/PF_{n}",
        "unfoldingVideo": paths["unfolding"].as_posix(),
        "unfoldingFramesDir": f"unfolding_frames/UP_{n}",
        "resultImg": paths["result"].as_posix(),
    }


def manifest_path(out_dir: str | Path, item_id: str) -> Path:
    return Path(out_dir) / MANIFEST_DIR / f"{item_id}.json"


# -- one item (runs in a worker process) -----------------------------------------------------------------


def render_item(record: dict, out_dir: str, request: MediaRequest) -> list[str]:
    """Write the requested modalities of one record; returns the files written, relative to
    `out_dir`. Raises (InputError or ValueError) for an item the simulator cannot answer."""
    item_id = str(record["id"])
    history = trace(record)
    written: list[Path] = []
    if "text" in request.modalities:
        written += write_text(history, out_dir, item_id)
    if "images" in request.modalities:
        written += write_images(history, out_dir, item_id)
    if "video" in request.modalities:
        from ..render.animation import write_videos  # imported on use: it starts pyrender/EGL

        written += write_videos(history, out_dir, item_id, request.animation_options()).values()
    root = Path(out_dir)
    return [Path(p).relative_to(root).as_posix() for p in written]


def is_done(out_dir: str | Path, item_id: str, request: MediaRequest) -> bool:
    """Whether an earlier run already wrote everything `request` asks for this item."""
    try:
        entry = json.loads(manifest_path(out_dir, item_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not set(request.modalities) <= set(entry.get("modalities", ())):
        return False
    if "video" in request.modalities and entry.get("animation") != request.video_signature():
        return False
    return all((Path(out_dir) / name).is_file() for name in entry.get("files", ()))


def write_manifest(out_dir: str | Path, item_id: str, request: MediaRequest, files: Sequence[str]) -> None:
    """Record, atomically, that an item's files are complete."""
    atomic_write_json(manifest_path(out_dir, item_id), {
        "id": item_id, "modalities": list(request.modalities), "animation": request.video_signature(),
        "files": list(files)})


def write_sheet(out_dir: str | Path) -> Path:
    """The numbered sheet (`paper_structure.png`), written once per dataset folder."""
    path = Path(out_dir) / SHEET_FILE
    return path if path.is_file() else write_numbered_sheet(path)


# -- many items ----------------------------------------------------------------------------------------


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _run_jobs(records: Sequence[dict], out_dir: str, request: MediaRequest,
              workers: int) -> Iterable[tuple[str, list[str] | BaseException]]:
    """(id, files or the error) per record, as they finish: in this process for one worker, else in a
    pool of spawned processes (JAX and EGL do not survive fork)."""
    if workers <= 1 or len(records) <= 1:
        for record in records:
            try:
                yield str(record["id"]), render_item(record, out_dir, request)
            except Exception as error:  # one bad item never aborts the batch
                yield str(record["id"]), error
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(render_item, record, out_dir, request): str(record["id"]) for record in records}
        try:
            for future in as_completed(futures):
                error = future.exception()
                yield futures[future], error if error is not None else future.result()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def render_items(records: Sequence[dict], out_dir: str | Path, request: MediaRequest, *, workers: int = 1,
                 console: Console | None = None) -> RenderReport:
    """Render every record that is not already complete; failures are reported, never fatal.

    Records must simulate (see `renderable`). The manifest of each item is written as soon as the
    item is finished, so an interrupted run resumes where it stopped.
    """
    out_dir = Path(out_dir)
    report = RenderReport()
    if not request.modalities:
        return report
    out_dir.mkdir(parents=True, exist_ok=True)
    write_sheet(out_dir)
    done = [is_done(out_dir, str(record["id"]), request) for record in records]
    report.skipped = [str(r["id"]) for r, d in zip(records, done) if d]
    todo = [r for r, d in zip(records, done) if not d]
    bar, advance = counting_bar(f"rendering {'+'.join(request.modalities)}", "items", len(todo), console)
    with bar:
        for item_id, outcome in _run_jobs(todo, str(out_dir), request, workers):
            if isinstance(outcome, BaseException):
                report.failed[item_id] = _first_line(outcome)
            else:
                write_manifest(out_dir, item_id, request, outcome)
                report.rendered.append(item_id)
            advance(1)
    return report


def renderable(records: Sequence[object], ids: Sequence[str] | None = None) -> tuple[list[dict], dict[str, str]]:
    """The records (optionally only `ids`) that can be drawn, and why each other one cannot: bad
    input, a fold the paper cannot make, a punch off the paper, an id unfit for file names, a
    duplicate id, or an id not in the file. The check is one batched simulation."""
    failed: dict[str, str] = {}
    if ids is not None:
        present = {str(r.get("id")) for r in records if isinstance(r, dict)}
        failed.update({i: "not in the file" for i in ids if i not in present})
        wanted = set(ids)
        records = [r for r in records if isinstance(r, dict) and str(r.get("id")) in wanted]
    results = simulate(records)
    ok, seen = [], set()
    for index, (record, result) in enumerate(zip(records, results)):
        item_id = str(result.id) if result.id is not None else f"item {index}"
        if not result.ok:
            failed[item_id] = result.reason.removeprefix(f"{item_id}: ")
        elif record.get("id") is None:
            failed[item_id] = "id: missing (it names the item's files)"
        elif not SAFE_ID.fullmatch(item_id):
            failed[item_id] = "id: cannot be used in file names (letters, digits, _ . - only)"
        elif item_id in seen:
            failed[item_id] = "id: appears more than once in the file"
        else:
            seen.add(item_id)
            ok.append(record)
    return ok, failed
