"""The core commands: check, enumerate, solve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..progress import counting_bar, staged_bar
from .common import (EXIT_USAGE, app, check_output_path, err, error, fail, item_errors, items_exit_code, out,
                     print_json, write_output)
from .help import SIMULATE, SPACES, FoldsimCommand

# a general sheet family (foldsim.sheet_space), shared by `enumerate --sheet` and `solve --sheet`
SheetOption = Annotated[str | None, typer.Option("--sheet", metavar="COLSxROWS", help="a general sheet COLSxROWS (e.g. 4x4): its "
                                                 "family of fold sequences instead of MentalBlackboard's")]
FoldsOption = Annotated[int | None, typer.Option("--folds", help="with --sheet: 1 up to this many folds (default 2)")]
LinesOption = Annotated[str | None, typer.Option("--lines", metavar="LINES", help="with --sheet: some of grid, "
                                                 "diagonal, halves, thirds, centre-diagonals, comma-separated "
                                                 "(default grid,diagonal)")]
SidesOption = Annotated[str | None, typer.Option("--sides", metavar="[both|smaller]", help="with --sheet: both "
                                                 "(either named side moves; default) or smaller")]
FacesOption = Annotated[str | None, typer.Option("--faces", metavar="[front|both]", help="with --sheet: front "
                                                 "(default) or both (front and back folds)")]
PunchesOption = Annotated[str | None, typer.Option("--punches", metavar="[centres|half]", help="with --sheet: "
                                                   "centres (every cell centre; default) or half (every half-cell "
                                                   "point inside)")]


def refuse_unused(given: dict[str, object], reason: str) -> None:
    """Exit 2 with one line naming the first option of `given` that was given (not None) although
    the command ignores it in this mode: an option is used or refused, never silently dropped."""
    for name, value in given.items():
        if value is not None:
            fail(f"{name}: not used {reason}")


def sheet_family(sheet: str, folds: int | None, lines: str | None, sides: str | None, faces: str | None,
                 punches: str | None):
    """The `--sheet` family from the CLI options (their defaults where not given)."""
    from ..sheet_space import SheetFamily

    def given(value, default):
        return default if value is None else value

    return SheetFamily.parse(sheet, given(folds, 2), given(lines, "grid,diagonal"), sides=given(sides, "both"),
                             faces=given(faces, "front"), punches=given(punches, "centres"))


def render_named_counts(counts: dict) -> None:
    """A record family's own counts under its summary line, one per line (nested ones as compact JSON)."""
    for key, value in counts.items():
        if key not in ("family", "level", "configurations", "items", "note"):
            if isinstance(value, (dict, list)):
                text = json.dumps(value, separators=(", ", ": "))
            else:
                text = f"{value:,}" if isinstance(value, int) else str(value)
            out.print(f"  {key}: {text}", markup=False)


def enumerate_sheet(family, **options):
    """`enumerate_family` with a progress bar on stderr: per fold count, the children folded, their
    rate and the time left (silent when stderr is not a terminal); InputError before work when the
    family cannot fit memory, and as soon as a level passes the configuration bound."""
    from ..sheet_space import enumerate_family

    bar, advance, stage = staged_bar("rows", console=err)
    size = f"{family.cols}x{family.rows}"
    with bar:
        return enumerate_family(family, on_progress=advance, **options,
                                on_level=lambda k, n: stage(f"enumerating {size}: {k} fold{'s' * (k != 1)}", n))


