"""The record families' finite spaces (`count_space`, `foldsim enumerate --family`): pfp's fold
sequences walked on cutfold against an independent per-sequence count, the net families' counts
against net_space and the numbers docs/nets.md states, and the CLI's output and refusals."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import permutations, product
from math import comb, perm
from pathlib import Path

import pytest

from cli_invoke import invoke
from foldsim.cli.common import EXIT_OK, EXIT_USAGE
from foldsim.cutfold import CutItem, fold_states
from foldsim.errors import InputError
from foldsim.families import pfp_rules as R
from foldsim.families import pfp_space as S
from foldsim.families.net_options import FACE_STYLES, periods
from foldsim.families.pfp import PFP
from foldsim.families.pfp_cube import PFP_CUBE
from foldsim.families.pfp_tasks import draw_steps, step_folds
from foldsim.families.spatialviz_cube import SPATIALVIZ_CUBE
from foldsim.families.stare import STARE, spanning_trees
from foldsim.net_space import fixed_count, free_polyominoes
from foldsim.nets import cube_key, view_of
from foldsim.polygons import preset_sheet

DOCS = Path(__file__).resolve().parents[1] / "docs"


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error:")]


# -- pfp ------------------------------------------------------------------------------------------------


def test_pfp_vocabulary_is_every_step_the_draw_makes_and_no_other():
    """By hand: 16 folds and C(4,2) + C(4,3) + C(4,4) = 11 corner groups first, 16 folds whole or
    of the top layer later; and 3000 draws of draw_steps hit exactly these steps."""
    first = [json.dumps(s) for s in S.first_steps()]
    later = [json.dumps(s) for s in S.later_steps()]
    assert len(set(first)) == len(first) == len(R.FOLDS) + sum(comb(4, k) for k in R.GROUP_SIZES) == 27
    assert len(set(later)) == len(later) == 2 * len(R.FOLDS) == 32
    assert S.sequence_counts(3) == {1: 27, 2: 27 * 32, 3: 27 * 32 * 32}
    rng = random.Random(7)
    seen_first, seen_later = set(), set()
    for _ in range(3000):
        steps, _ = draw_steps(rng, 3)
        seen_first.add(json.dumps(steps[0]))
        seen_later.update(json.dumps(s) for s in steps[1:])
    assert seen_first == set(first) and seen_later == set(later)


@pytest.mark.parametrize("sheet", R.SHEETS)
def test_pfp_one_step_every_sequence_is_made_and_ends_in_its_own_state(sheet):
    """By hand: every fold of the vocabulary has paper on both sides of a flat sheet (halves,
    thirds and diagonals through the box, corners cut at 4/9 of it), and no two of the 27 first
    steps fold the same layers."""
    space = S.sheet_space(sheet, 1)
    assert space == {"made": {1: 27}, "refused": {1: {}}, "states": {1: 27}, "distinct": {(1, 1): 27}}


def independent_count(sheet_name: str, n_steps: int) -> tuple[int, Counter, int, int]:
    """Every sequence of n_steps steps folded from scratch, as an item of the family states it
    (fold_states on a CutItem, no shared prefixes; a refusal is the first step that cannot be
    made): (made, refused reasons, distinct final states, distinct final states over 1..n steps)."""
    sheet = preset_sheet(sheet_name, R.SHEET_GRID)
    made, refused, finals, shorter = 0, Counter(), set(), set()
    for steps in product(S.first_steps(), *[S.later_steps()] * (n_steps - 1)):
        for k in range(1, n_steps + 1):
            states, reason, _ = fold_states(CutItem(sheet, step_folds(list(steps[:k])), ()))
            if reason:
                break
            (finals if k == n_steps else shorter).add(states[-1][-1])
        if reason:
            refused[reason.split(" is not realizable: ")[1]] += 1
        else:
            made += 1
    return made, refused, len(finals), len(finals | shorter)


def test_pfp_walk_with_shared_prefixes_equals_every_sequence_folded_alone():
    space = S.sheet_space("square", 2)
    made, refused, states, union = independent_count("square", 2)
    assert space["made"] == {1: 27, 2: made} and made == 412
    assert space["refused"][2] == dict(refused) and sum(refused.values()) == 27 * 32 - made
    assert space["states"][2] == states and space["distinct"][(1, 2)] == union
    assert set(refused) == {"the line leaves no paper on one side", "the layers it moves are joined to layers it "
                            "leaves along a crease off the fold line, so the fold would tear the paper"}


def test_pfp_refused_prefix_refuses_every_extension_with_its_reason(monkeypatch):
    """Three steps over a small later vocabulary (two folds whole, one of the top layer): the walk,
    which counts a refused prefix's extensions without folding them, agrees with folding each."""
    monkeypatch.setattr(S, "later_steps", lambda: [[dict(R.FOLDS["half_right_over"])], [dict(R.FOLDS["corner_top_left"])],
                                                   [{**R.FOLDS["half_bottom_up"], "layers": 1}]])
    S.sheet_space.cache_clear()
    try:
        space = S.sheet_space("hexagon", 3)
    finally:
        S.sheet_space.cache_clear()
    made, refused, states, union = independent_count("hexagon", 3)
    assert space["made"][3] == made and space["refused"][3] == dict(refused)
    assert space["states"][3] == states and space["distinct"][(1, 3)] == union
    assert made + sum(refused.values()) == 27 * 3 * 3 and made and refused


