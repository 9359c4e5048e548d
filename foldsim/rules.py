"""Rule sets of the configuration space (SPEC §5): data plus small vectorized predicates.

A configuration is an action pattern (a word over F = fold, R = rotation) with a fold code per F
and an angle per R. A rule set says which configurations exist:

- `patterns`: the action patterns it contains;
- `alphabet(pattern, position)`: the action ints allowed at one position (kernel encoding,
  `foldsim.kernels.actions`); the candidates of a pattern are the product of its alphabets;
- `grammar(actions)`: a predicate over whole NOOP-padded rows, int32[N, W] -> bool[N];
- `realizable_only`: whether configurations with an unrealizable fold are dropped (the kernel
  decides; SPEC §3).

So a new rule set is a few lines: a name, its patterns, an alphabet and a grammar.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .kernels import actions as A

#: the benchmark's 15 action patterns (SPEC §5); the set is closed under prefixes
PATTERNS = (
    "F", "FF", "FFF", "FFFF",
    "FR", "FRF", "FFR", "FRFR", "FFRF", "FRFF", "FFFR", "FRFFR", "FFRFR", "FRFRF", "FRFRFR",
)

#: the reference generator's structure groups (formats doc §7.4): name -> (actions incl. rotations,
#: has a rotation). A configuration's group follows from its pattern alone.
GROUPS = {
    "one_step": (1, False),
    "two_step": (2, False),
    "three_step": (3, False),
    "four_step": (4, False),
    "two_step_with_rotation": (2, True),
    "three_step_with_rotation": (3, True),
    "four_step_with_rotation": (4, True),
    "five_step_with_rotation": (5, True),
    "six_step_with_rotation": (6, True),
}

#: the paper's Table 8 total, reported next to the enumerated counts but never simulated (SPEC §5)
PAPER_TABLE8_TOTAL = 69_600
PAPER_TABLE8_NOTE = (
    "The paper's Table 8 lists 69,600 configurations; its rotation rows are products that include "
    "folding the same axis three times, which needs creases the 32-triangle sheet does not have. "
    "It is quoted for reference only: those configurations were not simulated."
)

ALL_FOLDS = np.arange(A.FIRST_FOLD_FRONT, A.FIRST_ROTATION, dtype=np.int32)  # 16 codes, -F and -B
STRAIGHT_FOLDS = ALL_FOLDS[A.FOLD_FAMILY[(ALL_FOLDS - 1) % 8] < 2]  # H and V folds only
ROTATIONS = np.arange(A.FIRST_ROTATION, A.N_ACTION_CODES, dtype=np.int32)

# fold type indices (0..7) in kernel order H1 H2 V1 V2 D1 D2 D3 D4
_H1, _H2, _V1, _V2, _D1, _D2, _D3, _D4 = range(8)


@dataclass(frozen=True)
class RuleSet:
    """Which configurations exist (see the module docstring)."""

    name: str
    summary: str
    patterns: tuple[str, ...]
    alphabet: Callable[[str, int], np.ndarray]
    grammar: Callable[[np.ndarray], np.ndarray]
    realizable_only: bool


def group_of(pattern: str) -> str:
    """The structure group name of an action pattern, e.g. "FRF" -> "three_step_with_rotation"."""
    key = (len(pattern), "R" in pattern)
    for name, value in GROUPS.items():
        if value == key:
            return name
    raise ValueError(f"pattern {pattern!r} belongs to no structure group")


def patterns_of_group(group: str, patterns: tuple[str, ...] = PATTERNS) -> tuple[str, ...]:
    """The patterns of `patterns` in a structure group."""
    return tuple(p for p in patterns if group_of(p) == group)


# -- alphabets ------------------------------------------------------------------------------------


def any_action(pattern: str, position: int) -> np.ndarray:
    """Every fold code (-F and -B) at an F, every rotation at an R."""
    return ROTATIONS if pattern[position] == "R" else ALL_FOLDS


def diagonal_first_in_rotation_patterns(pattern: str, position: int) -> np.ndarray:
    """The physical rule: in a pattern with a rotation, only its first fold may be diagonal."""
    if pattern[position] == "R":
        return ROTATIONS
    if "R" in pattern and position != pattern.index("F"):
        return STRAIGHT_FOLDS
    return ALL_FOLDS


# -- grammars (vectorized over rows) --------------------------------------------------------------


def any_sequence(actions: np.ndarray) -> np.ndarray:
    """Every row is allowed."""
    return np.ones(actions.shape[0], dtype=bool)


def fold_types(actions: np.ndarray) -> np.ndarray:
    """Fold type 0..7 of each fold action, -1 for rotations and padding (F/B ignored)."""
    is_fold = (actions >= A.FIRST_FOLD_FRONT) & (actions < A.FIRST_ROTATION)
    return np.where(is_fold, (actions - 1) % 8, -1)


def _diagonal_successors() -> np.ndarray:
    """bool[8, 8]: validation.py's allowed diagonal fold after a diagonal fold (formats doc §7.2)."""
    table = np.zeros((8, 8), dtype=bool)
    for prev, nexts in ((_D1, (_D2, _D3)), (_D2, (_D1, _D4)), (_D3, (_D1, _D4)), (_D4, (_D2, _D3))):
        table[prev, list(nexts)] = True
    return table


