"""3-D folding and unfolding animations (MP4s and/or PNG frame folders) and the result image,
rendered offscreen with pyrender.

Every frame is sampled from the kernels' differentiable motion (`foldsim.kernels.motion.positions`):
a fold turns its flap about the crease (toward the viewer for -F, away for -B), a rotation turns the
sheet in its plane, the punch opens see-through holes in every layer it meets (`scene.hole_cuts`).
Unfolding plays the folds backward (each from s = 1 to s = 0, last fold first) in the *final* frame:
rotations are never undone (SPEC §3-4), so each fold's motion is turned by the rotations that came
after it, and the last frame is the flat sheet turned by Θ with the holes at the result locations.

A video is a list of `Segment`s (one motion sampled at a few progress values, one caption). Two
cadences: `smooth` (fps x seconds per action frames, eased, for people) and `reference` (the
MentalBlackboard generator's: about 7 frames per fold, 6 per rotation, one per punched hole then 3,
6 + 1 per unfold; 2 fps folding and 3 fps unfolding videos; camera straight down; captions in words).

Speed: one `scene.SheetRenderer` draws every frame of an item (scene, materials and hole textures
made once; each frame overwrites the paper's vertex buffer), each caption is rasterised once per
segment and blended onto its frames, and frames stream into ffmpeg (x264 `ENCODER_PRESET`, one
thread: the bytes do not depend on the machine's core count) and/or PNG files, so memory stays
flat. `render.baseline` keeps the former per-frame-rebuild path for the benchmark and pixel tests.

Size (~630 lines): one animation's timeline, its segment drawing and the two sinks it writes (MP4,
frame folders) share the segment and frame bookkeeping; the options (foldsim.render.options) and
the scene (foldsim.render.scene) are already apart.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import jax
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..codes import entry_of_code, parse_action
from ..io import atomic_write_bytes, current_umask, replace_target, safe_file_name
from ..kernels import actions as A
from ..kernels import motion as M
from ..mesh import QUARTER_ROTATIONS, TriangleSheet
from ..trace import Trace
from . import shaders
from .images import png_bytes
from .options import AnimationOptions
# pyrender via scene: it sets up EGL first
from .scene import (CREASE_LIFT, CREASE_RADIUS, Cut, HoleState, Look, SheetGeometry, SheetRenderer, hole_cuts,
                    paper_looks, project, sheet_geometry)
from .text import require_ok

#: x264 speed preset of the videos: `veryfast` encodes ~1.5x faster than the default `medium` at the
#: same file size on these flat-shaded frames
ENCODER_PRESET = "veryfast"
#: ffmpeg output flags: bitexact and no metadata keep the MP4 bytes a function of the frames alone
#: (no encoder/version tags); one encoder thread, because x264's output depends on its thread count;
#: yuv420p is the widely playable H.264 pixel format; the container is named since temp files end in .tmp
FFMPEG_PARAMS = ["-preset", ENCODER_PRESET, "-threads", "1", "-pix_fmt", "yuv420p", "-fflags", "+bitexact",
                 "-flags:v", "+bitexact", "-map_metadata", "-1", "-f", "mp4"]
#: the reference cadence's frames per action (formats §1.7; run.py's capture steps)
REFERENCE_FRAMES = {"fold": 7, "rotation": 6, "punch_hold": 3, "unfold": 6, "unfolded": 1, "result": 1}
#: `Segment.holes_open` for "every hole punched"
ALL_HOLES = 1 << 30


@dataclass(frozen=True)
class Segment:
    """A run of frames of one motion: its progress per frame, the quarter turns applied after it
    (about the origin: unfolding happens in the final frame), the crease to draw, the caption, the
    holes' growth per frame (0 = not punched yet, 1 = full size) and how many of the initial holes
    are punched per frame (None: all of them), and the mesh it moves (`geometry`: a kernel-traced
    sheet's `scene.sheet_geometry`, or a general item's).

    General items (render/items.py) give `turn` as a float[4, 4] affine map of 3-D points (their
    rotations and flips: a flip also turns z over); their crease may be several pieces, float[K, 2, 2]."""

    motion: M.Motion
    progress: np.ndarray  # float[F]
    turn: int | np.ndarray
    crease: np.ndarray | None  # float[2, 2] (or [K, 2, 2]), sheet units, in the motion's own frame
    caption: str
    hole_scale: np.ndarray  # float[F]
    holes_open: np.ndarray | None  # int[F]
    geometry: SheetGeometry

    def hole_states(self) -> list[HoleState]:
        """(holes punched, growth) of every frame: the key of its paper look."""
        opened = np.full(len(self.progress), ALL_HOLES) if self.holes_open is None else self.holes_open
        return [(int(o), float(g)) for o, g in zip(opened, self.hole_scale)]


# ---------------------------------------------------------------------------------------------
# Timeline


def still(state) -> M.Motion:
    """A motion that holds a kernel state where it is (the no-op action), for still frames."""
    return M.motion_of(state, state, np.zeros(np.shape(state.linear)[0], bool), np.zeros((2, 2)), A.NOOP)


def quarters_of(code: str) -> int:
    """Quarter turns of a rotation code, 0 for a fold."""
    action = parse_action(code)
    return action - A.FIRST_ROTATION + 1 if action >= A.FIRST_ROTATION else 0


def fold_words(code: str) -> str:
    """"diagonal top-left to bottom-right" for a fold code: its foldType in words."""
    return re.sub(r"([a-z])([A-Z])", lambda m: f"{m[1]}-{m[2].lower()}", entry_of_code(code)["foldType"]).replace("_", " ")


def describe(code: str, captions: str = "codes") -> str:
    """A fold in a caption: "H1-F horizontal top to bottom (forward)" (codes), "horizontal top to
    bottom, forward" (words), "" (none)."""
    side = "forward" if entry_of_code(code)["foldToFront"] else "backward"
    if captions == "words":
        return f"{fold_words(code)}, {side}"
    return f"{code} {fold_words(code)} ({side})" if captions == "codes" else ""


