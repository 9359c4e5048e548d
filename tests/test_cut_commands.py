"""`foldsim simulate` and `foldsim fold` on fold-and-cut items (polygon sheets) and cube nets: the
record-kind rule (foldsim.record_kinds), mixed batches where one bad item never stops the others,
hostile records (tests/hostile.py) answered with one line each, and FOLD files of polygon sheets
read by npm `fold` and Rabbit Ear (tests/node, as tests/test_foldfile.py reads the rectangular
ones)."""

from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest

import hostile as H
from cli_invoke import invoke
from foldsim.config import Config
from foldsim.cut_fold_file import cut_fold_document
from foldsim.cutfold import cut_item, cut_item_from_record
from foldsim.holes import Hole
from foldsim.nets import fold_net, net_from_record
from foldsim.polygons import area
from foldsim.record_kinds import KIND_CUT, KIND_NET, KIND_OTHER, record_kind, simulate_answers
from test_foldfile import canonical_cycle, check_orders, frame, node_readers, signed_area

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


# -- FOLD files of polygon sheets ---------------------------------------------------------------------

FOLD_ITEMS = {
    # docs/cutting.md's example: the hexagon's two top corners as one step (a group), a snapped Rate
    # fold, then a partial fold of the top two layers
    "hexagon_group_partial": {
        "id": "hexagon_group_partial", "sheet": {"preset": "hexagon"},
        "steps": [{"group": [{"type": "angle", "p1": ["4/9", 0], "p2": [0, "4/9"]},
                             {"type": "angle", "p1": [1, "4/9"], "p2": ["5/9", 0]}]},
                  {"type": "Hori_Right", "rate": "1/2", "snap": 1},
                  {"type": "Hori_Left", "rate": "1/2", "layers": 2}],
        "cuts": [{"circle": {"centre": [250, 200], "radius": 35}},
                 {"polygon": [[220, 150], [265, 150], [265, 210], [220, 210]]}]},
    # a Rate fold, then a diagonal through points of the sheet's box
    "square_angle": CUT,
    # a non-convex sheet (PFP's star): faces that are not convex
    "star": {"id": "star", "sheet": {"preset": "star"}, "steps": [{"type": "Hori_Left", "rate": "1/2"}],
             "cuts": [{"polygon": [[150, 150], [200, 150], [200, 200], [150, 200]]}]},
    # a line of direction (3, 4) (neither axis nor 45 degrees), then Vert_Top of the folded box
    "house_rational_line": {
        "id": "house_rational_line", "sheet": {"preset": "house"},
        "steps": [{"type": "line", "p1": [100, 0], "p2": [103, 4]}, {"type": "Vert_Top", "rate": "1/3"}],
        "cuts": [{"polygon": [[120, 280], [160, 280], [140, 320]]}]},
}
FOLD_TOL = 1e-6


def rigid_fit(theirs, ours) -> None:
    """AssertionError unless one isometry of the plane (a rotation or a reflection, by any angle:
    the folds are along rational lines) maps `theirs` onto `ours` within FOLD_TOL."""
    a, b = np.asarray(theirs, float)[:, :2], np.asarray(ours, float)
    ca, cb = a - a.mean(0), b - b.mean(0)
    best = np.inf
    for flip in (np.eye(2), np.diag([1.0, -1.0])):
        u, _, vt = np.linalg.svd((ca @ flip).T @ cb)
        rotation = u @ vt
        if np.linalg.det(rotation) < 0:
            continue
        best = min(best, np.abs(ca @ flip @ rotation - cb).max())
    assert best < FOLD_TOL, f"no isometry maps the reader's coordinates onto ours (off by {best})"


@pytest.fixture(scope="module")
def cut_exported(tmp_path_factory) -> dict:
    """name -> (record, FOLD document, the node readers' report), through `foldsim fold`."""
    folder = tmp_path_factory.mktemp("cutfold")
    source = folder / "items.json"
    source.write_text(json.dumps(list(FOLD_ITEMS.values())))
    done = invoke("fold", source, "--out", folder / "out")
    assert done.exit_code == 0, done.stderr
    paths = [folder / "out" / f"{record['id']}.fold" for record in FOLD_ITEMS.values()]
    reports = node_readers(paths)
    return {name: (FOLD_ITEMS[name], json.loads(path.read_text()), reports[str(path)])
            for name, path in zip(FOLD_ITEMS, paths)}


