"""Output paths, file names made from data, render-item's batch and bounds, and reading limits (issue
28 items 1, 2, 4, 6, 9, 12): one checker refuses every output path that cannot take the output before
any work; the atomic writer never renames over a device, FIFO or socket; ids never name a file
outside --out nor one item's file over another's; render-item goes on past a bad item; no input is
read past limits.MAX_INPUT_BYTES. Devices and FIFOs are made in tmp_path (os.mknod: the tests run as
root where make test runs; skipped otherwise), never the real /dev nodes."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import foldsim.io
import foldsim.limits
from cli_invoke import invoke
from conftest import fuzz_settings
from foldsim.cli.common import EXIT_ITEMS, EXIT_OK, EXIT_USAGE, check_output_path
from foldsim.errors import InputError
from foldsim.io import FileNames, NotRegularFileError, atomic_write_bytes, replace_target, safe_file_name

#: a general item that folds and punches (renders in a fraction of a second at --images)
GOOD = {"id": "g", "sheet": {"cols": 3, "rows": 3}, "actions": [{"type": "fold", "line": {"family": "V", "at": 1},
                                                                 "moves": "left"}],
        "punches": [{"x": "3/2", "y": "1/2"}]}
#: the smallest item there is: one cell, no action, one punch
TINY = {"id": "t", "sheet": {"cols": 1, "rows": 1}, "actions": [], "punches": [{"x": "1/2", "y": "1/2"}]}
#: an item no reader accepts (a sheet without cells)
BROKEN = {"id": "broken", "sheet": {"cols": 0, "rows": 3}, "actions": []}
#: an id holding a newline, an ESC sequence, rich markup and an emoji code
NASTY_ID = "bad\n\x1b[31m:smile:[red]x[/red]"


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error:")]


def items_file(tmp_path: Path, records: list, name: str = "items.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def needs_root():
    if os.geteuid() != 0:
        pytest.skip("making a device node (os.mknod) needs root")


def char_device(path: Path) -> Path:
    """A character device node like /dev/null's (1, 3), made in the test's own folder."""
    needs_root()
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return path


def unix_socket(path: Path) -> Path:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
    return path


# -- the sanitiser -------------------------------------------------------------------------------


@pytest.mark.parametrize("item_id", ["PFHP_1", "PFHP_803_shape_mod", "spatialviz-easy-0001", "srbench_00001",
                                     "visfactor-L2-0017", "vz_overhang", "mb_record", "a.b", "PFHP_12_c3"])
def test_usual_ids_keep_their_names(item_id):
    """Names of the ids foldsim and the benchmarks use are byte-identical to the ids (as before)."""
    assert safe_file_name(item_id) == item_id


@pytest.mark.parametrize("item_id", ["/abs/path/x", "../../x", ".", "..", "", "\x00", "a\x00b", "x" * 300,
                                     "\u00e9" * 200, "..\\..\\x", "a/../../b", " ", "\n", "~root", "-", ".hidden"])
def test_hostile_ids_become_one_plain_file_name(item_id):
    name = safe_file_name(item_id)
    assert name and name not in (".", "..") and not name.startswith(".")
    assert "/" not in name and "\x00" not in name and "\\" not in name
    assert len(name.encode()) <= 120 and name.isascii()
    assert safe_file_name(name) == name  # idempotent: the writers may apply it again
    assert Path("out", name).parent == Path("out")


def test_file_names_refuse_a_repeated_id_and_separate_colliding_ones():
    names = FileNames()
    assert names.claim("a/b", "item 1") == "a_b"
    other = names.claim("a_b", "item 2")  # a different id that sanitises to the same name
    assert other.startswith("a_b-") and len(other) == len("a_b-") + 8
    assert FileNames().claim("a_b") == "a_b"  # the suffix depends on the id alone: deterministic
    with pytest.raises(InputError, match="same id"):
        names.claim("a/b", "item 3")
    long_a, long_b = "x" * 130 + "a", "x" * 130 + "b"  # the same first 120 characters
    assert len({names.claim(long_a), names.claim(long_b)}) == 2


# -- the checker and the atomic writer ---------------------------------------------------------------


def test_the_atomic_writer_never_renames_over_a_non_regular_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    targets = [fifo, unix_socket(tmp_path / "sock")]
    if os.geteuid() == 0:
        targets.append(char_device(tmp_path / "chr"))
    for target in targets:
        mode = target.lstat().st_mode
        with pytest.raises(NotRegularFileError, match="expected a file"):
            atomic_write_bytes(target, b"x")
        assert target.lstat().st_mode == mode  # the node is still there, untouched
        link = tmp_path / f"link-to-{target.name}"
        link.symlink_to(target)
        with pytest.raises(NotRegularFileError):  # a link is never followed onto a device
            atomic_write_bytes(link, b"x")
        assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []  # no temp file left


def test_the_atomic_writer_neither_writes_through_a_link_nor_replaces_it(tmp_path):
    """A link to a regular file (or to nothing) is refused: writing through it could land anywhere
    (a link planted in an output folder), replacing it could break a system's link (/dev/stdout)."""
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    for link, target in ((tmp_path / "link.json", outside), (tmp_path / "dangling.json", tmp_path / "nowhere" / "x")):
        link.symlink_to(target)
        with pytest.raises(NotRegularFileError, match="is a symbolic link, expected a file"):
            atomic_write_bytes(link, b"new")
        assert link.is_symlink() and os.readlink(link) == str(target)
    assert outside.read_text() == "keep" and not (tmp_path / "nowhere").exists()


