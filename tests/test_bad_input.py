"""Bad input, case by case (issue 12): a bad record is one `invalid` item whose reason names the item
and the field, and the good items beside it are still processed; a file that cannot be read as a
whole, a bad environment variable or an unwritable output path is one `error:` line and exit 2,
checked before any work; exit codes follow one scheme (0 fine, 1 some items failed or differ, 2 the
command could not run); no traceback ever reaches the user.

Records are built by simulating small configurations (so they match), batches stay within one
kernel shape (at most 8 rows, 6 actions, 4 punches): the whole module compiles once."""

from __future__ import annotations

import codecs
import copy
import errno
import importlib
import json

import pytest

import foldsim.check
import foldsim.enumerate
import foldsim.io
import foldsim.solve
from foldsim import Config, Hole, InputError, simulate
from foldsim.errors import describe
from foldsim.check import check_records
from cli_invoke import invoke
from foldsim.cli import main
from foldsim.cli.common import EXIT_ITEMS, EXIT_OK, EXIT_USAGE, check_output_path
from foldsim.codes import parse_action
from foldsim.io import UnreadableRecord, read_records
from foldsim.solve import solve_tasks
from foldsim.trace import trace

simulate_module = importlib.import_module("foldsim.simulate")  # `foldsim.simulate` is the function
DELETE = object()  # patch value: remove the key


def make_record(item_id: str, codes: str = "H1-F", holes=(("star", "large", 0, 28),)) -> dict:
    """A complete MentalBlackboard record whose recorded results are the simulation's."""
    config = Config.from_codes(codes, [Hole.make(*h) for h in holes], id=item_id)
    [result] = simulate([config])
    assert result.ok, result.reason
    return {"id": item_id, "numberofFoldingSteps": config.pattern.count("F"), "foldingTypes": config.folding_types(),
            "initialHoles": [h.to_dict() for h in config.holes], **result.to_record()}


GOOD_A = make_record("good_a")
GOOD_B = make_record("good_b", "V1-F,H1-F", (("circle", "small", "", 29), ("ellipse", "large", "90, 270", 30)))


def patched(record: dict, path: tuple, value: object) -> dict:
    """A deep copy of `record` with the value at `path` replaced (or removed, for DELETE)."""
    out = copy.deepcopy(record)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


