"""foldsim.eval.answers: envelopes, JSON extraction and repairs, field normalisation, garbage."""

from __future__ import annotations

import json

import pytest

from foldsim.eval.answers import (
    MAX_ANSWER_CHARS, STATUS_EMPTY, STATUS_ERROR, STATUS_OK, STATUS_TOO_LARGE, STATUS_UNPARSEABLE, PredictedHole,
    answer_of_completion, balanced_objects, extract_answer_json, index_answers, load_answers, parse_answer_record,
    parse_directions, parse_predicted_hole, parse_predicted_location,
)
from foldsim.holes import Hole

ANSWER = {"totalNumberofHoles": 1, "unfoldingTypes": ["H2-F"],
          "resultHoles": [{"shape": "star", "size": "large", "direction": 90, "location": 5}]}
ANSWER_TEXT = json.dumps(ANSWER)


def parse(record: object) -> object:
    return parse_answer_record(record, 0)


# ------------------------------------------------------------------------------------------------ envelopes

@pytest.mark.parametrize("record, source", [
    ({"id": "a", "response": f"Reasoning...\n```json\n{ANSWER_TEXT}\n```"}, "response"),
    ({"custom_id": "a", "result": {"message": {"content": [{"type": "text", "text": "Let me think."},
                                                           {"type": "tool_use", "text": "{}"},
                                                           {"type": "text", "text": ANSWER_TEXT}]}}}, "result"),
    ({"custom_id": "a", "response": {"body": {"choices": [{"message": {"content": f"```\n{ANSWER_TEXT}\n```"}}]}}}, "openai"),
    ({"id": "a", "raw_response": f"The answer is {ANSWER_TEXT}."}, "raw_response"),
    ({"id": "a", **ANSWER}, "fields"),
])
def test_every_envelope_gives_the_same_answer(record, source):
    answer = parse(record)
    assert (answer.id, answer.status, answer.source) == ("a", STATUS_OK, source)
    prediction = answer.prediction()
    assert prediction.holes == (PredictedHole("star", "large", 5, frozenset({90})),)
    assert (prediction.declared_total, prediction.unfolding) == (1, ("H2-F",))


def test_custom_id_wins_over_id_and_missing_ids_are_numbered():
    assert parse_answer_record({"custom_id": "c", "id": "i", **ANSWER}, 3).id == "c"
    assert parse_answer_record({"id": 7, **ANSWER}, 3).id == "7"
    assert parse_answer_record(dict(ANSWER), 3).id == "item 3"


def test_error_rows_are_empty_answers_with_a_reason():
    answer = parse({"id": "a", "error": "no json fence", "raw_response": ANSWER_TEXT})
    assert answer.status == STATUS_ERROR and "no json fence" in answer.reason
    assert answer.data is None and answer.prediction().holes == ()


@pytest.mark.parametrize("record, status", [
    (None, STATUS_EMPTY), (42, STATUS_EMPTY), ([1, 2], STATUS_EMPTY), ({"id": "a"}, STATUS_EMPTY),
    ({"id": "a", "response": "   "}, STATUS_EMPTY), ({"id": "a", "response": "I cannot do this."}, STATUS_UNPARSEABLE),
    ({"id": "a", "response": '{"resultHoles": [{"shape": "star", "size": "lar'}, STATUS_UNPARSEABLE),
    ({"id": "a", "response": '{"answer": 3} and {"holes2": []}'}, STATUS_UNPARSEABLE),
])
def test_garbage_never_raises(record, status):
    answer = parse(record)
    assert answer.status == status and answer.reason
    assert answer.prediction().holes == () and answer.plan().folds == ()


def test_duplicates_last_wins_and_are_reported():
    answers = [parse_answer_record({"id": i, "response": r}, n) for n, (i, r) in enumerate([("a", "x"), ("b", ANSWER_TEXT), ("a", ANSWER_TEXT)])]
    by_id, duplicates = index_answers(answers)
    assert duplicates == ("a",) and by_id["a"].status == STATUS_OK


# ------------------------------------------------------------------------------------------------ extraction

def test_prose_with_braces_before_the_json():
    text = "Consider the set {top, bottom}. Unfold {carefully\nFinal answer: " + ANSWER_TEXT + "\nDone {}."
    data, reason = extract_answer_json(text)
    assert data == ANSWER and reason == ""


