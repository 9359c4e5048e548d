"""Fuzzing general records and family records (issue 28, "one guard for every general record"): good
records (hand-made ones covering every line, side rule and action kind, and the families' own
generated items) mutated field by field with hostile values (huge ints, exponent strings, wrong
types, nesting, tests/hostile.py's structures) go through the file reader (JSON and JSON Lines
text) and the Python API of `simulate`, the FOLD export and `audit`. Asserted for every input: no
exception escapes, no item is an "internal error", every bad item is `invalid` with one line that
starts with its name, and the untouched items beside it get exactly the answer they get alone.

Examples scale with FOLDSIM_FUZZ_EXAMPLES (conftest.fuzz_settings); no deadline, as in
tests/test_fuzz_records.py (a hang shows as a test that does not finish)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hostile
from conftest import fuzz_settings
from foldsim.errors import InputError
from foldsim.families.audit import INVALID, audit_records
from foldsim.io import parse_records
from foldsim.simulate import STATUS_INVALID, simulate

pytestmark = pytest.mark.fuzz

#: general records within one sheet size and few kernel shapes (compiled once for the module)
GENERAL = [
    {"id": "at", "sheet": {"cols": 3, "rows": 2},
     "actions": [{"type": "fold", "line": {"family": "V", "at": "1"}, "moves": "left", "front": False}],
     "punches": [{"x": "3/2", "y": "1/2", "shape": "star", "size": "large", "direction": 90}]},
    {"id": "box", "sheet": {"cols": 3, "rows": 2},
     "actions": [{"type": "fold", "line": {"family": "H", "box": "1/2"}, "moves": "smaller", "tie": "below"},
                 {"type": "rotate", "degrees": 90}, {"type": "flip"}],
     "punches": [{"x": "5/2", "y": "1/2"}, {"x": "3/2", "y": "3/2"}]},
    {"id": "away", "sheet": {"cols": 3, "rows": 2},
     "actions": [{"type": "fold", "line": {"family": "N", "at": 2}, "moves": "away_from", "point": ["5/2", "3/2"]}],
     "punches": [{"x": 1.5, "y": "1.5"}]},
    {"id": "square", "sheet": {"cols": 2, "rows": 2},
     "actions": [{"type": "fold", "line": {"family": "D", "box": "1/2", "square": True}, "moves": "upper_left"}],
     "punches": [{"x": "3/2", "y": "1/2"}]},
]
#: numbers and values a reader must refuse or read exactly, never expand or crash on
HOSTILE_NUMBERS = ["1e99999999", "-1e9999999", "1e-99999999", "1/0", "0/0", "nan", "inf", "-inf", "1_000", "0x10",
                   " 1/2 ", "1/99999999999", "9" * 41, "1e40", "1e41", 10 ** 400, -(10 ** 400), 2 ** 63, 3e9, 1e308,
                   1e-300, -0.0, float("nan"), float("inf"), 0.1, 1 / 3, True, False, None, [], {}, [1], ["1", "2"],
                   {"x": 1}, "", " ", "\u0661", "1/-2", "+1/2", ".5", "5.", "1e+2", "-", "/", "1//2"]
SCALARS = st.one_of(st.sampled_from(HOSTILE_NUMBERS), st.integers(-(2 ** 70), 2 ** 70), st.text(max_size=8),
                    st.sampled_from(["H", "V", "D", "N", "left", "smaller", "away_from", "fold", "rotate", "flip",
                                     "circle", "blob", "huge", "small", "true", "false", "no"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                         max_size=3), max_leaves=6)
OPS = st.sampled_from(["set", "set", "set", "delete", "wrap", "stringify", "hostile"])


@pytest.fixture(scope="module")
def family_records() -> list[dict]:
    """One generated record of each general family (the generators' own items and options)."""
    from foldsim.families.generate import generate_family
    from foldsim.families.registry import GENERAL_FAMILIES, family

    return [generate_family(family(name), 1, 7)[0] for name in GENERAL_FAMILIES]


@pytest.fixture(scope="module")
def baseline(family_records) -> dict:
    """Each good record's answer alone: what it must still get beside mutated ones."""
    results = simulate(GENERAL)
    assert all(r.ok for r in results), results
    answers = {r.id: r.to_json() for r in results}
    verdicts = {i.id: i.to_json() for i in audit_records(family_records).items}
    assert all(v["verdict"] == "ok" for v in verdicts.values()), verdicts
    return {"simulate": answers, "audit": verdicts}


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path into a record's dicts and lists, plus a new key "x" in each dict."""
    return hostile.paths(value, prefix)


def mutated(record: dict, path: tuple, op: str, value: object, choice: int) -> dict:
    if op == "hostile":
        return hostile.hostile(record, path, hostile.KINDS[choice % len(hostile.KINDS)], choice)
    out = copy.deepcopy(record)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    old = parent[key] if isinstance(parent, list) or key in parent else None
    if op == "delete":
        if isinstance(parent, list) or key in parent:
            del parent[key]
    else:
        parent[key] = {"set": value, "wrap": [old], "stringify": str(old)}[op]
    return out


@st.composite
def batches(draw, pool: list[dict]) -> tuple[list, set[int], bool]:
    """1-5 records of the pool, some changed at one path: (records, indices changed, whether some
    change is one of tests/hostile.py's structures, which no JSON file can hold)."""
    records, changed, structures = [], set(), False
    for index in range(draw(st.integers(1, 5))):
        record = pool[draw(st.integers(0, len(pool) - 1))]
        if draw(st.booleans()):
            op = draw(OPS)
            record = mutated(record, draw(st.sampled_from(paths(record))), op, draw(VALUES), draw(st.integers(0, 20)))
            changed.add(index)
            structures |= op == "hostile"
        records.append(record)
    return records, changed, structures


def as_file_text(records: list, jsonl: bool) -> str | None:
    """The records as a JSON or JSON Lines text; None when no JSON can hold them (huge ints). Never
    called on hostile structures: a cycle or a 2**24-leaf fan-out would be written out in full."""
    try:
        if jsonl:
            return "\n".join(json.dumps(r) for r in records) + "\n"
        return json.dumps(records)
    except (ValueError, TypeError, RecursionError):
        return None


def assert_results(records: list, changed: set[int], results: list, good: dict, names: list[str]) -> None:
    assert len(results) == len(records)
    for index, result in enumerate(results):
        data = result.to_json()
        if result.status == STATUS_INVALID:
            assert "internal error" not in result.reason, result.reason
            assert "\n" not in result.reason and len(result.reason) < 600, result.reason
            assert result.reason.startswith(f"{result.id}: "), result.reason
        if index not in changed:
            assert data == good[records[index]["id"]], (data, good[records[index]["id"]])
        elif not (isinstance(records[index], dict) and isinstance(records[index].get("id"), str)
                  and records[index]["id"]):
            assert result.status != STATUS_INVALID or result.id == names[index], (result.id, names[index])


@fuzz_settings(0.5)
@given(data=st.data())
def test_mutated_general_records_through_the_reader_and_simulate(baseline, data):
    records, changed, structures = data.draw(batches(GENERAL))
    results = simulate(records)
    assert_results(records, changed, results, baseline["simulate"], [f"item {i}" for i in range(len(records))])
    jsonl = data.draw(st.booleans())
    text = None if structures else as_file_text(records, jsonl)
    if text is not None:
        read = parse_records(text, "items.jsonl" if jsonl else "items.json", jsonl=jsonl)
        names = [f"line {i + 1}" if jsonl else f"item {i}" for i in range(len(records))]
        assert_results(records, changed, simulate(read), baseline["simulate"], names)


@fuzz_settings(0.1)
@given(data=st.data())
def test_mutated_general_records_through_the_fold_export(data):
    from foldsim.foldfile import fold_document

    [record], _, _ = data.draw(batches(GENERAL).filter(lambda b: len(b[0]) == 1))
    try:
        document = fold_document(record, index=0)
    except InputError as err:
        assert "internal error" not in str(err) and "\n" not in str(err), str(err)
    else:
        json.dumps(document)  # every FOLD document is plain JSON (no Fraction, no raw strings as points)
        for action in document["foldsim:item"]["actions"]:
            point = action.get("point")
            assert point is None or (len(point) == 2 and all(isinstance(v, str) and "/" in v or v.lstrip("-").isdigit()
                                                             for v in point)), point


@fuzz_settings(0.3)
@given(data=st.data())
def test_mutated_family_records_through_audit(family_records, baseline, data):
    records, changed, _ = data.draw(batches(family_records))
    report = audit_records(records)
    assert len(report.items) == len(records)
    for index, item in enumerate(report.items):
        if item.verdict == INVALID:
            assert "internal error" not in item.reason and "\n" not in item.reason, item.reason
            assert item.reason.startswith(f"{item.id}: "), item.reason
        if index not in changed:
            assert item.to_json() == baseline["audit"][records[index]["id"]]
