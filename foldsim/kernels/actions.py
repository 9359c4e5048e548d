"""Integer encoding of actions, so one compiled program serves any mix of patterns (SPEC §3).

An action is one int32:
  0            no-op (padding)
  1 .. 8       fold type H1,H2,V1,V2,D1,D2,D3,D4 with -F (toward the viewer)
  9 .. 16      the same fold types with -B (away from the viewer)
  17, 18, 19   rotation by 90, 180, 270 degrees counter-clockwise
"""

from __future__ import annotations

import numpy as np

FOLD_TYPES = ("H1", "H2", "V1", "V2", "D1", "D2", "D3", "D4")
FOLD_NAMES = (
    "horizontal_top_to_bottom",
    "horizontal_bottom_to_top",
    "vertical_left_to_right",
    "vertical_right_to_left",
    "diagonal_topLeft_to_bottomRight",
    "diagonal_topRight_to_bottomLeft",
    "diagonal_bottomLeft_to_topRight",
    "diagonal_bottomRight_to_topLeft",
)
ROTATION_DEGREES = (90, 180, 270)

NOOP = 0
FIRST_FOLD_FRONT = 1
FIRST_FOLD_BACK = 9
FIRST_ROTATION = 17
N_ACTION_CODES = 20

#: crease family of each fold type: 0 horizontal, 1 vertical, 2 "/" box diagonal, 3 "\" box diagonal.
FOLD_FAMILY = np.array([0, 0, 1, 1, 2, 3, 3, 2], dtype=np.int32)
#: which side of the crease functional (see step.py) moves: +1 positive side, -1 negative side.
MOVING_SIGN = np.array([1, -1, -1, 1, 1, 1, -1, -1], dtype=np.int32)
#: the fold type after one counter-clockwise quarter turn of the sheet (SPEC §4).
QUARTER_TURN = np.array([2, 3, 1, 0, 6, 4, 7, 5], dtype=np.int32)
#: the opposite fold on the same axis (H1<->H2, V1<->V2, D1<->D4, D2<->D3).
OPPOSITE = np.array([1, 0, 3, 2, 7, 6, 5, 4], dtype=np.int32)


def fold_action(fold_type: int, front: bool) -> int:
    """Action int for fold type index 0..7 and its -F/-B flag."""
    return (FIRST_FOLD_FRONT if front else FIRST_FOLD_BACK) + fold_type


def rotation_action(quarter_turns: int) -> int:
    """Action int for a counter-clockwise rotation of 1..3 quarter turns."""
    return FIRST_ROTATION + quarter_turns - 1


def turned_fold_table() -> np.ndarray:
    """int32[4, 8]: fold type after k counter-clockwise quarter turns."""
    table = np.zeros((4, 8), dtype=np.int32)
    table[0] = np.arange(8)
    for k in range(1, 4):
        table[k] = QUARTER_TURN[table[k - 1]]
    return table


TURNED_FOLD = turned_fold_table()
