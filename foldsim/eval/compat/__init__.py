"""`--compat mentalblackboard`: the reference scorers' numbers, quirks included (formats doc §2, §3).

A small module group, one module per step of the reference: finding the answer JSON (`text`),
reading answers and holes per scorer (`reading`), hole tensors and per-field tests (`tensors`), the
prediction family and generalization (`prediction`), planning (`planning`); `score_compat` here picks
the scorer.

Each reference scorer of the prediction family and generalization is described by a `Scorer` value
(how it finds the answer JSON, reads the answer and each hole, which fields it counts and which
denominators it uses); one scoring routine serves them all. Planning follows the reference
pipeline: the runner's converter, animate.py/run.py's replay (emulated with the foldsim simulator),
then planning_scoring.py on the replay records.

Two modes differ only for the prediction task, because the reference ships two prediction scorers:
`mentalblackboard` follows the top-level prediction_scoring.py (the one the reference's own runner,
run_MentalBlackboard_prediction.py, calls: it reads the runner's rows and error rows), and
`mentalblackboard-scoring-dir` follows scoring/prediction_scoring.py (the one beside the backward,
text and generalization scorers). Every other task has a single reference scorer.

Answer records are read the way foldsim reads them (every file format and provider envelope, through
`answers.response_text`); the scorer's own rules are then applied to the model's text. Where the
reference would crash, the item is listed in `Report.crashes` with the reason and the rest go on
(a crash the reference would have for the whole run, such as its direction check, is reported
once, naming the answer that causes it).

Text searches reproduce the reference's regular expressions without their worst cases: fences are
found with str.find, the greedy `{...}` is the span from the first "{" to the last "}", so the
time stays linear in the answer's size.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InputError
from ..answers import Answer
from ..score_base import Report, TruthItem
from .planning import score_planning
from .prediction import score_family, scorer_for
from .text import MODE_SCORING_DIR, MODE_TOP_LEVEL, MODES

__all__ = ["MODES", "MODE_SCORING_DIR", "MODE_TOP_LEVEL", "score_compat"]


def score_compat(task: str, truth: Sequence[TruthItem], answers: Sequence[Answer], mode: str = MODE_TOP_LEVEL) -> Report:
    """The reference scorer for `task` in compat `mode` (`MODES`), its numbers reproduced."""
    if mode not in MODES:
        raise InputError(f"unknown compat mode {mode!r} (expected {', '.join(MODES)})", field="compat")
    if task == "planning":
        return score_planning(truth, answers, mode)
    return score_family(scorer_for(task, mode), truth, answers, mode)
