"""3-D motion of a fold-and-cut item on a polygon sheet (`foldsim.cutfold`; docs/cutting.md, "3-D
motion"), through the renderer and the files the other items use: `scene.SheetRenderer` (the
default fragment shader, whose texture's red channel cuts the paper) and `animation.Mp4Sink` /
`FramesSink`, at `animation.video_paths`' places.

- Paper: every face of the final state (a layer: convex pieces of the flat sheet) as fan
  triangles, in *normalised units*: the sheet's bounding box centred on the origin and scaled so its
  longer side is 4 (MentalBlackboard's sheet), so the camera options mean what they mean for the
  other items.
- Motion: the engine's exact states, one after every fold (a group's folds one after another).
  During fold j the faces that move turn about the fold line through +z (toward the viewer: the
  flap lands on top) by π × progress; the others stay; every face's height eases from its layer's
  place before the fold to its layer's place after it (`layer_gap` apart, bottom layer at 0). The
  last frame of each fold *is* the state after it, placed from the exact isometries (one rounding
  to float per coordinate), so the folded paper ends exactly where the engine puts it.
- Cut-outs are **holes in the faces**: the exact cut-out pieces (flat sheet coordinates) are drawn
  into one texture of the flat sheet (`scene.hole_mask`); its alpha rides on the faces, so every
  layer is cut exactly where the cut went through it, and lower layers and the background show
  through. The folding video ends on the folded paper with the holes opening (the cut); the
  unfolding video plays the folds backward with the holes, and ends on the opened sheet.
- Camera: fixed for the whole item, looking at the centre of the box of the paper in every state,
  its distance scaled by that box's half side (2 at `opts.camera_distance`, as MentalBlackboard's).
- Crease: during each fold a thin rod along the fold line where it crosses the paper that folds
  (the line clipped exactly to every taking layer's pieces, joined where they meet), just above the
  stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
from PIL import Image

from ..cut_history import layer_history
from ..cutfold import Affine, CutItem, CutResult, Fold, Layer, cut_item, resolve_line
from ..errors import InputError
from ..io import atomic_write_bytes
from ..kernels import motion as M
from ..polygons import Point, bounding_box
from .animation import (REFERENCE_FRAMES, FramesSink, Mp4Sink, Overlay, _caption, _even, _ramp, top_view,
                        video_paths)
from .images import png_bytes
from .options import AnimationOptions
from .scene import CREASE_LIFT, CREASE_RADIUS, Look, SheetGeometry, SheetRenderer, hole_mask, paper_materials
from .shapes import Cut

#: the normalised sheet's longer side (MentalBlackboard's 4 x 4 sheet)
NORMAL_SIDE = 4
#: the half side of the paper's box that `opts.camera_distance` frames (MentalBlackboard's)
FRAMED_HALF_SIDE = 2.0
#: the whole stack is at most this tall (normalised units): many layers sit closer than LAYER_GAP
MAX_STACK_HEIGHT = 1.0


#: one frame of a timeline: the triangles float[T, 3, 3], whether the cut-outs are open, the caption,
#: the crease rod's pieces float[K, 2, 3] (None: none)
Shown = tuple[np.ndarray, bool, str, "np.ndarray | None"]


def crease_pieces(p1: Point, p2: Point, layers: Sequence[Layer]) -> list[tuple[Point, Point]]:
    """The line p1 -> p2 where it crosses the layers' placed pieces (exact), pieces that meet
    joined: the crease a fold of these layers makes."""
    dx, dy = p2[0] - p1[0], p2[1] - p1[1]
    spans = []
    for layer in layers:
        for piece in layer.placed():
            low, high, n = None, None, len(piece)
            for k in range(n):  # inside: left of every edge a -> b (counter-clockwise): alpha t + beta >= 0
                (ax, ay), (bx, by) = piece[k], piece[(k + 1) % n]
                alpha = (bx - ax) * dy - (by - ay) * dx
                beta = (bx - ax) * (p1[1] - ay) - (by - ay) * (p1[0] - ax)
                if alpha == 0:
                    if beta < 0:
                        break
                    continue
                bound = -beta / alpha
                if alpha > 0:
                    low = bound if low is None else max(low, bound)
                else:
                    high = bound if high is None else min(high, bound)
            else:
                if low is not None and high is not None and low < high:
                    spans.append((low, high))
    joined: list[list[Fraction]] = []
    for low, high in sorted(spans):
        if joined and low <= joined[-1][1]:
            joined[-1][1] = max(joined[-1][1], high)
        else:
            joined.append([low, high])
    return [tuple((p1[0] + t * dx, p1[1] + t * dy) for t in span) for span in joined]


@dataclass(frozen=True)
class Placement:
    """Every face's placement in one state, normalised: p -> linear p + shift, at height z."""

    linear: np.ndarray  # float64[F, 2, 2]
    shift: np.ndarray  # float64[F, 2]
    z: np.ndarray  # float64[F]