def test_an_output_folder_may_be_a_link_to_a_folder(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "real")
    done = invoke("fold", items_file(tmp_path, [GOOD]), "--out", tmp_path / "out")
    assert done.exit_code == EXIT_OK and (tmp_path / "real" / "g.fold").is_file()


def test_frame_folders_and_videos_are_never_written_over_a_fifo(tmp_path):
    from foldsim.render.animation import FramesSink

    fifo = tmp_path / "PF_x"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match="expected a directory"):
        FramesSink(fifo)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def refused_outputs(tmp_path: Path, kind: str) -> dict[Path, str]:
    """Output paths the checker refuses for a `kind` output, and the end of the error line."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases = {
        fifo: "is a FIFO (named pipe), expected " + ("a directory" if kind == "dir" else "a file"),
        unix_socket(tmp_path / "sock"): "is a socket, expected " + ("a directory" if kind == "dir" else "a file"),
        a_file / "x": f"{a_file} is not a directory",  # a path through a file
        Path("/proc/foldsim-test-output"): "cannot write there: No such file or directory",
        Path("/sys/foldsim-test-output"): "cannot write there: Permission denied",
    }
    if kind == "dir":
        cases[a_file] = "is a file, expected a directory"
    else:
        cases[tmp_path] = "is a directory, expected a file"
        link = tmp_path / "link-to-file"  # as /dev/stdout is when stdout is a file
        link.symlink_to(a_file)
        cases[link] = "is a symbolic link, expected a file"
    if os.geteuid() == 0:
        device = char_device(tmp_path / "chr")
        cases[device] = "is a character device, expected " + ("a directory" if kind == "dir" else "a file")
        link = tmp_path / "link-to-chr"
        link.symlink_to(device)
        cases[link] = cases[device] if kind == "dir" else "is a symbolic link, expected a file"
    return cases


@pytest.mark.parametrize("kind", ["file", "dir"])
def test_the_checker_refuses_what_cannot_take_the_output(tmp_path, capsys, kind):
    import typer

    for path, message in refused_outputs(tmp_path, kind).items():
        with pytest.raises(typer.Exit) as stop:
            check_output_path(path, kind)
        assert stop.value.exit_code == EXIT_USAGE, path
        assert capsys.readouterr().err == f"error: --out: {path}: {message}\n"
    assert check_output_path(tmp_path / "new" / "out.json", kind) == tmp_path / "new" / "out.json"


#: every general command that writes: (arguments before --out, the output's kind, the work it must not start)
WRITERS = {
    "simulate": (["simulate", "{items}"], "file", "foldsim.simulate:simulate"),
    "fold": (["fold", "{items}"], "dir", "foldsim.foldfile:fold_document"),
    "render-item": (["render-item", "{items}", "--images"], "dir", "foldsim.cli.sheets:render_records"),
    "enumerate --sheet": (["enumerate", "--sheet", "2x2", "--folds", "1"], "file",
                          "foldsim.sheet_space:enumerate_family"),
    "solve --sheet": (["solve", "--sheet", "2x2", "--folds", "1", "--target", "[[\"1/2\", \"1/2\"]]"], "file",
                      "foldsim.sheet_space:enumerate_family"),
    "generate --family": (["generate", "--family", "srbench", "--count", "1", "--no-media"], "dir",
                          "foldsim.dataset.families:write_run"),
}


def patch_work(monkeypatch, target: str, replacement) -> None:
    """monkeypatch.setattr on `module:attribute.path` (a dotted path alone would not do: foldsim.simulate
    is both a module and the function the package exports)."""
    import importlib

    module, _, path = target.partition(":")
    owner = importlib.import_module(module)
    *inner, name = path.split(".")
    for part in inner:
        owner = getattr(owner, part)
    monkeypatch.setattr(owner, name, replacement)


@pytest.mark.parametrize("command", list(WRITERS))
def test_every_general_command_checks_its_output_before_any_work(tmp_path, monkeypatch, command):
    """A device, FIFO, socket, a file where a folder goes (or the reverse), a path through a file,
    /proc and /sys: one line naming --out, exit 2, the node untouched, and no work started."""
    args, kind, work = WRITERS[command]
    started = []
    patch_work(monkeypatch, work, lambda *a, **k: started.append(a) or pytest.fail(f"{work} ran"))
    items = items_file(tmp_path, [GOOD])
    for path, message in refused_outputs(tmp_path, kind).items():
        before = path.lstat().st_mode if os.path.lexists(path) else None
        done = invoke(*[a.format(items=items) for a in args], "--out", path)
        assert done.exit_code == EXIT_USAGE, (path, done.output)
        assert error_lines(done) == [f"error: --out: {path}: {message}"]
        assert (path.lstat().st_mode if os.path.lexists(path) else None) == before
    assert started == []


def test_a_fifo_as_output_is_refused_without_a_hang(tmp_path):
    """In a subprocess with a timeout only a hang reaches: a FIFO as simulate's --out, and a FIFO
    where one item's file goes inside fold's --out (that item fails, the next is written)."""
    items = items_file(tmp_path, [GOOD, {**GOOD, "id": "h"}])
    fifo = tmp_path / "answers.json"
    os.mkfifo(fifo)
    run = [sys.executable, "-m", "foldsim"]
    done = subprocess.run([*run, "simulate", str(items), "--out", str(fifo)], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == EXIT_USAGE and done.stderr.strip() == \
        f"error: --out: {fifo}: is a FIFO (named pipe), expected a file"
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    folder = tmp_path / "folds"
    folder.mkdir()
    os.mkfifo(folder / "g.fold")
    done = subprocess.run([*run, "fold", str(items), "--out", str(folder)], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == EXIT_ITEMS, done.stderr
    assert done.stderr.strip() == f"error: {items}: g: {folder / 'g.fold'}: cannot write: is a FIFO (named pipe), " \
                                  "expected a file"
    assert stat.S_ISFIFO((folder / "g.fold").lstat().st_mode) and (folder / "h.fold").is_file()


def test_fold_writes_ids_that_sanitise_alike_apart_and_inside_out(tmp_path):
    """fold's names go through the same FileNames: a/b and a_b both written (a_b-<hash>), ../../x and
    /abs/x inside --out, a repeated id refused in one line."""
    ids = ["a/b", "a_b", "../../x", "/abs/foldsim-test/x", "a/b"]
    items = items_file(tmp_path, [{**GOOD, "id": i} for i in ids])
    done = invoke("fold", items, "--out", tmp_path / "out", "--json")
    assert done.exit_code == EXIT_ITEMS
    assert error_lines(done) == [f"error: {items}: a/b: id: a_b: its files are already written for an earlier item "
                                 "with the same id (ids must differ)"]
    files = json.loads(done.stdout)["files"]
    assert files[:3] == ["a_b.fold", f"a_b-{__import__('hashlib').sha256(b'a_b').hexdigest()[:8]}.fold",
                         "_.._x.fold"] and files[3].startswith("_abs_foldsim-test_x")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(files)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.json", "out"] and not Path("/abs").exists()


# -- render-item: file names, the batch, error lines, --ids, bounds ---------------------------------------


def test_render_item_keeps_every_file_inside_out_and_never_overwrites(tmp_path):
    """Ids that are paths (absolute, ../), `.`/`..`, empty, NUL, 300 characters, two ids that sanitise
    to one name, PFHP_1 beside 1 (the same video number) and a repeated id: every file lands under
    --out, one set per item; the repeated id is refused in one line and the first item's files stay."""
    work = tmp_path / "work"
    work.mkdir()
    hostile = ["/abs/foldsim-test/x", "../../escape", ".", "..", "", "a\x00b", "y" * 300, "a/b", "a_b", "PFHP_1",
               "1"]
    records = [{**TINY, "id": i} for i in hostile] + [{**GOOD, "id": "a/b"}]
    items = items_file(work, records)
    done = invoke("render-item", items, "--images", "--out", work / "out", "--json")
    assert done.exit_code == EXIT_ITEMS, done.output
    summary = json.loads(done.stdout)
    first = summary["renamed"]["a/b"]  # a/b's name (a\x00b came first and has a_b)
    assert error_lines(done) == [f"error: {items}: a/b: id: {first}: its files are already written for an earlier "
                                 "item with the same id (ids must differ)"]
    assert len(summary["rendered"]) == len(hostile)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"] and not Path("/abs").exists()
    assert sorted(p.name for p in work.iterdir()) == ["items.json", "out"]
    folders = sorted(p.name for p in (work / "out" / "img_text_outputs").iterdir())
    assert len(folders) == len(hostile)  # one folder per item: nothing shared, nothing overwritten
    assert "PFHP_1" in folders and "1" not in folders  # 1 collides with PFHP_1's video number: made unique
    assert first.startswith("a_b-") and first in folders
    files = sorted(p.name for p in (work / "out" / "img_text_outputs" / first / "img").iterdir())
    assert files == [f"{first}_punching.png", f"{first}_result.png"]  # TINY's: the refused GOOD drew no step


