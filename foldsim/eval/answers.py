"""Model answers: one tolerant parser for every command that reads them (score, verify, solve).

An answer file may be a JSON array, JSON Lines, a single JSON object or raw model text. A record may
already hold the answer fields, wrap raw model text in a provider envelope (OpenAI Batch and its
error file, the Responses API, Anthropic Message Batches, Gemini batch, vLLM's offline runner,
foldsim's runner, the reference runner), or be an error row. The answer JSON is dug out of the text
(every fenced block and every balanced `{...}` object, with small repairs) and then read into typed
holes and codes. Nothing here raises on bad answers: each Answer carries a parse status and a
one-line reason, and each hole a note for what was wrong with it, so one bad answer never stops a
batch and a bad hole still counts as a prediction.

Parsing is linear in the answer's size: strict JSON is decoded once with orjson; only when that
fails are candidates searched (one scan, no backtracking regex) and repaired (one tokenizing pass).
Caps bound the rest (MAX_ANSWER_CHARS, MAX_DEPTH, MAX_DIGITS, MAX_CANDIDATES); an answer that hits
one gets the status "too_large" and a reason naming the cap. A record built in Python rather than read
from JSON text meets the same caps before anything reads it (`structure_problem`): an int with more
than MAX_DIGITS digits or nesting deeper than MAX_DEPTH anywhere in it is "too_large", a record that
contains itself "unparseable", as the file reader would say of the text such a record cannot have.

The parser is a small module group, split by what each part reads: model text
(foldsim.eval.answer_json: finding and repairing the JSON, the caps), provider records
(foldsim.eval.answer_envelopes), answer objects (foldsim.eval.answer_fields: typed holes and codes);
this module reads files and records with them and is the group's public face.

Statuses: "ok" (an answer object was found), "empty" (no text or no answer at all), "error" (an
error row from the runner, or a provider status other than success), "unparseable" (text with no
usable answer object), "too_large" (a parsing cap was hit).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..io import read_text
from .answer_envelopes import _dig, assistant_text, finish_note, no_text_reason, provider_error, response_text
# the parser's public names, wherever in the answers group they live (foldsim.eval.answers is its face)
from .answer_fields import (  # noqa: F401
    Plan, PredictedHole, Prediction, parse_directions, parse_predicted_hole, parse_predicted_location, plan_of,
    prediction_of,
)
from .answer_json import (  # noqa: F401
    ANSWER_KEYS, MAX_ANSWER_CHARS, MAX_DEPTH, MAX_DIGITS, PLAN_KEYS, PREDICTION_KEYS, STATUS_EMPTY, STATUS_ERROR,
    STATUS_OK, STATUS_TOO_LARGE, STATUS_UNPARSEABLE, STATUSES, _TOO_MANY_DIGITS, LimitExceeded, balanced_objects,
    extract_answer_json, fast_answer_data, find_answer_json, loads_lenient, loads_strict, paused_gc,
    structure_problem,
)


@dataclass(frozen=True)
class Answer:
    """One model answer: its id, parse status and reason, and the extracted JSON object.

    `source` names where the answer came from ("fields", "response", "result" (Anthropic), "openai"
    (a chat.completion in an OpenAI/vLLM batch body), "chat" (a chat.completion elsewhere, e.g.
    foldsim's runner), "responses" (OpenAI Responses API), "gemini", "raw_response", "text",
    "error"), `text` is the raw model text when there was one and `record` the original record (the
    compatibility scorers re-read both the way the reference did). `unreadable` marks a record the
    file reader could not read at all (a JSON Lines line that is not JSON): a problem of the file,
    reported as an error, not a model's wrong answer.
    """

    id: str
    status: str
    reason: str = ""
    data: dict | None = field(default=None, repr=False)
    source: str = ""
    text: str | None = field(default=None, repr=False)
    record: object = field(default=None, repr=False, compare=False)
    unreadable: bool = field(default=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def prediction(self, *, directions: bool = True) -> Prediction:
        """The answer read as a prediction (empty when there is no answer object); `directions=False`
        ignores the direction fields entirely (the text modality has none)."""
        return prediction_of(self.data or {}, directions=directions)

    def plan(self) -> Plan:
        """The answer read as a plan (`folds`/`holes`, or a record's `foldingTypes`/`initialHoles`)."""
        return plan_of(self.data or {})


# --------------------------------------------------------------------------------------------------
# reading files and records


def load_answers(path: str | Path) -> list[Answer]:
    """Every answer in a file, in file order (duplicates kept; see `index_answers`).

    A JSON array, JSON Lines (a line that is not a JSON record becomes an unreadable answer named
    "line N"; the other lines are read), a single JSON object, or else raw model text (one answer
    named after the file). Raises InputError only when the file cannot be read at all.
    """
    path = Path(path)
    text = read_text(path)
    jsonl = path.suffix.lower() in (".jsonl", ".ndjson")
    with paused_gc():
        return [record if isinstance(record, Answer) else answer_of_record(record, i, ANSWER_KEYS)
                for i, record in enumerate(split_answer_text(text, path.stem, jsonl=jsonl))]


def split_answer_text(text: str, name: str, *, jsonl: bool = False) -> list:
    """The records of an answer file's text (see load_answers). JSON Lines when `jsonl` or when the
    first line is a JSON object on its own; else the whole text as JSON (an array whose element is
    broken loses only that element); else one raw-text record named `name`. Records that cannot be
    read at all come back as unreadable Answers."""
    stripped = text.strip()
    if not stripped:
        return []
    first_line = stripped.split("\n", 1)[0]
    if jsonl or ("\n" in stripped and isinstance(_loads_or_none(first_line), dict)):
        return _jsonl_records(stripped)
    try:
        data = loads_strict(stripped)
    except ValueError:
        data = None
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        return [data]
    if stripped.startswith("["):
        return _array_records(stripped)
    if len(stripped) <= MAX_ANSWER_CHARS and data is None:
        repaired = _loads_or_none(stripped)
        if isinstance(repaired, (dict, list)):
            return repaired if isinstance(repaired, list) else [repaired]
    return [{"id": name, "raw_response": text}]


def _loads_or_none(text: str) -> object:
    try:
        return loads_lenient(text)
    except ValueError:
        return None


def _jsonl_records(text: str) -> list:
    """One record per non-blank line; a line that is not a JSON object even after repairs is one
    unreadable answer ("line N")."""
    records: list = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = loads_strict(line)
        except ValueError:
            record = _line_record(line, f"line {number}")
        records.append(record)
    return records


def _line_record(line: str, item: str) -> object:
    """A damaged line's record after repairs, or an unreadable Answer saying why."""
    try:
        record = loads_lenient(line.strip())
    except LimitExceeded as err:
        return unreadable_answer(item, f"{err}", STATUS_TOO_LARGE)
    except ValueError as err:
        return unreadable_answer(item, f"not a JSON record: {err}")
    if not isinstance(record, dict):
        return unreadable_answer(item, f"not a JSON record: a JSON {type(record).__name__}")
    return record


def unreadable_answer(item: str, reason: str, status: str = STATUS_UNPARSEABLE) -> Answer:
    """The answer standing in for a record that could not be read."""
    return Answer(item, status, reason, unreadable=True)


def _array_records(text: str) -> list:
    """The elements of a JSON array that does not parse as a whole, each read on its own (repaired
    if need be), so a broken element is one unreadable answer ("element N")."""
    records: list = []
    for number, (start, end) in enumerate(array_elements(text), 1):
        piece = text[start:end].strip()
        if piece:
            records.append(_line_record(piece, f"element {number}"))
    return records


def array_elements(text: str) -> list[tuple[int, int]]:
    """Spans of the top-level elements of a JSON array text (from its `[`), found by one scan that
    skips strings. A closing bracket of the wrong kind closes up to its own kind (so `[1, }` inside
    an element does not swallow the elements after it); an unclosed array ends at the end of the text."""
    spans, stack, start = [], [], None
    for match in re.finditer(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{},]', text):
        char = match.group()[0]
        if char in "[{":
            stack.append(char)
            if len(stack) == 1:
                start = match.end()
        elif char in "]}":
            opener = "[" if char == "]" else "{"
            while len(stack) > 1 and stack[-1] != opener:
                stack.pop()
            if len(stack) > 1:
                stack.pop()
            elif char == "]" and stack:
                spans.append((start, match.start()))
                return spans
        elif char == "," and len(stack) == 1:
            spans.append((start, match.start()))
            start = match.end()
    if start is not None:
        spans.append((start, len(text)))
    return spans


def answer_id(record: object, index: int) -> str:
    """`custom_id`, else `id`, else `key` (Gemini batch), else `metadata.key`, else "item <index>"."""
    if isinstance(record, dict):
        for value in (record.get("custom_id"), record.get("id"), record.get("key"), _dig(record, "metadata", "key")):
            if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)
                                          and -_TOO_MANY_DIGITS < value < _TOO_MANY_DIGITS):
                return str(value)
    return f"item {index}"


