"""Every size bound of the general engine in one place, with where it comes from (docs/errors.md,
General records). Input beyond a bound is refused before any work, naming the bound.

Two kinds of bound live here:

- record bounds (what one general item may hold), derived from the engine's int32 integer lattice
  (foldsim.engine, kernels/engine.py): a sheet's lattice coordinates are X = 2r x - r cols, so with
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
