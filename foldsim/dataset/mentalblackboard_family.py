"""MentalBlackboard on the families' road: `foldsim generate --family mentalblackboard` (the dataset
layer writes it: its items come from the benchmark's own generator in this package).

The items come from the benchmark's own generator (foldsim.dataset.generate / choice, task
"choice"), so the benchmark's file (`PFHP_Choice_Data.json`) is exactly what `foldsim generate
--task choice` writes for the same count, seed (and groups). Next to it the same items are written
in foldsim's family item format (`mentalblackboard_items.json`, docs/families.md), so every family
tool reads them: `audit`, family-choice scoring, `simulate`, `fold`, `render-item`, export.

A family record holds the general item (`foldsim.presets.mentalblackboard_item`: the 4x4 sheet,
the fold codes as box-relative lines, every hole a point punch at its triangle's centroid), the key
and every option as exact point holes (location L -> the centroid of triangle L, the shape's
direction reduced by its symmetry as the benchmark writes it: `base.seen_as`), each option's error
model, the answer label, and the benchmark's record as `native`. The key is computed by the general
engine on the preset's 32 rigid triangles and must equal the benchmark kernel's answer (a
disagreement is a bug and stops the run). Image names (`questionImg`, `stepsImg`, `optionImgs`, and
the media fields of `native`, which is the row as the benchmark's file lists it) are listed only
where the item's verified manifest lists every file (`foldsim.dataset.media.listed`): none with
`--no-media` in a new folder, none for an item whose drawing failed.

Levels: the family's level table has one level, `all` (every structure group, as `--task choice`
draws them); `--level easy|medium|hard` is the benchmark's difficulty preset
(foldsim.dataset.levels), drawn from the structure groups that reach it (LEVEL_GROUPS). Each
record's `level` is the preset its difficulty score falls in (the score itself is `info.levelScore`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, describe
from ..sheets import PointHole

#: the family's one level name: no preset, every structure group
LEVEL_ALL = "all"
#: per difficulty preset, the structure groups drawn for it: a group is used when at least 5% of
#: its prediction draws score inside the preset (512 draws per group, seed 0; e.g. three_step:
#: easy 2.9%, medium 91%, hard 6.2%). A group that rarely reaches a preset would make
#: `draw_group_at_level` give up on it, and the whole run with it.
LEVEL_GROUPS = {
    "easy": ("one_step", "two_step", "two_step_with_rotation", "three_step_with_rotation"),
    "medium": ("two_step", "three_step", "two_step_with_rotation", "three_step_with_rotation",
               "four_step_with_rotation", "five_step_with_rotation"),
    "hard": ("three_step", "four_step", "three_step_with_rotation", "four_step_with_rotation",
             "five_step_with_rotation", "six_step_with_rotation"),
}
#: the multiple-choice question of the family record (the question image shows the steps and options)
QUESTION = ("The top row of the image shows a square sheet of paper, drawn as a grid of triangles, before the "
            "first step, after each fold or rotation and, last, folded with the punched holes: white triangles "
            "are paper, black triangles are places where no paper is left because it has been folded away. "
            "Which option below shows the paper after it is completely unfolded?")


def generate_options(count: int, seed: int, level: str | None, splits=(), first_id: int = 1):
    """The GenerateOptions of `generate --task choice` for the family's count, seed and level
    (validated: an InputError names the option)."""
    from .choice import ChoiceSpec
    from .generate import GenerateOptions, default_groups
    from .levels import PRESETS

    if level is None or level == LEVEL_ALL:
        preset, groups = None, default_groups("choice")
    elif level in PRESETS:
        preset, groups = level, LEVEL_GROUPS[level]
    else:
        raise InputError(f"must be one of {', '.join((LEVEL_ALL, *PRESETS))} for mentalblackboard, "
                         f"got {describe(level)}", field="--level")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InputError(f"must be a positive integer, got {describe(count)}", field="--count")
    return GenerateOptions("choice", tuple(groups), count, seed, first_id, level=preset, splits=tuple(splits),
                           choice=ChoiceSpec(), total=count).validate()


def point_holes(rows: Sequence[dict], where: str) -> tuple[PointHole, ...]:
    """Benchmark holes ({shape, size, direction, location}) as exact point holes at their
    locations' centroids, as an option shows them (`base.seen_as`)."""
    from ..holes import parse_hole
    from ..presets import MB_CENTROIDS
    from ..families.base import seen_as

    out = []
    for i, row in enumerate(rows):
        try:
            hole = parse_hole(row)
        except InputError as err:
            raise err.at(field_prefix=f"{where}[{i}]") from None
        x, y = MB_CENTROIDS[hole.location - 1]
        out.append(seen_as(PointHole(x, y, hole.shape, hole.size, 90 * hole.quarter, hole.mirrored)))
    return tuple(sorted(out))


