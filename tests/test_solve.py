"""The exhaustive planning solver: every solution reproduces its target, published plans are found,
unsolvable tasks get zero, and the counts agree with a brute force over punch_everywhere."""

from __future__ import annotations

import copy
import json
from collections import Counter
from itertools import combinations_with_replacement

import numpy as np
import pytest
from typer.testing import CliRunner

from foldsim import Config, simulate
from foldsim.cli import app
from foldsim.enumerate import configurations, punch_everywhere
from foldsim.holes import SHAPE_PERIOD, parse_holes
from foldsim.rules import PHYSICAL
from foldsim.solve import count_solutions, solve_tasks, solve_summary

@pytest.fixture(scope="module")
def planning(planning_file) -> list[dict]:
    """The published planning file (conftest's fixture fails the test when ../shared is missing)."""
    return json.loads(planning_file.read_text())


@pytest.fixture(scope="module")
def solved(planning):
    return solve_tasks(planning)


def _key(folds, holes) -> tuple:
    return tuple(folds), tuple(sorted(h.key for h in holes))


def test_published_file(solved, planning):
    summary = solve_summary(solved)
    three = [r["id"] for r in planning if len(r["initialHoles"]) == 3]
    assert len(three) == 41
    assert sorted(summary["unsolvable"]) == sorted(three)  # no 3-punch task has a plan with <= 2 punches
    assert sorted(summary["published_three_punch_unsolvable"]) == sorted(three)
    assert len(summary["unsolvable_by_bound"]) == 36 and set(summary["unsolvable_by_bound"]) <= set(three)
    assert summary["solvable"] == 359 and not summary["errors"]
    for result in solved:
        assert result.over_bound == (result.holes > 2 * 2 ** result.folds)
        assert result.count == result.one_punch + result.two_punch
        assert len({_key(s.folds, s.holes) for s in result.solutions}) == result.count  # distinct


def test_published_plans_are_among_the_solutions(solved, planning):
    found = 0
    for record, result in zip(planning, solved):
        if len(record["initialHoles"]) > 2:
            continue
        config = Config.from_record(record)
        assert _key(config.actions, config.holes) in {_key(s.folds, s.holes) for s in result.solutions}, record["id"]
        found += 1
    assert found == 359


def test_solutions_reproduce_their_targets(solved, planning):
    """Re-simulate a sample of solutions (two per task of every kind) with foldsim.simulate."""
    rng = np.random.default_rng(3)
    picks = []
    for record, result in zip(planning, solved):
        if result.count and rng.random() < 0.08:
            for k in rng.choice(result.count, min(2, result.count), replace=False):
                picks.append((record, result.solutions[k]))
    assert any(len(s.holes) == 2 for _, s in picks) and any(len(s.holes) == 1 for _, s in picks)
    for start in range(0, len(picks), 8):  # batches of 8 share one compilation
        chunk = picks[start : start + 8]
        results = simulate([Config.from_codes(s.folds, s.holes) for _, s in chunk])
        for (record, _), result in zip(chunk, results):
            target = Counter(h.key for h in parse_holes(record["resultHoles"], "resultHoles"))
            assert result.ok and Counter(h.key for h in result.holes) == target, record["id"]


def test_a_task_with_an_odd_extra_hole_has_no_solution(planning):
    record = next(r for r in planning if r["id"] == "PFHP_250")  # 2 folds, 4 holes
    broken = copy.deepcopy(record)
    broken["id"] = "broken"
    broken["resultHoles"].append({"shape": "star", "size": "large", "direction": 0, "location": 1})
    over = copy.deepcopy(record)
    over["id"] = "over"
    over["resultHoles"] = [dict(h, location=i + 1) for i, h in enumerate(record["resultHoles"] * 3)][:9]
    bad = {"id": "bad", "numberofFoldingSteps": 7, "resultHoles": []}
    results = solve_tasks([record, broken, over, bad])
    assert results[0].count > 0
    assert results[1].count == 0 and not results[1].over_bound
    assert results[2].count == 0 and results[2].over_bound  # 9 holes > 2 * 2^2
    assert results[3].error and "numberofFoldingSteps" in results[3].error
    assert list(count_solutions([record, broken, over, bad])) == [results[0].count, 0, 0, -1]


def _brute_force_count(record: dict) -> int:
    """Count plans by trying every sequence, every punch and every pair of punches, one by one."""
    target = Counter(h.key for h in parse_holes(record["resultHoles"], "resultHoles"))
    kinds = sorted({(k[0], k[1]) for k in target})
    table = configurations(PHYSICAL, pattern="F" * record["numberofFoldingSteps"]).front_only()  # not rules.PLANNING
    punched = punch_everywhere(table.actions)
    count = 0
    for seq in range(len(table)):
        singles = []
        for shape, size in kinds:
            period = SHAPE_PERIOD[shape]
            for quarter in range(period):
                directions = punched.directions(quarter)[seq]
                for location in range(32):
                    lands = np.flatnonzero(directions[location] >= 0)
                    single = Counter((shape, size, int(r) + 1, int(directions[location, r]) % period) for r in lands)
                    if lands.size and not single - target:  # a + b == target needs a <= target
                        singles.append(single)
        count += sum(s == target for s in singles)
        count += sum(a + b == target for a, b in combinations_with_replacement(singles, 2))
    return count


@pytest.mark.parametrize("item", ["PFHP_300", "PFHP_399", "PFHP_221"])  # 2 kinds; 1 fold; 3 punches
def test_counts_agree_with_brute_force(solved, planning, item):
    index = next(i for i, r in enumerate(planning) if r["id"] == item)
    assert solved[index].count == _brute_force_count(planning[index])


def test_cli_solve(tmp_path, planning):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([r for r in planning if r["id"] in ("PFHP_398", "PFHP_399", "PFHP_397")]))
    runner = CliRunner()
    out = tmp_path / "solutions.json"
    result = runner.invoke(app, ["solve", str(tasks), "--limit", "2", "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["tasks"] == 2 and [i["id"] for i in summary["items"]] == ["PFHP_397", "PFHP_398"]
    assert summary["unsolvable"] == summary["unsolvable_by_bound"] == ["PFHP_397"]
    written = json.loads(out.read_text())
    assert [len(t["plans"]) for t in written] == [i["solutions"] for i in summary["items"]]
    assert written[0]["plans"] == [] and written[1]["plans"][0]["folds"] and written[1]["plans"][0]["holes"]

    human = runner.invoke(app, ["solve", str(tasks)])
    assert human.exit_code == 0 and "2/3 solvable" in human.stdout and "PFHP_397*" in human.stdout

    bad = runner.invoke(app, ["solve", str(tasks), "--limit", "-1"])
    assert bad.exit_code == 2 and bad.stderr.strip() == "error: --limit: must be 0 or more, got -1"
