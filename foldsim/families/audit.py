"""Audit a benchmark's keys: read items in foldsim's machine-readable family format (fold
parameters, the options with their holes, the answer a benchmark assigned), re-simulate every item
exactly on the engine (one batched call) and say per item whether the keyed option is the physical
answer and, where not, which holes only the key has and which only the physics has (exact
coordinates, multiset differences), and which option (if any) is the physical answer."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..errors import InputError, describe
from ..sheets import PointHole, item_from_record
from .base import holes_from_json, seen_as

OK, DIFFERS, INVALID = "ok", "differs", "invalid"


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


def _keyed(record: dict, name: str):
    """(item, keyed holes, {label: holes}) of one record; InputError naming the field."""
    if not isinstance(record, dict):
        raise InputError(f"must be an object, got {describe(record)}", item=name)
    if "item" not in record:
        raise InputError("is missing", item=name, field="item")
    try:
        item = item_from_record(record["item"])
    except InputError as err:
        raise err.at(item=name, field_prefix="item") from None
    options = record.get("options")
    answer = record.get("answer")
    if not isinstance(options, list) or not options:
        raise InputError(f"must be a non-empty list, got {describe(options)}", item=name, field="options")
    by_label = {}
    for i, option in enumerate(options):
        if not isinstance(option, dict) or not isinstance(option.get("label"), str):
            raise InputError("must be an object with a label", item=name, field=f"options[{i}]")
        try:
            by_label[option["label"]] = holes_from_json(option.get("resultHoles"), f"options[{i}].resultHoles")
        except InputError as err:
            raise err.at(item=name) from None
    if answer not in by_label:
        raise InputError(f"must be one of the option labels {', '.join(by_label)}, got {describe(answer)}",
                         item=name, field="answer")
    return item, by_label[answer], by_label


def audit_records(records: list, file: str = "items") -> AuditReport:
    from ..engine import simulate_items

    report = AuditReport(file)
    parsed = []
    for index, record in enumerate(records):
        name = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else f"item {index + 1}"
        try:
            parsed.append((name, *_keyed(record, name)))
        except InputError as err:
            report.items.append(AuditItem(name, INVALID, str(err)))
            parsed.append(None)
    todo = [p for p in parsed if p is not None]
    results = iter(simulate_items([p[1] for p in todo]))
    out = []
    for p, existing in zip(parsed, [None] * len(parsed), strict=True):
        if p is None:
            continue
        name, _, key, by_label = p
        result = next(results)
        if not result.ok:
            out.append(AuditItem(name, INVALID, f"{name}: the item cannot be simulated: {result.reason}"))
            continue
        physics = Counter(seen_as(h) for h in result.holes)
        keyed = Counter(seen_as(h) for h in key)
        if physics == keyed:
            out.append(AuditItem(name, OK))
            continue
        only_key = tuple(sorted((keyed - physics).elements()))
        only_physics = tuple(sorted((physics - keyed).elements()))
        match = next((label for label, holes in by_label.items() if Counter(seen_as(h) for h in holes) == physics), None)
        out.append(AuditItem(name, DIFFERS, f"{name}: the keyed option is not the physical answer "
                             f"({len(only_key)} hole(s) only in the key, {len(only_physics)} only in the physics; "
                             f"physical answer: {match or 'no option'})", only_key, only_physics, match))
    # keep the file's order: invalid records were appended first, put everything back in order
    by_name = {}
    for item in report.items + out:
        by_name.setdefault(item.id, []).append(item)
    ordered = []
    for index, record in enumerate(records):
        name = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else f"item {index + 1}"
        ordered.append(by_name[name].pop(0))
    report.items = ordered
    return report


def audit_file(path) -> AuditReport:
    """Audit one file (JSON list or JSONL); InputError when the file cannot be read at all."""
    from ..io import read_records

    records = read_records(path)
    return audit_records(records, str(path))
