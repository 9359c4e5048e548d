"""Planning the reference way: the runner's converter, animate.py + run.py's replay (emulated with
the foldsim simulator), then planning_scoring.py on the replay records (`score_planning`)."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..answers import Answer
from ...config import Config
from ...errors import describe
from ...holes import SHAPE_PERIOD, Hole
from ..score_base import FIELDS, ItemScore, Report, TruthItem, group_breakdown, in_row_chunks, ratio
from .prediction import numbered_group
from .reading import RefHole, hole_planning
from .tensors import Interner, count_matches, ref_tensors, ref_tests
from .text import MODE_TOP_LEVEL, RefCrash, answer_record, first_json_object_fence, is_error_row, loads, model_text

# --------------------------------------------------------------------------------------------------
# planning: the reference pipeline (the runner's converter, animate.py + run.py's replay, emulated
# with the foldsim simulator), then planning_scoring.py on the replay records


RUN_PY_CODES = frozenset({f"{a}{n}-{s}" for a in "HVD" for n in "12" for s in "FB"} | {f"D{n}-{s}" for n in "34" for s in "FB"}
                         | {"R-90", "R-180", "R-270", "R-360"})
GRID_IDS = frozenset(range(1, 33))
PLAN_MAX_PUNCHES = 2
REPLAY_KEYS = ("resultHoles", "initialHoles", "foldingTypes", "numberofFoldingSteps", "totalNumberofHoles")
MISSING_REPLAY = {"resultHoles": [], "totalNumberofHoles": 0, "numberofFoldingSteps": -1, "initialHoles": []}


class Skipped(Exception):
    """The pipeline writes no replay for this answer (it is scored as a missing replay)."""


class CannotReplay(Exception):
    """run.py would replay this plan, but foldsim cannot reproduce its 3-D result."""


def converted_row(data: dict) -> dict:
    """The runner's convert_to_target_format: folds joined with commas (a string is joined character
    by character, an object by its keys), holes as they are; where the join raises the runner
    writes an error row, which animate.py skips."""
    try:
        folds = ",".join(data.get("folds", []))
    except TypeError:
        raise Skipped("folds cannot be joined: the runner writes an error row, animate.py skips it") from None
    return {"folds": folds, "holes": data.get("holes", [])}


def planning_input(record: object) -> tuple[str, dict]:
    """What the pipeline makes of one answer record: ("replay", record) for a replay record (the
    animate.py output, or a MentalBlackboard record), which planning_scoring.py reads as it is;
    ("row", row) for a row animate.py replays: the runner's own row (`folds` one comma-joined
    string) as it is, a plan object (`folds` a list) or model text (its first ```json {...}```
    block) converted as the runner does. Skipped where no replay results."""
    if isinstance(record, dict):
        if "folds" in record or "holes" in record:
            return "row", record if isinstance(record.get("folds"), str) else converted_row(record)
        if any(k in record for k in REPLAY_KEYS):
            return "replay", record
        if is_error_row(record):
            raise Skipped("an error row: animate.py skips it")
    text = model_text(record, raw_response=True)
    block = first_json_object_fence(text) if text is not None else None
    outcome, data = loads(block) if block is not None else ("invalid", None)
    if outcome != "ok":
        raise Skipped("no ```json {...}``` block that parses: the runner writes an error row, animate.py skips it")
    return "row", converted_row(data)


@dataclass(frozen=True)
class Punch:
    """One punch run.py makes: the hole spec as written and the hole foldsim simulates."""

    spec: dict
    hole: Hole


def run_py_plan(row: dict) -> tuple[list[str], list[Punch]]:
    """animate.py + run.py on one row: the codes and the punches made. Skipped for a row without
    folds or holes; RefCrash where run.py (or animate.py) raises, which aborts the reference's
    remaining batch; CannotReplay for a direction foldsim does not model."""
    folds, holes = row.get("folds"), row.get("holes")
    if not folds or not holes:
        raise Skipped("no folds or no holes: animate.py skips the row")
    if not isinstance(folds, str):
        raise RefCrash(f"folds {describe(folds)} is not a string: animate.py cannot pass it to run.py (TypeError)")
    try:
        specs = ast.literal_eval(str(holes))
        iter(specs)
    except Exception:
        raise RefCrash("run.py cannot read the hole list (ast.literal_eval of its text)") from None
    codes = [c.strip() for c in folds.split(",")]
    unknown = next((c for c in codes if c not in RUN_PY_CODES), None)
    if unknown is not None:
        raise RefCrash(f"unknown folding action {unknown!r}: run.py raises")
    return codes, [p for p in map(run_py_punch, specs) if p is not None]


def run_py_punch(spec: object) -> Punch | None:
    """One hole spec as run.py's planning() takes it: None when its location is not a grid id
    (skipped with a message); RefCrash for a missing key, a non-numeric direction (math.radians) or
    an unknown shape (punch_hole)."""
    try:
        shape, size, direction, location = spec["shape"], spec["size"], spec["direction"], spec["location"]
        known = location in GRID_IDS
    except (TypeError, KeyError, IndexError) as why:
        raise RefCrash(f"hole spec {describe(spec)} lacks shape, size, direction or a hashable location ({type(why).__name__})") from None
    if not known:
        return None
    if not isinstance(direction, (int, float)):
        raise RefCrash(f"direction {describe(direction)} is not numeric: math.radians raises")
    if not isinstance(shape, str) or shape not in SHAPE_PERIOD:
        raise RefCrash(f"unknown shape {describe(shape)}: punch_hole raises")
    if SHAPE_PERIOD[shape] == 1:
        quarter_degrees = 0
    elif type(direction) is int and direction in (0, 90, 180, 270):
        quarter_degrees = direction
    else:
        raise CannotReplay(f"a {shape} punched at direction {direction!r} (foldsim replays 0, 90, 180, 270)")
    return Punch(spec, Hole.make(shape, "small" if size == "small" else "large", quarter_degrees, int(location)))


def run_py_direction(shape: str, direction: object) -> object:
    """The direction run.py writes for a punch: "" for circle and square, the class string for an
    ellipse or rectangle at 0/90/180/270, else the value as given."""
    if SHAPE_PERIOD[shape] == 1:
        return ""
    if SHAPE_PERIOD[shape] == 2 and direction in (90, 270):
        return "90, 270"
    if SHAPE_PERIOD[shape] == 2 and direction in (0, 180):
        return "0, 180"
    return direction


def planning_replays(truth: Sequence[TruthItem], answers: Sequence[Answer]) -> tuple[dict[str, dict], list[str], list[str]]:
    """The replay record of every truth id, as the results file would hold it after the pipeline ran
    over the answers in order (a later replay of the same id replaces an earlier one; a skipped or
    failed row leaves an earlier replay in place). Rows are simulated in one batch, one row per
    punch, so a punch where no paper lies makes no holes while the others count, as in run.py.
    Returns (replays, notes, crashes)."""
    from ...simulate import simulate

    wanted = {t.id for t in truth}
    plans, notes, crashes = [], [], []  # plans: (id, record or None, codes, punches) in answer order
    for answer in answers:
        if answer.id not in wanted:
            continue
        try:
            kind, value = planning_input(answer_record(answer))
            plans.append((answer.id, value, (), ()) if kind == "replay" else (answer.id, None, *run_py_plan(value)))
        except Skipped as why:
            notes.append(f"{answer.id}: no replay ({why})")
        except CannotReplay as why:
            notes.append(f"{answer.id}: not replayed ({why}); scored as a missing replay")
        except RefCrash as crash:
            crashes.append(f"{answer.id}: {crash}; animate.py aborts the remaining batch")
    rows = [Config(tuple(c for c in codes if c != "R-360"), (p.hole,), item_id) for item_id, record, codes, punches in plans for p in punches]
    results = iter(simulate(rows) if rows else [])
    replays = {}
    for item_id, record, codes, punches in plans:
        if record is not None:
            replays[item_id] = record
            continue
        try:
            replays[item_id] = replay_record(codes, punches, [next(results) for _ in punches])
        except CannotReplay as why:
            notes.append(f"{item_id}: not replayed ({why}); scored as a missing replay")
        except RefCrash as crash:
            crashes.append(f"{item_id}: {crash}; animate.py aborts the remaining batch")
    return replays, notes, crashes


def replay_record(codes: list[str], punches: list[Punch], results: list) -> dict:
    """The record run.py appends for a replayed row: every executed code is a step (rotations
    included), every accepted punch an initial hole, the result holes with the size as written."""
    holes = []
    for punch, result in zip(punches, results):
        if result.status == "not_realizable":
            raise CannotReplay(f"{result.reason}; run.py does not check this")
        holes += [{**h.to_dict(), "size": punch.spec["size"]} for h in result.holes] if result.ok else []
    if len(holes) % 2:
        raise RefCrash(f"{len(holes)} result holes: run.py raises on an odd total")
    initial = [{"shape": p.spec["shape"], "size": p.spec["size"], "direction": run_py_direction(p.spec["shape"], p.spec["direction"]),
                "location": p.spec["location"]} for p in punches]
    return {"numberofFoldingSteps": len(codes), "initialHoles": initial, "resultHoles": holes, "totalNumberofHoles": len(holes)}


@dataclass(frozen=True)
class ReadReplay:
    """One truth record and its replay as planning_scoring.py reads them."""

    truth: TruthItem
    truth_holes: tuple[RefHole, ...]
    holes: tuple[RefHole, ...]
    g: object
    p: object
    broken: tuple[str, ...]  # the rules broken: invalid_initial_holes, steps_mismatch
    wrong_step_correct_answer: bool
    replayed: bool


def planning_holes(value: object) -> tuple[RefHole, ...]:
    """A hole list as normalize_hole reads it (iterated as it is: a string by characters)."""
    try:
        return tuple(map(hole_planning, value))
    except TypeError:
        raise RefCrash(f"a hole list is {describe(value)} (TypeError: not iterable)") from None


def initial_hole_count(record: dict) -> int:
    """count_initial_holes: the initialHoles list's length, else one of three count keys, else 0."""
    initial = record.get("initialHoles", [])
    if isinstance(initial, list):
        return len(initial)
    for key in ("totalNumberofInitialHoles", "numberOfInitialHoles", "initialHoleCount"):
        if key in record:
            try:
                return int(record[key])
            except Exception:
                pass
    return 0


