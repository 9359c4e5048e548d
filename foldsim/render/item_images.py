"""2-D step images of general items (`foldsim.sheets.SheetItem`), drawn with Pillow in the style of
render/images.py (supersampled, box-filtered down, deterministic bytes).

One PNG per state, from the engine's history (`foldsim.engine.trace_item`):

- `<id>_step_<k>.png` (k = 0 .. n-1): the paper after k actions, seen from the viewer: every layer
  painted bottom to top (paper, its grid lines, its outline), so a flap covers what lies under it
  and its edges show; the next action marked on it: a fold's crease as a dashed line (dash-dot for
  a fold away from the viewer) over the paper it folds, and an arrow from the moving side to where
  it lands (solid head: toward the viewer; open head: away); a rotation as a turning arrow, a flip
  as a double arrow;
- `<id>_punching.png`: the folded paper with every punch's outline at its point;
- `<id>_result.png`: the opened sheet seen through the item's rotations and flips, with every hole
  where the punch cut it (a punch on a crease: one hole across it).

All images of an item share one scale and frame, so states can be compared side by side.

Looks: by default (`look=None`) white paper, grey grid lines, a black outline, red marks and green
holes of the punch's shape. In a benchmark family's look (`look_of`, from `FAMILY_LOOKS`, the table
the family composites and render/items.py's 3-D frames read; `foldsim render-item --look`) the step
images take the family's paper, background, grid (or none), outline and mark colours, marks sized to
the sheet (`family_unit`), and every hole a filled circle of the family's size and colour.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine import ItemTrace
from ..errors import InputError
from ..io import safe_file_name
from ..kernels import motion as M
from ..sheets import Fold, Rotate, SheetItem
from .images import Frame, ImageStyle, _canvas, _finish, _font, image_dir, write_named_images
from .item_geometry import after, crease_pieces, item_cuts, item_trace, placed_lattice, view_transforms
from .shapes import Cut

#: the items' images: square, no legend
ITEM_STYLE = ImageStyle(width=480, height=480)
MARK = (200, 30, 30)  # fold lines and arrows
OUTLINE = (0, 0, 0)
GRID = (170, 170, 170)
MARGIN = 0.7  # cells around the paper (room for the arrows)
DASH = 0.18  # cells: a dash and a gap of the fold line


# -- geometry ---------------------------------------------------------------------------------------


def grid_edges(trace: ItemTrace) -> np.ndarray:
    """bool[T, 3]: edge (v_i, v_(i+1)) of each flat triangle lies on a cell line of the sheet."""
    flat = np.asarray(trace.mesh, np.int64)  # lattice: a cell line is X = 2r x - r cols with x whole
    r, cols, rows = trace.resolution, trace.item.sheet.cols, trace.item.sheet.rows
    nxt = np.roll(flat, -1, axis=1)
    on_x = (flat[..., 0] == nxt[..., 0]) & ((flat[..., 0] + r * cols) % (2 * r) == 0)
    on_y = (flat[..., 1] == nxt[..., 1]) & ((flat[..., 1] + r * rows) % (2 * r) == 0)
    return on_x | on_y


def boundary_edges(vertices: np.ndarray) -> np.ndarray:
    """int64[E, 2, 2]: the edges of lattice triangles int64[T, 3, 2] that belong to one of them only
    (the outline of a set of triangles that do not overlap)."""
    a, b = vertices, np.roll(vertices, -1, axis=1)
    edges = np.stack([a, b], axis=2).reshape(-1, 2, 2)
    first = (edges[:, 0, 0] < edges[:, 1, 0]) | ((edges[:, 0, 0] == edges[:, 1, 0]) & (edges[:, 0, 1] <= edges[:, 1, 1]))
    key = np.where(first[:, None, None], edges, edges[:, ::-1])
    unique, counts = np.unique(key.reshape(-1, 4), axis=0, return_counts=True)
    return unique[counts == 1].reshape(-1, 2, 2)


def item_frame(trace: ItemTrace, style: ImageStyle, unit: float = 1.0) -> Frame:
    """One frame for every image of the item: the paper of every state and the opened sheet
    (centred cell units) fitted, MARGIN cells around (times `unit`: the marks' size in cells)."""
    points = [placed_lattice(trace, k).reshape(-1, 2) / (2.0 * trace.resolution)
              for k in range(len(trace.item.actions) + 1)]
    view = after(view_transforms(trace), -1)[:2, :2]
    points.append(M.flat_triangles(trace).reshape(-1, 2) @ view.T)
    everything = np.concatenate(points)
    low, high = everything.min(0) - MARGIN * unit, everything.max(0) + MARGIN * unit
    width, height = style.width * style.supersample, style.height * style.supersample
    scale = min(width / (high[0] - low[0]), height / (high[1] - low[1]))
    middle = (low + high) / 2
    return Frame(scale, width / 2 - scale * middle[0], height / 2 + scale * middle[1])


# -- drawing ----------------------------------------------------------------------------------------


def _width(style: ImageStyle, pixels: float) -> int:
    return max(1, round(pixels * style.supersample))


def draw_segment(draw: ImageDraw.ImageDraw, frame: Frame, ends: np.ndarray, colour, width: int) -> None:
    """A line with round ends (joins of consecutive edges stay closed)."""
    (x0, y0), (x1, y1) = frame.pixels(ends)
    draw.line([(x0, y0), (x1, y1)], fill=colour, width=width)
    radius = width / 2
    for x, y in ((x0, y0), (x1, y1)):
        draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=colour)