HUGE = 10 ** 5000  # beyond Python's int-string conversion limit (4,300 digits)
# (path, value, the reason's start after "bad: "); a fold or hole problem fails simulate already
RECORD_CASES = [
    (("foldingTypes", 0, "foldType"), [], "foldingTypes[0].foldType: must be a string, got []"),
    (("foldingTypes", 0, "foldType"), {}, "foldingTypes[0].foldType: must be a string, got {}"),
    (("foldingTypes", 0, "foldType"), 5, "foldingTypes[0].foldType: must be a string, got 5"),
    (("foldingTypes", 0, "foldType"), "rotation-45", "foldingTypes[0].foldType: unknown action code 'rotation-45'"),
    (("foldingTypes", 0, "foldType"), "rotation-H3-F", "foldingTypes[0].foldType: unknown action code"),
    (("foldingTypes", 0, "foldToFront"), 1, "foldingTypes[0].foldToFront: foldToFront must be true or false, got 1"),
    (("foldingTypes", 0), 5, "foldingTypes[0]: expected an object with foldType"),
    (("foldingTypes",), "x", "foldingTypes: missing or not a non-empty list"),
    (("foldingTypes",), DELETE, "foldingTypes: missing or not a non-empty list"),
    (("initialHoles",), None, "initialHoles: must be a list, got null"),
    (("initialHoles",), DELETE, "initialHoles: missing"),
    (("initialHoles",), 5, "initialHoles: must be a list, got a number"),
    (("initialHoles", 0), "star", "initialHoles[0]: a hole must be an object, got str"),
    (("initialHoles", 0, "shape"), ["star"], "initialHoles[0].shape: unknown shape ['star']"),
    (("initialHoles", 0, "shape"), {"star": 1}, "initialHoles[0].shape: unknown shape {'star': 1}"),
    (("initialHoles", 0, "size"), 5, "initialHoles[0].size: unknown size 5"),
    (("initialHoles", 0, "size"), ["large"], "initialHoles[0].size: unknown size ['large']"),
    (("initialHoles", 0, "direction"), {}, "initialHoles[0].direction: direction {} is not an angle"),
    (("initialHoles", 0, "direction"), True, "initialHoles[0].direction: direction True is not an angle"),
    (("initialHoles", 0, "direction"), float("-inf"), "initialHoles[0].direction: direction -inf is not an angle"),
    (("initialHoles", 0, "direction"), "9" * 5000, "initialHoles[0].direction: direction '9999"),
    (("initialHoles", 0, "location"), True, "initialHoles[0].location: location True is not a grid id"),
    (("initialHoles", 0, "location"), float("nan"), "initialHoles[0].location: location nan is not a grid id"),
    (("initialHoles", 0, "location"), float("inf"), "initialHoles[0].location: location inf is not a grid id"),
    (("initialHoles", 0, "location"), 1e300, "initialHoles[0].location: location 1000000000"),
    (("initialHoles", 0, "location"), HUGE, "initialHoles[0].location: location <16610-bit integer> is outside 1..32"),
    (("initialHoles", 0, "location"), "9" * 5000, "initialHoles[0].location: location '9999"),
    (("initialHoles", 0, "location"), DELETE, "initialHoles[0].location: missing"),
]
# problems only `check` sees: the recorded results it compares with
CHECK_CASES = [
    (("unfoldingTypes",), 5, "unfoldingTypes: must be a list, got a number"),
    (("unfoldingTypes",), "H2-F", "unfoldingTypes: must be a list, got a string"),
    (("unfoldingTypes",), DELETE, "unfoldingTypes: missing"),
    (("unfoldingTypes", 0), "H3-F", "unfoldingTypes[0]: unknown action code 'H3-F'"),
    (("unfoldingTypes", 0), "V3-F", "unfoldingTypes[0]: unknown action code 'V3-F'"),
    (("unfoldingTypes", 0), "D5-B", "unfoldingTypes[0]: unknown action code 'D5-B'"),
    (("unfoldingTypes", 0), 7, "unfoldingTypes[0]: action 7 is not a code string"),
    (("resultHoles",), None, "resultHoles: must be a list, got null"),
    (("resultHoles",), DELETE, "resultHoles: missing"),
    (("resultHoles", 0, "shape"), ["star"], "resultHoles[0].shape: unknown shape ['star']"),
    (("resultHoles", 0, "location"), HUGE, "resultHoles[0].location: location <16610-bit integer> is outside 1..32"),
]


def case_id(case) -> str:
    path, value, _ = case
    return ".".join(map(str, path)) + "=" + ("DELETE" if value is DELETE else describe(value, 20))


@pytest.mark.parametrize("case", RECORD_CASES + CHECK_CASES, ids=case_id)
def test_bad_field_is_one_invalid_item_naming_item_and_field(case):
    path, value, expected = case
    bad = patched({**GOOD_A, "id": "bad"}, path, value)
    checked = check_records([GOOD_A, bad, GOOD_B])
    assert [i.verdict for i in checked.items] == ["match", "invalid", "match"]
    reason = checked.items[1].reason
    assert reason.startswith(f"bad: {expected}"), reason
    assert "\n" not in reason and len(reason) < 300
    if case in RECORD_CASES:  # the simulator and the tracer say the same, without stopping the batch
        assert [r.status for r in simulate([GOOD_A, bad, GOOD_B])] == ["ok", "invalid", "ok"]
        with pytest.raises(InputError) as raised:
            trace(bad)
        assert str(raised.value) == reason


@pytest.mark.parametrize("value, kind", [([1, 2], "an array"), ("star", "a string"), (5, "a number"), (None, "null")])
def test_a_record_that_is_not_an_object_is_one_bad_item(value, kind):
    checked = check_records([GOOD_A, value, GOOD_B])
    assert [i.verdict for i in checked.items] == ["match", "invalid", "match"]
    assert checked.items[1].reason == f"item 1: a record must be an object, got {kind}"


