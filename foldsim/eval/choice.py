"""Scoring the choice tasks (choice, split, plan-choice): answer extraction, accuracy beside the
chance level, the correction for guessing, the confusion table by error model, cue reliance.

**Extraction** is tolerant and linear in the text (one tokenizing pass, bounded JSON search via
`foldsim.eval.answers`, no backtracking patterns). The first tier that names anything decides:

1. an answer object: a record's own `answer`/`choice` field, or the last JSON object in the text
   holding one (`{"answer": "C"}`);
2. `<answer>C</answer>` tags (the last pair);
3. an "answer" marker: `Answer: C`, `the answer is (C)`, `Final answer - **C**`;
4. an "option"/"choice" marker: `Option C`, `choice (C)`;
5. formatting: `**C**`, `(C)`, `[C]`, `\\boxed{C}`; for yes/no, the first word of the text;
6. the bare text: the only label letter standing alone (an `A` followed by a lower-case word is the
   article, not a label); for yes/no, the only one of the two words used.

Letters are the item's labels (A .. the K-th), either case after a marker, upper case elsewhere;
yes/no words in any case. A tier that names two different answers is *ambiguous*, which scores as
wrong; no answer at all (an empty, unreadable or error response, or a missing one) is *omitted*.

**Metrics.** accuracy = R / N (omitted answers are not right); chance = the mean over items of
1/K (plan-choice: m/K with m right options); the psychometric correction for guessing
R - W/(K - 1), summed over items (plan-choice: R - Σ W·m/(K - m), whose expectation under
guessing is 0 too), omitted answers counting neither way, and the same divided by N. Split: row
accuracy (chance 1/2) and item accuracy (all K rows right; chance the mean of 2^-K); a record
family's yes/no record (taskType "YesNo", STARE) is a row that is its own item. The confusion
table counts, for every error model, how often an option of that model was offered and how often
it was chosen (split: answered "yes"); its `chosen` column adds up with the right answers,
ambiguous and omitted ones to N. Breakdowns by action pattern, number of folds, level and cue
condition; cue reliance = among items with a counterfactual cue and an answer, the share whose
answer is the option the cue implies (split: rows answering "yes" to it).

Size (~620 lines): extraction, the per-item score and the report's metrics (chance, guessing
correction, confusion, cue reliance) of the choice tasks read one answer form and one record form.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..codes import code_of_entry, pattern_of
from ..errors import InputError
from ..tasks import CHOICE_TASKS
from ..io import read_records, read_text
from .answers import Answer, answer_of_completion, index_answers, parse_answer_record, split_answer_text

TASK_TYPES = {"choice": "Choice", "split": "Split", "plan-choice": "PlanChoice"}
CHOICE_KEYS = ("answer", "Answer", "choice", "final_answer")
YES_NO = ("yes", "no")
LABELS = "ABCDEFGH"

STATUS_OK = "ok"
STATUS_AMBIGUOUS = "ambiguous"
STATUS_NONE = "none"

_TOKEN = re.compile(r"[A-Za-z]+|[^\sA-Za-z]")
_ANSWER_MARKERS = frozenset({"answer"})
_OPTION_MARKERS = frozenset({"option", "choice"})
#: tokens allowed between a marker and the answer it introduces
_FILLERS = frozenset({":", "=", "-", "is", "would", "be", "the", "correct", "final", "my", "(", "[", "*", "_", '"',
                      "'", "`", "#", ">", "option", "choice", "letter", "label", "it", "s", "\\", "boxed", "{", "$"})
_MAX_FILLERS = 6
#: words after a capital "A" that make it a label, not the article ("A or C", "A is right")
_NOT_AFTER_ARTICLE = frozenset({"or", "and", "is", "was", "seems", "looks", "matches", "fits", "would", "could",
                                "should", "because", "since", "as", "vs", "versus", "nor", "then", "too", "also"})
MAX_TEXT_CHARS = 200_000  # longer responses are cut to their last part (the answer comes last)


# --------------------------------------------------------------------------------------------------
# extraction


@dataclass(frozen=True)
class Extracted:
    """What a response names: the answer (a label or "yes"/"no") when exactly one, its status, and
    every distinct answer the deciding tier named."""

    value: str | None
    status: str
    named: tuple[str, ...] = ()
    tier: str = ""


def _tokens(text: str) -> list[str]:
    return [m.group() for m in _TOKEN.finditer(text)]


def _decide(named: Iterable[str], tier: str) -> Extracted | None:
    distinct = tuple(dict.fromkeys(named))
    if not distinct:
        return None
    if len(distinct) > 1:
        return Extracted(None, STATUS_AMBIGUOUS, distinct, tier)
    return Extracted(distinct[0], STATUS_OK, distinct, tier)


class _Reader:
    """Reads one kind of answer (labels or yes/no) from tokens."""

    def __init__(self, labels: str | None):
        self.labels = labels

    def word(self, tokens: Sequence[str], k: int, *, after_marker: bool) -> str | None:
        """The answer token k names, if any."""
        token = tokens[k]
        if self.labels is None:
            low = token.lower()
            return low if low in YES_NO else None
        if len(token) != 1 or token.upper() not in self.labels:
            return None
        following = tokens[k + 1] if k + 1 < len(tokens) else ""
        next_is_word = following[:1].isalpha()
        if token.islower():  # "a" is an article unless a marker introduced it and no word follows
            return token.upper() if after_marker and not next_is_word else None
        if token == "A" and following[:1].islower() and following not in _NOT_AFTER_ARTICLE and not after_marker:
            return None  # "A mirrored sheet": the article
        return token

    def after_markers(self, tokens: Sequence[str], markers: frozenset[str]) -> list[str]:
        named = []
        for k, token in enumerate(tokens):
            if token.lower() not in markers:
                continue
            j, skipped = k + 1, 0
            while j < len(tokens) and skipped < _MAX_FILLERS:
                value = self.word(tokens, j, after_marker=True)
                if value is not None:
                    named.append(value)
                    break
                if tokens[j].lower() not in _FILLERS:
                    break
                j, skipped = j + 1, skipped + 1
        return named

    def formatted(self, tokens: Sequence[str]) -> list[str]:
        """Labels in **X**, (X), [X], {X} (\\boxed{X}); yes/no: the first word."""
        if self.labels is None:
            words = [t for t in tokens if t[:1].isalpha()]
            first = words[0].lower() if words else ""
            return [first] if first in YES_NO else []
        named = []
        pairs = {"(": ")", "[": "]", "{": "}", "*": "*"}
        for k in range(1, len(tokens) - 1):
            close = pairs.get(tokens[k - 1])
            if close is not None and tokens[k + 1] == close:
                value = self.word(tokens, k, after_marker=True)
                if value is not None and tokens[k].isupper():
                    named.append(value)
        return named

    def bare(self, tokens: Sequence[str]) -> list[str]:
        words = [k for k, t in enumerate(tokens) if t[:1].isalpha()]
        if len(words) == 1:
            value = self.word(tokens, words[0], after_marker=True)
            return [value] if value else []
        return [v for k in words if (v := self.word(tokens, k, after_marker=False)) is not None]


def _tagged(text: str) -> list[str]:
    """The contents of every <answer>...</answer> pair (case-insensitive), in order; linear."""
    low = text.lower()
    out, start = [], 0
    while True:
        begin = low.find("<answer>", start)
        if begin < 0:
            return out
        end = low.find("</answer>", begin + 8)
        if end < 0:
            return out
        out.append(text[begin + 8 : end])
        start = end + 9


def extract_text(text: str, labels: str | None) -> Extracted:
    """The answer named in model text: a label among `labels` ("ABCDE"), or yes/no when `labels`
    is None. Tiers 2-6 of the module docstring."""
    if len(text) > MAX_TEXT_CHARS:
        text = text[-MAX_TEXT_CHARS:]
    reader = _Reader(labels)
    tags = _tagged(text)
    if tags:
        inner = extract_text(tags[-1], labels) if "<answer>" not in tags[-1].lower() else None
        if inner is not None and inner.status != STATUS_NONE:
            return Extracted(inner.value, inner.status, inner.named, "tag")
    tokens = _tokens(text)
    for tier, named in (("answer", lambda: reader.after_markers(tokens, _ANSWER_MARKERS)),
                        ("option", lambda: reader.after_markers(tokens, _OPTION_MARKERS)),
                        ("format", lambda: reader.formatted(tokens)),
                        ("bare", lambda: reader.bare(tokens))):
        if labels is None and tier == "option":
            continue
        decided = _decide(named(), tier)
        if decided is not None:
            return decided
    return Extracted(None, STATUS_NONE)


def extract_value(value: object, labels: str | None) -> Extracted:
    """The answer named by an answer object's field: a string (read like text), a list (every item
    must name the same answer), or a boolean (yes/no)."""
    if isinstance(value, bool):
        return Extracted("yes" if value else "no", STATUS_OK, ("yes" if value else "no",), "object") if labels is None \
            else Extracted(None, STATUS_NONE)
    if isinstance(value, str):
        found = extract_text(value, labels)
        return Extracted(found.value, found.status, found.named, "object") if found.status != STATUS_NONE else found
    if isinstance(value, list):
        parts = [extract_value(v, labels) for v in value[:64]]
        named = [n for p in parts for n in p.named]
        return _decide(named, "object") or Extracted(None, STATUS_NONE)
    return Extracted(None, STATUS_NONE)


def extract_answer(answer: Answer | None, labels: str | None) -> Extracted:
    """The answer of a parsed Answer record: its answer object first, else its text."""
    if answer is None:
        return Extracted(None, STATUS_NONE, tier="missing")
    data = answer.data if isinstance(answer.data, dict) else None
    if data is not None:
        for key in CHOICE_KEYS:
            if key in data:
                found = extract_value(data[key], labels)
                if found.status != STATUS_NONE:
                    return found
    if answer.text:
        return extract_text(answer.text, labels)
    return Extracted(None, STATUS_NONE, tier=answer.status)


def parse_choice_answer(record: object, index: int = 0) -> Answer:
    """One answer record (or raw model text) read with the choice tasks' answer keys."""
    return parse_answer_record(record, index, keys=CHOICE_KEYS)


