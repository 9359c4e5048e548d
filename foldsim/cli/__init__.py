"""The `foldsim` command line: one Typer app (`common.app`) with commands registered from one module per
area (`core`, `evaluate`, `dataset`); this module wires them together and owns `main`, where usage
errors become one line with exit code 2."""

from __future__ import annotations

from . import core, dataset, evaluate  # noqa: F401  (importing registers the commands)
from .common import app, err

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> None:
    """Run the CLI. Usage errors (unknown command or option, a missing or malformed argument) are one
    line on stderr with exit code 2, like every other input error."""
    import sys

    from typer.exceptions import Abort, TyperException

    try:
        code = app(args=argv, prog_name="foldsim", standalone_mode=False)
    except Abort:
        err.print("error: interrupted", markup=False)
        code = 130
    except TyperException as error:  # Typer's (vendored click) usage errors
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        if type(error).__name__ == "NoArgsIsHelpError":  # bare `foldsim`: the help, not an error
            err.print(message, markup=False)
        else:
            ctx = getattr(error, "ctx", None)
            where = f"{ctx.command_path}: " if ctx is not None else ""
            err.print(f"error: {where}{' '.join(message.split())}", markup=False)
        code = getattr(error, "exit_code", 2)
    sys.exit(code or 0)


