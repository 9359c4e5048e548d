"""Cube nets (issue 25): the model's conventions, the exact batched engine against the independent
rolling-cube reference over the whole space, the continuous motion, and the reader's refusals."""

from __future__ import annotations

import ast
import json
import itertools
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from foldsim import net_space as S
from foldsim import nets_reference as R
from foldsim.errors import InputError
from foldsim.kernels import nets as K
from foldsim.nets import (MAX_NET_CELLS, Hinge, Pattern, fold_net, fold_nets, make_net, net_arrays, net_from_record,
                          net_from_rows, net_to_record)

ROOT = Path(__file__).resolve().parents[1]
#: a pattern per label index that tells every turn and both mirror states apart
LABEL_PATTERNS = tuple(Pattern(turn=i % 4, mirror=i in (1, 4)) for i in range(6))
CROSS = [".1..", "2345", ".6.."]


@pytest.fixture(scope="module")
def cube_space():
    return S.whole_space(patterns=LABEL_PATTERNS)


def engine_views(folded):
    return [[(s.label, s.turn, s.mirror) for s in view] for view in folded.views]


# -- the whole space ----------------------------------------------------------------------------------


def test_free_polyominoes_are_generated_with_the_known_counts():
    assert [len(S.free_polyominoes(n)) for n in range(1, 8)] == [1, 1, 2, 5, 12, 35, 108]
    assert sum(S.fixed_count(s) for s in S.free_polyominoes(6)) == 216


def test_exactly_eleven_hexominoes_fold_into_a_cube_engine_and_reference_agree_on_all_35():
    nets = S.hexomino_nets()
    folded = fold_nets(nets)
    assert len(nets) == 35
    assert sum(f.valid for f in folded) == 11
    assert [f.reason for f in folded] == [R.roll(n).reason for n in nets]
    assert {f.reason for f in folded} == {"valid", "folds_into", "two_on_one_side"}
    for net, f in zip(nets, folded):  # a hexomino folds into itself exactly when it has a 2x2 block
        cells = set(net.cells)
        block = any({(x + 1, y), (x, y + 1), (x + 1, y + 1)} <= cells for x, y in cells)
        assert (f.reason == "folds_into") == block, net.cells


def test_the_eleven_are_the_peers_eleven_nets():
    """STARE's 12 valid entries give 11 shapes and SpatialViz's 11 matrices (reference doc §2.1,
    §3): the same free shapes as the engine's 11; STARE's 12 invalid entries all fail."""
    ours = {S.free_form(n.cells) for n in S.cube_nets()}
    stare_valid = [".1.. 2345 .6..", "..1. 2345 .6..", "...1 2345 .6..", "123 .4. .5. .6.", "12. .43 .5. .6.",
                   "12. .4. .53 .6.", "12. .4. .5. .63", "1. 2. 34 .5 .6", "1.. 23. .45 ..6", "12. .3. .45 ..6",
                   ".2. 13. .45 ..6", ".2. .3. 145 ..6"]
    assert {S.free_form(net_from_rows(g.split()).cells) for g in stare_valid} == ours
    spatialviz = ["1.... 1111. 1....", "1.... 1111. .1...", "1.... 1111. ..1..", "1.... 1111. ...1.",
                  ".1... 1111. ..1..", ".1... 1111. .1...", "11... .111. .1...", "11... .111. ..1..",
                  "11... .111. ...1.", "111.. ..111", "11... .11.. ..11."]
    assert {S.free_form(_cells(g)) for g in spatialviz} == ours
    stare_invalid = ["123456", *[f"12345 {'.' * s}6" for s in range(5)], "123 456", ".456 23.. 1...", "1..6 2345",
                     "1234 ..56", "123. .456"]
    assert not any(f.valid for f in fold_nets([net_from_rows(g.split()) for g in stare_invalid]))


def _cells(grid: str) -> list[tuple[int, int]]:
    rows = grid.split()
    return [(x, -r) for r, row in enumerate(rows) for x, ch in enumerate(row) if ch != "."]


