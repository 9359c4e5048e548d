"""STARE's cube-net folding (STARE-bench/STARE, dataset_creation/folding.py; arXiv 2506.04633) as a
record family: "can the net be folded to form a cube?", yes or no, with the net, the folding steps
in words and pictures of the net part folded after the steps. Rules (docs/nets.md, "stare"):

- nets: six unit squares, each net once up to the grid's turns and reflections. Valid: the 11
  cube nets. Invalid, by the engine's reason: the 24 other free hexominoes, those with a 2 x 2
  block with each of their spanning trees of hinges (`two_on_one_side`: 16 shapes; `folds_into`:
  8 shapes, 27 trees). An item is valid with probability 1/2; an invalid one takes its reason with
  weights INVALID_WEIGHTS (1 : 1), then a shape, then a net of that shape, each uniformly. The
  pool also holds cube nets with one hinge turned toward the printed side (`off_cube`: 45 of the
  11 x 5), never drawn: such a net CAN be folded into a cube (turn that hinge the other way), so
  "no" would key the instructions, not the net the question asks about.
  `count` and `disconnected` are left out: a net of other than six faces, or one the hinges do not
  join, cannot have the five folds every item has;
- every item: a random turn or reflection of the grid (8), a random labelling "1".."6", a random
  base face (the root, which stays put); five steps, one per other face, in breadth-first order
  of the hinge tree from the base, each a quarter turn about its hinge that carries the faces
  beyond it along; step sentences of one length (labels are one digit, directions two signs);
- levels: STARE's four picture variants: `all_vis` (a picture after every step),
  `all_intermediate_vis` (all but the last), `all_intermediate_last_vis` (only the one after the
  next-to-last step), `partial_vis` (the first k, k uniform in 1..4). What a level shows does not
  depend on the answer, unlike STARE's, whose pictures stop at the first collision;
- key: the exact engine (`foldsim.kernels.nets`) folds every net: "yes" iff its reason is
  `valid`, with the reason kept in `info`.

So picture count, step count and text length are the same for valid and invalid items, and the
net alone decides the answer (tests/test_family_stare.py trains classifiers on surface features).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import PurePosixPath

import numpy as np

from ..errors import InputError, describe
from ..io import safe_file_name
from ..kernels import nets as K
from ..net_space import GRID_SYMMETRIES, hexomino_nets
from ..nets import REASON_TEXT, Net, flat_neighbours, make_net, net_arrays, net_from_record, rooted_at
from ..render.images import png_bytes
from ..render.stare_images import net_picture, step_images
from .audit import DIFFERS, INVALID, OK, AuditItem, AuditReport, read_each
from .record_family import RecordFamily

FAMILY = "stare"
LABELS = ("1", "2", "3", "4", "5", "6")
#: the weights of the invalid items' reasons
INVALID_WEIGHTS = {"two_on_one_side": 1, "folds_into": 1}
#: a direction as the steps name it: the sides' outward normals' names, two characters each
DIRECTIONS = K.SIDE_NAMES
QUESTION = "Can the net be folded into a cube this way, yes or no?"
#: the frame the steps' directions are named in (both prompts state it)
FRAME = "printed side up, x pointing right, y up the page and z out of the page, toward you"


@dataclass(frozen=True)
class Step:
    """One fold of the plan: `face` turns `turn` quarter turns about its edge with `along` (face
    indices), and then points `toward` (from that edge to its centre) one of DIRECTIONS. `axis_point`
    and `axis`: the hinge's midpoint and the axis it turns about (counter-clockwise by turn x 90°) at
    that moment, in net units."""

    face: int
    along: int
    turn: int
    toward: str
    axis_point: tuple[float, float, float]
    axis: tuple[int, int, int]


@dataclass(frozen=True)
class Derived:
    """What the engine says about a net: its reason (`valid` when it folds into the cube) and its
    folding plan from the root."""

    reason: str
    steps: tuple[Step, ...]

    @property
    def answer(self) -> str:
        return "yes" if self.reason == "valid" else "no"


# -- the nets -----------------------------------------------------------------------------------------


def spanning_trees(cells: Sequence[tuple[int, int]]) -> list[tuple[tuple[int, int], ...]]:
    """Every spanning tree of the cells' edge adjacency, as sorted index pairs (exhaustive: for
    the handful of edges a hexomino has)."""
    pairs = flat_neighbours(cells)
    trees = []
    for chosen in combinations(pairs, len(cells) - 1):
        root = list(range(len(cells)))

        def find(i: int) -> int:
            while root[i] != i:
                i = root[i]
            return i

        joined = 0
        for a, b in chosen:
            ra, rb = find(a), find(b)
            if ra != rb:
                root[ra], joined = rb, joined + 1
        if joined == len(cells) - 1:
            trees.append(chosen)
    return trees


def net_pool() -> tuple[list[tuple[str, Net]], dict[str, dict[str, list[tuple[str, Net]]]]]:
    """(valid nets, invalid nets by engine reason, then by shape), each as (name, net): every free
    hexomino with every spanning tree, and every cube net with each hinge turned toward the printed
    side (named `<shape>-reversed-<hinge>`), each once up to the grid's turns and reflections."""
    candidates = [(shape.id, make_net(shape.cells, hinges=tree, id=shape.id))
                  for shape in hexomino_nets() for tree in spanning_trees(shape.cells)]
    reasons = [d.reason for d in derive([net for _, net in candidates])]
    valid = [(name, net) for (name, net), reason in zip(candidates, reasons) if reason == "valid"]
    reversed_hinges = [(f"{name}-reversed-{k}", make_net(net.cells, hinges=[
        (h.a, h.b, -h.turn if i == k else h.turn) for i, h in enumerate(net.hinges)], id=name))
        for name, net in valid for k in range(len(net.hinges))]
    candidates += reversed_hinges
    reasons += [d.reason for d in derive([net for _, net in reversed_hinges])]
    invalid: dict[str, dict[str, list[tuple[str, Net]]]] = {}
    forms = {net_form(net) for _, net in valid}
    for (name, net), reason in zip(candidates, reasons):
        form = net_form(net)
        if reason != "valid" and form not in forms:  # one of each net up to the grid's symmetries
            forms.add(form)
            invalid.setdefault(reason, {}).setdefault(name.split("-reversed")[0], []).append((name, net))
    return valid, invalid


