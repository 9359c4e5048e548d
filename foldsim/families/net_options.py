"""What the cube-choice families (spatialviz-cube, pfp-cube; docs/nets.md) share: the labelled
cubes their items ask about, the named mistakes their distractors simulate, the exact checks of an
option against the question, the audit of a cube-choice record, and its pictures.

A cube is its six sides in `foldsim.nets.SIDE_NAMES` order, each `(label, pattern turn, mirror)`
(`foldsim.nets.cube_sides`). A question shows either a **view** (front, top, right: `view_of` of
the cube in an orientation o = 4·s + k) or a **net**; its options are the other kind. An option
**fits** the question when the net folds (on the engine) into a cube that shows the view in some
orientation (`orientations_showing`). Faces are **coloured** (every turn and mirror of a colour
looks the same: period 1) or **patterned** (an F glyph: no symmetry, period 4); fitting and
equality go by what the picture shows, so on a coloured face a turned pattern is no change.

Task kinds (`TASKS`): "can" (view → nets, the key fits, no distractor does), "cannot" (view →
nets, the key does not fit, every distractor does), "view" and "net_to_cube" (net → views, the key
fits), "cube_to_net" (view → nets, the key fits). Two options are the same when their pictures
are: views side by side as drawn, nets up to a turn of the whole picture in the plane.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import InputError, describe
from ..io import safe_file_name
from ..kernels import nets as K
from ..net_space import canonical_cube, cube_labellings, cube_nets
from ..nets import (MAX_LABEL_CHARS, FoldedNet, Net, Pattern, Shown, cube_key, cube_sides, fold_nets, make_net,
                    net_from_record, net_to_record, orientations_showing, turned_cube, view_of)
from .audit import DIFFERS, INVALID, OK, AuditItem, AuditReport, read_each
from .record_family import RecordFamily

COLOUR_LABELS = ("red", "green", "blue", "pink", "yellow", "cyan")  # SpatialViz's six colours
SYMBOL_LABELS = ("1", "2", "3", "4", "5", "6")  # PFP's six textures, as F glyphs with their label
FACE_STYLES = {"colours": 1, "patterns": 4}  # style -> pattern period of every face
VIEW_NAMES = K.VIEW_NAMES
#: nets folded per engine call (padded, so the kernel compiles one shape)
FOLD_CHUNK = 64
CUBE_FACES = 6


@dataclass(frozen=True)
class Task:
    """A task kind: what the question shows ("view" / "net"), what the options are, and whether
    the key is the option that fits (else the one that does not)."""

    question: str
    option: str
    key_fits: bool


TASKS = {"can": Task("view", "net", True), "cannot": Task("view", "net", False), "view": Task("net", "view", True),
         "net_to_cube": Task("net", "view", True), "cube_to_net": Task("view", "net", True)}


def periods(style: str, labels: Sequence[str]) -> dict[str, int]:
    """label -> pattern period for the faces' style (foldsim.nets.cube_key)."""
    return {label: FACE_STYLES[style] for label in labels}


# -- cubes and nets ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def layouts() -> tuple[FoldedNet, ...]:
    """The 11 cube nets (net_space.cube_nets, layout i = net-i), folded once on the engine."""
    return tuple(fold_all(cube_nets()))


@functools.lru_cache(maxsize=1)
def labelled_cubes() -> tuple[tuple[int, ...], ...]:
    """net_space.cube_labellings, computed once (each call canonicalises all 720 assignments)."""
    return tuple(cube_labellings())


def random_cube(rng: random.Random, labels: Sequence[str], style: str) -> tuple[Shown, ...]:
    """The labels shuffled over the six sides; patterned faces get a random turn each."""
    order = rng.sample(list(labels), len(labels))
    return tuple((label, rng.randrange(4) if style == "patterns" else 0, False) for label in order)


def net_for_cube(layout: FoldedNet, sides: Sequence[Shown], period: int = 4) -> Net:
    """The layout's net labelled and patterned so that it folds into `sides` (a face landing on
    side s with its flat up at quarter q gets side s's label and the pattern turn that shows
    side s's turn there); coloured faces (`period` 1) are written upright."""
    labels, patterns = [], []
    for face in layout.faces:
        label, turn, mirror = sides[K.SIDE_NAMES.index(face.side)]
        labels.append(label)
        patterns.append(Pattern((turn - face.turn) % 4 % period, mirror))
    net = layout.net
    return make_net(net.cells, labels, patterns, hinges=net.hinges)


