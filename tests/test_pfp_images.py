"""Pictures in PFP's look (foldsim.render.pfp_images; docs/cutting.md, "Pictures in PFP's look"):
colours sampled at chosen model points through the one frame, panel and composite sizes of the
reference's §1.8, a cut-out's pixel area against its exact area, byte-for-byte determinism, a
non-convex sheet, a cut-out with a hole, PFP's dashed flap outlines."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest

from cut_items import random_item
from foldsim.cutfold import Cut, CutItem, Fold, cut_item, pfp_cut
from foldsim.polygons import PolygonSheet, preset_sheet
from foldsim.render.images import png_bytes
from foldsim.render.pfp_images import (
    BACK,
    BACKGROUND,
    CUT,
    FRONT,
    LINE,
    PANEL,
    ab_size,
    answer_panel,
    c_size,
    composite,
    cuts_only_panel,
    fill_mask,
    fold_panels,
    pfp_frame,
    question_mark_panel,
    state_panel,
    step_panel,
)

WHITE = BACKGROUND
HALF = Fold("Hori_Right", rate=F(1, 2), snap=F(1))  # PFP's Hori_Right .5: the left half folds onto the right


def at(image, frame, point) -> tuple[int, int, int]:
    """The colour of the pixel under a model point (the frame's own rounding to the nearest centre)."""
    x, y = frame.pixel((F(point[0]), F(point[1])))
    return image.getpixel((round(x), round(y)))


def run(sheet, steps, cuts, item_id="t"):
    result = cut_item(CutItem(sheet, tuple(tuple(s) for s in steps), tuple(cuts), item_id))
    assert result.ok, result.reason
    return result


def colour_count(image, colour) -> int:
    return int(np.all(np.asarray(image) == colour, axis=-1).sum())


# -- the frame -----------------------------------------------------------------------------------------


def test_frame_is_pfps_placement_for_its_sheets():
    """Square: PFP's offset (36, 36), y flipped; house: the box centred (PFP's one exception)."""
    square = pfp_frame(preset_sheet("square"))
    assert square.size == PANEL == 432
    assert square.pixel((F(0), F(360))) == (36.0, 36.0)  # top-left corner
    assert square.pixel((F(360), F(0))) == (396.0, 396.0)
    house = pfp_frame(preset_sheet("house"))
    # the roof's apex is PFP's (180, 0) -> pixel (216, 76); the floor's corners (0, 280) -> (36, 356)
    assert house.pixel((F(180), F(360))) == (216.0, 76.0)
    assert house.pixel((F(0), F(80))) == (36.0, 356.0)
    small = pfp_frame(PolygonSheet(((F(0), F(0)), (F(4), F(0)), (F(4), F(2)), (F(0), F(2)))))
    assert small.scale == 90 and small.pixel((F(2), F(1))) == (216.0, 216.0)


def test_fill_mask_tiles_shared_edges_and_counts_exact_areas():
    """Two triangles sharing a diagonal fill their square once each pixel; an integer square of
    side 70 is 70 x 70 pixels (left/top in, right/bottom out)."""
    square = [(10.0, 10.0), (80.0, 10.0), (80.0, 80.0), (10.0, 80.0)]
    assert fill_mask([square], 100).sum() == 70 * 70
    one, two = fill_mask([square[:3]], 100), fill_mask([[square[0], square[2], square[3]]], 100)
    assert not (one & two).any() and (one | two).sum() == 70 * 70
    hole = [(30.0, 30.0), (30.0, 60.0), (60.0, 60.0), (60.0, 30.0)]
    assert fill_mask([square, hole], 100).sum() == 70 * 70 - 30 * 30


# -- panels ----------------------------------------------------------------------------------------------


def test_state_panel_colours_front_back_outline_background():
    sheet = preset_sheet("square")
    result = run(sheet, [[HALF]], [pfp_cut("square", (F(300), F(180)))])
    frame = pfp_frame(sheet)
    flat = state_panel(sheet, result.states[0][0])
    folded = state_panel(sheet, result.final)
    assert flat.size == folded.size == (PANEL, PANEL)
    assert at(flat, frame, (90, 180)) == FRONT
    assert at(folded, frame, (270, 180)) == BACK  # the flap, turned over, lies on top
    assert at(folded, frame, (90, 180)) == WHITE  # the left half has gone
    assert at(flat, frame, (0, 180)) == LINE  # the sheet's edge, 3 px wide: columns 35 to 37
    row = np.asarray(flat)[216]
    assert [tuple(row[x]) for x in (34, 35, 36, 37, 38)] == [WHITE, LINE, LINE, LINE, FRONT]
    assert at(flat, frame, (-20, -20)) == WHITE
    over_edge = [pfp_cut("square", (F(340), F(180)))]  # 305..375: paper only up to x = 360
    cut = state_panel(sheet, result.final, cuts=over_edge)
    assert at(cut, frame, (330, 180)) == CUT and at(cut, frame, (300, 180)) == BACK
    assert colour_count(cut, CUT) == 55 * 70  # the cut ∩ the paper, over its outline as PFP fills it
    only = cuts_only_panel(sheet, result.final, [pfp_cut("square", (F(300), F(180)))])
    assert colour_count(only, FRONT) == colour_count(only, BACK) == colour_count(only, LINE) == 0
    assert colour_count(only, CUT) == 70 * 70


def test_fold_mark_dashes_where_the_flap_lands():
    """The next fold on the flat square: the left half lands on the right, so the crease (x = 180)
    shows dashes (black and grey alternating), the left half's paper does not."""
    sheet = preset_sheet("square")
    frame = pfp_frame(sheet)
    panel = state_panel(sheet, run(sheet, [[HALF]], [pfp_cut("square", (F(300), F(180)))]).states[0][0], fold=HALF)
    x, _ = frame.pixel((F(180), F(0)))
    column = [tuple(c) for c in np.asarray(panel)[60:370, int(x)]]
    assert column.count(LINE) > 150 and column.count(FRONT) > 40  # 9 on, 3 off
    x_left, _ = frame.pixel((F(90), F(0)))
    assert {tuple(c) for c in np.asarray(panel)[60:370, int(x_left)]} == {FRONT}


def test_step_panel_dashes_the_flaps_old_place_and_fills_the_last_state():
    """PFP's panel after Hori_Right .5: the left half's old outline dashed on white, the folded
    half filled; a group of four corner folds dashes all four corners and outlines every state."""
    sheet = preset_sheet("square")
    frame = pfp_frame(sheet)
    result = run(sheet, [[HALF]], [pfp_cut("square", (F(300), F(180)))])
    panel = step_panel(sheet, result.states[0][0], [HALF], result.states[1])
    x, _ = frame.pixel((F(0), F(0)))
    left_edge = [tuple(c) for c in np.asarray(panel)[60:370, int(x)]]
    assert left_edge.count(LINE) > 150 and left_edge.count(WHITE) > 40
    assert at(panel, frame, (270, 180)) == BACK
    corners = [Fold("line", (F(160), F(360)), (F(0), F(200))), Fold("line", (F(360), F(200)), (F(200), F(360))),
               Fold("line", (F(200), F(0)), (F(360), F(160))), Fold("line", (F(0), F(160)), (F(160), F(0)))]
    grouped = run(sheet, [corners], [pfp_cut("square", (F(180), F(180)))])
    panel = step_panel(sheet, grouped.states[0][0], corners, grouped.states[1])
    pixels = np.asarray(panel)
    for cx, cy in [(20, 340), (340, 340), (340, 20), (20, 20)]:  # each corner's tip
        assert at(panel, frame, (cx, cy)) == WHITE  # the corner has folded away
    for corner in [(0, 360), (360, 360), (360, 0), (0, 0)]:  # the dashed old outline passes the sheet's corners
        px, py = frame.pixel((F(corner[0]), F(corner[1])))
        window = pixels[int(py) - 6:int(py) + 7, int(px) - 6:int(px) + 7].reshape(-1, 3)
        assert any(tuple(c) == LINE for c in window)
    assert at(panel, frame, (180, 180)) == FRONT and at(panel, frame, (110, 230)) == BACK
    with pytest.raises(ValueError, match="one state per fold"):
        step_panel(sheet, grouped.states[0][0], corners[:2], grouped.states[1])


def test_answer_panel_cutout_area_matches_exact_area():
    """Pixel count of the blue cut-outs against their exact area: equal for whole-pixel squares and
    rectangles; within half a pixel per pixel of perimeter for circles and hexagons (centre
    sampling errs at most by the boundary pixels, about one per pixel of boundary, half on average)."""
    sheet = preset_sheet("square")
    frame = pfp_frame(sheet)
    squares = run(sheet, [[HALF]], [pfp_cut("square", (F(250), F(250))), pfp_cut("rectangle", (F(250), F(100)))])
    panel = answer_panel(sheet, squares.cutouts)
    assert colour_count(panel, CUT) == squares.area == 2 * 4900 + 2 * 2700
    assert at(panel, frame, (110, 250)) == CUT and at(panel, frame, (250, 250)) == CUT
    assert at(panel, frame, (180, 250)) == FRONT
    round_ = run(sheet, [[HALF]], [pfp_cut("circle", (F(250), F(250))), pfp_cut("hexagon", (F(250), F(100)))])
    panel = answer_panel(sheet, round_.cutouts)
    perimeter = 2 * (2 * 32 * 35 * np.sin(np.pi / 32)) + 2 * 6 * 35
    assert abs(colour_count(panel, CUT) - float(round_.area)) <= perimeter / 2
    assert abs(colour_count(panel, CUT) - float(round_.area)) <= 0.01 * float(round_.area)


def perimeter(cutouts, scale) -> float:
    """The cut-outs' boundary length in pixels (every ring)."""
    rings = [ring for cutout in cutouts for ring in cutout.outline()]
    return float(scale) * sum(float(np.hypot(float(a[0] - b[0]), float(a[1] - b[1])))
                              for ring in rings for a, b in zip(ring, ring[1:] + ring[:1]))


def test_answer_area_on_another_scale_and_on_random_items():
    """A 4 x 2 sheet is drawn at 90 px a unit: a unit square cut is 8100 px. Random items (PFP's
    sheets, the star, a notched L; groups, partial folds, 1-4 cut shapes): every panel draws, and
    the blue count is within half a pixel per pixel of the cut-outs' boundary of the exact area
    times the scale squared (measured: at most 0.34 on 60 items)."""
    sheet = PolygonSheet(((F(0), F(0)), (F(4), F(0)), (F(4), F(2)), (F(0), F(2))))
    result = run(sheet, [], [Cut(((F(1), F(0)), (F(2), F(0)), (F(2), F(1)), (F(1), F(1))))])
    assert colour_count(answer_panel(sheet, result.cutouts), CUT) == 90 * 90
    rng, drawn = random.Random(5), 0
    while drawn < 12:
        item = random_item(rng, drawn)
        result = cut_item(item)
        if not result.ok:
            continue
        drawn += 1
        frame = pfp_frame(item.sheet)
        panels = fold_panels(item.sheet, item.steps, result.states)
        assert len(panels) == len(item.steps) + 1 and all(p.size == (PANEL, PANEL) for p in panels)
        step_panel(item.sheet, result.states[-2][-1], item.steps[-1], result.states[-1], cuts=item.cuts)
        for s, step in enumerate(item.steps):  # every fold's mark on the state before it
            marked = state_panel(item.sheet, result.states[s][-1], fold=step[0])
            assert colour_count(marked, LINE) > colour_count(state_panel(item.sheet, result.states[s][-1]), LINE) \
                or len(result.states[s][-1]) > 1  # the dashes add black, unless they fall on outlines only
        blue = colour_count(answer_panel(item.sheet, result.cutouts), CUT)
        exact = float(result.area * frame.scale ** 2)
        assert abs(blue - exact) <= perimeter(result.cutouts, frame.scale) / 2, (item.id, blue, exact)


def test_fold_panels_are_the_start_and_each_steps_panel():
    sheet = preset_sheet("rectangle")
    second = Fold("Vert_Top", rate=F(1, 2), snap=F(1))
    result = run(sheet, [[HALF], [second]], [pfp_cut("circle", (F(300), F(250)))])
    panels = fold_panels(sheet, [[HALF], [second]], result.states)
    assert [png_bytes(p) for p in panels] == [
        png_bytes(state_panel(sheet, result.states[0][0])),
        png_bytes(step_panel(sheet, result.states[0][0], [HALF], result.states[1])),
        png_bytes(step_panel(sheet, result.states[1][0], [second], result.states[2]))]
    with pytest.raises(ValueError, match="not what fold 1 makes"):
        step_panel(sheet, result.states[1][0], [HALF], [result.states[0][0]])


def test_cutout_with_a_hole_leaves_paper_inside():
    """Four bars around a square cut one frame-shaped cut-out (they share edges): its inner ring is a
    hole, drawn as paper."""
    sheet = preset_sheet("square")
    frame = pfp_frame(sheet)
    bars = [[(100, 100), (260, 100), (260, 130), (100, 130)], [(230, 130), (260, 130), (260, 260), (230, 260)],
            [(100, 230), (230, 230), (230, 260), (100, 260)], [(100, 130), (130, 130), (130, 230), (100, 230)]]
    cuts = [Cut(tuple((F(x), F(y)) for x, y in bar)) for bar in bars]
    result = run(sheet, [], cuts)
    assert len(result.cutouts) == 1 and len(result.cutouts[0].outline()) == 2
    panel = answer_panel(sheet, result.cutouts)
    assert at(panel, frame, (180, 180)) == FRONT
    assert at(panel, frame, (115, 180)) == CUT and at(panel, frame, (180, 245)) == CUT
    assert colour_count(panel, CUT) == 160 * 160 - 100 * 100 == result.area


@pytest.mark.parametrize("name", ["star", "house"])
def test_non_convex_and_house_sheets(name):
    """The star's notches stay white, its arms grey, after a fold too; the house's roof is drawn."""
    sheet = preset_sheet(name)
    frame = pfp_frame(sheet)
    result = run(sheet, [[HALF]], [pfp_cut("circle", (F(250), F(180)))])
    flat = state_panel(sheet, result.states[0][0])
    if name == "star":
        assert at(flat, frame, (180, 350)) == FRONT  # the top arm
        assert at(flat, frame, (120, 300)) == WHITE  # between the top and the upper-left arm
        assert at(flat, frame, (180, 180)) == FRONT
    else:
        assert at(flat, frame, (180, 340)) == FRONT and at(flat, frame, (20, 340)) == WHITE  # roof, beside it
    folded = state_panel(sheet, result.final)
    assert at(folded, frame, (180 + 60, 180)) == BACK
    panel = answer_panel(sheet, result.cutouts)
    assert colour_count(panel, CUT) > 0.9 * float(result.area)


def test_same_input_same_bytes_across_processes():
    """Equal bytes twice in one process and in a fresh one with a fixed hash seed (so no set or
    dict order leaks into the pictures)."""
    script = ("from fractions import Fraction as F\n"
              "from foldsim.cutfold import CutItem, Fold, cut_item, pfp_cut\n"
              "from foldsim.polygons import preset_sheet\n"
              "from foldsim.render.images import png_bytes\n"
              "from foldsim.render.pfp_images import answer_panel, step_panel, composite\n"
              "import hashlib\n"
              "s = preset_sheet('hexagon'); f = Fold('Vert_Top', rate=F(1, 3), snap=F(1))\n"
              "r = cut_item(CutItem(s, ((f,),), (pfp_cut('hexagon', (F(180), F(300))),), 'x'))\n"
              "a, p = answer_panel(s, r.cutouts), step_panel(s, r.states[0][0], [f], r.states[1])\n"
              "print(hashlib.sha256(png_bytes(composite('A', [p, a], [a, p], 'AB'))).hexdigest())\n")
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"  # not this process's hash seed
    there = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300,
                           env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout
    sheet = preset_sheet("hexagon")
    fold = Fold("Vert_Top", rate=F(1, 3), snap=F(1))
    result = run(sheet, [[fold]], [pfp_cut("hexagon", (F(180), F(300)))], "x")
    panel = step_panel(sheet, result.states[0][0], [fold], result.states[1])
    answer = answer_panel(sheet, result.cutouts)
    here = hashlib.sha256(png_bytes(composite("A", [panel, answer], [answer, panel], "AB"))).hexdigest()
    assert there == here + "\n"
    assert png_bytes(panel) == png_bytes(step_panel(sheet, result.states[0][0], [fold], result.states[1]))


# -- composites ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("folds, width", [(1, 1210), (2, 1510), (3, 1810)])
def test_task_a_sizes_are_pfps(folds, width):
    """Start, one panel per step, the cut panel and "?": 1210 / 1510 / 1810 x 650 (reference §1.8)."""
    panel = question_mark_panel()
    image = composite("A", [panel] * (folds + 3), [panel] * 4, "ABCD")
    assert image.size == ab_size(folds + 3, 4) == (width, 650)


def test_task_b_and_c_sizes_are_pfps():
    panel = question_mark_panel()
    assert composite("B", [panel] * 4, [panel] * 4, "ABCD").size == (1210, 650)
    assert composite("C", [panel] * 4, [[panel] * 2] * 4, "ABCD").size == (950, 1240)
    assert composite("C", [panel] * 4, [[panel] * 3] * 4, "ABCD").size == (950, 1240)
    # 1005 with GDI+'s measure of the label as PFP's own example fixes it (the reference: "about 1008")
    assert composite("C", [panel] * 4, [[panel] * 4] * 4, "ABCD").size == c_size(4, [4] * 4) == (1005, 1240)
    assert composite("strip", [panel] * 3, [], "ABC").size == (3 * 200 + 2 * 30 + 60, 300)


def test_composite_places_panels_arrows_frames_and_labels():
    """Task A, 1 fold: question panels at x = 30 + 300 k, y = 60, 200 px; options at x = 155 + 240 k,
    y = 320, 180 px; labels under them. The frames' and arrows' pixels are PFP's own, read off its
    example Resources/1.jpg: a 4-px pen centred on the panel's edge shows 127 then 0 outside on the
    left and top and 0, 0, 127 on the right; the arrow's 2-px shaft is 127 / 0 / 127 blue across."""
    sheet = preset_sheet("square")
    result = run(sheet, [[HALF]], [pfp_cut("square", (F(300), F(180)))])
    start = state_panel(sheet, result.states[0][0])
    answer = answer_panel(sheet, result.cutouts)
    image = composite("A", [start, start, start, question_mark_panel()], [answer] * 4, "ABCD")
    pixels = np.asarray(image)
    grey, black, pale_blue, blue = (127,) * 3, LINE, (127, 127, 255), (0, 0, 255)
    for k in range(4):
        x = 30 + 300 * k
        assert [tuple(pixels[160, x + d]) for d in (-3, -2, -1)] == [WHITE, grey, black]
        assert [tuple(pixels[160, x + 200 + d]) for d in (0, 1, 2, 3)] == [black, black, grey, WHITE]
        assert [tuple(pixels[60 + d, x + 100]) for d in (-3, -2, -1)] == [WHITE, grey, black]
        if k < 3:
            shaft = x + 200 + 15
            assert [tuple(pixels[160, shaft + d]) for d in (-1, 0, 1)] == [WHITE, pale_blue, blue]
            assert [tuple(pixels[160 + d, shaft + 5]) for d in (-2, -1, 0, 1, 2)] == [WHITE, pale_blue, blue, pale_blue,
                                                                                      WHITE]
    assert tuple(pixels[160, 130]) == FRONT  # the start panel's paper, scaled
    for k in range(4):
        x = 155 + 240 * k
        assert tuple(pixels[319, x + 90]) == LINE and tuple(pixels[410, x + 90]) == FRONT
        ink = np.argwhere(pixels[505:560, x + 60:x + 120].sum(axis=-1) < 300)
        # the label's capital: rows 514..528, about 14 px wide, centred under the option (PFP: 514..528)
        assert (ink[:, 0].min() + 505, ink[:, 0].max() + 505) == (514, 528)
        assert abs((ink[:, 1].min() + ink[:, 1].max()) / 2 + 60 - 88.5) <= 1.5
    assert (pixels[580:] == 255).all()


def test_task_c_frames_rows_and_shadow_are_pfps():
    """Task C, options of 3 panels on 950 px: each row's frame (pen centred 10 px out) and its grey
    shadow read 127, 0, 0, 25, 127, 230 across the top edge, the row's first panel from x = 167,
    as in PFP's Resources/3.jpg; the row's label's capital starts at x = 127, rows 367..389 there."""
    panel = question_mark_panel()
    pixels = np.asarray(composite("C", [panel] * 4, [[panel] * 3] * 4, "ABCD"))
    assert [int(pixels[278 + d, 400, 0]) for d in range(6)] == [127, 0, 0, 25, 127, 230]
    assert [int(pixels[380, 155 + d, 0]) for d in range(6)] == [127, 0, 0, 25, 127, 230]
    assert [int(pixels[380, 165 + d, 0]) for d in range(3)] == [127, 0, 255]  # the first panel's frame
    ink = np.argwhere(pixels[290:470, 100:150].sum(axis=-1) < 300)
    assert ink[:, 1].min() + 100 == 127 and abs(ink[:, 0].min() + 290 - 367) <= 1 and ink[:, 0].max() + 290 == 389
    for row in range(1, 4):  # B, C, D: in the same box of the rows below, 240 px apart
        ink = np.argwhere(pixels[290 + 240 * row:470 + 240 * row, 100:150].sum(axis=-1) < 300)
        assert 125 <= ink[:, 1].min() + 100 <= 131 and abs(ink[:, 0].max() - 99) <= 1


def test_composite_refuses_malformed_calls():
    panel = question_mark_panel()
    with pytest.raises(ValueError, match="task"):
        composite("D", [panel], [panel], "A")
    with pytest.raises(ValueError, match="labels"):
        composite("A", [panel], [panel, panel], "A")
    with pytest.raises(ValueError, match="no options"):
        composite("strip", [panel], [panel], "A")
    with pytest.raises(ValueError, match="question panels"):
        composite("A", [], [panel], "A")
    with pytest.raises(ValueError, match="question panels"):
        composite("B", [panel] * 20, [panel], "A")