def draw_paper(draw: ImageDraw.ImageDraw, frame: Frame, trace: ItemTrace, k: int, style: ImageStyle,
               view: np.ndarray | None = None, grid_lines: bool = True, grid_colour=GRID, outline=OUTLINE) -> None:
    """The paper after k actions, layer by layer from the bottom: paper, grid lines (`grid_lines`),
    outline. `view` (float[2, 2]) maps the drawing (the result: the flat sheet seen through the view)."""
    lattice = placed_lattice(trace, k)
    two_r = 2.0 * trace.resolution
    linear = np.eye(2) if view is None else view
    layer = np.asarray(trace.states.layer[k])
    grid = grid_edges(trace)
    for level in np.unique(layer):
        mine = layer == level
        triangles = lattice[mine] / two_r @ linear.T
        for triangle in triangles:
            draw.polygon(frame.pixels(triangle), fill=style.paper)
        nxt = np.roll(triangles, -1, axis=1)
        for triangle, following, flags in zip(triangles, nxt, grid[mine]):
            for i in np.flatnonzero(flags) if grid_lines else ():
                draw_segment(draw, frame, np.stack([triangle[i], following[i]]), grid_colour, _width(style, 1.0))
        for edge in boundary_edges(lattice[mine]):
            draw_segment(draw, frame, edge / two_r @ linear.T, outline, _width(style, 2.0))


def draw_dashed(draw: ImageDraw.ImageDraw, frame: Frame, ends: np.ndarray, colour, width: int,
                pattern: tuple[float, ...]) -> None:
    """A dashed line along `ends` float[2, 2] (sheet units); `pattern`: dash, gap, dash, gap ..."""
    start, stop = ends
    length = float(np.linalg.norm(stop - start))
    if length == 0:
        return
    unit = (stop - start) / length
    position, index = 0.0, 0
    while position < length:
        step = pattern[index % len(pattern)]
        if index % 2 == 0:
            draw_segment(draw, frame, np.stack([start + unit * position, start + unit * min(length, position + step)]),
                     colour, width)
        position += step
        index += 1


def _arrow_head(draw: ImageDraw.ImageDraw, frame: Frame, tip: np.ndarray, direction: np.ndarray, size: float,
                filled: bool, width: int, colour=MARK) -> None:
    direction = direction / max(np.linalg.norm(direction), 1e-9)
    side = np.array([-direction[1], direction[0]])
    corners = np.stack([tip, tip - size * direction + 0.5 * size * side, tip - size * direction - 0.5 * size * side])
    if filled:
        draw.polygon(frame.pixels(corners), fill=colour)
    else:
        draw.polygon(frame.pixels(corners), outline=colour, width=width)


def _curve(start: np.ndarray, stop: np.ndarray, bulge: np.ndarray, points: int = 24) -> np.ndarray:
    """A quadratic Bezier curve from start to stop through the control point mid + bulge."""
    control = (start + stop) / 2 + bulge
    t = np.linspace(0, 1, points)[:, None]
    return (1 - t) ** 2 * start + 2 * (1 - t) * t * control + t ** 2 * stop


