"""The bulk planning verifier: one verdict per task, the first failing reason, and the published
planning file replayed as its own answers (359 correct, 41 with too many punches)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from foldsim import Config, simulate
from foldsim.eval.answers import parse_answer_record
from foldsim.cli import app
from foldsim.eval.verify import REASONS, replay_plans

@pytest.fixture(scope="module")
def planning(planning_file) -> list[dict]:
    """The published planning file (conftest's fixture fails the test when ../shared is missing)."""
    return json.loads(planning_file.read_text())


@pytest.fixture(scope="module")
def base(planning) -> dict:
    """PFHP_300: V1-F, V2-F; a letter at 22 and an ellipse at 14; 8 result holes."""
    record = next(r for r in planning if r["id"] == "PFHP_300")
    assert [f["foldType"] for f in record["foldingTypes"]] == ["vertical_left_to_right", "vertical_right_to_left"]
    return record


def _task(base: dict, item: str, **changes) -> dict:
    record = copy.deepcopy(base)
    record.update(id=item, **changes)
    return record


def _plan(item: str, folds, holes) -> dict:
    return {"id": item, "folds": folds, "holes": holes}


@pytest.fixture(scope="module")
def handmade(base):
    """One task per reason (all copies of PFHP_300) and an answer that fails it."""
    punches = copy.deepcopy(base["initialHoles"])
    letter, ellipse = punches
    tasks = {reason: _task(base, reason) for reason in ("correct", *REASONS, "duplicate", "record")}
    tasks["invalid_task"]["resultHoles"] = [{"shape": "oval", "size": "small", "direction": 0, "location": 3}]
    answers = [
        _plan("correct", ["V1-F", "V2-F"], punches),
        _plan("invalid_task", ["V1-F", "V2-F"], punches),
        {"id": "parse_error", "response": "I could not decide on a plan, sorry."},
        _plan("unknown_code", ["V1-F", "X9-F"], punches),
        _plan("has_rotation", ["V1-F", "R-90", "V2-F"], punches + [letter]),  # rotation is checked first
        _plan("wrong_fold_count", ["V1-F"], punches),
        _plan("too_many_punches", ["V1-F", "V2-F"], punches + [dict(letter, location=6)]),
        _plan("invalid_hole", ["V1-F", "V2-F"], [letter, dict(ellipse, shape="oval")]),
        _plan("not_realizable", ["H1-F", "D1-F"], punches),
        _plan("off_paper", ["V1-F", "V2-F"], [letter, dict(ellipse, location=1)]),
        _plan("holes_differ", ["V1-F", "V2-F"], [dict(letter, location=21), ellipse]),
        _plan("duplicate", ["V1-F"], punches),
        _plan("duplicate", "v1-f, v2-f", punches),  # the last duplicate wins; codes as a string
        {**copy.deepcopy(base), "id": "record"},  # a MentalBlackboard record is a plan too
    ]
    parsed = [parse_answer_record(a, i) for i, a in enumerate(answers)]
    verdicts = replay_plans(list(tasks.values()), parsed)
    return {v.id: v for v in verdicts}


def test_every_reason(handmade):
    assert {item: v.reason for item, v in handmade.items()} == {
        **{reason: reason for reason in REASONS}, "correct": "correct", "duplicate": "correct", "record": "correct",
    }


def test_details_name_the_failure(handmade):
    assert "X9-F" in handmade["unknown_code"].detail
    assert "oval" in handmade["invalid_hole"].detail and "holes[1]" in handmade["invalid_hole"].detail
    assert "2 folds" not in handmade["wrong_fold_count"].detail and "1 folds" in handmade["wrong_fold_count"].detail
    assert "3 punches" in handmade["too_many_punches"].detail
    assert "oval" in handmade["invalid_task"].detail and "resultHoles" in handmade["invalid_task"].detail
    realizable = handmade["not_realizable"].detail
    assert "D1-F (action 2)" in realizable and "cuts triangle" in realizable
    assert "punch 2" in handmade["off_paper"].detail
    assert "could not" not in handmade["parse_error"].detail and handmade["parse_error"].detail


def test_holes_differ_lists_missing_and_extra(handmade, base):
    missing, extra = handmade["holes_differ"].differences()
    assert {h.location for h in missing} == {22, 23, 19, 18}  # the letter's four holes
    assert {h.location for h in extra} == {21, 24, 20, 17}
    assert {h.shape for h in missing + extra} == {"letter"}
    assert "missing" in handmade["holes_differ"].detail and "extra" in handmade["holes_differ"].detail


def test_result_holes_are_the_simulated_ones(handmade, base):
    """A replayed plan's holes equal foldsim.simulate's, also for a plan that breaks a rule."""
    correct, rotated = handmade["correct"], handmade["has_rotation"]
    letter, ellipse = base["initialHoles"]
    plain, turned = simulate([base, Config.from_codes(["V1-F", "R-90", "V2-F"], [letter, ellipse, letter])])
    assert Counter(h.key for h in correct.result_holes()) == Counter(h.key for h in plain.holes)
    assert rotated.replayed and Counter(h.key for h in rotated.result_holes()) == Counter(h.key for h in turned.holes)
    assert rotated.steps == 3 and rotated.punches == 3
    assert handmade["missing_answer"].result_holes() == () and not handmade["missing_answer"].replayed
    assert handmade["not_realizable"].replayed and handmade["not_realizable"].result_holes() == ()


def test_published_plans_replayed_as_answers(planning):
    answers = [parse_answer_record(r, i) for i, r in enumerate(planning)]
    verdicts = replay_plans(planning, answers)
    reasons = Counter(v.reason for v in verdicts)
    assert reasons == {"correct": 359, "too_many_punches": 41}
    by_folds = Counter(v.folds for v in verdicts if v.correct)
    assert by_folds == {4: 100, 3: 100, 2: 93, 1: 66}
    # too many punches is a rule, not a replay failure: the holes still reproduce the target
    three = [v for v in verdicts if v.reason == "too_many_punches"]
    assert all(v.punches == 3 and not v.differences()[0] and not v.differences()[1] for v in three)


def test_cli_verify(tmp_path, base, planning):
    tasks = [_task(base, "a"), _task(base, "b"), _task(base, "c")]
    answers = [_plan("a", ["V1-F", "V2-F"], base["initialHoles"]), {"id": "b", "response": "```json\n{\"folds\": [V1-F, V2-F,], \"holes\": []}\n```"},
               _plan("zzz", ["V1-F"], [])]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    (tmp_path / "answers.jsonl").write_text("\n".join(json.dumps(a) for a in answers))
    runner = CliRunner()
    result = runner.invoke(app, ["verify", str(tmp_path / "tasks.json"), str(tmp_path / "answers.jsonl"), "--json", "--details"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["items"] == 3 and summary["correct"] == 1
    assert summary["by_reason"] == {"holes_differ": 1, "missing_answer": 1}
    assert summary["by_folds"] == {"2": {"items": 3, "correct": 1}}
    assert summary["unmatched_answers"] == ["zzz"]
    assert [v["reason"] for v in summary["verdicts"]] == ["correct", "holes_differ", "missing_answer"]

    human = runner.invoke(app, ["verify", str(tmp_path / "tasks.json"), str(tmp_path / "answers.jsonl"), "--details"])
    assert human.exit_code == 0 and "1/3 correct" in human.stdout and "c: missing_answer" in human.stdout

    bad = runner.invoke(app, ["verify", str(tmp_path / "nope.json"), str(tmp_path / "answers.jsonl")])
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nope.json" in bad.stderr
