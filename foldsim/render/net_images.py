"""Pictures of cube nets (issue 25; docs/nets.md, "Pictures and motion"): the flat net and the cube
seen in one of its 24 orientations, drawn with Pillow (2-D, no 3-D renderer needed).

Every face shows its **tile**: the face's colour, an "F" glyph and the face's label. The F looks
different under each of the square's 8 turns and mirrors, so its pose shows the pattern's. A tile is
drawn upright in the pattern's own frame and then posed as the pattern is (`foldsim.nets.Pattern`):
mirrored left to right about the pattern's up, then turned `turn` quarter turns counter-clockwise.
The label is part of the printed pattern and turns and mirrors with it.

- `flat_net_image`: the net on its grid, seen from the printed side. Each face is shown at its cell
  with its own pattern. The outline and every cut (flat neighbours without a hinge: the paper is
  cut there) are thick solid lines. Hinges are dashed: dark for +1 (printed side out), red for −1,
  and faint for a flat 0.
- `cube_view_image`: the three visible sides of a cube view: front (+z) as a square, top (+y) and
  right (+x) as parallelograms behind it (an oblique projection). Each side is read with its up as
  in docs/nets.md: the top's up points away from the viewer, and the right's right points to the
  back. Each tile is posed as the view gives it, as (label, turn, mirror) triples, e.g.
  `foldsim.nets.view_of`. `net_cube_view` takes the view straight from the exact engine
  (`fold_net(net).views[orientation]`).

Faces come in two styles (`glyph`): **patterned** (the default, the tile above) and **coloured**
(`glyph=False`: the plain colour, nothing that shows a turn, as SpatialViz's colour tasks draw
them; `COLOUR_RGB` names the colours a family may use as labels). The cube-choice families draw a
question and its options as one picture with `choice_composite` (each panel letterboxed by
`fitted`, the options under the question with their labels).

The 3-D motion (render/nets.py) paints the folding net with `flat_net_image`. Drawing is done
`SUPERSAMPLE` times larger and box-filtered down. The font is Pillow's bundled one, so equal inputs
give equal bytes on any machine with the same Pillow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..errors import InputError, describe
from ..limits import MAX_FRAME_SIDE
from ..nets import STEPS, FoldedNet, Net, SeenFace, Shown, fold_net
from .choice import GAP, PANEL, captioned_grid
from .images import Frame
from .item_images import draw_dashed, draw_segment

Colour = tuple[int, int, int]
#: face colours, given to labels in order (`label_colours`); pale, so the ink reads on every one
PALETTE: tuple[Colour, ...] = ((244, 170, 170), (160, 200, 240), (170, 226, 160), (248, 220, 140), (208, 180, 236),
                               (248, 192, 144), (150, 220, 212), (220, 220, 200))
INK: Colour = (36, 36, 44)  # the glyph, the labels, the outline and the cuts
HINGE_INK: dict[int, Colour] = {1: (70, 70, 80), -1: (200, 40, 40), 0: (190, 190, 190)}
BACKGROUND: Colour = (255, 255, 255)
NO_FACE: Colour = (228, 228, 228)  # a view side with no face on it
#: the F glyph, as boxes (u0, v0, u1, v1) in the pattern's frame [-1, 1]^2 (u right, v up): a stem,
#: a top bar and a shorter middle bar. Every edge is an odd tenth, so points at even tenths sit at
#: least 0.1 inside or outside it (what the tests probe)
GLYPH_BOXES = ((-0.7, -0.7, -0.5, 0.7), (-0.7, 0.5, 0.5, 0.7), (-0.7, -0.1, 0.1, 0.1))
#: where the label is written in the pattern's frame: right of the stem, under the middle bar
LABEL_BOX = (-0.3, -0.9, 0.9, -0.2)
#: the colour of each colour name a coloured face may carry as its label (SpatialViz's six)
COLOUR_RGB: dict[str, Colour] = {"red": (222, 62, 62), "green": (72, 172, 84), "blue": (66, 110, 222),
                                 "pink": (222, 84, 222), "yellow": (242, 212, 60), "cyan": (72, 204, 214)}
SUPERSAMPLE = 3
DASH = 0.1  # cells: a hinge's dash and gap
#: the depth axis of the cube view on screen, in side lengths: to the right and up
OBLIQUE = (0.5, 0.4)
#: the cube view's shading of front, top and right (the light comes from the front)
SHADE = (1.0, 0.9, 0.78)
#: bounds of a picture's side pixels (refused before drawing): a cell of the flat net, a cube side
MIN_SIDE_PIXELS, MAX_SIDE_PIXELS = 8, 1024
_TURNS = (None, Image.Transpose.ROTATE_90, Image.Transpose.ROTATE_180, Image.Transpose.ROTATE_270)


def label_colours(labels: Sequence[str | None]) -> dict[str, Colour]:
    """The colour of each label: PALETTE in the labels' order (cycling past 8)."""
    named = [label for label in labels if label is not None]
    return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(named)}


