"""FOLD export (foldsim.foldfile, `foldsim fold`), checked by loading the files in two real FOLD
readers run with Node (tests/node: the npm packages `fold` and `rabbit-ear`, pinned): the folded
coordinates they compute from our crease pattern and its M/V assignment must be our foldedForm
frames (up to one isometry of the plane), the faces they rebuild from our vertices and edges must be
ours, and Rabbit Ear's layer solver must allow our face orders (equal where it forces them).

Node and the npm packages are required: `make test` installs them (npm ci --prefix tests/node);
without them these tests fail, saying so, rather than skip."""

from __future__ import annotations

import json
import shutil
import subprocess
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.config import Config
from foldsim.foldfile import fold_document
from foldsim.holes import Hole
from foldsim.sheets import Flip, Fold, Line, Punch, Rotate, SheetItem, SheetSpec, item_from_record

NODE_DIR = Path(__file__).parent / "node"
Q = Fraction
TOL = 1e-9


def general(id, cols, rows, actions, punches):
    return SheetItem(SheetSpec(cols, rows), tuple(actions), tuple(Punch(*p) for p in punches), id=id)


def mb_record(item_id: str, codes: str, holes) -> dict:
    config = Config.from_codes(codes, [Hole.make(*h) for h in holes], id=item_id)
    return {"id": item_id, "foldingTypes": config.folding_types(), "initialHoles": [h.to_dict() for h in config.holes]}


ITEMS = {
    # SpatialViz-like: fold at the 3rd grid line of a 5x5 sheet (the smaller side moves), then a 45°
    # corner fold of the folded rectangle
    "spatialviz_5x5": general("spatialviz_5x5", 5, 5, [
        Fold(Line("V", at=3)),
        Fold(Line("N", at=7), moves="upper_right"),
    ], [(Q(1, 2), Q(1, 2)), (Q(5, 2), Q(7, 2)), (Q(3, 2), Q(9, 2))]),
    # VisFactor-like: the larger two thirds fold over the left third and overhang it, then a fold at
    # one third of the new box's height, away from the viewer
    "visfactor_3x3_overhang": general("visfactor_3x3_overhang", 3, 3, [
        Fold(Line("V", at=1), moves="right"),
        Fold(Line.box("H", Q(1, 3)), moves="below", front=False),
    ], [(Q(-1, 2), Q(3, 2)), (Q(1, 2), Q(5, 2))]),
    # a punch on a crease (one hole per distinct position) and one beside it
    "punch_on_crease": general("punch_on_crease", 4, 4, [
        Fold(Line("V", at=2), moves="left"),
        Fold(Line("D", at=0), moves="upper_left", front=False),
    ], [(Q(2), Q(1, 2)), (Q(7, 2), Q(3, 2))]),
    # MentalBlackboard-like 4x4 as a general item: box midline and box diagonal folds, a rotation, a flip
    "mentalblackboard_like_4x4": general("mentalblackboard_like_4x4", 4, 4, [
        Fold(Line.box("H"), moves="above"),
        Fold(Line.box("V"), moves="left", front=False),
        Rotate(1),
        Flip(),
        Fold(Line.box("D", square=True), moves="upper_left"),
    ], [(Q(3, 2), Q(5, 2)), (Q(5, 3), Q(7, 3))]),
    # a fold at a third of a cell (the mesh refines to thirds) on a non-square sheet
    "thirds_3x2": general("thirds_3x2", 3, 2, [
        Fold(Line("V", at=Q(7, 3)), moves="right"),
        Fold(Line("H", at=Q(2, 3)), moves="below"),
    ], [(Q(1, 2), Q(3, 2))]),
}
MB_ITEMS = {
    # a real MentalBlackboard record through the preset (its 32 rigid triangles)
    "mb_record": mb_record("mb_record", "V1-F,H1-F,D1-B,R-90", (("star", "large", 0, 6), ("circle", "small", "", 16))),
}


# -- running the readers ----------------------------------------------------------------------------


