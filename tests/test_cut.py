"""Fold and cut on polygon sheets (foldsim.polygons, foldsim.cutfold; docs/cutting.md): hand-worked
items for every rule, the reader's refusals, agreement with the independent point reference
(foldsim.cut_reference) on seeded random items, hypothesis properties, and agreement with the
point-punch engine where both apply."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cut_items import Agreement, compare, random_item
from foldsim.cutfold import (
    Cut,
    CutItem,
    Fold,
    circle_polygon,
    cut_item,
    cut_item_from_record,
    cut_item_to_record,
    reflection_across,
    resolve_line,
    unfold_cut,
)
from foldsim.errors import InputError
from foldsim.polygons import (
    MAX_VERTICES,
    PFP_SHEETS,
    PolygonSheet,
    area,
    clip_convex,
    components,
    point_in_polygon,
    polygon_from_value,
    preset_sheet,
)

SQUARE = {"preset": "square"}


def square(cx, cy, r) -> list:
    return [[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]]


def run(steps, cuts, sheet=SQUARE):
    return cut_item(cut_item_from_record({"id": "t", "sheet": sheet, "steps": steps, "cuts": cuts}))


# -- sheets --------------------------------------------------------------------------------------


def test_presets_are_pfps_shapes_in_foldsims_frame():
    sheets = {name: preset_sheet(name) for name in PFP_SHEETS}
    assert sheets["square"].area == 360 * 360
    assert sheets["rectangle"].area == 360 * 270
    assert sheets["house"].area == 360 * 200 + 360 * 80 // 2
    # y up: the house's roof (PFP's screen y = 0) is at the top, y = 360
    assert max(sheets["house"].vertices, key=lambda p: p[1]) == (180, 360)
    assert len(sheets["circle"].vertices) == 36 and len(sheets["star"].vertices) == 10
    assert (F(336), F(270)) in sheets["hexagon"].vertices  # 335.88 rounded to the pixel, screen y 90
    assert sheets["hexagon"].rounding and not sheets["square"].rounding
    assert len(sheets["star"].parts) > 1 and all(len(s.parts) == 1 for n, s in sheets.items() if n != "star")
    fine = preset_sheet("hexagon", F(1, 100))
    assert (F(33588, 100), F(270)) in fine.vertices and "1/100" in fine.rounding
    # the heptagon: .NET's Random(42) jitter in PFP's single precision, rounded like the others
    heptagon = sheets["irregular_heptagon"]
    assert heptagon.vertices[0] == (F(47), F(286)) and len(heptagon.vertices) == 7 and heptagon.area == 82639
    assert "1 pixel" in heptagon.rounding


def test_dotnet_random_is_the_legacy_seeded_generator():
    """Outputs .NET printed for `new Random(42)`, `new Random(0)` and `new Random(-5)` `.Next()`."""
    from foldsim.dotnet_random import DotNetRandom

    for seed, printed in ((42, [1434747710, 302596119, 269548474, 1122627734, 361709742, 563913476, 1555655117,
                                1101493307, 372913049, 1634773126]),
                          (0, [1559595546, 1755192844, 1649316166, 1198642031, 442452829, 1200195957]),
                          (-5, [726643700, 610783965, 564707973, 1342984399, 995276750, 1993667614])):
        draws = DotNetRandom(seed)
        assert [draws.next_int() for _ in printed] == printed
    assert DotNetRandom(42).next_double() == 1434747710 / (2**31 - 1)
    with pytest.raises(ValueError):
        DotNetRandom(2**31)


@pytest.mark.parametrize("vertices, message", [
    ([[0, 0], [2, 2], [2, 0], [0, 2]], "is not simple"),
    ([[0, 0], [1, 1], [2, 2]], "no area"),
    ([[0, 0], [4, 0], [4, 4], [4, 0], [0, 4]], "repeats a vertex"),
    ([[0, 0], [4, 0], [8, 0], [2, 0], [0, 4]], "turns back"),
    ([[0, 0], [10**7, 0], [0, 1]], "at most 1000000"),
    ([[0, 0], [1, 0]], "3 to"),
    ([[0, 0], [1, "x"], [0, 1]], "fraction"),
])
def test_bad_polygons_are_refused_naming_the_field(vertices, message):
    with pytest.raises(InputError, match=message) as info:
        cut_item_from_record({"id": "bad", "sheet": {"vertices": vertices}, "steps": [], "cuts": [{"polygon": square(0, 0, 1)}]})
    assert str(info.value).startswith("bad: sheet.vertices")


def test_vertex_bound_is_refused_before_any_geometry():
    many = [[i, i * i] for i in range(MAX_VERTICES + 1)]  # a huge list is refused by its length alone
    with pytest.raises(InputError, match=f"3 to {MAX_VERTICES}"):
        polygon_from_value(many, "p")


@pytest.mark.parametrize("record, field", [
    ({"sheet": SQUARE, "steps": [{"type": "diagonal"}], "cuts": [{"polygon": square(9, 9, 1)}]}, "steps[0].type"),
    ({"sheet": SQUARE, "steps": [{"type": "Hori_Left", "rate": 1}], "cuts": [{"polygon": square(9, 9, 1)}]},
     "steps[0].rate"),
    ({"sheet": SQUARE, "steps": [{"type": "line", "p1": [0, 0], "p2": [0, 0]}], "cuts": [{"polygon": square(9, 9, 1)}]},
     "steps[0].p2"),
    ({"sheet": SQUARE, "steps": [{"type": "Vert_Top", "layers": 0}], "cuts": [{"polygon": square(9, 9, 1)}]},
     "steps[0].layers"),
    ({"sheet": SQUARE, "steps": [{"type": "Vert_Top"}] * 11, "cuts": [{"polygon": square(9, 9, 1)}]}, "steps"),
    ({"sheet": SQUARE, "steps": [{"group": []}], "cuts": [{"polygon": square(9, 9, 1)}]}, "steps[0].group"),
    ({"sheet": SQUARE, "steps": [], "cuts": []}, "cuts"),
    ({"sheet": SQUARE, "steps": [], "cuts": [{"circle": {"centre": [1, 1], "radius": 1, "sides": 10}}]},
     "cuts[0].circle.sides"),
    ({"sheet": {"preset": "moon"}, "steps": [], "cuts": [{"polygon": square(9, 9, 1)}]}, "sheet.preset"),
])
def test_bad_items_name_item_and_field(record, field):
    with pytest.raises(InputError) as info:
        cut_item_from_record({"id": "it", **record})
    assert str(info.value).startswith(f"it: {field}: ") and "\n" not in str(info.value)


def test_records_round_trip():
    record = {"id": "r", "sheet": {"preset": "hexagon"}, "cuts": [{"circle": {"centre": [180, 180], "radius": 35}}],
              "steps": [{"group": [{"type": "angle", "p1": ["4/9", 0], "p2": [0, "4/9"]},
                                   {"type": "line", "p1": [360, 200], "p2": [200, 360], "layers": 2}]},
                        {"type": "Hori_Right", "rate": "0.35", "snap": 1}]}
    item = cut_item_from_record(record)
    again = cut_item_from_record(cut_item_to_record(item))
    assert again == item


# -- folds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind, box", [
    ("Hori_Left", (0, 0, 120, 360)),  # the right part folds over to the left
    ("Hori_Right", (120, 0, 360, 360)),
    ("Vert_Top", (0, 120, 360, 360)),  # the upper part stays (y up: rate 2/3 from the top is y = 120)
    ("Vert_Bottom", (0, 0, 360, 120)),
])
def test_pfp_fold_types_keep_their_side(kind, box):
    rate = "1/3" if kind.startswith("Hori") else "2/3"
    result = run([{"type": kind, "rate": rate}], [{"polygon": square(60, 60, 10)}])
    placed = [p for layer in result.final for part in layer.placed() for p in part]
    x0, y0 = min(p[0] for p in placed), min(p[1] for p in placed)
    x1, y1 = max(p[0] for p in placed), max(p[1] for p in placed)
    # the flap is wider than what stays: it overhangs, so only the crease side of the box is fixed
    crease = {"Hori_Left": x1, "Hori_Right": x0, "Vert_Top": y0, "Vert_Bottom": y1}[kind]
    assert crease == {"Hori_Left": box[2], "Hori_Right": box[0], "Vert_Top": box[1], "Vert_Bottom": box[3]}[kind]
    assert [layer.reflected for layer in result.final] == [False, True]  # the flap on top, face down


def test_rate_lines_snap_like_pfps_pixels():
    """A 5-wide sheet: half-way is 2.5. PFP's floor(v + 0.5) on screen rounds x up to 3 and screen
    y down, i.e. foldsim's y (up) down to 2; exact keeps 5/2."""
    sheet = PolygonSheet(((F(0), F(0)), (F(5), F(0)), (F(5), F(5)), (F(0), F(5))))
    layers = (cut_item(CutItem(sheet, (), (Cut(((F(1), F(1)), (F(2), F(1)), (F(1), F(2)))),))).final)
    assert resolve_line(Fold("Hori_Left", rate=F(1, 2), snap=F(1)), layers, sheet)[0][0] == 3
    assert resolve_line(Fold("Vert_Top", rate=F(1, 2), snap=F(1)), layers, sheet)[0][1] == 2
    assert resolve_line(Fold("Vert_Top", rate=F(1, 2)), layers, sheet)[0][1] == F(5, 2)


