"""kernel_memory: XLA's buffer sizes of the general engine's kernel calls, per shape, and the fit
that `foldsim.limits` states as bytes per row (docs/errors.md, "Sizes and bounds").

    python -m benchmarks.kernel_memory [--quick]

Compiles (never runs) `simulate_mesh_batch` (the `simulate` path: rows x actions x punches on a
mesh of T triangles) and the configuration-space extender of `foldsim.sheet_extender` (one prefix
times an alphabet of A folds, every punch of the set hashed into a bit set of W words) on a few
shapes, reads XLA's compiled memory analysis (arguments + outputs + temporaries - aliased), and
prints each measurement beside the model in `foldsim.limits` and their ratio. The model must stay at
or above the measurement (ratio >= 1) for every shape: it bounds, it does not estimate.
"""

from __future__ import annotations

import json
import sys

import jax
import numpy as np

from foldsim import limits
from foldsim.engine import rectangle_mesh
from foldsim.kernels import engine as E
from foldsim.sheet_extender import extender
from foldsim.sheet_space import PositionGrid, SheetFamily


def xla_peak(compiled) -> int:
    """Bytes one call of a compiled executable holds at its peak (XLA's buffer assignment)."""
    stats = compiled.memory_analysis()
    return (stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes
            - stats.alias_size_in_bytes)


def simulate_call(side: int, rows: int, actions: int, punches: int) -> dict:
    mesh = rectangle_mesh(side, side, 1)
    spec = [jax.ShapeDtypeStruct(mesh.shape, np.int32), jax.ShapeDtypeStruct((rows, actions, E.ACTION_WIDTH), np.int32),
            jax.ShapeDtypeStruct((rows, punches, 3), np.int32)]
    peak = xla_peak(E.simulate_mesh_batch.lower(*spec).compile())
    model = rows * limits.simulate_row_bytes(len(mesh), actions, punches)
    return {"call": "simulate", "sheet": f"{side}x{side}", "triangles": len(mesh), "rows": rows, "actions": actions,
            "punches": punches, "xla_bytes": peak, "model_bytes": model, "model/xla": round(model / peak, 2)}


def extender_call(side: int, prefixes: int, masks: bool) -> dict:
    family = SheetFamily(side, side, 1)
    mesh = rectangle_mesh(side, side, 1)
    alphabet, punches = family.alphabet_rows(1), family.punch_rows(1)
    grid = PositionGrid(side, side, 1, family.punch_denominator(1))
    step = extender(grid.offset, grid.side, grid.words, True, masks)
    state = jax.eval_shape(E.initial_state, jax.ShapeDtypeStruct(mesh.shape, np.int32))
    states = jax.tree.map(lambda x: jax.ShapeDtypeStruct((prefixes, *x.shape), x.dtype), state)
    peak = xla_peak(step.lower(mesh, states, alphabet, punches).compile())
    per_child = limits.space_child_bytes(len(mesh), len(punches) if masks else 0, grid.words)
    model = prefixes * len(alphabet) * per_child
    return {"call": "enumerate" + (" (punched)" if masks else ""), "sheet": f"{side}x{side}", "triangles": len(mesh),
            "alphabet": len(alphabet), "prefixes": prefixes, "punches": len(punches), "words": grid.words,
            "xla_bytes": peak, "model_bytes": model, "model/xla": round(model / peak, 2)}


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    shapes = [(2, 8, 4, 2), (4, 8, 4, 2), (4, 8, 16, 64), (8, 8, 4, 16), (16, 8, 4, 64)]
    shapes += [] if quick else [(8, 8, 64, 256), (16, 1, 4, 256), (32, 1, 4, 64)]
    for shape in shapes:
        print(json.dumps(simulate_call(*shape)), flush=True)
    for side, prefixes, masks in [(2, 4, True), (3, 4, True), (4, 16, True), (4, 16, False),
                                  *([] if quick else [(6, 4, True), (8, 1, True)])]:
        print(json.dumps(extender_call(side, prefixes, masks)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
