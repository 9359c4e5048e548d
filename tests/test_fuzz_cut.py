"""Fuzzing fold and cut (docs/cutting.md): the engine (foldsim.cutfold) against the independent point
reference (foldsim.cut_reference) on ITEMS seeded random items (100 in `make test`, 2,500 under
`make fuzz`), and mutated item records: every record is read into an item or refused with one
InputError line naming the field, and every item read folds and cuts to a status, never an
exception."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FUZZ_EXAMPLES, fuzz_settings
from cut_items import Agreement, compare, random_item
from foldsim.cutfold import cut_item, cut_item_from_record, cut_item_to_record
from foldsim.errors import InputError

pytestmark = pytest.mark.fuzz


#: random items compared: 100 in `make test` (a few seconds), 2,500 under `make fuzz` (10,000 examples)
ITEMS = max(8, FUZZ_EXAMPLES // 4 if FUZZ_EXAMPLES >= 10_000 else FUZZ_EXAMPLES // 20)


def test_engine_agrees_with_the_reference_on_many_random_items():
    rng = random.Random(2027)
    tally = Agreement()
    for index in range(ITEMS):
        compare(random_item(rng, index), tally, grid=10)
    print(tally)
    assert tally.compared >= tally.items // 5, tally


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**7, 10**7) | st.text(max_size=12)
                    | st.sampled_from(["1/3", "0.5", "Hori_Left", "line", "angle", "square", "-1/0"]),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
FIELDS = ("sheet", "steps", "cuts", "preset", "vertices", "type", "rate", "snap", "layers", "p1", "p2", "group",
          "polygon", "circle", "centre", "radius", "sides")


def _base() -> dict:
    return cut_item_to_record(random_item(random.Random(11), 0))


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from _paths(inner, (*prefix, i))


@fuzz_settings(share=0.25)
@given(st.data())
def test_mutated_records_are_read_or_refused_in_one_line(data):
    record = copy.deepcopy(_base())
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(record) if p]
        path = data.draw(st.sampled_from(paths))
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            parent[data.draw(st.sampled_from(FIELDS))] = data.draw(JSON)
        else:
            parent[path[-1]] = data.draw(JSON)
    try:
        item = cut_item_from_record(record, index=0)
    except InputError as err:
        label = record["id"][:80] if isinstance(record.get("id"), str) and record["id"].strip() else "item 0"
        assert "\n" not in str(err) and str(err).startswith(f"{label}: ") and err.field, str(err)
        return
    assert cut_item(item).status in ("ok", "not_realizable", "off_paper")