def test_angle_points_are_fractions_of_the_original_box_from_its_top_left():
    """PFP's corner fold (160,0)->(0,160) on the screen keeps x + y >= 160 there: it folds the
    top-left corner, which is (0, 360) in foldsim's frame."""
    result = run([{"type": "angle", "p1": ["4/9", 0], "p2": [0, "4/9"]}], [{"polygon": square(300, 300, 10)}])
    flap = result.final[-1]
    assert sorted(flap.parts[0]) == sorted([(F(0), F(200)), (F(0), F(360)), (F(160), F(360))])
    assert sorted(flap.placed()[0]) == sorted([(F(0), F(200)), (F(160), F(200)), (F(160), F(360))])


def test_reflection_across_any_rational_line_is_exact():
    rho = reflection_across((F(1), F(2)), (F(4), F(3)))  # direction (3, 1)
    assert rho.m == (F(8, 10), F(6, 10), F(6, 10), F(-8, 10))
    assert rho.after(rho) == reflection_across((F(0), F(0)), (F(1), F(0))).after(
        reflection_across((F(0), F(0)), (F(1), F(0))))
    p = (F(7, 3), F(-5))
    assert rho.apply(rho.apply(p)) == p and rho.apply((F(1), F(2))) == (F(1), F(2))


def test_flaps_stack_on_top_in_reverse_order():
    result = run([{"type": "Hori_Left"}, {"type": "Vert_Top"}], [{"polygon": square(90, 270, 10)}])
    final = result.final
    # after Hori_Left: [left half, right half reflected]; Vert_Top moves the lower halves, reversed on top
    assert len(final) == 4
    bottoms = [min(p[1] for part in layer.parts for p in part) for layer in final]
    lefts = [min(p[0] for part in layer.parts for p in part) for layer in final]
    assert bottoms == [180, 180, 0, 0] and lefts == [0, 180, 180, 0]
    # one cut-out per layer, sorted by their lowest corner: bottom-left (layer 3), top-left (0), ...
    assert [c.layers for c in result.cutouts] == [(3,), (0,), (2,), (1,)]