def test_pfp_level_sums_its_sheets_and_step_counts(monkeypatch):
    monkeypatch.setitem(PFP.levels, "A", {**PFP.levels["A"], "steps": [1, 2], "sheets": ["square", "hexagon"]})
    done = []
    counts = PFP.count_space("A", on_progress=done.append)
    assert counts["sequences"] == {"1": 2 * 27, "2": 2 * 27 * 32} and sum(done) == 2 * (27 + 27 * 32)
    for s in ("1", "2"):
        assert counts["made"][s] + counts["refused"][s] == counts["sequences"][s]
        assert counts["made"][s] == sum(sheet["made"][s] for sheet in counts["by_sheet"].values())
    assert counts["configurations"] == sum(counts["made"].values())
    assert sum(counts["refused_by_reason"].values()) == sum(counts["refused"].values())
    assert counts["distinct_states"] == sum(S.sheet_space(n, 2)["distinct"][(1, 2)] for n in ("square", "hexagon"))


def test_pfp_level_past_the_bound_is_refused_before_any_folding(monkeypatch):
    monkeypatch.setattr(S, "MAX_SEQUENCES", 1000)
    monkeypatch.setattr(S, "sheet_space", lambda *a: pytest.fail("folded before the bound was checked"))
    with pytest.raises(InputError, match="level B holds 138,240 fold sequences, more than the 1,000"):
        PFP.count_space("B")
    done = invoke("enumerate", "--family", "pfp", "--level", "B")
    assert done.exit_code == EXIT_USAGE
    assert error_lines(done) == ["error: --level: level B holds 138,240 fold sequences, more than the 1,000 counted"]


# -- the net families ---------------------------------------------------------------------------------


def test_stare_pools_by_reason_up_to_symmetry_and_fixed_as_docs_state():
    counts = STARE.count_space("all_vis")
    # docs/nets.md, "stare": 11 cube nets; 16 shapes two_on_one_side; 8 shapes with a 2x2 block, 27 nets
    # folds_into; 45 off_cube nets (11 x 5 hinges up to symmetry), never drawn
    assert counts["nets"] == {"valid": 11, "folds_into": 27, "off_cube": 45, "two_on_one_side": 16}
    assert counts["shapes"] == {"valid": 11, "folds_into": 8, "off_cube": 11, "two_on_one_side": 16}
    assert counts["drawn"] == ["valid", "folds_into", "two_on_one_side"]
    # fixed, independently: a shape with no 2x2 block has one hinge tree, so its fixed nets are its
    # fixed polyominoes; one with a block has every (fixed placement, spanning tree) pair
    shapes = free_polyominoes(6)
    blocks = [s for s in shapes if any({(x + 1, y), (x, y + 1), (x + 1, y + 1)} <= set(s) for x, y in s)]
    fixed_blocks = sum(fixed_count(s) * len(spanning_trees(s)) for s in blocks)
    assert counts["fixed"]["valid"] == 64  # docs/nets.md: "11 (64)"
    assert counts["fixed"]["folds_into"] == fixed_blocks
    assert counts["fixed"]["two_on_one_side"] == 216 - 64 - sum(fixed_count(s) for s in blocks)  # "35 (216)"
    assert counts["fixed"]["off_cube"] == 5 * 64
    per_net = 720 * 6
    assert counts["by_answer"] == {"valid": 64 * per_net, "invalid": (fixed_blocks + counts["fixed"]["two_on_one_side"])
                                   * per_net}
    assert counts["items"] == counts["configurations"] == 1_572_480
    assert STARE.count_space("partial_vis")["items"] == 4 * 1_572_480


def test_cube_choice_configurations_are_the_docs_whole_space():
    colours = SPATIALVIZ_CUBE.count_space("colours")
    assert (colours["nets"], colours["labellings"], colours["orientations"]) == (11, 30, 24)
    assert colours["configurations"] == 7_920 and colours["assignments"] == 720  # docs/nets.md: 11 x 30 x 24
    assert colours["by_task"]["view"]["questions"] == 7_920 and colours["by_task"]["can"]["questions"] == 720
    patterns = SPATIALVIZ_CUBE.count_space("patterns")
    assert patterns["cubes"] == 30 * 4 ** 6 and patterns["configurations"] == 7_920 * 4 ** 6
    assert PFP_CUBE.count_space("easy")["configurations"] == patterns["configurations"]