def _ramp(frames: int) -> np.ndarray:
    """Progress 1/F .. 1, eased in and out so the flap starts and lands gently."""
    x = np.arange(1, frames + 1) / frames
    return x * x * (3 - 2 * x)


def _even(frames: int) -> np.ndarray:
    """Progress 0 .. 1 in `frames` even steps, both ends included (the reference's capture points)."""
    return np.linspace(0.0, 1.0, frames)


def _holes_caption(count: int) -> str:
    return f"{count} hole{'s' if count != 1 else ''}"


def _caption(text: str, opts: AnimationOptions) -> str:
    return "" if opts.captions == "none" else text


def folding_segments(trace: Trace, opts: AnimationOptions, *, sheet: TriangleSheet) -> list[Segment]:
    """Smooth: the initial sheet held, every action eased, the holes growing on the folded sheet.
    Reference: every action at even steps from its start, then one frame per punched hole and 3
    frames of the punched sheet. `sheet`: the flat sheet `trace` was folded on."""
    make_segment = partial(Segment, holes_open=None, geometry=sheet_geometry(sheet))
    reference = opts.cadence == "reference"
    hold, frames = opts.hold_frames(), opts.frames_per_action()
    n_folds = sum(step.is_fold for step in trace.steps)
    segments = [] if reference else [
        make_segment(still(trace.sheet(0)), np.zeros(hold), 0, None, _caption("Initial sheet", opts),
                     np.zeros(hold))]
    fold_number = 0
    for step in trace.steps:
        if step.is_fold:
            fold_number += 1
            caption = f"Fold {fold_number}/{n_folds}: {describe(step.code, opts.captions)}"
            progress = _even(REFERENCE_FRAMES["fold"]) if reference else _ramp(frames)
        else:
            caption = f"Rotate {90 * quarters_of(step.code)}\N{DEGREE SIGN} counter-clockwise"
            progress = _even(REFERENCE_FRAMES["rotation"]) if reference else _ramp(frames)
        segments.append(make_segment(step.motion(), progress, 0, step.crease, _caption(caption, opts),
                                     np.zeros(len(progress))))
    punched = still(trace.sheet(len(trace.steps)))
    n_holes = len(trace.config.holes)
    caption = _caption(f"Punch: {_holes_caption(n_holes)}", opts)
    if reference:
        opened = np.r_[np.arange(1, n_holes + 1), np.full(REFERENCE_FRAMES["punch_hold"], n_holes)]
        segments.append(make_segment(punched, np.zeros(len(opened)), 0, None, caption, np.ones(len(opened)),
                                     holes_open=opened))
    else:
        growth = np.minimum(1.0, 2 * np.arange(1, frames + 1) / frames)  # the holes open in the first half
        segments.append(make_segment(punched, np.zeros(frames), 0, None, caption, growth))
    return segments


