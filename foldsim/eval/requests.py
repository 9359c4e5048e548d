"""Provider request formats: one item's messages as an OpenAI, Anthropic, Gemini or plain chat
request, and whole request files for the batch APIs (evaluation-formats §1).

    openai     Batch API JSON Lines: {"custom_id", "method": "POST", "url": "/v1/chat/completions",
               "body": <chat request>}; split at 50,000 requests / 200 MB into PATH-0001.jsonl, ...
    anthropic  Message Batches body: {"requests": [{"custom_id", "params": <Messages request>}]};
               split at 100,000 requests / 256 MB; ids the API refuses (1-64 of [A-Za-z0-9_-])
               are mapped, and the map is kept next to the output (see `restore_ids`)
    gemini     batch JSON Lines: {"key", "request": {"contents", "generation_config", ...}}
               (the model is named when the batch job is created, not in the file)
    chat       JSON Lines {"id", "messages", "model"?, "max_tokens"?, "temperature"?} in OpenAI chat
               format: everything but "id" is a chat request for any compatible server

Images are inlined as base64 (data URLs for OpenAI and chat) unless a media base URL is given,
then they are `<base>/<path relative to the dataset folder>`. Video parts (modality `video`) are
taken by Gemini (inline_data video/mp4) and by chat servers such as vLLM (`video_url`); OpenAI
and Anthropic take no video, and asking for it is a usage error.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

import orjson

from ..errors import InputError
from ..io import atomic_write_bytes, atomic_write_json, current_umask, read_bounded, read_text
from .prompts import ItemPrompt, Message, Part, Templates, dataset_prompts

PROVIDERS = ("openai", "anthropic", "gemini", "chat")
DETAILS = ("low", "high", "auto")
#: (requests, bytes) per file: the providers' documented limits (bytes kept under the MB figure)
SPLIT_LIMITS: dict[str, tuple[int | None, int | None]] = {
    "openai": (50_000, 200_000_000),
    "anthropic": (100_000, 256_000_000),
    "gemini": (None, 2_000_000_000),
    "chat": (None, None),
}
TAKES_VIDEO = ("gemini", "chat")
ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
ANTHROPIC_DEFAULT_MAX_TOKENS = 4096  # the Messages API requires max_tokens
ID_MAP_FORMAT = "foldsim-id-map/1"
OPENAI_URL = "/v1/chat/completions"


@dataclass(frozen=True)
class RequestOptions:
    """What every request carries besides the messages. `detail` is OpenAI's image detail
    (openai and chat only); `media_base` turns media into URLs instead of inline base64."""

    model: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    detail: str | None = None
    media_base: str | None = None

    def check(self, provider: str) -> "RequestOptions":
        """Self, or an InputError naming the option that is wrong for `provider`."""
        if provider not in PROVIDERS:
            raise InputError(f"unknown provider {provider!r} (expected one of {', '.join(PROVIDERS)})", field="--provider")
        if provider in ("openai", "anthropic") and not self.model:
            raise InputError(f"{provider} requests name their model: give --model", field="--model")
        if self.max_tokens is not None and (isinstance(self.max_tokens, bool) or self.max_tokens < 1):
            raise InputError(f"must be a positive integer, got {self.max_tokens!r}", field="--max-tokens")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise InputError(f"must be between 0 and 2, got {self.temperature!r}", field="--temperature")
        if self.detail is not None and self.detail not in DETAILS:
            raise InputError(f"must be one of {', '.join(DETAILS)}, got {self.detail!r}", field="--detail")
        if self.media_base is not None and not re.match(r"^[a-z][a-z0-9+.-]*://", self.media_base):
            raise InputError(f"must be a URL such as https://host/dataset/, got {self.media_base!r}", field="--media-base")
        return self


# --------------------------------------------------------------------------------------------------
# media


@lru_cache(maxsize=256)
def _base64_of(path: str, mtime_ns: int, size: int) -> str:
    """Base64 of a file, cached by (path, mtime, size): the numbered sheet is in every request."""
    return base64.b64encode(read_bounded(Path(path))).decode("ascii")  # bounded: a media file may be a stream


def media_base64(part: Part) -> str:
    stat = part.path.stat()
    return _base64_of(str(part.path), stat.st_mtime_ns, stat.st_size)


def media_url(part: Part, options: RequestOptions) -> str:
    """The URL a provider fetches the part from: `<media_base>/<source>`, else a data URL."""
    if options.media_base:
        return options.media_base.rstrip("/") + "/" + quote(part.source)
    return f"data:{part.mime};base64,{media_base64(part)}"


def check_media(messages: Sequence[Message], provider: str) -> None:
    """InputError (a usage error) when a provider cannot take a part's kind."""
    if provider not in TAKES_VIDEO and any(p.kind == "video" for m in messages for p in m.parts):
        raise InputError(f"{provider} takes no video input; use --modality frames (or --provider gemini/chat)",
                         field="--modality")


