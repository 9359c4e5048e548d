"""Model answers: one tolerant parser for every command that reads them (score, verify, solve).

An answer file may be a JSON array, JSON Lines, a single JSON object or raw model text. A record may
already hold the answer fields, wrap raw model text in a provider envelope, or be an error row. The
answer JSON is dug out of the text robustly (every fenced block and every balanced `{...}` object,
with small repairs) and then read into typed holes and codes. Nothing here raises on bad answers:
each Answer carries a parse status and a one-line reason, and each hole a note for what was wrong
with it, so one bad answer never stops a batch and a bad hole still counts as a prediction.

Statuses: "ok" (an answer object was found), "empty" (no text or no answer at all), "error" (an
error row from the runner or the provider), "unparseable" (text with no usable answer object).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..codes import canonical_code, code_of_entry
from ..errors import InputError
from ..holes import SHAPE_PERIOD, SIZES, Hole
from ..kernels.sheet import rct_to_location

STATUS_OK = "ok"
STATUS_EMPTY = "empty"
STATUS_ERROR = "error"
STATUS_UNPARSEABLE = "unparseable"

#: the keys that make a JSON object an answer (prediction fields, plan fields, MentalBlackboard plan)
PREDICTION_KEYS = ("resultHoles", "totalNumberofHoles", "unfoldingTypes")
PLAN_KEYS = ("folds", "holes", "foldingTypes", "initialHoles")
ANSWER_KEYS = PREDICTION_KEYS + PLAN_KEYS

_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n`]*\n?(.*?)```", re.DOTALL)
_BARE_CODE_RE = re.compile(r"(?<![\"'\w-])((?:[HVD][1-4]\s*-\s*[FB])|(?:R-?(?:90|180|270)))(?![\w\"'-])", re.IGNORECASE)
_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")
_JSON_STRING_RE = re.compile(r'"(?:\\.|[^"\\])*"', re.DOTALL)
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")
_TEXT_HOLE_RE = re.compile(r"^\s*([A-Za-z]+)\s+(small|large)\s*[\[(]?\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*[\])]?\s*$", re.IGNORECASE)


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

    `source` names where the answer came from ("fields", "response", "result", "openai",
    "raw_response", "text"), `text` is the raw model text when there was one and `record` the
    original record (the compatibility scorers re-read both the way the reference did).
    """

    id: str
    status: str
    reason: str = ""
    data: dict | None = None
    source: str = ""
    text: str | None = field(default=None, repr=False)
    record: object = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def prediction(self) -> Prediction:
        """The answer read as a prediction (empty when there is no answer object)."""
        return prediction_of(self.data or {})

    def plan(self) -> Plan:
        """The answer read as a plan (`folds`/`holes`, or a record's `foldingTypes`/`initialHoles`)."""
        return plan_of(self.data or {})


# --------------------------------------------------------------------------------------------------
# reading files and records


