"""3-D frames and MP4s of a cube net folding (issue 25; docs/nets.md, "Pictures and motion"). They go
through the renderer and the files the sheet animations use: `scene.SheetRenderer` with the painted
fragment shader, and `animation.Mp4Sink` / `FramesSink`.

- Motion: `foldsim.kernels.nets.corner_positions`. By default every hinge turns together from flat
  to its quarter turn, eased, after a hold on the flat net and before a hold on the folded one
  (`fold_progress`: `opts.hold_frames()` + `opts.frames_per_action()` + `opts.hold_frames()` frames).
  The last frame is exactly the engine's fold, so a cube net ends as the cube under its root. Any
  per-frame hinge angles can be given instead (`angles`, e.g. one hinge after another).
- Paint: each face is two triangles. The paper's front (the printed side) is painted with the flat
  net's picture (`net_images.flat_net_image` at `TEXELS_PER_UNIT`), which rides on the faces, so each
  face shows its label and its posed F glyph. The back is plain `opts.back_colour`, and the front's
  base colour is white, so the paint's colours show as they are.
- Camera: `opts`' elevation and azimuth (`NET_MOTION` looks from the front-right, above, so the cube
  shows its top, front and right). Each frame is centred on the middle of its faces' bounding box,
  with the camera distance scaled by their extent, so the flat net and the cube both fill the frame.
- No captions: the picture is the message.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import InputError
from ..kernels import nets as K
from ..limits import MAX_FRAMES_PER_ACTION
from ..nets import Net, net_arrays
from . import shaders
from .animation import FramesSink, Mp4Sink, _ramp
from .net_images import flat_net_image
from .options import AnimationOptions
from .scene import Look, SheetGeometry, SheetRenderer, paper_materials, textured_materials

#: the net motion's defaults: a small frame, the cube seen from the front-right and above
NET_MOTION = AnimationOptions(width=480, height=360, fps=24, seconds_per_action=2.0, hold_seconds=0.5,
                              camera_elevation=35.0, camera_azimuth=30.0, captions="none")
#: texels per grid unit of the paint (fewer on a net wider than MAX_TEXTURE_PIXELS / TEXELS_PER_UNIT)
TEXELS_PER_UNIT = 128
MAX_TEXTURE_PIXELS = 2048
MIN_TEXELS_PER_UNIT = 8
#: the most frames one motion may have (hold, fold, hold at the options' bounds)
MAX_NET_FRAMES = 3 * MAX_FRAMES_PER_ACTION
#: the extent (corner distance from the centre) that `opts.camera_distance` frames: MentalBlackboard's
#: 4 x 4 sheet, whose corners lie 2 sqrt 2 from its centre
FRAMED_EXTENT = 2 * math.sqrt(2)
#: each face's two triangles, as corner indices (counter-clockwise seen from the printed side)
FACE_TRIANGLES = np.array([[0, 1, 2], [0, 2, 3]])

_corners_over_time = jax.jit(jax.vmap(K.corner_positions, in_axes=(None, None, None, None, 0)))


def fold_progress(opts: AnimationOptions = NET_MOTION) -> np.ndarray:
    """float[T]: how far every hinge has turned in each frame (0 flat, 1 its quarter turn): the flat
    net held, an eased fold, the folded net held."""
    hold = np.zeros(opts.hold_frames())
    return np.r_[hold, _ramp(opts.frames_per_action()), hold + 1]


def fold_angles(net: Net, progress: np.ndarray) -> np.ndarray:
    """float32[T, F]: every hinge at `progress` x 90 degrees in each frame (radians)."""
    return (np.asarray(progress, np.float32)[:, None] * np.float32(np.pi / 2)
            * np.ones(len(net), np.float32)).astype(np.float32)


def net_corners(net: Net, angles: np.ndarray) -> np.ndarray:
    """float32[T, F, 4, 3]: every face's corners in each frame (net units, the net's frame: the
    cube lies under the root) for hinge angles float[T, F] (radians, times each hinge's turn)."""
    angles = np.asarray(angles, np.float32)
    if angles.ndim != 2 or angles.shape[1] != len(net) or not 1 <= len(angles) <= MAX_NET_FRAMES:
        raise InputError(f"must be float[T, {len(net)}] hinge angles with 1 <= T <= {MAX_NET_FRAMES}, got shape "
                         f"{angles.shape}", item=net.id, field="angles")
    if not np.isfinite(angles).all():
        raise InputError("must be finite numbers", item=net.id, field="angles")
    arrays = net_arrays([net])
    corners = _corners_over_time(jnp.asarray(arrays.cells[0]), jnp.asarray(arrays.parent[0]),
                                 jnp.asarray(arrays.turn[0]), jnp.asarray(arrays.present[0]), jnp.asarray(angles))
    return np.asarray(corners, np.float32)


def face_triangles(corners: np.ndarray) -> np.ndarray:
    """float32[..., 2 F, 3, D]: each face's two triangles from its corners float[..., F, 4, D]."""
    triangles = np.asarray(corners)[..., FACE_TRIANGLES, :]  # [..., F, 2, 3, D]
    return triangles.reshape(*triangles.shape[:-4], -1, 3, triangles.shape[-1]).astype(np.float32)


def texels_per_unit(net: Net) -> int:
    """The paint's texels per grid unit: TEXELS_PER_UNIT, fewer on a wide net so the texture stays
    within MAX_TEXTURE_PIXELS a side (InputError past MIN_TEXELS_PER_UNIT: the net spans too much)."""
    xs, ys = [x for x, _ in net.cells], [y for _, y in net.cells]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) + 1
    texels = min(TEXELS_PER_UNIT, MAX_TEXTURE_PIXELS // span)
    if texels < MIN_TEXELS_PER_UNIT:
        raise InputError(f"spans {span} cells, more than the {MAX_TEXTURE_PIXELS // MIN_TEXELS_PER_UNIT} the 3-D "
                         "motion draws", item=net.id, field="cells")
    return texels


@dataclass(frozen=True)
class NetMotion:
    """One net's motion, ready to draw: its flat mesh, per frame the faces' corners (net frame),
    the centre the frame is drawn about and the camera's distance, and the options."""

    net: Net
    opts: AnimationOptions
    geometry: SheetGeometry
    corners: np.ndarray  # float32[T, F, 4, 3]
    centres: np.ndarray  # float32[T, 3]
    distances: np.ndarray  # float[T]
    texels: int  # the paint's texels per grid unit

    @classmethod
    def of(cls, net: Net, opts: AnimationOptions = NET_MOTION, angles: np.ndarray | None = None) -> "NetMotion":
        """The motion of `net` under `opts` (white front: the paint carries the colours); `angles`
        float[T, F] (radians) instead of the default fold (`fold_progress`)."""
        texels = texels_per_unit(net)
        angles = fold_angles(net, fold_progress(opts)) if angles is None else angles
        corners = net_corners(net, angles)
        flat = net_corners(net, np.zeros((1, len(net)), np.float32))[0, ..., :2]
        geometry = SheetGeometry.of_triangles(face_triangles(flat), texels)
        low, high = corners.min(axis=(1, 2)), corners.max(axis=(1, 2))
        centres = (low + high) / 2
        extents = np.linalg.norm(corners - centres[:, None, None], axis=-1).max(axis=(1, 2))
        distances = opts.camera_distance * np.maximum(extents, 0.5) / FRAMED_EXTENT
        return cls(net, replace(opts, front_colour=(255, 255, 255)), geometry, corners, centres.astype(np.float32),
                   distances, texels)

    def __len__(self) -> int:
        return len(self.corners)

    def triangles(self, frame: int) -> np.ndarray:
        """float32[2 F, 3, 3]: frame `frame`'s triangles as drawn (about the frame's centre)."""
        return face_triangles(self.corners[frame] - self.centres[frame])

    def look(self) -> Look:
        """The paper: the front painted with the flat net's picture, the back plain."""
        paint = np.asarray(flat_net_image(self.net, self.texels, margin=0))
        if paint.shape[1::-1] != self.geometry.pixels:
            raise AssertionError(f"paint {paint.shape[1::-1]} does not cover the mesh's texture {self.geometry.pixels}")
        rgba = np.dstack([paint, np.full(paint.shape[:2], 255, np.uint8)])
        return textured_materials(rgba, self.opts, "RGBA")[0], paper_materials(None, self.opts)[1]

    def frames(self) -> Iterator[np.ndarray]:
        """Every frame (H x W x 3 uint8), through one renderer freed at the end."""
        look = self.look()
        with SheetRenderer(self.opts, self.geometry, fragment=shaders.PAINTED_FRAGMENT) as renderer:
            for frame, distance in enumerate(self.distances):
                renderer.look_at(replace(self.opts, camera_distance=float(distance)))
                renderer.set_paper(self.triangles(frame), look)
                yield renderer.frame()


def net_folding_frames(net: Net, opts: AnimationOptions = NET_MOTION,
                       angles: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """The frames (H x W x 3 uint8) of `net` folding (module doc); `angles`: float[T, F] hinge
    angles per frame (radians) instead of the default fold."""
    return NetMotion.of(net, opts, angles).frames()


def write_net_folding(net: Net, video: str | Path | None = None, frames: str | Path | None = None,
                      opts: AnimationOptions = NET_MOTION, angles: np.ndarray | None = None) -> dict[str, Path]:
    """`net` folding as an MP4 at `video` (opts.fps) and/or PNG frames (`frame_0000.png` ...) in the
    folder `frames`, from one render pass, each written atomically. Returns the paths written,
    keyed "video" and "frames"."""
    motion = NetMotion.of(net, opts, angles)
    sinks: dict[str, Mp4Sink | FramesSink] = {}
    written: dict[str, Path] = {}
    try:
        if video is not None:
            sinks["video"] = Mp4Sink(Path(video), opts.width, opts.height, opts.fps)
        if frames is not None:
            sinks["frames"] = FramesSink(Path(frames))
        for frame in motion.frames():
            for sink in sinks.values():
                sink.write(frame)
        for key in list(sinks):
            written[key] = sinks.pop(key).commit()
    finally:
        for sink in sinks.values():  # whatever was not committed: an error or an interrupt
            sink.abort()
    return written
