"""Finding the answer JSON the way the reference scorers do (linear-time equivalents of their
patterns): fences, the greedy `{...}`, their repairs; the reference's crash (`RefCrash`) and the
compat modes."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence

from ..answers import Answer, response_text, structure_problem
from ..score_base import COMPAT_MODES

MODES = COMPAT_MODES
MODE_TOP_LEVEL, MODE_SCORING_DIR = COMPAT_MODES

PREDICTION_KEYS = ("resultHoles", "totalNumberofHoles", "unfoldingTypes")
DIRECTION_WORDS = 6  # 360 angle bits in uint64 words
FENCE = "```"


class RefCrash(Exception):
    """The reference scorer would raise here; the message says where and why."""


# --------------------------------------------------------------------------------------------------
# finding the answer JSON the reference way (linear-time equivalents of its patterns)


_JSON_TAG_ANY_CASE = re.compile(r"```json", re.IGNORECASE)
_F_CODE = re.compile(r'(?<!")\b([DHV]\d-F)\b(?!")')
_ANY_CODE = re.compile(r"\b([DHV]\d-[BF])\b")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_DIGITS = re.compile(r"-?\d+")


def json_fences(text: str) -> list[str]:
    """The content of every ```json fence, the tag in any case (`re.findall(r"```json\\s*(.*?)```",
    re.I)`; leading whitespace is kept, callers strip)."""
    blocks, position = [], 0
    while (tag := _JSON_TAG_ANY_CASE.search(text, position)) is not None:
        end = text.find(FENCE, tag.end())
        if end < 0:
            break
        blocks.append(text[tag.end() : end])
        position = end + len(FENCE)
    return blocks


def plain_fences(text: str) -> list[str]:
    """The content of every ``` fence, a ```json fence included with its tag (`re.findall(r"```\\s*
    (.*?)```")`): after a draft in a json fence, a final plain fence is a candidate of its own."""
    blocks, position = [], 0
    while (start := text.find(FENCE, position)) >= 0:
        end = text.find(FENCE, start + len(FENCE))
        if end < 0:
            break
        blocks.append(text[start + len(FENCE) : end])
        position = end + len(FENCE)
    return blocks


def greedy_object(text: str) -> list[str]:
    """`re.findall(r"\\{.*\\}", re.S)`: at most one match, from the first "{" to the last "}"."""
    first, last = text.find("{"), text.rfind("}")
    return [text[first : last + 1]] if 0 <= first < last else []


def first_json_object_fence(text: str) -> str | None:
    """planning_converter's `re.search(r"```json\\s*(\\{.*?\\})\\s*```", re.S)` (tag case-sensitive):
    the first ```json fence opening with "{", up to the first "}" that a fence follows (after
    whitespace)."""
    closings = []  # positions of "}" followed, after whitespace, by a fence; increasing
    fence = text.find(FENCE)
    while fence >= 0:
        before = fence
        while before > 0 and text[before - 1].isspace():
            before -= 1
        if before > 0 and text[before - 1] == "}":
            closings.append(before - 1)
        fence = text.find(FENCE, fence + 1)
    tag = text.find(FENCE + "json")
    while tag >= 0:
        start = tag + len(FENCE) + 4
        while start < len(text) and text[start].isspace():
            start += 1
        if start < len(text) and text[start] == "{":
            k = bisect.bisect_right(closings, start)
            if k < len(closings):
                return text[start : closings[k] + 1]
        tag = text.find(FENCE + "json", tag + 1)
    return None


def loads(text: str) -> tuple[str, object]:
    """("ok", value), ("invalid", None) for a JSONDecodeError, or ("fatal", None) for the errors the
    reference's `except json.JSONDecodeError` lets through (too deep, a number over Python's digit
    limit): those end its search for an answer."""
    try:
        return "ok", json.loads(text)
    except json.JSONDecodeError:
        return "invalid", None
    except (ValueError, RecursionError, MemoryError):
        return "fatal", None


def repair_f_codes(block: str) -> str:
    """The prediction-family repair: quote bare `[DHV]n-F` codes (not -B), drop trailing commas."""
    return _TRAILING_COMMA.sub(r"\1", _F_CODE.sub(r'"\1"', block))


def repair_backward(block: str) -> str:
    """The backward repair: quote every code, already quoted ones too (which breaks them), drop
    trailing commas, turn every ' into "."""
    return _TRAILING_COMMA.sub(r"\1", _ANY_CODE.sub(r'"\1"', block)).replace("'", '"')


def candidates_prediction(text: str) -> list[str]:
    """prediction/text scorers: every ```json fence, then every ``` fence; with no fence, the greedy
    {...} (the reference prefers a match naming an answer key, but the greedy pattern has at most one)."""
    return json_fences(text) + plain_fences(text) or greedy_object(text)


_JSON_START = frozenset('{["-0123456789tfnNI') | frozenset("DHV")  # a value, or a bare code the repair quotes


def parse_candidates(blocks: Sequence[str]) -> object:
    """The last candidate that parses, as is or after the -F repair; None when none does or when one
    fails fatally (the reference's outer `except Exception` gives the empty answer). A block that
    cannot start a JSON value fails both attempts at once, and a block seen before fails as it did,
    so thousands of tiny fences cost little."""
    failed = set()
    for block in reversed(blocks):
        block = block.strip()
        if not block or block[0] not in _JSON_START or block in failed:
            continue
        for attempt in (block, repair_f_codes(block)):
            outcome, value = loads(attempt)
            if outcome == "ok":
                return value
            if outcome == "fatal":
                return None
        failed.add(block)
    return None


def parse_last_block(text: str, repair: Callable[[str], str] | None) -> object:
    """backward/generalization: the last ```json fence, else the greedy {...}; one attempt, plus one
    after `repair` if given. None when nothing parses."""
    blocks = json_fences(text) or greedy_object(text)
    if not blocks:
        return None
    block = blocks[-1].strip()
    outcome, value = loads(block)
    if outcome == "invalid" and repair is not None:
        outcome, value = loads(repair(block))
    return value if outcome == "ok" else None


def model_text(record: object, *, raw_response: bool) -> str | None:
    """The model's text in an answer record: a raw-text answer itself, else what
    `answers.response_text` finds (every provider envelope). The scoring/ scorers never read
    `raw_response` (the runner's error rows carry it)."""
    if isinstance(record, str):
        return record
    if not isinstance(record, dict):
        return None
    text, source = response_text(record)
    if source == "raw_response" and not raw_response:
        return None
    return text


def answer_record(answer: Answer) -> object:
    """The record a scorer re-reads, or None (no answer: the empty answer) for a record no JSON text
    could hold (`answers.structure_problem`). Answers from the parser never keep such a record; this
    covers an Answer a caller builds around one, so no scorer here meets an int a float cannot hold,
    recursion past the interpreter's limit (json.dumps, str) or a cycle."""
    record = answer.record
    if isinstance(record, (dict, list, tuple)) and structure_problem(record) is not None:
        return None
    return record


def is_error_row(record: object) -> bool:
    """An error row of the runner or a provider. `"error": null` is OpenAI's batch success line."""
    return isinstance(record, dict) and record.get("error") is not None
