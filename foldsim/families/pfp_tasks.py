"""The items of the pfp family (`foldsim.families.pfp`): exact regions and their keys, the draw of
sheets, folds and cuts by PFP's rules (`pfp_rules`), PFP's transforms of the cut, foldsim's simulated
mistakes and the three 2-D task types (A: fill the missing panel, B: which panel is NOT a step, C:
which folding rule). Shared by pfp alone (not a family module: it stays out of the independence
contract, like pfp_rules).

Regions are compared exactly: a set of cut-outs is keyed by its boundary rings (`Cutout.outline`,
each ring turned to start at its least vertex, the rings sorted), which is the same for two equal
regions however they are cut into pieces."""

from __future__ import annotations

import json
import random
from functools import lru_cache
from collections.abc import Callable, Sequence
from fractions import Fraction

from ..cutfold import (
    Cut,
    Cutout,
    CutItem,
    IDENTITY,
    Layer,
    NotRealizable,
    fold_from_record,
    fold_layers,
    fold_states,
    fold_to_record,
    pfp_cut,
    reflection_across,
    resolve_line,
    unfold_cut,
)
from ..errors import InputError, describe
from ..polygons import (
    area,
    bounding_box,
    clip_convex,
    components,
    counter_clockwise,
    disjoint_convex,
    drop_straight,
    outline,
    point_in_polygon,
    round_to_grid,
)
from . import pfp_rules as R

LABELS = "ABCD"
MAX_RECORD_VERTICES = 20_000  # outline vertices an audited option may state, refused before work
MAX_NUMBER_CHARS = 60

# -- exact regions -------------------------------------------------------------------------------------


def ring_key(ring: Sequence) -> tuple:
    """A ring turned to start at its least vertex (its orientation kept)."""
    ring = tuple(ring)
    start = ring.index(min(ring))
    return ring[start:] + ring[:start]


def region_key(cutouts: Sequence[Cutout]) -> tuple:
    """The exact key of a set of cut-outs: its sorted canonical boundary rings."""
    return tuple(sorted(ring_key(r) for c in cutouts for r in c.outline()))


def join_pieces(pieces: list, owners: list[int]) -> tuple[Cutout, ...]:
    """Convex pieces (disjoint interiors) of the flat sheet joined into cut-outs, ordered as
    `unfold_cut` orders them."""
    cutouts = []
    for group in components(pieces):
        chosen = sorted(pieces[i] for i in group)
        cutouts.append(Cutout(tuple(chosen), sum((area(p) for p in chosen), Fraction(0)),
                              tuple(sorted({owners[i] for i in group}))))
    return tuple(sorted(cutouts, key=lambda c: (min(p for piece in c.pieces for p in piece), c.area)))


def cut_layers(pairs: Sequence[tuple[Layer, Sequence[Cut]]]) -> tuple[Cutout, ...]:
    """The opened sheet when each layer is cut by its own cut set (a distractor's rule)."""
    pieces, owners = [], []
    for index, (layer, cuts) in enumerate(pairs):
        for cutout in unfold_cut([layer], cuts):
            pieces.extend(cutout.pieces)
            owners.extend([index] * len(cutout.pieces))
    return join_pieces(pieces, owners)


def union_cutouts(regions: Sequence[Sequence[Cutout]]) -> tuple[Cutout, ...]:
    """The union of several sets of cut-outs (overlapping allowed), as cut-outs."""
    pieces = disjoint_convex(piece for cutouts in regions for c in cutouts for piece in c.pieces)
    return join_pieces(pieces, [0] * len(pieces))


def cutouts_json(cutouts: Sequence[Cutout]) -> list[dict]:
    return [{"area": str(c.area), "outline": [[[str(x), str(y)] for x, y in ring] for ring in c.outline()]}
            for c in cutouts]


