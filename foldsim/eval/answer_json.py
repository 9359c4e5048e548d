"""Finding the answer JSON in model text, bounded: strict JSON decoded once (orjson), else every
fenced block and balanced `{...}` object searched in one scan and repaired in one tokenizing pass;
the caps that bound the work on one answer (a hit raises LimitExceeded, which foldsim.eval.answers
turns into the status "too_large"), and `structure_problem`, the same caps for a record built in Python.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable
from contextlib import contextmanager
from functools import lru_cache

import orjson

from ..errors import describe

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
_SPACE = re.compile(r"\s++")
_PY_WORDS = {"True": "true", "False": "false", "None": "null"}


class LimitExceeded(ValueError):
    """A parsing cap was hit; the message names it."""

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


def one_line(value: object, limit: int = 200) -> str:
    """A value in one bounded line (strings as they are, anything else as a short repr)."""
    text = value if isinstance(value, str) else describe(value, limit)
    return " ".join(text[: 4 * limit].split())[:limit]
