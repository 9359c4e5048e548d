"""The visworld family (VisWorld-Eval's paper folding; issue 27 item 6): SpatialViz's grid folds,
then cuts of mirror-sensitive shapes, keyed by the cut engine; the Choice task's distinct exact
regions and named mistakes, the open count task checked against an independent integer walk of
the grid folds, the generate contract's `first`, the audit's verdicts on wrong and hostile
records, the split key under the square's symmetries, the pictures, the native rows."""

from __future__ import annotations

import copy
import json
from collections import Counter
from fractions import Fraction as F

import pytest

from foldsim.errors import InputError
from foldsim.eval.open_values import truth_values
from foldsim.families import grid_folds
from foldsim.families.pfp_tasks import key_from_json, region_key
from foldsim.families.registry import RECORD_FAMILIES, family
from foldsim.families.visworld import COUNTED_SHAPES, SHAPES, VISWORLD, read_record
from foldsim.sheets import SIDE_SIGNS


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return VISWORLD.generate(9, 4)


def _minimal(cols: int, rows: int, steps: list, cuts: list) -> dict:
    """A record with its item and four labelled options (enough for split_key)."""
    return {"id": "t", "family": "visworld", "info": {"cols": cols, "rows": rows, "steps": steps, "cuts": cuts},
            "options": [{"label": x} for x in "ABCD"], "answer": "A"}


def test_registered_with_the_contract_fields(records):
    assert RECORD_FAMILIES["visworld"] is VISWORLD and family("visworld") is VISWORLD
    assert list(RECORD_FAMILIES)[:2] == ["pfp", "visworld"]
    assert VISWORLD.open_tasks == ("count",) and VISWORLD.native_file == "visworld.json"
    assert {n: (lv["sheet"], lv["folds"], lv["cuts"]) for n, lv in VISWORLD.levels.items()} == {
        "L0": ("3x3", [2, 2], [1, 1]), "L1": ("4x4", [2, 2], [2, 2]), "L2": ("5x5", [3, 3], [3, 3])}
    assert [r["id"] for r in records] == [f"visworld_{i:05d}" for i in range(1, 10)]
    assert [r["level"] for r in records] == ["L0", "L1", "L2"] * 3
    for r in records:
        assert r["family"] == "visworld" and r["taskType"] == "Choice" and r["questionImg"] == f"{r['id']}.png"
        assert [o["label"] for o in r["options"]] == list("ABCD")
        assert [o["error"] is None for o in r["options"]].count(True) == 1
        assert next(o for o in r["options"] if o["error"] is None)["label"] == r["answer"]
        assert all(o["error"] in VISWORLD.distractor_rules and o["errorDetail"] for o in r["options"] if o["error"])
        assert r["info"]["steps"][-1]["fold"] == "diagonal" and 1 <= len(r["info"]["cuts"]) <= 3
        assert set(r["countAnswer"]) == {"cutouts", "other", *COUNTED_SHAPES, "triangle_left_minus_right"}
        assert all(name in r["countQuestion"] for name in r["countAnswer"])  # the question names every field
        assert truth_values("count", r) == r["countAnswer"]  # `foldsim score count` reads it as it is
        numbers = [v for o in r["options"] for c in o["cutouts"] for ring in c["outline"] for p in ring for v in p]
        assert not any("." in v or "e" in v for v in numbers)  # exact "p/q", never a float's text
        json.dumps(r)


def test_same_seed_same_bytes_and_the_first_contract(records):
    assert json.dumps(VISWORLD.generate(9, 4)) == json.dumps(records)
    batch = VISWORLD.generate(2, 4, first=4)
    assert [r["id"] for r in batch] == ["visworld_00005", "visworld_00006"]
    assert [r["level"] for r in batch] == ["L1", "L2"]  # cycled by the global index (4, 5), not from L0
    assert json.dumps(VISWORLD.generate(4, 4, first=4)[:2]) == json.dumps(batch)  # seeded by (seed, first) alone
    assert [r["info"] for r in VISWORLD.generate(2, 5, first=4)] != [r["info"] for r in batch]
    assert [r["level"] for r in VISWORLD.generate(2, 4, "L2", first=7)] == ["L2", "L2"]
    for bad in (-1, True, "3"):
        with pytest.raises(InputError, match="--first"):
            VISWORLD.generate(1, 4, first=bad)
    with pytest.raises(InputError, match="five-digit ids"):  # refused before any item is drawn
        VISWORLD.generate(2, 4, first=99_998)