def test_partial_fold_takes_the_top_layers_and_the_answer_is_the_final_state():
    """Reference §1.6 example 2: Hori_Left 1/2, then Hori_Right at the folded box's midline with
    layerId 1, as one group; a 70-px circle at (45, 180). PFP's key also shows a circle at
    (315, 180) from the group's intermediate state; the paper has one hole."""
    circle = {"circle": {"centre": [45, 180], "radius": 35}}
    steps = [{"group": [{"type": "Hori_Left"}, {"type": "Hori_Right", "layers": 1}]}]
    result = run(steps, [circle])
    assert result.ok and len(result.states[1]) == 2  # both states of the group kept
    assert len(result.cutouts) == 1 and result.cutouts[0].layers == (0,)
    assert result.area == area(circle_polygon((F(45), F(180)), F(35), 32))
    assert max(p[0] for p in result.cutouts[0].pieces[0]) == 80


def test_partial_fold_that_would_tear_is_not_realizable():
    result = run([{"type": "Hori_Left"}, {"type": "Vert_Top", "layers": 1}], [{"polygon": square(90, 90, 10)}])
    assert result.status == "not_realizable" and result.failed_step == 2
    assert "tear" in result.reason and result.reason.startswith("step 2 (Vert_Top at 1/2)")
    fine = run([{"type": "Hori_Left"}, {"type": "Vert_Top", "layers": 2}], [{"polygon": square(90, 270, 10)}])
    assert fine.ok
    too_many = run([{"type": "Hori_Left"}, {"type": "Vert_Top", "layers": 3}], [{"polygon": square(90, 90, 10)}])
    assert too_many.status == "not_realizable" and "top 3 layers of 2" in too_many.reason