def test_labellings_thirty_cubes_and_seven_hundred_twenty_assignments():
    cubes = S.cube_labellings()
    assert len(cubes) == 30 and len(set(cubes)) == 30
    classes = {}
    for assignment in S.all_assignments():
        classes.setdefault(S.canonical_cube(assignment), []).append(assignment)
    assert len(classes) == 30 and {len(v) for v in classes.values()} == {24}
    assert set(classes) == set(cubes)


def test_engine_and_reference_agree_on_every_face_orientation_and_view(cube_space):
    """All 11 nets x 30 labellings x 24 orientations, with patterns of every turn and both mirror
    states: each face's side and pattern turn, the opposite map and the three faces each view shows."""
    space = cube_space
    assert space.view_label.shape == (11, 30, 24, 3)
    compared = 0
    for n, net in enumerate(space.nets):
        for l in range(30):
            labels = [str(i) for i in space.labels[n, l]]
            patterns = [LABEL_PATTERNS[i] for i in space.labels[n, l]]
            labelled = make_net(net.cells, labels, patterns, hinges=net.hinges)
            rolled = R.roll(labelled)
            assert rolled.reason == "valid" and space.reasons[n] == 0
            assert list(rolled.sides) == [K.SIDE_NAMES[s] for s in space.sides[n]]
            assert list(rolled.turns) == list((space.quarters[n] + space.pattern_turn[n, l]) % 4)
            assert rolled.opposite == {labels[f]: labels[space.opposite[n, f]] for f in range(6)}
            for o in range(24):
                engine = [(str(space.view_label[n, l, o, w]), int(space.view_turn[n, l, o, w]),
                           bool(space.view_mirror[n, l, o, w])) for w in range(3)]
                assert engine == list(rolled.views[o]), (net.id, l, o)
                compared += 1
    assert compared == 11 * 30 * 24


def test_each_labelling_is_its_cube_and_the_views_tell_orientations_apart(cube_space):
    space = cube_space
    for n in range(11):
        side_labels = np.zeros((30, 6), int)
        side_labels[:, space.sides[n]] = space.labels[n]
        assert [tuple(x) for x in side_labels] == S.cube_labellings()
        for l in range(30):
            assert len({tuple(v) for v in space.view_label[n, l]}) == 24
    # an ordered (front, top, right) label triple is shown by 6 of the 30 cubes
    triples = {}
    for l in range(30):
        for v in space.view_label[0, l]:
            triples.setdefault(tuple(v), set()).add(l)
    assert len(triples) == 120 and {len(c) for c in triples.values()} == {6}


def test_all_720_assignments_through_the_engine():
    space = S.whole_space(S.cube_nets()[:2], labellings="all")
    assert space.view_label.shape == (2, 720, 24, 3)
    for n in range(2):
        cubes = {}
        for l in range(720):
            side_labels = [0] * 6
            for f, s in enumerate(space.sides[n]):
                side_labels[s] = int(space.labels[n, l, f])
            views = frozenset(tuple(int(x) for x in v) for v in space.view_label[n, l])
            cubes.setdefault(S.canonical_cube(side_labels), set()).add(views)
        assert len(cubes) == 30 and all(len(v) == 1 for v in cubes.values())  # a class shows the same 24 views (in another order)


def test_random_polyominoes_of_other_sizes_agree_on_validity_and_reason():
    rng = np.random.default_rng(25)
    nets = [make_net(s) for n in (1, 4, 5, 7) for s in S.free_polyominoes(n)]
    hexominoes = S.free_polyominoes(6)
    for _ in range(150):  # hexominoes with random cuts (other hinge trees), and shuffled roots
        shape = list(hexominoes[rng.integers(35)])
        rng.shuffle(shape)
        cuts = [(h.a, h.b) for h in make_net(shape).hinges if rng.random() < 0.15]
        nets.append(make_net(shape, cuts=cuts))
    for _ in range(50):  # scattered cells: often in pieces
        cells = {(int(x), int(y)) for x, y in rng.integers(0, 4, (6, 2))}
        nets.append(make_net(sorted(cells)))
    folded = fold_nets(nets)
    assert [f.reason for f in folded] == [R.roll(n).reason for n in nets]
    reasons = {f.reason for f in folded}
    assert reasons == {"valid", "count", "disconnected", "folds_into", "two_on_one_side"}
    for f, net in zip(folded, nets):
        assert [x.side for x in f.faces] == list(R.roll(net).sides)


