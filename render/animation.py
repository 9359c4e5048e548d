"""3-D folding and unfolding animations (MP4) and the result image, rendered offscreen with pyrender.

Every frame is sampled from the kernels' differentiable motion (`foldsim.kernels.motion.positions`):
a fold turns its flap about the crease (toward the viewer for -F, away for -B), a rotation turns the
sheet in its plane, the punch opens see-through holes in every layer it meets (`scene.hole_cuts`).
Unfolding plays the folds backward (each from s = 1 to s = 0, last fold first) in the *final* frame:
rotations are never undone (SPEC §3-4), so each fold's motion is turned by the rotations that came
after it, and the last frame is the flat sheet turned by Θ with the holes at the result locations.

A video is a list of `Segment`s (one motion sampled at a few progress values, one caption); frames
stream from one OffscreenRenderer per video straight into ffmpeg, so memory stays flat.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import jax
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..codes import entry_of_code, parse_action
from ..errors import InputError
from ..io import atomic_write_bytes, current_umask
from ..kernels import actions as A
from ..kernels import motion as M
from ..kernels.sheet import N_TRIANGLES, QUARTER_ROTATIONS
from ..trace import Trace
from .images import CENTROIDS, png_bytes
# pyrender via scene: it sets up EGL first
from .scene import (CREASE_LIFT, FRONT_TRIANGLES, Cut, Look, build_scene, crease_mesh, hole_cuts,
                    offscreen_renderer, paper_looks, paper_mesh, project, pyrender)
from .text import require_ok

Colour = tuple[int, int, int]
#: ffmpeg output flags: bitexact and no metadata keep the MP4 bytes a function of the frames alone
#: (no encoder/version tags); yuv420p is the widely playable H.264 pixel format
FFMPEG_PARAMS = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1", "-pix_fmt", "yuv420p"]


@dataclass(frozen=True)
class AnimationOptions:
    """How the 3-D animation looks and how long it runs. Defaults are cheap on a CPU (llvmpipe)."""

    width: int = 640  # even sizes keep yuv420p MP4s widely playable
    height: int = 480
    fps: int = 24
    seconds_per_action: float = 1.0  # also the length of the punch
    hold_seconds: float = 0.5  # still frames on the initial sheet, before unfolding, on the result
    camera_distance: float = 8.0  # sheet units (the sheet is 4 wide)
    camera_elevation: float = 60.0  # degrees above the sheet's plane; 90 looks straight down
    camera_azimuth: float = 0.0  # degrees about the sheet's normal; 0 = standing at its bottom edge
    camera_fov: float = 45.0  # vertical field of view, degrees
    front_colour: Colour = (236, 230, 212)  # warm paper
    back_colour: Colour = (150, 186, 230)  # pale blue, so a turned-over flap reads at a glance
    background_colour: Colour = (24, 24, 30)  # holes show this colour too
    crease_colour: Colour = (20, 20, 20)
    caption_colour: Colour = (240, 240, 240)
    label_colour: Colour = (220, 30, 30)  # the result image's grid ids
    caption_size: float = 0.045  # caption height as a fraction of the frame height
    ambient_light: float = 0.3
    light_intensity: float = 2.5
    result_labels: bool = True  # red grid ids 1..32 on the result image, like the reference's

    def __post_init__(self) -> None:
        """Reject options ffmpeg or the renderer would fail on later, naming the field."""
        for name in ("width", "height"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 2 or value % 2:
                raise InputError(f"must be an even number of pixels >= 2 (H.264 needs it), got {value!r}", field=name)
        for name in ("fps", "seconds_per_action", "hold_seconds", "camera_distance", "camera_fov"):
            if not getattr(self, name) > 0:
                raise InputError(f"must be positive, got {getattr(self, name)!r}", field=name)

    @property
    def frames_per_action(self) -> int:
        return max(1, round(self.fps * self.seconds_per_action))

    @property
    def hold_frames(self) -> int:
        return max(1, round(self.fps * self.hold_seconds))


@dataclass(frozen=True)
class Segment:
    """A run of frames of one motion: its progress per frame, the quarter turns applied after it
    (about the origin: unfolding happens in the final frame), the crease to draw, the caption and
    the holes' growth per frame (0 = not punched yet, 1 = full size)."""

    motion: M.Motion
    progress: np.ndarray  # float[F]
    turn: int
    crease: np.ndarray | None  # float[2, 2], sheet units, in the motion's own frame
    caption: str
    hole_scale: np.ndarray  # float[F]