def _system_text(messages: Sequence[Message]) -> str | None:
    texts = [p.text for m in messages if m.role == "system" for p in m.parts if not p.is_media]
    return "\n\n".join(texts) or None


def _user_messages(messages: Sequence[Message]) -> list[Message]:
    return [m for m in messages if m.role != "system"]


# --------------------------------------------------------------------------------------------------
# one request per provider


def openai_part(part: Part, options: RequestOptions) -> dict:
    if not part.is_media:
        return {"type": "text", "text": part.text}
    if part.kind == "video":
        return {"type": "video_url", "video_url": {"url": media_url(part, options)}}
    image = {"url": media_url(part, options)}
    if options.detail:
        image["detail"] = options.detail
    return {"type": "image_url", "image_url": image}


def chat_messages(messages: Sequence[Message], options: RequestOptions) -> list[dict]:
    """OpenAI chat `messages`: a system message as a string, user messages as content parts."""
    out = []
    for message in messages:
        if message.role == "system":
            out.append({"role": "system", "content": "\n\n".join(p.text for p in message.parts)})
        else:
            out.append({"role": message.role, "content": [openai_part(p, options) for p in message.parts]})
    return out


def chat_body(messages: Sequence[Message], options: RequestOptions, *, max_tokens_key: str = "max_tokens") -> dict:
    """A chat.completions request body. OpenAI itself wants `max_completion_tokens` (its
    reasoning models refuse `max_tokens`); OpenAI-compatible servers take `max_tokens`."""
    body: dict = {"model": options.model} if options.model else {}
    body["messages"] = chat_messages(messages, options)
    if options.max_tokens is not None:
        body[max_tokens_key] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    return body


def openai_request(item_id: str, messages: Sequence[Message], options: RequestOptions) -> dict:
    """One OpenAI Batch API line."""
    return {"custom_id": item_id, "method": "POST", "url": OPENAI_URL,
            "body": chat_body(messages, options, max_tokens_key="max_completion_tokens")}


def chat_request(item_id: str, messages: Sequence[Message], options: RequestOptions) -> dict:
    """One `chat` line: the id plus a chat.completions body."""
    return {"id": item_id, **chat_body(messages, options)}


def anthropic_block(part: Part, options: RequestOptions) -> dict:
    if not part.is_media:
        return {"type": "text", "text": part.text}
    if options.media_base:
        return {"type": "image", "source": {"type": "url", "url": media_url(part, options)}}
    return {"type": "image", "source": {"type": "base64", "media_type": part.mime, "data": media_base64(part)}}


def anthropic_request(custom_id: str, messages: Sequence[Message], options: RequestOptions) -> dict:
    """One Message Batches request {"custom_id", "params"} (`custom_id` must already be valid:
    see `anthropic_ids`)."""
    params: dict = {"model": options.model, "max_tokens": options.max_tokens or ANTHROPIC_DEFAULT_MAX_TOKENS,
                    "messages": [{"role": m.role, "content": [anthropic_block(p, options) for p in m.parts]}
                                 for m in _user_messages(messages)]}
    system = _system_text(messages)
    if system:
        params["system"] = system
    if options.temperature is not None:
        params["temperature"] = options.temperature
    return {"custom_id": custom_id, "params": params}


