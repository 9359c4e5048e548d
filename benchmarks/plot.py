"""Line charts drawn with Pillow (no plotting library): side-by-side panels, each with axes, ticks,
axis labels, optional log scales and a legend. Enough for benchmarks/scaling.png."""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from foldsim.io import atomic_write_bytes

Colour = tuple[int, int, int]
SUPERSAMPLE = 2  # drawn at twice the size, then downsampled: smooth lines without antialiasing support
PANEL_SIZE = (640, 520)
MARGIN = {"left": 92, "right": 24, "top": 44, "bottom": 112}  # the legend sits below the x label
LEGEND_COLUMNS = 2
INK, GRID, BACKGROUND = (30, 30, 30), (225, 225, 225), (255, 255, 255)


@dataclass(frozen=True)
class Series:
    name: str
    xs: Sequence[float]
    ys: Sequence[float]
    colour: Colour
    dashed: bool = False
    markers: bool = True


@dataclass(frozen=True)
class Panel:
    title: str
    x_label: str
    y_label: str
    series: Sequence[Series]
    log_x: bool = False
    log_y: bool = False
    x_format: Callable[[float], str] = str
    y_format: Callable[[float], str] = str


def si_count(value: float) -> str:
    """1, 16, 1K, 16K, 1M."""
    for limit, suffix in ((1e6, "M"), (1e3, "K")):
        if value >= limit:
            scaled = value / limit
            return f"{scaled:.0f}{suffix}" if scaled >= 10 or scaled == int(scaled) else f"{scaled:.1f}{suffix}"
    return f"{value:g}"


def si_seconds(value: float) -> str:
    """1 us, 10 ms, 1 s, 100 s (ASCII: Pillow's bundled font has no micro sign)."""
    for limit, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if value >= limit * 0.999:
            return f"{value / limit:g} {unit}"
    return f"{value * 1e9:g} ns"


def ticks(lo: float, hi: float, log: bool) -> list[float]:
    """Decades on a log axis; 1-2-5 steps (about five of them) on a linear one."""
    if log:
        return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
    raw = (hi - lo) / 5 or 1
    step = min((m * 10 ** math.floor(math.log10(raw)) for m in (1, 2, 5, 10)), key=lambda s: abs(s - raw))
    return [k * step for k in range(math.floor(lo / step), math.ceil(hi / step) + 1)]


def scale(lo: float, hi: float, log: bool, start: float, end: float) -> Callable[[float], float]:
    """Value -> pixel along one axis."""
    f = math.log10 if log else float
    a, b = f(lo), f(hi)
    span = (b - a) or 1.0
    return lambda v: start + (f(v) - a) / span * (end - start)


def _limits(values: list[float], log: bool) -> tuple[float, float]:
    """Axis limits: whole decades on a log axis, the tick range on a linear one."""
    lo, hi = min(values), max(values)
    if log:
        return 10.0 ** math.floor(math.log10(lo)), 10.0 ** math.ceil(math.log10(hi))
    marks = ticks(lo, hi, False)
    return min(marks[0], lo), max(marks[-1], hi)


def _dashed_line(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], colour: Colour, width: int) -> None:
    dash = 6 * SUPERSAMPLE
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        length = math.hypot(x1 - x0, y1 - y0)
        for k in range(0, int(length), 2 * dash):
            t0, t1 = k / length, min(k + dash, length) / length
            draw.line([(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0), (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)],
                      fill=colour, width=width)


def draw_panel(image: Image.Image, panel: Panel, origin: tuple[int, int], font, small) -> None:
    """One panel: frame, grid, ticks, labels, lines, legend, inside the panel box at `origin`."""
    s = SUPERSAMPLE
    draw = ImageDraw.Draw(image)
    ox, oy = origin
    left, right = ox + MARGIN["left"] * s, ox + (PANEL_SIZE[0] - MARGIN["right"]) * s
    top, bottom = oy + MARGIN["top"] * s, oy + (PANEL_SIZE[1] - MARGIN["bottom"]) * s
    x_lo, x_hi = _limits([x for se in panel.series for x in se.xs], panel.log_x)
    y_lo, y_hi = _limits([y for se in panel.series for y in se.ys], panel.log_y)
    px, py = scale(x_lo, x_hi, panel.log_x, left, right), scale(y_lo, y_hi, panel.log_y, bottom, top)
    for x in ticks(x_lo, x_hi, panel.log_x):
        if x_lo <= x <= x_hi:
            draw.line([(px(x), top), (px(x), bottom)], fill=GRID, width=s)
            draw.text((px(x), bottom + 8 * s), panel.x_format(x), fill=INK, font=small, anchor="mt")
    for y in ticks(y_lo, y_hi, panel.log_y):
        if y_lo <= y <= y_hi:
            draw.line([(left, py(y)), (right, py(y))], fill=GRID, width=s)
            draw.text((left - 8 * s, py(y)), panel.y_format(y), fill=INK, font=small, anchor="rm")
    draw.rectangle([left, top, right, bottom], outline=INK, width=s)
    draw.text(((left + right) / 2, oy + 14 * s), panel.title, fill=INK, font=font, anchor="mt")
    draw.text(((left + right) / 2, bottom + 34 * s), panel.x_label, fill=INK, font=font, anchor="mt")
    label = Image.new("RGBA", (int(draw.textlength(panel.y_label, font=font)) + 4, 22 * s), (0, 0, 0, 0))
    ImageDraw.Draw(label).text((2, 0), panel.y_label, fill=INK, font=font)
    upright = label.rotate(90, expand=True)
    image.paste(upright, (ox + 6 * s, int((top + bottom) / 2 - upright.height / 2)), upright)
    for k, se in enumerate(panel.series):
        points = [(px(x), py(y)) for x, y in zip(se.xs, se.ys)]
        if se.dashed:
            _dashed_line(draw, points, se.colour, 2 * s)
        else:
            draw.line(points, fill=se.colour, width=2 * s, joint="curve")
        if se.markers:
            for x, y in points:
                draw.ellipse([x - 4 * s, y - 4 * s, x + 4 * s, y + 4 * s], fill=se.colour)
        row, column = divmod(k, LEGEND_COLUMNS)
        lx, ly = left + column * (right - left) / LEGEND_COLUMNS, bottom + (66 + 20 * row) * s
        sample = [(lx, ly), (lx + 30 * s, ly)]
        _dashed_line(draw, sample, se.colour, 3 * s) if se.dashed else draw.line(sample, fill=se.colour, width=3 * s)
        draw.text((lx + 36 * s, ly), se.name, fill=INK, font=small, anchor="lm")


def png_of_panels(panels: Sequence[Panel]) -> bytes:
    """The panels side by side, as PNG bytes."""
    s = SUPERSAMPLE
    width, height = PANEL_SIZE[0] * len(panels), PANEL_SIZE[1]
    image = Image.new("RGB", (width * s, height * s), BACKGROUND)
    font, small = ImageFont.load_default(size=15 * s), ImageFont.load_default(size=12 * s)
    for i, panel in enumerate(panels):
        draw_panel(image, panel, (i * PANEL_SIZE[0] * s, 0), font, small)
    image = image.resize((width, height), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def write_panels(path: str | Path, panels: Sequence[Panel]) -> Path:
    """Draw the panels into a PNG file, atomically."""
    atomic_write_bytes(path, png_of_panels(panels))
    return Path(path)