def test_render_item_frames_and_videos_take_the_same_safe_names(tmp_path):
    """The 3-D files (frames, result image) go through the same names: PF_<name>, PFHP_<name>_result."""
    items = items_file(tmp_path, [{**TINY, "id": "../../up"}, {**TINY, "id": "PFHP_7"}])
    done = invoke("render-item", items, "--frames", "--width", "16", "--height", "16", "--out", tmp_path / "out")
    assert done.exit_code == EXIT_OK, done.output
    results = sorted(p.name for p in (tmp_path / "out" / "prediction_results").iterdir())
    assert results == ["PFHP_7_result.png", "PFHP__.._up_result.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.json", "out"]


def test_render_item_goes_on_past_a_bad_item_and_escapes_its_line(tmp_path):
    items = items_file(tmp_path, [{**BROKEN, "id": NASTY_ID}, GOOD, 5])
    done = invoke("render-item", items, "--images", "--out", tmp_path / "out")
    assert done.exit_code == EXIT_ITEMS
    lines = error_lines(done)
    assert len(lines) == 2 and len(done.stderr.splitlines()) == 2  # one line each: the newline is escaped
    assert lines[0].startswith(f"error: {items}: bad\\n\\x1b[31m:smile:[red]x[/red]: sheet.cols: ")
    assert "\x1b" not in done.stderr and ":smile:[red]x[/red]" in done.stderr  # as typed: no emoji, no markup
    assert lines[1] == f"error: {items}: item 2: must be an object, got 5"  # named as simulate names it
    assert (tmp_path / "out" / "img_text_outputs" / "g" / "img" / "g_result.png").is_file()  # after the bad one


