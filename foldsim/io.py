"""Reading benchmark files tolerantly and writing outputs atomically.

Reading draws one line between the file and its items: a problem with the whole file (unreadable,
not UTF-8, empty, not JSON, a bare JSON scalar, nested beyond the recursion limit) is an InputError
naming the file; a problem with one item (a JSON Lines line that is not JSON, a number too long for
Python to read) is that item's problem only, so the other items are still read.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import json
import os
import re
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError, describe

JSONL_SUFFIXES = (".jsonl", ".ndjson")
#: byte-order marks and what they announce (UTF-32 first: its LE mark starts with UTF-16's)
BOM_CODECS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF8, "utf-8"),
)


@dataclass(frozen=True)
class UnreadableRecord:
    """Stands in the record list for a JSON Lines line that is not JSON: one bad item, reported by
    whoever reads the records (`record_object` raises its error), while the other lines are read."""

    item: str  # "line 7"
    message: str

    def error(self) -> InputError:
        return InputError(self.message, item=self.item)


@dataclass(frozen=True)
class OversizedNumber:
    """Stands in for a JSON integer longer than Python converts (sys.get_int_max_str_digits()), so
    one such number makes its field bad, not the whole file."""

    digits: int

    def __repr__(self) -> str:
        return f"<a {self.digits}-digit number>"

    __str__ = __repr__


def read_text(path: str | Path) -> str:
    """The text of a file: UTF-8 (with or without a byte-order mark), or UTF-16/UTF-32 with one.
    Anything else raises an InputError naming the file and the byte offset of the first bad byte;
    so does an input past `limits.MAX_INPUT_BYTES` (`read_bounded`)."""
    path = Path(path)
    return decode_text(read_bounded(path), str(path))


def read_bounded(path: Path) -> bytes:
    """The bytes of `path`, at most `limits.MAX_INPUT_BYTES`: a regular file past the bound is
    refused from its size before a byte is read; a stream (a pipe, /dev/stdin, /dev/zero, which never
    ends) is read in chunks and refused as soon as it passes the bound, so no input can fill memory.
    InputError naming the file."""
    from .limits import MAX_INPUT_BYTES

    too_big = f"larger than {MAX_INPUT_BYTES:,} bytes, more than foldsim reads (limits.MAX_INPUT_BYTES)"
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise InputError("cannot read: is a directory", item=str(path))
            if stat.S_ISREG(info.st_mode) and info.st_size > MAX_INPUT_BYTES:
                raise InputError(too_big, item=str(path))
            chunks, size = [], 0
            while size <= MAX_INPUT_BYTES:
                chunk = handle.read(min(1 << 20, MAX_INPUT_BYTES + 1 - size))
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                size += len(chunk)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", item=str(path)) from None
    raise InputError(too_big, item=str(path))


def decode_text(data: bytes, name: str) -> str:
    """`read_text` on bytes already read; `name` names the source in errors."""
    bom, codec = next(((b, c) for b, c in BOM_CODECS if data.startswith(b)), (b"", "utf-8"))
    nul = data.find(b"\x00") if codec == "utf-8" else -1  # in UTF-8 a NUL byte is U+0000, never text
    if nul >= 0:
        raise InputError(f"NUL byte at byte offset {nul}: UTF-16 without a byte-order mark, or not "
                         "text at all (save the file as UTF-8)", item=name)
    try:
        text = data[len(bom):].decode(codec)
    except UnicodeDecodeError as err:
        offset = len(bom) + err.start
        what = "UTF-8" if not bom else f"{codec.upper()[:6]} (as its byte-order mark says)"
        raise InputError(f"not {what}: byte 0x{data[offset]:02x} at byte offset {offset} "
                         "(save the file as UTF-8)", item=name) from None
    return text


def read_records(path: str | Path) -> list:
    """The records of a MentalBlackboard-format file: a JSON array (or one object), or JSON Lines.

    Raises InputError naming the file when the file as a whole cannot be read. In JSON Lines, a line
    that is not JSON becomes an `UnreadableRecord` in its place (one bad item); the other lines are
    read. Per-record problems are left to the record's reader (`record_object`, Config.from_record).
    """
    path = Path(path)
    return parse_records(read_text(path), str(path), jsonl=path.suffix.lower() in JSONL_SUFFIXES)


def parse_records(text: str, name: str, *, jsonl: bool = False) -> list:
    """`read_records` on text already read; `name` names the source in errors, `jsonl` says the
    source is JSON Lines by name (a text that is not one JSON value is tried as JSON Lines anyway,
    unless it opens like an array)."""
    stripped = text.strip()
    if not stripped:
        raise InputError("empty file, not a JSON array of records", item=name)
    try:
        data = loads_bounded(stripped)
    except (json.JSONDecodeError, RecursionError) as err:
        if isinstance(err, RecursionError):
            whole = f"nested deeper than {sys.getrecursionlimit()} levels, more than can be read"
        else:
            whole = f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"
        if stripped.startswith("[") and not jsonl:
            raise InputError(whole, item=name) from None
        records = _jsonl_records(text)  # not `stripped`: line numbers count from the file's first line
        if all(isinstance(r, UnreadableRecord) for r in records):
            if isinstance(err, json.JSONDecodeError):
                whole = f"not JSON, and not JSON Lines either: {records[0].item}: {records[0].message}"
            raise InputError(whole, item=name) from None
        return records
    if isinstance(data, dict):
        if jsonl and "\n" not in stripped:  # a JSON Lines file of one line: its record keeps its line
            return _jsonl_records(text)
        return [data]
    if not isinstance(data, list):
        raise InputError(f"expected a JSON array of records, got {json_kind(data)}", item=name)
    return data


def loads_bounded(text: str) -> object:
    """json.loads, where an integer too long for Python to convert becomes an OversizedNumber
    instead of failing the whole text (the slower hook runs only when one is there)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return json.loads(text, parse_int=_bounded_int)