def node_readers(paths: list[Path]) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is not installed: the FOLD reader tests need `node` (v18+) and the npm packages of "
                    "tests/node (`make test` runs `npm ci --prefix tests/node`)")
    for package in ("fold", "rabbit-ear"):
        if not (NODE_DIR / "node_modules" / package / "package.json").exists():
            pytest.fail(f"the npm package {package!r} is not installed in tests/node: run `npm ci --prefix tests/node` "
                        "(`make test` does)")
    done = subprocess.run([node, str(NODE_DIR / "readers.js"), *map(str, paths)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"readers.js failed:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    """name -> (item, FOLD document, the readers' report)."""
    folder = tmp_path_factory.mktemp("fold")
    docs, paths = {}, []
    for name, item in {**ITEMS, **MB_ITEMS}.items():
        docs[name] = (item, fold_document(item))
        path = folder / f"{name}.fold"
        path.write_text(json.dumps(docs[name][1]))
        paths.append(path)
    reports = node_readers(paths)
    return {name: (*docs[name], reports[str(path)]) for name, path in zip(docs, paths)}


NAMES = [*ITEMS, *MB_ITEMS]


# -- helpers ---------------------------------------------------------------------------------------


SQUARE_SYMMETRIES = [np.array(m) for m in product(*[[-1, 0, 1]] * 4)]
SQUARE_SYMMETRIES = [m.reshape(2, 2) for m in SQUARE_SYMMETRIES
                     if abs(round(np.linalg.det(m.reshape(2, 2)))) == 1 and (m.reshape(2, 2) @ m.reshape(2, 2).T == np.eye(2)).all()]


def isometry(theirs, ours) -> tuple[np.ndarray, np.ndarray]:
    """(Q, t) with ours = theirs Q^T + t exactly up to TOL, Q a symmetry of the square (the folds are
    along H/V/D/N lines, so every face's placement is one); AssertionError if there is none."""
    a, b = np.asarray(theirs, float)[:, :2], np.asarray(ours, float)
    for q in SQUARE_SYMMETRIES:
        t = (b - a @ q.T).mean(0)
        if np.abs(a @ q.T + t - b).max() < TOL:
            return q, t
    raise AssertionError(f"no isometry maps the reader's coordinates onto ours:\n{np.round(a, 6)}\n{np.round(b, 6)}")


def canonical_cycle(face) -> tuple:
    k = face.index(min(face))
    return tuple(face[k:] + face[:k])


def signed_area(points) -> float:
    p = np.asarray(points, float)
    return 0.5 * float((p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1]).sum())


def frame(doc: dict, k: int) -> dict:
    """Frame k with inheritance (0: the key frame)."""
    own = {key: value for key, value in doc.items() if not key.startswith("file_")}
    return own if k == 0 else {**own, **doc["file_frames"][k - 1]}


def normalized(orders, winding) -> dict:
    """{(f, g): s} with f < g, from [f, g, s] in either order (FOLD: [g, f, t] has t = -s when the two
    faces have the same normal direction in the folded state, t = s otherwise)."""
    out = {}
    for f, g, s in orders:
        if f > g:
            f, g, s = g, f, (-s if winding[f] == winding[g] else s)
        assert out.setdefault((f, g), s) == s, f"conflicting orders for faces {f}, {g}"
    return out


# -- the readers agree with us ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_fold_package_rebuilds_our_crease_pattern(exported, name):
    """`fold`: the faces of our planar graph are our faces, our faces link to our edges (borders have
    one face, creases two), and reflecting across every crease closes up (no conflict) and gives our
    final folded frame."""
    _, doc, report = exported[name]
    got = report["fold"]
    assert got["counts"] == {"vertices": len(doc["vertices_coords"]), "edges": len(doc["edges_vertices"]),
                             "faces": len(doc["faces_vertices"])}
    assert {canonical_cycle(f) for f in got["planarFaces"]} == {canonical_cycle(f) for f in doc["faces_vertices"]}
    for e, faces in enumerate(got["edges_faces"]):
        linked = [f for f in faces if f is not None]
        assert len(linked) == (1 if doc["edges_assignment"][e] == "B" else 2), (e, faces)
    assert got["boundaryEdges"] == [e for e, a in enumerate(doc["edges_assignment"]) if a == "B"]
    assert got["flatFoldError"] < TOL
    last = frame(doc, len(doc["file_frames"]))
    isometry(got["flatFoldCoords"], last["vertices_coords"])
    ours = [np.sign(signed_area([last["vertices_coords"][v] for v in face])) for face in doc["faces_vertices"]]
    assert [o * ours[0] for o in ours] == got["flatFoldOrientation"]


@pytest.mark.parametrize("name", NAMES)
def test_rabbit_ear_folds_our_crease_pattern_into_our_frames(exported, name):
    """Rabbit Ear, frame by frame: folding the crease pattern by the frame's assignments (2-D and
    3-D by fold angles) gives the frame's folded coordinates; the key frame (every crease) gives the
    final one."""
    _, doc, report = exported[name]
    frames = report["rabbitEar"]
    assert len(frames) == 1 + len(doc["file_frames"]) == 1 + len(doc["foldsim:item"]["actions"])
    assert frames[0]["classes"] == ["creasePattern"] and all(f["classes"] == ["foldedForm"] for f in frames[1:])
    for k, got in enumerate(frames):
        ours = frame(doc, k if k else len(frames) - 1)["vertices_coords"]
        isometry(got["coords2d"], ours)
        coords3d = np.asarray(got["coords3d"])
        assert np.abs(coords3d[:, 2]).max() < TOL, f"frame {k}: not flat"
        assert np.abs(coords3d[:, :2] - np.asarray(got["coords2d"])).max() < TOL, f"frame {k}"


def check_orders(got: dict, our_orders: list, label: str) -> None:
    """Rabbit Ear's layer solutions of one folded state against our faceOrders for it."""
    winding = got["faces_winding"]
    ours = normalized(our_orders, winding)
    assert got["layers"] is not None, f"{label}: Rabbit Ear finds no layer order for our assignment"
    root = normalized(got["layers"]["root"], winding)
    branch_pairs = set()
    for branch in got["layers"]["branches"]:
        options = [normalized(option, winding) for option in branch]
        branch_pairs |= {pair for option in options for pair in option}
        assert any(all(ours.get(pair) == s for pair, s in option.items()) for option in options), \
            f"{label}: none of Rabbit Ear's options {options} is ours {ours}"
    assert set(root) | branch_pairs == set(ours), f"{label}: overlapping pairs differ"
    assert {pair: ours[pair] for pair in root} == root, f"{label}: forced orders differ"


@pytest.mark.parametrize("name", NAMES)
def test_rabbit_ear_layer_solver_allows_our_face_orders(exported, name):
    """Rabbit Ear's layer solver on each folded state: the pairs of faces it orders are exactly the
    overlapping pairs of our faceOrders; where the crease assignment forces an order (its root) it is
    ours; each of its independent choices (branches) has one option that is ours. The key frame
    (every crease folded) is the last frame's state."""
    _, doc, report = exported[name]
    frames = report["rabbitEar"]
    for k in range(1, len(frames)):
        check_orders(frames[k], frame(doc, k)["faceOrders"], f"frame {k}")
    check_orders(frames[0], frame(doc, len(frames) - 1)["faceOrders"], "key frame")


@pytest.mark.parametrize("name", NAMES)
def test_holes_fold_back_onto_the_punches(exported, name):
    """Every hole's crease-pattern point, carried by its face's placement in Rabbit Ear's final
    folded state (aligned to ours), lands on a punch point (every punch went through all layers)."""
    item, doc, report = exported[name]
    last_k = len(doc["file_frames"])
    ours = np.asarray(frame(doc, last_k)["vertices_coords"])
    q, t = isometry(report["rabbitEar"][-1]["coords2d"], ours)
    theirs = np.asarray(report["rabbitEar"][-1]["coords2d"])[:, :2] @ q.T + t
    cp = np.asarray(doc["vertices_coords"])
    punches = [(float(Q(p["x"])), float(Q(p["y"]))) for p in doc["foldsim:item"]["punches"]]
    assert doc["foldsim:holes"], "the test items all have holes"
    for hole in doc["foldsim:holes"]:
        where = hole["creasePattern"]
        assert [float(Q(where["x"])), float(Q(where["y"]))] == where["coords"]
        assert [float(Q(hole["x"])), float(Q(hole["y"]))] == hole["coords"]
        assert where["faces"], hole
        for f in where["faces"]:
            ring = doc["faces_vertices"][f]
            a = np.c_[cp[ring], np.ones(len(ring))]
            affine, *_ = np.linalg.lstsq(a, theirs[ring], rcond=None)
            landed = np.r_[where["coords"], 1.0] @ affine
            assert min(np.hypot(*(landed - p)) for p in punches) < TOL, (hole, landed)


# -- our own invariants ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_document_structure(exported, name):
    item, doc, _ = exported[name]
    assert doc["file_spec"] == 1.2 and doc["file_creator"] == "foldsim" and doc["file_classes"] == ["singleModel"]
    assert doc["frame_classes"] == ["creasePattern"]
    sheet = item_from_record(doc["foldsim:item"]).sheet
    # exact and float coordinates agree; faces are counter-clockwise, convex, and tile the sheet
    exact = [[Q(x), Q(y)] for x, y in doc["vertices_foldsim:exactCoords"]]
    assert [[float(x), float(y)] for x, y in exact] == doc["vertices_coords"]
    total = Fraction(0)
    for face in doc["faces_vertices"]:
        pts = [exact[v] for v in face]
        twice = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1]))
        assert twice > 0
        total += twice / 2
    assert total == sheet.cols * sheet.rows
    assert {a for a in doc["edges_assignment"]} <= {"B", "M", "V"}
    assert len(doc["file_frames"]) == len(doc["foldsim:item"]["actions"])
    for k, fr in enumerate(doc["file_frames"], 1):
        assert fr["frame_classes"] == ["foldedForm"] and fr["frame_parent"] == 0 and fr["frame_inherit"] is True
        assert len(fr["vertices_coords"]) == len(doc["vertices_coords"])
        assert [{"B": 0, "F": 0, "V": 180, "M": -180}[a] for a in fr["edges_assignment"]] == fr["edges_foldAngle"]
        # a crease, once folded, keeps its assignment; the last frame's are the key frame's
        for e, a in enumerate(fr["edges_assignment"]):
            assert a in ("F", doc["edges_assignment"][e])
    if doc["file_frames"]:
        assert doc["file_frames"][-1]["edges_assignment"] == doc["edges_assignment"]