def test_render_item_names_every_id_no_record_has(tmp_path):
    items = items_file(tmp_path, [GOOD])
    done = invoke("render-item", items, "--images", "--ids", "nothere,g", "--ids", "gone", "--out", tmp_path / "out")
    assert done.exit_code == EXIT_ITEMS
    assert error_lines(done) == [f"error: {items}: nothere: --ids: no record has this id",
                                 f"error: {items}: gone: --ids: no record has this id"]
    assert (tmp_path / "out" / "img_text_outputs" / "g").is_dir()
    only_missing = invoke("render-item", items, "--images", "--ids", "nothere", "--out", tmp_path / "o2")
    assert only_missing.exit_code == EXIT_ITEMS  # was 0: nothing drawn, nothing said


@pytest.mark.parametrize("args, option", [
    (["--video", "--width", "100000"], "--width"),
    (["--frames", "--height", "8192"], "--height"),
    (["--video", "--fps", "1000000"], "--fps"),
    (["--video", "--cadence", "smooth", "--seconds-per-action", "1e6"], "--seconds-per-action"),
    (["--video", "--cadence", "smooth", "--seconds-per-action", "inf"], "--seconds-per-action"),
    (["--frames", "--cadence", "smooth", "--fps", "100", "--seconds-per-action", "2"], "--seconds-per-action"),
])
def test_render_item_sizes_past_their_bound_are_refused_before_work(tmp_path, monkeypatch, args, option):
    monkeypatch.setattr("foldsim.cli.sheets.render_records", lambda *a, **k: pytest.fail("work started"))
    done = invoke("render-item", items_file(tmp_path, [GOOD]), *args, "--out", tmp_path / "out")
    assert done.exit_code == EXIT_USAGE
    [line] = error_lines(done)
    assert line.startswith(f"error: {option}: ") and "limits.MAX_" in line
    assert not (tmp_path / "out").exists()