@pytest.mark.parametrize("code", ["H3-F", "V3-F", "H4-B", "V4-F", "D5-B", "D0-F", "R-45", "X1-F", "H1-X", ""])
def test_codes_that_are_no_action_are_input_errors(code):
    with pytest.raises(InputError, match="unknown action code"):
        parse_action(code)
    with pytest.raises(InputError, match=r"^x: actions\[1\]: unknown action code"):
        Config.from_codes(["H1-F", code], id="x")


def test_configs_built_directly_are_checked_before_the_kernel():
    """A Config or Hole made without the parsers can hold what the kernel would silently misread."""
    good = Config.from_codes("H1-F", [Hole.make("star", "large", 0, 28)], id="good")
    bad = [Config(("H3-F",), (), "code"), Config(("H1-F",), (Hole("blob", "large", 0, 3),), "shape"),
           Config(("H1-F",), (Hole("star", "large", 0, 99),), "location")]
    results = simulate([good, *bad, good])
    assert [r.status for r in results] == ["ok", "invalid", "invalid", "invalid", "ok"]
    assert results[1].reason == "code: actions[0]: unknown action code 'H3-F'"
    assert results[2].reason.startswith("shape: holes[0]: not a valid hole")
    assert results[3].reason.startswith("location: holes[0]: not a valid hole")


def test_an_unexpected_exception_is_that_items_internal_error(monkeypatch):
    real = simulate_module.as_config

    def flaky(item, index):
        if isinstance(item, dict) and item.get("id") == "boom":
            raise RuntimeError("kaput")
        return real(item, index)

    monkeypatch.setattr(simulate_module, "as_config", flaky)
    results = simulate([GOOD_A, {**GOOD_A, "id": "boom"}, GOOD_B])
    assert [r.status for r in results] == ["ok", "invalid", "ok"]
    assert results[1].id == "boom"
    assert results[1].reason == ("boom: internal error: RuntimeError: kaput "
                                 "(a bug; rerun with FOLDSIM_DEBUG=1 for the traceback)")
    monkeypatch.setenv("FOLDSIM_DEBUG", "1")
    with pytest.raises(RuntimeError, match="kaput"):
        simulate([GOOD_A, {**GOOD_A, "id": "boom"}])


def test_an_unexpected_exception_in_a_comparison_is_that_items(monkeypatch):
    real = foldsim.check.compare
    monkeypatch.setattr(foldsim.check, "compare",
                        lambda record, result: real(record, result) if result.id != "boom" else 1 / 0)
    checked = check_records([GOOD_A, {**GOOD_A, "id": "boom"}, GOOD_B])
    assert [i.verdict for i in checked.items] == ["match", "invalid", "match"]
    assert checked.items[1].reason.startswith("boom: internal error: ZeroDivisionError: division by zero")


# -- files -------------------------------------------------------------------------------------------



def error_lines(result) -> list[str]:
    lines = result.stderr.splitlines()
    assert all(line.startswith("error: ") for line in lines), result.stderr
    return lines