def test_the_last_candidate_with_answer_keys_wins():
    draft = json.dumps({**ANSWER, "totalNumberofHoles": 9})
    text = f"Draft:\n```json\n{draft}\n```\nExample hole {{\"shape\": \"circle\"}}\nFinal:\n```json\n{ANSWER_TEXT}\n```\nbye {{\"x\": 1}}"
    assert extract_answer_json(text)[0] == ANSWER


def test_braces_inside_strings_do_not_confuse_the_scan():
    text = '{"note": "a } and a {", "folds": ["H1-F"], "holes": []}'
    assert balanced_objects(text) == [(0, len(text))]
    assert extract_answer_json(text)[0]["folds"] == ["H1-F"]


def test_bare_codes_are_quoted_without_breaking_quoted_ones():
    text = '{"unfoldingTypes": [V2-B, "H1-F", h1-f, D3 -B, R-90,], "totalNumberofHoles": 0, "resultHoles": [],}'
    data, _ = extract_answer_json(text)
    assert data["unfoldingTypes"] == ["V2-B", "H1-F", "h1-f", "D3-B", "R-90"]
    assert parse({"id": "a", "response": text}).prediction().unfolding == ("V2-B", "H1-F", "H1-F", "D3-B", "R-90")


def test_trailing_commas_are_removed_outside_strings_only():
    text = '```json\n{"folds": ["H1-F", "V2-F",], "holes": [{"shape": "star", "size": "small, or large,]", "direction": 0, "location": 3},],}\n```'
    plan = parse({"id": "a", "response": text}).plan()
    assert plan.folds == ("H1-F", "V2-F") and plan.holes[0].note.startswith("unknown size")


def test_single_quotes_are_repaired_as_a_last_resort():
    text = "{'folds': ['H1-F'], 'holes': [{'shape': 'circle', 'size': 'small', 'direction': '', 'location': 4}]}"
    assert parse({"id": "a", "response": text}).plan().holes[0].hole() == Hole.make("circle", "small", "", 4)


# ------------------------------------------------------------------------------------------------ fields

@pytest.mark.parametrize("value, expected", [
    (17, 17), ("17", 17), (" 17 ", 17), (17.0, 17), ([2, 0, 0], 17), ("(2,0,0)", 17), ("[2, 0, 0]", 17), (["2", "0", "0"], 17),
    ([0, 0, 0], 1), ([3, 3, 1], 32),
])
def test_locations(value, expected):
    notes = []
    assert parse_predicted_location(value, notes) == expected and notes == []


@pytest.mark.parametrize("value", [0, 33, -1, [4, 0, 0], [0, 0, 2], [1, 2], "north", None, True, 17.5, {"r": 1}])
def test_bad_locations_are_noted(value):
    notes = []
    assert parse_predicted_location(value, notes) is None and len(notes) == 1


@pytest.mark.parametrize("value, expected", [
    (90, {90}), ("90", {90}), (-90, {270}), (450, {90}), ("0, 180", {0, 180}), ("(90, 270)", {90, 270}),
    ([0, 180], {0, 180}), (["90", 270], {90, 270}), (None, set()), ("", set()), (0, {0}), (0.0, {0}),
])
def test_directions(value, expected):
    notes = []
    assert parse_directions(value, notes) == frozenset(expected) and notes == []


@pytest.mark.parametrize("value", ["north", "0.5", 12.5, True, {"a": 1}])
def test_bad_directions_are_noted(value):
    notes = []
    assert parse_directions(value, notes) == frozenset() and notes


def test_case_and_whitespace_variants_of_shapes_and_sizes():
    hole = parse_predicted_hole({"shape": " Ellipse", "size": "Large ", "direction": "(90, 270)", "location": "(0, 1, 1)"})
    assert (hole.shape, hole.size, hole.location, hole.note) == ("ellipse", "large", 4, "")
    assert hole.hole() == Hole.make("ellipse", "large", "90, 270", 4)


def test_single_direction_rule():
    def hole(shape, directions):
        return PredictedHole(shape, "small", 1, frozenset(directions))
    assert hole("ellipse", {90, 270}).quarter_for(2) == 1  # one class for a two-fold shape
    assert hole("ellipse", {0, 90}).quarter_for(2) is None  # two classes: no match
    assert hole("triangle", {90, 270}).quarter_for(4) is None
    assert hole("triangle", {270}).hole() == Hole.make("triangle", "small", 270, 1)
    assert hole("triangle", set()).hole() is None  # a direction is required where it matters
    assert hole("circle", set()).hole() == Hole.make("circle", "small", "", 1)  # and not where it does not
    assert hole("star", {45}).hole() is None


