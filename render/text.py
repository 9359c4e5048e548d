"""The benchmark's text representation (formats §4.2-§4.4): one 4-line grid per state.

Each of the 32 grid positions gets one character: the hole letter if a hole is drawn there
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
from ..kernels.sheet import GRID, N_TRIANGLES
from ..trace import Trace

CELLS_PER_ROW = GRID
CHARS_PER_ROW = N_TRIANGLES // GRID


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


def grid_text(chars: Sequence[str]) -> str:
    """The 4-line grid: per row four 2-character cells joined by ", ", every line ending with ","."""
    if len(chars) != N_TRIANGLES:
        raise ValueError(f"a grid needs {N_TRIANGLES} characters, got {len(chars)}")
    rows = []
    for r in range(GRID):
        row = chars[r * CHARS_PER_ROW : (r + 1) * CHARS_PER_ROW]
        rows.append(", ".join(row[2 * c] + row[2 * c + 1] for c in range(CELLS_PER_ROW)) + ",")
    return "\n".join(rows)


def _all_paper() -> np.ndarray:
    return np.ones(N_TRIANGLES, dtype=bool)


def steps_text(trace: Trace) -> str:
    """`<id>_textual_steps.txt`: the initial sheet, the grid after every action (rotations
    included) and, when there are punches, the final folded grid with the initial holes."""
    require_ok(trace)
    blocks = [f"Step 0: initial sheet\n{grid_text(grid_chars(_all_paper()))}\n"]
    for k in range(1, len(trace.steps) + 1):
        blocks.append(f"Step {k}: \n{grid_text(grid_chars(trace.paper(k)))}\n")
    if trace.config.holes:
        final = trace.paper(len(trace.steps))
        blocks.append(f"Hole Punching:\n{grid_text(grid_chars(final, trace.config.holes))}\n")
    return "\n".join(blocks)


def final_text(trace: Trace) -> str:
    """`<id>_textual_final_result.txt`: the unfolded sheet with the result holes (no final newline)."""
    require_ok(trace)
    return f"Final Result:\n{grid_text(grid_chars(_all_paper(), trace.result.holes))}"


def text_dir(out_dir: str | Path, item_id: str) -> Path:
    """Where the benchmark keeps an item's text files: `<out>/img_text_outputs/<id>/text`."""
    return Path(out_dir) / "img_text_outputs" / item_id / "text"


def write_text(trace: Trace, out_dir: str | Path, item_id: str) -> list[Path]:
    """Write both text files of one item under the dataset root `out_dir`, atomically."""
    folder = text_dir(out_dir, item_id)
    files = {folder / f"{item_id}_textual_steps.txt": steps_text(trace),
             folder / f"{item_id}_textual_final_result.txt": final_text(trace)}
    for path, content in files.items():
        atomic_write_text(path, content)
    return list(files)
