"""The cube-choice families spatialviz-cube and pfp-cube (issue 25, item 4): their records are keyed
right (checked on the independent rolling reference, not the engine that keyed them), every
distractor is a named mistake that is wrong as the picture shows it, audit catches a planted wrong
key, duplicate option, hidden-face "distractor" and unreadable record, split keys follow the cube's
turns, and the pictures are the records' own, byte for byte."""

from __future__ import annotations

import copy
import io
import json
import random

import numpy as np
import pytest
from PIL import Image

from foldsim.errors import InputError
from foldsim.families import net_options as N
from foldsim.families.pfp_cube import PFP_CUBE
from foldsim.families.registry import RECORD_FAMILIES, family
from foldsim.families.spatialviz_cube import SPATIALVIZ_CUBE
from foldsim.kernels import nets as K
from foldsim.net_space import cube_labellings
from foldsim.nets import (Pattern, cube_key, cube_sides, make_net, net_from_record, net_to_record, turned_cube,
                          view_of)
from foldsim.nets_reference import roll
from foldsim.render.net_images import COLOUR_RGB, view_sides

FAMILIES = (SPATIALVIZ_CUBE, PFP_CUBE)


@pytest.fixture(scope="module")
def generated():
    """Two items of every level x task of each family (the levels in turn, then the tasks)."""
    return {SPATIALVIZ_CUBE.name: SPATIALVIZ_CUBE.generate(12, 7), PFP_CUBE.name: PFP_CUBE.generate(8, 7)}


def _reduced(view, period):
    return tuple((label, turn % period[label], mirror and period[label] != 1) for label, turn, mirror in view)


def _reference_fits(record) -> dict[str, bool]:
    """Whether each option fits the question, decided by rolling a cube under every net (the
    independent reference, foldsim.nets_reference), not by the engine."""
    info = record["info"]
    period = {label: N.FACE_STYLES[info["faces"]] for label in info["labels"]}
    question = info["question"]
    if "net" in question:
        rolled = roll(net_from_record(question["net"]))
        assert rolled.reason == "valid"
        genuine = {_reduced(v, period) for v in rolled.views}
        return {o["label"]: _reduced([tuple(s) for s in o["view"]], period) in genuine for o in record["options"]}
    wanted = _reduced([tuple(s) for s in question["view"]], period)
    out = {}
    for o in record["options"]:
        rolled = roll(net_from_record(o["net"]))
        out[o["label"]] = rolled.reason == "valid" and wanted in {_reduced(v, period) for v in rolled.views}
    return out


def test_registered():
    assert RECORD_FAMILIES["spatialviz-cube"] is SPATIALVIZ_CUBE and family("pfp-cube") is PFP_CUBE


def test_records_follow_the_contract(generated):
    for fam in FAMILIES:
        records = generated[fam.name]
        assert [r["id"] for r in records] == [f"{fam.name}_{n:05d}" for n in range(1, len(records) + 1)]
        seen = set()
        for record in records:
            assert record["family"] == fam.name and record["level"] in fam.levels and record["taskType"] == "Choice"
            assert [o["label"] for o in record["options"]] == ["A", "B", "C", "D"]
            assert record["questionImg"] == f"{record['id']}.png"
            assert record["optionImgs"] == [f"{record['id']}_{label}.png" for label in "ABCD"]
            key = [o for o in record["options"] if o["label"] == record["answer"]]
            assert key[0]["error"] is None and key[0]["errorDetail"] is None
            for o in record["options"]:
                if o is not key[0]:
                    assert o["error"] in fam.distractor_rules and isinstance(o["errorDetail"], dict)
            assert record["native"] and json.loads(json.dumps(record)) == record
            seen.add((record["level"], record["info"]["task"]))
        assert seen == {(level, task) for level in fam.levels for task in fam.levels[level]["tasks"]}


def test_keys_hold_on_the_independent_reference(generated):
    """The key is the one option that fits (cannot: the one that does not); every distractor is
    wrong in all 24 orientations as the picture shows it: no hidden-face change slips through."""
    for fam in FAMILIES:
        for record in generated[fam.name]:
            fits = _reference_fits(record)
            key_fits = N.TASKS[record["info"]["task"]].key_fits
            assert {label for label, fit in fits.items() if fit == key_fits} == {record["answer"]}, record["id"]