def parse_answer_record(record: object, index: int, *, keys: Iterable[str] = ANSWER_KEYS) -> Answer:
    """One record (or raw string) -> Answer. Never raises; `keys` are the keys an answer object must
    have at least one of. A record no JSON text could hold (`structure_problem`: an over-long int,
    nesting deeper than MAX_DEPTH, a cycle) is refused whole with that status, keeping no data and
    no record, so no reader ever meets it."""
    problem = structure_problem(record)
    if problem is not None:
        status, reason = problem
        return Answer(answer_id(record, index), status, reason)
    return answer_of_record(record, index, tuple(keys))


def answer_of_record(record: object, index: int, keys: tuple[str, ...]) -> Answer:
    """`parse_answer_record` of a record read from JSON text, which cannot hold what the guard
    refuses (the file reader's hot path skips the guard's walk)."""
    item = answer_id(record, index)
    if isinstance(record, str):
        return answer_of_text(item, record, "text", record, keys)
    if not isinstance(record, dict):
        return Answer(item, STATUS_EMPTY, f"a record must be an object or a string, got {type(record).__name__}", record=record)
    if any(k in record for k in keys):
        return Answer(item, STATUS_OK, "", record, "fields", record=record)
    failure = provider_error(record)
    if failure:
        return Answer(item, STATUS_ERROR, failure, source="error", text=response_text(record)[0], record=record)
    text, source = response_text(record)
    if text is None:
        return Answer(item, STATUS_EMPTY, no_text_reason(record), record=record)
    answer = answer_of_text(item, text, source, record, keys)
    truncated = finish_note(record) if not answer.ok else ""
    if truncated:
        return Answer(answer.id, answer.status, f"{answer.reason} ({truncated})", None, source, text, record)
    return answer