# -- conventions --------------------------------------------------------------------------------------


def test_printed_side_out_the_cube_lies_under_the_root():
    net = net_from_rows(CROSS)
    arrays = net_arrays([net])
    fold = K.fold_batch(arrays.cells, arrays.parent, arrays.turn, arrays.present)
    rotation, shift = np.asarray(fold.rotation[0]), np.asarray(fold.shift[0])
    corners2 = np.array([[2 * x + dx, 2 * y + dy, 0] for x, y in net.cells for dx, dy in ((0, 0), (2, 2))])
    placed = np.einsum("fij,fcj->fci", rotation, corners2.reshape(6, 2, 3)) + shift[:, None]
    x0, y0 = net.cells[0]
    assert placed[..., 2].min() == -2 and placed[..., 2].max() == 0  # doubled: z in [-1, 0]
    assert placed[..., 0].min() == 2 * x0 and placed[..., 0].max() == 2 * x0 + 2
    assert placed[..., 1].min() == 2 * y0 and placed[..., 1].max() == 2 * y0 + 2
    folded = fold_net(net)
    assert [f.side for f in folded.faces] == ["+z", "-x", "-y", "+x", "+y", "-z"]
    assert folded.opposite == {"1": "6", "6": "1", "2": "4", "4": "2", "3": "5", "5": "3"}
    # the identity orientation (4 * side(+z) + 0) shows the root in front, upright
    assert engine_views(folded)[16] == [("1", 0, False), ("5", 2, False), ("4", 1, False)]


def test_orientation_index_is_side_to_front_then_quarter_turns():
    for o, g in enumerate(K.ORIENTATIONS):
        side, k = divmod(o, 4)
        assert (g @ K.SIDE_NORMALS[side] == [0, 0, 1]).all()
        assert (g @ K.SIDE_UPS[side] == K.axis_turn(np.array([0, 0, 1]), k) @ [0, 1, 0]).all()
        assert round(np.linalg.det(g)) == 1
    assert len({g.tobytes() for g in K.ORIENTATIONS}) == 24


def test_a_pattern_turn_and_mirror_travel_with_the_face():
    base = net_from_rows(CROSS)
    turned = make_net(base.cells, base.labels, [Pattern(1, True)] + [Pattern()] * 5)
    a, b = fold_net(base), fold_net(turned)
    assert (b.faces[0].turn - a.faces[0].turn) % 4 == 1 and b.faces[0].mirror and not a.faces[0].mirror
    assert a.faces[1:] == b.faces[1:]
    front = engine_views(b)[16][0]
    assert front == ("1", 1, True)


def test_hinge_turns_other_than_a_quarter_and_cuts():
    strip = make_net([(0, 0), (1, 0)], hinges=[(0, 1, 0)])
    assert fold_net(strip).reason == "count"
    cross = net_from_rows(CROSS)
    flat = make_net(cross.cells, hinges=[Hinge(h.a, h.b, 0 if i == 0 else 1) for i, h in enumerate(cross.hinges)])
    inward = make_net(cross.cells, hinges=[Hinge(h.a, h.b, -1 if i == 4 else 1) for i, h in enumerate(cross.hinges)])
    assert fold_net(flat).reason == "off_cube" and fold_net(inward).reason == "off_cube"
    cut = make_net(cross.cells, cuts=[(0, 2)])
    assert fold_net(cut).reason == "disconnected"
    assert fold_net(net_from_rows(["123", "456"])).reason == "folds_into"
    assert fold_net(net_from_rows(["123456"])).reason == "two_on_one_side"
    with pytest.raises(ValueError, match="quarter-turn"):
        R.roll(flat)


def test_a_hinge_tree_that_differs_from_the_default_changes_the_fold():
    """A 2x3 block is no cube net with its default tree, but cut into a spiral it folds (the engine and
    the reference agree on both)."""
    block = net_from_rows(["123", "456"])
    spiral = make_net(block.cells, hinges=[(0, 1), (1, 2), (2, 5), (5, 4), (4, 3)])
    assert (fold_net(block).reason, R.roll(block).reason) == ("folds_into", "folds_into")
    assert fold_net(spiral).reason == R.roll(spiral).reason


