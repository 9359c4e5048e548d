"""Configuration spaces of general sheets (docs/engine.md, "Configuration spaces"): a described
family of fold sequences and punches, counted exactly, every plan of it punched, proposed plans
verified in bulk, and exhaustive solving with solution counts.

A **family** (`SheetFamily`) is a sheet of `cols x rows` cells, an alphabet of folds — every
allowed line (absolute: every interior grid line, every 45° line ``y - x = k`` / ``x + y = k``
through lattice points that crosses the sheet; box-relative: the current box's midlines, thirds or
45° lines through its centre) with every allowed moving side (both named sides, or the smaller
one) and face (front only, or front and back) — sequences of `min_folds .. folds` of them, and a
punch set (every cell centre, or every half-cell point inside the sheet), given in the sheet's
absolute coordinates. A **configuration** is a fold sequence of the family whose every fold is
realizable (docs/engine.md: both sides of each line hold paper); a **plan** is a configuration and
one punch of the set that lands on paper. Absolute lines that lie outside the flat sheet are not in
the alphabet, even where an overhanging flap has moved paper there.

How: the alphabet is a table of kernel action rows (`foldsim.kernels.engine`, int32[A,
ACTION_WIDTH], encoded with NumPy). Enumeration extends every realizable prefix state by every
action of the alphabet on the device, one jitted call per fixed-size chunk of prefixes (each
prefix is folded once; its children start from its state), and keeps the realizable children: a
failed fold freezes a row, so dropping a non-realizable prefix early loses nothing. The holes of a
punch are a bit set over the lattice points of the (viewed) sheet: a punch through triangle t of
the folded mesh makes a hole at t's preimage of the point (the kernel's `punch_mesh` arithmetic);
holes whose preimages coincide are one bit, which is the engine's dedupe (positions only: shape
and direction are not part of a target here). The whole family's holes are one uint32 table
``masks[k][config, punch, word]``; solving a target is one vectorized comparison against it, and
`hole_set_histogram` counts the plans of every distinct hole set at once.

Lines that fall between mesh lines (box-relative lines on a box of odd extent) make the kernel ask
for a finer mesh; the whole enumeration then restarts at that resolution, so counts stay exact.

Memory (docs/errors.md, "Sizes and bounds"): a chunk holds as many prefixes as the memory budget
allows at `limits.space_child_bytes` per child; a family whose single prefix's children pass the
budget is refused before any work (`check_space`), and the configurations kept are bounded by the
budget at `limits.space_configuration_bytes` each: a level that passes it stops at once, naming the
count and the bound.

Size (~900 lines): the family, its enumeration, plan verification and solving all read one hole-mask
table (``masks[k][config, punch, word]``) and its chunking, defined here; the CLI's presentation helpers
at the end are the part to move out next (after issue 28's size work in this module lands).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np

from .batching import call_bytes_bound, check_rows_fit, fmt_bytes, memory_budget_bytes
from .engine import FAMILY_CENTRING, FAMILY_INDEX, check_size, rectangle_mesh, triangle_count
from .errors import InputError, describe
from .limits import MAX_SPACE_CONFIGURATIONS, space_child_bytes, space_configuration_bytes
from .kernels import engine as E
from .kernels.state import CREASE_CUTS_TRIANGLE, OFF_PAPER, OK, ok_status
from .sheets import (
    MAX_SHEET_SIDE,
    SIDE_SIGNS,
    Fold,
    Line,
    Punch,
    SheetItem,
    SheetSpec,
    as_fraction,
    distinct_points,
)

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
#: the most prefixes of one extender call (past it calls grow, rows/s do not)
MAX_PREFIXES_PER_CALL = 4096

Progress = Callable[[int], None]
#: called before each level with (fold count k, prefixes to extend x alphabet = children to fold)
LevelStart = Callable[[int, int], None]


# -- the family ------------------------------------------------------------------------------------


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


# -- hole positions as bit sets ---------------------------------------------------------------------


@dataclass(frozen=True)
class PositionGrid:
    """Every lattice point a hole can have, as bit ids: centred lattice coordinates (D-scaled) in
    [-offset, offset]^2, id = (X + offset) * side + (Y + offset), packed in `words` uint32 words."""

    cols: int
    rows: int
    resolution: int
    denominator: int

    @property
    def offset(self) -> int:
        return self.resolution * max(self.cols, self.rows) * self.denominator

    @property
    def side(self) -> int:
        return 2 * self.offset + 1

    @property
    def words(self) -> int:
        return -(-self.side * self.side // 32)

    def ids_of(self, points: Iterable[tuple[object, object]], *, turned: bool = False) -> list[int] | None:
        """Bit ids of hole points given in the viewed sheet's cell units (origin at its bottom-left;
        `turned`: the view is a quarter turn, so the viewed sheet is rows x cols); None when a point
        is not on this grid (no plan of the family can make it)."""
        wide, high = (self.rows, self.cols) if turned else (self.cols, self.rows)
        r, d, off = self.resolution, self.denominator, self.offset
        ids = []
        for i, (x, y) in enumerate(points):
            x, y = as_fraction(x, f"target[{i}].x"), as_fraction(y, f"target[{i}].y")
            X, Y = (2 * r * x - r * wide) * d, (2 * r * y - r * high) * d
            if X.denominator != 1 or Y.denominator != 1 or abs(X) > off or abs(Y) > off:
                return None
            ids.append((int(X) + off) * self.side + int(Y) + off)
        return ids

    def mask_of(self, points: Iterable[tuple[object, object]], *, turned: bool = False) -> np.ndarray | None:
        """uint32[words]: the bit set of a hole set (None: a hole no plan can make)."""
        ids = self.ids_of(points, turned=turned)
        if ids is None:
            return None
        mask = np.zeros(self.words, np.uint32)
        for i in ids:
            mask[i >> 5] |= np.uint32(1 << (i & 31))
        return mask

    def points_of(self, mask: np.ndarray, *, turned: bool = False) -> list[tuple[Fraction, Fraction]]:
        """The hole points of a bit set, in the viewed sheet's cell units, sorted."""
        wide, high = (self.rows, self.cols) if turned else (self.cols, self.rows)
        r, d, off = self.resolution, self.denominator, self.offset
        bits = np.flatnonzero(np.unpackbits(np.asarray(mask, "<u4").view(np.uint8), bitorder="little"))
        points = []
        for i in bits.tolist():
            X, Y = i // self.side - off, i % self.side - off
            points.append(((Fraction(X, d) + r * wide) / (2 * r), (Fraction(Y, d) + r * high) / (2 * r)))
        return sorted(points)


