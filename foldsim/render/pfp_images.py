"""Pictures of fold-and-cut items in PFP's look (reference §1.2, §1.6-§1.8; docs/cutting.md,
"Pictures in PFP's look"), drawn with Pillow, no anti-aliasing in the panels, deterministic bytes.

Panels are 432 px squares. Every model point reaches the canvas through ONE exact map,
`PfpFrame.pixel` (the sheet's box centred, its longer side 360 px: PFP's own placement, pixel for
pixel, for its sheets whose longer side is 360), and every region is filled by one exact
scan-line rule (`region_mask`: a pixel is painted when its centre, at whole coordinates as in GDI+,
lies inside, left and top edges in, right and bottom edges out), so shared edges neither overlap
nor leave gaps and a cut-out's pixel count tracks its exact area. Colours: background white,
front faces grey 208, back faces (`Layer.reflected`) grey 160, black 3-px outlines, cut-outs
blue (0, 0, 255).

Panels (`state_panel`, `step_panel`, `fold_panels`, `cuts_only_panel`, `answer_panel`,
`question_mark_panel`) and composites (`composite`: tasks "A", "B", "C" and the plain "strip")
draw what they are given; which states, cuts and options to show is the family's choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..cutfold import IDENTITY, Cut, Cutout, Fold, Layer, cut_cells, reflection_across, resolve_line
from ..polygons import Point, Polygon, PolygonSheet, bounding_box, clip_convex, clip_halfplane, components, outline

Colour = tuple[int, int, int]

#: PFP's palette (reference §1.2, `OrigamiSetting.cs`)
BACKGROUND: Colour = (255, 255, 255)
FRONT: Colour = (208, 208, 208)
BACK: Colour = (160, 160, 160)
LINE: Colour = (0, 0, 0)
CUT: Colour = (0, 0, 255)
LINE_WIDTH = 3
#: GDI+'s DashStyle.Dash: a dash of 3 pen widths, a gap of 1
DASH = (3 * LINE_WIDTH, LINE_WIDTH)
#: a panel's side and the sheet's longer side on it (PFP: canvas ⌊1.2 m + 0.5⌋ with m = 360)
PANEL = 432
SHEET_SPAN = 360


# -- the frame ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PfpFrame:
    """Model (exact, y up) -> panel pixels (y down): p -> (x0 + s x, y0 - s y), computed exactly
    and rounded once to a float. Pixel (i, j) is the one whose centre is at (i, j)."""

    size: int
    scale: Fraction
    x_origin: Fraction  # pixel x of model x = 0
    y_origin: Fraction  # pixel y of model y = 0

    def pixel(self, p: Point) -> tuple[float, float]:
        return float(self.x_origin + self.scale * p[0]), float(self.y_origin - self.scale * p[1])

    def pixels(self, ring: Sequence[Point]) -> list[tuple[float, float]]:
        return [self.pixel(p) for p in ring]


def pfp_frame(sheet: PolygonSheet, size: int = PANEL) -> PfpFrame:
    """PFP's panel frame for a sheet: the sheet's bounding box centred on the panel, its longer side
    `size` / 1.2 pixels (360 on the 432-px panel: scale 1 for PFP's own sheets). One frame per
    item, so every state and the answer line up; paper folded out past the sheet's box may leave
    the panel, as in PFP."""
    x0, y0, x1, y1 = bounding_box(sheet.vertices)
    scale = Fraction(size * 5, 6) / max(x1 - x0, y1 - y0)
    middle = Fraction(size, 2)
    return PfpFrame(size, scale, middle - scale * (x0 + x1) / 2, middle + scale * (y0 + y1) / 2)


# -- rasterising ---------------------------------------------------------------------------------------


def region_mask(rings: Sequence[Sequence[tuple[float, float]]], size: int) -> tuple[tuple[int, int], np.ndarray]:
    """((left, top), bool[h, w]): the pixels of a size x size canvas whose centres lie inside the
    rings (even-odd: a hole ring inside an outer one is left out), within the rings' pixel box.
    A row y crosses an edge when lo <= y < hi, and is filled from the first centre at or right of
    a crossing; edges are taken lowest point first, so an edge two regions share is computed alike
    for both and each of its pixels goes to exactly one of them."""
    points = [p for ring in rings for p in ring]
    if not points:
        return (0, 0), np.zeros((0, 0), bool)
    left = min(size, max(0, ceil(min(x for x, _ in points))))
    right = min(size, max(left, ceil(max(x for x, _ in points))))
    top = min(size, max(0, ceil(min(y for _, y in points))))
    bottom = min(size, max(top, ceil(max(y for _, y in points))))
    toggles = np.zeros((bottom - top, right - left + 1), np.int8)
    for ring in rings:
        n = len(ring)
        for k in range(n):
            (xa, ya), (xb, yb) = ring[k], ring[(k + 1) % n]
            if ya == yb:
                continue
            if ya > yb:
                xa, ya, xb, yb = xb, yb, xa, ya
            rows = np.arange(max(top, ceil(ya)), min(bottom, ceil(yb)))
            if not len(rows):
                continue
            xs = xa + (rows - ya) * ((xb - xa) / (yb - ya))
            cols = np.clip(np.ceil(xs), left, right).astype(np.int64) - left
            np.add.at(toggles, (rows - top, cols), 1)
    return (left, top), (np.cumsum(toggles, axis=1, dtype=np.int32) % 2 == 1)[:, :right - left]


def fill_mask(rings: Sequence[Sequence[tuple[float, float]]], size: int) -> np.ndarray:
    """bool[size, size]: `region_mask` on the whole canvas."""
    (left, top), sub = region_mask(rings, size)
    mask = np.zeros((size, size), bool)
    mask[top:top + sub.shape[0], left:left + sub.shape[1]] = sub
    return mask


def _paint(image: Image.Image, regions: Sequence[Sequence[Sequence[tuple[float, float]]]], colour: Colour) -> None:
    """Fill the union of regions (each a list of rings, even-odd) with one colour."""
    for rings in regions:
        (left, top), sub = region_mask(rings, image.width)
        if sub.any():
            image.paste(colour, (left, top, left + sub.shape[1], top + sub.shape[0]), Image.fromarray(sub))


def _ring_line(draw: ImageDraw.ImageDraw, ring: Sequence[tuple[float, float]], colour: Colour = LINE,
               width: int = LINE_WIDTH) -> None:
    """A closed outline, the pen centred on the boundary, corners joined round."""
    if len(ring) >= 2:
        draw.line([*ring, ring[0], ring[1]], fill=colour, width=width, joint="curve")


def _dashed_ring(draw: ImageDraw.ImageDraw, ring: Sequence[tuple[float, float]], underlay: bool = True) -> None:
    """PFP's dashed outline: a white pen first (`underlay`: the dashes' gaps show white), then
    black dashes whose pattern runs on round the corners."""
    if underlay:
        _ring_line(draw, ring, BACKGROUND)
    pattern, index, left = DASH, 0, DASH[0]
    closed = [*ring, ring[0]]
    for (xa, ya), (xb, yb) in zip(closed, closed[1:]):
        length = float(np.hypot(xb - xa, yb - ya))
        done = 0.0
        while length - done > 1e-9:
            step = min(left, length - done)
            if index % 2 == 0:
                t0, t1 = done / length, (done + step) / length
                draw.line([(xa + (xb - xa) * t0, ya + (yb - ya) * t0), (xa + (xb - xa) * t1, ya + (yb - ya) * t1)],
                          fill=LINE, width=LINE_WIDTH)
            done += step
            left -= step
            if left <= 1e-9:
                index += 1
                left = pattern[index % 2]


# -- geometry of what is drawn ----------------------------------------------------------------------------


def layer_rings(layer: Layer) -> list[Polygon]:
    """The layer's outline where it lies now (its flat outline carried by its isometry)."""
    return [tuple(layer.iso.apply(p) for p in ring) for ring in outline(layer.parts)]