def test_fold_with_no_paper_on_one_side_is_not_realizable():
    result = run([{"type": "line", "p1": [400, 0], "p2": [400, 1]}], [{"polygon": square(90, 90, 10)}])
    assert result.status == "not_realizable" and "no paper on one side" in result.reason


def test_group_of_four_corner_folds_is_one_step_with_every_state():
    corners = [{"type": "line", "p1": p1, "p2": p2} for p1, p2 in [
        ([160, 360], [0, 200]), ([360, 200], [200, 360]), ([200, 0], [360, 160]), ([0, 160], [160, 0])]]
    result = run([{"group": corners}, {"type": "Hori_Right", "rate": "1/4"}], [{"polygon": square(180, 180, 20)}])
    assert result.ok and [len(s) for s in result.states] == [1, 4, 1] and len(result.final) == 8


def test_non_convex_sheet_flap_in_two_pieces():
    """Folding the star up across y = 50, below the inner corner between its two lower arms (y = 60),
    moves the two arm tips: two separate layers, each joined to the body through the line."""
    star = {"preset": "star"}
    result = run([{"type": "line", "p1": [0, 50], "p2": [360, 50]}], [{"polygon": square(180, 180, 5)}], star)
    assert result.ok and len(result.final) == 3


# -- cut-outs, counted exactly ---------------------------------------------------------------------


def test_pieces_meeting_at_a_point_are_two_cut_outs_along_an_edge_one():
    corner = run([], [{"polygon": square(100, 100, 10)}, {"polygon": square(120, 120, 10)}])
    assert len(corner.cutouts) == 2
    edge = run([], [{"polygon": square(100, 100, 10)}, {"polygon": square(120, 105, 10)}])
    assert len(edge.cutouts) == 1 and edge.area == 800
    overlap = run([], [{"polygon": square(100, 100, 10)}, {"polygon": square(110, 100, 10)}])
    assert len(overlap.cutouts) == 1 and overlap.area == 600


def test_a_cut_across_a_crease_opens_as_one_cut_out():
    result = run([{"type": "Hori_Left"}], [{"polygon": square(180, 100, 20)}])
    assert len(result.cutouts) == 1 and result.cutouts[0].layers == (0, 1) and result.area == 2 * 20 * 40
    quarter = [{"type": "Hori_Left"}, {"type": "Vert_Top"}]  # the paper: the top-left quarter
    # a right triangle in the corner where both creases meet: its four copies share edges along them
    along = run(quarter, [{"polygon": [[180, 180], [180, 200], [160, 180]]}])
    assert len(along.cutouts) == 1 and along.cutouts[0].layers == (0, 1, 2, 3) and along.area == 4 * 200
    # a triangle that touches that corner at one vertex only: four copies meeting at one point
    point = run(quarter, [{"polygon": [[180, 180], [150, 200], [160, 210]]}])
    assert len(point.cutouts) == 4 and all(len(c.layers) == 1 for c in point.cutouts)


def test_outlines_are_rings_around_each_cut_out():
    from foldsim.polygons import area2

    crease = run([{"type": "Hori_Left"}], [{"polygon": square(180, 100, 20)}])
    assert crease.cutouts[0].outline() == [((F(160), F(80)), (F(200), F(80)), (F(200), F(120)), (F(160), F(120)))]
    from foldsim.polygons import intersection_area

    pieces, whole = crease.cutouts[0].pieces, crease.cutouts[0].outline()
    assert len(pieces) == 2 and intersection_area(pieces, whole) == crease.area == 1600  # the same region
    assert intersection_area(pieces, [tuple((x + 5, y) for x, y in whole[0])]) == 1600 - 5 * 40
    frame = [{"polygon": [[100, 100], [160, 100], [160, 110], [100, 110]]},
             {"polygon": [[100, 150], [160, 150], [160, 160], [100, 160]]},
             {"polygon": [[100, 105], [110, 105], [110, 155], [100, 155]]},
             {"polygon": [[150, 105], [160, 105], [160, 155], [150, 155]]}]
    ring = run([], frame).cutouts
    assert len(ring) == 1 and [area2(r) > 0 for r in ring[0].outline()] == [True, False]  # a hole inside
    assert sum(area2(r) for r in ring[0].outline()) / 2 == ring[0].area == 60 * 60 - 40 * 40