def _hole_masks(mesh, state: E.MeshState, punches, offset: int, side: int, words: int):
    """Per punch (int32[P, 3]) of one folded state: the bit set of its holes (uint32[P, words]) and
    whether it lands on paper (bool[P]). Triangle t is hit when its closed placed triangle holds the
    point; its hole is the point's preimage under t's placement, seen through the view (as in
    `kernels.engine.punch_mesh`); coinciding preimages set one bit."""
    vertices = E.placed_vertices(mesh, state)
    word_index = jnp.arange(words, dtype=jnp.int32)

    def one(punch):
        point, den = punch[:2], punch[2]
        hit = E.contains(vertices, point, den) & (den > 0)
        rel = point[None, :] - den * state.shift
        preimage = (state.linear * rel[:, :, None]).sum(1)
        seen = (state.view[None, :, :] * preimage[:, None, :]).sum(-1)
        ids = (seen[:, 0] + offset) * side + (seen[:, 1] + offset)
        bit = jnp.left_shift(jnp.uint32(1), (ids & 31).astype(jnp.uint32))
        bits = jnp.where(hit[:, None] & ((ids >> 5)[:, None] == word_index[None, :]), bit[:, None], jnp.uint32(0))
        return jax.lax.reduce(bits, np.uint32(0), jax.lax.bitwise_or, (0,)), hit.any()

    return jax.vmap(one)(punches)


@functools.lru_cache(maxsize=64)
def _extender(offset: int, side: int, words: int, want_states: bool, want_masks: bool):
    """A jitted call: every prefix state (batched) times every alphabet row -> the children's status
    codes (and details) [n, A], and optionally their states and hole bit sets."""

    def child(mesh, state, action, punches):
        new, status, _ = E.apply_engine_action(mesh, state, ok_status(), action, jnp.int32(0))
        out = {"code": status.code, "detail": status.triangle}
        if want_states:
            out["state"] = new
        if want_masks:
            out["masks"], out["on_paper"] = _hole_masks(mesh, new, punches, offset, side, words)
        return out

    over_actions = jax.vmap(child, in_axes=(None, None, 0, None))
    return jax.jit(jax.vmap(over_actions, in_axes=(None, 0, None, None)))


@functools.lru_cache(maxsize=64)
def _state_puncher(offset: int, side: int, words: int):
    return jax.jit(jax.vmap(lambda mesh, state, punches: _hole_masks(mesh, state, punches, offset, side, words),
                            in_axes=(None, 0, None)))


# -- enumeration -----------------------------------------------------------------------------------


class _Finer(Exception):
    """A line fell between mesh lines: restart on a mesh `factor` times finer."""

    def __init__(self, factor: int):
        super().__init__(factor)
        self.factor = factor