def _fold_sides(sheet: PolygonSheet, layers: Sequence[Layer], fold: Fold):
    """(line ends, coefficients a, b, c with a x + b y + c >= 0 staying, index of the first layer
    taking part) of `fold` made on `layers`."""
    p1, p2 = resolve_line(fold, layers, sheet)
    a, b = p1[1] - p2[1], p2[0] - p1[0]
    c = -(a * p1[0] + b * p1[1])
    first = 0 if fold.layers is None else max(0, len(layers) - fold.layers)
    return (p1, p2), (a, b, c), first


def moving_rings(sheet: PolygonSheet, layers: Sequence[Layer], fold: Fold) -> list[list[Polygon]]:
    """For each layer `fold` moves off `layers` (in the order the fold stacks them, as in
    `cutfold.fold_layers`), its outline before it moves: what PFP dashes on the panel after it."""
    _, (a, b, c), first = _fold_sides(sheet, layers, fold)
    moved = []
    for layer in layers[first:]:
        parts = [q for part in layer.placed() if (q := clip_halfplane(part, -a, -b, -c))]
        moved.extend(outline([parts[i] for i in group]) for group in components(parts))
    return moved[::-1]


def cut_on_paper(layers: Sequence[Layer], cuts: Sequence[Cut]) -> list[Polygon]:
    """The cut shapes ∩ the paper (the union of the layers where they lie), as convex pieces: the
    blue PFP draws on the cut panel."""
    placed = [part for layer in layers for part in layer.placed()]
    return [piece for cell in cut_cells(cuts) for part in placed if (piece := clip_convex(part, cell))]


