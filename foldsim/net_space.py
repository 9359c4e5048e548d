"""The whole space of cube nets (issue 25, docs/nets.md): the free polyominoes (generated, not
listed), the 11 hexominoes that fold into a cube, the labellings of a net and every
net x labelling x orientation through the batched engine.

Labellings. Six distinct labels on a net's six faces can be assigned 720 ways (`all_assignments`:
permutations, face f gets labels[perm[f]]). Folded, an assignment is a labelled cube; turning the
cube does not change it, so the 720 fall into 30 classes of 24 (`cube_labellings`: the 30 labelled
cubes up to rotation, each as the label of every side in the engine's side order, the smallest in
its class). A net takes a cube labelling through the side each face lands on
(`labels_for_cube`); so per valid net the 30 cube labellings are its 30 distinct labellings, and
the 720 assignments are those 30, each 24 times.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .kernels import nets as K
from .nets import Net, Pattern, fold_nets, make_net, net_arrays

#: the eight symmetries of the square grid, as (x, y) -> maps
GRID_SYMMETRIES = (lambda x, y: (x, y), lambda x, y: (-y, x), lambda x, y: (-x, -y), lambda x, y: (y, -x),
                   lambda x, y: (-x, y), lambda x, y: (y, x), lambda x, y: (x, -y), lambda x, y: (-y, -x))
MAX_POLYOMINO_CELLS = 10  # the growth below is exhaustive: 4,655 free decominoes, fine; much more is not
CUBE_SIDES = 6
ORIENTATIONS = 24


def normalized(cells) -> tuple[tuple[int, int], ...]:
    """Cells translated so the smallest x and y are 0, sorted by (y, x): one fixed polyomino."""
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    return tuple(sorted(((x - min(xs), y - min(ys)) for x, y in cells), key=lambda c: (c[1], c[0])))


def free_form(cells) -> tuple[tuple[int, int], ...]:
    """The canonical form of a free polyomino: the least of its normalized images under the eight
    grid symmetries."""
    return min(normalized([g(x, y) for x, y in cells]) for g in GRID_SYMMETRIES)


def free_polyominoes(n: int) -> list[tuple[tuple[int, int], ...]]:
    """All free polyominoes of n cells (1, 1, 2, 5, 12, 35, 108, ...), sorted, grown cell by cell
    from the monomino and deduplicated by `free_form`."""
    if not 1 <= n <= MAX_POLYOMINO_CELLS:
        raise ValueError(f"n must be 1..{MAX_POLYOMINO_CELLS}, got {n}")
    shapes = {((0, 0),)}
    for _ in range(n - 1):
        grown = set()
        for shape in shapes:
            cells = set(shape)
            for x, y in shape:
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    if (x + dx, y + dy) not in cells:
                        grown.add(free_form([*cells, (x + dx, y + dy)]))
        shapes = grown
    return sorted(shapes, key=lambda s: (max(y for _, y in s), s))


def fixed_count(shape) -> int:
    """How many fixed polyominoes (distinct under translation only) a free one stands for."""
    return len({normalized([g(x, y) for x, y in shape]) for g in GRID_SYMMETRIES})


def hexomino_nets() -> list[Net]:
    """The 35 free hexominoes as nets (default hinges, labels "1".."6" in cell order, face 0 the
    first cell by (y, x))."""
    return [make_net(shape, id=f"hexomino-{i}") for i, shape in enumerate(free_polyominoes(6))]


def cube_nets() -> list[Net]:
    """The hexominoes that fold into a cube (11), in `hexomino_nets` order, renamed net-0..net-10."""
    valid = [net for net, folded in zip(hexomino_nets(), fold_nets(hexomino_nets())) if folded.valid]
    return [make_net(net.cells, id=f"net-{i}") for i, net in enumerate(valid)]


def side_permutations() -> np.ndarray:
    """int[24, 6]: orientation o sends the cube's side s to side perm[o, s]."""
    turned = np.einsum("oij,sj->osi", K.ORIENTATIONS, K.SIDE_NORMALS)
    return np.argmax((turned[:, :, None, :] == K.SIDE_NORMALS[None, None]).all(-1), -1)


def canonical_cube(sides_labels) -> tuple[int, ...]:
    """The canonical form of a labelled cube: the least tuple (label per side) over its 24 turns."""
    perms = side_permutations()
    out = []
    for perm in perms:
        turned = [0] * CUBE_SIDES
        for s, label in enumerate(sides_labels):
            turned[perm[s]] = label
        out.append(tuple(turned))
    return min(out)


