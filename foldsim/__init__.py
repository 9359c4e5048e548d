"""foldsim: an exact, batched, differentiable simulator of the Paper Folding & Hole Punching test.

Quick start::

    import foldsim
    cfg = foldsim.Config.from_codes("D1-F,H1-F,R-90", [foldsim.Hole.make("star", "large", 0, 25)])
    [result] = foldsim.simulate([cfg])
    result.holes, result.unfolding, result.layers

Main entry points:
    simulate(batch)        Config objects or MentalBlackboard records -> list of Result
    Config, Hole, Result   the item, hole and answer types
    check_file(path)       re-simulate a MentalBlackboard file and compare (SPEC §6)
    foldsim.kernels        the JAX core (integer lattice, vmap + jit)
"""

from .check import FileCheck, ItemCheck, check_file, check_records
from .codes import action_code, canonical_code, parse_action, parse_codes
from .config import Config
from .errors import InputError
from .holes import SHAPES, SIZES, Hole, parse_hole
from .simulate import Result, simulate, simulate_one

__all__ = [
    "FileCheck", "ItemCheck", "check_file", "check_records", "action_code", "canonical_code",
    "parse_action", "parse_codes", "Config", "InputError", "SHAPES", "SIZES", "Hole", "parse_hole",
    "Result", "simulate", "simulate_one",
]

try:  # the installed distribution's version (pyproject.toml), one source of truth
    from importlib.metadata import PackageNotFoundError, version as _version

    __version__ = _version("foldsim")
except PackageNotFoundError:  # sources on sys.path without an install
    __version__ = "0+unknown"
