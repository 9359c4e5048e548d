"""SRBench's ("Mind the Gap") paper folding (stogiannidis/srbench, src/data/folding_pil.py) as a
family of the general engine. Rules (docs/families.md):

- sheet: one square (the peer's 100 x 100 px, a 1 x 1 sheet here: 1 px = 1/100; the peer's image
  y runs down, foldsim's up: px (u, v) is the point ((u - 10)/100, (110 - v)/100));
- every fold halves the current box: V / H its midlines, or a 45° line through its centre; all
  folds of an item from {V, H} or all from {D, N} (the peer's names, image coordinates);
- the named side stays (peer, image y down): V keeps the right half (the left moves), H keeps the
  lower half on screen (the upper half moves: engine side "above"), image-D (y = x + b) keeps the
  upper-right on screen (engine: the lower-left of the N line x + y = c moves), image-N
  (x + y = c) keeps the upper-left on screen (engine: the lower-right of the D line y - x = c moves);
- 1-3 folds (levels "1", "2", "3"); one punch at an integer pixel inside the kept outline, 5 px
  inside its box;
- three options A-C.
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..sheets import Fold, Line, PointHole, Punch, SheetItem, SheetSpec
from .base import Family, Level, Option, Plan, base_violations, count_sequences

Q = Fraction
PX = 100
MARGIN = Q(5, PX)
RESOLUTION = 8
#: the peer's fold letter -> (engine line family, engine moving side)
LETTERS = {"V": ("V", "left"), "H": ("H", "above"), "D": ("N", "lower_left"), "N": ("D", "lower_right")}
GROUPS = {"VH": ("V", "H"), "Diagonal": ("D", "N")}


def fold_of(letter: str, fraction: Fraction = Q(1, 2)) -> Fold:
    family, moves = LETTERS[letter]
    return Fold(Line.box(family, fraction), moves=moves)


def letter_of(fold: Fold) -> str | None:
    for letter, (family, moves) in LETTERS.items():
        if fold.line.family == family and fold.moves == moves and fold.line.box_fraction == Q(1, 2):
            return letter
    return None


def phi(family: str, p) -> Fraction:
    return {"H": p[1], "V": p[0], "D": p[1] - p[0], "N": p[0] + p[1]}[family]


def clip_kept(poly: list, letter: str) -> list:
    """The peer's outline after one fold: the kept side of the box-centre line (closed), exact."""
    family, moves = LETTERS[letter]
    values = [phi(family, p) for p in poly]
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    corners = [phi(family, (x, y)) for x in (min(xs), max(xs)) for y in (min(ys), max(ys))]
    c = (min(corners) + max(corners)) / 2
    from ..sheets import SIDE_SIGNS

    sign = -SIDE_SIGNS[family][moves]  # the kept side's sign
    out = []
    for i, p in enumerate(poly):
        q, vp, vq = poly[i - 1], values[i] - c, values[i - 1] - c
        inside_p, inside_q = sign * vp >= 0, sign * vq >= 0
        if inside_p != inside_q and vp != vq:
            t = vq / (vq - vp)
            out.append((q[0] + t * (p[0] - q[0]), q[1] + t * (p[1] - q[1])))
        if inside_p:
            out.append(p)
    dedup = []
    for p in out:
        if not dedup or dedup[-1] != p:
            dedup.append(p)
    if len(dedup) > 1 and dedup[0] == dedup[-1]:
        dedup.pop()
    return dedup


def inside(p, poly) -> bool:
    """Closed point-in-convex-polygon (counter-clockwise)."""
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        if (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) < 0:
            return False
    return True


def to_px(x: Fraction, y: Fraction) -> tuple[Fraction, Fraction]:
    return 10 + PX * x, 110 - PX * y


