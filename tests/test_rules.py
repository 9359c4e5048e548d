"""Rule sets and enumeration (SPEC §5): exact counts, the reference's structure groups, membership
of the reference grammar in the physical space, and punching every location at once."""

from __future__ import annotations

import io
import json
from collections import Counter

import numpy as np
import pytest
from typer.testing import CliRunner

from foldsim import Config, Hole, simulate
from foldsim.cli import app
from foldsim.enumerate import configurations, enumerate_space, members, physical_check, punch_everywhere
from foldsim.kernels import OK
from foldsim.rules import GROUPS, MENTALBLACKBOARD, PATTERNS, PHYSICAL, group_of, validation_grammar

PHYSICAL_COUNTS = {
    "F": 16, "FF": 160, "FFF": 1408, "FFFF": 11776, "FR": 48, "FRF": 384, "FFR": 384, "FRFR": 1152,
    "FFRF": 2688, "FRFF": 2688, "FFFR": 2688, "FRFFR": 8064, "FFRFR": 8064, "FRFRF": 8064, "FRFRFR": 24192,
}
#: formats doc §7.4 (front folds only), by structure group
REFERENCE_GROUP_SIZES = {
    "one_step": 8, "two_step": 40, "three_step": 176, "four_step": 672, "two_step_with_rotation": 24,
    "three_step_with_rotation": 192, "four_step_with_rotation": 864, "five_step_with_rotation": 1728,
    "six_step_with_rotation": 1728,
}


@pytest.fixture(scope="module")
def physical():
    return enumerate_space(PHYSICAL)


@pytest.fixture(scope="module")
def mentalblackboard():
    return enumerate_space(MENTALBLACKBOARD)


def test_physical_counts_per_pattern(physical):
    assert physical.counts() == PHYSICAL_COUNTS
    assert len(physical) == 71_776
    assert len(np.unique(physical.codes())) == len(physical)


def test_mentalblackboard_counts(mentalblackboard):
    counts = mentalblackboard.counts()
    assert [counts[p] for p in ("F", "FF", "FFF", "FFFF")] == [16, 160, 1408, 10752]
    by_length = Counter()
    for pattern, count in counts.items():
        if "R" in pattern:
            by_length[len(pattern)] += count
    assert dict(by_length) == {2: 48, 3: 768, 4: 5760, 5: 13824, 6: 13824}
    assert len(mentalblackboard) == 46_560


def test_reference_structure_groups(mentalblackboard):
    front = mentalblackboard.front_only()
    assert dict(Counter(front.groups().tolist())) == REFERENCE_GROUP_SIZES
    # formats doc §7.4: type patterns of the two-step group
    two = front.select(group="two_step").codes()
    types = Counter("".join(code[0] for code in row.split(",")) for row in two)
    assert types == {"DD": 8, "DH": 8, "DV": 8, "HH": 4, "HV": 4, "VH": 4, "VV": 4}
    four_rot = front.select(group="four_step_with_rotation").codes()
    types = Counter("".join(code[0] for code in row.split(",")) for row in four_rot)
    assert types["DRHR"] == 72 and types["HRHR"] == 36 and types["DHHR"] == 48


def test_every_mentalblackboard_configuration_is_physical(mentalblackboard, physical):
    check = physical_check(mentalblackboard, physical)
    assert check.realizable.all() and check.member.all()
    assert members(mentalblackboard, physical).sum() == 46_560


def test_physical_rows_are_realizable_and_the_rest_are_not(physical):
    """Re-fold the FFF candidates without pruning: exactly the enumerated rows are realizable."""
    from foldsim.enumerate import realizable
    from foldsim.rules import ALL_FOLDS

    grid = np.stack(np.meshgrid(ALL_FOLDS, ALL_FOLDS, ALL_FOLDS, indexing="ij"), -1).reshape(-1, 3)
    ok = realizable(grid)
    fff = physical.select(pattern="FFF").actions[:, :3]
    assert ok.sum() == 1408
    assert set(map(tuple, grid[ok])) == set(map(tuple, fff))


def test_validation_grammar_rules():
    from foldsim.codes import parse_action, parse_codes
    from foldsim.enumerate import pad_actions

    def allowed(codes: str) -> bool:
        return bool(validation_grammar(pad_actions(np.array([[parse_action(c) for c in parse_codes(codes)]])))[0])

    assert allowed("H1-F,V1-F,D1-F")
    assert not allowed("H1-F,D1-F")  # a diagonal after H needs exactly one H and one V (§7.2 rule 5)
    assert not allowed("H1-F,H2-F,H1-F")  # a third H
    assert allowed("D1-F,D2-F") and not allowed("D1-F,D4-F")  # allowed successors (rule 4)
    assert allowed("D1-F,R-90,H1-F,R-90") and not allowed("H1-F,R-90,D1-F")  # D only first with rotations
    assert not allowed("H1-F,R-90,R-90")  # adjacent rotations
    assert not allowed("H1-F,R-90,V1-F,R-90,H1-F")  # three folds need a first diagonal


