"""Nets of unit squares folded into a cube (issue 25; docs/nets.md): the model, its reader and the
engine's host side.

A `Net` is a set of unit squares (cells (x, y) of the integer grid, x right, y up, seen from the
printed side: any polyomino) joined by hinges along shared edges, each face carrying a label and an
oriented `Pattern`. The hinges form a tree (a forest when the net is in pieces): given, or by default
the breadth-first spanning tree of the cells' edge adjacency from the root (face 0), neighbours
taken in the order +x, +y, -x, -y, leaving out any `cuts`. Every hinge turns a quarter turn toward
the unprinted side by default (the printed side ends outside); a hinge may also stay flat (0) or
turn the other way (-1), so boxes and other solids need no new model.

Folding is exact (`foldsim.kernels.nets`): integer rotations, composed along the hinge tree from the
root. A net folds into the cube iff it has six faces, all joined, each landing printed side out on a
different side of the cube. Otherwise the first of these is its reason:

- `count`: not six faces;
- `disconnected`: the hinges do not join every face to the root;
- `off_cube`: a face does not land on the cube printed side out (only a hinge that is not a +1
  quarter turn can do this);
- `folds_into`: two faces that touch in the flat net (along an edge cut or left unhinged) land on
  the same side: one folds into the other (four faces around a grid corner, while only three
  meet at a cube corner);
- `two_on_one_side`: two other faces land on the same side (a strip wrapping around, two flaps
  meeting), leaving a side open.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InputError, describe
from .io import item_label
from .kernels import nets as K

#: bounds a net read from data must keep (refused before any work)
MAX_NET_CELLS = 64
MAX_COORDINATE = 128
MAX_LABEL_CHARS = 40
HINGE_TURNS = (-1, 0, 1)
SIDE_NAMES = K.SIDE_NAMES
VIEW_NAMES = K.VIEW_NAMES
REASONS = K.REASONS
REASON_TEXT = {
    "valid": "folds into a cube",
    "count": "a cube net has exactly 6 faces",
    "disconnected": "the hinges do not join every face",
    "off_cube": "a face does not land on the cube printed side out",
    "folds_into": "a face folds into a face it touches in the flat net",
    "two_on_one_side": "two faces land on one side of the cube",
}
#: a flat step between cells, in the order the default spanning tree tries neighbours
STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1))


def _whole(value: object, low: int, high: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"must be a whole number from {low} to {high}, got {describe(value)}", field=field)
    return value


@dataclass(frozen=True)
class Pattern:
    """How a face's pattern is printed: `turn` quarter turns counter-clockwise (seen from the
    printed side) from upright (its up along the net's +y), and `mirror`: the pattern reads
    mirror-reversed from the printed side (as a texture printed on the other side, seen through)."""

    turn: int = 0
    mirror: bool = False

    def __post_init__(self) -> None:
        _whole(self.turn, -(10**6), 10**6, "turn")
        object.__setattr__(self, "turn", self.turn % 4)
        if not isinstance(self.mirror, bool):
            raise InputError(f"must be true or false, got {describe(self.mirror)}", field="mirror")


@dataclass(frozen=True)
class Hinge:
    """A hinge between faces `a` and `b` (indices) along their shared edge, turned `turn` quarter
    turns toward the unprinted side when folded (1: printed side out; 0: flat; -1: inward)."""

    a: int
    b: int
    turn: int = 1


@dataclass(frozen=True)
class Net:
    """A net: faces (cells), their labels and patterns, and the hinge tree (see the module doc).
    Checked when built (InputError naming the field); `make_net` adds the defaults (labels, upright
    patterns, the spanning tree) and `net_from_record` reads data."""

    cells: tuple[tuple[int, int], ...]
    labels: tuple[str, ...]
    patterns: tuple[Pattern, ...]
    hinges: tuple[Hinge, ...]
    id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", checked_cells(self.cells))
        for name in ("labels", "patterns", "hinges"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _check_faces(self)

    def __len__(self) -> int:
        return len(self.cells)

    def hinge_tree(self) -> tuple[list[int], list[int]]:
        """(parent, turn) per face: breadth-first from the root over the hinges (parent -1 for the
        root and for faces the hinges do not reach)."""
        links: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(self.cells))}
        for hinge in self.hinges:
            links[hinge.a].append((hinge.b, hinge.turn))
            links[hinge.b].append((hinge.a, hinge.turn))
        parent, turn = [-1] * len(self.cells), [1] * len(self.cells)
        seen, queue = {0}, deque([0])
        while queue:
            face = queue.popleft()
            for other, hinge_turn in links[face]:
                if other not in seen:
                    seen.add(other)
                    parent[other], turn[other] = face, hinge_turn
                    queue.append(other)
        return parent, turn


def flat_neighbours(cells: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Index pairs (i < j) of cells that share an edge."""
    where = {cell: i for i, cell in enumerate(cells)}
    pairs = []
    for i, (x, y) in enumerate(cells):
        for dx, dy in STEPS[:2]:
            j = where.get((x + dx, y + dy))
            if j is not None:
                pairs.append((min(i, j), max(i, j)))
    return sorted(pairs)


def spanning_hinges(cells: Sequence[tuple[int, int]], cuts: Iterable[tuple[int, int]] = ()) -> tuple[Hinge, ...]:
    """The default hinges: breadth-first spanning forest of the edge adjacency (minus `cuts`), from
    face 0 and then from each face not yet reached, in index order; neighbours in STEPS order."""
    where = {cell: i for i, cell in enumerate(cells)}
    cut = {frozenset(pair) for pair in cuts}
    seen: set[int] = set()
    hinges = []
    for start in range(len(cells)):
        if start in seen:
            continue
        seen.add(start)
        queue = deque([start])
        while queue:
            face = queue.popleft()
            x, y = cells[face]
            for dx, dy in STEPS:
                other = where.get((x + dx, y + dy))
                if other is not None and other not in seen and frozenset((face, other)) not in cut:
                    seen.add(other)
                    hinges.append(Hinge(face, other))
                    queue.append(other)
    return tuple(hinges)


def _is_turn(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in HINGE_TURNS


def _check_hinges(cells: Sequence[tuple[int, int]], hinges: Sequence[Hinge], field: str) -> None:
    """Hinges join flat neighbours, once each, and form no loop (a loop of hinges cannot fold)."""
    neighbours = set(flat_neighbours(cells))
    root = list(range(len(cells)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for k, hinge in enumerate(hinges):
        where = f"{field}[{k}]"
        for name in ("a", "b"):
            _whole(getattr(hinge, name), 0, len(cells) - 1, f"{where}.{name}")
        if not _is_turn(hinge.turn):
            raise InputError(f"must be one of {HINGE_TURNS}, got {describe(hinge.turn)}", field=f"{where}.turn")
        if (min(hinge.a, hinge.b), max(hinge.a, hinge.b)) not in neighbours:
            raise InputError(f"faces {hinge.a} and {hinge.b} do not share an edge", field=where)
        ra, rb = find(hinge.a), find(hinge.b)
        if ra == rb:
            raise InputError("closes a loop of hinges (a hinge tree has none; cut one)", field=where)
        root[ra] = rb


def make_net(cells: Iterable, labels: Iterable[str] | None = None, patterns: Iterable[Pattern] | None = None, *,
             hinges: Iterable | None = None, cuts: Iterable | None = None, id: str | None = None) -> Net:
    """A checked Net. `cells`: (x, y) pairs, face 0 the root; `labels` default "1".."n"; `patterns`
    default upright; `hinges` (Hinge or (a, b[, turn])) or `cuts` ((a, b) flat neighbours left
    unhinged; default none): at most one of the two. InputError names the field at fault."""
    cells = checked_cells(cells)
    labels = tuple(str(i + 1) for i in range(len(cells))) if labels is None else tuple(labels)
    patterns = tuple(Pattern() for _ in cells) if patterns is None else tuple(patterns)
    if hinges is not None and cuts is not None:
        raise InputError("give hinges or cuts, not both", field="hinges")
    if hinges is None:
        cut_pairs = _pairs(cuts or (), len(cells), "cuts")
        neighbours = set(flat_neighbours(cells))
        for k, (a, b) in enumerate(cut_pairs):
            if (min(a, b), max(a, b)) not in neighbours:
                raise InputError(f"faces {a} and {b} do not share an edge", field=f"cuts[{k}]")
        tree = spanning_hinges(cells, cut_pairs)
    else:
        given = list(hinges)
        if len(given) > MAX_NET_CELLS:
            raise InputError(f"must hold at most {MAX_NET_CELLS} hinges, got {len(given)}", field="hinges")
        tree = tuple(h if isinstance(h, Hinge) else Hinge(*_pairs([h], len(cells), f"hinges[{k}]", turn=True,
                                                                  single=True)[0])
                     for k, h in enumerate(given))
    return Net(cells, labels, patterns, tree, id)


def checked_cells(cells: Iterable) -> tuple[tuple[int, int], ...]:
    """Cells as (x, y) int pairs: 1 to MAX_NET_CELLS of them, coordinates within MAX_COORDINATE,
    no repeats (InputError naming the cell otherwise)."""
    cells = tuple(cells)
    if not cells or len(cells) > MAX_NET_CELLS:
        raise InputError(f"must hold 1 to {MAX_NET_CELLS} cells, got {len(cells)}", field="cells")
    parsed: dict[tuple[int, int], int] = {}
    for i, cell in enumerate(cells):
        if not isinstance(cell, (tuple, list)) or len(cell) != 2:
            raise InputError(f"must be a pair [x, y], got {describe(cell)}", field=f"cells[{i}]")
        pair = (_whole(cell[0], -MAX_COORDINATE, MAX_COORDINATE, f"cells[{i}].x"),
                _whole(cell[1], -MAX_COORDINATE, MAX_COORDINATE, f"cells[{i}].y"))
        if pair in parsed:
            raise InputError(f"repeats cell {list(pair)} of cells[{parsed[pair]}]", field=f"cells[{i}]")
        parsed[pair] = i
    return tuple(parsed)


def _check_faces(net: Net) -> None:
    """Labels, patterns, hinges and id of a net whose cells are checked (Net.__post_init__)."""
    n = len(net.cells)
    if len(net.labels) != n:
        raise InputError(f"must hold one label per cell ({n}), got {len(net.labels)}", field="labels")
    first: dict[str, int] = {}
    for i, label in enumerate(net.labels):
        if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL_CHARS:
            raise InputError(f"must be a non-empty name of at most {MAX_LABEL_CHARS} characters, got {describe(label)}",
                             field=f"labels[{i}]")
        if label in first:
            raise InputError(f"repeats the label of labels[{first[label]}]", field=f"labels[{i}]")
        first[label] = i
    if len(net.patterns) != n:
        raise InputError(f"must hold one pattern per cell ({n}), got {len(net.patterns)}", field="patterns")
    for i, pattern in enumerate(net.patterns):
        if not isinstance(pattern, Pattern):
            raise InputError(f"must be a Pattern, got {describe(pattern)}", field=f"patterns[{i}]")
    if len(net.hinges) > MAX_NET_CELLS:
        raise InputError(f"must hold at most {MAX_NET_CELLS} hinges, got {len(net.hinges)}", field="hinges")
    for k, hinge in enumerate(net.hinges):
        if not isinstance(hinge, Hinge):
            raise InputError(f"must be a Hinge, got {describe(hinge)}", field=f"hinges[{k}]")
    _check_hinges(net.cells, net.hinges, "hinges")
    if net.id is not None and (not isinstance(net.id, str) or len(net.id) > 200):
        raise InputError(f"must be a string of at most 200 characters, got {describe(net.id)}", field="id")


def _pairs(entries: Iterable, faces: int, field: str, *, turn: bool = False,
           single: bool = False) -> list[tuple[int, ...]]:
    """(a, b) (or (a, b, turn) when `turn`) index pairs from lists, checked; errors name
    field[k] (or `field` itself when `single`: one entry, already indexed by the caller)."""
    out = []
    for k, entry in enumerate(entries):
        where = field if single else f"{field}[{k}]"
        sizes = (2, 3) if turn else (2,)
        if not isinstance(entry, (tuple, list)) or len(entry) not in sizes:
            shape = "[a, b] or [a, b, turn]" if turn else "[a, b]"
            raise InputError(f"must be a pair of face indices {shape}, got {describe(entry)}", field=where)
        a = _whole(entry[0], 0, faces - 1, where)
        b = _whole(entry[1], 0, faces - 1, where)
        extra = entry[2:]
        if extra and not _is_turn(extra[0]):
            raise InputError(f"must be one of {HINGE_TURNS}, got {describe(extra[0])}", field=f"{where}.turn")
        out.append((a, b, *extra))
    return out


def rooted_at(net: Net, face: int) -> Net:
    """The same net with `face` as its root (face 0; the others keep their order after it), hinges
    carried over, so its cube is built under that face (STARE folds from any base face)."""
    _whole(face, 0, len(net) - 1, "root")
    order = [face, *(i for i in range(len(net)) if i != face)]
    new_index = {old: new for new, old in enumerate(order)}
    return Net(tuple(net.cells[i] for i in order), tuple(net.labels[i] for i in order),
               tuple(net.patterns[i] for i in order),
               tuple(Hinge(new_index[h.a], new_index[h.b], h.turn) for h in net.hinges), net.id)


def net_from_rows(rows: Sequence[str], *, id: str | None = None, cuts: Iterable | None = None) -> Net:
    """A net drawn as text rows, top row first: any character but '.' or ' ' is a face and names
    its label; faces are numbered in reading order, unless every label is a digit 1-9, when face
    label-1 is that label's (so "1" is the root). Example: net_from_rows([".1..", "2345", ".6.."])."""
    found = [(ch, (x, len(rows) - 1 - r)) for r, row in enumerate(rows) for x, ch in enumerate(row) if ch not in ". "]
    if all(ch.isdigit() and ch != "0" for ch, _ in found) and sorted(int(ch) for ch, _ in found) == list(
            range(1, len(found) + 1)):
        found.sort(key=lambda entry: int(entry[0]))
    return make_net([cell for _, cell in found], [ch for ch, _ in found], id=id, cuts=cuts)


# -- data -------------------------------------------------------------------------------------------


def net_from_record(record: object, *, index: int | None = None) -> Net:
    """A Net from JSON-like data: {"id"?, "cells": [[x, y], ...] (at most MAX_NET_CELLS, |x|, |y| <=
    MAX_COORDINATE), "labels"?: [str], "patterns"?: [{"turn": int, "mirror": bool}], "hinges"?:
    [[a, b] | [a, b, turn]], "cuts"?: [[a, b]]}. Errors are InputError naming the item and field."""
    item = item_label(record, index)
    if not isinstance(record, Mapping):
        raise InputError(f"must be an object, got {describe(record)}", item=item)
    try:
        cells = record.get("cells")
        if not isinstance(cells, list):
            raise InputError("is missing" if cells is None else f"must be a list, got {describe(cells)}", field="cells")
        if not 1 <= len(cells) <= MAX_NET_CELLS:
            raise InputError(f"must hold 1 to {MAX_NET_CELLS} cells, got {len(cells)}", field="cells")
        labels = _list_field(record, "labels", len(cells))
        raw_patterns = _list_field(record, "patterns", len(cells))
        patterns = None
        if raw_patterns is not None:
            patterns = []
            for i, entry in enumerate(raw_patterns):
                if not isinstance(entry, Mapping):
                    raise InputError(f"must be an object {{turn, mirror}}, got {describe(entry)}", field=f"patterns[{i}]")
                try:
                    patterns.append(Pattern(entry.get("turn", 0), entry.get("mirror", False)))
                except InputError as err:
                    raise err.at(field_prefix=f"patterns[{i}]") from None
        hinges = _list_field(record, "hinges", MAX_NET_CELLS, exact=False)
        cuts = _list_field(record, "cuts", 2 * MAX_NET_CELLS, exact=False)
        return make_net(cells, labels, patterns, hinges=hinges, cuts=cuts, id=record.get("id"))
    except InputError as err:
        raise err.at(item=item) from None


def _list_field(record: Mapping, name: str, size: int, *, exact: bool = True) -> list | None:
    value = record.get(name)
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError(f"must be a list, got {describe(value)}", field=name)
    if exact and len(value) != size:
        raise InputError(f"must hold one entry per cell ({size}), got {len(value)}", field=name)
    if not exact and len(value) > size:
        raise InputError(f"must hold at most {size} entries, got {len(value)}", field=name)
    return value


def net_to_record(net: Net) -> dict:
    """The inverse of `net_from_record` (hinges written out, so the tree is kept exactly)."""
    record = {"cells": [list(c) for c in net.cells], "labels": list(net.labels),
              "patterns": [{"turn": p.turn, "mirror": p.mirror} for p in net.patterns],
              "hinges": [[h.a, h.b, h.turn] for h in net.hinges]}
    return {"id": net.id, **record} if net.id is not None else record


# -- the engine's host side -------------------------------------------------------------------------


@dataclass(frozen=True)
class NetArrays:
    """Kernel inputs for a batch of nets, padded to `faces` per net (int32 / bool numpy arrays)."""

    cells: np.ndarray  # [N, F, 2]
    parent: np.ndarray  # [N, F]
    turn: np.ndarray  # [N, F]
    present: np.ndarray  # [N, F]
    pattern_turn: np.ndarray  # [N, F]
    pattern_mirror: np.ndarray  # [N, F]


def net_arrays(nets: Sequence[Net], faces: int | None = None) -> NetArrays:
    """Pad nets to `faces` (default: the largest) and lay them out for foldsim.kernels.nets."""
    faces = max((len(n) for n in nets), default=1) if faces is None else faces
    shape = (len(nets), faces)
    cells = np.zeros((*shape, 2), np.int32)
    parent = np.full(shape, -1, np.int32)
    turn = np.ones(shape, np.int32)
    present = np.zeros(shape, bool)
    pattern_turn = np.zeros(shape, np.int32)
    pattern_mirror = np.zeros(shape, bool)
    for i, net in enumerate(nets):
        n = len(net)
        if n > faces:
            raise ValueError(f"net {i} has {n} faces, more than the {faces} padded to")
        tree_parent, tree_turn = net.hinge_tree()
        cells[i, :n] = net.cells
        parent[i, :n], turn[i, :n], present[i, :n] = tree_parent, tree_turn, True
        pattern_turn[i, :n] = [p.turn for p in net.patterns]
        pattern_mirror[i, :n] = [p.mirror for p in net.patterns]
    return NetArrays(cells, parent, turn, present, pattern_turn, pattern_mirror)


@dataclass(frozen=True)
class FaceOnCube:
    """Where one face of a folded net went: its cube side (None: off the cube or not joined) and
    its pattern's up there (quarter turns counter-clockwise from the side's up, seen from outside)."""

    label: str
    side: str | None
    turn: int
    mirror: bool


@dataclass(frozen=True)
class SeenFace:
    """One of the three faces a view shows: its label and its pattern as seen (turn: quarter turns
    counter-clockwise from the view side's up; mirror)."""

    label: str | None
    turn: int
    mirror: bool


@dataclass(frozen=True)
class FoldedNet:
    """A net folded by the engine: validity, the reason, each face's place, the opposite-face map
    and, for a valid net, what each of the 24 orientations shows (front, top, right)."""

    net: Net
    reason: str
    faces: tuple[FaceOnCube, ...]
    opposite: dict[str, str]
    views: tuple[tuple[SeenFace, SeenFace, SeenFace], ...]

    @property
    def valid(self) -> bool:
        return self.reason == "valid"


def fold_nets(nets: Sequence[Net], faces: int | None = None) -> list[FoldedNet]:
    """Fold nets with the batched engine (one compiled call; nets padded to `faces`, default the
    largest, so callers can keep one compiled shape) and read the results back per net. Views are
    given for every net (a side with no face reads None)."""
    if not nets:
        return []
    arrays = net_arrays(nets, faces)
    labels = np.broadcast_to(np.arange(arrays.cells.shape[1], dtype=np.int32), arrays.present.shape)[:, None]
    fold, view = K.net_views(arrays.cells, arrays.parent, arrays.turn, arrays.present, labels,
                             arrays.pattern_turn[:, None], arrays.pattern_mirror[:, None], np.arange(24, dtype=np.int32))
    side, quarter, opposite, reason = (np.asarray(x) for x in (fold.side, fold.quarter, fold.opposite, fold.reason))
    face, seen_turn, seen_mirror = (np.asarray(x)[:, 0] for x in (view.face, view.turn, view.mirror))
    out = []
    for i, net in enumerate(nets):
        n = len(net)
        faces = tuple(FaceOnCube(net.labels[f], SIDE_NAMES[side[i, f]] if side[i, f] >= 0 else None,
                                 int((quarter[i, f] + net.patterns[f].turn) % 4) if side[i, f] >= 0 else 0,
                                 net.patterns[f].mirror) for f in range(n))
        pairs = {net.labels[f]: net.labels[opposite[i, f]] for f in range(n) if opposite[i, f] >= 0}
        views = tuple(tuple(SeenFace(net.labels[face[i, o, w]] if face[i, o, w] >= 0 else None, int(seen_turn[i, o, w]),
                                     bool(seen_mirror[i, o, w])) for w in range(3)) for o in range(24))
        out.append(FoldedNet(net, REASONS[int(reason[i])], faces, pairs, views))
    return out


def fold_net(net: Net) -> FoldedNet:
    """One net through the engine (see fold_nets)."""
    return fold_nets([net])[0]


# -- labelled cubes: what families compare ----------------------------------------------------------

#: what a side shows: (label or None, pattern turn, mirror)
Shown = tuple[str | None, int, bool]
NO_FACE: Shown = (None, 0, False)


def cube_sides(folded: FoldedNet) -> tuple[Shown, ...]:
    """The labelled cube a folded net makes, side by side in SIDE_NAMES order: each side's
    (label, pattern turn, mirror), NO_FACE where no face landed (the lowest face where several)."""
    sides = [NO_FACE] * len(SIDE_NAMES)
    for face in reversed(folded.faces):
        if face.side is not None:
            sides[SIDE_NAMES.index(face.side)] = (face.label, face.turn, face.mirror)
    return tuple(sides)


def turned_cube(sides: Sequence[Shown], orientation: int) -> tuple[Shown, ...]:
    """The same cube in orientation `orientation` (0..23), side by side: what was on side s is now on
    SIDE_MAP[o, s], its pattern turned by SIDE_TURNS[o, s]. Its front, top, right (sides +z, +y, +x)
    are that orientation's view."""
    out: list[Shown] = [NO_FACE] * len(SIDE_NAMES)
    for s, (label, turn, mirror) in enumerate(sides):
        shown = (label, (turn + int(K.SIDE_TURNS[orientation, s])) % 4, mirror) if label is not None else NO_FACE
        out[int(K.SIDE_MAP[orientation, s])] = shown
    return tuple(out)


def _reduced(shown: Shown, periods: Mapping[str, int] | None) -> Shown:
    """A side's look with its turn taken modulo the label's pattern period (1: a plain colour, the
    same at every turn and mirrored, so its mirror flag is dropped too; 2: the same after a half
    turn; 4, the default: no symmetry)."""
    label, turn, mirror = shown
    period = (periods or {}).get(label, 4) if label is not None else 4
    return (label, turn % period, mirror and period != 1)


def view_of(sides: Sequence[Shown], orientation: int) -> tuple[Shown, Shown, Shown]:
    """What orientation `orientation` of a cube (side by side) shows: front, top, right."""
    turned = turned_cube(sides, orientation)
    return tuple(turned[int(s)] for s in K.VIEW_FRAME_SIDES)  # type: ignore[return-value]


def cube_key(sides: Sequence[Shown], periods: Mapping[str, int] | None = None) -> tuple:
    """One name for a labelled cube up to rotation: two cubes are the same (one can be turned into
    the other) iff their keys are equal. Pattern turns count modulo `periods[label]` (see _reduced)."""
    return min(tuple(_reduced(x, periods) for x in turned_cube(sides, o)) for o in range(24))


def orientations_showing(sides: Sequence[Shown], view: Sequence[Shown],
                         periods: Mapping[str, int] | None = None) -> tuple[int, ...]:
    """The orientations in which the cube shows `view` (front, top, right), pattern turns modulo
    `periods`: empty when no turn of the cube shows it (the view is not this cube's)."""
    wanted = tuple(_reduced(x, periods) for x in view)
    return tuple(o for o in range(24) if tuple(_reduced(x, periods) for x in view_of(sides, o)) == wanted)
