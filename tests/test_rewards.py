"""The TRL reward functions: TRL's calling convention (keyword columns, strings or chat messages),
the same numbers as foldsim's scorer and verifier item by item, task routing, and never an
exception on any completion (fuzzed)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from foldsim import rewards as R
from foldsim.codes import code_of_entry
from foldsim.eval.item import score_item
from foldsim.io import read_records

from conftest import fuzz_settings

ALL = list(R.REWARDS.values())
PREDICTION = [f for name, f in R.REWARDS.items() if name.startswith("prediction")]
PLANNING = [f for name, f in R.REWARDS.items() if name.startswith("planning")]


@pytest.fixture(scope="module")
def records(planning_file) -> list[dict]:
    """Planning records with at most two punches (their own plans are correct answers); they carry
    resultHoles and unfoldingTypes too, so they serve as prediction truth as well."""
    return [r for r in read_records(planning_file) if len(r["initialHoles"]) <= 2][::40]


def plan_text(record: dict, *, move: int = 0) -> str:
    holes = [dict(h) for h in record["initialHoles"]]
    holes[0]["location"] = (holes[0]["location"] - 1 + move) % 32 + 1
    plan = {"folds": [code_of_entry(e) for e in record["foldingTypes"]], "holes": holes}
    return f"Let me fold it in my head.\n```json\n{json.dumps(plan)}\n```"


def prediction_text(record: dict, *, drop: int = 0) -> str:
    answer = {"totalNumberofHoles": record["totalNumberofHoles"], "unfoldingTypes": record["unfoldingTypes"],
              "resultHoles": record["resultHoles"][drop:]}
    return f"Reasoning...\n```json\n{json.dumps(answer)}\n```"


def chat(text: str) -> list[dict]:
    return [{"role": "assistant", "content": text}]


def test_right_answers_score_one_as_strings_and_as_chat_messages(records):
    column = [json.dumps(r) for r in records]
    for texts, rewards in (([plan_text(r) for r in records], PLANNING), ([prediction_text(r) for r in records], PREDICTION)):
        for completions in (texts, [chat(t) for t in texts]):
            for reward in rewards:
                assert reward(prompts=["p"] * len(records), completions=completions, record=column) == [1.0] * len(records), reward.__name__


def test_truth_from_the_records_own_columns(records):
    columns = {k: [r[k] for r in records] for k in ("resultHoles", "unfoldingTypes", "numberofFoldingSteps", "foldingTypes")}
    assert R.prediction_exact(completions=[prediction_text(r) for r in records], **columns) == [1.0] * len(records)
    as_json = {k: [json.dumps(v) for v in values] for k, values in columns.items()}  # columns stored as JSON text
    assert R.planning_correct(completions=[plan_text(r) for r in records], **as_json) == [1.0] * len(records)


def test_every_reward_is_the_scorers_number_item_by_item(records):
    """Wrong answers too: a moved punch, dropped holes, prose, an empty reply."""
    plans = [plan_text(r, move=k % 3) for k, r in enumerate(records)] + ["no plan here", ""]
    predictions = [prediction_text(r, drop=k % 2) for k, r in enumerate(records)] + ["{\"resultHoles\": 3}", ""]
    truth = records + records[:2]
    column = [json.dumps(r) for r in truth]
    expected = {
        "planning_correct": [score_item("planning", r, t)["exact_match"] for r, t in zip(truth, plans)],
        "planning_partial": [m["partial"] * m["valid_plan_rate"] for m in (score_item("planning", r, t) for r, t in zip(truth, plans))],
        "prediction_partial": [score_item("prediction", r, t)["partial"] for r, t in zip(truth, predictions)],
        "prediction_unfolding": [score_item("prediction", r, t)["unfolding_steps"] for r, t in zip(truth, predictions)],
        "prediction_field_location": [score_item("prediction", r, t)["field_location"] for r, t in zip(truth, predictions)],
        "prediction_exact": [float(m["exact_match"] == m["unfolding_exact"] == 1.0)
                             for m in (score_item("prediction", r, t) for r, t in zip(truth, predictions))],
    }
    for name, values in expected.items():
        completions = plans if name.startswith("planning") else predictions
        assert R.REWARDS[name](completions=completions, record=column) == pytest.approx(values), name
    assert 0.0 < sum(expected["prediction_partial"]) < len(truth) and 0 < sum(expected["planning_correct"]) < len(truth)


def test_planning_partial_needs_a_plan_that_keeps_the_rules(records):
    record = next(r for r in records if r["numberofFoldingSteps"] >= 2)
    plan = json.loads(plan_text(record).split("```json\n")[1].split("\n```")[0])
    rotated = {**plan, "folds": plan["folds"] + ["R-90"]}  # a rotation: the verifier refuses the plan
    scores = [f(completions=[json.dumps(rotated)], record=[json.dumps(record)])[0] for f in PLANNING]
    assert scores == [0.0, 0.0, 0.0]


def turned(record: dict) -> dict:
    """The record with every directed hole turned a quarter (circles and squares have no direction)."""
    return {**record, "resultHoles": [{**h, "direction": 90 if h["direction"] in (0, "0, 180") else 0}
                                      for h in record["resultHoles"]]}


def test_rows_of_other_tasks_get_none_and_only_the_text_task_ignores_directions(records):
    record = next(r for r in records if any(h["shape"] not in ("circle", "square") for h in r["resultHoles"]))
    wrong_directions = prediction_text(turned(record))
    column = [json.dumps(record)] * 4
    kwargs = dict(record=column, task=["prediction", "planning", "prediction", "text"],
                  modality=["images", "images", "text", "text"])
    assert R.prediction_partial(completions=[wrong_directions] * 4, **kwargs)[1:] == [None, 0.0, 1.0]
    assert R.planning_correct(completions=[plan_text(record)] * 4, **kwargs) == [None, 1.0, None, None]


def test_a_prediction_from_text_grids_with_wrong_directions_is_not_rewarded_as_exact(records):
    """Issue 20 item 7: the prediction task's text-grid prompt asks for directions and the exports
    score them (score_item("prediction", ...)); the reward read the `text` modality as the
    direction-free text task and gave 1.0 beside an exact match of 0.0."""
    record = next(r for r in records if any(h["shape"] not in ("circle", "square") for h in r["resultHoles"]))
    completion = prediction_text(turned(record))
    assert score_item("prediction", record, completion)["exact_match"] == 0.0
    for columns in (dict(task=["prediction"], modality=["text"]),  # a trainer's own columns
                    dict(task=["prediction"], modality=["text"], scorer=["prediction"])):  # an export's row
        assert R.prediction_exact(completions=[completion], record=[json.dumps(record)], **columns) == [0.0]
        assert R.FIELD_REWARDS["direction"](completions=[completion], record=[json.dumps(record)], **columns) == [
            score_item("prediction", record, completion)["field_direction"]]
    # the text task (its prompt asks for no direction) still ignores them, by its scorer
    assert R.prediction_exact(completions=[completion], record=[json.dumps(record)], task=["text"],
                              scorer=["text"]) == [score_item("text", record, completion)["exact_match"]] == [1.0]


def test_the_rewards_are_the_harness_scores_row_by_row(records):
    """For every completion (right, directions turned, a hole dropped, unfolding codes wrong, sizes
    swapped, prose) on every task and modality an export holds: prediction_exact is score_item's
    exact match of the whole answer (holes and, where the task has them, unfolding codes), and the
    partial and direction rewards are its partial and field_direction."""
    rows = []
    for record in records[:6]:
        swapped = {**record, "resultHoles": [{**h, "size": "small" if h["size"] == "large" else "large"} for h in record["resultHoles"]]}
        completions = [prediction_text(record), prediction_text(turned(record)), prediction_text(record, drop=1),
                       prediction_text({**record, "unfoldingTypes": record["unfoldingTypes"][::-1] + ["H1-F"]}),
                       prediction_text(swapped), "I could not work it out."]
        for task, modality in (("prediction", "text"), ("prediction", "images"), ("prediction", "video"), ("text", "text"),
                               ("backward", "images")):
            rows += [(record, completion, task, modality) for completion in completions]
    columns = dict(completions=[c for _, c, _, _ in rows], record=[json.dumps(r) for r, _, _, _ in rows],
                   task=[t for _, _, t, _ in rows], modality=[m for _, _, _, m in rows], scorer=[t for _, _, t, _ in rows])
    scores = [score_item(task, record, completion) for record, completion, task, _ in rows]
    assert R.prediction_exact(**columns) == [m["exact_match"] * m["unfolding_exact"] for m in scores]
    assert R.prediction_partial(**columns) == pytest.approx([m["partial"] for m in scores])
    assert R.FIELD_REWARDS["direction"](**columns) == pytest.approx([m.get("field_direction", 0.0) for m in scores])
    assert {m["exact_match"] for m in scores} == {0.0, 1.0}  # the set holds exact and inexact answers
    holes_right = [m["exact_match"] for m in scores if m["unfolding_exact"] == 1.0]
    assert holes_right == [v for v, m in zip(R.prediction_exact(**columns), scores) if m["unfolding_exact"] == 1.0]


def test_setup_errors_raise_and_bad_truth_rows_score_zero(records):
    with pytest.raises(TypeError, match="needs the truth"):
        R.prediction_exact(completions=["x"], ground_truth=["y"])
    assert R.prediction_exact(completions=[prediction_text(records[0])] * 2, record=["not json", json.dumps(records[0])]) == [0.0, 1.0]
    assert R.prediction_exact(completions=None, record=[]) == []
    with pytest.raises(ValueError, match="unknown field"):
        R.prediction_field_reward("colour")


def test_same_inputs_same_floats_and_duplicates_score_alike(records):
    completions = [prediction_text(r, drop=1) for r in records] * 3
    column = [json.dumps(r) for r in records] * 3
    first = R.prediction_fields(completions=completions, record=column)
    assert first == R.prediction_fields(completions=completions, record=column)
    n = len(records)
    assert first[:n] == first[n : 2 * n] == first[2 * n :] and all(isinstance(v, float) for v in first)


# -- fuzzing: no completion makes a reward raise --------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12) | st.sampled_from(
    ["H1-F", "R-90", "star", "large", "0, 180", "(1, 2, 1)", "```json", "{", "}", "resultHoles", "folds"])
wild = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(["resultHoles", "unfoldingTypes", "folds", "holes", "shape", "location", "direction", "role",
                     "content", "type", "text", "x"]), inner, max_size=4), max_leaves=8)


@st.composite
def completion(draw) -> object:
    """A completion a trainer could hand over, or garbage where one is expected."""
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.text(max_size=200))
    if kind == 1:  # JSON-looking text, cut anywhere
        text = "```json\n" + json.dumps(draw(wild)) + "\n```"
        return text[: draw(st.integers(0, len(text)))]
    if kind == 2:  # chat messages with odd contents
        return draw(st.lists(st.fixed_dictionaries({"role": st.sampled_from(["assistant", "user", 7])},
                                                   optional={"content": wild}), max_size=3))
    return draw(wild)


@pytest.mark.fuzz
@fuzz_settings(0.05)
@given(st.lists(completion(), min_size=1, max_size=6), st.data())
def test_fuzzed_completions_never_raise_and_score_zero(records, completions, data):
    column = [json.dumps(data.draw(st.sampled_from(records))) for _ in completions]
    for reward in ALL:
        values = reward(completions=completions, record=column)
        assert len(values) == len(completions)
        assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in values)
    assert R.prediction_exact(completions=completions, record=column) == [0.0] * len(completions)
    assert R.planning_correct(completions=completions, record=column) == [0.0] * len(completions)