def load_choice_answers(path: str | Path) -> list[Answer]:
    """Every answer of a file (JSON, JSON Lines, provider batch output or raw text), read with the
    choice tasks' answer keys; raises InputError only when the file cannot be read."""
    path = Path(path)
    jsonl = path.suffix.lower() in (".jsonl", ".ndjson")
    records = split_answer_text(read_text(path), path.stem, jsonl=jsonl)
    return [r if isinstance(r, Answer) else parse_choice_answer(r, i) for i, r in enumerate(records)]


# --------------------------------------------------------------------------------------------------
# truth


@dataclass(frozen=True)
class ChoiceTruth:
    """One scored unit: a choice or plan-choice item, or one split row."""

    id: str
    labels: str  # the item's labels, in order ("ABCDE"); a split row: its item's labels
    right: frozenset[str]  # right labels; a split row: {"yes"} or {"no"}
    errors: dict[str, str | None]  # label -> error model (None: a right option / the answer)
    groups: dict[str, str]
    cue: str | None = None  # cue condition
    implied: str | None = None  # the answer a counterfactual cue implies
    item: str | None = None  # split: the item index shared by its rows
    option: str | None = None  # split: this row's label

    @property
    def options(self) -> int:
        return len(self.labels)


def _labels_of(record: dict, item: str) -> str:
    options = record.get("options")
    if not isinstance(options, list) or not options:
        raise InputError("missing or not a non-empty list", item=item, field="options")
    labels = "".join(str(o.get("label", "")) if isinstance(o, dict) else "" for o in options)
    if labels != LABELS[: len(options)]:
        raise InputError(f"labels must be {', '.join(LABELS[:len(options)])} in order", item=item, field="options")
    return labels


