"""The Hugging Face datasets folder of an export (`--format hf`, and the base of `lmms-eval`): Parquet
shards written by `datasets` and the dataset card README.md (a README.md that is not a foldsim card
is never overwritten)."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import InputError
from ..io import atomic_write_bytes, atomic_write_text, read_bounded
from ..dataset.levels import PRESETS
from .items import CARD_TAG, LICENSE, SHARD_ROWS, ExportItem, _by_split, _video_path

def doc_fields(items: Sequence[ExportItem]) -> tuple[str, ...]:
    """The peer document fields the items carry (foldsim.outputs.items.peer_doc), in order."""
    return tuple(dict.fromkeys(name for item in items for name, _ in item.doc))


def hf_features(extra: Sequence[str] = ()):
    """The declared columns of the Parquet shards (`datasets` features); `extra`: a peer task's
    own document fields (strings), after foldsim's."""
    from datasets import Features, Image, Value

    try:
        from datasets import List  # datasets >= 4.0
    except ImportError:  # datasets 3.x: a list of images is a Sequence
        from datasets import Sequence as List

    return Features({"id": Value("string"), "task": Value("string"), "modality": Value("string"),
                     "scorer": Value("string"), "group": Value("string"), "level": Value("int32"),
                     "split": Value("string"), "images": List(Image()), "video": Value("string"),
                     "question": Value("string"), "answer": Value("string"), "record": Value("string"),
                     **{name: Value("string") for name in extra}})


def _hf_row(item: ExportItem, extra: Sequence[str] = ()) -> dict:
    doc = dict(item.doc)
    return {"id": item.id, "task": item.task, "modality": item.modality, "scorer": item.scorer, "group": item.group,
            "level": item.level, "split": item.split,
            "images": [{"bytes": read_bounded(p), "path": p.name} for p in item.images],
            "video": _video_path(item), "question": item.question, "answer": item.answer, "record": item.record,
            **{name: doc.get(name) for name in extra}}


def _copy_videos(items: Sequence[ExportItem], out: Path) -> list[str]:
    written = []
    for item in items:
        if item.video is not None:
            target = out / _video_path(item)
            if not target.is_file() or target.stat().st_size != item.video.stat().st_size:
                target.parent.mkdir(parents=True, exist_ok=True)
                tmp = target.with_name(f".{target.name}.tmp")
                shutil.copyfile(item.video, tmp)
                tmp.replace(target)
            written.append(_video_path(item))
    return written


def write_hf(items: Sequence[ExportItem], out: Path, config: str, on_item: Callable[[int], None] | None = None
             ) -> tuple[dict[str, int], list[str]]:
    """Parquet shards per split (by `datasets`), the videos, and the dataset card. Old shards of
    the config that this export did not write are removed."""
    import datasets
    from datasets import Dataset

    was_enabled = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # foldsim's own bar counts the items
    try:
        return _write_hf(items, out, config, on_item, Dataset)
    finally:
        if was_enabled:
            datasets.enable_progress_bars()


def check_card_folder(out: Path) -> None:
    """InputError when the folder holds a README.md that is not a dataset card foldsim wrote (the
    hf and lmms-eval exports write their card as README.md and never overwrite a user's file)."""
    card = out / "README.md"
    if card.exists() and _card_header(card) is None:
        raise InputError(f"{card} exists and is not a dataset card foldsim wrote; export into another folder "
                         "(the hf card must be the folder's README.md) or move that file away", field="--out")


