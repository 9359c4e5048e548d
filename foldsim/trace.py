"""Step-by-step history of one configuration, for everything that draws it (text grids, 2-D images,
3-D animation): the sheet after every action, what each action moved, and the continuous motion."""

from __future__ import annotations

from dataclasses import dataclass

import jax
import numpy as np

from . import kernels as K
from .kernels import motion as M
from .batching import pad_columns
from .codes import parse_action
from .config import Config
from .errors import InputError
from .simulate import MIN_ACTION_COLUMNS, Result, simulate_one


@dataclass(frozen=True)
class Step:
    """One action: its code, the sheet before and after it, and which triangles it moved."""

    index: int  # 0-based action index
    code: str
    before: K.Sheet  # NumPy arrays
    after: K.Sheet
    moving: np.ndarray  # bool[32], indexed by flat triangle
    crease: np.ndarray | None  # float[2, 2]: two crease points in sheet units, None for rotations

    @property
    def is_fold(self) -> bool:
        return not self.code.startswith("R-")

    def motion(self) -> M.Motion:
        """The continuous motion of this step, for `foldsim.kernels.motion.positions`."""
        crease = np.zeros((2, 2)) if self.crease is None else self.crease * 4  # back to quarter units
        return M.motion_of(self.before, self.after, self.moving, crease, parse_action(self.code))


@dataclass(frozen=True)
class Trace:
    """The whole history of a realizable configuration (steps stop at the first failing fold)."""

    config: Config
    steps: tuple[Step, ...]
    result: Result

    def sheet(self, k: int) -> K.Sheet:
        """The sheet after k actions (k = 0: flat)."""
        return self.steps[k - 1].after if k else _flat()

    def paper(self, k: int) -> np.ndarray:
        """bool[32]: which grid positions hold paper after k actions (the rest is the folded region)."""
        return layers_on_grid(self.sheet(k)) > 0

    def layers(self, k: int) -> np.ndarray:
        """int[32]: layer count on each grid position after k actions."""
        return layers_on_grid(self.sheet(k))


def _flat() -> K.Sheet:
    return jax.device_get(K.flat_sheet())


def layers_on_grid(sheet: K.Sheet) -> np.ndarray:
    """int[32]: how many triangles lie on each grid position of `sheet` (host-side NumPy: drawing
    code calls this per step, where a device round trip would dominate)."""
    sums = np.einsum("tij,tj->ti", sheet.linear, K.sheet.FLAT_CENTROID_SUMS) + 3 * np.asarray(sheet.shift)
    index = K.sheet.grid_index_of_centroid_sums(sums)
    return np.bincount(index[index >= 0], minlength=32)


def trace(config: Config | dict) -> Trace:
    """Simulate one configuration and keep every intermediate sheet. A record that cannot be read
    raises an InputError naming the item and field (the simulator's `invalid` reason)."""
    result = simulate_one(config)
    config = result.config
    if config is None:
        raise InputError(result.reason)
    width = max(MIN_ACTION_COLUMNS, len(config.actions))
    actions = pad_columns([[parse_action(a) for a in config.actions]], width, K.actions.NOOP)[0]
    sheets, infos, status = jax.device_get(K.trace(actions))
    n_done = len(config.actions) if int(status.code) == K.OK else int(status.step)
    steps = []
    for i in range(n_done):
        code = config.actions[i]
        crease = None if code.startswith("R-") else np.asarray(infos.crease_ends[i], float) / 4
        steps.append(Step(i, code, _at(sheets, i), _at(sheets, i + 1), np.asarray(infos.moving[i]), crease))
    return Trace(config, tuple(steps), result)


def _at(sheets: K.Sheet, k: int) -> K.Sheet:
    """The k-th sheet of a stacked history."""
    return jax.tree.map(lambda x: np.asarray(x[k]), sheets)
