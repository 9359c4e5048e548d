"""render: the 3-D media, each figure beside its baseline in the same run.

1. Frames/s of writing an item's folding video, unfolding video and result image (encoding
   included), items of 1, 3 and 6 actions at 640x480, smooth cadence, 24 fps: the fast path
   (`render.animation.write_videos`: one renderer and scene per item, vertices updated in place)
   beside the former per-frame-rebuild path (`render.baseline.write_videos`), timed alternately on
   the same item, the median of the repeats. CPU seconds (this process and ffmpeg) are reported too:
   on a shared machine they move less than wall time.
2. Seconds per item with the dataset defaults (reference cadence: video + frames + result image).
3. Items/s of a whole dataset (every modality, reference cadence, 640x480) through the local
   worker and through 1 and 2 Ray workers on a local Ray instance, after a warm-up that starts the
   workers (imports, JAX compilation); the per-item cost projects the time for 1M items.
"""

from __future__ import annotations

import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from rich.table import Table

from foldsim.config import Config
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.holes import Hole
from foldsim.simulate import simulate_one
from foldsim.trace import trace

from .harness import Context, fmt_seconds

#: one item per action count: realizable physical configurations (the 6-action one has 3 rotations)
ITEMS = {1: "H1-F", 3: "D1-F,H1-F,R-90", 6: "D1-F,R-90,H1-F,R-180,V1-B,R-270"}
MILLION = 1_000_000


def item_trace(codes: str):
    """The trace of `codes` punched with one large star on the first grid position holding paper."""
    layers = simulate_one(Config.from_codes(codes)).layers
    hole = Hole.make("star", "large", 0, min(layers))
    return trace(Config.from_codes(codes, [hole], id=f"bench_{len(codes.split(','))}"))


def cpu_seconds() -> tuple[float, float]:
    """(this process incl. its render threads, finished child processes = ffmpeg) CPU seconds."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def timed(fn) -> dict:
    """Wall and CPU seconds of one call."""
    cpu_before, wall_before = cpu_seconds(), time.perf_counter()
    fn()
    wall = time.perf_counter() - wall_before
    cpu_after = cpu_seconds()
    return {"wall_s": wall, "cpu_s": cpu_after[0] - cpu_before[0], "ffmpeg_cpu_s": cpu_after[1] - cpu_before[1]}


def compare_item(history, opts, repeats: int) -> dict:
    """Both paths on one item, alternately, `repeats` times each (after one warm-up of each)."""
    from foldsim.render import animation, baseline

    frames = sum(len(s.progress) for s in animation.folding_segments(history, opts, sheet=SHEET)) + \
        sum(len(s.progress) for s in animation.unfolding_segments(history, opts, sheet=SHEET))
    runs: dict[str, list[dict]] = {"fast": [], "rebuild": []}
    with tempfile.TemporaryDirectory() as folder:
        paths = {"fast": animation.write_videos, "rebuild": baseline.write_videos}
        for name, write in paths.items():  # warm-up: compilation, EGL, shaders
            write(history, Path(folder) / name, "item", opts, sheet=SHEET)
        for _ in range(repeats):
            for name, write in paths.items():
                runs[name].append(timed(lambda: write(history, Path(folder) / name, "item", opts, sheet=SHEET)))
    out = {"actions": len(history.steps), "frames": frames, "width": opts.width, "height": opts.height,
           "fps": opts.fps}
    for name, measured in runs.items():
        wall = statistics.median(r["wall_s"] for r in measured)
        out[name] = {"item_s": wall, "frames_per_s": frames / wall,
                     "cpu_ms_per_frame": 1e3 * statistics.median(r["cpu_s"] + r["ffmpeg_cpu_s"] for r in measured) / frames}
    out["speedup"] = out["rebuild"]["item_s"] / out["fast"]["item_s"]
    return out


def reference_item(history, repeats: int) -> dict:
    """Seconds per item with the dataset's defaults: reference cadence, video + frames + result."""
    from foldsim.render.animation import AnimationOptions, folding_segments, unfolding_segments, write_media

    opts = AnimationOptions.preset("reference")
    frames = sum(len(s.progress) for s in [*folding_segments(history, opts, sheet=SHEET),
                                           *unfolding_segments(history, opts, sheet=SHEET)])
    with tempfile.TemporaryDirectory() as folder:
        def write() -> None:
            write_media(history, folder, "item", opts, sheet=SHEET, video=True, frames=True)

        write()
        walls = [timed(write)["wall_s"] for _ in range(repeats)]
    return {"actions": len(history.steps), "frames": frames, "item_s": statistics.median(walls)}


