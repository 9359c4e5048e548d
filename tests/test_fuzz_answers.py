"""Fuzzed model answers through every parse, score (default mode) and verify path (issue 12 item 6):
no exception escapes, no answer takes a second, no garbage is ever scored correct, and the fast
paths (strict decode, dict-lookup plans, table replay) give the tolerant reader's and the kernel's
verdicts on every fuzzed answer.

Each example is a batch of BATCH answers (so the batched scorers run as they do in real use);
timings are taken per answer for parsing and per batch, divided by its size, for scoring and
verifying. Each batch test runs 3.4 % of FOLDSIM_FUZZ_EXAMPLES batches: `make fuzz` (10,000) drives
10,200 fuzzed answers through the three of them, `make test` (2,000) a fifth of that.
"""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foldsim.codes import code_of_entry
from foldsim.errors import InputError
from foldsim.eval.answers import (
    ANSWER_KEYS, STATUSES, find_answer_json, load_answers, parse_answer_record,
)
from foldsim.eval.score_base import truth_item
from foldsim.eval.scoring import score_default
from foldsim.eval.verify import judge_plans, verify_completions

from conftest import GENERALIZATION, PLANNING, fuzz_settings, require

pytestmark = pytest.mark.fuzz

SECOND = 1.0
BATCH = 10  # answers per example
SHARE = 0.034  # of FOLDSIM_FUZZ_EXAMPLES per batch test: 340 x 10 x 3 = 10,200 answers under `make fuzz`

_PLANNING = json.loads(require(PLANNING).read_text())
_PREDICTION = json.loads(require(GENERALIZATION).read_text())
PLAN_RECORDS = [_PLANNING[i] for i in (0, 150, 260, 300, 390)]  # 4, 3, 2, 2, 1 folds
PREDICTION_RECORDS = _PREDICTION[:6]
PLAN_TASKS = [truth_item(r, i) for i, r in enumerate(PLAN_RECORDS)]
PREDICTION_TRUTH = [truth_item(r, i) for i, r in enumerate(PREDICTION_RECORDS)]


def perfect_plan(record: dict) -> dict:
    return {"folds": [code_of_entry(e) for e in record["foldingTypes"]], "holes": record["initialHoles"][:2]}


def perfect_prediction(record: dict) -> dict:
    return {k: record[k] for k in ("totalNumberofHoles", "unfoldingTypes", "resultHoles")}


# ------------------------------------------------------------------------------------------------ strategies

scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=8) | st.sampled_from(["H1-F", "v2-b", "R-90", "star", "large", "0, 180", "(1, 2, 1)", "17", ""]))
wild = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from([*ANSWER_KEYS, "shape", "size", "location", "direction", "x"]), inner, max_size=3), max_leaves=6)
hole = st.fixed_dictionaries({}, optional={"shape": wild, "size": wild, "location": wild, "direction": wild})
garbage_object = st.fixed_dictionaries({}, optional={
    "folds": wild | st.lists(wild, max_size=5), "holes": wild | st.lists(hole, max_size=4),
    "resultHoles": wild | st.lists(hole, max_size=6), "totalNumberofHoles": wild, "unfoldingTypes": wild,
    "foldingTypes": wild, "initialHoles": wild})


@st.composite
def damaged_text(draw, body: str) -> str:
    """`body` with the damage models make or an attacker would: fences (closed or not), truncation,
    prose around it, deep nesting, 5,000-digit numbers, repeated candidates, random text."""
    text = body
    if draw(st.booleans()):
        text = draw(st.sampled_from(["```json\n", "```\n", "``` JSON ", "Answer:\n```json\n"])) + text + draw(
            st.sampled_from(["\n```", "", "\n```\nDone.", "```"]))
    choice = draw(st.integers(0, 9))
    if choice == 0:
        text = text[: draw(st.integers(0, len(text)))]
    elif choice == 1:
        depth = draw(st.integers(1, 3000))
        text = draw(st.sampled_from(["[", "{\"resultHoles\": ", "{\"folds\": [", "{"])) * depth + text
    elif choice == 2:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + "9" * draw(st.sampled_from([25, 400, 5000])) + text[at:]
    elif choice == 3:
        text = draw(st.text(max_size=60)) + text + draw(st.text(max_size=60))
    elif choice == 4:
        text = ("```json\n{\"folds\": [H1-F,\n" * draw(st.integers(1, 300))) + text
    elif choice == 5:
        text = draw(st.binary(max_size=200)).decode("utf-8", "replace")
    elif choice == 6:
        text = text.replace('"', "'")
    return text