def folding_steps(record: dict) -> int:
    try:
        return int(record.get("numberofFoldingSteps", -1))
    except (TypeError, ValueError, OverflowError):
        raise RefCrash(f"numberofFoldingSteps {describe(record.get('numberofFoldingSteps'))} is not a number") from None


def content_key(hole: RefHole) -> tuple:
    return (hole.shape, hole.size, hole.direction_key, hole.location)


def read_replay(truth: TruthItem, replay: dict, replayed: bool) -> ReadReplay:
    """planning_scoring.py's reading of one (truth, replay) pair; RefCrash where it raises."""
    truth_holes = planning_holes(truth.record.get("resultHoles", []))
    holes = planning_holes(replay.get("resultHoles", []))
    g = truth.record.get("totalNumberofHoles", len(truth_holes))
    p = replay.get("totalNumberofHoles", len(holes))
    for value, whose in ((p, "the replay's"), (g, "the truth's")):
        if not isinstance(value, (int, float)):
            raise RefCrash(f"totalNumberofHoles {describe(value)} ({whose}) is not a number (TypeError)")
    punches = initial_hole_count(replay)
    steps_match = folding_steps(truth.record) == folding_steps(replay)
    broken = tuple(name for name, bad in (("invalid_initial_holes", punches > PLAN_MAX_PUNCHES), ("steps_mismatch", not steps_match)) if bad)
    same_content = Counter(map(content_key, truth_holes)) == Counter(map(content_key, holes))
    punched_is_result = Counter(map(content_key, planning_holes(replay.get("initialHoles", [])))) == Counter(map(content_key, holes))
    return ReadReplay(truth, truth_holes, holes, g, p, broken, bool(broken) and same_content and not punched_is_result, replayed)


