"""Benchmark family items in the report (foldsim generate --family): their groups, and the
open-ended `holes` task (foldsim.eval.holes) drawn on the item's general sheet, cols x rows
cells: the exact result holes as circles at their points and each model's answered holes marked
right / extra / missing by the scorer's own matching (foldsim.eval.holes.match_pairs), so the
drawing's right holes are the scorer's matched count.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from ...errors import InputError
from ...eval.holes import field_names, match_pairs, read_holes, score_holes_files, truth_pairs
from ...eval.answers import Answer, load_answers
from .sheet import Mark

TASK = "holes"


def family_groups(record: object) -> dict[str, str]:
    """A family item's groups: its family and level (the level filter), its number of folds."""
    if not isinstance(record, dict):
        return {}
    groups = {"level": f"{record.get('family')} {record.get('level')}"}
    item = record.get("item") if isinstance(record.get("item"), dict) else record.get("itemRecord")
    actions = item.get("actions") if isinstance(item, dict) else None
    if isinstance(actions, list):
        groups["folds"] = str(sum(isinstance(a, dict) and a.get("type") == "fold" for a in actions))
    return groups


def sheet_of(record: object) -> tuple[int, int] | None:
    """(cols, rows) of a family record's sheet, or None."""
    try:
        sheet = record["item"]["sheet"]
        cols, rows = int(sheet["cols"]), int(sheet["rows"])
    except (KeyError, TypeError, ValueError):
        return None
    return (cols, rows) if 0 < cols <= 100 and 0 < rows <= 100 else None


def score_model(dataset: Path, path: Path):
    """(Report, answers) of one answers file for the holes task; InputError when a file cannot be read."""
    return score_holes_files(dataset, path), load_answers(path)


def _text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


class HoleNames:
    """How one record names its holes (cells or points), and where a named hole lies on the sheet."""

    def __init__(self, record: dict):
        self.cells = field_names(record) == ("row", "col")
        self.rows = record["item"]["sheet"]["rows"]

    def point(self, pair: tuple[Fraction, Fraction]) -> tuple[float, float] | None:
        a, b = pair
        if self.cells:  # (row, col), row 1 at the top: the cell's centre
            x, y = b - Fraction(1, 2), self.rows - a + Fraction(1, 2)
        else:
            x, y = a, b
        return float(x), float(y)

    def said(self, pair: tuple[Fraction, Fraction]) -> str:
        a, b = pair
        return f"row {_text(a)}, col {_text(b)}" if self.cells else f"({_text(a)}, {_text(b)})"

    def marks(self, pairs: Sequence[tuple[Fraction, Fraction]], kind: str) -> tuple[Mark, ...]:
        return tuple(Mark(kind, "circle", "small", None, title=f"{kind}: {self.said(p)}", point=self.point(p)) for p in pairs)


def truth_marks(record: dict) -> tuple[Mark, ...]:
    """The record's result holes as the task names them; InputError for a record that cannot be read."""
    return HoleNames(record).marks(truth_pairs(record), "truth")


def compare(record: dict, answer: Answer) -> tuple[tuple[Mark, ...], str, str]:
    """(marks, status, reason) of one answer: every answered hole right or extra (drawn where it
    says), every truth hole left over missing; holes that could not be read are counted in the reason."""
    names = HoleNames(record)
    truth = truth_pairs(record)
    predicted, bad, status, reason = read_holes(answer, names.cells)
    if status != "ok":
        return names.marks(truth, "missing"), status, reason
    pairs = match_pairs(truth, predicted)
    truth_of = {p: g for g, p in pairs}
    marks = []
    for k, pair in enumerate(predicted):
        if k in truth_of:  # drawn at the truth hole it matches (a decimal within the tolerance)
            marks.append(Mark("match", "circle", "small", None, title=f"right: {names.said(pair)}",
                              point=names.point(truth[truth_of[k]])))
        else:
            marks.append(Mark("extra", "circle", "small", None, title=f"extra: {names.said(pair)}", point=names.point(pair)))
    matched = {g for g, _ in pairs}
    marks += names.marks([t for g, t in enumerate(truth) if g not in matched], "missing")
    return tuple(marks), status, (f"{bad} listed holes could not be read" if bad else "")


def answer_view(record: dict, score, answer: Answer | None):
    """One model's answer to a holes item: verdict, marks on the sheet, the scorer's ItemScore."""
    from .views import AnswerView, raw_text

    if answer is None:
        return AnswerView("missing", "missing", "no answer with this id", HoleNames(record).marks(truth_pairs(record), "missing"),
                          score=score)
    marks, status, reason = compare(record, answer)
    if status != "ok":
        return AnswerView("unreadable", status, reason or answer.reason, marks, score=score, text=raw_text(answer))
    exact = bool(score is not None and score.exact)
    return AnswerView("correct" if exact else "wrong", status, reason, marks, score=score)


def item_view(index: int, item_id: str, record: object, models: Sequence):
    """The view of one family record for the holes task (an error for one that cannot be read)."""
    from .views import ItemView

    groups = family_groups(record)
    sheet = sheet_of(record)
    try:
        if not isinstance(record, dict) or sheet is None:
            raise InputError("not a family item record with a sheet (foldsim generate --family)", item=item_id)
        truth = truth_marks(record)
    except (InputError, KeyError, TypeError, ValueError) as err:
        return ItemView(index, item_id, record, f"{item_id}: {err}", groups=groups)
    if models and item_id not in models[0].scores:
        return ItemView(index, item_id, record, f"{item_id}: not scored (see the notes)", groups=groups)
    answers = tuple(answer_view(record, model.scores.get(item_id), model.by_id.get(item_id)) for model in models)
    return ItemView(index, item_id, record, "", groups=groups, truth=truth, answers=answers, sheet=sheet,
                    cells=record.get("holeNames") == "cell")
