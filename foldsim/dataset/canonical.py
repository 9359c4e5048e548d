"""Canonical forms: one name for every configuration that poses the same problem up to a symmetry.

The sheet is a square whose triangle grid is symmetric under the 8 symmetries of the square (the
dihedral group D4: 4 rotations, 4 mirrors). A symmetry g acts on everything an item is made of:

- a location (grid id) goes to the grid id of g(its triangle);
- a fold type goes to the fold type whose moving side is g(its moving side) (a quarter turn maps
  H1->V1, H2->V2, V1->H2, V2->H1, D1->D3, D2->D1, D3->D4, D4->D2; the top/bottom mirror maps
  H1<->H2, D1<->D3, D2<->D4 and keeps V1, V2); -F/-B is kept (g acts in the plane of the sheet);
- a rotation R-a stays R-a under a rotation and becomes R-(360-a) under a mirror;
- a hole direction d (degrees): d + 90k under a turn by k quarter turns; 2*phi + 180 - d under the
  mirror across the line at angle phi (SPEC §4's rule for a reflected layer), by class.

Because the simulator is built from the same geometry, it commutes with every g:
simulate(g.config) = g.simulate(config) -- the result holes and the unfolding codes (proved by
property tests over random configurations and all 8 symmetries). So g.config is the same problem
as config with its answer relabelled by g, and a model that has seen one has seen the other.

-F/-B is dropped from the canonical form for every task: F/B never changes where holes land or
their directions (SPEC §3), and an unfolding code keeps its own fold's suffix (the k-th code from
the end belongs to the k-th fold), so flipping any folds' F/B changes the answer only by flipping
the same suffixes (also property-tested). Items that differ only in F/B are the same problem.

The canonical form of a configuration is the smallest, over the 8 symmetries, of (fold types and
rotations in order, F/B dropped; the sorted multiset of initial holes as (shape, size, location,
direction class)). The canonical form of a *target* (what a planning task poses) is the smallest
over the 8 symmetries of (number of folds; sorted multiset of result holes). Both are strings:
readable, hashable, equal exactly when the items are images of each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..codes import action_code, parse_action
from ..config import Config
from ..mentalblackboard_sheet import SHEET
from ..holes import SHAPE_PERIOD, SHAPES, SIZES, Hole, direction_value
from ..kernels import actions as A
from ..mesh import QUARTER_ROTATIONS
from ..planning import NO_HOLE, PERIOD_OF_KIND, hole_key, key_of

#: the direction (x, y; y up) toward the moving side of each fold type H1 H2 V1 V2 D1 D2 D3 D4
FOLD_NORMALS = np.array([(0, 1), (0, -1), (-1, 0), (1, 0), (-1, 1), (1, 1), (-1, -1), (1, -1)], dtype=np.int32)
#: mirror across the x axis (top <-> bottom)
MIRROR = np.array([[1, 0], [0, -1]], dtype=np.int32)

NAMES = ("identity", "rotate_90", "rotate_180", "rotate_270",
         "mirror_top_bottom", "mirror_slash", "mirror_left_right", "mirror_backslash")


@dataclass(frozen=True)
class Symmetry:
    """g = (turn by `quarter_turns` counter-clockwise) after (mirror top<->bottom, if `mirrored`).

    A mirrored g is the mirror across the line at angle 45 * quarter_turns degrees: 0 the
    horizontal axis, 45 the "/" diagonal, 90 the vertical axis, 135 the "\\" diagonal."""

    quarter_turns: int
    mirrored: bool

    @property
    def name(self) -> str:
        return NAMES[4 * self.mirrored + self.quarter_turns]

    @cached_property
    def matrix(self) -> np.ndarray:
        turn = QUARTER_ROTATIONS[self.quarter_turns]
        return turn @ MIRROR if self.mirrored else turn

    @cached_property
    def locations(self) -> np.ndarray:
        """int32[32]: grid index of the image of each grid index (the sheet's own permutation for
        this isometry, which it checks maps the sheet onto itself)."""
        return SHEET.image_permutation(self.matrix)

    @cached_property
    def fold_types(self) -> np.ndarray:
        """int32[8]: the fold type (0..7) whose moving side is the image of each fold type's."""
        images = FOLD_NORMALS @ self.matrix.T
        return np.array([np.flatnonzero((FOLD_NORMALS == n).all(1))[0] for n in images], dtype=np.int32)

    @cached_property
    def actions(self) -> np.ndarray:
        """int32[N_ACTION_CODES]: the image of every kernel action (NOOP stays NOOP)."""
        table = np.arange(A.N_ACTION_CODES, dtype=np.int32)
        for side in (A.FIRST_FOLD_FRONT, A.FIRST_FOLD_BACK):
            table[side : side + 8] = side + self.fold_types
        if self.mirrored:  # a mirror reverses the sense of rotation: R-90 <-> R-270
            table[A.FIRST_ROTATION :] = table[A.FIRST_ROTATION :][::-1]
        return table

    def quarter(self, quarter: np.ndarray | int) -> np.ndarray | int:
        """The image of a direction in quarter turns (not reduced by a shape's period)."""
        if self.mirrored:  # 2*phi + 180 - d with phi = 45 * quarter_turns
            return (self.quarter_turns + 2 - quarter) % 4
        return (quarter + self.quarter_turns) % 4

    def location(self, location: int) -> int:
        """The image of a grid id 1..32."""
        return int(self.locations[location - 1]) + 1

    def code(self, code: str) -> str:
        """The image of an action code ("H1-F" -> "H2-F" under mirror_top_bottom)."""
        return action_code(int(self.actions[parse_action(code)]))

    def hole(self, hole: Hole) -> Hole:
        """The image of a hole (location and direction moved; shape and size kept). `mirrored`
        flips under a mirror: the glyph is then seen from the other side."""
        quarter = self.quarter(hole.quarter)
        return Hole(hole.shape, hole.size, direction_value(hole.shape, quarter), self.location(hole.location),
                    hole.mirrored != self.mirrored)

    def config(self, config: Config) -> Config:
        """g.config: every action and every hole mapped."""
        return Config(tuple(map(self.code, config.actions)), tuple(map(self.hole, config.holes)), config.id)

    def holes(self, holes: Sequence[Hole]) -> tuple[Hole, ...]:
        return tuple(map(self.hole, holes))

    def codes(self, codes: Sequence[str]) -> tuple[str, ...]:
        return tuple(map(self.code, codes))