def posed_net(net: Net, symmetry: int, labels: Sequence[str], base: int, id: str) -> Net:
    """The net turned or reflected by GRID_SYMMETRIES[symmetry], face f labelled labels[f], rooted
    at face `base` (hinges and their turns kept)."""
    cells = [GRID_SYMMETRIES[symmetry](x, y) for x, y in net.cells]
    turned = make_net(cells, labels, hinges=[(h.a, h.b, h.turn) for h in net.hinges], id=id)
    return rooted_at(turned, base)


# -- the engine ---------------------------------------------------------------------------------------

#: batches are padded to a multiple of this many nets, so the engine compiles few shapes
BATCH_QUANTUM = 64


def fold_order(net: Net) -> list[tuple[int, int]]:
    """(face, parent) of every face the hinges join to the root, breadth-first from it (hinges in
    their order): each face comes after the one it turns about."""
    seen, order, queue = {0}, [], [0]
    for face in queue:
        for hinge in net.hinges:
            if face in (hinge.a, hinge.b):
                other = hinge.b if hinge.a == face else hinge.a
                if other not in seen:
                    seen.add(other)
                    order.append((other, face))
                    queue.append(other)
    return order


def _direction(vector: np.ndarray) -> str:
    return DIRECTIONS[int(np.flatnonzero((K.SIDE_NORMALS == vector).all(1))[0])]


def derive(nets: Sequence[Net]) -> list[Derived]:
    """Every net's reason and folding plan, from one engine call (the batch padded to a multiple
    of BATCH_QUANTUM nets)."""
    if not nets:
        return []
    padded = list(nets) + [nets[0]] * (-len(nets) % BATCH_QUANTUM)
    arrays = net_arrays(padded, max(6, max(len(n) for n in nets)))
    fold = K.fold_batch(arrays.cells, arrays.parent, arrays.turn, arrays.present)
    rotation, shift, reason = np.asarray(fold.rotation), np.asarray(fold.shift), np.asarray(fold.reason)
    out = []
    for i, net in enumerate(nets):
        turns = {frozenset((h.a, h.b)): h.turn for h in net.hinges}
        steps = []
        for face, parent in fold_order(net):
            step = np.array([*(np.subtract(net.cells[face], net.cells[parent])), 0])
            middle = np.array([2 * net.cells[parent][0] + 1 + step[0], 2 * net.cells[parent][1] + 1 + step[1], 0])
            axis = rotation[i, parent] @ K.hinge_axis(step[:2])
            steps.append(Step(face, parent, turns[frozenset((face, parent))], _direction(rotation[i, face] @ step),
                              tuple(float(v) / 2 for v in rotation[i, parent] @ middle + shift[i, parent]),
                              tuple(int(v) for v in axis)))
        out.append(Derived(K.REASONS[int(reason[i])], tuple(steps)))
    return out


