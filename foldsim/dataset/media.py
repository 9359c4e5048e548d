"""Every modality of an item (text grids, 2-D step images, 3-D videos, 3-D frames, result image)
written into a dataset folder, in parallel (local processes or Ray tasks), resumably and without
ever mixing runs: shared by `foldsim generate` and `foldsim render`.

Layout (the benchmark's, formats §1.2 and §5), under the dataset root:
    paper_structure.png                           the numbered sheet, once per folder
    folding_videos/PF_<n>_animation.mp4           --video
    unfolding_videos/UP_<n>_animation.mp4         --video
    folding_frames/PF_<n>/frame_0000.png ...      --frames
    unfolding_frames/UP_<n>/frame_0000.png ...    --frames
    prediction_results/PFHP_<n>_result.png        --video or --frames
    img_text_outputs/<id>/img/<id>_fold_<i>_<foldType>.png ...   --images
    img_text_outputs/<id>/text/<id>_textual_steps.txt ...        --text
    <id>.png, <id>_steps.png, <id>_<label>.png    `generate --family` (foldsim.dataset.family_media)
    manifest/<id>.json                            what was written for the item, from what, and how
    .foldsim.lock                                 only while a run writes into the folder (removed at its end)

Resume that cannot lie. An item's manifest holds a content hash of its record (media fields
aside), the file it came from, and per modality the hash of the media options and the size and
SHA-256 of every file written. A modality counts as done only if all of these still match: another
seed, an edited record or other options re-render it (and its stale files are removed first); a
truncated or altered file re-renders it. Manifests are written once an item's files are all in
place, so an interrupted item is simply rendered again. Before any work: the output paths are
checked (a folder where folders go, writable, not full), a lock on the folder makes a second
concurrent run refuse, and temp files left by a killed run (`.<name>.<random>.tmp`) are removed.
A record lists a media field only for files that are verifiably there (`listed`).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from ..errors import InputError
from ..mentalblackboard_sheet import SHEET
from ..io import atomic_write_json, record_name
from ..progress import counting_bar
from ..render.images import write_images, write_numbered_sheet
from ..render.text import write_text
from ..simulate import simulate
from ..trace import trace
from .manifests import (  # noqa: F401  (public here too)
    ANIMATED, CHOICE_TASK_TYPES, MANIFEST_DIR, Manifest, content_hash, file_entry, listed, listed_records, manifest_path,
    record_hash,
)
from .media_names import ASSET_FIELDS, IMAGE_FIELDS, MEDIA_FIELDS, asset_fields, asset_paths  # noqa: F401  (public here too)

if TYPE_CHECKING:
    from ..render.animation import AnimationOptions

MODALITIES = ("video", "frames", "images", "text", "family")
BACKENDS = ("local", "ray")
CADENCES = ("reference", "smooth")
CAPTION_STYLES = ("codes", "words", "none")
SHEET_FILE = "paper_structure.png"
LOCK_FILE = ".foldsim.lock"
#: the folders a dataset writes into (checked before any work, swept for stale temp files)
MEDIA_DIRS = ("folding_videos", "unfolding_videos", "folding_frames", "unfolding_frames", "prediction_results",
              "img_text_outputs", MANIFEST_DIR)
#: ids become file and folder names, so they are kept to a safe alphabet
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
#: temp files and folders of foldsim's atomic writes (`.<name>.<8 random characters>.tmp`), and the
#: MP4 temp files of earlier versions (`.<stem>.<8 random>.mp4`)
STALE_TEMP = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.tmp|\..+_animation\.[A-Za-z0-9_]{8}\.mp4")
#: errors of the output itself, not of an item: the run stops with one line instead of failing every item
FATAL_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.EPERM}
MIN_FREE_BYTES = 16 * 2**20  # below this, a run refuses to start: nothing could be written
#: CLI spellings of AnimationOptions fields, for error messages
OPTION_FLAGS = {"fps": "--folding-fps", "unfolding_fps": "--unfolding-fps", "camera_elevation": "--elevation",
                "seconds_per_action": "--seconds-per-action", "captions": "--captions", "cadence": "--cadence",
                "width": "--width", "height": "--height"}


@dataclass(frozen=True)
class MediaRequest:
    """Which modalities to write, and the 3-D options (AnimationOptions field overrides, the cadence
    included, kept as plain data so the request pickles to workers and hashes into manifests)."""

    modalities: tuple[str, ...]
    animation: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        unknown = [m for m in self.modalities if m not in MODALITIES]
        if unknown:
            raise InputError(f"unknown modality {unknown[0]!r} (expected {', '.join(MODALITIES)})", field="modalities")

    @classmethod
    def of(cls, *, video: bool = False, frames: bool = False, images: bool = False, text: bool = False,
           family: bool = False, cadence: str | None = None, fps: int | None = None, **animation: object) -> "MediaRequest":
        """MediaRequest.of(video=True, frames=True, width=320, height=240, cadence="smooth", fps=12).

        `cadence`: reference (default) or smooth (`AnimationOptions.preset`); `fps` sets both videos'
        rate (folding_fps / unfolding_fps override each); other keywords are AnimationOptions fields;
        None values mean the cadence's default. Bad values raise an InputError naming the option as
        the command line spells it (the 3-D renderer is imported only when a 3-D modality is asked)."""
        cadence = cadence or "reference"
        if cadence not in CADENCES:
            raise InputError(f"unknown cadence {cadence!r} (expected {' or '.join(CADENCES)})", field="--cadence")
        folding_fps, unfolding_fps = animation.pop("folding_fps", None), animation.pop("unfolding_fps", None)
        if fps is not None:  # --fps is the rate of both videos: named as typed, not as the field it sets
            check_video_option("fps", fps, option="--fps")
            folding_fps = fps if folding_fps is None else folding_fps
            unfolding_fps = fps if unfolding_fps is None else unfolding_fps
        animation.update(fps=folding_fps, unfolding_fps=unfolding_fps)
        overrides = {k: v for k, v in animation.items() if v is not None}
        for name in ("width", "height", "fps", "unfolding_fps"):
            if name in overrides:
                check_video_option(name, overrides[name])
        if cadence == "reference" and "seconds_per_action" in overrides:
            raise InputError("only the smooth cadence has it (the reference cadence has fixed frames per action)",
                             field="--seconds-per-action")
        if "captions" in overrides and overrides["captions"] not in CAPTION_STYLES:
            raise InputError(f"unknown caption style {overrides['captions']!r} (expected one of "
                             f"{', '.join(CAPTION_STYLES)})", field="--captions")
        wanted = {"video": video, "frames": frames, "images": images, "text": text, "family": family}
        request = cls(tuple(m for m in MODALITIES if wanted[m]),
                      tuple(sorted({**overrides, "cadence": cadence}.items())))
        if request.animated:
            request.animation_options()  # validates every 3-D option now, before any work
        return request

    @property
    def animated(self) -> bool:
        return any(m in ANIMATED for m in self.modalities)

    def animation_options(self) -> "AnimationOptions":
        """The 3-D options; an InputError names the command-line option that is wrong."""
        from ..render.animation import AnimationOptions  # imported on use: it starts pyrender/EGL

        try:
            return AnimationOptions.preset(**dict(self.animation))
        except InputError as error:
            name = error.field or ""
            raise InputError(error.message, field=OPTION_FLAGS.get(name, f"--{name.replace('_', '-')}")) from None

    def options_hash(self, modality: str) -> str | None:
        """What must match for a modality's files to count as done: the full 3-D options for video and
        frames (every field, defaults included, so a changed default re-renders), nothing otherwise."""
        if modality not in ANIMATED:
            return None
        from dataclasses import asdict

        return content_hash(asdict(self.animation_options()))


@dataclass
class RenderReport:
    """Item ids by outcome: rendered now, skipped (already complete), failed (id -> one-line reason);
    the stale temp files removed before starting; `fatal`: why the run stopped early (the output
    itself failed: full, read-only), or None."""

    rendered: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    removed_temps: int = 0
    fatal: str | None = None

    def summary(self) -> dict:
        summary = {"rendered": len(self.rendered), "skipped": len(self.skipped), "failed": self.failed}
        if self.fatal:
            summary["fatal"] = self.fatal
        return summary


def check_video_option(name: str, value: object, *, option: str | None = None) -> None:
    """Frame sizes must be even (yuv420p H.264), frame rates positive; InputError names the option
    (`option`, else the command-line spelling of the AnimationOptions field `name`)."""
    integer = isinstance(value, int) and not isinstance(value, bool)
    if name in ("fps", "unfolding_fps"):
        ok, rule = integer and value >= 1, "a positive integer"
    else:
        ok, rule = integer and value >= 2 and value % 2 == 0, "an even integer of at least 2"
    if not ok:
        raise InputError(f"must be {rule}, got {value!r}", field=option or OPTION_FLAGS.get(name, f"--{name}"))


def default_workers() -> int:
    """Worker processes for rendering: two, or fewer on a smaller machine."""
    return max(1, min(2, os.cpu_count() or 1))


# -- manifests ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemPlan:
    """What to do for one record: the modalities to render now and the manifest entries kept."""

    record: dict
    todo: tuple[str, ...]
    kept: Manifest


def plan_item(out_dir: Path, record: dict, request: MediaRequest, options: dict[str, str | None],
              source: str | None) -> ItemPlan | str:
    """Compare an item's manifest with its record and the request; remove the files of entries that
    no longer hold (another record, other options, a changed file) unless a valid entry lists them.
    Returns the plan, or why the item must not be touched (its media belong to another data file)."""
    item_id = str(record["id"])
    digest = record_hash(record)
    old = Manifest.read(out_dir, item_id)
    if old is not None and old.record != digest and old.source and source and old.source != source:
        return (f"this folder holds the media of another item {item_id}, from {old.source}; "
                f"write {source}'s media into another folder")
    kept = Manifest(item_id, digest, source)
    stale: set[str] = set()
    if old is not None:
        for modality, entry in old.modalities.items():
            hash_now = options.get(modality) if modality in request.modalities else (entry or {}).get("options")
            if old.record == digest and modality in MODALITIES and old.valid(out_dir, modality, hash_now):
                kept.modalities[modality] = entry
            else:
                stale |= old.files([modality])
    for name in sorted(stale - kept.files(kept.modalities)):
        _remove(out_dir / name)
    if old is None or kept.modalities != old.modalities or old.record != digest or old.source != source:
        if kept.modalities:
            kept.write(out_dir)
        else:
            manifest_path(out_dir, item_id).unlink(missing_ok=True)
    todo = tuple(m for m in request.modalities if m not in kept.modalities)
    return ItemPlan(record, todo, kept)


def _remove(path: Path) -> None:
    """Remove a stale file, and its folder when that is a frames folder left empty."""
    path.unlink(missing_ok=True)
    parent = path.parent
    if parent.parent.name in ("folding_frames", "unfolding_frames"):
        try:
            parent.rmdir()
        except OSError:
            pass


# -- one item (runs in a worker process or a Ray task) ---------------------------------------------------


def render_item(record: dict, out_dir: str, todo: Sequence[str], request: MediaRequest) -> dict[str, dict]:
    """Write the modalities `todo` of one record; returns the manifest entries of what was written
    ({modality: {"options", "files": {relative path: [size, sha256]}}}). Raises (InputError,
    ValueError, OSError) for an item that cannot be drawn or written."""
    root = Path(out_dir)
    item_id = str(record["id"])
    written: dict[str, list[Path]] = {}
    if "family" in todo:  # a family item's images in its benchmark's look (docs/families.md)
        from .family_media import write_record_images

        written["family"] = write_record_images(record, root)
        todo = [m for m in todo if m != "family"]
    if not todo:
        pass
    elif record.get("taskType") in CHOICE_TASK_TYPES:  # their own media (foldsim.render.choice)
        from ..render.choice import render_choice_media

        opts = request.animation_options() if "video" in todo else None
        for modality in todo:
            if modality == "frames":
                raise InputError("frames are not drawn for choice tasks (their videos show no unfolding)",
                                 item=item_id)
            written[modality] = render_choice_media(record, root, (modality,), opts, sheet=SHEET)
    else:
        history = trace(record)
        if "text" in todo:
            written["text"] = write_text(history, root, item_id, sheet=SHEET)
        if "images" in todo:
            written["images"] = write_images(history, root, item_id, sheet=SHEET)
        animated = [m for m in ANIMATED if m in todo]
        if animated:
            from ..render.animation import write_media  # imported on use: it starts pyrender/EGL

            paths = write_media(history, root, item_id, request.animation_options(), sheet=SHEET,
                                video="video" in animated, frames="frames" in animated)
            if "video" in animated:
                written["video"] = [paths["folding"], paths["unfolding"], paths["result"]]
            if "frames" in animated:
                folders = [paths["folding_frames"], paths["unfolding_frames"]]
                written["frames"] = [*(f for folder in folders for f in sorted(folder.iterdir())), paths["result"]]
    return {modality: {"options": request.options_hash(modality),
                       "files": {Path(p).relative_to(root).as_posix(): file_entry(Path(p)) for p in paths}}
            for modality, paths in written.items()}


def write_sheet(out_dir: str | Path) -> Path:
    """The numbered sheet (`paper_structure.png`), rewritten atomically by every run (it is small and
    deterministic, so a damaged copy never survives a run)."""
    return write_numbered_sheet(Path(out_dir) / SHEET_FILE, sheet=SHEET)


# -- the output folder ----------------------------------------------------------------------------------


def check_output(out_dir: Path, request: MediaRequest, data_files: Sequence[str] = ()) -> None:
    """Before any work: the folder exists or can be made, is a folder, is writable and not full, and
    nothing where a folder or file goes is of the other kind. InputError names the path."""
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError("is a file, where the output folder should be", item=str(out_dir))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the output folder: {error.strerror}", item=str(out_dir)) from None
    for name in MEDIA_DIRS:
        if (out_dir / name).exists() and not (out_dir / name).is_dir():
            raise InputError("is a file, where a folder should be", item=str(out_dir / name))
    for name in (*data_files, SHEET_FILE):
        if (out_dir / name).is_dir():
            raise InputError("is a folder, where a file should be", item=str(out_dir / name))
    probe = out_dir / f".foldsim-probe.{os.getpid()}.tmp"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise InputError(f"cannot write into the output folder: {error.strerror}", item=str(out_dir)) from None
    free = shutil.disk_usage(out_dir).free
    if free < MIN_FREE_BYTES:
        raise InputError(f"no space left on the device ({free:,} bytes free)", item=str(out_dir))


@dataclass
class OutputFolder:
    """A dataset folder this process holds the lock of (see `open_output`)."""

    path: Path
    request: MediaRequest
    removed_temps: int = 0
    manifests: dict[str, Manifest] = field(default_factory=dict)  # verified, by id, after `render`

    def listed_records(self, records: Sequence[dict]) -> list[dict]:
        """The records with the media fields the last `render` verified (see `listed`)."""
        return listed_records(records, self.manifests)

    def render(self, records: Sequence[dict], *, workers: int = 1, backend: str = "local",
               address: str | None = None, console: Console | None = None, source: str | None = None,
               data_path: Path | None = None, sheet: bool = True) -> RenderReport:
        """Render every record that is not already complete; failures are reported, never fatal
        (but an output that fails as a whole, full or read-only, stops the run: `report.fatal`).

        Records must simulate (see `renderable`). `data_path`: the JSON file of the records, written
        (atomically) before rendering and again after, each time listing only the media that are
        verifiably there. Each item's manifest is written as soon as the item is finished. `sheet`:
        write the numbered sheet MentalBlackboard's prompts show (not for family items).
        """
        out_dir = self.path
        report = RenderReport(removed_temps=self.removed_temps)
        options = {m: self.request.options_hash(m) for m in self.request.modalities}
        if sheet:
            write_sheet(out_dir)
        plans: list[ItemPlan] = []
        manifests = self.manifests = {}  # verified: what the data file may list
        for record in records:
            plan = plan_item(out_dir, record, self.request, options, source)
            if isinstance(plan, str):
                report.failed[str(record["id"])] = plan
                continue
            manifests[str(record["id"])] = plan.kept
            if plan.todo:
                plans.append(plan)
            else:
                report.skipped.append(str(record["id"]))
        if data_path is not None:
            atomic_write_json(data_path, listed_records(records, manifests))
        bar, advance = counting_bar(f"rendering {'+'.join(self.request.modalities) or 'nothing'}", "items",
                                    len(plans), console)
        by_id = {str(plan.record["id"]): plan for plan in plans}
        with bar:
            jobs = run_jobs(plans, str(out_dir), self.request, workers=workers, backend=backend, address=address)
            try:
                for item_id, outcome in jobs:
                    if isinstance(outcome, BaseException):
                        if _is_fatal(outcome):
                            report.fatal = f"{out_dir}: {_first_line(outcome)}"
                            break
                        report.failed[item_id] = _first_line(outcome)
                    else:
                        manifest = by_id[item_id].kept
                        manifest.modalities.update(outcome)
                        manifest.drop_overwritten(outcome)
                        manifest.write(out_dir)
                        report.rendered.append(item_id)
                    advance(1)
            finally:
                jobs.close()  # stops the workers (and a Ray cluster this run started) on any exit
        if data_path is not None:
            atomic_write_json(data_path, listed_records(records, manifests))
        return report


class FolderBusy(InputError):
    """Another process holds the output folder's lock."""