def test_render_item_output_that_is_a_file_or_unwritable_is_refused_before_work(tmp_path):
    items = items_file(tmp_path, [GOOD])
    for out, message in ((items, "is a file, expected a directory"),
                         (Path("/proc/foldsim-x"), "cannot write there: No such file or directory")):
        done = invoke("render-item", items, "--images", "--out", out)
        assert done.exit_code == EXIT_USAGE and error_lines(done) == [f"error: --out: {out}: {message}"]


# -- audit error lines --------------------------------------------------------------------------------


def test_audit_error_lines_name_the_file_and_stay_one_line(tmp_path):
    items = items_file(tmp_path, [{"id": NASTY_ID, "family": "srbench", "item": None}])
    done = invoke("audit", items)
    assert done.exit_code == EXIT_ITEMS
    assert len(done.stderr.splitlines()) == 1 and "\x1b" not in done.stderr
    assert done.stderr.startswith(f"error: {items}: bad\\n\\x1b[31m:smile:[red]x[/red]: ")


# -- simulate: files beside an unreadable one; reading limits -----------------------------------------------


def test_simulate_answers_the_readable_file_beside_a_missing_one(tmp_path):
    good = items_file(tmp_path, [GOOD], "good.json")
    done = invoke("simulate", good, tmp_path / "missing.json")
    assert done.exit_code == EXIT_USAGE
    assert [a["id"] for a in json.loads(done.stdout)] == ["g"]
    assert error_lines(done) == [f"error: {tmp_path / 'missing.json'}: cannot read: No such file or directory"]
    nothing = invoke("simulate", tmp_path / "missing.json")
    assert nothing.exit_code == EXIT_USAGE and nothing.stdout == ""


