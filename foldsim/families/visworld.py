"""VisWorld-Eval's paper folding (reference §4: fold and cut on SpatialViz grids with mirror-sensitive
cut shapes, open numeric answers) as a record family (docs/families.md, "visworld").

An item: SpatialViz's grid folds (`grid_folds`: its levels' sheets and fold counts, the last fold a
45° corner fold), then 1 to 3 cuts, each one of PFP's mirror-sensitive shapes (`pfp_rules.
MIRROR_SHAPES`: left, right and down triangles, a diamond; a 70-unit box) centred on a distinct
cell centre of the folded shape (cells are CELL = 100 units, so a shape stays 15 units off every
grid line; a cell bisected by the 45° crease is allowed, its cut then opens across the crease).
The fold-and-cut engine (`foldsim.cutfold`) keys everything from the final state: the Choice task
(which unfolded pattern; the options are distinct exact regions, the distractors named simulated
mistakes) and the open count task on every record (`cut_counts`: each cut-out named by its exact
boundary, after the reflections that carried it)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from fractions import Fraction

from ..cutfold import Cut, CutItem, Fold, Layer, cut_item, cut_item_to_record, from_sheet_fold, unfold_cut
from ..errors import InputError, debugging, describe, internal_error_text
from ..polygons import bounding_box, counter_clockwise, outline, sheet_from_record
from ..sheets import Fold as SheetFold
from ..sheets import Line
from . import pfp_rules as R
from .audit import DIFFERS, INVALID, OK, AuditItem, AuditReport
from .cut_counts import named_counts, shape_forms
from .grid_folds import GRID_LEVELS, corner_folds, draw_grid_folds, punch_cells, replay_steps, straight_folds
from .pfp_tasks import LABELS, cut_layers, cutouts_json, key_from_json, make_cut, mistakes, region_key, ring_key
from .record_family import RecordFamily

#: a grid cell's side in the cut engine's units (the cut shapes' 70-unit box fits with 15 to spare)
CELL = 100
SHAPES = tuple(R.MIRROR_SHAPES)
#: the shapes a cut-out is named by: every image of the cut shapes under the square's symmetries
#: (a fold's reflection turns a left triangle right, a down one up, the tall diamond wide)
COUNTED_SHAPES = {**R.COUNTED_SHAPES, "diamond_wide": tuple((-y, x) for x, y in R.MIRROR_SHAPES["diamond"])}
COUNTED_FORMS = shape_forms(COUNTED_SHAPES)
#: the mirror image of each cut shape in a vertical mirror (the cut read mirrored)
MIRRORED_NAME = {"triangle_left": "triangle_right", "triangle_right": "triangle_left",
                 "triangle_down": "triangle_down", "diamond": "diamond"}
LEVELS = {name: {"sheet": f"{g['cols']}x{g['rows']}", "folds": list(g["folds"]), "cuts": list(g["marks"]),
                 "shapes": list(SHAPES)} for name, g in GRID_LEVELS.items()}
#: bounds on a record, refused before any geometry
MAX_GRID = 8
MAX_STEPS = 4
MAX_CUTS = 3
MAX_TRIES = 200  # candidates per item before generate gives up
MAX_ITEMS = 99_999  # the last item number a five-digit id can hold

QUESTION = ("The grid paper is folded as shown (the last fold is a 45° corner fold), then cut with the shapes "
            "shown. Which option shows the paper when it is unfolded?")
GRID_LINE = (64, 64, 64)
#: the counted shapes as the count question describes them
SHAPE_WORDS = {"triangle_left": "a triangle pointing left", "triangle_right": "a triangle pointing right",
               "triangle_down": "a triangle pointing down", "diamond": "a diamond taller than wide",
               "triangle_up": "a triangle pointing up", "diamond_wide": "a diamond wider than tall"}
COUNT_QUESTION = ("When the paper is unfolded, how many separate cut-outs does it have (cutouts), and how many of "
                  "them are exactly each of these shapes: " + "; ".join(f"{n} ({w})" for n, w in SHAPE_WORDS.items())
                  + "? A cut-out that is none of them (one opened across the diagonal crease) is 'other'. Also give "
                  "the number of left triangles minus the number of right triangles (triangle_left_minus_right).")


# -- the item ------------------------------------------------------------------------------------------


def grid_sheet(cols: int, rows: int):
    return sheet_from_record({"name": f"grid {cols}x{rows}",
                              "vertices": [[0, 0], [cols * CELL, 0], [cols * CELL, rows * CELL], [0, rows * CELL]]})


def cut_fold(family: str, at: int, mover: str) -> Fold:
    """A grid fold (cell units) as the cut engine's fold line, scaled to CELL units."""
    twin = from_sheet_fold(SheetFold(Line(family, at=Fraction(at)), moves=mover))
    return Fold("line", tuple(CELL * v for v in twin.p1), tuple(CELL * v for v in twin.p2))