@pytest.mark.parametrize("obj, note", [
    ({"shape": "hexagon", "size": "small", "direction": 0, "location": 3}, "unknown shape"),
    ({"shape": "star", "size": "huge", "direction": 0, "location": 3}, "unknown size"),
    ({"shape": "star", "size": "small", "direction": 0, "location": 40}, "outside 1..32"),
    ({"shape": "star", "size": "small", "direction": 0}, "location missing"),
    ("a star somewhere", "not an object"),
    (7, "not an object"),
])
def test_per_hole_problems_keep_the_hole_with_a_note(obj, note):
    hole = parse_predicted_hole(obj)
    assert note in hole.note and not hole.valid and hole.hole() is None


def test_string_holes_from_the_text_modality():
    assert parse_predicted_hole("ellipse large (2,1,1)").location == 20  # 8*2 + 2*1 + 1 + 1
    assert parse_predicted_hole('{"shape": "star", "size": "small", "location": 3}').shape == "star"


def test_holes_list_problems_are_noted_not_raised():
    prediction = parse({"id": "a", "resultHoles": "none", "totalNumberofHoles": "2", "unfoldingTypes": "H1-F, v2-b zz"}).prediction()
    assert prediction.holes == () and prediction.declared_total == 2
    assert prediction.unfolding == ("H1-F", "V2-B", "ZZ") and any("ZZ" in n or "zz" in n for n in prediction.notes)
    assert parse({"id": "a", "resultHoles": None, "totalNumberofHoles": "two"}).prediction().declared_total is None


# ------------------------------------------------------------------------------------------------ plans

def test_plan_from_model_fields_and_from_a_mentalblackboard_record(planning_file):
    plan = parse({"id": "a", "folds": "h1-f , V2-F", "holes": [{"shape": "star", "size": "small", "direction": 0, "location": 9}]}).plan()
    assert plan.folds == ("H1-F", "V2-F") and plan.holes[0].hole() == Hole.make("star", "small", 0, 9)
    record = json.loads(planning_file.read_text())[0]
    plan = parse(record).plan()
    assert plan.folds == ("D1-F", "H1-F", "V1-F", "V2-F")
    assert [h.hole() for h in plan.holes] == [Hole.make("letter", "large", 90, 22)]


# ------------------------------------------------------------------------------------------------ files