def load_answers(path: str | Path) -> list[Answer]:
    """Every answer in a file, in file order (duplicates kept; see `index_answers`).

    A JSON array, JSON Lines (a bad line becomes an unparseable answer named "line N"), a single
    JSON object, or else raw model text (one answer named after the file). Raises InputError only
    when the file cannot be read at all.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read: {getattr(err, 'strerror', None) or err}", item=str(path)) from None
    return [parse_answer_record(record, i) for i, record in enumerate(split_answer_text(text, path.stem))]


def split_answer_text(text: str, name: str) -> list:
    """The records of an answer file's text (see load_answers): the whole text as JSON (repaired if
    need be), else JSON Lines when the first line is an object (a line that does not parse even
    after repairs becomes a raw-text record named "line N"), else one raw-text record."""
    stripped = text.strip()
    if not stripped:
        return []
    lines = [(number, line) for number, line in enumerate(stripped.splitlines(), 1) if line.strip()]
    # JSON Lines first when the first line is an object on its own: repairing a whole large
    # JSONL file as one JSON text would be slow and pointless
    jsonl = len(lines) > 1 and isinstance(_loads_or_none(lines[0][1]), dict)
    if not jsonl:
        try:
            data = loads_lenient(stripped)
        except ValueError:
            return [{"id": name, "raw_response": text}]
        return data if isinstance(data, list) else [data]
    records = [(number, _loads_or_none(line), line) for number, line in lines]
    return [record if isinstance(record, dict) else {"id": f"line {number}", "raw_response": line} for number, record, line in records]


def _loads_or_none(text: str) -> object:
    try:
        return loads_lenient(text)
    except ValueError:
        return None


def answer_id(record: object, index: int) -> str:
    """`custom_id`, else `id`, else "item <index>"."""
    if isinstance(record, dict):
        for key in ("custom_id", "id"):
            value = record.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return str(value)
    return f"item {index}"


def parse_answer_record(record: object, index: int, *, keys: Iterable[str] = ANSWER_KEYS) -> Answer:
    """One record (or raw string) -> Answer. Never raises; `keys` are the keys an answer object must
    have at least one of."""
    keys = tuple(keys)
    item = answer_id(record, index)
    if isinstance(record, str):
        return answer_of_text(item, record, "text", record, keys)
    if not isinstance(record, dict):
        return Answer(item, STATUS_EMPTY, f"a record must be an object or a string, got {type(record).__name__}", record=record)
    if any(k in record for k in keys):
        return Answer(item, STATUS_OK, "", record, "fields", record=record)
    if "error" in record:
        reason = f"error row: {_one_line(record['error'])}"
        return Answer(item, STATUS_ERROR, reason, source="error", text=response_text(record)[0], record=record)
    text, source = response_text(record)
    if text is None:
        return Answer(item, STATUS_EMPTY, "no answer fields and no response text", record=record)
    return answer_of_text(item, text, source, record, keys)


def response_text(record: dict) -> tuple[str | None, str]:
    """Raw model text of a record and where it was found, in the reference's order: `response`
    string, `result.message.content` text blocks (joined by newlines), `response.body.choices[0]
    .message.content`, then `raw_response`. (None, "") when there is none."""
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
    choices = _dig(record, "response", "body", "choices")
    if isinstance(choices, list) and choices:
        message = _dig(choices[0], "message", "content")
        if isinstance(message, list):
            message = "\n".join(b.get("text", "") for b in message if isinstance(b, dict) and isinstance(b.get("text"), str))
        if isinstance(message, str):
            return message, "openai"
    raw = record.get("raw_response")
    if isinstance(raw, str):
        return raw, "raw_response"
    return None, ""


def _dig(obj: object, *path: str) -> object:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _one_line(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return " ".join(text.split())[:200]


def answer_of_text(item: str, text: str, source: str, record: object, keys: tuple[str, ...]) -> Answer:
    """An Answer from raw model text: the last JSON object with an answer key, or an empty answer
    saying why there is none."""
    if not text.strip():
        return Answer(item, STATUS_EMPTY, "empty response text", source=source, text=text, record=record)
    data, reason = extract_answer_json(text, keys)
    status = STATUS_OK if data is not None else STATUS_UNPARSEABLE
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
    """Every ``` fenced block: (start, end) of its content and its language tag, lower-cased."""
    return [(m.start(2), m.end(2), m.group(1).lower()) for m in _FENCE_RE.finditer(text)]


def balanced_objects(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of every balanced `{...}`, nested ones included, by a brace-matching scan
    that skips braces inside JSON strings. An unclosed `{` in prose does not swallow what follows."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    in_string = escaped = False
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"' and stack:
            in_string = True
        elif char == "{":
            stack.append(i)
        elif char == "}" and stack:
            spans.append((stack.pop(), i + 1))
    return spans


def repair_json(text: str) -> list[str]:
    """Progressively repaired versions of a JSON candidate: bare codes quoted, trailing commas
    removed (both only outside strings, so quoted codes and prose stay intact), and as a last
    resort single quotes made double."""
    quoted = _outside_strings(text, lambda part: _BARE_CODE_RE.sub(_quoted_code, part))
    no_commas = _outside_strings(quoted, lambda part: _TRAILING_COMMA_RE.sub(r"\1", part))
    return [quoted, no_commas, no_commas.replace("'", '"')]


def _quoted_code(match: re.Match) -> str:
    return '"' + re.sub(r"\s+", "", match.group(1)) + '"'


def _outside_strings(text: str, edit) -> str:
    """`text` with `edit` applied to every stretch outside double-quoted JSON strings."""
    parts, last = [], 0
    for match in _JSON_STRING_RE.finditer(text):
        parts += [edit(text[last : match.start()]), match.group()]
        last = match.end()
    return "".join([*parts, edit(text[last:])])


def loads_lenient(text: str) -> object:
    """json.loads of the candidate, else of its repaired versions; raises ValueError if none parses."""
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        pass
    for attempt in repair_json(text):
        try:
            return json.loads(attempt, strict=False)
        except json.JSONDecodeError:
            continue
    raise ValueError("not valid JSON, even after repairs")


def extract_answer_json(text: str, keys: Iterable[str] = ANSWER_KEYS) -> tuple[dict | None, str]:
    """The answer object in model text and a reason ("" when found).

    Candidates are every fenced block and every balanced `{...}` object that mentions one of
    `keys`; the one ending last in the text that parses (with repairs) to an object holding one
    of the keys wins.
    """
    keys = tuple(keys)
    spans = [(start, end) for start, end, _ in fenced_blocks(text)] + balanced_objects(text)
    spans = [(start, end) for start, end in spans if any(k in text[start:end] for k in keys)]
    for start, end in sorted(set(spans), key=lambda span: (-span[1], span[0])):
        try:
            data = loads_lenient(text[start:end].strip())
        except ValueError:
            continue
        if isinstance(data, dict) and any(k in data for k in keys):
            return data, ""
    if spans:
        return None, "no JSON object with an answer key parses (truncated or malformed)"
    if any(k in text for k in keys):
        return None, "no complete JSON object with an answer key (truncated or malformed)"
    return None, f"no JSON object with an answer key ({', '.join(keys)}) in the response"


# --------------------------------------------------------------------------------------------------
# reading fields


def prediction_of(data: dict) -> Prediction:
    """Typed prediction fields of an answer object."""
    notes: list[str] = []
    holes = parse_predicted_holes(data.get("resultHoles"), "resultHoles", notes)
    total = parse_total(data.get("totalNumberofHoles"), notes)
    unfolding = parse_unfolding(data.get("unfoldingTypes"), notes)
    return Prediction(holes, total, unfolding, tuple(notes))


def plan_of(data: dict) -> Plan:
    """Typed plan fields: `folds`/`holes` first, else a MentalBlackboard record's
    `foldingTypes`/`initialHoles`."""
    notes: list[str] = []
    if "folds" in data or "foldingTypes" not in data:
        folds = tuple(normalise_code(c) for c in split_codes(data.get("folds"), "folds", notes))
    else:
        folds = tuple(_code_of_entry_or_note(e, i, notes) for i, e in enumerate(_as_list(data.get("foldingTypes"))))
    key = "holes" if "holes" in data or "initialHoles" not in data else "initialHoles"
    holes = parse_predicted_holes(data.get(key), key, notes)
    return Plan(folds, holes, tuple(notes))


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def _code_of_entry_or_note(entry: object, index: int, notes: list[str]) -> str:
    try:
        return code_of_entry(entry)
    except InputError as err:
        notes.append(f"foldingTypes[{index}]: {err}")
        return str(entry.get("foldType", "?")) if isinstance(entry, dict) else "?"


def split_codes(value: object, field_name: str, notes: list[str]) -> list[str]:
    """Code tokens from a list or a comma/whitespace separated string; None gives []."""
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in re.split(r"[,\s]+", value) if t]
    if isinstance(value, list):
        tokens = []
        for i, token in enumerate(value):
            if isinstance(token, str) and token.strip():
                tokens.append(token)
            elif not isinstance(token, str):
                notes.append(f"{field_name}[{i}]: {token!r} is not a code")
                tokens.append(str(token))
        return tokens
    notes.append(f"{field_name}: expected a list of codes, got {type(value).__name__}")
    return []


def normalise_code(token: str) -> str:
    """A code token upper-cased with whitespace removed ("h1 -f " -> "H1-F"); not validated."""
    return re.sub(r"\s+", "", token).upper()


def parse_unfolding(value: object, notes: list[str]) -> tuple[str, ...]:
    """Unfolding codes, canonical where they parse ("h2-f" -> "H2-F"), else the normalised token."""
    codes = []
    for token in split_codes(value, "unfoldingTypes", notes):
        try:
            codes.append(canonical_code(token))
        except InputError:
            notes.append(f"unfoldingTypes: unknown code {token!r}")
            codes.append(normalise_code(token))
    return tuple(codes)


def parse_total(value: object, notes: list[str]) -> int | None:
    """The declared totalNumberofHoles as an int (numeric strings accepted), None when absent."""
    if value is None:
        return None
    if isinstance(value, bool):
        notes.append(f"totalNumberofHoles: {value!r} is not a count")
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        return int(value)
    notes.append(f"totalNumberofHoles: {value!r} is not a count")
    return None


def parse_predicted_holes(value: object, field_name: str, notes: list[str]) -> tuple[PredictedHole, ...]:
    """The holes of a hole list; a missing or null list is empty, a non-list is noted."""
    if value is None:
        return ()
    if not isinstance(value, list):
        notes.append(f"{field_name}: expected a list of holes, got {type(value).__name__}")
        return ()
    return tuple(parse_predicted_hole(item) for item in value)


def parse_predicted_hole(obj: object) -> PredictedHole:
    """One predicted hole from an object (or a string: JSON, or "ellipse large (2,1,1)")."""
    if isinstance(obj, str):
        obj = _hole_of_string(obj)
    if not isinstance(obj, dict):
        return PredictedHole("", "", None, note=f"hole {_one_line(obj)} is not an object")
    notes: list[str] = []
    shape = _word(obj.get("shape"), "shape", tuple(SHAPE_PERIOD), notes)
    size = _word(obj.get("size"), "size", SIZES, notes)
    location = parse_predicted_location(obj.get("location"), notes)
    directions = parse_directions(obj.get("direction"), notes)
    return PredictedHole(shape, size, location, directions, "; ".join(notes))


def _hole_of_string(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    match = _TEXT_HOLE_RE.match(text)
    if not match:
        return text
    shape, size, row, col, tri = match.groups()
    return {"shape": shape, "size": size, "location": [int(row), int(col), int(tri)]}


def _word(value: object, field_name: str, known: tuple[str, ...], notes: list[str]) -> str:
    word = value.strip().lower() if isinstance(value, str) else ""
    if value is None:
        notes.append(f"{field_name} missing")
    elif word not in known:
        notes.append(f"unknown {field_name} {value!r}")
    return word


def parse_predicted_location(value: object, notes: list[str]) -> int | None:
    """A grid id 1..32 from an int, a numeric string, or a 0-based [row, col, tri] list or
    "(r, c, t)" string; None (with a note) for anything else or out of range."""
    if value is None:
        notes.append("location missing")
        return None
    numbers = _location_numbers(value)
    if numbers is None:
        notes.append(f"location {_one_line(value)} is not a grid id or [row, col, tri]")
        return None
    if len(numbers) == 1:
        if 1 <= numbers[0] <= 32:
            return numbers[0]
        notes.append(f"location {numbers[0]} is outside 1..32")
        return None
    row, col, tri = numbers
    if 0 <= row <= 3 and 0 <= col <= 3 and 0 <= tri <= 1:
        return rct_to_location(row, col, tri)
    notes.append(f"location [{row}, {col}, {tri}] is outside the 4x4 grid")
    return None


def _location_numbers(value: object) -> list[int] | None:
    """[id] or [row, col, tri] from the accepted location forms, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return [value]
    if isinstance(value, float):
        return [int(value)] if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"\d+", text):
            return [int(text)]
        if re.fullmatch(r"[\[(]?\s*\d+\s*,\s*\d+\s*,\s*\d+\s*[\])]?", text):
            return [int(n) for n in re.findall(r"\d+", text)]
        return None
    if isinstance(value, (list, tuple)) and len(value) == 3:
        parts = [_location_numbers(v) for v in value]
        if all(p is not None and len(p) == 1 for p in parts):
            return [p[0] for p in parts]
    return None


def parse_directions(value: object, notes: list[str]) -> frozenset[int]:
    """Every angle in a direction field, in degrees mod 360: ints, numeric strings, class strings
    ("0, 180", "(90, 270)") and lists of these. None/"" give the empty set; non-integer or
    unreadable angles are noted."""
    if value is None or value == "":
        return frozenset()
    if isinstance(value, bool):
        notes.append(f"direction {value!r} is not an angle")
        return frozenset()
    if isinstance(value, (int, float)):
        return _angles([value], value, notes)
    if isinstance(value, str):
        numbers = _NUMBER_RE.findall(value)
        if not numbers:
            notes.append(f"direction {value!r} is not an angle")
            return frozenset()
        return _angles([float(n) for n in numbers], value, notes)
    if isinstance(value, (list, tuple)):
        angles: set[int] = set()
        for item in value:
            angles |= parse_directions(item, notes)
        return frozenset(angles)
    notes.append(f"direction {_one_line(value)} is not an angle")
    return frozenset()


def _angles(numbers: list[float], original: object, notes: list[str]) -> frozenset[int]:
    if any(not float(n).is_integer() for n in numbers):
        notes.append(f"direction {original!r} is not a whole number of degrees")
        return frozenset()
    return frozenset(int(n) % 360 for n in numbers)