def test_every_generated_record_audits_ok_and_the_key_is_the_engines(records):
    assert VISWORLD.audit(records, "f").all_ok
    for r in records:
        parsed = read_record(r, r["id"])
        keys = [key_from_json(o["cutouts"], "o") for o in r["options"]]
        assert len(set(keys)) == 4
        assert keys["ABCD".index(r["answer"])] == region_key(parsed["result"].cutouts)


def _independent_counts(record: dict) -> dict:
    """The count task from an integer walk of each sheet cell's centre and orientation through
    the grid folds (no cut engine): a cell whose centre lands on a cut is a cut-out, shaped as the
    cut carried back by the cell's orientation; a centre on the 45° crease opens across it (other)."""
    info = record["info"]
    folds = [({"horizontal": "H", "vertical": "V"}.get(s["fold"]) or s["family"], s["at"], s["moves"])
             for s in info["steps"]]
    reflect = {"H": lambda x, y, a: (x, 2 * a - y), "V": lambda x, y, a: (2 * a - x, y),
               "D": lambda x, y, a: (y - a, x + a), "N": lambda x, y, a: (a - y, a - x)}
    linear = {"H": (1, 0, 0, -1), "V": (-1, 0, 0, 1), "D": (0, 1, 1, 0), "N": (0, -1, -1, 0)}
    phi = {"H": lambda x, y: y, "V": lambda x, y: x, "D": lambda x, y: y - x, "N": lambda x, y: x + y}
    cuts = {(F(2 * c + 1, 2), F(2 * r + 1, 2)): cut["shape"] for cut in info["cuts"] for c, r in [cut["cell"]]}
    named = {frozenset(v): n for n, v in COUNTED_SHAPES.items()}
    from foldsim.families.pfp_rules import MIRROR_SHAPES

    counts = Counter()
    for i in range(info["cols"]):
        for j in range(info["rows"]):
            x, y, m, crease = F(2 * i + 1, 2), F(2 * j + 1, 2), (1, 0, 0, 1), False
            for fam, at, moves in folds:
                side = SIDE_SIGNS[fam][moves] * (phi[fam](x, y) - at)
                if side > 0:
                    x, y = reflect[fam](x, y, at)
                    a, b, c, d = linear[fam]
                    m = (a * m[0] + b * m[2], a * m[1] + b * m[3], c * m[0] + d * m[2], c * m[1] + d * m[3])
                crease |= side == 0
            if (x, y) in cuts:
                counts["cutouts"] += 1
                if crease:
                    counts["other"] += 1
                    continue
                a, b, c, d = m  # orthogonal: the inverse is the transpose
                opened = frozenset((a * u + c * v, b * u + d * v) for u, v in MIRROR_SHAPES[cuts[(x, y)]])
                counts[named[opened]] += 1
    counts["triangle_left_minus_right"] = counts["triangle_left"] - counts["triangle_right"]
    return {k: counts[k] for k in record["countAnswer"]}


def test_count_answer_agrees_with_an_independent_walk_of_the_folds():
    recs = VISWORLD.generate(30, 11)
    seen = Counter()
    for r in recs:
        assert r["countAnswer"] == _independent_counts(r), r["id"]
        seen.update(k for k, v in r["countAnswer"].items() if v)
        counts = r["countAnswer"]
        assert counts["triangle_left_minus_right"] == counts["triangle_left"] - counts["triangle_right"]
    # the walk met every kind: mirrored triangles, turned diamonds, cut-outs merged across the crease
    assert {"triangle_left", "triangle_right", "triangle_up", "triangle_down", "diamond", "diamond_wide", "other"} <= set(seen)


