"""Answer-versus-truth drawings of the numbered sheet, as inline SVG.

Every sheet in a page is the same numbered triangles (MentalBlackboard's 32, the `TriangleSheet` the
page passes in) and every hole one of a few glyphs (shape, size, direction class), so both are
defined once per page (`definitions`) and each drawing is a few `<use>` references (`sheet_svg`): a
page of hundreds of items stays small and crisp at any zoom, and the colours of the marks come from
the page's CSS classes (`mk-<kind>`), with a legend. The geometry is the renderer's own (the sheet's
triangles and centroids, foldsim.render.shapes outlines), so a drawn answer lies exactly where the
2-D step images put that hole.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from ...holes import SHAPE_PERIOD, SIZES
from ...mesh import TriangleSheet
from ...render.shapes import hole_polygons

#: mark kinds, in legend order, with their legend text
MARK_KINDS = {
    "match": "right hole",
    "missing": "missing hole (in the {truth}, not in the {answer}: outline)",
    "extra": "extra hole (in the {answer}, not in the {truth})",
    "direction": "wrong direction (the {answer}'s glyph; the {truth}'s outline dashed)",
    "truth": "{truth} hole",
}
#: room around the sheet in its view box, sheet units
MARGIN = 0.08
#: the glyph drawn for a hole whose shape or size the answer gave in unknown words
FALLBACK_SHAPE, FALLBACK_SIZE = "circle", "small"


@dataclass(frozen=True)
class Mark:
    """One hole to draw: where, which glyph, how (`kind`, a MARK_KINDS key) and a tooltip.

    `shape`/`size` may be words the answer used that name no glyph (then a fallback is drawn);
    `quarter` is None when the answer named no single direction class (drawn at 0);
    `truth_quarter` is the truth's class for a "direction" mark (its outline is drawn too);
    `point` places a hole on a benchmark family's general sheet instead (x, y in cell units from
    the bottom-left corner, drawn by `grid_svg` as a circle).
    """

    kind: str
    shape: str
    size: str
    location: int | None
    quarter: int | None = 0
    truth_quarter: int | None = None
    title: str = ""
    point: tuple[float, float] | None = None


def _number(value: float) -> str:
    """A coordinate in few characters: 3 decimals, no trailing zeros, no negative zero."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _points(polygon) -> str:
    """SVG points of a polygon in sheet units (y up -> SVG y down)."""
    return " ".join(f"{_number(x)},{_number(-y)}" for x, y in polygon)


def glyph_id(shape: str, size: str, quarter: int) -> str:
    """The page-wide id of a hole glyph (direction reduced by the shape's symmetry)."""
    return f"fs-h-{shape}-{size}-{quarter % SHAPE_PERIOD[shape]}"


def glyph_of(shape: str, size: str, quarter: int | None) -> tuple[str, str, int]:
    """The glyph a mark is drawn with: its own when shape and size are known, else the fallback."""
    if shape not in SHAPE_PERIOD or size not in SIZES:
        shape, size = FALLBACK_SHAPE, FALLBACK_SIZE
    return shape, size, (quarter or 0) % SHAPE_PERIOD[shape]


def glyphs_used(marks: Iterable[Mark]) -> set[tuple[str, str, int]]:
    """Every glyph a set of marks needs (the truth outlines of direction marks included)."""
    used = set()
    for mark in marks:
        used.add(glyph_of(mark.shape, mark.size, mark.quarter))
        if mark.kind == "direction" and mark.truth_quarter is not None:
            used.add(glyph_of(mark.shape, mark.size, mark.truth_quarter))
    return used


def view_box(sheet: TriangleSheet) -> str:
    """The SVG view box around the centred sheet (y flipped for SVG), MARGIN to spare."""
    half_w, half_h = sheet.cols / 2, sheet.rows / 2
    return f"{-half_w - MARGIN:g} {-half_h - MARGIN:g} {sheet.cols + 2 * MARGIN:g} {sheet.rows + 2 * MARGIN:g}"


def definitions(glyphs: Iterable[tuple[str, str, int]], *, sheet: TriangleSheet) -> str:
    """One hidden SVG holding the numbered `sheet` and every glyph the page uses (centred at 0, 0)."""
    triangles = "".join(f'<polygon points="{_points(t)}"/>' for t in sheet.triangles)
    numbers = "".join(f'<text x="{_number(x)}" y="{_number(-y)}">{i + 1}</text>'
                      for i, (x, y) in enumerate(sheet.centroids))
    parts = [f'<g id="fs-sheet"><g class="fs-paper">{triangles}</g><g class="fs-ids">{numbers}</g></g>']
    for shape, size, quarter in sorted(set(glyphs) | {glyph_of(FALLBACK_SHAPE, FALLBACK_SIZE, 0)}):
        polygons = "".join(f'<polygon points="{_points(p)}"/>' for p in hole_polygons(shape, size, quarter))
        parts.append(f'<g id="{glyph_id(shape, size, quarter)}">{polygons}</g>')
    return f'<svg class="fs-defs" aria-hidden="true" width="0" height="0"><defs>{"".join(parts)}</defs></svg>'


def _use(sheet: TriangleSheet, shape: str, size: str, quarter: int | None, location: int, css: str,
         title: str = "") -> str:
    shape, size, quarter = glyph_of(shape, size, quarter)
    x, y = sheet.centroids[location - 1]
    tip = f"<title>{escape(title)}</title>" if title else ""
    return f'<use href="#{glyph_id(shape, size, quarter)}" x="{_number(x)}" y="{_number(-y)}" class="{css}">{tip}</use>'


