"""cut: fold and cut on polygon sheets (`foldsim.cutfold`), exact, one item at a time on the CPU,
beside the point-punch engine in the same run.

(a) PFP-like items: PFP's five paper sheets, 1-3 steps of its fold vocabulary (Rate folds at 1/2
    or 1/3 snapped to the pixel, corner folds through fractions of the sheet's box, a group of
    the four corner folds as one step), 1-4 of its cut shapes (square 70, circle of diameter 70
    as a 32-gon on the circle, rectangle 45 x 60, hexagon of radius 35): cut unfolding per item
    (`cut_item`: folding, cutting, unfolding, counting), beside the independent point reference
    (`foldsim.cut_reference`) answering one 24 x 24 grid of points per item.
(b) Scaling: the square sheet, k = 1..6 folds (halving Rate folds and diagonal folds through the
    box's corners, alternating), c = 1..4 cut shapes: milliseconds per item.
(c) The same rectangular items both ways: a 4 x 4 sheet, 1-3 folds at axis / 45° lines, one
    punch; the point-punch engine (`foldsim.engine.simulate_items`, batched, steady state after
    compilation; and its Fraction reference) against `cut_item` with a 1/32-wide square cut at the
    punch (the degenerate cut), holes checked to land in the cut-outs.
No batched (JAX) path for cuts exists yet: every figure here is the exact per-item path.
"""

from __future__ import annotations

import random
import time
from fractions import Fraction as F

from rich.table import Table

from foldsim.cut_reference import ReferenceCut
from foldsim.cutfold import PFP_CUT_SHAPES, Cut, CutItem, Fold, cut_item, fold_states, from_sheet_fold, pfp_cut
from foldsim.polygons import PolygonSheet, bounding_box, point_in_polygon, preset_sheet

from .harness import Context, fmt_rate, fmt_seconds, rate

PAPER_SHEETS = ("square", "rectangle", "circle", "hexagon", "house")
CORNERS = [Fold("angle", p1, p2) for p1, p2 in [
    ((F(4, 9), F(0)), (F(0), F(4, 9))), ((F(1), F(4, 9)), (F(5, 9), F(0))),
    ((F(5, 9), F(1)), (F(1), F(5, 9))), ((F(0), F(5, 9)), (F(4, 9), F(1)))]]


def place_cuts(rng: random.Random, sheet, steps, count: int) -> tuple[Cut, ...] | None:
    """`count` distinct PFP shapes at vertices of the folded paper or points of its box; None when
    the folds cannot be made."""
    states, reason, _ = fold_states(CutItem(sheet, steps, ()))
    if reason:
        return None
    vertices = sorted({p for layer in states[-1][-1] for part in layer.placed() for p in part})
    x0, y0, x1, y1 = bounding_box(vertices)
    cuts = []
    for kind in rng.sample(PFP_CUT_SHAPES, count):
        centre = rng.choice(vertices) if rng.random() < 0.2 else (
            x0 + (x1 - x0) * F(rng.randint(3, 13), 16), y0 + (y1 - y0) * F(rng.randint(3, 13), 16))
        cuts.append(pfp_cut(kind, centre))
    return tuple(cuts)


def pfp_items(n: int, seed: int) -> list[CutItem]:
    rng = random.Random(seed)
    items = []
    while len(items) < n:
        sheet = preset_sheet(rng.choice(PAPER_SHEETS))
        steps = []
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.15:
                steps.append(tuple(CORNERS))
            elif roll < 0.3:
                steps.append((rng.choice(CORNERS),))
            else:
                kind = rng.choice(["Hori_Left", "Hori_Right", "Vert_Top", "Vert_Bottom"])
                steps.append((Fold(kind, rate=rng.choice([F(1, 2), F(1, 2), F(1, 3)]), snap=F(1)),))
        cuts = place_cuts(rng, sheet, tuple(steps), rng.choices([1, 2, 3, 4], [25, 30, 40, 5])[0])
        if cuts is not None:
            items.append(CutItem(sheet, tuple(steps), cuts, f"pfp-{len(items)}"))
    return items