def score_planning(truth: Sequence[TruthItem], answers: Sequence[Answer], mode: str = MODE_TOP_LEVEL) -> Report:
    """planning_scoring.py on the replays: greedy matching (shape and size case-folded, int location,
    direction overlap) on the declared totals, exact forced to 0 when the step count differs from
    the truth's or more than 2 punches were made; fields as multisets of exact values; N = the truth
    records."""
    replays, notes, crashes = planning_replays(truth, answers)
    read = []
    for t in truth:
        try:
            read.append(read_replay(t, replays.get(t.id, MISSING_REPLAY), t.id in replays))
        except RefCrash as crash:
            crashes.append(f"{t.id}: {crash}")
    matched = in_row_chunks(partial(planning_counts, Interner()), [r.truth_holes for r in read], [r.holes for r in read])
    items = []
    for b, r in enumerate(read):
        item = planning_item(r, {name: int(c[b]) for name, c in matched.items()})
        if item.exact and not item.groups:
            crashes.append(f"{r.truth.id}: exact, but its id is outside PFHP_1-400 (KeyError in the group table)")
            continue
        items.append(item)
    counts = {"N": len(truth), "replayed": sum(r.replayed for r in read), "exact": sum(i.exact for i in items), "crashed": len(crashes),
              **{rule: sum(rule in r.broken for r in read) for rule in ("invalid_initial_holes", "steps_mismatch")},
              "marked_wrong": sum(bool(r.broken) for r in read), "wrong_step_correct_answer": sum(r.wrong_step_correct_answer for r in read)}
    return Report("planning", f"compat {mode}", items, planning_metrics(items, len(truth)), counts,
                  group_breakdown(items, planning_group_summary), notes, crashes)


