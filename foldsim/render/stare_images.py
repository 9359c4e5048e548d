"""Pictures of the `stare` family (docs/nets.md, "stare"): a cube net part folded, step by
step, drawn with Pillow as a 2-D projection of the exact poses (no 3-D renderer, no EGL).

- `partly_folded(net, folded)`: the net with every hinge but those of the faces in `folded` left
  flat (turn 0). The exact engine (`foldsim.kernels.nets.fold_batch`) folds it, so a picture shows
  integer poses, not floating-point angles, and equal records give equal bytes on any machine with
  the same Pillow.
- `step_images(net, plan)`: one picture after each fold of `plan` (faces in folding order).
  Faces are filled polygons, drawn far to near (painter's order) and a little transparent, as
  STARE draws them, so a face hidden behind another still shows through. A face seen from its
  printed side shows its colour and label; from its back, a paler colour and no label.
- `net_picture(net)`: the flat net (`net_images.flat_net_image`: hinges dashed, cuts solid) pasted
  centred on a fixed canvas, so the picture's size says nothing about the net's outline.

The camera is fixed (orthographic, from the front-right and above: it sees the cube's top, front
and right), and so is the scale: one unit is the same number of pixels in every picture, so
a net's extent is drawn as it is and never rescaled per item. The picture is centred on the middle of
the faces' projected bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..kernels import nets as K
from ..nets import Hinge, Net, net_arrays
from .net_images import BACKGROUND, INK, flat_net_image, label_colours

#: the step pictures' size (STARE's are 640 x 480) and the units that fit across and down: every
#: state of every net the family draws spans at most 5.5 x 4.8 units in this camera (measured)
STEP_SIZE = (640, 480)
STEP_VIEW_UNITS = (6.4, 5.0)
#: the camera: degrees above the table and round from the front (-y) toward the right (+x)
ELEVATION, AZIMUTH = 40.0, 35.0
#: the flat net's canvas: cells a side (a hexomino spans at most 6) and pixels a cell
NET_CANVAS_CELLS, NET_CELL_PIXELS = 6, 64
FACE_ALPHA = 210  # of 255: faces are drawn a little transparent
BACK_TINT = 0.45  # how far a face's back is paled toward white
SUPERSAMPLE = 2
EDGE_WIDTH = 2  # output pixels
STATE_QUANTUM = 8


def _camera() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, toward the viewer): the screen's axes in the net's frame (x right, y away on the
    table, z up), for a viewer at ELEVATION above the table and AZIMUTH round from the front."""
    e, a = math.radians(ELEVATION), math.radians(AZIMUTH)
    toward = np.array([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)])
    right = np.array([math.cos(a), math.sin(a), 0.0])
    return right, np.cross(toward, right), toward


def partly_folded(net: Net, folded: Sequence[int]) -> Net:
    """The net with only the hinges to the faces in `folded` turned; every other hinge flat."""
    parent, _ = net.hinge_tree()
    moving = set(folded)
    hinges = tuple(Hinge(h.a, h.b, h.turn if (h.b in moving and parent[h.b] == h.a)
                         or (h.a in moving and parent[h.a] == h.b) else 0) for h in net.hinges)
    return Net(net.cells, net.labels, net.patterns, hinges, net.id)


def state_corners(nets: Sequence[Net]) -> tuple[np.ndarray, np.ndarray]:
    """(corners float[N, F, 4, 3] in net units, printed-side normals int[N, F, 3]) of nets folded
    exactly by the engine (one call, the batch padded to a multiple of STATE_QUANTUM nets so that
    few shapes compile)."""
    padded = list(nets) + list(nets[:1]) * (-len(nets) % STATE_QUANTUM)
    arrays = net_arrays(padded)
    fold = K.fold_batch(arrays.cells, arrays.parent, arrays.turn, arrays.present)
    rotation, shift = np.asarray(fold.rotation), np.asarray(fold.shift)
    offsets = np.array([[0, 0], [1, 0], [1, 1], [0, 1]])
    flat = 2 * (arrays.cells[:, :, None, :] + offsets)  # doubled units
    flat3 = np.concatenate([flat, np.zeros((*flat.shape[:3], 1), flat.dtype)], -1)
    corners = np.einsum("nfij,nfcj->nfci", rotation, flat3) + shift[:, :, None, :]
    return corners[: len(nets)] / 2.0, rotation[: len(nets), ..., 2]


def _pale(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    return tuple(round(c + (255 - c) * BACK_TINT) for c in colour)  # type: ignore[return-value]


def draw_state(net: Net, corners: np.ndarray, normals: np.ndarray) -> Image.Image:
    """One picture of the net's faces at `corners` float[F, 4, 3] with printed-side `normals`."""
    right, up, toward = _camera()
    width, height = STEP_SIZE
    scale = SUPERSAMPLE * min(width / STEP_VIEW_UNITS[0], height / STEP_VIEW_UNITS[1])
    screen = np.stack([corners @ right, corners @ up], -1)  # [F, 4, 2]
    low, high = screen.reshape(-1, 2).min(0), screen.reshape(-1, 2).max(0)
    middle = (low + high) / 2
    pixels = np.stack([SUPERSAMPLE * width / 2 + scale * (screen[..., 0] - middle[0]),
                       SUPERSAMPLE * height / 2 - scale * (screen[..., 1] - middle[1])], -1)
    depth = corners.mean(1) @ toward
    colours = label_colours(sorted(net.labels))
    font = ImageFont.load_default(size=round(0.35 * scale))
    image = Image.new("RGB", (SUPERSAMPLE * width, SUPERSAMPLE * height), BACKGROUND)
    draw = ImageDraw.Draw(image, "RGBA")
    for face in sorted(range(len(net)), key=lambda f: (round(float(depth[f]), 6), f)):
        front = float(normals[face] @ toward) > 0
        colour = colours[net.labels[face]] if front else _pale(colours[net.labels[face]])
        polygon = [tuple(point) for point in pixels[face].tolist()]
        draw.polygon(polygon, fill=(*colour, FACE_ALPHA), outline=(*INK, 255), width=EDGE_WIDTH * SUPERSAMPLE)
        (ax, ay), (bx, by) = pixels[face, 2] - pixels[face, 0], pixels[face, 3] - pixels[face, 1]
        area = abs(ax * by - ay * bx) / 2
        if front and area > 0.2 * scale**2:  # a face seen nearly edge-on carries no readable label
            draw.text(tuple(pixels[face].mean(0).tolist()), net.labels[face], fill=(*INK, 255), anchor="mm", font=font)
    return image.resize(STEP_SIZE, Image.Resampling.BOX)


def step_images(net: Net, plan: Sequence[int]) -> list[Image.Image]:
    """The picture after each fold of `plan` (face indices in folding order), len(plan) of them."""
    states = [partly_folded(net, plan[: k + 1]) for k in range(len(plan))]
    corners, normals = state_corners(states)
    return [draw_state(net, corners[k, : len(net)], normals[k, : len(net)]) for k in range(len(plan))]


def net_picture(net: Net) -> Image.Image:
    """The flat net (flat_net_image) centred on a fixed square canvas of NET_CANVAS_CELLS cells."""
    flat = flat_net_image(net, NET_CELL_PIXELS, colours=label_colours(sorted(net.labels)))
    side = NET_CANVAS_CELLS * NET_CELL_PIXELS + 2 * (NET_CELL_PIXELS // 4)
    canvas = Image.new("RGB", (max(side, flat.width), max(side, flat.height)), BACKGROUND)
    canvas.paste(flat, ((canvas.width - flat.width) // 2, (canvas.height - flat.height) // 2))
    return canvas