def test_cut_off_the_paper_is_off_paper():
    result = run([{"type": "Hori_Left"}], [{"polygon": square(300, 100, 10)}])
    assert result.status == "off_paper" and result.failed_step == 1


def test_circle_vertices_lie_on_the_circle():
    poly = circle_polygon((F(3), F(4)), F(35), 32)
    assert len(poly) == 32 and all((x - 3) ** 2 + (y - 4) ** 2 == 35 ** 2 for x, y in poly)


def test_components_join_on_positive_length_only():
    a = ((F(0), F(0)), (F(1), F(0)), (F(1), F(1)), (F(0), F(1)))
    b = ((F(1), F(1)), (F(2), F(1)), (F(2), F(2)), (F(1), F(2)))  # a corner
    c = ((F(1), F(0)), (F(2), F(0)), (F(2), F(1, 2)), (F(1), F(1, 2)))  # half of a's right edge
    assert components([a, b]) == [[0], [1]]
    assert components([a, b, c]) == [[0, 2], [1]]


# -- the reference -------------------------------------------------------------------------------------


def test_engine_agrees_with_the_point_reference_on_random_items():
    rng = random.Random(27)
    tally = Agreement()
    for index in range(40):
        compare(random_item(rng, index), tally, grid=10)
    assert tally.compared >= 10 and tally.points >= 5000, tally


def test_reference_box_on_a_non_convex_sheet_after_several_folds():
    """Fuzz item random-705: on the notched sheet, the reference once clipped whole non-convex
    regions, whose degenerate bridges left points off the paper that widened the folded box and
    moved a Vert_Top line from y = 34 to 35."""
    notched = [[0, 0], [240, 0], [240, 120], [150, 120], [150, 90], [90, 90], [90, 240], [0, 240]]
    record = {"id": "random-705", "sheet": {"vertices": notched}, "steps": [
        {"group": [{"type": "angle", "p1": [1, "5/8"], "p2": [0, "1/4"]}, {"type": "Hori_Left", "rate": "3/4", "snap": 1},
                   {"type": "angle", "p1": [1, "1/8"], "p2": [0, "5/8"]}]},
        {"type": "Hori_Left", "rate": "1/2"},
        {"group": [{"type": "Vert_Top", "rate": "3/4", "snap": 1}, {"type": "Hori_Left", "rate": "1/4", "snap": 1}]}],
        "cuts": [{"polygon": [["-351/17", "1205/17"], ["839/17", "1205/17"], ["839/17", "2395/17"], ["-351/17", "2395/17"]]},
                 {"polygon": [[0, 69], ["-61/2", "103/2"], ["-61/2", "33/2"], [0, -1], ["61/2", "33/2"], ["61/2", "103/2"]]}]}
    tally = Agreement()
    compare(cut_item_from_record(record), tally, grid=10)
    assert tally.compared == 1 and tally.points > 500


@pytest.fixture(scope="module")
def ok_items() -> list[CutItem]:
    rng = random.Random(5)
    items = []
    while len(items) < 30:
        item = random_item(rng, len(items))
        if cut_item(item).ok:
            items.append(item)
    return items


PROPERTY = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@PROPERTY
@given(st.data())
def test_cut_out_area_is_the_sum_over_layers_of_cut_and_layer(ok_items, data):
    item = data.draw(st.sampled_from(ok_items))
    result = cut_item(item)
    from foldsim.cutfold import cut_cells

    cells = cut_cells(item.cuts)
    folded = sum((area(clip_convex(part, cell)) for layer in result.final for part in layer.placed() for cell in cells
                  if clip_convex(part, cell)), F(0))
    assert result.area == folded


