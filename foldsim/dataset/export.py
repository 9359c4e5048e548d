"""`foldsim export`: a dataset in the formats harnesses load directly (evaluation-formats doc §2).

One item = one prompt of a task in a modality, exactly as `foldsim eval` shows it: the text and the
media come from the task's template (`foldsim.eval.prompts`), images in the order the prompt shows
them. Media the prompt needs and the dataset lacks are rendered first (`foldsim.dataset.media`,
resuming: what exists is never redrawn).

- `hf`: a Hugging Face dataset folder: Parquet shards written by `datasets` under
  `data/<task>_<modality>/<split>-NNNNN-of-NNNNN.parquet` and a dataset card `README.md` whose YAML
  declares the config, its splits and its features. Columns: id, task, modality, group, level,
  split, scorer (the `foldsim score` task that scores the answer), images (a list of images, in
  prompt order), video (the video's path relative to the folder, under `videos/`, or null),
  question (the prompt's text parts, each on its own lines, with `<image k>` and `<video>` on a line
  of their own where the prompt shows them: splitting at the marks gives back the text parts
  exactly), answer (the ground-truth answer JSON, in the form the prompt asks for), record (the
  full record as JSON). Splits come from the records' `split` field (`generate --splits`); records
  without one are the `test` split. The folder's README.md is the dataset card; a README.md that is
  not a foldsim card is never overwritten (the export refuses).
- `vlmevalkit`: `<NAME>.tsv` holding the evaluated split only (test, else validation; VLMEvalKit
  scores every row), with index, image as base64 or a Python-list literal of base64 strings with
  image_path naming them, question, answer, category = structure group, l2-category = level
  preset, split, and the columns above; `<name>.py`, a dataset class that forces its own prompt
  (`force_use_dataset_prompt`: models with their own prompt builders get the interleaved parts
  `foldsim eval` sends) and whose evaluate scores with foldsim's scorer; and `<NAME>_README.md`.
  Video is refused (VLMEvalKit's image datasets carry no video; `--modality frames` shows it).
- `lmms-eval`: the `hf` folder plus `lmms_eval/` (a task YAML and `utils.py`: doc_to_messages with
  the text, images and video interleaved as `foldsim eval` sends them, doc_to_visual, doc_to_text,
  process_results calling `foldsim.eval.score_item`). The YAML names no path: utils.py finds the
  Parquet shards and videos next to itself, so the folder can be moved. It evaluates the test
  split (else validation). Run `lmms-eval --include_path DIR/lmms_eval --tasks foldsim_<task>_<modality>`.
"""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from string import Template

from ..codes import code_of_entry, pattern_of
from ..errors import InputError
from ..io import atomic_write_bytes, atomic_write_text, read_bounded, read_records
from ..rules import group_of
from ..tasks import CHOICE_TASKS
from .levels import PRESETS, level_of, record_solutions

FORMATS = ("hf", "vlmevalkit", "lmms-eval")
DEFAULT_SPLIT = "test"  # records without a `split` field: the benchmark itself
SHARD_ROWS = 1000
VIDEO_DIR = "videos"
LMMS_DIR = "lmms_eval"
MARK = re.compile(r"<image (\d+)>|<video>")
#: the splits a harness evaluates, in order of preference (never `train` while another exists)
EVALUATED_SPLITS = ("test", "validation")
CARD_TAG = "foldsim"  # the tag that marks a README.md as a card foldsim wrote (and may rewrite)
LICENSE = "mit"
#: the answer object's fields per scorer: what the task's answer schema asks for
ANSWER_FIELDS = {
    "prediction": ("totalNumberofHoles", "unfoldingTypes", "resultHoles"),
    "backward": ("totalNumberofHoles", "unfoldingTypes", "resultHoles"),
    "text": ("totalNumberofHoles", "unfoldingTypes", "resultHoles"),
    "generalization": ("totalNumberofHoles", "resultHoles"),
}
#: per-item metrics where lower is better (every other one is higher-is-better)
LOWER_IS_BETTER = ("extra_rate", "missing_rate", "ambiguous", "chance", "followed_cue")


