"""Hole outlines as 2-D polygons, shared by the 2-D images and the 3-D animation's hole cut-outs.

Everything here is in *sheet units* (a grid cell is 1 unit, the sheet spans [-2, 2]^2), y up, and
pure NumPy. A hole is a list of polygons whose union is its shape: one polygon for the geometric
shapes, a few convex strokes for the glyphs "T" and "TA" (so no polygon ever needs a hole of its own).
Every polygon is simple and counter-clockwise; all are convex except the star, which is star-shaped
about its centre, so a fan from the polygon's vertex mean triangulates any of them (`fan_triangles`).

Sizes follow the reference renderer's radius-like scale s (0.1 small, 0.175 large); directions are
quarter turns counter-clockwise as the viewer sees them, 0 being the base orientation of formats
§1.5 (triangle apex up, trapezoid narrow side up, star one point up, ellipse/rectangle long axis
horizontal, "T"/"TA" upright).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: radius-like scale of each hole size, in sheet units (a cell is 1)
SIZE_SCALE = {"small": 0.1, "large": 0.175}

_CIRCLE_POINTS = 48
_STAR_INNER = 0.4  # inner radius of the 5-point star, as a fraction of the outer one


def _regular(n: int, radius_x: float, radius_y: float, start: float) -> np.ndarray:
    angles = start + 2 * np.pi * np.arange(n) / n
    return np.stack([radius_x * np.cos(angles), radius_y * np.sin(angles)], axis=1)


def _box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def _star() -> np.ndarray:
    outer = _regular(5, 1.0, 1.0, np.pi / 2)
    inner = _regular(5, _STAR_INNER, _STAR_INNER, np.pi / 2 + np.pi / 5)
    return np.stack([outer, inner], axis=1).reshape(10, 2)


def _glyph_t(x0: float, x1: float, y0: float, y1: float) -> list[np.ndarray]:
    """An upright "T" filling the box [x0, x1] x [y0, y1]: a bar and a stem."""
    height, mid = y1 - y0, (x0 + x1) / 2
    stroke = 0.22 * height
    return [_box(x0, y1 - stroke, x1, y1), _box(mid - stroke / 2, y0, mid + stroke / 2, y1 - stroke)]


def _glyph_a(x0: float, x1: float, y0: float, y1: float) -> list[np.ndarray]:
    """An upright "A" filling the box: two slanted legs meeting at the apex, and a crossbar."""
    height, mid = y1 - y0, (x0 + x1) / 2
    stroke = 0.22 * height
    left = np.array([[x0, y0], [x0 + stroke, y0], [mid + stroke / 4, y1], [mid - stroke / 2, y1]])
    right = np.array([[x1 - stroke, y0], [x1, y0], [mid + stroke / 2, y1], [mid - stroke / 4, y1]])
    bar_y = y0 + 0.3 * height
    inset = (x1 - x0) / 2 * 0.3 + stroke / 2
    return [left, right, _box(x0 + inset, bar_y, x1 - inset, bar_y + stroke)]


def _unit_polygons(shape: str) -> list[np.ndarray]:
    """The shape at direction 0, scale s = 1, centred on the origin."""
    if shape == "circle":
        return [_regular(_CIRCLE_POINTS, 1.0, 1.0, 0.0)]
    if shape == "ellipse":
        return [_regular(_CIRCLE_POINTS, 1.0, 0.5, 0.0)]
    if shape == "square":
        return [_box(-0.85, -0.85, 0.85, 0.85)]
    if shape == "rectangle":
        return [_box(-1.0, -0.5, 1.0, 0.5)]
    if shape == "triangle":
        return [np.array([[-1.0, -1.0], [1.0, -1.0], [0.0, 1.0]])]
    if shape == "trapezoid":
        return [np.array([[-1.0, -0.65], [1.0, -0.65], [0.45, 0.65], [-0.45, 0.65]])]
    if shape == "star":
        return [_star()]
    if shape == "letter":
        return _glyph_t(-0.8, 0.8, -0.9, 0.9)
    if shape == "text":
        return _glyph_t(-1.15, -0.05, -0.7, 0.7) + _glyph_a(0.05, 1.15, -0.7, 0.7)
    raise ValueError(f"unknown shape {shape!r}")


def hole_polygons(
    shape: str, size: str, quarter: int, centre: tuple[float, float] | np.ndarray = (0.0, 0.0), *, mirrored: bool = False
) -> list[np.ndarray]:
    """Polygons (float[N, 2], sheet units, y up, counter-clockwise) whose union draws one hole.

    `quarter` turns the shape counter-clockwise by quarter * 90 degrees as the viewer sees it;
    `mirrored` shows the glyph from the back (reflected left-right before turning), for result holes
    whose layer was flipped. Only "text" changes visibly: every other shape is left-right symmetric.
    """
    scale = SIZE_SCALE[size]
    cos, sin = [(1, 0), (0, 1), (-1, 0), (0, -1)][quarter % 4]
    turn = np.array([[cos, -sin], [sin, cos]], dtype=float)
    flip = np.diag([-1.0, 1.0]) if mirrored else np.eye(2)
    linear = scale * turn @ flip
    polygons = []
    for unit in _unit_polygons(shape):
        points = unit @ linear.T + np.asarray(centre, dtype=float)
        polygons.append(points[::-1].copy() if mirrored else points)  # a reflection reverses winding
    return polygons


@dataclass(frozen=True)
class Cut:
    """One hole through one layer, on the flat sheet (sheet units): its centre, the pivot the punch
    grows it about, and the polygons whose union is its outline."""

    centre: np.ndarray  # float[2]
    polygons: tuple[np.ndarray, ...]  # float[N, 2] each
    hole: int = 0  # which initial hole (index into the config's holes) the punch made it for


def fan_triangles(polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Triangulate one polygon of `hole_polygons` as a fan about its vertex mean.

    Returns (vertices float[N+1, 2] with the mean last, faces int[N, 3] counter-clockwise).
    """
    n = len(polygon)
    vertices = np.concatenate([polygon, polygon.mean(axis=0, keepdims=True)])
    index = np.arange(n)
    faces = np.stack([np.full(n, n), index, (index + 1) % n], axis=1)
    return vertices, faces


def outline_polygons(shape: str, size: str, degrees: float, centre: tuple[float, float] | np.ndarray = (0.0, 0.0)
                     ) -> list[np.ndarray]:
    """`hole_polygons` for a general item's punch: turned by any whole number of `degrees`
    counter-clockwise (quarter turns give exactly `hole_polygons`'s points). A shape or size this
    module does not draw is drawn as a small circle's outline would be: a circle, or the small size."""
    if degrees % 90 == 0:
        known = shape if shape in _SHAPES else "circle"
        return hole_polygons(known, size if size in SIZE_SCALE else "small", int(degrees // 90) % 4, centre)
    angle = np.radians(degrees)
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    linear = SIZE_SCALE.get(size, SIZE_SCALE["small"]) * turn
    units = _unit_polygons(shape if shape in _SHAPES else "circle")
    return [unit @ linear.T + np.asarray(centre, dtype=float) for unit in units]


#: the shapes `_unit_polygons` draws
_SHAPES = ("circle", "ellipse", "square", "rectangle", "triangle", "trapezoid", "star", "letter", "text")