def test_a_cut_on_a_bisected_cell_opens_as_one_cut_out_across_the_crease():
    steps = [{"fold": "horizontal", "at": 1, "moves": "below"},
             {"fold": "diagonal", "family": "D", "at": 1, "moves": "upper_left"}]
    on = read_record(_minimal(3, 3, steps, [{"shape": "triangle_left", "cell": [0, 1]}]), "t")["result"]
    off = read_record(_minimal(3, 3, steps, [{"shape": "triangle_left", "cell": [1, 1]}]), "t")["result"]
    from foldsim.families.visworld import count_answer

    # cell (0, 1) lies on y - x = 1, under two layers (row 0 folded up onto row 1): each opens as one
    # cut-out merged across the crease, none of the named shapes
    assert count_answer(on.cutouts) == {**dict.fromkeys(COUNTED_SHAPES, 0), "cutouts": 2, "other": 2,
                                          "triangle_left_minus_right": 0}
    # off the crease: the sheet cells over (1, 1): itself, row 0's cell folded onto it (an H mirror
    # keeps a left triangle left), and the flap's cell (0, 2), mirrored in y = x + 1 to a down triangle
    assert count_answer(off.cutouts) == {**dict.fromkeys(COUNTED_SHAPES, 0), "cutouts": 3, "triangle_left": 2,
                                         "triangle_down": 1, "other": 0, "triangle_left_minus_right": 2}


def test_shape_not_mirrored_is_the_cut_shape_unturned():
    steps = [{"fold": "vertical", "at": 2, "moves": "right"},
             {"fold": "diagonal", "family": "D", "at": 1, "moves": "upper_left"}]
    parsed = read_record(_minimal(3, 3, steps, [{"shape": "triangle_left", "cell": [1, 0]}]), "t")
    from foldsim.families.visworld import not_mirrored

    region = not_mirrored(parsed["result"].final, parsed["item"].cuts)
    assert len(region) == len(parsed["result"].cutouts) == 2
    # the mistake: every cut-out a left triangle; the physics: one mirrored by the V fold
    from foldsim.families.cut_counts import named_counts
    from foldsim.families.visworld import COUNTED_FORMS

    assert named_counts(region, COUNTED_FORMS)["triangle_left"] == 2
    assert named_counts(parsed["result"].cutouts, COUNTED_FORMS)["triangle_right"] == 1


def _one(records, mutate):
    r = copy.deepcopy(records[1])
    mutate(r)
    return VISWORLD.audit([r], "f").items[0]


def test_audit_catches_a_wrong_key_a_duplicate_option_and_a_wrong_count(records):
    def wrong_key(r):
        r["answer"] = "A" if r["answer"] != "A" else "B"

    def duplicate(r):
        other = next(o for o in r["options"] if o["error"] is not None)
        other["cutouts"] = next(o for o in r["options"] if o["error"] is None)["cutouts"]

    def wrong_count(r):
        r["countAnswer"]["triangle_left"] += 1

    def missing_count(r):
        del r["countAnswer"]

    verdicts = [_one(records, f) for f in (wrong_key, duplicate, wrong_count, missing_count)]
    assert [v.verdict for v in verdicts] == ["differs"] * 4
    assert verdicts[0].physical_option == records[1]["answer"]
    assert "same region" in verdicts[1].reason and "countAnswer" in verdicts[2].reason