# -- the engine ---------------------------------------------------------------------------------------


def test_kernels_import_nothing_of_foldsim_and_the_reference_nothing_of_the_engine():
    for path, banned in ((ROOT / "foldsim" / "kernels" / "nets.py", ("foldsim",)),
                         (ROOT / "foldsim" / "nets_reference.py", ("foldsim", "kernels", ".kernels", "jax", "numpy"))):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [("." * n.level) + (n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in names if m.split(".")[0] in banned or m.startswith(tuple(b for b in banned if b[0] == "."))], names


def test_engine_outputs_are_integers_and_batch_over_nets_labellings_orientations():
    nets = S.cube_nets()[:3]
    arrays = net_arrays(nets)
    fold = K.fold_batch(arrays.cells, arrays.parent, arrays.turn, arrays.present)
    for leaf in fold:
        assert leaf.dtype in (jnp.int32, jnp.bool_)
    labels = np.tile(np.arange(6, dtype=np.int32), (3, 2, 1))
    view = K.views_batch(fold, labels, np.zeros_like(labels), np.zeros(labels.shape, bool), np.arange(5, dtype=np.int32))
    assert view.label.shape == (3, 2, 5, 3)
    one = jax.jit(K.view_one)(jax.tree.map(lambda x: x[1], fold), labels[1, 0], labels[1, 0] * 0, labels[1, 0] == 9,
                     jnp.int32(4))
    assert (np.asarray(one.label) == np.asarray(view.label[1, 0, 4])).all()


@pytest.mark.gpu
def test_engine_on_the_gpu_equals_the_cpu(cube_space):
    cpu = jax.devices("cpu")[0]
    with jax.default_device(cpu):
        on_cpu = S.whole_space(patterns=LABEL_PATTERNS)
    for name in ("view_label", "view_turn", "view_mirror", "sides", "quarters", "opposite", "reasons"):
        assert np.array_equal(getattr(on_cpu, name), getattr(cube_space, name)), name


# -- continuous motion ---------------------------------------------------------------------------------


def _corners(net, angles):
    a = net_arrays([net])
    return K.corner_positions(jnp.asarray(a.cells[0]), jnp.asarray(a.parent[0]), jnp.asarray(a.turn[0]),
                              jnp.asarray(a.present[0]), angles)


def flat_and_folded_corners(net) -> tuple[np.ndarray, np.ndarray]:
    """Every face's four corners flat on the table and on the folded cube, from the engine's exact
    integer poses (rotation, doubled shift): what the continuous motion must start and end on."""
    a = net_arrays([net])
    fold = K.fold_batch(a.cells, a.parent, a.turn, a.present)
    rotation, shift = np.asarray(fold.rotation[0]), np.asarray(fold.shift[0])
    offsets = np.array([[0, 0], [1, 0], [1, 1], [0, 1]])
    flat = np.concatenate([np.asarray(net.cells)[:, None] + offsets, np.zeros((len(net), 4, 1))], -1)
    return flat, (np.einsum("fij,fcj->fci", rotation, 2 * flat) + shift[:, None]) / 2


@pytest.mark.parametrize("rows", [CROSS, ["12..", ".34.", "..56"], ["123.", "..456"]])
def test_motion_at_a_quarter_turn_is_the_exact_cube_and_at_zero_the_flat_net(rows):
    net = net_from_rows(rows)
    flat, exact = flat_and_folded_corners(net)
    np.testing.assert_allclose(np.asarray(_corners(net, jnp.full(6, jnp.pi / 2))), exact, atol=1e-5)
    np.testing.assert_allclose(np.asarray(_corners(net, jnp.zeros(6))), flat, atol=1e-6)
    # halfway, every non-root face is off the plane, below it (toward the unprinted side)
    half = np.asarray(_corners(net, jnp.full(6, jnp.pi / 4)))
    assert half[1:, :, 2].min() < -0.5 and half[..., 2].max() <= 1e-6


def test_motion_gradient_matches_finite_differences():
    net = net_from_rows(CROSS)
    weights = jnp.asarray(np.random.default_rng(0).normal(size=(6, 4, 3)), jnp.float32)

    def energy(angles):
        return (weights * _corners(net, angles)).sum()

    angles = jnp.asarray([0.0, 0.3, 0.7, 1.1, 0.5, 1.4], jnp.float32)
    grad = np.asarray(jax.grad(energy)(angles))
    eps = 1e-3
    for i in range(1, 6):
        step = jnp.zeros(6).at[i].set(eps)
        numeric = (float(energy(angles + step)) - float(energy(angles - step))) / (2 * eps)
        assert abs(grad[i] - numeric) < 2e-2 * max(1.0, abs(numeric)), (i, grad[i], numeric)
    assert grad[0] == 0  # the root has no hinge
    assert np.abs(grad[1:]).max() > 0.1


# -- reading nets from data -------------------------------------------------------------------------


def test_a_record_round_trips():
    net = make_net(net_from_rows(CROSS).cells, list("abcdef"), [Pattern(i % 4, i == 2) for i in range(6)], id="x")
    again = net_from_record(net_to_record(net))
    assert again == net
    assert fold_net(again).views == fold_net(net).views


@pytest.mark.parametrize("record, field", [
    ([1], None),
    ({}, "cells"),
    ({"cells": "abc"}, "cells"),
    ({"cells": []}, "cells"),
    ({"cells": [[0, 0]] * (MAX_NET_CELLS + 1)}, "cells"),
    ({"cells": [[0, 0], [0]]}, "cells[1]"),
    ({"cells": [[0, 0], [0, True]]}, "cells[1].y"),
    ({"cells": [[0, 0], [0, 1.0]]}, "cells[1].y"),
    ({"cells": [[0, 0], [10**9, 0]]}, "cells[1].x"),
    ({"cells": [[0, 0], [0, 0]]}, "cells[1]"),
    ({"cells": [[0, 0], [1, 0]], "labels": ["a"]}, "labels"),
    ({"cells": [[0, 0], [1, 0]], "labels": ["a", "a"]}, "labels[1]"),
    ({"cells": [[0, 0], [1, 0]], "labels": ["a", ""]}, "labels[1]"),
    ({"cells": [[0, 0], [1, 0]], "labels": ["a", "x" * 41]}, "labels[1]"),
    ({"cells": [[0, 0], [1, 0]], "labels": ["a", 3]}, "labels[1]"),
    ({"cells": [[0, 0], [1, 0]], "patterns": [{}, 3]}, "patterns[1]"),
    ({"cells": [[0, 0], [1, 0]], "patterns": [{}, {"turn": "1"}]}, "patterns[1].turn"),
    ({"cells": [[0, 0], [1, 0]], "patterns": [{}, {"mirror": 1}]}, "patterns[1].mirror"),
    ({"cells": [[0, 0], [1, 0]], "hinges": [[0, 2]]}, "hinges[0]"),
    ({"cells": [[0, 0], [2, 0]], "hinges": [[0, 1]]}, "hinges[0]"),
    ({"cells": [[0, 0], [1, 0]], "hinges": [[0, 1, 2]]}, "hinges[0].turn"),
    ({"cells": [[0, 0], [1, 0]], "hinges": [[0, 1, True]]}, "hinges[0].turn"),
    ({"cells": [[0, 0], [1, 0]], "hinges": [[0, 1], [1, 0]]}, "hinges[1]"),
    ({"cells": [[0, 0], [1, 0], [2, 0]], "hinges": [[0, 1], [1, 2, 5]]}, "hinges[1].turn"),
    ({"cells": [[0, 0], [1, 0], [2, 0]], "hinges": [[0, 1], "12"]}, "hinges[1]"),
    ({"cells": [[0, 0], [1, 0]], "hinges": {"a": 1}}, "hinges"),
    ({"cells": [[0, 0], [1, 0]], "hinges": [[0, 1]], "cuts": []}, "hinges"),
    ({"cells": [[0, 0], [1, 0]], "cuts": [[0, 0, 0]]}, "cuts[0]"),
    ({"cells": [[0, 0], [2, 0]], "cuts": [[0, 1]]}, "cuts[0]"),
    ({"cells": [[0, 0], [1, 0]], "id": 5}, "id"),
])
def test_bad_records_name_the_field(record, field):
    with pytest.raises(InputError) as caught:
        net_from_record(record, index=2)
    assert caught.value.field == field
    assert "\n" not in str(caught.value) and str(caught.value).startswith("item 2")


def test_a_loop_of_hinges_is_refused_and_a_huge_net_before_any_work():
    square = [[0, 0], [1, 0], [1, 1], [0, 1]]
    with pytest.raises(InputError, match="loop") as caught:
        net_from_record({"id": "sq", "cells": square, "hinges": [[0, 1], [1, 2], [2, 3], [3, 0]]})
    assert str(caught.value).startswith("sq: hinges[3]: ")
    huge = {"cells": [[0, 0]] * 10**6}
    with pytest.raises(InputError, match="1 to 64"):
        net_from_record(huge)


def test_grid_rows_name_faces_by_their_digits():
    net = net_from_rows(CROSS)
    assert net.cells[0] == (1, 2) and net.labels == tuple("123456")
    lettered = net_from_rows(["ab", ".c"])
    assert lettered.labels == ("a", "b", "c") and lettered.cells == ((0, 1), (1, 1), (1, 0))
    assert all(isinstance(h, Hinge) for h in lettered.hinges) and len(lettered.hinges) == 2
    assert list(itertools.chain(*[(h.a, h.b) for h in lettered.hinges])) == [0, 1, 1, 2]


# -- the docs -------------------------------------------------------------------------------------------


def test_docs_quote_the_computed_counts_and_the_benchmark_figures():
    text = (ROOT / "docs" / "nets.md").read_text(encoding="utf-8")
    c = S.counts()
    polyominoes = ", ".join(str(c["polyominoes"][n]) for n in range(1, 8))
    reasons = c["reasons"]
    for row in (f"| free polyominoes of 1..7 cells | {polyominoes} |",
                f"| free hexominoes (fixed: under translation only) | {c['hexominoes']} ({c['fixed_hexominoes']}) |",
                f"| hexominoes that fold into a cube (fixed) | {c['cube_nets']} ({c['fixed_cube_nets']}) |",
                f"| hexominoes that do not, by reason | {c['hexominoes'] - c['cube_nets']}: {reasons['folds_into']} "
                f"`folds_into` (each has a 2×2 block), {reasons['two_on_one_side']} `two_on_one_side` |",
                f"| labelled cubes up to rotation (distinct labellings of a net) | {c['cube_labellings']} |",
                f"| assignments of 6 labels to 6 faces | {c['assignments']} = 30 × 24 |",
                f"| views in the whole space | 11 × 30 × 24 = {c['net_labelling_views']:,}; with all assignments "
                f"11 × 720 × 24 = {11 * 720 * 24:,} |",
                f"| ordered (front, top, right) label triples | {c['distinct_label_views']}, each shown by exactly "
                f"{c['cubes_per_label_view'][0]} of the 30 labelled cubes |"):
        assert row in text, row
    assert len(c["cubes_per_label_view"]) == 1
    devices = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))["devices"]
    cpu = next(d for d in devices.values() if d["machine"]["jax_backend"] == "cpu")
    for batch in cpu["families"]["nets"]["batches"]:
        kernel, reference = batch["kernel"], batch["reference"]
        steady = kernel["steady_s"]
        row = (f"| 11 nets × {batch['labellings_per_net']} labellings × 24 | {batch['views']:,} | "
               f"{f'{steady * 1e6:.0f} µs' if steady < 1e-3 else f'{steady * 1e3:.1f} ms'} | "
               f"{kernel['views_per_s'] / 1e6:.2f}M | {reference['views_per_s'] / 1e3:.2f}K/s | {batch['speedup']:,.0f}× |")
        assert row in text, row
        assert reference["disagreements"] == 0