@PROPERTY
@given(st.data())
def test_cut_outs_never_leave_the_sheet(ok_items, data):
    item = data.draw(st.sampled_from(ok_items))
    result = cut_item(item)
    for cutout in result.cutouts:
        for piece in cutout.pieces:
            inside = sum((area(c) for part in item.sheet.parts if (c := clip_convex(piece, part))), F(0))
            assert inside == area(piece)
    assert result.area <= item.sheet.area
    from foldsim.polygons import area2

    for cutout in result.cutouts:  # the outline encloses exactly the pieces
        assert sum(area2(ring) for ring in cutout.outline()) / 2 == cutout.area


@PROPERTY
@given(st.integers(-3, 3), st.integers(-3, 3), st.integers(100, 260), st.integers(100, 260),
       st.integers(-20, 20), st.integers(-20, 20), st.sampled_from(["square", "hexagon", "house", "octagon"]))
def test_one_full_fold_gives_an_answer_symmetric_under_its_reflection(dx, dy, x, y, ox, oy, sheet):
    assume((dx, dy) != (0, 0))
    p1, p2 = (F(x), F(y)), (F(x + dx), F(y + dy))
    item = cut_item_from_record({"sheet": {"preset": sheet}, "steps": [{"type": "line", "p1": [x, y], "p2": [x + dx, y + dy]}],
                                 "cuts": [{"polygon": square(x + ox, y + oy, 25)}]})
    result = cut_item(item)
    assume(result.ok)
    rho = reflection_across(p1, p2)
    # where the sheet and its mirror image overlap, the answer is its own mirror image: a point there
    # and its mirror land on one folded point (flaps may overhang; beyond the overlap is no partner)
    both = clip_convex(item.sheet.vertices, rho.polygon(item.sheet.vertices))
    pieces = [c for cutout in result.cutouts for p in cutout.pieces if (c := clip_convex(p, both))]
    mirrored = [rho.polygon(p) for p in pieces]
    common = sum((area(c) for p in pieces for m in mirrored if (c := clip_convex(p, m))), F(0))
    assert pieces and common == sum((area(p) for p in pieces), F(0))


@PROPERTY
@given(st.data())
def test_a_cut_inside_one_layer_everywhere_gives_one_cut_out_per_layer(ok_items, data):
    item = data.draw(st.sampled_from(ok_items))
    final = cut_item(item).final
    layer = data.draw(st.sampled_from(final))
    part = data.draw(st.sampled_from(layer.placed()))
    cx = sum(p[0] for p in part) / len(part)
    cy = sum(p[1] for p in part) / len(part)
    tiny = ((cx, cy), (cx + F(1, 97), cy), (cx, cy + F(1, 89)))
    hits = []
    for index, other in enumerate(final):
        covered = sum((area(c) for q in other.placed() if (c := clip_convex(tiny, q))), F(0))
        if covered:
            assume(any(clip_convex(tiny, q) and area(clip_convex(tiny, q)) == area(tiny) for q in other.placed()))
            hits.append(index)
    cutouts = unfold_cut(final, (Cut(tiny),))
    assert len(cutouts) == len(hits) and [c.layers for c in cutouts if len(c.layers) != 1] == []
    assert sorted(c.layers[0] for c in cutouts) == hits and all(c.area == area(tiny) for c in cutouts)


# -- point punches are degenerate cuts -------------------------------------------------------------------