def test_cube_choice_cubes_are_the_keys_the_family_draws():
    """Every side placement random_cube can draw for coloured faces (720) keys one of 30 cubes; one
    placement under all 4^6 pattern turns keys 4^6 different cubes."""
    labels = SPATIALVIZ_CUBE.levels["colours"]["labels"]
    style = periods("colours", labels)
    keys = {cube_key(tuple((label, 0, False) for label in order), style) for order in permutations(labels)}
    assert len(keys) == SPATIALVIZ_CUBE.count_space("colours")["cubes"] == 30
    labels = SPATIALVIZ_CUBE.levels["patterns"]["labels"]
    style = {label: FACE_STYLES["patterns"] for label in labels}
    keys = {cube_key(tuple(zip(labels, turns, [False] * 6)), style) for turns in product(range(4), repeat=6)}
    assert len(keys) == 4 ** 6
    cube = tuple((label, 0, False) for label in SPATIALVIZ_CUBE.levels["colours"]["labels"])
    assert len({view_of(cube, o) for o in range(24)}) == 24  # a view task's 24 keys differ


def test_pfp_cube_arrangements_are_the_option_lists_it_can_draw():
    easy = {tuple(4 * side + k for k in turns) for side in range(6) for turns in permutations(range(4))}
    hard = {tuple(4 * s + k for s, k in zip(sides, turns)) for sides in permutations(range(6), 4)
            for turns in product(range(4), repeat=4)}
    assert PFP_CUBE.count_space("easy")["by_task"]["net_to_cube"]["arrangements"] == len(easy) == 144
    assert PFP_CUBE.count_space("hard")["by_task"]["net_to_cube"]["arrangements"] == len(hard) == 92_160
    assert PFP_CUBE.count_space("easy")["by_task"]["cube_to_net"]["arrangements"] == 11 * perm(24, 4)
    assert PFP_CUBE.count_space("hard")["by_task"]["cube_to_net"]["arrangements"] == perm(11, 4) * 24 ** 4


def test_docs_quote_the_computed_spaces():
    nets = (DOCS / "nets.md").read_text()
    for number in ("1,572,480", "6,289,920", "7,920", "32,440,320"):
        assert number in nets, number
    families = (DOCS / "families.md").read_text()
    assert "142,695" in families


# -- the command ----------------------------------------------------------------------------------------


def test_enumerate_prints_a_record_family_as_its_count_space():
    done = invoke("enumerate", "--family", "stare", "--level", "all_vis", "--json")
    assert done.exit_code == EXIT_OK and json.loads(done.stdout) == STARE.count_space("all_vis")
    done = invoke("enumerate", "--family", "pfp-cube")
    assert done.exit_code == EXIT_OK
    lines = done.stdout.splitlines()
    assert lines[0].startswith("pfp-cube easy: 32,440,320 configurations, ")
    assert "  cubes: 122,880" in lines and "  faces: patterns" in lines
    assert sum(line.startswith("pfp-cube ") for line in lines) == 2


def test_enumerate_pfp_walks_the_level(monkeypatch):
    monkeypatch.setitem(PFP.levels, "A", {**PFP.levels["A"], "steps": [1, 1]})
    done = invoke("enumerate", "--family", "pfp", "--level", "A", "--json")
    assert done.exit_code == EXIT_OK
    counts = json.loads(done.stdout)
    assert counts["made"] == {"1": 5 * 27} and counts["refused"] == {"1": 0} and counts["distinct_states"] == 135


@pytest.mark.parametrize(("args", "line"), [
    (["--family", "stare", "--level", "hard"], "error: --level: must be one of all_vis, all_intermediate_vis, "
                                               "all_intermediate_last_vis, partial_vis for stare, got 'hard'"),
    (["--family", "pfp", "--level", ""], "error: --level: must be one of A, A-mirror, B, C for pfp, got ''"),
    (["--family", "pfp", "--sheet", "3x3"], "error: --sheet: not used with --family (it counts that family's space "
                                            "per level)"),
    (["--family", "pfp-cube", "--out", "x.npz"], "error: --out: not used with --family (it counts that family's "
                                                 "space per level)"),
    (["--family", "stare", "--rules", "physical"], "error: --rules: not used with --family (it counts that "
                                                   "family's space per level)"),
    (["--family", "PFP"], "error: --family: must be one of spatialviz, visfactor, srbench, mentalblackboard, pfp, "
                          "visworld, stare, spatialviz-cube, pfp-cube, got 'PFP'"),
    (["--family", "spatialviz-cube", "--level", "colours\n"], "error: --level: must be one of colours, patterns "
                                                              "for spatialviz-cube, got 'colours\\n'"),
])
def test_enumerate_refuses_hostile_options_with_one_line(args, line):
    done = invoke("enumerate", *args)
    assert done.exit_code == EXIT_USAGE and done.stdout == ""
    assert error_lines(done) == [line] and "Traceback" not in done.stderr
