"""Difficulty levels: one integer score per item and the easy / medium / hard presets over it.

The score adds one point for each thing a solver must track:

    level = folds + rotations + stack + (punches - 1) + scarcity

- folds, rotations: the actions of the item (rotations 0 for planning, which has none);
- stack = floor(log2(L)), L the largest number of paper layers a single punch goes through (a
  punch through 2 layers gives 1, 4 or 6 layers 2, 8 layers 3, 16 layers 4): each doubling of the
  stack is one more fold to undo at that spot;
- punches: the initial holes (1-3; a planning answer needs as many punches);
- scarcity (planning only): 1 when the solver finds fewer than 4^(folds-1) distinct plans (1, 4,
  16, 64 for 1-4 folds; about the median count of published tasks with that many folds), so the
  target pins the plan down more than usual; 0 otherwise, and 0 when the count is unknown.

Presets are ranges of the score, the same for every task: easy <= 4, medium 5-6, hard >= 7. On
the reference's structure groups a prediction item scores 2 (one fold, one punch) to 10 (six steps
with rotations, a deep stack, three punches); a planning item 2 to 9.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..codes import is_rotation
from ..errors import InputError
from ..simulate import Result


@dataclass(frozen=True)
class Preset:
    """A named range of levels, both ends included (None = open)."""

    name: str
    low: int | None
    high: int | None

    def contains(self, level: int) -> bool:
        return (self.low is None or level >= self.low) and (self.high is None or level <= self.high)

    def describe(self) -> str:
        if self.low is None:
            return f"level <= {self.high}"
        if self.high is None:
            return f"level >= {self.low}"
        return f"level {self.low}-{self.high}"


PRESETS = {
    "easy": Preset("easy", None, 4),
    "medium": Preset("medium", 5, 6),
    "hard": Preset("hard", 7, None),
}


def preset(name: str) -> Preset:
    """The preset of a name; InputError naming --level otherwise."""
    if name not in PRESETS:
        raise InputError(f"unknown level {name!r} (expected one of {', '.join(PRESETS)})", field="--level")
    return PRESETS[name]


def stack_points(max_layers: int) -> int:
    """floor(log2(max_layers)); 0 for a punch through one layer (or none)."""
    return max(int(max_layers), 1).bit_length() - 1


def scarcity_points(folds: int, solutions: int | None) -> int:
    """1 when a planning target has fewer than 4^(folds-1) solutions, else 0 (unknown count: 0)."""
    if solutions is None or folds < 1:
        return 0
    return int(solutions < 4 ** (folds - 1))


def level_score(folds: int, rotations: int, max_layers: int, punches: int, solutions: int | None = None) -> int:
    """The documented difficulty score (module docstring). Pure: the same inputs, the same level."""
    return folds + rotations + stack_points(max_layers) + max(punches - 1, 0) + scarcity_points(folds, solutions)


def max_layers_under_a_punch(layers: Mapping[int, int], locations: Sequence[int]) -> int:
    """The largest layer count at any punch location (grid ids), from a folded state."""
    return max((layers.get(location, 0) for location in locations), default=0)


def level_of(result: Result, solutions: int | None = None) -> int:
    """The level of a simulated item: its configuration's actions and holes, the folded state's
    layers, and (planning) its solution count."""
    actions = result.config.actions
    rotations = sum(map(is_rotation, actions))
    locations = [hole.location for hole in result.config.holes]
    return level_score(len(actions) - rotations, rotations, max_layers_under_a_punch(result.layers, locations),
                       len(locations), solutions)


def record_solutions(record: dict) -> int | None:
    """The `numberofSolutions` of a planning record, None when absent or not a count."""
    value = record.get("numberofSolutions")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def add_levels(records: Sequence[dict], results: Sequence[Result]) -> None:
    """Set `level` on every record from its simulation result (and its `numberofSolutions`)."""
    for record, result in zip(records, results):
        record["level"] = level_of(result, record_solutions(record))
