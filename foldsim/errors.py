"""The one error type for bad input: it names the item and the field, in one line."""

from __future__ import annotations

from collections.abc import Mapping


class InputError(ValueError):
    """Bad input in one item. `str()` is a single line: "<item>: <field>: <message>"."""

    def __init__(self, message: str, *, item: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.item = item
        self.field = field

    def at(self, *, item: str | None = None, field_prefix: str | None = None) -> "InputError":
        """The same error located inside an item and/or a parent field."""
        field = self.field
        if field_prefix:
            field = f"{field_prefix}.{field}" if field else field_prefix
        return InputError(self.message, item=item or self.item, field=field)

    def __str__(self) -> str:
        parts = [p for p in (self.item, self.field) if p]
        return ": ".join([*parts, self.message])


#: how much of a bad value an error message quotes: enough to recognise it, never a flood
DESCRIBE_CHARS = 60


def describe(value: object, limit: int = DESCRIBE_CHARS) -> str:
    """A short, one-line repr of a value from an input, for error messages: bounded in length and
    nesting depth (reprlib), and safe for values `repr` itself cannot print (an int beyond Python's
    digit limit, a structure nested deeper than the recursion limit)."""
    import reprlib

    shortener = reprlib.Repr()
    shortener.maxlevel, shortener.maxstring, shortener.maxother = 3, limit, limit
    shortener.maxlist = shortener.maxtuple = shortener.maxdict = shortener.maxset = 4
    try:
        text = shortener.repr(value)
    except (ValueError, RecursionError):  # int too long to print, or nested too deep
        text = f"<{value.bit_length()}-bit integer>" if isinstance(value, int) else f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: set (to anything but "" or "0") to let unexpected exceptions raise with their traceback
DEBUG_ENV = "FOLDSIM_DEBUG"


def debugging(environ: Mapping[str, str] | None = None) -> bool:
    """Whether FOLDSIM_DEBUG asks for tracebacks instead of one-line internal errors."""
    import os

    return (os.environ if environ is None else environ).get(DEBUG_ENV, "").strip() not in ("", "0")


def internal_error_text(error: BaseException) -> str:
    """How an unexpected exception (foldsim's bug, not the input's) is reported: one line."""
    message = " ".join(str(error).split())
    if len(message) > 200:
        message = message[:197] + "..."
    what = f"{type(error).__name__}: {message}" if message else type(error).__name__
    return f"internal error: {what} (a bug; rerun with {DEBUG_ENV}=1 for the traceback)"
