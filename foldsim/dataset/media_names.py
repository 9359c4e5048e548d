"""Where a record's media files live, relative to the dataset folder: the record fields that name
them (MEDIA_FIELDS), a MentalBlackboard item's 3-D assets, 2-D step images, result image and text
grids, named as foldsim.dataset.media writes them (through foldsim.render) and as the generator,
the choice tasks, the prompts (foldsim.eval.prompts) and the family records read them.

`ItemError` is the one error for an item whose record cannot name (or be prompted with) its media.
"""

from __future__ import annotations

from pathlib import Path

from ..codes import code_of_entry, entry_of_code
from ..errors import InputError

#: the record fields naming 3-D assets, in the published order (formats §1.2)
ASSET_FIELDS = ("foldingVideo", "foldingFramesDir", "unfoldingVideo", "unfoldingFramesDir", "resultImg")
#: the record fields naming image files (a path or a list of paths, relative to the dataset folder):
#: family items' question, steps and option images (foldsim.dataset.family_media; a record family's
#: step pictures are a list, `stepsImgs`), and the choice tasks' question, option, target and cue
#: images (foldsim.render.choice.record_media)
IMAGE_FIELDS = ("questionImg", "stepsImg", "stepsImgs", "optionImgs", "optionImg", "targetImg", "cueImg")
#: every field that says which media files an item has: a record lists one only once they are there
MEDIA_FIELDS = (*ASSET_FIELDS, *IMAGE_FIELDS)


class ItemError(InputError):
    """One item cannot be put into a prompt (a media file or record field is missing)."""


def record_id(record: dict) -> str:
    return str(record.get("id", "?"))


def step_codes(record: dict) -> list[str]:
    """The record's action codes (ItemError naming the entry when one is unreadable)."""
    entries = record.get("foldingTypes")
    if not isinstance(entries, list):
        raise ItemError("missing or not a list", item=record_id(record), field="foldingTypes")
    codes = []
    for index, entry in enumerate(entries):
        try:
            codes.append(code_of_entry(entry))
        except InputError as err:
            raise ItemError(err.message, item=record_id(record), field=f"foldingTypes[{index}]") from None
    return codes


def step_image_sources(record: dict) -> list[str]:
    """The 2-D step images shown as the steps, relative to the dataset folder: initial sheet, one
    per action, punching (the result image is not a step). The names follow
    foldsim.render.images.step_image_names, which draws them (a test keeps the two equal)."""
    item = record_id(record)
    folder = f"img_text_outputs/{item}/img"
    actions = [f"{folder}/{item}_fold_{k}_{entry_of_code(code)['foldType']}.png" for k, code in enumerate(step_codes(record), 1)]
    return [f"{folder}/{item}_fold_0_initial.png", *actions, f"{folder}/{item}_punching_holes.png"]


def result_image_source(record: dict) -> str:
    item = record_id(record)
    return f"img_text_outputs/{item}/img/{item}_result_holes.png"


def text_source(record: dict, kind: str) -> str:
    """The text grid files (foldsim.render.text): kind "steps" or "final_result"."""
    item = record_id(record)
    return f"img_text_outputs/{item}/text/{item}_textual_{kind}.txt"


def asset_fields(item_id: str) -> dict:
    """The record's media fields for an item id (foldingVideo ... resultImg), relative to the
    dataset root; the names come from the animation module that writes the files."""
    paths = asset_paths(item_id)
    return {name: paths[name] for name in ASSET_FIELDS}


def asset_paths(item_id: str) -> dict[str, str]:
    """ASSET_FIELDS -> path relative to the dataset root (frames fields: the folder)."""
    from ..render.animation import video_paths

    paths = {key: path.as_posix() for key, path in video_paths(Path(), item_id).items()}
    return {"foldingVideo": paths["folding"], "foldingFramesDir": paths["folding_frames"],
            "unfoldingVideo": paths["unfolding"], "unfoldingFramesDir": paths["unfolding_frames"],
            "resultImg": paths["result"]}
