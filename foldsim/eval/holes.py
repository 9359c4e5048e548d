"""The open-ended holes task of every family (docs/families.md, Evaluation): reading and scoring it.

- the open-ended task `holes` on any general sheet: the model lists the holes of the unfolded
  sheet, by cell (row, col, counted from 1, row 1 at the top) where every hole sits at a cell
  centre (`holeNames: "cell"`, SpatialViz), else by exact coordinates (x, y) from the sheet's
  bottom-left corner in cell units (`"point"`: VisFactor on its 3 x 3 square, SRBench on its 1 x 1
  square); answers are read by foldsim.eval.answers (bounded, never raises) and scored with exact,
  partial and field-wise metrics in foldsim.eval.score_base's Report;
- VisFactor's yes/no rows in foldsim's split format are scored by `foldsim score split` (an item
  counts only when all its rows are right).

The question a record carries and its split rows are written with the record
(foldsim.families.records); this module reads the answers to them.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from ..errors import InputError

TASK = "holes"
#: the answer object's key
HOLES_KEY = "holes"
#: more listed holes than this: the answer is refused whole (status too_large)
MAX_OPEN_HOLES = 512
#: a coordinate given as a decimal matches an exact one this close (cell units)
TOLERANCE = Fraction(1, 1000)
MAX_NUMBER_CHARS = 40
_PAIR_TEXT = re.compile(r"\s*+[\[(]?+\s*+([-+0-9./]{1,40}+)\s*+[,;\s]\s*+([-+0-9./]{1,40}+)\s*+[\])]?+\s*+")


# -- the truth ----------------------------------------------------------------------------------------


def truth_pairs(record: dict) -> list[tuple[Fraction, Fraction]]:
    """The truth holes of a family record as the task names them: (row, col) from 1, or (x, y)."""
    from ..families.base import holes_from_json

    holes = holes_from_json(record.get("resultHoles"), "resultHoles")
    rows = record["item"]["sheet"]["rows"]
    if record.get("holeNames") == "cell":
        out = []
        for hole in holes:
            cell = hole.cell(rows)
            if cell is None:
                raise InputError(f"hole ({hole.x}, {hole.y}) is on a grid line, not in a cell", item=str(record.get("id")),
                                 field="resultHoles")
            out.append((Fraction(cell[0] + 1), Fraction(cell[1] + 1)))
        return sorted(out)
    return sorted((h.x, h.y) for h in holes)


def answer_pairs(record: dict) -> list:
    """The perfect answer of a record's open-ended task, as JSON values (ints for cells, exact
    fraction strings for points)."""
    pairs = truth_pairs(record)
    if record.get("holeNames") == "cell":
        return [[int(a), int(b)] for a, b in pairs]
    return [[_text(a), _text(b)] for a, b in pairs]


def _text(value: Fraction) -> str | int:
    return int(value) if value.denominator == 1 else str(value)




# -- reading answers -------------------------------------------------------------------------------


def _number(value: object) -> Fraction | None:
    """An exact number from an int, a float, or a short "p/q" / decimal string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value) if abs(value) < 10**9 else None
    if isinstance(value, float):
        return Fraction(repr(value)) if math.isfinite(value) and abs(value) < 1e9 else None
    if isinstance(value, str) and 0 < len(value.strip()) <= MAX_NUMBER_CHARS:
        try:
            number = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            return None
        return number if abs(number) < 10**9 else None
    return None


def _pair(entry: object, cell: bool) -> tuple[Fraction, Fraction] | None:
    keys = (("row", "col"), ("row", "column"), ("r", "c")) if cell else (("x", "y"),)
    if isinstance(entry, dict):
        for a, b in keys:
            if a in entry and b in entry:
                entry = [entry[a], entry[b]]
                break
        else:
            return None
    if isinstance(entry, str):
        match = _PAIR_TEXT.fullmatch(entry) if len(entry) <= 2 * MAX_NUMBER_CHARS + 8 else None
        entry = [match.group(1), match.group(2)] if match else None
    if not isinstance(entry, (list, tuple)) or len(entry) != 2:
        return None
    a, b = _number(entry[0]), _number(entry[1])
    return None if a is None or b is None else (a, b)


def read_holes(answer, cell: bool) -> tuple[list[tuple[Fraction, Fraction]], int, str, str]:
    """(pairs read, entries that could not be read, status, reason) of one Answer. Never raises."""
    from .answers import STATUS_OK, STATUS_TOO_LARGE, STATUS_UNPARSEABLE

    if not answer.ok:
        return [], 0, answer.status, answer.reason
    data = answer.data or {}
    entries = data.get(HOLES_KEY, data.get("resultHoles"))
    if not isinstance(entries, list):
        return [], 0, STATUS_UNPARSEABLE, f"{HOLES_KEY}: not a list"
    if len(entries) > MAX_OPEN_HOLES:
        return [], 0, STATUS_TOO_LARGE, f"{HOLES_KEY}: more than {MAX_OPEN_HOLES} holes"
    pairs, bad = [], 0
    for entry in entries:
        pair = _pair(entry, cell)
        if pair is None:
            bad += 1
        else:
            pairs.append(pair)
    return pairs, bad, STATUS_OK, ""


# -- scoring ---------------------------------------------------------------------------------------