def exact_number(value: object, what: str) -> Fraction:
    """A stored coordinate: an integer or a "p/q" text of at most MAX_NUMBER_CHARS characters (the
    outlines of cut-outs on folded sheets carry large denominators, exactly)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_NUMBER_CHARS:
        raise InputError(f"must be a number as text (at most {MAX_NUMBER_CHARS} characters), got "
                         f"{describe(value)}", field=what)
    try:
        number = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"must be an exact number such as '3/7', got {describe(value)}", field=what) from None
    return number


def key_from_json(value: object, what: str) -> tuple:
    """The region key of cut-outs stored as outlines; InputError naming the field."""
    if not isinstance(value, list):
        raise InputError(f"must be a list of cut-outs, got {describe(value)}", field=what)
    rings, total = [], 0
    for i, cutout in enumerate(value):
        ring_list = cutout.get("outline") if isinstance(cutout, dict) else None
        if not isinstance(ring_list, list) or not ring_list:
            raise InputError(f"must be an object with an 'outline' list of rings, got {describe(cutout)}",
                             field=f"{what}[{i}]")
        for k, ring in enumerate(ring_list):
            where = f"{what}[{i}].outline[{k}]"
            if not isinstance(ring, list) or len(ring) < 3:
                raise InputError(f"must be a ring of at least 3 points, got {describe(ring)}", field=where)
            total += len(ring)
            if total > MAX_RECORD_VERTICES:
                raise InputError(f"must hold at most {MAX_RECORD_VERTICES} outline points in all", field=what)
            points = []
            for j, p in enumerate(ring):
                if not isinstance(p, list) or len(p) != 2:
                    raise InputError(f"must be a point [x, y], got {describe(p)}", field=f"{where}[{j}]")
                points.append((exact_number(p[0], f"{where}[{j}].x"), exact_number(p[1], f"{where}[{j}].y")))
            rings.append(ring_key(drop_straight(points)))
    return tuple(sorted(rings))


def state_key(layers: Sequence[Layer]) -> tuple:
    """A folded state as seen: each layer's placed outline and face, bottom to top."""
    return tuple((tuple(sorted(ring_key(r) for r in outline(layer.placed()))), layer.reflected) for layer in layers)


def view_key(layers: Sequence[Layer]) -> tuple:
    """What a state's picture shows: every layer's outline, and the top layer's outline and face."""
    rings = [tuple(sorted(ring_key(r) for r in outline(layer.placed()))) for layer in layers]
    return tuple(sorted(set(rings))), rings[-1], layers[-1].reflected


def state_json(layers: Sequence[Layer]) -> list[dict]:
    return [{"reflected": layer.reflected, "outline": [[[str(x), str(y)] for x, y in ring]
                                                        for ring in outline(layer.placed())]} for layer in layers]


# -- drawing the item ----------------------------------------------------------------------------------


def _chance(rng: random.Random, p: Fraction) -> bool:
    return rng.randrange(p.denominator) < p.numerator


def _weighted(rng: random.Random, weights: Sequence[int]) -> int:
    pick = rng.randrange(sum(weights))
    for index, weight in enumerate(weights):
        if pick < weight:
            return index
        pick -= weight
    raise AssertionError("unreachable")


def _u(rng: random.Random) -> Fraction:
    return Fraction(rng.randrange(1000), 1000)


def draw_steps(rng: random.Random, n_steps: int) -> tuple[list, list]:
    """(fold records per step, names per step) from the vocabulary: the first step may be a group
    of corner folds; a later single fold may fold only the top layer."""
    steps, names = [], []
    for s in range(n_steps):
        if s == 0 and _chance(rng, R.P_GROUP):
            size = rng.choice(R.GROUP_SIZES)
            chosen = sorted(rng.sample(range(len(R.CORNER_FOLDS)), size))
            corner_names = [list(R.CORNER_FOLDS)[i] for i in chosen]
            steps.append([dict(R.CORNER_FOLDS[n]) for n in corner_names])
            names.append("+".join(corner_names))
            continue
        name = rng.choice(list(R.FOLDS))
        record = dict(R.FOLDS[name])
        if s > 0 and _chance(rng, R.P_PARTIAL):
            record["layers"] = R.PARTIAL_LAYERS
            name += f" (top {R.PARTIAL_LAYERS} layer)"
        steps.append([record])
        names.append(name)
    return steps, names


def steps_record(steps: list) -> list:
    """Steps (lists of fold records) as a CutItem record writes them: a fold, or {"group": [...]}."""
    return [group[0] if len(group) == 1 else {"group": group} for group in steps]


def step_folds(steps: list) -> tuple:
    return tuple(tuple(fold_from_record(f, "step") for f in group) for group in steps)


