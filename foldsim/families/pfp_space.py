"""The pfp family's fold space, counted exactly (issue 27 item 7; docs/families.md, "pfp", "Spaces").

The family draws each item's folds from a finite vocabulary (`pfp_tasks.draw_steps`): a first
step is one of the 16 folds or a group of 2 to 4 corner folds (in the sorted order the draw
uses), a later step one of the 16 folds made whole or of the top `PARTIAL_LAYERS` layers. So the
fold sequences of 1 to 3 steps on one sheet are finite, and this module walks every one of them on
`foldsim.cutfold`: which the paper can make, which it cannot and why (a partial fold that would
tear, a line with no paper on one side, ...), and how many different folded states (the layers
with their isometries, exact) they end in. A prefix is folded once and its state shared by every
sequence that extends it; a refused prefix refuses all its extensions with its reason, uncounted
fold by fold. The cut placements (whole pixels on the folded paper) are not counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import combinations

from ..cutfold import IDENTITY, Layer, NotRealizable, fold_layers
from ..errors import InputError
from ..polygons import preset_sheet
from . import pfp_rules as R
from .pfp_tasks import step_folds

#: fold sequences one level may walk, over all its sheets: refused before any folding (the
#: vocabulary today gives 5 x (27 + 27 x 32 + 27 x 32 x 32) = 142,695)
MAX_SEQUENCES = 200_000


def first_steps() -> list[list[dict]]:
    """Every first step the draw can make: each fold alone, then each group of corner folds."""
    corners = list(R.CORNER_FOLDS)
    groups = [[dict(R.CORNER_FOLDS[n]) for n in chosen] for size in R.GROUP_SIZES
              for chosen in combinations(corners, size)]
    return [[dict(fold)] for fold in R.FOLDS.values()] + groups


def later_steps() -> list[list[dict]]:
    """Every later step the draw can make: each fold whole, then each fold of the top layers only."""
    return ([[dict(fold)] for fold in R.FOLDS.values()]
            + [[{**fold, "layers": R.PARTIAL_LAYERS}] for fold in R.FOLDS.values()])


def sequence_counts(n_steps: int) -> dict[int, int]:
    """step count -> how many fold sequences of that many steps the vocabulary holds (per sheet)."""
    first, later = len(first_steps()), len(later_steps())
    return {s: first * later ** (s - 1) for s in range(1, n_steps + 1)}


@lru_cache(maxsize=len(R.SHEETS))
def sheet_space(sheet_name: str, n_steps: int) -> dict:
    """For one sheet, every fold sequence of 1..n_steps steps walked: per step count s, "made"
    (realizable), "refused" {reason: n} (the first fold that cannot be made, with the engine's
    reason) and "states" (distinct final states); "distinct" {(lo, hi): distinct final states over
    the sequences of lo..hi steps}. Cached: a pure function of its arguments, which every level of
    one enumeration shares."""
    sheet = preset_sheet(sheet_name, R.SHEET_GRID)
    vocabulary = [step_folds(first_steps()), step_folds(later_steps())]
    frontier = [(Layer(sheet.parts, IDENTITY),)]
    refused_before: Counter = Counter()  # reason -> refused sequences of the previous step count
    made, refused, states = {}, {}, {}
    for s in range(1, n_steps + 1):
        steps = vocabulary[0 if s == 1 else 1]
        here = Counter({reason: n * len(steps) for reason, n in refused_before.items()})
        following = []
        for layers in frontier:
            for step in steps:
                try:
                    after = layers
                    for fold in step:
                        after = fold_layers(after, fold, sheet)
                except NotRealizable as why:
                    here[str(why)] += 1
                    continue
                following.append(after)
        made[s], refused[s], states[s] = len(following), dict(sorted(here.items())), set(following)
        frontier, refused_before = following, here
    distinct = {(lo, hi): len(set().union(*(states[s] for s in range(lo, hi + 1))))
                for lo in range(1, n_steps + 1) for hi in range(lo, n_steps + 1)}
    return {"made": made, "refused": refused, "states": {s: len(v) for s, v in states.items()}, "distinct": distinct}


def level_space(family: str, level: str, params: dict, on_progress: Callable[[int], None] | None = None) -> dict:
    """The level's fold space over its sheets and step counts (module docstring), JSON-ready;
    InputError (before any folding) when it holds more than MAX_SEQUENCES sequences.
    `on_progress(n)`: n more sequences walked (a sheet at a time)."""
    lo, hi = params["steps"]
    sheets = list(params["sheets"])
    per_sheet = sequence_counts(hi)
    total = len(sheets) * sum(per_sheet[s] for s in range(lo, hi + 1))
    if total > MAX_SEQUENCES:
        raise InputError(f"level {level} holds {total:,} fold sequences, more than the {MAX_SEQUENCES:,} "
                         f"counted", field="--level")
    steps = range(lo, hi + 1)
    made, refused, reasons, by_sheet, distinct = Counter(), Counter(), Counter(), {}, 0
    for name in sheets:
        space = sheet_space(name, hi)
        for s in steps:
            made[s] += space["made"][s]
            refused[s] += sum(space["refused"][s].values())
            reasons.update(space["refused"][s])
        distinct += space["distinct"][(lo, hi)]
        by_sheet[name] = {"made": {str(s): space["made"][s] for s in steps},
                          "refused": {str(s): sum(space["refused"][s].values()) for s in steps},
                          "distinct_states": space["distinct"][(lo, hi)]}
        if on_progress is not None:
            on_progress(sum(per_sheet[s] for s in steps))
    return {"family": family, "level": level, "steps": [lo, hi], "sheets": sheets,
            "first_steps": len(first_steps()), "later_steps": len(later_steps()),
            "sequences": {str(s): len(sheets) * per_sheet[s] for s in steps},
            "made": {str(s): made[s] for s in steps}, "refused": {str(s): refused[s] for s in steps},
            "refused_by_reason": dict(sorted(reasons.items())), "distinct_states": distinct,
            "by_sheet": by_sheet, "configurations": sum(made.values()),
            "note": "configurations = realizable (sheet, fold sequence) pairs; distinct_states = different final "
                    "folded states per sheet, summed; cut placements not counted"}