# -- the words ----------------------------------------------------------------------------------------


def step_sentence(net: Net, step: Step) -> str:
    """A step in words (one length for one-character labels)."""
    return (f"Fold face {net.labels[step.face]} a quarter turn about its edge with face {net.labels[step.along]}, "
            f"so that it points toward {step.toward}.")


def shown_steps(level: str, folds: int, partial: int) -> list[int]:
    """The steps (from 1) after which the level shows a picture; `partial`: how many `partial_vis`
    shows (1 .. folds - 1)."""
    return {"all_vis": list(range(1, folds + 1)), "all_intermediate_vis": list(range(1, folds)),
            "all_intermediate_last_vis": [folds - 1], "partial_vis": list(range(1, partial + 1))}[level]


def prompt(net: Net, sentences: Sequence[str], shown: Sequence[int], *, native: bool) -> str:
    """The question with `<image_i>` where the i-th picture goes (0: the net; then the steps'
    pictures in order): foldsim's wording, or STARE's prompt shape when `native`."""
    base = net.labels[0]
    if native:
        lines = [f"Check out a net with {len(net)} faces below ({FRAME}): \n<image_0>"
                 f"Here are the steps to fold the net with face {base} as the base:"]
    else:
        lines = [f"Here is a net of {len(net)} squares ({FRAME}; dashed lines are hinges, a red one turning toward "
                 "the printed side, and solid lines between squares are cuts):", "<image_0>",
                 f"It is folded with face {base} as the base, which stays in place. Each step turns one face a "
                 "quarter turn about its edge with a face already placed, carrying along the faces hinged beyond "
                 "it; after the turn the face reaches from that edge toward the direction named."]
    for number, sentence in enumerate(sentences, 1):
        lines.append(f"Step {number}: {sentence}")
        if number in shown:
            lines.append(f"<image_{list(shown).index(number) + 1}>")
    lines.append("Based on the above steps, can the net be folded to form a cube, yes or no?" if native else QUESTION)
    return "\n".join(lines)


# -- the family ---------------------------------------------------------------------------------------


def _image_names(record_id: str, shown: Sequence[int]) -> tuple[str, list[str]]:
    """The net's picture `<id>.png` and step k's `<id>_step<k>.png` (beside the items file, as the
    other record families name theirs)."""
    stem = safe_file_name(record_id)
    return f"{stem}.png", [f"{stem}_step{k}.png" for k in shown]


def _native_row(record: dict, net: Net, derived: Derived, shape: str, choices: Sequence[str]) -> dict:
    """STARE's dataset row (qid, question, images, answer letter, question_info, type, choices)."""
    info = record["info"]
    sentences = [step["text"] for step in info["steps"]]
    question_info = {
        "initial_net": {"name": shape,
                        "faces": {label: [[x, y, 0], [x + 1, y, 0], [x + 1, y + 1, 0], [x, y + 1, 0]]
                                  for label, (x, y) in zip(net.labels, net.cells)},
                        "face_connections": {label: [net.labels[h.b if h.a == f else h.a] for h in net.hinges
                                                     if f in (h.a, h.b)] for f, label in enumerate(net.labels)},
                        "valid": derived.reason == "valid"},
        "base_face": net.labels[0],
        "folding_steps": [[net.labels[s.face], net.labels[s.along], list(s.axis_point), list(s.axis),
                           s.turn * math.pi / 2] for s in derived.steps],  # STARE's angles are radians
        "folding_step_descs": sentences,
        "images_per_step": [record["questionImg"], *record["stepsImgs"]],
        "id": record["id"]}
    kind = f"q+steps+{record['level']}"
    return {"qid": f"{record['id']}_{kind}", "question": prompt(net, sentences, info["pictures"], native=True),
            "images": [record["questionImg"], *record["stepsImgs"]],
            "answer": "AB"[list(choices).index(record["answer"])], "question_info": json.dumps(question_info),
            "type": kind, "choices": list(choices)}


