"""The family commands: `audit --family F ITEMS` (`generate --family` is `generate`'s, foldsim.cli.dataset)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import EXIT_ITEMS, EXIT_USAGE, app, error, fail, out, print_json
from .help import DATASETS, FoldsimCommand, family_names


@app.command(cls=FoldsimCommand, rich_help_panel=DATASETS)
def audit(
    files: Annotated[list[Path], typer.Argument(help="items in foldsim's machine-readable family format (JSON/JSONL)")],
    family: Annotated[str | None, typer.Option("--family", metavar="FAMILY", help=f"{family_names()}: the items' "
                                               "family (records of another family are invalid)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per file (a list for several)")] = False,
) -> None:
    """Check that each family item's keyed option is the physical answer.

    Every item is simulated again; an item whose key differs is named with the holes only the key
    has and the holes only the physics has. A record family's items (cube nets, fold and cut) are
    judged by that family's own engine: the key, every option distinct, every distractor wrong;
    without --family, a file whose records all name one record family is judged by it.

    Exit codes:
      0  every key is the physical answer
      1  some key differs or some item is invalid (one line each)
      2  a file cannot be read, or a bad option

    Examples:
      foldsim audit --family spatialviz demo-out/families/spatialviz/spatialviz_items.json
    """
    from ..dataset.record_runs import audit_record_family, named_record_family
    from ..errors import InputError
    from ..families.audit import DIFFERS, INVALID, audit_records
    from ..families.record_family import RecordFamily
    from ..families.registry import family as family_of
    from ..io import read_records

    fam = None
    if family is not None:
        try:
            fam = family_of(family)
        except InputError as problem:
            fail(problem)
    reports, code = [], 0
    for path in files:
        try:
            records = read_records(path)
        except InputError as problem:
            error(problem)
            code = EXIT_USAGE
            continue
        judge = fam if family is not None else named_record_family(records)
        if isinstance(judge, RecordFamily):
            report = audit_record_family(judge, records, str(path))
        else:
            report = audit_records(records, str(path), family=family)
        reports.append(report)
        if not report.all_ok:
            code = max(code, EXIT_ITEMS)
    if as_json:
        summaries = [r.summary() for r in reports]
        print_json(summaries[0] if len(summaries) == 1 else summaries)
    for report in reports:
        if not as_json:
            s = report.summary()
            out.print(f"{report.file}: {s['ok']}/{s['items']} keys are the physical answer", markup=False, emoji=False)
        for item in report.items:
            if item.verdict in (INVALID, DIFFERS):  # one line, the id's newlines/ESC/markup escaped (common.error)
                error(f"{report.file}: {item.reason}")
            if item.verdict == DIFFERS:
                if not as_json:
                    for hole in item.only_key:
                        out.print(f"    - key only:     ({hole.x}, {hole.y}) {hole.to_dict()}", markup=False)
                    for hole in item.only_physics:
                        out.print(f"    + physics only: ({hole.x}, {hole.y}) {hole.to_dict()}", markup=False)
    raise typer.Exit(code)