def open_output(out_dir: str | Path, request: MediaRequest, data_files: Sequence[str] = ()) -> "OutputLock":
    """Check the output folder, lock it, and sweep the temp files a killed run left behind; use as
    `with open_output(...) as folder: folder.render(...)`. Raises InputError (FolderBusy when another
    run holds the lock) naming the folder, before any work."""
    return OutputLock(Path(out_dir), request, tuple(data_files))


class OutputLock:
    """The context manager of `open_output`: an exclusive flock on `<out>/.foldsim.lock`, which the
    run removes when it ends (so a finished dataset folder holds only the dataset). The kernel
    releases the flock when the process ends however it ends, so a killed run never leaves the
    folder locked, only the file, which the next run takes over and removes.

    Removing a lock file is safe with one rule: the holder unlinks the file before releasing it, and
    a run that got the flock holds the lock only if the file it locked is still the one at the path
    (a run that opened the file just before the holder removed it locks a file nobody else will,
    sees that, and tries again)."""

    def __init__(self, path: Path, request: MediaRequest, data_files: tuple[str, ...]):
        self.path, self.request, self.data_files = path, request, data_files
        self._handle = None

    def __enter__(self) -> OutputFolder:
        check_output(self.path, self.request, self.data_files)
        lock = self.path / LOCK_FILE
        while True:
            try:
                handle = open(lock, "a+")
            except OSError as error:
                raise InputError(f"cannot open the lock file: {error.strerror}", item=str(lock)) from None
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.seek(0)
                holder = handle.read().strip()
                handle.close()
                raise FolderBusy(f"another foldsim run is writing into this folder{f' (pid {holder})' if holder else ''}; "
                                 "wait for it to finish or choose another --out", item=str(self.path)) from None
            if _same_file(handle, lock):
                break
            handle.close()  # the holder removed it meanwhile: lock the path's file, not the old one
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle
        return OutputFolder(self.path, self.request, sweep_temps(self.path))

    def __exit__(self, *exc) -> None:
        if self._handle is not None:
            try:
                (self.path / LOCK_FILE).unlink(missing_ok=True)  # before the release: see the class docstring
            except OSError:
                pass  # a folder made read-only meanwhile: the file stays, unlocked, and the next run reuses it
            self._handle.close()  # closing the file releases the lock
            self._handle = None


