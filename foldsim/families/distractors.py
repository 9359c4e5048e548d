"""Wrong options for the families: the family's own rules (computed exactly from the key, see each
family module) and foldsim's named mistakes carried to general sheets, each a modified item the
engine simulates like the key:

    wrong_crease_offset  one fold made along a neighbouring allowed line of the family
    flap_not_moved       one fold skipped (its flap never moved; the rest as given)
    mirrored_unfold      the first fold unfolded to the wrong side: the whole pattern reflected
                         across the first crease (kept when every hole stays on the sheet;
                         computed exactly from the key and the crease the engine resolved)
    missing_layer        one punch misses one of the layers it goes through (the key without
                         one of that punch's holes; computed from the key)

Every option is compared with the key and with every other option as a hole multiset
(`PointHole` equality); a candidate without enough distinct options is dropped, never kept with
a duplicate.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..sheets import Fold, PointHole, SheetItem
from .base import Family, Option, Plan, hole_key

SIMULATED_MODELS = ("wrong_crease_offset", "flap_not_moved", "mirrored_unfold", "missing_layer")


@dataclass
class Variant:
    name: str
    detail: dict
    item: SheetItem


def replace_fold(item: SheetItem, index: int, fold: Fold | None) -> SheetItem:
    """`item` with action `index` replaced by `fold` (removed when None)."""
    actions = list(item.actions)
    if fold is None:
        del actions[index]
    else:
        actions[index] = fold
    return SheetItem(item.sheet, tuple(actions), item.punches, item.id, item.resolution)


def simulated_variants(fam: Family, plan: Plan) -> list[Variant]:
    """The named-mistake variants of one candidate (simulated by the caller in its batch call)."""
    item = plan.item
    out: list[Variant] = []
    for detail, variant in fam.offset_variants(plan):
        out.append(Variant("wrong_crease_offset", detail, variant))
    for i, action in enumerate(item.actions):
        if not isinstance(action, Fold):
            continue
        if len(item.actions) > 1:
            out.append(Variant("flap_not_moved", {"fold": i + 1}, replace_fold(item, i, None)))
    return out


def reflect(family: str, c, p):
    """p reflected across the line of `family` at c (H: y = c, V: x = c, D: y - x = c, N: x + y = c)."""
    x, y = p
    return {"H": (x, 2 * c - y), "V": (2 * c - x, y), "D": (y - c, x + c), "N": (c - y, c - x)}[family]


def first_crease(item: SheetItem):
    """(family, c) of the first fold on the flat sheet (box lines resolved on the whole sheet)."""
    fold = item.actions[0]
    if fold.line.at is not None:
        return fold.line.family, fold.line.at
    cols, rows = item.sheet.cols, item.sheet.rows
    lo, hi = {"H": (0, rows), "V": (0, cols), "D": (-cols, rows), "N": (0, cols + rows)}[fold.line.family]
    return fold.line.family, lo + (hi - lo) * fold.line.box_fraction


def mirrored_options(item: SheetItem, key: tuple[PointHole, ...]) -> list[Option]:
    if not item.actions or not isinstance(item.actions[0], Fold):
        return []
    family, c = first_crease(item)
    moved = [reflect(family, c, (h.x, h.y)) for h in key]
    if not all(0 <= x <= item.sheet.cols and 0 <= y <= item.sheet.rows for x, y in moved):
        return []
    holes = tuple(sorted(PointHole(x, y, h.shape, h.size, h.direction) for (x, y), h in zip(moved, key, strict=True)))
    return [Option(holes, "mirrored_unfold", {"fold": 1, "across": f"{family} {c}"})]


def missing_layer_options(key: tuple[PointHole, ...]) -> list[Option]:
    """The key without one hole (a punch that missed one of its layers), for each hole."""
    if len(key) < 2:
        return []
    return [Option(key[:i] + key[i + 1:], "missing_layer", {"missing": key[i].to_dict()}) for i in range(len(key))]


def choose_options(fam: Family, plan: Plan, key: tuple[PointHole, ...], variants: list[Variant], results,
                   rng: random.Random) -> list[Option] | None:
    """`fam.n_options - 1` wrong options, pairwise distinct and distinct from the key: the family's
    own rules first (all but one slot), at least one simulated mistake where one is distinct, the
    rest from whichever remain. None when there are not enough."""
    need = fam.n_options - 1
    own = fam.family_distractors(plan, key, rng)
    simulated = [Option(r.holes, v.name, v.detail) for v, r in zip(variants, results, strict=True)
                 if r.ok and r.holes]
    simulated += missing_layer_options(key) + mirrored_options(plan.item, key)
    rng.shuffle(simulated)
    seen = {hole_key(key)}
    chosen: list[Option] = []

    def take(pool: list[Option], limit: int) -> None:
        for option in pool:
            if len(chosen) >= limit:
                return
            k = hole_key(option.holes)
            if option.holes and k not in seen:
                seen.add(k)
                chosen.append(option)

    take(own, max(0, need - 1))
    take(simulated, len(chosen) + 1 if len(chosen) < need else len(chosen))
    take(own, need)
    take(simulated, need)
    if len(chosen) < need:
        return None
    assert len({hole_key(o.holes) for o in chosen} | {hole_key(key)}) == need + 1
    return chosen
