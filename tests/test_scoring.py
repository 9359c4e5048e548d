"""foldsim.eval.scoring (default metrics) and foldsim.eval.compat (the reference's numbers), on small
hand-computed cases, the published files, and two properties."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from foldsim import Config, simulate_one
from foldsim.eval.answers import parse_answer_record
from foldsim.cli import app
from foldsim.holes import SHAPE_PERIOD, SHAPES
from foldsim.errors import InputError
from foldsim.eval.score_base import FIELDS, TEXT_FIELDS, greedy_first_fit, maximum_matching_sizes, truth_item
from foldsim.eval.scoring import hole_counts, score_default, score_files
from foldsim.eval.compat import score_compat

H1 = [{"foldType": "horizontal_top_to_bottom", "foldToFront": True}]


def hole(shape, size, direction, location):
    return {"shape": shape, "size": size, "direction": direction, "location": location}


def truth(item_id, holes, *, unfolding=("H2-F",), total=None, folding=H1):
    record = {"id": item_id, "numberofFoldingSteps": len(folding), "foldingTypes": folding, "unfoldingTypes": list(unfolding),
              "resultHoles": holes, "totalNumberofHoles": len(holes) if total is None else total}
    return truth_item(record, 0)


def answers(*records):
    return [parse_answer_record(r, i) for i, r in enumerate(records)]


def fenced(data: dict) -> str:
    return "Let me unfold it step by step.\n```json\n" + json.dumps(data) + "\n```"


def by_id(report):
    return {i.id: i for i in report.items}


# ------------------------------------------------------------------------------------------------ matching

def test_maximum_matching_beats_greedy_first_fit():
    compatible = np.array([[[True, True], [True, False]]])  # truth 0 fits both, truth 1 only prediction 0
    assert (greedy_first_fit(compatible) >= 0).sum() == 1
    assert maximum_matching_sizes(compatible).tolist() == [2]
    chain = np.eye(5, dtype=bool)[None] | np.eye(5, k=1, dtype=bool)[None]  # greedy pairs the diagonal already
    assert maximum_matching_sizes(chain).tolist() == [5]
    shifted = np.eye(4, k=-1, dtype=bool)[None] | np.eye(4, dtype=bool)[None]
    shifted[0, 0, 0] = False  # truth 0 has no partner; a long augmenting path is needed for the rest
    assert maximum_matching_sizes(np.concatenate([shifted, chain[:, :4, :4]])).tolist() == [3, 4]


def test_greedy_direction_undercounts_only_in_compat():
    """Formats doc §3.3: truth directions ["", 90], predictions [90, 0]."""
    t = [truth("PFHP_1", [hole("circle", "small", "", 1), hole("triangle", "small", 90, 2)])]
    predicted = [hole("triangle", "small", 90, 9), hole("triangle", "small", 0, 10)]
    a = answers({"id": "PFHP_1", "response": fenced({"totalNumberofHoles": 2, "resultHoles": predicted, "unfoldingTypes": []})})
    assert score_compat("backward", t, a).metrics["field_direction"] == 0.5
    assert score_default("backward", t, a).metrics["field_direction"] == 1.0


def test_chunked_counts_equal_one_batch(truth_records):
    """Items are matched in memory-bounded chunks; the numbers must not depend on the chunking."""
    truth = [truth_item(r, 0).holes for r in truth_records[:40]]
    predicted = [answers({"id": "x", "resultHoles": r["resultHoles"][::-1] * (k % 3)})[0].prediction().holes
                 for k, r in enumerate(truth_records[40:80])]
    whole, chunked = hole_counts(truth, predicted, FIELDS), hole_counts(truth, predicted, FIELDS, max_cells=1)
    assert all(np.array_equal(whole[k], chunked[k]) for k in whole) and whole["exact"].any()


def test_compat_with_nothing_scored_reports_the_reference_crash():
    report = score_compat("backward", [truth("PFHP_1", [hole("circle", "small", "", 1)])], [])
    assert report.metrics["exact_match"] is None and any("ZeroDivisionError" in c for c in report.crashes)


# ------------------------------------------------------------------------------------------------ quirks vs correct

def test_declared_total_exploit_pays_only_in_compat():
    t = [truth("PFHP_1", [hole("star", "large", 90, 5), hole("star", "large", 270, 13)])]
    extra = {"id": "PFHP_1", "totalNumberofHoles": 2, "unfoldingTypes": ["H2-F"],
             "resultHoles": [hole("star", "large", 90, 5), hole("star", "large", 270, 13), hole("circle", "small", "", 30)]}
    compat, default = score_compat("prediction", t, answers(extra)), score_default("prediction", t, answers(extra))
    assert by_id(compat)["PFHP_1"].exact and compat.metrics["partial"] == 1.0
    assert compat.metrics["exact_match"] == pytest.approx(1 / 900)  # the hard-coded N
    assert not by_id(default)["PFHP_1"].exact
    assert default.metrics["partial"] == pytest.approx(2 / 3) and default.metrics["exact_match"] == 0.0
    assert default.metrics["extra_rate"] == 1.0 and default.counts["declared_total_inconsistent"] == 1


def test_int_zero_direction_bug_of_the_top_level_prediction_scorer():
    t = [truth("PFHP_1", [hole("ellipse", "small", "0, 180", 3)]), truth("PFHP_2", [hole("triangle", "large", 0, 4)])]
    a = answers({"id": "PFHP_1", "totalNumberofHoles": 1, "resultHoles": [hole("ellipse", "small", 0, 3)]},
                {"id": "PFHP_2", "totalNumberofHoles": 1, "resultHoles": [hole("triangle", "large", 180, 4)]})
    compat, default = by_id(score_compat("prediction", t, a)), by_id(score_default("prediction", t, a))
    assert (compat["PFHP_1"].matched, compat["PFHP_2"].matched) == (0, 1)  # int 0 read as no direction; truth 0 a wildcard
    assert (default["PFHP_1"].matched, default["PFHP_2"].matched) == (1, 0)
    backward = by_id(score_compat("backward", t, answers(*({"id": x.id, "response": fenced(x.record)} for x in a))))
    assert (backward["PFHP_1"].matched, backward["PFHP_2"].matched) == (1, 0)  # scoring/ has no such bug


def test_multi_direction_answers_match_only_in_compat():
    t = [truth("PFHP_1", [hole("triangle", "small", 90, 6), hole("ellipse", "large", "90, 270", 7)])]
    a = answers({"id": "PFHP_1", "response": fenced({"totalNumberofHoles": 2, "unfoldingTypes": ["H2-F"], "resultHoles": [
        hole("triangle", "small", "0, 90, 180, 270", 6), hole("ellipse", "large", [90, 270], 7)]})})
    assert score_compat("backward", t, a).items[0].matched == 2
    assert score_default("backward", t, a).items[0].matched == 1  # the ellipse's 90 and 270 are one class


def test_answer_extraction_quirks():
    t = [truth(f"PFHP_{n}", [hole("star", "small", 90, 5), hole("star", "small", 270, 13)], unfolding=("H2-B",)) for n in (1, 2, 3)]
    holes = json.dumps([hole("star", "small", 90, 5), hole("star", "small", 270, 13)])
    bare_b = f'```json\n{{"totalNumberofHoles": 2, "unfoldingTypes": [H2-B], "resultHoles": {holes}}}\n```'
    quoted_comma = f'```json\n{{"totalNumberofHoles": 2, "unfoldingTypes": ["H2-B"], "resultHoles": {holes},}}\n```'
    prose = f'The crease {{top half}} folds down. {{"totalNumberofHoles": 2, "unfoldingTypes": ["H2-B"], "resultHoles": {holes}}}'
    a = answers(*({"id": f"PFHP_{n}", "response": text} for n, text in ((1, bare_b), (2, quoted_comma), (3, prose))))
    matched = {mode: {i.id: i.matched for i in report.items} for mode, report in (
        ("top", score_compat("prediction", t, a)), ("backward", score_compat("backward", t, a)), ("default", score_default("backward", t, a)))}
    assert matched["top"] == {"PFHP_1": 0, "PFHP_2": 2, "PFHP_3": 0}  # bare -B not repaired; greedy {...} spans the prose
    assert matched["backward"] == {"PFHP_1": 2, "PFHP_2": 0, "PFHP_3": 0}  # re-quoting breaks "H2-B"
    assert matched["default"] == {"PFHP_1": 2, "PFHP_2": 2, "PFHP_3": 2}


def test_unfolding_accuracy_default_penalises_extras_compat_does_not_normalise_case():
    t = [truth("PFHP_1", [hole("circle", "small", "", 1)], unfolding=("H2-F", "V1-F"))]
    a = answers({"id": "PFHP_1", "response": fenced({"totalNumberofHoles": 1, "resultHoles": [hole("circle", "small", "", 1)],
                                                     "unfoldingTypes": ["h2-f", "V1-F", "D1-F"]})})
    default, compat = score_default("prediction", t, a).metrics, score_compat("prediction", t, a).metrics
    assert (default["unfolding_exact"], default["unfolding_steps"]) == (0.0, pytest.approx(2 / 3))
    assert compat["unfolding_steps"] == 0.5 and compat["exact_match"] == pytest.approx(1 / 900)


def test_compat_crash_is_reported_and_the_rest_goes_on():
    t = [truth("PFHP_1", [hole("circle", "small", "", 1)]), truth("PFHP_2", [hole("circle", "small", "", 1)])]
    good = {"totalNumberofHoles": 1, "resultHoles": [hole("circle", "small", "", 1)], "unfoldingTypes": ["H2-F"]}
    a = answers({"id": "PFHP_1", "response": fenced({**good, "totalNumberofHoles": "1"})}, {"id": "PFHP_2", "response": fenced(good)})
    report = score_compat("prediction", t, a)
    assert len(report.crashes) == 1 and report.crashes[0].startswith("PFHP_1: totalNumberofHoles '1'")
    assert [i.id for i in report.items] == ["PFHP_2"] and report.items[0].exact
    assert score_default("prediction", t, a).counts["exact"] == 2


def test_missing_answers_count_in_default_but_are_skipped_in_compat():
    t = [truth("PFHP_1", [hole("circle", "small", "", 1)]), truth("PFHP_2", [hole("star", "large", 0, 2)])]
    a = answers({"id": "PFHP_1", "totalNumberofHoles": 1, "resultHoles": [hole("Circle ", "small", None, [0, 0, 0])], "unfoldingTypes": "H2-F"})
    default = score_default("prediction", t, a)
    assert default.metrics["exact_match"] == 0.5 and default.metrics["partial"] == 0.5 and default.counts["answers_missing"] == 1
    backward = score_compat("backward", t, answers({"id": "PFHP_1", "response": fenced(a[0].data)}))
    assert backward.counts["N"] == 1 and backward.metrics["partial"] == 0.0  # "Circle " is not "circle" there


def test_text_modality_ignores_direction():
    t = [truth("PFHP_1", [hole("star", "small", 90, 20)])]
    a = answers({"id": "PFHP_1", "response": fenced({"totalNumberofHoles": 1, "unfoldingTypes": ["H2-F"],
                                                     "resultHoles": [{"shape": "star", "size": "small", "direction": 0, "location": "(2,1,1)"}]})})
    default, compat = score_default("text", t, a), score_compat("text", t, a)
    assert default.metrics["exact_match"] == 1.0 and "field_direction" not in default.metrics
    assert compat.items[0].exact and compat.metrics["exact_match"] == pytest.approx(1 / 315)


def test_generalization_compat_quirks():
    t = [truth("PFHP_5_shape_mod", [hole("circle", "large", "", 3), hole("star", "small", 90, 4)]),
         truth("PFHP_6_size_mod", [hole("star", "small", 0, 8)])]
    a = answers({"id": "PFHP_5_shape", "response": "```json\n{\"totalNumberofHoles\": 2, \"resultHoles\": []}\n```"},
                {"id": "PFHP_6_size", "response": fenced({"totalNumberofHoles": 1, "resultHoles": [
                    {"shape": "Star ", "size": "SMALL", "direction": 0, "location": "8"}]})},
                {"id": "PFHP_6_size", "response": fenced({"totalNumberofHoles": 1, "resultHoles": [hole("Star", "small", 0, 8)]})})
    report = score_compat("generalization", t, a)
    # the circle earns direction credit with no prediction; the string location "8" is dropped
    assert report.metrics["field_direction"] == pytest.approx(2 / 708)
    assert report.counts["scored"] == 3 and report.counts["exact"] == 1  # duplicates scored twice, exact kept once
    assert report.groups["group"]["size"]["exact_match"] == pytest.approx(1 / 60) and "other" in report.groups["group"]
    default = score_default("generalization", t, a)  # original ids map to the _mod truth; the last duplicate wins
    assert default.counts["exact"] == 1 and default.metrics["field_direction"] == pytest.approx(1 / 3)


# ------------------------------------------------------------------------------------------------ planning

def test_planning_rules_in_both_modes(planning_file):
    record = next(r for r in json.loads(planning_file.read_text())
                  if r["numberofFoldingSteps"] == 1 and [type(h["direction"]) for h in r["initialHoles"]] == [int])
    t = [truth_item(record, 0)]
    [gt_code] = parse_answer_record(record, 0).plan().folds

    def run(folds, holes):
        a = answers({"id": record["id"], "folds": folds, "holes": holes})
        return score_default("planning", t, a).items[0], score_compat("planning", t, a).items[0]

    as_record = answers(record)  # a MentalBlackboard record is accepted as its own plan
    assert score_default("planning", t, as_record).items[0].exact and score_compat("planning", t, as_record).items[0].exact
    default, compat = run([gt_code], record["initialHoles"])
    assert default.exact and compat.exact
    default, compat = run([gt_code, "R-360"], record["initialHoles"])  # a full turn: one more step for the reference
    assert (default.status, default.matched) == ("unknown_code", 0)
    assert (compat.exact, compat.partial) == (False, 1.0)
    default, compat = run([gt_code.lower()], record["initialHoles"])  # the reference replay wants exact upper-case codes
    assert default.exact and (compat.status, compat.matched) == ("missing", 0)
    empty = next(g for g in range(1, 33) if g not in simulate_one(Config.from_codes([gt_code])).layers)
    default, compat = run([gt_code], record["initialHoles"] + [{**record["initialHoles"][0], "location": empty}])
    assert default.status == "off_paper" and compat.exact  # run.py just punches nothing there
    ellipse = [{**record["initialHoles"][0], "shape": "ellipse", "direction": "90, 270"}]  # math.radians("90, 270") fails
    default, compat = run([gt_code], ellipse)
    assert default.reason.startswith("holes_differ") and default.matched == 0 and compat.status == "missing"


@pytest.fixture(scope="module")
def planning_reports(planning_file):
    return (score_files("planning", planning_file, planning_file),
            score_files("planning", planning_file, planning_file, compat="mentalblackboard"))


def test_planning_ceiling_359_of_400(planning_reports):
    default, compat = planning_reports
    assert compat.counts["exact"] == 359 and compat.metrics["exact_match"] == pytest.approx(0.8975)
    assert compat.counts["invalid_initial_holes"] == 41 and compat.metrics["partial"] == 1.0
    assert {g: v["exact_match"] for g, v in compat.groups["group"].items()} == {"1": 0.66, "2": 0.93, "3": 1.0, "4": 1.0}
    assert default.counts["exact"] == 359 and default.metrics["partial"] == 1.0 and default.counts["valid_plans"] == 359


def test_generalization_ceiling_231_of_240(generalization_file):
    records = [r for r in json.loads(generalization_file.read_text()) if r["id"].endswith("_mod")]
    perfect = [{"id": r["id"][:-4], "response": fenced({"totalNumberofHoles": len(r["resultHoles"]), "resultHoles": r["resultHoles"]})}
               for r in records]
    t = [truth_item(r, i) for i, r in enumerate(records)]
    compat, default = score_compat("generalization", t, answers(*perfect)), score_default("generalization", t, answers(*perfect))
    assert compat.counts["exact"] == 231 and compat.groups["group"]["shape"]["exact_match"] == pytest.approx(51 / 60)
    assert default.counts["exact"] == 240


# ------------------------------------------------------------------------------------------------ properties

@pytest.fixture(scope="module")
def truth_records(generalization_file):
    return json.loads(generalization_file.read_text())


def _respell(h: dict, draw) -> dict:
    """The same hole written differently: case, whitespace, location and direction forms."""
    shape = draw(st.sampled_from([h["shape"], h["shape"].upper(), f" {h['shape'].title()} "]))
    size = draw(st.sampled_from([h["size"], h["size"].upper() + " "]))
    r, rest = divmod(h["location"] - 1, 8)
    location = draw(st.sampled_from([h["location"], str(h["location"]), [r, rest // 2, rest % 2], f"({r}, {rest // 2}, {rest % 2})"]))
    degrees = [int(n) for n in re.findall(r"\d+", str(h["direction"]))]
    direction = h["direction"] if not degrees else draw(st.sampled_from([degrees[0], str(degrees[0]), degrees[0] + 360, degrees[0] - 360, degrees]))
    return {"shape": shape, "size": size, "location": location, "direction": direction}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_a_perfect_answer_scores_one_everywhere(truth_records, data):
    record = data.draw(st.sampled_from(truth_records))
    holes = data.draw(st.permutations([_respell(h, data.draw) for h in record["resultHoles"]]))
    answer = {"id": record["id"], "resultHoles": holes, "unfoldingTypes": [c.lower() for c in record["unfoldingTypes"]]}
    report = score_default("prediction", [truth_item(record, 0)], answers(answer))
    assert all(v == 1.0 for k, v in report.metrics.items() if k not in ("extra_rate", "missing_rate")), report.metrics
    assert report.metrics["extra_rate"] == report.metrics["missing_rate"] == 0.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_adding_a_wrong_hole_never_raises_a_score(truth_records, data):
    """A hole wrong in every field (no truth shape, size, location or direction class; circles are
    excluded because every direction is right for them) can only lower the scores."""
    candidates = [r for r in truth_records if all(SHAPE_PERIOD[h["shape"]] > 1 for h in r["resultHoles"])]
    record = data.draw(st.sampled_from(candidates))
    kept = data.draw(st.lists(st.sampled_from(record["resultHoles"]), max_size=len(record["resultHoles"]) + 1))
    noise = data.draw(st.lists(st.fixed_dictionaries({"shape": st.sampled_from(SHAPES), "size": st.sampled_from(["small", "large"]),
                                                      "direction": st.sampled_from([0, 90, 180, 270, "0, 180"]),
                                                      "location": st.integers(1, 32)}), max_size=2))
    used = {h["location"] for h in record["resultHoles"]}
    wrong = {"shape": data.draw(st.sampled_from(["blob", *sorted(set(SHAPES) - {h["shape"] for h in record["resultHoles"]})])),
             "size": data.draw(st.sampled_from(["medium", None])),
             "location": data.draw(st.sampled_from([40, "north", *sorted(set(range(1, 33)) - used)])),
             "direction": data.draw(st.sampled_from([45, "north", None, [0, 90]]))}
    t = [truth_item(record, 0)]
    before = score_default("prediction", t, answers({"id": record["id"], "resultHoles": kept + noise})).metrics
    position = data.draw(st.integers(0, len(kept) + len(noise)))
    after = score_default("prediction", t, answers({"id": record["id"], "resultHoles": (kept + noise)[:position] + [wrong] + (kept + noise)[position:]})).metrics
    for name in ("exact_match", "partial", *(f"field_{f}" for f in FIELDS)):
        assert after[name] <= before[name], name
    assert after["extra_rate"] >= before["extra_rate"] and after["missing_rate"] == before["missing_rate"]


# ------------------------------------------------------------------------------------------------ command line

def test_score_command(tmp_path, generalization_file):
    runner = CliRunner()
    records = json.loads(generalization_file.read_text())[:4]
    (tmp_path / "answers.jsonl").write_text("\n".join(json.dumps({"custom_id": r["id"], "response": fenced(r)}) for r in records))
    result = runner.invoke(app, ["score", "prediction", str(generalization_file), str(tmp_path / "answers.jsonl"), "--json", "--details"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["counts"]["exact"] == 4 and len(data["items"]) == 480 and data["mode"] == "default"
    table = runner.invoke(app, ["score", "prediction", str(generalization_file), str(tmp_path / "answers.jsonl"), "--compat", "mentalblackboard"])
    assert table.exit_code == 0 and "exact_match" in table.output and "0.44 %" in table.output  # 4 / 900
    (tmp_path / "bad.json").write_text("[1, 2")
    for args in (["prediction", str(tmp_path / "bad.json")], ["prediction", str(tmp_path / "none.json")], ["nosuchtask", str(generalization_file)]):
        bad = runner.invoke(app, ["score", *args, str(tmp_path / "answers.jsonl")])
        assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1 and bad.output.startswith("error: ")


# ------------------------------------------------------------------------------------------------ never flatter

def test_a_missing_or_unreadable_answer_is_never_exact():
    """Issue 12: a truth with no holes used to score exact with no answer at all."""
    t = [truth("PFHP_1", [], unfolding=()), truth("PFHP_2", [], unfolding=()), truth("PFHP_3", [], unfolding=())]
    report = score_default("prediction", t, answers({"id": "PFHP_2", "response": "no idea"},
                                                     {"id": "PFHP_3", "resultHoles": [], "unfoldingTypes": []}))
    items = by_id(report)
    assert [items[i].exact for i in ("PFHP_1", "PFHP_2", "PFHP_3")] == [False, False, True]
    assert items["PFHP_1"].partial == 0.0 and items["PFHP_3"].partial == 1.0
    assert report.metrics["exact_match"] == pytest.approx(1 / 3) and not items["PFHP_1"].unfolding_exact


def test_the_text_task_ignores_directions_even_unreadable_ones():
    t = [truth("PFHP_1", [hole("star", "small", 90, 3)])]
    a = answers({"id": "PFHP_1", "resultHoles": [{"shape": "star", "size": "small", "location": 3, "direction": "north"}],
                 "unfoldingTypes": ["H2-F"]})
    assert score_default("text", t, a).items[0].exact
    assert not score_default("prediction", t, a).items[0].exact


def test_invalid_truth_records_count_as_failures_and_are_reported(tmp_path, generalization_file):
    records = json.loads(generalization_file.read_text())[:3]
    broken = [records[0], {**records[1], "resultHoles": [{"shape": "oval", "size": "small", "direction": 0, "location": 3}]},
              {**records[2], "foldingTypes": "H1-F"}]
    (tmp_path / "truth.json").write_text(json.dumps(broken))
    (tmp_path / "answers.jsonl").write_text("\n".join(json.dumps({"id": r["id"], "response": fenced(r)}) for r in records)
                                            + "\n{broken line\n")
    result = CliRunner().invoke(app, ["score", "prediction", str(tmp_path / "truth.json"), str(tmp_path / "answers.jsonl"), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["counts"]["items"] == 3 and data["counts"]["exact"] == 1 and data["counts"]["invalid_truth"] == 2
    assert data["metrics"]["exact_match"] == pytest.approx(1 / 3)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("error: ") for line in lines)
    assert f"truth.json: {records[1]['id']}: resultHoles" in lines[0] and f"{records[2]['id']}: foldingTypes" in lines[1]
    assert "answers.jsonl: line 4" in lines[2]
    clean = CliRunner().invoke(app, ["score", "prediction", str(generalization_file), str(tmp_path / "answers.jsonl"), "--json"])
    assert clean.exit_code == 1 and len(clean.stderr.strip().splitlines()) == 1  # the unreadable answer line
    (tmp_path / "ok.jsonl").write_text("\n".join(json.dumps({"id": r["id"], "response": "wrong"}) for r in records))
    wrong = CliRunner().invoke(app, ["score", "prediction", str(generalization_file), str(tmp_path / "ok.jsonl"), "--json"])
    assert wrong.exit_code == 0 and wrong.stderr == ""  # wrong answers are results, not errors


def test_batched_completions_score_like_files(planning_file):
    """score_completions (positional, no files; planning on verify's fast path) gives the same
    items as score_default over the tolerantly read answers, for perfect, fenced, damaged, empty
    and unparseable plans."""
    from dataclasses import replace

    from foldsim.codes import code_of_entry
    from foldsim.eval.answers import answer_of_completion
    from foldsim.eval.scoring import score_completions

    records = json.loads(planning_file.read_text())
    t = [truth_item(r, i) for i, r in enumerate(records)]
    completions = []
    for k, r in enumerate(records):
        plan = {"folds": [code_of_entry(e) for e in r["foldingTypes"]], "holes": r["initialHoles"]}
        completions.append([json.dumps(plan), fenced(plan), json.dumps({**plan, "folds": plan["folds"][::-1]}),
                            "{'folds': [" + ", ".join(plan["folds"]) + "], 'holes': " + json.dumps(plan["holes"]) + "}",
                            None, "no plan"][k % 6])
    batched = score_completions("planning", t, completions)
    single = score_default("planning", t, [replace(answer_of_completion(c, i), id=r["id"])
                                           for i, (r, c) in enumerate(zip(records, completions))])
    assert [i.to_dict() for i in batched.items] == [i.to_dict() for i in single.items]
    assert batched.metrics == single.metrics and batched.counts["exact"] > 100
    prediction = score_completions("prediction", t[:3], [fenced(r) for r in records[:3]])
    assert prediction.counts["exact"] == 3


def test_column_metrics_equal_the_item_formulas(generalization_file):
    """The report's metrics, counts and groups come from columns; they must equal `aggregate`,
    `default_counts` and `group_breakdown` over the ItemScores themselves."""
    from foldsim.eval.score_base import aggregate, group_breakdown
    from foldsim.eval.scoring import default_counts, group_summary

    records = json.loads(generalization_file.read_text())[:60]
    t = [truth_item(r, i) for i, r in enumerate(records)]
    mixed = [{"id": r["id"], "response": fenced({**r, "resultHoles": r["resultHoles"][: k % 3]})} for k, r in enumerate(records[::2])]
    for task in ("prediction", "text", "planning"):
        report = score_default(task, t, answers(*mixed), invalid=[InputError("bad", item="PFHP_x", field="resultHoles")])
        items = list(report.items)
        fields = TEXT_FIELDS if task == "text" else FIELDS
        expected = aggregate(items, fields, unfolding=task != "planning")
        assert {k: report.metrics[k] for k in expected} == expected
        assert report.groups == group_breakdown(items, lambda m: group_summary(m, unfolding=task != "planning"))
        counts = default_counts(items, 0, report.counts["declared_total_inconsistent"])
        assert {k: report.counts[k] for k in counts} == counts and items[-1].status == "invalid_truth"
