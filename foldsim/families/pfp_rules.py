"""PFP's rules (Paper Folding Puzzles, reference §1) as data, for `foldsim.families.pfp`.

Everything the generator draws from is stated here: the sheets, the fold vocabulary (fold records
as `foldsim.cutfold.fold_from_record` reads them), the cut shapes and their sizes, the counts and
placement probabilities, the distractor transforms and the levels. Numbers are exact (integers and
`Fraction`s) so the items stay exact. Where PFP's published code has no number (its fold templates
were never published) the value is foldsim's and says so.
"""

from __future__ import annotations

from fractions import Fraction as F

#: the five sheets the paper uses (of PFP's 13), whole-pixel rounding of irrational vertices
SHEETS = ("square", "rectangle", "circle", "hexagon", "house")
SHEET_GRID = F(1)
#: sheet difficulty (foldsim's grouping; PFP has none in code): straight-edged boxes are "plain",
#: shapes whose edges are not all axis-parallel are "shaped"
SHEET_DIFFICULTY = {"square": "plain", "rectangle": "plain", "circle": "shaped", "hexagon": "shaped",
                    "house": "shaped"}

# -- folds -------------------------------------------------------------------------------------------
# Points of "angle" folds are fractions of the original sheet's box, x from the left, y from the TOP
# (PFP's `Angle`); the paper on the left of p1 -> p2 as seen stays.

_HALF, _THIRD, _TWO_THIRDS = "1/2", "1/3", "2/3"
#: the paper's twelve symmetric folds: halves (2-way), box diagonals (2-way on a square), thirds
#: (3-way with a second fold); every fold exact (no pixel snap), a per-family choice recorded in
#: the item
SYMMETRIC_FOLDS = {
    "half_right_over": {"type": "Hori_Left", "rate": _HALF},
    "half_left_over": {"type": "Hori_Right", "rate": _HALF},
    "half_bottom_up": {"type": "Vert_Top", "rate": _HALF},
    "half_top_down": {"type": "Vert_Bottom", "rate": _HALF},
    "diagonal_main_a": {"type": "angle", "p1": ["0", "0"], "p2": ["1", "1"]},
    "diagonal_main_b": {"type": "angle", "p1": ["1", "1"], "p2": ["0", "0"]},
    "diagonal_anti_a": {"type": "angle", "p1": ["1", "0"], "p2": ["0", "1"]},
    "diagonal_anti_b": {"type": "angle", "p1": ["0", "1"], "p2": ["1", "0"]},
    "third_right_over": {"type": "Hori_Left", "rate": _TWO_THIRDS},
    "third_left_over": {"type": "Hori_Right", "rate": _THIRD},
    "third_bottom_up": {"type": "Vert_Top", "rate": _TWO_THIRDS},
    "third_top_down": {"type": "Vert_Bottom", "rate": _THIRD},
}
#: the four asymmetric corner folds: PFP's sample corners (160, 0) -> (0, 160) ... on its 360 box
CORNER_FOLDS = {
    "corner_top_left": {"type": "angle", "p1": ["4/9", "0"], "p2": ["0", "4/9"]},
    "corner_top_right": {"type": "angle", "p1": ["1", "4/9"], "p2": ["5/9", "0"]},
    "corner_bottom_right": {"type": "angle", "p1": ["5/9", "1"], "p2": ["1", "5/9"]},
    "corner_bottom_left": {"type": "angle", "p1": ["0", "5/9"], "p2": ["4/9", "1"]},
}
FOLDS = {**SYMMETRIC_FOLDS, **CORNER_FOLDS}
#: a step: one fold, or (PFP's "Others") a group of 2 to 4 corner folds done as one step
GROUP_SIZES = (2, 3, 4)
#: foldsim's step draw (PFP's templates are unpublished): a group is the first step with this
#: probability; a later single fold folds only the top layer (PFP's layerId = 1 sample) with
#: P_PARTIAL; a partial fold that would tear the paper is drawn again
P_GROUP = F(1, 5)
P_PARTIAL = F(1, 6)
PARTIAL_LAYERS = 1