def glyph_covers(u: float, v: float) -> bool:
    """Whether the point (u, v) of the pattern's frame [-1, 1]^2 lies on the F glyph."""
    return any(u0 <= u <= u1 and v0 <= v <= v1 for u0, v0, u1, v1 in GLYPH_BOXES)


def _checked_side(pixels: object, field: str) -> int:
    if isinstance(pixels, bool) or not isinstance(pixels, int) or not MIN_SIDE_PIXELS <= pixels <= MAX_SIDE_PIXELS:
        raise InputError(f"must be a whole number of pixels from {MIN_SIDE_PIXELS} to {MAX_SIDE_PIXELS}, got "
                         f"{describe(pixels)}", field=field)
    return pixels


def _box_pixels(box: tuple[float, float, float, float], pixels: int) -> list[float]:
    """A box of the pattern's frame as (left, top, right, bottom) pixels of a tile `pixels` wide."""
    u0, v0, u1, v1 = box
    return [(u0 + 1) / 2 * pixels, (1 - v1) / 2 * pixels, (u1 + 1) / 2 * pixels, (1 - v0) / 2 * pixels]


def _fitted_font(label: str, width: float, height: float) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font at the largest size (up to the box's height) at which `label` fits `width`."""
    size = max(1, round(0.9 * height))
    length = ImageFont.load_default(size=size).getlength(label)
    if length > width:
        size = max(1, int(size * width / length))
    return ImageFont.load_default(size=size)


def pattern_tile(label: str | None, colour: Colour, pixels: int, *, glyph: bool = True) -> Image.Image:
    """A face's tile upright in its pattern's frame, `pixels` square: `colour`, the F glyph and the
    label (`glyph=False`: the colour alone, a coloured face). With no label (a view side no face
    landed on), a plain NO_FACE square."""
    if label is None:
        return Image.new("RGB", (pixels, pixels), NO_FACE)
    tile = Image.new("RGB", (pixels, pixels), colour)
    if not glyph:
        return tile
    draw = ImageDraw.Draw(tile)
    for box in GLYPH_BOXES:
        draw.rectangle(_box_pixels(box, pixels), fill=INK)
    left, top, right, bottom = _box_pixels(LABEL_BOX, pixels)
    draw.text(((left + right) / 2, (top + bottom) / 2), label, fill=INK, anchor="mm",
              font=_fitted_font(label, right - left, bottom - top))
    return tile


def posed(tile: Image.Image, turn: int, mirror: bool) -> Image.Image:
    """The tile as a pattern (turn, mirror) shows it: mirrored left to right, then turned `turn`
    quarter turns counter-clockwise (exact pixel moves, no resampling)."""
    if mirror:
        tile = tile.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return tile if turn % 4 == 0 else tile.transpose(_TURNS[turn % 4])


# -- the flat net ------------------------------------------------------------------------------------

#: the edge of cell (x, y) toward each step of STEPS (+x, +y, -x, -y), as two corner offsets
_EDGE_ENDS = (((1, 0), (1, 1)), ((0, 1), (1, 1)), ((0, 0), (0, 1)), ((0, 0), (1, 0)))


def net_edges(net: Net) -> list[tuple[np.ndarray, str, int]]:
    """Every edge of the net's faces once, as (ends float[2, 2] in grid units, kind, turn). The kind
    is "outline" (no face beyond), "cut" (a flat neighbour with no hinge) or "hinge" with its
    quarter turn (0 for the others)."""
    where = {cell: i for i, cell in enumerate(net.cells)}
    hinges = {frozenset((h.a, h.b)): h.turn for h in net.hinges}
    edges = []
    for i, (x, y) in enumerate(net.cells):
        for (dx, dy), ends in zip(STEPS, _EDGE_ENDS):
            j = where.get((x + dx, y + dy))
            if j is not None and j < i:
                continue  # drawn from the other face
            corners = np.array([[x + ends[0][0], y + ends[0][1]], [x + ends[1][0], y + ends[1][1]]], float)
            if j is None:
                edges.append((corners, "outline", 0))
            elif frozenset((i, j)) in hinges:
                edges.append((corners, "hinge", hinges[frozenset((i, j))]))
            else:
                edges.append((corners, "cut", 0))
    return edges


def flat_net_image(net: Net, cell: int = 64, *, margin: int | None = None,
                   colours: Mapping[str, Colour] | None = None, glyph: bool = True) -> Image.Image:
    """The flat net seen from its printed side: each face's tile at its cell, posed by the face's
    pattern, and the outline, cuts and hinges (module doc). `cell`: pixels per grid cell (8 to 1024);
    `margin`: pixels around the net (default cell / 4); `colours`: label -> colour (default
    `label_colours(net.labels)`); `glyph`: patterned (True) or coloured faces. The image's first
    row is the top of the net's bounding box. InputError when the picture would be wider or taller than limits.MAX_FRAME_SIDE."""
    cell = _checked_side(cell, "cell")
    margin = cell // 4 if margin is None else margin
    if isinstance(margin, bool) or not isinstance(margin, int) or not 0 <= margin <= MAX_SIDE_PIXELS:
        raise InputError(f"must be a whole number of pixels from 0 to {MAX_SIDE_PIXELS}, got {describe(margin)}",
                         field="margin")
    colours = label_colours(net.labels) if colours is None else colours
    xs, ys = [x for x, _ in net.cells], [y for _, y in net.cells]
    left, top = min(xs), max(ys) + 1
    width, height = (max(xs) + 1 - left) * cell + 2 * margin, (top - min(ys)) * cell + 2 * margin
    if max(width, height) > MAX_FRAME_SIDE:
        raise InputError(f"spans {width}x{height} pixels at {cell} a cell, more than {MAX_FRAME_SIDE} "
                         f"(limits.MAX_FRAME_SIDE); use fewer pixels a cell", item=net.id, field="cells")
    scale = SUPERSAMPLE
    image = Image.new("RGB", (width * scale, height * scale), BACKGROUND)
    frame = Frame(cell * scale, (margin - left * cell) * scale, (margin + top * cell) * scale)
    for label, (x, y), pattern in zip(net.labels, net.cells, net.patterns):
        tile = posed(pattern_tile(label, colours.get(label, NO_FACE), cell * scale, glyph=glyph), pattern.turn,
                     pattern.mirror)
        [(column, row)] = frame.pixels(np.array([x, y + 1]))
        image.paste(tile, (round(column), round(row)))
    draw = ImageDraw.Draw(image)
    edges = net_edges(net)
    hinge_width, line_width = max(1, round(cell * scale / 40)), max(2, round(cell * scale / 18))
    for ends, kind, turn in edges:  # hinges first: the outline and the cuts go over their ends
        if kind == "hinge" and turn == 0:
            draw_segment(draw, frame, ends, HINGE_INK[0], hinge_width)
        elif kind == "hinge":
            draw_dashed(draw, frame, ends, HINGE_INK[turn], 2 * hinge_width, (DASH, DASH))
    for ends, kind, _ in edges:
        if kind != "hinge":
            draw_segment(draw, frame, ends, INK, line_width)
    return image.resize((width, height), Image.Resampling.BOX)


# -- the cube view -----------------------------------------------------------------------------------


def _shown(face: Shown | SeenFace) -> Shown:
    """(label, turn, mirror) of a view side given as a triple or as the engine's SeenFace."""
    if isinstance(face, SeenFace):
        return face.label, face.turn, face.mirror
    label, turn, mirror = face
    return label, int(turn), bool(mirror)


def view_sides(size: int, margin: int, scale: int = 1) -> tuple[tuple[int, int],
                                                              list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """The cube view's layout for sides `size` pixels and a `margin`, drawn `scale` times larger:
    the image size and, for front, top and right, the screen pixels (x right, y down) of the side's
    tile corner (u, v) = (-1, -1) and the screen vectors of its right and its up."""
    depth = np.array([round(OBLIQUE[0] * size), -round(OBLIQUE[1] * size)], float)
    width, height = size + int(depth[0]) + 2 * margin, size - int(depth[1]) + 2 * margin
    front_bottom_left = np.array([margin, height - margin], float)
    right, up = np.array([size, 0.0]), np.array([0.0, -size])
    sides = [(front_bottom_left, right, up),  # front: a square
             (front_bottom_left + up, right, depth),  # top: its up runs away from the viewer
             (front_bottom_left + right, depth, up)]  # right: its right runs to the back
    return (width * scale, height * scale), [tuple(scale * vector for vector in side) for side in sides]


def _warp(tile: Image.Image, canvas: tuple[int, int], origin: np.ndarray, right: np.ndarray,
          up: np.ndarray) -> tuple[Image.Image, Image.Image]:
    """The tile mapped onto the parallelogram origin + a right + b up (a, b in [0, 1]; the tile's
    bottom-left corner at `origin`), and its coverage mask, both `canvas` sized."""
    pixels = tile.size[0]
    inverse = np.linalg.inv(np.stack([right, up], axis=1))  # screen offset -> (a, b)
    # tile column = pixels * a, tile row = pixels * (1 - b), as affine maps of the screen pixel
    a, b = inverse[0], inverse[1]
    coefficients = (pixels * a[0], pixels * a[1], -pixels * (a @ origin),
                    -pixels * b[0], -pixels * b[1], pixels * (1 + b @ origin))
    warped = tile.transform(canvas, Image.Transform.AFFINE, coefficients, Image.Resampling.BILINEAR)
    mask = Image.new("L", tile.size, 255).transform(canvas, Image.Transform.AFFINE, coefficients,
                                                    Image.Resampling.BILINEAR)
    return warped, mask


def cube_view_image(view: Sequence[Shown | SeenFace], size: int = 96, *,
                    colours: Mapping[str, Colour] | None = None, glyph: bool = True) -> Image.Image:
    """A cube view: front, top and right, each a (label, turn, mirror) triple (None label: no face
    there) or the engine's SeenFace, posed as the module doc says. `size`: a side's pixels (8 to
    1024); `colours`: label -> colour (default: `label_colours` of the three labels in view order,
    so pass the net's to keep its colours); `glyph`: patterned (True) or coloured faces."""
    size = _checked_side(size, "size")
    faces = [_shown(face) for face in view]
    if len(faces) != 3:
        raise InputError(f"must hold 3 sides (front, top, right), got {len(faces)}", field="view")
    colours = label_colours([label for label, _, _ in faces]) if colours is None else colours
    scale = SUPERSAMPLE
    canvas, sides = view_sides(size, max(2, size // 8), scale)
    image = Image.new("RGB", canvas, BACKGROUND)
    for (label, turn, mirror), (origin, right, up), shade in zip(faces, sides, SHADE):
        tile = posed(pattern_tile(label, colours.get(label, NO_FACE), size * scale, glyph=glyph), turn, mirror)
        tile = tile.point([round(level * shade) for level in range(256)] * 3)
        warped, mask = _warp(tile, canvas, origin, right, up)
        image.paste(warped, (0, 0), mask)
    draw = ImageDraw.Draw(image)
    for origin, right, up in sides:
        corners = [origin, origin + right, origin + right + up, origin + up]
        draw.polygon([tuple(point) for point in corners], outline=INK, width=max(2, round(size * scale / 40)))
    return image.resize((canvas[0] // scale, canvas[1] // scale), Image.Resampling.BOX)


def net_cube_view(net: Net | FoldedNet, orientation: int, size: int = 96, *,
                  colours: Mapping[str, Colour] | None = None) -> Image.Image:
    """The cube a net folds into, in orientation `orientation` (0..23; 16: unturned, docs/nets.md),
    as the exact engine views it (`fold_net(net).views`); a FoldedNet is used as it is. Colours as
    in `flat_net_image` (the net's labels in order)."""
    folded = net if isinstance(net, FoldedNet) else fold_net(net)
    if isinstance(orientation, bool) or not isinstance(orientation, int) or not 0 <= orientation < 24:
        raise InputError(f"must be a whole number from 0 to 23, got {describe(orientation)}", field="orientation")
    colours = label_colours(folded.net.labels) if colours is None else colours
    return cube_view_image(folded.views[orientation], size, colours=colours)


# -- question composites -----------------------------------------------------------------------------


def fitted(image: Image.Image, side: int) -> Image.Image:
    """`image` scaled to fit a `side` square (aspect kept) and centred on white, so panels of any
    shape (a wide net, a cube view) line up in a composite."""
    scale = min(side / image.width, side / image.height)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    panel = Image.new("RGB", (side, side), BACKGROUND)
    panel.paste(image.resize(size, Image.Resampling.LANCZOS), ((side - size[0]) // 2, (side - size[1]) // 2))
    return panel


def choice_composite(question: Image.Image, options: Sequence[tuple[str, Image.Image]]) -> Image.Image:
    """The question picture (a net or a cube view, twice an option panel's side) centred above its
    options in one row, each under its label (render.choice's grid and panel sizes)."""
    row = captioned_grid([(label, fitted(image, PANEL)) for label, image in options], max(1, len(options)))
    top = fitted(question, 2 * PANEL)
    image = Image.new("RGB", (max(row.width, top.width + 2 * GAP), top.height + GAP + row.height), BACKGROUND)
    image.paste(top, ((image.width - top.width) // 2, GAP))
    image.paste(row, ((image.width - row.width) // 2, top.height + GAP))
    return image
