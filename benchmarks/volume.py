"""volume: items/s of `foldsim generate --family` for the record families (issue 27 item 9, issue
25 item 7): pfp per level and the three cube-net families (stare, spatialviz-cube, pfp-cube),
without and with media, with 1 and 2 workers, beside the point-hole family spatialviz (L0) in the
same run.

Every figure is one `write_family` call (what `generate --family` runs: the records in blocks of
`record_runs.BLOCK_ITEMS`, the items and native files, the images through the media machinery)
into a fresh folder, after one small warm-up call per family (JAX compilation, fonts), so the
figures are steady state (the JAX families are warmed at the timed count too). pfp's levels are
timed on half a block each with 1 worker; the families on two blocks, pfp on four. With 2 workers
the first block is generated in the driver, timed, and the rest go to spawned workers only where
`record_runs.worth_a_pool` says they pay (starting one costs seconds): the time includes that.

`fsync`: what the per-file fsync of media writes costs (docs/errors.md, "Durability"): files of the
case's mean PNG size written by `atomic_write_bytes` with and without it, alternately (so the
machine's load falls on both alike), and the difference as a share of one item's 1-worker media run.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

from rich.table import Table

from foldsim.dataset.record_runs import BLOCK_ITEMS

from .harness import Context

#: (family, level): pfp's four levels one by one, the net families over their levels in turn
LEVEL_CASES = [("pfp", "A"), ("pfp", "A-mirror"), ("pfp", "B"), ("pfp", "C")]
#: (family, level, blocks): pfp over four blocks (the first is generated in the driver, the other
#: three by the workers where they pay), the others over two (where workers never pay)
FAMILY_CASES = [("pfp", None, 4), ("stare", None, 2), ("spatialviz-cube", None, 2), ("pfp-cube", None, 2),
                ("spatialviz", "L0", 2)]
WARM_COUNT = 2
FSYNC_FILES = 200  # files written each way to time the fsync of media writes
#: families without JAX batch shapes: no warm-up at the timed count
UNCOMPILED = {"pfp"}


def write_once(name: str, level: str | None, count: int, media: bool, workers: int, seed: int) -> dict:
    """One `write_family` into a fresh folder: seconds, items/s, images and PNG bytes per item."""
    from foldsim.dataset.families import write_family
    from foldsim.families.registry import family

    fam = family(name)
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        written = write_family(fam, folder, count, seed, level, media=media, workers=workers)
        seconds = time.perf_counter() - started
        if written["count"] != count or written.get("failed"):
            raise RuntimeError(f"{name} {level}: {written['count']} of {count} items, failed {written.get('failed')}")
        size = sum(p.stat().st_size for p in Path(folder).rglob("*.png"))
    return {"seconds": seconds, "items_per_s": count / seconds, "images_per_item": written["images"] / count,
            "png_kb_per_item": size / count / 1024}


def measure(name: str, level: str | None, count: int, workers: tuple[int, ...], seed: int, fsync: bool) -> dict:
    write_once(name, level, WARM_COUNT, True, 1, seed + 1000)  # fonts, the look's caches
    if name not in UNCOMPILED:  # JAX compiles per batch shape: the timed runs' shapes first
        write_once(name, level, count, False, 1, seed + 2000)
    case = {"family": name, "level": level or "all, in turn", "items": count}
    for n in workers:
        case[f"without_media_{n}w"] = write_once(name, level, count, False, n, seed)
        case[f"with_media_{n}w"] = write_once(name, level, count, True, n, seed)
    if fsync:
        media = case["with_media_1w"]
        image_bytes = int(media["png_kb_per_item"] * 1024 / max(media["images_per_item"], 1))
        case["fsync"] = fsync_cost(image_bytes, media["images_per_item"], media["seconds"] / count)
    return case


def fsync_cost(image_bytes: int, images_per_item: float, item_s: float, files: int = FSYNC_FILES) -> dict:
    """What the fsync of every media file costs: `atomic_write_bytes` of files of the case's mean PNG
    size into a fresh folder on the same disk, with and without the fsync, alternating file by file
    (so the machine's load falls on both alike); the share is of one item's media run."""
    from foldsim.io import atomic_write_bytes

    data = os.urandom(image_bytes)
    times: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as folder:
        for index in range(2 * files):
            synced = index % 2 == 0
            started = time.perf_counter()
            if synced:
                atomic_write_bytes(Path(folder) / f"{index}.png", data)
            else:
                with mock.patch.object(os, "fsync", lambda fd: None):
                    atomic_write_bytes(Path(folder) / f"{index}.png", data)
            times[synced].append(time.perf_counter() - started)
    with_s, without_s = statistics.median(times[True]), statistics.median(times[False])
    saved = max(with_s - without_s, 0.0) * images_per_item
    return {"file_bytes": image_bytes, "files": files, "write_s": with_s, "write_no_fsync_s": without_s,
            "saved_s_per_item": saved, "share_of_media_item": saved / item_s if item_s else 0.0}


def run(ctx: Context) -> dict:
    quick = ctx.options.quick
    seed = ctx.options.seed
    one_block = 8 if quick else BLOCK_ITEMS // 2
    levels = [measure(name, level, one_block, (1,), seed, fsync=False) for name, level in LEVEL_CASES]
    families = [measure(name, level, (blocks - 1) * BLOCK_ITEMS + (8 if quick else BLOCK_ITEMS), (1, 2), seed,
                        fsync=True) for name, level, blocks in FAMILY_CASES]
    return {"block_items": BLOCK_ITEMS, "levels": levels, "families": families, "cpus": os.cpu_count(),
            "load_average": os.getloadavg()[0]}


def _rate(case: dict, key: str) -> str:
    return f"{case[key]['items_per_s']:.1f}" if key in case else "-"


def report(result: dict) -> list[Table]:
    levels = Table("family", "level", "items", "without media: items/s", "with media: items/s", "images/item",
                   "PNG KB/item", title="volume: generate --family pfp by level, 1 worker (one block)",
                   title_justify="left")
    for case in result["levels"]:
        levels.add_row(case["family"], case["level"], str(case["items"]), _rate(case, "without_media_1w"),
                       _rate(case, "with_media_1w"), f"{case['with_media_1w']['images_per_item']:.0f}",
                       f"{case['with_media_1w']['png_kb_per_item']:.0f}")
    families = Table("family", "level", "items", "no media 1w", "no media 2w", "media 1w", "media 2w",
                     "fsync per image", "fsync share of media", "images/item",
                     title=f"volume: generate --family, items/s (blocks of {result['block_items']}; spatialviz is "
                           f"the point-hole baseline), load {result['load_average']:.1f} on {result['cpus']} CPUs",
                     title_justify="left")
    for case in result["families"]:
        families.add_row(case["family"], case["level"], str(case["items"]), _rate(case, "without_media_1w"),
                         _rate(case, "without_media_2w"), _rate(case, "with_media_1w"), _rate(case, "with_media_2w"),
                         f"{1000 * (case['fsync']['write_s'] - case['fsync']['write_no_fsync_s']):.2f} ms",
                         f"{100 * case['fsync']['share_of_media_item']:.1f} %",
                         f"{case['with_media_1w']['images_per_item']:.0f}")
    return [levels, families]
