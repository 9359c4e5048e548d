"""Fuzzing records, files, environment values and output paths (issue 12 item 6, the records/files
part): published records mutated field by field, random JSON, random bytes, other encodings and
JSON Lines with bad lines are driven through simulate, check_records/check_file, trace, solve and
the `check`/`solve` commands. Asserted for every input: no exception escapes (and no item is an
"internal error": every bad input is an InputError naming its item and field), every bad item is
reported by its name in one line, the good items beside it are processed exactly as without it,
and exit codes follow the scheme (0 fine, 1 some items failed or differ, 2 the command could not run).

Batches stay within one kernel shape (<= 8 rows, <= 6 actions, <= 4 punches), so the whole module
compiles the simulator once; examples scale with FOLDSIM_FUZZ_EXAMPLES (see conftest.fuzz_settings)."""

from __future__ import annotations

import codecs
import copy
import json
from pathlib import Path

import pytest
import typer
from hypothesis import assume, given
from hypothesis import strategies as st

from conftest import GENERALIZATION, PLANNING, fuzz_settings, require
from foldsim.batching import MEMORY_BUDGET_ENV, parse_memory_budget
from foldsim.check import MATCH, check_file, check_records
from cli_invoke import invoke
from foldsim.cli.common import EXIT_ITEMS, EXIT_OK, EXIT_USAGE, check_output_path
from foldsim.errors import InputError
from foldsim.io import record_name
from foldsim.planning import planning_task
from foldsim.simulate import STATUS_INVALID, simulate
from foldsim.trace import trace

pytestmark = pytest.mark.fuzz

VERDICTS = {"match", "mismatch", "not_realizable", "off_paper", "invalid"}
#: fields check compares or simulates; a change anywhere else must leave the verdict `match`
READ_FIELDS = ("foldingTypes", "initialHoles", "resultHoles", "unfoldingTypes")
POOL_SIZE = 16


@pytest.fixture(scope="module")
def pool() -> list[dict]:
    """Published records that match (planning and generalization, 1-4 folds, rotations too), each
    within the module's kernel shape (checked 8 at a time, the fuzzed batches' shape)."""
    records = [*json.loads(require(PLANNING).read_text())[::40], *json.loads(require(GENERALIZATION).read_text())[::40]]
    verdicts = [i.verdict for start in range(0, len(records), 8) for i in check_records(records[start : start + 8]).items]
    good = [r for r, verdict in zip(records, verdicts) if verdict == MATCH]
    assert len(good) >= POOL_SIZE
    return good[:POOL_SIZE]


@pytest.fixture(scope="module")
def planning_pool() -> list[dict]:
    """Published planning tasks of 1 and 2 folds (cheap to solve exhaustively)."""
    records = json.loads(require(PLANNING).read_text())
    return [r for r in records if r["numberofFoldingSteps"] <= 2][:8]


# -- strategies --------------------------------------------------------------------------------------

class Marker(str):
    """Stands in a strategy for a value Hypothesis cannot print (it reprs what it draws, and repr
    fails on an int beyond Python's digit limit) or should not copy around; `realize` swaps it in."""


HUGE, MINUS_HUGE, DEEP = Marker("<10**5000>"), Marker("<-10**5000>"), Marker("<5000-deep list>")
SPECIAL = ["star", "large", "small", "circle", "H1-F", "H3-F", "V3-F", "D5-B", "R-90", "rotation-90", "rotation-45",
           "0, 180", "90, 270", "0, 90", "horizontal_top_to_bottom", "", " ", "9" * 5000, "\n", "[/]", "\u2028"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2 ** 70), 2 ** 70), st.sampled_from([HUGE, MINUS_HUGE, 0, 32, 33, 90]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.sampled_from(SPECIAL))
KEYS = st.sampled_from(["id", "shape", "size", "direction", "location", "foldType", "foldToFront", "x"]) | st.text(max_size=6)
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                           max_leaves=8)
VALUES = JSON_VALUES | st.sampled_from([DEEP, {"shape": [[["star"]]]}])


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def realize(value: object) -> object:
    """A drawn value with its markers replaced by what they stand for."""
    if isinstance(value, Marker):
        return {HUGE: 10 ** 5000, MINUS_HUGE: -(10 ** 5000), DEEP: nested(5000)}[value]
    if isinstance(value, list):
        return [realize(v) for v in value]
    if isinstance(value, dict):
        return {k: realize(v) for k, v in value.items()}
    return value


OPS = st.sampled_from(["set", "set", "set", "delete", "wrap", "stringify", "bool"])


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path into a record (keys and list indices), its root excluded."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


