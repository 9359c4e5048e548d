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

Statuses: "ok" (an answer object was found), "empty" (no text or no answer at all), "error" (an
error row from the runner, or a provider status other than success), "unparseable" (text with no
usable answer object), "too_large" (a parsing cap was hit).
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import orjson

from ..codes import canonical_code, code_of_entry
from ..errors import InputError, describe
from ..families.mentalblackboard import SHEET, rct_to_location
from ..holes import SHAPE_PERIOD, SIZES, Hole
from ..io import read_text

STATUS_OK = "ok"
STATUS_EMPTY = "empty"
STATUS_ERROR = "error"
STATUS_UNPARSEABLE = "unparseable"
STATUS_TOO_LARGE = "too_large"
STATUSES = (STATUS_OK, STATUS_EMPTY, STATUS_ERROR, STATUS_UNPARSEABLE, STATUS_TOO_LARGE)

#: the keys that make a JSON object an answer (prediction fields, plan fields, MentalBlackboard plan)
PREDICTION_KEYS = ("resultHoles", "totalNumberofHoles", "unfoldingTypes")
PLAN_KEYS = ("folds", "holes", "foldingTypes", "initialHoles")
ANSWER_KEYS = PREDICTION_KEYS + PLAN_KEYS

# -- caps: what bounds the work on one answer (each hit gives STATUS_TOO_LARGE and names the cap)
#: characters of model text per answer (a long reasoning trace is ~100K; 2M leaves a wide margin)
MAX_ANSWER_CHARS = 2_000_000
#: nesting of JSON objects and arrays in an answer (an answer needs 3; the published records 3)
MAX_DEPTH = 32
#: digits of a JSON number in an answer (counts, locations and angles need at most 3)
MAX_DIGITS = 20
#: values (containers and scalars, a shared container counted wherever it is used) in a record built
#: in Python: as many as an answer text of MAX_ANSWER_CHARS can hold ("[0,0,...]")
MAX_VALUES = MAX_ANSWER_CHARS // 2
#: JSON candidates parsed per answer, the last-ending first (a real answer is found in the first few)
MAX_CANDIDATES = 1000
#: characters of candidates parsed per answer: twice the text, plus this much (nested candidates
#: overlap, so their lengths can add up to more than the text)
PARSE_BUDGET_SLACK = 65_536
#: characters of a hole written as a string ("ellipse large (2,1,1)")
MAX_HOLE_STRING = 200

# -- scanning (possessive quantifiers: no pattern here can backtrack)
_BRACE_OR_QUOTE = re.compile(r'\{++|\}++|"')
_STRING_REST = re.compile(r'(?:[^"\\]++|\\.)*+"', re.DOTALL)  # after an opening quote, up to the closing one
_FENCE_INFO = re.compile(r"[ \t]*+([A-Za-z0-9_+-]*+)[ \t]*+(?:\r?\n|(?=[{\[]))")
_LONG_NUMBER = re.compile(r"\d{%d}" % (MAX_DIGITS + 1))
_REPAIR_TOKEN = re.compile(  # every branch opens with a literal character, so the engine skips the rest fast
    r'(?P<dq>"(?:[^"\\]++|\\.)*+")'
    r"|(?P<sq>'(?:[^'\\]++|\\.)*+')"
    r"|(?P<code>(?:[HVDhvd](?<![\w-].)[1-4][ \t]*+-[ \t]*+[FBfb]|[Rr](?<![\w-].)-?+(?:90|180|270))(?![\w-]))"
    r"|(?P<comma>,(?=\s*+[}\]]))"
    r"|(?P<word>(?:T(?<![\w-].)rue|F(?<![\w-].)alse|N(?<![\w-].)one)(?![\w-]))",
    re.DOTALL,
)
_CONTROL = re.compile(r"[\x00-\x1f]")
_UNESCAPED_QUOTE = re.compile(r'(?<!\\)((?:\\\\)*+)"')
_CONTROL_ESCAPES = {c: f"\\u{c:04x}" for c in range(32)} | {10: "\\n", 13: "\\r", 9: "\\t"}
_PY_WORDS = {"True": "true", "False": "false", "None": "null"}
_NUMBER_RE = re.compile(r"-?\d++(?:\.\d++)?")
_INT_TEXT = re.compile(r"\s*+\d{1,9}\s*+")
_LOCATION_TRIPLE = re.compile(r"[\[(]?+\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+[\])]?+")
_TEXT_HOLE_RE = re.compile(
    r"\s*+([A-Za-z]++)\s++(small|large)\s*+[\[(]?+\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+,\s*+(\d{1,9})\s*+[\])]?+\s*+",
    re.IGNORECASE,
)
_CODE_SPLIT = re.compile(r"[,\s]++")
_SPACE = re.compile(r"\s++")


class LimitExceeded(ValueError):
    """A parsing cap was hit; the message names it."""


# --------------------------------------------------------------------------------------------------
# typed answers


