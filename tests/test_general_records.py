"""One guard for every general record (issue 28 items 3, 5, 7, 8, 9, 11): every number through the
one exact-number reader (bounded by the int32 lattice, refused before arithmetic), every field its
type, every size its bound; a bad item is that item's `invalid` status with a one-line reason
naming its position and field, and the good items beside it are answered (Python API and CLI)."""

from __future__ import annotations

import copy
import json

import pytest

from cli_invoke import invoke
from foldsim.cli.common import EXIT_ITEMS, EXIT_USAGE
from foldsim.errors import InputError
from foldsim.families.audit import DIFFERS, INVALID, OK, audit_records
from foldsim.limits import MAX_ACTIONS, MAX_COORDINATE, MAX_DENOMINATOR, MAX_PUNCHES
from foldsim.reference_general import reference_simulate
from foldsim.sheets import as_fraction, item_from_record
from foldsim.simulate import STATUS_INVALID, STATUS_NOT_REALIZABLE, STATUS_OK, simulate

GOOD = {"id": "good", "sheet": {"cols": 2, "rows": 2},
        "actions": [{"type": "fold", "line": {"family": "V", "at": 1}, "moves": "left"}],
        "punches": [{"x": "3/2", "y": "1/2"}]}


def with_fold(**fold) -> dict:
    """GOOD with its one fold changed (keys of the action; `line` replaces the line)."""
    record = copy.deepcopy(GOOD)
    record["id"] = None
    record["actions"][0].update(fold)
    return record


def with_line(**line) -> dict:
    return with_fold(line={"family": "V", **line})


def reasons(records: list) -> list[str]:
    """simulate([GOOD, *records, GOOD]): the good ones answered, one reason per bad one."""
    results = simulate([GOOD, *records, GOOD])
    assert [r.status for r in (results[0], results[-1])] == [STATUS_OK, STATUS_OK]
    assert results[0].holes == results[-1].holes and results[0].holes
    for result in results[1:-1]:
        assert result.status == STATUS_INVALID, result
        assert "\n" not in result.reason and "internal error" not in result.reason, result.reason
    return [r.reason for r in results[1:-1]]


# -- numbers --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("record", "field", "says"), [
    (with_line(at="1e12"), "actions[0].line.at", "beyond the engine's reach"),
    (with_line(at=10 ** 400), "actions[0].line.at", "beyond the engine's reach"),
    (with_line(at=1e12), "actions[0].line.at", "beyond the engine's reach"),
    (with_line(at="1e99999999"), "actions[0].line.at", "exponent past"),
    (with_line(at="1e9999999"), "actions[0].line.at", "exponent past"),
    (with_line(at="nan"), "actions[0].line.at", "must be a number"),
    (with_line(at=float("inf")), "actions[0].line.at", "finite"),
    (with_line(at=True), "actions[0].line.at", "must be a number"),
    (with_line(at=[1]), "actions[0].line.at", "must be a number"),
    (with_line(box="1/99999999999"), "actions[0].line.box", "finer than the engine's lattice"),
    (with_fold(moves="away_from", point=[3e9, 0]), "actions[0].point.x", "beyond the engine's reach"),
    (with_fold(moves="away_from", point=["1e99999999", 0]), "actions[0].point.x", "exponent past"),
    ({**GOOD, "id": None, "punches": [{"x": "1e99999999", "y": 0}]}, "punches[0].x", "exponent past"),
    ({**GOOD, "id": None, "punches": [{"x": "1/8192", "y": 0}]}, "punches[0].x", "finer than the engine's lattice"),
    ({**GOOD, "id": None, "resolution": 1, "actions": [{"type": "fold", "line": {"family": "V", "at": "1/4"}}]},
     "resolution", "multiple of 4"),
])
def test_numbers_past_the_lattice_are_that_items_invalid_status(record, field, says):
    [reason] = reasons([record])
    assert reason.startswith(f"item 1: {field}: ") and says in reason, reason


