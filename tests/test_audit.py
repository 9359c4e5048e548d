"""foldsim audit --family: generated items pass; a key planted wrong (a hole dropped, a hole
duplicated, the pattern mirrored) is flagged with the differing holes named exactly."""

from __future__ import annotations

import copy
import json

import pytest

from foldsim.families.audit import DIFFERS, INVALID, OK, audit_records
from foldsim.families.base import hole_key, holes_from_json
from foldsim.families.generate import generate_family
from foldsim.families.registry import FAMILIES


@pytest.fixture(scope="module")
def records():
    return generate_family(FAMILIES["spatialviz"], 6, 2, "L1") + generate_family(FAMILIES["srbench"], 6, 2, "2")


def _keyed(record):
    return next(o for o in record["options"] if o["label"] == record["answer"])


def _plant(record, how):
    bad = copy.deepcopy(record)
    holes = _keyed(bad)["resultHoles"]
    if how == "dropped":
        removed = holes.pop(0)
        return bad, [removed], []
    if how == "duplicated":
        holes.append(dict(holes[0]))
        return bad, [], []
    cols = bad["item"]["sheet"]["cols"]
    mirrored = []
    for h in holes:
        m = dict(h)
        x = __import__("fractions").Fraction(h["x"])
        m["x"] = str(cols - x)
        mirrored.append(m)
    _keyed(bad)["resultHoles"] = mirrored
    return bad, None, None


def test_generated_items_pass(records):
    report = audit_records(records)
    assert report.all_ok and [i.verdict for i in report.items] == [OK] * len(records)


@pytest.mark.parametrize("how", ["dropped", "duplicated", "mirrored"])
def test_planted_wrong_keys_are_flagged(records, how):
    planted = []
    for record in records:
        bad, _, _ = _plant(record, how)
        before = hole_key(holes_from_json(_keyed(record)["resultHoles"], "key"))
        after = hole_key(holes_from_json(_keyed(bad)["resultHoles"], "key"))
        if before != after:  # a symmetric pattern mirrors onto itself: nothing planted
            planted.append((record, bad))
    assert planted
    report = audit_records([bad for _, bad in planted])
    for (record, bad), item in zip(planted, report.items, strict=True):
        assert item.verdict == DIFFERS, (record["id"], how)
        assert item.only_key or item.only_physics
        if how == "dropped":
            assert [h.to_dict()["x"] for h in item.only_physics] == [_keyed(record)["resultHoles"][0]["x"]]
            assert not item.only_key and item.physical_option is None  # the keyed option itself was edited
        if how == "duplicated":
            assert len(item.only_key) == 1 and not item.only_physics


def test_invalid_and_unreadable(records, tmp_path):
    from foldsim.cli import main

    broken = copy.deepcopy(records[0])
    broken["answer"] = "Z"
    report = audit_records([broken, records[1], "junk"])
    assert [i.verdict for i in report.items] == [INVALID, OK, INVALID]
    no_rows = copy.deepcopy(records[1])
    del no_rows["item"]["sheet"]["rows"]
    [item] = audit_records([no_rows]).items
    assert item.verdict == INVALID and item.reason.startswith(f"{no_rows['id']}: item.sheet.rows: ")
    path = tmp_path / "items.json"
    bad, _, _ = _plant(records[1], "dropped")
    path.write_text(json.dumps([records[0], bad]))
    for argv, code in ((["audit", str(path)], 1), (["audit", str(tmp_path / "missing.json")], 2)):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == code


@pytest.mark.parametrize("family", [None, "stare", "pfp", "spatialviz-cube", "pfp-cube"])
def test_every_audit_names_an_idless_record_by_its_line(family):
    """One naming for every audit (`read_each`): a record without an id, or with a blank one, is
    named by its JSON Lines line (pfp and the cube families said "item 0", audit_records the blank
    id itself)."""
    from foldsim.families.registry import RECORD_FAMILIES
    from foldsim.io import parse_records

    records = parse_records('{"id": "  "}\n\n{"options": 3}\n', "items.jsonl", jsonl=True)
    audit = audit_records if family is None else RECORD_FAMILIES[family].audit
    report = audit(records, "items.jsonl")
    assert [(i.id, i.verdict) for i in report.items] == [("line 1", INVALID), ("line 3", INVALID)]
    assert all(i.reason.startswith(f"{i.id}: ") for i in report.items)


def test_read_each_makes_every_failure_that_records_verdict(monkeypatch):
    from foldsim.errors import InputError
    from foldsim.families.audit import read_each

    def read(index, name):
        if index == 1:
            raise InputError("must be a number", field="x")  # names no item: the record's name is added
        if index == 2:
            raise ZeroDivisionError("a bug")
        return name.upper()

    names, read_ok, refused = read_each([{"id": "a"}, {}, {"id": "c"}], read)
    assert names == ["a", "item 1", "c"] and read_ok == {0: "A"}
    assert refused[1].reason == "item 1: x: must be a number"
    assert refused[2].reason.startswith("c: internal error: ZeroDivisionError: a bug") and "\n" not in refused[2].reason
    monkeypatch.setenv("FOLDSIM_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        read_each([{"id": "a"}, {}, {"id": "c"}], read, only=[2])