# -- items ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportItem:
    """One row of every format: the prompt's text and media, the truth, and what to group by."""

    id: str
    task: str
    modality: str
    scorer: str
    group: str
    level: int | None
    split: str
    question: str
    answer: str
    record: str
    images: tuple[Path, ...] = ()
    video: Path | None = None
    video_source: str | None = None  # the video's path relative to the dataset folder
    options: tuple[tuple[str, str], ...] = ()  # choice tasks: (label, the option as text)


@dataclass
class ExportReport:
    """What an export wrote: the items per split, the files, the items left out (id -> reason) and
    how many items had media rendered first."""

    format: str
    out: Path
    config: str
    splits: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    rendered: int = 0
    evaluated: str | None = None  # the split the harness evaluates (vlmevalkit, lmms-eval)
    left_out: dict[str, int] = field(default_factory=dict)  # splits not written (vlmevalkit: other splits)

    def summary(self) -> dict:
        return {"format": self.format, "out": str(self.out), "config": self.config, "items": sum(self.splits.values()),
                "splits": self.splits, "evaluated": self.evaluated, "left_out": self.left_out, "files": self.files,
                "rendered": self.rendered, "failed": self.failed}


def config_name(task: str, modality: str) -> str:
    """The dataset config (and lmms-eval task suffix) of a task and modality."""
    return f"{task}_{modality}".replace("-", "_")


def question_parts(question: str) -> list[tuple[str, str]]:
    """The prompt's parts from a `question`: ("text", text), ("image", k) with k counted from 1, or
    ("video", ""), in order; the text parts exactly as `foldsim eval` sends them (stripped)."""
    parts, start = [], 0
    for mark in MARK.finditer(question):
        if question[start:mark.start()].strip():
            parts.append(("text", question[start:mark.start()].strip()))
        parts.append(("image", mark.group(1)) if mark.group(1) else ("video", ""))
        start = mark.end()
    if question[start:].strip():
        parts.append(("text", question[start:].strip()))
    return parts


def evaluated_split(splits: Sequence[str]) -> str:
    """The split a harness evaluates: test, else validation, else the first other one that is not
    train, else train (an export of training items only)."""
    for name in (*EVALUATED_SPLITS, *[s for s in splits if s != "train"], "train"):
        if name in splits:
            return name
    return DEFAULT_SPLIT


def answer_object(scorer: str, record: dict) -> dict | str:
    """The ground-truth answer in the form the task's prompt asks for (planning: the generating
    plan as `folds` and `holes`, one of possibly many right plans, all of which the verifier accepts;
    the choice tasks: the right label, or yes/no; plan-choice: the first right label)."""
    if scorer in CHOICE_TASKS:
        answer = record.get("answer")
        return str(answer[0] if isinstance(answer, list) and answer else answer)
    if scorer == "holes":  # family items, open-ended (foldsim.families.open)
        from ..families.open import HOLES_KEY, answer_pairs

        return {HOLES_KEY: answer_pairs(record)}
    if scorer == "planning":
        return {"folds": [code_of_entry(e) for e in record.get("foldingTypes") or []], "holes": record.get("initialHoles") or []}
    answer = {k: record[k] for k in ANSWER_FIELDS.get(scorer, ()) if k in record}
    if scorer == "text":
        answer["resultHoles"] = [{k: v for k, v in h.items() if k != "direction"} for h in answer.get("resultHoles", [])]
    return answer


def _options(scorer: str, record: dict) -> tuple[tuple[str, str], ...]:
    """The options of a choice or plan-choice item as (label, text): the option's result holes as
    JSON, or its fold codes."""
    if scorer not in ("choice", "plan-choice") or not isinstance(record.get("options"), list):
        return ()
    out = []
    for option in record["options"]:
        if "foldingTypes" in option:
            text = ", ".join(code_of_entry(e) for e in option["foldingTypes"])
        else:
            text = json.dumps(option.get("resultHoles"))
        out.append((str(option.get("label")), text))
    return tuple(out)


def is_family_record(record: object) -> bool:
    """A benchmark family's record (foldsim generate --family, MentalBlackboard's included: an item
    record or a yes/no row); the benchmark's own MentalBlackboard records carry no `family`."""
    return isinstance(record, dict) and isinstance(record.get("family"), str)