def engine_keys(fam, natives: Sequence[dict]) -> list[tuple[PointHole, ...]]:
    """Every item's key computed by the general engine on the family's own rigid mesh (one batched
    call), checked against the benchmark kernel's `resultHoles`."""
    from ..engine import simulate_items
    from ..presets import mentalblackboard_item
    from ..families.base import hole_key, seen_as

    results = simulate_items([mentalblackboard_item(r) for r in natives], rigid_mesh=fam.mesh().vertices)
    keys = []
    for native, result in zip(natives, results, strict=True):
        key = tuple(sorted(seen_as(h) for h in result.holes)) if result.ok else None
        if key is None or hole_key(key) != hole_key(point_holes(native["resultHoles"], "resultHoles")):
            raise RuntimeError(f"generated item {native['id']}: the general engine's answer is not the "
                               f"benchmark kernel's ({result.reason or 'other holes'})")
        keys.append(key)
    return keys


def preset_of(score: int) -> str:
    from .levels import PRESETS

    return next(name for name, preset in PRESETS.items() if preset.contains(score))


def family_record(fam, native: dict, key: tuple[PointHole, ...]) -> dict:
    """foldsim's family record of one benchmark choice record (docs/families.md, Formats): `key`
    (the engine's, with which holes are seen from the back) is `resultHoles`; every option,
    the keyed one included, is the benchmark's option as point holes."""
    from ..config import Config
    from .media_names import step_image_sources
    from ..presets import mentalblackboard_item
    from ..sheets import item_to_record
    from ..families.base import holes_to_json
    from ..families.records import open_question

    config = Config.from_record(native)
    options = []
    for i, option in enumerate(native["options"]):  # all written alike (no `mirrored` only the key would know)
        holes = point_holes(option["resultHoles"], f"options[{i}].resultHoles")
        options.append({"label": option["label"], "resultHoles": holes_to_json(holes), "error": option.get("error"),
                        "errorDetail": option.get("errorDetail", {})})
    labels = [o["label"] for o in options]
    record = {"id": native["id"], "family": fam.name, "level": preset_of(native["level"]), "taskType": fam.task_type,
              "item": item_to_record(mentalblackboard_item(config)), "resultHoles": holes_to_json(key),
              "totalNumberofHoles": len(key), "options": options, "answer": native["answer"],
              "info": {"codes": list(config.actions), "levelScore": native["level"],
                       "punchLocations": [h.location for h in config.holes]},
              "native": [native]}
    if "split" in native:
        record["split"] = native["split"]
    record.update({"questionImg": native["questionImg"], "stepsImg": step_image_sources(native),
                   "optionImgs": list(native["optionImgs"])})
    record["question"] = QUESTION + " Choose from options " + ", ".join(labels[:-1]) + f" or {labels[-1]}."
    record["holeNames"] = fam.hole_names
    record["openQuestion"] = open_question(record)
    return record


def write_run(fam, out_dir, count: int, seed: int, level: str | None = None, *, console=None, media: bool = True,
              splits=(), workers: int = 1, backend: str = "local", address: str | None = None, first_id: int = 1):
    """`generate --family mentalblackboard` (foldsim.dataset.families.write_run): the benchmark's
    choice records through its generator and media machinery (`generate --task choice [--images]`: the folder checked and locked first,
    resume, workers, Ray; `media` draws the choice images), and the same items in foldsim's family
    format, naming only the images the verified manifests list (`foldsim.dataset.media.listed`). Returns
    ({items, native, count, images}, the RenderReport), as every family's run."""
    from .generate import DATA_FILE, generate_records
    from .media import MediaRequest, RenderReport, listed, open_output
    from ..progress import counting_bar
    from .family_runs import items_file_name, write_json_list

    options = generate_options(count, seed, level, splits, first_id)
    out = Path(out_dir)
    items_path, native_path = out / items_file_name(fam), out / DATA_FILE["choice"]
    request = MediaRequest.of(images=media)
    with open_output(out, request, (native_path.name, items_path.name)) as folder:
        bar, advance = counting_bar(f"generating {fam.name}", "items", total=count, console=console)
        with bar:
            natives = generate_records(options)
            records = [family_record(fam, r, key) for r, key in zip(natives, engine_keys(fam, natives), strict=True)]
            advance(len(records))

        def write_items() -> None:
            """The family items, each with its benchmark record as the benchmark's file lists it now
            and the images the same verified manifests vouch for (none before drawing)."""
            rows = [listed({**record, "native": [native]}, folder.manifests.get(record["id"]))
                    for record, native in zip(records, folder.listed_records(natives), strict=True)]
            write_json_list(items_path, rows, out)

        write_items()  # before drawing: no image is vouched for yet
        report = folder.render(natives, workers=workers, backend=backend, address=address, console=console,
                               source=native_path.name, data_path=native_path)
        write_items()
        images = sum(len(m.files(["images"])) for m in folder.manifests.values()) if media else 0
    if not media:  # nothing was to be drawn: report only what went wrong, as the other families do
        report = RenderReport(failed=report.failed, removed_temps=report.removed_temps, fatal=report.fatal)
    return {"items": str(items_path), "native": str(native_path), "count": len(records), "images": images}, report
