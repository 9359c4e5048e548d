"""What to generate: `GenerateOptions` (task, structure groups, count, seed, level, splits) and, for
the choice tasks, `ChoiceSpec` (options, distractors, similarity, cues), each validated against the
command-line option it comes from. Below the drawing (foldsim.dataset.draw), the choice tasks
(foldsim.dataset.choice) and the writer (foldsim.dataset.generate), which all read them."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..rules import GROUPS
from . import distractors as D
from .levels import preset
from .splits import parse_splits

TASKS = ("prediction", "planning", "generalization", "backward", "choice", "split", "plan-choice")
ATTRIBUTES = ("shape", "size", "direction", "location")
TASK_MODELS = {"choice": D.CHOICE_MODELS, "split": D.CHOICE_MODELS, "plan-choice": D.PLAN_MODELS}
CUE_KINDS = ("none", "true", "counterfactual")
MIN_OPTIONS, MAX_OPTIONS, DEFAULT_OPTIONS = 3, 8, 5


@dataclass(frozen=True)
class ChoiceSpec:
    """The options of the choice tasks: K, the error models to draw distractors from (None = all of
    the task's), how to prefer among a model's variants, and the cue conditions."""

    options: int = DEFAULT_OPTIONS
    distractors: tuple[str, ...] | None = None
    similarity: str = "random"
    cues: tuple[str, ...] = ("none",)

    def models(self, task: str) -> tuple[str, ...]:
        return TASK_MODELS[task] if self.distractors is None else self.distractors

    def validate(self, task: str) -> "ChoiceSpec":
        """Self, or an InputError naming the command-line option that is wrong."""
        if not isinstance(self.options, int) or not MIN_OPTIONS <= self.options <= MAX_OPTIONS:
            raise InputError(f"must be an integer from {MIN_OPTIONS} to {MAX_OPTIONS}, got {self.options!r}",
                             field="--options")
        known = TASK_MODELS[task]
        if self.distractors is not None:
            if not self.distractors:
                raise InputError("name at least one error model", field="--distractors")
            for model in self.distractors:
                if model not in known:
                    raise InputError(f"unknown error model {model!r} for {task} (expected {', '.join(known)})",
                                     field="--distractors")
        if self.similarity not in D.SIMILARITY:
            raise InputError(f"unknown similarity {self.similarity!r} (expected {', '.join(D.SIMILARITY)})",
                             field="--similarity")
        if not self.cues or len(set(self.cues)) != len(self.cues):
            raise InputError("name each cue condition once", field="--cues")
        for cue in self.cues:
            if cue not in CUE_KINDS:
                raise InputError(f"unknown cue condition {cue!r} (expected {', '.join(CUE_KINDS)})", field="--cues")
        if task == "plan-choice" and self.cues != ("none",):
            raise InputError("cue tests apply to choice and split items (a plan-choice item has no folding steps "
                             "to show a state of)", field="--cues")
        return self


@dataclass(frozen=True)
class GenerateOptions:
    """What to generate: `count` items per structure group (pairs, for generalization), numbered
    from `first_id` in the order of `groups`."""

    task: str
    groups: tuple[str, ...]
    count: int
    seed: int = 0
    first_id: int = 1
    even_totals: bool = True
    attribute: str | None = None  # generalization: one attribute for every pair; None cycles all four
    level: str | None = None  # a preset of foldsim.dataset.levels: only items in its range
    splits: tuple[tuple[str, float], ...] = ()  # (name, fraction): a `split` field without leaks
    choice: ChoiceSpec | None = None  # choice tasks: options, distractors, similarity, cues (foldsim.dataset.choice)
    total: int | None = None  # items in all, spread over the groups (instead of `count` per group)

    def group_counts(self) -> tuple[int, ...]:
        """Items per group, in the order of `groups`: `count` each, or `total` spread as evenly as
        the groups allow (the first groups take one more)."""
        if self.total is None:
            return (self.count,) * len(self.groups)
        share, extra = divmod(self.total, len(self.groups))
        return tuple(share + (position < extra) for position in range(len(self.groups)))

    def group_slots(self) -> list[tuple[str, int, int]]:
        """(group, first dataset position, items) of every group that gets any item."""
        slots, first = [], 0
        for group, items in zip(self.groups, self.group_counts()):
            if items:
                slots.append((group, first, items))
            first += items
        return slots

    def validate(self) -> "GenerateOptions":
        """Self, or an InputError naming the command-line option that is wrong."""
        if self.task not in TASKS:
            raise InputError(f"unknown task {self.task!r} (expected one of {', '.join(TASKS)})", field="--task")
        if not self.groups:
            raise InputError("give at least one structure group", field="--group")
        for group in self.groups:
            if group not in GROUPS:
                raise InputError(f"unknown structure group {group!r} (expected one of {', '.join(GROUPS)})", field="--group")
            if self.task in ("planning", "plan-choice") and GROUPS[group][1]:
                raise InputError(f"planning items have no rotations, so group {group!r} is not allowed "
                                 f"(expected one of {', '.join(g for g, (_, rot) in GROUPS.items() if not rot)})",
                                 field="--group")
        if len(set(self.groups)) != len(self.groups):
            raise InputError("a structure group is named twice", field="--group")
        if not isinstance(self.count, int) or self.count < 1:
            raise InputError(f"must be a positive integer, got {self.count!r}", field="--count")
        if self.total is not None and (not isinstance(self.total, int) or self.total < 1):
            raise InputError(f"must be a positive integer, got {self.total!r}", field="--count")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise InputError(f"must be a non-negative integer, got {self.seed!r}", field="--seed")
        if not isinstance(self.first_id, int) or self.first_id < 0:
            raise InputError(f"must be a non-negative integer, got {self.first_id!r}", field="--first-id")
        if self.attribute is not None:
            if self.task != "generalization":
                raise InputError("only generalization items have a modified attribute", field="--attribute")
            if self.attribute not in ATTRIBUTES:
                raise InputError(f"unknown attribute {self.attribute!r} (expected one of {', '.join(ATTRIBUTES)})",
                                 field="--attribute")
        if self.level is not None:
            preset(self.level)
        if self.splits:
            parse_splits(",".join(f"{name}={fraction!r}" for name, fraction in self.splits))
        return self
