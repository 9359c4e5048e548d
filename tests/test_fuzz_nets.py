"""Fuzzing cube nets (issue 25): random polyominoes (any size up to 9 cells, in pieces or not), random
hinge trees and cuts, random labels and patterns, folded by the batched engine and rolled by the
independent reference, which must agree on the reason, every face's side and pattern turn, the
opposite map and every view; and random data through the net reader, which must return a net or
one InputError naming its field, nothing else. Engine calls are padded to one shape (MAX_FACES) so
the module compiles once; examples scale with FOLDSIM_FUZZ_EXAMPLES (conftest.fuzz_settings)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import fuzz_settings
from foldsim import nets_reference as R
from foldsim.errors import InputError
from foldsim.nets import Hinge, Pattern, fold_nets, flat_neighbours, make_net, net_from_record, net_to_record

pytestmark = pytest.mark.fuzz

MAX_FACES = 9
STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1))


@st.composite
def polyominoes(draw):
    """Cells grown from (0, 0) by random steps, sometimes with a stray cell apart, in random order."""
    size = draw(st.integers(1, MAX_FACES))
    cells = [(0, 0)]
    while len(cells) < size:
        x, y = draw(st.sampled_from(cells))
        dx, dy = draw(st.sampled_from(STEPS))
        if (x + dx, y + dy) not in cells:
            cells.append((x + dx, y + dy))
    if size < MAX_FACES and draw(st.booleans()):
        far = (draw(st.integers(-4, 4)), draw(st.integers(6, 9)))
        cells.append(far)
    return draw(st.permutations(cells))


@st.composite
def nets(draw):
    cells = draw(polyominoes())
    labels = [f"L{i}" for i in draw(st.permutations(range(len(cells))))]
    patterns = [Pattern(draw(st.integers(0, 3)), draw(st.booleans())) for _ in cells]
    neighbours = flat_neighbours(cells)
    how = draw(st.sampled_from(("default", "cuts", "tree")))
    if how == "cuts":
        cuts = [p for p in neighbours if draw(st.integers(0, 4)) == 0]
        return make_net(cells, labels, patterns, cuts=cuts)
    if how == "tree":  # a random spanning forest: neighbours in random order, kept when they join pieces
        root = list(range(len(cells)))

        def find(i):
            while root[i] != i:
                i = root[i]
            return i

        hinges = []
        for a, b in draw(st.permutations(neighbours)):
            if find(a) != find(b):
                root[find(a)] = find(b)
                hinges.append(Hinge(a, b) if draw(st.booleans()) else Hinge(b, a))
        return make_net(cells, labels, patterns, hinges=hinges)
    return make_net(cells, labels, patterns)


@fuzz_settings(0.1)
@given(nets())
def test_engine_and_reference_agree_on_random_nets(net):
    [folded] = fold_nets([net], MAX_FACES)
    rolled = R.roll(net)
    assert folded.reason == rolled.reason
    assert [f.side for f in folded.faces] == list(rolled.sides)
    assert [f.turn for f in folded.faces] == list(rolled.turns)
    assert [f.mirror for f in folded.faces] == [p.mirror for p in net.patterns]
    assert folded.opposite == rolled.opposite
    # every view, for any net: a side with no face reads (None, 0, False); with several, the lowest face
    assert [[(s.label, s.turn, s.mirror) for s in v] for v in folded.views] == [list(v) for v in rolled.views]
    assert net_from_record(json.loads(json.dumps(net_to_record(net)))) == net


JSON = st.recursive(st.none() | st.booleans() | st.integers(-300, 300) | st.floats(allow_nan=True) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
FIELDS = ("cells", "labels", "patterns", "hinges", "cuts", "id")


@st.composite
def records(draw):
    """A good record with some fields (or parts of them) replaced by random JSON."""
    record = net_to_record(draw(nets()))
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=3)):
        value = record.get(field)
        if isinstance(value, list) and value and draw(st.booleans()):
            value = list(value)
            value[draw(st.integers(0, len(value) - 1))] = draw(JSON)
            record[field] = value
        else:
            record[field] = draw(JSON)
    if draw(st.booleans()):
        del record["hinges"]
    return record if draw(st.integers(0, 9)) else draw(JSON)


@fuzz_settings(0.1)
@given(records())
def test_the_reader_returns_a_net_or_names_the_field(record):
    try:
        net = net_from_record(record, index=0)
    except InputError as err:
        text = str(err)
        assert "\n" not in text and text
        assert err.item is not None
        assert err.field is None or err.field.split(".")[0].split("[")[0] in FIELDS
        return
    assert 1 <= len(net.cells) <= 64 and len(net.labels) == len(net.cells)