def test_point_punch_engine_and_tiny_cuts_agree_on_where_holes_land():
    from foldsim import simulate
    from foldsim.cutfold import from_sheet_fold
    from foldsim.sheets import SIDE_SIGNS, Line, Punch, SheetItem, SheetSpec
    from foldsim.sheets import Fold as PunchFold

    rng = random.Random(3)
    items, cut_items = [], []
    sheet = PolygonSheet(((F(0), F(0)), (F(4), F(0)), (F(4), F(4)), (F(0), F(4))))
    while len(items) < 64:
        folds = []
        for _ in range(rng.randint(1, 3)):
            family = rng.choice("HVDN")
            at = F(rng.randint(1, 7), 2) if family in "HV" else F(rng.randint(-5, 5), 2) if family == "D" else F(rng.randint(3, 13), 2)
            side = rng.choice(list(SIDE_SIGNS[family]))
            folds.append((family, at, side))
        px, py = F(rng.randint(1, 31), 8), F(rng.randint(1, 31), 8)
        item = SheetItem(SheetSpec(4, 4), tuple(PunchFold(Line(f, at=a), moves=s) for f, a, s in folds), (Punch(px, py),),
                         id=f"p{len(items)}")
        eps = F(1, 64)
        cut = Cut(((px - eps, py - eps), (px + eps, py - eps), (px + eps, py + eps), (px - eps, py + eps)))
        steps = tuple((from_sheet_fold(fold),) for fold in item.actions)
        items.append(item)
        cut_items.append(CutItem(sheet, steps, (cut,), item.id))
    compared = 0
    for item, cut_case, punched in zip(items, cut_items, simulate(items)):
        cut = cut_item(cut_case)
        if not punched.ok:
            assert cut.status == punched.status, (item.id, cut.reason, punched.reason)
            continue
        assert cut.ok, (item.id, cut.reason)
        holes = [(h.x, h.y) for h in punched.holes]
        assert len(cut.cutouts) == len(holes), item.id
        for cutout in cut.cutouts:
            inside = [h for h in holes if any(point_in_polygon(h, piece) >= 0 for piece in cutout.pieces)]
            assert len(inside) == 1, (item.id, inside)
        compared += 1
    assert compared >= 16


def test_the_documented_record_folds_as_docs_cutting_says():
    """docs/cutting.md's record: ok with the top two layers folding back; tearing with one."""
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "cutting.md").read_text()
    record = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    result = cut_item(cut_item_from_record(record))
    assert result.ok and [len(s) for s in result.states] == [1, 2, 1, 1] and result.to_json()["count"] >= 1
    record["steps"][-1]["layers"] = 1
    torn = cut_item(cut_item_from_record(record))
    assert torn.status == "not_realizable" and "tear" in torn.reason and torn.failed_step == 3


def test_pfp_cut_shapes():
    from foldsim.cutfold import PFP_CUT_SHAPES, pfp_cut

    centre = (F(100), F(50))
    shapes = {kind: pfp_cut(kind, centre) for kind in PFP_CUT_SHAPES}
    assert area(shapes["square"].polygon) == 70 * 70 and area(shapes["rectangle"].polygon) == 45 * 60
    assert max(p[1] for p in shapes["rectangle"].polygon) == 80  # 60 tall
    assert all((x - 100) ** 2 + (y - 50) ** 2 == 35 ** 2 for x, y in shapes["circle"].polygon)
    assert (F(100), F(85)) in shapes["hexagon"].polygon  # a vertex at the top, radius 35
    with pytest.raises(InputError, match="cut.shape"):
        pfp_cut("star", centre)


def test_cut_work_is_bounded_before_the_unfolding():
    """Six halvings (64 layers) under eight overlapping 32-gons: 64 x 256 cut vertices is refused
    once folded, in one line, before any cut is unfolded (it took 54 s with 64-gons); the reader
    refuses more than MAX_CUT_VERTICES cut vertices before any geometry."""
    from foldsim.cutfold import MAX_CUT_VERTICES, MAX_CUT_WORK, circle_polygon, cut_item_from_record

    sheet = preset_sheet("square")
    steps = tuple((Fold("Hori_Left" if k % 2 == 0 else "Vert_Top", rate=F(1, 2)),) for k in range(6))
    cuts = tuple(Cut(circle_polygon((F(3 + k), F(357 - k)), F(4), 32), "circle") for k in range(8))
    with pytest.raises(InputError, match=f"64 folded layer pieces x 256 cut vertices is past the bound of {MAX_CUT_WORK}"):
        cut_item(CutItem(sheet, steps, cuts, "big"))
    assert cut_item(CutItem(sheet, steps[:5], cuts[:1], "fits")).ok
    circle = {"shape": "circle", "circle": {"centre": [10, 10], "radius": 4, "sides": 64}}
    record = {"id": "many", "sheet": {"preset": "square"}, "steps": [{"type": "Hori_Left", "rate": "1/2"}],
              "cuts": [circle] * 5}
    with pytest.raises(InputError, match=f"many: cuts: must hold at most {MAX_CUT_VERTICES} vertices in all, got 320"):
        cut_item_from_record(record)
