"""Scoring the choice tasks (issue 9, item 4): extraction of every answer form, hand-computed
metrics, the correction for guessing, the confusion table, split and plan-choice rules, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.dataset.choice import ChoiceSpec
from foldsim.dataset.generate import GenerateOptions, generate_records
from foldsim.rules import GROUPS
from foldsim.eval.choice import (
    STATUS_AMBIGUOUS,
    STATUS_NONE,
    STATUS_OK,
    extract_answer,
    extract_text,
    parse_choice_answer,
    score_choice_files,
    score_choice_item,
)

runner = CliRunner()


def letter(response) -> tuple[str | None, str]:
    found = extract_answer(parse_choice_answer(response), "ABCDE")
    return found.value, found.status


@pytest.mark.parametrize("response", [
    "C", "C.", "c", "(C)", "[C]", "**C**", "Answer: C", "answer: c", "ANSWER - (C)", "The answer is C.",
    "**Answer:** C", "Final answer: \\boxed{C}", "The correct option is C", "I choose option (C).",
    '{"answer": "C"}', '```json\n{"answer": "(C)"}\n```', "Some reasoning.\n{\"answer\": \"C\", \"why\": \"B is mirrored\"}",
    "<answer>C</answer>", "<ANSWER> C </ANSWER>", "Thinking about A and B...\n<answer>C</answer>",
    "A mirrored sheet is tempting, but the answer is C.", "Option B drops a hole. Answer: C",
    {"id": "x", "answer": "C"}, {"id": "x", "choice": ["C"]},
    {"custom_id": "x", "response": "Answer: C"},
    {"custom_id": "x", "result": {"type": "succeeded", "message": {"content": [{"type": "text", "text": "**C**"}]}}},
    {"custom_id": "x", "response": {"status_code": 200, "body": {"choices": [{"message": {"content": "(C)"}}]}}},
])
def test_every_answer_form_names_its_letter(response):
    assert letter(response) == ("C", STATUS_OK)


@pytest.mark.parametrize("response", [
    "A or C", "Answer: A\nAnswer: C", "<answer>A, C</answer>", '{"answer": ["A", "C"]}', "**A** **C**",
    "B C", "Option A is right, and option C too",
])
def test_naming_two_letters_is_ambiguous(response):
    assert letter(response) == (None, STATUS_AMBIGUOUS)


@pytest.mark.parametrize("response", ["", "I cannot tell.", "A sheet with holes.", "Answer: F", "{}",
                                      {"custom_id": "x", "error": {"message": "overloaded"}}])
def test_no_answer_is_omitted(response):
    assert letter(response) == (None, STATUS_NONE)


def test_labels_beyond_k_are_not_answers():
    assert extract_text("Answer: E", "ABC").status == STATUS_NONE
    assert extract_text("Answer: E", "ABCDE").value == "E"


@pytest.mark.parametrize("response, value, status", [
    ("Yes", "yes", STATUS_OK), ("no.", "no", STATUS_OK), ("NO", "no", STATUS_OK), ("Answer: yes", "yes", STATUS_OK),
    ('{"answer": "No"}', "no", STATUS_OK), ('{"answer": true}', "yes", STATUS_OK), ("<answer>Yes</answer>", "yes", STATUS_OK),
    ("Yes, although no hole is missing.", "yes", STATUS_OK), ("It matches: yes.", "yes", STATUS_OK),
    ("It could be yes or no.", None, STATUS_AMBIGUOUS), ("Maybe.", None, STATUS_NONE),
])
def test_yes_no_words_in_any_case(response, value, status):
    found = extract_answer(parse_choice_answer(response), None)
    assert (found.value, found.status) == (value, status)


def test_extraction_of_huge_adversarial_text_finishes():
    """One tokenizing pass and a bounded JSON search: a megabyte of pathological input is read in
    one pass (a backtracking pattern would not come back)."""
    texts = ["answer " * 150_000, "(" * 500_000 + "C", "{" * 200_000 + '"answer": "C"', "A " * 300_000 + "Answer: B"]
    results = [extract_text(t, "ABCDE") for t in texts]
    assert results[-1].value == "B"


# -- hand-computed metrics ------------------------------------------------------------------------------


def choice_record(item: str, errors: list[str | None], answer: str, *, pattern="H1-F", level=3, cue=None) -> dict:
    from foldsim.codes import entry_of_code

    options = [{"label": chr(65 + k), "resultHoles": [], "error": e} for k, e in enumerate(errors)]
    record = {"id": item, "taskType": "Choice", "foldingTypes": [entry_of_code(c) for c in pattern.split(",")],
              "options": options, "answer": answer, "level": level}
    if cue:
        record["cue"] = cue
    return record


TRUTH = [
    choice_record("i1", ["missing_layer", None, "wrong_crease", "pattern_turned"], "B"),            # K=4
    choice_record("i2", [None, "extra_layer", "missing_layer", "pattern_turned", "replaced_fold"], "A",
                  pattern="H1-F,R-90,V1-F", level=5),                                                 # K=5
    choice_record("i3", ["wrong_direction", "missing_layer", None], "C"),                           # K=3
    choice_record("i4", ["missing_layer", "pattern_reflected", "extra_layer", None, "wrong_crease"], "D"),  # K=5
    choice_record("i5", [None, "missing_layer", "extra_layer"], "A"),                               # K=3
]
ANSWERS = [
    {"id": "i1", "response": "Answer: B"},        # right
    {"id": "i2", "response": "Answer: C"},        # wrong: missing_layer
    {"id": "i3", "response": "A or C"},           # ambiguous: wrong
    {"id": "i4", "response": "I do not know"},    # omitted
    # i5 missing: omitted
]


def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_choice_metrics_by_hand(tmp_path):
    report = score_choice_files("choice", write(tmp_path / "t.json", TRUTH), write(tmp_path / "a.json", ANSWERS))
    m = report.metrics
    assert m["accuracy"] == pytest.approx(1 / 5)
    assert m["chance"] == pytest.approx((1 / 4 + 1 / 5 + 1 / 3 + 1 / 5 + 1 / 3) / 5)
    # R - W/(K-1): i1 +1, i2 -1/4, i3 (ambiguous, K=3) -1/2, i4 and i5 omitted 0
    assert m["corrected_score"] == pytest.approx(1 - 1 / 4 - 1 / 2)
    assert m["corrected_accuracy"] == pytest.approx((1 - 1 / 4 - 1 / 2) / 5)
    assert report.counts == {"items": 5, "right": 1, "wrong": 2, "ambiguous": 1, "omitted": 2, "missing": 1,
                             "invalid_truth": 0}
    table = report.confusion
    assert table["missing_layer"] == {"offered": 5, "chosen": 1, "rate": 1 / 5}
    assert table["pattern_turned"] == {"offered": 2, "chosen": 0, "rate": 0.0}
    chosen = sum(row["chosen"] for name, row in table.items())
    assert chosen == 5  # right + every distractor chosen + ambiguous + omitted = N
    assert report.groups["pattern"]["FRF"] == {"items": 1, "accuracy": 0.0, "chance": 0.2, "corrected": -0.25}
    assert report.groups["level"]["3"]["items"] == 4 and report.groups["folds"]["2"]["items"] == 1


def test_split_row_and_item_accuracy_by_hand(tmp_path):
    rows = []
    for item, answer in (("s1", "B"), ("s2", "A")):
        for label, error in zip("ABC", ["pattern_turned", None, "missing_layer"] if item == "s1" else [None, "extra_layer", "wrong_crease"]):
            rows.append({"id": f"{item}_{label}", "taskType": "Split", "item": item, "option": label,
                         "answer": "yes" if label == answer else "no", "error": error, "foldingTypes": TRUTH[0]["foldingTypes"]})
    answers = [{"id": "s1_A", "response": "No"}, {"id": "s1_B", "response": "Yes"}, {"id": "s1_C", "response": "no"},
               {"id": "s2_A", "response": "yes"}, {"id": "s2_B", "response": "Yes."}, {"id": "s2_C", "response": "maybe"}]
    report = score_choice_files("split", write(tmp_path / "t.json", rows), write(tmp_path / "a.json", answers))
    assert report.metrics["row_accuracy"] == pytest.approx(4 / 6) and report.metrics["row_chance"] == 0.5
    assert report.metrics["item_accuracy"] == pytest.approx(1 / 2) and report.metrics["item_chance"] == pytest.approx(1 / 8)
    assert report.metrics["corrected_score"] == pytest.approx(4 - 1)  # R - W with K = 2; "maybe" omitted
    assert report.counts["rows"] == 6 and report.counts["items"] == 2 and report.counts["items_right"] == 1
    assert report.confusion["extra_layer"] == {"offered": 1, "chosen": 1, "rate": 1.0}  # a wrong option accepted
    assert report.confusion["(right option)"]["chosen"] == 2


def test_plan_choice_accepts_any_right_label_and_corrects_for_several(tmp_path):
    truth = [choice_record("p1", [None, "replaced_fold", "replaced_fold", "pattern_turned"], ["A", "C"]),
             choice_record("p2", ["swapped_folds", None, "pattern_reflected", "replaced_fold"], ["B"])]
    truth[0]["taskType"] = truth[1]["taskType"] = "PlanChoice"
    answers = [{"id": "p1", "response": "C"}, {"id": "p2", "response": "D"}]
    report = score_choice_files("plan-choice", write(tmp_path / "t.json", truth), write(tmp_path / "a.json", answers))
    assert report.metrics["accuracy"] == 0.5
    assert report.metrics["chance"] == pytest.approx((2 / 4 + 1 / 4) / 2)
    assert report.metrics["corrected_score"] == pytest.approx(1 - 1 / 3)  # p2 wrong with m=1, K=4


def test_score_choice_item_for_per_item_callers():
    assert score_choice_item("choice", TRUTH[0], "Answer: B") == {
        "correct": 1.0, "answered": 1.0, "ambiguous": 0.0, "chance": 0.25, "corrected": 1.0}
    assert score_choice_item("choice", TRUTH[0], "A")["corrected"] == pytest.approx(-1 / 3)
    assert score_choice_item("choice", TRUTH[0], "A and B")["ambiguous"] == 1.0


# -- on generated data, through the CLI ------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("scoring") / "truth.json"
    records = generate_records(GenerateOptions("choice", tuple(GROUPS), 8, 5, choice=ChoiceSpec()))  # 72 items
    path.write_text(json.dumps(records))
    return path


def test_always_a_scores_near_chance_and_perfect_scores_one(generated, tmp_path):
    records = json.loads(generated.read_text())
    always_a = write(tmp_path / "a.jsonl", [])
    always_a.write_text("\n".join(json.dumps({"custom_id": r["id"], "response": "Answer: A"}) for r in records))
    result = runner.invoke(app, ["score", "choice", str(generated), str(always_a), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["metrics"]["chance"] == pytest.approx(0.2)
    assert report["metrics"]["accuracy"] == pytest.approx(sum(r["answer"] == "A" for r in records) / 72)
    assert 0.1 <= report["metrics"]["accuracy"] <= 0.3
    chosen = sum(row["chosen"] for row in report["confusion"].values())
    assert chosen == report["counts"]["items"] == 72
    perfect = write(tmp_path / "p.json", [{"id": r["id"], "answer": r["answer"]} for r in records])
    report = score_choice_files("choice", generated, perfect)
    assert report.metrics["accuracy"] == 1.0 and report.metrics["corrected_accuracy"] == 1.0
    assert report.confusion["(right option)"]["chosen"] == 72


def test_cli_renders_tables_and_refuses_compat_and_bad_truth(generated, tmp_path):
    answers = write(tmp_path / "a.json", [{"id": "PFHP_1", "response": "B"}])
    result = runner.invoke(app, ["score", "choice", str(generated), str(answers)])
    assert result.exit_code == 0 and "chosen options by error model" in result.stdout and "chance" in result.stdout
    result = runner.invoke(app, ["score", "choice", str(generated), str(answers), "--compat", "mentalblackboard"])
    assert result.exit_code == 2 and result.stderr.startswith("error: --compat:")
    bad = write(tmp_path / "bad.json", [{"id": "x", "options": "none"}])
    result = runner.invoke(app, ["score", "choice", str(bad), str(answers)])
    assert result.exit_code == 2 and result.stderr.startswith("error: ") and "no usable truth record" in result.stderr


def test_score_choice_item_takes_chat_messages_and_never_raises_on_the_response():
    messages = [{"role": "user", "content": "which?"}, {"role": "assistant", "content": "Answer: B"}]
    assert score_choice_item("choice", TRUTH[0], messages)["correct"] == 1.0
    for response in (None, "", [], {"weird": 1}, 17):
        assert score_choice_item("choice", TRUTH[0], response)["answered"] == 0.0


def test_bad_truth_records_are_one_line_errors_and_count_as_failures(tmp_path):
    truth = [*TRUTH[:2], {"id": "broken", "options": [{"label": "B"}], "answer": "B"}, {"answer": "A"}]
    answers = write(tmp_path / "a.jsonl", [])
    answers.write_text('{"id": "i1", "response": "B"}\nnot json at all {\n{"id": "i2", "response": "A"}\n')
    result = runner.invoke(app, ["score", "choice", str(write(tmp_path / "t.json", truth)), str(answers), "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["counts"]["items"] == 4 and report["counts"]["invalid_truth"] == 2
    assert report["metrics"]["accuracy"] == pytest.approx(2 / 4)  # i1, i2 right; the two bad records fail
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith("error: ") for line in errors)
    assert "broken: options: labels must be A in order" in errors[0] and "line 2" in errors[2]