# ---------------------------------------------------------------------------------------------
# Timeline


def still(sheet) -> M.Motion:
    """A motion that holds `sheet` where it is (the no-op action), for still frames."""
    return M.motion_of(sheet, sheet, np.zeros(N_TRIANGLES, bool), np.zeros((2, 2)), A.NOOP)


def quarters_of(code: str) -> int:
    """Quarter turns of a rotation code, 0 for a fold."""
    action = parse_action(code)
    return action - A.FIRST_ROTATION + 1 if action >= A.FIRST_ROTATION else 0


def describe(code: str) -> str:
    """"H1-F horizontal top to bottom (forward)" for a fold code."""
    entry = entry_of_code(code)
    words = re.sub(r"([a-z])([A-Z])", lambda m: f"{m[1]}-{m[2].lower()}", entry["foldType"]).replace("_", " ")
    return f"{code} {words} ({'forward' if entry['foldToFront'] else 'backward'})"


def _ramp(frames: int) -> np.ndarray:
    """Progress 1/F .. 1, eased in and out so the flap starts and lands gently."""
    x = np.arange(1, frames + 1) / frames
    return x * x * (3 - 2 * x)


def _holes_caption(count: int) -> str:
    return f"{count} hole{'s' if count != 1 else ''}"


def folding_segments(trace: Trace, opts: AnimationOptions) -> list[Segment]:
    """Initial sheet, every action, then the punch growing the holes on the folded sheet."""
    hold, frames = opts.hold_frames, opts.frames_per_action
    n_folds = sum(step.is_fold for step in trace.steps)
    segments = [Segment(still(trace.sheet(0)), np.zeros(hold), 0, None, "Initial sheet", np.zeros(hold))]
    fold_number = 0
    for step in trace.steps:
        if step.is_fold:
            fold_number += 1
            caption = f"Fold {fold_number}/{n_folds}: {describe(step.code)}"
        else:
            caption = f"Rotate {90 * quarters_of(step.code)}\N{DEGREE SIGN} counter-clockwise"
        segments.append(Segment(step.motion(), _ramp(frames), 0, step.crease, caption, np.zeros(frames)))
    punch = np.minimum(1.0, 2 * np.arange(1, frames + 1) / frames)  # the holes open in the first half
    caption = f"Punch: {_holes_caption(len(trace.config.holes))}"
    segments.append(Segment(still(trace.sheet(len(trace.steps))), np.zeros(frames), 0, None, caption, punch))
    return segments


def unfolding_segments(trace: Trace, opts: AnimationOptions) -> list[Segment]:
    """The punched folded sheet, every fold undone (last first) in the final frame, the result."""
    hold, frames = opts.hold_frames, opts.frames_per_action
    folds = [step for step in trace.steps if step.is_fold]
    # quarter turns from each action to the end; a fold turns nothing itself, so at a fold this is
    # the turn of the rotations after it, and at the first action it is the total Θ
    turns_after = np.cumsum([quarters_of(step.code) for step in trace.steps][::-1])[::-1]
    final = trace.sheet(len(trace.steps))
    segments = [Segment(still(final), np.zeros(hold), 0, None, "Punched: now unfold", np.ones(hold))]
    for number, (step, code) in enumerate(zip(folds[::-1], trace.result.unfolding), 1):
        caption = f"Unfold {number}/{len(folds)}: {describe(code)}"
        segments.append(Segment(step.motion(), 1 - _ramp(frames), int(turns_after[step.index]), step.crease,
                                caption, np.ones(frames)))
    total_turn = int(turns_after[0]) if len(trace.steps) else 0
    caption = f"Result: {_holes_caption(len(trace.result.holes))}"
    segments.append(Segment(still(trace.sheet(0)), np.zeros(hold), total_turn, None, caption, np.ones(hold)))
    return segments


# ---------------------------------------------------------------------------------------------
# Geometry per frame