def _pattern(record: dict) -> str:
    try:
        return pattern_of(code_of_entry(e) for e in record.get("foldingTypes") or [])
    except InputError:
        return ""


def _levels(records: Sequence[dict]) -> dict[str, int]:
    """The `level` of every record: its own field, else computed (one batched simulation)."""
    from ..simulate import simulate

    levels = {str(r["id"]): r["level"] for r in records if isinstance(r.get("level"), int)}
    missing = [r for r in records if str(r["id"]) not in levels and not is_family_record(r)]
    for record, result in zip(missing, simulate(missing) if missing else []):
        if result.ok:
            levels[str(record["id"])] = level_of(result, record_solutions(record))
    return levels


def _item(prompt, record: dict, example: dict | None, root: Path, level: int | None) -> ExportItem:
    """The export row of one record (raises ItemError when its media or fields are missing,
    InputError when the record is not a readable item: its folds, punches or truth)."""
    from ..config import Config
    from ..eval.choice import truth_of
    from ..eval.score_base import truth_item

    scorer = prompt.task.score or prompt.task.name
    family = is_family_record(record)
    if not family:
        Config.from_record(record)
    if scorer in CHOICE_TASKS:
        truth_of(scorer, record, 0)
    elif scorer == "holes":
        from ..families.open import truth_pairs

        truth_pairs(record)
    else:
        truth_item(record, 0)
    [message] = [m for m in prompt.messages(record, dataset_dir=root, example=example) if m.role == "user"]
    text, images, video, source = [], [], None, None
    for part in message.parts:  # text parts are stripped and never empty (prompts.merge_text)
        if part.kind == "text":
            text.append(part.text)
        elif part.kind == "image":
            images.append(part.path)
            text.append(f"<image {len(images)}>")
        elif video is None:
            video, source = part.path, part.source
            text.append("<video>")
        else:
            raise InputError("the prompt shows more than one video (the export has one video column)", item=str(record["id"]))
    pattern = "" if family else _pattern(record)
    answer = answer_object(scorer, record)
    group = f"{record['family']} {record.get('level')}" if family else group_of(pattern) if pattern else ""
    return ExportItem(str(record["id"]), prompt.task.name, prompt.modality, scorer, group,
                      level, str(record.get("split") or DEFAULT_SPLIT), "\n".join(text),
                      answer if isinstance(answer, str) else json.dumps(answer), json.dumps(record), tuple(images),
                      video, source, _options(scorer, record))


def export_items(dataset: str | Path, task: str, modality: str, *, templates=None, workers: int = 1,
                 console=None) -> tuple[list[ExportItem], dict[str, str], int]:
    """The rows of a dataset for a task and modality, the items left out (id -> reason) and how
    many items had their missing media rendered first. InputError when the dataset or the template
    cannot be used at all."""
    from ..eval.prompts import ItemError, load_prompt, resolve_dataset, task_items
    from .media import SHEET_FILE, MediaRequest, render_items, renderable, write_sheet

    path = resolve_dataset(dataset)
    root = path.parent
    prompt = load_prompt(task, modality, templates)
    pairs, failed = task_items(read_records(path), prompt.task)
    levels = _levels([r for r, _ in pairs])
    if not (root / SHEET_FILE).is_file():
        write_sheet(root)

    def build(todo: list[tuple[dict, dict | None]]) -> tuple[dict[str, ExportItem], dict[str, str], list[dict]]:
        built, problems, missing = {}, {}, []
        for record, example in todo:
            item_id = str(record["id"])
            try:
                built[item_id] = _item(prompt, record, example, root, levels.get(item_id))
            except ItemError as error:
                problems[item_id] = str(error).removeprefix(f"{item_id}: ")
                if error.message.startswith("missing media file"):
                    missing += [record] + ([example] if example is not None else [])
            except InputError as error:
                problems[item_id] = str(error).removeprefix(f"{item_id}: ")
        return built, problems, missing

    built, problems, missing = build(pairs)
    rendered = 0
    if missing:  # render what the prompt needs and the folder lacks, then build those items again
        unique = list({str(r["id"]): r for r in missing}.values())
        drawable, undrawable = renderable(unique)
        report = render_items(drawable, root, MediaRequest.of(**{modality: True}), workers=workers, console=console)
        rendered = len(report.rendered)
        undrawable |= report.failed
        again = {str(r["id"]) for r in missing}
        rebuilt, problems_again, _ = build([(r, e) for r, e in pairs if str(r["id"]) in again])
        built.update(rebuilt)
        problems = {k: v for k, v in problems.items() if k not in again} | problems_again | undrawable
    order = [str(r["id"]) for r, _ in pairs]
    return [built[i] for i in order if i in built], {**failed, **problems}, rendered


