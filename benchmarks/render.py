"""render: frames/s of the 3-D renderer (offscreen pyrender; llvmpipe on a CPU machine) and wall
seconds per item of writing its folding video, unfolding video and result image, for items of 1, 3
and 6 actions, via `foldsim.render.animation.render_benchmark`. One warm-up item first, so JAX
compilation and EGL start-up are not counted."""

from __future__ import annotations

import os

from rich.table import Table

from foldsim.config import Config
from foldsim.holes import Hole
from foldsim.simulate import simulate_one
from foldsim.trace import trace

from .harness import Context, fmt_seconds

#: one item per action count: realizable physical configurations (the 6-action one has 3 rotations)
ITEMS = {1: "H1-F", 3: "D1-F,H1-F,R-90", 6: "D1-F,R-90,H1-F,R-180,V1-B,R-270"}


def item_trace(codes: str):
    """The trace of `codes` punched with one large star on the first grid position holding paper."""
    layers = simulate_one(Config.from_codes(codes)).layers
    hole = Hole.make("star", "large", 0, min(layers))
    return trace(Config.from_codes(codes, [hole], id=f"bench_{len(codes.split(','))}"))


def options(ctx: Context):
    from foldsim.render.animation import AnimationOptions

    return AnimationOptions(width=160, height=120, fps=6) if ctx.options.quick else AnimationOptions()


def run(ctx: Context) -> dict:
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    from foldsim.render.animation import render_benchmark

    opts = options(ctx)
    counts = (1,) if ctx.options.quick else tuple(ITEMS)
    traces = {n: item_trace(ITEMS[n]) for n in counts}
    render_benchmark(traces[counts[0]], opts)  # warm-up: compilation, EGL context
    items = [{"codes": ITEMS[n], **render_benchmark(traces[n], opts)} for n in counts]
    return {"items": items}


def report(result: dict) -> list[Table]:
    table = Table("actions", "codes", "frames", "render frames/s", "seconds per item (2 videos + image)", "size",
                  title="render: 3-D animation", title_justify="left")
    for item in result["items"]:
        table.add_row(str(item["actions"]), item["codes"], str(item["frames"]), f"{item['render_fps']:.1f}",
                      fmt_seconds(item["item_seconds"]), f"{item['width']}x{item['height']} @ {item['fps']} fps")
    return [table]
