"""SPEC §6: re-simulating the published files reproduces them, and names the published errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from foldsim.check import check_file

NOT_REALIZABLE = {
    "PFHP_31_direction", "PFHP_31_direction_mod", "PFHP_33_direction", "PFHP_33_direction_mod", "PFHP_31_location",
}
MISMATCH = {"PFHP_37_location_mod", "PFHP_38_location_mod"}


@pytest.fixture(scope="module")
def planning(planning_file):
    return check_file(planning_file)


@pytest.fixture(scope="module")
def generalization(generalization_file):
    return check_file(generalization_file)


def test_planning_all_400_match(planning):
    summary = planning.summary()
    assert (summary["items"], summary["match"]) == (400, 400)
    assert planning.all_match


def test_generalization_473_of_480(generalization):
    summary = generalization.summary()
    assert (summary["items"], summary["match"]) == (480, 473)
    assert set(summary["not_realizable"]) == NOT_REALIZABLE
    assert set(summary["mismatch"]) == MISMATCH
    assert summary["invalid"] == [] and summary["off_paper"] == []


def test_not_realizable_items_name_the_cut(generalization):
    for item in generalization.items:
        if item.id in NOT_REALIZABLE:
            assert "crease cuts triangle" in item.reason and "D3-F (action 2)" in item.reason


def test_mismatches_list_the_differing_holes(generalization):
    by_id = {i.id: i for i in generalization.items}
    item = by_id["PFHP_37_location_mod"]
    assert sorted((h.location, h.direction) for h in item.missing) == [(15, 180), (31, 180)]
    assert sorted((h.location, h.direction) for h in item.extra) == [(15, 0), (31, 0)]
    item = by_id["PFHP_38_location_mod"]
    assert sorted((h.location, h.direction) for h in item.missing) == [(19, 90), (23, 90)]
    assert sorted((h.location, h.direction) for h in item.extra) == [(19, 270), (23, 270)]


def test_inconsistent_records_are_reported_not_fatal(generalization):
    notes = {i.id: i.inconsistencies for i in generalization.items if i.inconsistencies}
    assert "totalNumberofHoles is 4 but resultHoles lists 2" in notes["PFHP_804_shape"]
    assert any("not the canonical form for a ellipse" in n for n in notes["PFHP_824_shape_mod"])
    totals = [i for i, n in notes.items() if any(x.startswith("totalNumberofHoles") for x in n)]
    assert len(totals) == 20


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "foldsim.cli", *args], capture_output=True, text=True)


def test_cli_check_json_and_exit_codes(planning_file, generalization_file):
    done = run_cli("check", "--json", str(planning_file))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["match"] == 400
    done = run_cli("check", "--json", str(planning_file), str(generalization_file))
    assert done.returncode == 1
    both = json.loads(done.stdout)
    assert [s["match"] for s in both] == [400, 473]
    assert set(both[1]) >= {"file", "items", "match", "mismatch", "not_realizable", "inconsistent"}


def test_cli_check_readable_summary(generalization_file):
    done = run_cli("check", str(generalization_file))
    assert done.returncode == 1
    assert "473/480 match" in done.stdout
    assert "PFHP_37_location_mod" in done.stdout and "recorded only" in done.stdout
