"""foldsim.kernels: the JAX core. Pure integer functions over the 32-triangle sheet, vmapped over
configurations and jitted (SPEC §1-§4); the differentiable 3-D motion lives in `motion`."""

from . import actions, sheet
from .punch import Unfolded, unfold, unfolding_codes
from .simulate import (
    CompactPunched,
    Folded,
    Punched,
    fold_batch,
    fold_one,
    simulate_batch,
    simulate_compact_batch,
    simulate_compact_one,
    simulate_one,
    trace,
    trace_one,
)
from .state import (
    CREASE_CUTS_TRIANGLE,
    EMPTY_SIDE,
    OBLIQUE_CREASE,
    OFF_PAPER,
    OK,
    STATUS_NAMES,
    Sheet,
    Status,
    current_vertices,
    flat_sheet,
)
from .step import StepInfo, apply_action

__all__ = [
    "actions", "sheet", "Unfolded", "unfold", "unfolding_codes", "Folded", "Punched", "CompactPunched",
    "fold_batch", "fold_one", "simulate_batch", "simulate_one", "simulate_compact_batch", "simulate_compact_one",
    "trace", "trace_one", "CREASE_CUTS_TRIANGLE",
    "EMPTY_SIDE", "OBLIQUE_CREASE", "OFF_PAPER", "OK", "STATUS_NAMES", "Sheet", "Status",
    "current_vertices", "flat_sheet", "StepInfo", "apply_action",
]