HOSTILE = {
    "not an object": lambda r: "x",
    "other family": lambda r: {**r, "family": "pfp"},
    "no info": lambda r: {**r, "info": None},
    "huge grid": lambda r: {**r, "info": {**r["info"], "cols": 10 ** 9}},
    "bool rows": lambda r: {**r, "info": {**r["info"], "rows": True}},
    "steps not a list": lambda r: {**r, "info": {**r["info"], "steps": "x"}},
    "too many steps": lambda r: {**r, "info": {**r["info"], "steps": [{}] * 99}},
    "off-grid fold": lambda r: {**r, "info": {**r["info"], "steps": [{**r["info"]["steps"][0], "at": 7}]
                                              + r["info"]["steps"][1:]}},
    "wrong mover": lambda r: {**r, "info": {**r["info"], "steps": [{**r["info"]["steps"][0], "moves": "nowhere"}]
                                            + r["info"]["steps"][1:]}},
    "no diagonal last": lambda r: {**r, "info": {**r["info"], "steps": r["info"]["steps"][:-1]}},
    "fractional at": lambda r: {**r, "info": {**r["info"], "steps": [{**r["info"]["steps"][0], "at": 1.5}]
                                              + r["info"]["steps"][1:]}},
    "unknown shape": lambda r: {**r, "info": {**r["info"], "cuts": [{"shape": "star", "cell": [0, 0]}]}},
    "cell off the folded shape": lambda r: {**r, "info": {**r["info"], "cuts": [{"shape": "diamond", "cell": [7, 7]}]}},
    "cell not a pair": lambda r: {**r, "info": {**r["info"], "cuts": [{"shape": "diamond", "cell": "a1"}]}},
    "repeated cell": lambda r: {**r, "info": {**r["info"], "cuts": r["info"]["cuts"][:1] * 2}},
    "no cuts": lambda r: {**r, "info": {**r["info"], "cuts": []}},
    "three options": lambda r: {**r, "options": r["options"][:3]},
    "labels out of order": lambda r: {**r, "options": r["options"][::-1]},
    "answer a substring": lambda r: {**r, "answer": "AB"},
    "option cutouts garbage": lambda r: {**r, "options": [{**o, "cutouts": [{"outline": [[["1/0", 0]] * 3]}]}
                                                          for o in r["options"]]},
    "option number too long": lambda r: {**r, "options": [{**o, "cutouts": [{"outline": [[["9" * 500, 0]] * 3]}]}
                                                          for o in r["options"]]},
}


@pytest.mark.parametrize("bad", list(HOSTILE))
def test_unreadable_records_are_invalid_never_raised(records, bad):
    record = HOSTILE[bad](copy.deepcopy(records[2]))
    item = VISWORLD.audit([record], "f").items[0]
    assert item.verdict == "invalid" and item.reason.count("\n") == 0, item.reason
    if bad != "not an object":
        assert item.reason.startswith(records[2]["id"]), item.reason
    if bad.startswith("option"):
        return  # the item itself reads: only the audit and the pictures read the options' regions
    with pytest.raises(InputError):
        VISWORLD.split_key(record)


def test_split_key_is_the_same_for_mirror_twins_under_the_square():
    # the anti-diagonal mirror (x, y) -> (3 - y, 3 - x) of a 3x3 item: H at 1 (below) <-> V at 2 (right),
    # the D crease onto itself, a down triangle at (1, 1) <-> a right triangle at (1, 1)
    diagonal = {"fold": "diagonal", "family": "D", "at": 1, "moves": "upper_left"}
    one = _minimal(3, 3, [{"fold": "horizontal", "at": 1, "moves": "below"}, diagonal],
                   [{"shape": "triangle_down", "cell": [1, 1]}])
    twin = _minimal(3, 3, [{"fold": "vertical", "at": 2, "moves": "right"}, diagonal],
                    [{"shape": "triangle_right", "cell": [1, 1]}])
    other = _minimal(3, 3, [{"fold": "vertical", "at": 2, "moves": "right"}, diagonal],
                     [{"shape": "triangle_left", "cell": [1, 1]}])
    assert VISWORLD.split_key(one) == VISWORLD.split_key(twin) != VISWORLD.split_key(other)
    assert VISWORLD.split_key(one).startswith("visworld:")


def test_images_are_the_question_composite_in_deterministic_bytes(records):
    r = records[2]
    first, again = VISWORLD.images(r), VISWORLD.images(copy.deepcopy(r))
    assert list(first) == [r["questionImg"]] and first == again
    assert first[r["questionImg"]].startswith(b"\x89PNG")
    assert VISWORLD.images(records[5]) != first
    bad = copy.deepcopy(r)
    bad["options"][2]["cutouts"] = "x"
    with pytest.raises(InputError, match=r"options\[2\]\.cutouts"):
        VISWORLD.images(bad)
    with pytest.raises(InputError, match="questionImg"):
        VISWORLD.images({**r, "questionImg": "../x.png"})


def test_native_rows_are_spatialviz_rows_with_the_count(records):
    r = records[0]
    (row,) = VISWORLD.native_rows(r)
    assert row["Task"] == "PaperFolding" and row["Level"] == "Level0" and row["Answer"] == r["answer"]
    assert row["Choices"] == list("ABCD") and set(row["Explanation"]) == set("ABCD") - {r["answer"]}
    assert row["CountAnswer"] == r["countAnswer"]