TWO_GOOD = json.dumps([GOOD_A, GOOD_B])
LATIN1 = json.dumps([{**GOOD_A, "id": "café"}], ensure_ascii=False).encode("latin-1")
# (file name, bytes, the one error line's text after "error: <path>: ")
WHOLE_FILE_CASES = [
    ("latin1.json", LATIN1, f"not UTF-8: byte 0xe9 at byte offset {LATIN1.index(b'caf') + 3} (save the file as UTF-8)"),
    ("utf16-no-bom.json", TWO_GOOD.encode("utf-16-le"), "NUL byte at byte offset 1: UTF-16 without a byte-order mark"),
    ("utf16-no-bom-accents.json", "[\u00e9".encode("utf-16-be"), "NUL byte at byte offset 0: UTF-16 without a byte-order mark"),
    ("bad-utf16.json", codecs.BOM_UTF16_LE + b"[\x00\x00\xdc", "not UTF-16 (as its byte-order mark says): byte 0x00 at byte offset 4"),
    ("empty.json", b"", "empty file, not a JSON array of records"),
    ("blank.json", b" \n\t\n", "empty file, not a JSON array of records"),
    ("prose.json", b"hello world", "not JSON, and not JSON Lines either: line 1: invalid JSON at column 1"),
    ("number.json", b"42", "expected a JSON array of records, got a number"),
    ("string.json", b'"x"', "expected a JSON array of records, got a string"),
    ("null.json", b"null", "expected a JSON array of records, got null"),
    ("true.json", b"true", "expected a JSON array of records, got a boolean"),
    ("deep.json", b"[" * 100_000, "nested deeper than"),
    ("deep-object.json", b'{"a":' * 100_000, "nested deeper than"),
    ("truncated.json", TWO_GOOD[:-20].encode(), "invalid JSON at line 1 column"),
    ("all-bad.jsonl", b"{oops\nnope\n", "not JSON, and not JSON Lines either: line 1: invalid JSON at column 2"),
]