def make_cut(shape: str, centre: tuple) -> Cut:
    if shape in R.PFP_SHAPES:
        return pfp_cut(shape, centre, R.CIRCLE_SIDES)
    cx, cy = centre
    return Cut(counter_clockwise(tuple((cx + x, cy + y) for x, y in R.MIRROR_SHAPES[shape])), shape)


def place(rng: random.Random, layers: Sequence[Layer]) -> tuple:
    """A cut shape's centre on the folded paper, by PFP's placement rule (whole pixels)."""
    placed = [part for layer in layers for part in layer.placed()]
    kind = R.PLACEMENT_WEIGHTS[_weighted(rng, [w for _, w in R.PLACEMENT_WEIGHTS])][0]
    if kind == "vertex":
        x, y = rng.choice([p for part in placed for p in part])
    elif kind == "edge":
        ring = rng.choice(outline(layers[-1].placed()))
        k = rng.randrange(len(ring))
        (ax, ay), (bx, by) = ring[k], ring[(k + 1) % len(ring)]
        x, y = (ax + bx) / 2, (ay + by) / 2
    else:
        x0, y0, x1, y1 = bounding_box(p for part in placed for p in part)
        low, span = R.CENTRE_SPAN
        for _ in range(R.CENTRE_TRIES):
            x = round_to_grid(x0 + (low + span * _u(rng)) * (x1 - x0), Fraction(1))
            y = round_to_grid(y1 - (low + span * _u(rng)) * (y1 - y0), Fraction(1))
            if any(point_in_polygon((x, y), part) >= 0 for part in placed):
                break
    return round_to_grid(x, Fraction(1)), round_to_grid(y, Fraction(1))


def draw_cuts(rng: random.Random, layers: Sequence[Layer], shapes: Sequence[str], weights: Sequence[int]) -> tuple:
    n = min(_weighted(rng, weights) + 1, len(shapes))
    chosen = [shapes[i] for i in sorted(rng.sample(range(len(shapes)), n))]
    return tuple(make_cut(shape, place(rng, layers)) for shape in chosen)


def _centre(cut: Cut) -> tuple:
    x0, y0, x1, y1 = bounding_box(cut.polygon)
    return (x0 + x1) / 2, (y0 + y1) / 2


