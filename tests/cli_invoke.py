"""One way for tests to run a foldsim command in-process: typer's CliRunner, and a test failure when
any exception but SystemExit (the documented exits) leaves the command — a traceback a user
would have seen."""

from __future__ import annotations

from typer.testing import CliRunner

from foldsim.cli import app


def invoke(*args, env: dict | None = None):
    """The CliRunner result of `foldsim ARGS` (arguments str()-ed, so paths and numbers pass as they are)."""
    result = CliRunner().invoke(app, [str(a) for a in args], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"exception escaped: {result.exception!r}") from result.exception
    return result