def test_the_reader_refuses_before_expanding_and_keeps_exact_values():
    # refused by the exponent's size, read from the text: Fraction("1e99999999") would run for minutes
    with pytest.raises(InputError, match="exponent past"):
        as_fraction("1e99999999", "x")
    with pytest.raises(InputError, match="beyond the engine's reach"):
        as_fraction(10 ** 5000, "x")  # more digits than str() prints: compared, never printed in full
    assert as_fraction("-3/4", "x") == as_fraction("-0.75", "x") == as_fraction(-0.75, "x") == as_fraction("-75e-2", "x")
    assert as_fraction(MAX_COORDINATE, "x") == MAX_COORDINATE and as_fraction(f"1/{MAX_DENOMINATOR}", "x")
    with pytest.raises(InputError, match="zero denominator"):
        as_fraction("1/0", "x")


# -- types ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("record", "field", "says"), [
    (with_fold(moves=[]), "actions[0].moves", "must be one of right, left, smaller, away_from"),
    (with_fold(moves="smaller", tie={}), "actions[0].tie", "must be one of right, left"),
    (with_fold(front="false"), "actions[0].front", "true or false"),
    (with_line(box="1/2", square="false"), "actions[0].line.square", "true or false"),
    (with_line(box="1/2", square="no"), "actions[0].line.square", "true or false"),
    (with_line(box="1/2", square=[]), "actions[0].line.square", "true or false"),
    (with_line(at=1, box="1/2"), "actions[0].line", "not both"),
    (with_line(at=1, square=True), "actions[0].line.square", "only applies to a box line"),
    (with_fold(moves="away_from", point=5), "actions[0].point", "must be a point"),
    (with_fold(moves="away_from", point=[1]), "actions[0].point", "must be a point"),
    (with_fold(moves="away_from", point="garbage"), "actions[0].point", "must be a point"),
    (with_fold(point=["1", "1"]), "actions[0].point", "only applies when moves is away_from"),
    ({**GOOD, "id": None, "punches": [{"x": 1, "y": 1, "shape": "blob"}]}, "punches[0].shape",
     "must be one of circle, square,"),
    ({**GOOD, "id": None, "punches": [{"x": 1, "y": 1, "size": "huge"}]}, "punches[0].size", "must be one of small, large"),
    ({**GOOD, "id": None, "punches": [{"x": 1, "y": 1, "shape": ["circle"]}]}, "punches[0].shape", "must be one of"),
    # the field path is the record's own nesting, not the action's prefix twice
    ({**GOOD, "id": None, "actions": [{"type": "rotate", "degrees": "x"}]}, "actions[0].degrees", "multiple of 90"),
    ({**GOOD, "id": None, "actions": [{"type": "rotate"}]}, "actions[0].degrees", "is missing"),
    ({**GOOD, "id": None, "actions": [{"type": "rotate", "degrees": 360}]}, "actions[0].degrees", "turn"),
])
def test_every_field_its_type(record, field, says):
    [reason] = reasons([record])
    assert reason.startswith(f"item 1: {field}: ") and says in reason, reason


def test_every_size_its_bound():
    punches = {**GOOD, "id": None, "punches": [{"x": "1/2", "y": "1/2"}] * (MAX_PUNCHES + 1)}
    actions = {**GOOD, "id": None, "actions": [{"type": "flip"}] * (MAX_ACTIONS + 1)}
    first, second = reasons([punches, actions])
    assert first.startswith("item 1: punches: ") and f"at most {MAX_PUNCHES}" in first
    assert second.startswith("item 2: actions: ") and f"at most {MAX_ACTIONS}" in second


def test_a_sheet_item_built_in_python_is_held_to_the_same_bounds():
    from foldsim.sheets import Punch, SheetItem, SheetSpec

    crowded = SheetItem(SheetSpec(2, 2), (), (Punch(1, 1),) * (MAX_PUNCHES + 1), id="crowded")
    good, bad = simulate([item_from_record(GOOD), crowded])
    assert good.status == STATUS_OK
    assert bad.status == STATUS_INVALID and bad.reason.startswith("crowded: punches: has 257 entries"), bad.reason