def gemini_part(part: Part, options: RequestOptions) -> dict:
    if not part.is_media:
        return {"text": part.text}
    if options.media_base:
        return {"file_data": {"mime_type": part.mime, "file_uri": media_url(part, options)}}
    return {"inline_data": {"mime_type": part.mime, "data": media_base64(part)}}


def gemini_request(item_id: str, messages: Sequence[Message], options: RequestOptions) -> dict:
    """One Gemini batch line {"key", "request"}."""
    request: dict = {"contents": [{"role": "user", "parts": [gemini_part(p, options) for p in m.parts]}
                                  for m in _user_messages(messages)]}
    system = _system_text(messages)
    if system:
        request["system_instruction"] = {"parts": [{"text": system}]}
    config = {}
    if options.max_tokens is not None:
        config["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        config["temperature"] = options.temperature
    if config:
        request["generation_config"] = config
    return {"key": item_id, "request": request}


REQUEST_OF: dict[str, Callable[[str, Sequence[Message], RequestOptions], dict]] = {
    "openai": openai_request, "anthropic": anthropic_request, "gemini": gemini_request, "chat": chat_request}


# --------------------------------------------------------------------------------------------------
# ids Anthropic would refuse


def anthropic_ids(item_ids: Iterable[str]) -> dict[str, str]:
    """custom_id per item id: the id itself when Anthropic accepts it, else the id with other
    characters made `_`, cut to 55 characters, plus `-` and 8 hex digits of its SHA-1 (longer on
    the rare collision), so every custom_id is unique and stable."""
    item_ids = list(item_ids)
    taken = {i for i in item_ids if ANTHROPIC_ID.fullmatch(i)}
    out = {}
    for item in item_ids:
        if ANTHROPIC_ID.fullmatch(item):
            out[item] = item
            continue
        stem = re.sub(r"[^A-Za-z0-9_-]", "_", item)[:55] or "id"
        digest = hashlib.sha1(item.encode("utf-8")).hexdigest()
        for width in range(8, 41):
            candidate = f"{stem[: 63 - width]}-{digest[:width]}"
            if candidate not in taken:
                break
        taken.add(candidate)
        out[item] = candidate
    return out


def id_map_path(out: str | Path) -> Path:
    """Where the id map of a request file lives: `<name>.idmap.json` next to it."""
    out = Path(out)
    return out.with_name(f"{out.stem}.idmap.json")


def write_id_map(path: str | Path, mapping: dict[str, str], provider: str) -> None:
    """The id map file: {"format": "foldsim-id-map/1", "provider", "ids": {custom_id: original id}}
    with only the ids that were changed."""
    atomic_write_json(path, {"format": ID_MAP_FORMAT, "provider": provider,
                             "ids": {custom: original for original, custom in mapping.items() if custom != original}})


def read_id_map(path: str | Path) -> dict[str, str]:
    """{custom_id: original id} of an id map file (InputError naming the file if it is not one)."""
    path = Path(path)
    try:
        data = json.loads(read_text(path))  # bounded (limits.MAX_INPUT_BYTES)
    except ValueError as err:  # an InputError from reading, or not JSON
        reason = err.message if isinstance(err, InputError) else err
        raise InputError(f"cannot read id map: {reason}", item=str(path)) from None
    ids = data.get("ids") if isinstance(data, dict) else None
    if not isinstance(ids, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in ids.items()):
        raise InputError(f"not an id map (expected {{\"format\": \"{ID_MAP_FORMAT}\", \"ids\": {{...}}}})", item=str(path))
    return ids


def restore_record_ids(record: object, ids: dict[str, str]) -> object:
    """A result record with mapped `custom_id` / `id` / `key` values turned back into the
    original ids (anything else unchanged)."""
    if not isinstance(record, dict):
        return record
    restored = dict(record)
    for key in ("custom_id", "id", "key"):
        value = restored.get(key)
        if isinstance(value, str) and value in ids:
            restored[key] = ids[value]
    return restored


def restore_ids(answers_path: str | Path, map_path: str | Path, out_path: str | Path | None = None) -> Path:
    """Write a copy of a provider's results file (JSON Lines or a JSON array) with the original
    item ids restored from an id map; returns its path (default `<answers>.restored<suffix>`).
    Lines that are not JSON objects are copied as they are."""
    answers_path = Path(answers_path)
    ids = read_id_map(map_path)
    out_path = Path(out_path) if out_path else answers_path.with_name(f"{answers_path.stem}.restored{answers_path.suffix}")
    text = read_text(answers_path)  # bounded (limits.MAX_INPUT_BYTES); InputError naming the file
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, list):
        atomic_write_json(out_path, [restore_record_ids(r, ids) for r in whole])
        return out_path
    lines = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            lines.append(line)
            continue
        lines.append(json.dumps(restore_record_ids(record, ids)) if isinstance(record, dict) else line)
    atomic_write_bytes(out_path, ("\n".join(lines) + "\n").encode("utf-8"))
    return out_path


