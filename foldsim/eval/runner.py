"""Sending prompts to an OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp, OpenRouter,
OpenAI...) and keeping every answer, resumably.

HTTP goes through httpx: a maintained client with separate connect/read timeouts, connection
pooling and an async API (it is also what the OpenAI SDK itself is built on). Requests run with
bounded concurrency (`concurrency` at a time, one pooled connection each).

The answers file is JSON Lines, one row per item, written as each answer arrives (one write and
a flush per line, so a killed process loses at most the line being written):

    {"id": ..., "response": <the chat.completion body>, "usage": {...}}   an answer
    {"id": ..., "error": {"type", "status", "message", "attempts"}}       a request that failed

Guarantees: an id is never written twice. On start the file is read back: answered ids are
skipped, error rows are dropped (those items are asked again), and a partial last line left by a
killed process is dropped; the file is rewritten atomically when anything was dropped, then
appended to. A lock file (`.<name>.lock`) keeps two runs from writing the same answers file.

Retries: timeouts, dropped connections and HTTP 408/409/425/429/5xx are retried up to `attempts`
times with exponential backoff (`backoff` seconds doubled per try, at most `backoff_max`, with
jitter); a Retry-After header (seconds or an HTTP date) is honoured instead, and it pauses every
worker, not only the one that was told. Other 4xx answers are not retried.
"""

from __future__ import annotations

import asyncio
import email.utils
import fcntl
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..errors import InputError
from ..io import atomic_write_bytes, read_bounded
from ..progress import RateColumn
from .prompts import Templates, dataset_prompts
from .requests import RequestOptions, chat_body

DEFAULT_CONCURRENCY = 8
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
CHAT_PATH = "/chat/completions"


@dataclass(frozen=True)
class RetryPolicy:
    """How failed requests are retried (see the module docstring)."""

    attempts: int = 6
    backoff: float = 1.0
    backoff_max: float = 60.0
    retry_after_max: float = 600.0

    def wait(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.retry_after_max)
        return min(self.backoff_max, self.backoff * 2 ** (attempt - 1)) * rng.uniform(0.5, 1.0)


@dataclass(frozen=True)
class Endpoint:
    """Where and how to send: the server (`http://host:8000`, `.../v1` or the full
    `.../v1/chat/completions`), an API key (sent as a Bearer token), the number of requests in
    flight, timeouts in seconds (`timeout` is the wait for an answer) and the retry policy."""

    url: str
    api_key: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = 600.0
    connect_timeout: float = 10.0
    retry: RetryPolicy = RetryPolicy()

    def check(self) -> "Endpoint":
        if not self.url.startswith(("http://", "https://")):
            raise InputError(f"must be an http:// or https:// URL, got {self.url!r}", field="--endpoint")
        if self.concurrency < 1:
            raise InputError(f"must be at least 1, got {self.concurrency}", field="--concurrency")
        if self.timeout <= 0 or self.connect_timeout <= 0:
            raise InputError("timeouts must be positive", field="--timeout")
        if self.retry.attempts < 1:
            raise InputError(f"must be at least 1, got {self.retry.attempts}", field="--attempts")
        return self

    @property
    def chat_url(self) -> str:
        """POST target: the URL as given when it ends in /chat/completions, `<url>/chat/completions`
        when it ends in /v1, else `<url>/v1/chat/completions`."""
        url = self.url.rstrip("/")
        if url.endswith(CHAT_PATH):
            return url
        return url + CHAT_PATH if url.endswith("/v1") else url + "/v1" + CHAT_PATH


@dataclass(frozen=True)
class Job:
    """One item to send: its id and a function building the request body (called when the item
    is sent, so media are read one request at a time)."""

    id: str
    body: Callable[[], dict]


@dataclass
class RunReport:
    """What a run did. `answered`/`failed` are this run's; `skipped` were answered before."""

    out: Path
    items: int = 0
    skipped: int = 0
    answered: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    prompt_errors: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False

    @property
    def unanswered(self) -> int:
        """Items with neither an answer (now or before) nor a failure: a run that stopped early."""
        return max(0, self.items - self.skipped - len(self.answered) - len(self.failed) - len(self.prompt_errors))

    @property
    def complete(self) -> bool:
        """Every item has an answer and nothing was interrupted: counted, not assumed, so a run that
        stopped early can never pass for a finished one (exit 0)."""
        return not self.failed and not self.prompt_errors and not self.interrupted and not self.unanswered

    def summary(self) -> dict:
        return {"out": str(self.out), "items": self.items, "answered_before": self.skipped,
                "answered_now": len(self.answered), "failed": self.failed, "prompt_errors": self.prompt_errors,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "notes": self.notes, "interrupted": self.interrupted}


# --------------------------------------------------------------------------------------------------
# the answers file


def is_answer_row(row: object) -> bool:
    """A finished answer: an object with a string id and a chat.completion under `response`."""
    return (isinstance(row, dict) and isinstance(row.get("id"), str) and isinstance(row.get("response"), dict)
            and row.get("error") is None)