@dataclass(frozen=True)
class FoldMotion:
    """One fold: the placements before and after, which faces move, the line (normalised, its
    right side moving)."""

    before: Placement
    after: Placement
    moving: np.ndarray  # bool[F]
    line: tuple[np.ndarray, np.ndarray]  # (a point on it, its unit direction), float64[2] each
    caption: str
    crease: np.ndarray  # float64[K, 2, 3]: the rod's pieces, just above the stack before the fold


@dataclass(frozen=True)
class PolygonMotion:
    """One item's motion, ready to draw (module docstring)."""

    item: CutItem
    result: CutResult
    opts: AnimationOptions
    geometry: SheetGeometry
    flat: np.ndarray  # float64[T, 3, 2]: the triangles on the flat sheet, normalised
    face: np.ndarray  # int[T]: the final face (layer) of each triangle
    states: tuple[Placement, ...]  # the flat sheet, then after every fold
    folds: tuple[FoldMotion, ...]
    centre: np.ndarray  # float64[3]: what the camera looks at
    cuts: list[Cut]  # the cut-outs' pieces, normalised, for the hole texture
    origin: tuple[Fraction, Fraction]
    unit: Fraction

    @classmethod
    def of(cls, item: CutItem, opts: AnimationOptions = AnimationOptions(), name: str | None = None) -> "PolygonMotion":
        """The motion of `item` (InputError naming it when it does not fold and cut)."""
        result = cut_item(item)
        if not result.ok:
            raise InputError(f"{result.status}: {result.reason}", item=item.id or name)
        x0, y0, x1, y1 = bounding_box(item.sheet.vertices)
        origin, unit = ((x0 + x1) / 2, (y0 + y1) / 2), max(x1 - x0, y1 - y0) / NORMAL_SIDE
        flat_array, face = _flat_triangles(result, origin, unit)
        states = [layers for step in result.states for layers in step]
        holders = layer_history(item, result)
        gap = min(M.LAYER_GAP, MAX_STACK_HEIGHT / max(len(result.final), 1))
        placements = tuple(_placement([state[h].iso for h in held], held, gap, origin, unit)
                           for state, held in zip(states, holders))
        folds = [(s, k, fold) for s, step in enumerate(item.steps, 1) for k, fold in enumerate(step, 1)]
        motions = []
        for j, (s, k, fold) in enumerate(folds, 1):
            # a face moves iff the fold reflects it: its linear part changes (a reflection's never is the identity)
            moving = (placements[j - 1].linear != placements[j].linear).any(axis=(1, 2))
            count = len(item.steps[s - 1])
            caption = f"Fold {s}/{len(item.steps)}{f' ({k} of {count})' if count > 1 else ''}: {_fold_words(fold)}"
            motions.append(_fold_motion(fold, states[j - 1], item, placements[j - 1], placements[j], moving, caption,
                                        gap, origin, unit))
        corners = np.concatenate([_placed(flat_array, face, p).reshape(-1, 3) for p in placements])
        low, high = corners.min(0), corners.max(0)
        centre = (low + high) / 2
        half = float(np.abs(corners[:, :2] - centre[:2]).max())
        framed = replace(opts, camera_distance=opts.camera_distance * max(half, 0.5) / FRAMED_HALF_SIDE)
        cuts = [Cut(np.zeros(2), tuple(np.asarray([_normal(p, origin, unit) for p in piece], np.float64)
                                       for piece in cutout.pieces), i) for i, cutout in enumerate(result.cutouts)]
        geometry = SheetGeometry.of_triangles(flat_array.astype(np.float32))
        return cls(item, result, framed, geometry, flat_array, np.asarray(face), placements, tuple(motions),
                   centre, cuts, origin, unit)

    # -- positions ---------------------------------------------------------------------------------

    def still(self, k: int) -> np.ndarray:
        """float64[T, 3, 3]: the triangles in state k (0 flat, then after each fold), exactly placed."""
        return _placed(self.flat, self.face, self.states[k])

    def during(self, j: int, s: float) -> np.ndarray:
        """float64[T, 3, 3]: the triangles during fold j (1-based) at progress s in [0, 1]; s = 1 is
        state j exactly, s = 0 state j - 1."""
        if s >= 1:
            return self.still(j)
        motion = self.folds[j - 1]
        before = _placed(self.flat, self.face, motion.before)
        z_after = motion.after.z[self.face][:, None]
        z = before[..., 2] + s * (z_after - before[..., 2])
        out = before.copy()
        out[..., 2] = z
        moving = motion.moving[self.face]
        if moving.any():
            point, direction = motion.line
            right = np.array([direction[1], -direction[0]])
            xy = before[moving][..., :2] - point
            along, r = xy @ direction, xy @ right
            z0 = before[moving][..., 2]
            theta = np.pi * s
            r_turned = r * np.cos(theta) - z0 * np.sin(theta)
            z_turned = r * np.sin(theta) + z0 * np.cos(theta)
            turned = point + along[..., None] * direction + r_turned[..., None] * right
            out[moving, :, :2] = turned
            out[moving, :, 2] = z_turned + s * (z_after[moving] + z0)  # lands on its layer after the fold
        return out

    # -- timelines: (triangles, holes open, caption) per frame ----------------------------------------

    def folding(self) -> Iterator[Shown]:
        """(The flat sheet held,) every fold, then the cut: the folded paper held with its holes.
        Smooth cadence: `opts`' hold and frames per action; reference: MentalBlackboard's counts
        (`animation.REFERENCE_FRAMES`: 7 frames a fold from start to end, 3 on the cut, no hold)."""
        opts, reference = self.opts, self.opts.cadence == "reference"
        for _ in range(0 if reference else opts.hold_frames()):
            yield self.still(0), False, _caption("Initial sheet", opts), None
        for j, motion in enumerate(self.folds, 1):
            progress = _even(REFERENCE_FRAMES["fold"]) if reference else _ramp(opts.frames_per_action())
            for s in progress:
                yield self.during(j, float(s)), False, _caption(motion.caption, opts), motion.crease
        cut = _caption(f"Cut: {_count(len(self.item.cuts), 'shape')}", opts)
        for _ in range(REFERENCE_FRAMES["punch_hold"] if reference else opts.frames_per_action()):
            yield self.still(len(self.folds)), True, cut, None

    def unfolding(self) -> Iterator[Shown]:
        """(The cut paper held,) every fold undone (last first), the opened sheet held. Reference
        cadence: 6 frames an unfold and 1 unfolded, 1 of the result, no first hold."""
        opts, reference = self.opts, self.opts.cadence == "reference"
        fps = opts.unfolding_video_fps
        for _ in range(0 if reference else opts.hold_frames(fps)):
            yield self.still(len(self.folds)), True, _caption("Cut: now unfold", opts), None
        for j in range(len(self.folds), 0, -1):
            caption = _caption("Un" + self.folds[j - 1].caption[0].lower() + self.folds[j - 1].caption[1:], opts)
            if reference:
                progress = np.r_[1 - _even(REFERENCE_FRAMES["unfold"]), np.zeros(REFERENCE_FRAMES["unfolded"])]
            else:
                progress = 1 - _ramp(opts.frames_per_action(fps))
            for s in progress:
                yield self.during(j, float(s)), True, caption, self.folds[j - 1].crease
        result = _caption(f"Result: {_count(len(self.result.cutouts), 'cut-out')}", opts)
        for _ in range(REFERENCE_FRAMES["result"] if reference else opts.hold_frames(fps)):
            yield self.still(0), True, result, None

    # -- drawing ---------------------------------------------------------------------------------------

    def looks(self) -> tuple[Look, Look]:
        """(uncut, cut) paper: the cut one's texture holds every cut-out piece."""
        mask = hole_mask(self.cuts, 1.0, geometry=self.geometry) if self.cuts else None
        return paper_materials(None, self.opts, "R"), paper_materials(mask, self.opts, "R")

    def renderer(self) -> SheetRenderer:
        """The renderer (not entered); the crease rod as thick, relative to the camera distance, as
        MentalBlackboard's."""
        radius = CREASE_RADIUS * self.opts.camera_distance / AnimationOptions.camera_distance
        return SheetRenderer(self.opts, self.geometry, radius)

    def draw(self, renderer: SheetRenderer, frames: Iterable[Shown], looks: tuple[Look, Look]) -> Iterator[np.ndarray]:
        """Frames (H x W x 3 uint8) of a timeline through `renderer`; captions drawn once per text."""
        overlays: dict[str, Overlay | None] = {}
        for triangles, cut, caption, crease in frames:
            renderer.set_crease(None if crease is None or not len(crease) else crease - self.centre)
            renderer.set_paper((triangles - self.centre).astype(np.float32), looks[cut])
            frame = renderer.frame()
            if caption not in overlays:
                overlays[caption] = Overlay.of(caption, self.opts)
            overlay = overlays[caption]
            yield overlay.apply(frame) if overlay is not None else frame

    def result_image(self, renderer: SheetRenderer, looks: tuple[Look, Look]) -> Image.Image:
        """The opened sheet with its cut-outs, from straight above."""
        renderer.look_at(top_view(self.opts))
        try:
            [frame] = self.draw(renderer, [(self.still(0), True, "", None)], looks)
        finally:
            renderer.look_at(self.opts)
        return Image.fromarray(frame)