def per_item(fn, items) -> tuple[float, list]:
    """Seconds per item of `fn` over the items (one pass, every item once), and the outputs."""
    start = time.perf_counter()
    out = [fn(item) for item in items]
    return (time.perf_counter() - start) / len(items), out


def reference_grid(item: CutItem, n: int = 24) -> int:
    ref = ReferenceCut(item)
    x0, y0, x1, y1 = bounding_box(item.sheet.vertices)
    return sum(bool(ref.hole((x0 + (x1 - x0) * F(2 * i + 1, 2 * n) + F(1, 7919),
                              y0 + (y1 - y0) * F(2 * j + 1, 2 * n) + F(1, 7907))))
               for i in range(n) for j in range(n))


def pfp_like(ctx: Context) -> dict:
    items = pfp_items(40 if ctx.options.quick else 200, ctx.options.seed)
    seconds, results = per_item(cut_item, items)
    ref_items = items[: 10 if ctx.options.quick else 40]
    ref_seconds, _ = per_item(reference_grid, ref_items)
    ok = [r for r in results if r.ok]
    return {"items": len(items), "ok": len(ok), "per_item_s": seconds, "items_per_s": rate(1, seconds),
            "cutouts": sum(len(r.cutouts) for r in ok), "layers": sum(len(r.final) for r in ok),
            "reference_items": len(ref_items), "reference_grid_per_item_s": ref_seconds}


def scaling_items(k: int, c: int, n: int, seed: int) -> list[CutItem]:
    rng = random.Random(seed * 1000 + 10 * k + c)
    sheet = preset_sheet("square")
    items = []
    while len(items) < n:
        steps = []
        for i in range(k):
            if i % 2 == 0:
                steps.append((Fold(rng.choice(["Hori_Left", "Hori_Right", "Vert_Top", "Vert_Bottom"]), rate=F(1, 2)),))
            else:
                steps.append((Fold(rng.choice(["Hori_Left", "Vert_Top"]), rate=F(1, 3), snap=F(1)),))
        cuts = place_cuts(rng, sheet, tuple(steps), c)
        if cuts is not None:
            items.append(CutItem(sheet, tuple(steps), cuts))
    return items


def scaling(ctx: Context) -> list[dict]:
    rows = []
    n = 8 if ctx.options.quick else 25
    for k in (1, 2, 3) if ctx.options.quick else (1, 2, 3, 4, 5, 6):
        for c in (1, 2, 3, 4):
            seconds, results = per_item(cut_item, scaling_items(k, c, n, ctx.options.seed))
            rows.append({"folds": k, "cuts": c, "items": n, "per_item_s": seconds,
                         "layers": max(len(r.final) for r in results if r.states),
                         "cutouts_mean": sum(len(r.cutouts) for r in results) / n})
    return rows


