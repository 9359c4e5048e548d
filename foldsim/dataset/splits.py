"""Splits without leaks, and the overlap between two sets of items, by canonical form.

Every item gets up to two canonical keys (`foldsim.dataset.canonical`):

- its *configuration* key (actions and initial holes up to the 8 symmetries of the square, F/B
  dropped): two items with the same one pose the same problem for every task;
- its *target* key (number of folds and result holes up to the symmetries), for items without
  rotations: a planning task IS its target (any plan that reaches it is an answer), so two planning
  items with the same target are the same task whatever plans generated them, and an item of any
  task that shows a configuration reaching a planning item's target shows an answer to it.

Two items are *linked* when their configuration keys are equal, when their target keys are equal
and at least one of them is a planning item, or when they are the two halves of a generalization
pair (`PFHP_<n>_<attr>` and `..._mod`). Split assignment puts every connected group of linked items
in one split: the group's split is a hash bucket of its smallest primary key (the target key of a
planning item, else the configuration key), so it is deterministic, independent of the order of
the records and, for an item linked to no other, a function of its own canonical key alone: two
datasets generated separately with the same --splits put a shared problem in the same split.
Overlap reports every item of A linked to an item of B.

A benchmark family's record is keyed by its general item under the rectangle's symmetries; a record
family's (`RECORD_FAMILIES`: cube nets, fold and cut) by its family's `split_key`, which is equal for
items that are the same up to the family's symmetries (a net's rotations and reflections, a sheet's).
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..codes import is_rotation
from ..config import Config
from ..errors import InputError, describe
from ..holes import parse_holes
from ..io import read_records, record_name
from .canonical import configuration_keys, target_keys

MOD_SUFFIX = "_mod"
MAX_LISTED_MATCHES = 10
_SPLIT_NAME = re.compile(r"[A-Za-z0-9_.-]+")


# -- split specifications ------------------------------------------------------------------------------


def parse_splits(text: str) -> tuple[tuple[str, float], ...]:
    """("train", 0.8), ... from "train=0.8,validation=0.1,test=0.1"; the fractions must be positive
    and sum to 1. InputError naming --splits otherwise."""
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise InputError("expected name=fraction pairs, e.g. train=0.8,validation=0.1,test=0.1", field="--splits")
    splits = []
    for part in parts:
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or not _SPLIT_NAME.fullmatch(name):
            raise InputError(f"{part!r} is not name=fraction (names: letters, digits, _ . -)", field="--splits")
        try:
            fraction = float(value)
        except ValueError:
            raise InputError(f"{part!r}: {value.strip()!r} is not a number", field="--splits") from None
        if not 0 < fraction <= 1:
            raise InputError(f"{part!r}: a fraction must be in (0, 1]", field="--splits")
        splits.append((name, fraction))
    names = [n for n, _ in splits]
    if len(set(names)) != len(names):
        raise InputError("a split is named twice", field="--splits")
    total = sum(f for _, f in splits)
    if abs(total - 1) > 1e-6:
        raise InputError(f"the fractions sum to {total:g}, not 1", field="--splits")
    return tuple(splits)


# -- the keys of items ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemKeys:
    """What links an item to others: its canonical keys, task, pattern, split and pair."""

    id: str
    task: str
    pattern: str
    split: str | None = None
    configuration: str | None = None
    target: str | None = None
    pair: str | None = None

    @property
    def planning(self) -> bool:
        return self.task == "planning"

    @property
    def primary(self) -> str:
        """The key that names the problem: the target for a planning item, else the configuration."""
        if self.planning and self.target:
            return "target:" + self.target
        return "configuration:" + (self.configuration or "")


def record_task(record: dict) -> str:
    """The task of a record: its `task` field (exports, derived tasks), else its taskType."""
    for key in ("task", "taskType"):
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return "?"


def _fold_count(record: dict, config: Config | None) -> int | None:
    if config is not None:
        return sum(not is_rotation(a) for a in config.actions)
    folds = record.get("numberofFoldingSteps")
    return folds if isinstance(folds, int) and not isinstance(folds, bool) and folds > 0 else None


def item_keys(records: Sequence[object]) -> tuple[list[ItemKeys | None], list[InputError]]:
    """The keys of every record (None for a record that has neither key) and one error per bad
    record. Canonical forms are computed for the whole batch at once."""
    parsed: list[tuple[str, dict, Config | None, tuple | None]] = []
    errors: list[InputError] = []
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            errors.append(InputError(f"a record must be an object, got {type(record).__name__}", item=f"item {index}"))
            parsed.append(None)
            continue
        item = record_name(record, index)
        record_family = _record_family(record)
        if record_family is not None:  # a record family's record: its own key (RecordFamily.split_key)
            try:
                parsed.append((item, record, None, None, record_split_key(record_family, record, item)))
            except InputError as err:
                errors.append(err)
                parsed.append(None)
            continue
        family_item = (record.get("itemRecord") if isinstance(record.get("item"), str) else record.get("item")) \
            if isinstance(record.get("family"), str) else None
        if isinstance(family_item, dict):  # a benchmark family's record: its general item, canonical
            from .canonical import general_item_key  # under the rectangle's symmetries

            try:
                key = general_item_key(family_item)
            except InputError as err:
                errors.append(err.at(item=item))
                parsed.append(None)
                continue
            parsed.append((item, record, None, None, key))
            continue
        config = target = None
        problems = []
        try:
            config = Config.from_record(record, index=index)
        except InputError as err:
            problems.append(err)
        try:
            result_holes = parse_holes(record.get("resultHoles"), "resultHoles") if "resultHoles" in record else None
        except InputError as err:
            problems.append(err.at(item=item))
            result_holes = None
        folds = _fold_count(record, config)
        rotated = config is not None and any(map(is_rotation, config.actions))
        if result_holes is not None and folds is not None and not rotated:
            target = (folds, result_holes)
        # a planning task is its target; any other item is its configuration
        if (config is None and record_task(record) != "planning") or (config is None and target is None):
            errors.append(problems[0] if problems else InputError("no resultHoles to pose a planning task", item=item))
            parsed.append(None)
            continue
        parsed.append((item, record, config, target, None))
    valid = [p for p in parsed if p is not None and p[4] is None]
    configs = [p[2] for p in valid if p[2] is not None]
    targets = [p[3] for p in valid if p[3] is not None]
    config_keys = iter(configuration_keys(configs))
    target_key_list = iter(target_keys([t[0] for t in targets], [t[1] for t in targets]))
    out: list[ItemKeys | None] = []
    for p in parsed:
        if p is None:
            out.append(None)
            continue
        item, record, config, target, family_key = p
        task = record_task(record)
        if family_key is not None:
            split = record.get("split") if isinstance(record.get("split"), str) else None
            level = record.get("level")  # words from the data: any value, printed short and safely
            out.append(ItemKeys(item, task, f"{record['family']} {level if isinstance(level, str) else describe(level)}",
                                split, family_key, None,
                                str(record["item"]) if isinstance(record.get("item"), str) else None))
            continue
        split = record.get("split") if isinstance(record.get("split"), str) else None
        pair = item.removesuffix(MOD_SUFFIX) if task == "generalization" else None
        pattern = config.pattern if config is not None else "F" * target[0]
        out.append(ItemKeys(item, task, pattern, split,
                            next(config_keys) if config is not None else None,
                            next(target_key_list) if target is not None else None, pair))
    return out, errors


def _record_family(record: dict):
    """The record family (`RECORD_FAMILIES`) a record names, or None."""
    from ..families.registry import RECORD_FAMILIES

    name = record.get("family")
    return RECORD_FAMILIES.get(name) if isinstance(name, str) else None


def record_split_key(fam, record: dict, item: str) -> str:
    """A record family's key of a record (`RecordFamily.split_key`: equal for items equal under the
    family's symmetries), prefixed with the family's name; InputError naming the item when the record
    cannot be keyed (a family's own failure on it is one internal-error line; FOLDSIM_DEBUG=1 raises)."""
    from ..errors import debugging, internal_error_text

    try:
        key = fam.split_key(record)
    except InputError as err:
        raise err.at(item=item) from None
    except Exception as err:  # noqa: BLE001  (one record's failure is that record's)
        if debugging():
            raise
        raise InputError(internal_error_text(err), item=item) from None
    if not isinstance(key, str):
        raise InputError(f"{fam.name}'s split key is {type(key).__name__}, not a string", item=item)
    return f"{fam.name}:{key}"


# -- linking and split assignment ----------------------------------------------------------------------


class _UnionFind:
    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, members: Iterable[int]) -> None:
        members = list(members)
        for other in members[1:]:
            a, b = self.find(members[0]), self.find(other)
            if a != b:
                self.parent[max(a, b)] = min(a, b)