SYMMETRIES = tuple(Symmetry(k, m) for m in (False, True) for k in range(4))


# -- canonical forms, vectorized over a batch --------------------------------------------------------


def _front_only(actions: np.ndarray) -> np.ndarray:
    """Kernel actions with every -B fold written as its -F twin (F/B dropped)."""
    back = (actions >= A.FIRST_FOLD_BACK) & (actions < A.FIRST_ROTATION)
    return np.where(back, actions - (A.FIRST_FOLD_BACK - A.FIRST_FOLD_FRONT), actions)


def _map_hole_keys(g: Symmetry, keys: np.ndarray) -> np.ndarray:
    """The images of `planning.hole_key` keys under g, each row sorted again (NO_HOLE stays last)."""
    present = keys != NO_HOLE
    safe = np.where(present, keys, 0)
    kind, rest = np.divmod(safe, 128)
    location0, quarter = np.divmod(rest, 4)
    mapped = hole_key(kind, g.locations[location0], g.quarter(quarter) % PERIOD_OF_KIND[kind]).astype(np.int32)
    return np.sort(np.where(present, mapped, NO_HOLE), axis=1)


def _lexicographic_min(candidates: Sequence[np.ndarray]) -> np.ndarray:
    """Row-wise lexicographic minimum of several int[N, K] arrays."""
    best = candidates[0].copy()
    rows = np.arange(len(best))
    for candidate in candidates[1:]:
        differs = candidate != best
        first = differs.argmax(1)
        smaller = differs.any(1) & (candidate[rows, first] < best[rows, first])
        best[smaller] = candidate[smaller]
    return best


