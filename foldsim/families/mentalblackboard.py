"""MentalBlackboard in the family registry: its rules live in `foldsim.rules` (SPEC §5), its sheet is
the model's (`foldsim.mentalblackboard_sheet.SHEET`), and its items come from the benchmark's own
generator (`foldsim generate --task`, written on the families' road by
foldsim.dataset.mentalblackboard_family)."""

from __future__ import annotations

from ..mentalblackboard_sheet import SHEET
from ..mesh import TriangleSheet
from .base import Family, Level


class MentalBlackboardFamily(Family):
    """MentalBlackboard in the family registry: its rules live in `foldsim.rules` (SPEC §5) and its
    items come from `foldsim generate --task` (the benchmark's own record format)."""

    name = "mentalblackboard"
    summary = "MentalBlackboard: 4x4 sheet of 32 triangles, half folds and box diagonals, rotations (SPEC)"
    levels = {"all": Level("all", 4, 4, (1, 4), (1, 3))}
    lines = "the current box's midlines and (square box) diagonals: H1 H2 V1 V2 D1..D4"
    side_rule = "named by the fold code"
    punch_rule = "1-3 shaped holes at triangle centroids"
    n_options = 5
    native_file = ""

    def mesh(self, level=None) -> TriangleSheet:
        return SHEET

    def count_space(self, level, on_progress=None) -> dict:
        from ..enumerate import enumeration_report

        report = enumeration_report("physical", on_progress=on_progress)
        return {"family": self.name, "level": level.name, **report.summary(),
                "configurations": report.summary()["total"]}
