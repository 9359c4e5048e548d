"""Reading benchmark files tolerantly and writing outputs atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .errors import InputError


def read_records(path: str | Path) -> list:
    """The records of a MentalBlackboard-format file: a JSON array, or JSON Lines.

    Raises InputError naming the file (and line, for JSONL) when it cannot be read as either.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", item=str(path)) from None
    stripped = text.strip()
    if not stripped:
        raise InputError("empty file, not a JSON array of records", item=str(path))
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as err:
        if path.suffix != ".jsonl" and stripped.startswith("["):
            raise InputError(f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}", item=str(path)) from None
        return _read_jsonl(path, stripped)
    if isinstance(data, dict):
        return [data]
    if not isinstance(data, list):
        raise InputError(f"expected a JSON array of records, got {type(data).__name__}", item=str(path))
    return data


def _read_jsonl(path: Path, text: str) -> list:
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise InputError(f"line {number}: invalid JSON: {err.msg}", item=str(path)) from None
    return records


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` so a reader sees the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; give the file normal permissions
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def current_umask() -> int:
    """The process umask (read by setting and restoring it; there is no read-only call)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, data: object, *, indent: int | None = 1) -> None:
    atomic_write_text(path, json.dumps(data, indent=indent) + "\n")
