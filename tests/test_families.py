"""The benchmark families (foldsim.families): every generated item realizable, keyed by the engine and
an independent exact re-simulation, every option distinct, the family's rules hold, same seed ->
same bytes, the family's own format. Moderate counts here; FOLDSIM_FUZZ_EXAMPLES >= 1000 or
`-m slow` runs 200 items of every level."""

from __future__ import annotations

import json
import os
import random

import pytest

from foldsim.families.base import hole_key, holes_from_json
from foldsim.families.generate import generate_family
from foldsim.families.registry import FAMILIES, GENERAL_FAMILIES
from foldsim.sheets import item_from_record

BIG = int(os.environ.get("FOLDSIM_FUZZ_EXAMPLES", "0")) >= 1000
#: (family, level, count) for the fast run: one level each, the kernel compiles once per sheet
FAST = {"spatialviz": ("L1", 12), "visfactor": ("normal", 12), "srbench": ("2", 12)}


def _reference(item):
    try:
        from foldsim.reference_general import reference_simulate
    except ImportError:  # pragma: no cover - the reference is part of the tree
        from foldsim.engine import simulate_items

        return simulate_items([item])[0]
    return reference_simulate(item)


@pytest.fixture(scope="module", params=GENERAL_FAMILIES)
def generated(request):
    name = request.param
    level, count = FAST[name]
    if BIG:
        return name, generate_family(FAMILIES[name], 200, 11)
    return name, generate_family(FAMILIES[name], count, 11, level)


def test_keys_are_physical_and_options_distinct(generated):
    from foldsim.engine import simulate_items

    name, records = generated
    fam = FAMILIES[name]
    items = [item_from_record(r["item"]) for r in records]
    results = simulate_items(items)
    for record, item, result in zip(records, items, results, strict=True):
        assert result.ok, (record["id"], result.reason)
        keyed = next(o for o in record["options"] if o["label"] == record["answer"])
        assert keyed["error"] is None
        key = holes_from_json(keyed["resultHoles"], "key")
        assert hole_key(key) == hole_key(result.holes) == hole_key(holes_from_json(record["resultHoles"], "r"))
        assert record["totalNumberofHoles"] == len(key)
        options = [hole_key(holes_from_json(o["resultHoles"], "o")) for o in record["options"]]
        assert len(options) == fam.n_options and len(set(options)) == fam.n_options, record["id"]
        assert all(o["error"] is not None for o in record["options"] if o["label"] != record["answer"])
        assert not fam.rule_violations(item, fam.levels[record["level"]]), (record["id"], fam.rule_violations(item, fam.levels[record["level"]]))
    for record in random.Random(0).sample(records, min(30, len(records))):  # an independent exact re-simulation
        ref = _reference(item_from_record(record["item"]))
        assert ref.status == "ok"
        assert hole_key(ref.holes) == hole_key(holes_from_json(record["resultHoles"], "r")), record["id"]


def test_native_rows(generated):
    name, records = generated
    for r in records:
        native = r["native"]
        if name == "spatialviz":
            assert set(native[0]) == {"Category", "Task", "Level", "Image_id", "Question", "Choices", "Answer", "Explanation"}
            assert native[0]["Answer"] == r["answer"] and native[0]["Image_id"] == r["id"]
        elif name == "visfactor":
            assert r["taskType"] == "YesNo" and len(native) == 5
            assert [row["answer"] for row in native].count("Yes") == 1
        else:
            assert native == [{"filename": f"{r['id']}.png", "correct_option": r["answer"]}]


def test_same_seed_same_bytes(tmp_path):
    from foldsim.dataset.families import write_family

    fam = FAMILIES["srbench"]
    a = write_family(fam, tmp_path / "a", 6, 5, "2")
    b = write_family(fam, tmp_path / "b", 6, 5, "2")
    for key in ("items", "native"):
        assert open(a[key], "rb").read() == open(b[key], "rb").read()
    c = write_family(fam, tmp_path / "c", 6, 6, "2")
    assert open(c["items"], "rb").read() != open(a["items"], "rb").read()


def test_rules_reject_foreign_items():
    from fractions import Fraction

    from foldsim.sheets import Fold, Line, Punch, SheetItem, SheetSpec

    sv = FAMILIES["spatialviz"]
    bad = SheetItem(SheetSpec(3, 3), (Fold(Line("H", at=1)), Fold(Line("V", at=1))), (Punch(Fraction(1, 2), Fraction(1, 2)),))
    assert sv.rule_violations(bad, sv.levels["L0"])
    vf = FAMILIES["visfactor"]
    assert vf.rule_violations(SheetItem(SheetSpec(3, 3), (Fold(Line("H", at=Fraction(3, 2))),), (Punch(1, 1),)), vf.levels["easy"])
    sr = FAMILIES["srbench"]
    mixed = SheetItem(SheetSpec(1, 1), (Fold(Line.box("V"), moves="left"), Fold(Line.box("D"), moves="lower_right")),
                      (Punch(Fraction(3, 4), Fraction(1, 4)),))
    assert any("mix" in v for v in sr.rule_violations(mixed, sr.levels["2"]))


def test_enumerate_counts():
    sr = FAMILIES["srbench"]
    # V/H: every word; D/N: a repeated diagonal folds along the crease it just made (not a fold)
    assert [sr.count_space(lv)["configurations"] for lv in sr.levels.values()] == [4, 6, 12]
    sv = FAMILIES["spatialviz"].count_space(FAMILIES["spatialviz"].levels["L0"])
    # 3x3: 4 straight folds -> 3x2 / 2x3 rectangles, each with 4 corner folds of legs 2
    assert sv["straight_prefixes"] == sv["kernel_straight_prefixes"] == 4 and sv["configurations"] == 16


@pytest.mark.slow
def test_every_level_200_items():
    for name in GENERAL_FAMILIES:
        fam = FAMILIES[name]
        records = generate_family(fam, 200, 3)
        assert len(records) == 200 and {r["level"] for r in records} == set(fam.levels)


def test_cli_generate_and_audit(tmp_path):
    from foldsim.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["generate", "--family", "srbench", "--level", "1", "--count", "4", "--seed", "1", "--out", str(tmp_path)])
    assert exit_.value.code == 0
    records = json.loads((tmp_path / "srbench_items.json").read_text())
    assert len(records) == 4 and len((tmp_path / "metadata.jsonl").read_text().splitlines()) == 4
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--family", "srbench", str(tmp_path / "srbench_items.json")])
    assert exit_.value.code == 0
    with pytest.raises(SystemExit) as exit_:
        main(["generate", "--family", "nope", "--count", "1", "--out", str(tmp_path)])
    assert exit_.value.code == 2