def _groups(record: dict, item: str) -> dict[str, str]:
    groups = {}
    entries = record.get("foldingTypes")
    if isinstance(entries, list):
        try:
            codes = [code_of_entry(e) for e in entries]
        except InputError as err:
            raise err.at(item=item, field_prefix="foldingTypes") from None
        groups["pattern"] = pattern_of(codes)
        groups["folds"] = str(sum(not c.startswith("R-") for c in codes))
    if isinstance(record.get("level"), int) and not isinstance(record.get("level"), bool):
        groups["level"] = str(record["level"])
    elif isinstance(record.get("family"), str) and isinstance(record.get("level"), str):  # family items
        groups["level"] = f"{record['family']} {record['level']}"
    cue = record.get("cue")
    if isinstance(cue, dict) and isinstance(cue.get("kind"), str):
        groups["cue"] = cue["kind"]
    return groups


def truth_of(task: str, record: object, index: int) -> ChoiceTruth:
    """A ChoiceTruth from a generated record; InputError names the item and field."""
    if not isinstance(record, dict) or not isinstance(record.get("id"), (str, int)):
        raise InputError("a truth record must be an object with an id", item=f"record {index}")
    item = str(record["id"])
    groups = _groups(record, item)
    cue = record.get("cue") if isinstance(record.get("cue"), dict) else {}
    kind = cue.get("kind") if cue else None
    implied = cue.get("impliedAnswer") if kind == "counterfactual" else None
    if task == "split":
        answer = record.get("answer")
        if answer not in YES_NO:
            raise InputError(f"must be yes or no, got {answer!r}", item=item, field="answer")
        if record.get("taskType") == "YesNo":  # a record family's yes/no item: a row that is its own item
            return ChoiceTruth(item, "", frozenset([answer]), {}, groups, kind, implied, item)
        option = record.get("option")
        if not isinstance(option, str):
            raise InputError("missing", item=item, field="option")
        return ChoiceTruth(item, "", frozenset([answer]), {option: record.get("error")}, groups, kind, implied,
                           str(record.get("item", item)), option)
    labels = _labels_of(record, item)
    answer = record.get("answer")
    right = [answer] if isinstance(answer, str) else answer
    if not isinstance(right, list) or not right or any(a not in labels for a in right):
        raise InputError(f"must be one of the labels {labels} (plan-choice: a list of them), got {answer!r}",
                         item=item, field="answer")
    errors = {o["label"]: o.get("error") for o in record["options"]}
    return ChoiceTruth(item, labels, frozenset(right), errors, groups, kind, implied)


