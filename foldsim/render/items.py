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
- Looks: by default every item is drawn as MentalBlackboard's sheets are (warm paper, a pale blue
  back, see-through holes of the punch's shape on a dark background). A benchmark family's look
  (`item_images.look_of`, from the record's `family`; `foldsim render-item --look`) reads the same
  table as the family's 2-D composites and step images (`item_images.FAMILY_LOOKS`): the family's
  paper, background and crease
  colours, the paper painted by a colour texture that rides on it (grid lines on a grid family's
  cells, the sheet's outline, every hole a filled circle of the family's size and colour on every
  layer the punch went through, as the family's own pictures draw holes), through a renderer whose
  fragment shader multiplies the lit paper colour by that texture (`shaders.PAINTED_FRAGMENT`, the
  `SheetRenderer`'s `fragment`, see `ItemMedia.renderer`).
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
from . import shaders
from .animation import (REFERENCE_FRAMES, AnimationOptions, Segment, _caption, _even, _holes_caption, _ramp,
                        draw_segments, segment_looks, sheet_renderer, top_view, video_paths, write_segment_media)
from .item_geometry import (after, crease_pieces, extent, item_cuts, item_trace, line_words, moving_side,
                            result_hole_count, view_transforms)
from .item_images import LOOK_CHOICES, FamilyLook, family_unit, look_of
from .scene import HoleState, Look, SheetGeometry, SheetRenderer, hole_mask, textured_materials
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


# -- the families' looks (`look_of` and LOOK_CHOICES: render/item_images.py, for the 2-D images too) -------


def in_look(opts: AnimationOptions, look: FamilyLook) -> AnimationOptions:
    """`opts` in a family's colours: paper, its back, background, crease, captions."""
    return replace(opts, front_colour=look.paper, back_colour=look.back, background_colour=look.background,
                   crease_colour=look.mark, caption_colour=look.text)


def _tint(colour, look: FamilyLook) -> np.ndarray:
    """float32[3]: what the lit paper colour is multiplied by to show `colour` where fully lit."""
    return np.minimum(np.float32(colour) / np.maximum(np.float32(look.paper), 1), 1).astype(np.float32)


def _coverage(distance: np.ndarray, width: float, texel: float) -> np.ndarray:
    """How much of a texel `texel` wide a line `width` wide covers, its centre `distance` away."""
    return np.clip((width / 2 - distance) / texel + 0.5, 0.0, 1.0).astype(np.float32)


def paper_paint(trace: ItemTrace, geometry: SheetGeometry, look: FamilyLook) -> np.ndarray:
    """float32[H, W, 3]: the flat sheet's paint before any punch (first row: the top edge): 1 on bare
    paper, the tint of the grid lines on a grid family's cell lines, of the outline along the edges."""
    (w, h), (low_x, low_y), (size_x, size_y) = geometry.pixels, geometry.low, geometry.size
    texel_x, texel_y = size_x / w, size_y / h
    x = low_x + (np.arange(w) + 0.5) * texel_x  # texel centres, centred cell units
    y = low_y + size_y - (np.arange(h) + 0.5) * texel_y
    unit = family_unit(trace)
    paint = np.ones((h, w, 3), np.float32)
    if look.grid:
        width = look.grid_width * unit
        across = _coverage(np.abs(x - low_x - np.round(x - low_x)), width, texel_x)  # cell lines: whole x - low_x
        along = _coverage(np.abs(y - low_y - np.round(y - low_y)), width, texel_y)
        cover = np.maximum(across[None, :], along[:, None])[..., None]
        paint = paint * (1 - cover) + _tint(look.grid_colour, look) * cover
    width = look.outline_width * unit  # the outline: a band this wide inside the sheet's edges
    to_x = np.minimum(x - low_x, low_x + size_x - x)
    to_y = np.minimum(y - low_y, low_y + size_y - y)
    cover = np.maximum(_coverage(np.abs(to_x - width / 2), width, texel_x)[None, :],
                       _coverage(np.abs(to_y - width / 2), width, texel_y)[:, None])[..., None]
    return paint * (1 - cover) + _tint(look.outline, look) * cover


def whole_holes(cuts: Sequence[Cut]) -> list[Cut]:
    """The cuts of one punch at one place of the flat sheet (its pieces in neighbouring triangles of
    a layer) joined into one Cut: `scene.hole_mask` draws a Cut's pieces together, so a painted hole
    shows no seam where the pieces meet (a cut-out's alpha test hides that seam; paint would not)."""
    joined: dict[tuple, list[Cut]] = {}
    for cut in cuts:
        joined.setdefault((cut.hole, *np.round(cut.centre, 9)), []).append(cut)
    return [Cut(group[0].centre, tuple(p for cut in group for p in cut.polygons), group[0].hole)
            for group in joined.values()]


def painted_looks(segments: Sequence[Segment], cuts: list[Cut], opts: AnimationOptions, look: FamilyLook,
                  trace: ItemTrace) -> dict[HoleState, Look]:
    """As `animation.segment_looks` in a family's look: per hole state, the paper painted (grid,
    outline) with every punched hole grown to its state filled in the hole colour; states without
    a hole share one texture."""
    geometry = segments[0].geometry
    base = paper_paint(trace, geometry, look)
    hole = _tint(look.hole_colour, look)

    def materials(paint: np.ndarray) -> Look:
        rgba = np.dstack([np.round(paint * 255).astype(np.uint8), np.full(paint.shape[:2], 255, np.uint8)])
        return textured_materials(rgba, opts, "RGBA")

    looks: dict[HoleState, Look] = {}
    plain: Look | None = None
    for opened, growth in sorted({state for segment in segments for state in segment.hole_states()}):
        punched = whole_holes([c for c in cuts if c.hole < opened])
        if growth > 0 and punched:
            kept = hole_mask(punched, growth, geometry=geometry).astype(np.float32)[..., None] / 255
            looks[opened, growth] = materials(base * kept + hole * (1 - kept))
        else:
            plain = plain or materials(base)
            looks[opened, growth] = plain
    return looks


# -- frames and files -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemMedia:
    """One item ready to draw: its history, mesh, cuts, framed options and both videos' segments,
    and the family look it is drawn in (None: the default look)."""

    trace: ItemTrace
    opts: AnimationOptions
    geometry: SheetGeometry
    cuts: list[Cut]
    folding: list[Segment]
    unfolding: list[Segment]
    result: Segment
    look: FamilyLook | None = None

    @classmethod
    def of(cls, item: SheetItem | ItemTrace | dict, opts: AnimationOptions,
           look: FamilyLook | None = None) -> "ItemMedia":
        trace = item_trace(item)
        opts = framed(trace, opts)
        if look is None:
            cuts = item_cuts(trace)
        else:  # the family's colours; every hole the family's circle
            opts = in_look(opts, look)
            cuts = item_cuts(trace, radius=look.radius(trace.item.sheet.cols, trace.item.sheet.rows))
        geometry = item_geometry(trace)
        holes = result_hole_count(trace, cuts)
        return cls(trace, opts, geometry, cuts, item_folding_segments(trace, opts, geometry),
                   item_unfolding_segments(trace, opts, geometry, holes),
                   item_result_segment(trace, opts, geometry, holes), look)

    def looks(self, segments: Sequence[Segment] | None = None) -> dict[HoleState, Look]:
        chosen = [*self.folding, *self.unfolding, self.result] if segments is None else segments
        if self.look is None:
            return segment_looks(chosen, self.cuts, self.opts)
        return painted_looks(chosen, self.cuts, self.opts, self.look, self.trace)

    def renderer(self, segments: Sequence[Segment]) -> SheetRenderer:
        """The renderer of these segments (not entered): the fast one, with the painted fragment
        shader in a family look (`looks` are then RGBA paint textures)."""
        fragment = shaders.FRAGMENT if self.look is None else shaders.PAINTED_FRAGMENT
        return sheet_renderer(segments, self.opts, fragment=fragment)

    def frames(self, segments: Sequence[Segment]) -> Iterator[np.ndarray]:
        looks = self.looks(segments)
        with self.renderer(segments) as renderer:
            yield from draw_segments(renderer, segments, looks)

    def result_with(self, renderer: SheetRenderer, looks: dict[HoleState, Look]) -> Image.Image:
        """The result frame from straight above (no labels: a general sheet has no grid ids)."""
        renderer.look_at(top_view(self.opts))
        try:
            [frame] = draw_segments(renderer, [self.result], looks)
        finally:
            renderer.look_at(self.opts)
        return Image.fromarray(frame)


def item_folding_frames(item, opts: AnimationOptions = AnimationOptions(), *,
                        look: FamilyLook | None = None) -> Iterator[np.ndarray]:
    """Frames of a general item's folding video: (the flat sheet,) each action, the punch."""
    media = ItemMedia.of(item, opts, look)
    return media.frames(media.folding)


def item_unfolding_frames(item, opts: AnimationOptions = AnimationOptions(), *,
                          look: FamilyLook | None = None) -> Iterator[np.ndarray]:
    """Frames of a general item's unfolding video: the punched sheet, each fold undone, the result."""
    media = ItemMedia.of(item, opts, look)
    return media.frames(media.unfolding)


def render_item_frame(item, step: int, s: float, opts: AnimationOptions = AnimationOptions(), *,
                      punched: bool = False, look: FamilyLook | None = None) -> np.ndarray:
    """One folding frame of a general item: action `step` (0-based) at progress s in [0, 1], caption
    included; `punched`: with every hole cut (as the unfolding video shows it, in the folding frame)."""
    media = ItemMedia.of(item, opts, look)
    actions = media.folding[-len(media.trace.item.actions) - 1:-1]
    segment = replace(actions[step], progress=np.array([s], float), hole_scale=np.full(1, float(punched)),
                      holes_open=None)
    [frame] = media.frames([segment])
    return frame


def item_result_image(item, opts: AnimationOptions = AnimationOptions(), *,
                      look: FamilyLook | None = None) -> Image.Image:
    """The opened sheet with its holes, from straight above."""
    media = ItemMedia.of(item, opts, look)
    looks = media.looks([media.result])
    with media.renderer([media.result]) as renderer:
        return media.result_with(renderer, looks)


def item_id(item: SheetItem | ItemTrace) -> str:
    trace_or_item = item.item if isinstance(item, ItemTrace) else item
    return trace_or_item.id or "item"


def write_item_media(item, out_dir: str | Path, opts: AnimationOptions = AnimationOptions(), *,
                     item_name: str | None = None, video: bool = True, frames: bool = False,
                     look: FamilyLook | None = None) -> dict[str, Path]:
    """A general item's folding and unfolding animations as MP4s (`video`) and/or frame folders
    (`frames`), and its result image, at MentalBlackboard's places (`animation.video_paths`: e.g.
    folding_videos/PF_<id>_animation.mp4), every file atomically; `look`: in a family's look.
    InputError (naming the item) for an item that cannot be drawn."""
    media = ItemMedia.of(item, opts, look)
    looks = media.looks()
    name = item_name or item_id(media.trace)
    return write_segment_media(video_paths(out_dir, name), media.folding, media.unfolding, looks, media.opts,
                               lambda renderer: media.result_with(renderer, looks), video=video, frames=frames,
                               renderer=media.renderer(media.folding))


def render_item_video(item, out_dir: str | Path, opts: AnimationOptions = AnimationOptions(), *,
                      item_name: str | None = None, look: FamilyLook | None = None) -> dict[str, Path]:
    """`write_item_media` with the MP4s: the folding and unfolding videos and the result PNG."""
    return write_item_media(item, out_dir, opts, item_name=item_name, video=True, look=look)


__all__ = ["ItemMedia", "LOOK_CHOICES", "after", "item_folding_frames", "item_folding_segments",
           "item_geometry", "item_result_image", "item_trace", "item_unfolding_frames", "item_unfolding_segments",
           "look_of", "render_item_frame", "render_item_video", "view_transforms", "write_item_media"]