def read_answers_file(path: Path) -> tuple[list[bytes], set[str], list[str]]:
    """The answer rows to keep, their ids, and notes on what was dropped: error rows (to be
    retried), duplicates, and lines that are not complete rows (a partial last line)."""
    if not path.exists():
        return [], set(), []
    data = read_bounded(path)  # limits.MAX_INPUT_BYTES, InputError past it
    kept, done, notes = [], set(), []
    errors = duplicates = broken = 0
    lines = data.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            broken += 1
            last = number == len(lines) and not data.endswith(b"\n")
            notes.append(f"line {number}: {'a partial last line (an interrupted write)' if last else 'not a JSON row'}; dropped")
            continue
        if is_answer_row(row):
            if row["id"] in done:
                duplicates += 1
                continue
            done.add(row["id"])
            kept.append(line.strip())
        elif isinstance(row, dict) and "error" in row:
            errors += 1
        else:
            broken += 1
            notes.append(f"line {number}: not an answer row; dropped")
    if errors:
        notes.append(f"{errors} failed item(s) from an earlier run: asked again")
    if duplicates:
        notes.append(f"{duplicates} duplicate row(s) dropped (the first answer is kept)")
    return kept, done, notes


class AnswerLog:
    """The answers file opened for appending, after reading back what is done (see the module
    docstring); holds the run lock until closed."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.path.with_name(f".{self.path.name}.lock"), "a")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise InputError("another run is writing this answers file", item=str(self.path)) from None
        try:
            kept, self.done, self.notes = read_answers_file(self.path)
            original = read_bounded(self.path) if self.path.exists() else b""
            repaired = b"".join(line + b"\n" for line in kept)
            if repaired != original:
                atomic_write_bytes(self.path, repaired)
            self._handle = open(self.path, "ab")
        except BaseException:
            self._lock.close()
            raise

    def append(self, row: dict) -> None:
        """Write one row as one line and flush it (it survives a killed process)."""
        if row["id"] in self.done:
            raise RuntimeError(f"answer {row['id']} is already in {self.path}")  # never happens: ids are scheduled once
        self._handle.write(orjson.dumps(row) + b"\n")
        self._handle.flush()
        if is_answer_row(row):
            self.done.add(row["id"])

    def close(self) -> None:
        try:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
        finally:
            self._lock.close()

    def __enter__(self) -> "AnswerLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# --------------------------------------------------------------------------------------------------
# sending


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds (fractions accepted) or an HTTP
    date; None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def error_message(response) -> str:
    """The server's error message ({"error": {"message"}} or the body's first 300 characters)."""
    try:
        data = response.json()
        message = data.get("error", {}).get("message") if isinstance(data, dict) else None
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            message = data["error"]
    except ValueError:
        message = None
    text = message if isinstance(message, str) and message else response.text
    return " ".join(text.split())[:300] or f"HTTP {response.status_code}"


class Gate:
    """A shared pause: a Retry-After from the server holds back every worker until it passes."""

    def __init__(self) -> None:
        self.until = 0.0

    def hold(self, seconds: float) -> None:
        self.until = max(self.until, time.monotonic() + seconds)

    async def wait(self) -> None:
        delay = self.until - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)


def error_row(item: str, kind: str, message: str, attempts: int, status: int | None = None) -> dict:
    return {"id": item, "error": {"type": kind, "status": status, "message": message, "attempts": attempts}}


async def send(client, url: str, job: Job, policy: RetryPolicy, gate: Gate, rng: random.Random) -> dict:
    """Send one job, retrying as the policy says; returns its answer row or error row."""
    import httpx

    try:
        payload = orjson.dumps(job.body())
    except (OSError, InputError, TypeError) as err:
        return error_row(job.id, "prompt", f"cannot build the request: {err}", 0)
    headers = {"content-type": "application/json"}
    for attempt in range(1, policy.attempts + 1):
        await gate.wait()
        retry_after, status = None, None
        try:
            response = await client.post(url, content=payload, headers=headers)
        except httpx.TimeoutException as err:
            kind, message = "timeout", f"no answer in time ({type(err).__name__})"
        except httpx.TransportError as err:
            kind, message = "connection", f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        else:
            status = response.status_code
            if 200 <= status < 300:
                try:
                    data = response.json()
                except ValueError:
                    kind, message = "invalid_response", "the answer is not JSON"
                else:
                    if isinstance(data, dict) and isinstance(data.get("choices"), list) and data["choices"]:
                        row = {"id": job.id, "response": data}
                        if isinstance(data.get("usage"), dict):
                            row["usage"] = data["usage"]
                        return row
                    return error_row(job.id, "invalid_response", "the answer has no choices", attempt, status)
            else:
                kind, message = "http_status", error_message(response)
                if status not in RETRYABLE_STATUS and status < 500:
                    return error_row(job.id, kind, message, attempt, status)
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                if retry_after is not None:
                    gate.hold(min(retry_after, policy.retry_after_max))
        if attempt == policy.attempts:
            return error_row(job.id, kind, message, attempt, status)
        await asyncio.sleep(policy.wait(attempt, retry_after, rng))
    raise AssertionError("unreachable")


def run_progress(console: Console | None) -> Progress:
    """The runner's bar: done/total, failed, answers per second, tokens, elapsed and remaining."""
    console = console or Console(stderr=True)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("[red]{task.fields[failed]} failed[/]"), RateColumn("answers"),
                    TextColumn("{task.fields[tokens]:,} tokens"), TimeElapsedColumn(), TimeRemainingColumn(),
                    console=console, transient=True, disable=not console.is_terminal)