def mutated(record: dict, path: tuple, op: str, value: object) -> dict:
    """A copy of `record` with one change at `path`."""
    out = copy.deepcopy(record)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    key, old = path[-1], parent[path[-1]]
    if op == "delete":
        del parent[key]
    else:
        parent[key] = {"set": realize(value), "wrap": [old], "stringify": str(old), "bool": True}[op]
    return out


@st.composite
def record_batches(draw, pool: list[dict]) -> tuple[list, dict[int, tuple]]:
    """1-6 records from the pool, some changed at one path: (records, {index: mutated path})."""
    records, changes = [], {}
    for index in range(draw(st.integers(1, 6))):
        record = copy.deepcopy(pool[draw(st.integers(0, len(pool) - 1))])
        if draw(st.booleans()):
            path = draw(st.sampled_from(paths(record)))
            record = mutated(record, path, draw(OPS), draw(VALUES))
            changes[index] = path
        records.append(record)
    return records, changes


def assert_item(record: object, path: tuple | None, item, index: int, line: int | None = None) -> None:
    """What every checked item must satisfy (see the module docstring); `path` is where the record
    was changed (None: untouched), `index` its position in what was read, `line` its JSON Lines line
    (an id-less record read from JSON Lines is named by its line, "line 4", not its position)."""
    assert item.verdict in VERDICTS
    expected = record_name(record, index)
    if line is not None and expected == record_name(None, index):
        expected = f"line {line}"
    assert item.id == expected
    if item.verdict == STATUS_INVALID:
        assert item.reason.startswith(f"{item.id}: "), item.reason
        assert "\n" not in item.reason and len(item.reason) < 600, item.reason
        assert "internal error" not in item.reason, item.reason
    if path is None or path[0] not in READ_FIELDS:  # untouched, or only a field check does not read
        assert item.verdict == MATCH, (path, item)
    elif item.verdict == STATUS_INVALID:
        assert path[0] in item.reason, (path, item.reason)


def assert_item_rules(records: list, changes: dict[int, tuple], items: list) -> None:
    assert len(items) == len(records)
    for index, (record, item) in enumerate(zip(records, items)):
        assert_item(record, changes.get(index), item, index)


# -- records -----------------------------------------------------------------------------------------


@fuzz_settings(0.1)
@given(data=st.data())
def test_mutated_records_are_invalid_items_never_crashes(pool, data):
    records, changes = data.draw(record_batches(pool))
    checked = check_records(records)
    assert_item_rules(records, changes, checked.items)
    [simulated] = simulate([records[0]])  # trace reads what the simulator reads, and says the same
    try:
        history = trace(records[0])
    except InputError as error:
        assert simulated.status == STATUS_INVALID and str(error) == simulated.reason
    else:
        assert simulated.status != STATUS_INVALID and history.config.id == checked.items[0].id


@fuzz_settings(0.05)
@given(drawn=st.lists(VALUES, min_size=1, max_size=6))
def test_random_values_as_records_are_invalid_items(drawn):
    values = realize(drawn)
    checked = check_records(values)
    assert len(checked.items) == len(values)
    for index, item in enumerate(checked.items):
        assert item.verdict == STATUS_INVALID and "internal error" not in item.reason
        assert item.reason.startswith(f"{record_name(values[index], index)}: ") and "\n" not in item.reason


# -- files -------------------------------------------------------------------------------------------

ENCODINGS = {
    "utf-8": lambda text: text.encode("utf-8"),
    "utf-8-sig": lambda text: text.encode("utf-8-sig"),
    "utf-16": lambda text: text.encode("utf-16"),
    "utf-16-be+bom": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
    "utf-32": lambda text: text.encode("utf-32"),
}
UNREADABLE_ENCODINGS = {  # (encode, how the one error line starts after the path)
    "utf-16-le": (lambda text: text.encode("utf-16-le"), "NUL byte at byte offset"),
    "latin-1": (lambda text: text.encode("latin-1", "replace"), "not UTF-8: byte 0x"),
}
#: lines that are not records; never a NUL byte: a text file holding one is refused whole, as UTF-16
#: without a byte-order mark or not text at all (docs/errors.md), which test_bad_input checks
GARBAGE_LINES = st.one_of(
    st.text(max_size=30).map(lambda t: "{" + t.replace("\n", " ").replace("\x00", " ")),
    st.sampled_from(["[" * 3000, '{"id": 1', "nope", '{"id": "x",}', "{'id': 'x'}", '{"location": ' + "9" * 5000 + "}"]),
    JSON_VALUES.map(lambda v: cut_json(realize(v)).replace("\x00", " ")),
)


