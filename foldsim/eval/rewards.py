"""Reward functions for reinforcement learning with verifiable rewards, in TRL's GRPO signature.

    reward(prompts=None, completions=[...], **dataset_columns) -> list[float | None]

TRL's GRPOTrainer calls every reward function with the batch's `prompts`, `completions` (strings,
or lists of chat messages `[{"role": "assistant", "content": ...}]`, whose last assistant message
is the answer), `completions_ids`, `trainer_state` and every dataset column as a list aligned with
the completions. These functions read the truth from the columns:

- `record`: the item's full MentalBlackboard record, as a JSON string (the `record` column of
  `foldsim export --format hf`) or a dict; or, without it,
- the record's own fields as columns (`resultHoles`, `unfoldingTypes`, `numberofFoldingSteps`,
  `foldingTypes`; e.g. `datasets.Dataset.from_list(records)`), each a list or a JSON string.
- `scorer` (optional; the column of `foldsim export`): the `foldsim score` task that scores the
  row, else `task` (optional; "prediction" or "planning" by default). Rows of another task get
  None (TRL then ignores this function for them), so one trainer can mix prediction and planning
  rewards. A row is scored exactly as `score_item(scorer, record, completion)` and the exports
  score it: the `text` task (text grids without directions, whose prompt asks for none) ignores
  directions; every other task, in every modality (prediction from text grids too, whose prompt
  asks for directions), scores them. The `modality` column is not read.

Every value comes from foldsim's one scorer (`foldsim.eval.scoring.score_default`, the numbers of
`foldsim score` and `foldsim.eval.score_item`) or, for planning, its one verifier
(`foldsim.eval.verify.verify_completions`, the verdicts of `foldsim verify`); nothing is scored
twice. Batches are scored at once, identical (truth, completion) pairs once; the same inputs give
the same floats. No completion can make a reward raise: an unreadable one scores 0.0 (a truth
column that is missing altogether is a setup error and raises TypeError at the first call).

| reward | value per completion |
|---|---|
| prediction_exact | 1.0 when every result hole and the unfolding codes are right, else 0.0 |
| prediction_partial | the item's partial accuracy M / (g + max(0, p - g)) over the result holes |
| prediction_unfolding | the fraction of unfolding codes right, position by position |
| prediction_field_<f> | the partial accuracy of field f alone (shape, size, location, direction, ...) |
| prediction_fields | the mean of the task's field scores |
| planning_correct | 1.0 when the verifier accepts the plan, else 0.0 |
| planning_valid | 1.0 when the plan obeys the task's rules (parses, folds only, the task's fold count, at most 2 punches, realizable, on paper), whatever holes it makes |
| planning_partial | the replayed holes' partial accuracy when the plan is valid, else 0.0 |
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np

from .answers import STATUS_EMPTY, STATUS_OK, Answer, answer_of_completion, paused_gc, structure_problem
from .score_base import FIELDS, TEXT_FIELDS, UNFOLDING_TASKS, aggregate, truth_item

Reward = Callable[..., list]

#: the columns a truth record can be assembled from when there is no `record` column
RECORD_COLUMNS = ("id", "taskType", "resultHoles", "unfoldingTypes", "numberofFoldingSteps", "foldingTypes",
                  "totalNumberofHoles", "initialHoles")
PREDICTION_TASKS = ("prediction", "backward", "text")
PLANNING_TASKS = ("planning",)


# -- reading the batch ---------------------------------------------------------------------------------


def _loaded(value: object) -> object:
    """A column value: JSON strings decoded (a column of lists may arrive as JSON text)."""
    if isinstance(value, str) and value[:1] and value[:1] in "[{-0123456789":
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # RecursionError: "[[[[..." past the interpreter's limit
            return value
    return value


def truth_records(count: int, columns: dict) -> list[dict | None]:
    """The truth record of every row: the `record` column, else one assembled from the record's
    own field columns; None for a row whose record cannot be read. TypeError when neither is there."""
    if "record" in columns and columns["record"] is not None:
        cache: dict[str, dict | None] = {}
        out = []
        for value in _column(columns, "record", count):
            if isinstance(value, str):
                if value not in cache:
                    loaded = _loaded(value)
                    cache[value] = loaded if isinstance(loaded, dict) else None
                out.append(cache[value])
            else:
                out.append(value if isinstance(value, dict) else None)
        return out
    present = [name for name in RECORD_COLUMNS if columns.get(name) is not None]
    if "resultHoles" not in present:
        raise TypeError("a foldsim reward needs the truth: a `record` column (the record as JSON) or the "
                        "record's fields as columns (resultHoles, unfoldingTypes, numberofFoldingSteps, ...)")
    lists = {name: _column(columns, name, count) for name in present}
    cache: dict[str, dict] = {}  # equal rows share one dict, so they are read and scored once
    out = []
    for i in range(count):
        record = {name: _loaded(lists[name][i]) for name in present}
        try:
            if structure_problem(record) is not None:  # json.dumps would recurse, loop or explode
                raise ValueError
            key = json.dumps(record, sort_keys=True, default=repr)
        except (TypeError, ValueError, RecursionError):
            out.append(record)
            continue
        out.append(cache.setdefault(key, record))
    return out


def _column(columns: dict, name: str, count: int) -> list:
    """A column as a list of `count` values (a scalar is repeated; a short list padded with None)."""
    value = columns.get(name)
    if value is None or isinstance(value, (str, bytes, dict)):
        return [value] * count
    if not isinstance(value, (list, tuple)):  # numpy / pyarrow arrays, a `datasets` Column, any iterable
        value = value.tolist() if hasattr(value, "tolist") else list(value) if isinstance(value, Iterable) else [value] * count
    return list(value[:count]) + [None] * (count - len(value))


def row_tasks(count: int, columns: dict, default: str) -> list[str]:
    """The scoring task of every row: `scorer` where given, else `task`, else `default` (never
    derived from the modality: the prediction task's text-grid prompt asks for directions, and
    `score_item` and the exports score them)."""
    def name(value: object) -> str | None:
        return value.strip().lower() if isinstance(value, str) and value.strip() else None

    scorers, tasks = _column(columns, "scorer", count), _column(columns, "task", count)
    return [name(s) or name(t) or default for s, t in zip(scorers, tasks)]


def _answer(completion: object, index: int) -> Answer:
    """The answer in a completion; any failure is an empty answer (a reward never raises)."""
    try:
        return answer_of_completion(completion, index)
    except Exception as error:  # noqa: BLE001  (the parser's contract is never to raise; this is the backstop)
        return Answer(f"item {index}", STATUS_EMPTY, f"unreadable completion ({type(error).__name__})")


def _completion_key(completion: object) -> object:
    """A hashable stand-in for a completion, so identical completions are scored once."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and all(type(m) is dict and type(m.get("content")) is str and len(m) <= 2
                                            and type(m.get("role")) in (str, type(None)) for m in completion):
        return tuple((m.get("role"), m["content"]) for m in completion)  # chat messages: no JSON needed
    if structure_problem(completion) is not None:  # json.dumps would recurse, loop or explode; the parser refuses it
        return ("object", id(completion))
    try:
        return json.dumps(completion, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return ("object", id(completion))


def _unique_rows(records: Sequence[dict | None], completions: Sequence[object], rows: Sequence[int]
                 ) -> tuple[list[int], list[int]]:
    """(first row of every distinct (truth, completion) pair among `rows`, index of each row's pair).
    Equal truth rows share one dict (`truth_records`), so the dict's identity names the truth."""
    index: dict = {}
    firsts, which = [], []
    for row in rows:
        completion = completions[row]
        key = (id(records[row]), completion if type(completion) is str else _completion_key(completion))
        pair = index.get(key)
        if pair is None:
            pair = index[key] = len(firsts)
            firsts.append(row)
        which.append(pair)
    return firsts, which


# -- scoring (one scorer, one verifier) ------------------------------------------------------------------


def item_metrics(task: str, records: Sequence[dict], completions: Sequence[object]) -> list[dict[str, float] | None]:
    """The per-item metrics of every (truth record, completion) pair in one scoring call: exactly
    what `foldsim.eval.score_item` gives for each (empty denominators count 1.0); None for a row
    whose truth record cannot be read."""
    from .scoring import score_default

    truths, answers, rows = [], [], []
    parsed: dict[int, object] = {}  # id(record) -> TruthItem or None: each distinct record read once
    for i, (record, completion) in enumerate(zip(records, completions)):
        if id(record) not in parsed:
            try:
                parsed[id(record)] = truth_item({**record, "id": "truth"}, i)
            except Exception:  # noqa: BLE001  (a bad truth row scores None, never stops the batch)
                parsed[id(record)] = None
        if parsed[id(record)] is None:
            continue
        name = f"item {i}"  # unique per row: the scorer matches answers (and replays plans) by id
        truth = replace(parsed[id(record)], id=name, record={**record, "id": name})
        truths.append(truth)
        answers.append(replace(_answer(completion, i), id=truth.id))
        rows.append(i)
    out: list[dict[str, float] | None] = [None] * len(records)
    if not truths:
        return out
    report = score_default(task, truths, answers)
    fields = TEXT_FIELDS if task == "text" else FIELDS
    for row, item, answer in zip(rows, report.items, answers):
        metrics = aggregate([item], fields, unfolding=task in UNFOLDING_TASKS)
        values = {name: 1.0 if value is None else float(value) for name, value in metrics.items()}
        values["answer_parsed"] = float(answer.status == STATUS_OK)
        out[row] = values
    return out


def _scored(task_set: tuple[str, ...], default: str, score: Callable[[str, list, list], list[float]],
            completions: Sequence[object] | None, columns: dict) -> list[float | None]:
    """The common frame of every reward: read the truth, route rows by task, score each distinct
    (truth, completion) pair once per task, and scatter the floats back. Rows of other tasks get
    None; unreadable truth 0.0."""
    if completions is None:
        return []
    with paused_gc():
        return _scored_batch(task_set, default, score, completions, columns)


def _scored_batch(task_set: tuple[str, ...], default: str, score: Callable[[str, list, list], list[float]],
                  completions: Sequence[object], columns: dict) -> list[float | None]:
    completions = list(completions)
    count = len(completions)
    records = truth_records(count, columns)
    tasks = row_tasks(count, columns, default)
    rewards: list[float | None] = [None if t not in task_set else 0.0 for t in tasks]
    for task in sorted(set(tasks) & set(task_set)):
        rows = [i for i, t in enumerate(tasks) if t == task and records[i] is not None]
        firsts, which = _unique_rows(records, completions, rows)
        try:
            values = score(task, [records[i] for i in firsts], [completions[i] for i in firsts])
        except Exception as error:  # noqa: BLE001  (never raise on a completion; say so once)
            warnings.warn(f"foldsim reward: scoring {len(firsts)} {task} completions failed "
                          f"({type(error).__name__}: {error}); they score 0.0", RuntimeWarning, stacklevel=4)
            values = [0.0] * len(firsts)
        for row, pair in zip(rows, which):
            rewards[row] = float(values[pair])
    return rewards


def _metric_scorer(metric: Callable[[dict[str, float]], float]) -> Callable[[str, list, list], list[float]]:
    def score(task: str, records: list, completions: list) -> list[float]:
        return [0.0 if m is None else metric(m) for m in item_metrics(task, records, completions)]
    return score


def _prediction_reward(name: str, metric: Callable[[dict[str, float]], float], doc: str) -> Reward:
    scorer = _metric_scorer(metric)

    def reward(prompts=None, completions=None, **columns) -> list[float | None]:
        return _scored(PREDICTION_TASKS, "prediction", scorer, completions, columns)
    reward.__name__ = reward.__qualname__ = name
    reward.__doc__ = doc + " (prediction, backward, text; TRL GRPO signature)"
    return reward


def _exact_answer(m: dict[str, float]) -> float:
    return float(m["exact_match"] == 1.0 and m.get("unfolding_exact", 1.0) == 1.0)


def _mean_of_fields(m: dict[str, float]) -> float:
    values = [v for k, v in m.items() if k.startswith("field_")]
    return sum(values) / len(values) if values else 0.0


prediction_exact = _prediction_reward(
    "prediction_exact", _exact_answer, "1.0 when every result hole and the unfolding codes are right, else 0.0")
prediction_partial = _prediction_reward(
    "prediction_partial", lambda m: m["partial"], "The item's partial accuracy over the result holes")
prediction_unfolding = _prediction_reward(
    "prediction_unfolding", lambda m: m.get("unfolding_steps", 0.0), "The fraction of unfolding codes right, by position")
prediction_fields = _prediction_reward(
    "prediction_fields", _mean_of_fields, "The mean of the task's field-wise partial accuracies")


def prediction_field_reward(field_name: str) -> Reward:
    """The reward of one field's partial accuracy (shape, size, location, direction, location_shape,
    location_direction, shape_direction, location_shape_direction). The text task has no
    direction: its rows score the direction fields 0.0."""
    if field_name not in FIELDS:
        raise ValueError(f"unknown field {field_name!r} (expected one of {', '.join(FIELDS)})")
    key = f"field_{field_name}"
    return _prediction_reward(f"prediction_field_{field_name}", lambda m: m.get(key, 0.0),
                              f"The partial accuracy of the {field_name} field alone")


FIELD_REWARDS = {name: prediction_field_reward(name) for name in FIELDS}


# -- planning: the verifier ------------------------------------------------------------------------------


def _judged(records: list, completions: list):
    """The verifier's judgement of every (planning record, completion) pair; each distinct record
    is read into a PlanningTask once."""
    from ..planning import planning_task
    from .verify import verify_completions

    tasks: dict[int, object] = {}
    for i, record in enumerate(records):
        if id(record) not in tasks:
            tasks[id(record)] = planning_task(record, i)
    return verify_completions([tasks[id(r)] for r in records], completions)


def _planning_correct(task: str, records: list, completions: list) -> list[float]:
    return _judged(records, completions).correct.astype(float).tolist()


def _planning_valid(task: str, records: list, completions: list) -> list[float]:
    return _judged(records, completions).valid_plan.astype(float).tolist()


def _planning_partial(task: str, records: list, completions: list) -> list[float]:
    from .scoring import plan_partial

    judged = _judged(records, completions)
    return np.where(judged.valid_plan, plan_partial(judged), 0.0).tolist()


def _planning_reward(name: str, scorer: Callable[[str, list, list], list[float]], doc: str) -> Reward:
    def reward(prompts=None, completions=None, **columns) -> list[float | None]:
        return _scored(PLANNING_TASKS, "planning", scorer, completions, columns)
    reward.__name__ = reward.__qualname__ = name
    reward.__doc__ = doc + " (planning; TRL GRPO signature)"
    return reward


planning_correct = _planning_reward("planning_correct", _planning_correct,
                                    "1.0 when the verifier accepts the plan, else 0.0")
planning_valid = _planning_reward("planning_valid", _planning_valid,
                                  "1.0 when the plan obeys the task's rules, whatever holes it makes")
planning_partial = _planning_reward("planning_partial", _planning_partial,
                                    "The replayed holes' partial accuracy when the plan is valid, else 0.0")

REWARDS = {f.__name__: f for f in (prediction_exact, prediction_partial, prediction_unfolding, prediction_fields,
                                   *FIELD_REWARDS.values(), planning_correct, planning_valid, planning_partial)}

__all__ = ["REWARDS", "FIELD_REWARDS", "prediction_exact", "prediction_partial", "prediction_unfolding",
           "prediction_fields", "prediction_field_reward", "planning_correct", "planning_valid", "planning_partial",
           "item_metrics", "truth_records"]
