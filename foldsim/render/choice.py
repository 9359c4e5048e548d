"""Media of the choice tasks (foldsim.dataset.choice): option images, the composite question image
like the printed test, text grids, and the cue's picture and grid.

Nothing in a picture or a file name gives the answer away: option files are named by label only,
every option is drawn in the same style (the unfolded sheet with its holes, no legend, no error
model), and no result image or unfolding video of the item is written. Layout under the dataset
root (`media_paths`; `record_media` names a record's files from what it holds, so drawing never
needs the record's media fields):

    choice_questions/<id>.png                        the question: step panels, cue, options A, B, ...
    choice_options/<item>/<item>_option_<L>.png      one option (plan-choice: its fold sequence)
    choice_options/<item>/<item>_target.png          plan-choice: the target pattern
    img_text_outputs/<id>/img/<id>_fold_<k>_...png   step images (initial, actions, punching)
    img_text_outputs/<id>/img/<id>_cue.png           the cue: the folded state after its step
    img_text_outputs/<id>/text/<id>_textual_steps.txt, _textual_options.txt, _textual_cue.txt
    folding_videos/PF_<n>_animation.mp4              --video: the folding video only
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..codes import code_of_entry
from ..config import Config
from ..errors import InputError
from ..holes import parse_holes
from ..io import atomic_write_bytes, atomic_write_text
from ..mesh import TriangleSheet
from ..trace import trace
from .images import ImageStyle, png_bytes, sheet_image, step_images
from .text import grid_chars, grid_text, steps_text, text_dir

PANEL = 220  # pixels per sheet panel in the composite
GAP = 24
CAPTION = 30  # pixels of caption above a panel
MAX_COLUMNS = 5  # options per row of the composite
BACKGROUND = (255, 255, 255)
INK = (0, 0, 0)
CUE_FRAME = (200, 120, 0)


def media_paths(task: str, record_id: str, item_id: str, labels: Sequence[str], *, cue: bool = False) -> dict:
    """The record's media fields (paths relative to the dataset root) for a choice, split or
    plan-choice record `record_id` of item `item_id` (cue variants of an item share its options
    and its folding video). `optionImgs` lists the option images in label order."""
    folder = f"choice_options/{item_id}"
    fields: dict = {"questionImg": f"choice_questions/{record_id}.png",
                    "optionImgs": [f"{folder}/{item_id}_option_{label}.png" for label in labels]}
    if task == "plan-choice":
        fields["targetImg"] = f"{folder}/{item_id}_target.png"
    else:
        from .animation import video_paths

        fields["foldingVideo"] = video_paths(Path(), item_id)["folding"].as_posix()
    if cue:
        fields["cueImg"] = f"img_text_outputs/{record_id}/img/{record_id}_cue.png"
    return fields


#: the task of each choice taskType (the `task` of `media_paths`)
TASK_OF_TYPE = {"Choice": "choice", "Split": "split", "PlanChoice": "plan-choice"}
#: a cue variant's id when several cue conditions are written: the item's id and `_c<j>`
#: (foldsim.dataset.choice.record_id)
CUE_VARIANT = re.compile(r"(.+)_c[0-9]+")
#: what may go into a media file name: an id or an option label
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def _name(record: dict, field: str, value: object = None) -> str:
    """`record[field]` (or `value`, found at `field`) as it goes into a media file name."""
    value = record.get(field) if value is None else value
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise InputError("missing, or not usable in file names (letters, digits, _ . - only): it names the "
                         "item's media files", item=str(record.get("id")), field=field)
    return value


def choice_item_id(record: dict) -> str:
    """The item a choice, split or plan-choice record asks about, whose id names its option images
    and folding video: the record's id or, for a split row, the id of the choice record it was split
    from (`item`), less the `_c<j>` of a cue variant (a record with a `cue`)."""
    parent = _name(record, "item" if record.get("taskType") == "Split" else "id")
    variant = CUE_VARIANT.fullmatch(parent) if "cue" in record else None
    return variant.group(1) if variant else parent


def record_media(record: dict) -> dict:
    """The media fields of a choice, split or plan-choice record, from what it holds (its id, task
    type, option labels, cue and item), whether or not it lists them: what `render_choice_media`
    writes and what a data file may name (foldsim.dataset.media.listed). Split rows: `questionImg`
    and `optionImg` (their own question, their option), `foldingVideo` and `cueImg` (their choice
    record's). InputError (naming the item and field) for a record that cannot name them."""
    task = TASK_OF_TYPE.get(record.get("taskType"))
    if task is None:
        raise InputError("not a choice task (Choice, Split or PlanChoice)", item=str(record.get("id")),
                         field="taskType")
    cue = isinstance(record.get("cue"), dict) and record["cue"].get("kind", "none") != "none"
    item = choice_item_id(record)
    if task == "split":
        parent = _name(record, "item")
        fields = media_paths(task, parent, item, [_name(record, "option")], cue=cue)
        return {"questionImg": f"choice_questions/{_name(record, 'id')}.png", "optionImg": fields["optionImgs"][0],
                **{k: fields[k] for k in ("foldingVideo", "cueImg") if k in fields}}
    options = record.get("options")
    if not isinstance(options, list) or not options or not all(isinstance(o, dict) for o in options):
        raise InputError("missing or not a list of options: they name the option images", item=str(record.get("id")),
                         field="options")
    labels = [_name(record, f"options[{i}].label", o.get("label")) for i, o in enumerate(options)]
    return media_paths(task, _name(record, "id"), item, labels, cue=cue)


# -- drawing ----------------------------------------------------------------------------------------


def _font(pixels: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=pixels)


def option_image(holes, size: int = PANEL, *, sheet: TriangleSheet) -> Image.Image:
    """One option: the unfolded sheet and its holes (the same drawing for every option)."""
    return sheet_image(sheet.everywhere(), tuple(holes), size, sheet=sheet)


def captioned_grid(panels: Sequence[tuple[str, Image.Image]], columns: int, *, frame: tuple | None = None) -> Image.Image:
    """Panels with a caption above each, `columns` to a row."""
    rows = -(-len(panels) // columns)
    width = columns * PANEL + (columns + 1) * GAP
    height = rows * (PANEL + CAPTION) + (rows + 1) * GAP
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = _font(20)
    for k, (caption, panel) in enumerate(panels):
        x = GAP + (k % columns) * (PANEL + GAP)
        y = GAP + (k // columns) * (PANEL + CAPTION + GAP)
        draw.text((x + PANEL // 2, y + CAPTION // 2), caption, fill=INK, font=font, anchor="mm")
        image.paste(panel.resize((PANEL, PANEL)), (x, y + CAPTION))
        if frame is not None:
            draw.rectangle((x - 4, y + CAPTION - 4, x + PANEL + 3, y + CAPTION + PANEL + 3), outline=frame, width=3)
    return image


def stacked(parts: Sequence[Image.Image]) -> Image.Image:
    """Images one under the other, left-aligned, separated by a thin rule."""
    width = max(p.width for p in parts)
    height = sum(p.height for p in parts) + GAP * (len(parts) - 1)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    y = 0
    for k, part in enumerate(parts):
        if k:
            draw.line((GAP, y - GAP // 2, width - GAP, y - GAP // 2), fill=(160, 160, 160), width=2)
        image.paste(part, (0, y))
        y += part.height + GAP
    return image


def step_panels(history, *, sheet: TriangleSheet) -> list[tuple[str, Image.Image]]:
    """The question's panels: the sheet before, after every action, and when punched."""
    n = len(history.steps)
    panels = [("start", sheet_image(sheet.everywhere(), sheet=sheet))]
    panels += [(f"step {k}", sheet_image(history.paper(k), sheet=sheet)) for k in range(1, n + 1)]
    panels.append(("punch", sheet_image(history.paper(n), history.config.holes, sheet=sheet)))
    return panels


def cue_panel(record: dict, *, sheet: TriangleSheet) -> tuple[str, Image.Image] | None:
    cue = record.get("cue") or {}
    if cue.get("kind", "none") == "none":
        return None
    return f"hint: after step {cue['step']}", sheet_image(cue_paper(cue), sheet=sheet)


def cue_paper(cue: dict) -> np.ndarray:
    """bool[T]: the paper of the cue's folded state, read back from its text grid."""
    chars = [c for c in cue["grid"] if c in "01"]
    return np.array([c == "1" for c in chars], dtype=bool)


def option_holes(record: dict) -> dict[str, tuple]:
    """The holes of every option of a choice record (a split row carries its own option only)."""
    if "options" in record:
        return {o["label"]: parse_holes(o["resultHoles"], "resultHoles") for o in record["options"]}
    return {record["option"]: parse_holes(record["optionHoles"], "optionHoles")}


def choice_question(record: dict, history, *, sheet: TriangleSheet) -> Image.Image:
    """The composite question of a choice (or split) record: step panels, the cue, the options."""
    steps = step_panels(history, sheet=sheet)
    options = [(label, option_image(holes, sheet=sheet)) for label, holes in option_holes(record).items()]
    columns = max(min(len(options), MAX_COLUMNS), 1)
    parts = [captioned_grid(steps, len(steps))]
    cue = cue_panel(record, sheet=sheet)
    if cue is not None:
        parts.append(captioned_grid([cue], 1, frame=CUE_FRAME))
    parts.append(captioned_grid(options, columns))
    return stacked(parts)


def plan_strip(codes: Sequence[str], *, sheet: TriangleSheet) -> Image.Image:
    """A fold sequence as the sheet after each fold, in one row."""
    history = trace(Config.from_codes(codes))
    panels = [(f"{k}: {code}", sheet_image(history.paper(k), sheet=sheet)) for k, code in enumerate(codes, 1)]
    return captioned_grid(panels, len(panels))


def labelled_strip(label: str, strip: Image.Image) -> Image.Image:
    image = Image.new("RGB", (strip.width + 60, strip.height), BACKGROUND)
    ImageDraw.Draw(image).text((30, strip.height // 2), label, fill=INK, font=_font(28), anchor="mm")
    image.paste(strip, (60, 0))
    return image


def plan_question(record: dict, strips: dict[str, Image.Image], *, sheet: TriangleSheet) -> Image.Image:
    """The composite of a plan-choice record: the target, then each labelled fold sequence."""
    target = sheet_image(sheet.everywhere(), parse_holes(record["resultHoles"], "resultHoles"), sheet=sheet)
    return stacked([captioned_grid([("target", target)], 1), *(labelled_strip(l, s) for l, s in strips.items())])


# -- text ---------------------------------------------------------------------------------------------


def holes_text(holes, *, sheet: TriangleSheet) -> str:
    """A drawing in text: its grid, then its holes one per line with their directions (a grid
    shows no directions, and options may differ in directions only)."""
    lines = "\n".join("- " + json.dumps(hole.to_dict()) for hole in holes)
    return f"{grid_text(grid_chars(sheet.everywhere(), holes), sheet=sheet)}\nIts holes:\n{lines}"


def options_text(record: dict, *, sheet: TriangleSheet) -> str:
    """Every option as text (`holes_text`), `Option A:` first."""
    return "\n\n".join(f"Option {label}:\n{holes_text(holes, sheet=sheet)}"
                       for label, holes in option_holes(record).items())


def plan_options_text(record: dict, papers: Sequence[Sequence[np.ndarray]], *, sheet: TriangleSheet) -> str:
    """The target grid, then every option's codes and the grid after each of its folds (`papers`:
    per option, the bool[T] paper after each fold)."""
    blocks = [f"Target:\n{holes_text(parse_holes(record['resultHoles'], 'resultHoles'), sheet=sheet)}"]
    for option, steps in zip(record["options"], papers):
        codes = [code_of_entry(e) for e in option["foldingTypes"]]
        grids = "\n".join(f"After {code}:\n{grid_text(grid_chars(paper), sheet=sheet)}"
                          for code, paper in zip(codes, steps))
        blocks.append(f"Option {option['label']}: {', '.join(codes)}\n{grids}")
    return "\n\n".join(blocks)


def cue_text(cue: dict) -> str:
    """The cue as text ("" for no cue): the folded paper after its step, as a grid."""
    if (cue or {}).get("kind", "none") == "none":
        return ""
    return f"Hint: the folded paper after step {cue['step']}:\n{cue['grid']}"


# -- files ----------------------------------------------------------------------------------------------


def _write_png(root: Path, relative: str, image: Image.Image, written: list[Path]) -> None:
    atomic_write_bytes(root / relative, png_bytes(image))
    written.append(root / relative)


def render_choice_media(record: dict, out_dir: str | Path, modalities: Sequence[str] = ("images", "text"),
                        animation=None, *, sheet: TriangleSheet) -> list[Path]:
    """Write the media of one choice, split or plan-choice record under the dataset root `out_dir`
    ("images": question composite, option images, step images, cue image; "text": step, option
    and cue grids; "video": the folding video, with `animation` the AnimationOptions), drawn on
    `sheet` (the one the record's configuration folds), at the paths `record_media` names (the
    record's own media fields are not read: a data file lists them only once they are written).
    Returns the files written. Raises InputError (naming the item) for an item the simulator cannot
    answer or whose media cannot be named."""
    root = Path(out_dir)
    written: list[Path] = []
    item_id = str(record["id"])
    paths = record_media(record)
    if record.get("taskType") == "PlanChoice":
        strips = {o["label"]: plan_strip([code_of_entry(e) for e in o["foldingTypes"]], sheet=sheet)
                  for o in record["options"]}
        if "images" in modalities:
            for path, strip in zip(paths["optionImgs"], strips.values()):
                _write_png(root, path, strip, written)
            target = sheet_image(sheet.everywhere(), parse_holes(record["resultHoles"], "resultHoles"), sheet=sheet)
            _write_png(root, paths["targetImg"], target, written)
            _write_png(root, paths["questionImg"], plan_question(record, strips, sheet=sheet), written)
        if "text" in modalities:
            path = text_dir(root, item_id) / f"{item_id}_textual_options.txt"
            atomic_write_text(path, record["optionsText"])
            written.append(path)
        return written
    history = trace(record)
    from .text import require_ok

    require_ok(history)
    cue = record.get("cue") or {}
    has_cue = cue.get("kind", "none") != "none"
    if "images" in modalities:
        for name, image in step_images(history, item_id, sheet=sheet)[:-1]:  # never the result image
            _write_png(root, f"img_text_outputs/{item_id}/img/{name}", image, written)
        images = [paths["optionImg"]] if "option" in record else paths["optionImgs"]
        for path, holes in zip(images, option_holes(record).values()):
            _write_png(root, path, option_image(holes, sheet=sheet), written)
        _write_png(root, paths["questionImg"], choice_question(record, history, sheet=sheet), written)
        if has_cue:
            _write_png(root, paths["cueImg"], sheet_image(cue_paper(cue), (), ImageStyle().width // 3, sheet=sheet),
                       written)
    if "text" in modalities:
        folder = text_dir(root, item_id)
        options = record["optionText"] if "option" in record else record["optionsText"]
        files = {folder / f"{item_id}_textual_steps.txt": steps_text(history, sheet=sheet),
                 folder / f"{item_id}_textual_options.txt": options}
        if has_cue:
            files[folder / f"{item_id}_textual_cue.txt"] = record["cueText"]
        for path, content in files.items():
            atomic_write_text(path, content)
            written.append(path)
    if "video" in modalities:  # one folding video per item, shared by its cue variants and split rows
        written.append(write_folding_video(history, root, paths["foldingVideo"], animation, sheet=sheet))
    return written


def write_folding_video(history, root: Path, relative: str, animation=None, *, sheet: TriangleSheet) -> Path:
    """The folding video alone (the unfolding video would show the answer)."""
    from .animation import AnimationOptions, Mp4Sink, folding_frames

    opts = animation or AnimationOptions()
    path = root / relative
    sink = Mp4Sink(path, opts.width, opts.height, opts.folding_fps)
    try:
        for frame in folding_frames(history, opts, sheet=sheet):
            sink.write(frame)
        return sink.commit()
    except BaseException:
        sink.abort()
        raise