def cut_json(value: object) -> str:
    """JSON text of a value with its last character cut (or "{" where it has no JSON text)."""
    try:
        return json.dumps(value)[:-1] or "{"
    except ValueError:  # an int beyond the digit limit
        return "{"


def jsonl_lines(records: list, garbage: list[str], slots: list[int]) -> list[tuple[str, int | None]]:
    """JSON Lines lines: (text, index of the record it holds, None for a garbage line), the records
    in order with the garbage lines inserted at `slots`."""
    lines: list[tuple[str, int | None]] = [(json.dumps(r, ensure_ascii=False), i) for i, r in enumerate(records)]
    for slot, line in zip(slots, garbage):
        lines.insert(min(slot, len(lines)), (line, None))
    return lines


def is_json(line: str) -> bool:
    """The oracle: whether a line is JSON (integers of any length allowed, as the reader does)."""
    try:
        json.loads(line, parse_int=str)
    except (ValueError, RecursionError):
        return False
    return True


@st.composite
def files(draw, pool: list[dict]):
    """(file name, bytes, expectation): expectation is ("records", records, changes) for a file whose
    records must be read as given, ("jsonl", records, changes, bad line numbers), ("unreadable",
    message start), or ("any",) for random content."""
    kind = draw(st.sampled_from(["array", "array", "jsonl", "jsonl", "unreadable", "truncated", "bytes", "value"]))
    if kind in ("array", "unreadable", "truncated"):
        records, changes = draw(record_batches(pool))
        try:
            text = json.dumps(records, ensure_ascii=draw(st.booleans()))
        except (ValueError, RecursionError):  # NaN is fine for json.dumps; a 5000-deep list is not
            return "deep.json", b"[" * 5000, ("unreadable", "nested deeper than")
        if kind == "array":
            encoding = draw(st.sampled_from(sorted(ENCODINGS)))
            return "data.json", ENCODINGS[encoding](text), ("records", records, changes)
        if kind == "unreadable":
            encode, message = UNREADABLE_ENCODINGS[draw(st.sampled_from(sorted(UNREADABLE_ENCODINGS)))]
            return "data.json", encode(text if message.startswith("NUL") else "\u00e9" + text), ("unreadable", message)
        cut = draw(st.integers(1, len(text) - 1))
        return "data.json", text[:cut].encode(), ("any",)
    if kind == "jsonl":
        records, changes = draw(record_batches(pool))
        if any(paths_hold_unserialisable(r) for r in records):
            return "data.jsonl", b"\n", ("unreadable", "empty file")
        garbage = draw(st.lists(GARBAGE_LINES, max_size=3))
        slots = draw(st.lists(st.integers(0, 8), min_size=len(garbage), max_size=len(garbage)))
        lines = jsonl_lines(records, garbage, slots)
        text = "\n".join(line for line, _ in lines) + draw(st.sampled_from(["", "\n", "\r\n\n"]))
        return "data.jsonl", text.encode(), ("jsonl", records, changes, lines)
    if kind == "bytes":
        return draw(st.sampled_from(["data.json", "data.jsonl"])), draw(st.binary(max_size=200)), ("any",)
    value = realize(draw(VALUES))
    try:
        return "data.json", json.dumps(value).encode(), ("any",)
    except (ValueError, RecursionError):
        return "data.json", b"[" * 5000, ("unreadable", "nested deeper than")


def paths_hold_unserialisable(record: object) -> bool:
    try:
        json.dumps(record)
    except (ValueError, RecursionError):
        return True
    return False


def assert_file_rules(path: Path, expect: tuple, fc) -> None:
    """What check_file must give for a fuzzed file."""
    if fc.error is not None:
        assert fc.items == [] and fc.error.startswith(f"{path}: ") and "\n" not in fc.error, fc.error
        assert len(fc.error) < 600 and "internal error" not in fc.error
    if expect[0] == "unreadable":
        assert fc.error is not None and fc.error.startswith(f"{path}: {expect[1]}"), fc.error
    elif expect[0] == "records":
        assert fc.error is None, fc.error
        assert_item_rules(expect[1], expect[2], fc.items)
    elif expect[0] == "jsonl" and expect[1]:  # at least one good line: the file is read line by line
        _, records, changes, lines = expect
        assert fc.error is None, fc.error
        numbered = [(number, text, index) for number, (text, index) in enumerate(lines, 1) if text.strip()]
        assert len(fc.items) == len(numbered)
        for position, ((number, text, index), item) in enumerate(zip(numbered, fc.items)):
            if index is not None:
                assert_item(records[index], changes.get(index), item, position, line=number)
            elif not is_json(text):  # a bad line: one bad item named by its line number
                assert item.verdict == STATUS_INVALID and item.id == f"line {number}", (text, item)
            else:
                assert item.verdict in VERDICTS and "internal error" not in item.reason
    else:
        for item in fc.items:
            assert item.verdict in VERDICTS and "internal error" not in item.reason and "\n" not in item.reason