# -- panels -------------------------------------------------------------------------------------------------


def _draw_layer(image: Image.Image, frame: PfpFrame, layer: Layer, *, fill: bool = True) -> None:
    """One layer as PFP draws a piece: filled in its face's grey (unless `fill` is off), outlined."""
    rings = [frame.pixels(ring) for ring in layer_rings(layer)]
    if fill:
        _paint(image, [rings], BACK if layer.reflected else FRONT)
    draw = ImageDraw.Draw(image)
    for ring in rings:
        _ring_line(draw, ring)


def _fill_pieces(image: Image.Image, frame: PfpFrame, pieces: Sequence[Sequence[Point]], colour: Colour) -> None:
    """Fill the union of polygons."""
    _paint(image, [[frame.pixels(piece)] for piece in pieces], colour)


def state_panel(sheet: PolygonSheet, layers: Sequence[Layer], *, fold: Fold | None = None, cuts: Sequence[Cut] = (),
                frame: PfpFrame | None = None) -> Image.Image:
    """One folded state in PFP's look: the layers bottom to top, each filled in its face's grey and
    outlined; `fold` (the next fold to make on these layers): where its moving paper will land,
    black dashes over the paper, as PFP dashes a flap's other place (the crease is that outline's
    edge on the fold line, the side it covers the fold's direction); `cuts`: the cut shapes ∩ the paper in blue, on top (PFP's cut panel)."""
    frame = frame or pfp_frame(sheet)
    image = Image.new("RGB", (frame.size, frame.size), BACKGROUND)
    for layer in layers:
        _draw_layer(image, frame, layer)
    if fold is not None:
        (p1, p2), _, _ = _fold_sides(sheet, layers, fold)
        rho = reflection_across(p1, p2)
        draw = ImageDraw.Draw(image)
        for rings in moving_rings(sheet, layers, fold):
            for ring in rings:
                _dashed_ring(draw, frame.pixels([rho.apply(p) for p in ring]), underlay=False)
    _fill_pieces(image, frame, cut_on_paper(layers, cuts), CUT)
    return image


def step_panel(sheet: PolygonSheet, before: Sequence[Layer], folds: Sequence[Fold],
               states: Sequence[Sequence[Layer]], *, cuts: Sequence[Cut] = (),
               frame: PfpFrame | None = None) -> Image.Image:
    """PFP's panel of one folding step (a single fold or a group; `OrigamiFolding.Render`): for
    each fold of the step, in order, on the state it makes (`states`, e.g. a `CutResult.states`
    entry; `before`: the state the step starts from), each moved layer's place before the fold
    dashed and every layer outlined; only the last state filled. `cuts`: as in `state_panel`."""
    if len(folds) != len(states) or not folds:
        raise ValueError("a step panel needs one state per fold, and at least one fold")
    frame = frame or pfp_frame(sheet)
    image = Image.new("RGB", (frame.size, frame.size), BACKGROUND)
    previous: Sequence[Layer] = before
    for k, (fold, state) in enumerate(zip(folds, states)):
        ghosts = moving_rings(sheet, previous, fold)
        moved_from = len(state) - len(ghosts)
        if moved_from < 0:
            raise ValueError(f"state {k + 1} of the step is not what fold {k + 1} makes of the state before it")
        last = k == len(folds) - 1
        for index, layer in enumerate(state):
            if index >= moved_from:
                draw = ImageDraw.Draw(image)
                for ring in ghosts[index - moved_from]:
                    _dashed_ring(draw, frame.pixels(ring))
            _draw_layer(image, frame, layer, fill=last)
        previous = state
    _fill_pieces(image, frame, cut_on_paper(states[-1], cuts), CUT)
    return image