def test_options_differ_as_pictures_and_the_open_task_is_exact(generated):
    for fam in FAMILIES:
        for record in generated[fam.name]:
            period = N.periods(record["info"]["faces"], record["info"]["labels"])
            keys = [N.net_picture_key(net_from_record(o["net"]), period) if "net" in o else
                    N.view_key([tuple(s) for s in o["view"]], period) for o in record["options"]]
            assert len(set(keys)) == 4, record["id"]
            if record["info"]["task"] == "view":
                asked = record["oppositeQuestion"].split("opposite the ")[1].split("?")[0].split()[-1]
                rolled = roll(net_from_record(record["info"]["question"]["net"]))
                assert record["oppositeAnswer"] == {"opposite": rolled.opposite[asked]}
            else:
                assert "oppositeQuestion" not in record


def test_options_are_different_cubes(generated):
    """Where options are nets meant to differ (can, cube_to_net), the four fold into four different
    cubes up to the 24 rotations; PFP's relabellings are four different labelled cubes."""
    for fam in FAMILIES:
        for record in generated[fam.name]:
            task, period = record["info"]["task"], N.periods(record["info"]["faces"], record["info"]["labels"])
            if task in ("can", "cube_to_net"):
                folded = N.fold_all([net_from_record(o["net"]) for o in record["options"]])
                assert len({cube_key(cube_sides(f), period) for f in folded}) == 4, record["id"]
            if fam is PFP_CUBE:
                labellings = [o["errorDetail"]["labelling"] for o in record["options"] if o["error"]]
                assert len({record["info"]["labelling"], *labellings}) == 4, record["id"]


def test_same_seed_same_records_and_levels_pick(generated):
    again = PFP_CUBE.generate(8, 7)
    assert json.dumps(again) == json.dumps(generated[PFP_CUBE.name])
    assert json.dumps(PFP_CUBE.generate(8, 8)) != json.dumps(again)
    only = SPATIALVIZ_CUBE.generate(3, 7, "patterns")
    assert [r["level"] for r in only] == ["patterns"] * 3
    assert [r["info"]["task"] for r in only] == ["can", "cannot", "view"]
    with pytest.raises(InputError, match="--level"):
        PFP_CUBE.generate(1, 0, "medium")
    with pytest.raises(InputError, match="--count"):
        PFP_CUBE.generate(-1, 0)


