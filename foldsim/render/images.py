"""The benchmark's abstract 2-D step images (formats §5), drawn with Pillow, and the numbered sheet.

One PNG per state: the initial sheet, the sheet after every action (rotations included), the
punching (final folded mask plus the initial holes) and the result (unfolded sheet plus the result
holes). The folded region is black, remaining paper white, triangle edges thin gray, holes green,
with a legend on the right. Unlike the reference, every hole (squares and rectangles too) is centred
on its triangle. Drawing happens at `supersample` times the size and is box-filtered down, which
antialiases edges while keeping flat regions exactly their colour; the output is deterministic.

The triangles come from the `foldsim.mesh.TriangleSheet` the caller passes (`sheet=`: the one the
trace was folded on, e.g. MentalBlackboard's `SHEET`); the step images' layout (`VIEW_*`, the
legend) is the reference's, made for a sheet 4 units wide.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..codes import entry_of_code
from ..holes import Hole
from ..io import atomic_write_bytes, safe_file_name
from ..mesh import TriangleSheet
from ..trace import Trace
from .shapes import hole_polygons
from .text import require_ok

Colour = tuple[int, int, int]


@dataclass(frozen=True)
class ImageStyle:
    """Size and colours of the step images (defaults: the reference's 900x750 and palette)."""

    width: int = 900
    height: int = 750
    supersample: int = 3  # drawn this many times larger, then box-filtered down (antialiasing)
    folded: Colour = (0, 0, 0)
    paper: Colour = (255, 255, 255)
    edge: Colour = (128, 128, 128)
    hole: Colour = (0, 128, 0)
    background: Colour = (255, 255, 255)
    text: Colour = (0, 0, 0)
    edge_width: float = 1.5  # output pixels
    font_size: float = 18.0  # output pixels


@dataclass(frozen=True)
class Frame:
    """Sheet units (y up) -> pixels of the supersampled canvas (y down), one scale on both axes."""

    scale: float
    x_origin: float  # pixel x of sheet x = 0
    y_origin: float  # pixel y of sheet y = 0

    def pixels(self, points: np.ndarray) -> list[tuple[float, float]]:
        """Pixel positions of sheet-unit points float[N, 2] (or one point float[2])."""
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        return list(zip((self.x_origin + self.scale * pts[:, 0]).tolist(), (self.y_origin - self.scale * pts[:, 1]).tolist()))


# The reference's data area: x in [0, 6], y in [0, 4.5] cell units, y down, sheet at [0, 4]^2.
# In sheet units (centred, y up) that is x in [-2, 4], y in [-2.5, 2].
VIEW_X, VIEW_Y, VIEW_W, VIEW_H, VIEW_MARGIN = -2.0, 2.0, 6.0, 4.5, 0.25
LEGEND_X, LEGEND_Y, LEGEND_STEP, LEGEND_ICON = 2.5, 1.5, 0.5, 0.3  # icon corner, first row, spacing, size
LEGEND_BOTTOM = VIEW_Y - VIEW_H + 0.1  # rows shrink their spacing to stay above this


def _frame(style: ImageStyle) -> Frame:
    width, height = style.width * style.supersample, style.height * style.supersample
    scale = min(width / (VIEW_W + 2 * VIEW_MARGIN), height / (VIEW_H + 2 * VIEW_MARGIN))
    x_origin = (width - VIEW_W * scale) / 2 - VIEW_X * scale
    y_origin = (height - VIEW_H * scale) / 2 + VIEW_Y * scale
    return Frame(scale, x_origin, y_origin)


def pixel_of(point, style: ImageStyle = ImageStyle()) -> tuple[float, float]:
    """Output-image pixel (x, y) of a point in sheet units, e.g. a triangle centroid."""
    [(x, y)] = _frame(style).pixels(np.asarray(point, dtype=float))
    return x / style.supersample, y / style.supersample


def _canvas(style: ImageStyle) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    size = (style.width * style.supersample, style.height * style.supersample)
    image = Image.new("RGB", size, style.background)
    return image, ImageDraw.Draw(image)


def _font(style: ImageStyle, pixels: float) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font, so output does not depend on the fonts a machine has installed."""
    return ImageFont.load_default(size=max(1, round(pixels * style.supersample)))


def _finish(image: Image.Image, style: ImageStyle) -> Image.Image:
    return image.resize((style.width, style.height), Image.Resampling.BOX) if style.supersample > 1 else image


def _draw_sheet(draw: ImageDraw.ImageDraw, frame: Frame, paper: np.ndarray, style: ImageStyle,
                sheet: TriangleSheet) -> None:
    """The sheet's triangles, black where folded away and white where paper remains, gray edges on top."""
    for t, triangle in enumerate(sheet.triangles):
        draw.polygon(frame.pixels(triangle), fill=style.paper if paper[t] else style.folded)
    width = max(1, round(style.edge_width * style.supersample))
    for triangle in sheet.triangles:
        draw.polygon(frame.pixels(triangle), outline=style.edge, width=width)


def _draw_hole(draw: ImageDraw.ImageDraw, frame: Frame, shape: str, size: str, quarter: int, centre, colour: Colour) -> None:
    for polygon in hole_polygons(shape, size, quarter, centre):
        draw.polygon(frame.pixels(polygon), fill=colour)


def _draw_holes(draw: ImageDraw.ImageDraw, frame: Frame, holes: tuple[Hole, ...], style: ImageStyle,
                sheet: TriangleSheet) -> None:
    """Each hole centred on its triangle, turned by its direction (drawn as the reference does: the
    `mirrored` extension is not shown)."""
    for hole in holes:
        _draw_hole(draw, frame, hole.shape, hole.size, hole.quarter, sheet.centroids[hole.location - 1], style.hole)


def _legend_rows(holes: tuple[Hole, ...]) -> list[tuple[str, str]]:
    """(icon, label) rows: the two region swatches, then one "Punched hole" row per hole shape in
    order of first appearance."""
    shapes = list(dict.fromkeys(h.shape for h in holes))
    return [("folded", "Folded region"), ("paper", "Remaining paper"), *((s, "Punched hole") for s in shapes)]


def _draw_legend(draw: ImageDraw.ImageDraw, frame: Frame, holes: tuple[Hole, ...], style: ImageStyle) -> None:
    font = _font(style, style.font_size)
    edge = max(1, round(style.edge_width * style.supersample))
    rows = _legend_rows(holes)
    spacing = min(LEGEND_STEP, (LEGEND_Y - LEGEND_BOTTOM) / len(rows))
    for row, (icon, label) in enumerate(rows):
        top = LEGEND_Y - row * spacing
        centre = (LEGEND_X + LEGEND_ICON / 2, top - LEGEND_ICON / 2)
        if icon in ("folded", "paper"):
            swatch = np.array([[LEGEND_X, top], [LEGEND_X, top - LEGEND_ICON], [LEGEND_X + LEGEND_ICON, top - LEGEND_ICON]])
            fill = style.folded if icon == "folded" else style.paper
            draw.polygon(frame.pixels(swatch), fill=fill, outline=style.edge, width=edge)
        else:
            _draw_hole(draw, frame, icon, "large", 0, centre, style.hole)
        [anchor] = frame.pixels(np.array([LEGEND_X + LEGEND_ICON + 0.15, centre[1]]))
        draw.text(anchor, label, fill=style.text, font=font, anchor="lm")


def state_image(paper: np.ndarray, holes: tuple[Hole, ...] = (), style: ImageStyle = ImageStyle(), *,
                sheet: TriangleSheet) -> Image.Image:
    """One step image: `sheet` with `paper` (bool[T] by triangle) and `holes` drawn on it."""
    image, draw = _canvas(style)
    frame = _frame(style)
    _draw_sheet(draw, frame, np.asarray(paper, dtype=bool), style, sheet)
    _draw_holes(draw, frame, holes, style, sheet)
    _draw_legend(draw, frame, holes, style)
    return _finish(image, style)


def step_image_names(trace: Trace, item_id: str) -> list[str]:
    """The reference's file names, in order: initial, one per action (JSON foldType name, rotations
    `rotation-90`...), punching, result."""
    actions = [f"{item_id}_fold_{k}_{entry_of_code(step.code)['foldType']}.png" for k, step in enumerate(trace.steps, 1)]
    return [f"{item_id}_fold_0_initial.png", *actions, f"{item_id}_punching_holes.png", f"{item_id}_result_holes.png"]


def step_images(trace: Trace, item_id: str | None = None, style: ImageStyle = ImageStyle(), *,
                sheet: TriangleSheet) -> list[tuple[str, Image.Image]]:
    """(file name, image) for the initial sheet, every action, the punching and the result;
    `sheet`: the flat sheet `trace` was folded on.

    Raises InputError for an item the simulator did not answer (see `render.text.require_ok`).
    """
    require_ok(trace)
    item_id = item_id or trace.config.id or "item"
    n = len(trace.steps)
    everywhere = sheet.everywhere()
    images = [state_image(everywhere, (), style, sheet=sheet)]
    images += [state_image(trace.paper(k), (), style, sheet=sheet) for k in range(1, n + 1)]
    images.append(state_image(trace.paper(n), trace.config.holes, style, sheet=sheet))
    images.append(state_image(everywhere, trace.result.holes, style, sheet=sheet))
    return list(zip(step_image_names(trace, item_id), images))


def png_bytes(image: Image.Image) -> bytes:
    """PNG encoding (Pillow writes no timestamp, so equal images give equal bytes)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def image_dir(out_dir: str | Path, item_id: str) -> Path:
    """Where the benchmark keeps an item's images: `<out>/img_text_outputs/<id>/img` (the id through
    `foldsim.io.safe_file_name`, a no-op for the benchmark's ids: no folder leaves `out_dir`)."""
    return Path(out_dir) / "img_text_outputs" / safe_file_name(item_id) / "img"


def write_images(trace: Trace, out_dir: str | Path, item_id: str, style: ImageStyle = ImageStyle(), *,
                 sheet: TriangleSheet) -> list[Path]:
    """Write every step image of one item under the dataset root `out_dir`, atomically."""
    return write_named_images(image_dir(out_dir, item_id), step_images(trace, item_id, style, sheet=sheet))


def write_named_images(folder: Path, images) -> list[Path]:
    """Write (file name, image) pairs into `folder` as PNGs, each atomically; their paths."""
    paths = []
    for name, image in images:
        atomic_write_bytes(folder / name, png_bytes(image))
        paths.append(folder / name)
    return paths


def _square_frame(sheet: TriangleSheet, pixels: int) -> Frame:
    """The sheet centred in a square canvas `pixels` wide, its longer side filling it but a margin."""
    scale = pixels / (max(sheet.cols, sheet.rows) + 2 * VIEW_MARGIN)
    return Frame(scale, pixels / 2, pixels / 2)


def sheet_image(paper: np.ndarray, holes: tuple[Hole, ...] = (), size: int = 240, style: ImageStyle = ImageStyle(), *,
                sheet: TriangleSheet) -> Image.Image:
    """The sheet alone, square, no legend: `paper` (bool[T]) and `holes` in the step images'
    colours. The panel composite pictures (e.g. a multiple-choice question) are built from."""
    style = ImageStyle(**{**style.__dict__, "width": size, "height": size})
    image, draw = _canvas(style)
    frame = _square_frame(sheet, size * style.supersample)
    _draw_sheet(draw, frame, np.asarray(paper, dtype=bool), style, sheet)
    _draw_holes(draw, frame, tuple(holes), style, sheet)
    return _finish(image, style)


def numbered_sheet_image(size: int = 600, supersample: int = 3, *, sheet: TriangleSheet) -> Image.Image:
    """The sheet's triangles with their ids (index + 1) at their centroids (MentalBlackboard's
    location ids: the benchmark's paper_structure.png): white paper, black edges and labels."""
    style = ImageStyle(width=size, height=size, supersample=supersample, edge=(0, 0, 0), edge_width=2.0)
    image, draw = _canvas(style)
    frame = _square_frame(sheet, size * supersample)
    _draw_sheet(draw, frame, sheet.everywhere(), style, sheet)
    font = _font(style, size / 24)
    for t, centroid in enumerate(sheet.centroids):
        [anchor] = frame.pixels(centroid)
        draw.text(anchor, str(t + 1), fill=style.text, font=font, anchor="mm")
    return _finish(image, style)


def write_numbered_sheet(path: str | Path, size: int = 600, *, sheet: TriangleSheet) -> Path:
    """Write the numbered sheet PNG atomically (for generators: `paper_structure.png`)."""
    path = Path(path)
    atomic_write_bytes(path, png_bytes(numbered_sheet_image(size, sheet=sheet)))
    return path
