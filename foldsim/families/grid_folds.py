"""SpatialViz-Bench's grid folds (reference §3.5), shared by the families that fold its grids:
`foldsim.families.spatialviz` (cell-centre holes) and `foldsim.families.visworld` (cut shapes).
Not a family module: it stays out of the independence contract, like `net_options`.

- levels: L0 3x3 / 2 folds / 1 hole (cut), L1 4x4 / 2 / 2, L2 5x5 / 3 / 3;
- every fold but the last: horizontal or vertical, at an interior grid line of the CURRENT folded
  rectangle; the smaller part moves (equal halves: bottom onto top, right onto left), so there is
  never overhang and the paper stays a rectangle;
- the last fold: a 45° corner fold along x ± y = integer through two cell centres on adjacent
  edges of the rectangle (a corner triangle with legs 2 .. min(width, height) cells moves; a
  square's main diagonal: top-right moves for "\\", top-left for "/");
- marks (holes, cuts) at cell centres of the folded shape (cells cut in half by the 45° crease
  included).

Everything is exact integer rectangles in cell units (x right, y up).
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..sheets import SIDE_SIGNS

Q = Fraction
#: the moving side of an H/V fold that halves the rectangle exactly
TIES = {"H": "below", "V": "right"}
#: SpatialViz's levels: sheet cols x rows, folds and marks (holes or cuts) as inclusive ranges
GRID_LEVELS = {"L0": {"cols": 3, "rows": 3, "folds": (2, 2), "marks": (1, 1)},
               "L1": {"cols": 4, "rows": 4, "folds": (2, 2), "marks": (2, 2)},
               "L2": {"cols": 5, "rows": 5, "folds": (3, 3), "marks": (3, 3)}}


def corner_folds(x0: int, y0: int, x1: int, y1: int) -> list[tuple[str, int, str, int, str]]:
    """Every 45° corner fold of the rectangle: (family, at, moving side, legs, corner), unique lines."""
    w, h = x1 - x0, y1 - y0
    out = []
    for legs in range(2, min(w, h) + 1):
        out.append(("D", y1 - x0 - legs, "upper_left", legs, "top-left"))
        out.append(("N", x1 + y1 - legs, "upper_right", legs, "top-right"))
        if not (w == h == legs):  # a square's main diagonals: once each (top-left, top-right move)
            out.append(("N", x0 + y0 + legs, "lower_left", legs, "bottom-left"))
            out.append(("D", y0 - x1 + legs, "lower_right", legs, "bottom-right"))
    return out


def straight_folds(x0: int, y0: int, x1: int, y1: int) -> list[tuple[str, int, str, tuple[int, int, int, int]]]:
    """Every H/V fold of the rectangle: (family, at, moving side, the rectangle after it)."""
    out = []
    for y in range(y0 + 1, y1):
        below, above = y - y0, y1 - y
        out.append(("H", y, "below", (x0, y, x1, y1)) if below <= above else ("H", y, "above", (x0, y0, x1, y)))
    for x in range(x0 + 1, x1):
        left, right = x - x0, x1 - x
        out.append(("V", x, "left", (x, y0, x1, y1)) if left < right else ("V", x, "right", (x0, y0, x, y1)))
    return out


def phi(family: str, x: Fraction, y: Fraction) -> Fraction:
    return {"H": y, "V": x, "D": y - x, "N": x + y}[family]


def punch_cells(rect: tuple[int, int, int, int], family: str, at: int, mover: str) -> list[tuple[Fraction, Fraction]]:
    """Cell centres of the rectangle not strictly on the moving side of the corner crease."""
    x0, y0, x1, y1 = rect
    sign = SIDE_SIGNS[family][mover]
    return [(Q(2 * x + 1, 2), Q(2 * y + 1, 2)) for y in range(y0, y1) for x in range(x0, x1)
            if sign * (phi(family, Q(2 * x + 1, 2), Q(2 * y + 1, 2)) - at) <= 0]


def draw_grid_folds(rng: random.Random, cols: int, rows: int, n: int) -> tuple[list, list[dict], tuple] | None:
    """SpatialViz's fold draw: n - 1 straight folds, then a corner fold. Returns (folds as
    (family, at, moving side, tie), the steps as records, the folded rectangle), or None when the
    rectangle leaves no fold. The draws' order is SpatialViz's (its items depend on it)."""
    rect = (0, 0, cols, rows)
    folds, steps = [], []
    for _ in range(n - 1):
        x0, y0, x1, y1 = rect
        kinds = [k for k, size in (("H", y1 - y0), ("V", x1 - x0)) if size >= 2]
        if not kinds:
            return None
        kind = rng.choice(kinds)
        family, at, mover, after = rng.choice([f for f in straight_folds(*rect) if f[0] == kind])
        folds.append((family, at, mover, TIES[family]))
        steps.append({"fold": "horizontal" if family == "H" else "vertical", "at": at, "moves": mover})
        rect = after
    corners = corner_folds(*rect)
    if not corners:
        return None
    family, at, mover, legs, corner = rng.choice(corners)
    folds.append((family, at, mover, mover))
    steps.append({"fold": "diagonal", "family": family, "at": at, "moves": mover, "corner": corner, "legs": legs})
    return folds, steps, rect


def replay_steps(cols: int, rows: int, steps: list) -> tuple[list, tuple, list] | str:
    """The fold steps of a record (as `draw_grid_folds` writes them) checked against the rules and
    replayed: (folds, the folded rectangle, the cell centres a mark may take), or the reason they
    break a rule (a one-line text naming the step)."""
    rect = (0, 0, cols, rows)
    folds = []
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        if not isinstance(step, dict):
            return f"step {i + 1}: must be an object"
        at = step.get("at")
        if isinstance(at, bool) or not isinstance(at, int):
            return f"step {i + 1}: 'at' must be a whole number"
        if not last:
            fold = step.get("fold")
            family = {"horizontal": "H", "vertical": "V"}.get(fold) if isinstance(fold, str) else None
            match = [f for f in straight_folds(*rect) if f[0] == family and f[1] == at]
            if not match or step.get("moves") != match[0][2]:
                return (f"step {i + 1}: not a fold of the rectangle {list(rect)} at an interior grid line, "
                        "smaller part moving")
            folds.append((family, at, match[0][2], TIES[family]))
            rect = match[0][3]
        else:
            match = [f for f in corner_folds(*rect) if step.get("fold") == "diagonal" and f[0] == step.get("family")
                     and f[1] == at]
            if not match or step.get("moves") != match[0][2]:
                return f"step {i + 1}: not a 45° corner fold of the rectangle {list(rect)}"
            folds.append((match[0][0], at, match[0][2], match[0][2]))
            return folds, rect, punch_cells(rect, match[0][0], at, match[0][2])
    return "steps: must end with a diagonal fold"
