"""Every size bound of the general engine in one place, with where it comes from (docs/errors.md,
General records). Input beyond a bound is refused before any work, naming the bound.

Two kinds of bound live here:

- record bounds (what one general item may hold), derived from the engine's int32 integer lattice
  (foldsim.engine, foldsim/kernels/engine.py): a sheet's lattice coordinates are X = 2r x - r cols, so with
  |X| <= MAX_LATTICE_SIDE and denominators <= MAX_DENOMINATOR every product the kernel forms (box
  lines lo * den + (hi - lo) * num, punch cross products, away-from side tests) stays below 2**31;
- memory-derived bounds (triangles, punches and actions per item, rows per kernel call): the
  kernel's arrays grow with triangles x punches x rows, so these are set from measured bytes per
  element (owned by the memory/size work of issue 28; adjust here, not at the call sites).
"""

from __future__ import annotations

#: the biggest sheet side in cells (cols and rows each)
MAX_SHEET_SIDE = 64
#: the largest lattice coordinate magnitude of a mesh vertex (r * side); products of two such values
#: and a denominator stay far below 2**31
MAX_LATTICE_SIDE = 1 << 13
#: the largest denominator of an exact number read from a record (a punch, a point, a line's `at` or
#: `box`): a point (X/D, Y/D) is kept as D-scaled int32, |X| * D <= 2**15 * 2**12 = 2**27, so its
#: cross products with mesh edges (each coordinate <= 2) stay below 2**29
MAX_DENOMINATOR = 1 << 12
#: the largest magnitude of a coordinate or line offset read from a record, in cells: four times the
#: largest sheet side, so any point or line near any sheet is accepted (and answered, e.g. off_paper,
#: not_realizable) while its lattice value, 2r x with r * side <= MAX_LATTICE_SIDE, stays within
#: 2**15 once refined; beyond it nothing can touch a sheet
MAX_COORDINATE = 4 * MAX_SHEET_SIDE
#: the largest lattice value (|X|, |Y| of a punch or point, |c| of a line) encoded into a kernel row
MAX_LATTICE_VALUE = 4 * MAX_LATTICE_SIDE
#: characters of a number written as a string ("p/q", "0.25", "1e-3"); exponents beyond
#: MAX_EXPONENT are refused before Python expands them ("1e99999999" would take minutes)
MAX_NUMBER_CHARS = 40
MAX_EXPONENT = 40
#: triangles of one item's mesh (4 cols rows r^2): the kernel holds per-triangle state for every row
MAX_TRIANGLES = 1 << 16
#: punches of one item: a row's punch output is bool[P, T] (memory grows with punches x triangles)
MAX_PUNCHES = 256
#: actions (folds, rotations, flips) of one item: each is one scanned kernel step
MAX_ACTIONS = 64

# -- inputs and media (the reading and rendering side of issue 28; docs/errors.md, "Output paths and
# file names") -------------------------------------------------------------------------------------

#: bytes of one input file foldsim reads (records, answers): json.loads holds about 10 bytes of
#: Python objects per byte of a records file (measured: 9.6 on 200,000 general items, 34 MB), so
#: 1 GiB of JSON is a ~10 GB parse; a stream that never ends (/dev/zero, a pipe) is cut off here
#: instead of filling memory
MAX_INPUT_BYTES = 1 << 30
#: pixels of a 3-D frame's side (--width, --height): one RGBA frame of 4096 x 4096 is 64 MiB, and the
#: renderer holds a few (its framebuffer, the read-back, the encoder's pipe) at once
MAX_FRAME_SIDE = 4096
#: frames per second of a video (--fps, --folding-fps, --unfolding-fps)
MAX_FPS = 120
#: frames of one action, fps x --seconds-per-action (and of a hold, fps x hold_seconds): the punch
#: keeps one hole texture per frame while it grows (about half of the frames are distinct), each up
#: to 2048 x 2048 texels x 4 bytes = 16 MiB (render/scene.py MAX_TEXTURE_PIXELS, a family look's RGBA
#: paint), so 120 frames hold at most ~1 GiB; the frames of an item are this times its actions
#: (MAX_ACTIONS) plus the holds, streamed to the encoder one at a time (measured: an 8 x 8 sheet in the
#: SpatialViz look peaks at 1.62 GB resident at 120 frames per action, 0.84 GB at the default 24)
MAX_FRAMES_PER_ACTION = 120

