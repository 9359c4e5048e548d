"""The open tasks of named exact values, `count` and `opposite` (docs/families.md, "Evaluation of
the record families"): the model answers with one JSON object of named values, and each value is
right or wrong exactly.

- truth: the record's `<task>Answer`, an object of 1 to MAX_FIELDS named values (`{"cutouts": 3}`,
  `{"opposite": "red"}`): whole numbers for `count` (negative only for a difference such as
  VisWorld-Eval's "triangle_left minus triangle_right"), names for `opposite`. A point-hole family
  record (the SpatialViz grid records above all) carries no `countAnswer`: its count task is
  derived, at prompt and score time, from `resultHoles` (`{"holes": <how many>}`), so its bytes
  never change;
- the answer: the last JSON object in the response that holds one of the truth's names (read by
  foldsim.eval.answers: bounded, never raises on any text); a count is an integer (a JSON integer,
  an integral number, or a string of digits), a name is compared after case folding and
  collapsing blank space ("Dark  Blue" = "dark blue");
- the score: exact match (every named value right, an answer object found) overall and per name,
  and the share of names right, in foldsim.eval.score_base's Report, by family and by level.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from ..errors import InputError

VALUE_TASKS = ("count", "opposite")
#: the count task's name on a point-hole family record (derived from resultHoles)
HOLES_NAME = "holes"
#: bounds on a truth object (refused beyond them) and on an answer's values (wrong beyond them)
MAX_FIELDS = 16
MAX_NAME_CHARS = 200
MAX_COUNT = 10**9
_NAME_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_DIGITS = re.compile(r"\s*([+-]?[0-9]{1,10})\s*")


def _check_task(task: str) -> None:
    if task not in VALUE_TASKS:
        raise InputError(f"unknown value task {task!r} (expected {', '.join(VALUE_TASKS)})", field="task")


def derived_count(record: dict) -> bool:
    """Whether a record's count task is derived from its holes (a point-hole family record with no
    `countAnswer`), not carried."""
    return "countAnswer" not in record and isinstance(record.get("resultHoles"), list)


def truth_values(task: str, record: object, index: int = 0) -> dict[str, int | str]:
    """The named values a record's task expects; InputError naming the item and field when the
    record holds none it can be scored on."""
    _check_task(task)
    if not isinstance(record, dict) or not isinstance(record.get("id"), (str, int)) or isinstance(record.get("id"), bool):
        raise InputError("a truth record must be an object with an id", item=f"record {index}")
    item, name = str(record["id"]), f"{task}Answer"
    if task == "count" and derived_count(record):
        return {HOLES_NAME: len(record["resultHoles"])}
    values = record.get(name)
    if not isinstance(values, dict) or not 1 <= len(values) <= MAX_FIELDS:
        raise InputError(f"missing, or not an object of 1 to {MAX_FIELDS} named values", item=item, field=name)
    out: dict[str, int | str] = {}
    for key, value in values.items():
        if not _NAME_KEY.fullmatch(key):
            raise InputError("a name must be a letter then up to 63 letters, digits or _", item=item,
                             field=f"{name}.{key[:64]}")
        if task == "count" and not (isinstance(value, int) and not isinstance(value, bool)
                                    and -MAX_COUNT <= value <= MAX_COUNT):
            raise InputError(f"must be a whole number from -{MAX_COUNT} to {MAX_COUNT}", item=item,
                             field=f"{name}.{key}")
        if task == "opposite" and (not isinstance(value, str) or not normal_name(value)):
            raise InputError(f"must be a name (a non-blank string of at most {MAX_NAME_CHARS} characters)", item=item,
                             field=f"{name}.{key}")
        out[key] = value if task == "count" else normal_name(value)
    return out


def normal_name(value: object) -> str | None:
    """A name as compared: case-folded, blank space collapsed; None for anything else or too long."""
    if not isinstance(value, str) or len(value) > MAX_NAME_CHARS:
        return None
    return " ".join(value.casefold().split()) or None


def count_value(value: object) -> int | None:
    """A count as compared: a JSON integer, an integral number or a string of digits; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) <= MAX_COUNT else None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() and abs(value) <= MAX_COUNT else None
    if isinstance(value, str) and len(value) <= 16:
        match = _DIGITS.fullmatch(value)
        return int(match.group(1)) if match else None
    return None


# -- the question ----------------------------------------------------------------------------------


def answer_form(task: str, names: Iterable[str]) -> str:
    """The line asking for the answer object (its names, never its values)."""
    placeholder = "<whole number>" if task == "count" else "<name>"
    shape = ", ".join(f'"{name}": {placeholder}' for name in names)
    return f"End your reply with one line of JSON in this form:\n{{{shape}}}"


def open_question(task: str, record: dict) -> str:
    """The question of a record's task and the answer form: its own `<task>Question` (followed by
    the form unless it names every answer key in quotes itself), or for a derived count, a question
    worded from its sheet. InputError naming the field when it has none."""
    _check_task(task)
    item = str(record.get("id", "?"))
    if task == "count" and derived_count(record):
        question = ("How many holes does the completely unfolded sheet have? Count every hole once, wherever it "
                    "is on the sheet.")
        return f"{question}\n{answer_form(task, [HOLES_NAME])}"
    question = record.get(f"{task}Question")
    if not isinstance(question, str) or not question.strip():
        raise InputError("missing or not a non-blank string", item=item, field=f"{task}Question")
    answer = record.get(f"{task}Answer")
    names = [k for k in answer if isinstance(k, str)][:MAX_FIELDS] if isinstance(answer, dict) else []
    if not names:
        raise InputError(f"missing, or not an object of 1 to {MAX_FIELDS} named values", item=item,
                         field=f"{task}Answer")
    if all(f'"{name}"' in question for name in names):  # the family words the answer's form itself
        return question.strip()
    return f"{question.strip()}\n{answer_form(task, names)}"


