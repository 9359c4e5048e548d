"""What a `foldsim export` holds: one item per prompt of a task in a modality, exactly as `foldsim
eval` shows it (the text and media from the task's template, `foldsim.eval.prompts`; media the prompt
needs and the dataset lacks rendered first, `foldsim.dataset.media`), its ground-truth answer and
groups, and the per-item scoring the exported harness files call (`score_predictions`). The formats
are written by foldsim.outputs.hf and foldsim.outputs.harness_files; foldsim.outputs.export runs
an export (its docstring describes the formats).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..codes import code_of_entry, pattern_of
from ..errors import InputError
from ..io import read_records
from ..rules import group_of
from ..tasks import CHOICE_TASKS
from ..dataset.levels import level_of, record_solutions

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
    doc: tuple[tuple[str, str], ...] = ()  # a peer task's own document fields (STARE: qid, category)


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
    if scorer == "holes":  # family items, open-ended (foldsim.eval.holes)
        from ..eval.holes import HOLES_KEY, answer_pairs

        return {HOLES_KEY: answer_pairs(record)}
    from ..eval.open_values import VALUE_TASKS, answer_of

    if scorer in VALUE_TASKS:  # record families' named values (foldsim.eval.open_values)
        return answer_of(scorer, record)
    if scorer == "planning":
        return {"folds": [code_of_entry(e) for e in record.get("foldingTypes") or []], "holes": record.get("initialHoles") or []}
    answer = {k: record[k] for k in ANSWER_FIELDS.get(scorer, ()) if k in record}
    if scorer == "text":
        answer["resultHoles"] = [{k: v for k, v in h.items() if k != "direction"} for h in answer.get("resultHoles", [])]
    return answer


def _options(scorer: str, record: dict) -> tuple[tuple[str, str], ...]:
    """The options of a choice or plan-choice item as (label, text): the option's result holes as
    JSON, or its fold codes; a record family's option (neither) its own content as JSON, without
    its label and its named mistake (`error`, `errorDetail`)."""
    if scorer not in ("choice", "plan-choice") or not isinstance(record.get("options"), list):
        return ()
    out = []
    for option in record["options"]:
        if "foldingTypes" in option:
            text = ", ".join(code_of_entry(e) for e in option["foldingTypes"])
        elif "resultHoles" not in option and isinstance(option, dict):
            text = json.dumps({k: v for k, v in option.items() if k not in ("label", "error", "errorDetail")},
                              default=str)
        else:
            text = json.dumps(option.get("resultHoles"))
        out.append((str(option.get("label")), text))
    return tuple(out)


#: the families whose exports also carry their peer's lmms-eval document fields and task shape
#: (STARE's `stare_folding_nets`: qid, question, images, answer, category)
PEER_TASKS = {"stare": "stare_folding_nets"}


def peer_doc(record: dict) -> tuple[tuple[str, str], ...]:
    """The peer task's own document fields of a record family's row (STARE: `qid` and `category`,
    the record's id and level, so STARE's per-category accuracy is foldsim's per-level one)."""
    if record.get("family") not in PEER_TASKS:
        return ()
    return (("qid", str(record["id"])), ("category", str(record.get("level"))))


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
    from ..eval.open_values import VALUE_TASKS, truth_values
    from ..eval.score_base import truth_item

    scorer = prompt.task.score or prompt.task.name
    family = is_family_record(record)
    if not family:
        Config.from_record(record)
    if scorer in CHOICE_TASKS:
        truth_of(scorer, record, 0)
    elif scorer == "holes":
        from ..eval.holes import truth_pairs

        truth_pairs(record)
    elif scorer in VALUE_TASKS:
        truth_values(scorer, record)
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
                      video, source, _options(scorer, record), peer_doc(record))


def export_items(dataset: str | Path, task: str, modality: str, *, templates=None, workers: int = 1,
                 console=None) -> tuple[list[ExportItem], dict[str, str], int]:
    """The rows of a dataset for a task and modality, the items left out (id -> reason) and how
    many items had their missing media rendered first. InputError when the dataset or the template
    cannot be used at all."""
    from ..eval.prompts import ItemError, load_prompt, resolve_dataset, task_items
    from ..dataset.media import SHEET_FILE, MediaRequest, render_items, renderable, write_sheet

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
        from ..eval.holes import score_holes

        answers = [replace(answer_of_completion(response, i), id=str(r.get("id")))
                   for i, (r, response) in enumerate(zip(records, responses))]
        return score_holes(records, answers).to_dict()
    from ..eval.open_values import VALUE_TASKS

    if scorer in VALUE_TASKS:  # record families' named values
        from ..eval.answers import answer_of_completion
        from ..eval.open_values import answer_names, score_values

        keys = answer_names(scorer, records)
        answers = [replace(answer_of_completion(response, i, keys=keys), id=str(r.get("id")))
                   for i, (r, response) in enumerate(zip(records, responses))]
        return score_values(scorer, records, answers).to_dict()
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


def _video_path(item: ExportItem) -> str | None:
    return f"{VIDEO_DIR}/{item.video_source}" if item.video is not None else None


