"""`--compat mentalblackboard` against the reference scorers' rules (issue 12 item 5, issue 8).

One regression test per behaviour where compat used to differ from the reference; every expected
number is worked by hand from the reference's rules (formats doc §2-§3) in the comments beside it.
Then the planning pipeline on the shared planning file: the reference runner's own rows and a
perfect batch output of each big provider score 359/400, as the reference pipeline does.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import fuzz_settings
from foldsim.codes import code_of_entry
from foldsim.eval.answers import parse_answer_record
from foldsim.eval.score_base import load_truth, truth_item
from foldsim.eval.compat import MODE_SCORING_DIR, MODE_TOP_LEVEL, score_compat
from foldsim.eval.compat.planning import CannotReplay, Skipped, planning_input, run_py_plan
from foldsim.eval.compat.text import RefCrash

H1 = [{"foldType": "horizontal_top_to_bottom", "foldToFront": True}]
GOOD_2 = {"totalNumberofHoles": 1, "unfoldingTypes": ["H2-F"], "resultHoles": [{"shape": "star", "size": "small", "direction": 0, "location": 4}]}


def hole(shape, size, direction, location):
    return {"shape": shape, "size": size, "direction": direction, "location": location}


def truth(item_id, holes, *, unfolding=("H2-F",)):
    return truth_item({"id": item_id, "numberofFoldingSteps": 1, "foldingTypes": H1, "unfoldingTypes": list(unfolding),
                       "resultHoles": holes, "totalNumberofHoles": len(holes)}, 0)


def answers(*records):
    return [parse_answer_record(r, i) for i, r in enumerate(records)]


def fenced(data, tag="json") -> str:
    return f"Unfolding step by step.\n```{tag}\n{json.dumps(data)}\n```"


def reply(item_id, data=None, *, text=None):
    return {"id": item_id, "response": text if text is not None else fenced(data)}


def by_id(report):
    return {i.id: i for i in report.items}


#: PFHP_1: a star at 4 = [0, 1, 1] (0*8 + 1*2 + 1 + 1) and a circle (no direction) at 13; PFHP_2: a star at 4
TRUTH = [truth("PFHP_1", [hole("star", "small", 90, 4), hole("circle", "large", "", 13)]), truth("PFHP_2", [hole("star", "small", 0, 4)])]
GOOD_1 = {"totalNumberofHoles": 2, "unfoldingTypes": ["H2-F"], "resultHoles": [hole("star", "small", 90, 4), hole("circle", "large", "", 13)]}


# ------------------------------------------------------------------------------------------------ finding the JSON

def test_1_json_fence_tag_in_any_case():
    a = answers(reply("PFHP_1", text=fenced(GOOD_1, "JSON")), reply("PFHP_2", text=fenced(GOOD_2, "Json")))
    for task in ("prediction", "backward", "text"):
        report = score_compat(task, TRUTH, a)
        assert report.counts["exact"] == 2, task  # both found, both exact
    assert score_compat("backward", TRUTH, a).metrics["exact_match"] == 1.0  # backward: N = 2 scored records


def test_2_final_plain_fence_after_a_json_draft():
    draft = {"totalNumberofHoles": 0, "unfoldingTypes": [], "resultHoles": []}
    text = fenced(draft) + "\nOn reflection, the final answer:\n```\n" + json.dumps(GOOD_1) + "\n```"
    a = answers(reply("PFHP_1", text=text))
    # candidates = json fences [draft] + plain fences ["json\n<draft>", <final>], tried last first: the final one
    for task, mode in (("prediction", MODE_TOP_LEVEL), ("prediction", MODE_SCORING_DIR), ("text", MODE_TOP_LEVEL)):
        assert by_id(score_compat(task, TRUTH, a, mode))["PFHP_1"].matched == 2, (task, mode)
    # backward and generalization take the last ```json fence only: the draft, P = 0
    assert by_id(score_compat("backward", TRUTH, a))["PFHP_1"].matched == 0


# ------------------------------------------------------------------------------------------------ prediction

def test_3_string_triple_location_is_unusable_in_the_top_level_scorer():
    data = {**GOOD_1, "resultHoles": [hole("star", "small", 90, ["0", "1", "1"]), hole("circle", "large", "", 13)]}
    report = score_compat("prediction", TRUTH, answers(reply("PFHP_1", data)))
    item = by_id(report)["PFHP_1"]
    # pos_to_index("0", "1", "1") raises, caught: location -1; only the circle matches
    assert (item.matched, item.exact, item.fields["location"], item.fields["shape"]) == (1, False, 1, 2)
    assert report.metrics["partial"] == 0.5  # M / (G + max(0, P - G)) = 1 / 2
    # the scoring/ scorer does not catch it: a crash, reported
    crashed = score_compat("prediction", TRUTH, answers(reply("PFHP_1", data)), MODE_SCORING_DIR)
    assert crashed.items == [] and crashed.crashes[0].startswith("PFHP_1: location ['0', '1', '1'] is not numeric")


@pytest.mark.parametrize("holes, listed", [("abc", 3), ({"x": 1, "y": 2}, 2)])
def test_4_result_holes_string_or_object_iterate_into_empty_holes(holes, listed):
    # PFHP_2 comes first and has a direction, so the direction check stops before the odd answer
    report = score_compat("prediction", TRUTH, answers(reply("PFHP_2", GOOD_2), reply("PFHP_1", {**GOOD_1, "resultHoles": holes})))
    item = by_id(report)["PFHP_1"]
    assert (item.field_truth, item.field_predicted, item.matched, report.crashes) == (2, listed, 0, [])
    # field_shape = (1 + 0) / ((1 + 0) + (2 + max(0, listed - 2))): 1/4 for "abc", 1/3 for two keys
    assert report.metrics["field_shape"] == pytest.approx(1 / (1 + 2 + max(0, listed - 2)))
    # partial uses the declared totals: (1 + 0) / ((1 + 2) + 0)
    assert report.metrics["partial"] == pytest.approx(1 / 3)


def test_5_string_hole_crashes_the_direction_check_unless_an_earlier_hole_had_a_direction():
    odd = {**GOOD_1, "resultHoles": ["star small 0,1,1", hole("circle", "large", "", 13)]}
    first = score_compat("prediction", TRUTH, answers(reply("PFHP_1", odd), reply("PFHP_2", GOOD_2)))
    assert len(first.crashes) == 1 and first.crashes[0].startswith("PFHP_1: the direction check calls .get on hole 0")
    # compat goes on: both items scored (the string hole is an empty hole there), PFHP_2 exact
    assert first.counts["scored"] == 2 and first.counts["exact"] == 1 and by_id(first)["PFHP_1"].matched == 1
    later = score_compat("prediction", TRUTH, answers(reply("PFHP_2", GOOD_2), reply("PFHP_1", odd)))
    assert later.crashes == [] and later.metrics["field_direction"] is not None


def test_6_null_unfolding_crashes_every_scorer_but_the_top_level_one():
    a = answers(reply("PFHP_1", {**GOOD_1, "unfoldingTypes": None}), reply("PFHP_2", GOOD_2))
    for task, mode in (("prediction", MODE_SCORING_DIR), ("backward", MODE_TOP_LEVEL), ("text", MODE_TOP_LEVEL)):
        report = score_compat(task, TRUTH, a, mode)
        assert report.crashes == ["PFHP_1: unfoldingTypes is None (TypeError)"], (task, mode)  # len(None)
        assert [i.id for i in report.items] == ["PFHP_2"]
    top = score_compat("prediction", TRUTH, a)
    # the top level normalises None to []: 0 of truth ["H2-F"] plus 1 of ["H2-F"] -> steps 1/2, exact 1/900
    assert top.crashes == [] and top.metrics["unfolding_steps"] == 0.5 and top.metrics["unfolding_exact"] == pytest.approx(1 / 900)


def test_both_prediction_scorers_are_offered():
    # the reference's own runner row (fields at the top, unfolding a joined string) and an int-0 direction
    row = {"id": "PFHP_2", "totalNumberofHoles": 1, "unfoldingTypes": "H2-F", "resultHoles": [hole("star", "small", 0, 4)]}
    top, scoring_dir = (score_compat("prediction", TRUTH, answers(row), mode) for mode in (MODE_TOP_LEVEL, MODE_SCORING_DIR))
    # top level: the row is the answer; the int 0 becomes "" on both sides (truth 0: a wildcard) -> exact
    assert top.counts["exact"] == 1 and top.metrics["unfolding_exact"] == pytest.approx(1 / 900)
    # scoring/: a row without model text is the empty answer: P = 0, no match
    assert scoring_dir.counts["exact"] == 0 and scoring_dir.counts["correct"] == 0
    assert (top.mode, scoring_dir.mode) == ("compat mentalblackboard", "compat mentalblackboard-scoring-dir")


def test_both_prediction_scorers_are_reachable_from_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from foldsim.cli import app

    row = {"id": "PFHP_2", "totalNumberofHoles": 1, "unfoldingTypes": "H2-F", "resultHoles": [hole("star", "small", 0, 4)]}
    (tmp_path / "truth.json").write_text(json.dumps([t.record for t in TRUTH]))
    (tmp_path / "answers.json").write_text(json.dumps([row]))
    exact = {}
    for mode in (MODE_TOP_LEVEL, MODE_SCORING_DIR):
        result = CliRunner().invoke(app, ["score", "prediction", str(tmp_path / "truth.json"), str(tmp_path / "answers.json"),
                                          "--compat", mode, "--json"])
        assert result.exit_code == 0, result.output
        exact[mode] = json.loads(result.stdout)["counts"]["exact"]
    assert exact == {MODE_TOP_LEVEL: 1, MODE_SCORING_DIR: 0}


# ------------------------------------------------------------------------------------------------ text modality

#: text truth: a large star at 20 = (2, 1, 1) (16 + 2 + 1 + 1), a small circle at 13 = (1, 2, 0) (8 + 4 + 0 + 1)
TEXT_TRUTH = [truth(f"PFHP_{n}", [hole("star", "large", 90, 20), hole("circle", "small", "", 13)]) for n in (1, 2, 3)]


def text_reply(item_id, holes, total=2):
    return reply(item_id, {"totalNumberofHoles": total, "unfoldingTypes": ["H2-F"], "resultHoles": holes})


@pytest.mark.parametrize("holes, listed", [("ab", 2), ({"x": 1, "y": 2, "z": 3}, 3)])
def test_7_text_result_holes_string_or_object_are_empty_holes_not_a_crash(holes, listed):
    report = score_compat("text", TEXT_TRUTH[:1], answers(text_reply("PFHP_1", holes)))
    item = by_id(report)["PFHP_1"]
    assert report.crashes == [] and (item.field_predicted, item.matched, item.exact) == (listed, 0, False)
    assert report.metrics["field_shape"] == 0.0 and report.metrics["partial"] == 0.0  # 0 / (2 + 0)


def test_8_text_holes_written_as_strings():
    a = answers(text_reply("PFHP_1", ["star large 2,1,1", "circle small 1 2 0"]),
                text_reply("PFHP_2", ["star large (2 1 1)", "circle small (1, 2, 0)"]),
                text_reply("PFHP_3", ["star large(2,1,1)", "circle small(1,2,0)"]))  # no space before "(": no match
    matched = {i.id: i.matched for i in score_compat("text", TEXT_TRUTH, a).items}
    assert matched == {"PFHP_1": 2, "PFHP_2": 2, "PFHP_3": 0}


def test_9_text_negative_row_is_read_with_its_sign():
    a = answers(text_reply("PFHP_1", [hole("star", "large", 0, "(2, 1, 1)"), hole("circle", "small", 0, "(-1, 2, 0)")]))
    item = score_compat("text", TEXT_TRUTH[:1], a).items[0]
    assert (item.matched, item.fields["location"]) == (1, 1)  # (-1, 2, 0) -> -8 + 4 + 0 + 1 = -3, not 13


def test_10_text_location_true_is_unusable():
    t = [truth("PFHP_1", [hole("circle", "small", "", 1)])]
    item = score_compat("text", t, answers(text_reply("PFHP_1", [hole("circle", "small", "", True)], total=1))).items[0]
    assert (item.matched, item.fields["location"]) == (0, 0)  # str(True) = "True" has no digits: -1


# ------------------------------------------------------------------------------------------------ generalization

#: generalization truth (the _mod variants): shape 5 = circle at 3 = [0, 1, 0] and star at 4 = [0, 1, 1]; size 6 = star at 8;
#: direction 7 = ellipse "0, 180" at 9; location 8 = star at 12
GEN_TRUTH = [truth("PFHP_5_shape_mod", [hole("circle", "large", "", 3), hole("star", "small", 90, 4)]),
             truth("PFHP_6_size_mod", [hole("star", "small", 0, 8)]), truth("PFHP_7_direction_mod", [hole("ellipse", "small", "0, 180", 9)]),
             truth("PFHP_8_location_mod", [hole("star", "large", 180, 12)])]


def gen(item_id, holes, **total):
    return reply(item_id, {**total, "resultHoles": holes})


def test_11_generalization_crashes_on_arrays_numbers_and_null_holes():
    a = answers(reply("PFHP_5_shape", text="```json\n[1, 2]\n```"), reply("PFHP_6_size", text="```json\n7\n```"),
                gen("PFHP_7_direction", None, totalNumberofHoles=1), gen("PFHP_8_location", [hole("star", "large", 180, 12)], totalNumberofHoles=1))
    report = score_compat("generalization", GEN_TRUTH, a)
    assert [c.split(":")[0] for c in report.crashes] == ["PFHP_5_shape_mod", "PFHP_6_size_mod", "PFHP_7_direction_mod"]
    assert report.counts["exact"] == 1 and report.metrics["exact_match"] == pytest.approx(1 / 240)


def test_12_a_bad_location_skips_only_that_hole():
    a = answers(gen("PFHP_5_shape", [hole("circle", "large", "", ["a", 0, 1]), hole("star", "small", 90, 4)], totalNumberofHoles=2))
    report = score_compat("generalization", GEN_TRUTH, a)
    item = report.items[0]
    assert report.crashes == [] and (item.field_predicted, item.matched, item.exact) == (1, 1, False)  # P = 2 = G, M = 1
    assert report.metrics["field_shape"] == pytest.approx(1 / 708)  # the star; denominator 708 + 0 extras
    assert report.metrics["field_direction"] == pytest.approx(2 / 708)  # the circle's wildcard credit + the star's 90


def test_13_without_a_declared_total_only_the_kept_holes_count():
    a = answers(gen("PFHP_5_shape", [hole("circle", "large", "", 3), hole("star", "small", 90, 4)]),
                gen("PFHP_6_size", [hole("star", "small", 0, 8), hole("star", "small", 0, "9")]))  # "9" is dropped
    report = score_compat("generalization", GEN_TRUTH, a)
    # PFHP_6: P = 1 kept hole = G, M = 1 -> exact; its extra/missing count uses the 2 listed holes: extra
    assert report.counts["exact"] == 2 and report.metrics["exact_match"] == pytest.approx(2 / 240)
    assert report.metrics["extra_rate"] == pytest.approx(1 / 240) and report.metrics["missing_rate"] == 0.0


def test_13b_without_a_declared_truth_total_the_rates_count_every_listed_truth_hole():
    """compare_json_files takes an absent totalNumberofHoles from the raw resultHoles lists for its
    extra/missing counts, where compare_result_holes (exact, fields) uses the kept holes: a truth
    hole whose location is neither an int nor a [row, col, tri] is dropped from the second only."""
    no_total = [truth_item({"id": "PFHP_9_shape_mod", "resultHoles": [hole("circle", "large", "", 3), hole("star", "small", 90, "4")]}, 0),
                truth_item({"id": "PFHP_10_size_mod", "resultHoles": [hole("star", "small", 0, 8), hole("star", "small", 0, 9.0)]}, 1)]
    a = answers(gen("PFHP_9_shape", [hole("circle", "large", "", 3)]),
                gen("PFHP_10_size", [hole("star", "small", 0, 8)], totalNumberofHoles=2))
    report = score_compat("generalization", no_total, a)
    # PFHP_9: kept G = 1 (the star at "4" is dropped), P = 1 kept, M = 1 -> exact; rates: raw G = 2 > raw P = 1 -> missing
    # PFHP_10: kept G = 1 (9.0 is no int), declared P = 2 != 1 -> not exact; rates: raw G = 2 = declared P -> neither
    assert report.crashes == [] and [i.exact for i in report.items] == [True, False]
    assert report.metrics["exact_match"] == pytest.approx(1 / 240)
    assert report.metrics["missing_rate"] == pytest.approx(1 / 240) and report.metrics["extra_rate"] == 0.0


def test_14_rct_locations_count_in_the_location_field_after_conversion():
    a = answers(gen("PFHP_5_shape", [hole("Circle", "LARGE ", "", [0, 1, 0]), hole("star", "small", 90, [0, 1, 1])], totalNumberofHoles=2))
    report = score_compat("generalization", GEN_TRUTH, a)
    assert report.counts["exact"] == 1  # shape and size lower-cased and stripped; [0,1,0] -> 3, [0,1,1] -> 4
    assert report.metrics["field_location"] == pytest.approx(2 / 708)  # "3" and "4" counted, not "[0, 1, 0]"


def test_15_every_group_is_printed_over_60_answered_or_not():
    report = score_compat("generalization", GEN_TRUTH, answers(gen("PFHP_6_size", [hole("star", "small", 0, 8)], totalNumberofHoles=1)))
    groups = report.groups["group"]
    assert list(groups) == ["direction", "size", "shape", "location", "other"]
    assert {g: (v["items"], v["exact_match"]) for g, v in groups.items()} == {
        "direction": (0, 0.0), "size": (1, pytest.approx(1 / 60)), "shape": (0, 0.0), "location": (0, 0.0), "other": (0, 0.0)}


# ------------------------------------------------------------------------------------------------ planning

@pytest.fixture(scope="module")
def planning(planning_file):
    """The shared planning records, their truth items, and the plan each record states with numeric
    directions, as the planning prompt asks (an ellipse's "90, 270" is 90, a circle's "" is 0)."""
    records = json.loads(planning_file.read_text())
    truth_items = load_truth(planning_file, "planning").items

    def numeric(direction):
        return {"": 0, "90, 270": 90, "0, 180": 0}.get(direction, direction)

    plans = [{"folds": [code_of_entry(e) for e in r["foldingTypes"]],
              "holes": [{**h, "direction": numeric(h["direction"])} for h in r["initialHoles"]]} for r in records]
    return records, truth_items, plans


def test_16_runner_rows_with_comma_joined_folds_score_359_of_400(planning):
    records, truth_items, plans = planning
    # the runner's rows: folds joined with commas, every other hole list stored as a JSON string, frame lists
    rows = [{"id": r["id"], "folds": ",".join(p["folds"]), "holes": json.dumps(p["holes"]) if i % 2 else p["holes"],
             "foldingFrames": [f"folding_frames/PF_{i}/frame_0000.png"]} for i, (r, p) in enumerate(zip(records, plans))]
    report = score_compat("planning", truth_items, answers(*rows))
    # every plan replays to its record; the 41 three-punch plans break the reference's 2-punch rule
    assert (report.counts["replayed"], report.counts["exact"], report.counts["invalid_initial_holes"]) == (400, 359, 41)
    assert report.metrics["exact_match"] == pytest.approx(359 / 400) and report.metrics["partial"] == 1.0 and report.crashes == []


def openai_line(item, text):
    return {"id": "batch_req_1", "custom_id": item, "error": None,
            "response": {"status_code": 200, "request_id": "req_1", "body": {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}}}


def anthropic_line(item, text):
    return {"custom_id": item, "result": {"type": "succeeded", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}}


def gemini_line(item, text):
    return {"key": item, "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}}


@pytest.mark.parametrize("line", [openai_line, anthropic_line, gemini_line])
def test_a_perfect_provider_batch_output_scores_359_of_400(planning, line):
    records, truth_items, plans = planning
    batch = [line(r["id"], "The plan:\n```json\n" + json.dumps(p) + "\n```") for r, p in zip(records, plans)]
    report = score_compat("planning", truth_items, answers(*batch))
    assert (report.counts["exact"], report.counts["invalid_initial_holes"], report.crashes) == (359, 41, [])


def test_17_replay_records_are_read_as_they_are(planning):
    records, _, _ = planning
    record = next(r for r in records if r["numberofFoldingSteps"] == 1 and len(r["initialHoles"]) == 1)
    t = [truth_item(record, 0)]

    def replay(**changes):
        return score_compat("planning", t, answers({**copy.deepcopy(record), **changes})).items[0]

    # a replay whose own foldingTypes would simulate something else: its resultHoles are read, not re-simulated
    other = [{"foldType": "vertical_left_to_right" if record["foldingTypes"][0]["foldType"] != "vertical_left_to_right"
              else "vertical_right_to_left", "foldToFront": True}]
    assert replay(foldingTypes=other).exact
    # a rotation-360 step the replay recorded: 2 steps where the truth has 1 -> exact forced to 0, partial still 1
    turned = replay(foldingTypes=record["foldingTypes"] + [{"foldType": "rotation-360", "foldToFront": True}], numberofFoldingSteps=2)
    assert (turned.exact, turned.partial, turned.reason) == (False, 1.0, "steps_mismatch")
    # "Large" as run.py stores a size it was given: the match folds case, the size field counts exact strings
    large = replay(resultHoles=[{**h, "size": h["size"].capitalize()} for h in record["resultHoles"]])
    assert large.exact and large.fields["size"] == 0 and large.fields["shape"] == len(record["resultHoles"])


# ------------------------------------------------------------------------------------------------ fuzz

_ATOMS = st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.floats(allow_nan=False, allow_infinity=False),
                   st.sampled_from(["", "star", "small", "Large", "90, 270", "(2, 1, 1)", "(-1, 2, 0)", "star large 2,1,1", "H2-F",
                                    "D1-F,H1-F", "R-360", "0, 90, 180, 270", "true"]))
_JSON = st.recursive(_ATOMS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(["shape", "size", "direction", "location", "resultHoles", "totalNumberofHoles", "unfoldingTypes", "folds", "holes"]),
    inner, max_size=5), max_leaves=12)
_HOLE = st.fixed_dictionaries({}, optional={"shape": st.sampled_from(["star", "circle"]) | _ATOMS, "size": st.sampled_from(["small", "large"]) | _ATOMS,
                                            "direction": st.sampled_from([0, 90, ""]) | _JSON, "location": st.sampled_from([4, 13, [0, 1, 1]]) | _JSON})
_ANSWER = st.fixed_dictionaries({}, optional={"resultHoles": st.lists(_HOLE | _JSON, max_size=3) | _JSON, "totalNumberofHoles": _JSON,
                                              "unfoldingTypes": _JSON, "folds": _JSON, "holes": st.lists(_HOLE, max_size=3) | _JSON})
_WRAP = st.sampled_from(["```json\n{}\n```", "```JSON {} ```", "```\n{}\n```", "draft ```json\n{{}}\n``` final ```\n{}\n```", "{}", "{} ```", "[{}]"])


@pytest.mark.fuzz
@fuzz_settings(0.05)
@given(st.lists(st.tuples(st.sampled_from(["PFHP_1", "PFHP_2", "PFHP_5_shape"]), _ANSWER, _WRAP, st.sampled_from(["text", "fields", "raw"])),
                min_size=1, max_size=3))
def test_fuzz_compat_never_raises(records):
    """Any answer through every compat scorer: a report (crashes listed in it), never an exception;
    planning up to the replay (parsing, the converter, run.py's checks)."""
    built = [{"id": i, "response": wrap.replace("{}", json.dumps(data), 1)} if kind == "text" else {"id": i, **data} if kind == "fields"
             else data for i, data, wrap, kind in records]
    a = answers(*built)
    truth_items = [*TRUTH, GEN_TRUTH[0]]
    for task, mode in (("prediction", MODE_TOP_LEVEL), ("prediction", MODE_SCORING_DIR), ("backward", MODE_TOP_LEVEL),
                       ("text", MODE_TOP_LEVEL), ("generalization", MODE_TOP_LEVEL)):
        report = score_compat(task, truth_items, a, mode)
        json.dumps(report.to_dict(details=True), default=str)
    for answer in a:
        try:
            kind, value = planning_input(answer.record)
            if kind == "row":
                run_py_plan(value)
        except (Skipped, CannotReplay, RefCrash):
            pass
