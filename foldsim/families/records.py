"""What a family record carries besides its item and options: the names of the images its rows
reference (drawn by foldsim.dataset.family_media), the questions as the family words them (the
multiple-choice one is `Family.question`; the open-ended holes task's here, scored by
foldsim.eval.holes), and a yes/no family's rows in foldsim's split format (VisFactor).

These are the record's data, written by `generate --family` and read by the evaluation road
(docs/families.md, Evaluation); nothing here draws, prompts a model or scores.
"""

from __future__ import annotations

from collections.abc import Sequence


def media_fields(family: str, item_id: str, labels: Sequence[str]) -> dict:
    """The record fields naming an item's images (relative to the dataset folder)."""
    fields = {"questionImg": f"{item_id}.png"}
    if family == "visfactor":
        fields["stepsImg"] = f"{item_id}.png"
        fields["optionImgs"] = [f"{item_id}_{label}.png" for label in labels]
    else:
        fields["stepsImg"] = f"{item_id}_steps.png"
    return fields


def image_names(fam, record: dict) -> list[str]:
    """The image files the family's own rows reference (drawn by foldsim.dataset.family_media)."""
    if fam.name == "visfactor":
        return [f"{record['id']}.png"] + [f"{record['id']}_{o['label']}.png" for o in record["options"]]
    return [f"{record['id']}.png"]


def open_question(record: dict) -> str:
    """The open-ended question of a family record: how to name holes on its sheet and the answer's form."""
    sheet = record["item"]["sheet"]
    cols, rows = sheet["cols"], sheet["rows"]
    if record.get("holeNames") == "cell":
        return (f"The sheet is a grid of {rows} rows and {cols} columns of cells. Name every hole of the completely "
                f"unfolded sheet by its cell: row (1 to {rows}, row 1 at the top) and column (1 to {cols}, column 1 "
                "at the left). End your reply with one line of JSON listing every hole once, for example:\n"
                '{"holes": [[1, 2], [3, 1]]}')
    return (f"Measure positions in units where the sheet is {cols} wide and {rows} high: x from the left edge, y up from "
            "the bottom edge. Give the centre of every hole of the completely unfolded sheet as exact fractions "
            "(\"1/3\") or decimals. End your reply with one line of JSON listing every hole once, for example:\n"
            '{"holes": [[0.25, 0.5], ["1/3", "2/3"]]}')


def split_records(record: dict) -> list[dict]:
    """A yes/no family record's rows in foldsim's split format (the rows `foldsim score split`
    reads; `item` is the shared item index)."""
    rows = []
    images = record.get("optionImgs") or []
    for k, option in enumerate(record["options"]):
        label = option["label"]
        row = {"id": f"{record['id']}_{label}", "taskType": "Split", "family": record["family"], "item": record["id"],
               "option": label, "level": record["level"], "answer": "yes" if label == record["answer"] else "no",
               "error": option.get("error"), "errorDetail": option.get("errorDetail"),
               "optionHoles": option["resultHoles"], "itemRecord": record["item"],
               "questionImg": record.get("questionImg"), "stepsImg": record.get("stepsImg"),
               "question": ("The first image shows a square sheet of paper being folded (each fold drawn as a dashed "
                            "line, the arrow shows which part moves) and, last, the folded paper with a hole punched "
                            "through it. Does the second image show the paper correctly unfolded?")}
        if k < len(images):
            row["optionImg"] = images[k]
        rows.append(row)
    return rows