def test_groups_and_configurations_select():
    assert group_of("FRFRFR") == "six_step_with_rotation" and group_of("FFF") == "three_step"
    assert {group_of(p) for p in PATTERNS} == set(GROUPS)
    table = configurations(PHYSICAL, group="three_step_with_rotation")
    assert table.counts() == {"FRF": 384, "FFR": 384}
    assert len(configurations(PHYSICAL, pattern="FR")) == 48
    with pytest.raises(Exception, match="pattern"):
        configurations(PHYSICAL, pattern="RF")
    with pytest.raises(Exception, match="group"):
        configurations(PHYSICAL, group="seven_step")


def test_punch_everywhere_matches_simulate(physical):
    """Punch a random layered location of 8 random configurations; foldsim.simulate agrees."""
    rng = np.random.default_rng(7)
    rows = rng.choice(len(physical), 8, replace=False)
    table = punch_everywhere(physical.actions[rows])
    assert (table.status == OK).all()
    layers = table.hits.sum(-1)  # [B, 32]
    configs, expected = [], []
    for b, code in enumerate(physical.codes()[rows]):
        location = int(rng.choice(np.flatnonzero(layers[b])))
        quarter = int(rng.integers(4))
        configs.append(Config.from_codes(code, [Hole.make("star", "small", 90 * quarter, location + 1)]))
        directions = table.directions(quarter)[b, location]
        expected.append(sorted((int(r) + 1, int(directions[r])) for r in np.flatnonzero(directions >= 0)))
    for b, (result, want) in enumerate(zip(simulate(configs), expected)):
        assert result.ok
        assert sorted((h.location, h.quarter) for h in result.holes) == want
        assert {g: int(n) for g, n in enumerate(layers[b], 1) if n} == result.layers


def test_punch_everywhere_marks_unrealizable_rows():
    from foldsim.codes import parse_action

    table = punch_everywhere(np.array([[parse_action("H1-F"), parse_action("D1-F")]]))
    assert table.status[0] != OK and not table.hits.any()


def test_cli_enumerate(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["enumerate", "--rules", "mentalblackboard", "--pattern", "FRF", "--json",
                                 "--out", str(tmp_path / "frf.npz")])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["total"] == 384 and summary["by_pattern"] == {"FRF": 384} and summary["all_physical"]
    saved = np.load(tmp_path / "frf.npz")
    assert saved["actions"].shape == (384, 6) and saved["actions"].dtype == np.int8
    assert saved["codes"][0] == "H1-F,R-90,H1-F" and set(saved["pattern"]) == {"FRF"}

    human = runner.invoke(app, ["enumerate", "--pattern", "FR"])
    assert human.exit_code == 0 and "69,600" in human.stdout and "not simulated" in human.stdout

    for args, field in ((["--rules", "bogus"], "rules"), (["--pattern", "RF"], "pattern")):
        bad = runner.invoke(app, ["enumerate", *args])
        assert bad.exit_code == 2
        assert bad.stderr.strip().startswith(f"error: {field}:") and len(bad.stderr.strip().splitlines()) == 1


def test_npz_bytes_round_trip(physical):
    part = physical.select(pattern="FFFR")
    saved = np.load(io.BytesIO(part.npz_bytes()))
    assert (saved["actions"] == part.actions).all()
    assert (saved["codes"] == part.codes()).all()
    assert set(saved["group"]) == {"four_step_with_rotation"}


def test_planning_rule_set_is_the_front_only_physical_folds(physical):
    from foldsim.enumerate import row_keys
    from foldsim.rules import PLANNING

    planning = enumerate_space(PLANNING)
    assert planning.counts() == {"F": 8, "FF": 40, "FFF": 176, "FFFF": 736}
    expected = physical.front_only()
    expected = expected.where(np.char.find(expected.pattern.astype(str), "R") < 0)
    assert sorted(row_keys(planning.actions)) == sorted(row_keys(expected.actions))


def test_pad_actions_takes_an_empty_batch():
    import numpy as np

    from foldsim.enumerate import WIDTH, pad_actions

    assert pad_actions(np.zeros((0, 3), np.int8)).shape == (0, WIDTH) and pad_actions([]).shape == (0, WIDTH)
