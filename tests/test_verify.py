"""The bulk planning verifier: one verdict per task, the first failing reason, and the published
planning file replayed as its own answers (359 correct, 41 with too many punches)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import numpy as np
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
    assert result.exit_code == 1, result.output  # not every plan is correct
    summary = json.loads(result.stdout)
    assert summary["items"] == 3 and summary["correct"] == 1
    assert summary["by_reason"] == {"holes_differ": 1, "missing_answer": 1}
    assert summary["by_folds"] == {"2": {"items": 3, "correct": 1}}
    assert summary["unmatched_answers"] == ["zzz"]
    assert [v["reason"] for v in summary["verdicts"]] == ["correct", "holes_differ", "missing_answer"]

    human = runner.invoke(app, ["verify", str(tmp_path / "tasks.json"), str(tmp_path / "answers.jsonl"), "--details"])
    assert human.exit_code == 1 and "1/3 correct" in human.stdout and "c: missing_answer" in human.stdout
    assert human.stderr == ""  # wrong plans are results, not errors

    (tmp_path / "good.jsonl").write_text(json.dumps(answers[0]) + "\n")
    good = runner.invoke(app, ["verify", str(tmp_path / "tasks.json"), str(tmp_path / "good.jsonl"), "--json"])
    assert good.exit_code == 1 and json.loads(good.stdout)["correct"] == 1
    only = runner.invoke(app, ["verify", str(tmp_path / "tasks.json"), str(tmp_path / "tasks.json"), "--json"])
    assert only.exit_code == 0 and json.loads(only.stdout)["correct"] == 3  # every plan correct: exit 0

    broken = [*tasks, {**tasks[0], "id": "d", "resultHoles": [{"shape": "oval", "size": "small", "direction": 0, "location": 3}]}]
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    (tmp_path / "lines.jsonl").write_text(json.dumps(answers[0]) + "\n{not json\n")
    mixed = runner.invoke(app, ["verify", str(tmp_path / "broken.json"), str(tmp_path / "lines.jsonl"), "--json"])
    assert mixed.exit_code == 1 and json.loads(mixed.stdout)["by_reason"]["invalid_task"] == 1
    lines = mixed.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("error: ") for line in lines)
    assert "broken.json: d: resultHoles" in lines[0] and "lines.jsonl: line 2" in lines[1]

    bad = runner.invoke(app, ["verify", str(tmp_path / "nope.json"), str(tmp_path / "answers.jsonl")])
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nope.json" in bad.stderr


# ------------------------------------------------------------------------------------------------ fast path

def _variants(planning: list[dict], count: int, seed: int = 5) -> tuple[list[dict], list[object]]:
    """(tasks, answers): the published plans and mutations of them that reach every reason and every
    reader: -B twins, lower-case codes, rotations, 0..6 folds, random and off-paper punches, class
    strings, string locations and directions (the tolerant reader), raw text, garbage."""
    import random

    from foldsim.codes import code_of_entry
    from foldsim.holes import SHAPES

    rng = random.Random(seed)
    codes = [f"{t}-{s}" for t in ("H1", "H2", "V1", "V2", "D1", "D2", "D3", "D4") for s in "FB"]
    tasks, answers = [], []
    for k in range(count):
        record = planning[k % len(planning)]
        folds = [code_of_entry(e) for e in record["foldingTypes"]]
        holes = copy.deepcopy(record["initialHoles"])
        kind = k % 10
        if kind == 1:
            folds = [c[:-1] + rng.choice("FB") for c in folds]
        elif kind == 2:
            folds = [rng.choice(codes) for _ in range(rng.randint(0, 6))]
        elif kind == 3:
            folds.insert(rng.randint(0, len(folds)), rng.choice(["R-90", "R-180", "R-270"]))
        elif kind == 4:
            holes = [{"shape": rng.choice(SHAPES), "size": rng.choice(["small", "large"]), "location": rng.randint(1, 32),
                      "direction": rng.choice([0, 90, 180, 270, "0, 180", "90, 270", "", None, 45, "90"])}
                     for _ in range(rng.randint(0, 3))]
        elif kind == 5:
            folds = [c.lower() for c in folds]
            holes = [{**h, "location": str(h["location"]), "shape": h["shape"].title()} for h in holes]
        elif kind == 6:
            answers.append({"id": record["id"], "response": "```json\n" + json.dumps({"folds": folds, "holes": holes}) + "\n```"})
        elif kind == 7:
            answers.append({"id": record["id"], "response": rng.choice(["no idea", "{\"folds\": [H1-F,]}", "```json\n{", ""])})
        elif kind == 8:
            holes = holes[:1] + [{**holes[0], "location": rng.randint(1, 32)}]
        if kind not in (6, 7):
            answers.append({"id": record["id"], "folds": folds, "holes": holes})
        tasks.append(record)
    return tasks, answers


def _same_judgement(a, b) -> None:
    from foldsim.planning import NO_HOLE

    assert a.reasons.tolist() == b.reasons.tolist()
    assert (a.steps == b.steps).all() and (a.punches == b.punches).all() and a.codes == b.codes and a.notes == b.notes
    assert (a.replay.status == b.replay.status).all()
    folded = np.isin(a.replay.status, (0, 4))  # OK, OFF_PAPER: the replayed holes mean something
    assert (a.replay.step[a.replay.status > 0] == b.replay.step[a.replay.status > 0]).all()
    assert (a.replay.triangle[a.replay.status > 0] == b.replay.triangle[a.replay.status > 0]).all()
    for i in np.flatnonzero(folded):
        ka, kb = a.replay.result[i], b.replay.result[i]
        assert sorted(ka[ka != NO_HOLE].tolist()) == sorted(kb[kb != NO_HOLE].tolist()), i
    assert [a.verdict(i).detail for i in range(len(a))] == [b.verdict(i).detail for i in range(len(b))]


def test_table_and_fast_reader_equal_kernel_and_tolerant_reader(planning):
    """The fast path (plain plans by dict lookups, 1..4-fold plans by table gathers) gives the same
    verdicts, details and replayed holes as the tolerant reader with the kernel, on the published
    plans and 500 mutations of them (500: the kernel's 512-row bucket, compiled once for the suite)."""
    from foldsim.eval.verify import judge_plans, verify_completions

    tasks, records = _variants(planning, 500)
    answers = [parse_answer_record(r, i) for i, r in enumerate(records)]
    fast = judge_plans(tasks, answers)
    slow = judge_plans(tasks, answers, engine="kernel", fast=False)
    _same_judgement(fast, slow)
    assert len(set(fast.reasons.tolist())) >= 9  # the corpus reaches (almost) every reason
    completions = [r["response"] if "response" in r else json.dumps({k: v for k, v in r.items() if k != "id"}) for r in records]
    _same_judgement(verify_completions(tasks, completions), slow)
    chats = [[{"role": "user", "content": "the task"}, {"role": "assistant", "content": c}] if i % 2 else
             [{"role": "assistant", "content": [{"type": "text", "text": c}]}] for i, c in enumerate(completions)]
    _same_judgement(verify_completions(tasks, chats), slow)  # chat messages, as TRL hands them over


def test_back_folds_replay_as_their_front_twins():
    """The table holds -F sequences only: every -B mix of 4-fold sequences spread over the table
    must agree with the kernel (a -B fold lands every hole where its -F twin does)."""
    from itertools import product

    from foldsim.planning import sequence_rows, sequence_table, table_replay
    from foldsim.eval.verify import _kernel_replay

    rows = sequence_rows()[584::150]  # 28 four-fold sequences x 16 front/back mixes: one 512-row kernel call
    mixed = np.array([[a + 8 * b for a, b in zip(row, sides)] for row in rows for sides in product((0, 1), repeat=4)], np.int32)
    locations = np.tile(np.array([[0, 9, 21, 31]], np.int32), (len(mixed), 1))
    quarters = np.tile(np.array([[0, 1, 2, 3]], np.int32), (len(mixed), 1))
    kinds = np.tile(np.array([[0, 5, 9, 17]], np.int16), (len(mixed), 1))
    table = table_replay(mixed, locations, quarters, kinds)
    kernel = _kernel_replay(mixed, locations, quarters, kinds)
    assert (table[0] == kernel[0]).all()
    ok = table[0] == 0
    assert (table[3][ok] == kernel[3][ok][:, : table[3].shape[1]]).all()
    assert sequence_table().status.shape == (4680,)


def test_read_memo_reads_like_the_plain_readers(planning):
    """ReadMemo (used to read task and truth files) gives parse_holes' holes and code_of_entry's codes,
    and the same errors, also for values that hash alike (True and 1) or do not hash at all."""
    from foldsim.codes import code_of_entry
    from foldsim.errors import InputError
    from foldsim.holes import parse_holes
    from foldsim.planning import ReadMemo

    def outcome(read, *args):
        try:
            return read(*args)
        except InputError as err:
            return str(err)

    memo = ReadMemo()
    good = planning[0]["resultHoles"][0]
    lists = [r["resultHoles"] for r in planning[:50]] * 2 + [
        [dict(good, location=True)], [dict(good, location=1.0)], [dict(good, shape=["star"])], [dict(good, shape="blob")],
        [{k: v for k, v in good.items() if k != "location"}], ["star"], [dict(good, direction=True)], None, "x"]
    for holes in lists:
        assert outcome(memo.holes, holes, "resultHoles") == outcome(parse_holes, holes, "resultHoles")
    entries = [e for r in planning[:50] for e in r["foldingTypes"]] * 2 + [
        {"foldType": ["x"]}, {"foldType": "horizontal_top_to_bottom", "foldToFront": 1}, {}, "H1-F"]
    for entry in entries:
        assert outcome(memo.code, entry) == outcome(code_of_entry, entry)