#: positions of points at several progress values at once: ([N], [N, 2], [F]) -> [F, N, 3]
_carry = jax.jit(jax.vmap(M.positions, in_axes=(None, None, None, 0)))
#: every vertex of FRONT_TRIANGLES: its triangle int32[96] and flat place float32[96, 2]
_VERTEX_TRIANGLE = np.repeat(np.arange(N_TRIANGLES, dtype=np.int32), 3)
_VERTEX_FLAT = FRONT_TRIANGLES.reshape(-1, 2)


def carried(segment: Segment) -> np.ndarray:
    """float[F, 96, 3]: the vertices of FRONT_TRIANGLES at every frame of the segment."""
    xyz = _carry(segment.motion, _VERTEX_TRIANGLE, _VERTEX_FLAT, np.asarray(segment.progress, np.float32))
    return turned(np.asarray(xyz), segment.turn)


def turned(xyz: np.ndarray, quarters: int) -> np.ndarray:
    """Points float[..., 3] (or [..., 2]) turned in the sheet's plane by quarter turns about the origin."""
    out = np.array(xyz, dtype=np.float32)
    out[..., :2] = xyz[..., :2] @ QUARTER_ROTATIONS[quarters % 4].T.astype(np.float32)
    return out


def crease_ends(segment: Segment, triangles: np.ndarray) -> np.ndarray:
    """float[2, 3]: the crease, turned like the sheet, just above the paper that stays put."""
    resting = triangles[~np.asarray(segment.motion.moving)]
    z = (resting[..., 2].max() if resting.size else 0.0) + CREASE_LIFT
    return np.c_[turned(segment.crease, segment.turn), np.full(2, z)]


# ---------------------------------------------------------------------------------------------
# Pixels


