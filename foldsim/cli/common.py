"""What every command shares: the Typer app, the consoles, one-line errors, the exit-code scheme and
--json printing. Command modules (core, evaluate, dataset, ...) register themselves on `app`."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, NoReturn

import typer
from rich.console import Console

from .help import FoldsimHelpGroup, VersionOption, family_names


class Interrupted(Exception):
    """Ctrl-C reached the command line (Typer would turn it into a silent exit 130; `main` says so)."""


class _FoldsimGroup(FoldsimHelpGroup):
    """Notes, before the root callback runs, whether the command line asks for a command's help (the
    help is printed while the subcommand parses its options, after the callback, and asking for
    help must work whatever the environment holds); passes Ctrl-C on as `Interrupted`."""

    def invoke(self, ctx):
        ctx.meta["foldsim.help"] = any(arg in ctx.help_option_names for arg in ctx.args)
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as interrupt:
            raise Interrupted from interrupt


app = typer.Typer(cls=_FoldsimGroup, no_args_is_help=True,
                  help=f"Paper folding & hole punching, exact and batched. Benchmark families (generate, audit "
                       f"--family): {family_names()}. Details and examples: foldsim COMMAND --help")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


@app.callback()
def root(ctx: typer.Context, version: VersionOption = False) -> None:
    """foldsim: check, enumerate, verify, solve, score, generate and render paper-folding items."""
    if not ctx.meta.get("foldsim.help"):
        check_environment()


#: the one exit-code scheme of every command
EXIT_OK = 0  # everything fine
EXIT_ITEMS = 1  # the command ran, but some items failed, differ or are wrong (one error line each)
EXIT_USAGE = 2  # the command could not run: a bad option, an unreadable input file, an unwritable
#                 output, a bad environment variable; also an internal error (a bug) caught by main()
EXIT_INTERRUPTED = 130


#: an error line longer than this is cut (a bad value is quoted short already; this is the backstop)
MAX_ERROR_LINE = 2000


def one_line(text: str, limit: int = MAX_ERROR_LINE) -> str:
    """`text` as a single printable line: newlines and other control characters escaped (an id or a
    value from a file can hold them), cut to `limit` characters."""
    text = str(text)[:limit]
    clean = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


def error(message: object) -> None:
    """Print one `error: <message>` line on stderr (no markup, no emoji codes, control characters
    escaped: whatever the message quotes from the input, it stays one line)."""
    err.print(f"error: {one_line(str(message))}", markup=False, emoji=False, highlight=False)


def note(message: object) -> None:
    """Print one `note: <message>` line on stderr (kept one line and printed as typed, like `error`):
    something the user should know that is not a failure."""
    err.print(f"note: {one_line(str(message))}", markup=False, emoji=False, highlight=False)


def fail(message: object, code: int = EXIT_USAGE) -> NoReturn:
    """Print a one-line error and exit nonzero (EXIT_USAGE: the command could not run)."""
    error(message)
    raise typer.Exit(code)


def item_errors(file: str | Path | None, errors: Iterable[object]) -> int:
    """One `error: <file>: <error>` line per bad item (each error an InputError or its one-line text,
    which names the item and field); returns how many, so the caller can pick the exit code."""
    count = 0
    for message in errors:
        error(f"{file}: {message}" if file is not None else message)
        count += 1
    return count


def items_exit_code(failed: int) -> int:
    """The exit code of a command that ran: EXIT_ITEMS if any item failed or differs, else EXIT_OK."""
    return EXIT_ITEMS if failed else EXIT_OK


def check_output_path(path: str | Path, kind: Literal["file", "dir"] = "file", *, option: str | None = "--out") -> Path:
    """Fail (EXIT_USAGE, one line) unless `path` can be written as a `kind`, BEFORE any work starts;
    the one check of every output path: an existing path must be of that kind (no directory where a
    file is wanted, no file where a folder is, and never a device, FIFO, socket or, for a file, a
    symbolic link: the atomic writer would rename over the node, `foldsim.io.replace_target`; a
    folder is judged by what a link to it names); the nearest existing folder on the way must be a folder (`afile/x` fails) where a file
    can really be created (a probe file is made and removed, which is true also for root, /proc and
    read-only mounts) with some space left. Nothing is created. Returns the path."""
    from ..io import NotRegularFileError, replace_target

    path = Path(path)
    label = f"{option}: {path}" if option else str(path)
    try:
        # an output folder may be reached through a link (files go into it; it is never replaced)
        target = replace_target(path.resolve() if kind == "dir" else path, kind)
        folder = target if kind == "dir" else target.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir():
            fail(f"{label}: {folder} is not a directory")
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".foldsim-probe-")
        os.close(handle)
        os.unlink(probe)
        if shutil.disk_usage(folder).free == 0:
            fail(f"{label}: no space left on the device of {folder}")
    except NotRegularFileError as problem:
        fail(f"{label}: {problem.strerror}")
    except OSError as problem:
        fail(f"{label}: cannot write there: {problem.strerror or problem}")
    return path


def write_output(path: str | Path, data: bytes | str, *, option: str | None = "--out") -> None:
    """Write an output atomically (foldsim.io.atomic_write_bytes); a failure at write time (disk
    full, permissions changed meanwhile) is one line and EXIT_USAGE, and leaves no partial file."""
    from ..io import atomic_write_bytes

    path = Path(path)
    try:
        atomic_write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as problem:
        label = f"{option}: {path}" if option else str(path)
        fail(f"{label}: cannot write: {problem.strerror or problem}")


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Fail (EXIT_USAGE, one line naming the variable) for an environment variable foldsim cannot
    use, before any work starts: FOLDSIM_MEMORY_BUDGET must be a positive number of bytes."""
    from ..batching import MEMORY_BUDGET_ENV, parse_memory_budget
    from ..errors import InputError

    text = (os.environ if environ is None else environ).get(MEMORY_BUDGET_ENV, "").strip()
    if text:
        try:
            parse_memory_budget(text, field=MEMORY_BUDGET_ENV)
        except InputError as problem:
            fail(problem)


def print_json(data: object) -> None:
    typer.echo(json.dumps(data, indent=1))


