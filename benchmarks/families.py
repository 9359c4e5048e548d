"""families: items/s of `foldsim generate --family` (issue 18), with the family images beside
without them, in the same run.

For each (family, level) — spatialviz L0 and L2, visfactor normal, srbench 2 — `write_family`
(what `generate --family` runs: sample, simulate keys and distractors in one batched call, write
the records and the family's own rows, and with media draw every image) is called

1. once without media on a few items (the first call: JAX tracing + compilation of the batch
   shapes, reported apart as `first_s` / `compile_s`), then once with media (the first drawing:
   fonts, the look's caches), also reported apart;
2. steady state: `count` items without media (repeated until MIN_SECONDS were spent, the median
   run) and the same `count` items with media (the median of `repeats` runs), alternately.

`count` stays under 25 so every call uses the same batch shape (64 candidates, see
`generate_family`), compiled once in the warm-up. `media_s_per_item` is the difference: the
drawing and PNG encoding of one item's images (`images_per_item` files).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from rich.table import Table

from .harness import Context, fmt_seconds

#: (family, level): one level each, plus SpatialViz's largest (5x5, 3 folds, 3 holes)
CASES = [("spatialviz", "L0"), ("spatialviz", "L2"), ("visfactor", "normal"), ("srbench", "2")]
WARM_COUNT = 4
MIN_SECONDS = 1.0  # steady no-media runs are short: repeat them until this much was spent
MAX_RUNS = 20


def write_once(fam, count: int, seed: int, level: str, media: bool) -> tuple[float, int, int]:
    """(seconds, images written, bytes written) of one `write_family` into a fresh folder."""
    from foldsim.dataset.families import write_family

    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        written = write_family(fam, folder, count, seed, level, media=media)
        seconds = time.perf_counter() - started
        if written["count"] != count:
            raise RuntimeError(f"{fam.name} {level}: {written['count']} of {count} items")
        size = sum(p.stat().st_size for p in Path(folder).glob("*.png"))
    return seconds, written["images"], size


def measure(name: str, level: str, count: int, repeats: int, seed: int) -> dict:
    from foldsim.families.registry import family

    fam = family(name)
    first_plain, _, _ = write_once(fam, WARM_COUNT, seed + 1000, level, media=False)
    first_media, _, _ = write_once(fam, WARM_COUNT, seed + 2000, level, media=True)
    plain: list[float] = []
    media: list[float] = []
    images = size = 0
    while len(media) < repeats or (len(plain) < MAX_RUNS and sum(plain) < MIN_SECONDS):
        plain.append(write_once(fam, count, seed, level, media=False)[0])
        if len(media) < repeats:
            seconds, images, size = write_once(fam, count, seed, level, media=True)
            media.append(seconds)
    plain_s, media_s = statistics.median(plain), statistics.median(media)
    return {"family": name, "level": level, "items": count,
            "without_media": {"seconds": plain_s, "items_per_s": count / plain_s, "runs": len(plain),
                              "first_s": first_plain, "first_items": WARM_COUNT,
                              "compile_s": max(first_plain - WARM_COUNT * plain_s / count, 0.0)},
            "with_media": {"seconds": media_s, "items_per_s": count / media_s, "runs": len(media),
                           "first_s": first_media, "first_items": WARM_COUNT,
                           "warmup_s": max(first_media - WARM_COUNT * media_s / count, 0.0)},
            "media_s_per_item": max(media_s - plain_s, 0.0) / count,
            "images_per_item": images / count, "png_kb_per_item": size / count / 1024}


def run(ctx: Context) -> dict:
    quick = ctx.options.quick
    count = 8 if quick else 24
    repeats = 1 if quick else 2
    cases = CASES[:2] if quick else CASES
    return {"cases": [measure(name, level, count, repeats, ctx.options.seed) for name, level in cases]}


def report(result: dict) -> list[Table]:
    table = Table("family", "level", "items", "with media: items/s", "without media: items/s", "media s/item",
                  "images/item", "PNG KB/item", "compile (first call)", "first drawing",
                  title="families: generate --family, steady state, with the images beside without them "
                        "(same run, same items)", title_justify="left")
    for case in result["cases"]:
        with_m, without = case["with_media"], case["without_media"]
        table.add_row(case["family"], case["level"], str(case["items"]), f"{with_m['items_per_s']:.1f}",
                      f"{without['items_per_s']:.1f}", fmt_seconds(case["media_s_per_item"]),
                      f"{case['images_per_item']:.0f}", f"{case['png_kb_per_item']:.0f}",
                      f"{fmt_seconds(without['compile_s'])} ({fmt_seconds(without['first_s'])})",
                      fmt_seconds(with_m["warmup_s"]))
    return [table]
