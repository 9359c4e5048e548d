"""The configuration space of a rule set, enumerated on the device (SPEC §5), and every punch of
every configuration at once.

Enumeration extends prefixes level by level: the rows of a pattern are the realizable rows of its
prefix times the alphabet of its last position, and one kernel call per level (all patterns
together, in fixed-size chunks) keeps the rows whose folds are all realizable. A failed fold
freezes a row in the kernel, so an unrealizable prefix can never become realizable again and
dropping it early loses nothing; a rotation cannot fail (SPEC §3), so rows that end in one skip
the kernel. The grammar predicate is applied to whole rows at the end.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import kernels as K
from .batching import run_chunked
from .codes import action_code
from .errors import InputError
from .mentalblackboard_sheet import SHEET
from .rules import GROUPS, PHYSICAL, RuleSet, group_of, patterns_of_group

WIDTH = 6  # action columns: the longest benchmark pattern, so every bulk call shares one compilation

Progress = Callable[[int], None]  # called with the number of rows just finished

#: terse code of every action int ("" for NOOP), to build code strings without a Python loop
CODE_OF_ACTION = np.array([""] + [action_code(a) for a in range(1, K.actions.N_ACTION_CODES)])


def pad_actions(actions: np.ndarray, width: int = WIDTH) -> np.ndarray:
    """int32[N, max(width, W)]: action rows right-padded with the no-op."""
    actions = np.asarray(actions, dtype=np.int32)
    actions = actions.reshape(len(actions), -1) if actions.size else actions.reshape(len(actions), 0)
    if actions.shape[1] >= width:
        return actions
    return np.concatenate([actions, np.full((len(actions), width - actions.shape[1]), K.actions.NOOP, np.int32)], 1)


def fold_rows(actions: np.ndarray, *, on_progress: Progress | None = None) -> K.Folded:
    """`fold_batch` over any number of action rows (NumPy in and out)."""
    return run_chunked(K.fold_batch, [pad_actions(actions)], [K.actions.NOOP], on_chunk=on_progress)


def realizable(actions: np.ndarray, *, on_progress: Progress | None = None) -> np.ndarray:
    """bool[N]: every fold of the row is realizable (SPEC §3)."""
    if len(actions) == 0:
        return np.zeros(0, dtype=bool)
    return fold_rows(actions, on_progress=on_progress).status.code == K.OK


# -- the table of configurations -----------------------------------------------------------------


@dataclass(frozen=True)
class ActionTable:
    """Configurations as columns: kernel action rows (NOOP-padded) and their action patterns."""

    actions: np.ndarray  # int32[N, WIDTH]
    pattern: np.ndarray  # str[N], e.g. "FRF"

    def __len__(self) -> int:
        return len(self.actions)

    def where(self, mask: np.ndarray) -> "ActionTable":
        return ActionTable(self.actions[mask], self.pattern[mask])

    def select(self, pattern: str | None = None, group: str | None = None) -> "ActionTable":
        """The rows of one pattern and/or one structure group."""
        mask = np.ones(len(self), dtype=bool)
        if pattern is not None:
            mask &= self.pattern == pattern
        if group is not None:
            mask &= np.isin(self.pattern, patterns_of_group(group, tuple(np.unique(self.pattern))))
        return self.where(mask)

    def front_only(self) -> "ActionTable":
        """The rows whose folds are all -F (what the reference's structure groups list)."""
        return self.where(~((self.actions >= K.actions.FIRST_FOLD_BACK) & (self.actions < K.actions.FIRST_ROTATION)).any(1))

    def groups(self) -> np.ndarray:
        """str[N]: the structure group of each row."""
        names = {p: group_of(p) for p in np.unique(self.pattern)}
        return np.array([names[p] for p in self.pattern]) if len(self) else np.zeros(0, dtype=str)

    def codes(self) -> np.ndarray:
        """str[N]: each row as comma-joined terse codes, e.g. "D1-F,H1-F,R-90"."""
        text = CODE_OF_ACTION[self.actions[:, 0]]
        for column in self.actions.T[1:]:
            joined = np.char.add(np.char.add(text, ","), CODE_OF_ACTION[column])
            text = np.where(column != K.actions.NOOP, joined, text)
        return text.astype(f"<U{max(int(np.char.str_len(text).max(initial=1)), 1)}")

    def counts(self) -> dict[str, int]:
        """Rows per pattern, in order of first appearance."""
        names, first, counts = np.unique(self.pattern, return_index=True, return_counts=True)
        return {str(names[i]): int(counts[i]) for i in np.argsort(first)}

    def npz_bytes(self) -> bytes:
        """The table as a columnar .npz: `actions` int8[N, 6], `codes`, `pattern` and `group`
        fixed-width strings."""
        buffer = io.BytesIO()
        np.savez_compressed(buffer, actions=self.actions.astype(np.int8), codes=self.codes(),
                            pattern=self.pattern.astype(str), group=self.groups().astype(str))
        return buffer.getvalue()


def row_keys(actions: np.ndarray) -> np.ndarray:
    """int64[N]: one integer per action row (base N_ACTION_CODES digits), for set operations."""
    weights = K.actions.N_ACTION_CODES ** np.arange(actions.shape[1], dtype=np.int64)
    return actions.astype(np.int64) @ weights


def members(table: ActionTable, space: ActionTable) -> np.ndarray:
    """bool[len(table)]: which rows of `table` are configurations of `space`."""
    return np.isin(row_keys(pad_actions(table.actions)), row_keys(pad_actions(space.actions)))


# -- enumeration ---------------------------------------------------------------------------------


def _extend(prefixes: np.ndarray, alphabet: tuple[int, ...]) -> np.ndarray:
    """Every prefix row followed by every action of `alphabet` (a vectorized product)."""
    last = np.tile(np.asarray(alphabet, dtype=np.int32), len(prefixes))
    return np.concatenate([np.repeat(prefixes, len(alphabet), axis=0), last[:, None]], axis=1)


def _alphabets(rules: RuleSet, pattern: str) -> tuple[tuple[int, ...], ...]:
    """The per-position alphabets of a pattern; they also name its node in the prefix tree."""
    return tuple(tuple(int(a) for a in rules.alphabet(pattern, i)) for i in range(len(pattern)))


def pattern_rows(rules: RuleSet, patterns: Sequence[str], *, on_progress: Progress | None = None) -> dict[str, np.ndarray]:
    """Per pattern, its rows (int32[N, len(pattern)]) allowed by the alphabets and, when the rule set
    says so, realizable; the grammar is not applied yet.

    A node of the prefix tree is a tuple of per-position alphabets, so prefixes are shared exactly
    when their alphabets agree. Each level runs one (chunked) kernel call for all its nodes that
    end in a fold. `on_progress` counts the rows folded.
    """
    keys = {p: _alphabets(rules, p) for p in patterns}
    nodes = {key[:k] for key in keys.values() for k in range(1, len(key) + 1)}
    rows: dict[tuple, np.ndarray] = {(): np.zeros((1, 0), dtype=np.int32)}
    for level in range(1, max((len(k) for k in nodes), default=0) + 1):
        level_nodes = sorted(n for n in nodes if len(n) == level)
        candidates = [_extend(rows[n[:-1]], n[-1]) for n in level_nodes]
        # only a fold can fail (SPEC §3): a row ending in a rotation is as realizable as its prefix
        folding = [i for i, n in enumerate(level_nodes) if min(n[-1]) < K.actions.FIRST_ROTATION]
        if rules.realizable_only and folding:
            keep = realizable(np.concatenate([candidates[i] for i in folding]), on_progress=on_progress)
            keep = np.split(keep, np.cumsum([len(candidates[i]) for i in folding])[:-1])
            for i, k in zip(folding, keep):
                candidates[i] = candidates[i][k]
        rows.update(zip(level_nodes, candidates))
    return {p: rows[key] for p, key in keys.items()}


def enumerate_space(rules: RuleSet, patterns: Sequence[str] | None = None, *,
                    on_progress: Progress | None = None) -> ActionTable:
    """Every configuration of `rules` (optionally only some of its patterns), in pattern order and,
    within a pattern, in lexicographic order of the action ints."""
    patterns = tuple(rules.patterns if patterns is None else patterns)
    unknown = [p for p in patterns if p not in rules.patterns]
    if unknown:
        raise InputError(f"{unknown[0]!r} is not a pattern of rule set {rules.name!r} (expected one of "
                         f"{', '.join(rules.patterns)})", field="pattern")
    by_pattern = pattern_rows(rules, patterns, on_progress=on_progress)
    actions, labels = [], []
    for p in patterns:
        padded = pad_actions(by_pattern[p])
        padded = padded[rules.grammar(padded)]
        actions.append(padded)
        labels.append(np.full(len(padded), p))
    if not actions:
        return ActionTable(np.zeros((0, WIDTH), np.int32), np.zeros(0, dtype="<U6"))
    return ActionTable(np.concatenate(actions), np.concatenate(labels).astype("<U6"))


def configurations(rules: RuleSet, pattern: str | None = None, group: str | None = None, *,
                   on_progress: Progress | None = None) -> ActionTable:
    """The configurations of `rules`, optionally of one pattern and/or one structure group (see
    `foldsim.rules.GROUPS`); only the patterns asked for are enumerated."""
    if group is not None and group not in GROUPS:
        raise InputError(f"unknown structure group {group!r} (expected one of {', '.join(GROUPS)})", field="group")
    if pattern is not None and pattern not in rules.patterns:
        raise InputError(f"{pattern!r} is not a pattern of rule set {rules.name!r} (expected one of "
                         f"{', '.join(rules.patterns)})", field="pattern")
    patterns = [p for p in rules.patterns if (pattern is None or p == pattern) and (group is None or group_of(p) == group)]
    return enumerate_space(rules, patterns, on_progress=on_progress)


@dataclass(frozen=True)
class PhysicalCheck:
    """Which configurations of a table are physical: realizable when folded on their own, and
    members of the enumerated physical space (which also applies the physical rule's alphabets)."""

    realizable: np.ndarray  # bool[N]
    member: np.ndarray  # bool[N]

    @property
    def physical(self) -> np.ndarray:
        return self.realizable & self.member


def physical_check(table: ActionTable, physical_space: ActionTable | None = None, *,
                   on_progress: Progress | None = None) -> PhysicalCheck:
    """Simulate every row of `table` and look it up in the physical space (enumerated if not given)."""
    space = physical_space if physical_space is not None else enumerate_space(PHYSICAL, on_progress=on_progress)
    return PhysicalCheck(realizable(table.actions, on_progress=on_progress), members(table, space))


# -- every punch of every configuration -----------------------------------------------------------


class PunchTable(NamedTuple):
    """What a punch at every grid position of every configuration makes (SPEC §4).

    `holes[b, L, R]` is -1 when a punch at grid index L of row b makes no hole at grid index R;
    otherwise it is the direction map m of that hole: a punch of direction q (quarter turns) gives
    direction `(m + q) % 4` for m < 4 and `(m - q) % 4` for m >= 4 (the layer is mirrored). So
    `hits` is the count tensor of result holes per (punch location, result location), and
    `hits[b, L].sum()` the number of layers at L. Rows that are not realizable have no holes.
    """

    status: np.ndarray  # int32[B]: kernel status code (foldsim.kernels.state)
    holes: np.ndarray  # int8[B, 32, 32]

    @property
    def hits(self) -> np.ndarray:
        """bool[B, 32, 32]: a punch at L makes a hole at R."""
        return self.holes >= 0

    def directions(self, quarter: int) -> np.ndarray:
        """int8[B, 32, 32]: result directions of punches of direction `quarter` (-1 where no hole)."""
        turned = np.where(self.holes >= 4, self.holes - quarter, self.holes + quarter) % 4
        return np.where(self.holes >= 0, turned, -1).astype(np.int8)


def punch_everywhere(actions: np.ndarray, *, on_progress: Progress | None = None) -> PunchTable:
    """Fold every row once, then scatter each layer t to (L = where it lies, R = where its hole
    lands): one kernel call (chunked) and one flat NumPy scatter, no per-row Python."""
    folded = fold_rows(actions, on_progress=on_progress)
    status = folded.status.code
    n, cells = len(status), SHEET.n_triangles
    valid = (status == K.OK)[:, None] & (folded.grid_index >= 0)
    flat = (np.arange(n)[:, None] * cells + folded.grid_index) * cells + folded.unfolded.location
    direction_map = folded.unfolded.offset % 4 + 4 * (folded.unfolded.sign < 0)
    holes = np.full(n * cells * cells, -1, dtype=np.int8)
    holes[flat[valid]] = direction_map[valid]
    return PunchTable(status, holes.reshape(n, cells, cells))


# -- the `foldsim enumerate` report ----------------------------------------------------------------


@dataclass(frozen=True)
class EnumerationReport:
    """A rule set's configurations and, for a rule set that is not realizable by construction,
    the check that every configuration is physical (with the physical space's own counts)."""

    rules: RuleSet
    table: ActionTable
    check: PhysicalCheck | None = None
    physical_counts: dict[str, int] | None = None

    def not_physical(self) -> list[dict]:
        """Each configuration that is not physical, and why."""
        if self.check is None:
            return []
        bad = np.flatnonzero(~self.check.physical)
        codes = self.table.codes()
        return [{"codes": str(codes[i]),
                 "reason": "a fold is not realizable" if not self.check.realizable[i] else "outside the physical rule"}
                for i in bad]

    def summary(self) -> dict:
        """The `--json` object."""
        out = {"rules": self.rules.name, "total": len(self.table), "by_pattern": self.table.counts()}
        if self.check is not None:
            out["all_physical"] = bool(self.check.physical.all())
            out["not_physical"] = self.not_physical()
            out["physical_by_pattern"] = self.physical_counts
        return out


def enumeration_report(rules_name: str, pattern: str | None = None, *, on_progress: Progress | None = None) -> EnumerationReport:
    """Enumerate a rule set by name (optionally one pattern); check a grammar-only rule set against
    the physical space. InputError for an unknown rule set or pattern."""
    from .rules import rule_set

    rules = rule_set(rules_name)
    table = configurations(rules, pattern, on_progress=on_progress)
    if rules.realizable_only:
        return EnumerationReport(rules, table)
    physical = configurations(PHYSICAL, pattern if pattern in PHYSICAL.patterns else None, on_progress=on_progress)
    return EnumerationReport(rules, table, physical_check(table, physical, on_progress=on_progress), physical.counts())


def render_enumeration(report: EnumerationReport, console) -> None:
    """Per-pattern counts, side by side with the physical space (when checked) and the paper."""
    from rich.table import Table

    from .rules import PAPER_TABLE8_NOTE, PAPER_TABLE8_TOTAL

    counts = report.table.counts()
    side = report.physical_counts
    table = Table(title=f"{report.rules.name}: {report.rules.summary}", title_justify="left")
    table.add_column("pattern")
    table.add_column("group")
    table.add_column(report.rules.name, justify="right")
    if side is not None:
        table.add_column("physical", justify="right")
    for pattern, count in counts.items():
        table.add_row(pattern, group_of(pattern), f"{count:,}", *([f"{side.get(pattern, 0):,}"] if side is not None else []))
    total = [f"{len(report.table):,}", *([f"{sum(side.values()):,}"] if side is not None else [])]
    table.add_row("[bold]total[/]", "", *[f"[bold]{t}[/]" for t in total], end_section=True)
    table.add_row("paper Table 8", "", f"{PAPER_TABLE8_TOTAL:,} (not simulated)", *([""] if side is not None else []))
    console.print(table)
    console.print(f"[dim]{PAPER_TABLE8_NOTE}[/]")
    if report.check is not None:
        bad = report.not_physical()
        verdict = "[green]all physical[/]" if not bad else f"[red]{len(bad)} not physical[/]"
        console.print(f"{report.rules.name}: {len(report.table):,} configurations simulated: {verdict}")
        for item in bad[:20]:
            console.print(f"  {item['codes']}: {item['reason']}", markup=False)
