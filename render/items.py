"""3-D frames and videos of general items (`foldsim.sheets.SheetItem`, docs/engine.md), through the
same renderer, timeline and files as MentalBlackboard's (render/animation.py).

Everything is read from the engine's step-by-step history (`foldsim.engine.trace_item`): the mesh,
each state's placements and layers, each step's moving triangles and crease. Coordinates are
*centred cell units* (cell units minus (cols/2, rows/2)): the frame in which the engine's rotations
and flips turn about the origin, so one cell is one unit as in MentalBlackboard's sheet units.

- Motion: `foldsim.kernels.motion.mesh_motion` (a fold turns its flap about the crease, toward or
  away from the viewer by `front`; rotations turn, flips turn the stack over; layers `LAYER_GAP`
  apart from the exact layer order).
- Holes: `item_geometry.item_cuts` (each punch's outline clipped to every layer the point goes
  through, carried back to the flat sheet): one texture of the flat sheet, cut exactly where the
  punch cut each layer, so a punch on a crease opens one hole across it.
- Unfolding plays the folds backward in the final frame: each fold's motion is mapped by the
  rotations and flips after it (`view_transforms`: 3-D affine maps; a flip also turns z over), so
  the last frame is the flat sheet seen through the item's view, holes at the result's positions.
- The camera's distance is scaled by the paper's extent (MentalBlackboard's sheet is 4 cells wide
  at `AnimationOptions.camera_distance`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image

from ..engine import ItemTrace
from ..kernels import motion as M
from ..sheets import Flip, Fold, Rotate, SheetItem
from .animation import (REFERENCE_FRAMES, AnimationOptions, Segment, _caption, _even, _holes_caption, _ramp,
                        draw_segments, segment_looks, sheet_renderer, top_view, video_paths, write_segment_media)
from .item_geometry import (after, crease_pieces, extent, item_cuts, item_trace, line_words, moving_side,
                            result_hole_count, view_transforms)
from .scene import HoleState, Look, SheetGeometry, SheetRenderer
from .shapes import Cut

# -- geometry of the pictures ------------------------------------------------------------------------


def item_geometry(trace: ItemTrace) -> SheetGeometry:
    """The flat mesh in centred cell units, its hole texture the sheet's rectangle."""
    return SheetGeometry.of_triangles(M.flat_triangles(trace))


def framed(trace: ItemTrace, opts: AnimationOptions) -> AnimationOptions:
    """`opts` with the camera pulled back in proportion to the paper's extent (MentalBlackboard's
    4-cell sheet, extent 2, keeps `opts.camera_distance`)."""
    return replace(opts, camera_distance=opts.camera_distance * max(extent(trace), 0.5) / 2)


# -- captions -------------------------------------------------------------------------------------


def action_caption(trace: ItemTrace, k: int, number: int, total: int, unfold: bool = False) -> str:
    action = trace.item.actions[k]
    if isinstance(action, Rotate):
        return f"Rotate {90 * action.quarters}\N{DEGREE SIGN} counter-clockwise"
    if isinstance(action, Flip):
        return "Flip over, left to right"
    side = "forward" if action.front else "backward"
    verb = "Unfold" if unfold else "Fold"
    return f"{verb} {number}/{total} at {line_words(trace, k)}: {moving_side(trace, k)} side over, {side}"


# -- timelines ------------------------------------------------------------------------------------


def _segment(motion: M.Motion, progress, turn: np.ndarray, crease, caption: str, scale, geometry,
             opened=None) -> Segment:
    return Segment(motion, np.asarray(progress, float), turn, crease, caption, np.asarray(scale, float), opened,
                   geometry)