@dataclass
class SheetSpace:
    """A family's configurations, per fold count k: `sequences[k]` int16[N_k, k] (indices into the
    alphabet, lexicographic), and with punches `masks[k]` uint32[N_k, P, words] (the holes of each
    punch as a bit set over `grid`) and `on_paper[k]` bool[N_k, P]."""

    family: SheetFamily
    resolution: int
    alphabet: np.ndarray  # int32[A, ACTION_WIDTH]
    punches: np.ndarray  # int32[P, 3]
    grid: PositionGrid
    sequences: dict[int, np.ndarray]
    masks: dict[int, np.ndarray] | None = None
    on_paper: dict[int, np.ndarray] | None = None
    children_folded: int = 0  # kernel rows run (prefix x alphabet), the work done
    folds: tuple[Fold, ...] = field(default=())

    def counts(self) -> dict[int, int]:
        """Configurations per fold count."""
        return {k: len(v) for k, v in self.sequences.items()}

    @property
    def total(self) -> int:
        return sum(self.counts().values())

    def plan_counts(self) -> dict[int, int]:
        """Plans (configuration, punch on paper) per fold count."""
        if self.on_paper is None:
            raise ValueError("enumerated without punches")
        return {k: int(v.sum()) for k, v in self.on_paper.items()}

    def actions(self, k: int) -> np.ndarray:
        """int32[N_k, k, ACTION_WIDTH]: the configurations of k folds as kernel rows."""
        return self.alphabet[self.sequences[k]]

    def item(self, k: int, index: int, punch: int | None = None) -> SheetItem:
        """Configuration `index` of k folds (and a punch of the set) as a `SheetItem`."""
        folds = tuple(self.folds[a] for a in self.sequences[k][index].tolist())
        punches = () if punch is None else (Punch(*self.family.punch_points()[punch]),)
        return SheetItem(SheetSpec(self.family.cols, self.family.rows), folds, punches,
                         id=f"{k}-fold configuration {index + 1}")

    def summary(self) -> dict:
        out = {"family": self.family.to_dict(), "description": self.family.describe(),
               "alphabet": len(self.alphabet), "punch_points": len(self.punches), "mesh_resolution": self.resolution,
               "by_folds": {str(k): n for k, n in self.counts().items()}, "total": self.total,
               "sequences_without_realizability": {str(k): len(self.alphabet) ** k for k in self.sequences}}
        if self.on_paper is not None:
            plans = self.plan_counts()
            out["plans_by_folds"] = {str(k): n for k, n in plans.items()}
            out["plans"] = sum(plans.values())
        return out