def _steps_info(net: Net, derived: Derived) -> list[dict]:
    return [{"face": net.labels[s.face], "along": net.labels[s.along], "turn": s.turn, "toward": s.toward,
             "text": step_sentence(net, s)} for s in derived.steps]


def _net_info(net: Net) -> dict:
    return {"cells": [list(c) for c in net.cells], "labels": list(net.labels),
            "hinges": [[h.a, h.b, h.turn] for h in net.hinges]}


class StareFamily(RecordFamily):
    name = FAMILY
    summary = ("STARE cube-net folding: can the net be folded to form a cube (yes / no), with the folding "
               "steps in words and pictures; picture count, step count and text length the same for every answer")
    levels = {
        "all_vis": {"type": "q+steps+all_vis", "pictures": "after every step"},
        "all_intermediate_vis": {"type": "q+steps+all_intermediate_vis", "pictures": "after every step but the last"},
        "all_intermediate_last_vis": {"type": "q+steps+all_intermediate_last_vis",
                                      "pictures": "after the next-to-last step only"},
        "partial_vis": {"type": "q+steps+partial_vis", "pictures": "after the first k steps, k uniform in 1..4"},
    }
    n_options = 0
    task_type = "YesNo"
    native_file = "stare.json"

    def generate(self, count: int, seed: int, level: str | None = None,
                 on_progress: Callable[[int], None] | None = None, first: int = 0) -> list[dict]:
        """`count` records of the items first, first+1, ... (module doc; record_family's "Volume"):
        the draws first, then one engine call for every net."""
        levels = [self.level(level)] if level is not None else list(self.levels)
        rng = random.Random(f"foldsim:{FAMILY}:{seed}:{first}")
        valid, invalid = net_pool()
        reasons = sorted(invalid)
        weights = [INVALID_WEIGHTS.get(r, 0) for r in reasons]
        drawn = []
        for index in range(first, first + count):
            record_id = f"{FAMILY}_{index + 1:05d}"
            if rng.random() < 0.5:
                shape, net = rng.choice(valid)
            else:
                reason = rng.choices(reasons, weights)[0]
                shape, net = rng.choice(invalid[reason][rng.choice(sorted(invalid[reason]))])
            labels = rng.sample(LABELS, len(LABELS))
            posed = posed_net(net, rng.randrange(len(GRID_SYMMETRIES)), labels, rng.randrange(len(net)), record_id)
            drawn.append((record_id, levels[index % len(levels)], shape, posed, rng.randint(1, len(net) - 2),
                          rng.sample(["yes", "no"], 2)))
        records = []
        for (record_id, level_name, shape, net, partial, choices), derived in zip(
                drawn, derive([entry[3] for entry in drawn])):
            shown = shown_steps(level_name, len(derived.steps), partial)
            steps = _steps_info(net, derived)
            question_img, steps_imgs = _image_names(record_id, shown)
            record = {"id": record_id, "family": FAMILY, "level": level_name, "taskType": "YesNo",
                      "question": prompt(net, [s["text"] for s in steps], shown, native=False),
                      "questionImg": question_img, "stepsImgs": steps_imgs, "options": [], "answer": derived.answer,
                      "info": {"net": _net_info(net), "shape": shape, "valid": derived.reason == "valid",
                               "reason": derived.reason, "reasonText": REASON_TEXT[derived.reason],
                               "base": net.labels[0], "steps": steps, "pictures": shown, "choices": choices}}
            record["native"] = [_native_row(record, net, derived, shape, choices)]
            records.append(record)
            if on_progress is not None:
                on_progress(1)  # one more item (the contract's convention)
        return records

    def images(self, record: dict) -> dict[str, bytes]:
        """The flat net and the picture after each step the record shows, under the record's names."""
        name = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else None
        net, plan, shown = _readable(record, name)
        names = [_file_name(record.get("questionImg"), name, "questionImg")]
        steps_imgs = record.get("stepsImgs")
        if not isinstance(steps_imgs, list) or len(steps_imgs) != len(shown):
            raise InputError(f"must list one file name per picture ({len(shown)}), got {describe(steps_imgs)}",
                             item=name, field="stepsImgs")
        names += [_file_name(n, name, f"stepsImgs[{i}]") for i, n in enumerate(steps_imgs)]
        pictures = [net_picture(net)]
        if shown:
            drawn = step_images(net, [face for face, _ in plan[: max(shown)]])
            pictures += [drawn[k - 1] for k in shown]
        return {file: png_bytes(picture) for file, picture in zip(names, pictures)}

    def audit(self, records: list, file: str) -> AuditReport:
        """Re-derive every record on the engine: `differs` when the key (or the recorded reason or
        steps) is not the engine's, `invalid` when the record cannot be read; never an exception."""
        if not isinstance(records, list):
            return AuditReport(file, [AuditItem("item 0", INVALID, f"{file}: must be a list of records, got "
                                                f"{describe(records)}")])
        _, readable, refused = read_each(records, lambda index, name: _readable(records[index], name)[0])
        todo = list(readable)
        derived = dict(zip(todo, derive([readable[i] for i in todo])))
        _, judged, failed = read_each(
            records, lambda index, name: _verdict(name, records[index], readable[index], derived[index]), only=todo)
        verdicts = {**refused, **judged, **failed}
        return AuditReport(file, [verdicts[index] for index in range(len(records))])

    def split_key(self, record: dict) -> str:
        """The net (cells and hinges with their turns) in canonical form under the grid's 8 turns
        and reflections; labels and base are left out, as the answer depends on neither."""
        name = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else None
        return net_form(_readable(record, name)[0])

    def count_space(self, level: str, on_progress: Callable[[int], None] | None = None) -> dict:
        """The net pool by engine reason, up to the grid's symmetries (`nets`, `shapes`) and as
        drawn (`fixed`: the different nets the 8 turns and reflections make), and the level's items:
        every drawn fixed net x labelling (6!) x base face (6) x the pictures its level can show."""
        name = self.level(level)

        def fixed(net: Net) -> int:
            images = set()
            for symmetry in GRID_SYMMETRIES:
                cells = [symmetry(x, y) for x, y in net.cells]
                low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
                cells = [(x - low_x, y - low_y) for x, y in cells]
                images.add((frozenset(cells), frozenset((frozenset((cells[h.a], cells[h.b])), h.turn)
                                                        for h in net.hinges)))
            return len(images)

        valid, invalid = net_pool()
        pools = {"valid": [net for _, net in valid], **{reason: [net for shape in sorted(by_shape)
                                                                 for _, net in by_shape[shape]]
                                                        for reason, by_shape in sorted(invalid.items())}}
        shapes = {"valid": len({shape for shape, _ in valid}), **{r: len(s) for r, s in sorted(invalid.items())}}
        fixed_nets = {reason: sum(map(fixed, nets)) for reason, nets in pools.items()}
        drawn = ["valid", *(r for r in sorted(invalid) if INVALID_WEIGHTS.get(r, 0) > 0)]
        per_net = math.factorial(len(LABELS)) * len(LABELS)  # labellings x base faces
        pictures = len(range(1, len(LABELS) - 1)) if name == "partial_vis" else 1  # k in 1..4
        configurations = {"valid": fixed_nets["valid"] * per_net,
                          "invalid": sum(fixed_nets[r] for r in drawn[1:]) * per_net}
        if on_progress is not None:
            on_progress(sum(len(nets) for nets in pools.values()))
        return {"family": self.name, "level": name, "nets": {r: len(n) for r, n in pools.items()}, "shapes": shapes,
                "fixed": fixed_nets, "drawn": drawn, "labellings": math.factorial(len(LABELS)),
                "bases": len(LABELS), "pictures": pictures, "by_answer": configurations,
                "configurations": sum(configurations.values()), "items": sum(configurations.values()) * pictures,
                "note": "configurations = drawn nets as posed (fixed) x labellings x base faces; items add the "
                        "level's picture choices; the shuffled yes/no order of STARE's row is not counted"}