def sheet_svg(marks: Sequence[Mark], label: str = "", *, sheet: TriangleSheet) -> str:
    """The numbered `sheet` (as `definitions` drew it) with every mark that has a location (the
    caller lists the others)."""
    body = ['<use href="#fs-sheet"/>']
    for mark in marks:
        if mark.location is None or not 1 <= mark.location <= sheet.n_triangles:
            continue
        if mark.kind == "direction" and mark.truth_quarter is not None:
            body.append(_use(sheet, mark.shape, mark.size, mark.truth_quarter, mark.location, "mk mk-outline"))
        body.append(_use(sheet, mark.shape, mark.size, mark.quarter, mark.location, f"mk mk-{mark.kind}", mark.title))
    aria = f' aria-label="{escape(label)}"' if label else ""
    return f'<svg class="sheet" viewBox="{view_box(sheet)}" role="img"{aria}>{"".join(body)}</svg>'


def legend_html(kinds: Iterable[str] = ("match", "missing", "extra", "direction"), *, truth: str = "truth",
                answer: str = "answer") -> str:
    """The colour key: one swatch (a small star in the mark's style) per kind; `truth` and `answer`
    name what is compared (a record and its simulation, in the browser)."""
    glyph = glyph_id("star", "large", 0)
    rows = []
    for kind in kinds:
        swatch = (f'<svg class="swatch" viewBox="-0.22 -0.22 0.44 0.44" aria-hidden="true">'
                  f'<use href="#{glyph}" class="mk mk-{kind}"/></svg>')
        rows.append(f'<span class="legend-row">{swatch}{escape(MARK_KINDS[kind].format(truth=truth, answer=answer))}</span>')
    return f'<div class="legend">{"".join(rows)}</div>'


# --------------------------------------------------------------------------------------------------
# a benchmark family's general sheet (foldsim generate --family): cols x rows cells, holes at points

#: the drawing's longer side, in the same units as the numbered sheet (so the page's stroke widths fit)
GRID_SIDE = 4.0
#: a hole's radius: this share of a cell, at most GRID_HOLE_MAX
GRID_HOLE_SHARE, GRID_HOLE_MAX = 0.22, 0.18
#: room for the row / column numbers (or the coordinates) around the sheet
GRID_MARGIN = 0.32


def on_sheet(mark: Mark, cols: int, rows: int) -> bool:
    """Whether a mark has a point on (or at the edge of) a cols x rows sheet."""
    return mark.point is not None and 0 <= mark.point[0] <= cols and 0 <= mark.point[1] <= rows


def grid_svg(marks: Sequence[Mark], cols: int, rows: int, label: str = "", *, cells: bool = True) -> str:
    """A family's sheet: its grid of cells, numbered as the task names holes (rows from the top and
    columns from the left for `cells`, else x and y from the bottom-left corner), and every mark
    with a point on it as a circle in the mark's colours (the caller lists the others)."""
    unit = GRID_SIDE / max(cols, rows, 1)
    width, height = cols * unit, rows * unit
    radius = min(GRID_HOLE_MAX, GRID_HOLE_SHARE * unit)

    def at(x: float, y: float) -> tuple[str, str]:
        return _number(x * unit), _number((rows - y) * unit)

    lines = [f'<line x1="{_number(c * unit)}" y1="0" x2="{_number(c * unit)}" y2="{_number(height)}"/>' for c in range(1, cols)]
    lines += [f'<line x1="0" y1="{_number(r * unit)}" x2="{_number(width)}" y2="{_number(r * unit)}"/>' for r in range(1, rows)]
    off = GRID_MARGIN / 2
    if cells:
        axis = [f'<text x="{_number((c + 0.5) * unit)}" y="{_number(-off)}">{c + 1}</text>' for c in range(cols)]
        axis += [f'<text x="{_number(-off)}" y="{_number((r + 0.5) * unit)}">{r + 1}</text>' for r in range(rows)]
    else:
        axis = [f'<text x="{_number(c * unit)}" y="{_number(height + off)}">{c}</text>' for c in range(cols + 1)]
        axis += [f'<text x="{_number(-off)}" y="{_number((rows - r) * unit)}">{r}</text>' for r in range(1, rows + 1)]
    body = [f'<rect class="fs-grid-paper" x="0" y="0" width="{_number(width)}" height="{_number(height)}"/>',
            f'<g class="fs-grid">{"".join(lines)}</g><g class="fs-axis">{"".join(axis)}</g>']
    for mark in marks:
        if not on_sheet(mark, cols, rows):
            continue
        x, y = at(*mark.point)
        tip = f"<title>{escape(mark.title)}</title>" if mark.title else ""
        body.append(f'<circle cx="{x}" cy="{y}" r="{_number(radius)}" class="mk mk-{mark.kind}">{tip}</circle>')
    aria = f' aria-label="{escape(label)}"' if label else ""
    box = f"{_number(-GRID_MARGIN)} {_number(-GRID_MARGIN)} {_number(width + 2 * GRID_MARGIN)} {_number(height + 2 * GRID_MARGIN)}"
    return f'<svg class="sheet grid-sheet" viewBox="{box}" role="img"{aria}>{"".join(body)}</svg>'