class SRBenchFamily(Family):
    name = "srbench"
    summary = "SRBench paper folding: half folds of the current box (V/H or D/N), one integer-pixel punch, 3 options"
    levels = {str(k): Level(str(k), 1, 1, (k, k)) for k in (1, 2, 3)}
    lines = "the current box's midlines (V, H) or the 45° lines through its centre (D, N); one group per item"
    side_rule = "named: V keeps the right half, H the lower half on screen, D the upper-right, N the upper-left"
    punch_rule = "one integer-pixel point inside the kept outline, 5 px inside its box"
    n_options = 3
    task_type = "Choice"
    native_file = "metadata.jsonl"
    distractor_rules = ("remove_hole", "jitter_hole", "turned_180", "turned_90", "shifted")

    def sample(self, rng: random.Random, level: Level) -> Plan | None:
        group = rng.choice(list(GROUPS))
        letters = [rng.choice(GROUPS[group]) for _ in range(rng.randint(*level.folds))]
        poly = [(Q(0), Q(0)), (Q(1), Q(0)), (Q(1), Q(1)), (Q(0), Q(1))]
        for letter in letters:
            poly = clip_kept(poly, letter)
            if len(poly) < 3:
                return None
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        lo_x, hi_x = min(xs) + MARGIN, max(xs) - MARGIN
        lo_y, hi_y = min(ys) + MARGIN, max(ys) - MARGIN
        if lo_x > hi_x or lo_y > hi_y:
            return None
        for _ in range(100):
            p = (Q(rng.randint(int(-(-lo_x * PX // 1)), int(hi_x * PX // 1)), PX),
                 Q(rng.randint(int(-(-lo_y * PX // 1)), int(hi_y * PX // 1)), PX))
            if inside(p, poly):
                break
        else:
            return None
        # resolution 8 holds every box line of up to 3 half folds: one mesh, one kernel compile
        item = SheetItem(SheetSpec(1, 1), tuple(fold_of(x) for x in letters), (Punch(*p),), resolution=RESOLUTION)
        u, v = to_px(*p)
        return Plan(item, level.name, {"group": group, "folds": letters, "punch_px": [int(u), int(v)]},
                    tuple(LETTERS[x][1] for x in letters))

    def rule_violations(self, item: SheetItem, level: Level) -> list[str]:
        out = base_violations(item, level)
        letters = [letter_of(f) if isinstance(f, Fold) else None for f in item.actions]
        if None in letters:
            return out + ["a fold is not one of V, H, D, N at the box centre with its named side"]
        if not (set(letters) <= {"V", "H"} or set(letters) <= {"D", "N"}):
            out.append("folds mix {V, H} with {D, N}")
        poly = [(Q(0), Q(0)), (Q(1), Q(0)), (Q(1), Q(1)), (Q(0), Q(1))]
        for letter in letters:
            poly = clip_kept(poly, letter)
        for p in item.punches:
            if (p.x * PX).denominator != 1 or (p.y * PX).denominator != 1 or not inside((p.x, p.y), poly):
                out.append("punch: not an integer pixel inside the kept outline")
        return out

    def offset_variants(self, plan: Plan) -> list[tuple[dict, SheetItem]]:
        from .distractors import replace_fold

        out = []
        for i, letter in enumerate(plan.info["folds"]):
            for fraction in (Q(1, 4), Q(3, 4)):
                out.append(({"fold": i + 1, "box": str(fraction), "should_be": "1/2"},
                            replace_fold(plan.item, i, fold_of(letter, fraction))))
        return out

    def family_distractors(self, plan: Plan, key: tuple[PointHole, ...], rng: random.Random) -> list[Option]:
        def moved(f, name, **detail) -> Option:
            return Option(tuple(sorted(PointHole(*f(h.x, h.y), h.shape, h.size, h.direction) for h in key)), name, detail)

        options = []
        if len(key) > 1:
            k = rng.randrange(len(key))
            options.append(Option(key[:k] + key[k + 1:], "remove_hole", {"removed": key[k].to_dict()}))
        else:
            dx, dy = rng.choice([(a, b) for a in range(-3, 4) for b in range(-3, 4) if (a, b) != (0, 0)])
            options.append(moved(lambda x, y: (x + Q(dx, PX), y - Q(dy, PX)), "jitter_hole", px=[dx, dy]))
        options.append(moved(lambda x, y: (1 - x, 1 - y), "turned_180"))
        options.append(moved(lambda x, y: (1 - y, x), "turned_90"))
        options.append(moved(lambda x, y: (min(x + Q(5, PX), Q(1)), y), "shifted", px=5))
        return options

    def native_rows(self, record: dict) -> list[dict]:
        return [{"filename": f"{record['id']}.png", "correct_option": record["answer"]}]

    def native_text(self, rows: list[dict]) -> str:
        import json

        return "".join(json.dumps(r) + "\n" for r in rows)

    def count_space(self, level: Level, on_progress=None) -> dict:
        k = level.folds[1]
        by_group = {}
        for group, letters in GROUPS.items():
            counts = count_sequences(1, 1, [[fold_of(x) for x in letters]] * k, min_folds=k, on_progress=on_progress)
            by_group[group] = counts.get(k, 0)
        n_points = "one integer pixel per configuration inside the kept outline (not counted)"
        return {"family": self.name, "level": level.name, "folds": k, "by_group": by_group,
                "configurations": sum(by_group.values()), "note": n_points}


SRBENCH = SRBenchFamily()
