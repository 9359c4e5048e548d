"""Fuzz of `enumerate --sheet` and `solve --sheet` options (issue 28; docs/errors.md, "Sizes and
bounds"): sheet sizes from tiny to far past the bounds, fold counts, line sets, sides, faces, punch
sets, targets and hostile strings. Every run ends in 0 (tiny families finish, with their counts) or
in exactly one `error:` line and exit 2; no traceback, no internal error, never the enumeration of a
space past the memory bounds (the extender is capped at what a tiny family or the estimate needs).
Runs go through `foldsim.cli.main` (what a user sees: typer's usage errors as one line too) under a
fixed 256 MiB memory budget, so which sizes are refused does not depend on the machine. Examples
scale with FOLDSIM_FUZZ_EXAMPLES (conftest.fuzz_settings)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import fuzz_settings
from foldsim import sheet_bounds, sheet_space
from foldsim.cli import main
from foldsim.cli.common import EXIT_OK, EXIT_USAGE

pytestmark = pytest.mark.fuzz

HOSTILE = st.sampled_from(["", " ", "x", "4x", "x4", "4x4x4", "-1x2", "0x0", "1e9x1", "9" * 400 + "x1", "٣x٣",
                           "2 x 2", "2X2", "2x2\n", "[red]2x2", ":smile:", "\x1b[31m2x2", "nan", "1/2x2", "2.0x2"])
TINY = st.sampled_from(["1x1", "2x1", "2x2"])  # few shapes: each new one compiles the extender
HUGE = st.tuples(st.integers(65, 10**6), st.integers(1, 10**6), st.booleans()).map(
    lambda s: f"{s[0]}x{s[1]}" if s[2] else f"{s[1]}x{s[0]}")  # past the 64-cell side
BIG_BOUNDED = st.sampled_from(["16x16", "32x32", "64x64", "64x1", "1x64", "40x8"])  # past 256 MiB (1 GiB floor)
SHEETS = st.one_of(TINY, HOSTILE, HUGE, BIG_BOUNDED, st.text(max_size=12).filter(lambda t: "x" not in t.lower()))
FOLDS = st.one_of(st.integers(-3, 3).map(str), st.sampled_from(["9", "10", "1000", "1e9", "99999999999999999999",
                                                                 "x", "", "2.5", "-0", "\u0663"]))
LINES = st.sampled_from(["grid,diagonal", "diagonal", "", ",", "grid,grid", "GRID", "all", "grid,,halves,x"])
VALID = {"--lines": {"grid,diagonal", "diagonal"}, "--sides": {"both"}, "--faces": {"front"}, "--punches": {"centres"},
         "--folds": {"1", "2"}}
POINT = st.one_of(st.sampled_from([0.5, 1.5, "1/2", "3/2", 1, 0]), st.integers(-10**30, 10**30),
                  st.sampled_from(["1e99999999", "x", None, [], "1/0"]))
TARGET = st.one_of(
    st.lists(st.tuples(POINT, POINT).map(list), min_size=0, max_size=3).map(json.dumps),
    st.lists(st.lists(st.tuples(POINT, POINT).map(list), max_size=2), max_size=2).map(json.dumps),
    st.sampled_from(["", "[", "{}", '{"targets": 5}', "null", "[[[[[]]]]]", "no-such-file.json", "[" * 5000]))
#: children a tiny family may fold (2x2 at most, 2 folds: 16 + 16 x 16); the others are refused first
MAX_CHILDREN = 5_000


@pytest.fixture()
def run(monkeypatch, capsys, capped_extender):
    """`foldsim ARGS` through main(): (exit code, stdout, stderr), the extender's cap counted per run."""
    monkeypatch.setenv("FOLDSIM_MEMORY_BUDGET", "256M")

    def run_main(*args: str) -> tuple[int, str, str]:
        capped_extender[0] = 0
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as end:
            code = end.code or 0
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run_main


@pytest.fixture()
def capped_extender(monkeypatch):
    """The extender, failing the test once a run folds more children than a tiny family needs: a
    space past the bounds must be refused, never enumerated."""
    real = sheet_space.extender
    folded = [0]

    def spy(*key):
        step = real(*key)

        def call(mesh, states, alphabet, punches):
            folded[0] += len(states.linear) * len(alphabet)
            assert folded[0] <= MAX_CHILDREN, f"{folded[0]:,} children folded: a space past the bounds ran"
            return step(mesh, states, alphabet, punches)

        return call

    for module in (sheet_bounds, sheet_space):  # where the size estimate and the enumeration call it
        monkeypatch.setattr(module, "extender", spy)
    return folded


def check_outcome(done: tuple[int, str, str], tiny: bool) -> None:
    """Exit 0 with output, or exit 2 with exactly one `error:` line; never an internal error."""
    code, stdout, stderr = done
    lines = stderr.splitlines()
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    if code == EXIT_OK:
        assert stdout and lines == []
    else:
        assert code == EXIT_USAGE, (code, stderr)
        assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    if tiny:
        assert code == EXIT_OK, stderr


def options(data, sheet: str) -> list[str]:
    args = ["--sheet", sheet]
    for name, strategy in (("--folds", FOLDS), ("--lines", LINES), ("--sides", st.sampled_from(["both", "x", ""])),
                           ("--faces", st.sampled_from(["front", "back"])),
                           ("--punches", st.sampled_from(["centres", "corners"]))):
        if data.draw(st.booleans(), label=f"give {name}"):
            args += [name, data.draw(strategy, label=name)]
    return args


def is_tiny(args: list[str]) -> bool:
    """A family that must finish: a 1x1..2x2 sheet, 1-2 folds, every option given valid."""
    given = dict(zip(args[::2], args[1::2]))
    return given["--sheet"] in {"1x1", "2x1", "2x2"} and all(given[o] in VALID[o] for o in given if o != "--sheet")


@fuzz_settings(0.01)
@given(data=st.data())
def test_enumerate_sheet_options_finish_or_are_one_line(run, data):
    sheet = data.draw(SHEETS, label="sheet")
    args = options(data, sheet)
    check_outcome(run("enumerate", *args, "--json"), is_tiny(args))


@fuzz_settings(0.01)
@given(data=st.data())
def test_solve_sheet_options_and_targets_finish_or_are_one_line(run, data):
    sheet = data.draw(SHEETS, label="sheet")
    args = options(data, sheet)
    target = data.draw(TARGET, label="target")
    done = run("solve", *args, "--target", target, "--json")
    check_outcome(done, tiny=False)  # a tiny family with a bad target is refused: checked below
    if done[0] == EXIT_OK:
        assert isinstance(json.loads(done[1])["targets"], list)
    elif is_tiny(args):
        assert "target" in done[2], done[2]  # a tiny family is refused only for its target