def _bounded_int(digits: str) -> int | OversizedNumber:
    limit = sys.get_int_max_str_digits()
    count = len(digits.lstrip("-"))
    return OversizedNumber(count) if limit and count > limit else int(digits)


class Records(list):
    """The records of a JSON Lines file, with `positions`: each record's line ("line 4"), so an error
    about a record without an id names the line a reader can find (foldsim.simulate)."""

    def __init__(self) -> None:
        super().__init__()
        self.positions: list[str] = []


def _jsonl_records(text: str) -> list:
    """One record per non-blank line; a line that is not JSON becomes an UnreadableRecord. Lines end
    at "\n" only: str.splitlines would also cut at U+2028 and other separators that JSON strings
    may hold unescaped."""
    records = Records()
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        records.positions.append(f"line {number}")
        try:
            records.append(loads_bounded(line))
        except json.JSONDecodeError as err:
            records.append(UnreadableRecord(f"line {number}", f"invalid JSON at column {err.colno}: {err.msg}"))
        except RecursionError:
            records.append(UnreadableRecord(f"line {number}", "nested too deep to read"))
    return records


def record_name(record: object, index: int | None = None) -> str:
    """How errors name a record: its id (a non-blank string or an integer), else its JSON Lines line,
    else its position ("item 3")."""
    if isinstance(record, UnreadableRecord):
        return record.item
    if isinstance(record, dict):
        value = record.get("id")
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, int):
            return value_text(value)
    return f"item {index}" if index is not None else "item"


def item_label(record: object, index: int | None) -> str | None:
    """What a reader's errors call a record before reading it: its id (a non-blank string, cut to 80
    characters), else its position from 0 ("item 2", as `record_name`), else nothing."""
    if isinstance(record, dict) and isinstance(record.get("id"), str) and record["id"].strip():
        return record["id"][:80]
    return f"item {index}" if index is not None else None


def value_text(value: int) -> str:
    """str() of an int, or a short description where it has more digits than Python prints."""
    try:
        return str(value)
    except ValueError:
        return describe(value)


def record_object(record: object, item: str) -> dict:
    """The record as a dict, or an InputError naming the item: the line's own error for an
    UnreadableRecord, "must be an object" for anything else that is not a JSON object."""
    if isinstance(record, UnreadableRecord):
        raise record.error()
    if not isinstance(record, dict):
        raise InputError(f"a record must be an object, got {json_kind(record)}", item=item)
    return record


