"""Reward functions for family items (TRL GRPO signature, as foldsim.eval.rewards): the truth is
the `record` column (a family record from `foldsim generate --family`, or its export's `record`),
the row's `task` routes it; every value comes from the scorers `foldsim score` uses
(foldsim.eval.choice for choice, split and yes/no rows, foldsim.eval.holes for `holes`,
foldsim.eval.open_values for `count` and `opposite`), through
foldsim.eval.rewards' frame (identical pairs scored once, a completion never makes a reward raise).

| reward | value per completion |
|---|---|
| family_choice_correct | 1.0 when the named option (choice) or yes/no (split rows, a record family's yes/no items) is right, else 0.0 |
| holes_exact | 1.0 when the listed holes are exactly the unfolded sheet's holes, else 0.0 |
| holes_partial | matched / (truth + extra) over the listed holes |
| values_exact | 1.0 when every named value (count, opposite) is right, else 0.0 |
| values_fields | the share of the named values (count, opposite) that are right |
"""

from __future__ import annotations

from collections.abc import Callable

from .open_values import VALUE_TASKS
from .rewards import _scored


def _per_item(metric: Callable[[dict[str, float]], float]) -> Callable[[str, list, list], list[float]]:
    def score(task: str, records: list, completions: list) -> list[float]:
        from .item import score_item

        out = []
        for record, completion in zip(records, completions):
            try:
                out.append(float(metric(score_item(task, record, completion))))
            except Exception:  # noqa: BLE001  (a bad truth row or completion scores 0.0)
                out.append(0.0)
        return out
    return score


def family_choice_correct(prompts=None, completions=None, **columns) -> list[float | None]:
    """1.0 when the answer names the right option (choice) or says the right yes/no (split)."""
    routed = {**columns}
    if "task" in routed and isinstance(routed["task"], (list, tuple)):
        routed["task"] = [{"family-choice": "choice", "family-split": "split", "family-yesno": "split"}.get(t, t) for t in routed["task"]]
    return _scored(("choice", "split"), "choice", _per_item(lambda m: m["correct"]), completions, routed)


def holes_exact(prompts=None, completions=None, **columns) -> list[float | None]:
    """1.0 when the listed holes are exactly the unfolded sheet's holes (holes task)."""
    return _scored(("holes",), "holes", _per_item(lambda m: m["exact_match"]), completions, columns)


def holes_partial(prompts=None, completions=None, **columns) -> list[float | None]:
    """The listed holes' partial accuracy: matched / (truth + extra) (holes task)."""
    return _scored(("holes",), "holes", _per_item(lambda m: m["partial"]), completions, columns)


def values_exact(prompts=None, completions=None, **columns) -> list[float | None]:
    """1.0 when every named value of the answer is right (count, opposite tasks)."""
    return _scored(VALUE_TASKS, "count", _per_item(lambda m: m["exact_match"]), completions, columns)


def values_fields(prompts=None, completions=None, **columns) -> list[float | None]:
    """The share of the named values that are right (count, opposite tasks)."""
    return _scored(VALUE_TASKS, "count", _per_item(lambda m: m["fields"]), completions, columns)


__all__ = ["family_choice_correct", "holes_exact", "holes_partial", "values_exact", "values_fields"]