def load_choice_truth(path: str | Path, task: str) -> tuple[list[ChoiceTruth], list[InputError]]:
    """The scored units of a truth file and the records that cannot be read (each an InputError
    naming the item and field). InputError when the file is unreadable or holds no usable record."""
    if task not in CHOICE_TASKS:
        raise InputError(f"unknown choice task {task!r} (expected {', '.join(CHOICE_TASKS)})", field="task")
    units, invalid = [], []
    for i, record in enumerate(read_records(path)):
        try:
            units.append(truth_of(task, record, i))
        except InputError as err:
            invalid.append(err)
    if not units:
        raise InputError("no usable truth record", item=str(path))
    return units, invalid


# --------------------------------------------------------------------------------------------------
# scoring


@dataclass
class ChoiceScore:
    """One scored unit: what the answer named and how it scores."""

    id: str
    status: str  # ok | ambiguous | none (omitted)
    value: str | None
    correct: bool
    options: int  # K
    right_options: int  # m
    chosen_error: str | None = None  # the error model of the chosen (wrong) option
    groups: dict[str, str] = field(default_factory=dict)
    cue: str | None = None
    followed_cue: bool | None = None  # counterfactual cue: the answer is what the cue implies
    item: str | None = None
    option: str | None = None
    errors: dict[str, str | None] = field(default_factory=dict)

    @property
    def wrong(self) -> bool:
        return self.status != STATUS_NONE and not self.correct

    @property
    def chance(self) -> float:
        return self.right_options / self.options

    @property
    def corrected(self) -> float:
        """This unit's share of R - W·m/(K - m) (R - W/(K - 1) for one right option)."""
        if self.correct:
            return 1.0
        if not self.wrong or self.options <= self.right_options:
            return 0.0
        return -self.right_options / (self.options - self.right_options)

    def to_dict(self) -> dict:
        return {"id": self.id, "status": self.status, "answer": self.value, "correct": self.correct,
                "options": self.options, "chosen_error": self.chosen_error, "groups": self.groups,
                "followed_cue": self.followed_cue}