def _flat_triangles(result: CutResult, origin: Point, unit: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """(float64[T, 3, 2], int[T]): every final layer's convex pieces as fan triangles, normalised,
    and the layer each belongs to."""
    flat, face = [], []
    for f, layer in enumerate(result.final):
        for part in layer.parts:
            for k in range(1, len(part) - 1):
                flat.append([_normal(p, origin, unit) for p in (part[0], part[k], part[k + 1])])
                face.append(f)
    return np.asarray(flat, np.float64), np.asarray(face)


def _fold_motion(fold: Fold, before_layers: Sequence[Layer], item: CutItem, before: Placement, after: Placement,
                 moving: np.ndarray, caption: str, gap: float, origin: Point, unit: Fraction) -> FoldMotion:
    """One fold's motion: its line (normalised) and its crease rod over the layers it takes."""
    p1, p2 = resolve_line(fold, before_layers, item.sheet)
    a, b = np.asarray(_normal(p1, origin, unit)), np.asarray(_normal(p2, origin, unit))
    taking = before_layers[len(before_layers) - (fold.layers or len(before_layers)):]
    lift = gap * (len(before_layers) - 1) + CREASE_LIFT
    crease = np.asarray([[[*_normal(end, origin, unit), lift] for end in piece]
                         for piece in crease_pieces(p1, p2, taking)], np.float64).reshape(-1, 2, 3)
    return FoldMotion(before, after, moving, (a, (b - a) / np.linalg.norm(b - a)), caption, crease)


def _normal(p: Point, origin: Point, unit: Fraction) -> tuple[float, float]:
    return float((p[0] - origin[0]) / unit), float((p[1] - origin[1]) / unit)


def _placement(isos: list[Affine], held: list[int], gap: float, origin: Point, unit: Fraction) -> Placement:
    """Faces' isometries in normalised units: q -> m q + (m o + t - o) / unit, o the origin."""
    linear, shift = [], []
    for iso in isos:
        image = iso.apply(origin)
        linear.append([[float(v) for v in iso.m[:2]], [float(v) for v in iso.m[2:]]])
        shift.append([float((image[0] - origin[0]) / unit), float((image[1] - origin[1]) / unit)])
    return Placement(np.asarray(linear), np.asarray(shift), gap * np.asarray(held, np.float64))


def _placed(flat: np.ndarray, face: np.ndarray, placement: Placement) -> np.ndarray:
    xy = np.einsum("tij,tvj->tvi", placement.linear[face], flat) + placement.shift[face][:, None, :]
    return np.concatenate([xy, np.broadcast_to(placement.z[face][:, None, None], (*xy.shape[:2], 1))], axis=-1)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def _fold_words(fold: Fold) -> str:
    """A fold in words for a caption: its kind and rate, or "along a line"; a partial fold's layers."""
    words = f"{fold.kind.replace('_', ' ')} at {fold.rate}" if fold.rate is not None else "along a line"
    return words + (f", top {_count(fold.layers, 'layer')}" if fold.layers else "")


def write_cut_item_media(item: CutItem, out_dir: str | Path, opts: AnimationOptions = AnimationOptions(), *,
                         item_name: str | None = None, video: bool = True,
                         frames: bool = False) -> dict[str, Path]:
    """A fold-and-cut item's folding and unfolding animations as MP4s (`video`) and/or frame
    folders (`frames`), and its result image, at `animation.video_paths`' places, each atomically,
    through one renderer. InputError (naming the item) for an item that does not fold and cut."""
    motion = PolygonMotion.of(item, opts, item_name)
    paths = video_paths(out_dir, item_name or item.id or "item")
    videos = (("folding", motion.folding, motion.opts.folding_fps),
              ("unfolding", motion.unfolding, motion.opts.unfolding_video_fps))
    sinks: dict[str, Mp4Sink | FramesSink] = {}
    written: dict[str, Path] = {}
    try:
        for kind, _, fps in videos:
            if video:
                sinks[kind] = Mp4Sink(paths[kind], motion.opts.width, motion.opts.height, fps)
            if frames:
                sinks[f"{kind}_frames"] = FramesSink(paths[f"{kind}_frames"])
        looks = None
        with motion.renderer() as renderer:
            looks = motion.looks()
            for kind, timeline, _ in videos:
                mine = [key for key in sinks if key.startswith(kind)]
                for frame in motion.draw(renderer, timeline(), looks):
                    for key in mine:
                        sinks[key].write(frame)
                for key in mine:
                    written[key] = sinks.pop(key).commit()
            atomic_write_bytes(paths["result"], png_bytes(motion.result_image(renderer, looks)))
            written["result"] = paths["result"]
    finally:
        for sink in sinks.values():  # whatever was not committed: an error or an interrupt
            sink.abort()
    return written