_DIAGONAL_SUCCESSORS = _diagonal_successors()


def validation_fold_grammar(actions: np.ndarray) -> np.ndarray:
    """validation.py's `is_valid_folding_sequence` (formats doc §7.2, rules as implemented) for rows
    of folds only, F/B ignored. Rotations and padding end a row."""
    types = fold_types(actions)
    length = (types >= 0).sum(1)
    ok = np.ones(len(types), dtype=bool)
    h = np.zeros(len(types), dtype=np.int32)
    v, d = h.copy(), h.copy()
    for i in range(types.shape[1]):
        t = types[:, i]
        present = t >= 0
        is_h, is_v, is_d = present & (t <= _H2), present & (t >= _V1) & (t <= _V2), present & (t >= _D1)
        h, v, d = h + is_h, v + is_v, d + is_d
        ok &= ~((is_h & (h > 2)) | (is_v & (v > 2)) | (is_d & (d > 2)))  # rules 1-2
        full = (h == 2) & (v == 2)
        d1_or_d2 = (t == _D1) | (t == _D2)
        ok &= ~(is_d & full & ~d1_or_d2)  # rule 6
        if i == 0:
            continue  # rule 3: a first diagonal is always allowed
        prev = types[:, i - 1]
        after_diagonal = is_d & (prev >= _D1)
        successor = _DIAGONAL_SUCCESSORS[np.maximum(prev, 0), np.maximum(t, 0)] & (~full | d1_or_d2)
        ok &= ~(after_diagonal & ~successor)  # rule 4
        ok &= ~(is_d & (prev < _D1) & ~((h == 1) & (v == 1)))  # rule 5
    ok &= ~((length > 3) & (d == 2) & ~((h == 1) & (v == 1) & (length == 4)))  # rule 8
    return ok


def validation_rotation_grammar(actions: np.ndarray) -> np.ndarray:
    """validation.py's `is_valid_rotation_sequence` (formats doc §7.3) for rows with rotations."""
    present = actions != A.NOOP
    rotation = actions >= A.FIRST_ROTATION
    fold = present & ~rotation
    diagonal = fold_types(actions) >= _D1
    n_folds, n_rotations = fold.sum(1), rotation.sum(1)
    ok = present[:, 0] & ~rotation[:, 0]
    ok &= ~(rotation[:, 1:] & rotation[:, :-1]).any(1)
    ok &= ~diagonal[:, 1:].any(1)
    ok &= (n_folds <= 3) & ((n_folds < 3) | diagonal[:, 0])
    return ok & (n_rotations >= 1) & (n_rotations <= 3)


def validation_grammar(actions: np.ndarray) -> np.ndarray:
    """validation.py's grammar: the fold grammar for rows without a rotation, the rotation grammar
    (which does not apply the fold rules) for rows with one."""
    has_rotation = (actions >= A.FIRST_ROTATION).any(1)
    return np.where(has_rotation, validation_rotation_grammar(actions), validation_fold_grammar(actions))


PHYSICAL = RuleSet(
    name="physical",
    summary="every configuration of the 15 patterns whose folds are all realizable; diagonal folds "
    "only as the first fold in rotation patterns",
    patterns=PATTERNS,
    alphabet=diagonal_first_in_rotation_patterns,
    grammar=any_sequence,
    realizable_only=True,
)

MENTALBLACKBOARD = RuleSet(
    name="mentalblackboard",
    summary="the reference generator's grammar (validation.py), with -F and -B folds both counted",
    patterns=PATTERNS,
    alphabet=any_action,
    grammar=validation_grammar,
    realizable_only=False,
)

def front_folds_only(pattern: str, position: int) -> np.ndarray:
    """The physical alphabet without -B folds: what a planning answer may use."""
    allowed = diagonal_first_in_rotation_patterns(pattern, position)
    return allowed[allowed < A.FIRST_FOLD_BACK]


PLANNING = RuleSet(
    name="planning",
    summary="the physical fold sequences a planning answer may use: no rotation, -F folds only "
    "(-B folds put the holes in the same places)",
    patterns=tuple(p for p in PATTERNS if "R" not in p),
    alphabet=front_folds_only,
    grammar=any_sequence,
    realizable_only=True,
)

RULE_SETS = {rules.name: rules for rules in (PHYSICAL, MENTALBLACKBOARD, PLANNING)}


def rule_set(name: str) -> RuleSet:
    """The rule set called `name`; InputError naming the `rules` field otherwise."""
    if name not in RULE_SETS:
        raise InputError(f"unknown rule set {name!r} (expected one of {', '.join(RULE_SETS)})", field="rules")
    return RULE_SETS[name]
