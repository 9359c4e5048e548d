"""Hand-worked examples (worked out on paper from SPEC §1-§4, then run)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import foldsim
from foldsim import Config, Hole, InputError, simulate


def holes_of(codes, *holes):
    """Simulate codes with holes given as (shape, size, direction, location); result as a sorted list."""
    [result] = simulate([Config.from_codes(codes, [Hole.make(*h) for h in holes])])
    assert result.ok, result.reason
    return sorted((h.location, h.direction) for h in result.holes), result


# Each fold type on the flat sheet, punched on the stationary side under the flap: the hole and
# its mirror across the crease, with the SPEC direction rule for that crease.
@pytest.mark.parametrize(
    "code, location, direction, expected",
    [
        ("H1-F", 28, 0, [(4, 180), (28, 0)]),  # cell (3,1) upper-right <-> cell (0,1) lower-right
        ("H2-F", 4, 0, [(4, 0), (28, 180)]),
        ("V1-F", 8, 90, [(1, 270), (8, 90)]),  # vertical crease: 90 <-> 270
        ("V2-F", 1, 90, [(1, 90), (8, 270)]),
        ("D1-F", 32, 0, [(2, 270), (32, 0)]),  # "/" diagonal: 0 <-> 270
        ("D4-F", 2, 0, [(2, 0), (32, 270)]),
        ("D2-F", 25, 0, [(7, 90), (25, 0)]),  # "\" diagonal: 0 <-> 90
        ("D3-F", 7, 0, [(7, 0), (25, 90)]),
    ],
)
def test_each_fold_type(code, location, direction, expected):
    got, result = holes_of(code, ("letter", "large", direction, location))
    assert got == expected
    stem = {"H1": "H2", "H2": "H1", "V1": "V2", "V2": "V1", "D1": "D4", "D4": "D1", "D2": "D3", "D3": "D2"}
    assert result.unfolding == (f"{stem[code[:2]]}-F",)


@pytest.mark.parametrize(
    "codes, location, direction, expected, unfolding",
    [
        # after H1 the bottom half turns to the right half; grid 8 holds flat 31 and the flap's 7
        ("H1-F,R-90", 8, 90, [(1, 270), (8, 90)], ("V2-F",)),
        # after R-180 the bottom half is on top; grid 4 holds flat 29 and the flap's 5
        ("H1-F,R-180", 4, 0, [(4, 0), (28, 180)], ("H1-F",)),
        # V1 then a clockwise quarter turn: the right half goes to the bottom
        ("V1-F,R-270", 28, 0, [(4, 180), (28, 0)], ("H2-F",)),
    ],
)
def test_each_rotation(codes, location, direction, expected, unfolding):
    got, result = holes_of(codes, ("star", "large", direction, location))
    assert got == expected
    assert result.unfolding == unfolding


def test_rotations_are_never_undone():
    # one hole on the untouched layer: it stays where it was punched, in the rotated frame
    got, _ = holes_of("H1-F,R-90,V1-F", ("circle", "small", "", 8))
    assert (8, "") in got


def test_front_and_back_differ_only_in_codes_and_layers():
    front, rf = holes_of("H1-F,V1-F", ("triangle", "small", 90, 30))
    back, rb = holes_of("H1-B,V1-B", ("triangle", "small", 90, 30))
    assert front == back
    assert rf.unfolding == ("V2-F", "H2-F") and rb.unfolding == ("V2-B", "H2-B")
    from foldsim.trace import trace

    top_f = trace(Config.from_codes("H1-F")).sheet(1).layer
    top_b = trace(Config.from_codes("H1-B")).sheet(1).layer
    assert top_f[0] > top_f[24] and top_b[0] < top_b[24]  # flap (row 0) above / below row 3


def test_punch_through_four_layers():
    got, result = holes_of("V1-F,H1-F", ("star", "small", 0, 30))
    assert [loc for loc, _ in got] == [3, 6, 27, 30]
    assert dict(got) == {30: 0, 27: 0, 6: 180, 3: 180}
    assert result.layers[30] == 4 and len(result.layers) == 8  # a quarter of the sheet, 4 layers deep


def test_flap_that_misses_the_punch():
    # D2 doubles the bottom-left half; H1's small flap lands on the left, away from grid 31
    got, result = holes_of("D2-F,H1-F", ("circle", "large", "", 31))
    assert got == [(31, ""), (32, "")]
    assert result.layers[31] == 2


def test_off_paper_punch():
    [result] = simulate([Config.from_codes("H1-F", [Hole.make("circle", "small", "", 1)], id="x")])
    assert result.status == "off_paper" and result.failed_step == 1
    assert result.reason == "hole 1: location 1 is not on the folded paper"


def test_cut_crease_is_not_realizable():
    # the diagonal of the 4x2 strip left by H1 is not at 45 degrees and cuts triangles
    [result] = simulate([Config.from_codes("H1-F,D1-F", [Hole.make("circle", "small", "", 25)])])
    assert result.status == "not_realizable" and result.failed_step == 2
    assert result.failed_triangle is not None and "crease cuts triangle" in result.reason


def test_fold_with_an_empty_side_is_not_realizable():
    [result] = simulate([Config.from_codes("D1-F,D4-F")])
    assert result.status == "not_realizable" and "holds no paper" in result.reason


def test_folded_state_layers():
    [result] = simulate([Config.from_codes("H1-F")])
    assert result.layers == {i: 2 for i in range(17, 33)}


def test_unfolding_codes_published_example():
    # formats doc §1.4: D3-B, R90, V2-B, R270, H2-B, R270 unfolds as V2-B, V2-B, D4-B
    [result] = simulate([Config.from_codes("D3-B,R-90,V2-B,R-270,H2-B,R-270")])
    assert result.unfolding == ("V2-B", "V2-B", "D4-B")


def test_mirrored_extension_field():
    _, result = holes_of("H1-F", ("text", "large", 0, 28))
    mirrored = {h.location: h.mirrored for h in result.holes}
    assert mirrored == {28: False, 4: True}


# --- bad input -----------------------------------------------------------------------------------

GOOD = {"id": "ok1", "foldingTypes": [{"foldType": "horizontal_top_to_bottom", "foldToFront": True}],
        "initialHoles": [{"shape": "star", "size": "large", "direction": 0, "location": 28}]}


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"foldingTypes": [{"foldType": "sideways", "foldToFront": True}]}, "bad: foldingTypes[0].foldType: unknown foldType 'sideways'"),
        ({"initialHoles": [{"shape": "star", "size": "large", "direction": 0, "location": 33}]}, "bad: initialHoles[0].location: location 33 is outside 1..32"),
        ({"initialHoles": [{"shape": "blob", "size": "large", "direction": 0, "location": 3}]}, "bad: initialHoles[0].shape: unknown shape 'blob'"),
        ({"initialHoles": [{"shape": "star", "size": "huge", "direction": 0, "location": 3}]}, "bad: initialHoles[0].size: unknown size 'huge'"),
        ({"initialHoles": [{"shape": "star", "size": "large", "direction": 45, "location": 3}]}, "bad: initialHoles[0].direction: direction 45 is not a multiple of 90"),
        ({"initialHoles": [{"shape": "star", "size": "large", "direction": 0}]}, "bad: initialHoles[0].location: missing"),
        ({"initialHoles": ["star"]}, "bad: initialHoles[0]: a hole must be an object, got str"),
        ({"foldingTypes": []}, "bad: foldingTypes: missing or not a non-empty list"),
    ],
)
def test_bad_record_is_one_line_naming_item_and_field(patch, message):
    record = {**GOOD, "id": "bad", **patch}
    with pytest.raises(InputError) as info:
        Config.from_record(record)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
    results = simulate([GOOD, record, GOOD])  # the bad item does not stop the batch
    assert [r.status for r in results] == ["ok", "invalid", "ok"]
    assert results[1].reason.startswith(message)


def test_unknown_code():
    with pytest.raises(InputError, match=r"actions\[1\]: unknown action code 'X9-F'"):
        Config.from_codes("H1-F,X9-F")
    assert foldsim.parse_codes(" h1-f , rotation-90 ,V2-b") == ("H1-F", "R-90", "V2-B")


def test_cli_check_bad_file_and_bad_item(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    mixed = tmp_path / "mixed.json"
    bad = {**GOOD, "id": "bad", "initialHoles": [{"shape": "blob", "size": "large", "direction": 0, "location": 3}]}
    good = {**GOOD, "resultHoles": [{"shape": "star", "size": "large", "direction": 0, "location": 28},
                                    {"shape": "star", "size": "large", "direction": 180, "location": 4}],
            "unfoldingTypes": ["H2-F"], "totalNumberofHoles": 2}
    mixed.write_text(json.dumps([good, bad]))
    done = subprocess.run([sys.executable, "-m", "foldsim.cli", "check", "--json", str(broken), str(mixed)],
                          capture_output=True, text=True)
    assert done.returncode == 2  # a file that cannot be read at all: the command could not do its job
    lines = done.stderr.strip().splitlines()
    assert any(str(broken) in line and "invalid JSON" in line for line in lines)
    assert any(line.startswith(f"error: {mixed}: bad: initialHoles[0].shape") for line in lines)
    summaries = json.loads(done.stdout)
    assert summaries[1]["match"] == 1 and summaries[1]["invalid"] == ["bad"]


@pytest.mark.parametrize("args, message", [
    (["check"], "error: foldsim check: Missing argument 'FILES'."),
    (["nosuch"], "error: foldsim: No such command 'nosuch'."),
    (["verify", "--bogus", "a", "b"], "error: foldsim verify: No such option: --bogus"),
])
def test_cli_usage_errors_are_one_line(args, message):
    done = subprocess.run([sys.executable, "-m", "foldsim.cli", *args], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == message