def score_unit(task: str, truth: ChoiceTruth, found: Extracted) -> ChoiceScore:
    """Score what an answer named against one truth unit."""
    value = found.value if found.status == STATUS_OK else None
    correct = value is not None and value in truth.right
    if task == "split":
        chosen = truth.errors.get(truth.option) if value == "yes" and not correct else None
        followed = None  # judged on the row of the option the cue implies
        if truth.cue == "counterfactual" and value is not None and truth.implied == "yes":
            followed = value == "yes"
        return ChoiceScore(truth.id, found.status, value, correct, 2, 1, chosen, truth.groups, truth.cue, followed,
                           truth.item, truth.option, truth.errors)
    chosen = truth.errors.get(value) if value is not None and not correct else None
    followed = value == truth.implied if truth.cue == "counterfactual" and value is not None else None
    return ChoiceScore(truth.id, found.status, value, correct, truth.options, len(truth.right), chosen, truth.groups,
                       truth.cue, followed, errors=truth.errors)


def score_choice_item(task: str, truth_record: dict, response_text: str | list | None) -> dict[str, float]:
    """One item's scores from one response (for per-item callers such as reward functions; the
    response may be model text, a list of chat messages whose last assistant message is the
    answer, or a provider record): correct, answered, ambiguous, chance, corrected (its share of
    the correction for guessing) and, for a counterfactual cue, followed_cue. Never raises on the
    response; InputError for an unknown task or a truth record that cannot be read."""
    if task not in CHOICE_TASKS:
        raise InputError(f"unknown choice task {task!r} (expected {', '.join(CHOICE_TASKS)})", field="task")
    truth = truth_of(task, truth_record, 0)
    labels = None if task == "split" else truth.labels
    answer = answer_of_completion(response_text, keys=CHOICE_KEYS)
    unit = score_unit(task, truth, extract_answer(answer, labels))
    scores = {"correct": float(unit.correct), "answered": float(unit.status != STATUS_NONE),
              "ambiguous": float(unit.status == STATUS_AMBIGUOUS), "chance": unit.chance, "corrected": unit.corrected}
    if unit.followed_cue is not None:
        scores["followed_cue"] = float(unit.followed_cue)
    return scores


@dataclass
class ChoiceReport:
    """A scoring run of a choice task: metrics, counts, the confusion table by error model, group
    breakdowns, cue conditions and reliance, notes and per-unit scores."""

    task: str
    metrics: dict[str, float | None]
    counts: dict[str, int]
    confusion: dict[str, dict[str, float | int | None]]
    groups: dict[str, dict[str, dict[str, float | int | None]]]
    cues: dict[str, float | int | None]
    notes: list[str] = field(default_factory=list)
    items: list[ChoiceScore] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # one line per bad input record: "<file>: <item>: <field>: <message>"

    def to_dict(self, *, details: bool = False) -> dict:
        data = {"task": self.task, "metrics": self.metrics, "counts": self.counts, "confusion": self.confusion,
                "groups": self.groups, "cues": self.cues, "notes": self.notes, "errors": self.errors}
        if details:
            data["items"] = [i.to_dict() for i in self.items]
        return data


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def summary(units: Sequence[ChoiceScore]) -> dict[str, float | int | None]:
    """accuracy, chance, corrected (per unit) and counts of a set of scored units."""
    n = len(units)
    return {"items": n, "accuracy": _ratio(sum(u.correct for u in units), n),
            "chance": _ratio(math.fsum(u.chance for u in units), n),
            "corrected": _ratio(math.fsum(u.corrected for u in units), n)}


