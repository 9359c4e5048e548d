"""docs/cli.md, written from the command line itself (`make cli-docs`: `python -m foldsim.cli.manual
docs/cli.md`): the panels of `foldsim --help` with each command's summary, then every command's
usage, description, arguments and options, exit codes and examples, all read from the same objects
`--help` prints (foldsim.cli.help), so the manual and `--help` cannot disagree.
tests/test_cli_help.py fails when the page in docs/ is not what this writes."""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: where `make cli-docs` writes the page
PAGE = Path("docs") / "cli.md"

INTRO = """\
`foldsim --help` lists the commands by job, one line each; `foldsim COMMAND --help` prints a
command's description, its arguments and options, its exit codes and examples: the text of this
page, which is generated from the commands themselves (`make cli-docs`). `foldsim --version` prints
the installed version; `foldsim --install-completion` sets up completion of commands and options in
your shell ([Install](install.md#shell-completion)).

Every command follows one error and exit-code scheme ([bad input and exit codes](errors.md)): 0 ok,
1 some items are bad (one `error:` line each; the others are done), 2 the command cannot run (a bad
option, an unreadable input, an unwritable output), 130 interrupted. Outputs are written
atomically; long runs show a progress bar (counts and rate) on a terminal and resume when
interrupted. The examples use the files `make demo` writes into `demo-out/`; run them from the
folder that holds it."""


def markdown_text(text: str) -> str:
    """`text` for a Markdown paragraph or table cell: code spans (`...`) kept as they are, Markdown's
    special characters escaped elsewhere (a file pattern such as PFHP_*_Data.json, an <id>)."""
    parts = re.split(r"(`[^`]*`)", text)
    special = str.maketrans({"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]",
                             "<": "&lt;", ">": "&gt;"})
    return "".join(part if part.startswith("`") else part.translate(special) for part in parts)


def code(text: str) -> str:
    """`text` as a code span (a backtick inside it cannot occur in an option's name or value)."""
    return f"`{text}`" if text else ""


def _default(param, ctx) -> str:
    """The default a parameter's help shows (Typer's own rendering of it), or ''."""
    extract = getattr(param, "_extract_default_help_str", None)
    if extract is None:
        return ""
    value = extract(ctx=ctx)
    show_is_str = isinstance(param.show_default, str)
    if not (show_is_str or (value is not None and (param.show_default or ctx.show_default))):
        return ""
    return param._get_default_string(ctx=ctx, show_default_is_str=show_is_str, default_value=value)


def parameter_rows(command, ctx) -> list[str]:
    """One table row per argument and option: its names, its value's name, its help with the
    default and whether it is required."""
    from .help import ConventionalArgument

    rows = []
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        if isinstance(param, ConventionalArgument):
            names = param.display_name_raw + ("..." if param.nargs != 1 else "")
        else:
            names = ", ".join([*param.opts, *param.secondary_opts])
        value = param.display_type_rich(ctx) or ""
        notes = [f"default: {_default(param, ctx)}"] if _default(param, ctx) else []
        notes += ["required"] if param.required else []
        help_text = markdown_text(getattr(param, "plain_help", None) or param.help or "")
        help_text += f" *({markdown_text('; '.join(notes))})*" if notes else ""
        rows.append(f"| {code(names)} | {code(value)} | {help_text} |")
    return rows


def command_section(name: str, command, root_ctx) -> list[str]:
    """A command's part of the page (its heading anchors the overview's link)."""
    from .help import example_lines

    ctx = type(root_ctx)(command, info_name=name, parent=root_ctx)
    doc = command.doc
    usage = command.get_usage(ctx).removeprefix("Usage: ")
    lines = [f"### foldsim {name}", "", markdown_text(doc.summary), "", "```", usage, "```", ""]
    for paragraph in doc.paragraphs:
        lines += [markdown_text(paragraph), ""]
    lines += ["| argument / option | value | what it does |", "|---|---|---|", *parameter_rows(command, ctx), ""]
    lines += ["**Exit codes**", "", "| code | when |", "|---|---|"]
    lines += [f"| {code} | {markdown_text(meaning)} |" for code, meaning in doc.exit_codes]
    lines += ["", "**Examples**", "", "```console"]
    lines += [("$ " if i == 0 else "") + line for example in doc.examples
              for i, line in enumerate(example_lines(example))]
    lines += ["```", ""]
    return lines


def render() -> str:
    """The whole page, from the command line as it is now."""
    import typer

    from . import app
    from .help import PANELS

    root = typer.main.get_command(app)
    root_ctx = typer._click.Context(root, info_name="foldsim")
    names = root.list_commands(root_ctx)
    by_panel = {panel: [n for n in names if root.commands[n].rich_help_panel == panel] for panel in PANELS}
    lines = ["# Command line", "",
             "<!-- generated by `make cli-docs` (foldsim/cli/manual.py) from the commands' docstrings and options: "
             "edit those, not this page -->", "", INTRO, "",
             "| job | command | what it does |", "|---|---|---|"]
    for panel, panel_names in by_panel.items():
        for i, name in enumerate(panel_names):
            lines.append(f"| {panel if i == 0 else ''} | [{code(name)}](#foldsim-{name}) | "
                         f"{markdown_text(root.commands[name].doc.summary)} |")
    lines += ["", "The options of `foldsim` itself (before the command):", "",
              "| option | value | what it does |", "|---|---|---|", *parameter_rows(root, root_ctx), ""]
    for panel, panel_names in by_panel.items():
        lines += [f"## {panel}", ""]
        for name in panel_names:
            lines += command_section(name, root.commands[name], root_ctx)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page to the path given (default docs/cli.md), atomically."""
    from ..io import atomic_write_bytes

    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else PAGE
    atomic_write_bytes(target, render().encode("utf-8"))
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
