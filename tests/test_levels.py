"""Difficulty levels: the documented score, the `level` field of generated records, and the
--level presets (every record in range, deterministic per seed, a clear error when a group cannot
reach a preset)."""

from __future__ import annotations

import pytest

from foldsim.cli import main
from foldsim.dataset.generate import GenerateOptions, generate_records
from foldsim.dataset.levels import PRESETS, add_levels, level_of, level_score, preset, stack_points
from foldsim.errors import InputError
from foldsim.io import read_records
from foldsim.simulate import simulate


@pytest.mark.parametrize("layers, points", [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (6, 2), (8, 3), (16, 4)])
def test_stack_points_are_floor_log2_of_the_deepest_punch(layers, points):
    assert stack_points(layers) == points


@pytest.mark.parametrize("folds, rotations, layers, punches, solutions, level", [
    (1, 0, 2, 1, None, 2),  # the easiest item: one fold, one punch through two layers
    (4, 0, 16, 3, None, 10),  # four folds, a 16-layer stack, three punches
    (3, 3, 8, 2, None, 10),  # six steps with rotations
    (3, 0, 8, 1, 8, 7),  # planning: 8 < 4^2 solutions, so +1 scarcity
    (3, 0, 8, 1, 16, 6),  # 16 solutions: as many as usual, no scarcity point
    (1, 0, 2, 1, 2, 2),  # one fold: 4^0 = 1, never scarce
])
def test_level_score_is_the_documented_sum(folds, rotations, layers, punches, solutions, level):
    assert level_score(folds, rotations, layers, punches, solutions) == level


def test_presets_partition_the_levels():
    for level in range(0, 20):
        assert sum(p.contains(level) for p in PRESETS.values()) == 1
    assert [p.describe() for p in PRESETS.values()] == ["level <= 4", "level 5-6", "level >= 7"]
    with pytest.raises(InputError, match="--level: unknown level 'extreme'"):
        preset("extreme")


def test_every_generated_record_carries_its_level():
    records = generate_records(GenerateOptions("prediction", ("one_step", "three_step_with_rotation"), 2, seed=7))
    results = simulate(records)
    assert [r["level"] for r in records] == [level_of(res) for res in results]
    assert [r["level"] for r in records][:2] == [level_score(1, 0, 2, len(r["initialHoles"])) for r in records[:2]]


def test_planning_levels_count_a_scarce_solution_set(planning_file):
    """The solver's count enters the level: fewer than 4^(folds-1) solutions add one point."""
    records = [dict(r) for r in read_records(planning_file) if r["numberofFoldingSteps"] == 3][:2]
    results = simulate(records)
    for record, solutions in zip(records, (8, 16)):
        record["numberofSolutions"] = solutions
    add_levels(records, results)
    base = [level_of(res) for res in results]
    assert [r["level"] for r in records] == [base[0] + 1, base[1]]


def test_level_presets_keep_only_items_in_range_and_are_deterministic():
    options = GenerateOptions("prediction", ("two_step", "four_step_with_rotation"), 4, seed=5, level="medium")
    records = generate_records(options)
    assert len(records) == 8 and all(5 <= r["level"] <= 6 for r in records)
    assert [r["id"] for r in records] == [f"PFHP_{n}" for n in range(1, 9)]
    assert generate_records(options) == records
    hard = generate_records(GenerateOptions("prediction", ("four_step_with_rotation",), 3, seed=5, level="hard"))
    assert all(r["level"] >= 7 for r in hard)


def test_generalization_pairs_are_kept_whole_within_the_preset():
    records = generate_records(GenerateOptions("generalization", ("two_step",), 2, seed=1, level="easy"))
    assert len(records) == 4 and all(r["level"] <= 4 for r in records)
    assert [r["id"].endswith("_mod") for r in records] == [False, True, False, True]


def test_an_unreachable_preset_is_one_line_naming_the_group(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["generate", "--task", "prediction", "--group", "one_step", "--count", "2", "--level", "hard",
              "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: --level: group one_step: 0 of 2 items at level hard (level >= 7)")
    assert "levels 2-4" in error and "\n" not in error