def answer_of_completion(completion: object, index: int = 0, *, keys: Iterable[str] = ANSWER_KEYS) -> Answer:
    """An Answer from what a generation loop hands over: raw text, a list of chat messages (the last
    assistant message's content is the answer, as TRL passes completions), or a record/envelope."""
    if isinstance(completion, list):
        text = assistant_text(completion)
        if text is None:
            return Answer(f"item {index}", STATUS_EMPTY, "no assistant message with text content", record=completion)
        completion = text
    if completion is None:
        return Answer(f"item {index}", STATUS_EMPTY, "no completion", record=completion)
    return parse_answer_record(completion, index, keys=keys)


def answer_of_text(item: str, text: str, source: str, record: object, keys: tuple[str, ...]) -> Answer:
    """An Answer from raw model text: the last JSON object with an answer key, or an empty answer
    saying why there is none."""
    if not text.strip():
        return Answer(item, STATUS_EMPTY, "empty response text", source=source, text=text, record=record)
    data, reason, status = find_answer_json(text, keys)
    return Answer(item, status, reason, data, source, text, record)


def index_answers(answers: Iterable[Answer]) -> tuple[dict[str, Answer], tuple[str, ...]]:
    """Answers by id (the last of duplicates wins) and the ids that were duplicated."""
    by_id: dict[str, Answer] = {}
    duplicates: list[str] = []
    for answer in answers:
        if answer.id in by_id and answer.id not in duplicates:
            duplicates.append(answer.id)
        by_id[answer.id] = answer
    return by_id, tuple(duplicates)
