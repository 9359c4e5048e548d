"""foldsim.sheet_space: configuration counts, punched spaces, bulk verification and solution counts
of general sheet families, each checked against a brute force over every sequence with the slow
exact reference (foldsim.reference_general), one SheetItem at a time."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from typer.testing import CliRunner

from foldsim.engine import encode_action
from foldsim.errors import InputError
from foldsim.reference_general import STATUS_OK, reference_simulate
from foldsim.sheet_space import (
    PositionGrid,
    SheetFamily,
    enumerate_family,
    hole_set_histogram,
    solve_targets,
    verify_plans,
)
from foldsim.sheet_space_io import read_targets
from foldsim.sheets import Punch, SheetItem, SheetSpec

FAMILIES = [
    SheetFamily(2, 2, 2),  # every grid and 45° line, both sides, front only: 16 actions
    SheetFamily(3, 2, 2, ("grid", "diagonal"), sides="smaller", faces="both"),  # overhanging flaps
    SheetFamily(3, 2, 2, ("grid", "halves"), min_folds=0),  # box midlines of odd boxes: a finer mesh
]


def brute_force(family: SheetFamily):
    """Per fold count: {sequence (alphabet indices): [hole points of each punch | None if off paper]}
    for every realizable sequence, from the reference alone."""
    folds, points = family.fold_choices(), family.punch_points()
    sheet = SheetSpec(family.cols, family.rows)
    out = {}
    for k in range(family.min_folds, family.folds + 1):
        level = {}
        for seq in itertools.product(range(len(folds)), repeat=k):
            actions = tuple(folds[a] for a in seq)
            if reference_simulate(SheetItem(sheet, actions)).status != STATUS_OK:
                continue
            holes = []
            for x, y in points:
                result = reference_simulate(SheetItem(sheet, actions, (Punch(x, y),)))
                holes.append(frozenset((h.x, h.y) for h in result.holes) if result.status == STATUS_OK else None)
            level[seq] = holes
        out[k] = level
    return out


@pytest.fixture(scope="module", params=range(len(FAMILIES)), ids=["2x2", "3x2-smaller-both-faces", "3x2-halves"])
def case(request):
    family = FAMILIES[request.param]
    return family, enumerate_family(family, punch=True), brute_force(family)


def test_alphabet_rows_are_the_engines_encoding():
    for family in FAMILIES:
        r = 2
        rows = family.alphabet_rows(r)
        expected = [encode_action(f, family.cols, family.rows, r) for f in family.fold_choices()]
        assert rows.tolist() == expected


def test_counts_match_the_brute_force(case):
    family, space, brute = case
    assert space.counts() == {k: len(v) for k, v in brute.items()}
    for k, level in brute.items():  # the same sequences, in lexicographic order
        assert [tuple(s) for s in space.sequences[k].tolist()] == sorted(level)


def test_every_punch_matches_the_brute_force(case):
    family, space, brute = case
    for k, level in brute.items():
        for i, seq in enumerate(space.sequences[k].tolist()):
            for p, holes in enumerate(level[tuple(seq)]):
                assert bool(space.on_paper[k][i, p]) == (holes is not None)
                if holes is not None:
                    assert space.grid.points_of(space.masks[k][i, p]) == sorted(holes)


def test_solution_counts_match_the_brute_force(case):
    family, space, brute = case
    plans = Counter()
    for level in brute.values():
        for holes in level.values():
            plans.update(h for h in holes if h is not None)
    targets = [sorted(t) for t in sorted(plans, key=sorted)]
    found = solve_targets(space, targets)
    assert [s.count for s in found] == [plans[frozenset(t)] for t in targets]
    _, counts = hole_set_histogram(space)
    assert sorted(counts.tolist()) == sorted(plans.values())
    assert sum(space.plan_counts().values()) == sum(plans.values())
    # a hole set no plan makes, and a hole off the grid
    assert solve_targets(space, [[(0, 0)], [(Fraction(1, 7), 1)]])[0].count == 0


def test_solutions_are_the_plans_that_make_the_target(case):
    family, space, brute = case
    k = family.folds
    level = brute[k]
    seq = sorted(level)[len(level) // 2]
    p = next(i for i, h in enumerate(level[seq]) if h)
    target = sorted(level[seq][p])
    (solutions,) = solve_targets(space, [[(str(x), str(y)) for x, y in target]])
    expected = {(s, q) for j in brute for s, holes in brute[j].items() for q, h in enumerate(holes)
                if h is not None and sorted(h) == target}
    got = {(tuple(space.sequences[j][c].tolist()), q) for j, pairs in solutions.plans.items() for c, q in pairs.tolist()}
    assert got == expected


def test_bulk_verification(case):
    family, space, brute = case
    rng = np.random.default_rng(0)
    k = family.folds
    n_folds = len(family.fold_choices())
    seqs = rng.integers(0, n_folds, (200, k))  # proposed plans, realizable or not
    seqs[:, 0][rng.random(200) < 0.2] = -1  # some shorter plans (no first fold)
    punch = rng.integers(0, len(family.punch_points()), 200)
    level = brute[k]
    sample = sorted(level)[0]
    q = next(i for i, h in enumerate(level[sample]) if h)
    target = sorted(level[sample][q])
    check = verify_plans(space, seqs, punch, [target])
    folds, points = family.fold_choices(), family.punch_points()
    for i in range(len(seqs)):
        actions = tuple(folds[a] for a in seqs[i] if a >= 0)
        result = reference_simulate(SheetItem(SheetSpec(family.cols, family.rows), actions, (Punch(*points[punch[i]]),)))
        want = result.status == STATUS_OK and sorted((h.x, h.y) for h in result.holes) == target
        assert bool(check.match[i]) == want, (seqs[i], punch[i])


def test_family_validation():
    with pytest.raises(InputError, match="lines"):
        SheetFamily(4, 4, 2, ("grid", "spiral"))
    with pytest.raises(InputError, match="folds"):
        SheetFamily(4, 4, 0)
    with pytest.raises(InputError, match="sheet"):
        SheetFamily.parse("4by4", 2)
    with pytest.raises(InputError, match="min_folds"):
        SheetFamily(4, 4, 1, min_folds=2)


def test_position_grid_round_trip():
    grid = PositionGrid(3, 2, 2, 1)
    points = [(Fraction(1, 2), Fraction(3, 2)), (Fraction(11, 4), Fraction(1, 4))]
    assert grid.points_of(grid.mask_of(points)) == sorted(points)
    assert grid.mask_of([(Fraction(1, 8), 0)]) is None


def test_read_targets():
    assert read_targets('[[0.5, 0.5], ["3/2", 1.5]]') == [[[0.5, 0.5], ["3/2", 1.5]]]
    assert read_targets('[[[0.5, 0.5]], [{"x": 1.5, "y": 0.5}]]') == [[[0.5, 0.5]], [{"x": 1.5, "y": 0.5}]]
    with pytest.raises(InputError, match="target"):
        read_targets("[[1, 2, 3]]")


def test_cli_enumerate_and_solve(tmp_path):
    from foldsim.cli import app

    runner = CliRunner()
    done = runner.invoke(app, ["enumerate", "--sheet", "2x2", "--folds", "2", "--lines", "grid,diagonal", "--json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["by_folds"] == {"1": 16, "2": 168} and summary["total"] == 184
    target = tmp_path / "target.json"
    target.write_text(json.dumps([[0.5, 0.5], [1.5, 1.5]]))
    done = runner.invoke(app, ["solve", "--sheet", "2x2", "--folds", "2", "--target", str(target), "--json"])
    assert done.exit_code == 0, done.output
    (answer,) = json.loads(done.stdout)["targets"]
    space = enumerate_family(SheetFamily(2, 2, 2), punch=True)
    assert answer["solutions"] == solve_targets(space, [[(0.5, 0.5), (1.5, 1.5)]])[0].count > 0
    human = runner.invoke(app, ["enumerate", "--sheet", "2x2", "--folds", "1"])
    assert human.exit_code == 0 and "16" in human.output
    bad = runner.invoke(app, ["enumerate", "--sheet", "2x2", "--folds", "2", "--lines", "curvy"])
    assert bad.exit_code == 2 and "lines" in bad.output


def test_sampled_sequences_are_configurations():
    from foldsim.sheet_space import sample_sequences

    family = SheetFamily(3, 3, 3)
    space = enumerate_family(family)
    rows = sample_sequences(family, 40, seed=1)
    known = {tuple(s) for s in space.sequences[3].tolist()}
    assert rows.shape == (40, 3) and all(tuple(r) in known for r in rows.tolist())