def cube_labellings() -> list[tuple[int, ...]]:
    """The 30 labelled cubes up to rotation: label index per side (engine side order), sorted."""
    return sorted({canonical_cube(p) for p in itertools.permutations(range(CUBE_SIDES))})


def all_assignments() -> list[tuple[int, ...]]:
    """The 720 assignments of six label indices to six faces (face f gets index p[f])."""
    return list(itertools.permutations(range(CUBE_SIDES)))


def labels_for_cube(face_sides, cube: tuple[int, ...]) -> tuple[int, ...]:
    """A net's face labels (indices) that fold into the labelled cube `cube` (label per side)."""
    return tuple(cube[s] for s in face_sides)


@dataclass(frozen=True)
class Space:
    """Every net x labelling x orientation through the engine (numpy arrays).

    labels [N, L, 6]: label index per face; views: face, label, turn, mirror [N, L, 24, 3]
    (front, top, right); sides / quarters / opposite [N, 6] per net (quarters: the flat +y's turn).
    Patterns: face f of labelling l carries `pattern_of_label[label]` (patterns travel with labels,
    as PFP's textures do)."""

    nets: tuple[Net, ...]
    labels: np.ndarray
    pattern_turn: np.ndarray
    pattern_mirror: np.ndarray
    sides: np.ndarray
    quarters: np.ndarray
    opposite: np.ndarray
    reasons: np.ndarray
    view_face: np.ndarray
    view_label: np.ndarray
    view_turn: np.ndarray
    view_mirror: np.ndarray


def whole_space(nets: list[Net] | None = None, *, labellings: str = "cube",
                patterns: tuple[Pattern, ...] | None = None) -> Space:
    """Fold `nets` (default: the 11 cube nets) under every labelling ("cube": the 30 labelled
    cubes; "all": the 720 assignments) and orientation, in one engine call. `patterns[label]` is the
    pattern each label carries (default: all upright)."""
    nets = cube_nets() if nets is None else list(nets)
    patterns = tuple(Pattern() for _ in range(CUBE_SIDES)) if patterns is None else tuple(patterns)
    arrays = net_arrays(nets, CUBE_SIDES)
    folds = K.fold_batch(arrays.cells, arrays.parent, arrays.turn, arrays.present)
    sides = np.asarray(folds.side)
    if labellings == "cube":
        labels = np.array([[labels_for_cube(np.maximum(s, 0), cube) for cube in cube_labellings()] for s in sides])
    elif labellings == "all":
        labels = np.broadcast_to(np.array(all_assignments()), (len(nets), 720, CUBE_SIDES))
    else:
        raise ValueError(f"labellings must be 'cube' or 'all', got {labellings!r}")
    labels = np.ascontiguousarray(labels, np.int32)
    pattern_turn = np.array([p.turn for p in patterns], np.int32)[labels]
    pattern_mirror = np.array([p.mirror for p in patterns], bool)[labels]
    views = K.views_batch(folds, labels, pattern_turn, pattern_mirror, np.arange(ORIENTATIONS, dtype=np.int32))
    return Space(tuple(nets), labels, pattern_turn, pattern_mirror, sides, np.asarray(folds.quarter),
                 np.asarray(folds.opposite), np.asarray(folds.reason), *[np.asarray(v) for v in views])


def counts() -> dict:
    """The enumeration counts docs/nets.md quotes, computed."""
    from collections import Counter

    hexominoes = free_polyominoes(6)
    folded = fold_nets(hexomino_nets())
    valid = [shape for shape, f in zip(hexominoes, folded) if f.valid]
    space = whole_space()
    triples = Counter(tuple(v) for v in space.view_label[0].reshape(-1, 3))
    return {
        "polyominoes": {n: len(free_polyominoes(n)) for n in range(1, 8)},
        "hexominoes": len(hexominoes),
        "fixed_hexominoes": sum(fixed_count(s) for s in hexominoes),
        "cube_nets": len(valid),
        "fixed_cube_nets": sum(fixed_count(s) for s in valid),
        "reasons": dict(Counter(f.reason for f in folded)),
        "cube_labellings": len(cube_labellings()),
        "assignments": len(all_assignments()),
        "orientations": ORIENTATIONS,
        "views_per_net_cube": int(space.view_label[0].shape[0] * space.view_label[0].shape[1]),
        "distinct_label_views": len(triples),
        "cubes_per_label_view": sorted(set(triples.values())),
        "net_labelling_views": int(np.prod(space.view_label.shape[:3])),
    }