@pytest.mark.parametrize("args, line", [
    (["simulate", "/dev/zero"], "error: /dev/zero: larger than 1,048,576 bytes, more than foldsim reads "
                                "(limits.MAX_INPUT_BYTES)"),
    (["solve", "--sheet", "2x2", "--folds", "1", "--target", "/dev/zero"],
     "error: --target: is neither JSON nor a readable file (larger than 1,048,576 bytes, more than foldsim reads "
     "(limits.MAX_INPUT_BYTES))"),
])
def test_a_stream_that_never_ends_is_cut_at_the_bound(args, line):
    """`simulate /dev/zero`, `solve --target /dev/zero` (the bound lowered to 1 MiB), in a subprocess
    whose address space is capped and whose time is limited: a reader without the bound fails there,
    and never fills the machine's memory."""
    script = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
              "import foldsim.limits as l; l.MAX_INPUT_BYTES = 1 << 20\n"
              f"from foldsim.cli import main\nmain({args!r})")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert done.returncode == EXIT_USAGE and done.stdout == ""
    assert done.stderr.strip() == line


def test_a_file_past_the_bound_is_refused_from_its_size(tmp_path, monkeypatch):
    big = items_file(tmp_path, [GOOD] * 3)
    monkeypatch.setattr(foldsim.limits, "MAX_INPUT_BYTES", big.stat().st_size - 1)
    monkeypatch.setattr(foldsim.io, "decode_text", lambda *a: pytest.fail("read past the bound"))
    with pytest.raises(InputError, match="larger than"):
        foldsim.io.read_text(big)
    monkeypatch.undo()
    assert len(foldsim.io.read_records(big)) == 3


# -- fuzz: hostile ids through render-item ---------------------------------------------------------------

HOSTILE_PIECES = st.sampled_from(["/", "..", ".", "\x00", "\\", "PFHP_", "_", "a", "1", "\u00e9", "\n", " ", "x" * 90])


@pytest.mark.fuzz
@fuzz_settings(0.01)
@given(st.lists(st.one_of(st.lists(HOSTILE_PIECES, max_size=6).map("".join), st.text(max_size=12)),
                min_size=1, max_size=4))
def test_fuzz_render_item_ids_never_escape_nor_overwrite(ids):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "work").mkdir()
        items = items_file(root / "work", [{**TINY, "id": i} for i in ids])
        done = invoke("render-item", items, "--images", "--out", root / "work" / "out", "--json")
        assert done.exit_code in (EXIT_OK, EXIT_ITEMS) and "internal error" not in done.stderr
        rendered = json.loads(done.stdout)["rendered"]
        named = [i for i in ids if i.strip()]  # a blank id names the item by its position
        repeated = len(named) - len(set(named))
        assert len(rendered) == len(ids) - repeated and len(error_lines(done)) == repeated
        assert sorted(p.name for p in root.iterdir()) == ["work"]
        assert sorted(p.name for p in (root / "work").iterdir()) == ["items.json", "out"]
        folders = list((root / "work" / "out" / "img_text_outputs").iterdir())
        assert len(folders) == len(rendered)  # one folder per drawn item: none shared


def test_every_reader_of_answers_maps_and_media_is_bounded(tmp_path, monkeypatch):
    """The runner's answers file, an id map, a provider's results file and a media file are read
    through foldsim.io's bounded reader: past limits.MAX_INPUT_BYTES each is one InputError naming
    the file, never a read until memory runs out (a FIFO or /dev/zero where a file was)."""
    import foldsim.limits
    from foldsim.outputs.harness_files import _b64
    from foldsim.errors import InputError
    from foldsim.eval.requests import _base64_of, read_id_map, restore_ids
    from foldsim.eval.runner import read_answers_file

    big = tmp_path / "big.jsonl"
    big.write_text('{"id": "a", "response": {}}\n' * 10)
    monkeypatch.setattr(foldsim.limits, "MAX_INPUT_BYTES", 64)
    for read in (read_answers_file, read_id_map, lambda p: restore_ids(p, p), _b64,
                 lambda p: _base64_of(str(p), 0, 0)):
        with pytest.raises(InputError) as caught:
            read(big)
        assert str(big) in str(caught.value) and "MAX_INPUT_BYTES" in str(caught.value)