def item_folding_segments(trace: ItemTrace, opts: AnimationOptions,
                          geometry: SheetGeometry | None = None) -> list[Segment]:
    """As `animation.folding_segments`: (the flat sheet held,) every action, the punch."""
    geometry = geometry or item_geometry(trace)
    reference, identity = opts.cadence == "reference", np.eye(4)
    hold, frames = opts.hold_frames(), opts.frames_per_action()
    actions = trace.item.actions
    folds = [k for k, a in enumerate(actions) if isinstance(a, Fold)]
    segments = [] if reference else [_segment(M.mesh_still(trace, 0), np.zeros(hold), identity, None,
                                              _caption("Initial sheet", opts), np.zeros(hold), geometry)]
    for k, action in enumerate(actions):
        is_fold = isinstance(action, Fold)
        count = REFERENCE_FRAMES["fold" if is_fold else "rotation"]
        progress = _even(count) if reference else _ramp(frames)
        caption = action_caption(trace, k, folds.index(k) + 1 if is_fold else 0, len(folds))
        segments.append(_segment(M.mesh_motion(trace, k), progress, identity, crease_pieces(trace, k),
                                 _caption(caption, opts), np.zeros(len(progress)), geometry))
    punched = M.mesh_still(trace, len(actions))
    n_holes = len(trace.item.punches)
    caption = _caption(f"Punch: {_holes_caption(n_holes)}", opts)
    if reference:
        opened = np.r_[np.arange(1, n_holes + 1), np.full(REFERENCE_FRAMES["punch_hold"], n_holes)]
        segments.append(_segment(punched, np.zeros(len(opened)), identity, None, caption, np.ones(len(opened)),
                                 geometry, opened))
    else:
        growth = np.minimum(1.0, 2 * np.arange(1, frames + 1) / frames)
        segments.append(_segment(punched, np.zeros(frames), identity, None, caption, growth, geometry))
    return segments


def item_unfolding_segments(trace: ItemTrace, opts: AnimationOptions, geometry: SheetGeometry | None = None,
                            holes: int | None = None) -> list[Segment]:
    """As `animation.unfolding_segments`: the punched sheet, every fold undone (last first) in the
    final frame, the opened sheet seen through the item's view. `holes`: the result's hole count
    for the last caption (default: counted from the cuts)."""
    geometry = geometry or item_geometry(trace)
    reference = opts.cadence == "reference"
    fps = opts.unfolding_video_fps
    hold, frames = opts.hold_frames(fps), opts.frames_per_action(fps)
    actions = trace.item.actions
    transforms = view_transforms(trace)
    folds = [k for k, a in enumerate(actions) if isinstance(a, Fold)]
    segments = [] if reference else [_segment(M.mesh_still(trace, len(actions)), np.zeros(hold), np.eye(4), None,
                                              _caption("Punched: now unfold", opts), np.ones(hold), geometry)]
    for number, k in enumerate(folds[::-1], 1):
        if reference:
            progress = np.r_[1 - _even(REFERENCE_FRAMES["unfold"]), np.zeros(REFERENCE_FRAMES["unfolded"])]
        else:
            progress = 1 - _ramp(frames)
        caption = action_caption(trace, k, number, len(folds), unfold=True)
        segments.append(_segment(M.mesh_motion(trace, k), progress, after(transforms, k), crease_pieces(trace, k),
                                 _caption(caption, opts), np.ones(len(progress)), geometry))
    count = result_hole_count(trace, item_cuts(trace)) if holes is None else holes
    last = REFERENCE_FRAMES["result"] if reference else hold
    segments.append(_segment(M.mesh_still(trace, 0), np.zeros(last), after(transforms, -1), None,
                             _caption(f"Result: {_holes_caption(count)}", opts), np.ones(last), geometry))
    return segments


def item_result_segment(trace: ItemTrace, opts: AnimationOptions, geometry: SheetGeometry | None = None,
                        holes: int = 0) -> Segment:
    """The opened sheet with every hole, no caption: the result image's one frame."""
    return replace(item_unfolding_segments(trace, opts, geometry, holes)[-1], progress=np.zeros(1),
                   hole_scale=np.ones(1), holes_open=None, caption="")


