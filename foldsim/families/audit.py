"""Audit a benchmark's keys: read items in foldsim's machine-readable family format (fold
parameters, the options with their holes, the answer a benchmark assigned), re-simulate every item
exactly on the engine (one batched call) and say per item whether the keyed option is the physical
answer and, where not, which holes only the key has and which only the physics has (exact
coordinates, multiset differences), and which option (if any) is the physical answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..errors import InputError, describe
from ..sheets import PointHole, item_from_record
from .base import holes_from_json, seen_as

OK, DIFFERS, INVALID = "ok", "differs", "invalid"

T = TypeVar("T")


@dataclass
class AuditItem:
    id: str
    verdict: str
    reason: str = ""
    only_key: tuple[PointHole, ...] = ()
    only_physics: tuple[PointHole, ...] = ()
    physical_option: str | None = None

    def to_json(self) -> dict:
        out = {"id": self.id, "verdict": self.verdict}
        if self.reason:
            out["reason"] = self.reason
        if self.verdict == DIFFERS:
            out["only_key"] = [h.to_dict() for h in self.only_key]
            out["only_physics"] = [h.to_dict() for h in self.only_physics]
            out["physical_option"] = self.physical_option
        return out


@dataclass
class AuditReport:
    file: str
    items: list[AuditItem] = field(default_factory=list)

    @property
    def all_ok(self) -> bool:
        return all(i.verdict == OK for i in self.items)

    def summary(self) -> dict:
        counts = Counter(i.verdict for i in self.items)
        return {"file": self.file, "items": len(self.items), "ok": counts[OK], "differs": counts[DIFFERS],
                "invalid": counts[INVALID], "problems": [i.to_json() for i in self.items if i.verdict != OK]}


def _keyed(record: object, name: str, family: str | None = None):
    """(item, keyed holes, {label: holes}) of one record; InputError naming the field. `family`:
    the family the records must be from (a record of another one is refused, naming its family)."""
    if not isinstance(record, dict):
        raise InputError(f"must be an object, got {describe(record)}", item=name)
    if family is not None and record.get("family") not in (None, family):
        theirs = record["family"]
        raise InputError(f"is a record of {theirs if isinstance(theirs, str) else describe(theirs)}, not of {family} "
                         f"(audit --family {family})", item=name, field="family")
    if "item" not in record:
        raise InputError("is missing", item=name, field="item")
    try:
        item = item_from_record(record["item"], name=name)
    except InputError as err:
        raise err.at(item=name, field_prefix="item") from None
    options = record.get("options")
    answer = record.get("answer")
    if not isinstance(options, list) or not options:
        raise InputError(f"must be a non-empty list, got {describe(options)}", item=name, field="options")
    by_label: dict[str, tuple[PointHole, ...]] = {}
    for i, option in enumerate(options):
        if not isinstance(option, dict) or not isinstance(option.get("label"), str):
            raise InputError("must be an object with a label", item=name, field=f"options[{i}]")
        label = option["label"]
        if label in by_label:
            raise InputError(f"repeats the label {describe(label)}: each option needs its own", item=name,
                             field=f"options[{i}].label")
        try:
            by_label[label] = holes_from_json(option.get("resultHoles"), f"options[{i}].resultHoles")
        except InputError as err:
            raise err.at(item=name) from None
    if not isinstance(answer, str) or answer not in by_label:
        raise InputError(f"must be one of the option labels {', '.join(by_label)}, got {describe(answer)}",
                         item=name, field="answer")
    return item, by_label[answer], by_label


def record_names(records: list) -> list[str]:
    """What every audit calls each record: its id (a non-blank string), else its place in the file
    (its JSON Lines line where the reader kept it, else "item <index>": `record_positions`)."""
    from ..simulate import record_positions

    positions = record_positions(records, len(records))
    return [r["id"] if isinstance(r, dict) and isinstance(r.get("id"), str) and r["id"].strip() else positions[i]
            for i, r in enumerate(records)]


def read_each(records: list, read: Callable[[int, str], T], only: list[int] | None = None,
              ) -> tuple[list[str], dict[int, T], dict[int, AuditItem]]:
    """(names, {index: read(index, name)}, {index: invalid verdict}) over the records (those of
    `only`, else all): one record's bad data (an InputError, named by the record where it names
    nothing) or bug (any other exception: one internal-error line, raised under FOLDSIM_DEBUG) is
    that record's verdict, never the batch's exception. Every audit reads its records through this."""
    from ..errors import debugging, internal_error_text

    names = record_names(records)
    read_ok: dict[int, T] = {}
    refused: dict[int, AuditItem] = {}
    for index in range(len(records)) if only is None else only:
        name = names[index]
        try:
            read_ok[index] = read(index, name)
        except InputError as err:
            refused[index] = AuditItem(name, INVALID, str(err if err.item else err.at(item=name)))
        except Exception as err:  # noqa: BLE001  (one record's bug is that record's verdict)
            if debugging():
                raise
            refused[index] = AuditItem(name, INVALID, f"{name}: {internal_error_text(err)}")
    return names, read_ok, refused


def audit_records(records: list, file: str = "items", *, family: str | None = None) -> AuditReport:
    """Audit every record, in order: one AuditItem each, never an exception (a record that cannot be
    read or simulated is that record's `invalid` verdict, named as `record_names` says). `family`:
    records of another family are invalid (their family named)."""
    from ..engine import simulate_items

    names, parsed, verdicts = read_each(records, lambda index, name: _keyed(records[index], name, family))
    todo = list(parsed)
    results = simulate_items([parsed[i][0] for i in todo], names=[names[i] for i in todo])
    for index, result in zip(todo, results, strict=True):
        verdicts[index] = _verdict(names[index], result, *parsed[index][1:])
    return AuditReport(file, [verdicts[index] for index in range(len(records))])


def _verdict(name: str, result, key: tuple[PointHole, ...], by_label: dict) -> AuditItem:
    """Whether the keyed holes are the simulated ones, and which option is, where not."""
    if not result.ok:
        return AuditItem(name, INVALID, f"{name}: the item cannot be simulated: {result.reason}")
    physics = Counter(seen_as(h) for h in result.holes)
    keyed = Counter(seen_as(h) for h in key)
    if physics == keyed:
        return AuditItem(name, OK)
    only_key = tuple(sorted((keyed - physics).elements()))
    only_physics = tuple(sorted((physics - keyed).elements()))
    match = next((label for label, holes in by_label.items() if Counter(seen_as(h) for h in holes) == physics), None)
    return AuditItem(name, DIFFERS, f"{name}: the keyed option is not the physical answer "
                     f"({len(only_key)} hole(s) only in the key, {len(only_physics)} only in the physics; "
                     f"physical answer: {match or 'no option'})", only_key, only_physics, match)


def audit_file(path) -> AuditReport:
    """Audit one file (JSON list or JSONL); InputError when the file cannot be read at all."""
    from ..io import read_records

    records = read_records(path)
    return audit_records(records, str(path))