def json_kind(value: object) -> str:
    """What a JSON value is, in words ("an array", "null"), for errors about the wrong kind."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null", int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


#: characters kept in a file name made from data (an item id); every other character becomes "_"
UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")
#: characters of a file name made from data, at most (far below the 255 bytes a file name may take,
#: leaving room for the prefixes and suffixes the writers add: PF_<name>_animation.mp4)
MAX_NAME_CHARS = 120


def safe_file_name(name: str, default: str = "item") -> str:
    """`name` (an item id, anything a record holds) made one safe file name, the one rule for every
    file name made from data: letters, digits, `.`, `_` and `-` kept, every other character (`/`,
    NUL, spaces, non-ASCII) one `_`, cut to MAX_NAME_CHARS, no leading dot (so never `.`, `..` or
    hidden); `default` when nothing is left. A name cut short keeps its extension (up to 8
    characters: `.png`, `.mp4`). Usual ids (PFHP_12, spatialviz-easy-0001) are kept as they are, so
    names never change for them; the rule is idempotent."""
    safe = UNSAFE_NAME.sub("_", str(name))
    if len(safe) > MAX_NAME_CHARS:
        _, dot, suffix = safe.rpartition(".")
        keep = f".{suffix}" if dot and len(suffix) <= 8 else ""
        safe = safe[:MAX_NAME_CHARS - len(keep)] + keep
    return safe.lstrip(".") or default


class FileNames:
    """One file name per item of a batch, none used twice: `claim(id)` is `safe_file_name(id)`, or,
    when another item of the batch already has that name (two ids that differ only in characters the
    sanitiser replaces, or in their tail past MAX_NAME_CHARS), the name with `-` and the first 8 hex
    digits of the id's SHA-256 appended (the same suffix in every run of the same file). The same id
    twice is an InputError (its files would overwrite the first's). An item without an id is named by
    its position (`item`, "item 3"), never the same id as another. `key` maps a name to what decides
    its files (e.g. the benchmark's video number, which drops a PFHP_ prefix)."""

    def __init__(self, key=lambda name: name):
        self.key = key
        self.owners: dict[str, object] = {}  # key -> the id that has it (a position: ("item", "item 3"))
        self.names: dict[object, str] = {}  # id -> its name

    def claim(self, item_id: str | None, item: str | None = None) -> str:
        """The file name of `item_id` (None: the item has no id; `item` names it), a new one, or
        InputError for an id claimed before."""
        raw, owner = (str(item), ("item", item)) if item_id is None else (str(item_id), item_id)
        name = safe_file_name(raw)
        if owner in self.names:
            raise InputError(f"{self.names[owner]}: its files are already written for an earlier item with the same "
                             "id (ids must differ)", item=item, field="id")
        if self.key(name) in self.owners:
            name = f"{name}-{hashlib.sha256(raw.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
            if self.key(name) in self.owners:
                raise InputError(f"its file name {name} is taken by another item", item=item, field="id")
        self.owners[self.key(name)] = owner
        self.names[owner] = name
        return name


class NotRegularFileError(OSError):
    """An output path holds a device, FIFO, socket (or a folder where a file is wanted, or the
    reverse): an atomic write would rename over the node itself, so it is refused."""


def node_kind(mode: int) -> str:
    """What an lstat mode is, in words ("a FIFO", "a character device")."""
    kinds = ((stat.S_ISREG, "a file"), (stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISLNK, "a symbolic link"))
    return next((words for test, words in kinds if test(mode)), "not a file")


def replace_target(path: str | Path, kind: str = "file") -> Path:
    """`path`, checked as the place an atomic write renames its new `kind` ("file" or "dir") onto:
    NotRegularFileError where something other than a `kind` is there: a device, a FIFO, a socket, a
    directory where a file is wanted (or the reverse), and a symbolic link, which is neither written
    through (a link planted in an output folder could send the write anywhere) nor replaced (the
    link may be a system's: /dev/stdout). Nothing there yet is fine."""
    path = Path(path)
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there yet (or a file on the way: mkdir says so)
        return path
    if not (stat.S_ISDIR(mode) if kind == "dir" else stat.S_ISREG(mode)):
        wanted = "a directory" if kind == "dir" else "a file"
        raise NotRegularFileError(errno.EEXIST, f"is {node_kind(mode)}, expected {wanted}", str(path))
    return path


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` so a reader sees the old file or the whole new one, never a part; never
    over a device, FIFO, socket or symbolic link (`replace_target`: NotRegularFileError)."""
    path = replace_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:100]}.", suffix=".tmp")
    os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; give the file normal permissions
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, replace_target(path))  # again: a FIFO made meanwhile is not renamed over either
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
