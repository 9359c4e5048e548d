"""Text grids (formats §4.2-§4.4): exact strings of the worked examples, an independent oracle for
single folds, rotations, and the error for items the simulator does not answer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from foldsim import Config, Hole, InputError
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.mesh import TriangleSheet
from foldsim.render.text import final_text, grid_chars, grid_text, steps_text, write_text
from foldsim.trace import trace

PFHP_161_STEPS = """Step 0: initial sheet
11, 11, 11, 11,
11, 11, 11, 11,
11, 11, 11, 11,
11, 11, 11, 11,

Step 1: 
10, 00, 00, 00,
11, 10, 00, 00,
11, 11, 10, 00,
11, 11, 11, 10,

Hole Punching:
10, 00, 00, 00,
11, 10, 00, 00,
11, 11, 10, 00,
11, 1S, 1t, 10,
"""

PFHP_161_FINAL = """Final Result:
11, 11, 11, 11,
11, 11, 11, S1,
11, 11, 11, 1t,
11, 1S, 1t, 11,"""

PFHP_803_STEPS = """Step 0: initial sheet
11, 11, 11, 11,
11, 11, 11, 11,
11, 11, 11, 11,
11, 11, 11, 11,

Step 1: 
00, 00, 00, 00,
00, 00, 00, 00,
11, 11, 11, 11,
11, 11, 11, 11,

Hole Punching:
00, 00, 00, 00,
00, 00, 00, 00,
11, 11, 11, 1Z,
11, 11, 11, 11,
"""

PFHP_803_FINAL = """Final Result:
11, 11, 11, 11,
11, 11, 11, 1Z,
11, 11, 11, 1Z,
11, 11, 11, 11,"""

# D1 folds the top-left corner away; R-90 turns that black corner counter-clockwise to the
# bottom-left; H2 then folds the bottom half up (derived by hand).
ROTATION_STEPS = """Step 0: initial sheet
11, 11, 11, 11,
11, 11, 11, 11,
11, 11, 11, 11,
11, 11, 11, 11,

Step 1: 
00, 00, 00, 01,
00, 00, 01, 11,
00, 01, 11, 11,
01, 11, 11, 11,

Step 2: 
01, 11, 11, 11,
00, 01, 11, 11,
00, 00, 01, 11,
00, 00, 00, 01,

Step 3: 
01, 11, 11, 11,
00, 01, 11, 11,
00, 00, 00, 00,
00, 00, 00, 00,
"""


@pytest.fixture(scope="module")
def pfhp_161():
    """Back_Prediction PFHP_161 (formats §4.4), rebuilt by hand: D2-B, star large 0 at 28, letter
    small 270 at 30."""
    holes = [Hole.make("star", "large", 0, 28), Hole.make("letter", "small", 270, 30)]
    return trace(Config.from_codes("D2-B", holes, id="PFHP_161"))


@pytest.fixture(scope="module")
def pfhp_803(generalization_file):
    records = json.loads(generalization_file.read_text())  # the fixture fails (never skips) without it
    [record] = [r for r in records if r["id"] == "PFHP_803_shape"]
    return trace(record)


def test_grid_text_layout():
    chars = ["1"] * 32
    chars[27], chars[29], chars[0] = "S", "t", "0"
    assert grid_text(chars, sheet=SHEET) == "01, 11, 11, 11,\n11, 11, 11, 11,\n11, 11, 11, 11,\n11, 1S, 1t, 11,"


def test_grid_text_lays_out_the_sheet_it_is_given():
    """A line per row of cells, a cell's triangles together: a 2 x 1 sheet of 4-triangle cells."""
    assert grid_text(list("abcdefgh"), sheet=TriangleSheet.rectangle("two cells", 2, 1)) == "abcd, efgh,"


def test_grid_text_rejects_wrong_length():
    with pytest.raises(ValueError, match="32"):
        grid_text(["1"] * 31, sheet=SHEET)


def test_grid_chars_letters_by_shape_and_size():
    holes = [Hole.make(shape, size, 0, 1 + 2 * i + (size == "small"))
             for i, shape in enumerate(["circle", "square", "ellipse", "rectangle", "triangle", "trapezoid", "star", "letter", "text"])
             for size in ("large", "small")]
    chars = grid_chars(np.zeros(32, dtype=bool), holes)
    assert "".join(chars[:18]) == "CcQqEeRrAaZzSsTtXx"
    assert chars[18:] == ["0"] * 14


def test_pfhp_161_worked_example(pfhp_161):
    assert steps_text(pfhp_161, sheet=SHEET) == PFHP_161_STEPS
    assert final_text(pfhp_161, sheet=SHEET) == PFHP_161_FINAL


def test_pfhp_803_shape_worked_example(pfhp_803):
    assert steps_text(pfhp_803, sheet=SHEET) == PFHP_803_STEPS
    assert final_text(pfhp_803, sheet=SHEET) == PFHP_803_FINAL


def test_rotations_get_their_own_step_and_no_holes_means_no_punching_block():
    assert steps_text(trace(Config.from_codes("D1-F,R-90,H2-B")), sheet=SHEET) == ROTATION_STEPS


def _moving_side(code: str) -> np.ndarray:
    """bool[32]: the flat triangles a single fold lifts away, from centroid geometry alone."""
    x, y = SHEET.centroid_sums.T  # 3x centroid, lattice units, y up, sheet centred: signs suffice
    return {"H1": y > 0, "H2": y < 0, "V1": x < 0, "V2": x > 0,
            "D1": y > x, "D4": y < x, "D2": x + y > 0, "D3": x + y < 0}[code]


@pytest.mark.parametrize("code", ["H1-F", "H2-B", "V1-F", "V2-B", "D1-F", "D2-B", "D3-F", "D4-B"])
def test_single_fold_blackens_exactly_the_moving_side(code):
    expected = grid_text(["0" if moving else "1" for moving in _moving_side(code[:2])], sheet=SHEET)
    lines = steps_text(trace(Config.from_codes(code)), sheet=SHEET).split("\n")
    assert "\n".join(lines[7:11]) == expected
    assert lines[6] == "Step 1: "


@pytest.mark.parametrize(
    ("codes", "holes", "message"),
    [("H1-F,D1-F", [], "fold D1-F (action 2) is not realizable"),
     ("H1-F", [Hole.make("star", "large", 0, 2)], "hole 1: location 2 is not on the folded paper")],
)
def test_unanswered_items_are_an_error_naming_the_item(codes, holes, message):
    bad = trace(Config.from_codes(codes, holes, id="BAD_1"))
    for render in (steps_text, final_text):
        with pytest.raises(InputError) as caught:
            render(bad, sheet=SHEET)
        line = str(caught.value)
        assert line.startswith("BAD_1: cannot render: ") and message in line and "\n" not in line


def test_write_text_files_and_paths(pfhp_161, tmp_path):
    paths = write_text(pfhp_161, tmp_path, "PFHP_161", sheet=SHEET)
    folder = tmp_path / "img_text_outputs" / "PFHP_161" / "text"
    assert paths == [folder / "PFHP_161_textual_steps.txt", folder / "PFHP_161_textual_final_result.txt"]
    assert paths[0].read_bytes() == PFHP_161_STEPS.encode()
    assert paths[1].read_bytes() == PFHP_161_FINAL.encode()
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths)  # no temp files left
