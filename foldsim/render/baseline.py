"""The former 3-D rendering path, kept as the baseline of `benchmarks/render.py` and the reference
of the pixel test (tests/test_frames.py): every frame builds new pyrender meshes (paper and crease)
and a new scene, renders with pyrender's own shaders (plus the alpha test for the holes), reads
back colour and depth, and draws its caption with Pillow; videos go through moviepy's ffmpeg writer
with its default x264 preset. Frames come from the same timeline (`animation.*_segments`) and hole
textures as the fast path, so the two differ only in how pixels are made.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from ..io import atomic_write_bytes, current_umask
from ..mesh import TriangleSheet
from ..trace import Trace
from .animation import (AnimationOptions, Segment, captioned, carried, crease_ends, folding_segments, labelled,
                        result_segment, segment_looks, top_view, unfolding_segments, video_paths)
from .images import png_bytes
from .scene import HoleState, Look, build_scene, crease_mesh, hole_cuts, offscreen_renderer, paper_mesh
from .text import require_ok

#: the former ffmpeg output flags (moviepy adds its default preset, `medium`, and ffmpeg picks the
#: number of encoder threads from the machine)
FFMPEG_PARAMS = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1", "-pix_fmt", "yuv420p"]


def rebuilt_frames(segments: Sequence[Segment], looks: dict[HoleState, Look],
                   opts: AnimationOptions) -> Iterator[np.ndarray]:
    """Every frame of `segments`, each from freshly built meshes and scene, through one renderer."""
    with offscreen_renderer(opts) as renderer:
        for segment in segments:
            for positions, state in zip(carried(segment), segment.hole_states()):
                triangles = positions.reshape(-1, 3, 3)
                meshes = [paper_mesh(triangles, looks[state], geometry=segment.geometry)]
                if segment.crease is not None:
                    meshes.append(crease_mesh(crease_ends(segment, triangles), opts))
                colour, _ = renderer.render(build_scene(meshes, opts))
                yield captioned(np.ascontiguousarray(colour[..., :3]), segment.caption, opts)


def folding_frames(trace: Trace, opts: AnimationOptions = AnimationOptions(), *,
                   sheet: TriangleSheet) -> Iterator[np.ndarray]:
    require_ok(trace)
    segments = folding_segments(trace, opts, sheet=sheet)
    return rebuilt_frames(segments, segment_looks(segments, hole_cuts(trace, sheet=sheet), opts, "RGBA"), opts)


def unfolding_frames(trace: Trace, opts: AnimationOptions = AnimationOptions(), *,
                     sheet: TriangleSheet) -> Iterator[np.ndarray]:
    require_ok(trace)
    segments = unfolding_segments(trace, opts, sheet=sheet)
    return rebuilt_frames(segments, segment_looks(segments, hole_cuts(trace, sheet=sheet), opts, "RGBA"), opts)


def result_frame(trace: Trace, opts: AnimationOptions = AnimationOptions(), *, sheet: TriangleSheet) -> np.ndarray:
    """The result image's frame (no labels), from straight above."""
    top = top_view(opts)
    segment = result_segment(trace, top, sheet=sheet)
    [frame] = rebuilt_frames([segment], segment_looks([segment], hole_cuts(trace, sheet=sheet), top, "RGBA"), top)
    return frame


def write_mp4(frames: Iterator[np.ndarray], path: str | Path, opts: AnimationOptions, fps: int) -> int:
    """Encode frames to an H.264 MP4 atomically with moviepy's writer; returns the number of frames."""
    from moviepy.video.io.ffmpeg_writer import FFMPEG_VideoWriter

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".mp4")
    os.close(fd)
    count = 0
    try:
        with warnings.catch_warnings():  # JAX warns on any fork; ffmpeg is fork + exec, which is safe
            warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
            writer = FFMPEG_VideoWriter(tmp, (opts.width, opts.height), fps, codec="libx264",
                                        ffmpeg_params=FFMPEG_PARAMS)
        with writer:
            for frame in frames:
                writer.write_frame(frame)
                count += 1
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


def write_videos(trace: Trace, out_dir: str | Path, item_id: str, opts: AnimationOptions = AnimationOptions(), *,
                 sheet: TriangleSheet) -> dict[str, Path]:
    """The former `animation.write_videos`: both MP4s and the result PNG, each video rendered with
    its own renderer, every frame rebuilt."""
    require_ok(trace)
    paths = video_paths(out_dir, item_id)
    write_mp4(folding_frames(trace, opts, sheet=sheet), paths["folding"], opts, opts.folding_fps)
    write_mp4(unfolding_frames(trace, opts, sheet=sheet), paths["unfolding"], opts, opts.unfolding_video_fps)
    atomic_write_bytes(paths["result"], png_bytes(labelled(result_frame(trace, opts, sheet=sheet), opts, sheet=sheet)))
    return {key: paths[key] for key in ("folding", "unfolding", "result")}