def test_pfp_easy_and_hard_poses(generated):
    for record in generated[PFP_CUBE.name]:
        options, level = record["options"], record["level"]
        if record["info"]["task"] == "net_to_cube":
            fronts = {o["orientation"] // 4 for o in options}
            turns = {o["orientation"] % 4 for o in options}
            assert (len(fronts), len(turns)) == ((1, 4) if level == "easy" else (4, len(turns)))
        else:
            layouts = {o["layout"] for o in options}
            assert len(layouts) == (1 if level == "easy" else 4)
        assert record["native"] == [{"image": f"./imgs/{record['id']}.png", "answer": record["answer"]}]
    assert PFP_CUBE.native_text(PFP_CUBE.native_rows(record)).count("\n") == 1


def test_spatialviz_native_rows(generated):
    row = SPATIALVIZ_CUBE.native_rows(generated[SPATIALVIZ_CUBE.name][0])[0]
    assert set(row) == {"Category", "Task", "Level", "Image_id", "Question", "Choices", "Answer", "Explanation"}
    assert row["Task"] == "CubeUnfolding" and row["Level"] == "Level0" and len(row["Explanation"]) == 3
    assert row["Answer"] not in row["Explanation"]


def test_named_view_mistakes_are_never_views():
    """A mirrored view and a view with a face's opposite in its place are never the cube's (colours:
    the corner's order is reversed), for every labelled cube and orientation."""
    labels = N.COLOUR_LABELS
    period = N.periods("colours", labels)
    for labelling in cube_labellings():
        cube = tuple((labels[i], 0, False) for i in labelling)
        for o in range(24):
            assert not N.shows(cube, view_of(N.mirror_cube(cube), o), period)
            for position in range(3):
                assert not N.shows(cube, N.opposite_shown(cube, o, position), period)


def test_mirror_cube_is_a_reflection():
    """Mirroring twice gives the cube back; a patterned cube's mirror shows mirrored glyphs."""
    rng = random.Random(3)
    cube = N.random_cube(rng, N.SYMBOL_LABELS, "patterns")
    assert N.mirror_cube(N.mirror_cube(cube)) == cube
    assert all(mirror for _, _, mirror in N.mirror_cube(cube))


def test_a_turn_on_a_coloured_face_is_no_change():
    """Equality goes by the picture: on colours a turned pattern changes nothing, on patterns it does."""
    layout = N.layouts()[0]
    cube = N.random_cube(random.Random(1), N.COLOUR_LABELS, "colours")
    net = N.net_for_cube(layout, cube, 1)
    turned = make_net(net.cells, net.labels, [Pattern(1)] + list(net.patterns[1:]), hinges=net.hinges)
    colours, patterns = N.periods("colours", net.labels), N.periods("patterns", net.labels)
    assert N.net_picture_key(turned, colours) == N.net_picture_key(net, colours)
    assert N.net_picture_key(turned, patterns) != N.net_picture_key(net, patterns)


def _turned_in_the_plane(net_record: dict) -> dict:
    """The same net drawn a quarter turn counter-clockwise (cells and patterns turned with it)."""
    net = net_from_record(net_record)
    cells = [(-y - 1, x) for x, y in net.cells]
    patterns = [Pattern(p.turn + 1, p.mirror) for p in net.patterns]
    return net_to_record(make_net(cells, net.labels, patterns, hinges=net.hinges))


def _hidden_face_net(record: dict, layout: int) -> dict:
    """A net that differs from the cube only on sides the question's view does not show (a hidden
    pair swapped; patterns: a hidden pattern turned too): SpatialViz's and PFP's flaw."""
    info = record["info"]
    cube = [tuple(s) for s in info["cube"]]
    hidden = [s for s in range(6) if s not in K.VIEW_SIDES[info["question"]["orientation"]]]
    cube[hidden[0]], cube[hidden[1]] = cube[hidden[1]], cube[hidden[0]]
    label, turn, mirror = cube[hidden[2]]
    cube[hidden[2]] = (label, (turn + 1) % 4, mirror)
    return net_to_record(N.net_for_cube(N.layouts()[layout], cube, N.FACE_STYLES[info["faces"]]))


def _verdicts(fam, records):
    report = fam.audit(records, "planted.jsonl")
    return report, {item.id: item for item in report.items}


def test_audit_passes_generated_and_catches_each_planted_fault(generated):
    records = generated[SPATIALVIZ_CUBE.name]
    report, _ = _verdicts(SPATIALVIZ_CUBE, records)
    assert report.all_ok and len(report.items) == 12
    can, view = records[0], records[4]
    assert can["info"]["task"] == "can" and view["info"]["task"] == "view"
    distractors = [i for i, o in enumerate(can["options"]) if o["error"] is not None]

    wrong_key = copy.deepcopy(can)
    wrong_key["answer"] = can["options"][distractors[0]]["label"]
    duplicate = copy.deepcopy(can)
    duplicate["options"][distractors[1]]["net"] = _turned_in_the_plane(can["options"][distractors[0]]["net"])
    hidden = copy.deepcopy(can)
    hidden["options"][distractors[2]]["net"] = _hidden_face_net(can, 7)
    hidden_view = copy.deepcopy(view)
    cube = [tuple(s) for s in view["info"]["cube"]]
    genuine = next(o for o in range(24) if view_of(cube, o) != tuple(tuple(s) for s in view["options"][0]["view"]))
    slot = next(i for i, o in enumerate(view["options"]) if o["error"] is not None)
    hidden_view["options"][slot]["view"] = [list(s) for s in view_of(cube, genuine)]
    unreadable = copy.deepcopy(can)
    unreadable["options"][1]["net"]["cells"] = "no cells"
    for planted, name in ((wrong_key, "wrong"), (duplicate, "dup"), (hidden, "hidden"), (hidden_view, "hview"),
                          (unreadable, "bad")):
        planted["id"] = name
    planted = [wrong_key, duplicate, hidden, hidden_view, unreadable, "not a record", {"id": "empty"}]
    report, by_id = _verdicts(SPATIALVIZ_CUBE, planted)
    summary = report.summary()
    assert (summary["ok"], summary["differs"], summary["invalid"]) == (0, 4, 3)
    assert by_id["wrong"].problems == ["wrong_key"] and by_id["wrong"].physical == [can["answer"]]
    assert by_id["dup"].problems == ["duplicate_option"]
    assert by_id["hidden"].problems == ["correct_distractor"]
    assert by_id["hview"].problems == ["correct_distractor"]
    assert "options[1].net.cells" in by_id["bad"].reason and by_id["empty"].verdict == "invalid"
    for item in report.items:
        assert item.reason and "\n" not in item.reason and "Traceback" not in item.reason
        json.dumps(item.to_json())


def test_pfp_audit_catches_the_identity_distractor(generated):
    """PFP's own flaw: a "relabelled" cube that is the identity is the key again (a duplicate
    option that fits); audit names both problems."""
    record = copy.deepcopy(next(r for r in generated[PFP_CUBE.name] if r["info"]["task"] == "net_to_cube"))
    key = next(o for o in record["options"] if o["error"] is None)
    other = next(o for o in record["options"] if o["error"] is not None)
    other["view"] = key["view"]
    report, by_id = _verdicts(PFP_CUBE, [record])
    assert set(by_id[record["id"]].problems) == {"correct_distractor", "duplicate_option"}
    assert SPATIALVIZ_CUBE.audit([record], "x").items[0].verdict == "invalid"  # another family's record


def test_split_key_follows_the_cube_up_to_turns(generated):
    record = generated[SPATIALVIZ_CUBE.name][1]
    cube = [tuple(s) for s in record["info"]["cube"]]
    key = SPATIALVIZ_CUBE.split_key(record)
    for o in range(24):
        turned = copy.deepcopy(record)
        turned["info"]["cube"] = [list(s) for s in turned_cube(cube, o)]
        assert SPATIALVIZ_CUBE.split_key(turned) == key
    swapped = copy.deepcopy(record)
    swapped["info"]["cube"][0], swapped["info"]["cube"][2] = swapped["info"]["cube"][2], swapped["info"]["cube"][0]
    assert SPATIALVIZ_CUBE.split_key(swapped) != key
    with pytest.raises(InputError, match="info.cube"):
        SPATIALVIZ_CUBE.split_key({**record, "info": {**record["info"], "cube": [1]}})


def test_images_are_the_records_own(generated):
    record = next(r for r in generated[SPATIALVIZ_CUBE.name] if r["info"]["task"] == "view" and r["level"] == "colours")
    images = SPATIALVIZ_CUBE.images(record)
    assert list(images) == [record["questionImg"], *record["optionImgs"]]
    assert SPATIALVIZ_CUBE.images(record) == images
    for k, o in enumerate(record["options"]):  # a coloured view: the front side is its colour
        picture = np.asarray(Image.open(io.BytesIO(images[record["optionImgs"][k]])).convert("RGB"))
        (width, height), sides = view_sides(96, 12)
        origin, right, up = sides[0]
        x, y = (origin + (right + up) / 2).astype(int)
        assert picture.shape[:2] == (height, width)
        assert np.abs(picture[y, x].astype(int) - COLOUR_RGB[o["view"][0][0]]).max() <= 2
    bad = copy.deepcopy(record)
    bad["options"][0]["view"][0][0] = "mauve"
    with pytest.raises(InputError, match="info.faces"):
        SPATIALVIZ_CUBE.images(bad)
    with pytest.raises(InputError, match="answer"):
        PFP_CUBE.images({**generated[PFP_CUBE.name][0], "answer": "Z"})


@pytest.mark.parametrize("fault, field", [
    (lambda r: r["info"].update(task="guess"), "info.task"),
    (lambda r: r["info"].update(faces=None), "info.faces"),
    (lambda r: r["info"]["question"].update(view=[["red", 7, False]] * 3), "info.question.view[0].turn"),
    (lambda r: r["info"]["question"].update(view="front"), "info.question.view"),
    (lambda r: r["options"][0].update(net={"cells": [[i, 0] for i in range(65)]}), "options[0].net.cells"),
    (lambda r: r["options"][0].update(label=r["options"][1]["label"]), "options[1].label"),
    (lambda r: r.update(options=r["options"] * 7), "options"),
    (lambda r: r.update(answer=None), "answer"),
    (lambda r: r.update(info=[]), "info"),
])
def test_a_bad_record_is_one_line_naming_its_field(generated, fault, field):
    record = copy.deepcopy(generated[SPATIALVIZ_CUBE.name][0])
    fault(record)
    [item] = SPATIALVIZ_CUBE.audit([record], "bad.jsonl").items
    assert item.verdict == "invalid" and f"{record['id']}: {field}:" in item.reason and "\n" not in item.reason
    with pytest.raises(InputError, match=field.replace("[", r"\[").replace("]", r"\]")):
        SPATIALVIZ_CUBE.images(record)