def _padded(rows: Sequence[Sequence[int]], fill: int) -> np.ndarray:
    width = max([1, *map(len, rows)])
    out = np.full((len(rows), width), fill, dtype=np.int32)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def _hole_text() -> list[str]:
    """Readable text of every hole key: "star/large/12/90" (direction as the class's first angle)."""
    texts = []
    for kind in range(len(SHAPES) * len(SIZES)):
        shape, size = SHAPES[kind // 2], SIZES[kind % 2]
        for location0 in range(32):
            for quarter in range(4):
                texts.append(f"{shape}/{size}/{location0 + 1}/{90 * (quarter % SHAPE_PERIOD[shape])}")
    return texts


_HOLE_TEXT = _hole_text()
_FOLD_TEXT = ["", *(code.split("-")[0] for code in map(action_code, range(1, A.FIRST_FOLD_BACK))),
              *([""] * 8), "R-90", "R-180", "R-270"]


def configuration_keys(configs: Sequence[Config]) -> list[str]:
    """The canonical form of every configuration (module docstring), e.g.
    "H1,V2,R-90|star/large/12/90,circle/small/3/0"; computed for the whole batch at once."""
    if not configs:
        return []
    actions = _front_only(_padded([[parse_action(a) for a in c.actions] for c in configs], A.NOOP))
    holes = np.sort(_padded([[key_of(h) for h in c.holes] for c in configs], NO_HOLE), axis=1)
    images = [np.concatenate([g.actions[actions], _map_hole_keys(g, holes)], axis=1) for g in SYMMETRIES]
    best = _lexicographic_min(images)
    width = actions.shape[1]
    return [_text(row[:width], row[width:]) for row in best.tolist()]


def target_keys(folds: Sequence[int], holes: Sequence[Sequence[Hole]]) -> list[str]:
    """The canonical form of every target: a number of folds and a multiset of result holes, e.g.
    "3 folds|star/large/12/90,star/large/21/0"."""
    if not folds:
        return []
    keys = np.sort(_padded([[key_of(h) for h in row] for row in holes], NO_HOLE), axis=1)
    best = _lexicographic_min([_map_hole_keys(g, keys) for g in SYMMETRIES])
    return [f"{n} folds|" + ",".join(_HOLE_TEXT[k] for k in row if k != NO_HOLE) for n, row in zip(folds, best.tolist())]


def _text(actions: list[int], holes: list[int]) -> str:
    codes = ",".join(_FOLD_TEXT[a] for a in actions if a != A.NOOP)
    return codes + "|" + ",".join(_HOLE_TEXT[k] for k in holes if k != NO_HOLE)


def configuration_key(config: Config) -> str:
    """`configuration_keys` of one configuration."""
    return configuration_keys([config])[0]


def target_key(folds: int, holes: Sequence[Hole]) -> str:
    """`target_keys` of one target."""
    return target_keys([folds], [holes])[0]


# -- general items (benchmark families): canonical forms under the rectangle's symmetries -----------

#: a family's normal vector (the functional's gradient: H y, V x, D y - x, N x + y)
_NORMALS = {"H": (0, 1), "V": (1, 0), "D": (-1, 1), "N": (1, 1)}


def rectangle_symmetries(cols: int, rows: int) -> list[tuple[tuple[int, int, int, int], tuple]]:
    """The isometries of the cols x rows rectangle (sheet cell units, origin bottom-left) as
    (matrix a, b, c, d: p -> (a x + b y, c x + d y) + t, t): 4, or 8 for a square."""
    from fractions import Fraction

    w, h = Fraction(cols), Fraction(rows)
    out = [((1, 0, 0, 1), (0, 0)), ((-1, 0, 0, 1), (w, 0)), ((1, 0, 0, -1), (0, h)), ((-1, 0, 0, -1), (w, h))]
    if cols == rows:
        out += [((0, 1, 1, 0), (0, 0)), ((0, -1, -1, 0), (w, w)), ((0, -1, 1, 0), (w, 0)), ((0, 1, -1, 0), (0, w))]
    return out


def _map_point(g, x, y):
    (a, b, c, d), (tx, ty) = g
    return a * x + b * y + tx, c * x + d * y + ty


def _map_fold(g, action: dict) -> dict:
    """A general item's fold record under the isometry g: line family and value, the named sides,
    the tie and the held point carried; box fractions reversed where the functional turns over."""
    from fractions import Fraction

    from ..sheets import SIDE_SIGNS

    (a, b, c, d), (tx, ty) = g
    line = action["line"]
    nx, ny = _NORMALS[line["family"]]
    mx, my = a * nx + b * ny, c * nx + d * ny  # M n
    family, sign = next((f, s) for f, (fx, fy) in _NORMALS.items() for s in (1, -1) if (s * fx, s * fy) == (mx, my))
    fx, fy = _NORMALS[family]
    new_line = {"family": family}
    if "at" in line:
        new_line["at"] = str(sign * Fraction(line["at"]) + fx * tx + fy * ty)
    else:
        fraction = Fraction(line["box"])
        new_line["box"] = str(fraction if sign == 1 else 1 - fraction)
        if line.get("square"):
            new_line["square"] = True

    def side(name):
        if name is None or name not in SIDE_SIGNS[line["family"]]:
            return name
        value = sign * SIDE_SIGNS[line["family"]][name]
        return next(k for k, v in SIDE_SIGNS[family].items() if v == value)

    out = {"line": new_line, "moves": side(action.get("moves", "smaller")), "front": action.get("front", True),
           "tie": side(action.get("tie"))}
    if action.get("point") is not None:
        out["point"] = [str(v) for v in _map_point(g, Fraction(action["point"][0]), Fraction(action["point"][1]))]
    return out


def general_item_key(item: dict) -> str:
    """The canonical form of a general item record (foldsim.sheets: sheet, folds, punches) under the
    symmetries of its rectangle (the square's 8, else 4): the least of its images' texts. Two items
    with the same key are the same problem seen turned or mirrored. Punches are compared as
    points with shape and size (a circle's direction is invisible; other shapes keep theirs).
    InputError (from foldsim.sheets) for a record that is not a readable fold-only item."""
    import json
    from fractions import Fraction

    from ..errors import InputError
    from ..sheets import item_from_record, item_to_record

    record = item_to_record(item_from_record(item))  # validated, exact values as "p/q"
    cols, rows = record["sheet"]["cols"], record["sheet"]["rows"]
    if any(a.get("type", "fold") != "fold" for a in record["actions"]):
        raise InputError("only fold-only items have a canonical family key", item=record.get("id"), field="actions")
    texts = []
    for g in rectangle_symmetries(cols, rows):
        (a, b, c, d), _ = g
        size = (cols, rows) if b == 0 else (rows, cols)
        folds = [_map_fold(g, action) for action in record["actions"]]
        punches = sorted((str(px), str(py), p["shape"], p["size"], 0 if p["shape"] == "circle" else p["direction"])
                         for p in record["punches"]
                         for px, py in [_map_point(g, Fraction(p["x"]), Fraction(p["y"]))])
        texts.append(json.dumps([size, folds, punches], sort_keys=True))
    return min(texts)