# -- labelled cubes ------------------------------------------------------------------------------------


def test_cube_helpers_agree_with_the_engines_views_and_tell_cubes_apart():
    from foldsim.nets import cube_key, cube_sides, orientations_showing, view_of

    nets = S.cube_nets()
    labelled = [make_net(n.cells, list("abcdef"), [Pattern(i % 4, i == 1) for i in range(6)], hinges=n.hinges)
                for n in nets]
    folded = fold_nets(labelled)
    keys = set()
    for f in folded:
        sides = cube_sides(f)
        for o in range(24):
            seen = [(s.label, s.turn, s.mirror) for s in f.views[o]]
            assert list(view_of(sides, o)) == seen
            assert orientations_showing(sides, seen) == (o,)  # asymmetric patterns: one orientation
        keys.add(cube_key(sides))
    # the 11 nets with the same labels and patterns in cell order make different cubes...
    assert len(keys) > 1
    # ...but a net relabelled to fold into another net's cube has that cube's key
    target = cube_sides(folded[0])
    for net, dressed, f in zip(nets, labelled, folded):
        by_side = {face.side: i for i, face in enumerate(f.faces)}
        side_of = [K.SIDE_NAMES[s] for s in range(6)]
        labels = [None] * 6
        patterns = [None] * 6
        for s, (label, turn, mirror) in enumerate(target):
            face = by_side[side_of[s]]
            labels[face] = label
            patterns[face] = Pattern((turn - f.faces[face].turn + dressed.patterns[face].turn) % 4, mirror)
        again = fold_net(make_net(net.cells, labels, patterns, hinges=net.hinges))
        assert cube_key(cube_sides(again)) == cube_key(target)
        # a hidden side's pattern turned: a different cube, yet it still shows the key's view 16
        turned = list(cube_sides(again))
        turned[5] = (turned[5][0], (turned[5][1] + 1) % 4, turned[5][2])  # -z: hidden at orientation 16
        assert cube_key(turned) != cube_key(target)
        assert orientations_showing(turned, view_of(target, 16)) == (16,)
        # with a half-turn-symmetric pattern on that label, a half turn is no change
        half = list(cube_sides(again))
        half[5] = (half[5][0], (half[5][1] + 2) % 4, half[5][2])
        assert cube_key(half, {half[5][0]: 2}) == cube_key(target, {half[5][0]: 2})