@pytest.mark.parametrize("name", FOLD_ITEMS)
def test_npm_fold_rebuilds_our_polygon_crease_pattern(cut_exported, name):
    """npm `fold`: the faces of our planar graph (vertices and edges alone) are our faces; borders
    have one face, creases two; reflecting across every crease closes up and gives our final frame."""
    _, doc, report = cut_exported[name]
    got = report["fold"]
    assert got["counts"] == {"vertices": len(doc["vertices_coords"]), "edges": len(doc["edges_vertices"]),
                             "faces": len(doc["faces_vertices"])}
    assert {canonical_cycle(f) for f in got["planarFaces"]} == {canonical_cycle(f) for f in doc["faces_vertices"]}
    for e, faces in enumerate(got["edges_faces"]):
        assert len([f for f in faces if f is not None]) == (1 if doc["edges_assignment"][e] == "B" else 2)
    assert got["boundaryEdges"] == [e for e, a in enumerate(doc["edges_assignment"]) if a == "B"]
    assert got["flatFoldError"] < FOLD_TOL
    last = frame(doc, len(doc["file_frames"]))
    rigid_fit(got["flatFoldCoords"], last["vertices_coords"])
    ours = [np.sign(signed_area([last["vertices_coords"][v] for v in face])) for face in doc["faces_vertices"]]
    assert [o * ours[0] for o in ours] == got["flatFoldOrientation"]


@pytest.mark.parametrize("name", FOLD_ITEMS)
def test_rabbit_ear_folds_and_layers_our_polygon_frames(cut_exported, name):
    """Rabbit Ear, frame by frame: folding the crease pattern by the frame's assignments (2-D, and
    3-D by fold angles, flat) gives the frame's coordinates; its layer solver allows our face orders
    (the key frame's state is the last frame's)."""
    record, doc, report = cut_exported[name]
    frames = report["rabbitEar"]
    folds = sum(len(s["group"]) if "group" in s else 1 for s in record["steps"])
    assert len(frames) == 1 + len(doc["file_frames"]) == 1 + folds
    for k, got in enumerate(frames):
        ours = frame(doc, k if k else len(frames) - 1)["vertices_coords"]
        rigid_fit(got["coords2d"], ours)
        assert np.abs(np.asarray(got["coords3d"])[:, 2]).max() < FOLD_TOL, f"frame {k}: not flat"
    for k in range(1, len(frames)):
        check_orders(frames[k], frame(doc, k)["faceOrders"], f"frame {k}")
    check_orders(frames[0], frame(doc, len(frames) - 1)["faceOrders"], "key frame")


@pytest.mark.parametrize("name", FOLD_ITEMS)
def test_polygon_fold_files_are_exact(cut_exported, name):
    """The exact coordinates are what the floats round from; the faces tile the sheet exactly; each
    frame's vertices are the engine's layers placed exactly; the cut-outs are the engine's."""
    record, doc, _ = cut_exported[name]
    item = cut_item_from_record(record)
    result = cut_item(item)
    exact = [(F(x), F(y)) for x, y in doc["vertices_foldsim:exactCoords"]]
    assert [[float(x), float(y)] for x, y in exact] == doc["vertices_coords"]
    assert sum(area([exact[v] for v in face]) for face in doc["faces_vertices"]) == item.sheet.area
    assert doc["foldsim:cutouts"] == [c.to_dict() for c in result.cutouts]
    assert cut_item_from_record(doc["foldsim:item"]) == item
    final = [(F(x), F(y)) for x, y in doc["file_frames"][-1]["vertices_foldsim:exactCoords"]]
    for f, face in enumerate(doc["faces_vertices"]):  # face f is the final layer f, placed by its isometry
        layer = result.final[f]
        assert [final[v] for v in face] == [layer.iso.apply(exact[v]) for v in face]
    assert doc["edges_assignment"] == doc["file_frames"][-1]["edges_assignment"]
    assert set(doc["edges_assignment"]) <= {"B", "M", "V"}
    assert ("convexFaces" in doc["frame_attributes"]) == (name != "star")


def test_a_polygon_valley_fold_by_hand():
    """The square's right half folded over its left (Hori_Left): one valley crease at x = 180, the
    right face face down on top: [0, 1, +1] (face 0 lies on the side face 1's normal points to)."""
    record = {"id": "half", "sheet": {"preset": "square"}, "steps": [{"type": "Hori_Left", "rate": "1/2"}],
              "cuts": [{"polygon": [[10, 10], [20, 10], [20, 20]]}]}
    doc = cut_fold_document(cut_item_from_record(record))
    crease = [e for e, a in enumerate(doc["edges_assignment"]) if a != "B"]
    assert len(crease) == 1 and doc["edges_assignment"][crease[0]] == "V"
    assert sorted(doc["vertices_coords"][v][0] for v in doc["edges_vertices"][crease[0]]) == [180.0, 180.0]
    assert doc["file_frames"][0]["faceOrders"] == [[0, 1, 1]]


