"""The data behind a score report and a dataset browser, computed once and drawn by page.py.

A dataset file is read once; each model's answers are scored by the scorers everyone uses
(foldsim.eval.scoring.score_files, planning plans replayed by foldsim.eval.verify), and every item
gets a view: its groups (pattern, folds, rotation, level, F/B), its truth holes, the simulator's
check of its record, and per model a verdict plus the answer's holes marked against the truth
(right, missing, extra, wrong direction). Bad records become items with an error, never exceptions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...check import ItemCheck, compare
from ...codes import code_of_entry, pattern_of
from ...errors import InputError
from ...io import read_records
from ...simulate import simulate
from ...eval.answers import Answer, PredictedHole, index_answers, load_answers
from ...eval.score_base import TASKS, ItemScore, Report, TruthItem, answer_for, load_truth, truth_item
from ...eval.open_values import VALUE_TASKS
from ...eval.scoring import score_files
from ...tasks import CHOICE_TASKS
from .choices import TASK_OF_TYPE, cue_line, option_views, plan_option_holes
from .sheet import Mark
from .views import (AnswerView, ItemView, OptionView, PlanView, _degrees, as_predicted, compare_holes, describe_hole,
                    raw_text, truth_marks)

#: the verdict of one model on one item (the browser's verdict filter)
VERDICTS = ("correct", "wrong", "unreadable", "missing")
#: the groupings plots and filters use, with their titles
GROUPINGS = {"pattern": "action pattern", "folds": "number of folds", "rotation": "rotation", "level": "level",
             "fb": "fold sides (F = in front, B = behind)", "cue": "cue condition"}
#: the open-ended task of benchmark family records (foldsim.eval.holes)
HOLES_TASK = "holes"
#: every task a report scores: the open-ended ones (foldsim.eval.scoring), the choice tasks, the
#: family records' open-ended holes and the record families' named values (count, opposite)
REPORT_TASKS = (*TASKS, *CHOICE_TASKS, HOLES_TASK, *VALUE_TASKS)
#: how much raw model text an item shows for an unreadable answer
@dataclass(frozen=True)
class ModelRun:
    """One model's answers: its name, file, score report (a scoring Report, or a ChoiceReport for
    the choice tasks), the answers and per-item scores by id, and whether each scored item is right
    (in the report's item order). Planning also keeps the verifier's verdicts and the replayed holes."""

    name: str
    path: Path
    report: Report
    by_id: dict[str, Answer]
    scores: dict[str, object]  # id -> ItemScore (ChoiceScore for the choice tasks)
    correct: list[bool]
    verdicts: dict = field(default_factory=dict)  # planning: task id -> foldsim.eval.verify.Verdict
    replayed: dict = field(default_factory=dict)  # planning: task id -> the replayed holes as scored


@dataclass
class ReportData:
    """Everything a page shows. `items` may be fewer than `total_items` (the browser's bound)."""

    dataset: Path
    task: str
    models: list[ModelRun]
    scored_groups: list[dict[str, str]]  # the groups of every scored item, in the models' report order
    items: list[ItemView]
    total_items: int
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # one line per bad item (also on stderr)
    check_failures: list[str] = field(default_factory=list)  # one line per record its simulation disagrees with

    @property
    def has_answers(self) -> bool:
        return bool(self.models)


# --------------------------------------------------------------------------------------------------
# the dataset


def infer_task(records: Sequence[object], path: Path) -> str:
    """The scoring task a file holds, from its records' `taskType` and ids and its name. The text
    task shares the prediction records and must be asked for."""
    dicts = [r for r in records if isinstance(r, dict)]
    kinds = {str(r.get("taskType", "")).lower() for r in dicts}
    for kind, task in TASK_OF_TYPE.items():
        if kind in kinds:
            return task
    if "planning" in kinds:
        return "planning"
    if "generalization" in kinds or any(str(r.get("id", "")).endswith("_mod") for r in dicts):
        return "generalization"
    if "back" in path.name.lower():
        return "backward"
    return "prediction"


def item_groups(record: object, truth: TruthItem | None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The item's action codes and its groups: pattern, folds, rotation, F/B, level (if recorded)."""
    codes: tuple[str, ...] = ()
    if isinstance(record, dict) and isinstance(record.get("foldingTypes"), list):
        try:
            codes = tuple(code_of_entry(e) for e in record["foldingTypes"])
        except InputError:
            codes = ()
    pattern = truth.pattern if truth is not None else pattern_of(codes)
    folds = [c for c in codes if not c.startswith("R-")]
    sides = {c[-1] for c in folds}
    groups = {"pattern": pattern or "?", "folds": str(pattern.count("F")) if pattern else "?",
              "rotation": "with rotation" if "R" in pattern else "without rotation",
              "fb": {frozenset("F"): "F only", frozenset("B"): "B only"}.get(frozenset(sides), "F and B" if sides else "?")}
    level = record.get("level") if isinstance(record, dict) else None
    if level is not None and not isinstance(level, (dict, list)):
        groups["level"] = str(level)
    cue = record.get("cue") if isinstance(record, dict) else None
    if isinstance(cue, dict) and isinstance(cue.get("kind"), str):
        groups["cue"] = cue["kind"]
    return codes, groups


def record_id(record: object, index: int) -> str:
    if isinstance(record, dict) and isinstance(record.get("id"), (str, int)) and not isinstance(record.get("id"), bool):
        return str(record["id"])
    return f"record {index}"


def check_all(records: Sequence[object]) -> tuple[list[ItemCheck | None], list]:
    """The simulator's check of every record and its results (one batched call); a check is None
    where the record is no object."""
    results = simulate(list(records))
    return [_checked(r, res) for r, res in zip(records, results)], results


def _checked(record: object, result) -> ItemCheck | None:
    if not isinstance(record, dict):
        return None
    try:
        return compare(record, result)
    except (TypeError, ValueError, AttributeError) as err:  # a field of an unexpected type: shown, not fatal
        return ItemCheck(result.id or "item", "invalid", f"cannot be checked: {err}")


def simulated_marks(record: object, check: ItemCheck | None, truth: TruthItem | None, result_holes) -> tuple[Mark, ...]:
    """The simulation's holes marked against the record's when the two disagree (else nothing)."""
    if check is None or check.verdict != "mismatch" or truth is None:
        return ()
    return compare_holes(truth.holes, as_predicted(result_holes))


# --------------------------------------------------------------------------------------------------
# models


def model_names(paths: Sequence[Path], names: Sequence[str] | None, answers: Sequence[list[Answer]]) -> list[str]:
    """Given names, else a `model` field every record of a file agrees on, else the file's stem;
    repeated names get a numbered suffix."""
    chosen = []
    for path, file_answers, given in zip(paths, answers, names or [None] * len(paths)):
        if given:
            chosen.append(given)
            continue
        models = {a.record.get("model") for a in file_answers if isinstance(a.record, dict)}
        chosen.append(models.pop() if len(models) == 1 and isinstance(next(iter(models)), str) else path.stem)
    seen: dict[str, int] = {}
    unique = []
    for name in chosen:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return unique


def load_models(dataset: Path, task: str, paths: Sequence[Path], names: Sequence[str] | None) -> list[ModelRun]:
    """Score every answers file; InputError (naming the file) when one cannot be read at all."""
    from . import choices, family, values

    scored = [choices.score_model(task, dataset, p) if task in CHOICE_TASKS else family.score_model(dataset, p)
              if task == HOLES_TASK else values.score_model(task, dataset, p) if task in VALUE_TASKS
              else (score_files(task, dataset, p), load_answers(p)) for p in paths]
    truth = load_truth(dataset, task).items if task == "planning" else []
    runs = []
    for name, path, (report, file_answers) in zip(model_names(paths, names, [a for _, a in scored]), paths, scored):
        by_id, _ = index_answers(file_answers)
        scores = {item.id: item for item in report.items}
        correct = [bool(item.correct if task in CHOICE_TASKS else item.exact) for item in report.items]
        verdicts, replayed = {}, {}
        if task == "planning":
            from ...eval.verify import replay_plans

            verdicts = {v.id: v for v in replay_plans([t.record for t in truth], file_answers)}
            replayed = {i: scored_holes(v) for i, v in verdicts.items()}
        runs.append(ModelRun(name, Path(path), report, by_id, scores, correct, verdicts, replayed))
    return runs


def scored_holes(verdict) -> tuple[PredictedHole, ...]:
    """The holes the planning scorer scores for a replayed plan: its result when the replay ran to
    the end (a plan that is not realizable or punches off the paper predicts nothing)."""
    from ... import kernels as K

    if not verdict.replayed or int(verdict.replay.status[verdict.row]) != K.OK:
        return ()
    return as_predicted(verdict.result_holes())


def answer_view(task: str, truth: TruthItem, model: ModelRun, score: ItemScore | None) -> AnswerView:
    """One model's answer to one item: verdict, marks against the truth, codes, plan and reason."""
    answer = answer_for(truth.id, model.by_id, task)
    if task == "planning":
        return plan_view(truth, answer, model.verdicts.get(truth.id), model.replayed.get(truth.id, ()), score)
    if answer is None:
        return AnswerView("missing", "missing", "no answer with this id", truth_marks(truth.holes, "missing"), score=score)
    prediction = answer.prediction(directions=task != "text")  # read as the scorer reads it
    unfolding = prediction.unfolding if truth.unfolding or prediction.unfolding else ()
    marks = compare_holes(truth.holes, prediction.holes, with_direction=task != "text")
    if not answer.ok:
        return AnswerView("unreadable", answer.status, answer.reason, marks, unfolding, score, text=raw_text(answer))
    exact = score.exact if score is not None else False
    reason = "; ".join(prediction.notes)
    return AnswerView("correct" if exact else "wrong", answer.status, reason, marks, unfolding, score)


def plan_view(truth: TruthItem, answer: Answer | None, verdict, replayed: Sequence[PredictedHole],
              score: ItemScore | None) -> AnswerView:
    """A planning answer: the plan as given, the verifier's reason, and the replayed holes marked
    against the target: the holes the planning scorer scores (none for a plan that is not
    realizable or punches off the paper)."""
    if verdict is None or verdict.reason == "missing_answer" or answer is None:
        return AnswerView("missing", "missing", "no answer with this id", truth_marks(truth.holes, "missing"), score=score)
    plan = answer.plan() if answer.ok else None
    punches = tuple(describe_hole(h.shape, h.size, h.location, _degrees(h)) for h in plan.holes) if plan else ()
    view = PlanView(plan.folds if plan else (), punches, verdict.reason, verdict.detail)
    marks = compare_holes(truth.holes, replayed)
    if verdict.reason == "parse_error":
        return AnswerView("unreadable", answer.status, verdict.detail, marks, score=score, plan=view, text=raw_text(answer))
    kind = "correct" if verdict.correct else "wrong"
    return AnswerView(kind, answer.status, "" if verdict.correct else f"{verdict.reason}: {_plan_detail(verdict, marks)}", marks,
                      score=score, plan=view)


def _plan_detail(verdict, marks: Sequence[Mark]) -> str:
    """The verifier's detail; for differing holes a count (the drawing shows which)."""
    if verdict.reason != "holes_differ":
        return verdict.detail
    counts = {kind: sum(m.kind == kind for m in marks) for kind in ("missing", "extra", "direction")}
    said = [f"{n} {'wrong direction' if kind == 'direction' else kind}" for kind, n in counts.items() if n]
    return f"{', '.join(said)} (drawn)" if said else verdict.detail


# --------------------------------------------------------------------------------------------------
# assembling


def build_report(dataset: str | Path, answers: Sequence[str | Path] = (), *, task: str | None = None,
                 names: Sequence[str] | None = None, max_items: int | None = None) -> ReportData:
    """Read, check and score everything a page shows. Raises InputError (one line naming the file)
    when the dataset or an answers file cannot be read, or the task or names are wrong; bad items
    are kept as items with an error and listed in `errors`."""
    dataset = Path(dataset)
    records = read_records(dataset)
    task = task or infer_task(records, dataset)
    if task not in REPORT_TASKS:
        raise InputError(f"unknown task {task!r} (expected one of {', '.join(REPORT_TASKS)})", field="--task")
    if names and len(names) != len(answers):
        raise InputError(f"{len(names)} names for {len(answers)} answer files", field="--name")
    models = load_models(dataset, task, [Path(a) for a in answers], names) if answers else []
    by_id = {record_id(r, i): r for i, r in enumerate(records)}
    groups = [_groups(by_id.get(item.id)) for item in models[0].report.items] if models else []
    data = ReportData(dataset, task, models, groups, [], 0)
    # family records are checked by `foldsim audit`, not by the MentalBlackboard simulator
    unchecked = task in (HOLES_TASK, *VALUE_TASKS)
    checks, results = ([None] * len(records), [None] * len(records)) if unchecked else check_all(records)
    plan_holes = plan_option_holes(records) if task == "plan-choice" else {}
    for index, record in enumerate(records):
        result_holes = results[index].holes if results[index] is not None else ()
        item = _item_view(task, index, record, checks[index], result_holes, models, plan_holes)
        if item is None:
            continue
        if item.error:
            data.errors.append(f"{dataset}: {item.error}")
        data.items.append(item)
    data.total_items = len(data.items)
    data.check_failures = [f"{dataset}: {i.id}: check: {i.check.verdict}: {i.check.reason}" for i in data.items
                           if not i.error and i.check is not None and i.check.verdict != "match"]
    if max_items is not None and len(data.items) > max_items:
        data.notes.append(f"the item browser shows the first {max_items} of {len(data.items)} items (--max-items); "
                          "metrics and plots cover all of them")
        data.items = data.items[:max_items]
    for model in models:
        data.notes += [f"{model.name}: {note}" for note in model.report.notes if not note.startswith("truth record left out")]
    return data


def _groups(record: object) -> dict[str, str]:
    """The groups plots use for a scored item: a family item's (family level, folds) or item_groups'."""
    from ..items import is_family_record
    from .family import family_groups

    return family_groups(record) if is_family_record(record) else item_groups(record, None)[1]


def _item_view(task: str, index: int, record: object, check: ItemCheck | None, result_holes, models: Sequence[ModelRun],
               plan_holes: dict) -> ItemView | None:
    """The view of one record; None for a record the report does not score (a generalization
    original: its `_mod` twin is the scored item)."""
    item_id = record_id(record, index)
    from ..items import is_family_record

    if task == HOLES_TASK:
        from . import family

        return family.item_view(index, item_id, record, models)
    if task in VALUE_TASKS:
        from . import values

        return values.item_view(task, index, item_id, record, models)
    if is_family_record(record) and task in CHOICE_TASKS:
        return _family_item_view(task, index, item_id, record, models)
    try:
        truth = truth_item(record, index)
    except InputError as err:
        codes, groups = item_groups(record, None)
        return ItemView(index, item_id, record, str(err.at(item=item_id)), codes, groups, check=check)
    if models and truth.id not in models[0].scores:
        if task == "generalization":
            return None
        return ItemView(index, item_id, record, f"{item_id}: not scored (see the notes)", check=check)
    codes, groups = item_groups(record, truth)
    options = option_views(task, index, record, truth.holes, plan_holes) if task in CHOICE_TASKS else ()
    answers = tuple(_answer_view(task, truth, model, options, record) for model in models)
    return ItemView(index, truth.id, record, "", codes, groups, truth_marks(truth.holes), truth.unfolding, check,
                    simulated_marks(record, check, truth, result_holes), answers, options, cue_line(record))


def _family_item_view(task: str, index: int, item_id: str, record: dict, models: Sequence[ModelRun]) -> ItemView:
    """A benchmark family's item (foldsim generate --family): its level, its options (the error
    model of each) and every model's choice; its pictures (the composite with the fold steps and
    the options, each option's image) come from the record's media fields."""
    from . import choices
    from .family import family_groups

    groups = family_groups(record)
    if task == "split" and record.get("taskType") == "YesNo":  # a record family's yes/no item: no option
        options = ()
    elif task == "split":
        right = record.get("answer")
        options = (OptionView(str(record.get("option")), record.get("error"), right == "yes", (),
                              str(record.get("error") or "the unfolded sheet")),)
    else:
        options = tuple(OptionView(str(o.get("label")), o.get("error"), o.get("label") == record.get("answer"), (),
                                   str(o.get("error") or "the unfolded sheet"))
                        for o in record.get("options") or [] if isinstance(o, dict))
    labels = None if task == "split" else "".join(o.label for o in options)
    answers = tuple(choices.answer_view(task, model.scores.get(item_id), model.by_id.get(item_id), options, labels)
                    for model in models)
    return ItemView(index, item_id, record, "", (), groups, answers=answers, options=options)


def _answer_view(task: str, truth: TruthItem, model: ModelRun, options: Sequence[OptionView], record: dict) -> AnswerView:
    score = model.scores.get(truth.id)
    if task in CHOICE_TASKS:
        from . import choices

        labels = None if task == "split" else "".join(o.label for o in options)
        return choices.answer_view(task, score, model.by_id.get(truth.id), options, labels)
    return answer_view(task, truth, model, score)
