"""Every provider's answers read right (issue 8 item 6): one test per documented output shape
(evaluation-formats.md §1; vLLM's `run_batch` writes the OpenAI batch shape), error statuses become
error answers naming the provider's status, and a perfect batch output of each big provider scores
359/400 on the shared planning file with `foldsim score planning`."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.codes import code_of_entry
from foldsim.eval.answers import (
    STATUS_EMPTY, STATUS_ERROR, STATUS_OK, load_answers, parse_answer_record, response_text,
)
from foldsim.holes import Hole

PLAN = {"folds": ["V1-F", "V2-F"], "holes": [{"shape": "star", "size": "small", "direction": 90, "location": 9}]}
TEXT = "Fold the right half over, then...\n```json\n" + json.dumps(PLAN) + "\n```"


def parse(record: dict):
    return parse_answer_record(record, 0)


def chat_completion(text: str | None, *, finish_reason: str = "stop", refusal: str | None = None) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": finish_reason,
                         "message": {"role": "assistant", "content": text, "refusal": refusal}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def openai_batch_line(item: str, text: str) -> dict:
    return {"id": "batch_req_1", "custom_id": item,
            "response": {"status_code": 200, "request_id": "req_1", "body": chat_completion(text)}, "error": None}


def responses_body(text: str, status: str = "completed") -> dict:
    return {"id": "resp_1", "object": "response", "status": status, "error": None,
            "output": [{"type": "reasoning", "id": "rs_1", "summary": []},
                       {"type": "message", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


def anthropic_line(item: str, text: str) -> dict:
    return {"custom_id": item, "result": {"type": "succeeded", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
        "content": [{"type": "thinking", "thinking": "hmm", "signature": "x"}, {"type": "text", "text": text}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}}}


def gemini_line(item: str, text: str) -> dict:
    return {"key": item, "response": {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "thinking about folds", "thought": True}, {"text": text}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 1}, "modelVersion": "gemini"}}


def assert_plan(answer, source: str, item: str = "PFHP_1"):
    assert (answer.id, answer.status, answer.source) == (item, STATUS_OK, source), answer.reason
    plan = answer.plan()
    assert plan.folds == ("V1-F", "V2-F") and plan.holes[0].hole() == Hole.make("star", "small", 90, 9)


# ------------------------------------------------------------------------------------------------ OpenAI

def test_openai_batch_output_error_null_is_success():
    assert_plan(parse(openai_batch_line("PFHP_1", TEXT)), "openai")


def test_openai_batch_content_as_parts():
    line = openai_batch_line("PFHP_1", TEXT)
    line["response"]["body"]["choices"][0]["message"]["content"] = [{"type": "text", "text": TEXT}]
    assert_plan(parse(line), "openai")


def test_openai_error_file_line():
    answer = parse({"id": "batch_req_2", "custom_id": "PFHP_1", "response": None,
                    "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
    assert (answer.id, answer.status) == ("PFHP_1", STATUS_ERROR)
    assert "batch_expired" in answer.reason and "completion window" in answer.reason


def test_openai_batch_line_with_an_http_error_status():
    answer = parse({"id": "batch_req_3", "custom_id": "PFHP_1", "error": None, "response": {
        "status_code": 429, "request_id": "r", "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}})
    assert answer.status == STATUS_ERROR and "HTTP status 429" in answer.reason and "rate_limit_exceeded" in answer.reason


def test_openai_responses_api_body():
    line = {"id": "batch_req_4", "custom_id": "PFHP_1", "error": None,
            "response": {"status_code": 200, "request_id": "r", "body": responses_body(TEXT)}}
    assert_plan(parse(line), "responses")
    failed = responses_body(TEXT, status="failed") | {"error": {"code": "server_error", "message": "boom"}}
    answer = parse({"custom_id": "PFHP_1", "error": None, "response": {"status_code": 200, "request_id": "r", "body": failed}})
    assert answer.status == STATUS_ERROR and "Responses API status failed" in answer.reason and "server_error" in answer.reason


def test_refusals_and_truncations_say_so():
    refused = openai_batch_line("PFHP_1", TEXT)
    refused["response"]["body"] = chat_completion(None, refusal="I can't help with that.")
    answer = parse(refused)
    assert answer.status == STATUS_EMPTY and "refused" in answer.reason and "can't help" in answer.reason
    cut = openai_batch_line("PFHP_1", TEXT[: TEXT.index("holes")])
    cut["response"]["body"]["choices"][0]["finish_reason"] = "length"
    assert "finish_reason length" in parse(cut).reason


# ------------------------------------------------------------------------------------------------ vLLM offline

def test_vllm_run_batch_rows():
    """vLLM's offline runner (`vllm run-batch`) writes the OpenAI batch shape: success with error
    null, and failures as a 400 response without a body plus an error string."""
    ok = {"id": "vllm-1a2b", "custom_id": "PFHP_1", "error": None,
          "response": {"status_code": 200, "request_id": "vllm-batch-9", "body": chat_completion(TEXT)}}
    assert_plan(parse(ok), "openai")
    failed = parse({"id": "vllm-3c4d", "custom_id": "PFHP_1", "error": "maximum context length exceeded",
                    "response": {"status_code": 400, "request_id": "vllm-batch-8", "body": None}})
    assert failed.status == STATUS_ERROR and "maximum context length" in failed.reason


# ------------------------------------------------------------------------------------------------ Anthropic

def test_anthropic_succeeded_skips_thinking_blocks():
    answer = parse(anthropic_line("PFHP_1", TEXT))
    assert_plan(answer, "result")
    assert answer.text == TEXT


@pytest.mark.parametrize("result, words", [
    ({"type": "errored", "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}},
     ["errored", "overloaded_error", "Overloaded"]),
    ({"type": "canceled"}, ["canceled"]),
    ({"type": "expired"}, ["expired"]),
])
def test_anthropic_results_that_did_not_succeed(result, words):
    answer = parse({"custom_id": "PFHP_1", "result": result})
    assert (answer.id, answer.status) == ("PFHP_1", STATUS_ERROR)
    assert all(w in answer.reason for w in words), answer.reason


# ------------------------------------------------------------------------------------------------ Gemini

def test_gemini_batch_line_uses_key_and_skips_thoughts():
    answer = parse(gemini_line("PFHP_1", TEXT))
    assert_plan(answer, "gemini")
    assert response_text(gemini_line("PFHP_1", TEXT)) == (TEXT, "gemini")


@pytest.mark.parametrize("line, words", [
    ({"key": "PFHP_1", "status": {"code": 8, "message": "Resource has been exhausted"}}, ["Gemini status 8", "exhausted"]),
    ({"key": "PFHP_1", "error": {"code": 400, "message": "Invalid argument", "status": "INVALID_ARGUMENT"}},
     ["Gemini error", "INVALID_ARGUMENT"]),
    ({"key": "PFHP_1", "response": {"promptFeedback": {"blockReason": "SAFETY"}}}, ["blocked", "SAFETY"]),
])
def test_gemini_status_and_error_objects(line, words):
    answer = parse(line)
    assert (answer.id, answer.status) == ("PFHP_1", STATUS_ERROR)
    assert all(w in answer.reason for w in words), answer.reason


def test_gemini_candidate_without_text():
    answer = parse({"key": "PFHP_1", "response": {"candidates": [{"finishReason": "RECITATION"}]}})
    assert answer.status == STATUS_EMPTY and "RECITATION" in answer.reason


# ------------------------------------------------------------------------------------------------ runners

def test_foldsim_runner_rows():
    assert_plan(parse({"id": "PFHP_1", "response": chat_completion(TEXT)}), "chat")
    assert_plan(parse({"id": "PFHP_1", "response": TEXT}), "response")
    failed = parse({"id": "PFHP_1", "error": {"type": "http", "status": 500, "message": "upstream failed"}})
    assert failed.status == STATUS_ERROR and "upstream failed" in failed.reason and "500" in failed.reason


def test_reference_runner_rows(planning_file):
    """planning_converter rows (`folds` comma-joined), prediction rows (`unfoldingTypes`
    comma-joined), hole lists stored as JSON strings, error rows, and dataset rows that carry
    `foldingFrames` lists and JSON-string fields."""
    plan_row = parse({"id": "PFHP_1", "folds": "V1-F,V2-F", "holes": PLAN["holes"]})
    assert plan_row.source == "fields" and plan_row.plan().folds == ("V1-F", "V2-F")
    as_string = parse({"id": "PFHP_1", "folds": "V1-F,V2-F", "holes": json.dumps(PLAN["holes"])})
    assert as_string.plan() == plan_row.plan()
    prediction = parse({"id": "PFHP_2", "totalNumberofHoles": 1, "unfoldingTypes": "V2-F,V1-F",
                        "resultHoles": json.dumps([{"shape": "star", "size": "small", "direction": 90, "location": 9}])}).prediction()
    assert prediction.unfolding == ("V2-F", "V1-F") and prediction.holes[0].location == 9 and not prediction.notes
    error = parse({"id": "PFHP_3", "error": "ValueError('No JSON block found in response')", "raw_response": "I think..."})
    assert error.status == STATUS_ERROR and "No JSON block" in error.reason
    record = json.loads(planning_file.read_text())[0]
    dataset_row = {**record, "foldingTypes": json.dumps(record["foldingTypes"]), "initialHoles": json.dumps(record["initialHoles"]),
                   "foldingFrames": [f"folding_frames/{record['id']}/frame_{i:04d}.png" for i in range(3)]}
    assert parse(dataset_row).plan() == parse(record).plan() and parse(record).plan().folds


# ------------------------------------------------------------------------------------------------ files

def test_a_mixed_provider_jsonl_file(tmp_path):
    lines = [openai_batch_line("a", TEXT), anthropic_line("b", TEXT), gemini_line("c", TEXT),
             {"id": "d", "response": chat_completion(TEXT)}, {"custom_id": "e", "result": {"type": "expired"}}]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json at all\n")
    answers = load_answers(path)
    assert [(a.id, a.status) for a in answers] == [("a", "ok"), ("b", "ok"), ("c", "ok"), ("d", "ok"), ("e", "error"),
                                                   ("line 6", "unparseable")]
    assert answers[-1].unreadable and not any(a.unreadable for a in answers[:-1])


def perfect_plan_text(record: dict) -> str:
    """The record's own plan written as a model would answer a planning prompt."""
    plan = {"folds": [code_of_entry(e) for e in record["foldingTypes"]], "holes": record["initialHoles"]}
    return "I fold and punch as follows.\n```json\n" + json.dumps(plan, indent=2) + "\n```"


PROVIDERS = {"openai": openai_batch_line, "anthropic": anthropic_line, "gemini": gemini_line,
             "responses": lambda item, text: {"id": "x", "custom_id": item, "error": None, "response": {
                 "status_code": 200, "request_id": "r", "body": responses_body(text)}}}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_perfect_batch_output_scores_359_of_400(provider, planning_file, tmp_path):
    """Output order is not input order (join on the id); the 41 published three-punch plans break
    the two-punch rule, so 359 is the ceiling."""
    records = json.loads(planning_file.read_text())
    lines = [PROVIDERS[provider](r["id"], perfect_plan_text(r)) for r in records]
    random.Random(7).shuffle(lines)
    path = tmp_path / f"{provider}.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = CliRunner().invoke(app, ["score", "planning", str(planning_file), str(path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["counts"]["exact"] == 359 and report["counts"]["items"] == 400
    assert report["metrics"]["exact_match"] == pytest.approx(0.8975) and report["counts"]["answers_ok"] == 400