@app.command(cls=FoldsimCommand, rich_help_panel=SIMULATE)
def check(
    files: Annotated[list[Path], typer.Argument(help="MentalBlackboard-format JSON/JSONL files")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per file (a list for several)")] = False,
    engine: Annotated[str, typer.Option("--engine", metavar="[general|mentalblackboard]", help="general (the general "
                                        "engine's MentalBlackboard preset) or mentalblackboard (the 32-triangle fast path)")] = "general",
) -> None:
    """Re-simulate records and compare them with what they recorded.

    Every MentalBlackboard-format record is simulated again; its result holes (as a multiset,
    directions by class) and unfolding codes are compared with the recorded ones.

    Exit codes:
      0  every item of every file matches
      1  some item is invalid, differs or cannot be made (one error line per invalid item)
      2  a file cannot be read at all, or a bad option

    Examples:
      foldsim check demo-out/PFHP_Prediction_Data.json
      foldsim check --json demo-out/choice/PFHP_Choice_Data.json
    """
    from ..check import ENGINES, check_file

    if engine not in ENGINES:
        fail(f"--engine: must be one of {', '.join(ENGINES)}, got {engine!r}")
    checks = [check_file(f, engine=engine) for f in files]
    if as_json:
        summaries = [c.summary() for c in checks]
        print_json(summaries[0] if len(summaries) == 1 else summaries)
    else:
        for fc in checks:
            _print_check(fc)
    for fc in checks:
        item_errors(fc.file, [item.reason for item in fc.items if item.verdict == "invalid"])
        if fc.error:
            error(fc.error)
    codes = [EXIT_USAGE if fc.error else items_exit_code(not fc.all_match) for fc in checks]
    raise typer.Exit(max(codes))


def _print_check(fc) -> None:
    from ..check import MATCH

    if fc.error:
        out.print(f"[bold]{escape(fc.file)}[/]: [red]unreadable[/]")
        return
    s = fc.summary()
    colour = "green" if fc.all_match else "yellow"
    out.print(f"[bold]{escape(fc.file)}[/]: [{colour}]{s['match']}/{s['items']} match[/]")
    for item in fc.items:
        if item.verdict == MATCH:
            continue
        reason = item.reason.removeprefix(f"{item.id}: ")  # an invalid item's reason starts with its name
        out.print(f"  [red]{item.verdict}[/] {escape(item.id)}: {escape(reason)}", markup=True)
        for hole in item.missing:
            out.print(f"      - recorded only:  {hole.to_dict()}", markup=False)
        for hole in item.extra:
            out.print(f"      + simulated only: {hole.to_dict()}", markup=False)
    inconsistent = [i for i in fc.items if i.inconsistencies]
    if inconsistent:
        out.print(f"  [dim]{len(inconsistent)} inconsistent records (read tolerantly):[/]")
        for item in inconsistent:
            out.print(f"    {item.id}: {'; '.join(item.inconsistencies)}", markup=False)


@app.command(cls=FoldsimCommand, rich_help_panel=SIMULATE)
def simulate(
    files: Annotated[list[Path], typer.Argument(help="JSON/JSONL items: general items (with a \"sheet\"), "
                                                "fold-and-cut items (with \"cuts\"), cube nets (with \"cells\") "
                                                "and/or MentalBlackboard records")],
    out_file: Annotated[Path | None, typer.Option("--out", help="write the answers as one JSON list")] = None,
) -> None:
    """Simulate items and print one JSON answer per item.

    Each answer (printed, or written as one JSON list with --out) holds the item's status and its
    holes: exact points for general items (with a "sheet"), the benchmark's fields for
    MentalBlackboard records. A record with "cells" is a cube net (its validity, reason, faces
    and opposite faces), else one with "cuts" a fold-and-cut item (its exact cut-outs; see
    docs/cutting.md, "Commands"). not_realizable and off_paper are answers, not errors.

    Exit codes:
      0  every item was read
      1  some item is invalid (one error line each; the others are answered)
      2  a file cannot be read (one line; the other files are still answered, as check does), or
         --out cannot be written

    Examples:
      foldsim simulate demo-out/PFHP_Prediction_Data.json --out demo-out/answers.json
      foldsim simulate demo-out/families/spatialviz/spatialviz_items.json
    """
    from ..errors import InputError
    from ..io import read_records
    from ..record_kinds import simulate_answers
    from ..simulate import STATUS_INVALID

    if out_file is not None:
        check_output_path(out_file, "file")
    answers, failed, unreadable = [], 0, 0
    for path in files:
        try:
            records = read_records(path)
        except InputError as problem:
            error(problem)
            unreadable += 1
            continue
        found = simulate_answers(records)
        answers += found
        failed += item_errors(path, [a["reason"] for a in found if a["status"] == STATUS_INVALID])
    if unreadable == len(files):  # nothing read: no empty answer list (nor an --out over a good one)
        raise typer.Exit(EXIT_USAGE)
    if out_file is not None:
        write_output(out_file, json.dumps(answers, indent=1) + "\n")
    else:
        print_json(answers)
    raise typer.Exit(EXIT_USAGE if unreadable else items_exit_code(failed))


@app.command("enumerate", cls=FoldsimCommand, rich_help_panel=SPACES)
def enumerate_command(
    rules: Annotated[str | None, typer.Option("--rules", metavar="[physical|mentalblackboard]", help="the rule "
                                                 "set: physical folds (default), or MentalBlackboard's")] = None,
    pattern: Annotated[str | None, typer.Option("--pattern", help="only this action pattern, e.g. FRF")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="write the configurations as a columnar .npz")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {rules, total, by_pattern, ...} as JSON")] = False,
    sheet: SheetOption = None, folds: FoldsOption = None, lines: LinesOption = None,
    sides: SidesOption = None, faces: FacesOption = None, punches: PunchesOption = None,
    family: Annotated[str | None, typer.Option("--family", metavar="FAMILY", help="spatialviz, visfactor, srbench, "
                                               "mentalblackboard, pfp, stare, spatialviz-cube or pfp-cube: count "
                                               "that benchmark family's space (docs/families.md)")] = None,
    level: Annotated[str | None, typer.Option("--level", help="with --family: one level (default: every level)")] = None,
) -> None:
    """Count the configurations of a rule set, sheet or benchmark family.

    Enumerates a rule set's configurations on the device and counts them per action pattern
    (SPEC §5); with --sheet, a general sheet family's realizable fold sequences per fold count
    (docs/engine.md, "Configuration spaces"); with --family, a benchmark family's space per level.

    Exit codes:
      0  counted
      2  a bad option, an option of another mode, a --sheet family past the memory bounds
         (docs/errors.md, "Sizes and bounds"), or --out cannot be written

    Examples:
      foldsim enumerate --rules mentalblackboard --pattern FRF
      foldsim enumerate --sheet 3x3 --folds 2 --json
      foldsim enumerate --family stare --level all_vis
    """
    from ..enumerate import enumeration_report, render_enumeration
    from ..errors import InputError

    sheet_only = {"--folds": folds, "--lines": lines, "--sides": sides, "--faces": faces, "--punches": punches}
    if family is not None:
        refuse_unused({"--sheet": sheet, "--rules": rules, "--pattern": pattern, "--out": out_file, **sheet_only},
                      "with --family (it counts that family's space per level)")
    elif sheet is not None:
        refuse_unused({"--rules": rules, "--pattern": pattern, "--level": level},
                      "with --sheet (it enumerates that sheet's fold sequences; --rules/--pattern are "
                      "MentalBlackboard's, --level a --family's)")
    else:
        refuse_unused({"--level": level, **sheet_only}, "without --family / --sheet (--level picks a --family's "
                      "level; --folds, --lines, --sides, --faces, --punches describe a --sheet family)")
    rules = rules or "physical"
    if family is not None:
        from ..families.record_family import RecordFamily
        from ..families.registry import FAMILIES, RECORD_FAMILIES, family as family_of

        try:
            fam = family_of(family)
            records = family in RECORD_FAMILIES
            counted = [*FAMILIES, *(name for name, f in RECORD_FAMILIES.items()
                                    if type(f).count_space is not RecordFamily.count_space)]
            if family not in counted:  # a record family whose space is not finite or not counted
                raise InputError(f"{family} counts no space of its own; enumerate --family counts the space of "
                                 f"{', '.join(counted)}", field="--family")
            if level is not None:
                levels = [fam.level(level)]
            else:
                levels = list(fam.levels) if records else list(fam.levels.values())
            bar, advance = counting_bar(f"enumerating {family}", "units" if records else "rows", console=err)
            with bar:
                counts = [fam.count_space(lv, on_progress=advance) for lv in levels]
        except InputError as problem:
            fail(problem)
        if as_json:
            print_json(counts[0] if len(counts) == 1 else counts)
        else:
            for c in counts:
                out.print(f"{family} {c['level']}: {c['configurations']:,} configurations"
                          + (f", {c['items']:,} items" if "items" in c else "")
                          + (f" ({c['note']})" if "note" in c else ""), markup=False)
                if records:
                    render_named_counts(c)
        return
    if out_file is not None:
        check_output_path(out_file, "file")
    if sheet is not None:
        from ..sheet_space_io import render_space, space_npz_bytes

        try:
            space = enumerate_sheet(sheet_family(sheet, folds, lines, sides, faces, punches), punch=True)
        except InputError as problem:
            fail(problem)
        if out_file is not None:
            write_output(out_file, space_npz_bytes(space))
        if as_json:
            print_json(space.summary())
        else:
            render_space(space, out)
        return
    try:
        bar, advance = counting_bar(f"enumerating {rules}", "rows", console=err)
        with bar:
            report = enumeration_report(rules, pattern, on_progress=advance)
    except InputError as problem:
        fail(problem)
    if out_file is not None:
        write_output(out_file, report.table.npz_bytes())
    if as_json:
        print_json(report.summary())
    else:
        render_enumeration(report, out)
        if out_file is not None:
            out.print(f"wrote {len(report.table):,} configurations to {out_file}", markup=False)


@app.command(cls=FoldsimCommand, rich_help_panel=SPACES)
def solve(
    tasks: Annotated[Path | None, typer.Argument(help="planning tasks: a MentalBlackboard planning file")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="only the first N tasks")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the counts per task as JSON")] = False,
    out_file: Annotated[Path | None, typer.Option("--out", help="write every task's solutions as JSON")] = None,
    sheet: SheetOption = None, folds: FoldsOption = None, lines: LinesOption = None,
    sides: SidesOption = None, faces: FacesOption = None, punches: PunchesOption = None,
    target: Annotated[str | None, typer.Option("--target", metavar="JSON", help="with --sheet: target holes as JSON (or a JSON "
                                               "file): [[x, y], ...] one target, [[[x, y], ...], ...] several")] = None,
) -> None:
    """Find every plan that makes each planning task's result holes.

    A plan has at most 2 punches, -F folds and no rotation; a task without one is proved
    unsolvable by exhaustive search. With --sheet and --target instead of a file: every plan (a
    fold sequence of the family, one punch of its set) that makes exactly the target holes, counted.

    Exit codes:
      0  every task was read (unsolvable ones included: that is an answer)
      1  some task cannot be read (one error line each; the others are solved)
      2  the file cannot be read, an option of the other mode is given (--limit takes a planning
         file's first tasks; --target and the family options are --sheet's), or a --sheet family
         passes the memory bounds (docs/errors.md, "Sizes and bounds")

    Examples:
      foldsim generate --task planning --count 3 --seed 2024 --out demo-out/planning
      foldsim solve demo-out/planning/PFHP_Planning_Data.json --out demo-out/planning/plans.json
    """
    from ..errors import InputError
    from ..solve import render_solve, solutions_json, solve_file, solve_summary

    if limit is not None and limit < 0:
        fail(f"--limit: must be 0 or more, got {limit}")
    if out_file is not None:
        check_output_path(out_file, "file")
    if sheet is not None or tasks is None:
        from ..sheet_space import solve_targets
        from ..sheet_space_io import read_targets, render_solutions, solve_json

        if sheet is None or target is None or tasks is not None:
            fail("give a planning file, or --sheet with --target (not both)")
        refuse_unused({"--limit": limit}, "with --sheet (it takes the first N tasks of a planning file; every "
                      "--target of a --sheet run is solved, and --out writes every plan)")
        try:
            family = sheet_family(sheet, folds, lines, sides, faces, punches)
            targets = read_targets(target)
            space = enumerate_sheet(family, punch=True)
        except InputError as problem:
            fail(problem)
        found = solve_targets(space, targets)
        if out_file is not None:
            write_output(out_file, json.dumps(solve_json(space, found, with_plans=True), indent=1) + "\n")
        if as_json:
            print_json(solve_json(space, found, with_plans=False))
        else:
            render_solutions(space, found, out)
        return
    refuse_unused({"--target": target, "--folds": folds, "--lines": lines, "--sides": sides, "--faces": faces,
                   "--punches": punches}, "without --sheet (they describe a --sheet family and its targets)")
    try:
        bar, advance = counting_bar("solving", "tasks", console=err)
        with bar:
            results = solve_file(tasks, limit=limit, on_progress=advance)
    except InputError as problem:
        fail(problem)
    if out_file is not None:
        write_output(out_file, json.dumps(solutions_json(results), indent=1) + "\n")
    summary = solve_summary(results)
    if as_json:
        print_json(summary)
    else:
        render_solve(summary, out)
    failed = item_errors(tasks, [r.error for r in results if r.error])
    raise typer.Exit(items_exit_code(failed))
