"""Per-item manifests of a dataset folder: which media files an item has, with their sizes and
hashes, for which record and options (`Manifest`), and `listed`, the one rule for which media a
record names (only files its verified manifest lists). foldsim.dataset.media writes them; the
family runs, the generator and the checks read them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..io import atomic_write_json
from .media_names import ASSET_FIELDS, IMAGE_FIELDS, asset_paths

#: the modalities drawn by the 3-D renderer (one render pass makes both)
ANIMATED = ("video", "frames")
MANIFEST_DIR = "manifest"
#: the taskType of the choice tasks' records (foldsim.dataset.choice), which name their own media
CHOICE_TASK_TYPES = ("Choice", "Split", "PlanChoice")


def manifest_path(out_dir: str | Path, item_id: str) -> Path:
    return Path(out_dir) / MANIFEST_DIR / f"{item_id}.json"


def content_hash(data: object) -> str:
    """SHA-256 of canonical JSON: equal content, equal hash, whatever the key order."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_hash(record: dict) -> str:
    """The hash of what an item's media are drawn from: the record without its 3-D asset fields
    (which say what was written, not what to draw). A choice record's other media fields are named
    by what it holds (`choice_media`), so it is hashed with all of them, listed or not: the same
    item in a data file written with its images and in one written without hashes alike."""
    media = choice_media(record)
    if media is not None:
        record = {**record, **media}
    return content_hash({k: v for k, v in record.items() if k not in ASSET_FIELDS})


def is_choice_record(record: dict) -> bool:
    """A MentalBlackboard choice, split or plan-choice record (a family item has a `family`)."""
    return record.get("taskType") in CHOICE_TASK_TYPES and "family" not in record


def choice_media(record: dict) -> dict | None:
    """A choice record's media fields as its content names them (foldsim.render.choice.record_media);
    None for another record, or for one that cannot name them (its drawing fails and says why)."""
    if not is_choice_record(record):
        return None
    from ..render.choice import record_media

    try:
        return record_media(record)
    except InputError:
        return None


def file_entry(path: Path) -> list:
    """[size, sha256] of a file, as a manifest lists it."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return [size, digest.hexdigest()]


def file_matches(path: Path, entry: Sequence) -> bool:
    """Whether a file is still what the manifest says: its size first (cheap: catches truncation),
    then its hash."""
    try:
        return path.is_file() and path.stat().st_size == entry[0] and file_entry(path) == list(entry)
    except (OSError, TypeError, IndexError):
        return False


@dataclass
class Manifest:
    """What an item's folder holds: the record hash and source it was drawn from, and per modality
    {"options": hash or None, "files": {relative path: [size, sha256]}}."""

    item_id: str
    record: str
    source: str | None
    modalities: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def read(cls, out_dir: Path, item_id: str) -> "Manifest | None":
        try:
            data = json.loads(manifest_path(out_dir, item_id).read_text(encoding="utf-8"))
            return cls(str(data["id"]), str(data["record"]), data.get("source"), dict(data["modalities"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing, unreadable or of an older layout: nothing is trusted

    def write(self, out_dir: Path) -> None:
        atomic_write_json(manifest_path(out_dir, self.item_id), {
            "id": self.item_id, "record": self.record, "source": self.source, "modalities": self.modalities})

    def valid(self, out_dir: Path, modality: str, options: str | None) -> bool:
        """Whether `modality`'s files are there exactly as written, with these options."""
        entry = self.modalities.get(modality)
        if not isinstance(entry, dict) or entry.get("options") != options or not isinstance(entry.get("files"), dict):
            return False
        return all(file_matches(out_dir / name, size_hash) for name, size_hash in entry["files"].items())

    def drop_overwritten(self, fresh: dict[str, dict]) -> None:
        """Forget the older entries that list a file the `fresh` ones rewrote with other content (the
        result image is shared by video and frames: new video options redraw it)."""
        written = {name: entry for m in fresh.values() for name, entry in m["files"].items()}
        for modality in [m for m in self.modalities if m not in fresh]:
            listed_files = (self.modalities[modality] or {}).get("files", {})
            if any(name in written and written[name] != list(entry) for name, entry in listed_files.items()):
                del self.modalities[modality]

    def files(self, modalities: Iterable[str]) -> set[str]:
        return {name for m in modalities for name in (self.modalities.get(m) or {}).get("files", {})}


def listed(record: dict, manifest: Manifest | None) -> dict:
    """The record with exactly the media fields (MEDIA_FIELDS) whose every file its verified manifest
    lists; no manifest, no media field. The one rule of what a record lists, whoever wrote the files:

    - MentalBlackboard's 3-D assets (ASSET_FIELDS): the paths its id gives (`asset_paths`), in the
      published field order; a frames folder counts when the frames modality lists files in it;
    - a choice, split or plan-choice record: the media its content names (`choice_media`: question,
      option, target and cue images, the folding video), in the places its task puts them, also
      when the record came without them (a data file written before its media were);
    - image fields named in any other record (IMAGE_FIELDS, a path or a list of paths: family items),
      where they are.

    A record never names a file that a failed, skipped or interrupted drawing did not leave."""
    files = manifest.files(manifest.modalities) if manifest is not None else set()

    def vouched(value: object) -> bool:
        names = value if isinstance(value, list) else [value]
        return bool(names) and all(isinstance(n, str) and n in files for n in names)

    media = choice_media(record)
    if media is not None:
        from .choice import with_media

        return with_media(record, {name: value for name, value in media.items() if vouched(value)})
    out = {k: v for k, v in record.items()
           if k not in ASSET_FIELDS and not (k in IMAGE_FIELDS and not vouched(v))}
    present: dict[str, str] = {}
    if manifest is not None and any(m in manifest.modalities for m in ANIMATED):  # only they write 3-D assets
        frames = manifest.modalities.get("frames") or {}
        for name, relative in asset_paths(str(record["id"])).items():
            folder = name.endswith("FramesDir")
            if (folder and any(f.startswith(relative + "/") for f in frames.get("files", {}))) or \
                    (not folder and relative in files):
                present[name] = relative
    if not present:
        return out
    ordered: dict = {}
    for key, value in out.items():  # media fields go where the published records have them
        if key == "initialHoles":
            ordered.update(present)
            present = {}
        ordered[key] = value
    ordered.update(present)
    return ordered


def listed_records(records: Sequence[dict], manifests: dict[str, Manifest]) -> list[dict]:
    """Every record with the media fields its verified manifest (by id) vouches for."""
    return [listed(record, manifests.get(str(record["id"]))) for record in records]