def unfolding_segments(trace: Trace, opts: AnimationOptions, *, sheet: TriangleSheet) -> list[Segment]:
    """The punched folded sheet, every fold undone (last first) in the final frame, the result.
    Smooth: held, eased, held. Reference: each unfold at even steps from folded to open plus one
    frame of the opened sheet, then one result frame."""
    make_segment = partial(Segment, holes_open=None, geometry=sheet_geometry(sheet))
    reference = opts.cadence == "reference"
    fps = opts.unfolding_video_fps
    hold, frames = opts.hold_frames(fps), opts.frames_per_action(fps)
    folds = [step for step in trace.steps if step.is_fold]
    # quarter turns from each action to the end; a fold turns nothing itself, so at a fold this is
    # the turn of the rotations after it, and at the first action it is the total Θ
    turns_after = np.cumsum([quarters_of(step.code) for step in trace.steps][::-1])[::-1]
    final = trace.sheet(len(trace.steps))
    segments = [] if reference else [
        make_segment(still(final), np.zeros(hold), 0, None, _caption("Punched: now unfold", opts), np.ones(hold))]
    for number, (step, code) in enumerate(zip(folds[::-1], trace.result.unfolding), 1):
        caption = _caption(f"Unfold {number}/{len(folds)}: {describe(code, opts.captions)}", opts)
        if reference:
            progress = np.r_[1 - _even(REFERENCE_FRAMES["unfold"]), np.zeros(REFERENCE_FRAMES["unfolded"])]
        else:
            progress = 1 - _ramp(frames)
        segments.append(make_segment(step.motion(), progress, int(turns_after[step.index]), step.crease, caption,
                                     np.ones(len(progress))))
    total_turn = int(turns_after[0]) if len(trace.steps) else 0
    caption = _caption(f"Result: {_holes_caption(len(trace.result.holes))}", opts)
    last = REFERENCE_FRAMES["result"] if reference else hold
    segments.append(make_segment(still(trace.sheet(0)), np.zeros(last), total_turn, None, caption, np.ones(last)))
    return segments


# ---------------------------------------------------------------------------------------------
# Geometry per frame

#: positions of points at several progress values at once: ([N], [N, 2], [F]) -> [F, N, 3]
_carry = jax.jit(jax.vmap(M.positions, in_axes=(None, None, None, 0)))


#: segments are evaluated in batches of a multiple of this many frames, so JAX compiles few shapes
_FRAME_BUCKET = 8