def envelope(text: str | None, provider: str, item: str, ok: bool) -> object:
    """`text` in a provider's result line; `ok=False` gives that provider's failure shapes."""
    chat = {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
    lines = {
        "raw": text,
        "response": {"id": item, "response": text},
        "openai": {"id": "b", "custom_id": item, "response": {"status_code": 200 if ok else 500, "request_id": "r", "body": chat},
                   "error": None if ok else {"code": "server_error", "message": "x"}},
        "responses": {"custom_id": item, "error": None, "response": {"status_code": 200, "request_id": "r", "body": {
            "object": "response", "status": "completed" if ok else "failed",
            "output": [{"type": "message", "content": [{"type": "output_text", "text": text}]}]}}},
        "anthropic": {"custom_id": item, "result": {"type": "succeeded", "message": {"content": [{"type": "text", "text": text}]}}
                      if ok else {"type": "errored", "error": {"type": "error", "error": {"type": "overloaded_error"}}}},
        "gemini": {"key": item, "response": {"candidates": [{"content": {"parts": [{"text": text}]}}]}} if ok
        else {"key": item, "status": {"code": 8, "message": "quota"}},
        "runner": {"id": item, "response": chat} if ok else {"id": item, "error": {"message": "boom"}},
    }
    return lines[provider]


@st.composite
def fuzzed_answer(draw, records: list[dict], perfect) -> tuple[object, bool]:
    """(record or text, whether it may be scored correct): garbage never may; the perfect answer in
    a successful envelope, undamaged, must be (checked by the caller), damaged it may or may not."""
    index = draw(st.integers(0, len(records) - 1))
    item = records[index]["id"]
    kind = draw(st.sampled_from(["garbage", "garbage", "perfect", "damaged", "wild_envelope"]))
    provider = draw(st.sampled_from(["raw", "response", "openai", "responses", "anthropic", "gemini", "runner"]))
    if kind == "wild_envelope":  # wrong types where the envelopes have structure
        return {"custom_id": item, "response": draw(wild), "result": draw(wild), "candidates": draw(wild),
                "choices": draw(wild), "error": draw(st.none() | wild), "status": draw(wild)}, False
    if kind == "garbage":
        body = json.dumps(draw(garbage_object)) if draw(st.booleans()) else draw(st.text(max_size=100))
        return envelope(draw(damaged_text(body)), provider, item, draw(st.booleans())), False
    body = json.dumps(perfect(records[index]))
    if kind == "perfect":
        return envelope(body, provider, item, True), True
    return envelope(draw(damaged_text(body)), provider, item, draw(st.booleans())), True


def parse_timed(records: list[object]) -> list:
    """Parse each answer, asserting it takes under a second and gives a known status."""
    answers = []
    for i, record in enumerate(records):
        started = time.perf_counter()
        answer = parse_answer_record(record, i)
        answer.prediction(), answer.prediction(directions=False), answer.plan()
        assert time.perf_counter() - started < SECOND, f"answer {i} took over a second"
        assert answer.status in STATUSES and isinstance(answer.reason, str)
        answers.append(answer)
    return answers


def retagged(answers: list, records: list[dict], picks: list[int]) -> list:
    from dataclasses import replace

    return [replace(a, id=records[k]["id"]) for a, k in zip(answers, picks)]


# ------------------------------------------------------------------------------------------------ tests

@pytest.fixture(scope="module", autouse=True)
def compiled():
    """Compile the kernel shapes the fuzzed batches use (1..16 rows, 6 actions, 4 punches) and build
    the fold-sequence table before any answer is timed: compilation is once per process, not per answer."""
    answers = [parse_answer_record({"id": r["id"], **perfect_plan(r)}, i) for i, r in enumerate(PLAN_RECORDS)]
    for size in (1, 9):
        judge_plans(PLAN_RECORDS[:1] * size, answers[:1] * size, engine="kernel")
    judge_plans(PLAN_RECORDS, answers)


@fuzz_settings(SHARE)
@given(batch=st.lists(fuzzed_answer(PREDICTION_RECORDS, perfect_prediction), min_size=BATCH, max_size=BATCH),
       task=st.sampled_from(["prediction", "backward", "text", "generalization"]))
def test_fuzzed_prediction_answers_parse_and_score(batch, task):
    records = [record for record, _ in batch]
    answers = parse_timed(records)
    started = time.perf_counter()
    ids = [PREDICTION_TRUTH[[t.id for t in PREDICTION_TRUTH].index(a.id)] if a.id in {t.id for t in PREDICTION_TRUTH}
           else None for a in answers]
    for answer, truth, (_, may) in zip(answers, ids, batch):
        if truth is None:
            continue
        report = score_default(task, [truth], [answer])
        assert 0.0 <= report.metrics["partial"] <= 1.0
        if report.items[0].exact:
            assert may, f"garbage scored exact: {answer!r}"
    assert (time.perf_counter() - started) / len(batch) < SECOND


@fuzz_settings(SHARE)
@given(batch=st.lists(fuzzed_answer(PLAN_RECORDS, perfect_plan), min_size=BATCH, max_size=BATCH))
def test_fuzzed_plans_verify_and_score_the_same_on_every_path(batch):
    records = [record for record, _ in batch]
    answers = parse_timed(records)
    by_id = {r["id"]: k for k, r in enumerate(PLAN_RECORDS)}
    picks = [by_id.get(a.id, 0) for a in answers]
    tasks = [PLAN_RECORDS[k] for k in picks]
    started = time.perf_counter()
    fast = judge_plans(tasks, answers)
    slow = judge_plans(tasks, answers, engine="kernel", fast=False)
    assert fast.reasons.tolist() == slow.reasons.tolist()
    assert fast.notes == slow.notes and fast.codes == slow.codes
    assert [fast.verdict(i).detail for i in range(len(fast))] == [slow.verdict(i).detail for i in range(len(slow))]
    assert verify_completions(tasks, records).reasons.tolist() == judge_plans(
        tasks, [parse_answer_record(r, i) for i, r in enumerate(records)]).reasons.tolist()
    for i, (_, may) in enumerate(batch):
        if fast.correct[i]:
            assert may, f"garbage verified correct: {records[i]!r}"
    report = score_default("planning", PLAN_TASKS, answers)
    last = {a.id: i for i, a in enumerate(answers)}  # the scorer keeps the last answer of an id
    for item in report.items:
        if item.exact:
            assert batch[last[item.id]][1], f"garbage scored exact: {records[last[item.id]]!r}"
    assert (time.perf_counter() - started) / len(batch) < SECOND


@fuzz_settings(SHARE)
@given(batch=st.lists(fuzzed_answer(PLAN_RECORDS, perfect_plan), min_size=BATCH, max_size=BATCH),
       broken=st.lists(st.text(max_size=80).map(str.encode) | st.binary(max_size=40), max_size=3))
def test_fuzzed_answer_files_lose_only_their_bad_lines(tmp_path_factory, batch, broken):
    """JSON Lines of fuzzed records with random byte lines mixed in: only InputError (for a file
    that is not text at all) may come out of reading, and every good line is an answer."""
    path = tmp_path_factory.mktemp("fuzz") / "answers.jsonl"
    lines = [json.dumps(record).encode() for record, _ in batch]
    data = b"\n".join(lines + [line.replace(b"\n", b" ") for line in broken])
    path.write_bytes(data)
    started = time.perf_counter()
    try:
        answers = load_answers(path)
    except InputError:
        return
    assert (time.perf_counter() - started) / (len(lines) + len(broken)) < SECOND
    assert len(answers) >= len(lines)
    assert all(a.status in STATUSES for a in answers)


@fuzz_settings(1 / BATCH)
@given(text=st.text(max_size=400) | st.binary(max_size=400).map(lambda b: b.decode("latin-1")),
       repeat=st.integers(1, 2000))
def test_fuzzed_texts_find_answers_in_bounded_time(text, repeat):
    """Random and repeated text (up to ~1 MB): the search ends under a second and never raises."""
    big = (text * repeat)[:1_000_000]
    started = time.perf_counter()
    data, reason, status = find_answer_json(big)
    assert time.perf_counter() - started < SECOND
    assert status in STATUSES and (data is None) == bool(reason)
    assert find_answer_json(big, fast=False)[0] == data


# ------------------------------------------------------------------------------------------------ hostile Python records
# (issue 19 item 1) Records a caller builds in Python, which no JSON file can hold: ints too large for
# a float or for str(), nesting past the recursion limit, cycles (tests/hostile.py), anywhere in the
# record. Every public entry point gives them a status (too_large / unparseable) and scores them zero.

from foldsim import rewards as R  # noqa: E402
from foldsim.eval.answers import STATUS_TOO_LARGE, STATUS_UNPARSEABLE, Answer, answer_of_completion  # noqa: E402
from foldsim.eval.item import score_item  # noqa: E402
from foldsim.eval.compat import MODE_SCORING_DIR, MODE_TOP_LEVEL, score_compat  # noqa: E402

import hostile as H  # noqa: E402

REFUSED_STATUSES = (STATUS_TOO_LARGE, STATUS_UNPARSEABLE)
PREDICTION_TASKS = ("prediction", "backward", "text", "generalization")
COMPAT = (("prediction", MODE_TOP_LEVEL), ("prediction", MODE_SCORING_DIR), ("backward", MODE_TOP_LEVEL),
          ("text", MODE_TOP_LEVEL), ("generalization", MODE_TOP_LEVEL))
PREDICTION_COLUMN = [json.dumps(r) for r in PREDICTION_RECORDS]
PLAN_COLUMN = [json.dumps(r) for r in PLAN_RECORDS]


@st.composite
def hostile_case(draw, records: list[dict], perfect) -> tuple:
    """(record index, base record, path, kind, choice): a perfect answer as answer fields, in a
    provider envelope or as chat messages, and where and what to make hostile in it."""
    index = draw(st.integers(0, len(records) - 1))
    item, body = records[index]["id"], perfect(records[index])
    base_kind = draw(st.sampled_from(["fields", "envelope", "chat"]))
    if base_kind == "fields":
        base = {"id": item, **body}
    elif base_kind == "envelope":
        provider = draw(st.sampled_from(["response", "openai", "responses", "anthropic", "gemini", "runner"]))
        base = envelope(json.dumps(body), provider, item, True)
    else:
        base = [{"role": "user", "content": [{"type": "text", "text": "fold it"}]}, {"role": "assistant", "content": json.dumps(body)}]
    return index, base, draw(st.sampled_from(H.paths(base))), draw(st.sampled_from(H.KINDS)), draw(st.integers(0, 4))


def assert_refused(answer: Answer) -> None:
    assert answer.status in REFUSED_STATUSES, (answer.status, answer.reason)
    assert answer.reason and "\n" not in answer.reason and len(answer.reason) <= 200, answer.reason
    assert answer.data is None and answer.prediction() == answer.prediction(directions=False) and answer.plan().folds == ()


def read_answer(record: object) -> Answer:
    """The record through the answer parser (a dict) or the completion reader (chat messages), timed."""
    started = time.perf_counter()
    answer = parse_answer_record(record, 0) if isinstance(record, dict) else answer_of_completion(record, 0)
    answer.prediction(), answer.prediction(directions=False), answer.plan()
    assert time.perf_counter() - started < SECOND
    assert answer.status in STATUSES
    return answer


def refused_anywhere(record: object, path: tuple) -> bool:
    """Whether the parser must refuse the record: a record (dict) is refused whatever the path; in
    chat messages only the last assistant message's content is read."""
    return isinstance(record, dict) or path[:2] == (1, "content")


@pytest.mark.filterwarnings("error::RuntimeWarning")  # a reward's batch-level backstop fired: a failure
@fuzz_settings(0.03)
@given(case=hostile_case(PREDICTION_RECORDS, perfect_prediction))
def test_hostile_prediction_records_get_a_status_and_score_zero(case):
    index, base, path, kind, choice = case
    record = H.hostile(base, path, kind, choice)
    refused = refused_anywhere(record, path)
    answer = read_answer(record)
    if isinstance(record, dict):
        assert_refused(answer)
    truth = PREDICTION_RECORDS[index]
    for task in PREDICTION_TASKS:
        metrics = score_item(task, truth, record)
        if refused:
            assert metrics["exact_match"] == 0.0 and metrics["answer_parsed"] == 0.0, (task, metrics)
    for reward in R.REWARDS.values():
        values = reward(completions=[record, record], record=[PREDICTION_COLUMN[index]] * 2)
        assert len(values) == 2 and all(v is None or 0.0 <= v <= 1.0 for v in values), reward.__name__
    if refused:
        assert R.prediction_exact(completions=[record], record=[PREDICTION_COLUMN[index]]) == [0.0]
    built = Answer(str(truth["id"]), "ok", record=record)  # a compat caller's own Answer around the raw record
    for task, mode in COMPAT:
        for given_answer in (answer, built):
            report = score_compat(task, PREDICTION_TRUTH, [replace_id(given_answer, truth["id"])], mode)
            json.dumps(report.to_dict(details=True), default=str)
            if refused:
                assert report.counts["exact"] == 0, (task, mode, report.counts)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # a reward's batch-level backstop fired: a failure
@fuzz_settings(0.03)
@given(case=hostile_case(PLAN_RECORDS, perfect_plan))
def test_hostile_plans_get_a_status_and_verify_and_score_zero(case):
    index, base, path, kind, choice = case
    record = H.hostile(base, path, kind, choice)
    refused = refused_anywhere(record, path)
    answer = read_answer(record)
    if isinstance(record, dict):
        assert_refused(answer)
    task = PLAN_TASKS[index]
    fast = verify_completions([PLAN_RECORDS[index]], [record])
    if refused:
        assert fast.reasons.tolist() == ["parse_error"], fast.reasons
    if isinstance(record, dict):
        assert judge_plans([PLAN_RECORDS[index]], [answer]).reasons.tolist() == fast.reasons.tolist()
    metrics = score_item("planning", PLAN_RECORDS[index], record)
    if refused:
        assert metrics["exact_match"] == 0.0 and metrics["answer_parsed"] == 0.0, metrics
    for reward in R.REWARDS.values():
        values = reward(completions=[record, record], record=[PLAN_COLUMN[index]] * 2)
        assert len(values) == 2 and all(v is None or 0.0 <= v <= 1.0 for v in values), reward.__name__
    if refused:
        assert R.planning_correct(completions=[record], record=[PLAN_COLUMN[index]]) == [0.0]
    built = Answer(task.id, "ok", record=record)
    for given_answer in (answer, built):
        report = score_compat("planning", PLAN_TASKS, [replace_id(given_answer, task.id)])
        json.dumps(report.to_dict(details=True), default=str)
        if refused:
            assert report.counts["exact"] == 0, report.counts


def replace_id(answer: Answer, item: object) -> Answer:
    from dataclasses import replace

    return replace(answer, id=str(item))