# -- frames and files -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemMedia:
    """One item ready to draw: its history, mesh, cuts, framed options and both videos' segments."""

    trace: ItemTrace
    opts: AnimationOptions
    geometry: SheetGeometry
    cuts: list[Cut]
    folding: list[Segment]
    unfolding: list[Segment]
    result: Segment

    @classmethod
    def of(cls, item: SheetItem | ItemTrace | dict, opts: AnimationOptions) -> "ItemMedia":
        trace = item_trace(item)
        opts = framed(trace, opts)
        geometry = item_geometry(trace)
        cuts = item_cuts(trace)
        holes = result_hole_count(trace, cuts)
        return cls(trace, opts, geometry, cuts, item_folding_segments(trace, opts, geometry),
                   item_unfolding_segments(trace, opts, geometry, holes),
                   item_result_segment(trace, opts, geometry, holes))

    def looks(self, segments: Sequence[Segment] | None = None) -> dict[HoleState, Look]:
        chosen = [*self.folding, *self.unfolding, self.result] if segments is None else segments
        return segment_looks(chosen, self.cuts, self.opts)

    def frames(self, segments: Sequence[Segment]) -> Iterator[np.ndarray]:
        looks = self.looks(segments)
        with sheet_renderer(segments, self.opts) as renderer:
            yield from draw_segments(renderer, segments, looks)

    def result_with(self, renderer: SheetRenderer, looks: dict[HoleState, Look]) -> Image.Image:
        """The result frame from straight above (no labels: a general sheet has no grid ids)."""
        renderer.look_at(top_view(self.opts))
        try:
            [frame] = draw_segments(renderer, [self.result], looks)
        finally:
            renderer.look_at(self.opts)
        return Image.fromarray(frame)


def item_folding_frames(item, opts: AnimationOptions = AnimationOptions()) -> Iterator[np.ndarray]:
    """Frames of a general item's folding video: (the flat sheet,) each action, the punch."""
    media = ItemMedia.of(item, opts)
    return media.frames(media.folding)


def item_unfolding_frames(item, opts: AnimationOptions = AnimationOptions()) -> Iterator[np.ndarray]:
    """Frames of a general item's unfolding video: the punched sheet, each fold undone, the result."""
    media = ItemMedia.of(item, opts)
    return media.frames(media.unfolding)


def render_item_frame(item, step: int, s: float, opts: AnimationOptions = AnimationOptions(), *,
                      punched: bool = False) -> np.ndarray:
    """One folding frame of a general item: action `step` (0-based) at progress s in [0, 1], caption
    included; `punched`: with every hole cut (as the unfolding video shows it, in the folding frame)."""
    media = ItemMedia.of(item, opts)
    actions = media.folding[-len(media.trace.item.actions) - 1:-1]
    segment = replace(actions[step], progress=np.array([s], float), hole_scale=np.full(1, float(punched)),
                      holes_open=None)
    [frame] = media.frames([segment])
    return frame


def item_result_image(item, opts: AnimationOptions = AnimationOptions()) -> Image.Image:
    """The opened sheet with its holes, from straight above."""
    media = ItemMedia.of(item, opts)
    looks = media.looks([media.result])
    with sheet_renderer([media.result], media.opts) as renderer:
        return media.result_with(renderer, looks)


def item_id(item: SheetItem | ItemTrace) -> str:
    trace_or_item = item.item if isinstance(item, ItemTrace) else item
    return trace_or_item.id or "item"


def write_item_media(item, out_dir: str | Path, opts: AnimationOptions = AnimationOptions(), *,
                     item_name: str | None = None, video: bool = True, frames: bool = False) -> dict[str, Path]:
    """A general item's folding and unfolding animations as MP4s (`video`) and/or frame folders
    (`frames`), and its result image, at MentalBlackboard's places (`animation.video_paths`: e.g.
    folding_videos/PF_<id>_animation.mp4), every file atomically. InputError (naming the item) for
    an item that cannot be drawn."""
    media = ItemMedia.of(item, opts)
    looks = media.looks()
    name = item_name or item_id(media.trace)
    return write_segment_media(video_paths(out_dir, name), media.folding, media.unfolding, looks, media.opts,
                               lambda renderer: media.result_with(renderer, looks), video=video, frames=frames)


def render_item_video(item, out_dir: str | Path, opts: AnimationOptions = AnimationOptions(), *,
                      item_name: str | None = None) -> dict[str, Path]:
    """`write_item_media` with the MP4s: the folding and unfolding videos and the result PNG."""
    return write_item_media(item, out_dir, opts, item_name=item_name, video=True)


__all__ = ["ItemMedia", "after", "item_folding_frames", "item_folding_segments", "item_geometry",
           "item_result_image", "item_trace", "item_unfolding_frames", "item_unfolding_segments", "render_item_frame",
           "render_item_video", "view_transforms", "write_item_media"]