def carried(segment: Segment) -> np.ndarray:
    """float[F, 3 T, 3]: the vertices of the segment's geometry's front triangles at every frame."""
    progress = np.asarray(segment.progress, np.float32)
    padded = np.resize(progress, -(-len(progress) // _FRAME_BUCKET) * _FRAME_BUCKET)  # repeats: discarded below
    vertex_triangle = np.repeat(np.arange(segment.geometry.count, dtype=np.int32), 3)  # each vertex's triangle
    vertex_flat = segment.geometry.front.reshape(-1, 2)
    xyz = _carry(segment.motion, vertex_triangle, vertex_flat, padded)
    return turned(np.asarray(xyz)[: len(progress)], segment.turn)


def turned(xyz: np.ndarray, quarters: int | np.ndarray) -> np.ndarray:
    """Points float[..., 3] (or [..., 2]) turned in the sheet's plane by quarter turns about the origin
    (or, for a float[4, 4] `quarters`, mapped by that affine map: a general item's view; points in
    the plane by its upper-left 2 x 2)."""
    if isinstance(quarters, np.ndarray):
        return _affine(xyz, quarters)
    out = np.array(xyz, dtype=np.float32)
    out[..., :2] = xyz[..., :2] @ QUARTER_ROTATIONS[quarters % 4].T.astype(np.float32)
    return out


def _affine(xyz: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    xyz = np.asarray(xyz, np.float32)
    if xyz.shape[-1] == 2:
        return (xyz @ matrix[:2, :2].T).astype(np.float32)
    return (xyz @ matrix[:3, :3].T + matrix[:3, 3]).astype(np.float32)


def crease_ends(segment: Segment, triangles: np.ndarray) -> np.ndarray:
    """float[2, 3] (float[K, 2, 3] for a crease in pieces): the crease, turned like the sheet, just
    above the paper that stays put."""
    resting = triangles[~np.asarray(segment.motion.moving)]
    z = (resting[..., 2].max() if resting.size else 0.0) + CREASE_LIFT
    crease = np.asarray(segment.crease)
    if crease.ndim == 3:
        xy = turned(crease.reshape(-1, 2), segment.turn)
        return np.c_[xy, np.full(len(xy), z)].reshape(-1, 2, 3).astype(np.float32)
    return np.c_[turned(segment.crease, segment.turn), np.full(2, z)]


# ---------------------------------------------------------------------------------------------
# Captions


def _font(pixels: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font, so frames do not depend on the fonts a machine has installed."""
    return ImageFont.load_default(size=max(6, pixels))


def _caption_layout(caption: str, opts: AnimationOptions) -> tuple[int, int, int]:
    """(font size, margin, outline width) of a caption: top-left, shrunk to fit the frame's width."""
    size = round(opts.height * opts.caption_size)
    margin = size // 2
    length = _font(size).getlength(caption)
    if length > opts.width - 2 * margin:
        size = int(size * (opts.width - 2 * margin) / length)
    return size, margin, max(1, size // 12)


def captioned(frame: np.ndarray, caption: str, opts: AnimationOptions) -> np.ndarray:
    """The frame with `caption` drawn on it by Pillow, outlined in the background colour so it stays
    legible over paper (the per-frame way; `Overlay` blends the same caption, drawn once)."""
    if not caption:
        return frame
    size, margin, stroke = _caption_layout(caption, opts)
    image = Image.fromarray(frame)
    ImageDraw.Draw(image).text((margin, margin), caption, fill=opts.caption_colour, font=_font(size),
                               stroke_width=stroke, stroke_fill=opts.background_colour)
    return np.asarray(image)


@dataclass(frozen=True)
class Overlay:
    """A caption rasterised once, blended onto each frame of its segment: inside `box`, a frame's
    pixels become pixels * keep + add. Pillow draws a caption as its outline in the outline colour,
    then the glyphs over it, each blending by coverage; keep and add fold both steps together."""

    box: tuple[slice, slice]
    keep: np.ndarray  # float32[h, w, 1]
    add: np.ndarray  # float32[h, w, 3]

    @classmethod
    def of(cls, caption: str, opts: AnimationOptions) -> "Overlay | None":
        if not caption:
            return None
        size, margin, stroke = _caption_layout(caption, opts)
        masks = []
        for width in (stroke, 0):  # the outlined text, then the glyphs alone
            mask = Image.new("L", (opts.width, opts.height), 0)
            ImageDraw.Draw(mask).text((margin, margin), caption, fill=255, font=_font(size), stroke_width=width,
                                      stroke_fill=255)
            masks.append(np.asarray(mask, np.float32)[..., None] / 255)
        outline, glyphs = masks
        rows, cols = np.nonzero(outline[..., 0])
        if not len(rows):
            return None
        box = (slice(rows.min(), rows.max() + 1), slice(cols.min(), cols.max() + 1))
        outline, glyphs = outline[box], glyphs[box]
        keep = (1 - outline) * (1 - glyphs)
        add = (outline * (1 - glyphs) * np.float32(opts.background_colour)
               + glyphs * np.float32(opts.caption_colour))
        return cls(box, keep.astype(np.float32), (add + 0.5).astype(np.float32))  # + 0.5: round, not floor

    def apply(self, frame: np.ndarray) -> np.ndarray:
        """Blend onto `frame` (H x W x 3 uint8) in place; returns it."""
        region = frame[self.box]
        region[...] = (region * self.keep + self.add).astype(np.uint8)
        return frame


# ---------------------------------------------------------------------------------------------
# Frames


def segment_looks(segments: Sequence[Segment], cuts: list[Cut], opts: AnimationOptions,
                  channels: str = "R") -> dict[HoleState, Look]:
    """The paper look of every hole state the segments show, made once (per item); "R": the fast
    renderer's single-channel hole textures, "RGBA": pyrender's shader's."""
    if not segments:
        return {}
    return paper_looks(cuts, [state for segment in segments for state in segment.hole_states()], opts, channels,
                       geometry=segments[0].geometry)


def sheet_renderer(segments: Sequence[Segment], opts: AnimationOptions, *,
                   fragment: str = shaders.FRAGMENT) -> SheetRenderer:
    """The renderer of an item's segments, on their mesh; a general mesh's crease rod (no radius of
    its own) is as thick, relative to the camera distance, as MentalBlackboard's. `fragment`: the
    fragment shader variant (`SheetRenderer`; `shaders.PAINTED_FRAGMENT` for a family look's paint)."""
    geometry = segments[0].geometry
    radius = geometry.crease_radius
    if radius is None:
        radius = CREASE_RADIUS * opts.camera_distance / AnimationOptions.camera_distance
    return SheetRenderer(opts, geometry, radius, fragment=fragment)


def render_segments(segments: Sequence[Segment], cuts: list[Cut], opts: AnimationOptions) -> Iterator[np.ndarray]:
    """Every frame (H x W x 3 uint8) of `segments`, through one renderer freed at the end."""
    looks = segment_looks(segments, cuts, opts)
    with sheet_renderer(segments, opts) as renderer:
        yield from draw_segments(renderer, segments, looks)


def draw_segments(renderer: SheetRenderer, segments: Sequence[Segment],
                  looks: dict[HoleState, Look]) -> Iterator[np.ndarray]:
    """Every frame (H x W x 3 uint8, a new array each) of `segments` through `renderer`: per frame only
    the paper's vertices and look change; the crease and the caption change per segment."""
    for segment in segments:
        overlay = Overlay.of(segment.caption, renderer.opts)
        positions = carried(segment).reshape(len(segment.progress), -1, 3, 3)
        for triangles, state in zip(positions, segment.hole_states()):
            # the crease is rebuilt only when it moves: once per segment (the paper below stays put)
            renderer.set_crease(None if segment.crease is None else crease_ends(segment, triangles))
            renderer.set_paper(triangles, looks[state])
            frame = renderer.frame()
            yield overlay.apply(frame) if overlay is not None else frame


def folding_frames(trace: Trace, opts: AnimationOptions = AnimationOptions(), *,
                   sheet: TriangleSheet) -> Iterator[np.ndarray]:
    """Frames of the folding video: (initial sheet,) each action, the punch."""
    require_ok(trace)
    return render_segments(folding_segments(trace, opts, sheet=sheet), hole_cuts(trace, sheet=sheet), opts)


def unfolding_frames(trace: Trace, opts: AnimationOptions = AnimationOptions(), *,
                     sheet: TriangleSheet) -> Iterator[np.ndarray]:
    """Frames of the unfolding video: the punched folded sheet, each fold undone, the result."""
    require_ok(trace)
    return render_segments(unfolding_segments(trace, opts, sheet=sheet), hole_cuts(trace, sheet=sheet), opts)


def render_frame(trace: Trace, step: int, s: float, opts: AnimationOptions = AnimationOptions(), *,
                 sheet: TriangleSheet) -> np.ndarray:
    """One folding frame: action `step` (0-based) at progress s in [0, 1], caption included."""
    actions = folding_segments(trace, opts, sheet=sheet)[-len(trace.steps) - 1:-1]  # no initial hold, no punch
    segment = replace(actions[step], progress=np.array([s], float), hole_scale=np.zeros(1), holes_open=None)
    [frame] = render_segments([segment], hole_cuts(trace, sheet=sheet), opts)
    return frame


def top_view(opts: AnimationOptions) -> AnimationOptions:
    """The result image's viewpoint: straight above, unturned."""
    return replace(opts, camera_elevation=90.0, camera_azimuth=0.0)


def result_segment(trace: Trace, opts: AnimationOptions, *, sheet: TriangleSheet) -> Segment:
    """The unfolded sheet with every hole, no caption: the result image's one frame."""
    return replace(unfolding_segments(trace, opts, sheet=sheet)[-1], progress=np.zeros(1), hole_scale=np.ones(1),
                   holes_open=None, caption="")


def labelled(frame: np.ndarray, opts: AnimationOptions, *, sheet: TriangleSheet) -> Image.Image:
    """The result frame with the triangle ids (index + 1) of `sheet` in red when `opts.result_labels`."""
    image = Image.fromarray(frame)
    if opts.result_labels:
        top = top_view(opts)
        draw, font = ImageDraw.Draw(image), _font(round(opts.height * opts.caption_size * 0.6))
        pixels = project(np.c_[sheet.centroids, np.zeros(sheet.n_triangles)], top)
        for grid_id, (x, y) in enumerate(pixels, 1):
            draw.text((x, y), str(grid_id), fill=opts.label_colour, font=font, anchor="mm")
    return image


def _result_with(renderer: SheetRenderer, trace: Trace, looks: dict[HoleState, Look], *,
                 sheet: TriangleSheet) -> Image.Image:
    opts = renderer.opts
    renderer.look_at(top_view(opts))
    try:
        [frame] = draw_segments(renderer, [result_segment(trace, opts, sheet=sheet)], looks)
    finally:
        renderer.look_at(opts)
    return labelled(frame, opts, sheet=sheet)


def result_image(trace: Trace, opts: AnimationOptions = AnimationOptions(), *, sheet: TriangleSheet) -> Image.Image:
    """The unfolded sheet with its holes, seen from straight above (like the reference's result
    screenshot), with the triangle ids in red when `opts.result_labels`."""
    require_ok(trace)
    segment = result_segment(trace, opts, sheet=sheet)
    looks = segment_looks([segment], hole_cuts(trace, sheet=sheet), opts)
    with sheet_renderer([segment], opts) as renderer:
        return _result_with(renderer, trace, looks, sheet=sheet)


# ---------------------------------------------------------------------------------------------
# Files


def _temp_name(path: Path) -> Path:
    """A fresh temp path beside `path`, named `.<name>.<random>.tmp` like foldsim.io's atomic writes
    (so one sweep finds the leftovers of a killed run)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    return Path(tmp)


def _widen_pipe(fd: int, frame_bytes: int) -> None:
    """Let the pipe to ffmpeg hold a whole frame (Linux: F_SETPIPE_SZ, up to the system's maximum),
    so writing a frame returns at once and the next frame renders while ffmpeg encodes this one."""
    try:
        limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
        fcntl.fcntl(fd, 1031, min(max(frame_bytes, 65536), limit))  # 1031: F_SETPIPE_SZ
    except (OSError, ValueError):
        pass  # another OS, or not allowed: the default pipe only overlaps less


class Mp4Sink:
    """Frames into an H.264 MP4, atomically: ffmpeg writes a temp file beside `path`, renamed over
    `path` by `commit()`. The bytes depend only on the frames, the size and the fps."""

    def __init__(self, path: Path, width: int, height: int, fps: int):
        self.path = path = replace_target(path)  # never a device or FIFO (refused before ffmpeg starts)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = _temp_name(path)
        with warnings.catch_warnings():  # JAX warns on any fork; ffmpeg is fork + exec, which is safe
            warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
            from moviepy.config import FFMPEG_BINARY  # moviepy's ffmpeg; its first import runs `ffmpeg -version`

            command = [FFMPEG_BINARY, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
                       "-s", f"{width}x{height}", "-r", str(fps), "-i", "-", "-an", "-vcodec", "libx264",
                       *FFMPEG_PARAMS, str(self._tmp)]
            self._proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE)
        _widen_pipe(self._proc.stdin.fileno(), 3 * width * height)

    def write(self, frame: np.ndarray) -> None:
        try:
            self._proc.stdin.write(frame.data)  # the array's own buffer: no copy
        except BrokenPipeError:
            self._fail()

    def _fail(self) -> None:
        self._proc.kill()
        _, error = self._proc.communicate()
        message = (error or b"").decode(errors="replace").strip().splitlines()
        raise OSError(f"ffmpeg could not write {self.path.name}: {message[-1] if message else 'it stopped'}")

    def commit(self) -> Path:
        try:
            self._proc.stdin.close()
        except BrokenPipeError:
            pass
        error = self._proc.stderr.read()
        if self._proc.wait() != 0:
            message = error.decode(errors="replace").strip().splitlines()
            raise OSError(f"ffmpeg could not write {self.path.name}: {message[-1] if message else 'it failed'}")
        os.chmod(self._tmp, 0o666 & ~current_umask())
        with open(self._tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(self._tmp, replace_target(self.path))
        return self.path

    def abort(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.communicate()
        self._tmp.unlink(missing_ok=True)


#: the PNG compression of frame files: zlib level 1 writes ~5x faster than Pillow's default 6, for
#: files about 1.3x larger
FRAME_PNG_LEVEL = 1


class FramesSink:
    """Frames as `frame_0000.png`, `frame_0001.png`, ... in the folder `path`, atomically: written
    into a temp folder beside it, which `commit()` renames to `path` (replacing an older folder)."""

    def __init__(self, path: Path):
        self.path = path = replace_target(path, "dir")  # a folder or nothing: never a device or FIFO moved aside
        path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
        os.chmod(self._tmp, 0o777 & ~current_umask())
        self._count = 0

    def write(self, frame: np.ndarray) -> None:
        target = self._tmp / frame_name(self._count)
        Image.fromarray(frame).save(target, format="PNG", compress_level=FRAME_PNG_LEVEL)
        self._count += 1

    def commit(self) -> Path:
        old = None
        replace_target(self.path, "dir")
        if self.path.exists():  # an earlier render: moved aside (a temp name), then removed
            old = Path(tempfile.mkdtemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"))
            os.replace(self.path, old / "old")
        os.replace(self._tmp, self.path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.path

    def abort(self) -> None:
        shutil.rmtree(self._tmp, ignore_errors=True)


def frame_name(index: int) -> str:
    """The file name of frame `index` (0-based) in a frames folder."""
    return f"frame_{index:04d}.png"


def video_number(item_id: str) -> str:
    """The `<n>` of the benchmark's asset names: the id without its `PFHP_` prefix (so PFHP_12 ->
    12; suffixed ids such as PFHP_803_shape_mod keep their suffix and never collide)."""
    return item_id.removeprefix("PFHP_")


def video_paths(out_dir: str | Path, item_id: str) -> dict[str, Path]:
    """Where the benchmark keeps an item's 3-D assets (formats §1.2), under the dataset root; the id
    goes through `foldsim.io.safe_file_name` (no-op for the benchmark's ids), so no file leaves it."""
    n, root = safe_file_name(video_number(safe_file_name(item_id))), Path(out_dir)
    return {
        "folding": root / "folding_videos" / f"PF_{n}_animation.mp4",
        "unfolding": root / "unfolding_videos" / f"UP_{n}_animation.mp4",
        "result": root / "prediction_results" / f"PFHP_{n}_result.png",
        "folding_frames": root / "folding_frames" / f"PF_{n}",
        "unfolding_frames": root / "unfolding_frames" / f"UP_{n}",
    }


def write_media(trace: Trace, out_dir: str | Path, item_id: str, opts: AnimationOptions = AnimationOptions(), *,
                sheet: TriangleSheet, video: bool = True, frames: bool = False) -> dict[str, Path]:
    """Render an item's folding and unfolding animations once each, into MP4s (`video`) and/or frame
    folders (`frames`), plus the result image; every file and folder appears atomically. Returns the
    paths written, keyed as `video_paths`. Raises InputError (naming the item) for items the
    simulator could not answer. `sheet`: the flat sheet `trace` was folded on."""
    require_ok(trace)
    folding, unfolding = folding_segments(trace, opts, sheet=sheet), unfolding_segments(trace, opts, sheet=sheet)
    looks = segment_looks([*folding, *unfolding, result_segment(trace, opts, sheet=sheet)],
                          hole_cuts(trace, sheet=sheet), opts)
    return write_segment_media(video_paths(out_dir, item_id), folding, unfolding, looks, opts,
                               lambda renderer: _result_with(renderer, trace, looks, sheet=sheet), video=video,
                               frames=frames)


def write_segment_media(paths: dict[str, Path], folding: Sequence[Segment], unfolding: Sequence[Segment],
                        looks: dict[HoleState, Look], opts: AnimationOptions, result, *, video: bool = True,
                        frames: bool = False, renderer: SheetRenderer | None = None) -> dict[str, Path]:
    """The folding and unfolding segments into MP4s (`video`) and/or frame folders (`frames`) at
    `paths` (keyed as `video_paths`), and `result(renderer)` (a PIL image) as the result PNG, all
    through one renderer, every file and folder atomically: MentalBlackboard items and general
    items alike. `renderer`: the one to draw through, not yet entered (entered and freed here; it
    must suit `looks`, e.g. a painted one for a family look's textures); default
    `sheet_renderer(folding, opts)`."""
    videos = (("folding", folding, opts.folding_fps), ("unfolding", unfolding, opts.unfolding_video_fps))
    sinks: dict[str, Mp4Sink | FramesSink] = {}
    written: dict[str, Path] = {}
    try:
        for kind, _, fps in videos:  # both encoders start now: the second starts up while the first video renders
            if video:
                sinks[kind] = Mp4Sink(paths[kind], opts.width, opts.height, fps)
            if frames:
                sinks[f"{kind}_frames"] = FramesSink(paths[f"{kind}_frames"])
        with renderer if renderer is not None else sheet_renderer(folding, opts) as renderer:
            for kind, segments, _ in videos:
                mine = [key for key in sinks if key.startswith(kind)]
                for frame in draw_segments(renderer, segments, looks):
                    for key in mine:
                        sinks[key].write(frame)
                for key in mine:
                    written[key] = sinks.pop(key).commit()
            atomic_write_bytes(paths["result"], png_bytes(result(renderer)))
            written["result"] = paths["result"]
    finally:
        for sink in sinks.values():  # whatever was not committed: an error or an interrupt
            sink.abort()
    return written


def write_videos(trace: Trace, out_dir: str | Path, item_id: str, opts: AnimationOptions = AnimationOptions(), *,
                 sheet: TriangleSheet) -> dict[str, Path]:
    """Write the folding video, the unfolding video and the result image of one item, atomically.
    Raises InputError (naming the item) for items the simulator could not answer."""
    return write_media(trace, out_dir, item_id, opts, sheet=sheet, video=True)