@fuzz_settings(0.1)
@given(data=st.data())
def test_fuzzed_files_are_read_item_by_item_or_refused_in_one_line(pool, tmp_path, data):
    name, content, expect = data.draw(files(pool))
    path = tmp_path / name
    path.write_bytes(content)
    assert_file_rules(path, expect, check_file(path))


# -- the commands ------------------------------------------------------------------------------------


def invoke_lines(*args: str, env: dict | None = None):
    result = invoke(*args, env=env)
    lines = result.stderr.splitlines()
    assert all(line.startswith("error: ") for line in lines), result.stderr
    return result, lines

@fuzz_settings(0.03)
@given(data=st.data())
def test_check_command_reports_every_bad_item_and_exits_by_the_scheme(pool, tmp_path, data):
    name, content, expect = data.draw(files(pool))
    path = tmp_path / name
    path.write_bytes(content)
    fc = check_file(path)
    assert_file_rules(path, expect, fc)
    done, lines = invoke_lines("check", "--json", str(path))
    invalid = [i for i in fc.items if i.verdict == STATUS_INVALID]
    if fc.error:
        assert done.exit_code == EXIT_USAGE and lines == [f"error: {fc.error}"]
    else:
        assert done.exit_code == (EXIT_OK if fc.all_match else EXIT_ITEMS)
        assert len(lines) == len(invalid)
        assert all(line.startswith(f"error: {path}: {item.id}") for line, item in zip(lines, invalid))
    assert json.loads(done.stdout) == fc.summary()


@fuzz_settings(0.02)
@given(data=st.data())
def test_solve_command_reports_every_bad_task_and_solves_the_others(planning_pool, tmp_path, data):
    records, changes = data.draw(record_batches(planning_pool))
    path = tmp_path / "tasks.json"
    try:
        path.write_text(json.dumps(records))
    except (ValueError, RecursionError):
        return
    tasks = [planning_task(r, i) for i, r in enumerate(records)]
    assume(all(t.error or t.folds <= 2 for t in tasks))  # 3- and 4-fold searches cost 0.1-0.3 s each
    done, lines = invoke_lines("solve", "--json", str(path))
    bad = [t for t in tasks if t.error or t.folds > 4]
    assert done.exit_code == (EXIT_ITEMS if bad else EXIT_OK)
    assert len(lines) == len(bad)
    assert all(line.startswith(f"error: {path}: {task.id}: ") for line, task in zip(lines, bad)), lines
    assert not any("internal error" in line for line in lines)
    summary = json.loads(done.stdout)
    for index, (task, item) in enumerate(zip(tasks, summary["items"])):
        assert item["id"] == task.id
        if index not in changes:  # an untouched published task is solved as always
            assert "error" not in item and item["solutions"] > 0


# -- environment and output paths --------------------------------------------------------------------


@fuzz_settings(0.1)
@given(text=st.text(max_size=30) | st.from_regex(r"\s*-?\d{1,30}(\.\d{0,5})?\s*[kKmMgGtTqQ]?(i?[bB])?\s*", fullmatch=True))
def test_memory_budget_values_parse_or_are_one_line_errors(text):
    try:
        budget = parse_memory_budget(text)
    except InputError as error:
        message = str(error)
        assert message.startswith(f"{MEMORY_BUDGET_ENV}: ") and "\n" not in message and len(message) < 200
    else:
        assert isinstance(budget, int) and budget > 0


@fuzz_settings(0.01)
@given(text=st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), min_size=1,
                    max_size=20))
def test_check_command_with_any_memory_budget(pool, tmp_path, text):
    path = tmp_path / "good.json"
    path.write_text(json.dumps(pool[:2]))
    done, lines = invoke_lines("check", "--json", str(path), env={MEMORY_BUDGET_ENV: text})
    try:
        parse_memory_budget(text.strip()) if text.strip() else None
    except InputError:
        assert done.exit_code == EXIT_USAGE and len(lines) == 1 and lines[0].startswith(f"error: {MEMORY_BUDGET_ENV}: ")
    else:
        assert done.exit_code == EXIT_OK and lines == []


