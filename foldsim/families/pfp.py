"""PFP (Paper Folding Puzzles, AAAI 2026) as a record family: fold and cut on PFP's sheets, keyed
exactly by `foldsim.cutfold` from the final state (docs/families.md, "pfp"). The rules are data in
`pfp_rules`; `pfp_tasks` draws the items and builds the three task types; this module writes the
records, draws their pictures (through `foldsim.render.pfp_images`), audits anyone's keys and names
the split key (the item's canonical form under the sheet's symmetries)."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable

from ..cutfold import CutItem, cut_item, cut_item_from_record, cut_item_to_record, fold_states, unfold_cut
from ..errors import InputError, describe
from ..limits import PFP_ITEM_BYTES
from ..polygons import bounding_box, outline, preset_sheet
from . import pfp_rules as R
from .audit import DIFFERS, OK, AuditItem, AuditReport, read_each
from .cut_counts import count_answer
from .pfp_tasks import (
    LABELS,
    QUESTIONS,
    cutouts_json,
    draw_cuts,
    draw_steps,
    exact_number,
    key_from_json,
    near,
    opens_to,
    record_item,
    region_key,
    ring_key,
    state_json,
    state_key,
    task_a,
    task_b,
    task_c,
    union_cutouts,
)
from .record_family import RecordFamily


#: which opened sheet each task's count question is about
COUNTED_SHEET = {"A": "the unfolded sheet (the correct option)", "B": "the unfolded sheet shown",
                 "C": "the first unfolded sheet shown"}


def count_question(named: bool, task: str) -> str:
    text = f"How many separate cut-outs does {COUNTED_SHEET[task]} have?"
    if named:
        shapes = ", ".join(n.replace("_", " ") for n in R.COUNTED_SHAPES)
        text += f" How many of them are each of these exact shapes: {shapes}?"
    return text


class _Rings:
    """A stored cut-out as the pictures need it: its boundary rings."""

    def __init__(self, rings: list):
        self.rings = rings

    def outline(self) -> list:
        return self.rings


def stored_cutouts(value: object, what: str) -> list[_Rings]:
    key_from_json(value, what)  # checks every field and bound
    return [_Rings([[(exact_number(x, what), exact_number(y, what)) for x, y in ring] for ring in c["outline"]])
            for c in value]


def _cut_records(sheet, cuts: tuple) -> list[dict]:
    return cut_item_to_record(CutItem(sheet, (), cuts))["cuts"]


def _read(record: object, name: str) -> dict:
    """The parts of a pfp record every method needs, re-simulated; InputError naming the field."""
    if not isinstance(record, dict):
        raise InputError(f"must be an object, got {describe(record)}", item=name)
    if record.get("family") not in (None, "pfp"):
        raise InputError(f"is a record of {describe(record.get('family'))}, not of pfp", item=name, field="family")
    info = record.get("info")
    if not isinstance(info, dict) or not isinstance(info.get("task"), str) or info["task"] not in QUESTIONS:
        raise InputError(f"must be an object with a task A, B or C, got {describe(info)}", item=name, field="info")
    try:
        item = cut_item_from_record(info.get("cutItem"))
    except InputError as err:
        raise err.at(item=name, field_prefix="info.cutItem") from None
    if not 1 <= len(item.steps) <= 3:
        raise InputError(f"must hold 1 to 3 steps, got {len(item.steps)}", item=name, field="info.cutItem.steps")
    result = cut_item(item)
    if not result.ok:
        raise InputError(f"cannot be simulated: {result.reason}", item=name, field="info.cutItem")
    options = record.get("options")
    if not isinstance(options, list) or len(options) != len(LABELS):
        raise InputError(f"must be a list of {len(LABELS)} options, got {describe(options)}", item=name, field="options")
    labels = [o.get("label") if isinstance(o, dict) else None for o in options]
    if labels != list(LABELS):
        raise InputError(f"must be labelled {', '.join(LABELS)} in order, got {describe(labels)}", item=name,
                         field="options")
    if record.get("answer") not in tuple(LABELS):  # one letter, not a substring of "ABCD"
        raise InputError(f"must be one of {', '.join(LABELS)}, got {describe(record.get('answer'))}", item=name,
                         field="answer")
    cut_sets = [item.cuts]
    if info["task"] == "C":
        raw = info.get("cutSets")
        if not isinstance(raw, list) or not 1 <= len(raw) <= 8:
            raise InputError(f"must be a list of 1 to 8 cut sets, got {describe(raw)}", item=name, field="info.cutSets")
        try:
            cut_sets = [cut_item_from_record({"sheet": info["cutItem"].get("sheet"), "steps": [], "cuts": c}).cuts
                        for c in raw]
        except InputError as err:
            raise err.at(item=name, field_prefix="info.cutSets") from None
    return {"task": info["task"], "item": item, "result": result, "options": options, "cut_sets": cut_sets,
            "answer": record["answer"], "name": name}


def _option_states(parsed: dict, option: dict, i: int):
    """The fold states of a B or C option's own steps (a CutItem record's "steps"); InputError when
    they cannot be read or folded."""
    name, item = parsed["name"], parsed["item"]
    steps = option.get("steps")
    if not isinstance(steps, list) or not 1 <= len(steps) <= 3:
        raise InputError(f"must be a list of 1 to 3 steps, got {describe(steps)}", item=name, field=f"options[{i}].steps")
    try:
        folds = cut_item_from_record({"sheet": {"vertices": [[0, 0], [1, 0], [0, 1]]}, "steps": steps,
                                      "cuts": [{"polygon": [[0, 0], [1, 0], [0, 1]]}]}).steps
    except InputError as err:
        raise err.at(item=name, field_prefix=f"options[{i}]") from None
    states, reason, _ = fold_states(CutItem(item.sheet, folds, item.cuts))
    if reason:
        raise InputError(f"cannot be folded: {reason}", item=name, field=f"options[{i}].steps")
    return folds, states


def _symmetries(sheet) -> list[Callable]:
    """The isometries of the square's group about the sheet's box centre that map the sheet onto itself."""
    x0, y0, x1, y1 = bounding_box(sheet.vertices)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    maps = [(1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0), (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0),
            (0, -1, -1, 0)]
    found = []
    for a, b, c, d in maps:
        def g(p, a=a, b=b, c=c, d=d):
            u, v = p[0] - cx, p[1] - cy
            return cx + a * u + b * v, cy + c * u + d * v
        if set(map(g, sheet.vertices)) == set(sheet.vertices):
            found.append((g, a * d - b * c < 0))
    return found


def _moved_rings(rings, g, flips: bool) -> tuple:
    return tuple(sorted(ring_key([g(p) for p in (ring[::-1] if flips else ring)]) for ring in rings))


class PfpFamily(RecordFamily):
    name = "pfp"
    summary = ("PFP (Paper Folding Puzzles): fold and cut on PFP's sheets; A fill the missing panel, B which "
               "panel is not a step, C which folding rule; keys from the final state")
    levels = R.LEVELS
    n_options = 4
    task_type = "Choice"
    item_bytes = PFP_ITEM_BYTES  # its records keep every state and every option's exact cut-outs
    native_file = "answer.jsonl"
    distractor_rules = (*R.PFP_RULES, *R.SIMULATED_RULES, *R.RULE_DISTRACTORS, "step_1", "step_2", "step_3")
    open_tasks = ("count",)

    # -- generation --------------------------------------------------------------------------------

    def generate(self, count: int, seed: int, level: str | None = None,
                 on_progress: Callable[[int], None] | None = None, first: int = 0) -> list[dict]:
        """The items first, first+1, ... (record_family's "Volume"); the near-duplicate filter
        compares an item with the earlier items of the same call (one block of a run)."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InputError(f"must be a whole number of at least 0, got {describe(count)}", field="--count")
        names = [self.level(level)] if level is not None else list(self.levels)
        rng = random.Random(f"foldsim:pfp:{seed}:{first}")
        records: list[dict] = []
        earlier: dict = {}
        tries = 0
        while len(records) < count:
            tries += 1
            if tries > 200 * (count + 1):
                raise InputError(f"found only {len(records)} items in {tries} candidates", field="--count")
            index = first + len(records)
            record = self._candidate(rng, names[index % len(names)], index + 1, earlier)
            if record is not None:
                records.append(record)
                if on_progress:
                    on_progress(1)  # one more item (generate_family's convention)
        return records

    def _candidate(self, rng: random.Random, level: str, number: int, earlier: dict) -> dict | None:
        params = self.levels[level]
        task = params["task"]
        sheet_name = rng.choice(params["sheets"])
        sheet = preset_sheet(sheet_name, R.SHEET_GRID)
        steps, names = draw_steps(rng, rng.randint(*params["steps"]))
        states, reason, _ = fold_states(record_item(sheet, steps, ()))
        if reason:
            return None
        final = states[-1][-1]
        weights = R.COUNT_WEIGHTS.get(task, R.COUNT_WEIGHTS["default"])
        cut_sets = [draw_cuts(rng, final, params["shapes"], weights) for _ in range(params.get("cut_sets", 1))]
        memory = earlier.setdefault((sheet_name, json.dumps(steps)), [])
        if any(near(c, e) for c in cut_sets for e in memory):
            return None
        item_id = f"pfp_{number:05d}"
        item = record_item(sheet, steps, cut_sets[0], item_id)
        key_cutouts = unfold_cut(final, item.cuts)
        if not key_cutouts or not all(unfold_cut(final, c) for c in cut_sets[1:]):
            return None  # a cut over no paper
        if task == "A":
            built = task_a(rng, item, states, key_cutouts)
        elif task == "B":
            built = task_b(rng, item, states, key_cutouts, names)
        else:
            built = task_c(rng, item, steps, names, cut_sets)
        if built is None:
            return None
        memory.extend(cut_sets)
        options, answer = built
        named = any(s in R.MIRROR_SHAPES for s in params["shapes"])
        info = {"task": task, "sheet": sheet_name, "sheetDifficulty": R.SHEET_DIFFICULTY[sheet_name],
                "stepNames": names, "cutItem": cut_item_to_record(item),
                "states": [state_json(s[-1]) for s in states], "cutouts": cutouts_json(key_cutouts)}
        if task == "C":
            info["cutSets"] = [_cut_records(sheet, c) for c in cut_sets]
            info["patterns"] = [cutouts_json(unfold_cut(final, c)) for c in cut_sets]
        return {"id": item_id, "family": self.name, "level": level, "taskType": self.task_type,
                "question": QUESTIONS[task], "questionImg": f"{item_id}.png", "options": options, "answer": answer,
                "info": info, "native": [{"image": f"./imgs/{item_id}.png", "answer": answer}],
                "countQuestion": count_question(named, task), "countAnswer": count_answer(key_cutouts, named)}

    # -- pictures ------------------------------------------------------------------------------------

    def images(self, record: dict) -> dict[str, bytes]:
        """The question composite in PFP's layout (options included), `questionImg` -> PNG."""
        from ..render import pfp_images as P
        from ..render.images import png_bytes

        name = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else "item"
        parsed = _read(record, name)
        image = record.get("questionImg")
        if not isinstance(image, str) or not image.endswith(".png") or "/" in image or "\\" in image:
            raise InputError(f"must be a file name ending .png, got {describe(image)}", item=name, field="questionImg")
        item, result, task = parsed["item"], parsed["result"], parsed["task"]
        sheet, states = item.sheet, result.states
        frame = P.pfp_frame(sheet)
        panels = P.fold_panels(sheet, item.steps, states, frame=frame)
        try:
            if task == "A":
                cut = P.step_panel(sheet, states[-2][-1], item.steps[-1], states[-1], cuts=item.cuts, frame=frame)
                question = panels + [cut, P.question_mark_panel()]
                options = [P.answer_panel(sheet, stored_cutouts(o.get("cutouts"), f"options[{i}].cutouts"), frame=frame)
                           for i, o in enumerate(parsed["options"])]
            elif task == "B":
                question = [panels[0], P.question_mark_panel(), P.cuts_only_panel(sheet, result.final, item.cuts, frame=frame),
                            P.answer_panel(sheet, result.cutouts, frame=frame)]
                options = [P.fold_panels(sheet, *self._b_steps(parsed, o, i), frame=frame)[-1]
                           for i, o in enumerate(parsed["options"])]
            else:
                question = [P.answer_panel(sheet, unfold_cut(result.final, cuts), frame=frame) for cuts in parsed["cut_sets"]]
                options = [P.fold_panels(sheet, *_option_states(parsed, o, i), frame=frame)
                           for i, o in enumerate(parsed["options"])]
        except InputError as err:
            raise err.at(item=name) from None
        return {image: png_bytes(P.composite(task, question, options, list(LABELS)))}

    @staticmethod
    def _b_steps(parsed: dict, option: dict, i: int) -> tuple:
        """A Type B option's (steps, states): its own steps (the confuse), else the item's steps up
        to the step whose state it shows."""
        if "steps" in option:
            return _option_states(parsed, option, i)
        item, states = parsed["item"], parsed["result"].states
        for k in range(1, len(states)):
            if state_json(states[k][-1]) == option.get("state"):
                return item.steps[:k], states[:k + 1]
        raise InputError("is no state of the item's steps and has no steps of its own", item=parsed["name"],
                         field=f"options[{i}].state")

    # -- audit -----------------------------------------------------------------------------------------

    def audit(self, records: list, file: str) -> AuditReport:
        _, judged, refused = read_each(records, lambda index, name: self._audit_one(records[index], name))
        verdicts = {**judged, **refused}
        return AuditReport(file, [verdicts[index] for index in range(len(records))])

    def _audit_one(self, record: object, name: str) -> AuditItem:
        """A: the key is the final state's cut-outs; B: the key alone is no step of the item; C: the
        key's rule alone can make every pattern shown. Any task: no two options the same."""
        parsed = _read(record, name)
        task, result, options, answer = parsed["task"], parsed["result"], parsed["options"], parsed["answer"]
        if task == "A":
            keys = [key_from_json(o.get("cutouts"), f"options[{i}].cutouts") for i, o in enumerate(options)]
        elif task == "B":
            keys = [state_key(self._b_steps(parsed, o, i)[1][-1][-1]) for i, o in enumerate(options)]
        else:
            keys = [json.dumps(_option_states(parsed, o, i)[0], default=repr) for i, o in enumerate(options)]
        for i in range(len(keys)):
            for j in range(i):
                if keys[i] == keys[j]:
                    what = {"A": "region", "B": "state", "C": "rule"}[task]
                    return AuditItem(name, DIFFERS, f"{name}: options {LABELS[j]} and {LABELS[i]} are the same {what}")
        if task == "A":
            physics = region_key(result.cutouts)
            right = [LABELS[i] for i, k in enumerate(keys) if k == physics]
            what = "whose cut-outs are the final state's"
        elif task == "B":
            steps = {state_key(s[-1]) for s in result.states[1:]}
            right = [LABELS[i] for i, k in enumerate(keys) if k not in steps]
            what = "that are no step of the item"
        else:
            shown = [unfold_cut(result.final, c) for c in parsed["cut_sets"]]
            right = [LABELS[i] for i, o in enumerate(options)
                     if all(opens_to(p, _option_states(parsed, o, i)[1][-1][-1]) for p in shown)]
            what = "whose rule can make every pattern shown"
        if right == [answer]:
            return AuditItem(name, OK)
        reason = f"{name}: the options {what}: {', '.join(right) or 'none'}; the key is {answer}"
        states = result.states
        if task == "A" and len(states[-1]) > 1:
            union = region_key(union_cutouts([unfold_cut(s, parsed["item"].cuts) for s in states[-1]]))
            if keys[LABELS.index(answer)] == union:
                reason += ("; the key is the union over the intermediate states of the last group of folds "
                           "(PFP's answer bug)")
        return AuditItem(name, DIFFERS, reason, physical_option=right[0] if len(right) == 1 else None)

    # -- splits -------------------------------------------------------------------------------------------

    def split_key(self, record: dict) -> str:
        """The item's canonical form under its sheet's exact symmetries (the states as seen, the cut
        shapes and the opened answer, moved by each symmetry; the least), hashed."""
        name = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else "item"
        parsed = _read(record, name)
        item, result = parsed["item"], parsed["result"]
        states = [[(outline(L.placed()), L.reflected) for L in s[-1]] for s in result.states]
        cuts = [[c.polygon for c in cuts] for cuts in parsed["cut_sets"]]
        answers = [[r for c in unfold_cut(result.final, cuts) for r in c.outline()] for cuts in parsed["cut_sets"]]
        forms = []
        for g, flips in _symmetries(item.sheet):
            moved = (tuple(tuple((_moved_rings(rings, g, flips), face) for rings, face in s) for s in states),
                     tuple(_moved_rings(c, g, flips) for c in cuts), tuple(_moved_rings(a, g, flips) for a in answers))
            forms.append(repr((parsed["task"], moved)))
        return "pfp:" + hashlib.sha256(min(forms).encode()).hexdigest()[:32]

    def native_text(self, rows: list[dict]) -> str:
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)

    def count_space(self, level: str, on_progress: Callable[[int], None] | None = None) -> dict:
        """Every fold sequence the level can draw, walked on the engine (`pfp_space`): made and
        refused (by reason) per step count, and the distinct final states."""
        from .pfp_space import level_space

        name = self.level(level)
        return level_space(self.name, name, self.levels[name], on_progress)


PFP = PfpFamily()
