"""Prompts as templates: what a model is shown for one item of a task, in one modality.

A task is files, not code: `<task>.toml` says what the task is (its scorer, which record fields are
its answer, whether items come in pairs) and `<task>.<modality>.txt` is the wording for one
modality (`text` grids, `images` = 2-D step images, `frames` = 3-D frames, `video` = the MP4).
Templates are looked up in a user folder first (`--templates DIR`, same file names), then in the
built-in folder `foldsim/eval/templates/`, so one file can be replaced (say, by the paper's exact
wording) and a new task added by dropping files into DIR.

Template syntax (no dependency; every other character is literal text):

    {{name}}        a view of the item: text (holes, counts, grids) or media parts (images, video)
    {{> fragment}}  the file `fragment.txt` (or `_fragment.txt`), looked up like templates
    {{# note}}      a comment; a line holding only a comment disappears with its line break

Views (see VIEWS; `example_*` views show the paired original of a generalization item):

    sheet                       the numbered sheet image (paper_structure.png)
    steps, example_steps        the folding steps in the modality: text grids (text), the initial,
                                per-action and punching images (images), the folding frames
                                (frames), the folding video (video)
    result, example_result      the unfolded sheet: the final text grid, the result image
                                (`_result_holes.png`), or the 3-D result image (`resultImg`)
    initial_holes, result_holes, example_initial_holes, example_result_holes
                                one JSON hole per line: {"shape", "size", "direction", "location"}
    num_steps, num_folds, num_rotations, num_initial_holes, id
    record.FIELD                a record field as text (strings as they are, anything else as JSON)
    media.FIELD                 media named by a record field: a path, a list of paths, or a folder
                                of images (paths relative to the dataset folder)
    option_images               a family item's option images (`optionImgs`), each after its label
                                "Option A:", ..., when its question image is the steps row alone
                                (VisFactor); nothing when the question image is a composite that
                                shows the options (SpatialViz, SRBench, MentalBlackboard)
                                or a record family's, where it names them (its record has no
                                `stepsImg`)
    steps_images                a record family's step pictures (`stepsImgs`), nothing without them
    question_with_images        a record family's question with its pictures at its `<image_k>` marks
    open_images                 an open question's pictures: `stepsImg` (point-hole families), else
                                `questionImg` and `stepsImgs`
    count_question, opposite_question
                                the open task's question and its answer form (names, never values;
                                a point-hole record's count question is worded from its sheet)

No leak: every view declares the record fields it shows, and a template that uses a view showing
one of its task's `answer_fields` is refused (TemplateError) before any prompt is built. The
built-in tasks list every answer field (result holes and images, unfolding codes, videos and
frames; for planning also the folds and punches), and tests render every task and modality with
canary answers to prove none reaches a prompt.

The task and template files are read and compiled by foldsim.eval.prompt_templates; this module
fills them with an item's views.

A message is a list of parts in order: text, image or video. Media parts carry the file's path
relative to the dataset folder; the request writers (foldsim.eval.requests) inline them as base64
or turn them into URLs. A missing media file is an ItemError naming the item and the file, and so
is a media path that leaves the dataset folder (absolute, or through `..`): a record cannot make a
request file carry a file from elsewhere on the machine.

Size (~620 lines): the views are this module's one job; every view a template may name is here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..dataset.media_names import (ItemError, record_id, result_image_source, step_codes, step_image_sources,
                                   text_source)
from ..errors import InputError
from ..io import read_records
from .prompt_templates import (
    BUILTIN_TEMPLATES, MODALITIES, TaskSpec, TemplateError, Templates, compile_template, template_name,
)

SHEET_FILE = "paper_structure.png"  # the dataset layout's numbered sheet (foldsim.dataset.media)
MOD_SUFFIX = "_mod"
IMAGE_SUFFIXES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
                  ".gif": "image/gif"}
VIDEO_SUFFIXES = {".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime"}


# --------------------------------------------------------------------------------------------------
# messages


@dataclass(frozen=True)
class Part:
    """One piece of a message: text, or an image/video file of the dataset.

    `source` is the media file's path relative to the dataset folder (what URLs are built from),
    `path` the file itself and `mime` its media type.
    """

    kind: str  # "text" | "image" | "video"
    text: str = ""
    source: str = ""
    path: Path | None = None
    mime: str = ""

    @property
    def is_media(self) -> bool:
        return self.kind != "text"


@dataclass(frozen=True)
class Message:
    """A chat message: a role ("system" or "user") and its parts in order."""

    role: str
    parts: tuple[Part, ...]

    def preview(self) -> str:
        """The message as readable text, media shown as `[image: <source>]`."""
        return "\n".join(p.text if not p.is_media else f"[{p.kind}: {p.source}]" for p in self.parts)


def text_part(text: str) -> Part:
    return Part("text", text=text)


def inside_dataset(source: str) -> bool:
    """Whether a record's media path names something inside the dataset folder (not the folder
    itself): relative, no `..` part. Records are data from anywhere; their paths must not reach out."""
    parts = Path(source).parts
    return bool(source) and not Path(source).is_absolute() and ".." not in parts and any(p != "." for p in parts)


def media_part(root: Path, source: str, item: str, view: str) -> Part:
    """A media part for a file of the dataset; ItemError names the item and the file if it is
    missing or of a kind no provider takes."""
    if not inside_dataset(source):
        raise ItemError(f"{source}: a media path must be relative to the dataset folder and stay inside it",
                        item=item, field=view)
    path = root / source
    suffix = path.suffix.lower()
    kind, mime = ("image", IMAGE_SUFFIXES[suffix]) if suffix in IMAGE_SUFFIXES else (
        ("video", VIDEO_SUFFIXES[suffix]) if suffix in VIDEO_SUFFIXES else ("", ""))
    if not kind:
        raise ItemError(f"{source}: not an image or video file", item=item, field=view)
    if not path.is_file():
        raise ItemError(f"missing media file {source}", item=item, field=view)
    return Part(kind, source=source, path=path, mime=mime)


# --------------------------------------------------------------------------------------------------
# views


@dataclass(frozen=True)
class Context:
    """What a view may look at: the item's record, its example (generalization), the modality and
    the dataset folder media paths are relative to."""

    record: dict
    modality: str
    root: Path
    example: dict | None = None

    @property
    def item(self) -> str:
        return str(self.record.get("id", "?"))


@dataclass(frozen=True)
class View:
    """A named piece of an item a template can show, and the record fields it shows (the
    answer-field guard refuses a view that shows one of the task's answer fields)."""

    name: str
    shows: frozenset[str]
    render: Callable[[Context], list[Part]]


def _of_example(render: Callable[[Context, dict], list[Part]]) -> Callable[[Context], list[Part]]:
    def on_example(ctx: Context) -> list[Part]:
        if ctx.example is None:
            raise ItemError("this template shows an example, but the item has none (generalization items are "
                            "`_mod` records shown with their original)", item=ctx.item)
        return render(ctx, ctx.example)
    return on_example


def _of_item(render: Callable[[Context, dict], list[Part]]) -> Callable[[Context], list[Part]]:
    return lambda ctx: render(ctx, ctx.record)


def _path_field(record: dict, name: str, modality: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value:
        raise ItemError(f"the record has no {name}, so this dataset has no {modality} media for it "
                        f"(render them first)", item=record_id(record), field=name)
    return value


def _read_text(ctx: Context, record: dict, source: str, view: str) -> list[Part]:
    path = ctx.root / source
    try:
        return [text_part(path.read_text(encoding="utf-8").strip("\n"))]
    except FileNotFoundError:
        raise ItemError(f"missing media file {source}", item=record_id(record), field=view) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ItemError(f"cannot read {source}: {err}", item=record_id(record), field=view) from None


def folder_images(ctx: Context, record: dict, folder: str, view: str) -> list[Part]:
    """Every image in a dataset folder, in name order (frame_0000.png, frame_0001.png, ...)."""
    if not inside_dataset(folder):
        raise ItemError(f"{folder}: a media path must be relative to the dataset folder and stay inside it",
                        item=record_id(record), field=view)
    path = ctx.root / folder
    if not path.is_dir():
        raise ItemError(f"missing media folder {folder}", item=record_id(record), field=view)
    names = sorted(p.name for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
    if not names:
        raise ItemError(f"no images in {folder}", item=record_id(record), field=view)
    return [media_part(ctx.root, f"{folder.rstrip('/')}/{name}", record_id(record), view) for name in names]


def steps_parts(ctx: Context, record: dict) -> list[Part]:
    """The folding steps of `record` in the context's modality."""
    item, view = record_id(record), "steps"
    if ctx.modality == "text":
        return _read_text(ctx, record, text_source(record, "steps"), view)
    if ctx.modality == "images":
        return [media_part(ctx.root, source, item, view) for source in step_image_sources(record)]
    if ctx.modality == "frames":
        return folder_images(ctx, record, _path_field(record, "foldingFramesDir", "frames"), view)
    return [media_part(ctx.root, _path_field(record, "foldingVideo", "video"), item, view)]


def result_parts(ctx: Context, record: dict) -> list[Part]:
    """The unfolded sheet of `record` in the context's modality (3-D modalities: `resultImg`)."""
    item, view = record_id(record), "result"
    if ctx.modality == "text":
        return _read_text(ctx, record, text_source(record, "final_result"), view)
    if ctx.modality == "images":
        return [media_part(ctx.root, result_image_source(record), item, view)]
    return [media_part(ctx.root, _path_field(record, "resultImg", "3-D result image"), item, view)]


HOLE_KEYS = ("shape", "size", "direction", "location")


def hole_lines(record: dict, name: str) -> str:
    """One JSON object per hole, in the answer's own form (`- {"shape": ..., "location": 17}`)."""
    holes = record.get(name)
    if not isinstance(holes, list):
        raise ItemError("missing or not a list", item=record_id(record), field=name)
    lines = []
    for index, hole in enumerate(holes):
        if not isinstance(hole, dict):
            raise ItemError("a hole must be an object", item=record_id(record), field=f"{name}[{index}]")
        lines.append("- " + json.dumps({k: hole.get(k) for k in HOLE_KEYS}))
    return "\n".join(lines)


def _holes_view(name: str) -> Callable[[Context, dict], list[Part]]:
    return lambda ctx, record: [text_part(hole_lines(record, name))]


def _count_view(count: Callable[[dict], int]) -> Callable[[Context, dict], list[Part]]:
    return lambda ctx, record: [text_part(str(count(record)))]


def _n_holes(record: dict) -> int:
    holes = record.get("initialHoles")
    if not isinstance(holes, list):
        raise ItemError("missing or not a list", item=record_id(record), field="initialHoles")
    return len(holes)


def _n_rotations(record: dict) -> int:
    """Rotations among the actions, counted from their names only (a planning record's folds are
    its answer: they are never parsed into a prompt, and may be absent)."""
    entries = record.get("foldingTypes")
    return sum(isinstance(e, dict) and str(e.get("foldType", "")).startswith("rotation") for e in entries) \
        if isinstance(entries, list) else 0


def _n_steps(record: dict) -> int:
    """Actions, rotations included: `numberofFoldingSteps`, else the length of `foldingTypes`."""
    declared = record.get("numberofFoldingSteps")
    if isinstance(declared, int) and not isinstance(declared, bool) and declared >= 0:
        return declared
    return len(step_codes(record))


STEP_FIELDS = frozenset({"foldingTypes", "initialHoles", "foldingVideo", "foldingFramesDir"})
RESULT_FIELDS = frozenset({"resultHoles", "totalNumberofHoles", "resultImg"})
COUNT_FIELDS = frozenset({"numberofFoldingSteps"})  # counts of actions only, never which

VIEWS: dict[str, View] = {view.name: view for view in (
    View("sheet", frozenset(), lambda ctx: [media_part(ctx.root, SHEET_FILE, ctx.item, "sheet")]),
    View("steps", STEP_FIELDS, _of_item(steps_parts)),
    View("result", RESULT_FIELDS, _of_item(result_parts)),
    View("initial_holes", frozenset({"initialHoles"}), _of_item(_holes_view("initialHoles"))),
    View("result_holes", frozenset({"resultHoles", "totalNumberofHoles"}), _of_item(_holes_view("resultHoles"))),
    View("num_steps", COUNT_FIELDS, _of_item(_count_view(_n_steps))),
    View("num_folds", COUNT_FIELDS, _of_item(_count_view(lambda r: _n_steps(r) - _n_rotations(r)))),
    View("num_rotations", COUNT_FIELDS, _of_item(_count_view(_n_rotations))),
    View("num_initial_holes", frozenset({"initialHoles"}), _of_item(_count_view(_n_holes))),
    View("id", frozenset({"id"}), lambda ctx: [text_part(ctx.item)]),
    # the paired original of a generalization item: shown in full, it is not the item's answer
    View("example_steps", frozenset(), _of_example(steps_parts)),
    View("example_result", frozenset(), _of_example(result_parts)),
    View("example_initial_holes", frozenset(), _of_example(_holes_view("initialHoles"))),
    View("example_result_holes", frozenset(), _of_example(_holes_view("resultHoles"))),
)}


def record_field_view(name: str) -> View:
    """`record.FIELD`: the field as text (strings as they are, other values as JSON)."""
    field_name = name.split(".", 1)[1]

    def render(ctx: Context) -> list[Part]:
        if field_name not in ctx.record:
            raise ItemError("missing", item=ctx.item, field=field_name)
        value = ctx.record[field_name]
        return [text_part(value if isinstance(value, str) else json.dumps(value))]
    return View(name, frozenset({field_name}), render)


def media_field_view(name: str) -> View:
    """`media.FIELD`: the files a field names (a path, a list of paths, or a folder of images)."""
    field_name = name.split(".", 1)[1]

    def render(ctx: Context) -> list[Part]:
        value = ctx.record.get(field_name)
        sources = value if isinstance(value, list) else [value]
        if not sources or not all(isinstance(s, str) and s for s in sources):
            raise ItemError("missing, or not a path or list of paths", item=ctx.item, field=field_name)
        parts: list[Part] = []
        for source in sources:
            if (ctx.root / source).is_dir():
                parts += folder_images(ctx, ctx.record, source, field_name)
            else:
                parts.append(media_part(ctx.root, source, ctx.item, field_name))
        return parts
    return View(name, frozenset({field_name}), render)


def option_images(ctx: Context) -> list[Part]:
    """A family item's option images (`optionImgs`), each after its label, when its question image
    is its steps image alone (VisFactor, whose options are asked one by one); nothing when the
    question image is a composite that already shows them (SpatialViz, SRBench, MentalBlackboard's
    family items, which list their option images too). A record family's record (no `stepsImg`;
    its steps, if any, are `stepsImgs`) shows its question alone: its `optionImgs`, where it names
    them, follow labelled."""
    question = ctx.record.get("questionImg")
    record_family = "stepsImg" not in ctx.record
    if record_family and ctx.record.get("optionImgs") is None:
        return []
    if not record_family and (question is None or question != ctx.record.get("stepsImg")):
        return []
    images = ctx.record.get("optionImgs")
    if images is None:
        raise ItemError("missing: the question image is the steps image alone, so the options must be their "
                        "own images", item=ctx.item, field="optionImgs")
    if not isinstance(images, list) or not images or len(images) > 26 or not all(isinstance(s, str) and s for s in images):
        raise ItemError("must be a list of 1 to 26 image paths (options A, B, ...)", item=ctx.item, field="optionImgs")
    parts: list[Part] = []
    for index, source in enumerate(images):
        label = chr(ord("A") + index)
        parts += [text_part(f"\nOption {label}:\n"), media_part(ctx.root, source, ctx.item, f"optionImgs[{index}]")]
    return parts


VIEWS["option_images"] = View("option_images", frozenset({"optionImgs"}), option_images)

MAX_STEP_IMAGES = 64


def steps_images(ctx: Context) -> list[Part]:
    """A record family's step pictures (`stepsImgs`, a list: a net's fold steps), in order;
    nothing when the record names none (every point-hole family record)."""
    images = ctx.record.get("stepsImgs")
    if images is None:
        return []
    if not isinstance(images, list) or len(images) > MAX_STEP_IMAGES or not all(isinstance(s, str) and s for s in images):
        raise ItemError(f"must be a list of at most {MAX_STEP_IMAGES} image paths", item=ctx.item, field="stepsImgs")
    return [media_part(ctx.root, source, ctx.item, f"stepsImgs[{k}]") for k, source in enumerate(images)]


_IMAGE_MARK = re.compile(r"<image_(\d{1,2})>")


def question_with_images(ctx: Context) -> list[Part]:
    """A record family's question with its pictures where it places them: STARE-style `<image_k>`
    marks, `<image_0>` the question image and `<image_k>` the k-th step picture, each mark replaced
    by its picture (every picture once, in the marks' order). A question without marks is the text,
    then the question image, then the step pictures."""
    question = ctx.record.get("question")
    if not isinstance(question, str) or not question:
        raise ItemError("missing, or not a text", item=ctx.item, field="question")
    pictures = [media_part(ctx.root, _path_field(ctx.record, "questionImg", "images"), ctx.item, "questionImg"),
                *steps_images(ctx)]
    marks = [int(m.group(1)) for m in _IMAGE_MARK.finditer(question)]
    if not marks:
        return [text_part(question), *pictures]
    if marks != list(range(len(pictures))):
        raise ItemError(f"its image marks {marks} are not <image_0> .. <image_{len(pictures) - 1}> in order, one per "
                        "picture (questionImg, then stepsImgs)", item=ctx.item, field="question")
    parts: list[Part] = []
    for k, text in enumerate(_IMAGE_MARK.split(question)):
        parts.append(pictures[int(text)] if k % 2 else text_part(text))
    return [part for part in parts if part.is_media or part.text]


def open_images(ctx: Context) -> list[Part]:
    """The pictures of an open question: a point-hole family record's steps (`stepsImg`, a path or
    MentalBlackboard's list; never the composite that shows the options), else the question image
    and the step pictures."""
    steps = ctx.record.get("stepsImg")
    if isinstance(steps, str) or (isinstance(steps, list) and steps and all(isinstance(s, str) for s in steps)):
        return [media_part(ctx.root, source, ctx.item, "stepsImg") for source in ([steps] if isinstance(steps, str) else steps)]
    return [media_part(ctx.root, _path_field(ctx.record, "questionImg", "images"), ctx.item, "questionImg"),
            *steps_images(ctx)]


def _open_question(task: str) -> Callable[[Context], list[Part]]:
    def render(ctx: Context) -> list[Part]:
        from .open_values import open_question

        try:
            return [text_part(open_question(task, ctx.record))]
        except InputError as err:
            raise ItemError(err.message, item=ctx.item, field=err.field) from None
    return render


VIEWS.update({view.name: view for view in (
    View("steps_images", frozenset({"stepsImgs"}), steps_images),
    View("question_with_images", frozenset({"question", "questionImg", "stepsImgs"}), question_with_images),
    View("open_images", frozenset({"stepsImg", "questionImg", "stepsImgs"}), open_images),
    # the question and the answer's names (never its values: the view does not show `<task>Answer`)
    View("count_question", frozenset({"countQuestion"}), _open_question("count")),
    View("opposite_question", frozenset({"oppositeQuestion"}), _open_question("opposite")),
)})


def view_named(name: str, where: str) -> View:
    if name in VIEWS:
        return VIEWS[name]
    if name.startswith("record."):
        return record_field_view(name)
    if name.startswith("media."):
        return media_field_view(name)
    raise TemplateError(f"unknown view {{{{{name}}}}} (expected one of {', '.join(VIEWS)}, record.FIELD, media.FIELD)",
                        item=where)


# --------------------------------------------------------------------------------------------------
# building prompts


@dataclass(frozen=True)
class Prompt:
    """A task's template for one modality, checked and ready to fill for any item."""

    task: TaskSpec
    modality: str
    template: str
    views: tuple[View, ...]
    segments: tuple[tuple[str, str], ...]
    fingerprint: str = ""

    def messages(self, record: dict, *, dataset_dir: str | Path, example: dict | None = None,
                 system: str | None = None) -> list[Message]:
        """The messages for one item (a system message first when `system` is given). Raises
        ItemError for an item whose media or fields are missing."""
        ctx = Context(record, self.modality, Path(dataset_dir), example)
        by_name = {view.name: view for view in self.views}
        parts: list[Part] = []
        for kind, value in self.segments:
            parts += [text_part(value)] if kind == "text" else by_name[value].render(ctx)
        user = Message("user", tuple(merge_text(parts)))
        return ([Message("system", (text_part(system),))] if system else []) + [user]


def merge_text(parts: Iterable[Part]) -> list[Part]:
    """Adjacent text parts joined, each stripped of surrounding blank space, empty ones dropped."""
    merged: list[Part] = []
    pending: list[str] = []

    def flush() -> None:
        text = "".join(pending).strip()
        if text:
            merged.append(text_part(text))
        pending.clear()

    for part in parts:
        if part.is_media:
            flush()
            merged.append(part)
        else:
            pending.append(part.text)
    flush()
    return merged


def load_prompt(task: str, modality: str, templates: Templates | str | Path | None = None) -> Prompt:
    """The checked template of a task for a modality. TemplateError when the task or modality is
    unknown, a view or fragment does not exist, or a view would show one of the task's answer
    fields."""
    templates = as_templates(templates)
    spec = templates.task(task)
    if modality not in MODALITIES:
        raise TemplateError(f"unknown modality {modality!r} (expected one of {', '.join(MODALITIES)})", field="modality")
    name = template_name(task, modality)
    if templates.find(name) is None:
        have = ", ".join(templates.modalities(task)) or "none"
        raise TemplateError(f"task {task!r} has no template for modality {modality!r} (no {name}; it has: {have})",
                            field="modality")
    compiled = compile_template(templates, name)
    where = str(templates.find(name))
    views = {n: view_named(n, where) for n in compiled.views}
    for view in views.values():
        leaked = sorted(view.shows & spec.answer_fields)
        if leaked:
            raise TemplateError(f"view {{{{{view.name}}}}} would show {', '.join(leaked)}, which the task "
                                f"{task!r} lists as its answer", item=where)
    return Prompt(spec, modality, where, tuple(views.values()), compiled.segments, templates.fingerprint(task, modality))


def as_templates(templates: Templates | str | Path | None) -> Templates:
    if isinstance(templates, Templates):
        return templates
    if templates is None:
        return Templates()
    folder = Path(templates)
    if not folder.is_dir():
        raise TemplateError("not a folder", item=str(folder), field="--templates")
    return Templates(folder)


def build_messages(record: dict, task: str, modality: str, *, dataset_dir: str | Path,
                   templates: Templates | str | Path | None = None, example: dict | None = None,
                   system: str | None = None) -> list[Message]:
    """The messages that put one item in front of a model: a system message when `system` is
    given, then one user message whose parts are text, images and videos in order.

    `dataset_dir` is the folder the record's media paths are relative to; `example` the original
    record of a generalization `_mod` item. Raises TemplateError (bad template) or ItemError (this
    item's media or fields are missing). Build many items with `load_prompt(...).messages(...)`.
    """
    return load_prompt(task, modality, templates).messages(record, dataset_dir=dataset_dir, example=example,
                                                           system=system)


# --------------------------------------------------------------------------------------------------
# a dataset's items


@dataclass(frozen=True)
class ItemPrompt:
    """One item of a dataset: its id and messages, or the error that kept it from a prompt."""

    id: str
    messages: list[Message] | None = None
    error: str | None = None

    @property
    def media(self) -> list[Part]:
        return [p for m in self.messages or () for p in m.parts if p.is_media]


def resolve_dataset(path: str | Path) -> Path:
    """The dataset file: `path` itself, or the one `PFHP_*_Data.json` in a dataset folder."""
    path = Path(path)
    if path.is_dir():
        found = sorted(path.glob("PFHP_*_Data.json")) or sorted(path.glob("*_items.json")) or sorted(path.glob("*.json"))
        if len(found) != 1:
            names = ", ".join(p.name for p in found) or "none"
            raise InputError(f"a dataset folder must hold one PFHP_*_Data.json file (found: {names})", item=str(path))
        return found[0]
    return path


def task_items(records: Sequence[object], spec: TaskSpec) -> tuple[list[tuple[dict, dict | None]], dict[str, str]]:
    """(record, example) per item of the task, and the records left out with why.

    Paired tasks ask about the `_mod` records and show each with its original; other tasks ask
    about every record. Ids must be unique strings or ints.
    """
    items, failed, seen = [], {}, set()
    dicts = []
    for index, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("id"), (str, int)) or isinstance(record.get("id"), bool):
            failed[f"record {index}"] = "a record must be an object with an id"
            continue
        item = str(record["id"])
        if item in seen:
            failed[item] = "id: appears more than once in the file"
            continue
        seen.add(item)
        dicts.append(record)
    if not spec.pairs:
        return [(r, None) for r in dicts], failed
    by_id = {str(r["id"]): r for r in dicts}
    for record in dicts:
        item = str(record["id"])
        if item.endswith(MOD_SUFFIX):
            original = by_id.get(item[: -len(MOD_SUFFIX)])
            if original is None:
                failed[item] = f"no original record {item[: -len(MOD_SUFFIX)]} in the file to show as the example"
            else:
                items.append((record, original))
    if not items and not failed:
        failed["dataset"] = f"task {spec.name!r} asks about `_mod` records shown with their original, and the file has none"
    return items, failed


def dataset_prompts(dataset: str | Path, task: str, modality: str, *, templates: Templates | str | Path | None = None,
                    system: str | None = None, prompt: Prompt | None = None) -> tuple[Prompt, Iterator[ItemPrompt]]:
    """The checked prompt and, lazily, every item of a dataset file as an ItemPrompt (media are
    looked up next to the file). Raises InputError/TemplateError when the file or the template
    cannot be used at all; a bad item becomes an ItemPrompt with an error."""
    path = resolve_dataset(dataset)
    prompt = prompt or load_prompt(task, modality, templates)
    records = read_records(path)
    items, failed = task_items(records, prompt.task)

    def generate() -> Iterator[ItemPrompt]:
        for item, reason in failed.items():
            yield ItemPrompt(item, error=f"{item}: {reason}")
        for record, example in items:
            try:
                messages = prompt.messages(record, dataset_dir=path.parent, example=example, system=system)
            except ItemError as err:
                yield ItemPrompt(str(record["id"]), error=str(err))
            else:
                yield ItemPrompt(str(record["id"]), messages)
    return prompt, generate()


def item_count(dataset: str | Path, task: str, templates: Templates | str | Path | None = None) -> int:
    """How many items a dataset has for a task (for progress bars)."""
    records = read_records(resolve_dataset(dataset))
    items, failed = task_items(records, as_templates(templates).task(task))
    return len(items) + len(failed)


__all__ = [
    "MODALITIES", "BUILTIN_TEMPLATES", "TemplateError", "ItemError", "Part", "Message", "TaskSpec", "Templates",
    "Prompt", "ItemPrompt", "VIEWS", "build_messages", "load_prompt", "dataset_prompts", "task_items",
    "resolve_dataset", "item_count", "step_image_sources",
]
