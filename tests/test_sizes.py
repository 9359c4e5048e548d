"""Every size bounded, derived from memory, refused before work; no option silently ignored (issue 28,
items 6 and 10; docs/errors.md, "Sizes and bounds").

A refusal "before work" is asserted by making the work impossible: the enumerator, the kernel call or
the generator is replaced by one that fails the test, and the command must still answer with its one
line and exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_invoke import invoke
from foldsim import batching, limits, sheet_bounds, sheet_space
from foldsim.batching import MAX_CHUNK_ROWS, MIN_CHUNK_ROWS, check_rows_fit, rows_within
from foldsim.cli.common import EXIT_OK, EXIT_USAGE
from foldsim.errors import InputError
from foldsim.sheet_space import SheetFamily, enumerate_family, estimate_levels


def one_error_line(result) -> str:
    """The single stderr line of a refused command (exit 2, nothing on stdout)."""
    assert result.exit_code == EXIT_USAGE, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "internal error" not in lines[0], result.stderr
    return lines[0]


def no_work(*_args, **_kwargs):
    raise AssertionError("work started although the input is refused before work")


# -- the memory model and the chunking it drives ---------------------------------------------------


def test_the_record_bounds_fit_one_row_of_the_memory_bound():
    """MAX_PUNCHES and MAX_TRIANGLES are derived from the measured bytes per row: one item at every
    record bound needs less than MAX_ROW_BYTES (benchmarks/kernel_memory measures the formula)."""
    at_bounds = limits.simulate_row_bytes(limits.MAX_TRIANGLES, limits.MAX_ACTIONS, limits.MAX_PUNCHES)
    assert at_bounds <= limits.MAX_ROW_BYTES
    # the 64x64 sheet with 1,000 punches (padded to 1,024): ~680 MB a row, 5.3 GB at 8 rows
    assert 600e6 < limits.simulate_row_bytes(64 * 64 * 4, 4, 1024) < 700e6


def test_a_row_bigger_than_eight_per_budget_runs_in_smaller_chunks_down_to_one():
    row = 100 << 20
    assert rows_within(8 * row, row) == 8
    assert rows_within(3 * row, row) == 2
    assert rows_within(row, row) == 1
    assert rows_within(1, row) == 1  # a tiny budget: slower, never refused within the record bounds
    assert rows_within(1 << 50, 10) == MAX_CHUNK_ROWS
    assert [c.bucket for c in batching.chunk_plan(3, 1)] == [1, 1, 1]  # no padding back up to 8 rows
    assert batching.chunk_plan(5, 4)[0].bucket == 4 < MIN_CHUNK_ROWS


def test_one_big_item_runs_as_one_row_not_eight_padded(monkeypatch):
    """A 64x64 sheet with 256 punches (~170 MB a row): one row per call, not padded up to 8 rows
    (the plan is recorded, then the run stops before any kernel call)."""
    buckets = []

    def plan_then_stop(*args, **kwargs):
        buckets.extend(c.bucket for c in real_plan(*args, **kwargs))
        raise AssertionError("planned")

    real_plan = batching.chunk_plan
    monkeypatch.setattr(batching, "chunk_plan", plan_then_stop)
    from foldsim.engine import rectangle_mesh, run_mesh

    with pytest.raises(AssertionError, match="planned"):
        run_mesh(rectangle_mesh(64, 64, 1), np.zeros((1, 4, 11), np.int32), np.zeros((1, 256, 3), np.int32))
    assert buckets == [1]


def test_one_call_is_refused_only_past_the_budget_and_the_row_bound():
    check_rows_fit(limits.MAX_ROW_BYTES, budget=1)  # the floor: a tiny budget refuses nothing the bounds allow
    with pytest.raises(InputError, match=r"needs 2 GiB, over the memory budget of 1 GiB \(\$FOLDSIM_MEMORY_BUDGET"):
        check_rows_fit(2 << 30, budget=1)
    check_rows_fit(5 << 30, budget=8 << 30)


GENERAL_ITEMS = [{"id": f"g{i}", "sheet": {"cols": 4, "rows": 4},
                  "actions": [{"type": "fold", "line": {"family": "V", "at": 2}, "moves": "left"},
                              {"type": "fold", "line": {"family": "H", "at": 2}, "moves": "above"}][: i % 2 + 1],
                  "punches": [{"x": f"{5 + 2 * (i % 3)}/2", "y": "1/2"}]} for i in range(6)]


def test_a_batch_over_the_budget_is_chunked_and_gives_the_same_answers(monkeypatch):
    """With a budget below one row the general engine runs one row per call (old code: 8 padded
    rows whatever a row needs) and answers exactly as with the default budget."""
    from foldsim.simulate import simulate

    expected = [r.to_json() for r in simulate(GENERAL_ITEMS)]
    assert "invalid" not in {r["status"] for r in expected} and sum(r["status"] == "ok" for r in expected) >= 4
    plans = []
    real_plan = batching.chunk_plan
    monkeypatch.setattr(batching, "chunk_plan", lambda n, rows, **kw: plans.append((n, rows)) or real_plan(n, rows, **kw))
    monkeypatch.setenv("FOLDSIM_MEMORY_BUDGET", "1")
    got = [r.to_json() for r in simulate(GENERAL_ITEMS)]
    assert got == expected
    assert plans and all(rows == 1 for _, rows in plans)


# -- enumerate / solve --sheet: the space bounded before work ---------------------------------------


def test_a_family_whose_smallest_call_passes_memory_is_refused_before_any_kernel(monkeypatch):
    """64x64 --folds 1: one prefix x 760 folds x 4,096 punches asks ~100 TB (XLA asked 109 TB)."""
    patch_extender(monkeypatch, no_work)
    monkeypatch.setattr(sheet_space, "estimate_levels", no_work)
    for command in (["enumerate"], ["solve", "--target", "[[0.5, 0.5]]"]):
        line = one_error_line(invoke(*command, "--sheet", "64x64", "--folds", "1"))
        assert line.startswith("error: --sheet: a 64x64 family's smallest enumeration call (760 folds x 4096 punches) "
                               "needs 97.4 TiB, over the memory budget of ")


def test_16x16_is_refused_under_a_small_budget_and_named_with_both_numbers(monkeypatch):
    patch_extender(monkeypatch, no_work)
    line = one_error_line(invoke("enumerate", "--sheet", "16x16", "--folds", "1", env={"FOLDSIM_MEMORY_BUDGET": "2G"}))
    assert "needs 7.02 GiB, over the memory budget of 2 GiB" in line


def patch_extender(monkeypatch, replacement) -> None:
    """Replace the extender where the size estimate (sheet_bounds) and the enumeration (sheet_space) call it."""
    for module in (sheet_bounds, sheet_space):
        monkeypatch.setattr(module, "extender", replacement)


def counting_extender(monkeypatch, limit: int) -> list[int]:
    """Spy on the extender: children folded per call; fails the test past `limit` children."""
    folded = []
    real = sheet_space.extender

    def spy(*key):
        step = real(*key)

        def call(mesh, states, alphabet, punches):
            folded.append(len(states.linear) * len(alphabet))
            assert sum(folded) <= limit, f"{sum(folded):,} children folded: the enumeration ran"
            return step(mesh, states, alphabet, punches)

        return call

    patch_extender(monkeypatch, spy)
    return folded


def test_4x4_with_8_folds_is_refused_with_only_the_estimate_run(monkeypatch):
    """About 1.1e10 configurations: refused after the estimate's 8 levels x 256 walks x 40 folds,
    never enumerated (it grew past 2.3 GB and ran 330 s before)."""
    folded = counting_extender(monkeypatch, 8 * sheet_space.ESTIMATE_WALKS * 40)
    line = one_error_line(invoke("enumerate", "--sheet", "4x4", "--folds", "8"))
    assert line.startswith("error: --sheet: a 4x4 family of 8 folds has about ")
    assert "configurations (estimated from 256 random fold sequences); the memory budget of " in line
    assert "never more than 50,000,000" in line
    assert folded


def test_the_estimate_is_exact_on_the_first_level_and_close_after():
    family = SheetFamily(3, 3, 3)
    mesh = sheet_space.rectangle_mesh(3, 3, 1)
    import jax

    start = jax.tree.map(lambda x: np.asarray(x)[None], jax.device_get(sheet_space.E.initial_state(mesh)))
    estimate = estimate_levels(mesh, start, family.alphabet_rows(1), 3, 1 << 30)
    exact = enumerate_family(family).counts()
    assert estimate[1] == exact[1] == 28
    for k in (2, 3):
        assert 0.8 * exact[k] < estimate[k] < 1.25 * exact[k], (estimate, exact)


def test_an_underestimated_space_stops_as_soon_as_it_passes_the_bound(monkeypatch):
    """The estimate is a mean of random walks; if it comes out low the level guard still stops the
    enumeration once it keeps more configurations than the bound, before the level ends."""
    monkeypatch.setattr(sheet_bounds, "MAX_SPACE_CONFIGURATIONS", 100)
    monkeypatch.setattr(sheet_space, "estimate_levels", lambda *a, **k: {})
    with pytest.raises(InputError, match=r"^--sheet: a 3x3 family of 3 folds has more than 100 configurations of 2 folds "
                                         r"\([0-9,]+ found before stopping\)"):
        enumerate_family(SheetFamily(3, 3, 3), punch=True)


@pytest.mark.parametrize("budget", ["1", "64M", ""])
def test_a_family_that_fits_finishes_under_any_budget(budget):
    done = invoke("enumerate", "--sheet", "2x2", "--folds", "2", "--json", env={"FOLDSIM_MEMORY_BUDGET": budget})
    assert done.exit_code == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["by_folds"] == {"1": 16, "2": 168}
    solved = invoke("solve", "--sheet", "2x2", "--folds", "1", "--target", "[[0.5, 0.5]]", "--json",
                    env={"FOLDSIM_MEMORY_BUDGET": budget})
    assert solved.exit_code == EXIT_OK and json.loads(solved.stdout)["targets"][0]["solutions"] > 0


def test_levels_are_announced_with_their_size_for_the_progress_bar():
    levels = []
    space = enumerate_family(SheetFamily(2, 2, 2), on_level=lambda k, n: levels.append((k, n)))
    assert levels == [(1, 16), (2, 16 * 16)] and space.counts() == {1: 16, 2: 168}


# -- options of another mode are refused, naming the option (item 10) -------------------------------

REFUSED = [
    (["enumerate", "--sheet", "3x3", "--pattern", "FF"], "--pattern: not used with --sheet"),
    (["enumerate", "--sheet", "3x3", "--rules", "physical"], "--rules: not used with --sheet"),
    (["enumerate", "--sheet", "3x3", "--level", "easy"], "--level: not used with --sheet"),
    (["enumerate", "--sheet", "3x3", "--family", "spatialviz"], "--sheet: not used with --family"),
    (["enumerate", "--family", "spatialviz", "--pattern", "FF"], "--pattern: not used with --family"),
    (["enumerate", "--family", "spatialviz", "--folds", "3"], "--folds: not used with --family"),
    (["enumerate", "--family", "spatialviz", "--out", "x.npz"], "--out: not used with --family"),
    (["enumerate", "--level", "easy"], "--level: not used without --family / --sheet"),
    (["enumerate", "--lines", "grid"], "--lines: not used without --family / --sheet"),
    (["solve", "--sheet", "2x2", "--target", "[[0.5, 0.5]]", "--limit", "3"], "--limit: not used with --sheet"),
]


@pytest.mark.parametrize("args, start", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_an_option_the_mode_ignores_is_refused_before_work(monkeypatch, tmp_path, args, start):
    import foldsim.enumerate as enumeration
    from foldsim.families import base

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sheet_space, "enumerate_family", no_work)
    monkeypatch.setattr(enumeration, "enumeration_report", no_work)
    monkeypatch.setattr(base.Family, "count_space", no_work)
    assert one_error_line(invoke(*args)).startswith(f"error: {start}")
    assert not (tmp_path / "x.npz").exists()


def test_solve_with_a_planning_file_refuses_the_sheet_options(monkeypatch, tmp_path):
    import foldsim.solve as solving

    monkeypatch.setattr(solving, "solve_file", no_work)
    tasks = tmp_path / "tasks.json"
    tasks.write_text("[]")
    for option, value in (("--target", "[[0.5, 0.5]]"), ("--folds", "2"), ("--punches", "half")):
        line = one_error_line(invoke("solve", str(tasks), option, value))
        assert line.startswith(f"error: {option}: not used without --sheet")


# -- generate --family: count bounded, media options refused ----------------------------------------

GENERATE_REFUSED = [
    (["--count", "100000000000000000000"], "--count: must be 0 to "),
    (["--count", "100001"], "--count: must be 0 to "),
    (["--count", "-1"], "--count: must be 0 to "),
    (["--width", "100000"], "--width: not used with --family"),
    (["--fps", "1000000"], "--fps: not used with --family"),
    (["--seconds-per-action", "1e6"], "--seconds-per-action: not used with --family"),
]


@pytest.mark.parametrize("family", ["mentalblackboard", "spatialviz", "visfactor", "srbench"])
@pytest.mark.parametrize("args, start", GENERATE_REFUSED, ids=[" ".join(a) for a, _ in GENERATE_REFUSED])
def test_generate_family_refuses_sizes_and_ignored_options_before_work(monkeypatch, tmp_path, family, args, start):
    import foldsim.cli.dataset as dataset_cli

    monkeypatch.setattr(dataset_cli, "generate_family_command", no_work)
    out = tmp_path / "out"
    line = one_error_line(invoke("generate", "--family", family, "--out", out, *args))
    assert line.startswith(f"error: {start}")
    assert not out.exists()


def test_a_count_typer_cannot_read_is_one_line_naming_count(tmp_path):
    """What a user sees for --count 1e10 (main() turns typer's usage box into one line)."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "foldsim", "generate", "--family", "mentalblackboard", "--count", "1e10",
                          "--out", str(tmp_path / "m")], capture_output=True, text=True, timeout=300)
    assert run.returncode == EXIT_USAGE and run.stdout == ""
    assert run.stderr.splitlines() == ["error: foldsim generate: Invalid value for '--count': Input should be a valid "
                                       "integer, unable to parse string as an integer"]
    assert not (tmp_path / "m").exists()


