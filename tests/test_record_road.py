"""The record families on the data road (issues 25 item 5, 27 item 7), with the stub family "toy"
(tests/record_family_stub.py) standing in for cube nets and fold and cut: `generate --family`
(records, the family's own file, images through the media machinery: manifests, resume after a
kill, worker processes, Ray; --splits by `split_key`; --level; progress), `audit --family`, the
help texts, and the hostile inputs every command refuses with one line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from rich.console import Console

from cli_invoke import invoke
from foldsim.cli.common import EXIT_ITEMS, EXIT_OK, EXIT_USAGE
from foldsim.dataset.media import LOCK_FILE, MANIFEST_DIR
from foldsim.errors import InputError
from foldsim.families.registry import FAMILIES, RECORD_FAMILIES
from killed_run import sigkill_once_written
from record_family_stub import DRAW_SECONDS_ENV, TOY, TOY_YES_NO, ToyFamily, plugin_env, toy_family  # noqa: F401
from test_output_paths import refused_outputs

COUNT = 6
#: per toy item: the question, one steps picture, four option pictures
IMAGES_PER_ITEM = 6
ARGS = ["generate", "--family", "toy", "--count", str(COUNT), "--seed", "3"]


def files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error:")]


def items(out: Path, name: str = "toy") -> list[dict]:
    return json.loads((out / f"{name}_items.json").read_text())


def generate(out: Path, *extra: str):
    return invoke(*ARGS, "--out", out, *extra)


@pytest.fixture
def reference(toy_family, tmp_path) -> Path:
    """One uninterrupted run, one local worker."""
    out = tmp_path / "reference"
    result = generate(out, "--workers", "1")
    assert result.exit_code == EXIT_OK, result.output
    return out


# -- generate ---------------------------------------------------------------------------------------


def test_generate_writes_the_records_the_native_file_and_every_image(reference):
    records = items(reference)  # the family's records, naming the images their manifests vouch for
    assert records == TOY.generate(COUNT, 3)
    native = json.loads((reference / TOY.native_file).read_text())
    assert native == [row for r in records for row in r["native"]]
    names = files(reference)
    assert LOCK_FILE not in names and len([n for n in names if n.startswith(f"{MANIFEST_DIR}/")]) == COUNT
    pngs = [n for n in names if n.endswith(".png")]
    assert len(pngs) == IMAGES_PER_ITEM * COUNT
    for record in records:
        named = [record["questionImg"], *record["stepsImgs"], *record["optionImgs"]]
        assert all(names[n][:4] == b"\x89PNG" for n in named)
        assert TOY.images(record) == {n: names[n] for n in named}  # the family's bytes, as drawn


def test_the_summary_and_json_say_what_was_written(toy_family, tmp_path):
    result = generate(tmp_path, "--workers", "1")
    assert result.stdout.splitlines() == [
        f"wrote {COUNT} toy items to {tmp_path / 'toy_items.json'} and {tmp_path / 'toy_native.json'}",
        f"media: {COUNT} rendered, 0 already complete, 0 failed"]
    again = generate(tmp_path, "--workers", "1", "--json")
    summary = json.loads(again.stdout)
    assert summary == {"items": str(tmp_path / "toy_items.json"), "native": str(tmp_path / "toy_native.json"),
                       "count": COUNT, "images": IMAGES_PER_ITEM * COUNT, "rendered": 0, "skipped": COUNT,
                       "failed": {}}


def test_no_media_writes_records_naming_no_image(toy_family, tmp_path):
    result = generate(tmp_path, "--no-media")
    assert result.exit_code == EXIT_OK and "media:" not in result.stdout
    assert sorted(files(tmp_path)) == ["toy_items.json", "toy_native.json"]
    for record, full in zip(items(tmp_path), TOY.generate(COUNT, 3), strict=True):
        assert record == {k: v for k, v in full.items() if k not in ("questionImg", "stepsImgs", "optionImgs")}


def test_same_seed_same_bytes_and_a_level_is_kept(reference, tmp_path):
    again = tmp_path / "again"
    assert generate(again, "--workers", "1").exit_code == EXIT_OK
    assert files(again) == files(reference)
    large = tmp_path / "large"
    assert generate(large, "--level", "large", "--no-media").exit_code == EXIT_OK
    assert {r["level"] for r in items(large)} == {"large"}
    assert {r["level"] for r in items(reference)} == {"small", "large"}  # no --level: the levels in turn


def test_a_yes_no_family_writes_its_own_native_format(toy_family, tmp_path):
    result = invoke("generate", "--family", "toyyn", "--count", "4", "--seed", "1", "--out", tmp_path, "--workers", "1")
    assert result.exit_code == EXIT_OK, result.output
    rows = [json.loads(line) for line in (tmp_path / "toyyn_native.jsonl").read_text().splitlines()]
    records = items(tmp_path, "toyyn")
    assert rows == [r["native"][0] for r in records] and {r["taskType"] for r in records} == {"YesNo"}
    assert all((tmp_path / r["questionImg"]).is_file() for r in records)


def test_progress_shows_counts_and_rate(toy_family, tmp_path):
    from foldsim.dataset.record_runs import write_record_run

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    written, _ = write_record_run(TOY, tmp_path, COUNT, 3, console=console, media=False)
    assert written["count"] == COUNT
    shown = screen.getvalue()
    assert "generating toy" in shown and f"{COUNT}/{COUNT}" in shown and "items/s" in shown


# -- media: resume, kill, workers, Ray ------------------------------------------------------------------


def test_resume_redraws_only_the_missing_and_damaged_images(reference, tmp_path):
    out = tmp_path / "out"
    assert generate(out, "--workers", "1").exit_code == EXIT_OK
    (out / "toy_00002_B.png").unlink()
    damaged = out / "toy_00005_grid.png"
    damaged.write_bytes(damaged.read_bytes()[:20])
    again = generate(out, "--workers", "1")
    assert again.exit_code == EXIT_OK, again.output
    assert f"media: 2 rendered, {COUNT - 2} already complete, 0 failed" in again.stdout
    assert files(out) == files(reference)


def test_a_run_killed_midway_then_rerun_ends_identical(reference, tmp_path):
    """A real process (the stub registered by the test plugin, each drawing slowed down), SIGKILLed
    as soon as its first item is finished: the rerun takes the folder over, sweeps the temp files and
    draws only what is missing; nothing of the killed run is lost or mixed in."""
    out = tmp_path / "out"
    env = {**plugin_env(), DRAW_SECONDS_ENV: "0.3"}
    sigkill_once_written([*ARGS, "--out", str(out), "--workers", "1"], out, f"{MANIFEST_DIR}/*.json", env)
    done = len(list((out / MANIFEST_DIR).glob("*.json")))
    assert 1 <= done < COUNT and (out / LOCK_FILE).exists()
    unvouched = [r for r in items(out) if "questionImg" in r]
    assert unvouched == []  # the killed run's items file names no image yet
    (out / ".toy_00006.png.k1LLed00.tmp").write_bytes(b"half")  # as an atomic write cut short leaves it
    again = generate(out, "--workers", "1")
    assert again.exit_code == EXIT_OK, again.output
    assert f"media: {COUNT - done} rendered, {done} already complete, 0 failed" in again.stdout
    assert files(out) == files(reference)


def test_worker_processes_write_the_bytes_of_one_worker(reference, tmp_path):
    """Spawned workers find the family by its name in the registry (here: the test plugin)."""
    out = tmp_path / "out"
    result = generate(out, "--workers", "2")
    assert result.exit_code == EXIT_OK, result.output
    assert files(out) == files(reference)


@pytest.mark.slow  # ~15 s on 2 shared cores (a Ray instance starts): `make fuzz` runs it; `make test` has Ray on
# the same machinery in tests/test_families_media.py, and a record family's lookup in a worker in the test above
def test_ray_writes_the_bytes_of_one_local_worker(reference, tmp_path):
    """Ray workers find the family by its name too (the plugin's environment reaches them)."""
    import ray  # installed with foldsim[ray] (make test installs it): never skipped

    with warnings.catch_warnings():  # JAX warns on any fork; Ray starts its processes by fork + exec
        warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
        ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        out = tmp_path / "out"
        result = generate(out, "--backend", "ray")
        assert result.exit_code == EXIT_OK, result.output
        assert f"media: {COUNT} rendered, 0 already complete, 0 failed" in result.stdout
        assert files(out) == files(reference)
    finally:
        ray.shutdown()


# -- splits ---------------------------------------------------------------------------------------------


def test_splits_keep_items_equal_under_the_symmetries_in_one_split(toy_family, tmp_path):
    """80 small items on a 3x3 grid: many are the same dot set up to the square's symmetries (their
    split keys equal); every such group is in one split, and both splits are used."""
    result = invoke("generate", "--family", "toy", "--level", "small", "--count", "80", "--seed", "0", "--out",
                    tmp_path, "--no-media", "--splits", "train=0.5,test=0.5")
    assert result.exit_code == EXIT_OK, result.output
    records = items(tmp_path)
    groups: dict[str, set[str]] = {}
    for record in records:
        groups.setdefault(TOY.split_key(record), set()).add(record["split"])
    assert any(sum(TOY.split_key(r) == key for r in records) > 2 for key in groups)  # real duplicates
    assert all(len(splits) == 1 for splits in groups.values())
    assert {r["split"] for r in records} == {"train", "test"}
    done = invoke("overlap", tmp_path / "toy_items.json", "--json")  # its splits against each other
    assert done.exit_code == EXIT_OK, done.output
    assert json.loads(done.stdout)["overlapping"] == 0


def test_overlap_finds_a_mirrored_copy_across_files(toy_family, tmp_path):
    [record] = TOY.generate(1, 5, "large")
    mirrored = {**record, "id": "toy_00002",
                "info": {**record["info"], "dots": [[r, 3 - c] for r, c in record["info"]["dots"]]}}
    (tmp_path / "a.json").write_text(json.dumps([record]))
    (tmp_path / "b.json").write_text(json.dumps([mirrored, {**record, "id": "bad", "info": None}]))
    done = invoke("overlap", tmp_path / "a.json", tmp_path / "b.json", "--json")
    report = json.loads(done.stdout)
    assert report["overlapping"] == 1 and report["overlaps"][0]["matches"] == ["toy_00002"]
    assert report["bad_items"] == [f"{tmp_path / 'b.json'}: bad: info: must be an object, got None"]


# -- audit ----------------------------------------------------------------------------------------------


def audit_file(tmp_path: Path, records: list, name: str = "items.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def test_audit_passes_generated_items(toy_family, tmp_path):
    good = audit_file(tmp_path, TOY.generate(COUNT, 1))
    done = invoke("audit", "--family", "toy", good)
    assert done.exit_code == EXIT_OK and done.stdout.strip() == f"{good}: {COUNT}/{COUNT} keys are the physical answer"
    yes_no = audit_file(tmp_path, TOY_YES_NO.generate(COUNT, 1), "yn.json")
    assert invoke("audit", "--family", "toyyn", yes_no).exit_code == EXIT_OK


def test_audit_names_a_wrong_key_a_duplicate_option_and_foreign_records(toy_family, tmp_path):
    records = TOY.generate(4, 2)
    wrong = next(o["label"] for o in records[0]["options"] if o["error"])
    records[0]["answer"] = wrong  # a planted wrong key
    records[1]["options"][1]["count"] = records[1]["options"][0]["count"]  # a duplicate option
    physical = next(o["label"] for o in records[0]["options"] if o["error"] is None)
    srbench = {"id": "srbench_00001", "family": "srbench", "item": {}}
    path = audit_file(tmp_path, [*records, srbench, 7])
    done = invoke("audit", "--family", "toy", path)
    assert done.exit_code == EXIT_ITEMS
    assert done.stdout.strip() == f"{path}: 2/6 keys are the physical answer"
    lines = error_lines(done)
    assert len(lines) == 4
    assert lines[0].startswith(f"error: {path}: toy_00001: the keyed option counts") and \
        lines[0].endswith(f"(physical answer: {physical})")
    assert lines[1] == f"error: {path}: toy_00002: options[1].count: repeats the count " \
                       f"{records[1]['options'][1]['count']}: options must differ"
    assert lines[2] == f"error: {path}: srbench_00001: family: is a record of srbench, not of toy " \
                       "(audit --family srbench)"
    assert lines[3] == f"error: {path}: item 5: must be an object, got 7"
    report = json.loads(invoke("audit", "--family", "toy", path, "--json").stdout)
    assert [p["verdict"] for p in report["problems"]] == ["differs", "invalid", "invalid", "invalid"]


def test_audit_goes_on_past_an_unreadable_file(toy_family, tmp_path):
    good = audit_file(tmp_path, TOY.generate(2, 1))
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    done = invoke("audit", "--family", "toy", broken, good)
    assert done.exit_code == EXIT_USAGE
    [line] = error_lines(done)
    assert line.startswith(f"error: {broken}")
    assert f"{good}: 2/2 keys are the physical answer" in done.stdout


def test_a_family_whose_audit_fails_costs_only_the_records_it_fails_on(toy_family, tmp_path, monkeypatch):
    """The family's bug (it raises on one record): that record is one internal-error line, the
    others are judged, an id-less one named by its place in the file."""
    real = TOY.audit

    def broken(records, file):
        if any(r.get("level") == "boom" for r in records):
            raise KeyError("oops")
        return real(records, file)

    monkeypatch.setattr(TOY, "audit", broken)
    records = TOY.generate(3, 1)
    records[1]["level"] = "boom"
    records[2]["answer"] = next(o["label"] for o in records[2]["options"] if o["error"])
    del records[2]["id"]
    path = audit_file(tmp_path, records)
    done = invoke("audit", "--family", "toy", path)
    assert done.exit_code == EXIT_ITEMS and done.stdout.startswith(f"{path}: 1/3 keys")
    lines = error_lines(done)
    assert lines[0] == f"error: {path}: toy_00002: internal error: KeyError: 'oops' (a bug; rerun with " \
                       "FOLDSIM_DEBUG=1 for the traceback)"
    assert lines[1].startswith(f"error: {path}: item 2: the keyed option counts") and len(lines) == 2


def test_audit_without_family_judges_a_file_of_one_record_family(toy_family, tmp_path):
    records = TOY.generate(3, 1)
    records[2]["answer"] = next(o["label"] for o in records[2]["options"] if o["error"])
    path = audit_file(tmp_path, records)
    done = invoke("audit", path)
    assert done.exit_code == EXIT_ITEMS and done.stdout.strip() == f"{path}: 2/3 keys are the physical answer"
    [line] = error_lines(done)
    assert line.startswith(f"error: {path}: toy_00003: the keyed option counts")
    mixed = audit_file(tmp_path, [records[0], {**records[1], "family": ["toy"]}], "mixed.json")
    done = invoke("audit", mixed)  # not one record family: the point-hole audit, one line per record
    assert done.exit_code == EXIT_ITEMS and len(error_lines(done)) == 2


def test_enumerate_refuses_a_record_family_with_one_line(toy_family):
    done = invoke("enumerate", "--family", "toy")
    assert done.exit_code == EXIT_USAGE
    counted = ", ".join(name for name in [*FAMILIES, *RECORD_FAMILIES] if name not in ("toy", "toyyn"))
    assert error_lines(done) == [f"error: --family: toy counts no space of its own; enumerate --family counts the "
                                 f"space of {counted}"]


def test_audit_refuses_an_unknown_family_naming_every_one(toy_family, tmp_path):
    done = invoke("audit", "--family", "nope", audit_file(tmp_path, []))
    assert done.exit_code == EXIT_USAGE
    names = ", ".join([*FAMILIES, *RECORD_FAMILIES])  # the real families, then the stub's
    assert "toy, toyyn" in names
    assert error_lines(done) == [f"error: --family: must be one of {names}, got 'nope'"]


# -- help -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["generate", "audit", None])
def test_the_overview_and_the_family_option_list_every_registered_family(command):
    """In a process where the stub families are registered (as a real family registers itself)."""
    done = subprocess.run([sys.executable, "-m", "foldsim", *([command] if command else []), "--help"],
                          capture_output=True, text=True, env={**plugin_env(), "COLUMNS": "400"}, timeout=240)
    assert done.returncode == 0, done.stderr
    names = ", ".join([*FAMILIES, *RECORD_FAMILIES, "toy"]) + " or toyyn"  # the registry's, then the stub's
    if command is None:
        assert f"Benchmark families (generate, audit --family): {names}." in done.stdout
        return
    [line] = [line for line in done.stdout.splitlines() if "--family " in line and "FAMILY" in line]
    assert f"{names}:" in line


# -- hostile input --------------------------------------------------------------------------------------


def test_every_refused_output_is_one_line_before_any_work(toy_family, tmp_path, monkeypatch):
    monkeypatch.setattr(TOY, "generate", lambda *a, **k: pytest.fail("generated before the output was checked"))
    for path, message in refused_outputs(tmp_path, "dir").items():
        done = generate(path)
        assert done.exit_code == EXIT_USAGE, (path, done.output)
        assert error_lines(done) == [f"error: --out: {path}: {message}"]


@pytest.mark.parametrize("extra,message", [
    (["--level", "huge"], "--level: must be one of small, large for toy, got 'huge'"),
    (["--first-id", "5"], "--first-id: is not used with --family toy (ids are toy_<n>)"),
    (["--splits", "train=0.5"], "--splits: the fractions sum to 0.5, not 1"),
    (["--count", "1000000000"], "--count: must be 0 to"),
    (["--count", "-1"], "--count: must be 0 to"),
    (["--images"], "--images: not used with --family"),
    (["--task", "choice"], "--task: not used with --family"),
])
def test_bad_options_are_one_line_and_refused_before_work(toy_family, tmp_path, monkeypatch, extra, message):
    monkeypatch.setattr(TOY, "generate", lambda *a, **k: pytest.fail("generated despite a bad option"))
    out = tmp_path / "out"
    done = generate(out, *extra)
    assert done.exit_code == EXIT_USAGE, done.output
    [line] = error_lines(done)
    assert line.startswith(f"error: {message}"), line
    assert not out.exists()


class EscapingToy(ToyFamily):
    """Draws an image outside the folder for item 2, another item's image for item 3, and cannot
    draw item 4 at all: each of those items fails with one line, the others are written."""

    def images(self, record):
        drawn = super().images(record)
        if record["id"] == "toy_00002":
            drawn["../escaped.png"] = b"x"
        elif record["id"] == "toy_00003":
            drawn["toy_00001.png"] = b"x"
        elif record["id"] == "toy_00004":
            raise InputError("cannot be drawn", item=record["id"], field="info")
        return drawn


def test_bad_images_fail_their_item_only_and_never_leave_the_folder(toy_family, tmp_path, monkeypatch):
    from foldsim.families.registry import RECORD_FAMILIES

    monkeypatch.setitem(RECORD_FAMILIES, "toy", EscapingToy())
    out = tmp_path / "out"
    done = generate(out, "--workers", "1")
    assert done.exit_code == EXIT_ITEMS
    lines = error_lines(done)
    assert lines[0] == "error: toy_00002: toy_00002: images: toy drew '../escaped.png': an image must be a PNG file " \
                       "name that starts with the item's id and that the record's image fields name"
    assert lines[1].startswith("error: toy_00003: toy_00003: images: toy drew 'toy_00001.png'")
    assert lines[2] == "error: toy_00004: toy_00004: info: cannot be drawn" and len(lines) == 3
    assert not (tmp_path / "escaped.png").exists()
    assert (out / "toy_00001.png").read_bytes()[:4] == b"\x89PNG"  # never overwritten by item 3
    written = {r["id"]: "questionImg" in r for r in items(out)}
    assert written == {"toy_00001": True, "toy_00002": False, "toy_00003": False, "toy_00004": False,
                       "toy_00005": True, "toy_00006": True}


@pytest.mark.parametrize("field,value,message", [
    ("id", "../x", "../x: id: toy generated the id '../x': ids must be unique file-name-safe strings"),
    ("id", "toy_00001", "toy_00001: id: toy generated the id 'toy_00001': ids must be unique file-name-safe strings"),
    ("level", ["small"], "toy_00002: family: toy generated a record of family 'toy', level ['small']"),
    ("family", "toyyn", "toy_00002: family: toy generated a record of family 'toyyn', level 'large'"),
])
def test_a_family_generating_a_bad_record_is_refused_before_writing(toy_family, tmp_path, monkeypatch, field, value,
                                                                     message):
    real = TOY.generate

    def generate_bad(count, seed, level=None, on_progress=None, first=0):
        records = real(count, seed, level, on_progress, first)
        records[1][field] = value  # an id unsafe as a file name or repeated, a level or family not its own
        return records

    monkeypatch.setattr(TOY, "generate", generate_bad)
    out = tmp_path / "out"
    done = generate(out)
    assert done.exit_code == EXIT_USAGE
    assert error_lines(done) == [f"error: {message}"]
    assert sorted(files(out)) == []


def test_hostile_structures_are_one_verdict_and_one_key_error_each(toy_family):
    """Values no JSON file holds but a caller can pass (tests/hostile.py: huge ints, nesting past the
    recursion limit, cycles, fan-out) anywhere in a record: the audit gives one one-line verdict per
    record and the split keys one one-line error, never an exception."""
    from hostile import KINDS, hostile
    from foldsim.dataset.record_runs import audit_record_family
    from foldsim.dataset.splits import item_keys

    [record] = TOY.generate(1, 4)
    spots = [(key,) for key in ("id", "family", "level", "info", "options", "answer", "x")]
    spots += [("info", "dots", 0), ("options", 0, "count"), ("info", "grid")]
    for kind in KINDS:
        for spot in spots:
            bad = hostile(record, spot, kind, 1)
            report = audit_record_family(TOY, [bad, record], "f")
            assert [len(report.items), report.items[1].verdict] == [2, "ok"], (kind, spot)
            assert "\n" not in report.items[0].reason, (kind, spot)
            keys, errors = item_keys([bad, record])
            assert keys[1] is not None and all("\n" not in str(e) for e in errors), (kind, spot)