def link_sets(keys: Sequence[ItemKeys]) -> list[list[int]]:
    """The sets of item indices that are linked directly (see the module docstring)."""
    by_config, by_target, by_pair = defaultdict(list), defaultdict(list), defaultdict(list)
    for i, k in enumerate(keys):
        if k.configuration is not None:
            by_config[k.configuration].append(i)
        if k.target is not None:
            by_target[k.target].append(i)
        if k.pair is not None:
            by_pair[k.pair].append(i)
    linked = [m for m in by_config.values() if len(m) > 1] + [m for m in by_pair.values() if len(m) > 1]
    linked += [m for m in by_target.values() if len(m) > 1 and any(keys[i].planning for i in m)]
    return linked


def components(keys: Sequence[ItemKeys]) -> list[int]:
    """The connected group of every item (an index of its group's first member)."""
    groups = _UnionFind(len(keys))
    for members in link_sets(keys):
        groups.union(members)
    return [groups.find(i) for i in range(len(keys))]


def bucket(key: str) -> float:
    """A uniform number in [0, 1) from a key: the first 8 bytes of its SHA-256."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") / 2**64


def split_of(unit: float, splits: Sequence[tuple[str, float]]) -> str:
    """The split whose cumulative fraction range holds `unit`."""
    total = 0.0
    for name, fraction in splits:
        total += fraction
        if unit < total:
            return name
    return splits[-1][0]


def assign_splits(keys: Sequence[ItemKeys], splits: Sequence[tuple[str, float]]) -> list[str]:
    """The split of every item: one per connected group, from the bucket of the group's smallest
    primary key."""
    group = components(keys)
    representative: dict[int, str] = {}
    for i, k in enumerate(keys):
        if group[i] not in representative or k.primary < representative[group[i]]:
            representative[group[i]] = k.primary
    return [split_of(bucket(representative[group[i]]), splits) for i in range(len(keys))]


def add_splits(records: Sequence[dict], splits: Sequence[tuple[str, float]]) -> None:
    """Set `split` on every record. Generated records always have keys; a record without any is a
    bug, not an input problem."""
    keys, errors = item_keys(records)
    if errors:
        raise RuntimeError(f"cannot assign splits: {errors[0]}")
    for record, name in zip(records, assign_splits(keys, splits)):
        record["split"] = name


# -- overlap -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Overlap:
    """An item of A linked to items of B: how (configuration or target) and to which."""

    id: str
    task: str
    pattern: str
    split: str | None
    kind: str  # "configuration", "target", or "configuration and target"
    key: str
    matches: tuple[str, ...]  # ids in B (all of them)
    matched_splits: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"id": self.id, "task": self.task, "pattern": self.pattern, "split": self.split, "kind": self.kind,
                "key": self.key, "match_count": len(self.matches), "matches": list(self.matches[:MAX_LISTED_MATCHES]),
                "matched_splits": list(self.matched_splits)}


@dataclass
class OverlapReport:
    """Every item of A whose problem occurs in B, with counts per task and per pattern."""

    a: str
    b: str
    items: list[ItemKeys]  # the readable items of A
    compared: int  # readable items of B
    overlaps: list[Overlap]
    errors: list[str] = field(default_factory=list)  # one line per unreadable item, file named

    def counts(self, attribute: str) -> dict[str, dict[str, int]]:
        overlapping = defaultdict(int)
        for o in self.overlaps:
            overlapping[getattr(o, attribute)] += 1
        totals = defaultdict(int)
        for k in self.items:
            totals[getattr(k, attribute)] += 1
        return {name: {"items": totals[name], "overlapping": overlapping[name]} for name in sorted(totals)}

    def summary(self) -> dict:
        return {"a": self.a, "b": self.b, "items": len(self.items), "compared_with": self.compared,
                "overlapping": len(self.overlaps), "by_task": self.counts("task"), "by_pattern": self.counts("pattern"),
                "overlaps": [o.to_dict() for o in self.overlaps], "bad_items": self.errors}


def find_overlaps(a: Sequence[ItemKeys], b: Sequence[ItemKeys]) -> list[Overlap]:
    """The items of `a` linked to some item of `b`: same configuration key, or same target key
    with a planning item on either side; `matches` lists the items of `b` linked either way."""
    by_config, by_target, planning_targets = defaultdict(list), defaultdict(list), set()
    for k in b:
        if k.configuration is not None:
            by_config[k.configuration].append(k)
        if k.target is not None:
            by_target[k.target].append(k)
            if k.planning:
                planning_targets.add(k.target)
    out = []
    for k in a:
        by_kind = {}
        if k.configuration is not None and k.configuration in by_config:
            by_kind["configuration"] = (k.configuration, by_config[k.configuration])
        if k.target is not None and k.target in by_target and (k.planning or k.target in planning_targets):
            by_kind["target"] = (k.target, [m for m in by_target[k.target] if k.planning or m.planning])
        if not by_kind:
            continue
        found = list({id(m): m for _, members in by_kind.values() for m in members}.values())
        splits = tuple(sorted({m.split for m in found if m.split is not None}))
        kind = next(iter(by_kind))
        out.append(Overlap(k.id, k.task, k.pattern, k.split, " and ".join(by_kind), by_kind[kind][0],
                           tuple(m.id for m in found), splits))
    return out


def _readable(path: str | Path) -> tuple[list[ItemKeys], list[str]]:
    """The keyed items of a file and one error line per bad item (InputError if unreadable)."""
    keys, errors = item_keys(read_records(path))
    return [k for k in keys if k is not None], [f"{path}: {e}" for e in errors]


def overlap_files(path_a: str | Path, path_b: str | Path) -> OverlapReport:
    """The items of file A whose problem occurs in file B."""
    a, errors_a = _readable(path_a)
    b, errors_b = _readable(path_b)
    return OverlapReport(str(path_a), str(path_b), a, len(b), find_overlaps(a, b), errors_a + errors_b)


def split_overlaps(path: str | Path) -> OverlapReport:
    """Within one file: the items of each split whose problem occurs in another split (items with
    no `split` field form a split of their own, named "")."""
    items, errors = _readable(path)
    by_split = defaultdict(list)
    for k in items:
        by_split[k.split or ""].append(k)
    overlaps = []
    for name, members in by_split.items():
        others = [k for other, group in by_split.items() if other != name for k in group]
        overlaps += find_overlaps(members, others)
    order = {k.id: i for i, k in enumerate(items)}
    overlaps.sort(key=lambda o: order.get(o.id, 0))
    return OverlapReport(str(path), "its other splits", items, len(items), overlaps, errors)