def test_the_count_bound_follows_the_memory_budget(monkeypatch):
    from foldsim.cli.dataset import family_count_bound

    monkeypatch.setenv("FOLDSIM_MEMORY_BUDGET", "1")
    assert family_count_bound() == limits.MAX_ROW_BYTES // limits.FAMILY_ITEM_BYTES == 16_384
    monkeypatch.setenv("FOLDSIM_MEMORY_BUDGET", "1T")
    assert family_count_bound() == limits.MAX_FAMILY_COUNT


def test_a_family_count_within_the_bound_is_generated(tmp_path):
    done = invoke("generate", "--family", "visfactor", "--count", "2", "--no-media", "--out", tmp_path / "v")
    assert done.exit_code == EXIT_OK, done.stderr


def test_the_family_count_bound_says_how_to_write_more_for_that_family(tmp_path):
    """Only mentalblackboard's family runs take --first-id (the others refuse it), so the advice
    past the bound names what works for the family asked for."""
    for family, advice in (("mentalblackboard", "several runs with --first-id"),
                           ("pfp", "several runs with other --seed values, each into its own --out")):
        done = invoke("generate", "--family", family, "--count", "999999", "--out", tmp_path / family)
        assert done.exit_code == EXIT_USAGE
        assert f"write more as {advice}), got 999,999" in done.stderr
        assert not (tmp_path / family).exists()


def test_a_family_with_larger_records_gets_a_lower_count_bound(monkeypatch):
    """pfp's records keep every folded state and every option's exact cut-outs (66 KB kept, 76 KB at
    peak per item, measured): its bound is counted at its own item_bytes, not the point families'."""
    from foldsim.cli.dataset import family_count_bound
    from foldsim.families.registry import family

    monkeypatch.setenv("FOLDSIM_MEMORY_BUDGET", "1")
    assert family("pfp").item_bytes == limits.PFP_ITEM_BYTES > limits.FAMILY_ITEM_BYTES == family("stare").item_bytes
    assert family_count_bound(family("pfp").item_bytes) == limits.MAX_ROW_BYTES // limits.PFP_ITEM_BYTES == 10_922
    done = invoke("generate", "--family", "pfp", "--count", "10923", "--out", "never")
    assert done.exit_code == EXIT_USAGE and "must be 0 to 10,922 items" in done.stderr and "96 KiB each" in done.stderr