# -- scoring predictions (for the harness files) ------------------------------------------------------


def score_predictions(scorer: str, records: Sequence[dict], responses: Sequence[object]) -> dict:
    """The `foldsim score` report (pooled metrics, counts, groups) of model responses to records,
    by the default scorer (the choice scorer for the choice tasks): what the VLMEvalKit class's
    evaluate returns. Never raises on a response."""
    if scorer == "holes":  # family items, open-ended
        from ..eval.answers import answer_of_completion
        from ..families.open import score_holes

        answers = [replace(answer_of_completion(response, i), id=str(r.get("id")))
                   for i, (r, response) in enumerate(zip(records, responses))]
        return score_holes(records, answers).to_dict()
    if scorer in CHOICE_TASKS:
        from ..eval.choice import parse_choice_answer, score_choice, truth_of

        truths = [truth_of(scorer, {**r, "id": f"item {i}"}, i) for i, r in enumerate(records)]
        answers = [replace(parse_choice_answer(response if response is not None else "", i), id=f"item {i}")
                   for i, response in enumerate(responses)]
        return score_choice(scorer, truths, answers).to_dict()
    from ..eval.answers import answer_of_completion
    from ..eval.score_base import truth_item
    from ..eval.scoring import score_default

    truths, answers = [], []
    for i, (record, response) in enumerate(zip(records, responses)):
        truth = truth_item({**record, "id": f"item {i}"}, i)
        truths.append(replace(truth, record={**record, "id": truth.id}))
        answers.append(replace(answer_of_completion(response, i), id=truth.id))
    return score_default(scorer, truths, answers).to_dict()


def score_response(scorer: str, record: dict, response: object) -> dict[str, float]:
    """One response's per-item metrics, `foldsim.eval.score_item` (what lmms-eval's process_results
    returns)."""
    from ..eval.item import score_item

    return score_item(scorer, record, response)


def metric_names(items: Sequence[ExportItem]) -> list[str]:
    """Every per-item metric the items' true answers get (some, like followed_cue, only exist for
    some items): what the lmms-eval task aggregates."""
    names: dict[str, None] = {}
    for item in items:
        names.update(dict.fromkeys(score_response(item.scorer, json.loads(item.record), item.answer)))
    return list(names)


# -- writing -------------------------------------------------------------------------------------------


def _by_split(items: Sequence[ExportItem]) -> dict[str, list[ExportItem]]:
    """Items per split, `train`/`validation`/`test` first, the others after them by name."""
    known = ("train", "validation", "test")
    names = sorted({i.split for i in items}, key=lambda s: (known.index(s) if s in known else len(known), s))
    return {name: [i for i in items if i.split == name] for name in names}


def hf_features():
    """The declared columns of the Parquet shards (`datasets` features)."""
    from datasets import Features, Image, Value

    try:
        from datasets import List  # datasets >= 4.0
    except ImportError:  # datasets 3.x: a list of images is a Sequence
        from datasets import Sequence as List

    return Features({"id": Value("string"), "task": Value("string"), "modality": Value("string"),
                     "scorer": Value("string"), "group": Value("string"), "level": Value("int32"),
                     "split": Value("string"), "images": List(Image()), "video": Value("string"),
                     "question": Value("string"), "answer": Value("string"), "record": Value("string")})


def _video_path(item: ExportItem) -> str | None:
    return f"{VIDEO_DIR}/{item.video_source}" if item.video is not None else None