def test_a_valid_point_with_away_from_is_kept_exact():
    item = item_from_record(with_fold(moves="away_from", point=["0.5", "3/2"]))
    assert item.actions[0].point == (as_fraction("1/2", "x"), as_fraction("3/2", "y"))


# -- statuses -------------------------------------------------------------------------------------


def test_a_square_box_diagonal_on_a_box_that_is_not_square_is_not_realizable_before_remeshing():
    record = {"id": "strip", "sheet": {"cols": 2, "rows": 1},
              "actions": [{"type": "fold", "line": {"family": "D", "box": "1/2", "square": True}}], "punches": []}
    [result] = simulate([record])
    assert result.status == STATUS_NOT_REALIZABLE and "45 degrees" in result.reason, result
    assert result.failed_step == 1
    assert reference_simulate(item_from_record(record)).status == STATUS_NOT_REALIZABLE
    # a square box still folds along its diagonal
    square = {**record, "sheet": {"cols": 2, "rows": 2}, "punches": [{"x": "3/2", "y": "1/2"}]}
    [folded] = simulate([square])
    assert folded.status == STATUS_OK and folded.holes == reference_simulate(item_from_record(square)).holes


def test_the_trace_path_says_not_realizable_for_a_box_that_is_not_square_too(tmp_path):
    """render-item and fold trace the item step by step (foldsim.engine.trace_item): the same square-box
    rule, not a re-mesh until the triangle bound (was: 'needs 131,072 triangles')."""
    from foldsim import kernels as K
    from foldsim.engine import trace_item

    record = {"id": "strip", "sheet": {"cols": 2, "rows": 1},
              "actions": [{"type": "fold", "line": {"family": "D", "box": "1/2", "square": True}}], "punches": []}
    trace = trace_item(record)
    assert trace.status[0] == K.OBLIQUE_CREASE and trace.resolution < 8, trace.status
    path = tmp_path / "items.json"
    path.write_text(json.dumps([record]))
    done = invoke("fold", str(path), "--out", str(tmp_path / "fold"))
    assert done.exit_code == EXIT_ITEMS and "not_realizable" in done.stderr and "triangles" not in done.stderr, done.stderr


def test_positions_are_places_in_the_batch_and_lines_of_a_jsonl_file(tmp_path):
    results = simulate([GOOD, GOOD, "x"])
    assert results[2].reason == "item 2: a record must be an object, got a string"
    bad = with_fold(moves=[])
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join([json.dumps(GOOD), "", json.dumps(GOOD), json.dumps(bad), json.dumps(bad), ""]))
    done = invoke("simulate", path)
    assert done.exit_code == EXIT_ITEMS
    answers = json.loads(done.stdout)
    assert [a["status"] for a in answers] == ["ok", "ok", "invalid", "invalid"]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {path}: line 4: actions[0].moves: must be one of right, left, smaller, away_from, got []",
                      f"error: {path}: line 5: actions[0].moves: must be one of right, left, smaller, away_from, got []"]


def test_cli_simulate_answers_every_good_item_beside_an_overflowing_one(tmp_path):
    path = tmp_path / "items.json"
    path.write_text(json.dumps([GOOD, {**with_line(at=10 ** 12), "id": "far"}, GOOD]))
    done = invoke("simulate", path)
    assert done.exit_code == EXIT_ITEMS and "internal error" not in done.output
    assert [a["status"] for a in json.loads(done.stdout)] == ["ok", "invalid", "ok"]
    assert f"error: {path}: far: actions[0].line.at: " in done.stderr


# -- audit ----------------------------------------------------------------------------------------

HOLES = [{"x": "1/2", "y": "1/2", "shape": "circle", "size": "small", "direction": 0, "mirrored": True},
         {"x": "3/2", "y": "1/2", "shape": "circle", "size": "small", "direction": 0, "mirrored": False}]