def test_fold_command_errors_one_line_each(tmp_path):
    """Not realizable, a cut over no paper, a cube net, an unreadable cut record: one line each; the
    good item is written."""
    tearing = {**FOLD_ITEMS["hexagon_group_partial"], "id": "tearing"}
    tearing["steps"] = [*tearing["steps"][:2], {"type": "Hori_Left", "rate": "1/2", "layers": 1}]
    off = {**CUT, "id": "off", "cuts": [{"polygon": [[900, 900], [950, 900], [950, 950]]}]}
    source = tmp_path / "items.jsonl"
    rows = [CUT, tearing, off, NET, {k: v for k, v in CUT.items() if k != "id"} | {"steps": 3}]
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    done = invoke("fold", source, "--out", tmp_path / "out", "--json")
    assert done.exit_code == 1
    assert json.loads(done.stdout)["files"] == ["cut_fold.fold"]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 4 and all(line.startswith(f"error: {source}: ") for line in lines)
    assert "tearing: not_realizable: step 3" in lines[0] and "off: off_paper: cut 1" in lines[1]
    assert "cross: is a cube net" in lines[2] and "line 5: steps: must be a list" in lines[3]


@pytest.mark.parametrize("kind", H.KINDS)
def test_fold_hostile_cut_records(kind):
    """A FOLD file or one line for every place of a cut record made hostile; never an internal error."""
    from foldsim.cli.fold import any_fold_document
    from foldsim.errors import InputError

    for path in H.paths(CUT):
        record = H.hostile(CUT, path, kind, 1)
        try:
            any_fold_document(record, 0, "item 0")
        except InputError as error:
            assert "\n" not in str(error) and len(str(error)) < 400


def test_layer_history_is_the_layer_holding_each_face():
    """cut_history.layer_history (replaying the folds on one point) names, for every state of
    random items (tests/cut_items.py: PFP's sheets, the star and a notched L, groups, partial
    folds), the layer whose pieces hold the final layer's inside point: the brute-force definition."""
    import random

    from cut_items import random_item
    from foldsim.cut_history import inside_point, layer_history
    from foldsim.polygons import point_in_polygon

    rng, checked = random.Random(27), 0
    for index in range(40):
        item = random_item(rng, index)
        result = cut_item(item)
        if result.status == "not_realizable":
            continue
        states = [layers for step in result.states for layers in step]
        held = layer_history(item, result)
        assert len(held) == len(states)
        for state, row in zip(states, held):
            for layer, holder in zip(result.final, row):
                assert any(point_in_polygon(inside_point(layer), part) > 0 for part in state[holder].parts)
                checked += 1
    assert checked > 100


def test_fold_files_are_bounded_by_faces():
    """Past MAX_FOLD_FACES final layers the item is one error line, before the face orders."""
    from foldsim.cut_fold_file import MAX_FOLD_FACES, FoldExportError

    halves = [{"type": ("Hori_Left", "Vert_Top")[i % 2], "rate": "1/2"} for i in range(8)]  # 256 layers
    record = {"id": "many", "sheet": {"preset": "square"}, "steps": halves,
              "cuts": [{"polygon": [[1, 359], [5, 359], [5, 355]]}]}
    with pytest.raises(FoldExportError, match=f"256 layers are more faces than the {MAX_FOLD_FACES}"):
        cut_fold_document(cut_item_from_record(record))


def test_fold_file_names_never_leave_out(tmp_path):
    """A cut item's id becomes its file name through the one sanitiser (foldsim.io.FileNames): inside
    --out, and two ids that sanitise alike get two files."""
    source = tmp_path / "items.json"
    source.write_text(json.dumps([{**CUT, "id": "../../escape"}, {**CUT, "id": "..\\..\\escape"}]))
    out = tmp_path / "out"
    done = invoke("fold", source, "--out", out, "--json")
    assert done.exit_code == 0, done.stderr
    files = json.loads(done.stdout)["files"]
    assert len(set(files)) == 2
    written = [p for p in tmp_path.rglob("*.fold")]
    assert len(written) == 2 and all(p.parent == out for p in written)
