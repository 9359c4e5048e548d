"""How the command line explains itself: the panels that group the commands in `foldsim --help`, the
command class that reads a command's docstring (a one-sentence summary for the overview, the full
description, then `Exit codes:` and `Examples:` sections printed after the options), conventional
metavars (FILES..., PATH, INTEGER, FLOAT, TEXT, [a|b|c]; none on flags), the families every
`--family` help and the overview list (`family_names`) and `--version`.

A command's docstring is the one source of its help, of docs/cli.md (`foldsim.cli.manual`) and of the
examples the tests run:

    Summary sentence, at most SUMMARY_LIMIT characters (the overview's line).

    Description paragraphs, wrapped as any docstring (joined again when printed).

    Exit codes:
      0  when it exits 0
      1  when it exits 1

    Examples:
      foldsim COMMAND ARGS...
      foldsim COMMAND A LONG LINE
          CONTINUED (indented deeper: printed as a shell line continuation, so every line fits
          100 columns and copies as it is)

Typer offers no hook for the class of a parameter; `conventional` gives each parameter of a command
the display of a subclass defined here (help text and metavars only: parsing and values unchanged)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, get_args

import typer
from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

#: the panels of `foldsim --help`, in order: one per job
SIMULATE = "Simulate and check"
SPACES = "Spaces and plans"
DATASETS = "Datasets and families"
EVALUATE = "Evaluate"
PANELS = (SIMULATE, SPACES, DATASETS, EVALUATE)
#: the order of the commands inside their panel, the way a job goes (a command not named here comes last)
ORDER = ("simulate", "check", "fold", "enumerate", "solve", "verify", "generate", "render", "render-item", "audit",
         "overlap", "export", "requests", "run", "eval", "score", "report", "browse")

#: the most characters of a command's summary (its line in the overview)
SUMMARY_LIMIT = 70
#: the section headings of a command's docstring (Exit codes, then Examples)
EXIT_CODES = "Exit codes:"
EXAMPLES = "Examples:"

#: the most characters of an example's line (with its indent it fits a 100-column terminal)
EXAMPLE_WIDTH = 94
#: conventional metavars of the value types
TYPE_NAMES = {int: "INTEGER", float: "FLOAT", str: "TEXT", bool: "BOOLEAN"}


@dataclass(frozen=True)
class CommandDoc:
    """A command's docstring, read: the summary, the description paragraphs after it (each one line),
    the exit codes as (code, meaning) and the examples, each a tuple of its lines (a long one is
    continued on more lines)."""

    summary: str
    paragraphs: tuple[str, ...]
    exit_codes: tuple[tuple[str, str], ...]
    examples: tuple[tuple[str, ...], ...]

    @property
    def description(self) -> str:
        """The summary and the paragraphs, blank-line separated."""
        return "\n\n".join((self.summary, *self.paragraphs))

    @property
    def epilog(self) -> str:
        """The Exit codes and Examples sections as printed after the options (a long meaning wrapped
        under itself, every line within a 100-column terminal)."""
        import textwrap

        width = max((len(code) for code, _ in self.exit_codes), default=0)
        lines = [EXIT_CODES]
        for code, meaning in self.exit_codes:
            lines += textwrap.wrap(meaning, EXAMPLE_WIDTH + 2, initial_indent=f"  {code:<{width}}  ",
                                   subsequent_indent=" " * (width + 4), break_on_hyphens=False)
        lines += ["", EXAMPLES, *(f"  {line}" for example in self.examples for line in example_lines(example))]
        return "\n".join(lines)

    @property
    def commands(self) -> tuple[list[str], ...]:
        """Each example as the argument list a shell would run."""
        import shlex

        return tuple(shlex.split(" ".join(example)) for example in self.examples)


def example_lines(example: tuple[str, ...]) -> list[str]:
    """An example as printed: its continued lines ended by a backslash, the continuations indented."""
    lines = [example[0], *(f"    {line}" for line in example[1:])]
    return [f"{line} \\" for line in lines[:-1]] + lines[-1:]


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, each joined into one line (a paragraph whose lines are
    indented, a list, keeps its lines)."""
    found = []
    for block in text.strip().split("\n\n"):
        lines = block.strip("\n").splitlines()
        if any(line.startswith((" ", "\t")) for line in lines):
            found.append("\n".join(line.rstrip() for line in lines))
        elif lines:
            found.append(" ".join(line.strip() for line in lines))
    return found


