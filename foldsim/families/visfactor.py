"""VisFactor's generated VZ2 paper folding (CUHK-ARISE/VisFactor, visfactor/utils/VZ2.py) as a
family of the general engine. Rules (docs/families.md):

- sheet: 3 x 3 (one unit per third); levels easy 1 fold, normal 1-3, hard 3-5;
- lines (absolute): horizontal / vertical at 1 or 2, 45° lines y = x + c (c = -2..2) and
  x + y = c (c = 1..5), all through lattice points;
- the side that does not hold the sheet's centre (3/2, 3/2) moves (engine rule `away_from`; the
  centre is never on a moving side, so it stays put); when the line passes through the centre the
  smaller side moves, equal halves: the upper-left ("/") or upper-right ("\\") one; flaps may be
  larger than what stays and overhang;
- one point punch at a multiple of 1/10, inside the final paper and at least 0.2 from every edge
  and crease of the folded state (every edge of every layer);
- five options asked as five yes/no questions.
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..sheets import SIDE_SIGNS, Fold, Line, PointHole, Punch, SheetItem, SheetSpec
from .base import Family, Level, Option, Plan, base_violations, count_sequences, opposite

Q = Fraction
N = 3
CENTRE = (Q(3, 2), Q(3, 2))
CLEARANCE2 = Q(1, 25)  # 0.2 squared
GRID = 10  # punch points on the 1/10 lattice
LINES = ([("H", Q(1)), ("H", Q(2)), ("V", Q(1)), ("V", Q(2))] + [("D", Q(c)) for c in range(1 - N, N)]
         + [("N", Q(c)) for c in range(1, 2 * N)])


def phi(family: str, p) -> Fraction:
    x, y = p
    return {"H": y, "V": x, "D": y - x, "N": x + y}[family]


def reflect(family: str, c: Fraction, p):
    x, y = p
    if family == "H":
        return (x, 2 * c - y)
    if family == "V":
        return (2 * c - x, y)
    if family == "D":
        return (y - c, x + c)
    return (c - y, c - x)


def fold_of(family: str, at: Fraction) -> Fold:
    return Fold(Line(family, at=at), moves="away_from", point=CENTRE)


def centre_mover(family: str, at: Fraction) -> str | None:
    """The named side that moves when the centre is off the line (None: on it; the engine decides)."""
    v = phi(family, CENTRE) - at
    if v == 0:
        return None
    first, second = SIDE_SIGNS[family]
    return second if v > 0 else first


def first_fold_mover(family: str, at: Fraction) -> str:
    """Fold 1 acts on the flat square: a line through the centre halves it; the tie side moves."""
    return centre_mover(family, at) or next(iter(SIDE_SIGNS[family]))


def _seg_dist2(p, a, b) -> Fraction:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = ((px - ax) * dx + (py - ay) * dy) / length2 if length2 else Q(0)
    t = min(Q(1), max(Q(0), t))
    qx, qy = ax + t * dx - px, ay + t * dy - py
    return qx * qx + qy * qy


def clear_points(item: SheetItem, rng: random.Random, want: int = 1, tries: int = 400):
    """Up to `want` random 1/10-lattice points on the folded paper at least 0.2 from every edge and
    crease (edges of every layer's polygon where it lies now), by rejection like the peer."""
    from ..reference_general import reference_pieces

    state = reference_pieces(item)
    if state.status != "ok":
        return []
    polys = [p.current() for p in state.pieces]
    edges = {tuple(sorted((poly[i], poly[(i + 1) % len(poly)]))) for poly in polys for i in range(len(poly))}
    xs = [q[0] for poly in polys for q in poly]
    ys = [q[1] for poly in polys for q in poly]
    lo_x, hi_x, lo_y, hi_y = (int(v * GRID) for v in (min(xs), max(xs), min(ys), max(ys)))
    found = []
    for _ in range(tries):
        p = (Q(rng.randint(lo_x, hi_x), GRID), Q(rng.randint(lo_y, hi_y), GRID))
        if not any(piece.contains(p) for piece in state.pieces):
            continue
        if all(_seg_dist2(p, a, b) >= CLEARANCE2 for a, b in edges):
            found.append(p)
            if len(found) >= want:
                break
    return found


class VisFactorFamily(Family):
    name = "visfactor"
    summary = "VisFactor VZ2: 3x3 square, folds at thirds and 45° lattice lines, the piece without the centre moves, one point punch"
    levels = {"easy": Level("easy", N, N, (1, 1)), "normal": Level("normal", N, N, (1, 3)),
              "hard": Level("hard", N, N, (3, 5))}
    lines = "H/V at 1/3 or 2/3 of the sheet; 45° lines y = x + c (c = -2..2) and x + y = c (c = 1..5)"
    side_rule = ("the side without the original sheet centre moves (on the line: the smaller side; equal halves: "
                 "upper-left / upper-right); flaps may overhang")
    punch_rule = "one point (multiples of 1/10) on the folded paper, at least 0.2 from every edge and crease"
    n_options = 5
    task_type = "YesNo"
    native_file = "visfactor.jsonl"
    distractor_rules = ("add_hole", "remove_hole", "replace_hole")

    def sample(self, rng: random.Random, level: Level) -> Plan | None:
        n = rng.randint(*level.folds)
        lines = [rng.choice(LINES) for _ in range(n)]
        folds = tuple(fold_of(f, c) for f, c in lines)
        item = SheetItem(SheetSpec(N, N), folds)
        points = clear_points(item, rng)  # not realizable -> no state -> no point
        if not points:
            return None
        item = SheetItem(item.sheet, folds, (Punch(*points[0]),))
        movers = (first_fold_mover(*lines[0]),) + tuple(centre_mover(f, c) for f, c in lines[1:])
        return Plan(item, level.name, {"lines": [[f, str(c)] for f, c in lines]}, movers)

    def rule_violations(self, item: SheetItem, level: Level) -> list[str]:
        out = base_violations(item, level)
        for i, fold in enumerate(item.actions):
            if not isinstance(fold, Fold) or (fold.line.family, fold.line.at) not in LINES:
                out.append(f"fold {i + 1}: not one of the family's lines")
            elif fold.moves != "away_from" or fold.point != CENTRE:
                out.append(f"fold {i + 1}: the side away from the centre must move")
        for p in item.punches:
            if (p.x * GRID).denominator != 1 or (p.y * GRID).denominator != 1:
                out.append("punch: not on the 1/10 lattice")
        if not out and item.punches:
            from ..reference_general import reference_pieces

            state = reference_pieces(item)
            polys = [piece.current() for piece in state.pieces]
            p = (item.punches[0].x, item.punches[0].y)
            if not any(piece.contains(p) for piece in state.pieces):
                out.append("punch: not on the folded paper")
            elif any(_seg_dist2(p, poly[j], poly[(j + 1) % len(poly)]) < CLEARANCE2 for poly in polys
                     for j in range(len(poly))):
                out.append("punch: closer than 0.2 to an edge or crease")
        return out

    def offset_variants(self, plan: Plan) -> list[tuple[dict, SheetItem]]:
        from .distractors import replace_fold

        out = []
        for i, fold in enumerate(plan.item.actions):
            family, at = fold.line.family, fold.line.at
            for other in (at - 1, at + 1):
                if (family, other) in LINES:
                    out.append(({"fold": i + 1, "at": str(other), "should_be": str(at)},
                                replace_fold(plan.item, i, fold_of(family, other))))
        return out

    # -- the peer's rules: one step before the last unfold --------------------------------------

    def family_distractors(self, plan: Plan, key: tuple[PointHole, ...], rng: random.Random) -> list[Option]:
        """The holes after every unfold but the last (the once-folded state) are the key's holes
        carried through fold 1; add a random hole there, remove one, replace one (twice), then
        unfold fold 1 exactly."""
        fold = plan.item.actions[0]
        family, c = fold.line.family, fold.line.at
        mover = plan.movers[0]
        sign = SIDE_SIGNS[family][mover]

        def on_mover(p) -> bool:
            return sign * (phi(family, p) - c) > 0

        def in_sheet(p) -> bool:
            return 0 <= p[0] <= N and 0 <= p[1] <= N

        def unfold(points) -> tuple[PointHole, ...]:
            out = set()
            for q in points:
                if in_sheet(q) and not on_mover(q):
                    out.add(q)
                r = reflect(family, c, q)
                if in_sheet(r) and on_mover(r):
                    out.add(r)
            return tuple(sorted(PointHole(x, y) for x, y in out))

        before = sorted({reflect(family, c, (h.x, h.y)) if on_mover((h.x, h.y)) else (h.x, h.y) for h in key})
        once = SheetItem(plan.item.sheet, (fold,))

        def candidate(avoid):
            for p in clear_points(once, rng, want=8, tries=200):
                if all((p[0] - a[0]) ** 2 + (p[1] - a[1]) ** 2 >= CLEARANCE2 for a in avoid):
                    return p
            return None

        options = []
        for _ in range(2):
            q = candidate(before)
            if q is not None:
                options.append(Option(unfold(before + [q]), "add_hole", {"added": [str(q[0]), str(q[1])]}))
        if len(before) > 1:
            k = rng.randrange(len(before))
            options.append(Option(unfold(before[:k] + before[k + 1:]), "remove_hole",
                                  {"removed": [str(before[k][0]), str(before[k][1])]}))
        for _ in range(3):
            k = rng.randrange(len(before))
            q = candidate(before)
            if q is not None:
                options.append(Option(unfold(before[:k] + before[k + 1:] + [q]), "replace_hole",
                                      {"removed": [str(before[k][0]), str(before[k][1])], "added": [str(q[0]), str(q[1])]}))
        return options

    def native_rows(self, record: dict) -> list[dict]:
        rows = []
        for option in record["options"]:
            rows.append({"id": f"{record['id']}_{option['label']}", "item": record["id"],
                         "question": ("The images on the left show a square sheet of paper being folded and a hole "
                                      "punched through it. Does the image on the right show the paper correctly "
                                      "unfolded? Answer yes or no."),
                         "images": [f"{record['id']}.png", f"{record['id']}_{option['label']}.png"],
                         "answer": "Yes" if option["label"] == record["answer"] else "No"})
        return rows

    def native_text(self, rows: list[dict]) -> str:
        import json

        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

    def count_space(self, level: Level, on_progress=None) -> dict:
        alphabet = [fold_of(f, c) for f, c in LINES]
        counts = count_sequences(N, N, [alphabet] * level.folds[1], min_folds=level.folds[0], on_progress=on_progress)
        return {"family": self.name, "level": level.name, "sheet": f"{N}x{N}", "alphabet": len(alphabet),
                "by_folds": {str(k): v for k, v in counts.items()}, "configurations": sum(counts.values()),
                "note": "realizable fold sequences (both sides of every line hold paper); the punch is a free point"}


VISFACTOR = VisFactorFamily()