def labelling_index(sides: Sequence[Shown], labels: Sequence[str]) -> int:
    """Which of the 30 labelled cubes (net_space.cube_labellings) `sides` is, its labels taken as
    indices into `labels`."""
    return labelled_cubes().index(canonical_cube([labels.index(label) for label, _, _ in sides]))


def relabelled(sides: Sequence[Shown], labels: Sequence[str], labelling: int) -> tuple[Shown, ...]:
    """PFP's relabelling: the cube with labelled cube `labelling` (0..29) of `labels`, each label
    keeping its pattern (patterns travel with labels, as PFP's textures do)."""
    pattern = {label: (turn, mirror) for label, turn, mirror in sides}
    return tuple((labels[i], *pattern[labels[i]]) for i in labelled_cubes()[labelling])


def swapped_opposite(sides: Sequence[Shown], orientation: int, rng: random.Random) -> tuple[tuple[Shown, ...], dict]:
    """SpatialViz's "change" net: of two sides the view shows, v0 and v1, the labels of v1 and of
    the side opposite v0 trade places, so v0 and v1 end up opposite (the view cannot be seen)."""
    v0, v1 = rng.sample([int(s) for s in K.VIEW_SIDES[orientation]], 2)
    out = list(sides)
    out[v1], out[v0 ^ 1] = sides[v0 ^ 1], sides[v1]
    return tuple(out), {"visible": sides[v1][0], "opposite_of": sides[v0][0], "hidden": sides[v0 ^ 1][0]}


def rotated_patterns(sides: Sequence[Shown], orientation: int, rng: random.Random) -> tuple[tuple[Shown, ...], dict]:
    """SpatialViz's "transform" net, kept to VISIBLE faces: 1 to 3 of the sides the view shows get
    their pattern turned 1 to 3 quarter turns."""
    shown = [int(s) for s in K.VIEW_SIDES[orientation]]
    chosen = sorted(rng.sample(shown, rng.randint(1, 3)))
    turns = [rng.randint(1, 3) for _ in chosen]
    out = list(sides)
    for side, turn in zip(chosen, turns):
        label, old, mirror = sides[side]
        out[side] = (label, (old + turn) % 4, mirror)
    return tuple(out), {"faces": [sides[s][0] for s in chosen], "turns": turns}


def mirrored_patterns(sides: Sequence[Shown]) -> tuple[Shown, ...]:
    """Every pattern printed on the wrong side of the paper (seen mirror-reversed: SpatialViz's
    inward-facing textures)."""
    return tuple((label, turn, not mirror) for label, turn, mirror in sides)


def mirror_cube(sides: Sequence[Shown]) -> tuple[Shown, ...]:
    """The cube's mirror image in the plane x = 0: sides +x and -x trade places, and every pattern is
    reflected (turn -> -turn, mirror flipped: a reflection reverses the turn's sense on every side)."""
    out = [sides[s ^ 1] if s < 2 else sides[s] for s in range(CUBE_FACES)]
    return tuple((label, -turn % 4, not mirror) for label, turn, mirror in out)


def opposite_shown(sides: Sequence[Shown], orientation: int, position: int) -> tuple[Shown, ...]:
    """The view of `orientation` with the face at `position` (0 front, 1 top, 2 right) replaced by
    the face opposite it, as that face lies on its own side."""
    view = list(view_of(sides, orientation))
    turned = turned_cube(sides, orientation)
    view[position] = turned[int(K.VIEW_FRAME_SIDES[position]) ^ 1]
    return tuple(view)


def rotated_view(view: Sequence[Shown], position: int, turns: int) -> tuple[Shown, ...]:
    """The view with the pattern at `position` turned `turns` quarter turns."""
    out = list(view)
    label, turn, mirror = view[position]
    out[position] = (label, (turn + turns) % 4, mirror)
    return tuple(out)