def net_form(net: Net) -> str:
    """One name for a net up to the grid's turns and reflections (and translation): the least, over
    GRID_SYMMETRIES, of its sorted cells and its hinges as (cell, cell, turn)."""
    forms = []
    for symmetry in GRID_SYMMETRIES:
        cells = [symmetry(x, y) for x, y in net.cells]
        low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
        cells = [(x - low_x, y - low_y) for x, y in cells]
        hinges = sorted((*sorted((cells[h.a], cells[h.b])), h.turn) for h in net.hinges)
        forms.append((sorted(cells), hinges))
    return json.dumps(min(forms))


# -- reading records ----------------------------------------------------------------------------------


def _readable(record: object, name: str | None) -> tuple[Net, list[tuple[int, int]], list[int]]:
    """(net, its folding order, the steps shown) of a record; InputError naming the field."""
    if not isinstance(record, dict):
        raise InputError(f"must be an object, got {describe(record)}", item=name)
    if record.get("family") not in (None, FAMILY):
        theirs = record["family"]
        raise InputError(f"is a record of {theirs if isinstance(theirs, str) else describe(theirs)}, not of "
                         f"{FAMILY} (audit --family {FAMILY})", item=name, field="family")
    info = record.get("info")
    if not isinstance(info, dict):
        raise InputError("is missing" if info is None else f"must be an object, got {describe(info)}",
                         item=name, field="info")
    try:
        net = net_from_record(info.get("net"))
    except InputError as err:
        raise InputError(err.message, item=name, field=f"info.net.{err.field}" if err.field else "info.net") from None
    plan = fold_order(net)
    shown = info.get("pictures", [])
    if not isinstance(shown, list) or any(isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(plan)
                                          for k in shown) or sorted(set(shown)) != shown:
        raise InputError(f"must be increasing step numbers from 1 to {len(plan)}, got {describe(shown)}",
                         item=name, field="info.pictures")
    return net, plan, shown