def draw_fold_mark(draw: ImageDraw.ImageDraw, frame: Frame, trace: ItemTrace, k: int, style: ImageStyle,
                   unit: float = 1.0, colour=MARK) -> None:
    """Fold k on the paper before it: its crease dashed (dash-dot away from the viewer), an arrow from
    the moving paper's centre across the crease to where it lands. `unit`: the marks' size in cells
    (dashes, arrow length and head; 1 for cell-sized sheets, less for a small sheet)."""
    action = trace.item.actions[k]
    pieces = crease_pieces(trace, k)
    width = _width(style, 2.5)
    dash = DASH * unit
    pattern = (dash, dash * 0.7) if action.front else (dash, dash * 0.5, dash * 0.25, dash * 0.5)
    for ends in [] if pieces is None else pieces:
        draw_dashed(draw, frame, ends, colour, width, pattern)
    moving = placed_lattice(trace, k)[np.asarray(trace.steps.moving[k], bool)] / (2.0 * trace.resolution)
    if not len(moving) or pieces is None:
        return
    u, v = moving[:, 1] - moving[:, 0], moving[:, 2] - moving[:, 0]
    areas = np.abs(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0])
    centroid = (moving.mean(1) * areas[:, None]).sum(0) / areas.sum()
    a, b = pieces.reshape(-1, 2)[0], pieces.reshape(-1, 2)[-1]
    along = (b - a) / max(np.linalg.norm(b - a), 1e-9)
    foot = a + along * ((centroid - a) @ along)
    span = centroid - foot
    reach = min(np.linalg.norm(span), 1.2 * unit)  # long flaps: an arrow of at most 1.2 cells each side
    if reach < 1e-9:
        return
    span = span / np.linalg.norm(span) * reach
    start, stop = foot + span, foot - span
    curve = _curve(start, stop, along * 0.45 * reach)
    head = 0.3 * unit
    body = curve[: -2]
    if action.front:
        draw.line(frame.pixels(body), fill=colour, width=width, joint="curve")
    else:
        for i in range(0, len(body) - 1, 2):
            draw.line(frame.pixels(body[i:i + 2]), fill=colour, width=width)
    _arrow_head(draw, frame, curve[-1], curve[-1] - curve[-3], head, action.front, width, colour)


