"""The choice tasks in the report (choice, split, plan-choice), scored by foldsim.eval.choice: each
item's options drawn against the right answer (what makes a distractor wrong, in the same colours as
an answer), which option each model chose and by which error model it was fooled, the confusion table
by error model and accuracy per cue condition with the cue reliance.

A plan-choice option is a fold sequence: it is replayed with the item's punches (one batched
simulation for the whole dataset) and its result drawn against the target.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ...errors import InputError
from ...holes import Hole, parse_holes
from ...simulate import simulate
from ...eval.answers import Answer
from .views import AnswerView, OptionView, as_predicted, compare_holes, raw_text

#: a record's taskType (lower-cased) -> its task (a record family's yes/no items are split rows)
TASK_OF_TYPE = {"choice": "choice", "split": "split", "planchoice": "plan-choice", "yesno": "split"}


def score_model(task: str, dataset: Path, path: Path):
    """(ChoiceReport, answers) of one answers file; InputError when a file cannot be read."""
    from ...eval.choice import load_choice_answers, score_choice_files

    return score_choice_files(task, dataset, path), load_choice_answers(path)


def _detail(option: dict) -> str:
    detail = option.get("errorDetail")
    if not detail:
        return ""
    if isinstance(detail, dict):
        return ", ".join(f"{k} {v}" for k, v in detail.items())
    return json.dumps(detail, default=str)[:200]


def plan_option_holes(records: Sequence[object]) -> dict[tuple[int, str], tuple[Hole, ...] | str]:
    """Every plan-choice option replayed with its item's punches, in one batched call: (record index,
    label) -> the result holes, or the reason it cannot be replayed."""
    keys, configs = [], []
    for index, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("options"), list):
            continue
        for option in record["options"]:
            if isinstance(option, dict) and isinstance(option.get("label"), str):
                keys.append((index, option["label"]))
                configs.append({"id": f"{record.get('id')}:{option['label']}", "foldingTypes": option.get("foldingTypes"),
                                "initialHoles": record.get("initialHoles")})
    results = simulate(configs) if configs else []
    return {key: result.holes if result.ok else result.reason for key, result in zip(keys, results)}


def option_views(task: str, index: int, record: dict, truth: Sequence[Hole], plan_holes: dict) -> tuple[OptionView, ...]:
    """The options of one record (split: the row's one option) marked against the right answer."""
    if task == "split":
        options = [{"label": record.get("option"), "resultHoles": record.get("optionHoles"), "error": record.get("error"),
                    "errorDetail": record.get("errorDetail")}]
        right_labels = {record.get("option")} if record.get("answer") == "yes" else set()
    else:
        options = [o for o in record.get("options") or () if isinstance(o, dict)]
        answer = record.get("answer")
        right_labels = set(answer) if isinstance(answer, list) else {answer}
    views = []
    for option in options:
        label = str(option.get("label"))
        detail = _detail(option)
        if task == "plan-choice":
            holes = plan_holes.get((index, label), "not replayed")
            codes = _codes(option.get("foldingTypes"))
            detail = f"folds {codes}" + (f" · {detail}" if detail else "")
            if isinstance(holes, str):
                views.append(OptionView(label, option.get("error"), label in right_labels, (),
                                        f"{detail} · replayed with the item's punches: {holes}"))
                continue
        else:
            try:
                holes = parse_holes(option.get("resultHoles"), "resultHoles")
            except InputError as err:
                views.append(OptionView(label, option.get("error"), label in right_labels, (), f"unreadable: {err}"))
                continue
        views.append(OptionView(label, option.get("error"), label in right_labels, compare_holes(truth, as_predicted(holes)), detail))
    return tuple(views)


def _codes(entries: object) -> str:
    from ...codes import code_of_entry

    try:
        return ", ".join(code_of_entry(e) for e in entries) if isinstance(entries, list) else "?"
    except InputError:
        return "?"


def answer_view(task: str, unit, answer: Answer | None, options: Sequence[OptionView], labels: str | None):
    """One model's choice: verdict, what it chose (and the error model of a wrong choice), the chosen
    option's drawing, and why an answer is unreadable or ambiguous."""
    from ...eval.choice import STATUS_AMBIGUOUS, STATUS_NONE, extract_answer
    if answer is None:
        return AnswerView("missing", "missing", "no answer with this id", score=unit)
    if unit is None or unit.status == STATUS_NONE:
        return AnswerView("unreadable", answer.status, "no answer found in the response", score=unit, text=raw_text(answer))
    if unit.status == STATUS_AMBIGUOUS:
        named = extract_answer(answer, labels).named
        return AnswerView("unreadable", "ambiguous", f"names more than one answer: {', '.join(named)}", score=unit,
                          text=raw_text(answer))
    chosen = next((o for o in options if o.label == unit.value), None)
    why = f"chose {unit.value}" + (f": {unit.chosen_error}" if unit.chosen_error else "")
    if unit.followed_cue is not None:
        why += " · follows the counterfactual cue" if unit.followed_cue else " · does not follow the counterfactual cue"
    marks = chosen.marks if chosen is not None and task != "split" else ()
    return AnswerView("correct" if unit.correct else "wrong", answer.status, why, marks, score=unit, choice=unit.value)


def cue_line(record: object) -> tuple[str, str]:
    """(a line describing the item's cue, its text grid) or ("", "") without one."""
    cue = record.get("cue") if isinstance(record, dict) else None
    if not isinstance(cue, dict) or cue.get("kind") in (None, "none"):
        return "", ""
    step = f" after step {cue['step']}" if cue.get("step") is not None else ""
    implied = f", implying {cue['impliedAnswer']}" if cue.get("impliedAnswer") is not None else ""
    grid = cue.get("grid") if isinstance(cue.get("grid"), str) else ""
    return f"cue: {cue.get('kind')} folded state{step}{implied}", grid