def test_grid_steps_are_checked_against_spatialviz_rules():
    assert grid_folds.replay_steps(3, 3, [{"fold": "horizontal", "at": 2, "moves": "above"},
                                          {"fold": "diagonal", "family": "D", "at": 0, "moves": "upper_left"}])[1] \
        == (0, 0, 3, 2)
    # a 45° line that is no corner fold of the folded rectangle (y - x = 1 on the 3x2 one)
    assert "step 2" in grid_folds.replay_steps(3, 3, [{"fold": "horizontal", "at": 2, "moves": "above"},
                                                      {"fold": "diagonal", "family": "D", "at": 1, "moves": "upper_left"}])
    # equal halves: bottom onto top, never top onto bottom
    assert "step 1" in grid_folds.replay_steps(4, 4, [{"fold": "horizontal", "at": 2, "moves": "above"}])
    assert set(SHAPES) == {"triangle_left", "triangle_right", "triangle_down", "diamond"}


def _paths(value, prefix=()):
    """Every path into a JSON value (containers and leaves)."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*prefix, key))


@pytest.mark.fuzz
def test_fuzzed_records_audit_in_one_line_never_raise(records):
    from hypothesis import given, strategies as st

    from conftest import fuzz_settings

    record = records[4]
    paths = [p for p in _paths(record) if p]
    json_values = st.recursive(st.none() | st.booleans() | st.integers(-10 ** 12, 10 ** 12) | st.text(max_size=8)
                               | st.sampled_from(["1/0", "3/2", "9" * 70, "L0", "diagonal", "D"]),
                               lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                           max_size=3), max_leaves=6)

    @fuzz_settings(0.05)
    @given(path=st.sampled_from(paths), value=json_values)
    def check(path, value):
        changed = copy.deepcopy(record)
        target = changed
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        item = VISWORLD.audit([changed], "f").items[0]
        assert item.verdict in ("ok", "differs", "invalid")
        assert "\n" not in item.reason and "internal error" not in item.reason, item.reason
        if item.verdict == "invalid":
            with pytest.raises(InputError):
                VISWORLD.split_key(changed) if "options" not in str(path[:1]) else VISWORLD.images(changed)

    check()


def test_spatialviz_records_are_those_of_before_the_grid_folds_moved():
    """spatialviz samples through grid_folds now; its records are byte for byte those of 02f800e
    (the hash computed there, on the code before the move), all three levels in turn."""
    import hashlib

    from foldsim.families.generate import generate_family
    from foldsim.families.registry import FAMILIES

    records = generate_family(FAMILIES["spatialviz"], 30, 7)
    digest = hashlib.sha256(json.dumps(records, sort_keys=True, default=str).encode()).hexdigest()
    assert digest == "0b1d756b4e27a0ea0d11380741ac10b9e217412e7614acb919a16d39f5c53441"


def test_the_space_is_spatialvizs_times_a_shape_per_cut():
    """visworld draws SpatialViz's fold sequences and cut cells (one count of cuts per level), then
    a shape per cut: its space is SpatialViz's (checked there against the batched kernel) times
    shapes^cuts, level by level."""
    from foldsim.families.spatialviz import SPATIALVIZ
    from foldsim.families.visworld import SHAPES

    for name in VISWORLD.levels:
        space = VISWORLD.count_space(name)
        theirs = SPATIALVIZ.count_space(SPATIALVIZ.levels[name])
        low, high = space["cuts"]
        assert low == high and space["configurations"] == theirs["configurations"]
        assert space["items"] == theirs["items"] * len(SHAPES) ** low


def test_a_fold_name_that_is_no_string_is_one_invalid_line(records):
    """`make fuzz` found it: a step's "fold" set to a list raised TypeError (unhashable) inside the
    grid rules, an internal-error verdict; it is the record's one-line `invalid` now."""
    changed = copy.deepcopy(records[4])
    changed["info"]["steps"][0]["fold"] = []
    [item] = VISWORLD.audit([changed], "f").items
    assert item.verdict == "invalid" and "internal error" not in item.reason
    assert item.reason.startswith(f"{changed['id']}: ") and "\n" not in item.reason
