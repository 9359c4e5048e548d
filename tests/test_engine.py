"""The general engine: hand-worked items, mesh refinement, bad input, and the MentalBlackboard preset
agreeing with the 32-triangle kernel on the whole physical space times every punch location."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as Q

import numpy as np
import pytest

from foldsim import kernels as K
from foldsim.batching import run_chunked
from foldsim.engine import hole_positions, rectangle_mesh, run_mesh, simulate_items, trace_item
from foldsim.enumerate import enumerate_space, pad_actions
from foldsim import mentalblackboard_sheet as MB
from foldsim.rules import PHYSICAL
from foldsim.sheets import Flip, Fold, Line, Punch, Rotate, SheetItem, SheetSpec
from foldsim.simulate import simulate


def holes_of(result):
    return [(h.x, h.y, h.direction, h.mirrored) for h in result.holes]


def test_third_fold_of_a_3x3_sheet_puts_the_flap_on_the_middle_column():
    # the left third (x in [0, 1]) turns over x = 1 onto [1, 2]: a punch at (3/2, 1/2) meets the
    # middle column and the flap, whose point came from 2 - 3/2 = 1/2 (reflected: mirrored)
    item = SheetItem(SheetSpec(3, 3), (Fold(Line("V", at=1), moves="left"),), (Punch(Q(3, 2), Q(1, 2)),))
    [r] = simulate_items([item])
    assert r.ok and holes_of(r) == [(Q(1, 2), Q(1, 2), 0, True), (Q(3, 2), Q(1, 2), 0, False)]
    assert r.layers_under == (2,)


def test_overhanging_flap_makes_one_hole_outside_the_old_outline_and_two_inside():
    # the right two thirds turn over x = 1 and reach x = -1: (-1/2, 1/2) is in the overhang only
    item = SheetItem(SheetSpec(3, 3), (Fold(Line("V", at=1), moves="right"),),
                     (Punch(Q(-1, 2), Q(1, 2)), Punch(Q(1, 2), Q(1, 2))))
    [r] = simulate_items([item])
    assert holes_of(r) == [(Q(1, 2), Q(1, 2), 0, False), (Q(3, 2), Q(1, 2), 0, True), (Q(5, 2), Q(1, 2), 0, True)]
    assert r.layers_under == (1, 2)


def test_a_punch_on_a_crease_gives_one_hole_per_distinct_position():
    item = SheetItem(SheetSpec(4, 4), (Fold(Line("V", at=2), moves="left"),), (Punch(2, Q(1, 2)),))
    [r] = simulate_items([item])
    assert [(h.x, h.y) for h in r.holes] == [(2, Q(1, 2))] and r.layers_under == (2,)


def test_5x5_off_centre_fold_then_45_degree_fold():
    # H at y = 2, the smaller (lower) part moves up onto [2, 4]; then x + y = 7, the upper-right
    # corner turns under. (7/2, 7/2) lies on the second crease: 4 layers touch it, 2 positions.
    item = SheetItem(SheetSpec(5, 5), (Fold(Line("H", at=2)), Fold(Line("N", at=7), moves="upper_right", front=False)),
                     (Punch(Q(7, 2), Q(7, 2)), Punch(Q(1, 2), Q(5, 2))))
    [r] = simulate_items([item])
    assert r.ok
    first = [(h.x, h.y) for h in r.holes if h.x == Q(7, 2)]
    assert first == [(Q(7, 2), Q(1, 2)), (Q(7, 2), Q(7, 2))]
    assert [(h.x, h.y) for h in r.holes if h.x == Q(1, 2)] == [(Q(1, 2), Q(3, 2)), (Q(1, 2), Q(5, 2))]
    assert r.layers_under == (4, 2)


def test_rotation_and_flip_are_not_undone_by_unfolding():
    # a 4x2 sheet turned a quarter about its centre (2, 1) lies on [1, 3] x [-1, 3]; unfolding
    # undoes no turn, so a hole is seen where it was punched, (3/2, 1/2), which is (1/2, 3/2) from
    # the turned sheet's bottom-left corner (1, -1), upright as punched
    turned = SheetItem(SheetSpec(4, 2), (Rotate(1),), (Punch(Q(3, 2), Q(1, 2), "triangle", direction=0),))
    [r] = simulate_items([turned])
    assert holes_of(r) == [(Q(1, 2), Q(3, 2), 0, False)]
    # a fold, then a flip: the flap's hole is mirrored once by the fold (h = V g^-1 with one
    # reflection left), the hole through the unmoved layer is seen as punched
    flipped = SheetItem(SheetSpec(4, 2), (Fold(Line("V", at=2), moves="left"), Flip()),
                        (Punch(Q(3, 2), Q(1, 2), "triangle", direction=90),))
    [r] = simulate_items([flipped])
    # after the flip the paper lies on [0, 2]; (3/2, 1/2) came from (5/2, 1/2) (unmoved layer,
    # seen at 3/2) and from (3/2, 1/2) (the flap, seen at 5/2, mirrored: 90 -> 270 across a vertical)
    assert holes_of(r) == [(Q(3, 2), Q(1, 2), 90, False), (Q(5, 2), Q(1, 2), 270, True)]


def test_statuses_never_raise():
    items = [
        SheetItem(SheetSpec(4, 4), (Fold(Line("V", at=9)),), (), "miss"),
        SheetItem(SheetSpec(4, 4), (Fold(Line("V", at=0)),), (), "edge"),
        SheetItem(SheetSpec(4, 4), (Fold(Line("H", at=2)),), (Punch(1, Q(7, 2)),), "off"),
    ]
    statuses = [(r.status, r.failed_step) for r in simulate_items(items)]
    assert statuses == [("not_realizable", 1), ("not_realizable", 1), ("off_paper", 1)]


def test_box_lines_refine_the_mesh_until_they_fall_on_it():
    # two half folds of a 3x1 strip: the lines at x = 3/2 and 3/4 need a mesh of 4 squares a cell
    halves = tuple(Fold(Line.box("V", Q(1, 2))) for _ in range(2))
    item = SheetItem(SheetSpec(3, 1), halves, (Punch(Q(1, 8), Q(1, 2)),))
    [r] = simulate_items([item])
    assert r.ok and len(r.holes) == 4
    assert trace_item(item).resolution == 4
    # the right halves move (the tie): 1/8, its image across 3/4 (11/8), and both across 3/2
    assert sorted(h.x for h in r.holes) == [Q(1, 8), Q(11, 8), Q(13, 8), Q(23, 8)]


def test_rectangle_mesh_tiles_the_sheet():
    mesh = rectangle_mesh(3, 2, 2)
    assert mesh.shape == (4 * 3 * 2 * 4, 3, 2)
    a, b = mesh[:, 1] - mesh[:, 0], mesh[:, 2] - mesh[:, 0]
    area2 = np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])  # twice each triangle's area, lattice units
    lattice_width, lattice_height = 2 * 2 * 3, 2 * 2 * 2
    assert (area2 == 2).all() and area2.sum() == 2 * lattice_width * lattice_height


def test_simulate_takes_general_items_beside_mentalblackboard_records():
    record = {"id": "mb", "foldingTypes": [{"foldType": "horizontal_top_to_bottom", "foldToFront": True}],
              "initialHoles": [{"shape": "circle", "size": "small", "direction": "", "location": 20}]}
    general = {"id": "g", "sheet": {"cols": 3, "rows": 3}, "actions": [{"type": "fold", "line": {"family": "V", "at": 1},
                                                                        "moves": "left"}],
               "punches": [{"x": "3/2", "y": "1/2"}]}
    mb, g, wrapped = simulate([record, general, {"id": "family", "family": "x", "item": general}])
    assert wrapped.ok and wrapped.holes == g.holes  # a family record holds its item under "item"
    assert mb.ok and [h.location for h in mb.holes] == [12, 20]  # row 2 mirrored onto row 1
    assert g.ok and len(g.holes) == 2


def test_mentalblackboard_preset_agrees_with_the_fast_path_on_the_whole_physical_space():
    """Every configuration of the physical space, punched at every one of the 32 locations: the
    general engine (rigid 32-triangle mesh, centroid point punches) and the 32-triangle kernel give
    the same status and the same hole multiset (location, direction map, mirrored) — compared as
    exact per-(row, punch) histograms folded into random 63-bit sums."""
    actions = pad_actions(enumerate_space(PHYSICAL).actions)
    salt = np.random.default_rng(0).integers(0, 1 << 62, size=(32, 4, 2), dtype=np.int64)
    chunk = 8256
    for start in range(0, len(actions), chunk):
        rows = actions[start:start + chunk]
        n = len(rows)
        locations = np.ascontiguousarray(np.broadcast_to(np.arange(32, dtype=np.int32), (n, 32)))
        fast = run_chunked(K.simulate_batch, [rows, locations, np.zeros((n, 32), np.int32)], [0, -1, 0], chunk)
        punches = MB.engine_punches(locations)
        general = run_mesh(MB.RIGID_MESH, MB.engine_actions(rows), punches, chunk_rows=chunk)
        assert (general.status.code == fast.status.code).all()
        assert (general.status.step == fast.status.step).all()
        unfolded = fast.folded.unfolded
        fast_code = salt[unfolded.location, unfolded.offset, unfolded.mirrored.astype(int)]  # [n, 32 triangles]
        fast_sum = np.where(fast.hits, fast_code[:, None, :], 0).sum(-1, dtype=np.int64)
        row, punch, triangle = np.nonzero(general.first)
        located = MB.grid_index_of_positions(hole_positions(general, row, punch, triangle, punches))
        assert (located >= 0).all()
        general_code = salt[located, general.offset[row, triangle], general.mirrored[row, triangle].astype(int)]
        general_sum = np.zeros((n, 32), np.int64)
        np.add.at(general_sum, (row, punch), general_code)
        assert (fast.hits.sum(-1) == general.first.sum(-1)).all()
        assert (fast.hits.sum(-1) == general.layers_under).all()
        assert (general_sum == fast_sum).all()  # 0 disagreements over every row x 32 punches


def test_punches_inside_triangles_skip_the_comparison_and_agree_with_it():
    """A batch whose punches all lie inside the triangles they hit (centroids) takes the branch with
    no comparison of coinciding preimages; on the same rows, the comparing branch gives the same
    holes and layer counts. A punch on an edge is what sends a batch to the comparing branch."""
    import jax

    from foldsim.kernels import engine as E

    actions = pad_actions(enumerate_space(PHYSICAL).actions)[::37]
    n = len(actions)
    mesh = np.asarray(MB.RIGID_MESH, np.int32)
    punches = MB.engine_punches(np.broadcast_to(np.arange(32, dtype=np.int32), (n, 32)))
    rows = MB.engine_actions(actions)
    state, _, hit, on_edge = jax.vmap(E.fold_and_punch, in_axes=(None, 0, 0))(mesh, rows, punches)
    assert not bool(on_edge.any())
    fast = E.simulate_mesh_batch(mesh, rows, punches)
    first, layers = jax.vmap(E.exact_holes, in_axes=(None, 0, 0, 0))(mesh, state, punches, hit)
    assert (np.asarray(fast.first) == np.asarray(first)).all()
    assert (np.asarray(fast.layers_under) == np.asarray(layers)).all()
    vertex = np.array([[[0, 0, 1]]], np.int32)  # the sheet's centre: a corner of eight triangles
    _, _, _, on_edge = jax.vmap(E.fold_and_punch, in_axes=(None, 0, 0))(mesh, rows[:1], vertex)
    assert bool(on_edge.any())


def test_cli_simulate_answers_general_items_and_names_bad_ones(tmp_path):
    items = [
        {"id": "ok", "sheet": {"cols": 3, "rows": 3},
         "actions": [{"type": "fold", "line": {"family": "V", "at": "1/3"}, "moves": "left"}],
         "punches": [{"x": "1/2", "y": "1/2"}]},
        {"id": "slope", "sheet": {"cols": 3, "rows": 3}, "actions": [{"type": "fold", "line": {"family": "2:1", "at": 1}}]},
        {"id": "flat", "sheet": {"cols": 0, "rows": 3}, "actions": []},
        {"id": "big", "sheet": {"cols": 64, "rows": 64}, "actions": [{"type": "fold", "line": {"family": "V", "at": "1/9"}}]},
        {"id": "coarse", "sheet": {"cols": 3, "rows": 3}, "actions": [], "punches": [{"x": 0.123456789, "y": 1}]},
    ]
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items))
    run = subprocess.run([sys.executable, "-m", "foldsim", "simulate", str(path), "--out", str(tmp_path / "a.json")],
                         capture_output=True, text=True)
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 4 and all(line.startswith("error: ") for line in lines)
    assert "slope: actions[0].line.family" in lines[0] and "flat: sheet.cols" in lines[1]
    assert "big: sheet" in lines[2] and "coarse: punches[0].x" in lines[3]
    answers = json.loads((tmp_path / "a.json").read_text())
    assert [a["status"] for a in answers] == ["ok", "invalid", "invalid", "invalid", "invalid"]
    assert answers[0]["holes"][0]["x"] == "1/6"  # the flap's point 1/2 came from 2/3 - 1/2


@pytest.mark.parametrize("engine", ["general", "mentalblackboard"])
def test_check_reproduces_the_shared_files_through_either_engine(engine, planning_file, generalization_file):
    from foldsim.check import check_file

    planning = check_file(planning_file, engine=engine)
    generalization = check_file(generalization_file, engine=engine)
    assert planning.summary()["match"] == 400
    assert generalization.summary()["match"] == 473
    assert sorted(generalization.ids("not_realizable")) == sorted(
        ["PFHP_31_direction", "PFHP_31_direction_mod", "PFHP_33_direction", "PFHP_33_direction_mod", "PFHP_31_location"])
