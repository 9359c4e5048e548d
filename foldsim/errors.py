"""The one error type for bad input: it names the item and the field, in one line."""

from __future__ import annotations


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
