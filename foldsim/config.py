"""Config: one paper-folding item (actions plus punches), from codes or a MentalBlackboard record."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .codes import code_of_entry, entry_of_code, parse_codes, pattern_of
from .errors import InputError
from .holes import Hole, parse_hole, parse_holes
from .io import json_kind, record_name, record_object


@dataclass(frozen=True)
class Config:
    """An action sequence in canonical codes (e.g. ("D1-F", "H1-F", "R-90")) and the holes punched
    after it, each hole's location being a grid id in the final (rotated) frame."""

    actions: tuple[str, ...]
    holes: tuple[Hole, ...] = ()
    id: str | None = None

    @classmethod
    def from_codes(cls, codes: str | Iterable[str], holes: Iterable[Hole | dict] = (), id: str | None = None) -> "Config":
        """Config.from_codes("D1-F,H1-F,R-90", [Hole.make("star", "large", 0, 28)])."""
        try:
            actions = parse_codes(codes)
        except InputError as err:
            raise err.at(item=id) from None
        parsed = []
        for i, hole in enumerate(holes):
            try:
                parsed.append(hole if isinstance(hole, Hole) else parse_hole(hole))
            except InputError as err:
                raise err.at(item=id, field_prefix=f"holes[{i}]") from None
        return cls(actions, tuple(parsed), id)

    @classmethod
    def from_record(cls, record: object, *, index: int | None = None) -> "Config":
        """Config from a MentalBlackboard record (`foldingTypes`, `initialHoles`); InputError names
        the item and field. Both fields are required: a record without punches has no answer."""
        item = record_name(record, index)
        record = record_object(record, item)
        entries = record.get("foldingTypes")
        if not isinstance(entries, list) or not entries:
            got = "it is missing" if "foldingTypes" not in record else f"got {json_kind(entries) if entries != [] else 'an empty one'}"
            raise InputError(f"missing or not a non-empty list ({got})", item=item, field="foldingTypes")
        if not isinstance(record.get("initialHoles"), list):
            got = "missing" if "initialHoles" not in record else f"must be a list, got {json_kind(record['initialHoles'])}"
            raise InputError(got, item=item, field="initialHoles")
        codes = []
        for i, entry in enumerate(entries):
            try:
                codes.append(code_of_entry(entry))
            except InputError as err:
                raise err.at(item=item, field_prefix=f"foldingTypes[{i}]") from None
        try:
            holes = parse_holes(record.get("initialHoles"), "initialHoles")
        except InputError as err:
            raise err.at(item=item) from None
        return cls(tuple(codes), holes, item)

    @property
    def pattern(self) -> str:
        """Action pattern over F/R, e.g. "FRF"."""
        return pattern_of(self.actions)

    def folding_types(self) -> list[dict]:
        """The `foldingTypes` list of this configuration."""
        return [entry_of_code(c) for c in self.actions]