def test_a_valley_fold_by_hand():
    """A 2 x 1 strip, the right half folded over onto the left toward the viewer: one valley crease,
    the right face face-down on top of the left one: [0, 1, +1] (face 0 lies on the side face 1's
    normal points to, which is down)."""
    doc = fold_document(general("strip", 2, 1, [Fold(Line("V", at=1), moves="right")], [(Q(1, 2), Q(1, 2))]))
    assert doc["vertices_coords"] == [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]
    assert doc["faces_vertices"] == [[0, 1, 4, 3], [1, 2, 5, 4]]
    crease = doc["edges_vertices"].index([1, 4])
    assert doc["edges_assignment"][crease] == "V" and doc["edges_foldAngle"][crease] == 180
    assert doc["file_frames"][0]["faceOrders"] == [[0, 1, 1]]
    back = fold_document(general("strip", 2, 1, [Fold(Line("V", at=1), moves="right", front=False)], []))
    assert back["edges_assignment"][crease] == "M" and back["file_frames"][0]["faceOrders"] == [[0, 1, -1]]


@pytest.mark.parametrize("name", NAMES)
def test_one_planar_graph(exported, name):
    """No vertex lies on a face's side without being on its ring (a T-junction would be inserted),
    and every edge is a side of one face (border) or two (crease), exactly."""
    _, doc, _ = exported[name]
    coords = [(Q(x), Q(y)) for x, y in doc["vertices_foldsim:exactCoords"]]
    sides: dict[tuple[int, int], int] = {}
    for face in doc["faces_vertices"]:
        for a, b in zip(face, face[1:] + face[:1]):
            sides[(min(a, b), max(a, b))] = sides.get((min(a, b), max(a, b)), 0) + 1
            (ax, ay), (bx, by) = coords[a], coords[b]
            for v, (px, py) in enumerate(coords):
                on_line = (bx - ax) * (py - ay) == (by - ay) * (px - ax)
                between = min(ax, bx) <= px <= max(ax, bx) and min(ay, by) <= py <= max(ay, by)
                assert not (on_line and between) or v in (a, b), (face, v)
    assert sorted(sides) == sorted((min(e), max(e)) for e in doc["edges_vertices"])
    for e, (u, v) in enumerate(doc["edges_vertices"]):
        assert sides[(min(u, v), max(u, v))] == (1 if doc["edges_assignment"][e] == "B" else 2)