@dataclass(frozen=True)
class PredictedHole:
    """One hole as the model gave it, normalised but not judged.

    `shape`/`size` are lower-cased and stripped (possibly unknown words), `location` a grid id 1..32
    or None, `directions` every angle given, in degrees mod 360 (empty = none given). `note` says
    what is wrong with it; a hole with a note never matches anything but still counts as predicted.
    """

    shape: str
    size: str
    location: int | None
    directions: frozenset[int] = frozenset()
    note: str = ""

    def quarter_for(self, period: int) -> int | None:
        """The direction class (quarter turns mod `period`) the given angles all denote, or None.

        The single-direction rule: an answer listing several angles denotes a class only when all of
        them denote the same class for a shape of this period (e.g. 90 and 270 for an ellipse).
        Period 1 (circle, square) has one class, so any answer, even none, denotes it.
        """
        if period == 1:
            return 0
        if not self.directions or any(d % 90 for d in self.directions):
            return None
        classes = {(d // 90) % period for d in self.directions}
        return classes.pop() if len(classes) == 1 else None

    @property
    def valid(self) -> bool:
        """Whether every field is usable (it may still denote no single direction)."""
        return not self.note and self.shape in SHAPE_PERIOD and self.size in SIZES and self.location is not None

    def hole(self) -> Hole | None:
        """The proper Hole when the hole is fully valid and names one direction class, else None."""
        if not self.valid:
            return None
        quarter = self.quarter_for(SHAPE_PERIOD[self.shape])
        if quarter is None:
            return None
        return Hole.make(self.shape, self.size, 90 * quarter, self.location)


@dataclass(frozen=True)
class Prediction:
    """A prediction answer: listed holes, the declared total (None if absent or unreadable) and the
    unfolding codes (canonical where they parse, else the upper-cased token as given)."""

    holes: tuple[PredictedHole, ...] = ()
    declared_total: int | None = None
    unfolding: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """A planning answer: fold codes as given (upper-cased, whitespace removed, not validated) and
    the punches."""

    folds: tuple[str, ...] = ()
    holes: tuple[PredictedHole, ...] = ()
    notes: tuple[str, ...] = ()


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
# strict and lenient JSON


def loads_strict(text: str | bytes) -> object:
    """orjson.loads (strict JSON, several times faster than json for these small objects); raises
    ValueError for anything that is not one JSON value, and LimitExceeded for nesting over MAX_DEPTH."""
    data = orjson.loads(text)
    _check_depth(text, data)
    return data


def _check_depth(text: str | bytes, data: object) -> None:
    """LimitExceeded when `data` nests deeper than MAX_DEPTH. Counting brackets in the text (C speed)
    settles almost every case without walking the data."""
    opens = text.count("{" if isinstance(text, str) else b"{") + text.count("[" if isinstance(text, str) else b"[")
    if opens > MAX_DEPTH and nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise LimitExceeded(f"nested deeper than {MAX_DEPTH} levels")


def nesting_depth(data: object, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of a JSON value (a scalar is 0), counted up to `limit` + 1 without recursion."""
    deepest, stack = 0, [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            depth += 1
            if depth > limit:
                return depth
            deepest = max(deepest, depth)
            stack.extend((v, depth) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


_CONTAINERS = (dict, list, tuple, set, frozenset)
_TOO_MANY_DIGITS = 10**MAX_DIGITS
_SCALARS = frozenset({str, float, bool, type(None)})


def structure_problem(value: object) -> tuple[str, str] | None:
    """(status, reason) when a value built in Python is one no JSON answer could be, else None: an
    int (a value or a key) with more than MAX_DIGITS digits, nesting deeper than MAX_DEPTH, or more
    than MAX_VALUES values once written out (a container shared n times counts n times: 30 levels
    of `[x, x]` are a billion values as text) -> STATUS_TOO_LARGE, the reasons the file reader gives
    for the same text (`loads_lenient`); a container inside itself (a cycle) -> STATUS_UNPARSEABLE.

    The one guard between records a caller builds and every reader of them (the answer parser,
    verify's fast path, the compat scorers, the rewards' keys), so none of them meets an int a float
    cannot hold, recursion past the interpreter's limit, a cycle or an exponential walk (json.dumps,
    str). Iterative, and each container is walked once (a shared one is remembered with its height
    and size), so the work is linear in the distinct containers, never in the paths through them."""
    cls = value.__class__
    if cls in _SCALARS:
        return None
    if isinstance(value, int):
        return _int_problem(value)
    if not isinstance(value, _CONTAINERS):
        return None
    walked: dict[int, tuple[int, int]] = {}  # id -> (height, values) of a container walked already
    on_path = {id(value)}
    frames = [[value, _children(value), 1, 1]]  # [container, its children left, height, values in it so far]
    total = 1  # values written out so far, the whole record's
    while frames:
        frame = frames[-1]
        for child in frame[1]:
            if total >= MAX_VALUES:
                return STATUS_TOO_LARGE, f"more than {MAX_VALUES:,} values"
            total += 1
            frame[3] += 1
            if child.__class__ in _SCALARS:
                continue
            if isinstance(child, int):
                problem = _int_problem(child)
                if problem:
                    return problem
            elif isinstance(child, _CONTAINERS):
                key = id(child)
                if key in on_path:
                    return STATUS_UNPARSEABLE, "the record contains itself (a cyclic structure), which no JSON text can"
                done = walked.get(key)
                if done is None:
                    if len(frames) >= MAX_DEPTH:
                        return STATUS_TOO_LARGE, f"nested deeper than {MAX_DEPTH} levels"
                    frame[3] -= 1  # the child's frame counts it, and adds it in when done
                    on_path.add(key)
                    frames.append([child, _children(child), 1, 1])
                    break
                height, values = done
                if len(frames) + height > MAX_DEPTH:
                    return STATUS_TOO_LARGE, f"nested deeper than {MAX_DEPTH} levels"
                frame[2] = max(frame[2], height + 1)
                frame[3] += values - 1
                total += values - 1
        else:
            frames.pop()
            on_path.discard(id(frame[0]))
            walked[id(frame[0])] = frame[2], frame[3]
            if frames:
                frames[-1][2] = max(frames[-1][2], frame[2] + 1)
                frames[-1][3] += frame[3]
    if total > MAX_VALUES:
        return STATUS_TOO_LARGE, f"more than {MAX_VALUES:,} values"
    return None


def _children(container: object):
    """A container's values, a dict's keys too (an int key is a value json.dumps writes)."""
    return iter((*container.keys(), *container.values())) if isinstance(container, dict) else iter(container)


def _int_problem(number: int) -> tuple[str, str] | None:
    if -_TOO_MANY_DIGITS < number < _TOO_MANY_DIGITS:
        return None
    return STATUS_TOO_LARGE, f"a number with more than {MAX_DIGITS} digits"


def repair_json(text: str) -> str:
    """The candidate with small damage repaired in one tokenizing pass, strings never touched:
    single-quoted strings become double-quoted, bare codes (`V2-B`, `R-90`) are quoted, trailing
    commas removed, Python's True/False/None spelled as JSON, and raw control characters inside
    strings escaped. Linear in the text (the token pattern cannot backtrack)."""
    return _REPAIR_TOKEN.sub(_repaired_token, text)


def _repaired_token(match: re.Match) -> str:
    kind = match.lastgroup
    token = match.group()
    if kind == "dq":
        return token.translate(_CONTROL_ESCAPES) if _CONTROL.search(token) else token
    if kind == "sq":
        body = token[1:-1]
        if "\\" in body:
            body = body.replace("\\'", "'")
        if '"' in body:
            body = _UNESCAPED_QUOTE.sub(r'\1\\"', body)
        token = f'"{body}"'
        return token.translate(_CONTROL_ESCAPES) if _CONTROL.search(token) else token
    if kind == "code":
        return '"' + _SPACE.sub("", token) + '"'
    if kind == "comma":
        return ""
    return _PY_WORDS[token]


def loads_lenient(text: str) -> object:
    """Strict JSON of the candidate, else of its repaired version. Raises ValueError if neither
    parses, LimitExceeded (a ValueError) if a cap is hit: a number with more than MAX_DIGITS digits,
    nesting deeper than MAX_DEPTH, a text over MAX_ANSWER_CHARS."""
    if len(text) > MAX_ANSWER_CHARS:
        raise LimitExceeded(f"{len(text):,} characters, over the limit of {MAX_ANSWER_CHARS:,}")
    try:
        return loads_strict(text)
    except LimitExceeded:
        raise
    except ValueError:
        pass
    if _LONG_NUMBER.search(text):
        raise LimitExceeded(f"a number with more than {MAX_DIGITS} digits")
    try:
        return loads_strict(repair_json(text))
    except LimitExceeded:
        raise
    except ValueError:
        raise ValueError("not valid JSON, even after repairs") from None


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


def assistant_text(messages: list) -> str | None:
    """The text of the last assistant message of a chat message list (None when there is none)."""
    replies = [m for m in messages if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
    return _content_text(replies[-1].get("content")) if replies else None


def _content_text(content: object) -> str | None:
    """A message's text: a string, or its text parts joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") in ("text", "output_text", None)]
        parts = [p for p in parts if isinstance(p, str)]
        return "\n".join(parts) if parts else None
    return None


# --------------------------------------------------------------------------------------------------
# provider envelopes


def response_text(record: dict) -> tuple[str | None, str]:
    """Raw model text of a record and where it was found: first the reference's order (`response`
    string; `result.message.content` text blocks, joined by newlines; `response.body.choices[0]
    .message.content`), then the other providers (a chat.completion under `response` or at the top;
    Responses-API `output[]` message parts of type output_text; Gemini `candidates[0].content
    .parts[].text`, thought parts skipped), then `raw_response`. (None, "") when there is none."""
    response = record.get("response")
    if isinstance(response, str):
        return response, "response"
    content = _dig(record, "result", "message", "content")
    if isinstance(content, list):
        blocks = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        blocks = [b for b in blocks if isinstance(b, str)]
        if blocks:
            return "\n".join(blocks), "result"
    if isinstance(content, str):
        return content, "result"
    body = _dig(record, "response", "body")
    for holder, chat_source in ((body, "openai"), (response, "chat"), (record, "chat")):
        if not isinstance(holder, dict):
            continue
        text = _chat_text(holder)
        if text is not None:
            return text, chat_source
        text = _responses_text(holder)
        if text is not None:
            return text, "responses"
        text = _gemini_text(holder)
        if text is not None:
            return text, "gemini"
    raw = record.get("raw_response")
    if isinstance(raw, str):
        return raw, "raw_response"
    return None, ""


def _chat_text(body: dict) -> str | None:
    """`choices[0].message.content` of a chat.completion (a string or text parts)."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    return _content_text(_dig(choices[0], "message", "content"))


def _responses_text(body: dict) -> str | None:
    """The output_text parts of the message items of a Responses-API body, joined by newlines."""
    output = body.get("output")
    if not isinstance(output, list):
        return None
    parts = [part.get("text") for item in output if isinstance(item, dict) and item.get("type", "message") == "message"
             for part in (item.get("content") if isinstance(item.get("content"), list) else ())
             if isinstance(part, dict) and part.get("type") == "output_text"]
    parts = [p for p in parts if isinstance(p, str)]
    return "\n".join(parts) if parts else None


def _gemini_text(body: dict) -> str | None:
    """The text parts (thought summaries skipped) of a Gemini response's first candidate."""
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return None
    parts = _dig(candidates[0], "content", "parts")
    if not isinstance(parts, list):
        return None
    texts = [p.get("text") for p in parts if isinstance(p, dict) and not p.get("thought")]
    texts = [t for t in texts if isinstance(t, str)]
    return "".join(texts) if texts else None


def provider_error(record: dict) -> str | None:
    """Why a record is not a successful answer, naming the provider's status; None when it is one.

    An error row (`error` set: the reference runner, foldsim's runner, an OpenAI/vLLM batch error
    line; `"error": null` is success), an HTTP status other than 2xx in a batch line, an error
    object in its body, an Anthropic result that did not succeed (errored, canceled, expired), a
    Gemini status object or a blocked prompt, a failed or cancelled Responses-API response.
    """
    error = record.get("error")
    if error not in (None, "", {}, []):
        return f"{_error_prefix(record)}: {_error_text(error)}"
    response = record.get("response")
    if isinstance(response, dict):
        status = response.get("status_code")
        if isinstance(status, int) and not isinstance(status, bool) and not 200 <= status < 300:
            detail = _dig(response, "body", "error")
            return f"HTTP status {status}" + (f": {_error_text(detail)}" if detail else "")
    for body in (_dig(record, "response", "body"), response, record):
        failure = _body_failure(body) if isinstance(body, dict) else None
        if failure:
            return failure
    body = _dig(record, "response", "body")
    if isinstance(body, dict) and body.get("error") not in (None, "", {}):
        return f"response body error: {_error_text(body['error'])}"
    result = record.get("result")
    if isinstance(result, dict) and isinstance(result.get("type"), str) and result["type"] != "succeeded":
        detail = result.get("error")
        return f"Anthropic result {result['type']}" + (f": {_error_text(detail)}" if detail else "")
    status = record.get("status")
    if isinstance(status, dict) and status.get("code") not in (None, 0):
        return f"Gemini status {describe(status.get('code'))}: {_error_text(status)}"
    return None


def _body_failure(body: dict) -> str | None:
    """A failed Responses-API body or a blocked Gemini prompt, in words."""
    if body.get("object") == "response" and body.get("status") in ("failed", "cancelled"):
        detail = body.get("error")
        return f"Responses API status {body['status']}" + (f": {_error_text(detail)}" if detail else "")
    block = _dig(body, "promptFeedback", "blockReason")
    if block and not body.get("candidates"):
        return f"Gemini prompt blocked: {describe(block)}"
    return None


def no_text_reason(record: dict) -> str:
    """Why a successful record holds no text: a refusal, a stop with no content, or no envelope."""
    choices = _dig(record, "response", "body", "choices") or _dig(record, "response", "choices") or record.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        refusal = _dig(choices[0], "message", "refusal")
        if refusal:
            return f"the model refused: {_error_text(refusal)}"
        return f"no message content (finish_reason {describe(choices[0].get('finish_reason'))})"
    for holder in (record.get("response"), record):
        candidates = holder.get("candidates") if isinstance(holder, dict) else None
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
            return f"Gemini candidate without text (finishReason {describe(candidates[0].get('finishReason'))})"
    for holder in (_dig(record, "response", "body"), record.get("response"), record):
        if isinstance(holder, dict) and isinstance(holder.get("output"), list):
            return f"Responses API output without output_text (status {describe(holder.get('status'))})"
    return "no answer fields and no response text"


def finish_note(record: dict) -> str:
    """"truncated: ..." when the provider says generation stopped early (length, max tokens)."""
    for choices in (_dig(record, "response", "body", "choices"), _dig(record, "response", "choices"), record.get("choices")):
        if isinstance(choices, list) and choices and isinstance(choices[0], dict) and choices[0].get("finish_reason") == "length":
            return "truncated: finish_reason length"
    if _dig(record, "result", "message", "stop_reason") == "max_tokens":
        return "truncated: stop_reason max_tokens"
    for holder in (record.get("response"), record):
        candidates = holder.get("candidates") if isinstance(holder, dict) else None
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict) \
                and candidates[0].get("finishReason") == "MAX_TOKENS":
            return "truncated: finishReason MAX_TOKENS"
    for holder in (_dig(record, "response", "body"), record.get("response")):
        if isinstance(holder, dict) and holder.get("status") == "incomplete":
            return f"truncated: Responses API incomplete ({describe(_dig(holder, 'incomplete_details', 'reason'))})"
    return ""


def _error_prefix(record: dict) -> str:
    """How an `error` field is introduced: a batch line's error, a Gemini line's, or an error row."""
    if "custom_id" in record and "response" in record:
        return "batch error"
    if "key" in record:
        return "Gemini error"
    return "error row"


def _error_text(error: object) -> str:
    """An error object in one short line: `code: message` where it has them."""
    if isinstance(error, dict):
        inner = error.get("error") if isinstance(error.get("error"), dict) else error
        parts = [inner.get(k) for k in ("code", "type", "status", "message") if isinstance(inner.get(k), (str, int))]
        if parts:
            return _one_line(": ".join(str(p) for p in dict.fromkeys(parts)))
    return _one_line(error)


def _dig(obj: object, *path: str) -> object:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _one_line(value: object, limit: int = 200) -> str:
    """A value in one bounded line (strings as they are, anything else as a short repr)."""
    text = value if isinstance(value, str) else describe(value, limit)
    return " ".join(text[: 4 * limit].split())[:limit]


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


# --------------------------------------------------------------------------------------------------
# finding the JSON in model text


def fenced_blocks(text: str) -> list[tuple[int, int, str]]:
    """Every ``` fenced block: (start, end) of its content and its language tag, lower-cased. Fences
    pair up in order; a last fence left open runs to the end of the text (a truncated answer)."""
    marks, at = [], text.find("```")
    while at >= 0:
        marks.append(at)
        at = text.find("```", at + 3)
    blocks = []
    for i in range(0, len(marks), 2):
        opening = marks[i] + 3
        info = _FENCE_INFO.match(text, opening)
        start = info.end() if info else opening
        end = marks[i + 1] if i + 1 < len(marks) else len(text)
        blocks.append((min(start, end), end, info.group(1).lower() if info else ""))
    return blocks


def balanced_objects(text: str, *, max_depth: int = MAX_DEPTH) -> list[tuple[int, int]]:
    """(start, end) spans of every balanced `{...}` nested at most `max_depth` deep, found by one
    brace-matching scan that skips JSON strings inside objects (so an unclosed `{` in prose does not
    swallow what follows, and braces in strings do not count). Linear in the text."""
    spans, _ = _scan_objects(text, max_depth, lambda start, end: True)
    return spans


def _scan_objects(text: str, max_depth: int, keep) -> tuple[list[tuple[int, int]], bool]:
    """The spans `keep(start, end)` accepts, and whether some object nested deeper than max_depth.

    The stack of open braces keeps only the innermost `max_depth` (a deque): an open brace pushed
    out has more than max_depth levels inside it, so it can never be a usable candidate, and its
    closing brace arrives when the stack is empty again, where it is ignored."""
    spans: list[tuple[int, int]] = []
    stack: deque[int] = deque(maxlen=max_depth)
    too_deep = False
    search, string_rest = _BRACE_OR_QUOTE.search, _STRING_REST.match
    pos = 0
    while (match := search(text, pos)) is not None:
        token, pos = match.group(), match.end()
        if token == '"':
            if stack:
                closing = string_rest(text, pos)
                if closing is None:  # a string left open runs to the end
                    break
                pos = closing.end()
        elif token[0] == "{":
            too_deep |= len(stack) + len(token) > max_depth
            stack.extend(range(match.start(), pos))
        else:
            for close in range(match.start() + 1, match.start() + 1 + min(len(token), len(stack))):
                start = stack.pop()
                if keep(start, close):
                    spans.append((start, close))
    return spans, too_deep


class _KeyIndex:
    """Where answer keys occur in a text, to ask "does text[start:end] mention a key" in O(log n)."""

    def __init__(self, text: str, keys: tuple[str, ...]):
        found = [(m.start(), m.end()) for m in _keys_pattern(keys).finditer(text)]
        self.starts = [s for s, _ in found]
        self.ends = [e for _, e in found]

    def __bool__(self) -> bool:
        return bool(self.starts)

    def within(self, start: int, end: int) -> bool:
        i = bisect_left(self.starts, start)
        return i < len(self.starts) and self.ends[i] <= end


def fast_answer_data(text: str, keys: tuple[str, ...] = ANSWER_KEYS) -> dict | None:
    """The answer object, decoded once and strictly, when the search could only find that one: the
    stripped text is the object, or the text holds exactly one fenced block, whose content is the
    object, and no `}` after it. None otherwise (the search then decides)."""
    if len(text) > MAX_ANSWER_CHARS:
        return None
    whole = text.strip()
    if whole[:1] == "{" and whole[-1:] == "}":
        candidate = whole
    else:
        first = text.find("```")
        second = text.find("```", first + 3) if first >= 0 else -1
        if second < 0 or text.find("```", second + 3) >= 0 or text.find("}", second) >= 0:
            return None
        info = _FENCE_INFO.match(text, first + 3)
        candidate = text[info.end() if info else first + 3 : second].strip()
        if candidate[:1] != "{" or candidate[-1:] != "}":
            return None
    try:
        data = orjson.loads(candidate)
    except ValueError:
        return None
    if data.__class__ is not dict:
        return None
    for key in data:  # an answer key it holds, written out (the search only tries candidates that mention one)
        if key in keys and key in candidate:
            break
    else:
        return None
    if candidate.count("{") + candidate.count("[") > MAX_DEPTH and nesting_depth(data) > MAX_DEPTH:
        return None
    return data


@lru_cache(maxsize=16)
def _keys_pattern(keys: tuple[str, ...]) -> re.Pattern:
    """One pattern finding any of `keys` (one C-speed search instead of a loop over keys)."""
    return re.compile("|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True)))


@contextmanager
def paused_gc():
    """The cyclic garbage collector paused for a batch parse, then restored as it was. Decoding
    100K answers allocates millions of small dicts and lists that reference counting frees; the
    collector's passes over them took ~40 % of verify's time and find nothing to collect."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def extract_answer_json(text: str, keys: Iterable[str] = ANSWER_KEYS) -> tuple[dict | None, str]:
    """The answer object in model text and a reason ("" when found); see `find_answer_json`."""
    data, reason, _ = find_answer_json(text, keys)
    return data, reason


def find_answer_json(text: str, keys: Iterable[str] = ANSWER_KEYS, *, fast: bool = True) -> tuple[dict | None, str, str]:
    """(answer object or None, reason, status) for model text.

    Candidates are every fenced block and every balanced `{...}` object that mentions one of `keys`;
    the one ending last in the text that parses (repaired if need be) to an object holding one of
    the keys wins. The common shapes (the text is the object, or holds one fenced block that is) are
    decoded once, strictly, with no search (`fast_answer_data`; `fast=False` always searches, with
    the same result). Work is bounded: MAX_ANSWER_CHARS of text, MAX_CANDIDATES parses, MAX_DEPTH nesting, MAX_DIGITS
    digits per number; hitting a cap with no answer found gives STATUS_TOO_LARGE and names the cap.
    """
    keys = tuple(keys)
    if len(text) > MAX_ANSWER_CHARS:
        return None, f"answer text is {len(text):,} characters, over the limit of {MAX_ANSWER_CHARS:,}", STATUS_TOO_LARGE
    data = fast_answer_data(text, keys) if fast else None
    if data is not None:
        return data, "", STATUS_OK
    index = _KeyIndex(text, keys)
    if not index:
        return None, f"no JSON object with an answer key ({', '.join(keys)}) in the response", STATUS_UNPARSEABLE
    spans, too_deep = _scan_objects(text, MAX_DEPTH, index.within)
    spans += [(start, end) for start, end, _ in fenced_blocks(text) if index.within(start, end)]
    limit = f"objects nested deeper than {MAX_DEPTH} levels" if too_deep else ""
    budget = 2 * len(text) + PARSE_BUDGET_SLACK
    for tried, (start, end) in enumerate(sorted(set(spans), key=lambda span: (-span[1], span[0]))):
        budget -= end - start
        if tried == MAX_CANDIDATES or budget < 0:
            limit = (f"more than {MAX_CANDIDATES} candidate objects, none an answer" if tried == MAX_CANDIDATES
                     else f"candidates longer than twice the text, none an answer (tried {tried})")
            break
        try:
            data = loads_lenient(text[start:end].strip())
        except LimitExceeded as err:
            limit = limit or str(err)
            continue
        except ValueError:
            continue
        if isinstance(data, dict) and any(k in data for k in keys):
            return data, "", STATUS_OK
    if limit:
        return None, f"no answer object within the parsing limits: {limit}", STATUS_TOO_LARGE
    if spans:
        return None, "no JSON object with an answer key parses (truncated or malformed)", STATUS_UNPARSEABLE
    return None, "no complete JSON object with an answer key (truncated or malformed)", STATUS_UNPARSEABLE


# --------------------------------------------------------------------------------------------------
# reading fields


def prediction_of(data: dict, *, directions: bool = True) -> Prediction:
    """Typed prediction fields of an answer object (`directions=False`: direction fields ignored)."""
    notes: list[str] = []
    holes = parse_predicted_holes(data.get("resultHoles"), "resultHoles", notes, directions=directions)
    total = parse_total(data.get("totalNumberofHoles"), notes)
    unfolding = parse_unfolding(data.get("unfoldingTypes"), notes)
    return Prediction(holes, total, unfolding, tuple(notes))


def plan_of(data: dict) -> Plan:
    """Typed plan fields: `folds`/`holes` first, else a MentalBlackboard record's
    `foldingTypes`/`initialHoles` (either may be stored as a JSON string, as dataset dumps do)."""
    notes: list[str] = []
    if "folds" in data or "foldingTypes" not in data:
        folds = tuple(normalise_code(c) for c in split_codes(data.get("folds"), "folds", notes))
    else:
        entries = _json_list(data.get("foldingTypes"), "foldingTypes", notes)
        folds = tuple(_code_of_entry_or_note(e, i, notes) for i, e in enumerate(entries))
    key = "holes" if "holes" in data or "initialHoles" not in data else "initialHoles"
    holes = parse_predicted_holes(data.get(key), key, notes)
    return Plan(folds, holes, tuple(notes))


def _json_list(value: object, field_name: str, notes: list[str]) -> list:
    """A list field, also when stored as a JSON string; anything else is noted and empty."""
    if isinstance(value, str):
        try:
            value = loads_lenient(value)
        except ValueError:
            notes.append(f"{field_name}: {_one_line(value, 60)!r} is not a JSON list")
            return []
    if isinstance(value, list):
        return value
    if value is not None:
        notes.append(f"{field_name}: expected a list, got {type(value).__name__}")
    return []


def _code_of_entry_or_note(entry: object, index: int, notes: list[str]) -> str:
    try:
        return code_of_entry(entry)
    except InputError as err:
        notes.append(f"foldingTypes[{index}]: {err}")
        name = entry.get("foldType", "?") if isinstance(entry, dict) else "?"
        return name if isinstance(name, str) else "?"


def split_codes(value: object, field_name: str, notes: list[str]) -> list[str]:
    """Code tokens from a list or a comma/whitespace separated string; None gives []."""
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in _CODE_SPLIT.split(value) if t]
    if isinstance(value, list):
        tokens = []
        for i, token in enumerate(value):
            if isinstance(token, str) and token.strip():
                tokens.append(token)
            elif not isinstance(token, str):
                notes.append(f"{field_name}[{i}]: {describe(token)} is not a code")
                tokens.append(describe(token))
        return tokens
    notes.append(f"{field_name}: expected a list of codes, got {type(value).__name__}")
    return []


def normalise_code(token: str) -> str:
    """A code token upper-cased with whitespace removed ("h1 -f " -> "H1-F"); not validated."""
    return _SPACE.sub("", token).upper()


def parse_unfolding(value: object, notes: list[str]) -> tuple[str, ...]:
    """Unfolding codes, canonical where they parse ("h2-f" -> "H2-F"), else the normalised token."""
    codes = []
    for token in split_codes(value, "unfoldingTypes", notes):
        try:
            codes.append(canonical_code(token))
        except InputError:
            notes.append(f"unfoldingTypes: unknown code {_one_line(token, 60)!r}")
            codes.append(normalise_code(token))
    return tuple(codes)


def parse_total(value: object, notes: list[str]) -> int | None:
    """The declared totalNumberofHoles as an int (numeric strings accepted), None when absent."""
    if value is None:
        return None
    if isinstance(value, bool):
        notes.append(f"totalNumberofHoles: {value!r} is not a count")
        return None
    if isinstance(value, int) and abs(value) < 10**9:
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 10**9:
        return int(value)
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        return int(value)
    notes.append(f"totalNumberofHoles: {describe(value)} is not a count")
    return None


def parse_predicted_holes(value: object, field_name: str, notes: list[str], *, directions: bool = True) -> tuple[PredictedHole, ...]:
    """The holes of a hole list (also a list stored as a JSON string); a missing or null list is
    empty, anything else is noted."""
    if value is None:
        return ()
    if isinstance(value, str):
        try:
            value = loads_lenient(value)
        except ValueError:
            notes.append(f"{field_name}: expected a list of holes, got a string")
            return ()
    if not isinstance(value, list):
        notes.append(f"{field_name}: expected a list of holes, got {type(value).__name__}")
        return ()
    return tuple(parse_predicted_hole(item, directions=directions) for item in value)


def parse_predicted_hole(obj: object, *, directions: bool = True) -> PredictedHole:
    """One predicted hole from an object (or a string: JSON, or "ellipse large (2,1,1)").
    `directions=False` ignores the direction field (no note, no angles)."""
    if isinstance(obj, str):
        obj = _hole_of_string(obj)
    if not isinstance(obj, dict):
        return PredictedHole("", "", None, note=f"hole {_one_line(obj, 60)} is not an object")
    notes: list[str] = []
    shape = _word(obj.get("shape"), "shape", tuple(SHAPE_PERIOD), notes)
    size = _word(obj.get("size"), "size", SIZES, notes)
    location = parse_predicted_location(obj.get("location"), notes)
    angles = parse_directions(obj.get("direction"), notes) if directions else frozenset()
    return PredictedHole(shape, size, location, angles, "; ".join(notes))


def _hole_of_string(text: str) -> object:
    if len(text) > MAX_HOLE_STRING:
        return text
    try:
        return loads_strict(text)
    except ValueError:
        pass
    match = _TEXT_HOLE_RE.fullmatch(text)
    if not match:
        return text
    shape, size, row, col, tri = match.groups()
    return {"shape": shape, "size": size, "location": [int(row), int(col), int(tri)]}


def _word(value: object, field_name: str, known: tuple[str, ...], notes: list[str]) -> str:
    word = value.strip().lower() if isinstance(value, str) and len(value) <= 40 else ""
    if value is None:
        notes.append(f"{field_name} missing")
    elif word not in known:
        notes.append(f"unknown {field_name} {describe(value)}")
    return word


def parse_predicted_location(value: object, notes: list[str]) -> int | None:
    """A grid id 1..32 from an int, a numeric string, or a 0-based [row, col, tri] list or
    "(r, c, t)" string; None (with a note) for anything else or out of range."""
    if value is None:
        notes.append("location missing")
        return None
    numbers = _location_numbers(value)
    if numbers is None:
        notes.append(f"location {_one_line(value, 60)} is not a grid id or [row, col, tri]")
        return None
    n = SHEET.n_triangles
    if len(numbers) == 1:
        if 1 <= numbers[0] <= n:
            return numbers[0]
        notes.append(f"location {numbers[0]} is outside 1..{n}")
        return None
    row, col, tri = numbers
    per_cell = n // (SHEET.rows * SHEET.cols)
    if 0 <= row < SHEET.rows and 0 <= col < SHEET.cols and 0 <= tri < per_cell:
        return rct_to_location(row, col, tri)
    notes.append(f"location [{row}, {col}, {tri}] is outside the {SHEET.cols}x{SHEET.rows} grid")
    return None


def _location_numbers(value: object) -> list[int] | None:
    """[id] or [row, col, tri] from the accepted location forms, else None (numbers beyond nine
    digits are no location)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return [value] if abs(value) < 10**9 else None
    if isinstance(value, float):
        return [int(value)] if value.is_integer() and abs(value) < 1e9 else None
    if isinstance(value, str):
        if len(value) > 40:
            return None
        if _INT_TEXT.fullmatch(value):
            return [int(value)]
        triple = _LOCATION_TRIPLE.fullmatch(value.strip())
        return [int(n) for n in triple.groups()] if triple else None
    if isinstance(value, (list, tuple)) and len(value) == 3:
        parts = [_location_numbers(v) if not isinstance(v, (list, tuple)) else None for v in value]
        if all(p is not None and len(p) == 1 for p in parts):
            return [p[0] for p in parts]
    return None


def parse_directions(value: object, notes: list[str]) -> frozenset[int]:
    """Every angle in a direction field, in degrees mod 360: ints, numeric strings, class strings
    ("0, 180", "(90, 270)") and flat lists of these. None/"" give the empty set; non-integer,
    over-long or unreadable angles are noted."""
    if value is None or value == "":
        return frozenset()
    if isinstance(value, bool):
        notes.append(f"direction {value!r} is not an angle")
        return frozenset()
    if isinstance(value, (int, float)):
        return _angles([value], value, notes)
    if isinstance(value, str):
        numbers = _NUMBER_RE.findall(value) if len(value) <= 200 else []
        if not numbers or any(len(n) > 12 for n in numbers):
            notes.append(f"direction {_one_line(value, 60)!r} is not an angle")
            return frozenset()
        return _angles([float(n) for n in numbers], value, notes)
    if isinstance(value, (list, tuple)) and len(value) <= 16:
        angles: set[int] = set()
        for item in value:
            if isinstance(item, (list, tuple, dict)):
                notes.append(f"direction {_one_line(value, 60)} is not an angle or a flat list of angles")
                return frozenset()
            angles |= parse_directions(item, notes)
        return frozenset(angles)
    notes.append(f"direction {_one_line(value, 60)} is not an angle")
    return frozenset()


def _angles(numbers: list[float], original: object, notes: list[str]) -> frozenset[int]:
    if any(not (isinstance(n, int) or n.is_integer()) or abs(n) >= 1e9 for n in numbers):  # float(int) can overflow
        notes.append(f"direction {_one_line(original, 60)} is not a whole number of degrees")
        return frozenset()
    return frozenset(int(n) % 360 for n in numbers)
