"""`foldsim simulate` and `foldsim fold` on fold-and-cut items (polygon sheets) and cube nets: the
record-kind rule (foldsim.record_kinds), mixed batches where one bad item never stops the others,
hostile records (tests/hostile.py) answered with one line each, and FOLD files of polygon sheets
read by npm `fold` and Rabbit Ear (tests/node, as tests/test_foldfile.py reads the rectangular
ones)."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

import hostile as H
from cli_invoke import invoke
from foldsim.config import Config
from foldsim.cutfold import cut_item, cut_item_from_record
from foldsim.holes import Hole
from foldsim.nets import fold_net, net_from_record
from foldsim.record_kinds import KIND_CUT, KIND_NET, KIND_OTHER, record_kind, simulate_answers

CUT = {"id": "cut_fold", "sheet": {"preset": "square"},
       "steps": [{"type": "Hori_Left", "rate": "1/2"}, {"type": "angle", "p1": [0, "1/2"], "p2": ["1/2", 0]}],
       "cuts": [{"polygon": [[20, 250], [60, 250], [60, 290], [20, 290]]},
                {"circle": {"centre": [-60, 300], "radius": 20, "sides": 8}}]}
NET = {"id": "cross", "cells": [[1, 2], [0, 1], [1, 1], [2, 1], [3, 1], [1, 0]]}
NOT_A_CUBE = {"id": "square_ring", "cells": [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [2, 1]]}
GENERAL = {"id": "general", "sheet": {"cols": 2, "rows": 2}, "actions": [], "punches": [{"x": "1/2", "y": "1/2"}]}
_CONFIG = Config.from_codes("V1-F", [Hole.make("circle", "small", "", 6)], id="mb")
MB = {"id": "mb", "foldingTypes": _CONFIG.folding_types(), "initialHoles": [h.to_dict() for h in _CONFIG.holes]}


def test_the_rule_tells_the_kinds_apart_by_their_fields():
    assert record_kind(CUT) == KIND_CUT
    assert record_kind(NET) == KIND_NET
    assert record_kind({**NET, "cuts": [[0, 1]]}) == KIND_NET  # a net's unhinged edges: cells decides first
    assert [record_kind(r) for r in (GENERAL, MB, [], "x", None)] == [KIND_OTHER] * 5


def test_simulate_answers_a_mixed_batch_in_order(tmp_path):
    bad_cut = {"id": "bad_cut", "sheet": {"preset": "square"}, "steps": [], "cuts": []}
    bad_net = {"id": "bad_net", "cells": [[0, 0], [0, 0]]}
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([CUT, NET, GENERAL, bad_cut, MB, NOT_A_CUBE, bad_net]))
    done = invoke("simulate", path)
    assert done.exit_code == 1
    answers = json.loads(done.stdout)
    assert [a["id"] for a in answers] == ["cut_fold", "cross", "general", "bad_cut", "mb", "square_ring", "bad_net"]
    assert answers[0] == cut_item(cut_item_from_record(CUT)).to_json()
    assert answers[0]["status"] == "ok" and answers[0]["count"] >= 1
    folded = fold_net(net_from_record(NET))
    assert answers[1]["valid"] is True and answers[1]["validity"] == "valid"
    assert answers[1]["opposite"] == folded.opposite and len(answers[1]["faces"]) == 6
    assert answers[5]["valid"] is False and answers[5]["validity"] == fold_net(net_from_record(NOT_A_CUBE)).reason
    assert answers[2]["status"] == answers[4]["status"] == "ok"  # today's records, answered as today
    assert [a["status"] for a in answers].count("invalid") == 2
    lines = done.stderr.strip().splitlines()
    assert lines == [f"error: {path}: bad_cut: cuts: must hold 1 to 8 cut shapes, got 0",
                     f"error: {path}: bad_net: cells[1]: repeats cell [0, 0] of cells[0]"]


def test_today_batches_answer_as_before():
    """A batch with no net or cut record goes to foldsim.simulate unchanged."""
    from foldsim.simulate import simulate

    assert simulate_answers([GENERAL, MB]) == [r.to_json() for r in simulate([GENERAL, MB])]


def test_id_less_records_are_named_by_their_line(tmp_path):
    path = tmp_path / "items.jsonl"
    records = [CUT, {k: v for k, v in CUT.items() if k != "id"} | {"cuts": "x"}, {"cells": [[0, 0]] * 2},
               {k: v for k, v in GENERAL.items() if k != "id"} | {"actions": "x"}]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    done = invoke("simulate", path)
    assert done.exit_code == 1
    assert [a["id"] for a in json.loads(done.stdout)] == ["cut_fold", "line 2", "line 3", "line 4"]
    errors = done.stderr.strip().splitlines()
    assert [e.split(": ")[2] for e in errors] == ["line 2", "line 3", "line 4"]


def test_bounds_are_refused_before_work():
    too_many_folds = {**CUT, "steps": [{"type": "Hori_Left", "rate": "1/2"}] * 11}
    too_many_cells = {"id": "wide", "cells": [[x, 0] for x in range(65)]}
    huge = {**CUT, "cuts": [{"circle": {"centre": [0, 0], "radius": 1, "sides": 4096}}]}
    answers = simulate_answers([too_many_folds, too_many_cells, huge])
    assert [a["status"] for a in answers] == ["invalid"] * 3
    assert "at most 10 folds" in answers[0]["reason"]
    assert "1 to 64 cells" in answers[1]["reason"]
    assert "multiple of 4 from 8 to 64" in answers[2]["reason"]


@pytest.mark.parametrize("kind", H.KINDS)
@pytest.mark.parametrize("base", [CUT, NET], ids=["cut", "net"])
def test_hostile_records_get_one_line_each(base, kind):
    """Every place of a cut or net record made hostile (tests/hostile.py): an answer per record,
    the others untouched, never an internal error; a refusal is one line naming the item."""
    for path in H.paths(base):
        for choice in (0, 1):
            record = H.hostile(base, path, kind, choice)
            answers = simulate_answers([record, NET])
            assert len(answers) == 2 and answers[1]["valid"] is True
            answer = answers[0]
            assert answer["status"] in ("ok", "invalid", "not_realizable", "off_paper"), (path, answer)
            if answer["status"] == "invalid":
                assert "internal error" not in answer["reason"], (path, kind, answer["reason"])
                assert "\n" not in answer["reason"] and len(answer["reason"]) < 400


def test_simulate_hostile_json_files(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps([{**CUT, "cuts": "DEEP"}, NET]).replace('"DEEP"', "[" * 5000 + "]" * 5000))
    huge = tmp_path / "huge.jsonl"
    huge.write_text(json.dumps(NET) + "\n" + json.dumps(CUT).replace('"1/2"', "1" + "0" * 5000, 1) + "\n")
    done = invoke("simulate", deep, huge)
    assert done.exit_code in (1, 2)
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert all(line.startswith("error: ") for line in done.stderr.strip().splitlines())


def test_an_exact_answer_through_the_command(tmp_path):
    """One Hori_Left fold of the 360-pixel square, a 50 x 50 square cut over the crease at x = 180:
    one cut-out of 2 x 30 x 50 across the crease (the two layers' pieces join)."""
    record = {"id": "straddle", "sheet": {"preset": "square"}, "steps": [{"type": "Hori_Left", "rate": "1/2"}],
              "cuts": [{"polygon": [[150, 150], [200, 150], [200, 200], [150, 200]]}]}
    path = tmp_path / "one.json"
    path.write_text(json.dumps([record]))
    [answer] = json.loads(invoke("simulate", path).stdout)
    assert answer["count"] == 1 and F(answer["area"]) == 2 * 30 * 50
    assert answer["cutouts"][0]["layers"] == [0, 1]