def _close(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> bool:
    return abs(a[0] - b[0]) <= TOLERANCE and abs(a[1] - b[1]) <= TOLERANCE


def match_pairs(truth: Sequence[tuple], predicted: Sequence[tuple]) -> list[tuple[int, int]]:
    """Holes matched one to one, as (truth index, predicted index): exact pairs first, then within
    TOLERANCE, greedily in order (the report draws this very matching)."""
    free: dict[tuple, list[int]] = defaultdict(list)
    for k, pair in enumerate(predicted):
        free[pair].append(k)
    pairs, rest = [], []
    for g, pair in enumerate(truth):
        if free.get(pair):
            pairs.append((g, free[pair].pop(0)))
        else:
            rest.append(g)
    pool = [k for ks in free.values() for k in ks]  # the order Counter.elements() gave: first seen, then index
    for g in rest:
        for j, k in enumerate(pool):
            if _close(truth[g], predicted[k]):
                pool.pop(j)
                pairs.append((g, k))
                break
    return pairs


def _matches(truth: Sequence[tuple], predicted: Sequence[tuple]) -> int:
    """How many holes match one to one (match_pairs)."""
    return len(match_pairs(truth, predicted))


def _field_matches(truth: Sequence[Fraction], predicted: Sequence[Fraction]) -> int:
    return _matches([(t, Fraction(0)) for t in truth], [(p, Fraction(0)) for p in predicted])


def field_names(record: dict) -> tuple[str, str]:
    return ("row", "col") if record.get("holeNames") == "cell" else ("x", "y")


def score_holes_unit(record: dict, answer):
    """One record's ItemScore (foldsim.eval.score_base) for an Answer (None: missing)."""
    from .score_base import ItemScore

    item = str(record["id"])
    truth = truth_pairs(record)
    names = field_names(record)
    groups = {"family": str(record.get("family")), "level": f"{record.get('family')} {record.get('level')}"}
    base = ItemScore(item, "missing", truth=len(truth), field_truth=len(truth), groups=groups, answered=False)
    if answer is None:
        return replace(base, fields={n: 0 for n in names})
    predicted, bad, status, reason = read_holes(answer, names == ("row", "col"))
    if status != "ok":
        return replace(base, status=status, reason=reason, fields={n: 0 for n in names})
    n_predicted = len(predicted) + bad
    matched = _matches(truth, predicted)
    fields = {names[k]: _field_matches([t[k] for t in truth], [p[k] for p in predicted]) for k in (0, 1)}
    notes = (f"{bad} listed holes could not be read",) if bad else ()
    return ItemScore(item, status, reason, len(truth), n_predicted, matched, fields, len(truth), n_predicted,
                     matched == len(truth) == n_predicted, groups=groups, notes=notes, answered=True)


def _summary(units: Sequence) -> dict:
    from .score_base import ratio

    n = len(units)
    denominator = sum(u.truth + max(0, u.predicted - u.truth) for u in units)
    fields = sorted({f for u in units for f in u.fields})
    return {"items": n, "exact_match": ratio(sum(u.exact for u in units), n),
            "partial": ratio(sum(u.matched for u in units), denominator),
            "count_exact": ratio(sum(u.answered and u.predicted == u.truth for u in units), n),
            **{f"field_{f}": ratio(sum(u.fields.get(f, 0) for u in units), denominator) for f in fields},
            "extra_rate": ratio(sum(u.predicted > u.matched for u in units), n),
            "missing_rate": ratio(sum(u.truth > u.matched for u in units), n)}


def score_holes(records: Sequence[object], answers: Iterable, *, source: str = "truth"):
    """A Report (foldsim.eval.score_base) of the holes task: pooled exact_match, partial (matched
    / (truth + extra)), count_exact, field_<row|col|x|y>, extra_rate, missing_rate; by family and
    level. A truth record that cannot be read counts in N as a failure and is named in `errors`."""
    from .answers import index_answers
    from .score_base import Report, family_counts_and_groups

    by_id, duplicates = index_answers(answers)
    notes = [f"answer {d} appears more than once: the last one is scored" for d in duplicates]
    units, errors = [], []
    for index, record in enumerate(records):
        try:
            if not isinstance(record, dict) or not isinstance(record.get("id"), (str, int)):
                raise InputError("a truth record must be an object with an id", item=f"record {index}")
            units.append(score_holes_unit(record, by_id.get(str(record["id"]))))
        except (InputError, KeyError, TypeError) as err:
            errors.append(f"{source}: {err}" if isinstance(err, InputError) else f"{source}: record {index}: {err!r}")
    if not units:
        raise InputError("no usable truth record", item=source)
    metrics = _summary(units)
    n_invalid = len(errors)
    if n_invalid:  # unreadable truth records count in N as failures
        n = len(units) + n_invalid
        metrics["exact_match"] = sum(u.exact for u in units) / n
    metrics.pop("items")
    counts, groups = family_counts_and_groups(units, n_invalid, _summary)
    return Report(TASK, "default", units, metrics, counts, groups, notes, [], errors)


def score_holes_files(truth_path: str | Path, answers_path: str | Path):
    """`foldsim score holes TRUTH ANSWERS`: family records (`<family>_items.json`) and any answer
    file `foldsim score` reads (an answer object with a `holes` list; `holes` is one of
    foldsim.eval.answers.ANSWER_KEYS)."""
    from .answers import load_answers
    from ..io import read_records

    records = read_records(truth_path)
    answers = load_answers(answers_path)
    report = score_holes(records, answers, source=str(truth_path))
    report.errors += [f"{answers_path}: {a.id}: {a.reason}" for a in answers if a.unreadable]
    return report


def score_holes_item(truth_record: dict, response_text) -> dict[str, float]:
    """Per-item metrics of one response (foldsim.eval.score_item, the reward functions). Never
    raises on the response; InputError for a truth record that cannot be read."""
    from .answers import answer_of_completion

    answer = answer_of_completion(response_text)
    unit = score_holes_unit(truth_record, replace(answer, id=str(truth_record.get("id"))))
    metrics = {k: (1.0 if v is None else float(v)) for k, v in _summary([unit]).items() if k != "items"}
    metrics["answer_parsed"] = float(answer.ok)
    return metrics