# -- exact comparisons ------------------------------------------------------------------------------


def shows(sides: Sequence[Shown], view: Sequence[Shown], period: Mapping[str, int]) -> bool:
    """Whether some orientation of the cube shows `view` (as the picture shows it)."""
    return bool(orientations_showing(sides, view, period))


def view_key(view: Sequence[Shown], period: Mapping[str, int]) -> tuple:
    """A view as its picture shows it (turns modulo the label's period, a colour's mirror dropped)."""
    return tuple((label, turn % period.get(label, 4), bool(mirror) and period.get(label, 4) != 1)
                 for label, turn, mirror in view)


def net_picture_key(net: Net, period: Mapping[str, int]) -> tuple:
    """A net as its picture shows it, up to turning the whole picture in the plane: the least over
    the 4 quarter turns of (cells from the lowest-left, each with its label and pattern as seen,
    and the hinges and their turns)."""
    forms = []
    for quarter in range(4):
        cells = list(net.cells)
        for _ in range(quarter):
            cells = [(-y - 1, x) for x, y in cells]
        low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
        cells = [(x - low_x, y - low_y) for x, y in cells]
        faces = sorted((cell, label, (p.turn + quarter) % period.get(label, 4), p.mirror and period.get(label, 4) != 1)
                       for cell, label, p in zip(cells, net.labels, net.patterns))
        hinges = sorted((*sorted((cells[h.a], cells[h.b])), h.turn) for h in net.hinges)
        forms.append((tuple(faces), tuple(hinges)))
    return min(forms)


# -- records ----------------------------------------------------------------------------------------


def shown_json(shown: Shown) -> list:
    label, turn, mirror = shown
    return [label, int(turn), bool(mirror)]


def option(error: str | None, detail: dict | None, *, net: Net | None = None,
           view: Sequence[Shown] | None = None, **content) -> dict:
    """One option of a record (labelled by `finish_record`): error (None for the key), errorDetail,
    its net or view, and any other content (its layout, pose, orientation)."""
    out: dict = {"error": error, "errorDetail": detail}
    if net is not None:
        out["net"] = net_to_record(net)
    if view is not None:
        out["view"] = [shown_json(s) for s in view]
    return {**out, **content}


def finish_record(family: str, number: int, level: str, question: str, key: dict, distractors: Sequence[dict],
                  info: dict, rng: random.Random) -> dict:
    """A record: the key placed uniformly among the distractors, options labelled A, B, ... in that
    order, the id `<family>_<5 digits>` and the image names."""
    entries = list(distractors)
    at = rng.randrange(len(entries) + 1)
    entries.insert(at, key)
    labels = [chr(ord("A") + i) for i in range(len(entries))]
    record_id = f"{family}_{number:05d}"
    return {"id": record_id, "family": family, "level": level, "taskType": "Choice", "question": question,
            **image_names(record_id, labels),
            "options": [{"label": label, **entry} for label, entry in zip(labels, entries)],
            "answer": labels[at], "info": info}


def image_names(record_id: str, labels: Sequence[str]) -> dict:
    """The record's image fields: the composite question and one picture per option."""
    name = safe_file_name(record_id)
    return {"questionImg": f"{name}.png", "optionImgs": [f"{name}_{label}.png" for label in labels]}


def read_view(value: object, field_name: str) -> tuple[Shown, ...]:
    """A view from data: three [label, turn 0..3, mirror] triples (front, top, right)."""
    if not isinstance(value, list) or len(value) != 3:
        raise InputError(f"must be 3 [label, turn, mirror] triples (front, top, right), got {describe(value)}",
                         field=field_name)
    out = []
    for w, entry in enumerate(value):
        where = f"{field_name}[{w}]"
        if not isinstance(entry, list) or len(entry) != 3:
            raise InputError(f"must be [label, turn, mirror], got {describe(entry)}", field=where)
        label, turn, mirror = entry
        if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL_CHARS:
            raise InputError(f"must be a label of 1 to {MAX_LABEL_CHARS} characters, got {describe(label)}",
                             field=f"{where}.label")
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn <= 3:
            raise InputError(f"must be a whole number from 0 to 3, got {describe(turn)}", field=f"{where}.turn")
        if not isinstance(mirror, bool):
            raise InputError(f"must be true or false, got {describe(mirror)}", field=f"{where}.mirror")
        out.append((label, turn, mirror))
    return tuple(out)