def test_files_json_array_jsonl_object_and_raw_text(tmp_path):
    rows = [{"id": "a", **ANSWER}, {"id": "b", "response": ANSWER_TEXT}]
    (tmp_path / "array.json").write_text(json.dumps(rows))
    (tmp_path / "lines.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + '\n{"id": "c", "folds": [H1-F,],}\n{"id": "d", broken\n')
    (tmp_path / "one.json").write_text(json.dumps(rows[0]))
    (tmp_path / "PFHP_9.txt").write_text(f"Thinking...\n```json\n{ANSWER_TEXT}\n```")
    assert [a.id for a in load_answers(tmp_path / "array.json")] == ["a", "b"]
    lines = load_answers(tmp_path / "lines.jsonl")
    assert [(a.id, a.status) for a in lines] == [("a", "ok"), ("b", "ok"), ("c", "ok"), ("line 4", STATUS_UNPARSEABLE)]
    assert [a.id for a in load_answers(tmp_path / "one.json")] == ["a"]
    [raw] = load_answers(tmp_path / "PFHP_9.txt")
    assert (raw.id, raw.status, raw.prediction().declared_total) == ("PFHP_9", STATUS_OK, 1)


def test_files_with_small_json_damage_are_repaired(tmp_path):
    (tmp_path / "array.json").write_text('[\n {"id": "a", "folds": [H1-F]},\n {"id": "b", "folds": ["V2-F"]},\n]\n')
    assert [(a.id, a.plan().folds) for a in load_answers(tmp_path / "array.json")] == [("a", ("H1-F",)), ("b", ("V2-F",))]
    (tmp_path / "pretty.json").write_text('Answer:\n{\n  "folds": ["H1-F",],\n  "holes": []\n}\n')
    [answer] = load_answers(tmp_path / "pretty.json")
    assert (answer.id, answer.status, answer.plan().folds) == ("pretty", STATUS_OK, ("H1-F",))


def test_unreadable_file_is_one_input_error(tmp_path):
    from foldsim.errors import InputError

    with pytest.raises(InputError, match="cannot read"):
        load_answers(tmp_path / "missing.json")


# ------------------------------------------------------------------------------------------------ bounds and repairs

def test_single_quotes_and_bare_codes_repair_together():
    """Issue 12: the two repairs used to cancel (a code inside a single-quoted string was quoted
    again, then every ' became ", breaking the string)."""
    text = "{'note': 'fold H1-F first', 'folds': [H1-F, 'v2-f'], 'holes': [{'shape': 'star', 'size': 'small', 'direction': 90, 'location': 3},],}"
    answer = parse({"id": "a", "response": text})
    assert answer.status == STATUS_OK and answer.data["note"] == "fold H1-F first"
    assert answer.plan().folds == ("H1-F", "V2-F")


def test_repairs_leave_strings_alone_and_fix_python_words():
    data, _ = extract_answer_json('{"resultHoles": [], "note": "it\'s [V2-B,]", "totalNumberofHoles": None, "x": True,}')
    assert data == {"resultHoles": [], "note": "it's [V2-B,]", "totalNumberofHoles": None, "x": True}


def test_an_unclosed_fence_still_yields_its_answer():
    """A truncated answer: the fence is opened and never closed."""
    text = "Thinking.\n```json\n" + ANSWER_TEXT + "\n"
    assert extract_answer_json(text)[0] == ANSWER
    assert extract_answer_json(text + "```json\n{\"resultHoles\": [" * 500)[0] == ANSWER


@pytest.mark.parametrize("text, words", [
    ("x" * (MAX_ANSWER_CHARS + 1), ["2,000,001 characters"]),
    ('{"resultHoles": ' * 200, ["nested deeper than"]),
    ('{"resultHoles": [], "totalNumberofHoles": ' + "9" * 5000 + "}", ["more than 20 digits"]),
    ('{"resultHoles": [}' * 1200, ["more than 1000 candidate"]),
])
def test_caps_give_a_named_status(text, words):
    answer = parse({"id": "a", "response": text})
    assert answer.status == STATUS_TOO_LARGE and all(w in answer.reason for w in words), answer.reason


def test_deep_nesting_inside_a_valid_answer_is_refused_not_recursed():
    deep = '{"resultHoles": ' + "[" * 900 + "]" * 900 + "}"
    answer = parse({"id": "a", "response": deep})
    assert answer.status == STATUS_TOO_LARGE and answer.data is None
    holes = parse({"id": "a", "resultHoles": [{"shape": "star", "size": "small", "location": 3, "direction": [[[[90]]]]}]})
    assert "not an angle" in holes.prediction().holes[0].note


def test_numbers_beyond_any_grid_or_angle_are_notes():
    hole = parse_predicted_hole({"shape": "star", "size": "small", "location": "9" * 5000, "direction": "9" * 5000})
    assert hole.location is None and "not a grid id" in hole.note and "not an angle" in hole.note
    assert parse_predicted_location(1e300, []) is None


def test_a_broken_json_array_loses_only_its_broken_element(tmp_path):
    (tmp_path / "array.json").write_text('[{"id": "a", "folds": ["H1-F"]}, {"id": "b", "folds": [H1-F, oops}, {"id": "c", "holes": []}]')
    answers = load_answers(tmp_path / "array.json")
    assert [(a.id, a.status, a.unreadable) for a in answers] == [
        ("a", STATUS_OK, False), ("element 2", STATUS_UNPARSEABLE, True), ("c", STATUS_OK, False)]


def test_a_huge_raw_text_file_is_one_too_large_answer(tmp_path):
    (tmp_path / "big.txt").write_text("word " * (MAX_ANSWER_CHARS // 4))
    [answer] = load_answers(tmp_path / "big.txt")
    assert (answer.id, answer.status) == ("big", STATUS_TOO_LARGE)


def test_text_task_ignores_directions():
    """Issue 12: the text modality has no directions, so an unreadable one must not spoil a hole."""
    answer = parse({"id": "a", "resultHoles": [{"shape": "star", "size": "small", "location": 3, "direction": "north"}]})
    assert answer.prediction().holes[0].note and not answer.prediction(directions=False).holes[0].note


def test_completions_as_chat_messages():
    answer = answer_of_completion([{"role": "assistant", "content": [{"type": "text", "text": ANSWER_TEXT}]}], 4)
    assert (answer.id, answer.status) == ("item 4", STATUS_OK)
    assert answer_of_completion(None).status == STATUS_EMPTY and answer_of_completion([]).status == STATUS_EMPTY