# -- cuts --------------------------------------------------------------------------------------------

#: PFP's four cut shapes (foldsim.cutfold.pfp_cut); the circle as a polygon on the circle
PFP_SHAPES = ("square", "circle", "rectangle", "hexagon")
CIRCLE_SIDES = 24
#: VisWorld-Eval's mirror-sensitive shapes (a 70-px box like PFP's square): a level of their own.
#: Each: vertices about the centre, in foldsim's frame (y up).
MIRROR_SHAPES = {
    "triangle_left": ((-35, 0), (35, -35), (35, 35)),
    "triangle_right": ((35, 0), (-35, 35), (-35, -35)),
    "triangle_down": ((0, -35), (35, 35), (-35, 35)),
    "diamond": ((0, -35), (25, 0), (0, 35), (-25, 0)),
}
#: the shapes a cut-out is named by when counted (every image of the mirror shapes under the
#: square's symmetries: a fold's reflection turns a left triangle into a right one, a down one up)
COUNTED_SHAPES = {**MIRROR_SHAPES, "triangle_up": ((0, 35), (-35, -35), (35, -35))}
#: how many shapes (distinct types, drawn without replacement): weights for 1, 2, 3, 4
COUNT_WEIGHTS = {"default": (25, 30, 40, 5), "B": (25, 30, 0, 0), "C": (25, 30, 0, 0)}
#: where each shape is centred: a vertex of any final layer (duplicates count), the midpoint of an
#: edge of the top layer, or a point of the final box's middle 60 % (PFP's intended 0.2 + 0.6 u;
#: its code's precedence slip puts it in the left and top 60 %); whole pixels
PLACEMENT_WEIGHTS = (("vertex", 20), ("edge", 30), ("centre", 50))
CENTRE_SPAN = (F(1, 5), F(3, 5))
CENTRE_TRIES = 20
#: PFP's intended near-duplicate filter (its `continue` never takes effect): a cut set whose every
#: centre lies within this distance of an earlier item's same shape, same sheet and steps, is redrawn
NEAR_DISTANCE = 20

# -- distractors (Type A) ----------------------------------------------------------------------------

#: PFP's scale draw: s = 11/10 + u/5 when u > 1/2 (so (6/5, 13/10]) else 17/20 - u/10 ([4/5, 17/20])
SCALE_HIGH = (F(11, 10), F(1, 5))
SCALE_LOW = (F(17, 20), F(-1, 10))
SHIFT_RANGE = (12, 23)
#: the grid a 45°-turned square's irrational corners are rounded to (pixels)
TURN_GRID = F(1, 2)
#: a distractor region is clipped to its layer with this probability, else used whole (PFP's u1)
P_CLIPPED = F(4, 5)
#: PFP's transforms for face-down layers and foldsim's simulated mistakes
PFP_RULES = ("pfp_leave_one_out", "pfp_scaled", "pfp_turned", "pfp_shifted")
SIMULATED_RULES = ("top_layer_only", "face_down_uncut", "last_flap_not_reflected", "group_intermediate",
                   "pfp_group_union", "partial_taken_as_full", "step_skipped")
#: Type C's distractor rules
RULE_DISTRACTORS = ("sides_swapped", "order_reversed", "other_rule")
#: Type B: the kinds of confuse states (their steps from the same vocabulary)
CONFUSE_STEPS = (2, 3)
#: candidates drawn per item before it is given up (PFP tries 13 distractors)
MAX_TRIES = 13

# -- levels --------------------------------------------------------------------------------------------

LEVELS = {
    "A": {"task": "A", "steps": [1, 3], "shapes": list(PFP_SHAPES), "sheets": list(SHEETS)},
    "A-mirror": {"task": "A", "steps": [1, 3], "shapes": list(MIRROR_SHAPES), "sheets": list(SHEETS)},
    "B": {"task": "B", "steps": [3, 3], "shapes": list(PFP_SHAPES), "sheets": list(SHEETS)},
    "C": {"task": "C", "steps": [1, 3], "shapes": list(PFP_SHAPES), "sheets": list(SHEETS), "cut_sets": 4},
}