def test_items_that_do_not_fold_are_errors():
    with pytest.raises(ValueError, match="not_realizable"):
        fold_document(general("x", 3, 3, [Fold(Line("V", at=5))], []))
    with pytest.raises(ValueError, match="off_paper"):
        fold_document(general("y", 3, 3, [Fold(Line("V", at=1), moves="left")], [(Q(1, 2), Q(1, 2))]))


# -- the command -----------------------------------------------------------------------------------


def test_fold_command(tmp_path):
    from foldsim.sheets import item_to_record

    records = [item_to_record(ITEMS["spatialviz_5x5"]),
               {"id": "nope", "sheet": {"cols": 3, "rows": 3}, "actions": [{"type": "fold", "line": {"family": "H", "at": 7}}]},
               {"id": "bad/field", "sheet": {"cols": 0, "rows": 3}, "actions": []},
               {"id": "no_sheet", "actions": []},
               MB_ITEMS["mb_record"],
               {**item_to_record(ITEMS["thirds_3x2"]), "id": "spatialviz_5x5"}]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\nnot json\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["fold", str(path), "--out", str(out), "--json"])
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 5, result.stderr
    assert "nope: not_realizable:" in lines[0]
    assert "bad/field: sheet.cols:" in lines[1]
    assert "no_sheet: sheet: is missing" in lines[2]
    assert "spatialviz_5x5: id: spatialviz_5x5: its files are already written for an earlier item" in lines[3]
    assert "line 7: invalid JSON" in lines[4]
    summary = json.loads(result.stdout)
    assert summary == {"items": 7, "written": 2, "failed": 5, "files": ["spatialviz_5x5.fold", "mb_record.fold"]}
    assert sorted(p.name for p in out.iterdir()) == ["mb_record.fold", "spatialviz_5x5.fold"]
    written = json.loads((out / "spatialviz_5x5.fold").read_text())
    assert written == json.loads(json.dumps(fold_document(ITEMS["spatialviz_5x5"])))
    assert json.loads((out / "mb_record.fold").read_text())["foldsim:preset"] == "mentalblackboard"