def parse_doc(doc: str | None) -> CommandDoc:
    """Read a command docstring (module docstring: the layout). Sections missing give empty tuples
    (tests/test_cli_help.py requires them of every command)."""
    import inspect

    text = inspect.cleandoc(doc or "")
    sections: dict[str, list[str]] = {EXIT_CODES: [], EXAMPLES: []}
    body: list[str] = []
    current = body
    for line in text.splitlines():
        if line.strip() in sections:
            current = sections[line.strip()]
        else:
            current.append(line)
    summary, *paragraphs = _paragraphs("\n".join(body)) or [""]
    exit_codes: list[tuple[str, str]] = []
    for line in sections[EXIT_CODES]:
        code, _, meaning = line.strip().partition(" ")
        if code.isdigit():
            exit_codes.append((code, meaning.strip()))
        elif code and exit_codes:  # a meaning continued on the next line
            exit_codes[-1] = (exit_codes[-1][0], f"{exit_codes[-1][1]} {line.strip()}")
    examples: list[tuple[str, ...]] = []
    indent = None
    for line in sections[EXAMPLES]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if examples and indent is not None and depth > indent:  # continues the example above
            examples[-1] += (line.strip(),)
        else:
            examples.append((line.strip(),))
            indent = depth
    return CommandDoc(summary, tuple(paragraphs), tuple(exit_codes), tuple(examples))


def family_names() -> str:
    """Every family `--family` takes, as the overview and the help texts list them: "a, b, c or d"
    (the point-hole families, then the record families, in the registry's order), so a family
    registered in foldsim.families.registry is listed everywhere without a line here."""
    from ..families.registry import FAMILIES, RECORD_FAMILIES

    names = [*FAMILIES, *RECORD_FAMILIES]
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


# -- conventional metavars -------------------------------------------------------------------------


def value_name(param: TyperOption | TyperArgument) -> str:
    """The conventional name of a parameter's value: its metavar when it has one, [a|b] for a choice,
    PATH, INTEGER, FLOAT, TEXT (the element's name for a list)."""
    if param.metavar is not None:
        return param.metavar
    descriptor = param.type_descriptor
    if descriptor.is_choice:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in descriptor.choices or ()) + "]"
    if descriptor.is_path:
        return "PATH"
    annotation = descriptor.annotation
    if descriptor.is_list or descriptor.is_tuple:
        annotation = (get_args(annotation) or (str,))[0]
    if getattr(annotation, "__name__", "") in ("Path", "PurePath"):
        return "PATH"
    return TYPE_NAMES.get(annotation, getattr(annotation, "__name__", "TEXT").upper())


class ConventionalOption(TyperOption):
    """An option shown as `--name VALUE`: no value on a flag, the metavar or conventional name otherwise."""

    def display_type_rich(self, ctx) -> str | None:
        if self.is_flag or self.count:
            return None
        return value_name(self) + ("..." if self.nargs != 1 else "")


class ConventionalArgument(TyperArgument):
    """An argument shown by its upper-case name (FILES... for several; `[NAME]` in the usage line when
    optional), its value by the metavar or conventional name."""

    @property
    def display_name_raw(self) -> str:
        return self.name.upper()

    def display_type_rich(self, ctx) -> str | None:
        return value_name(self)

    def _usage_display_name(self) -> str:
        name = self.display_name_raw + ("..." if self.nargs != 1 else "")
        return name if self.required else f"[{name}]"


def conventional(params: list) -> list:
    """Give each Typer parameter the conventional display (once; its help text escaped for Rich
    markup, the plain text kept as `plain_help` for the manual). Returns `params`."""
    for param in params:
        swap = {TyperOption: ConventionalOption, TyperArgument: ConventionalArgument}.get(type(param))
        if swap is not None:
            param.plain_help = param.help or ""
            param.help = escape(param.plain_help)
            param.__class__ = swap
    return params


class FoldsimCommand(TyperCommand):
    """A command whose docstring is read by `parse_doc`: the summary is its line in the overview, the
    description its help, Exit codes and Examples printed after the options; parameters shown the
    conventional way."""

    def __init__(self, *args, help: str | None = None, **kwargs) -> None:
        self.doc = parse_doc(help)
        kwargs.update(help=escape(self.doc.description), short_help=escape(self.doc.summary),
                      epilog=escape(self.doc.epilog))
        super().__init__(*args, **kwargs)

    def get_params(self, ctx):
        return conventional(super().get_params(ctx))


class FoldsimHelpGroup(TyperGroup):
    """The root group: its commands listed panel by panel in PANELS order, in ORDER inside a panel
    (whatever order the modules are imported in), its options shown the conventional way."""

    def list_commands(self, ctx) -> list[str]:
        def rank(name: str) -> tuple[int, int]:
            panel = getattr(self.commands[name], "rich_help_panel", None)
            return (PANELS.index(panel) if panel in PANELS else len(PANELS),
                    ORDER.index(name) if name in ORDER else len(ORDER))

        return sorted(super().list_commands(ctx), key=rank)

    def get_params(self, ctx):
        return conventional(super().get_params(ctx))


# -- --version ---------------------------------------------------------------------------------------


def installed_version() -> str:
    """The version of the installed foldsim distribution (its package metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("foldsim")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"foldsim {installed_version()}")
        raise typer.Exit()


VersionOption = Annotated[bool, typer.Option("--version", "-V", callback=_print_version, is_eager=True,
                                             help="Print the installed version and exit.")]