def test_another_root_turns_the_whole_cube_and_keeps_it():
    from foldsim.nets import cube_key, cube_sides, rooted_at

    net = make_net(net_from_rows(CROSS).cells, list("abcdef"), [Pattern(i % 4, i == 3) for i in range(6)])
    base = fold_net(net)
    for face in range(6):
        moved = fold_net(rooted_at(net, face))
        assert moved.valid and moved.faces[0].label == net.labels[face] and moved.faces[0].side == "+z"
        assert cube_key(cube_sides(moved)) == cube_key(cube_sides(base))
        assert moved.opposite == base.opposite
        assert R.roll(rooted_at(net, face)).sides == tuple(f.side for f in moved.faces)
    plain = {label: 1 for label in "abcdef"}  # plain colours: turns and mirrors do not count
    recoloured = make_net(net.cells, net.labels, [Pattern(0, False)] * 6, hinges=net.hinges)
    assert cube_key(cube_sides(fold_net(recoloured)), plain) == cube_key(cube_sides(base), plain)
    assert cube_key(cube_sides(fold_net(recoloured))) != cube_key(cube_sides(base))


def test_a_net_built_directly_is_checked_too():
    from foldsim.nets import Net

    good = net_from_rows(CROSS)
    with pytest.raises(InputError) as caught:
        Net(good.cells, ("a",) * 6, good.patterns, good.hinges)
    assert caught.value.field == "labels[1]"
    with pytest.raises(InputError) as caught:
        Net(good.cells, good.labels, good.patterns, (*good.hinges, Hinge(1, 0)))
    assert caught.value.field == "hinges[5]"
    with pytest.raises(InputError) as caught:
        Net(((0, 0), (0, 0)), ("a", "b"), (Pattern(), Pattern()), ())
    assert caught.value.field == "cells[1]"