def family_record(name: str = "a", **changes) -> dict:
    record = {"id": name, "family": "spatialviz", "item": {**GOOD, "id": name},
              "options": [{"label": "A", "resultHoles": HOLES}, {"label": "B", "resultHoles": HOLES[:1]}],
              "answer": "A"}
    record.update(changes)
    return record


def test_audit_refuses_wrong_types_and_repeated_labels_and_answers_the_rest():
    wrong_shape = family_record("shape", options=[{"label": "A", "resultHoles": [{**HOLES[0], "shape": ["circle"]}]}])
    repeated = family_record("labels", options=[{"label": "A", "resultHoles": HOLES}, {"label": "A", "resultHoles": []}])
    listed = family_record("answer", answer=["B"])
    report = audit_records([family_record(), wrong_shape, repeated, listed, family_record("wrong", answer="B")])
    verdicts = [(i.verdict, i.reason) for i in report.items]
    assert verdicts[0] == (OK, "")
    assert verdicts[1][0] == INVALID
    assert verdicts[1][1].startswith("shape: options[0].resultHoles[0].shape: must be one of circle"), verdicts[1]
    assert verdicts[2] == (INVALID, "labels: options[1].label: repeats the label 'A': each option needs its own")
    assert verdicts[3][0] == INVALID and verdicts[3][1].startswith("answer: answer: must be one of the option labels A, B")
    assert verdicts[4][0] == DIFFERS


def test_audit_family_names_the_family_a_record_is_from(tmp_path):
    path = tmp_path / "items.json"
    path.write_text(json.dumps([family_record(), {**family_record("b"), "family": "srbench"}]))
    done = invoke("audit", "--family", "srbench", path)
    assert done.exit_code == EXIT_ITEMS
    assert f"b: family: is a record of srbench" not in done.output  # b is srbench's own record: audited
    assert "a: family: is a record of spatialviz, not of srbench (audit --family srbench)" in done.output, done.output
    assert "must be an object, got None" not in done.output


# -- solve --target, fold -------------------------------------------------------------------------


def test_solve_target_with_a_repeated_hole_is_refused_before_work():
    done = invoke("solve", "--sheet", "2x2", "--folds", "1", "--target", '[["1/2", "1/2"], ["0.5", "1/2"]]')
    assert done.exit_code == EXIT_USAGE
    assert "target 1.target[1]: repeats hole 1 at (1/2, 1/2)" in done.output, done.output
    assert "enumerating" not in done.output  # refused before the space is enumerated
    done = invoke("solve", "--sheet", "2x2", "--folds", "1", "--target", '[["1e99999999", "1/2"]]')
    assert done.exit_code == EXIT_USAGE and "exponent past" in done.output


def test_fold_refuses_a_point_that_is_not_a_point(tmp_path):
    from foldsim.foldfile import fold_document

    for point in (5, [1], "garbage"):
        with pytest.raises(InputError, match=r"actions\[0\]\.point: must be a point"):
            fold_document(with_fold(moves="away_from", point=point), index=0)
    path = tmp_path / "items.json"
    path.write_text(json.dumps([{**with_fold(moves="away_from", point="garbage"), "id": "bad"}, GOOD]))
    done = invoke("fold", path, "--out", tmp_path / "out")
    assert done.exit_code == EXIT_ITEMS
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["good.fold"]
    written = json.loads((tmp_path / "out" / "good.fold").read_text())["foldsim:item"]
    assert "point" not in written["actions"][0]


def test_a_json_lines_file_of_one_record_names_it_by_its_line(tmp_path):
    """A .jsonl file whose one line is the whole file is still JSON Lines: an id-less record there is
    "line 1" (as in a file of many lines), not "item 0"."""
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(with_fold(moves=[])) + "\n")
    done = invoke("simulate", str(path))
    assert done.exit_code == EXIT_ITEMS and f"error: {path}: line 1: " in done.stderr, done.stderr
