"""A described family of general sheet items (docs/engine.md, "Configuration spaces"): a sheet of
`cols x rows` cells, an alphabet of folds — every allowed line (absolute: every interior grid line,
every 45° line ``y - x = k`` / ``x + y = k`` through lattice points that crosses the sheet;
box-relative: the current box's midlines, thirds or 45° lines through its centre) with every
allowed moving side (both named sides, or the smaller one) and face (front only, or front and back)
— sequences of `min_folds .. folds` of them, and a punch set (every cell centre, or every half-cell
point inside the sheet), given in the sheet's absolute coordinates. Absolute lines that lie outside
the flat sheet are not in the alphabet, even where an overhanging flap has moved paper there.

The alphabet is a table of kernel action rows (`foldsim.kernels.engine`, int32[A, ACTION_WIDTH],
encoded with NumPy) and the punch set one of kernel punches; `SheetFamily.parse` reads a family
from the command line's options. `foldsim.sheet_space` enumerates it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .engine import FAMILY_CENTRING, FAMILY_INDEX
from .errors import InputError, describe
from .kernels import engine as E
from .sheets import MAX_SHEET_SIDE, SIDE_SIGNS, Fold, Line, SheetSpec


#: the line sets a family can allow (see `SheetFamily`)
LINE_SETS = {
    "grid": "every interior grid line (H y = 1 .. rows-1, V x = 1 .. cols-1)",
    "diagonal": "every 45° line through lattice points that crosses the sheet (D y - x = k, N x + y = k)",
    "halves": "the current box's midlines (H and V at 1/2 of the box)",
    "thirds": "the current box's thirds (H and V at 1/3 and 2/3 of the box)",
    "centre-diagonals": "the 45° lines through the current box's centre (D and N at 1/2 of the box)",
}
SIDE_OPTIONS = {"both": "either named side moves (two actions per line)",
                "smaller": "the smaller side moves (one action per line; the first named side on a tie)"}
FACE_OPTIONS = {"front": "the flap turns toward the viewer", "both": "toward or away from the viewer"}
PUNCH_SETS = {"centres": "every cell centre", "half": "every half-cell point strictly inside the sheet"}
#: the most folds a family enumerates (the space grows about A^k; the memory bound usually stops it
#: well before)
MAX_FOLDS = 8


@dataclass(frozen=True)
class SheetFamily:
    """A described family of general items: sheet, allowed lines, fold count, sides, faces, punches."""

    cols: int
    rows: int
    folds: int
    lines: tuple[str, ...] = ("grid", "diagonal")
    min_folds: int = 1
    sides: str = "both"
    faces: str = "front"
    punches: str = "centres"

    def __post_init__(self) -> None:
        SheetSpec(self.cols, self.rows)  # validates the size
        lines = tuple(self.lines)
        object.__setattr__(self, "lines", lines)
        for name in lines:
            if name not in LINE_SETS:
                raise InputError(f"must be some of {', '.join(LINE_SETS)}, got {describe(name)}", field="lines")
        if not lines or len(set(lines)) != len(lines):
            raise InputError(f"must name each line set once, got {describe(lines)}", field="lines")
        for name, value, low in (("folds", self.folds, 1), ("min_folds", self.min_folds, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_FOLDS:
                raise InputError(f"must be a whole number from {low} to {MAX_FOLDS}, got {describe(value)}", field=name)
        if self.min_folds > self.folds:
            raise InputError(f"must be at most folds ({self.folds}), got {self.min_folds}", field="min_folds")
        for name, value, options in (("sides", self.sides, SIDE_OPTIONS), ("faces", self.faces, FACE_OPTIONS),
                                     ("punches", self.punches, PUNCH_SETS)):
            if value not in options:
                raise InputError(f"must be one of {', '.join(options)}, got {describe(value)}", field=name)

    @classmethod
    def parse(cls, sheet: str, folds: int, lines: str = "grid,diagonal", **options) -> "SheetFamily":
        """A family from CLI text: `sheet` "COLSxROWS" (e.g. "4x4"), `lines` comma-separated. An
        InputError names the option as the command line spells it (--sheet, --folds, --sides, ...)."""
        parts = str(sheet).lower().split("x")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise InputError(f"must be COLSxROWS, e.g. 4x4, got {describe(sheet)}", field="--sheet")
        cols, rows = (int(p) for p in parts)
        if not (1 <= cols <= MAX_SHEET_SIDE and 1 <= rows <= MAX_SHEET_SIDE):
            raise InputError(f"must be 1 to {MAX_SHEET_SIDE} cells each way, got {describe(sheet)}", field="--sheet")
        names = tuple(n.strip() for n in str(lines).split(",") if n.strip())
        try:
            return cls(cols, rows, folds, names, **options)
        except InputError as error:
            option = f"--{error.field.replace('_', '-')}" if error.field in ("lines", "folds", *options) else error.field
            raise InputError(error.message, field=option) from None

    def describe(self) -> str:
        lengths = f"{self.folds}" if self.min_folds == self.folds else f"{self.min_folds}..{self.folds}"
        return (f"{self.cols}x{self.rows} sheet, {lengths} folds at {'/'.join(self.lines)} lines, "
                f"{self.sides} side{'s' if self.sides == 'both' else ''}, {self.faces} face"
                f"{'s' if self.faces == 'both' else ''}, one punch at {PUNCH_SETS[self.punches]}")

    def to_dict(self) -> dict:
        return {"sheet": f"{self.cols}x{self.rows}", "folds": self.folds, "min_folds": self.min_folds,
                "lines": list(self.lines), "sides": self.sides, "faces": self.faces, "punches": self.punches}

    # the alphabet ------------------------------------------------------------------------------

    def _lines(self) -> list[tuple[str, Fraction | None, Fraction | None]]:
        """(family, absolute value in cell units | None, box fraction | None), in a fixed order."""
        out: list[tuple[str, Fraction | None, Fraction | None]] = []
        if "grid" in self.lines:
            out += [("H", Fraction(k), None) for k in range(1, self.rows)]
            out += [("V", Fraction(k), None) for k in range(1, self.cols)]
        if "diagonal" in self.lines:
            out += [("D", Fraction(k), None) for k in range(1 - self.cols, self.rows)]
            out += [("N", Fraction(k), None) for k in range(1, self.cols + self.rows)]
        if "halves" in self.lines:
            out += [(f, None, Fraction(1, 2)) for f in ("H", "V")]
        if "thirds" in self.lines:
            out += [(f, None, Fraction(k, 3)) for f in ("H", "V") for k in (1, 2)]
        if "centre-diagonals" in self.lines:
            out += [(f, None, Fraction(1, 2)) for f in ("D", "N")]
        return out

    def fold_choices(self) -> tuple[Fold, ...]:
        """The alphabet as `Fold`s, in the order of `alphabet_rows`."""
        folds = []
        for family, at, box in self._lines():
            line = Line(family, at=at) if at is not None else Line.box(family, box)
            sides = list(SIDE_SIGNS[family]) if self.sides == "both" else ["smaller"]
            for side in sides:
                for front in ((True,) if self.faces == "front" else (True, False)):
                    folds.append(Fold(line, moves=side, front=front))
        return tuple(folds)

    def alphabet_rows(self, r: int) -> np.ndarray:
        """int32[A, ACTION_WIDTH]: the alphabet as kernel rows on a mesh of resolution r (NumPy)."""
        lines = self._lines()
        family = np.array([FAMILY_INDEX[f] for f, _, _ in lines], np.int32)
        absolute = np.array([at is not None for _, at, _ in lines])
        centring = np.array([FAMILY_CENTRING[f](self.cols, self.rows) for f, _, _ in lines], np.int64)
        at = np.array([int(at) if at is not None else 0 for _, at, _ in lines], np.int64)  # integer lines only
        num = np.where(absolute, 2 * r * at - r * centring, [b.numerator if b is not None else 0 for _, _, b in lines])
        den = np.array([b.denominator if b is not None else 0 for _, _, b in lines], np.int64)
        # per line: its sides (+1 / -1 named, or the "smaller" rule with the first named side on a tie)
        side_values = (1, -1) if self.sides == "both" else (1,)
        faces = (1,) if self.faces == "front" else (1, 0)
        n_lines, n_sides, n_faces = len(lines), len(side_values), len(faces)
        rows = np.zeros((n_lines, n_sides, n_faces, E.ACTION_WIDTH), np.int32)
        rows[..., E.KIND] = E.FOLD
        rows[..., E.FAMILY] = family[:, None, None]
        rows[..., E.LINE_MODE] = np.where(absolute, E.ABSOLUTE, E.BOX)[:, None, None]
        rows[..., E.NUM] = num[:, None, None]
        rows[..., E.DEN] = den[:, None, None]
        rows[..., E.SIDE_RULE] = E.NAMED if self.sides == "both" else E.SMALLER
        rows[..., E.TIE if self.sides != "both" else E.SIDE_A] = np.asarray(side_values, np.int32)[None, :, None]
        rows[..., E.FRONT] = np.asarray(faces, np.int32)[None, None, :]
        # named sides follow SIDE_SIGNS' order (first name: +1), as fold_choices lists them
        return rows.reshape(-1, E.ACTION_WIDTH)

    # the punches -------------------------------------------------------------------------------

    def punch_points(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """The punch set in sheet cell units (x right, y up from the bottom-left corner), x-major."""
        if self.punches == "centres":
            return tuple((Fraction(2 * i + 1, 2), Fraction(2 * j + 1, 2)) for i in range(self.cols)
                         for j in range(self.rows))
        return tuple((Fraction(i, 2), Fraction(j, 2)) for i in range(1, 2 * self.cols) for j in range(1, 2 * self.rows))

    def punch_denominator(self, r: int) -> int:
        """The common D of the punch rows on a mesh of resolution r (1: every point is on the lattice)."""
        return math.lcm(*(v.denominator for p in self.punch_points() for v in lattice(p, self.cols, self.rows, r)))

    def punch_rows(self, r: int) -> np.ndarray:
        """int32[P, 3]: the punch set as kernel punches (X, Y, D) with one common D."""
        d = self.punch_denominator(r)
        return np.array([[int(v * d) for v in lattice(p, self.cols, self.rows, r)] + [d] for p in self.punch_points()],
                        np.int32).reshape(-1, 3)


def lattice(point: tuple[Fraction, Fraction], cols: int, rows: int, r: int) -> tuple[Fraction, Fraction]:
    """Sheet cell units -> the engine's centred lattice (X = 2r x - r cols, Y = 2r y - r rows)."""
    return 2 * r * point[0] - r * cols, 2 * r * point[1] - r * rows