def build_item(cols: int, rows: int, folds: list, cuts: list[tuple[str, tuple[int, int]]],
               item_id: str | None = None) -> CutItem:
    """The cut item of grid folds ((family, at, mover, tie)) and cuts ((shape, (col, row))): col
    from the left, row from the bottom, 0-based."""
    steps = tuple((cut_fold(family, at, mover),) for family, at, mover, _ in folds)
    placed = tuple(make_cut(shape, (CELL * c + CELL // 2, CELL * r + CELL // 2)) for shape, (c, r) in cuts)
    return CutItem(grid_sheet(cols, rows), steps, placed, item_id)


def count_answer(cutouts) -> dict:
    """The open count task's truth: the cut-outs, each named shape, the rest ("other": a cut-out
    that opened across the 45° crease into a shape that is none of the named ones), and
    VisWorld-Eval's signed question, left triangles minus right ones."""
    named = named_counts(cutouts, COUNTED_FORMS)
    return {"cutouts": len(cutouts), **named, "other": len(cutouts) - sum(named.values()),
            "triangle_left_minus_right": named["triangle_left"] - named["triangle_right"]}


# -- the simulated mistakes ------------------------------------------------------------------------------


def not_mirrored(final: tuple[Layer, ...], cuts: tuple[Cut, ...]) -> tuple:
    """Every cut-out opened where it belongs but as the shape was cut, not mirrored or turned by
    the folds: on each layer the cut is the shape carried by the layer's linear part."""
    pairs = []
    for layer in final:
        a, b, c, d = layer.iso.m
        moved = []
        for cut in cuts:
            x0, y0, x1, y1 = bounding_box(cut.polygon)
            cx, cy = Fraction(x0 + x1, 2), Fraction(y0 + y1, 2)  # the cell centre: turned about it, it stays in
            turned = tuple((cx + a * (x - cx) + b * (y - cy), cy + c * (x - cx) + d * (y - cy)) for x, y in cut.polygon)
            moved.append(Cut(counter_clockwise(turned), cut.shape))
        pairs.append((layer, tuple(moved)))
    return cut_layers(pairs)


def simulated(item: CutItem, states, cols: int, rows: int, folds: list, cuts: list) -> dict[str, Callable]:
    """name -> thunk (region, detail) of every mistake that applies: pfp's (only the top layer
    cut, the face-down layers uncut, the last flap opened unreflected) and the grid's own."""
    final = states[-1][-1]
    out = {k: f for k, f in mistakes(item, states).items() if k != "step_skipped"}
    out["shape_not_mirrored"] = lambda: (not_mirrored(final, item.cuts), "each cut-out shown as cut, not mirrored "
                                                                         "by the folds that carried it")
    mirrored = [(MIRRORED_NAME[s], cell) for s, cell in cuts]
    if mirrored != cuts:
        out["cut_read_mirrored"] = lambda: (unfold_cut(final, build_item(cols, rows, folds, mirrored).cuts),
                                            "the cut shapes read as their mirror images")
    for k in range(len(folds)):
        def skipped(k=k):
            less = cut_item(build_item(cols, rows, folds[:k] + folds[k + 1:], cuts))
            return (less.cutouts if less.ok else ()), f"fold {k + 1} left out"
        out[f"fold_skipped_{k + 1}"] = skipped
    return out


def choice_options(rng: random.Random, item: CutItem, states, key_cutouts, cols: int, rows: int, folds: list,
                   cuts: list) -> tuple[list[dict], str] | None:
    """The key and three distractors, each a distinct exact region; the shape-not-mirrored mistake
    first (the one this family is about), the others in a drawn order; None when fewer than three."""
    thunks = simulated(item, states, cols, rows, folds, cuts)
    names = [n for n in thunks if n != "shape_not_mirrored"]
    rng.shuffle(names)
    key = region_key(key_cutouts)
    seen, distractors = {key}, []
    for name in ["shape_not_mirrored", *names]:
        if len(distractors) == 3:
            break
        region, detail = thunks[name]()
        if region and (k := region_key(region)) not in seen:
            seen.add(k)
            error = "fold_skipped" if name.startswith("fold_skipped") else name
            distractors.append({"error": error, "errorDetail": detail, "cutouts": cutouts_json(region)})
    if len(distractors) < 3:
        return None
    at = rng.randrange(4)
    options = distractors[:at] + [{"error": None, "errorDetail": "the cut-outs of the final state",
                                   "cutouts": cutouts_json(key_cutouts)}] + distractors[at:]
    return [{"label": LABELS[i], **o} for i, o in enumerate(options)], LABELS[at]


# -- reading a record ---------------------------------------------------------------------------------------


def _whole(value: object, low: int, high: int, name: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"must be a whole number from {low} to {high}, got {describe(value)}", item=name, field=field)
    return value


def read_record(record: object, name: str) -> dict:
    """The grid item a record states, checked against the rules and re-simulated; InputError naming
    the field (every bound checked before any geometry)."""
    if not isinstance(record, dict):
        raise InputError(f"must be an object, got {describe(record)}", item=name)
    if record.get("family") not in (None, "visworld"):
        raise InputError(f"is a record of {describe(record.get('family'))}, not of visworld", item=name,
                         field="family")
    info = record.get("info")
    if not isinstance(info, dict):
        raise InputError(f"must be an object, got {describe(info)}", item=name, field="info")
    cols = _whole(info.get("cols"), 2, MAX_GRID, name, "info.cols")
    rows = _whole(info.get("rows"), 2, MAX_GRID, name, "info.rows")
    steps, cut_list = info.get("steps"), info.get("cuts")
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        raise InputError(f"must be a list of 1 to {MAX_STEPS} steps, got {describe(steps)}", item=name,
                         field="info.steps")
    replayed = replay_steps(cols, rows, steps)
    if isinstance(replayed, str):
        raise InputError(replayed, item=name, field="info.steps")
    folds, _, cells = replayed
    if not isinstance(cut_list, list) or not 1 <= len(cut_list) <= MAX_CUTS:
        raise InputError(f"must be a list of 1 to {MAX_CUTS} cuts, got {describe(cut_list)}", item=name,
                         field="info.cuts")
    cuts = []
    for i, cut in enumerate(cut_list):
        where = f"info.cuts[{i}]"
        shape = cut.get("shape") if isinstance(cut, dict) else None
        cell = cut.get("cell") if isinstance(cut, dict) else None
        if shape not in SHAPES:
            raise InputError(f"must be one of {', '.join(SHAPES)}, got {describe(shape)}", item=name,
                             field=f"{where}.shape")
        if not isinstance(cell, list) or len(cell) != 2:
            raise InputError(f"must be a cell [col, row], got {describe(cell)}", item=name, field=f"{where}.cell")
        c, r = (_whole(v, 0, MAX_GRID - 1, name, f"{where}.cell") for v in cell)
        if (Fraction(2 * c + 1, 2), Fraction(2 * r + 1, 2)) not in cells or any(cell == [*x[1]] for x in cuts):
            raise InputError(f"must be a distinct cell of the folded shape, got {describe(cell)}", item=name,
                             field=f"{where}.cell")
        cuts.append((shape, (c, r)))
    item = build_item(cols, rows, folds, cuts, name)
    result = cut_item(item)
    if not result.ok:
        raise InputError(f"cannot be simulated: {result.reason}", item=name, field="info")
    options = record.get("options")
    if not isinstance(options, list) or len(options) != len(LABELS):
        raise InputError(f"must be a list of {len(LABELS)} options, got {describe(options)}", item=name,
                         field="options")
    labels = [o.get("label") if isinstance(o, dict) else None for o in options]
    if labels != list(LABELS):
        raise InputError(f"must be labelled {', '.join(LABELS)} in order, got {describe(labels)}", item=name,
                         field="options")
    if record.get("answer") not in tuple(LABELS):
        raise InputError(f"must be one of {', '.join(LABELS)}, got {describe(record.get('answer'))}", item=name,
                         field="answer")
    return {"item": item, "result": result, "options": options, "answer": record["answer"], "cols": cols,
            "rows": rows, "name": name}


def _square_maps(cols: int, rows: int) -> list[tuple[Callable, bool]]:
    """The square's symmetries about the sheet's centre that map the grid onto itself (all eight
    for a square grid), each with whether it reflects."""
    cx, cy = Fraction(cols * CELL, 2), Fraction(rows * CELL, 2)
    found = []
    for a, b, c, d in ((1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0), (-1, 0, 0, 1), (1, 0, 0, -1),
                       (0, 1, 1, 0), (0, -1, -1, 0)):
        if b and cols != rows:
            continue

        def g(p, a=a, b=b, c=c, d=d):
            u, v = p[0] - cx, p[1] - cy
            return cx + a * u + b * v, cy + c * u + d * v
        found.append((g, a * d - b * c < 0))
    return found


def _moved(rings, g, flips: bool) -> tuple:
    return tuple(sorted(ring_key([g(p) for p in (ring[::-1] if flips else ring)]) for ring in rings))


def _name(record: object, index: int | None = None) -> str:
    if isinstance(record, dict) and isinstance(record.get("id"), str) and record["id"]:
        return record["id"]
    return "item" if index is None else f"item {index}"


class VisWorldFamily(RecordFamily):
    name = "visworld"
    summary = ("VisWorld-Eval paper folding: SpatialViz grid folds (a last 45° corner fold), then cuts of "
               "mirror-sensitive shapes; which unfolded pattern, and how many cut-outs of each shape")
    levels = LEVELS
    n_options = 4
    task_type = "Choice"
    native_file = "visworld.json"
    distractor_rules = ("shape_not_mirrored", "cut_read_mirrored", "fold_skipped", "top_layer_only", "face_down_uncut",
                        "last_flap_not_reflected")
    open_tasks = ("count",)

    # -- generation --------------------------------------------------------------------------------

    def generate(self, count: int, seed: int, level: str | None = None,
                 on_progress: Callable[[int], None] | None = None, first: int = 0) -> list[dict]:
        """The records of items first+1 ... first+count; levels cycled by the global index; the
        draws from a stream seeded by (seed, first) alone, so a batch starting at `first` is the
        same whoever makes it."""
        for value, field in ((count, "--count"), (first, "--first")):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"must be a whole number of at least 0, got {describe(value)}", field=field)
        if first + count > MAX_ITEMS:
            raise InputError(f"must end at item {MAX_ITEMS} at the latest (five-digit ids), got items {first + 1} to "
                             f"{first + count}", field="--count")
        names = [self.level(level)] if level is not None else list(self.levels)
        rng = random.Random(f"foldsim:visworld:{seed}:{first}")
        records: list[dict] = []
        tries = 0
        while len(records) < count:
            tries += 1
            if tries > MAX_TRIES * (count + 1):
                raise InputError(f"found only {len(records)} items in {tries} candidates", field="--count")
            number = first + len(records) + 1
            record = self._candidate(rng, names[(number - 1) % len(names)], number)
            if record is not None:
                records.append(record)
                if on_progress:
                    on_progress(1)
        return records

    def _candidate(self, rng: random.Random, level: str, number: int) -> dict | None:
        grid = GRID_LEVELS[level]
        cols, rows = grid["cols"], grid["rows"]
        drawn = draw_grid_folds(rng, cols, rows, rng.randint(*grid["folds"]))
        if drawn is None:
            return None
        folds, steps, rect = drawn
        family, at, mover, _ = folds[-1]
        cells = punch_cells(rect, family, at, mover)
        n = rng.randint(*grid["marks"])
        if len(cells) < n:
            return None
        centres = sorted(rng.sample(cells, n))
        cuts = [(rng.choice(SHAPES), (int(x), int(y))) for x, y in centres]
        item_id = f"visworld_{number:05d}"
        item = build_item(cols, rows, folds, cuts, item_id)
        result = cut_item(item)
        if not result.ok:
            return None
        built = choice_options(rng, item, result.states, result.cutouts, cols, rows, folds, cuts)
        if built is None:
            return None
        options, answer = built
        counts = count_answer(result.cutouts)
        info = {"cols": cols, "rows": rows, "cell": CELL, "steps": steps, "folded": list(rect),
                "cuts": [{"shape": s, "cell": [c, r]} for s, (c, r) in cuts],
                "cutItem": cut_item_to_record(item), "cutouts": cutouts_json(result.cutouts)}
        record = {"id": item_id, "family": self.name, "level": level, "taskType": self.task_type,
                  "question": QUESTION, "questionImg": f"{item_id}.png", "options": options, "answer": answer,
                  "info": info, "countQuestion": COUNT_QUESTION, "countAnswer": counts}
        record["native"] = self._native(record)
        return record

    @staticmethod
    def _native(record: dict) -> list[dict]:
        """SpatialViz-Bench's row (the reference gives VisWorld-Eval's own row no shape), its
        explanation naming each distractor's mistake, plus the count as VisWorld asks it."""
        info = record["info"]
        explanation = {o["label"]: f"Option {o['label']} is incorrect because of this mistake: {o['errorDetail']}."
                       for o in record["options"] if o["error"] is not None}
        question = (f"The original paper is a {info['cols']}x{info['rows']} grid. The top row of images shows the "
                    f"effect of folding the grid paper {len(info['steps'])} times, then cutting it. Which image shows "
                    "the paper after it is unfolded? Please choose from options A, B, C, or D.")
        return [{"Category": "MentalFolding", "Task": "PaperFolding", "Level": "Level" + record["level"][1:],
                 "Image_id": record["id"], "Question": question, "Choices": list(LABELS), "Answer": record["answer"],
                 "Explanation": explanation, "CountQuestion": record["countQuestion"],
                 "CountAnswer": record["countAnswer"]}]

    # -- pictures ------------------------------------------------------------------------------------

    def images(self, record: dict) -> dict[str, bytes]:
        """The question composite: the flat grid, each fold (the last one's panel with the cut on
        it), "?", then the four unfolded options; grid lines on the paper of every panel."""
        from ..render import pfp_images as P
        from ..render.images import png_bytes

        name = _name(record)
        parsed = read_record(record, name)
        image = record.get("questionImg")
        if not isinstance(image, str) or not image.endswith(".png") or "/" in image or "\\" in image:
            raise InputError(f"must be a file name ending .png, got {describe(image)}", item=name, field="questionImg")
        item, result, cols, rows = parsed["item"], parsed["result"], parsed["cols"], parsed["rows"]
        frame = P.pfp_frame(item.sheet)
        panels = P.fold_panels(item.sheet, item.steps, result.states, frame=frame)
        cut = P.step_panel(item.sheet, result.states[-2][-1], item.steps[-1], result.states[-1], cuts=item.cuts,
                           frame=frame)
        options = []
        for i, option in enumerate(parsed["options"]):
            try:
                key_from_json(option.get("cutouts"), f"options[{i}].cutouts")  # every field and bound checked
            except InputError as err:
                raise err.at(item=name) from None
            rings = [_Rings([[(Fraction(x), Fraction(y)) for x, y in ring] for ring in c["outline"]])
                     for c in option["cutouts"]]
            options.append(_grid_lines(P.answer_panel(item.sheet, rings, frame=frame), frame, cols, rows))
        question = [_grid_lines(p, frame, cols, rows) for p in [*panels[:-1], cut]] + [P.question_mark_panel()]
        return {image: png_bytes(P.composite("A", question, options, list(LABELS)))}

    # -- audit -----------------------------------------------------------------------------------------

    def audit(self, records: list, file: str) -> AuditReport:
        report = AuditReport(file)
        for index, record in enumerate(records):
            name = _name(record, index)
            try:
                report.items.append(self._audit_one(record, name))
            except InputError as err:
                report.items.append(AuditItem(name, INVALID, str(err.at(item=name) if err.item is None else err)))
            except Exception as err:  # noqa: BLE001  (one record's bug is that record's verdict)
                if debugging():
                    raise
                report.items.append(AuditItem(name, INVALID, f"{name}: {internal_error_text(err)}"))
        return report

    def _audit_one(self, record: object, name: str) -> AuditItem:
        """The key is the final state's cut-outs, no two options the same region, and the count the
        physical one."""
        parsed = read_record(record, name)
        options, answer, result = parsed["options"], parsed["answer"], parsed["result"]
        keys = [key_from_json(o.get("cutouts"), f"options[{i}].cutouts") for i, o in enumerate(options)]
        for i in range(len(keys)):
            for j in range(i):
                if keys[i] == keys[j]:
                    return AuditItem(name, DIFFERS, f"{name}: options {LABELS[j]} and {LABELS[i]} are the same region")
        physics = region_key(result.cutouts)
        right = [LABELS[i] for i, k in enumerate(keys) if k == physics]
        if right != [answer]:
            return AuditItem(name, DIFFERS, f"{name}: the options whose cut-outs are the final state's: "
                             f"{', '.join(right) or 'none'}; the key is {answer}",
                             physical_option=right[0] if len(right) == 1 else None)
        counts = count_answer(result.cutouts)
        if record.get("countAnswer") != counts:
            return AuditItem(name, DIFFERS, f"{name}: countAnswer {describe(record.get('countAnswer'))} is not the "
                             f"physical count {counts}")
        return AuditItem(name, OK)

    # -- the space ----------------------------------------------------------------------------------------

    def count_space(self, level: str | None = None, on_progress: Callable[[int], None] | None = None) -> dict:
        """The level's finite space, as the draw makes it: every SpatialViz fold sequence (each
        straight fold an interior grid line of the current rectangle, then a corner fold), and for
        each, every set of distinct cut cells of the level's size times a shape per cut. Counted
        exactly from the grid rules (no folding needed); before the option draw, which drops the
        few items without three distinct wrong options."""
        import math

        name = self.level(level)
        grid = GRID_LEVELS[name]
        prefixes = [((0, 0, grid["cols"], grid["rows"]), 0)]
        sequences = items = 0
        by_folds: dict[int, int] = {}
        for folds in range(1, grid["folds"][1] + 1):
            if folds >= grid["folds"][0]:
                for rect, _ in prefixes:
                    for family, at, mover, _, _ in corner_folds(*rect):
                        cells = len(punch_cells(rect, family, at, mover))
                        sequences += 1
                        by_folds[folds] = by_folds.get(folds, 0) + 1
                        items += sum(math.comb(cells, n) * len(SHAPES) ** n
                                     for n in range(grid["marks"][0], grid["marks"][1] + 1))
            prefixes = [(after, k + 1) for rect, k in prefixes for _, _, _, after in straight_folds(*rect)]
        if on_progress is not None:
            on_progress(sequences)
        return {"family": self.name, "level": name, "sheet": f"{grid['cols']}x{grid['rows']}",
                "folds": list(grid["folds"]), "cuts": list(grid["marks"]), "shapes": len(SHAPES),
                "configurations": sequences, "fold_sequences_by_count": by_folds, "items": items,
                "note": "items = fold sequences x distinct cut cells of the level's count x a shape per cut"}

    # -- splits -------------------------------------------------------------------------------------------

    def split_key(self, record: dict) -> str:
        """The item's canonical form under the square's symmetries: every state as seen (layer
        outlines and faces), the cut shapes and the opened answer, moved by each symmetry; the
        least, hashed."""
        parsed = read_record(record, _name(record))
        item, result = parsed["item"], parsed["result"]
        states = [[(outline(L.placed()), L.reflected) for L in s[-1]] for s in result.states]
        cuts = [c.polygon for c in item.cuts]
        answer = [r for c in result.cutouts for r in c.outline()]
        forms = []
        for g, flips in _square_maps(parsed["cols"], parsed["rows"]):
            moved = (tuple(tuple((_moved(rings, g, flips), face) for rings, face in s) for s in states),
                     _moved(cuts, g, flips), _moved(answer, g, flips))
            forms.append(repr(moved))
        return "visworld:" + hashlib.sha256(min(forms).encode()).hexdigest()[:32]


class _Rings:
    """Stored cut-out rings as `answer_panel` draws them."""

    def __init__(self, rings):
        self.rings = list(rings)

    def outline(self) -> list:
        return self.rings


def _grid_lines(image, frame, cols: int, rows: int):
    """SpatialViz's grid paper: thin grid lines over the paper's grey pixels only (not over cut-outs,
    outlines or the background). Every grid fold maps the grid onto itself (lines at whole cells,
    45° creases through cell centres), so every layer's grid lies on the sheet's."""
    import numpy as np
    from PIL import Image, ImageDraw

    from ..render.pfp_images import BACK, FRONT

    lined = image.copy()
    draw = ImageDraw.Draw(lined)
    for x in range(1, cols):
        draw.line([frame.pixel((x * CELL, 0)), frame.pixel((x * CELL, rows * CELL))], fill=GRID_LINE, width=1)
    for y in range(1, rows):
        draw.line([frame.pixel((0, y * CELL)), frame.pixel((cols * CELL, y * CELL))], fill=GRID_LINE, width=1)
    pixels = np.asarray(image)
    paper = (pixels == FRONT).all(axis=-1) | (pixels == BACK).all(axis=-1)
    return Image.fromarray(np.where(paper[..., None], np.asarray(lined), pixels))


VISWORLD = VisWorldFamily()