def _hf_row(item: ExportItem) -> dict:
    return {"id": item.id, "task": item.task, "modality": item.modality, "scorer": item.scorer, "group": item.group,
            "level": item.level, "split": item.split,
            "images": [{"bytes": read_bounded(p), "path": p.name} for p in item.images],
            "video": _video_path(item), "question": item.question, "answer": item.answer, "record": item.record}


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
    features = hf_features()
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
            rows = [_hf_row(i) for i in chunk]
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

    features = hf_features()._to_yaml_list()
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


def _b64(path: Path) -> str:
    return base64.b64encode(read_bounded(path)).decode("ascii")


def tsv_frame(items: Sequence[ExportItem], on_item: Callable[[int], None] | None = None):
    """The VLMEvalKit table: one row per item (pandas DataFrame)."""
    import pandas as pd

    rows = []
    for index, item in enumerate(items):
        row = {"index": index}
        if item.images:
            encoded = [_b64(p) for p in item.images]
            row["image"] = encoded[0] if len(encoded) == 1 else repr(encoded)
            row["image_path"] = repr([f"{item.id}_{k + 1}{p.suffix}" for k, p in enumerate(item.images)])
        row.update({"question": item.question, "answer": item.answer, "category": item.group,
                    "l2-category": preset_name(item.level), "split": item.split, "id": item.id, "task": item.task,
                    "modality": item.modality, "scorer": item.scorer, "level": item.level, "video": _video_path(item),
                    "record": item.record, **dict(item.options)})
        rows.append(row)
        if on_item:
            on_item(1)
    frame = pd.DataFrame(rows)
    if "image" in frame:  # the image columns after index, as VLMEvalKit's own TSVs have them
        frame = frame[["index", "image", "image_path", *[c for c in frame.columns if c not in ("index", "image", "image_path")]]]
    return frame


def _resource(name: str) -> str:
    return resources.files("foldsim.dataset").joinpath("harness", name).read_text(encoding="utf-8")


def dataset_name(task: str, modality: str) -> str:
    """The VLMEvalKit dataset name of an export (the TSV's stem)."""
    return "Foldsim_" + "_".join(part.capitalize() for part in config_name(task, modality).split("_"))


#: how to install foldsim where a harness runs (foldsim is not on PyPI)
INSTALL_HINT = ("`pip install \"foldsim[datasets] @ git+<foldsim repository URL>\"` or `pip install ./foldsim-<version>-py3-none-any.whl` "
                "(a wheel built with `python -m build` in a foldsim checkout), or `pip install -e <foldsim checkout>`")


def readme_name(name: str) -> str:
    """The VLMEvalKit export's own README (never the folder's README.md)."""
    return f"{name}_README.md"


def write_vlmevalkit(items: Sequence[ExportItem], out: Path, task: str, modality: str, scorer: str,
                     on_item: Callable[[int], None] | None = None) -> tuple[dict[str, int], list[str], str, dict[str, int]]:
    """The TSV of the evaluated split (VLMEvalKit scores every row of it), the dataset class file and
    `<NAME>_README.md` with where to put them. Returns the split written, the files, the evaluated
    split and the splits left out with their sizes."""
    name = dataset_name(task, modality)
    module = name.lower()
    by_split = _by_split(items)
    split = evaluated_split(list(by_split))
    members = by_split[split]
    left_out = {s: len(m) for s, m in by_split.items() if s != split}
    frame = tsv_frame(members, on_item)
    if on_item and left_out:
        on_item(sum(left_out.values()))
    atomic_write_text(out / f"{name}.tsv", frame.to_csv(sep="\t", index=False))
    class_name = name.replace("_", "")
    atomic_write_text(out / f"{module}.py", Template(_resource("vlmevalkit_dataset.py.tmpl")).substitute(
        DATASET=name, CLASS=class_name, MODULE=module, TASK=task, MODALITY=modality, SCORER=scorer, SPLIT=split))
    others = ", ".join(f"{s} ({n} items)" for s, n in left_out.items())
    lines = [f"# {name}: foldsim {task} / {modality} for VLMEvalKit", "",
             f"`{name}.tsv` holds the {split} split ({len(members)} items): VLMEvalKit scores every row of a TSV"
             + (f"; not exported: {others}." if others else "."), "",
             f"1. Copy `{name}.tsv` into `$LMUData` (default `~/LMUData`).",
             f"2. Copy `{module}.py` to `vlmeval/dataset/{module}.py` in your VLMEvalKit checkout; in",
             f"   `vlmeval/dataset/__init__.py` add `from .{module} import {class_name}` and put `{class_name}`",
             "   in the `IMAGE_DATASET` list.",
             f"3. Install foldsim in the same environment (evaluate scores with foldsim's scorer): {INSTALL_HINT}.",
             f"4. `python run.py --data {name} --model <model>` (or `--base-url http://host:port/v1 --model <name>`",
             "   for an OpenAI-compatible server). Do not add `--api-mode`: its pipeline lets a model's own",
             "   prompt builder replace the dataset's prompt.", "",
             "The class sets `force_use_dataset_prompt`: every model, including those with their own prompt",
             "builder (InternVL, MiniCPM-V, ...), gets the text and images interleaved as `foldsim eval` sends",
             "them. Scores: `<prediction file>_score.json` (foldsim's metrics, counts and groups).", ""]
    atomic_write_text(out / readme_name(name), "\n".join(lines))
    return {split: len(members)}, [f"{name}.tsv", f"{module}.py", readme_name(name)], split, left_out


