"""parse: the answer parser on hostile input, each figure beside a plain `json.loads` of the same
bytes (issue 12 item 2: parsing is linear in the answer's size; before, an unclosed fence took 3 s
at 8 KB, 36 s at 32 KB and over 60 s at 700 KB, and a 50 MB raw-text file over 300 s).

- 1 MB adversarial answers, one per damage kind: a fence opened and never closed over a truncated
  object, nesting 60,000 deep, 55,000 candidate objects that all fail, a 1,000,000-digit number, a
  single-quoted object of 200,000 strings (repaired), and a valid answer after 1 MB of prose.
  `find_answer_json` must finish each; `json.loads` of the same text mostly fails at once, which is
  the floor a parser cannot beat.
- 50 MB answer files: JSON Lines of model-like answers (OpenAI batch lines, each with a fenced
  answer; 1 in 50 lines damaged) read by `load_answers`, beside `json.loads` of every line; and 50 MB
  of raw text, one answer, refused by the size cap ("too_large"), beside `json.loads` of it.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from rich.table import Table

from foldsim.eval.answers import MAX_ANSWER_CHARS, find_answer_json, load_answers

from .harness import Context, fmt_seconds

ANSWER = json.dumps({"totalNumberofHoles": 2, "unfoldingTypes": ["H2-F"], "resultHoles": [
    {"shape": "star", "size": "large", "direction": 90, "location": 5},
    {"shape": "star", "size": "large", "direction": 270, "location": 13}]})
MB = 1_000_000


def adversarial(size: int) -> dict[str, str]:
    """Answers of about `size` characters, one per damage kind."""
    return {
        "unclosed fence over a truncated object": "```json\n" + '{"resultHoles": [' * (size // 17),
        "nesting 60,000 deep": '{"resultHoles": ' * (size // 16),
        "every candidate fails": '{"resultHoles": [}' * (size // 18),
        "a 1,000,000-digit number": '{"resultHoles": [], "totalNumberofHoles": ' + "9" * size + "}",
        "single quotes, repaired": "{'resultHoles': [], 'note': [" + "'x', " * (size // 5) + "]}",
        "valid answer after prose": "word " * (size // 5) + "```json\n" + ANSWER + "\n```",
    }


def seconds_of(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def json_loads_seconds(text: str) -> float:
    """json.loads of the text, failing or not (the plain decoder's cost on the same bytes)."""
    start = time.perf_counter()
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        pass
    return time.perf_counter() - start


def jsonl_answers(size: int) -> str:
    """About `size` bytes of OpenAI batch output lines with fenced answers; every 50th damaged."""
    lines, total, i = [], 0, 0
    while total < size:
        text = f"Attempt {i}: I unfold the paper step by step.\n```json\n{ANSWER}\n```"
        if i % 50 == 49:
            text = text[: len(text) // 2]  # truncated mid-answer
        line = json.dumps({"id": f"batch_req_{i}", "custom_id": f"PFHP_{i}", "error": None, "response": {
            "status_code": 200, "request_id": f"r{i}", "body": {"choices": [{"message": {"content": text}}]}}})
        lines.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(lines) + "\n"


def run(ctx: Context) -> dict:
    size = 100_000 if ctx.options.quick else MB
    file_size = 5 * MB if ctx.options.quick else 50 * MB
    answers = {}
    for name, text in adversarial(size).items():
        seconds, (data, reason, status) = seconds_of(lambda: find_answer_json(text))
        answers[name] = {"chars": len(text), "seconds": seconds, "json_loads_s": json_loads_seconds(text),
                         "status": status, "found": data is not None}
    files = {}
    with tempfile.TemporaryDirectory() as scratch:
        jsonl, raw = Path(scratch) / "answers.jsonl", Path(scratch) / "answers.txt"
        jsonl.write_text(jsonl_answers(file_size))
        raw.write_text("word " * (file_size // 5))
        for name, path in (("JSON Lines, provider batch output", jsonl), ("raw text, one answer", raw)):
            text = path.read_text()
            seconds, parsed = seconds_of(lambda: load_answers(path))
            if path.suffix == ".jsonl":
                baseline = sum(json_loads_seconds(line) for line in text.splitlines())
            else:
                baseline = json_loads_seconds(text)
            files[name] = {"bytes": path.stat().st_size, "seconds": seconds, "json_loads_s": baseline,
                           "answers": len(parsed), "ok": sum(a.ok for a in parsed),
                           "statuses": sorted({a.status for a in parsed})}
    return {"answer_chars": size, "file_bytes": file_size, "max_answer_chars": MAX_ANSWER_CHARS,
            "answers": answers, "files": files}


def report(result: dict) -> list[Table]:
    one = Table("answer", "chars", "find_answer_json", "json.loads (same text)", "status",
                title=f"parse: {result['answer_chars']:,}-character adversarial answers", title_justify="left")
    for name, row in result["answers"].items():
        one.add_row(name, f"{row['chars']:,}", fmt_seconds(row["seconds"]), fmt_seconds(row["json_loads_s"]),
                    row["status"] + (" (answer found)" if row["found"] else ""))
    files = Table("file", "bytes", "load_answers", "json.loads (same bytes)", "answers", "ok", "statuses",
                  title="parse: answer files", title_justify="left")
    for name, row in result["files"].items():
        files.add_row(name, f"{row['bytes']:,}", fmt_seconds(row["seconds"]), fmt_seconds(row["json_loads_s"]),
                      f"{row['answers']:,}", f"{row['ok']:,}", ", ".join(row["statuses"]))
    return [one, files]