def fold_panels(sheet: PolygonSheet, steps: Sequence[Sequence[Fold]], states: Sequence[Sequence[Sequence[Layer]]], *,
                frame: PfpFrame | None = None) -> list[Image.Image]:
    """PFP's question-row panels of a fold sequence: the flat sheet, then one `step_panel` per
    folding step (`steps`: the item's steps; `states`: its `CutResult.states`, the flat sheet
    first). PFP's cut panel is the last step's `step_panel` with `cuts`."""
    frame = frame or pfp_frame(sheet)
    panels = [state_panel(sheet, states[0][-1], frame=frame)]
    for s, step in enumerate(steps[:len(states) - 1], 1):
        panels.append(step_panel(sheet, states[s - 1][-1], step, states[s], frame=frame))
    return panels


def cuts_only_panel(sheet: PolygonSheet, layers: Sequence[Layer], cuts: Sequence[Cut], *,
                    frame: PfpFrame | None = None) -> Image.Image:
    """The cut shapes ∩ the folded paper in blue on a blank panel, no paper drawn (PFP's
    `RenderCutObjs`, task B's question row)."""
    frame = frame or pfp_frame(sheet)
    image = Image.new("RGB", (frame.size, frame.size), BACKGROUND)
    _fill_pieces(image, frame, cut_on_paper(layers, cuts), CUT)
    return image


def answer_panel(sheet: PolygonSheet, cutouts: Sequence[Cutout], *, frame: PfpFrame | None = None) -> Image.Image:
    """The opened sheet (front grey, outlined) with every cut-out filled blue over it, holes in a
    cut-out left as paper (`Cutout.outline()`, even-odd), no outline of its own (PFP's
    `RenderAnswer`)."""
    frame = frame or pfp_frame(sheet)
    image = Image.new("RGB", (frame.size, frame.size), BACKGROUND)
    _draw_layer(image, frame, Layer(sheet.parts, IDENTITY))
    _paint(image, [[frame.pixels(ring) for ring in cutout.outline()] for cutout in cutouts], CUT)
    return image