def _chunk_prefixes(n_alphabet: int, triangles: int, punches: int, words: int, masks: bool, budget: int) -> int:
    """Prefixes per extender call within `budget` bytes (at least one: `check_space` refused the
    family before work if one prefix's children do not fit)."""
    per_prefix = n_alphabet * space_child_bytes(triangles, punches if masks else 0, words)
    return max(1, min(MAX_PREFIXES_PER_CALL, budget // max(1, per_prefix)))


@dataclass(frozen=True)
class SpaceBounds:
    """What a family's enumeration may hold at mesh resolution r: bytes of one prefix's children
    (a call holds at least that) and the most configurations the budget keeps."""

    budget: int
    prefix_bytes: int
    configuration_bytes: int

    @property
    def max_configurations(self) -> int:
        return min(MAX_SPACE_CONFIGURATIONS, call_bytes_bound(self.budget) // self.configuration_bytes)


def space_bounds(family: SheetFamily, *, punch: bool = True, resolution: int = 1,
                 budget: int | None = None) -> SpaceBounds:
    """The memory figures of a family (no kernel runs): from `foldsim.limits`' measured formulas."""
    t = triangle_count(family.cols, family.rows, resolution)
    a = len(family.fold_choices())
    p = len(family.punch_points()) if punch else 0
    words = PositionGrid(family.cols, family.rows, resolution, family.punch_denominator(resolution)).words
    return SpaceBounds(memory_budget_bytes() if budget is None else budget, a * space_child_bytes(t, p, words),
                       space_configuration_bytes(t, p, words if punch else 0, family.folds))


def check_space(family: SheetFamily, *, punch: bool = True, resolution: int = 1, budget: int | None = None) -> SpaceBounds:
    """Refuse, before any work, a family whose sheet passes the engine's triangles or whose one
    prefix's children (the smallest call) pass the memory budget; the bounds it will run under."""
    check_size(SheetItem(SheetSpec(family.cols, family.rows), ()), resolution)
    bounds = space_bounds(family, punch=punch, resolution=resolution, budget=budget)
    check_rows_fit(bounds.prefix_bytes, bounds.budget, field="--sheet",
                   what=f"a {family.cols}x{family.rows} family's smallest enumeration call "
                        f"({len(family.fold_choices())} folds x {len(family.punch_points()) if punch else 0} punches)")
    return bounds


#: random fold sequences the size estimate follows (Knuth's estimator: each walk multiplies the
#: realizable choices it meets; their mean is an unbiased estimate of every level's size)
ESTIMATE_WALKS = 256
ESTIMATE_SEED = 0


def _too_many(family: SheetFamily, what: str, bounds: SpaceBounds) -> InputError:
    return InputError(f"a {family.cols}x{family.rows} family of {family.folds} fold{'s' * (family.folds != 1)} has "
                      f"{what}; the memory budget of {fmt_bytes(call_bytes_bound(bounds.budget))} holds at most "
                      f"{bounds.max_configurations:,} at {fmt_bytes(bounds.configuration_bytes)} each (and never more "
                      f"than {MAX_SPACE_CONFIGURATIONS:,}): fewer --folds, a smaller sheet or fewer --lines",
                      field="--sheet")


def estimate_levels(mesh, states, alphabet: np.ndarray, folds: int, budget: int, *,
                    walks: int = ESTIMATE_WALKS, seed: int = ESTIMATE_SEED) -> dict[int, float]:
    """Estimated configurations per fold count (1..folds) by Knuth's random-walk estimator, before
    any enumeration: `walks` walks from the flat sheet each fold all A children of their current
    state (walks x A children a level, never the space), multiply their weight by the number that
    are realizable and go on from a random one; a level's estimate is the mean weight (dead walks
    count 0). Unbiased; deterministic for a seed. Raises `_Finer` as the enumeration would."""
    rng = np.random.default_rng(seed)
    a, t = len(alphabet), len(mesh)
    step = _extender(1, 3, 1, True, False)
    none = np.zeros((1, 3), np.int32)
    chunk = min(_chunk_prefixes(a, t, 0, 0, False, budget), walks)
    states = jax.tree.map(lambda x: np.repeat(np.asarray(x), walks, 0), states)
    weight = np.ones(walks)
    estimates = {}
    for k in range(1, folds + 1):
        code, merged = _children(step, mesh, states, walks, chunk, alphabet, none, check=_finer_needed)
        ok = code == OK
        weight = weight * ok.sum(1)
        estimates[k] = float(weight.mean())
        if not weight.any():
            estimates.update({j: 0.0 for j in range(k + 1, folds + 1)})
            break
        pick = np.where(ok, rng.random(ok.shape), -1.0).argmax(1)  # a random realizable child (any, when dead)
        states = _take(merged, (np.arange(walks), pick))
    return estimates


def _finer_needed(code: np.ndarray, detail: np.ndarray) -> None:
    """Raise `_Finer` (as the enumeration would) when a chunk's children need a finer mesh."""
    if (code == E.OFF_LATTICE).any():
        raise _Finer(int(detail[code == E.OFF_LATTICE].max()))
    if (code == CREASE_CUTS_TRIANGLE).any():
        raise _Finer(2)


def _children(step, mesh, states, count: int, chunk: int, alphabet, punches, *, check=None):
    """Every child (state x alphabet fold) of the first `count` states, `chunk` states a kernel call:
    (codes int[count, A], children's states stacked). `check(code, detail)` sees each chunk first."""
    codes, children = [], []
    for lo in range(0, count, chunk):
        n = min(chunk, count - lo)
        out = jax.device_get(step(mesh, _pad_to(_take(states, slice(lo, lo + n)), chunk), alphabet, punches))
        if check is not None:
            check(out["code"][:n], out["detail"][:n])
        codes.append(out["code"][:n])
        children.append(_take(out["state"], slice(0, n)))
    return np.concatenate(codes), jax.tree.map(lambda *xs: np.concatenate(xs), *children)


def _take(tree, index):
    return jax.tree.map(lambda x: x[index], tree)


def _pad_to(tree, rows: int):
    n = jax.tree.leaves(tree)[0].shape[0]
    if n == rows:
        return tree
    return jax.tree.map(lambda x: np.concatenate([x, np.repeat(x[:1], rows - n, 0)]), tree)


def _enumerate_at(family: SheetFamily, r: int, punch: bool, on_progress: Progress | None,
                  on_level: LevelStart | None = None, budget: int | None = None) -> SheetSpace:
    bounds = check_space(family, punch=punch, resolution=r, budget=budget)
    mesh = rectangle_mesh(family.cols, family.rows, r)
    alphabet = family.alphabet_rows(r)
    punches = family.punch_rows(r)
    grid = PositionGrid(family.cols, family.rows, r, family.punch_denominator(r))
    a, t = len(alphabet), len(mesh)
    start = jax.device_get(E.initial_state(mesh))
    states = jax.tree.map(lambda x: np.asarray(x)[None], start)  # the prefixes of the level: [n, ...]
    most = sum(len(alphabet) ** k for k in range(max(family.min_folds, 1), family.folds + 1))  # every sequence
    estimate = estimate_levels(mesh, states, alphabet, family.folds, bounds.budget) if most > bounds.max_configurations else {}
    expected = sum(n for k, n in estimate.items() if k >= family.min_folds)
    if expected > bounds.max_configurations:  # refused before the enumeration starts
        raise _too_many(family, f"about {expected:,.0f} configurations (estimated from {ESTIMATE_WALKS} random fold "
                        "sequences)", bounds)
    prefixes = np.zeros((1, 0), np.int16)
    sequences, masks, on_paper = {}, {}, {}
    work = 0
    if punch and family.min_folds == 0:
        m, p = _state_puncher(grid.offset, grid.side, grid.words)(mesh, states, punches)
        sequences[0], masks[0], on_paper[0] = prefixes, np.asarray(m), np.asarray(p)
    elif family.min_folds == 0:
        sequences[0] = prefixes
    for k in range(1, family.folds + 1):
        last = k == family.folds
        want_masks = punch and k >= family.min_folds
        step = _extender(grid.offset, grid.side, grid.words, not last, want_masks)
        chunk = _chunk_prefixes(a, t, len(punches), grid.words, want_masks, bounds.budget)
        chunk = min(chunk, 1 << max(0, (len(prefixes) - 1).bit_length()))  # a small level: one small call
        kept_seq, kept_states, kept_masks, kept_paper = [], [], [], []
        kept = 0
        if on_level:
            on_level(k, len(prefixes) * a)
        for lo in range(0, len(prefixes), chunk):
            n = min(chunk, len(prefixes) - lo)
            part = _pad_to(_take(states, slice(lo, lo + n)), chunk)
            out = jax.device_get(step(mesh, part, alphabet, punches))
            code = out["code"][:n]
            finer = code == E.OFF_LATTICE
            if finer.any():
                raise _Finer(int(out["detail"][:n][finer].max()))
            if (code == CREASE_CUTS_TRIANGLE).any():
                raise _Finer(2)
            i, j = np.nonzero(code == OK)
            kept += len(i)
            if kept > bounds.max_configurations:  # the estimate was low: stop before passing the budget
                raise _too_many(family, f"more than {bounds.max_configurations:,} configurations of {k} fold"
                                f"{'s' * (k != 1)} ({kept:,} found before stopping)", bounds)
            kept_seq.append(np.concatenate([prefixes[lo + i], j[:, None].astype(np.int16)], 1))
            if not last:
                kept_states.append(_take(out["state"], (i, j)))
            if want_masks:
                kept_masks.append(out["masks"][i, j])
                kept_paper.append(out["on_paper"][i, j])
            work += n * a
            if on_progress:
                on_progress(n * a)
        prefixes = np.concatenate(kept_seq) if kept_seq else np.zeros((0, k), np.int16)
        if k >= family.min_folds:
            sequences[k] = prefixes
            if want_masks:
                masks[k] = np.concatenate(kept_masks) if kept_masks else np.zeros((0, len(punches), grid.words), np.uint32)
                on_paper[k] = np.concatenate(kept_paper) if kept_paper else np.zeros((0, len(punches)), bool)
        if not last:
            if not kept_states:
                break
            states = jax.tree.map(lambda *xs: np.concatenate(xs), *kept_states)
    for k in range(family.min_folds, family.folds + 1):  # levels after an empty one are empty
        sequences.setdefault(k, np.zeros((0, k), np.int16))
        if punch:
            masks.setdefault(k, np.zeros((0, len(punches), grid.words), np.uint32))
            on_paper.setdefault(k, np.zeros((0, len(punches)), bool))
    return SheetSpace(family, r, alphabet, punches, grid, dict(sorted(sequences.items())),
                      dict(sorted(masks.items())) if punch else None, dict(sorted(on_paper.items())) if punch else None,
                      work, family.fold_choices())


def enumerate_family(family: SheetFamily, *, punch: bool = False, on_progress: Progress | None = None,
                     on_level: LevelStart | None = None, memory_budget: int | None = None) -> SheetSpace:
    """Every configuration of the family, exactly, level by level on the device; with `punch`, every
    punch of the set through every configuration (`SheetSpace.masks`). A family whose box-relative
    lines fall between mesh lines is run again on a finer mesh (InputError past the engine's size).
    InputError before any work when one call passes the memory budget (`check_space`), and as soon
    as a level keeps more configurations than the budget holds. `on_level(k, children)` announces
    each level, `on_progress(n)` counts the children folded."""
    r = 1
    budget = memory_budget_bytes() if memory_budget is None else memory_budget
    while True:
        try:
            return _enumerate_at(family, r, punch, on_progress, on_level, budget)
        except _Finer as finer:
            r *= finer.factor


# -- verification of proposed plans ----------------------------------------------------------------


class PlanCheck(dict):
    """Columns of a bulk verification: `status` int32[N] (kernel status codes, OFF_PAPER when a punch
    misses the paper), `masks` uint32[N, words] (the plan's holes), `turned` bool[N] (its view is a
    quarter turn), `match` bool[N] (status ok and holes equal the target)."""

    __getattr__ = dict.__getitem__


@functools.lru_cache(maxsize=32)
def _plan_runner(offset: int, side: int, words: int):
    def one(mesh, actions, punches):
        state, status = E.fold_mesh(mesh, actions)
        masks, on_paper = _hole_masks(mesh, state, punches, offset, side, words)
        used = punches[:, 2] > 0
        union = jax.lax.reduce(jnp.where(used[:, None], masks, jnp.uint32(0)), np.uint32(0), jax.lax.bitwise_or, (0,))
        missed = used & ~on_paper
        code = jnp.where((status.code == OK) & missed.any(), OFF_PAPER, status.code)
        return code, union, state.view[0, 0] == 0

    return jax.jit(jax.vmap(one, in_axes=(None, 0, 0)))


def plan_holes(cols: int, rows: int, actions: np.ndarray, punches: np.ndarray, *, resolution: int = 1,
               denominator: int = 1, chunk_rows: int = 4096) -> PlanCheck:
    """Run plans given as kernel rows (actions int32[N, S, ACTION_WIDTH], punches int32[N, P, 3] with
    D = `denominator` or 0 for none) on a `cols x rows` sheet at mesh `resolution`: per plan its status
    and the union of its punches' holes as a bit set over `PositionGrid(cols, rows, resolution,
    denominator)`."""
    grid = PositionGrid(cols, rows, resolution, denominator)
    mesh = rectangle_mesh(cols, rows, resolution)
    run = _plan_runner(grid.offset, grid.side, grid.words)
    actions, punches = np.asarray(actions, np.int32), np.asarray(punches, np.int32)
    n = len(actions)
    code, masks, turned = np.zeros(n, np.int32), np.zeros((n, grid.words), np.uint32), np.zeros(n, bool)
    size = min(chunk_rows, 1 << max(0, (n - 1).bit_length()))
    for lo in range(0, n, size):
        part = [_pad_to(x[lo: lo + size], size) for x in (actions, punches)]
        c, m, t = jax.device_get(run(mesh, *part))
        k = min(size, n - lo)
        code[lo: lo + k], masks[lo: lo + k], turned[lo: lo + k] = c[:k], m[:k], t[:k]
    return PlanCheck(status=code, masks=masks, turned=turned, grid=grid)


def verify_plans(space: SheetSpace, sequences: np.ndarray, punch_index: np.ndarray,
                 targets: Sequence[Sequence[tuple[object, object]]] | np.ndarray) -> PlanCheck:
    """Bulk verification: plans of a family (alphabet indices int[N, k] with -1 for no fold, one punch
    index int[N] into the punch set) against target hole sets (a list of N point lists in cell
    units, or of one for all plans, or uint32[N | 1, words] bit sets): `match[i]` says plan i is realizable,
    lands on paper and makes exactly target i's holes."""
    sequences = np.asarray(sequences).reshape(len(sequences), -1)
    rows = np.where((sequences >= 0)[..., None], space.alphabet[np.clip(sequences, 0, None)], 0)
    punches = space.punches[np.asarray(punch_index)][:, None, :]
    width = max(4, rows.shape[1])  # one compiled shape for short plans
    rows = np.concatenate([rows, np.zeros((len(rows), width - rows.shape[1], E.ACTION_WIDTH), np.int32)], 1)
    check = plan_holes(space.family.cols, space.family.rows, rows, punches, resolution=space.resolution,
                       denominator=space.grid.denominator)
    target = target_masks(space.grid, targets)
    found = target[1] if target[1].shape[0] == len(rows) else np.broadcast_to(target[1], (len(rows), space.grid.words))
    valid = target[0] if target[0].shape[0] == len(rows) else np.broadcast_to(target[0], (len(rows),))
    check["match"] = (check.status == OK) & valid & (check.masks == found).all(1)
    return check


def target_masks(grid: PositionGrid, targets) -> tuple[np.ndarray, np.ndarray]:
    """(valid bool[T], masks uint32[T, words]) of targets given as a list of point lists, or as bit
    sets; a target with a point off the grid is not valid (no plan makes it)."""
    if isinstance(targets, np.ndarray) and targets.dtype == np.uint32:
        masks = targets.reshape(-1, grid.words)
        return np.ones(len(masks), bool), masks
    valid, masks = [], []
    for target in targets:
        mask = grid.mask_of(_points(target))
        valid.append(mask is not None)
        masks.append(mask if mask is not None else np.zeros(grid.words, np.uint32))
    return np.array(valid, bool), np.array(masks, np.uint32).reshape(-1, grid.words)


def _points(target) -> list[tuple[object, object]]:
    points = []
    for i, hole in enumerate(target):
        if isinstance(hole, dict):
            if "x" not in hole or "y" not in hole:
                raise InputError("must have x and y", field=f"target[{i}]")
            points.append((hole["x"], hole["y"]))
        elif isinstance(hole, (list, tuple)) and len(hole) == 2:
            points.append((hole[0], hole[1]))
        else:
            raise InputError(f"must be [x, y] or {{\"x\": .., \"y\": ..}}, got {describe(hole)}", field=f"target[{i}]")
    return points


# -- solving ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solutions:
    """Every plan of a family that makes a target's holes: per fold count, (configuration, punch)
    index pairs, lexicographic."""

    target: tuple[tuple[Fraction, Fraction], ...]
    on_grid: bool
    plans: dict[int, np.ndarray]  # k -> int64[M_k, 2]: (configuration index, punch index)

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.plans.values())

    def by_folds(self) -> dict[int, int]:
        return {k: len(v) for k, v in self.plans.items()}


def solve_targets(space: SheetSpace, targets: Sequence[Sequence[tuple[object, object]]]) -> list[Solutions]:
    """Exhaustive solving: for each target hole set (points in cell units), every plan of the family
    that makes exactly those holes (one vectorized comparison over the whole punched space)."""
    if space.masks is None:
        raise ValueError("solving needs a space enumerated with punch=True")
    valid, masks = target_masks(space.grid, targets)
    out = []
    for target, ok, mask in zip(targets, valid, masks):
        plans = {}
        for k, table in space.masks.items():
            if not ok:
                plans[k] = np.zeros((0, 2), np.int64)
                continue
            hit = (table == mask).all(-1) & space.on_paper[k]
            plans[k] = np.argwhere(hit).astype(np.int64)
        exact = tuple(sorted((as_fraction(x, "x"), as_fraction(y, "y")) for x, y in _points(target))) if ok else ()
        out.append(Solutions(exact, bool(ok), plans))
    return out


def hole_set_histogram(space: SheetSpace) -> tuple[np.ndarray, np.ndarray]:
    """(distinct hole sets uint32[H, words], plans making each int64[H]): every target the family can
    pose and its exact solution count, at once."""
    if space.masks is None:
        raise ValueError("needs a space enumerated with punch=True")
    rows = [m[p] for m, p in zip(space.masks.values(), space.on_paper.values())]
    table = np.concatenate(rows) if rows else np.zeros((0, space.grid.words), np.uint32)
    if len(table) == 0:
        return table, np.zeros(0, np.int64)
    keys = np.ascontiguousarray(table).view(np.dtype((np.void, table.dtype.itemsize * table.shape[1]))).ravel()
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    return table[first], counts.astype(np.int64)


def histogram_summary(counts: np.ndarray) -> dict:
    """How many plans a posed target has: distinct targets, uniquely solvable ones, the most."""
    if len(counts) == 0:
        return {"distinct_hole_sets": 0}
    return {"distinct_hole_sets": int(len(counts)), "uniquely_solvable": int((counts == 1).sum()),
            "max_solutions": int(counts.max()), "median_solutions": float(np.median(counts)),
            "mean_solutions": float(counts.mean())}


# -- the CLI's side ---------------------------------------------------------------------------------


def describe_plan(space: SheetSpace, k: int, config: int, punch: int) -> dict:
    """One plan as JSON: its folds (the general item record's fold entries) and punch point."""
    from .sheets import item_to_record

    record = item_to_record(space.item(k, config, punch))
    return {"folds": record["actions"], "punch": {"x": record["punches"][0]["x"], "y": record["punches"][0]["y"]}}


def fold_text(fold: Fold) -> str:
    return f"{fold.line.describe()} {fold.moves}{'' if fold.front else ' (back)'}"


def read_targets(text: str) -> list[list]:
    """Targets from JSON text or a JSON file path (the --target option: errors name it so): a list of
    points ([x, y] or {"x", "y"}; "p/q" strings allowed) is one target; a list of such lists is
    several; {"targets": [...]} too."""
    from pathlib import Path

    raw = text
    if not text.lstrip().startswith(("[", "{")):
        from .io import read_text  # bounded (limits.MAX_INPUT_BYTES): --target /dev/zero ends

        try:
            raw = read_text(Path(text))
        except InputError as err:
            raise InputError(f"is neither JSON nor a readable file ({err.message})", field="--target") from None
    try:
        data = json.loads(raw)
    except ValueError as err:
        raise InputError(f"is not valid JSON ({err})", field="--target") from None
    if isinstance(data, dict):
        data = data.get("targets", data.get("holes"))
    if not isinstance(data, list):
        raise InputError(f"must be a list of holes or of hole lists, got {describe(data)}", field="--target")
    if data and all(isinstance(t, list) and (not t or isinstance(t[0], (list, dict))) for t in data):
        targets = data
    else:
        targets = [data]
    for i, target in enumerate(targets):
        try:
            distinct_points(_points(target), "target")  # exact, bounded numbers; a repeated hole refused
        except InputError as err:
            raise err.at(field_prefix=f"--target: target {i + 1}") from None
    return targets


def space_npz_bytes(space: SheetSpace) -> bytes:
    """The configurations as a columnar .npz: `alphabet` (kernel rows), `folds` (text),
    `sequences_<k>` (int16 alphabet indices) and, when punched, `masks_<k>` / `on_paper_<k>`."""
    import io

    arrays = {"alphabet": space.alphabet, "folds": np.array([fold_text(f) for f in space.folds]),
              "punches": space.punches, "family": np.array(json.dumps(space.family.to_dict()))}
    for k, seq in space.sequences.items():
        arrays[f"sequences_{k}"] = seq
        if space.masks is not None:
            arrays[f"masks_{k}"], arrays[f"on_paper_{k}"] = space.masks[k], space.on_paper[k]
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def render_space(space: SheetSpace, console) -> None:
    from rich.table import Table

    table = Table(title=space.family.describe(), title_justify="left")
    table.add_column("folds", justify="right")
    table.add_column("sequences", justify="right")
    table.add_column("realizable", justify="right")
    if space.on_paper is not None:
        table.add_column("plans (punch on paper)", justify="right")
    plans = space.plan_counts() if space.on_paper is not None else {}
    for k, n in space.counts().items():
        table.add_row(str(k), f"{len(space.alphabet) ** k:,}", f"{n:,}", *([f"{plans[k]:,}"] if plans else []))
    table.add_row("[bold]total[/]", "", f"[bold]{space.total:,}[/]",
                  *([f"[bold]{sum(plans.values()):,}[/]"] if plans else []), end_section=True)
    console.print(table)
    console.print(f"{len(space.alphabet)} folds in the alphabet, {len(space.punches)} punch points, "
                  f"mesh resolution {space.resolution}", markup=False)


def solve_json(space: SheetSpace, solutions: Sequence[Solutions], *, with_plans: bool, limit: int | None = None) -> dict:
    targets = []
    for s in solutions:
        entry = {"target": [[str(x), str(y)] for x, y in s.target], "on_grid": s.on_grid, "solutions": s.count,
                 "by_folds": {str(k): n for k, n in s.by_folds().items()}}
        if with_plans:
            plans = [describe_plan(space, k, int(c), int(p)) for k, pairs in s.plans.items() for c, p in pairs[:limit]]
            entry["plans"] = plans
        targets.append(entry)
    return {"family": space.family.to_dict(), "plans_in_family": sum(space.plan_counts().values()), "targets": targets}


def render_solutions(space: SheetSpace, solutions: Sequence[Solutions], console, show: int = 5) -> None:
    console.print(f"{space.family.describe()}: {sum(space.plan_counts().values()):,} plans searched", markup=False)
    for i, s in enumerate(solutions, 1):
        holes = " ".join(f"({x}, {y})" for x, y in s.target)
        if not s.on_grid:
            console.print(f"target {i}: a hole is off the family's lattice: no solution", markup=False)
            continue
        by = ", ".join(f"{n:,} with {k} fold{'s' if k != 1 else ''}" for k, n in s.by_folds().items() if n)
        console.print(f"target {i} {holes}: {s.count:,} solution{'s' if s.count != 1 else ''}"
                      + (f" ({by})" if by else ""), markup=False)
        shown = 0
        for k, pairs in s.plans.items():
            for c, p in pairs[: show - shown].tolist():
                folds = "; ".join(fold_text(space.folds[a]) for a in space.sequences[k][c].tolist())
                x, y = space.family.punch_points()[p]
                console.print(f"  {folds or 'no fold'}; punch ({x}, {y})", markup=False)
                shown += 1
        if s.count > shown:
            console.print(f"  ... and {s.count - shown:,} more (--out writes them all)", markup=False)


def sample_sequences(family: SheetFamily, count: int, *, seed: int = 0, folds: int | None = None) -> np.ndarray:
    """int16[count, folds]: random realizable fold sequences of the family (alphabet indices on the
    family's resolution-1 mesh; absolute lines only), by a random walk on the device: each row picks
    a uniformly random realizable next fold; a row with none left is replaced by a copy of a random
    surviving row. Not uniform over the configuration space (a walk favours short-branching
    prefixes); for benchmarks and spot checks. Every prefix of a row is realizable too."""
    folds = family.folds if folds is None else folds
    if any(name in ("halves", "thirds", "centre-diagonals") for name in family.lines):
        raise InputError("samples absolute lines only (grid, diagonal)", field="lines")
    rng = np.random.default_rng(seed)
    mesh = rectangle_mesh(family.cols, family.rows, 1)
    alphabet, punches = family.alphabet_rows(1), family.punch_rows(1)[:1]
    step = _extender(1, 3, 1, True, False)
    chunk = _chunk_prefixes(len(alphabet), len(mesh), 0, 0, False, memory_budget_bytes())
    chunk = min(chunk, 1 << max(0, (count - 1).bit_length()))
    start = jax.device_get(E.initial_state(mesh))
    states = jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], count, 0), start)
    rows = np.zeros((count, 0), np.int16)
    for _ in range(folds):
        code, merged = _children(step, mesh, states, count, chunk, alphabet, punches)
        ok = code == OK
        score = np.where(ok, rng.random(code.shape), -1.0)
        pick = score.argmax(1)
        alive = np.flatnonzero(ok.any(1))
        if len(alive) == 0:
            raise InputError(f"has no realizable sequence of {rows.shape[1] + 1} folds", field="folds")
        source = np.where(ok.any(1), np.arange(count), rng.choice(alive, count))
        states = _take(merged, (source, pick[source]))
        rows = np.concatenate([rows[source], pick[source, None].astype(np.int16)], 1)
    return rows