def test_fold_command_unreadable_file_and_output(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xe9")
    result = CliRunner().invoke(app, ["fold", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "not UTF-8" in result.stderr
    file_there = tmp_path / "file"
    file_there.write_text("x")
    result = CliRunner().invoke(app, ["fold", str(bad), "--out", str(file_there)])
    assert result.exit_code == 2 and "is a file, expected a directory" in result.stderr


def test_fold_names_id_less_items_as_simulate_does(tmp_path):
    """An item without an id is named by its JSON Lines line (or, in an array, its place from 0) in
    `fold`'s error lines, the same name `simulate` gives it."""
    good = {"sheet": {"cols": 2, "rows": 2}, "actions": [{"type": "fold", "line": {"family": "H", "at": 1}}]}
    bad = {"sheet": {"cols": 0, "rows": 3}, "actions": []}
    lines_file = tmp_path / "items.jsonl"
    lines_file.write_text("\n".join(json.dumps(r) for r in (good, good, bad)) + "\n")
    array_file = tmp_path / "items.json"
    array_file.write_text(json.dumps([good, bad]))
    for path, expected in ((lines_file, "line 3: sheet.cols:"), (array_file, "item 1: sheet.cols:")):
        folded = CliRunner().invoke(app, ["fold", str(path), "--out", str(tmp_path / path.stem)])
        simulated = CliRunner().invoke(app, ["simulate", str(path)])
        fold_lines = [line for line in folded.stderr.splitlines() if line.startswith("error:")]
        simulate_lines = [line for line in simulated.stderr.splitlines() if line.startswith("error:")]
        assert folded.exit_code == 1 and len(fold_lines) == 1 and expected in fold_lines[0], folded.stderr
        assert expected in " ".join(simulate_lines), simulated.stderr + simulated.stdout
