"""What the report page draws, apart from how it is assembled (foldsim.outputs.report.build) and
drawn (foldsim.outputs.report.page): the views of an item, an answer, a plan and an option, and the
holes marked against the truth. The task-specific builders (choices, family) and the assembler all
import this module, none of them another."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...check import ItemCheck
from ...eval.answers import Answer, PredictedHole
from ...eval.score_base import greedy_first_fit
from ...eval.scoring import field_tests, predicted_tensor, truth_tensor
from ...holes import Hole
from .sheet import Mark

RAW_TEXT_CHARS = 2000


@dataclass(frozen=True)
class OptionView:
    """One option of an item: its label, error model (None for a right one), whether it is right,
    its holes marked against the right answer, and a line of detail (the error's, or the folds)."""

    label: str
    error: str | None
    right: bool
    marks: tuple[Mark, ...]
    detail: str = ""


@dataclass(frozen=True)
class PlanView:
    """A proposed plan as given, and the verifier's judgement of it."""

    folds: tuple[str, ...]
    punches: tuple[str, ...]
    reason: str
    detail: str


@dataclass(frozen=True)
class AnswerView:
    """One model's answer to one item, ready to draw."""

    verdict: str  # a VERDICTS value
    status: str  # the answer's parse status ("missing" when there is none)
    reason: str  # why it is unreadable, or the planning verifier's reason
    marks: tuple[Mark, ...] = ()
    unfolding: tuple[str, ...] | None = None  # None where the task has no unfolding codes
    score: object = None  # the item's ItemScore (ChoiceScore for the choice tasks)
    plan: PlanView | None = None
    text: str = ""  # raw model text (bounded), shown for unreadable answers
    choice: str | None = None  # the choice tasks: the label (or yes/no) the answer named


@dataclass(frozen=True)
class ItemView:
    """One item of the browser: the record, its groups and truth, and every model's answer."""

    index: int  # position in the dataset file
    id: str
    record: object
    error: str = ""  # why the record cannot be scored or drawn ("" when it can)
    codes: tuple[str, ...] = ()
    groups: dict[str, str] = field(default_factory=dict)
    truth: tuple[Mark, ...] = ()
    unfolding: tuple[str, ...] = ()
    check: ItemCheck | None = None
    simulated: tuple[Mark, ...] = ()  # the simulation's holes marked against the record's
    answers: tuple[AnswerView, ...] = ()
    options: tuple[OptionView, ...] = ()  # the choice tasks
    cue: tuple[str, str] = ("", "")  # the choice tasks: a line on the item's cue and its text grid
    sheet: tuple[int, int] | None = None  # a family item (holes task): its sheet's (cols, rows), drawn as a grid
    cells: bool = True  # a family item: holes named by cell (row, col), else by point (x, y)


# --------------------------------------------------------------------------------------------------
# holes against the truth


def describe_hole(shape: str, size: str, location: int | None, directions: str) -> str:
    where = f"at {location}" if location is not None else "(no location)"
    turned = f" {directions}" if directions else ""
    return f"{shape} {size}{turned} {where}"


def _degrees(hole: PredictedHole) -> str:
    return "/".join(f"{d}°" for d in sorted(hole.directions))


def truth_marks(holes: Sequence[Hole], kind: str = "truth") -> tuple[Mark, ...]:
    return tuple(Mark(kind, h.shape, h.size, h.location, h.quarter, title=f"{kind}: {describe_hole(h.shape, h.size, h.location, f'{90 * h.quarter}°')}")
                 for h in holes)


def as_predicted(holes: Sequence[Hole]) -> tuple[PredictedHole, ...]:
    """Proper holes (a replayed plan, a simulation) in the form answers are compared in."""
    return tuple(PredictedHole(h.shape, h.size, h.location, frozenset({90 * h.quarter})) for h in holes)


def compare_holes(truth: Sequence[Hole], predicted: Sequence[PredictedHole], *, with_direction: bool = True) -> tuple[Mark, ...]:
    """Mark every predicted hole right, wrong-direction or extra, and every truth hole left over missing.

    Uses the scorer's own field tests. Right holes are a maximum matching on the exact test and
    wrong-direction ones a maximum matching of the rest on location, shape and size: both tests
    compare whole keys, so first-fit pairing is already maximum and the number of right holes equals
    the scorer's matched count.
    """
    if not predicted:
        return truth_marks(truth, "missing")
    tests = field_tests(truth_tensor([truth]), predicted_tensor([predicted]), with_direction=with_direction)
    exact = tests["exact"][:, : len(truth), : len(predicted)]
    pairs = greedy_first_fit(exact)[0] if len(truth) else []
    truth_of_p = {int(p): g for g, p in enumerate(pairs) if p >= 0}
    matched_p, matched_g = set(truth_of_p), set(truth_of_p.values())
    near = (tests["location"] & tests["shape"] & tests["size"])[:, : len(truth), : len(predicted)].copy()
    near[0, sorted(matched_g), :] = False
    near[0, :, sorted(matched_p)] = False
    turned = greedy_first_fit(near)[0] if len(truth) else []
    turned_of_p = {int(p): g for g, p in enumerate(turned) if p >= 0}
    marks = []
    for p, hole in enumerate(predicted):
        said = describe_hole(hole.shape, hole.size, hole.location, _degrees(hole))
        note = f" ({hole.note})" if hole.note else ""
        if p in matched_p:  # drawn as the truth hole it matches (an answer may name its class by two angles)
            marks.append(Mark("match", hole.shape, hole.size, hole.location, truth[truth_of_p[p]].quarter, title=f"right: {said}"))
        elif p in turned_of_p:
            truth_hole = truth[turned_of_p[p]]
            marks.append(Mark("direction", hole.shape, hole.size, hole.location, _drawn_quarter(hole), truth_hole.quarter,
                              title=f"wrong direction: {said}{note}; the truth is {90 * truth_hole.quarter}°"))
        else:
            marks.append(Mark("extra", hole.shape, hole.size, hole.location, _drawn_quarter(hole), title=f"extra: {said}{note}"))
    missing = [h for g, h in enumerate(truth) if g not in matched_g and g not in turned_of_p.values()]
    return (*marks, *truth_marks(missing, "missing"))


def _drawn_quarter(hole: PredictedHole) -> int | None:
    """The quarter turn to draw an answer's glyph at: its single class, else its first angle."""
    quarter = hole.quarter_for(4)
    if quarter is None and hole.directions:
        first = min(hole.directions)
        quarter = first // 90 if first % 90 == 0 else None
    return quarter


def raw_text(answer: Answer) -> str:
    """The model's raw text, cut to RAW_TEXT_CHARS."""
    text = answer.text or ""
    return text if len(text) <= RAW_TEXT_CHARS else text[:RAW_TEXT_CHARS] + f"… ({len(text) - RAW_TEXT_CHARS} more characters)"