def _write_hf(items, out, config, on_item, Dataset) -> tuple[dict[str, int], list[str]]:
    check_card_folder(out)
    extra = doc_fields(items)
    features = hf_features(extra)
    folder = out / "data" / config
    written: list[str] = []
    splits: dict[str, int] = {}
    sizes: dict[str, int] = {}  # the split's Arrow size (what `datasets` holds in memory: num_bytes)
    for split, members in _by_split(items).items():
        splits[split] = len(members)
        sizes[split] = 0
        shards = max(1, -(-len(members) // SHARD_ROWS))
        for k in range(shards):
            chunk = members[k * SHARD_ROWS : (k + 1) * SHARD_ROWS]
            rows = [_hf_row(i, extra) for i in chunk]
            buffer = io.BytesIO()
            table = Dataset.from_list(rows, features=features)
            sizes[split] += table.data.nbytes
            table.to_parquet(buffer)
            name = f"{split}-{k:05d}-of-{shards:05d}.parquet"
            atomic_write_bytes(folder / name, buffer.getvalue())
            written.append(f"data/{config}/{name}")
            if on_item:
                on_item(len(chunk))
    for stale in folder.glob("*.parquet"):
        if f"data/{config}/{stale.name}" not in written:
            stale.unlink()
    written += _copy_videos(items, out)
    atomic_write_text(out / "README.md", dataset_card(out, config, splits, items, sizes))
    return splits, [*written, "README.md"]


#: the Hub's size categories: (upper bound of examples, label)
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"))


def size_category(examples: int) -> str:
    return next((label for bound, label in SIZE_CATEGORIES if examples < bound), "10M<n<100M")


def dataset_card(out: Path, config: str, splits: dict[str, int], items: Sequence[ExportItem],
                 arrow_sizes: dict[str, int] | None = None) -> str:
    """The README.md: YAML declaring the license, language, task categories, size category and
    pretty name, every config in the folder (this one replaced, others kept), its splits and
    features with their sizes (num_bytes: the split in Arrow, as `datasets` holds it; download_size:
    the Parquet files), then a short description."""
    import yaml

    features = hf_features(doc_fields(items))._to_yaml_list()
    configs, infos = _existing_card(out / "README.md")
    configs[config] = {"config_name": config, "data_files": [{"split": s, "path": f"data/{config}/{s}-*.parquet"}
                                                              for s in splits]}
    parquet = {s: sum(p.stat().st_size for p in (out / "data" / config).glob(f"{s}-*.parquet")) for s in splits}
    arrow = arrow_sizes or parquet
    infos[config] = {"config_name": config, "features": features,
                     "splits": [{"name": s, "num_bytes": arrow[s], "num_examples": n} for s, n in splits.items()],
                     "download_size": sum(parquet.values()), "dataset_size": sum(arrow[s] for s in splits)}
    ordered = sorted(configs)
    examples = max((sum(sp.get("num_examples", 0) for sp in info.get("splits") or [] if isinstance(sp, dict))
                    for info in infos.values()), default=0)
    text_only = all(c.endswith("_text") for c in ordered)
    header = {"license": LICENSE, "language": ["en"],
              "task_categories": ["question-answering"] if text_only else ["visual-question-answering"],
              "size_categories": [size_category(examples)],
              "pretty_name": "foldsim paper folding and hole punching",
              "tags": [CARD_TAG, "paper-folding", "spatial-reasoning"],
              "configs": [{**configs[c], **({"default": True} if c == ordered[0] else {})} for c in ordered],
              "dataset_info": [infos[c] for c in ordered if c in infos]}
    first = items[0] if items else None
    body = [
        "# foldsim export", "",
        "Paper Folding & Hole Punching items exported by `foldsim export` (one config per task and modality).",
        "Load a config with `datasets.load_dataset(\"<this folder>\", \"<config>\")`; `images` decode to PIL images",
        "in the order the prompt shows them (`<image k>` in `question`), `video` is a path relative to this folder.",
        "`answer` is the ground-truth answer JSON in the form the prompt asks for; `record` the full item.",
        "Score model responses with `foldsim.eval.score_item(row[\"scorer\"], json.loads(row[\"record\"]), response)`.",
        "", f"Configs: {', '.join(ordered)}." + (f" Last export: {first.task} / {first.modality}, "
                                                  + ", ".join(f"{s} {n}" for s, n in splits.items()) + "." if first else ""),
        "", "Levels: easy <= 4, medium 5-6, hard >= 7 (foldsim.dataset.levels). Splits share no problem up to the",
        "symmetries of the square (foldsim.dataset.splits; check with `foldsim overlap`).", "",
    ]
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n\n" + "\n".join(body)


def _card_header(path: Path) -> dict | None:
    """The YAML header of a card foldsim wrote (tagged `foldsim`), else None."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
        header = yaml.safe_load(text.split("---\n")[1]) if text.startswith("---\n") else None
    except (OSError, UnicodeDecodeError, IndexError, yaml.YAMLError):
        return None
    if not isinstance(header, dict) or CARD_TAG not in (header.get("tags") or []):
        return None
    return header


def _existing_card(path: Path) -> tuple[dict, dict]:
    """The configs and dataset_info of an existing card (empty when there is none or it is not ours)."""
    header = _card_header(path)
    if header is None:
        return {}, {}
    configs = {c["config_name"]: {k: v for k, v in c.items() if k != "default"}
               for c in header.get("configs") or [] if isinstance(c, dict) and "config_name" in c}
    infos = header.get("dataset_info") or []
    infos = [infos] if isinstance(infos, dict) else infos
    return configs, {i["config_name"]: i for i in infos if isinstance(i, dict) and "config_name" in i}


def preset_name(level: int | None) -> str:
    """easy / medium / hard of a level (empty when unknown)."""
    if level is None:
        return ""
    return next(name for name, p in PRESETS.items() if p.contains(level))
