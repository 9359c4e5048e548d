"""One item's score, for harness exports and reward functions: the same scorer as `foldsim score`
(foldsim.eval.scoring's default mode) applied to one truth record and one model response."""

from __future__ import annotations

from dataclasses import replace

from .answers import STATUS_OK, answer_of_completion
from .score_base import TASKS, truth_item
from .scoring import score_default


def score_item(task: str, truth_record: dict, response_text: str | list | None) -> dict[str, float]:
    """The per-item metrics of one response, by the default scorer (the choice tasks: by
    foldsim.eval.choice.score_choice_item), as floats:

    exact_match (1.0 or 0.0), partial, field_<f> for every field the task scores, extra_rate and
    missing_rate (1.0 when the answer lists an unmatched hole / misses a truth hole),
    unfolding_exact and unfolding_steps (prediction, backward, text), valid_plan_rate (planning),
    and answer_parsed (1.0 when an answer object was found in the text); count and opposite
    (foldsim.eval.open_values): exact_match, fields (the share of names right), field_<name>,
    answer_parsed. Ratios whose
    denominator is zero (an empty truth answered with an empty list) count as 1.0.

    `response_text` is the model's text (a list of chat messages is read as TRL hands completions
    over: the last assistant message). Never raises on it: any text, empty or None, scores, an
    unreadable one as an empty answer.
    Raises InputError for an unknown task or a truth record that cannot be read. Averaging these
    values over items gives per-item (macro) means; `foldsim score` pools counts (micro).
    """
    from ..tasks import CHOICE_TASKS
    from .choice import score_choice_item

    if task in CHOICE_TASKS:  # choice, split, plan-choice: their own per-item metrics
        return score_choice_item(task, truth_record, response_text)
    if task == "holes":  # family items, open-ended (foldsim.eval.holes)
        from .holes import score_holes_item

        return score_holes_item(truth_record, response_text)
    from .open_values import VALUE_TASKS, score_values_item

    if task in VALUE_TASKS:  # named exact values (foldsim.eval.open_values)
        return score_values_item(task, truth_record, response_text)
    if task not in TASKS:
        from ..errors import InputError

        raise InputError(f"unknown task {task!r} (expected one of {', '.join((*TASKS, *CHOICE_TASKS, 'holes', *VALUE_TASKS))})",
                         field="task")
    truth = truth_item(truth_record, 0)
    answer = replace(answer_of_completion(response_text), id=truth.id)
    report = score_default(task, [truth], [answer])
    metrics = {name: 1.0 if value is None else float(value) for name, value in report.metrics.items()}
    metrics["answer_parsed"] = float(answer.status == STATUS_OK)
    return metrics
