"""Conformance: re-simulate benchmark records and compare them with what they recorded (SPEC §6).

No list of known-bad ids lives here: every verdict comes from simulation.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .codes import parse_codes
from .errors import InputError, debugging, describe, internal_error_text
from .holes import SHAPE_PERIOD, Hole, is_canonical_direction, parse_holes
from .io import json_kind, read_records
from .simulate import STATUS_INVALID, STATUS_NOT_REALIZABLE, STATUS_OFF_PAPER, Result, simulate

MATCH, MISMATCH = "match", "mismatch"


@dataclass(frozen=True)
class ItemCheck:
    """The verdict on one record: match, mismatch, not_realizable, off_paper or invalid."""

    id: str
    verdict: str
    reason: str = ""
    missing: tuple[Hole, ...] = ()  # recorded, not produced
    extra: tuple[Hole, ...] = ()  # produced, not recorded
    unfolding: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # (recorded, simulated) when they differ
    inconsistencies: tuple[str, ...] = ()


@dataclass
class FileCheck:
    """All verdicts for one file, in record order."""

    file: str
    items: list[ItemCheck] = field(default_factory=list)
    error: str | None = None

    def ids(self, verdict: str) -> list[str]:
        return [i.id for i in self.items if i.verdict == verdict]

    @property
    def all_match(self) -> bool:
        return self.error is None and all(i.verdict == MATCH for i in self.items)

    def summary(self) -> dict:
        """The `--json` object of `foldsim check`."""
        return {
            "file": self.file,
            "items": len(self.items),
            "match": len(self.ids(MATCH)),
            "mismatch": self.ids(MISMATCH),
            "not_realizable": self.ids(STATUS_NOT_REALIZABLE),
            "off_paper": self.ids(STATUS_OFF_PAPER),
            "invalid": self.ids(STATUS_INVALID),
            "inconsistent": [i.id for i in self.items if i.inconsistencies],
            **({"error": self.error} if self.error else {}),
        }


def record_inconsistencies(record: dict) -> list[str]:
    """Ways a record disagrees with itself or with the canonical encoding (never fatal)."""
    notes = []
    holes = record.get("resultHoles")
    declared = record.get("totalNumberofHoles")
    if isinstance(holes, list) and declared is not None and declared != len(holes):
        notes.append(f"totalNumberofHoles is {describe(declared)} but resultHoles lists {len(holes)}")
    steps, folding = record.get("numberofFoldingSteps"), record.get("foldingTypes")
    if isinstance(folding, list) and steps is not None and steps != len(folding):
        notes.append(f"numberofFoldingSteps is {describe(steps)} but foldingTypes lists {len(folding)}")
    for name in ("initialHoles", "resultHoles"):
        listed = record.get(name)
        for i, hole in enumerate(listed if isinstance(listed, list) else []):
            if isinstance(hole, dict) and isinstance(hole.get("shape"), str) and hole["shape"] in SHAPE_PERIOD:
                if not is_canonical_direction(hole["shape"], hole.get("direction")):
                    notes.append(f"{name}[{i}].direction {describe(hole.get('direction'))} is not the canonical form for a {hole['shape']}")
    return notes


def compare(record: dict, result: Result) -> ItemCheck:
    """Compare one record's resultHoles (multiset, directions by class) and unfoldingTypes."""
    item_id = result.id or "item"
    notes = tuple(record_inconsistencies(record)) if isinstance(record, dict) else ()
    if result.status != "ok":
        return ItemCheck(item_id, result.status, result.reason, inconsistencies=notes)
    try:
        recorded = parse_holes(_required_list(record, "resultHoles"), "resultHoles")
        recorded_codes = recorded_unfolding(_required_list(record, "unfoldingTypes"))
    except InputError as err:
        return ItemCheck(item_id, STATUS_INVALID, str(err.at(item=item_id)), inconsistencies=notes)
    want, got = Counter(h.key for h in recorded), Counter(h.key for h in result.holes)
    by_key = {h.key: h for h in (*recorded, *result.holes)}
    missing = tuple(by_key[k] for k in (want - got).elements())
    extra = tuple(by_key[k] for k in (got - want).elements())
    unfolding = None if recorded_codes == result.unfolding else (recorded_codes, result.unfolding)
    if missing or extra or unfolding:
        parts = []
        if missing or extra:
            parts.append(f"holes differ: {len(missing)} recorded but not simulated, {len(extra)} simulated but not recorded")
        if unfolding:
            parts.append(f"unfoldingTypes {list(recorded_codes)} != simulated {list(result.unfolding)}")
        return ItemCheck(item_id, MISMATCH, "; ".join(parts), missing, extra, unfolding, notes)
    return ItemCheck(item_id, MATCH, inconsistencies=notes)


def _required_list(record: dict, name: str) -> list:
    """A field that must be present and a JSON array (check compares it with the simulation)."""
    value = record.get(name)
    if not isinstance(value, list):
        raise InputError("missing" if name not in record else f"must be a list, got {json_kind(value)}", field=name)
    return value


def recorded_unfolding(codes: list) -> tuple[str, ...]:
    """A record's unfoldingTypes in canonical spelling; InputError names the entry that is no code."""
    try:
        return parse_codes(codes)
    except InputError as err:
        raise InputError(err.message, field=f"unfoldingTypes{err.field.removeprefix('actions')}") from None


def check_item(record: object, result: Result) -> ItemCheck:
    """`compare`, where an unexpected exception is this item's internal error (named and counted as
    invalid), not the end of the batch."""
    try:
        return compare(record, result)
    except Exception as err:  # noqa: BLE001
        if debugging():
            raise
        item_id = result.id or "item"
        return ItemCheck(item_id, STATUS_INVALID, f"{item_id}: {internal_error_text(err)}")


#: the roads to a MentalBlackboard answer: the general engine with the benchmark as a preset (the
#: default: the one engine every family runs on), or the 32-triangle fast path
ENGINES = ("general", "mentalblackboard")


def check_records(records: list, file: str = "<records>", *, engine: str = "general") -> FileCheck:
    """Simulate all records in one batch and compare each with what it recorded."""
    from .mentalblackboard_sheet import engine_simulated

    if engine not in ENGINES:
        raise InputError(f"must be one of {', '.join(ENGINES)}, got {engine!r}", field="--engine")
    results = simulate(records, run=engine_simulated if engine == "general" else None)
    return FileCheck(file, [check_item(rec, res) for rec, res in zip(records, results)])


def check_file(path: str | Path, *, engine: str = "general") -> FileCheck:
    """check_records on a file; a file that cannot be read gives a FileCheck with `error` set."""
    try:
        records = read_records(path)
    except InputError as err:
        return FileCheck(str(path), error=str(err))
    return check_records(records, str(path), engine=engine)