# -- scoring ---------------------------------------------------------------------------------------


def value_right(task: str, truth: int | str, given: object) -> bool:
    if task == "count":
        return count_value(given) == truth
    return normal_name(given) == truth


def score_values_unit(task: str, record: dict, answer, index: int = 0):
    """One record's ItemScore (foldsim.eval.score_base) for an Answer (None: missing): truth = the
    names asked, predicted = the names the answer gives, matched = the names right, fields = per
    name 1 or 0, exact = every name right."""
    from .score_base import ItemScore

    truth = truth_values(task, record, index)
    item = str(record["id"])
    groups = {"family": str(record.get("family")), "level": f"{record.get('family')} {record.get('level')}"}
    base = ItemScore(item, "missing", truth=len(truth), field_truth=len(truth), fields=dict.fromkeys(truth, 0),
                     groups=groups, answered=False)
    if answer is None:
        return base
    if not answer.ok or not isinstance(answer.data, dict):
        return replace(base, status=answer.status, reason=answer.reason)
    data = answer.data
    fields = {name: int(name in data and value_right(task, value, data[name])) for name, value in truth.items()}
    given = sum(name in data for name in truth)
    matched = sum(fields.values())
    return ItemScore(item, "ok", "", len(truth), given, matched, fields, len(truth), given, matched == len(truth),
                     groups=groups, answered=True)


def _summary(units: Sequence) -> dict:
    from .score_base import ratio

    names = sorted({name for u in units for name in u.fields})
    return {"items": len(units), "exact_match": ratio(sum(u.exact for u in units), len(units)),
            "fields": ratio(sum(u.matched for u in units), sum(u.truth for u in units)),
            "answered": ratio(sum(u.answered for u in units), len(units)),
            **{f"field_{name}": ratio(sum(u.fields.get(name, 0) for u in units),
                                      sum(name in u.fields for u in units)) for name in names}}


def score_values(task: str, records: Sequence[object], answers: Iterable, *, source: str = "truth"):
    """A Report of a value task: exact_match (every name right; unreadable truth records count in N
    as failures), fields (names right / names asked), answered, field_<name>; by family and level."""
    from .answers import index_answers
    from .score_base import Report, family_counts_and_groups

    _check_task(task)
    by_id, duplicates = index_answers(answers)
    notes = [f"answer {d} appears more than once: the last one is scored" for d in duplicates]
    units, errors = [], []
    for index, record in enumerate(records):
        try:
            answer = by_id.get(str(record["id"])) if isinstance(record, dict) and "id" in record else None
            units.append(score_values_unit(task, record, answer, index))
        except InputError as err:
            errors.append(f"{source}: {err}")
    if not units:
        raise InputError("no usable truth record", item=source)
    metrics = _summary(units)
    metrics.pop("items")
    if errors:
        metrics["exact_match"] = sum(u.exact for u in units) / (len(units) + len(errors))
    counts, groups = family_counts_and_groups(units, len(errors), _summary)
    return Report(task, "default", units, metrics, counts, groups, notes, [], errors)


def answer_names(task: str, records: Sequence[object]) -> tuple[str, ...]:
    """Every name any readable record's task asks for: the keys an answer object is looked up by."""
    names: dict[str, None] = {}
    for index, record in enumerate(records):
        try:
            names.update(dict.fromkeys(truth_values(task, record, index)))
        except InputError:
            continue
    return tuple(names) or (HOLES_NAME,)


def load_value_answers(task: str, records: Sequence[object], answers_path: str | Path) -> list:
    """Every answer of a file (any format `foldsim score` reads), its answer object looked up by
    the names the records ask for; InputError only when the file cannot be read."""
    from ..io import read_text
    from .answers import Answer, parse_answer_record, split_answer_text

    keys = answer_names(task, records)
    path = Path(answers_path)
    rows = split_answer_text(read_text(path), path.stem, jsonl=path.suffix.lower() in (".jsonl", ".ndjson"))
    return [r if isinstance(r, Answer) else parse_answer_record(r, i, keys=keys) for i, r in enumerate(rows)]


def score_values_files(task: str, truth_path: str | Path, answers_path: str | Path):
    """`foldsim score count|opposite TRUTH ANSWERS`: records with `<task>Answer` (or point-hole
    family records, for count) and any answer file `foldsim score` reads."""
    from ..io import read_records

    records = read_records(truth_path)
    answers = load_value_answers(task, records, answers_path)
    report = score_values(task, records, answers, source=str(truth_path))
    report.errors += [f"{answers_path}: {a.id}: {a.reason}" for a in answers if a.unreadable]
    return report


def score_values_item(task: str, truth_record: dict, response_text) -> dict[str, float]:
    """Per-item metrics of one response (foldsim.eval.score_item, the reward functions):
    exact_match, fields, field_<name>, answer_parsed. Never raises on the response; InputError for
    a truth record that cannot be read."""
    from .answers import answer_of_completion

    truth = truth_values(task, truth_record)
    answer = answer_of_completion(response_text, keys=tuple(truth))
    unit = score_values_unit(task, truth_record, replace(answer, id=str(truth_record["id"])))
    metrics = {k: float(v or 0.0) for k, v in _summary([unit]).items() if k not in ("items", "answered")}
    metrics["answer_parsed"] = float(unit.answered)
    return metrics


def answer_of(task: str, record: dict) -> dict[str, int | str]:
    """The perfect answer object of a record's task (exports, tests): its truth values as given."""
    truth = truth_values(task, record)
    if task == "count" and derived_count(record):
        return truth
    return {name: record[f"{task}Answer"][name] for name in truth}
