"""What every command shares: the Typer app, the consoles, one-line errors, the exit-code scheme and
--json printing. Command modules (core, evaluate, dataset, ...) register themselves on `app`."""

from __future__ import annotations

import json

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Exact, batched paper folding & hole punching.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


@app.callback()
def root() -> None:
    """foldsim: check, enumerate, verify, solve, score, generate and render paper-folding items."""


#: the one exit-code scheme of every command
EXIT_OK = 0  # everything fine
EXIT_ITEMS = 1  # the command ran, but some items failed, differ or are wrong
EXIT_USAGE = 2  # the command could not run: a bad option, an unreadable input, an unwritable output
EXIT_INTERRUPTED = 130


def fail(message: str, code: int = EXIT_USAGE) -> None:
    """Print a one-line error and exit nonzero."""
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def print_json(data: object) -> None:
    typer.echo(json.dumps(data, indent=1))