def _file_name(value: object, name: str | None, field: str) -> str:
    """A record's image name: a relative path of safe parts (foldsim.io.safe_file_name), never
    leaving the output folder."""
    parts = PurePosixPath(value).parts if isinstance(value, str) and value else ()
    if not parts or len(value) > 400 or any(part != safe_file_name(part) for part in parts):
        raise InputError(f"must be a relative file name of letters, digits, '.', '_', '-' and '/', got "
                         f"{describe(value)}", item=name, field=field)
    return value


def _verdict(name: str, record: dict, net: Net, derived: Derived) -> AuditItem:
    """Whether the record's key, reason, pictured steps (the level's, the same for either answer:
    a STARE-style leak differs) and steps are the engine's; the first that is not, said."""
    physical = derived.answer
    info = record["info"]
    answer, level, pictures = record.get("answer"), record.get("level"), info.get("pictures", [])
    if answer not in ("yes", "no"):
        return AuditItem(name, INVALID, f"{name}: answer: must be 'yes' or 'no', got {describe(answer)}")
    if level is not None and (not isinstance(level, str) or level not in StareFamily.levels):
        return AuditItem(name, INVALID, f"{name}: level: must be one of {', '.join(StareFamily.levels)}, got "
                         f"{describe(level)}")
    if not isinstance(record.get("stepsImgs", []), list) or len(record.get("stepsImgs", [])) != len(pictures):
        return AuditItem(name, INVALID, f"{name}: stepsImgs: must list one file name per pictured step "
                         f"({len(pictures)}), got {describe(record.get('stepsImgs'))}")
    if answer != physical:
        why = REASON_TEXT[derived.reason]
        return AuditItem(name, DIFFERS, f"{name}: keyed {answer!r}, but the net {why} ({derived.reason})",
                         physical_option=physical)
    if info.get("reason") not in (None, derived.reason):
        return AuditItem(name, DIFFERS, f"{name}: info.reason says {describe(info.get('reason'))}, the engine "
                         f"finds {derived.reason}", physical_option=physical)
    folds = len(derived.steps)
    if level is not None and folds > 1 and pictures != shown_steps(level, folds, max(1, min(len(pictures), folds - 1))):
        return AuditItem(name, DIFFERS, f"{name}: info.pictures: {level} pictures the steps "
                         f"{shown_steps(level, folds, len(pictures) or 1)}, whatever the answer; the record shows "
                         f"{describe(pictures)}", physical_option=physical)
    steps = info.get("steps")
    if steps is not None:
        expected = _steps_info(net, derived)
        if not isinstance(steps, list):
            return AuditItem(name, INVALID, f"{name}: info.steps: must be a list, got {describe(steps)}")
        if len(steps) != len(expected):
            return AuditItem(name, DIFFERS, f"{name}: info.steps: the net folds in {len(expected)} steps, the record "
                             f"lists {describe(steps)}", physical_option=physical)
        for number, (given, wanted) in enumerate(zip(steps, expected), 1):
            if given != wanted:
                return AuditItem(name, DIFFERS, f"{name}: info.steps[{number - 1}]: the engine's step {number} is "
                                 f"{wanted['text']!r}", physical_option=physical)
    return AuditItem(name, OK)


STARE = StareFamily()