@pytest.mark.parametrize("name, data, message", WHOLE_FILE_CASES, ids=[c[0] for c in WHOLE_FILE_CASES])
def test_a_file_that_cannot_be_read_is_one_line_and_exit_2(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as raised:
        read_records(path)
    assert str(raised.value).startswith(f"{path}: {message}"), str(raised.value)
    done = invoke("check", str(path))
    assert done.exit_code == EXIT_USAGE
    assert error_lines(done) == [f"error: {raised.value}"]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32", "utf-8-sig"])
def test_files_with_a_byte_order_mark_are_decoded(tmp_path, codec):
    path = tmp_path / "bom.json"
    bom = {"utf-16-be": codecs.BOM_UTF16_BE}.get(codec, b"")  # "utf-16"/"utf-32"/"utf-8-sig" write their own
    path.write_bytes(bom + TWO_GOOD.encode(codec))
    done = invoke("check", "--json", str(path))
    assert done.exit_code == EXIT_OK, done.output
    assert json.loads(done.stdout)["match"] == 2


def test_missing_file_and_directory_are_one_line(tmp_path):
    for path in (tmp_path / "nope.json", tmp_path):
        done = invoke("check", str(path))
        assert done.exit_code == EXIT_USAGE
        assert error_lines(done) == [f"error: {path}: cannot read: " + ("No such file or directory" if path != tmp_path else "Is a directory")]


def test_jsonl_bad_lines_are_bad_items_and_the_other_lines_are_read(tmp_path):
    path = tmp_path / "data.jsonl"
    lines = [json.dumps(GOOD_A), "{not json", "", "[" * 5000, json.dumps(GOOD_B),
             json.dumps({**GOOD_A, "id": "big"}).replace('"location": 28', '"location": ' + "9" * 5000)]
    path.write_text("\n".join(lines) + "\n")
    records = read_records(path)
    assert records[1] == UnreadableRecord("line 2", "invalid JSON at column 2: Expecting property name enclosed in double quotes")
    assert records[2] == UnreadableRecord("line 4", "nested too deep to read")
    done = invoke("check", "--json", str(path))
    assert done.exit_code == EXIT_ITEMS
    summary = json.loads(done.stdout)
    assert summary["match"] == 2 and summary["invalid"] == ["line 2", "line 4", "big"]
    assert error_lines(done) == [
        f"error: {path}: line 2: invalid JSON at column 2: Expecting property name enclosed in double quotes",
        f"error: {path}: line 4: nested too deep to read",
        f"error: {path}: big: initialHoles[0].location: location <a 5000-digit number> is not a grid id",
    ]


def test_json_array_bad_elements_are_bad_items(tmp_path):
    path = tmp_path / "data.json"
    text = json.dumps([GOOD_A, 5, {**GOOD_A, "id": "big"}, GOOD_B]).replace('"location": 28', '"location": ' + "9" * 5000, 1)
    path.write_text(text)
    done = invoke("check", "--json", str(path))
    assert done.exit_code == EXIT_ITEMS
    assert json.loads(done.stdout)["invalid"] == ["good_a", "item 1"]  # the first location replaced is good_a's
    assert error_lines(done) == [
        f"error: {path}: good_a: initialHoles[0].location: location <a 5000-digit number> is not a grid id",
        f"error: {path}: item 1: a record must be an object, got a number",
    ]


def test_check_exit_codes_follow_the_scheme(tmp_path):
    good, mismatch, invalid, broken = (tmp_path / f"{n}.json" for n in ("good", "mismatch", "invalid", "broken"))
    good.write_text(TWO_GOOD)
    mismatch.write_text(json.dumps([GOOD_A, patched(GOOD_B, ("resultHoles", 0, "location"), 32)]))
    invalid.write_text(json.dumps([GOOD_A, patched(GOOD_B, ("initialHoles",), None)]))
    broken.write_text("[{")
    assert invoke("check", str(good)).exit_code == EXIT_OK
    assert invoke("check", str(mismatch)).exit_code == EXIT_ITEMS
    assert invoke("check", str(invalid)).exit_code == EXIT_ITEMS
    assert invoke("check", str(good), str(mismatch)).exit_code == EXIT_ITEMS
    both = invoke("check", str(good), str(broken))  # the readable file is still checked and reported
    assert both.exit_code == EXIT_USAGE and "good.json: 2/2 match" in both.stdout
    assert error_lines(both) == [f"error: {broken}: invalid JSON at line 1 column 3: Expecting property name enclosed in double quotes"]


def test_error_lines_stay_one_line_whatever_the_id_holds(tmp_path):
    path = tmp_path / "odd.json"
    odd = patched({**GOOD_A, "id": "x[/]\n[red]y:smile:"}, ("initialHoles", 0, "size"), "huge\r\nsecond")
    path.write_text(json.dumps([odd, GOOD_B]))
    done = invoke("check", str(path))
    assert done.exit_code == EXIT_ITEMS
    assert error_lines(done) == [
        f"error: {path}: x[/]\\n[red]y:smile:: initialHoles[0].size: unknown size 'huge\\r\\nsecond' (expected small or large)"]


# -- environment -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["abc", "-5", "0", "0.0001", "9" * 5000, "1e9", "64 MB x"])
def test_a_bad_memory_budget_is_one_line_and_exit_2(tmp_path, value):
    path = tmp_path / "good.json"
    path.write_text(TWO_GOOD)
    for args in (["check", str(path)], ["solve", str(path)]):
        done = invoke(*args, env={"FOLDSIM_MEMORY_BUDGET": value})
        assert done.exit_code == EXIT_USAGE and done.stdout == ""
        [line] = error_lines(done)
        assert line.startswith("error: FOLDSIM_MEMORY_BUDGET: ") and len(line) < 200


def test_help_works_whatever_the_memory_budget_says():
    """Asking for a command's help needs no budget: the help, not the variable's error."""
    done = invoke("check", "--help", env={"FOLDSIM_MEMORY_BUDGET": "abc"})
    assert done.exit_code == EXIT_OK and "Usage" in done.stdout and "FOLDSIM_MEMORY_BUDGET" not in done.stdout


@pytest.mark.parametrize("value", ["1000000T", "1", " 64M "])
def test_any_positive_memory_budget_runs(tmp_path, value):
    """Tiny or huge, the chunk size is clamped to the row ladder (8 .. 65,600 rows)."""
    path = tmp_path / "good.json"
    path.write_text(TWO_GOOD)
    done = invoke("check", "--json", str(path), env={"FOLDSIM_MEMORY_BUDGET": value})
    assert done.exit_code == EXIT_OK and json.loads(done.stdout)["match"] == 2


# -- output paths ------------------------------------------------------------------------------------


def unwritable_outputs(tmp_path, kind: str = "file") -> dict:
    """Output paths that cannot be written as a `kind` ("file" or "dir"), and the end of their error
    line (devices, FIFOs and sockets: tests/test_output_paths.py)."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    wrong_kind = {tmp_path: "is a directory, expected a file"} if kind == "file" else \
        {a_file: "is a file, expected a directory"}
    return {
        **wrong_kind,
        a_file / "out.json": f"{a_file} is not a directory",
        a_file / "sub" / "out.json": f"{a_file} is not a directory",
        # /sys refuses new files even to root (a read-only folder would not stop root)
        __import__("pathlib").Path("/sys/foldsim-test-output.json"): "cannot write there: Permission denied",
    }


#: a general item (foldsim.sheets) for the general commands
GENERAL_ITEM = {"id": "g", "sheet": {"cols": 3, "rows": 3}, "punches": [{"x": "3/2", "y": "1/2"}],
                "actions": [{"type": "fold", "line": {"family": "V", "at": 1}, "moves": "left"}]}
#: every command that writes an --out: its arguments ({tasks}: a MentalBlackboard file, {items}: a
#: general items file) and what --out must be
OUT_COMMANDS = {
    "enumerate": (["enumerate", "--rules", "planning", "--pattern", "F"], "file"),
    "solve": (["solve", "{tasks}"], "file"),
    "simulate": (["simulate", "{items}"], "file"),
    "fold": (["fold", "{items}"], "dir"),
    "render-item": (["render-item", "{items}", "--images"], "dir"),
    "enumerate --sheet": (["enumerate", "--sheet", "2x2", "--folds", "1"], "file"),
    "solve --sheet": (["solve", "--sheet", "2x2", "--folds", "1", "--target", '[["1/2", "1/2"]]'], "file"),
    "generate --family": (["generate", "--family", "srbench", "--count", "1", "--no-media"], "dir"),
}


@pytest.mark.parametrize("command", list(OUT_COMMANDS))
def test_output_paths_are_checked_before_any_work(tmp_path, monkeypatch, command):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([GOOD_A]))
    items = tmp_path / "items.json"
    items.write_text(json.dumps([GENERAL_ITEM]))
    calls = []
    monkeypatch.setattr(foldsim.enumerate, "enumeration_report", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(foldsim.solve, "solve_file", lambda *a, **k: calls.append(a))
    arguments, kind = OUT_COMMANDS[command]
    args = [a.format(tasks=tasks, items=items) for a in arguments]
    for path, message in unwritable_outputs(tmp_path, kind).items():
        done = invoke(*args, "--out", str(path))
        assert done.exit_code == EXIT_USAGE
        assert error_lines(done) == [f"error: --out: {path}: {message}"]
    assert calls == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "items.json", "tasks.json"]  # nothing made


def test_output_path_kinds(tmp_path):
    (tmp_path / "file").write_text("x")
    assert check_output_path(tmp_path / "new" / "deeper" / "out.json") == tmp_path / "new" / "deeper" / "out.json"
    assert check_output_path(tmp_path, "dir") == tmp_path
    assert check_output_path(tmp_path / "new-dir", "dir") == tmp_path / "new-dir"
    assert not (tmp_path / "new").exists() and not (tmp_path / "new-dir").exists()  # nothing is created
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # the probe file is gone
    done = invoke("enumerate", "--rules", "planning", "--pattern", "F", "--out", str(tmp_path / "file" / "x"))
    assert done.exit_code == EXIT_USAGE


def test_a_write_that_fails_at_the_end_is_one_line(tmp_path, monkeypatch):
    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(foldsim.io, "atomic_write_bytes", full)
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([GOOD_A]))
    for args in (["enumerate", "--rules", "planning", "--pattern", "F"], ["solve", str(tasks)]):
        out = tmp_path / "out.bin"
        done = invoke(*args, "--out", str(out))
        assert done.exit_code == EXIT_USAGE
        assert error_lines(done) == [f"error: --out: {out}: cannot write: No space left on device"]
        assert not out.exists()


# -- solve -------------------------------------------------------------------------------------------


def test_solve_reports_each_bad_task_and_solves_the_others(tmp_path):
    path = tmp_path / "tasks.json"
    bad = [patched({**GOOD_A, "id": "no_target"}, ("resultHoles",), None),
           {**GOOD_A, "id": "bool_folds", "numberofFoldingSteps": True},
           {**GOOD_A, "id": "many_folds", "numberofFoldingSteps": 10 ** 18},
           patched({**GOOD_A, "id": "shape"}, ("resultHoles", 0, "shape"), ["star"]),
           "junk"]
    path.write_text(json.dumps([GOOD_A, *bad, GOOD_B]))
    done = invoke("solve", "--json", str(path))
    assert done.exit_code == EXIT_ITEMS
    summary = json.loads(done.stdout)
    solved = {i["id"]: i["solutions"] for i in summary["items"] if "error" not in i}
    assert set(solved) == {"good_a", "good_b"} and all(solved.values())
    assert error_lines(done) == [
        f"error: {path}: no_target: resultHoles: missing or not a list (the holes a plan must produce)",
        f"error: {path}: bool_folds: numberofFoldingSteps: True is not a positive number of folds",
        f"error: {path}: many_folds: numberofFoldingSteps: 1000000000000000000 folds: more than any plan can hold (32,767)",
        f"error: {path}: shape: resultHoles[0].shape: unknown shape ['star'] (expected one of circle, square, "
        "ellipse, rectangle, triangle, trapezoid, star, letter, text)",
        f"error: {path}: item 5: a record must be an object, got a string",
    ]
    only_bad = tmp_path / "only-bad.json"  # nothing left to search: still one line per task, exit 1
    only_bad.write_text(json.dumps(bad[:2]))
    done = invoke("solve", str(only_bad))
    assert done.exit_code == EXIT_ITEMS and len(error_lines(done)) == 2
    human = invoke("solve", str(path))
    assert human.exit_code == EXIT_ITEMS and "5 tasks could not be read" in human.stdout
    assert invoke("solve", str(tmp_path / "nope.json")).exit_code == EXIT_USAGE


def test_solve_survives_an_unexpected_exception_per_task(monkeypatch):
    real = foldsim.solve.planning_task
    monkeypatch.setattr(foldsim.solve, "planning_task",
                        lambda record, index: real(record, index) if record.get("id") != "boom" else {}["x"])
    results = solve_tasks([GOOD_A, {**GOOD_A, "id": "boom"}])
    assert results[0].count > 0 and not results[0].error
    assert results[1].error.startswith("boom: internal error: KeyError: 'x'")


# -- the last resort in main() -----------------------------------------------------------------------


def test_main_turns_an_escaped_exception_into_one_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "good.json"
    path.write_text(TWO_GOOD)
    monkeypatch.setattr(foldsim.check, "check_file", lambda p, **kw: (_ for _ in ()).throw(RuntimeError("boom\nsecond line")))
    with pytest.raises(SystemExit) as exited:
        main(["check", str(path)])
    assert exited.value.code == EXIT_USAGE
    assert capsys.readouterr().err == ("error: internal error: RuntimeError: boom second line "
                                       "(a bug; rerun with FOLDSIM_DEBUG=1 for the traceback)\n")
    monkeypatch.setattr(foldsim.check, "check_file", lambda p, **kw: (_ for _ in ()).throw(InputError("bad", item="it")))
    with pytest.raises(SystemExit) as exited:
        main(["check", str(path)])
    assert exited.value.code == EXIT_USAGE and capsys.readouterr().err == "error: it: bad\n"
    monkeypatch.setenv("FOLDSIM_DEBUG", "1")
    with pytest.raises(InputError):
        main(["check", str(path)])


def test_ctrl_c_is_one_line_and_exit_130(tmp_path, monkeypatch, capsys):
    """Typer would turn Ctrl-C into a silent exit 130; the user is told what was kept."""
    path = tmp_path / "good.json"
    path.write_text(TWO_GOOD)

    def interrupted(_path, **_options):
        raise KeyboardInterrupt

    monkeypatch.setattr(foldsim.check, "check_file", interrupted)
    with pytest.raises(SystemExit) as exited:
        main(["check", str(path)])
    assert exited.value.code == 130
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("error: interrupted (no output is left half-written")