def dataset_records(count: int, first_id: int) -> list[dict]:
    """`count` prediction items from mixed structure groups (1 to 6 actions)."""
    from foldsim.dataset.generate import GenerateOptions, generate_records

    groups = ("one_step", "two_step", "three_step_with_rotation", "four_step")
    per_group = -(-count // len(groups))
    records = generate_records(GenerateOptions("prediction", groups, per_group, seed=7, first_id=first_id))
    return records[:count]


def backend_rate(records: list[dict], warm: list[dict], request, backend: str, workers: int) -> dict:
    """Items/s of rendering `records` (after rendering `warm`, which starts the workers)."""
    from foldsim.dataset.media import render_items

    ray = None
    if backend == "ray":
        from foldsim.dataset.backends import require_ray, start_ray

        ray = require_ray()
        start_ray(ray, None, workers)  # kept up across the warm-up and the timed run
    try:
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            render_items(warm, folder, request, workers=workers, backend=backend)
            warm_s = time.perf_counter() - started
            started = time.perf_counter()
            report = render_items(records, folder, request, workers=workers, backend=backend)
            seconds = time.perf_counter() - started
    finally:
        if ray is not None:
            ray.shutdown()
    if report.failed or len(report.rendered) != len(records):
        raise RuntimeError(f"{backend} x{workers}: {len(report.failed)} items failed: {report.failed}")
    return {"backend": backend, "workers": workers, "items": len(records), "seconds": seconds,
            "items_per_s": len(records) / seconds, "warmup_s": warm_s}


def run(ctx: Context) -> dict:
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    from foldsim.dataset.media import MediaRequest
    from foldsim.render.animation import AnimationOptions

    quick = ctx.options.quick
    opts = AnimationOptions(width=160, height=120, fps=6) if quick else AnimationOptions()
    counts = (1,) if quick else tuple(ITEMS)
    repeats = 1 if quick else 3
    traces = {n: item_trace(ITEMS[n]) for n in counts}
    items = [{"codes": ITEMS[n], **compare_item(traces[n], opts, repeats)} for n in counts]
    reference = reference_item(traces[counts[-1] if quick else 3], repeats)

    n_items = 2 if quick else 12
    request = MediaRequest.of(video=True, frames=True, images=True, text=True,
                              **({"width": 160, "height": 120} if quick else {}))
    records = dataset_records(n_items, first_id=1)
    warm = dataset_records(2, first_id=1000)
    backends = [backend_rate(records, warm, request, "local", 1)]
    backends += [backend_rate(records, warm, request, "ray", k) for k in (1, 2)]
    one_ray = backends[1]
    per_item = 1 / one_ray["items_per_s"]
    return {"items": items, "reference": reference, "backends": backends,
            "million_items": {"seconds_per_item_one_worker": per_item,
                              "hours_one_worker": MILLION * per_item / 3600,
                              "hours_this_machine": MILLION / backends[2]["items_per_s"] / 3600}}


def report(result: dict) -> list[Table]:
    items = Table("actions", "codes", "frames", "fast: frames/s", "fast: s/item", "rebuild: frames/s",
                  "rebuild: s/item", "speedup", "CPU ms/frame fast / rebuild", "size",
                  title="render: 3-D videos + result image per item (encoding included), fast path beside the "
                        "per-frame rebuild, same run", title_justify="left")
    for item in result["items"]:
        fast, old = item["fast"], item["rebuild"]
        items.add_row(str(item["actions"]), item["codes"], str(item["frames"]), f"{fast['frames_per_s']:.1f}",
                      fmt_seconds(fast["item_s"]), f"{old['frames_per_s']:.1f}", fmt_seconds(old["item_s"]),
                      f"{item['speedup']:.1f}x", f"{fast['cpu_ms_per_frame']:.1f} / {old['cpu_ms_per_frame']:.1f}",
                      f"{item['width']}x{item['height']} @ {item['fps']} fps")
    reference = result["reference"]
    ref = Table("actions", "frames", "s/item", title="render: dataset defaults (reference cadence, video + frames + "
                "result image, 640x480)", title_justify="left")
    ref.add_row(str(reference["actions"]), str(reference["frames"]), fmt_seconds(reference["item_s"]))
    backends = Table("backend", "workers", "items", "seconds", "items/s", "warm-up", title="render: a dataset "
                     "(every modality, reference cadence) by backend", title_justify="left")
    for entry in result["backends"]:
        backends.add_row(entry["backend"], str(entry["workers"]), str(entry["items"]), fmt_seconds(entry["seconds"]),
                         f"{entry['items_per_s']:.2f}", fmt_seconds(entry["warmup_s"]))
    million = result["million_items"]
    backends.caption = (f"1M items: {million['seconds_per_item_one_worker']:.2f} s per item per worker -> "
                        f"{million['hours_one_worker']:,.0f} worker-hours; {million['hours_this_machine']:,.0f} h "
                        f"on this machine (2 Ray workers)")
    return [items, ref, backends]