def question_mark_panel(size: int = PANEL) -> Image.Image:
    """The "?" panel of a question row (PFP's `unknown.bmp`: a large bold black question mark on
    white), drawn with Pillow's bundled font so the bytes do not depend on installed fonts."""
    image = Image.new("RGB", (size, size), BACKGROUND)
    font = ImageFont.load_default(size=round(size * 0.55))
    ImageDraw.Draw(image).text((size / 2, size / 2), "?", fill=LINE, font=font, anchor="mm",
                               stroke_width=max(1, size // 40), stroke_fill=LINE)
    return image


# -- composites (reference §1.8, `ImageComposer.Compose`) -----------------------------------------------------

#: tasks A and B: question row panels, option panels, the arrow's slot and the gaps, margins
ROW_PANEL, OPTION_PANEL, ARROW_SLOT, GAP, MARGIN = 200, 180, 40, 60, 30
#: the black frame's pen (centred on the panel's edge, the panel drawn over its inner half)
BORDER = 4
ARROW: Colour = (0, 0, 255)
#: task C: question panels 30 apart, no arrows; an option row's arrows in 40 + 20 px; 40 px between
#: the rows (200 px each); the label left of its row, 15 px before it
C_GAP, C_ARROW, C_ARROW_GAP, C_ROW_GAP, C_LABEL_GAP = 30, 40, 20, 40, 15
#: GDI+'s measure of "Z" in Arial 24 bold (the glyph's 19.5 px and a sixth of the 32-px em each
#: side; its height the font's 1.117 em): it sets where task C's rows start, so it is fixed from
#: PFP's own example (Resources/3.jpg: rows framed from x = 157 on a 950-px canvas)
C_LABEL_WIDTH, C_LABEL_HEIGHT = 30.2, 35.76
#: Pillow's bundled font, made bold by a 1-px stroke, at the sizes whose capitals are as tall as
#: PFP's Arial 16 and 24 point bold (15 and 23 px in its examples)
LABEL_AB, LABEL_C = 18, 30
TASKS = ("A", "B", "C", "strip")
#: the most panels a composite takes (a bound on its size)
MAX_PANELS = 16


def ab_size(questions: int, options: int) -> tuple[int, int]:
    """Task A/B composite size: max(200 c + 100 (c - 1) + 50, 240 n - 60) + 60 wide, 650 tall."""
    return max(_ab_row(questions), (OPTION_PANEL + GAP) * options - GAP) + 2 * MARGIN, ROW_PANEL + OPTION_PANEL + 4 * GAP + 30


def _ab_row(questions: int) -> int:
    """The question row's width as PFP counts it (50 px more than its panels and slots take)."""
    return ROW_PANEL * questions + (ARROW_SLOT + GAP) * (questions - 1) + 50


def c_size(questions: int, option_lengths: Sequence[int]) -> tuple[int, int]:
    """Task C composite size: the widest of the question row and the labelled option rows, plus
    margins; 30 + 200 + 60 + rows x 200 + (rows - 1) x 40 + 30 tall (1240 for four options)."""
    first = ROW_PANEL * questions + C_GAP * (questions - 1)
    widest = max(_c_row_width(n) for n in option_lengths)
    rows = len(option_lengths)
    height = MARGIN + ROW_PANEL + 3 * 20 + rows * (OPTION_PANEL + 20) + (rows - 1) * C_ROW_GAP + MARGIN
    return max(first, widest) + 2 * MARGIN, height


def _c_content(n: int) -> int:
    return OPTION_PANEL * n + (C_ARROW + C_ARROW_GAP) * (n - 1)


def _c_row_width(n: int) -> int:
    return int(C_LABEL_WIDTH + C_LABEL_GAP + _c_content(n))


def strip_size(count: int) -> tuple[int, int]:
    """The plain strip: panels of 200 px 30 apart, margins 30, a label line under them."""
    return ROW_PANEL * count + C_GAP * (count - 1) + 2 * MARGIN, MARGIN + ROW_PANEL + 40 + MARGIN


def _fit(panel: Image.Image, side: int) -> Image.Image:
    """The panel scaled to fit a side x side square, centred on white (PFP's `ResizeToFit`)."""
    scale = min(side / panel.width, side / panel.height)
    width, height = max(1, int(panel.width * scale)), max(1, int(panel.height * scale))
    out = Image.new("RGB", (side, side), BACKGROUND)
    out.paste(panel.convert("RGB").resize((width, height), Image.Resampling.BOX), ((side - width) // 2, (side - height) // 2))
    return out


def _coverage(index: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """How much of each pixel (centre at its index, one wide) the interval [lo, hi] covers."""
    return np.clip(np.minimum(hi, index + 0.5) - np.maximum(lo, index - 0.5), 0.0, 1.0)


def _blend_boxes(canvas: np.ndarray, outer: tuple[float, float, float, float], inner: tuple | None, colour,
                 alpha: float = 1.0) -> None:
    """Paint the area of box `outer` (x0, y0, x1, y1) less box `inner` on uint8[h, w, 3], each pixel
    by the share of it covered (GDI+'s anti-aliased pen at these straight edges), at `alpha`;
    values rounded down. Only the rows and columns the area touches are computed."""
    x0, y0, x1, y1 = outer
    left, top = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
    right, bottom = min(canvas.shape[1], int(np.ceil(x1)) + 1), min(canvas.shape[0], int(np.ceil(y1)) + 1)
    if left >= right or top >= bottom:
        return
    cols, rows = np.arange(left, right, dtype=float), np.arange(top, bottom, dtype=float)
    row_share, col_share = _coverage(rows, y0, y1), _coverage(cols, x0, x1)
    inner_rows, inner_cols = np.zeros_like(rows), np.zeros_like(cols)
    if inner is not None:
        ix0, iy0, ix1, iy1 = inner
        inner_rows, inner_cols = _coverage(rows, iy0, iy1), _coverage(cols, ix0, ix1)
    colour = np.asarray(colour, float)
    band = inner_rows < 1  # rows not wholly inside the inner box: every column
    edge = inner_cols < 1  # elsewhere only the columns not wholly inside it
    for rows_at, cols_at in ((np.flatnonzero(band), np.arange(len(cols))), (np.flatnonzero(~band), np.flatnonzero(edge))):
        if not len(rows_at) or not len(cols_at):
            continue
        share = (row_share[rows_at, None] * col_share[None, cols_at]
                 - inner_rows[rows_at, None] * inner_cols[None, cols_at]) * alpha
        block = np.ix_(rows_at + top, cols_at + left)
        pixels = canvas[block].astype(float)
        canvas[block] = np.floor(pixels * (1 - share[..., None]) + colour * share[..., None] + 1e-9).astype(np.uint8)


def _pen_rect(canvas: np.ndarray, x: float, y: float, w: float, h: float, width: float, colour, alpha: float = 1.0) -> None:
    """GDI+'s DrawRectangle(x, y, w, h): a pen `width` wide centred on the edges."""
    half = width / 2
    _blend_boxes(canvas, (x - half, y - half, x + w + half, y + h + half),
                 (x + half, y + half, x + w - half, y + h - half), colour, alpha)


def _framed(canvas: np.ndarray, panel: np.ndarray, x: int, y: int) -> None:
    """A fitted panel (uint8[side, side, 3]), its black frame's pen drawn first and the panel over it."""
    side = panel.shape[0]
    _pen_rect(canvas, x, y, side, side, BORDER, LINE)
    canvas[y:y + side, x:x + side] = panel


class _Canvas:
    """A composite being drawn: frames, panels and arrow shafts on a pixel array first, then the
    arrow heads and labels with Pillow on top (they overlap nothing drawn after them)."""

    def __init__(self, width: int, height: int) -> None:
        self.pixels = np.full((height, width, 3), 255, np.uint8)
        self.heads: list[tuple[int, int]] = []
        self.labels: list[tuple[tuple[float, float], str, int, str]] = []
        self.fitted: dict[tuple[int, int], np.ndarray] = {}  # a panel shown twice is scaled once

    def panel(self, panel: Image.Image, x: int, y: int, side: int) -> None:
        key = (id(panel), side)
        if key not in self.fitted:
            self.fitted[key] = np.asarray(_fit(panel, side))
        _framed(self.pixels, self.fitted[key], x, y)

    def arrow(self, x1: int, x2: int, y: int) -> None:
        """PFP's blue arrow: a 2-px pen from x1 to x2 and a filled head 10 long, 10 wide at x2."""
        _blend_boxes(self.pixels, (x1, y - 1, x2, y + 1), None, ARROW)
        self.heads.append((x2, y))

    def label(self, xy: tuple[float, float], text: str, size: int, anchor: str) -> None:
        self.labels.append((xy, text, size, anchor))

    def image(self) -> Image.Image:
        image = Image.fromarray(self.pixels)
        draw = ImageDraw.Draw(image)
        for x, y in self.heads:
            draw.polygon([(x, y), (x - 10, y - 5), (x - 10, y + 5)], fill=ARROW)
        for xy, text, size, anchor in self.labels:
            draw.text(xy, text, fill=LINE, font=ImageFont.load_default(size=size), anchor=anchor, stroke_width=1,
                      stroke_fill=LINE)
        return image


def _ab_composite(questions: Sequence[Image.Image], options: Sequence[Image.Image], labels: Sequence[str]) -> Image.Image:
    width, height = ab_size(len(questions), len(options))
    canvas = _Canvas(width, height)
    x, y = MARGIN + (width - 2 * MARGIN - _ab_row(len(questions))) // 2, GAP
    for i, panel in enumerate(questions):
        canvas.panel(panel, x, y, ROW_PANEL)
        x += ROW_PANEL
        if i < len(questions) - 1:
            canvas.arrow(x + 15, x + ARROW_SLOT, y + ROW_PANEL // 2)
            x += ARROW_SLOT + GAP
    x = MARGIN + (width - 2 * MARGIN - ((OPTION_PANEL + GAP) * len(options) - GAP)) // 2
    y = ROW_PANEL + 2 * GAP
    for panel, label in zip(options, labels):
        canvas.panel(panel, x, y, OPTION_PANEL)
        # capitals' bottom 28 px under the panel, centred on it (PFP's examples)
        canvas.label((x + OPTION_PANEL / 2 - 1, y + OPTION_PANEL + 28), label, LABEL_AB, "ms")
        x += OPTION_PANEL + GAP
    return canvas.image()


def _c_composite(questions: Sequence[Image.Image], options: Sequence[Sequence[Image.Image]],
                 labels: Sequence[str]) -> Image.Image:
    width, height = c_size(len(questions), [len(row) for row in options])
    canvas = _Canvas(width, height)
    first = ROW_PANEL * len(questions) + C_GAP * (len(questions) - 1)
    x = MARGIN + (width - 2 * MARGIN - first) // 2
    for panel in questions:
        canvas.panel(panel, x, MARGIN, ROW_PANEL)
        x += ROW_PANEL + C_GAP
    y = MARGIN + ROW_PANEL + 3 * 20
    for row, label in zip(options, labels):
        start = MARGIN + (width - 2 * MARGIN - _c_row_width(len(row))) // 2
        x = start + int(C_LABEL_WIDTH + C_LABEL_GAP)
        content = _c_content(len(row))
        _pen_rect(canvas.pixels, x - 10, y - 10, content + 20, OPTION_PANEL + 20, BORDER, LINE)
        # the frame's shadow: grey at alpha 100 of 255, a 2-px pen, 2 px down and right
        _pen_rect(canvas.pixels, x - 8, y - 8, content + 20, OPTION_PANEL + 20, 2, (128, 128, 128), 100 / 255)
        for i, panel in enumerate(row):
            canvas.panel(panel, x, y, OPTION_PANEL)
            x += OPTION_PANEL
            if i < len(row) - 1:
                canvas.arrow(x + 10, x + C_ARROW - 10, y + OPTION_PANEL // 2)
                x += C_ARROW + C_ARROW_GAP
        # the capital's left 5 px into the label's box, its bottom at the box's middle + 9 (PFP's example)
        canvas.label((start + 5, y + (OPTION_PANEL - C_LABEL_HEIGHT) // 2 + 27), label, LABEL_C, "ls")
        y += OPTION_PANEL + 20 + C_ROW_GAP
    return canvas.image()


def _strip(panels: Sequence[Image.Image], labels: Sequence[str]) -> Image.Image:
    width, height = strip_size(len(panels))
    canvas = _Canvas(width, height)
    x = MARGIN
    for i, panel in enumerate(panels):
        canvas.panel(panel, x, MARGIN, ROW_PANEL)
        if i < len(labels) and labels[i]:
            canvas.label((x + ROW_PANEL / 2 - 1, MARGIN + ROW_PANEL + 28), labels[i], LABEL_AB, "ms")
        x += ROW_PANEL + C_GAP
    return canvas.image()


def composite(task: str, question_panels: Sequence[Image.Image], option_panels: Sequence, labels: Sequence[str]) -> Image.Image:
    """PFP's composite of one item. "A" (fill the missing panel: the start, the fold panels, the cut
    panel and "?") and "B" (which panel is NOT a step: start, "?", cut shapes, answer): the
    question row at 200 px joined by blue arrows, the option panels at 180 px in a row under it,
    `labels` under them. "C" (which folding rule): the question row (answer panels) at 200 px,
    then each option (a sequence of panels: start and fold panels) a framed row of 180-px panels
    joined by arrows, its label on its left. "strip": `question_panels` in a row, `labels` under
    them (`option_panels` empty). ValueError for a call that breaks these shapes."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    options = [list(row) for row in option_panels] if task == "C" else list(option_panels)
    count = len(question_panels) + sum(len(o) if task == "C" else 1 for o in options)
    if not question_panels or count > MAX_PANELS * (5 if task == "C" else 1):
        raise ValueError(f"a composite takes 1 to {MAX_PANELS} question panels and options, got {count} panels")
    if task == "strip":
        if options:
            raise ValueError("a strip has no options")
        return _strip(question_panels, labels)
    if not options or len(labels) != len(options):
        raise ValueError(f"{len(options)} options need as many labels, got {len(labels)}")
    if task == "C":
        if any(not row for row in options):
            raise ValueError("every task C option is a row of at least one panel")
        return _c_composite(question_panels, options, labels)
    return _ab_composite(question_panels, options, labels)


__all__ = ["BACK", "BACKGROUND", "CUT", "FRONT", "LINE", "PANEL", "PfpFrame", "TASKS", "ab_size", "answer_panel",
           "c_size", "composite", "cut_on_paper", "cuts_only_panel", "fill_mask", "fold_panels", "layer_rings",
           "moving_rings", "pfp_frame", "question_mark_panel", "region_mask", "state_panel", "step_panel",
           "strip_size"]