def near(first: Sequence[Cut], second: Sequence[Cut]) -> bool:
    """PFP's intended near-duplicate test: the same shapes, every centre within NEAR_DISTANCE."""
    if [c.shape for c in first] != [c.shape for c in second]:
        return False
    return all((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 < R.NEAR_DISTANCE ** 2
               for a, b in zip(map(_centre, first), map(_centre, second)))


# -- PFP's distractor transforms of the cut --------------------------------------------------------------


def _moved(cut: Cut, f: Callable) -> Cut:
    return Cut(counter_clockwise(tuple(f(p) for p in cut.polygon)), cut.shape)


def scaled(cut: Cut, s: Fraction) -> Cut:
    cx, cy = _centre(cut)
    return _moved(cut, lambda p: (cx + s * (p[0] - cx), cy + s * (p[1] - cy)))


def turned(cut: Cut) -> Cut | None:
    """PFP's turns: the square by 45° (corners rounded to TURN_GRID), the rectangle (and foldsim's
    triangles and diamond) by 90°; the circle and the hexagon (PFP's turn is under a degree) have none."""
    cx, cy = _centre(cut)
    if cut.shape == "square":
        half = round_to_grid(35 * 2 ** 0.5, R.TURN_GRID)
        return Cut(((cx, cy - half), (cx + half, cy), (cx, cy + half), (cx - half, cy)), cut.shape)
    if cut.shape in ("circle", "hexagon"):
        return None
    return _moved(cut, lambda p: (cx - (p[1] - cy), cy + (p[0] - cx)))


def _scale(rng: random.Random) -> Fraction:
    u = _u(rng)
    base, slope = R.SCALE_HIGH if u > Fraction(1, 2) else R.SCALE_LOW
    return base + slope * u


def pfp_variant(rng: random.Random, rule: str, cuts: tuple) -> tuple[tuple, str] | None:
    """One of PFP's transformed cut sets for face-down layers, and its description."""
    if rule == "pfp_leave_one_out":
        if len(cuts) < 2:
            return None
        i = rng.randrange(len(cuts))
        return cuts[:i] + cuts[i + 1:], f"the {cuts[i].shape} left out"
    if rule == "pfp_scaled":
        factors = [_scale(rng) for _ in cuts]
        return tuple(scaled(c, s) for c, s in zip(cuts, factors)), "scaled by " + ", ".join(
            f"{c.shape} {s}" for c, s in zip(cuts, factors))
    if rule == "pfp_turned":
        turns = [turned(c) for c in cuts]
        if all(t is None for t in turns):
            return None
        return tuple(t or c for c, t in zip(cuts, turns)), "turned: " + ", ".join(
            c.shape for c, t in zip(cuts, turns) if t)
    i = rng.randrange(len(cuts))
    dx, dy = (rng.randint(*R.SHIFT_RANGE) * rng.choice((-1, 1)) for _ in range(2))
    shifted = _moved(cuts[i], lambda p: (p[0] + dx, p[1] + dy))
    return cuts[:i] + (shifted,) + cuts[i + 1:], f"the {cuts[i].shape} shifted by ({dx}, {dy})"


# -- the simulated mistakes ------------------------------------------------------------------------------


def previous_state(states) -> tuple[Layer, ...]:
    return states[-1][-2] if len(states[-1]) > 1 else states[-2][-1]


def mistakes(item: CutItem, states) -> dict[str, Callable[[], tuple[tuple[Cutout, ...], str]]]:
    """The named mistakes that apply to the item, each a thunk (region, detail)."""
    final, cuts, sheet = states[-1][-1], item.cuts, item.sheet
    out: dict = {
        "top_layer_only": lambda: (cut_layers([(final[-1], cuts)]), "only the top layer cut"),
        "face_down_uncut": lambda: (cut_layers([(L, cuts) for L in final if not L.reflected]),
                                    "the face-down layers left uncut"),
    }

    def flap_not_reflected():
        prev = previous_state(states)
        rho = reflection_across(*resolve_line(item.steps[-1][-1], prev, sheet))
        isos = {layer.iso for layer in prev}
        pairs = [(L if L.iso in isos else Layer(L.parts, rho.after(L.iso)), cuts) for L in final]
        return cut_layers(pairs), "the last fold's flap opened without its reflection (cut where it lay before)"

    out["last_flap_not_reflected"] = flap_not_reflected
    if len(states[-1]) > 1:
        out["group_intermediate"] = lambda: (unfold_cut(states[-1][-2], cuts),
                                             "the state before the last fold of the last group")
        out["pfp_group_union"] = lambda: (union_cutouts([unfold_cut(s, cuts) for s in states[-1]]),
                                          "the union over the last group's intermediate states (PFP's key)")
    if any(f.layers is not None for g in item.steps for f in g):
        def as_full():
            steps = tuple(tuple(fold_from_record({**fold_to_record(f), "layers": None}, "f") for f in g)
                          for g in item.steps)
            full, reason, _ = fold_states(CutItem(sheet, steps, cuts))
            return (() if reason else unfold_cut(full[-1][-1], cuts)), "the partial fold made with every layer"
        out["partial_taken_as_full"] = as_full
    if len(item.steps) > 1:
        def skipped():
            s = len(item.steps) - 2
            less, reason, _ = fold_states(CutItem(sheet, item.steps[:s] + item.steps[s + 1:], cuts))
            return (() if reason else unfold_cut(less[-1][-1], cuts)), f"step {s + 1} left out"
        out["step_skipped"] = skipped
    return out


# -- the three tasks -----------------------------------------------------------------------------------


def vocabulary_steps() -> list[tuple]:
    """Every step the vocabulary can make: each fold, each later fold on the top layer only, each
    group of corner folds (Type B's check that a confuse state leads nowhere near the key)."""
    steps = [(fold_from_record(r, "fold"),) for r in R.FOLDS.values()]
    steps += [(fold_from_record({**r, "layers": R.PARTIAL_LAYERS}, "fold"),) for r in R.FOLDS.values()]
    corners = list(R.CORNER_FOLDS.values())
    for size in R.GROUP_SIZES:
        for mask in range(1 << len(corners)):
            if bin(mask).count("1") == size:
                steps.append(tuple(fold_from_record(c, "fold") for i, c in enumerate(corners) if mask >> i & 1))
    return steps


@lru_cache(maxsize=32)
def first_steps(sheet) -> frozenset:
    """The state keys one vocabulary step from the flat sheet (a pure function of the sheet,
    remembered: every task B item on that sheet asks for it)."""
    start = (Layer(sheet.parts, IDENTITY),)
    return frozenset(state_key(s) for step in vocabulary_steps() if (s := after_step(start, step, sheet)) is not None)


def after_step(layers: tuple, step: tuple, sheet) -> tuple | None:
    try:
        for fold in step:
            layers = fold_layers(layers, fold, sheet)
    except NotRealizable:
        return None
    return layers


def record_item(sheet, steps: list, cuts: tuple, item_id: str | None = None) -> CutItem:
    return CutItem(sheet, step_folds(steps), cuts, item_id)


def _option(label: str, error: str | None, detail: str, **content) -> dict:
    return {"label": label, "error": error, "errorDetail": detail, **content}


def _shuffled_options(rng: random.Random, key: dict, distractors: list[dict]) -> tuple[list[dict], str]:
    """The key inserted at a uniform place among the distractors (PFP's order), labelled A-D."""
    at = rng.randrange(len(distractors) + 1)
    options = distractors[:at] + [key] + distractors[at:]
    return [{**o, "label": LABELS[i]} for i, o in enumerate(options)], LABELS[at]


def task_a(rng: random.Random, item: CutItem, states, key_cutouts) -> tuple[list[dict], str] | None:
    """Four answer regions: the key and three distractors, each a distinct region."""
    key = region_key(key_cutouts)
    final = states[-1][-1]
    thunks = [(name, f) for name, f in mistakes(item, states).items()]
    for _ in range(2):
        thunks += [(rule, None) for rule in R.PFP_RULES]
    rng.shuffle(thunks)
    seen, distractors = {key}, []
    for name, thunk in thunks:
        if len(distractors) == 3:
            break
        if thunk is None:
            variant = pfp_variant(rng, name, item.cuts)
            if variant is None:
                continue
            other, detail = variant
            whole = not _chance(rng, R.P_CLIPPED)
            pairs = [((Layer(item.sheet.parts, L.iso) if whole else L), other) if L.reflected else (L, item.cuts)
                     for L in final]
            region = cut_layers(pairs)
            detail = f"face-down layers cut with {detail}" + (" (not clipped to the layer)" if whole else "")
        else:
            region, detail = thunk()
        if region and (k := region_key(region)) not in seen:
            seen.add(k)
            distractors.append(_option("", name, detail, cutouts=cutouts_json(region)))
    if len(distractors) < 3:
        return None
    return _shuffled_options(rng, _option("", None, "the cut-outs of the final state", cutouts=cutouts_json(key_cutouts)),
                             distractors)


def task_b(rng: random.Random, item: CutItem, states, key_cutouts, names: list[str]):
    """The three step panels and one confuse state that looks unlike them and is verified to be no
    step of any path of at most three vocabulary steps that opens to the key: it is no state one
    step from the start (so it lies at step 2 or 3 of such a path), and neither it nor any state
    one vocabulary step on opens to the key under the item's cut."""
    panels = [states[0][-1]] + [s[-1] for s in states[1:]]
    seen, views = {state_key(p) for p in panels}, {view_key(p) for p in panels}
    if len(views) != len(panels):
        return None
    vocab = vocabulary_steps()
    start = panels[0]
    seen |= first_steps(item.sheet)
    key, key_area = region_key(key_cutouts), sum((c.area for c in key_cutouts), Fraction(0))

    def opens_to_key(layers) -> bool:
        cutouts = unfold_cut(layers, item.cuts)
        return sum((c.area for c in cutouts), Fraction(0)) == key_area and region_key(cutouts) == key

    for _ in range(R.MAX_TRIES):
        steps, confuse_names = draw_steps(rng, rng.choice(R.CONFUSE_STEPS))
        other = after_step(start, tuple(f for g in step_folds(steps) for f in g), item.sheet)
        if other is None or state_key(other) in seen or view_key(other) in views:
            continue
        nexts = [other] + [s for step in vocab if (s := after_step(other, step, item.sheet)) is not None]
        if any(map(opens_to_key, nexts)):
            continue
        confuse = _option("", None, "not a step: " + ", then ".join(confuse_names), steps=steps_record(steps),
                          state=state_json(other))
        real = [_option("", f"step_{s}", f"the state after step {s} ({names[s - 1]})", state=state_json(panels[s]))
                for s in range(1, len(panels))]
        rng.shuffle(real)
        return _shuffled_options(rng, confuse, real)
    return None


def swapped_sides(steps: list) -> list:
    swap = {"Hori_Left": "Hori_Right", "Hori_Right": "Hori_Left", "Vert_Top": "Vert_Bottom", "Vert_Bottom": "Vert_Top"}
    out = []
    for group in steps:
        out.append([{**f, "type": swap[f["type"]]} if f["type"] in swap else {**f, "p1": f["p2"], "p2": f["p1"]}
                    for f in group])
    return out


def final_state(sheet, steps: list) -> tuple | None:
    """The last state of a fold sequence (None: it cannot be folded)."""
    states, reason, _ = fold_states(CutItem(sheet, step_folds(steps), ()))
    return None if reason else states[-1][-1]


def folded_image(pattern: Sequence[Cutout], layers: Sequence[Layer]) -> tuple[Cut, ...]:
    """Where an opened pattern lies on the folded paper: each layer's share of it carried to its
    place (the least cut that could have made it)."""
    cuts = []
    for layer in layers:
        for part in layer.parts:
            box = bounding_box(part)
            for cutout in pattern:
                for piece in cutout.pieces:
                    x0, y0, x1, y1 = bounding_box(piece)
                    if x0 < box[2] and box[0] < x1 and y0 < box[3] and box[1] < y1 and (q := clip_convex(piece, part)):
                        cuts.append(Cut(layer.iso.polygon(q)))
    return tuple(cuts)


def opens_to(pattern: Sequence[Cutout], layers: Sequence[Layer]) -> bool:
    """Whether SOME cut of these folded layers opens to exactly this pattern: a cut opening to it
    covers its folded image, which opens to the pattern itself or to more."""
    cuts = folded_image(pattern, layers)
    return bool(cuts) and region_key(unfold_cut(layers, cuts)) == region_key(pattern)


def task_c(rng: random.Random, item: CutItem, steps: list, names: list[str], cut_sets: list):
    """Four fold sequences with the step count of the key's; each distractor is verified unable to
    make at least one of the patterns shown, whatever the cut (`opens_to`), so no option but the
    key explains them all (a mirror rule of a symmetric sheet, PFP's Hori_Left / Hori_Right slip,
    is refused)."""
    final = final_state(item.sheet, steps)
    shown = [unfold_cut(final, cuts) for cuts in cut_sets]
    candidates = [("sides_swapped", swapped_sides(steps), "every fold's other side moved")]
    if len(steps) > 1:
        candidates.append(("order_reversed", steps[::-1], "the steps in reverse order"))
    for _ in range(R.MAX_TRIES):
        other, other_names = draw_steps(rng, len(steps))
        candidates.append(("other_rule", other, ", then ".join(other_names)))
    seen, distractors = {json.dumps(steps)}, []
    for error, other, detail in candidates:
        if len(distractors) == 3:
            break
        layers = final_state(item.sheet, other)
        if layers is None or json.dumps(other) in seen:
            continue
        opens = []
        for pattern in shown:
            opens.append(opens_to(pattern, layers))
            if not opens[-1]:
                break
        if all(opens):
            continue
        seen.add(json.dumps(other))
        distractors.append(_option("", error, f"{detail}; cannot make pattern {len(opens)}", steps=steps_record(other)))
    if len(distractors) < 3:
        return None
    key = _option("", None, ", then ".join(names), steps=steps_record(steps))
    return _shuffled_options(rng, key, distractors)


QUESTIONS = {
    "A": "The paper is folded as shown, then cut. Which option shows the paper when it is unfolded?",
    "B": "The paper is folded in three steps, then cut and unfolded as shown. Which option is NOT one of "
         "the folding steps?",
    "C": "Each picture shows the same folded paper cut in a different place and unfolded. Which folding "
         "rule was used?",
}
