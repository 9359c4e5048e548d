"""The command line explains itself (issue 26): `foldsim --help` fits one screen and groups the
commands by job, every `COMMAND --help` ends with Exit codes and Examples, every example runs as
written on what `make demo` writes, `--version` is the package's, docs/cli.md is what the commands
say, and an error names the option the user typed.

The examples name files under demo-out/. They run here with the working directory at a temporary
folder holding a demo-out/ made by the cheapest commands that write the same records as
examples/demo.py (same tasks, groups, counts and seeds; text grids instead of the 3-D media, the
SpatialViz family's records without their images: no example reads those), each command's examples in a fresh
copy of it, in order (an example may use what the one before it wrote). An example that names
http://localhost:8000, where a user's model server would listen, is sent to the stub server of
tests/openai_stub_server.py instead. FOLDSIM_DEMO_OUT=path/to/demo-out runs them on a real
`make demo` output instead."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from importlib.metadata import version
from pathlib import Path

import pytest
import typer

from cli_invoke import invoke
from foldsim.cli import app
from foldsim.cli.help import (DATASETS, EVALUATE, EXAMPLE_WIDTH, PANELS, SIMULATE, SPACES, SUMMARY_LIMIT,
                              FoldsimCommand, example_lines, parse_doc)

ROOT = Path(__file__).resolve().parents[1]
WIDE = {"COLUMNS": "100"}
#: the jobs of the issue, and the commands under each
JOBS = {
    SIMULATE: ("simulate", "check", "fold"),
    SPACES: ("enumerate", "solve", "verify"),
    DATASETS: ("generate", "render", "render-item", "audit", "overlap", "export"),
    EVALUATE: ("requests", "run", "eval", "score", "report", "browse"),
}
COMMANDS = typer.main.get_command(app).commands
#: where an example's model server would be
LOCAL_SERVER = "http://localhost:8000"


def test_overview_fits_one_screen_grouped_by_job():
    result = invoke("--help", env=WIDE)
    assert result.exit_code == 0
    lines = result.stdout.rstrip("\n").split("\n")
    assert len(lines) <= 40 and max(map(len, lines)) <= 100, result.stdout
    titles = [re.search(r"─ (.+?) ─", line).group(1) for line in lines if line.startswith("╭")]
    assert titles == ["Options", *PANELS]
    for panel, names in JOBS.items():
        top = next(i for i, line in enumerate(lines) if line.startswith(f"╭─ {panel} "))
        rows = lines[top + 1: top + 1 + len(names)]
        assert [row.split()[1] for row in rows] == list(names), rows  # one line each, in the job's order
        assert lines[top + 1 + len(names)].startswith("╰")
        for name, row in zip(names, rows):
            assert COMMANDS[name].doc.summary in row
    assert "--version" in result.stdout and "--install-completion" in result.stdout


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_help_has_exit_codes_and_examples(name):
    command = COMMANDS[name]
    assert isinstance(command, FoldsimCommand) and command.rich_help_panel in PANELS
    doc = command.doc
    assert len(doc.summary) <= SUMMARY_LIMIT and doc.summary.endswith(".") and doc.summary.count(". ") == 0
    codes = [code for code, _ in doc.exit_codes]
    assert codes[0] == "0" and set(codes) <= {"0", "1", "2", "130"} and codes == sorted(codes, key=int)
    assert 1 <= len(doc.examples) <= 3 and all(example[0].startswith("foldsim ") for example in doc.examples)

    result = invoke(name, "--help", env=WIDE)
    assert result.exit_code == 0
    text = result.stdout
    assert max(map(len, text.splitlines())) <= 100
    options_end = text.rindex("╰")
    exit_at, examples_at = text.index("Exit codes:"), text.index("Examples:")
    assert options_end < exit_at < examples_at  # after the options, in this order: the help ends with them
    for example in doc.examples:
        for line in example_lines(example):
            assert len(line) <= EXAMPLE_WIDTH and f"  {line}" in text[examples_at:]
    for meaning in (m for _, m in doc.exit_codes):
        assert " ".join(meaning.split()) in " ".join(text[exit_at:examples_at].split())
    for line in text[text.rindex("\n", 0, exit_at) + 1:].splitlines():  # no line wrapped by the terminal
        assert not line.strip() or line.strip() in ("Exit codes:", "Examples:") or line.startswith("   "), line
    # conventional metavars: no Typer type labels (<bool>, <path>, <list[Path]>), nothing after a flag
    assert not re.search(r"<(bool|int|float|str|path)>|<list\[", text), text
    assert re.search(r"--help\s+Show this message", text)


def test_a_docstring_is_read_into_its_sections():
    doc = parse_doc("""Do a thing.

        First paragraph,
        wrapped.

        Exit codes:
          0  done
          2  a long reason
             continued
          130  interrupted

        Examples:
          foldsim cmd A
              --flag B
          foldsim cmd C
        """)
    assert doc.summary == "Do a thing." and doc.paragraphs == ("First paragraph, wrapped.",)
    assert doc.exit_codes == (("0", "done"), ("2", "a long reason continued"), ("130", "interrupted"))
    assert doc.examples == (("foldsim cmd A", "--flag B"), ("foldsim cmd C",))
    assert doc.commands == (["foldsim", "cmd", "A", "--flag", "B"], ["foldsim", "cmd", "C"])
    assert doc.epilog.splitlines()[-3:] == ["  foldsim cmd A \\", "      --flag B", "  foldsim cmd C"]


def test_metavars_are_conventional():
    help_of = {name: invoke(name, "--help", env=WIDE).stdout for name in ("check", "score", "overlap", "generate")}
    assert "check [OPTIONS] FILES..." in help_of["check"]
    assert re.search(r"FILES\.\.\.\s+PATH", help_of["check"]) and re.search(r"--json\s+one JSON", help_of["check"])
    assert re.search(r"--engine\s+\[general\|mentalblackboard\]", help_of["check"])
    assert "overlap [OPTIONS] A [B]" in help_of["overlap"]
    assert re.search(r"--count\s+INTEGER", help_of["generate"]) and re.search(r"--seed\s+INTEGER", help_of["generate"])
    assert re.search(r"TASK\s+TEXT", help_of["score"])
    assert re.search(r"--elevation\s+FLOAT", help_of["generate"])


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_is_the_installed_one(flag):
    result = invoke(flag)
    assert result.exit_code == 0 and result.stdout == f"foldsim {version('foldsim')}\n"


def test_shell_completion_completes_commands_and_options():
    """What `foldsim --install-completion` sets up: the shell asks foldsim for the words that fit."""
    import subprocess
    import sys

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_FOLDSIM_COMPLETE": "complete_bash", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split()) - 1)}
        done = subprocess.run([sys.executable, "-m", "foldsim"], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("foldsim re") == ["render", "render-item", "requests", "report"]
    assert complete("foldsim check --") == ["--json", "--engine", "--help"]


def test_manual_is_the_help():
    """docs/cli.md is what `make cli-docs` writes from the commands now (run it after changing a command)."""
    from foldsim.cli.manual import render

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == render(), "docs/cli.md is stale: run `make cli-docs`"
    for name, command in COMMANDS.items():
        assert f"### foldsim {name}" in page and command.doc.summary in page


@pytest.mark.parametrize("args, option", [
    (["render-item", "items.json", "--out", "media", "--video", "--fps", "0"], "--fps"),
    (["render", "items.json", "--out", "media", "--video", "--fps", "0"], "--fps"),
    (["render", "items.json", "--out", "media", "--video", "--fps", "5", "--folding-fps", "0"], "--folding-fps"),
    (["enumerate", "--sheet", "3x3", "--folds", "0"], "--folds"),
    (["enumerate", "--sheet", "3x3", "--sides", "left"], "--sides"),
    (["solve", "--sheet", "2x2", "--target", "no-such-file"], "--target"),
])
def test_an_error_names_the_option_typed(args, option, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {option}: "), result.stderr


# -- the examples, run ---------------------------------------------------------------------------------


def _demo_like(folder: Path) -> Path:
    """demo-out/ in `folder` with the records examples/demo.py writes, made the cheapest way."""
    import json

    from examples.demo import CHOICE_ITEMS, FAMILY_SETS, SEED, synthetic_answers
    from foldsim.rules import GROUPS

    out = folder / "demo-out"
    groups = [arg for group in GROUPS for arg in ("--group", group)]
    steps = [["generate", "--task", "prediction", *groups, "--count", 1, "--seed", SEED, "--out", out, "--text"],
             ["generate", "--task", "choice", "--count", CHOICE_ITEMS, "--seed", SEED, "--out", out / "choice", "--text"]]
    steps += [["generate", "--family", name, "--level", level, "--count", 2, "--seed", SEED,
               "--out", out / "families" / name, "--no-media"] for name, level in FAMILY_SETS
              if name == "spatialviz"]  # the family the examples read
    for step in steps:
        result = invoke(*step)
        assert result.exit_code == 0, result.output
    data = out / "choice" / "PFHP_Choice_Data.json"
    records = json.loads(data.read_text())
    for name, mistake in (("oracle", None), ("mirror-model", "wrong_crease")):
        (out / "choice" / f"answers-{name}.json").write_text(json.dumps(synthetic_answers(records, mistake)))
    return out


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory) -> Path:
    given = os.environ.get("FOLDSIM_DEMO_OUT")
    return Path(given).resolve() if given else _demo_like(tmp_path_factory.mktemp("demo"))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_examples_parse(name):
    """Every example names a command and only its options, with values of their types (parsed as
    the command line would, not run: the run is the slow test below)."""
    root = typer.main.get_command(app)
    for argv in COMMANDS[name].doc.commands:
        with root.make_context("foldsim", argv[1:]) as ctx:
            root.commands[argv[1]].make_context(argv[1], argv[2:], parent=ctx).close()


@pytest.mark.slow  # about a minute on 2 cores, most of it the demo-like dataset: `make fuzz` runs it
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_examples_run_on_the_demo_output(name, demo_out, tmp_path, monkeypatch):
    from openai_stub_server import StubServer

    shutil.copytree(demo_out, tmp_path / "demo-out")
    monkeypatch.chdir(tmp_path)
    commands = COMMANDS[name].doc.commands
    needs_server = any(LOCAL_SERVER in argv for argv in commands)
    stub = StubServer({"default_answer": "I fold it step by step. Answer: A"}, tmp_path / "stub")
    with stub if needs_server else contextlib.nullcontext(stub) as server:
        for argv in commands:
            assert argv[0] == "foldsim"
            result = invoke(*[server.url if arg == LOCAL_SERVER else arg for arg in argv[1:]])
            assert result.exit_code == 0, f"{' '.join(argv)}\n{result.output}"