def confusion_table(task: str, units: Sequence[ChoiceScore]) -> dict[str, dict[str, float | int | None]]:
    """Per error model: options of that model offered and chosen (split: rows answered yes), and the
    rate; rows "right", "ambiguous" and "omitted" complete the chosen column to N."""
    offered: Counter[str] = Counter()
    chosen: Counter[str] = Counter()
    for u in units:
        for label, error in u.errors.items():
            if error is not None:
                offered[error] += 1
        if u.chosen_error is not None:
            chosen[u.chosen_error] += 1
    table = {model: {"offered": offered[model], "chosen": chosen[model], "rate": _ratio(chosen[model], offered[model])}
             for model in sorted(offered)}
    if task == "split":
        right_rows = [u for u in units if None in u.errors.values()]
        table["(right option)"] = {"offered": len(right_rows),
                                   "chosen": sum(u.value == "yes" for u in right_rows),
                                   "rate": _ratio(sum(u.value == "yes" for u in right_rows), len(right_rows))}
    else:
        table["(right option)"] = {"offered": len(units), "chosen": sum(u.correct for u in units),
                                   "rate": _ratio(sum(u.correct for u in units), len(units))}
    table["(ambiguous)"] = {"offered": None, "chosen": sum(u.status == STATUS_AMBIGUOUS for u in units), "rate": None}
    table["(omitted)"] = {"offered": None, "chosen": sum(u.status == STATUS_NONE for u in units), "rate": None}
    return table


def cue_summary(units: Sequence[ChoiceScore]) -> dict[str, float | int | None]:
    """Accuracy per cue condition and the cue reliance of counterfactual cues."""
    out: dict[str, float | int | None] = {}
    by_kind: dict[str, list[ChoiceScore]] = defaultdict(list)
    for u in units:
        if u.cue is not None:
            by_kind[u.cue].append(u)
    for kind, members in sorted(by_kind.items()):
        out[f"accuracy_{kind}"] = _ratio(sum(u.correct for u in members), len(members))
        out[f"items_{kind}"] = len(members)
    judged = [u for u in units if u.followed_cue is not None]
    if by_kind.get("counterfactual"):
        out["reliance"] = _ratio(sum(bool(u.followed_cue) for u in judged), len(judged))
        out["reliance_judged"] = len(judged)
    return out


def group_summaries(units: Sequence[ChoiceScore]) -> dict[str, dict[str, dict]]:
    kinds: dict[str, dict[str, list[ChoiceScore]]] = defaultdict(lambda: defaultdict(list))
    for u in units:
        for kind, group in u.groups.items():
            kinds[kind][group].append(u)
    order = lambda name: (0, int(name), "") if name.isdigit() else (1, len(name), name)  # noqa: E731
    return {kind: {g: summary(m) for g, m in sorted(groups.items(), key=lambda kv: order(kv[0]))}
            for kind, groups in kinds.items()}


def split_items(units: Sequence[ChoiceScore]) -> tuple[int, int, float]:
    """(items, items with every row right, mean item chance 2^-K)."""
    rows: dict[str, list[ChoiceScore]] = defaultdict(list)
    for u in units:
        rows[u.item or u.id].append(u)
    solved = sum(all(u.correct for u in members) for members in rows.values())
    chance = sum(0.5 ** len(members) for members in rows.values())
    return len(rows), solved, chance


