"""Same seed, same bytes for 3-D frames: frames where the crease rod meets the paper.

Where the rod and the paper meet, a few samples get the same 24-bit depth from both, and the depth
test keeps whichever mesh was drawn first. pyrender ordered the two meshes (both at the origin) by
iterating a set of nodes, i.e. by their memory addresses, so these pixels flipped from process to
process: a row along the diagonal crease of the seed-1 prediction item PFHP_2's unfolding frame 9
(640 x 480, reference cadence), a single pixel of a SpatialViz item's folding frame (96 x 72). The
renderer now draws meshes at equal distance in the order they were added (`scene.OrderedRenderer`).

The default suite checks it in one process: each frame is drawn with the scene's node set iterating
the paper first and the crease first (the two orders differing addresses gave), and must not change.
The `slow` test renders the frames in separate processes and compares the bytes.

Run as a script, this file prints each frame's SHA-256 (what the separate processes do)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")

from foldsim import Config, Hole  # noqa: E402
from foldsim.mentalblackboard_sheet import SHEET  # noqa: E402
from foldsim.render.animation import (AnimationOptions, draw_segments, segment_looks, sheet_renderer,  # noqa: E402
                                      unfolding_segments)
from foldsim.render.item_images import FAMILY_LOOKS  # noqa: E402
from foldsim.render.items import ItemMedia  # noqa: E402
from foldsim.render.scene import hole_cuts  # noqa: E402
from foldsim.trace import trace  # noqa: E402

#: `generate --task prediction --count 4 --seed 1`'s PFHP_2
PREDICTION = Config.from_codes("D1-F,D2-F", [Hole.make("star", "large", 180, 21)], id="PFHP_2")
#: a SpatialViz L1 item (`write_family(family("spatialviz"), ..., 6, 1, "L1")`'s first)
SPATIALVIZ = {"id": "spatialviz_00001", "sheet": {"cols": 4, "rows": 4},
              "actions": [{"type": "fold", "line": {"family": "V", "at": "2"}, "moves": "smaller", "front": True,
                           "tie": "right"},
                          {"type": "fold", "line": {"family": "N", "at": "2"}, "moves": "smaller", "front": True,
                           "tie": "lower_left"}],
              "punches": [{"x": "3/2", "y": "3/2", "shape": "circle", "size": "small", "direction": 0},
                          {"x": "3/2", "y": "7/2", "shape": "circle", "size": "small", "direction": 0}]}


class _Nodes(set):
    """A set of mesh nodes iterating the paper's (two primitives: its front and back) first, or last."""

    def __init__(self, nodes, paper_first: bool):
        super().__init__(nodes)
        self.paper_first = paper_first

    def __iter__(self):
        return iter(sorted(super().__iter__(), key=lambda node: len(node.mesh.primitives), reverse=self.paper_first))


def _one(segment, index: int):
    """Frame `index` of `segment` as a segment of its own."""
    pick = slice(index, index + 1)
    states = None if segment.holes_open is None else segment.holes_open[pick]
    return replace(segment, progress=segment.progress[pick], hole_scale=segment.hole_scale[pick], holes_open=states)


def _draw(renderer, segment, looks, paper_first: bool | None) -> np.ndarray:
    """The frame; `paper_first` (not None): the scene's set of mesh nodes iterates in that order."""
    with renderer:
        if paper_first is not None:
            renderer.scene._mesh_nodes = _Nodes(renderer.scene._mesh_nodes, paper_first)
        [frame] = draw_segments(renderer, [segment], looks)
    return frame


def prediction_frame(paper_first: bool | None = None) -> np.ndarray:
    """PFHP_2's unfolding frame 9 (the second unfold, 2 frames in), as `generate` draws it."""
    opts = AnimationOptions.preset("reference")
    history = trace(PREDICTION)
    segment = _one(unfolding_segments(history, opts, sheet=SHEET)[1], 2)
    looks = segment_looks([segment], hole_cuts(history, sheet=SHEET), opts)
    return _draw(sheet_renderer([segment], opts), segment, looks, paper_first)


def spatialviz_frame(paper_first: bool | None = None) -> np.ndarray:
    """The SpatialViz item's folding frame 35 (the first fold landing), 96 x 72, smooth cadence, its look."""
    media = ItemMedia.of(SPATIALVIZ, AnimationOptions(width=96, height=72), FAMILY_LOOKS["spatialviz"])
    segment = _one(media.folding[1], len(media.folding[1].progress) - 1)
    return _draw(media.renderer([segment]), segment, media.looks([segment]), paper_first)


FRAMES = {"prediction": prediction_frame, "spatialviz": spatialviz_frame}


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_frames_do_not_depend_on_the_order_pyrender_keeps_nodes_in(name):
    paper, crease = FRAMES[name](paper_first=True), FRAMES[name](paper_first=False)
    differ = np.argwhere((paper != crease).any(axis=2))
    assert not len(differ), f"{name}: {len(differ)} pixels depend on the draw order, e.g. {differ[:3].tolist()}"


def _hashes() -> dict[str, str]:
    return {name: hashlib.sha256(draw().tobytes()).hexdigest() for name, draw in FRAMES.items()}


@pytest.mark.slow
def test_frames_are_the_same_bytes_in_separate_processes():
    """Six processes, two at a time (before the fix this failed 6 runs out of 6)."""
    script = Path(__file__).resolve()
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl"}
    outputs = []
    for _ in range(3):
        procs = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env, cwd=script.parents[1]) for _ in range(2)]
        outputs += [(proc.communicate(timeout=300), proc.returncode) for proc in procs]
    for (_, stderr), code in outputs:
        assert code == 0, stderr[-2000:]
    lines = [stdout.split() for (stdout, _), _ in outputs]
    assert all(line == lines[0] for line in lines), lines


if __name__ == "__main__":
    for name, digest in _hashes().items():
        print(name, digest)