@dataclass(frozen=True)
class CubeItem:
    """A cube-choice record read for checking: its task, face style, the question (a view or a
    net), the options (label -> view or net) and the keyed label."""

    name: str
    task: Task
    style: str
    question: tuple[Shown, ...] | Net
    options: dict[str, tuple[Shown, ...] | Net]
    answer: str


def read_item(record: object, name: str, family: str) -> CubeItem:
    """A CubeItem from a record of `family`; InputError naming the item and field."""
    if not isinstance(record, dict):
        raise InputError(f"must be an object, got {describe(record)}", item=name)
    try:
        if record.get("family") != family:
            raise InputError(f"must be {family!r} (audit --family {family}), got {describe(record.get('family'))}",
                             field="family")
        info = record.get("info")
        if not isinstance(info, dict):
            raise InputError(f"must be an object, got {describe(info)}", field="info")
        if info.get("task") not in TASKS:
            raise InputError(f"must be one of {', '.join(TASKS)}, got {describe(info.get('task'))}", field="info.task")
        if info.get("faces") not in FACE_STYLES:
            raise InputError(f"must be one of {', '.join(FACE_STYLES)}, got {describe(info.get('faces'))}",
                             field="info.faces")
        task = TASKS[info["task"]]
        question = _read_shape(info.get("question"), task.question, "info.question")
        options = record.get("options")
        if not isinstance(options, list) or not 2 <= len(options) <= 26:
            raise InputError(f"must be a list of 2 to 26 options, got {describe(options)}", field="options")
        by_label: dict = {}
        for i, entry in enumerate(options):
            if not isinstance(entry, dict) or not isinstance(entry.get("label"), str):
                raise InputError("must be an object with a label", field=f"options[{i}]")
            if entry["label"] in by_label:
                raise InputError(f"repeats the label {describe(entry['label'])}", field=f"options[{i}].label")
            by_label[entry["label"]] = _read_shape(entry, task.option, f"options[{i}]")
        answer = record.get("answer")
        if not isinstance(answer, str) or answer not in by_label:
            raise InputError(f"must be one of the option labels {', '.join(by_label)}, got {describe(answer)}",
                             field="answer")
        return CubeItem(name, task, info["faces"], question, by_label, answer)
    except InputError as err:
        raise err.at(item=name) from None


def _read_shape(holder: object, kind: str, where: str) -> tuple[Shown, ...] | Net:
    """holder["view"] (kind "view") or holder["net"] (kind "net"), read and checked."""
    if not isinstance(holder, dict):
        raise InputError(f"must be an object with a {kind!r}, got {describe(holder)}", field=where)
    if kind == "view":
        return read_view(holder.get("view"), f"{where}.view")
    try:
        return net_from_record(holder.get("net"))
    except InputError as err:
        raise InputError(err.message, field=f"{where}.net" + (f".{err.field}" if err.field else "")) from None


# -- the exact check and the audit ------------------------------------------------------------------


def fold_all(nets: Sequence[Net]) -> list[FoldedNet]:
    """The nets folded on the engine in FOLD_CHUNK-sized calls (the last padded with copies, and
    faces padded to 6 where every net has at most 6), so the kernel compiles few shapes."""
    faces = CUBE_FACES if all(len(net) <= CUBE_FACES for net in nets) else max(len(net) for net in nets)
    out: list[FoldedNet] = []
    for start in range(0, len(nets), FOLD_CHUNK):
        chunk = list(nets[start:start + FOLD_CHUNK])
        out += fold_nets(chunk + [chunk[-1]] * (FOLD_CHUNK - len(chunk)), faces)[:len(chunk)]
    return out


@dataclass
class CubeAuditItem(AuditItem):
    """An audit verdict with what the engine found: the options that fit the question
    (`physical`), and each problem by name: wrong_key, duplicate_option, correct_distractor."""

    physical: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        out = {"id": self.id, "verdict": self.verdict}
        if self.reason:
            out["reason"] = self.reason
        if self.verdict == DIFFERS:
            out.update(problems=self.problems, physical_options=self.physical)
        return out


