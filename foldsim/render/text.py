"""The benchmark's text representation (formats §4.2-§4.4): one grid per state, a line per row of
cells of the sheet passed in (MentalBlackboard's: 4 lines of 4 two-triangle cells).

Each triangle (grid position) gets one character: the hole letter if a hole is drawn there
(upper case large, lower case small), else `0` for the folded region (no paper left there) or `1`
for paper. Only items the simulator answered ("ok") are drawn: for an unrealizable fold or a punch
off the paper there is no true picture to show, so every renderer raises `InputError` instead of
drawing a plausible-looking wrong one (the reference drew such items anyway, see formats §4.3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..holes import SHAPE_LETTER, Hole
from ..io import atomic_write_text
from ..mesh import TriangleSheet
from ..trace import Trace


def require_ok(trace: Trace) -> None:
    """Raise InputError (naming the item) unless the simulator answered this item: renderers draw
    only realizable items whose punches land on paper."""
    result = trace.result
    if not result.ok:
        raise InputError(f"cannot render: {result.reason}", item=trace.config.id)


def hole_letter(hole: Hole) -> str:
    """The text-grid letter of a hole: upper case unless it is small (formats §4.2)."""
    letter = SHAPE_LETTER.get(hole.shape, "?")
    return letter.lower() if hole.size == "small" else letter


def grid_chars(paper: np.ndarray, holes: Iterable[Hole] = ()) -> list[str]:
    """One character per grid position: `1` paper, `0` folded region, a hole letter over either."""
    chars = ["1" if on_paper else "0" for on_paper in np.asarray(paper, dtype=bool)]
    for hole in holes:
        chars[hole.location - 1] = hole_letter(hole)
    return chars


def grid_text(chars: Sequence[str], *, sheet: TriangleSheet) -> str:
    """The grid of `sheet` (triangles numbered row by row): a line per row of cells, its cells'
    characters (2 each on MentalBlackboard's sheet) joined by ", ", every line ending with ","."""
    if len(chars) != sheet.n_triangles:
        raise ValueError(f"a grid needs {sheet.n_triangles} characters, got {len(chars)}")
    per_row = sheet.triangles_per_row
    per_cell = per_row // sheet.cols
    rows = []
    for r in range(sheet.rows):
        row = chars[r * per_row : (r + 1) * per_row]
        rows.append(", ".join("".join(row[c * per_cell : (c + 1) * per_cell]) for c in range(sheet.cols)) + ",")
    return "\n".join(rows)


def steps_text(trace: Trace, *, sheet: TriangleSheet) -> str:
    """`<id>_textual_steps.txt`: the initial sheet, the grid after every action (rotations
    included) and, when there are punches, the final folded grid with the initial holes."""
    require_ok(trace)
    blocks = [f"Step 0: initial sheet\n{grid_text(grid_chars(sheet.everywhere()), sheet=sheet)}\n"]
    for k in range(1, len(trace.steps) + 1):
        blocks.append(f"Step {k}: \n{grid_text(grid_chars(trace.paper(k)), sheet=sheet)}\n")
    if trace.config.holes:
        final = trace.paper(len(trace.steps))
        blocks.append(f"Hole Punching:\n{grid_text(grid_chars(final, trace.config.holes), sheet=sheet)}\n")
    return "\n".join(blocks)


def final_text(trace: Trace, *, sheet: TriangleSheet) -> str:
    """`<id>_textual_final_result.txt`: the unfolded sheet with the result holes (no final newline)."""
    require_ok(trace)
    return f"Final Result:\n{grid_text(grid_chars(sheet.everywhere(), trace.result.holes), sheet=sheet)}"


def text_dir(out_dir: str | Path, item_id: str) -> Path:
    """Where the benchmark keeps an item's text files: `<out>/img_text_outputs/<id>/text`."""
    return Path(out_dir) / "img_text_outputs" / item_id / "text"


def write_text(trace: Trace, out_dir: str | Path, item_id: str, *, sheet: TriangleSheet) -> list[Path]:
    """Write both text files of one item under the dataset root `out_dir`, atomically."""
    folder = text_dir(out_dir, item_id)
    files = {folder / f"{item_id}_textual_steps.txt": steps_text(trace, sheet=sheet),
             folder / f"{item_id}_textual_final_result.txt": final_text(trace, sheet=sheet)}
    for path, content in files.items():
        atomic_write_text(path, content)
    return list(files)
