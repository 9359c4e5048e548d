"""The `foldsim` command line: one Typer app (`common.app`) with commands registered from one module per
area (`core`, `evaluate`, `dataset`); this module wires them together and owns `main`, where usage
errors become one line with exit code 2."""

from __future__ import annotations

from . import core, dataset, evaluate  # noqa: F401  (importing registers the commands)
from . import report  # noqa: F401  (report, browse)
from . import export  # noqa: F401  (overlap, export)
from . import sheets  # noqa: F401  (render-item)
from . import fold  # noqa: F401  (fold: FOLD files)
from . import families  # noqa: F401  (audit; generate --family)
from .common import EXIT_INTERRUPTED, EXIT_USAGE, Interrupted, app, err
from .common import error as print_error

__all__ = ["app", "main"]

#: what Ctrl-C leaves, said in one line
INTERRUPTED = ("interrupted (no output is left half-written; generate, render and run keep their finished "
               "items and resume when run again)")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI. Usage errors (unknown command or option, a missing or malformed argument) are one
    line on stderr with exit code 2, like every other input error. Commands report bad input
    themselves (one line per bad item, the exit-code scheme of `common`); whatever still escapes
    them is caught here as a last resort: an InputError is one `error:` line, anything else one
    `error: internal error: ...` line (a bug), both with exit code 2; FOLDSIM_DEBUG=1 lets it raise
    with its traceback instead."""
    import sys

    from typer.exceptions import Abort, TyperException

    from ..errors import InputError, debugging, internal_error_text

    try:
        code = app(args=argv, prog_name="foldsim", standalone_mode=False)
    except (Abort, Interrupted):
        print_error(INTERRUPTED)
        code = EXIT_INTERRUPTED
    except TyperException as error:  # Typer's (vendored click) usage errors
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        if type(error).__name__ == "NoArgsIsHelpError":  # bare `foldsim`: the help, not an error
            err.print(message, markup=False)
        else:
            ctx = getattr(error, "ctx", None)
            where = f"{ctx.command_path}: " if ctx is not None else ""
            print_error(f"{where}{' '.join(message.split())}")
        code = getattr(error, "exit_code", EXIT_USAGE)
    except InputError as error:  # bad input a command did not catch itself
        if debugging():
            raise
        print_error(error)
        code = EXIT_USAGE
    except Exception as error:  # noqa: BLE001  (the last resort: never a traceback for the user)
        if debugging():
            raise
        print_error(internal_error_text(error))
        code = EXIT_USAGE
    sys.exit(code or 0)