async def arun_jobs(jobs: Sequence[Job], log: AnswerLog, endpoint: Endpoint, report: RunReport,
                    on_row: Callable[[dict], None] | None = None, seed: int | None = None) -> RunReport:
    """Send `jobs` (none of them in `log` yet) with bounded concurrency, appending each row to the
    log as it arrives. Async form of `run_jobs`, for callers that already run an event loop."""
    import httpx

    queue: asyncio.Queue[Job] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)
    gate, rng = Gate(), random.Random(seed)
    headers = {"authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    limits = httpx.Limits(max_connections=endpoint.concurrency, max_keepalive_connections=endpoint.concurrency)
    timeout = httpx.Timeout(endpoint.timeout, connect=endpoint.connect_timeout)

    async def worker(client) -> None:
        while True:
            try:
                job = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            row = await send(client, endpoint.chat_url, job, endpoint.retry, gate, rng)
            log.append(row)
            if "error" in row:
                report.failed[row["id"]] = f"{row['error']['type']}: {row['error']['message']}"
            else:
                report.answered.append(row["id"])
                usage = row.get("usage") or {}
                report.prompt_tokens += _int(usage.get("prompt_tokens"))
                report.completion_tokens += _int(usage.get("completion_tokens"))
            if on_row:
                on_row(row)

    async with httpx.AsyncClient(headers=headers, limits=limits, timeout=timeout) as client:
        await asyncio.gather(*(worker(client) for _ in range(min(endpoint.concurrency, len(jobs)))))
    return report


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def run_jobs(jobs: Sequence[Job], out: str | Path, endpoint: Endpoint, *, console: Console | None = None,
             report: RunReport | None = None, seed: int | None = None) -> RunReport:
    """Send every job whose id is not answered in `out` yet; returns the report. Ctrl-C stops
    the run cleanly (`report.interrupted`): every answer received so far is in the file."""
    endpoint.check()
    report = report or RunReport(Path(out))
    with AnswerLog(out) as log:
        report.notes += log.notes
        todo = [job for job in jobs if job.id not in log.done]
        report.skipped += len(jobs) - len(todo)
        report.items = report.items or len(jobs)
        bar = run_progress(console)
        task = bar.add_task("asking", total=len(jobs), completed=len(jobs) - len(todo), failed=0, tokens=0)

        def on_row(row: dict) -> None:
            bar.update(task, advance=1, failed=len(report.failed),
                       tokens=report.prompt_tokens + report.completion_tokens)

        try:
            with bar:
                asyncio.run(arun_jobs(todo, log, endpoint, report, on_row, seed))
        except KeyboardInterrupt:
            report.interrupted = True
    return report


def dataset_jobs(dataset: str | Path, task: str, modality: str, *, options: RequestOptions,
                 templates: Templates | str | Path | None = None, system: str | None = None) -> tuple[list[Job], dict[str, str]]:
    """A job per prompted item of a dataset (chat.completions bodies built when sent) and the
    items that could not be prompted (id -> reason)."""
    _, items = dataset_prompts(dataset, task, modality, templates=templates, system=system)
    jobs, errors = [], {}
    for item in items:
        if item.error:
            errors[item.id] = item.error
        else:
            jobs.append(Job(item.id, lambda messages=item.messages: chat_body(messages, options)))
    return jobs, errors


def run_dataset(dataset: str | Path, task: str, modality: str, out: str | Path, *, endpoint: Endpoint,
                options: RequestOptions = RequestOptions(), templates: Templates | str | Path | None = None,
                system: str | None = None, console: Console | None = None) -> RunReport:
    """Ask an OpenAI-compatible endpoint about every item of a dataset, resumably (see the
    module docstring). Items that cannot be prompted are reported, not sent."""
    options = options.check("chat")
    if not options.model:
        raise InputError("a chat request names its model: give --model", field="--model")
    jobs, errors = dataset_jobs(dataset, task, modality, options=options, templates=templates, system=system)
    report = RunReport(Path(out), items=len(jobs) + len(errors), prompt_errors=errors)
    return run_jobs(jobs, out, endpoint, console=console, report=report)