def write_lmms_eval(items: Sequence[ExportItem], out: Path, config: str, scorer: str,
                    on_item: Callable[[int], None] | None = None) -> tuple[dict[str, int], list[str], str]:
    """The `hf` folder plus a task folder: the YAML (no paths: utils.py finds the shards of the
    evaluated split next to itself) and utils.py. Returns the splits, the files and the evaluated
    split."""
    splits, files = write_hf(items, out, config, on_item)
    metrics = metric_names(items)
    test_split = evaluated_split(list(splits))
    metric_list = "\n".join(f"  - metric: {m}\n    aggregation: mean\n    higher_is_better: {str(m not in LOWER_IS_BETTER).lower()}"
                            for m in metrics)
    yaml_text = Template(_resource("lmms_eval_task.yaml.tmpl")).substitute(
        TASK=f"foldsim_{config}", CONFIG=config, TEST_SPLIT=test_split, METRICS=metric_list)
    atomic_write_text(out / LMMS_DIR / f"foldsim_{config}.yaml", yaml_text)
    atomic_write_text(out / LMMS_DIR / "utils.py", _resource("lmms_eval_utils.py.tmpl"))
    return splits, [*files, f"{LMMS_DIR}/foldsim_{config}.yaml", f"{LMMS_DIR}/utils.py"], test_split


def export_dataset(dataset: str | Path, fmt: str, task: str, modality: str, out: str | Path, *, templates=None,
                   workers: int = 1, console=None) -> ExportReport:
    """Export a dataset (see the module docstring). InputError for an unknown format or a dataset
    or template that cannot be used; items that cannot be exported are listed in `failed`."""
    from ..progress import counting_bar

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})", field="--format")
    if fmt == "vlmevalkit" and modality == "video":
        raise InputError("VLMEvalKit image datasets cannot carry a video (it would be dropped and the item still "
                         "scored); export --modality frames (the video's frames as images) or use --format lmms-eval",
                         field="--format")
    out = Path(out)
    if fmt in ("hf", "lmms-eval"):
        check_card_folder(out)
    items, failed, rendered = export_items(dataset, task, modality, templates=templates, workers=workers,
                                           console=console)
    config = config_name(task, modality)
    report = ExportReport(fmt, out, config, failed=failed, rendered=rendered)
    if not items:
        return report
    scorer = items[0].scorer
    bar, advance = counting_bar(f"exporting {fmt}", "items", total=len(items), console=console)
    with bar:
        if fmt == "hf":
            report.splits, report.files = write_hf(items, out, config, advance)
        elif fmt == "vlmevalkit":
            report.splits, report.files, report.evaluated, report.left_out = write_vlmevalkit(
                items, out, task, modality, scorer, advance)
        else:
            report.splits, report.files, report.evaluated = write_lmms_eval(items, out, config, scorer, advance)
    return report