PARTS = st.sampled_from(["a", "b", "file", "dir", "..", ".", "x.json", "ü", " ", "-"]) | st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"), min_size=1, max_size=8)


@fuzz_settings(0.05)
@given(parts=st.lists(PARTS, min_size=1, max_size=4), kind=st.sampled_from(["file", "dir"]))
def test_output_path_checks_pass_or_fail_in_one_line(tmp_path, parts, kind):
    (tmp_path / "file").write_text("x")
    (tmp_path / "dir").mkdir(exist_ok=True)
    path = tmp_path.joinpath(*parts)
    try:
        assert check_output_path(path, kind) == path
    except typer.Exit as exited:
        assert exited.exit_code == EXIT_USAGE
    except OSError as error:  # e.g. a name longer than the file system allows: must not happen
        raise AssertionError(f"{path}: {error!r} escaped") from error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "file"]  # nothing created, no probe left


# -- hostile records built in Python (issue 19 item 1) -------------------------------------------------
# Truth and task records a caller builds in Python that no JSON file can hold: ints too large for a float
# or str(), the record nested in itself past the recursion limit, cycles, exponential sharing
# (tests/hostile.py), anywhere in the record. Every entry point that reads records gives an InputError
# naming the item (or an invalid item in a batch), never another exception, and the records beside it
# are read as without it.

import warnings  # noqa: E402

import hostile as H  # noqa: E402
from foldsim import rewards as R  # noqa: E402
from foldsim.eval.item import score_item  # noqa: E402
from foldsim.eval.score_base import truth_item  # noqa: E402
from foldsim.eval.verify import verify_completions  # noqa: E402
from foldsim.codes import code_of_entry  # noqa: E402


def only_input_error(call) -> None:
    try:
        call()
    except InputError as error:
        assert "\n" not in str(error) and len(str(error)) < 600 and "internal error" not in str(error), str(error)


@fuzz_settings(0.01)
@given(data=st.data())
def test_hostile_python_records_are_invalid_items_never_crashes(pool, data):
    index = data.draw(st.integers(0, len(pool) - 1))
    base = pool[index]
    path = data.draw(st.sampled_from(H.paths(base)))
    record = H.hostile(base, path, data.draw(st.sampled_from(H.KINDS)), data.draw(st.integers(0, 4)))
    neighbour = pool[(index + 1) % len(pool)]
    checked = check_records([neighbour, record, neighbour])
    assert [i.verdict for i in checked.items][::2] == [MATCH, MATCH]
    assert_item(record, path if path[0] != "x" else None, checked.items[1], 1)
    [simulated] = simulate([record])
    assert simulated.status in ("ok", "not_realizable", "off_paper", "invalid") and "\n" not in simulated.reason and "internal error" not in simulated.reason
    only_input_error(lambda: trace(record))
    only_input_error(lambda: truth_item(record, 0))
    answer = {k: neighbour[k] for k in ("totalNumberofHoles", "unfoldingTypes", "resultHoles")}
    for task in ("prediction", "generalization", "planning"):
        only_input_error(lambda: score_item(task, record, json.dumps(answer)))
    task = planning_task(record, 0)
    assert task.error is None or "\n" not in task.error
    plan = {"folds": [code_of_entry(e) for e in neighbour["foldingTypes"]], "holes": neighbour["initialHoles"]}
    judged = verify_completions([record, neighbour], [json.dumps(plan)] * 2)
    assert judged.reasons[0] in ("correct", "invalid_task", "holes_differ", "wrong_fold_count", "has_rotation",
                                 "too_many_punches", "not_realizable", "off_paper", "invalid_hole")
    assert judged.reasons[1] == ("correct" if len(plan["holes"]) <= 2 and "R" not in "".join(plan["folds"]) else judged.reasons[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a reward's batch-level backstop firing is a failure
        for reward in R.REWARDS.values():
            values = reward(completions=[json.dumps(answer), json.dumps(plan)] * 2, record=[record, neighbour] * 2)
            assert all(v is None or 0.0 <= v <= 1.0 for v in values), reward.__name__
        for column in ("[" * 3000 + "]" * 3000, "{\"resultHoles\": " * 3000):  # a JSON column past the recursion limit
            assert R.prediction_partial(completions=[json.dumps(answer)] * 2, record=[column, json.dumps(neighbour)]) == [0.0, 1.0]
