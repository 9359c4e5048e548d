"""The pfp family (PFP, Paper Folding Puzzles; issue 27 items 5 and 6): records per the contract,
keys from the final state, distinct options as exact regions, task B's verified confuse states,
task C's distinct patterns, the count task, the audit's verdicts (a planted PFP group-union key
among them), split keys under the sheet's symmetries, PFP's rules where foldsim fixes its bugs."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction as F

import pytest

from foldsim.cutfold import CutItem, Fold, cut_item, cut_item_from_record, cut_item_to_record, fold_states, pfp_cut, unfold_cut
from foldsim.families import pfp_rules as R
from foldsim.families.pfp import PFP, PfpFamily, count_answer
from foldsim.families.pfp_tasks import (
    after_step,
    key_from_json,
    mistakes,
    make_cut,
    near,
    opens_to,
    place,
    region_key,
    union_cutouts,
    vocabulary_steps,
    cutouts_json,
)
from foldsim.families.registry import RECORD_FAMILIES, family
from foldsim.polygons import intersection_area, preset_sheet
from tests.cut_items import random_item

SQUARE = preset_sheet("square")


@pytest.fixture(scope="module")
def records() -> dict[str, list[dict]]:
    return {level: PFP.generate(2 if level.startswith("A") else 1, 5, level) for level in PFP.levels}


def test_registered_with_the_contract_fields(records):
    assert RECORD_FAMILIES["pfp"] is PFP and family("pfp") is PFP
    assert PFP.native_file == "answer.jsonl" and PFP.open_tasks == ("count",)
    for level, recs in records.items():
        assert [r["id"] for r in recs] == ["pfp_00001", "pfp_00002"][:len(recs)]
        for r in recs:
            assert r["family"] == "pfp" and r["level"] == level and r["taskType"] == "Choice"
            assert [o["label"] for o in r["options"]] == list("ABCD") and r["answer"] in "ABCD"
            assert [o["error"] is None for o in r["options"]].count(True) == 1
            assert next(o for o in r["options"] if o["error"] is None)["label"] == r["answer"]
            assert all(o["errorDetail"] for o in r["options"])
            assert all(o["error"] in PFP.distractor_rules for o in r["options"] if o["error"] is not None)
            assert r["questionImg"] == f"{r['id']}.png"
            assert r["native"] == [{"image": f"./imgs/{r['id']}.png", "answer": r["answer"]}]
            assert r["info"]["task"] == PFP.levels[level]["task"]
            assert r["countQuestion"] and r["countAnswer"]["cutouts"] >= 1
            json.dumps(r)  # JSON-ready


def test_same_seed_same_bytes_and_levels_in_turn(records):
    again = PFP.generate(2, 5, "A")
    assert json.dumps(again) == json.dumps(records["A"])
    ticks = []
    mixed = PFP.generate(2, 9, on_progress=ticks.append)
    assert ticks == [1, 1]
    assert [r["level"] for r in mixed] == list(PFP.levels)[:2]
    assert json.dumps(PFP.generate(1, 6, "A")) != json.dumps(again[:1])


def test_native_text_is_json_lines(records):
    rows = [row for r in records["A"] for row in PFP.native_rows(r)]
    text = PFP.native_text(rows)
    assert [json.loads(line) for line in text.splitlines()] == rows and text.endswith("\n")


def test_every_generated_record_audits_ok(records):
    report = PFP.audit([r for recs in records.values() for r in recs], "items.jsonl")
    assert report.all_ok, report.summary()["problems"]


def test_key_is_the_final_state_answer_and_options_are_distinct_regions(records):
    for r in records["A"] + records["A-mirror"]:
        result = cut_item(_item(r))
        keys = [key_from_json(o["cutouts"], "o") for o in r["options"]]
        assert keys["ABCD".index(r["answer"])] == region_key(result.cutouts)
        assert len(set(keys)) == 4
        assert r["countAnswer"]["cutouts"] == len(result.cutouts)


def _item(record: dict) -> CutItem:
    return cut_item_from_record(record["info"]["cutItem"])


def test_region_key_is_exact_region_equality():
    """Equal regions cut into other pieces share a key; regions with other keys differ in area
    (checked by the exact intersection area, an independent test of equality)."""
    rng = random.Random(3)
    regions = []
    while len(regions) < 6:
        result = cut_item(random_item(rng))
        if result.ok and result.cutouts:
            regions.append(result.cutouts)
    for cutouts in regions:
        rebuilt = union_cutouts([cutouts, cutouts[:1]])  # other pieces (disjoint_convex), the same region
        assert region_key(rebuilt) == region_key(cutouts)
        assert key_from_json(cutouts_json(cutouts), "x") == region_key(cutouts)
    for a in regions:
        for b in regions:
            pa = [p for c in a for p in c.pieces]
            pb = [p for c in b for p in c.pieces]
            same = sum(c.area for c in a) == sum(c.area for c in b) == intersection_area(pa, pb)
            assert same == (region_key(a) == region_key(b))


def test_task_b_confuse_is_no_step_of_a_path_to_the_key(records):
    """Re-checked through cut_item (not the generator's own opening): the confuse state folded
    one more vocabulary step never opens to the key, and it is none of the item's step states."""
    r = records["B"][0]
    item = _item(r)
    key = region_key(cut_item(item).cutouts)
    confuse = next(o for o in r["options"] if o["error"] is None)
    steps = cut_item_from_record({**r["info"]["cutItem"], "steps": confuse["steps"]}).steps
    states, reason, _ = fold_states(CutItem(item.sheet, steps, item.cuts))
    assert not reason
    step_states = [o["state"] for o in r["options"] if o["error"] is not None]
    assert confuse["state"] not in step_states and len(r["info"]["states"]) == 4
    assert [o["state"] for o in r["options"] if o["error"] is not None] == [
        r["info"]["states"][int(o["error"][-1])] for o in r["options"] if o["error"] is not None]
    for extra in [(), *vocabulary_steps()[:8], vocabulary_steps()[-1]]:
        folded = CutItem(item.sheet, steps + ((extra,) if extra else ()), item.cuts)
        if extra and after_step(states[-1][-1], extra, item.sheet) is None:
            continue
        result = cut_item(folded)
        assert not result.ok or region_key(result.cutouts) != key


def test_task_c_key_alone_can_make_every_pattern(records):
    for r in records["C"]:
        item = _item(r)
        sheet = r["info"]["cutItem"]["sheet"]
        cut_sets = [cut_item_from_record({"sheet": sheet, "steps": [], "cuts": c}).cuts for c in r["info"]["cutSets"]]
        shown = [cut_item(CutItem(item.sheet, item.steps, c)).cutouts for c in cut_sets]
        assert [cutouts_json(p) for p in shown] == r["info"]["patterns"] and len(shown) == 4
        for option in r["options"]:
            steps = cut_item_from_record({"sheet": sheet, "steps": option["steps"], "cuts": r["info"]["cutSets"][0]}).steps
            final = fold_states(CutItem(item.sheet, steps, ()))[0][-1][-1]
            makes = [opens_to(p, final) for p in shown]
            assert all(makes) == (option["error"] is None), (option["errorDetail"], makes)


def test_opens_to_tells_which_rules_can_make_a_pattern():
    """A pattern any cut of a rule makes is one it can make; a mirror rule of a symmetric sheet can
    make the mirror-symmetric patterns of the other (PFP's Type C slip, refused as a distractor);
    a rule whose creases differ cannot."""
    rng = random.Random(4)
    for _ in range(4):
        item = random_item(rng)
        result = cut_item(item)
        if result.ok:
            assert opens_to(result.cutouts, result.final)
    left = ((Fold("Hori_Left", rate=F(1, 2)),),)
    pattern = cut_item(CutItem(SQUARE, left, (pfp_cut("hexagon", (F(100), F(250))),))).cutouts
    right = fold_states(CutItem(SQUARE, ((Fold("Hori_Right", rate=F(1, 2)),),), ()))[0][-1][-1]
    up = fold_states(CutItem(SQUARE, ((Fold("Vert_Top", rate=F(1, 2)),),), ()))[0][-1][-1]
    assert opens_to(pattern, right) and not opens_to(pattern, up)


def test_count_answer_names_mirror_shapes_exactly():
    """Right half over the left (Hori_Left 1/2), a left triangle on the left half: it opens to a
    left and a right triangle; a triangle across the crease opens to one merged cut-out."""
    fold = ((Fold("Hori_Left", rate=F(1, 2)),),)
    apart = cut_item(CutItem(SQUARE, fold, (make_cut("triangle_left", (F(90), F(200))),)))
    assert count_answer(apart.cutouts, True) == {"cutouts": 2, "triangle_left": 1, "triangle_right": 1,
                                                 "triangle_down": 0, "diamond": 0, "triangle_up": 0}
    down = cut_item(CutItem(SQUARE, ((Fold("Vert_Top", rate=F(1, 2)),),), (make_cut("triangle_down", (F(90), F(260))),)))
    assert count_answer(down.cutouts, True)["triangle_up"] == 1 == count_answer(down.cutouts, True)["triangle_down"]
    across = cut_item(CutItem(SQUARE, fold, (make_cut("triangle_left", (F(170), F(200))),)))
    assert count_answer(across.cutouts, True) == {**dict.fromkeys(R.COUNTED_SHAPES, 0), "cutouts": 1}
    assert count_answer(across.cutouts, False) == {"cutouts": 1}


def test_mirror_level_records_count_named_shapes(records):
    for r in records["A-mirror"]:
        assert set(r["countAnswer"]) == {"cutouts", *R.COUNTED_SHAPES}
        assert r["countAnswer"] == count_answer(cut_item(_item(r)).cutouts, True)
    assert set(records["A"][0]["countAnswer"]) == {"cutouts"}


# -- the audit --------------------------------------------------------------------------------------------


def _group_union_record() -> tuple[dict, str]:
    """The reference's case (§1.6): Hori_Left 1/2 then Hori_Right at the folded box's midline on
    the top layer only, in ONE group, a circle at (45, 180): PFP's key (the union over the group's
    states) shows a second circle at (315, 180). Keyed on PFP's union; option B is the physics."""
    steps = ((Fold("Hori_Left", rate=F(1, 2)), Fold("Hori_Right", rate=F(1, 2), layers=1)),)
    item = CutItem(SQUARE, steps, (pfp_cut("circle", (F(45), F(180)), R.CIRCLE_SIDES),), "planted")
    states, _, _ = fold_states(item)
    union = union_cutouts([unfold_cut(s, item.cuts) for s in states[-1]])
    final = unfold_cut(states[-1][-1], item.cuts)
    elsewhere = unfold_cut(states[0][-1], (pfp_cut("square", (F(200), F(100))),))
    regions = [union, final, (), elsewhere]
    assert len({region_key(x) for x in regions}) == 4
    options = [{"label": label, "error": None if label == "A" else "x", "errorDetail": "d", "cutouts": cutouts_json(x)}
               for label, x in zip("ABCD", regions)]
    return {"id": "planted", "family": "pfp", "info": {"task": "A", "cutItem": cut_item_to_record(item)},
            "options": options, "answer": "A"}, "B"


def test_audit_flags_a_key_drawn_from_a_groups_intermediate_states():
    record, physical = _group_union_record()
    [verdict] = PFP.audit([record], "f").items
    assert verdict.verdict == "differs" and verdict.physical_option == physical
    assert "union over the intermediate states of the last group" in verdict.reason
    fixed = {**record, "answer": physical}
    assert PFP.audit([fixed], "f").items[0].verdict == "ok"


def test_audit_flags_a_wrong_key_and_duplicate_options(records):
    r = records["A"][0]
    wrong = {**r, "answer": next(label for label in "ABCD" if label != r["answer"])}
    verdict = PFP.audit([wrong], "f").items[0]
    assert verdict.verdict == "differs" and verdict.physical_option == r["answer"]
    assert "union" not in verdict.reason
    twin = copy.deepcopy(r)
    others = [o for o in twin["options"] if o["label"] != r["answer"]]
    others[1]["cutouts"] = others[0]["cutouts"]
    verdict = PFP.audit([twin], "f").items[0]
    assert verdict.verdict == "differs" and "same region" in verdict.reason
    for task in ("B", "C"):
        rec = records[task][0]
        moved = {**rec, "answer": next(label for label in "ABCD" if label != rec["answer"])}
        assert PFP.audit([moved], "f").items[0].verdict == "differs"


@pytest.mark.parametrize("bad", [None, 3, {}, {"info": {"task": "Z"}}, {"info": {"task": ["A"]}},
                                 {"id": "x", "info": {"task": "A", "cutItem": {}}}])
def test_audit_unreadable_records_are_invalid_never_raised(records, bad):
    good = records["A"][0]
    broken_option = copy.deepcopy(good)
    broken_option["options"][0]["cutouts"] = [{"outline": [[["1/0", "2"], ["3", "4"], ["5", "6"]]]}]
    report = PFP.audit([bad, good, broken_option, {**good, "answer": "AB"}, {**good, "answer": None}], "f")
    assert [i.verdict for i in report.items] == ["invalid", "ok", "invalid", "invalid", "invalid"]
    assert not any("internal error" in i.reason for i in report.items)
    assert report.items[2].reason.startswith("pfp_00001: options[0].cutouts[0].outline[0][0].x")


# -- splits -----------------------------------------------------------------------------------------------


def _bare(item: CutItem) -> dict:
    return {"id": "s", "family": "pfp", "info": {"task": "A", "cutItem": cut_item_to_record(item)},
            "options": [{"label": label} for label in "ABCD"], "answer": "A"}


def test_split_key_is_the_same_for_mirror_images_under_the_sheet():
    left = CutItem(SQUARE, ((Fold("Hori_Left", rate=F(1, 2)),),), (pfp_cut("rectangle", (F(100), F(250))),))
    right = CutItem(SQUARE, ((Fold("Hori_Right", rate=F(1, 2)),),), (pfp_cut("rectangle", (F(260), F(250))),))
    moved = CutItem(SQUARE, ((Fold("Hori_Left", rate=F(1, 2)),),), (pfp_cut("rectangle", (F(100), F(200))),))
    keys = [PFP.split_key(_bare(i)) for i in (left, right, moved)]
    assert keys[0] == keys[1] != keys[2]
    assert PFP.split_key(_bare(left)) == keys[0]
    house = preset_sheet("house")  # one mirror only: the house turned upside down is another item
    up = CutItem(house, ((Fold("Vert_Top", rate=F(1, 2)),),), (pfp_cut("square", (F(180), F(200))),))
    down = CutItem(house, ((Fold("Vert_Bottom", rate=F(1, 2)),),), (pfp_cut("square", (F(180), F(160))),))
    assert PFP.split_key(_bare(up)) != PFP.split_key(_bare(down))


# -- PFP's rules where foldsim does not copy its bugs ------------------------------------------------------


def test_centre_placement_spans_the_middle_of_the_box_not_its_left_and_top():
    """PFP's precedence slip puts centre placements in the left and top 60 % of the box; foldsim
    places them in the middle 60 % (the rest are vertices and edge midpoints, on the boundary)."""
    layers = fold_states(CutItem(SQUARE, (), ()))[0][-1][-1]
    points = [place(random.Random(seed), layers) for seed in range(200)]
    inner = [p for p in points if 0 < p[0] < 360 and 0 < p[1] < 360]
    assert inner and all(72 <= x <= 288 and 72 <= y <= 288 for x, y in inner)
    assert any(x > 216 for x, _ in inner) and any(y < 144 for _, y in inner)


def test_near_duplicate_cut_sets_are_told_apart():
    a = (make_cut("square", (F(100), F(100))), make_cut("circle", (F(200), F(200))))
    close = (make_cut("square", (F(110), F(110))), make_cut("circle", (F(200), F(215))))
    far = (make_cut("square", (F(100), F(100))), make_cut("circle", (F(200), F(221))))
    assert near(a, close) and not near(a, far) and not near(a, a[:1] + (make_cut("hexagon", (F(200), F(200))),))


def test_rules_are_data():
    assert len(R.SYMMETRIC_FOLDS) == 12 and len(R.CORNER_FOLDS) == 4
    assert sum(R.COUNT_WEIGHTS["default"]) == 100 and R.COUNT_WEIGHTS["B"][2:] == (0, 0)
    assert set(R.LEVELS) == set(PfpFamily.levels) and {v["task"] for v in R.LEVELS.values()} == {"A", "B", "C"}


def test_images_draw_the_question_composite(records):
    pytest.importorskip("foldsim.render.pfp_images")
    for task in ("A", "B", "C"):
        r = records[task][0]
        images = PFP.images(r)
        assert list(images) == [r["questionImg"]] and images[r["questionImg"]].startswith(b"\x89PNG")
        assert PFP.images(r) == images


def test_images_of_a_record_that_cannot_be_drawn_name_item_and_field(records):
    pytest.importorskip("foldsim.render.pfp_images")
    from foldsim.errors import InputError

    r = copy.deepcopy(records["A"][0])
    r["info"]["cutItem"]["steps"] = []
    with pytest.raises(InputError, match=r"^pfp_00001: info.cutItem.steps: must hold 1 to 3 steps"):
        PFP.images(r)
    r = copy.deepcopy(records["A"][0])
    r["options"][2]["cutouts"] = [{"outline": "x"}]
    with pytest.raises(InputError, match=r"^pfp_00001: options\[2\].cutouts\[0\]: must be an object"):
        PFP.images(r)
    r = copy.deepcopy(records["A"][0])
    r["questionImg"] = "../x.png"
    with pytest.raises(InputError, match="questionImg"):
        PFP.images(r)


def test_simulated_mistakes_are_the_named_foldings():
    """On the reference's group (Hori_Left 1/2, then the top layer Hori_Right 1/2, one step) with a
    circle at (45, 180): PFP's union key adds the circle's mirror at (315, 180); the state before the group's
    last fold is that union too; the partial fold made with every layer, the top layer alone and
    the face-down layers left uncut are the foldings they name."""
    steps = ((Fold("Hori_Left", rate=F(1, 2)), Fold("Hori_Right", rate=F(1, 2), layers=1)),)
    item = CutItem(SQUARE, steps, (pfp_cut("circle", (F(45), F(180)), R.CIRCLE_SIDES),))
    states = fold_states(item)[0]
    found = {name: thunk()[0] for name, thunk in mistakes(item, states).items()}
    circle = lambda x: region_key(cut_item(CutItem(SQUARE, (), (pfp_cut("circle", (F(x), F(180)), R.CIRCLE_SIDES),))).cutouts)
    both = region_key(cut_item(CutItem(SQUARE, (steps[0][:1],), item.cuts)).cutouts)
    assert region_key(found["pfp_group_union"]) == both == region_key(found["group_intermediate"])
    assert len(found["pfp_group_union"]) == 2 and set(circle(45)) < set(both)  # the circle and its mirror
    assert region_key(cut_item(item).cutouts) == circle(45)
    full = (Fold("Hori_Left", rate=F(1, 2)), Fold("Hori_Right", rate=F(1, 2)))
    assert region_key(found["partial_taken_as_full"]) == region_key(cut_item(CutItem(SQUARE, (full,), item.cuts)).cutouts)
    final = states[-1][-1]
    assert region_key(found["top_layer_only"]) == region_key(unfold_cut(final[-1:], item.cuts))
    assert region_key(found["face_down_uncut"]) == region_key(unfold_cut([L for L in final if not L.reflected], item.cuts))