# -- memory: bytes per kernel row, the bounds derived from them (issue 28's size work; docs/errors.md,
# "Sizes and bounds"; measured by `python -m benchmarks.kernel_memory`, which prints XLA's compiled
# buffer sizes beside these formulas: each formula is an upper bound, 1.1x-1.8x the measurement
# from 64 triangles up, more on the smallest sheets, where a few KB of fixed cost dominate) --------

#: what one kernel row may need at the record bounds: simulate_row_bytes(MAX_TRIANGLES, MAX_ACTIONS,
#: MAX_PUNCHES) stays below it (683 MB), so a row at the bounds runs wherever 1 GiB is free
MAX_ROW_BYTES = 1 << 30
#: rows of one kernel call: the most a chunk derived from the memory budget may hold (beyond it the
#: rows/s no longer grow, benchmarks/scaling); a call of fewer rows is chunked further, down to one row
MAX_ROWS_PER_CALL = 65_600
#: configurations of one `enumerate/solve --sheet` space, whatever the memory: its fold sequences are
#: int16 alphabet indices and its plan indices int64 (the memory bound is usually far lower:
#: memory budget / space_configuration_bytes)
MAX_SPACE_CONFIGURATIONS = 50_000_000
#: bytes one generated family item holds until its run writes them all atomically (foldsim's record
#: and the native one): measured with tracemalloc over 200 items, peak per item while generating
#: spatialviz 52 KB, visfactor 26 KB, srbench 65 KB (20-35 KB kept), rounded up
FAMILY_ITEM_BYTES = 64 << 10
#: a pfp item's bytes (a family's `item_bytes`): its records keep every folded state and the exact
#: outlines of every option's cut-outs; measured with tracemalloc over 96 items, 66 KB kept and 76 KB
#: peak per item (visworld 30, the cube-net families at most 49 peak: within FAMILY_ITEM_BYTES)
PFP_ITEM_BYTES = 96 << 10
#: items of one `generate --family` run, whatever the memory: 100,000 x FAMILY_ITEM_BYTES = 6.1 GiB;
#: a smaller memory budget lowers it (budget // the family's item bytes, never below 1 GiB's worth);
#: larger sets are several runs (with --first-id for mentalblackboard, other seeds for the others)
MAX_FAMILY_COUNT = 100_000


def simulate_row_bytes(triangles: int, actions: int, punches: int) -> int:
    """Bytes one row of `kernels.engine.simulate_mesh_batch` holds at its peak (inputs, outputs and
    XLA's temporaries): per-triangle state, a few bytes per scanned step and, dominating, the
    per-punch hit and dedupe arrays over every triangle (bool/int32 [P, T] several times over;
    measured 36-39 bytes per punch and triangle from T = 256 up)."""
    return 160 * triangles + 64 * actions + punches * (40 * triangles + 4096)


def space_child_bytes(triangles: int, punches: int, words: int) -> int:
    """Bytes one child (prefix x one fold of the alphabet) of the configuration-space extender holds
    at its peak: its folded state and, when punched, every punch's hole bit set built over every
    triangle (uint32[P, T, words] before the OR-reduction)."""
    return 1024 + 40 * triangles + punches * (4 * triangles * (words + 4) + 4 * words)


def space_configuration_bytes(triangles: int, punches: int, words: int, folds: int) -> int:
    """Host bytes one kept configuration of a space holds: its sequence (int16 per fold), its holes
    (uint32[P, words] + bool[P]) and, for the next level, its folded state (~40 bytes a triangle),
    twice (the level's chunks and their concatenation)."""
    return 2 * (2 * folds + punches * (4 * words + 1) + 40 * triangles)