def score_choice(task: str, truth: Sequence[ChoiceTruth], answers: Iterable[Answer], *, invalid: int = 0) -> ChoiceReport:
    """Score answers (parsed with the choice keys) against truth units. `invalid` truth records
    that could not be read count in N (accuracy) as failures; chance and the correction are
    averaged over the readable ones."""
    by_id, duplicates = index_answers(answers)
    notes = [f"answer {d} appears more than once: the last one is scored" for d in duplicates]
    known = {t.id for t in truth}
    extra = [i for i in by_id if i not in known]
    if extra:
        notes.append(f"{len(extra)} answers have no truth record (e.g. {extra[0]})")
    units = []
    for t in truth:
        labels = None if task == "split" else t.labels
        units.append(score_unit(task, t, extract_answer(by_id.get(t.id), labels)))
    n = len(units)
    right = sum(u.correct for u in units)
    wrong = sum(u.wrong for u in units)
    corrected = math.fsum(u.corrected for u in units)
    metrics = {"accuracy": _ratio(right, n + invalid), "chance": _ratio(math.fsum(u.chance for u in units), n),
               "corrected_score": corrected, "corrected_accuracy": _ratio(corrected, n)}
    counts = {"items": n + invalid, "right": right, "wrong": wrong, "ambiguous": sum(u.status == STATUS_AMBIGUOUS for u in units),
              "omitted": sum(u.status == STATUS_NONE for u in units), "missing": sum(t.id not in by_id for t in truth),
              "invalid_truth": invalid}
    if task == "split":
        items, solved, chance = split_items(units)
        metrics = {"row_accuracy": metrics["accuracy"], "row_chance": metrics["chance"],  # invalid rows in N
                   "item_accuracy": _ratio(solved, items), "item_chance": _ratio(chance, items),
                   "corrected_score": metrics["corrected_score"], "corrected_accuracy": metrics["corrected_accuracy"]}
        counts = {"rows": n + invalid, **{k: v for k, v in counts.items() if k != "items"}, "items": items,
                  "items_right": solved}
    return ChoiceReport(task, metrics, counts, confusion_table(task, units), group_summaries(units), cue_summary(units),
                        notes, units)


def score_choice_files(task: str, truth_path: str | Path, answers_path: str | Path) -> ChoiceReport:
    """`foldsim score choice|split|plan-choice TRUTH ANSWERS`. Raises InputError for a file that
    cannot be read as a whole; bad records are reported in `errors` (a truth record that cannot be
    read counts in N as a failure; an unreadable answer record scores as omitted)."""
    truth, invalid = load_choice_truth(truth_path, task)
    answers = load_choice_answers(answers_path)
    report = score_choice(task, truth, answers, invalid=len(invalid))
    report.errors = [f"{truth_path}: {error}" for error in invalid]
    report.errors += [f"{answers_path}: {a.id}: {a.reason}" for a in answers if a.unreadable]
    return report


# --------------------------------------------------------------------------------------------------
# rendering


def _cell(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def render_choice_report(report: ChoiceReport, console) -> None:
    """Readable rich tables: metrics beside chance, counts, the confusion table, groups, cues."""
    from rich.table import Table

    metrics = Table(title=f"foldsim score {report.task}")
    metrics.add_column("metric")
    metrics.add_column("value", justify="right")
    for name, value in report.metrics.items():
        metrics.add_row(name, _cell(value))
    for name, value in report.counts.items():
        metrics.add_row(f"[dim]{name}[/]", str(value))
    console.print(metrics)
    confusion = Table(title="chosen options by error model" if report.task != "split" else "rows answered yes by error model")
    for column in ("error model", "offered", "chosen", "rate"):
        confusion.add_column(column, justify="left" if column == "error model" else "right")
    for model, row in report.confusion.items():
        confusion.add_row(model, _cell(row["offered"]), _cell(row["chosen"]), _cell(row["rate"]))
    console.print(confusion)
    for kind, groups in report.groups.items():
        table = Table(title=f"by {kind}")
        for column in (kind, "items", "accuracy", "chance", "corrected"):
            table.add_column(column, justify="left" if column == kind else "right")
        for name, values in groups.items():
            table.add_row(name, *(_cell(values[c]) for c in ("items", "accuracy", "chance", "corrected")))
        console.print(table)
    if report.cues:
        cues = Table(title="cue conditions")
        cues.add_column("measure")
        cues.add_column("value", justify="right")
        for name, value in report.cues.items():
            cues.add_row(name, _cell(value))
        console.print(cues)
    for line in report.notes:
        console.print(f"note: {line}", markup=False, highlight=False)