def _font(pixels: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font, so frames do not depend on the fonts a machine has installed."""
    return ImageFont.load_default(size=max(6, pixels))


def captioned(frame: np.ndarray, caption: str, opts: AnimationOptions) -> np.ndarray:
    """The frame with `caption` in its top-left corner, shrunk to fit the width and outlined in the
    background colour so it stays legible over paper."""
    if not caption:
        return frame
    size = round(opts.height * opts.caption_size)
    margin = size // 2
    length = _font(size).getlength(caption)
    if length > opts.width - 2 * margin:
        size = int(size * (opts.width - 2 * margin) / length)
    image = Image.fromarray(frame)
    ImageDraw.Draw(image).text((margin, margin), caption, fill=opts.caption_colour, font=_font(size),
                               stroke_width=max(1, size // 12), stroke_fill=opts.background_colour)
    return np.asarray(image)


def _segment_frames(renderer: pyrender.OffscreenRenderer, segment: Segment, looks: dict[float, Look],
                    opts: AnimationOptions) -> Iterator[np.ndarray]:
    for positions, growth in zip(carried(segment), segment.hole_scale):
        triangles = positions.reshape(N_TRIANGLES, 3, 3)
        meshes = [paper_mesh(triangles, looks[float(growth)])]
        if segment.crease is not None:
            meshes.append(crease_mesh(crease_ends(segment, triangles), opts))
        colour, _ = renderer.render(build_scene(meshes, opts))
        yield captioned(np.ascontiguousarray(colour[..., :3]), segment.caption, opts)


def render_segments(segments: list[Segment], cuts: list[Cut], opts: AnimationOptions) -> Iterator[np.ndarray]:
    """Every frame (H x W x 3 uint8) of `segments`, through one renderer freed at the end."""
    looks = paper_looks(cuts, np.concatenate([segment.hole_scale for segment in segments]), opts)
    with offscreen_renderer(opts) as renderer:
        for segment in segments:
            yield from _segment_frames(renderer, segment, looks, opts)


def folding_frames(trace: Trace, opts: AnimationOptions = AnimationOptions()) -> Iterator[np.ndarray]:
    """Frames of the folding video: initial sheet, each action, the punch."""
    require_ok(trace)
    return render_segments(folding_segments(trace, opts), hole_cuts(trace), opts)


def unfolding_frames(trace: Trace, opts: AnimationOptions = AnimationOptions()) -> Iterator[np.ndarray]:
    """Frames of the unfolding video: the punched folded sheet, each fold undone, the result."""
    require_ok(trace)
    return render_segments(unfolding_segments(trace, opts), hole_cuts(trace), opts)


def render_frame(trace: Trace, step: int, s: float, opts: AnimationOptions = AnimationOptions()) -> np.ndarray:
    """One folding frame: action `step` (0-based) at progress s in [0, 1], caption included."""
    segment = replace(folding_segments(trace, opts)[1 + step], progress=np.array([s], float), hole_scale=np.zeros(1))
    [frame] = render_segments([segment], hole_cuts(trace), opts)
    return frame


def result_image(trace: Trace, opts: AnimationOptions = AnimationOptions()) -> Image.Image:
    """The unfolded sheet with its holes, seen from straight above (like the reference's result
    screenshot), with the grid ids in red when `opts.result_labels`."""
    require_ok(trace)
    top = replace(opts, camera_elevation=90.0, camera_azimuth=0.0)
    result = replace(unfolding_segments(trace, top)[-1], progress=np.zeros(1), hole_scale=np.ones(1), caption="")
    [frame] = render_segments([result], hole_cuts(trace), top)
    image = Image.fromarray(frame)
    if opts.result_labels:
        draw, font = ImageDraw.Draw(image), _font(round(opts.height * opts.caption_size * 0.6))
        pixels = project(np.c_[CENTROIDS, np.zeros(N_TRIANGLES)], top)
        for grid_id, (x, y) in enumerate(pixels, 1):
            draw.text((x, y), str(grid_id), fill=opts.label_colour, font=font, anchor="mm")
    return image


# ---------------------------------------------------------------------------------------------
# Files


def write_mp4(frames: Iterator[np.ndarray], path: str | Path, opts: AnimationOptions) -> int:
    """Encode frames to an H.264 MP4 atomically (a temp file in the same folder, then os.replace);
    returns the number of frames. The bytes depend only on the frames and options."""
    from moviepy.video.io.ffmpeg_writer import FFMPEG_VideoWriter

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".mp4")
    os.close(fd)
    count = 0
    try:
        with warnings.catch_warnings():  # JAX warns on any fork; ffmpeg is fork + exec, which is safe
            warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
            writer = FFMPEG_VideoWriter(tmp, (opts.width, opts.height), opts.fps, codec="libx264",
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


def video_number(item_id: str) -> str:
    """The `<n>` of the benchmark's asset names: the id without its `PFHP_` prefix (so PFHP_12 ->
    12; suffixed ids such as PFHP_803_shape_mod keep their suffix and never collide)."""
    return item_id.removeprefix("PFHP_")


def video_paths(out_dir: str | Path, item_id: str) -> dict[str, Path]:
    """Where the benchmark keeps an item's 3-D assets (formats §1.2), under the dataset root."""
    n, root = video_number(item_id), Path(out_dir)
    return {
        "folding": root / "folding_videos" / f"PF_{n}_animation.mp4",
        "unfolding": root / "unfolding_videos" / f"UP_{n}_animation.mp4",
        "result": root / "prediction_results" / f"PFHP_{n}_result.png",
    }


def write_videos(trace: Trace, out_dir: str | Path, item_id: str,
                 opts: AnimationOptions = AnimationOptions()) -> dict[str, Path]:
    """Write the folding video, the unfolding video and the result image of one item, atomically.
    Raises InputError (naming the item) for items the simulator could not answer."""
    require_ok(trace)
    paths = video_paths(out_dir, item_id)
    write_mp4(folding_frames(trace, opts), paths["folding"], opts)
    write_mp4(unfolding_frames(trace, opts), paths["unfolding"], opts)
    atomic_write_bytes(paths["result"], png_bytes(result_image(trace, opts)))
    return paths


def render_benchmark(trace: Trace, opts: AnimationOptions = AnimationOptions()) -> dict:
    """Time the 3-D renderer on one item: frames/s of rendering alone (folding + unfolding frames,
    no encoding) and wall seconds of `write_videos` (both videos and the result image) into a
    temporary folder. Run it once first to exclude JAX compilation and EGL start-up."""
    start = time.perf_counter()
    frames = sum(1 for _ in folding_frames(trace, opts)) + sum(1 for _ in unfolding_frames(trace, opts))
    render_seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        write_videos(trace, folder, trace.config.id or "item", opts)
        item_seconds = time.perf_counter() - start
    return {"actions": len(trace.steps), "frames": frames, "render_fps": frames / render_seconds,
            "item_seconds": item_seconds, "width": opts.width, "height": opts.height, "fps": opts.fps}