def draw_turn_mark(draw: ImageDraw.ImageDraw, frame: Frame, trace: ItemTrace, k: int, style: ImageStyle,
                   colour=MARK) -> None:
    """A rotation: an arc turning counter-clockwise about the sheet's centre, with its angle; a
    flip: a double arrow across the vertical centre line, with "flip"."""
    action = trace.item.actions[k]
    points = placed_lattice(trace, k).reshape(-1, 2) / (2.0 * trace.resolution)
    radius = 0.5 * max(np.abs(points).max(), 0.5) + 0.3
    width = _width(style, 2.5)
    font = _font(style, style.font_size)
    if isinstance(action, Rotate):
        angles = np.linspace(np.radians(-30), np.radians(-30 + 60 + 30 * action.quarters), 32)
        arc = radius * np.stack([np.cos(angles), np.sin(angles)], 1)
        draw.line(frame.pixels(arc[:-1]), fill=colour, width=width, joint="curve")
        _arrow_head(draw, frame, arc[-1], arc[-1] - arc[-3], 0.3, True, width, colour)
        middle = angles[len(angles) // 2]
        [anchor] = frame.pixels((radius + 0.35) * np.array([np.cos(middle), np.sin(middle)]))
        draw.text(anchor, f"{90 * action.quarters}\N{DEGREE SIGN}", fill=colour, font=font, anchor="mm",
                  stroke_width=_width(style, 2), stroke_fill=style.background)
    else:
        ends = np.array([[-radius, 0.0], [radius, 0.0]])
        draw_segment(draw, frame, ends * 0.92, colour, width)
        for tip, back in ((ends[1], ends[0]), (ends[0], ends[1])):
            _arrow_head(draw, frame, tip, tip - back, 0.3, True, width, colour)
        [anchor] = frame.pixels(np.array([0.0, 0.35]))
        draw.text(anchor, "flip", fill=colour, font=font, anchor="mm", stroke_width=_width(style, 2),
                  stroke_fill=style.background)


def _fill_polygons(draw: ImageDraw.ImageDraw, frame: Frame, polygons, colour) -> None:
    for polygon in polygons:
        draw.polygon(frame.pixels(polygon), fill=colour)


# -- images -----------------------------------------------------------------------------------------


def _cuts(trace: ItemTrace, look: FamilyLook | None, folded: bool = False) -> list[Cut]:
    """The punches' cuts: each punch's own outline, or (a family look) a circle of the look's size."""
    sheet = trace.item.sheet
    return item_cuts(trace, folded=folded, radius=None if look is None else look.radius(sheet.cols, sheet.rows))


def state_image(trace: ItemTrace, k: int, style: ImageStyle = ITEM_STYLE, *, mark: bool = True,
                punches: bool = False, look: FamilyLook | None = None) -> Image.Image:
    """The paper after k actions; `mark`: with action k (the next one) marked on it; `punches`: with
    every punch's outline at its point; `look`: in a family's look (`style` in its colours)."""
    style, unit, colour = style_in_look(style, look), _unit(trace, look), MARK if look is None else look.mark
    image, draw = _canvas(style)
    frame = item_frame(trace, style, unit)
    draw_paper(draw, frame, trace, k, style, **_paper_lines(look))
    if mark and k < len(trace.item.actions):
        if isinstance(trace.item.actions[k], Fold):
            draw_fold_mark(draw, frame, trace, k, style, unit, colour)
        else:
            draw_turn_mark(draw, frame, trace, k, style, colour)
    if punches:  # what each punch cuts out of the folded paper
        for cut in _cuts(trace, look, folded=True):
            _fill_polygons(draw, frame, cut.polygons, style.hole)
    return _finish(image, style)


def result_image(trace: ItemTrace, style: ImageStyle = ITEM_STYLE, *, look: FamilyLook | None = None) -> Image.Image:
    """The opened sheet seen through the item's rotations and flips, every hole where it was cut;
    `look`: in a family's look."""
    style = style_in_look(style, look)
    image, draw = _canvas(style)
    frame = item_frame(trace, style, _unit(trace, look))
    view = after(view_transforms(trace), -1)[:2, :2]
    draw_paper(draw, frame, trace, 0, style, view, **_paper_lines(look))
    for cut in _cuts(trace, look):
        _fill_polygons(draw, frame, [polygon @ view.T for polygon in cut.polygons], style.hole)
    return _finish(image, style)


def item_step_images(item: SheetItem | ItemTrace | dict, style: ImageStyle = ITEM_STYLE,
                     item_name: str | None = None, *, look: FamilyLook | None = None) -> list[tuple[str, Image.Image]]:
    """(file name, image): every state with the next action marked, the punching, the result, in
    `look` (None: the default look). InputError (naming the item) for an item that cannot be drawn."""
    trace = item_trace(item)
    name = item_name or trace.item.id or "item"
    return _step_images(trace, name, style, look)


def _step_images(trace: ItemTrace, name: str, style: ImageStyle,
                 look: FamilyLook | None = None) -> list[tuple[str, Image.Image]]:
    n = len(trace.item.actions)
    images = [(f"{name}_step_{k}.png", state_image(trace, k, style, look=look)) for k in range(n)]
    images.append((f"{name}_punching.png", state_image(trace, n, style, mark=False, punches=True, look=look)))
    images.append((f"{name}_result.png", result_image(trace, style, look=look)))
    return images


def write_item_images(item: SheetItem | ItemTrace | dict, out_dir: str | Path, style: ImageStyle = ITEM_STYLE,
                      item_name: str | None = None, *, look: FamilyLook | None = None) -> list[Path]:
    """Write a general item's step images under `out_dir` as MentalBlackboard's are
    (`<out>/img_text_outputs/<id>/img/`), atomically; `look`: in a family's look (`look_of`)."""
    trace = item_trace(item)
    name = safe_file_name(item_name or trace.item.id or "item")  # file names: never a path out of `out_dir`
    return write_named_images(image_dir(out_dir, name), _step_images(trace, name, style, look))


# -- benchmark families: composites in each family's look ------------------------------------------


@dataclass(frozen=True)
class FamilyLook:
    """How a benchmark family draws its sheets, in its 2-D composites and its 3-D frames alike
    (render/items.py reads this table too, so the two never drift apart): grid paper or a plain
    sheet, holes as filled circles of `radius()` cells in `hole_colour`, the paper, its lines and
    the fold marks' colours, the background; the composite's tile size. `back`, `text` and the
    line widths are the 3-D frames' only (a 2-D panel shows no back face and draws its lines in
    pixels)."""

    grid: bool = True
    hole_colour: tuple[int, int, int] = (0, 0, 0)
    hole_radius: float = 0.28  # cell units on a grid; a fraction of the shorter side on a plain sheet
    tile: int = 240  # pixels of one panel
    label_size: float = 16.0
    paper: tuple[int, int, int] = (255, 255, 255)
    background: tuple[int, int, int] = (255, 255, 255)
    grid_colour: tuple[int, int, int] = GRID
    outline: tuple[int, int, int] = OUTLINE
    mark: tuple[int, int, int] = MARK  # fold marks: the dashed line and arrow; the 3-D crease
    back: tuple[int, int, int] = (226, 230, 236)  # 3-D: the paper's back, so a turned flap reads
    text: tuple[int, int, int] = (40, 40, 40)  # 3-D: captions
    grid_width: float = 0.03  # 3-D: line widths in the marks' unit (`family_unit`)
    outline_width: float = 0.05

    def radius(self, cols: int, rows: int) -> float:
        """The holes' radius in cell units on a cols x rows sheet: a grid family sizes them to its
        cells, a plain sheet to its shorter side."""
        return self.hole_radius if self.grid else self.hole_radius * min(cols, rows)


#: the family looks (docs/families.md): SpatialViz grid paper with black circles, VisFactor a plain
#: square with the fold drawn dashed with an arrow and small round holes, SRBench a plain outline
FAMILY_LOOKS = {
    "spatialviz": FamilyLook(grid=True, hole_radius=0.3),
    "visfactor": FamilyLook(grid=False, hole_radius=0.05),
    "srbench": FamilyLook(grid=False, hole_radius=0.035),
}

#: `--look`: "family" (the record's family's look; the default look for a record of no family or of a
#: family without one, such as MentalBlackboard), "default" (the renderer's own), or a family's name
LOOK_CHOICES = ("family", "default", *FAMILY_LOOKS)


def look_of(record: object, choice: str = "family") -> FamilyLook | None:
    """The look a record is drawn in, 2-D and 3-D alike (None: the default look); InputError for an
    unknown choice."""
    if choice == "default":
        return None
    if choice == "family":
        family = record.get("family") if isinstance(record, Mapping) else None
        return FAMILY_LOOKS.get(family) if isinstance(family, str) else None
    if choice in FAMILY_LOOKS:
        return FAMILY_LOOKS[choice]
    raise InputError(f"must be one of {', '.join(LOOK_CHOICES)}, got {choice!r}", field="--look")


def style_in_look(style: ImageStyle, look: FamilyLook | None) -> ImageStyle:
    """`style` in a family's colours: paper, background, holes (None: `style` itself)."""
    return style if look is None else replace(style, hole=look.hole_colour, paper=look.paper,
                                               background=look.background)


def _paper_lines(look: FamilyLook | None) -> dict:
    """`draw_paper`'s line options in a family's look: grid lines or none, their colour, the outline's."""
    return {} if look is None else {"grid_lines": look.grid, "grid_colour": look.grid_colour, "outline": look.outline}


def _unit(trace: ItemTrace, look: FamilyLook | None) -> float:
    """The marks' size in cells: 1 in the default look, `family_unit` in a family's."""
    return 1.0 if look is None else family_unit(trace)


def _points(holes, cols: int, rows: int) -> np.ndarray:
    """Centred cell units of holes or punches (objects with exact x, y in sheet cell units)."""
    return np.array([[float(h.x) - cols / 2, float(h.y) - rows / 2] for h in holes], float).reshape(-1, 2)


def _circles(draw: ImageDraw.ImageDraw, frame: Frame, centres: np.ndarray, radius: float, colour) -> None:
    r = radius * frame.scale
    for x, y in frame.pixels(centres) if len(centres) else []:
        draw.ellipse([x - r, y - r, x + r, y + r], fill=colour)


def family_panel(trace: ItemTrace, k: int, look: FamilyLook, style: ImageStyle, *, holes=None,
                 punches: bool = False) -> Image.Image:
    """One panel of a family composite: the paper after k actions with action k marked (k < number
    of actions), or the folded paper with its punches (`punches`), or the flat sheet with `holes`
    (PointHoles in sheet cell units; the families have no rotations or flips)."""
    image, draw = _canvas(style)
    sheet = trace.item.sheet
    unit = family_unit(trace)
    frame = item_frame(trace, style, unit)
    n = len(trace.item.actions)
    radius = look.radius(sheet.cols, sheet.rows)
    lines = _paper_lines(look)
    if holes is not None:
        draw_paper(draw, frame, trace, 0, style, **lines)
        _circles(draw, frame, _points(holes, sheet.cols, sheet.rows), radius, look.hole_colour)
    else:
        draw_paper(draw, frame, trace, k, style, **lines)
        if k < n:
            draw_fold_mark(draw, frame, trace, k, style, unit, look.mark)
        if punches:
            _circles(draw, frame, _points(trace.item.punches, sheet.cols, sheet.rows), radius, look.hole_colour)
    return _finish(image, style)


def family_unit(trace: ItemTrace) -> float:
    """The marks' size on a family's sheet: a cell on grids of 4 cells a side or more, a quarter of
    the longer side on smaller sheets (SRBench's 1 x 1 square, VisFactor's 3 x 3)."""
    return min(1.0, max(trace.item.sheet.cols, trace.item.sheet.rows) / 4)


def _tiles(look: FamilyLook) -> ImageStyle:
    return style_in_look(ImageStyle(width=look.tile, height=look.tile), look)


def family_step_panels(trace: ItemTrace, look: FamilyLook) -> list[Image.Image]:
    """The top row: every fold marked on the paper before it, then the folded paper punched."""
    style = _tiles(look)
    n = len(trace.item.actions)
    return [family_panel(trace, k, look, style) for k in range(n)] + [family_panel(trace, n, look, style, punches=True)]


def family_option_panel(trace: ItemTrace, holes, look: FamilyLook) -> Image.Image:
    return family_panel(trace, 0, look, _tiles(look), holes=holes)


def family_composite(trace: ItemTrace, options: list[tuple[str, object]], look: FamilyLook,
                     steps: list[Image.Image] | None = None) -> Image.Image:
    """The family's question image: the fold steps and the punched paper in the top row, the options
    (label, PointHoles) below, each labelled; no options: the top row alone."""
    steps = steps if steps is not None else family_step_panels(trace, look)
    tile, gap, label = look.tile, 12, round(look.label_size * 1.8)
    columns = max(len(steps), len(options), 1)
    rows = 2 if options else 1
    width = columns * tile + (columns + 1) * gap
    height = rows * (tile + label) + (rows + 1) * gap
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    font = ImageFont.load_default(size=round(look.label_size))
    for i, panel in enumerate(steps):
        x = gap + i * (tile + gap)
        canvas.paste(panel, (x, gap))
        draw.text((x + tile / 2, gap + tile + label / 2), f"{i + 1}" if i < len(steps) - 1 else "punch",
                  fill=(90, 90, 90), font=font, anchor="mm")
    top = gap * 2 + tile + label
    for i, (name, holes) in enumerate(options):
        x = gap + i * (tile + gap)
        canvas.paste(family_option_panel(trace, holes, look), (x, top))
        draw.rectangle([x, top, x + tile - 1, top + tile - 1], outline=(200, 200, 200))
        draw.text((x + tile / 2, top + tile + label / 2), name, fill=(0, 0, 0), font=font, anchor="mm")
    return canvas


__all__ = ["FAMILY_LOOKS", "LOOK_CHOICES", "FamilyLook", "family_composite", "family_option_panel", "family_step_panels",
           "item_step_images", "look_of", "result_image", "state_image", "style_in_look", "write_item_images"]