def _same_file(handle, path: Path) -> bool:
    """Whether the open file is still the one at `path`."""
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except OSError:  # removed meanwhile
        return False


def sweep_temps(out_dir: Path) -> int:
    """Remove the temp files and folders of atomic writes a killed run left behind (only names
    matching STALE_TEMP, only at the top of the folder and in the dataset's own subfolders). Safe
    only under the folder's lock. Returns how many were removed."""
    found = [out_dir / name for name in os.listdir(out_dir) if STALE_TEMP.fullmatch(name)]
    for top in (out_dir / name for name in MEDIA_DIRS):
        for folder, dirs, files in os.walk(top):
            found += [Path(folder) / name for name in (*files, *dirs) if STALE_TEMP.fullmatch(name)]
            dirs[:] = [d for d in dirs if not STALE_TEMP.fullmatch(d)]  # a temp folder goes as a whole
    for path in found:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    return len(found)


# -- many items ----------------------------------------------------------------------------------------


def _first_line(error: BaseException) -> str:
    """An error as one line: an OSError's own words (no "[Errno 28]"), else its first line."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename}" if error.filename else error.strerror
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _is_fatal(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.errno in FATAL_ERRNOS


def _render_job(plan: ItemPlan, out_dir: str, request: MediaRequest) -> dict[str, dict]:
    return render_item(plan.record, out_dir, plan.todo, request)


def run_jobs(plans: Sequence[ItemPlan], out_dir: str, request: MediaRequest, *, workers: int = 1,
             backend: str = "local", address: str | None = None) -> Iterator[tuple[str, dict | BaseException]]:
    """(id, manifest entries or the error) per plan, as they finish: in this process for one local
    worker, else in a pool of spawned processes (JAX and EGL do not survive fork), or as Ray tasks
    (`foldsim.dataset.backends`). Closing the generator stops whatever is still running."""
    if backend == "ray":
        from .backends import ray_jobs

        return ray_jobs(_render_job, plans, out_dir, request, workers=workers, address=address)
    if backend != "local":
        raise InputError(f"unknown backend {backend!r} (expected {' or '.join(BACKENDS)})", field="--backend")
    if workers <= 1 or len(plans) <= 1:
        return _in_process(plans, out_dir, request)
    return _in_pool(plans, out_dir, request, workers)


def _in_process(plans: Sequence[ItemPlan], out_dir: str, request: MediaRequest) -> Iterator:
    for plan in plans:
        try:
            yield str(plan.record["id"]), _render_job(plan, out_dir, request)
        except Exception as error:  # one bad item never aborts the batch
            yield str(plan.record["id"]), error


def _in_pool(plans: Sequence[ItemPlan], out_dir: str, request: MediaRequest, workers: int) -> Iterator:
    """At most 2 x workers items in flight (so a million items never sit in the queue at once)."""
    pending = iter(plans)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        running: dict = {}
        try:
            while True:
                while len(running) < 2 * workers and (plan := next(pending, None)) is not None:
                    running[pool.submit(_render_job, plan, out_dir, request)] = str(plan.record["id"])
                if not running:
                    return
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    item_id = running.pop(future)
                    error = future.exception()
                    yield item_id, error if error is not None else future.result()
        except BaseException:  # an interrupt, or the consumer stopped: drop what has not started
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def render_items(records: Sequence[dict], out_dir: str | Path, request: MediaRequest, *, workers: int = 1,
                 backend: str = "local", address: str | None = None, console: Console | None = None,
                 source: str | None = None) -> RenderReport:
    """Check and lock `out_dir`, then render every record that is not already complete there (see
    `OutputFolder.render`). `source`: the data file the records come from (media of another source's
    item with the same id are never overwritten)."""
    with open_output(out_dir, request) as folder:
        return folder.render(records, workers=workers, backend=backend, address=address, console=console,
                             source=source)


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
    family_items = {i for i, r in enumerate(records) if isinstance(r, dict) and isinstance(r.get("family"), str)}
    for index in sorted(family_items):  # drawn in their benchmark's look by generate --family, which resumes
        family = records[index]["family"]
        failed[record_name(records[index], index)] = (
            f"is a {family} family item: its images are drawn by `foldsim generate --family {family}` (run it again "
            "with the same arguments, without --no-media, to add them)")
    records = [r for i, r in enumerate(records) if i not in family_items]
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
