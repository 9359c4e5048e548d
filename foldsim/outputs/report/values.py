"""The open tasks of named exact values in the report (`count`, `opposite`; foldsim.eval.open_values):
each item's right values beside each model's answered values, the verdict the scorer gives (every
value right), and the accuracy by level on the page's plots (the item's family and level).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ...errors import InputError
from ...eval.answers import Answer
from ...eval.open_values import VALUE_TASKS, answer_of, load_value_answers, score_values_files

MAX_SHOWN_CHARS = 400


def score_model(task: str, dataset: Path, path: Path):
    """(Report, answers) of one answers file, the answers read by the names the records ask for;
    InputError when a file cannot be read."""
    from ...io import read_records

    return score_values_files(task, dataset, path), load_value_answers(task, read_records(dataset), path)


def shown(values: object) -> str:
    """Values as one bounded line of JSON."""
    try:
        text = json.dumps(values, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(values)
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "…"


def truth_line(task: str, record: object) -> str:
    """The right answer object of a record, as text ("" when it has none)."""
    try:
        return shown(answer_of(task, record)) if isinstance(record, dict) else ""
    except InputError:
        return ""


def answer_view(task: str, record: dict, score, answer: Answer | None):
    """One model's answer: the verdict, the values it gave for the names asked."""
    from .views import AnswerView, raw_text

    if answer is None:
        return AnswerView("missing", "missing", "no answer with this id", score=score)
    if not answer.ok or not isinstance(answer.data, dict):
        return AnswerView("unreadable", answer.status, answer.reason, score=score, text=raw_text(answer))
    names = list(score.fields) if score is not None else []
    given = {name: answer.data[name] for name in names if name in answer.data}
    exact = bool(score is not None and score.exact)
    return AnswerView("correct" if exact else "wrong", answer.status, f"answered {shown(given)}", score=score)


def item_view(task: str, index: int, item_id: str, record: object, models: Sequence):
    """The view of one record for a value task (an error for one it cannot be scored on)."""
    from ...eval.open_values import truth_values
    from .family import family_groups
    from .views import ItemView

    assert task in VALUE_TASKS
    groups = family_groups(record)
    try:
        truth_values(task, record, index)
    except InputError as err:
        return ItemView(index, item_id, record, str(err), groups=groups)
    if models and item_id not in models[0].scores:
        return ItemView(index, item_id, record, f"{item_id}: not scored (see the notes)", groups=groups)
    answers = tuple(answer_view(task, record, model.scores.get(item_id), model.by_id.get(item_id)) for model in models)
    return ItemView(index, item_id, record, "", groups=groups, answers=answers)