def judge(item: CubeItem, folded: Mapping[int, FoldedNet]) -> CubeAuditItem:
    """The verdict on one read item, its nets folded (`folded[id(net)]`)."""
    labels = _labels(item)
    period = periods(item.style, labels)
    if item.task.question == "net":
        cube = folded[id(item.question)]
        if not cube.valid:
            return CubeAuditItem(item.name, INVALID, f"{item.name}: info.question.net: does not fold into a cube "
                                 f"({cube.reason})")
        sides = cube_sides(cube)
        fits = {label: shows(sides, view, period) for label, view in item.options.items()}
        keys = {label: view_key(view, period) for label, view in item.options.items()}
    else:
        fits = {label: folded[id(net)].valid and shows(cube_sides(folded[id(net)]), item.question, period)
                for label, net in item.options.items()}
        keys = {label: net_picture_key(net, period) for label, net in item.options.items()}
    physical = [label for label, fit in fits.items() if fit == item.task.key_fits]
    problems, words = [], []
    if fits[item.answer] != item.task.key_fits:
        problems.append("wrong_key")
        words.append(f"the key {item.answer} {'does not fit' if item.task.key_fits else 'fits'} the question "
                     f"(physical answer: {', '.join(physical) or 'no option'})")
    wrong_right = [label for label in physical if label != item.answer]
    if wrong_right and "wrong_key" not in problems:
        problems.append("correct_distractor")
        words.append(f"distractor {', '.join(wrong_right)} is in fact correct")
    seen: dict = {}
    for label, key in keys.items():
        if key in seen:
            if "duplicate_option" not in problems:
                problems.append("duplicate_option")
            words.append(f"options {seen[key]} and {label} show the same {item.task.option}")
        seen.setdefault(key, label)
    if not problems:
        return CubeAuditItem(item.name, OK, physical=physical)
    return CubeAuditItem(item.name, DIFFERS, f"{item.name}: " + "; ".join(words), physical=physical,
                         problems=problems, physical_option=physical[0] if len(physical) == 1 else None)


def _labels(item: CubeItem) -> list[str]:
    shapes = [item.question, *item.options.values()]
    found: list[str] = []
    for shape in shapes:
        for label in (shape.labels if isinstance(shape, Net) else [s[0] for s in shape]):
            if label not in found:
                found.append(label)
    return found


def audit_cube_records(records: list, file: str, family: str) -> AuditReport:
    """Audit cube-choice records of `family` on the engine (all their nets folded in a few batched
    calls): per record ok, differs (with its problems) or invalid; never an exception."""
    _, items, verdicts = read_each(records, lambda index, name: read_item(records[index], name, family))
    nets = [shape for item in items.values() for shape in (item.question, *item.options.values())
            if isinstance(shape, Net)]
    folded = {id(net): result for net, result in zip(nets, fold_all(nets) if nets else [])}
    for index, item in items.items():
        verdicts[index] = judge(item, folded)
    return AuditReport(file, [verdicts[index] for index in range(len(records))])


def cube_split_key(family: str, record: dict) -> str:
    """The split key of a cube-choice record: family, level, task and the record's cube up to the
    24 rotations (pattern turns as the faces' style shows them); InputError naming the field."""
    name = record.get("id") if isinstance(record, dict) else None
    info = record.get("info") if isinstance(record, dict) else None
    try:
        if not isinstance(info, dict) or info.get("faces") not in FACE_STYLES or info.get("task") not in TASKS:
            raise InputError("must be an object with the task and faces of a cube-choice record", field="info")
        cube = info.get("cube")
        if not isinstance(cube, list) or len(cube) != CUBE_FACES:
            raise InputError(f"must be 6 [label, turn, mirror] triples, got {describe(cube)}", field="info.cube")
        sides = read_view(cube[:3], "info.cube") + read_view(cube[3:], "info.cube")
    except InputError as err:
        raise err.at(item=name if isinstance(name, str) else None) from None
    key = cube_key(sides, periods(info["faces"], [s[0] for s in sides]))
    return json.dumps([family, record.get("level"), info["task"], key], separators=(",", ":"))