# --------------------------------------------------------------------------------------------------
# request files


@dataclass
class RequestsReport:
    """What `write_requests` did: the files written, the number of requests, the items left out
    (id -> one-line reason), the id map (anthropic, when ids were changed), stale split files
    removed."""

    files: list[Path] = field(default_factory=list)
    requests: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    id_map: Path | None = None
    mapped: int = 0
    removed: list[Path] = field(default_factory=list)

    def summary(self) -> dict:
        return {"files": [str(f) for f in self.files], "requests": self.requests, "failed": self.failed,
                "id_map": str(self.id_map) if self.id_map else None, "mapped_ids": self.mapped}


class ChunkedWriter:
    """Request records streamed into files of at most `max_requests` records and `max_bytes`
    bytes, each written to a temporary file and renamed into place at the end: PATH when one file
    suffices, else PATH-0001<suffix>, PATH-0002<suffix>, ... `jsonl` writes one record per line;
    otherwise each file is one JSON object {"requests": [...]} (Anthropic's batch body)."""

    def __init__(self, out: Path, *, jsonl: bool, max_requests: int | None, max_bytes: int | None):
        self.out, self.jsonl = out, jsonl
        self.max_requests, self.max_bytes = max_requests, max_bytes
        self.temps: list[Path] = []
        self.handle = None
        self.count = self.size = 0

    def _overhead(self) -> int:
        return 0 if self.jsonl else len(b'{"requests": [\n') + len(b"\n]}\n")

    def _open(self) -> None:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.out.parent, prefix=f".{self.out.name}.", suffix=".tmp")
        os.fchmod(fd, 0o666 & ~current_umask())
        self.handle = os.fdopen(fd, "wb")
        self.temps.append(Path(tmp))
        self.count, self.size = 0, self._overhead()
        if not self.jsonl:
            self.handle.write(b'{"requests": [\n')

    def _close(self) -> None:
        if self.handle is not None:
            if not self.jsonl:
                self.handle.write(b"\n]}\n")
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()
            self.handle = None

    def add(self, record: dict) -> None:
        data = orjson.dumps(record)
        grow = len(data) + (1 if self.jsonl else 2)  # the line break, or ",\n"
        full = self.handle is not None and self.count and (
            (self.max_requests is not None and self.count >= self.max_requests)
            or (self.max_bytes is not None and self.size + grow > self.max_bytes))
        if self.handle is None or full:
            self._close()
            self._open()
        if self.max_bytes is not None and self._overhead() + grow > self.max_bytes:
            raise InputError(f"one request is {len(data):,} bytes, over the {self.max_bytes:,}-byte file limit",
                             item=str(record.get("custom_id") or record.get("key") or record.get("id")))
        if self.jsonl:
            self.handle.write(data + b"\n")
        else:
            self.handle.write((b",\n" if self.count else b"") + data)
        self.count += 1
        self.size += grow

    def finish(self) -> tuple[list[Path], list[Path]]:
        """Rename the files into place; returns (files, stale split files removed)."""
        self._close()
        if not self.temps:  # no request at all: an empty file says so
            self._open()
            self._close()
        names = [self.out] if len(self.temps) == 1 else [split_name(self.out, i) for i in range(1, len(self.temps) + 1)]
        for tmp, name in zip(self.temps, names):
            os.replace(tmp, name)
        self.temps = []
        stale = [p for p in [self.out, *self.out.parent.glob(f"{self.out.stem}-[0-9][0-9][0-9][0-9]{self.out.suffix}")]
                 if p not in names and p.is_file() and (p == self.out or _is_split_name(p, self.out))]
        for path in stale:
            path.unlink()
        return names, stale

    def abort(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None
        for tmp in self.temps:
            tmp.unlink(missing_ok=True)


def split_name(out: Path, index: int) -> Path:
    return out.with_name(f"{out.stem}-{index:04d}{out.suffix}")


def _is_split_name(path: Path, out: Path) -> bool:
    return re.fullmatch(re.escape(out.stem) + r"-\d{4}" + re.escape(out.suffix), path.name) is not None


def write_requests(dataset: str | Path, task: str, modality: str, provider: str, out: str | Path, *,
                   options: RequestOptions = RequestOptions(), templates: Templates | str | Path | None = None,
                   system: str | None = None, limits: tuple[int | None, int | None] | None = None,
                   on_progress: Callable[[int], None] | None = None) -> RequestsReport:
    """Write the batch request file(s) of a dataset for a provider (see the module docstring).

    Items that cannot be prompted (missing media, bad records) are left out and reported; the
    others are written. Raises InputError for a bad option, dataset or template (nothing written).
    `limits` overrides the provider's (requests, bytes) per file.
    """
    options = options.check(provider)
    if modality == "video" and provider not in TAKES_VIDEO:
        raise InputError(f"{provider} takes no video input; use --modality frames (or --provider gemini/chat)",
                         field="--modality")
    out = Path(out)
    prompt, items = dataset_prompts(dataset, task, modality, templates=templates, system=system)
    max_requests, max_bytes = limits or SPLIT_LIMITS[provider]
    writer = ChunkedWriter(out, jsonl=provider != "anthropic", max_requests=max_requests, max_bytes=max_bytes)
    report = RequestsReport()
    ready: list[ItemPrompt] = []
    try:
        for item in items:
            if on_progress:
                on_progress(1)
            if item.error:
                report.failed[item.id] = item.error
                continue
            check_media(item.messages, provider)
            if provider == "anthropic":  # written once every id is known (some may need mapping)
                ready.append(item)
            else:
                writer.add(REQUEST_OF[provider](item.id, item.messages, options))
            report.requests += 1
        if provider == "anthropic":
            mapping = anthropic_ids(item.id for item in ready)
            for item in ready:
                writer.add(anthropic_request(mapping[item.id], item.messages, options))
            report.mapped = sum(custom != original for original, custom in mapping.items())
        report.files, report.removed = writer.finish()
    except BaseException:
        writer.abort()
        raise
    if provider == "anthropic":
        map_path = id_map_path(out)
        if report.mapped:
            write_id_map(map_path, mapping, provider)
            report.id_map = map_path
        elif map_path.is_file():
            map_path.unlink()
            report.removed.append(map_path)
    return report


def request_dicts(items: Iterable[ItemPrompt], provider: str, options: RequestOptions) -> Iterable[dict]:
    """The provider request of every prompted item (items with errors skipped), in memory: for
    code that sends or inspects requests itself. Anthropic ids are mapped with `anthropic_ids`."""
    ready = [item for item in items if not item.error]
    ids = anthropic_ids(i.id for i in ready) if provider == "anthropic" else {i.id: i.id for i in ready}
    for item in ready:
        yield REQUEST_OF[provider](ids[item.id], item.messages, options)