def rectangular(ctx: Context) -> dict:
    from foldsim.engine import simulate_items
    from foldsim.reference_general import reference_simulate
    from foldsim.sheets import SIDE_SIGNS, Line, Punch, SheetItem, SheetSpec
    from foldsim.sheets import Fold as SheetFold

    rng = random.Random(ctx.options.seed + 7)
    n = 64 if ctx.options.quick else 256
    items, twins = [], []
    square = PolygonSheet(((F(0), F(0)), (F(4), F(0)), (F(4), F(4)), (F(0), F(4))))
    eps = F(1, 64)
    while len(items) < n:
        folds = []
        for _ in range(rng.randint(1, 3)):
            family = rng.choice("HVDN")
            at = {"H": F(rng.randint(1, 7), 2), "V": F(rng.randint(1, 7), 2), "D": F(rng.randint(-5, 5), 2),
                  "N": F(rng.randint(3, 13), 2)}[family]
            folds.append(SheetFold(Line(family, at=at), moves=rng.choice(list(SIDE_SIGNS[family]))))
        px, py = F(rng.randint(1, 31), 8), F(rng.randint(1, 31), 8)
        item = SheetItem(SheetSpec(4, 4), tuple(folds), (Punch(px, py),), id=f"r{len(items)}")
        if reference_simulate(item).status != "ok":
            continue  # only items that fold and punch paper: both engines do the whole work
        cut = Cut(((px - eps, py - eps), (px + eps, py - eps), (px + eps, py + eps), (px - eps, py + eps)))
        items.append(item)
        twins.append(CutItem(square, tuple((from_sheet_fold(f),) for f in folds), (cut,), item.id))
    start = time.perf_counter()
    punched = simulate_items(items)
    first = time.perf_counter() - start
    start = time.perf_counter()
    punched = simulate_items(items)
    steady = (time.perf_counter() - start) / n
    reference_s, _ = per_item(reference_simulate, items)
    cut_s, cut = per_item(cut_item, twins)
    agree = sum(1 for p, c in zip(punched, cut) if p.ok and c.ok and len(c.cutouts) == len(p.holes) and all(
        sum(any(point_in_polygon((h.x, h.y), piece) >= 0 for piece in co.pieces) for h in p.holes) == 1
        for co in c.cutouts))
    return {"items": n, "ok": sum(p.ok for p in punched), "agree": agree, "point_engine_first_s": first,
            "point_engine_per_item_s": steady, "point_reference_per_item_s": reference_s, "cut_per_item_s": cut_s}


def run(ctx: Context) -> dict:
    return {"pfp_like": pfp_like(ctx), "scaling": scaling(ctx), "rectangular": rectangular(ctx)}


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def report(result: dict) -> list[Table]:
    p = result["pfp_like"]
    a = Table("what", "per item", "items/s", "notes", title="cut (a): PFP-like items, exact, one CPU core",
              title_justify="left")
    a.add_row("cut_item (fold, cut, unfold, count)", fmt_ms(p["per_item_s"]), fmt_rate(p["items_per_s"]),
              f"{p['items']} items ({p['ok']} ok), {p['layers']} layers, {p['cutouts']} cut-outs")
    a.add_row("point reference, 24 x 24 grid", fmt_ms(p["reference_grid_per_item_s"]),
              fmt_rate(rate(1, p["reference_grid_per_item_s"])), f"{p['reference_items']} items")
    folds = sorted({r["folds"] for r in result["scaling"]})
    b = Table("folds", "layers", *[f"{c} cut{'s' if c > 1 else ''}" for c in (1, 2, 3, 4)],
              title="cut (b): square sheet, ms per item by folds and cut shapes", title_justify="left")
    for k in folds:
        row = [r for r in result["scaling"] if r["folds"] == k]
        b.add_row(str(k), str(max(r["layers"] for r in row)), *[fmt_ms(r["per_item_s"]) for r in row])
    r = result["rectangular"]
    c = Table("engine", "per item", "items/s", title=f"cut (c): {r['items']} rectangular 4 x 4 items, 1-3 axis / 45° "
              f"folds, one punch ({r['ok']} on paper; cut-outs around the holes agree on {r['agree']})",
              title_justify="left")
    c.add_row("point punch, foldsim.engine.simulate_items (batched, steady)", fmt_ms(r["point_engine_per_item_s"]),
              fmt_rate(rate(1, r["point_engine_per_item_s"])))
    c.add_row("point punch, Fraction reference (reference_general)", fmt_ms(r["point_reference_per_item_s"]),
              fmt_rate(rate(1, r["point_reference_per_item_s"])))
    c.add_row("cut_item with a 1/32-wide square at the punch", fmt_ms(r["cut_per_item_s"]),
              fmt_rate(rate(1, r["cut_per_item_s"])))
    c.add_row("(first call of simulate_items, compilation included)", fmt_seconds(r["point_engine_first_s"]), "")
    return [a, b, c]