def planning_item(r: ReadReplay, matched: dict[str, int]) -> ItemScore:
    """One item's score: G and P the declared totals, the fields over the listed holes."""
    m = matched["exact"]
    group = numbered_group(100, 4)(r.truth.id)
    return ItemScore(r.truth.id, "scored" if r.replayed else "missing", "; ".join(r.broken), r.g, r.p, m,
                     {f: matched[f] for f in FIELDS}, len(r.truth_holes), len(r.holes),
                     exact=r.p == r.g and m == r.g and not r.broken, groups={"group": group} if group else {})


def planning_metrics(items: Sequence[ItemScore], n: int) -> dict[str, float | None]:
    """Pooled planning numbers over N = the number of truth records."""
    field_denominator = sum(i.field_truth + max(0, i.field_predicted - i.field_truth) for i in items)
    return {
        "exact_match": ratio(sum(i.exact for i in items), n),
        "partial": ratio(sum(i.matched for i in items), sum(i.truth + max(0, i.predicted - i.truth) for i in items)),
        **{f"field_{f}": ratio(sum(i.fields[f] for i in items), field_denominator) for f in FIELDS},
        "extra_rate": ratio(sum(i.predicted > i.truth for i in items), n),
        "missing_rate": ratio(sum(i.predicted < i.truth for i in items), n),
    }


def planning_group_summary(members: Sequence[ItemScore]) -> dict:
    return {"items": len(members), "exact_match": ratio(sum(i.exact for i in members), len(members))}


def planning_counts(intern: Interner, truth_rows: Sequence, replayed_rows: Sequence) -> dict[str, np.ndarray]:
    """Matched holes per item: "exact" greedy (shape and size case-folded, location, direction
    overlap) and the fields as multisets of exact values (tuples for the compounds)."""
    tests = ref_tests(ref_tensors(truth_rows, intern), ref_tensors(replayed_rows, intern))
    location, shape, direction = tests["location"], tests["shape"], tests["direction_key"]
    by_field = {"shape": shape, "size": tests["size"], "location": location, "direction": direction,
                "location_shape": location & shape, "location_direction": location & direction,
                "shape_direction": shape & direction, "location_shape_direction": location & shape & direction}
    return {"exact": count_matches(tests["folded"] & location & tests["overlap"], "greedy"),
            **{f: count_matches(test, "multiset") for f, test in by_field.items()}}