# -- pictures ---------------------------------------------------------------------------------------


def cube_choice_images(record: object, family: str) -> dict[str, bytes]:
    """The record's pictures (image_names): the composite (question above its labelled options)
    and each option alone, coloured or patterned faces as its info says. Drawn from what the
    record holds, not re-keyed; InputError naming the item and field when it cannot be drawn."""
    from ..render.images import png_bytes
    from ..render.net_images import COLOUR_RGB, choice_composite, cube_view_image, flat_net_image, label_colours

    name = record.get("id") if isinstance(record, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"must be a non-empty string, got {describe(name)}", field="id")
    item = read_item(record, name, family)
    labels = _labels(item)
    glyph = item.style == "patterns"
    if glyph:
        colours = label_colours(labels)
    else:
        unknown = [label for label in labels if label not in COLOUR_RGB]
        if unknown:
            raise InputError(f"coloured faces are labelled by colour names ({', '.join(COLOUR_RGB)}), got "
                             f"{describe(unknown[0])}", item=name, field="info.faces")
        colours = COLOUR_RGB

    def draw(shape, scale: int = 1):  # the question is drawn twice an option's size, as its panel is
        if isinstance(shape, Net):
            return flat_net_image(shape, 40 * scale, colours=colours, glyph=glyph)
        return cube_view_image(shape, 96 * scale, colours=colours, glyph=glyph)

    try:
        panels = [(label, draw(shape)) for label, shape in item.options.items()]
        composite = choice_composite(draw(item.question, 2), panels)
    except InputError as err:
        raise err.at(item=name) from None
    names = image_names(name, list(item.options))
    out = {names["questionImg"]: png_bytes(composite)}
    out.update((file, png_bytes(image)) for file, (_, image) in zip(names["optionImgs"], panels))
    return out


# -- generation -------------------------------------------------------------------------------------

#: candidates drawn per item, at most, before generation gives up (each is checked exactly)
MAX_TRIES_PER_ITEM = 50


def generate_cube_records(family, count: int, seed: int, level: str | None, tasks: Sequence[str], make,
                          on_progress=None, first: int = 0) -> list[dict]:
    """`count` records of a cube-choice family, the items first, first+1, ...: item n (global,
    from 0) is of the level named (else the levels in turn) and of tasks[(n // levels) %
    len(tasks)]; `make(rng, level, task, number)` returns a record or None (a candidate dropped).
    One random stream seeded by (seed, first), so the same arguments give the same records
    (record_family's "Volume"). The records are audited on the engine before they are returned: a
    record that fails is a bug here, never data, so it raises."""
    from ..limits import MAX_FAMILY_COUNT

    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_FAMILY_COUNT:
        raise InputError(f"must be a whole number from 0 to {MAX_FAMILY_COUNT}, got {describe(count)}", field="--count")
    names = [family.level(level)] if level is not None else list(family.levels)
    rng = random.Random(f"foldsim:{family.name}:{seed}:{first}")
    records: list[dict] = []
    tries = 0
    while len(records) < count:
        n = first + len(records)
        tries += 1
        if tries > MAX_TRIES_PER_ITEM * (count + 1):
            raise InputError(f"could not generate {count} items of {family.name}", field="--count")
        try:
            record = make(rng, names[n % len(names)], tasks[(n // len(names)) % len(tasks)], n + 1)
        except (InputError, ValueError):  # one bad candidate: drop it
            record = None
        if record is not None:
            records.append(record)
            if on_progress:
                on_progress(1)
    report = audit_cube_records(records, "generated", family.name)
    if not report.all_ok:
        raise AssertionError(f"{family.name} generated a record its audit refuses: {report.summary()['problems'][0]}")
    return records


class CubeChoiceFamily(RecordFamily):
    """What the cube-choice families (spatialviz-cube, pfp-cube) share: their records are drawn,
    audited and split-keyed by the functions above, whatever their questions."""

    def images(self, record):
        return cube_choice_images(record, self.name)

    def audit(self, records, file):
        return audit_cube_records(records, file, self.name)

    def split_key(self, record):
        return cube_split_key(self.name, record)
