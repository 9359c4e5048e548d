"""`foldsim fold`: one FOLD file per item (foldsim.foldfile; docs/engine.md, "FOLD files")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .common import app, check_output_path, fail, item_errors, items_exit_code, out, print_json
from .help import SIMULATE, FoldsimCommand


@app.command("fold", cls=FoldsimCommand, rich_help_panel=SIMULATE)
def fold_command(
    items: Annotated[Path, typer.Argument(help="general item records (JSON list or JSON Lines, see foldsim.sheets."
                                               "item_from_record), fold-and-cut items on polygon sheets (with "
                                               "\"cuts\"); MentalBlackboard records go through the preset")],
    out_dir: Annotated[Path, typer.Option("--out", help="the folder to write one <id>.fold per item into")],
    as_json: Annotated[bool, typer.Option("--json", help="print {items, written, failed, files}")] = False,
) -> None:
    """Write every item as a FOLD file: crease pattern, folded states, holes.

    One <id>.fold per item (FOLD spec 1.2): the crease pattern of the final state, one folded frame
    after each action with face orders, the holes under "foldsim:holes". A fold-and-cut item (a
    record with "cuts") gets one frame after each fold and its exact cut-outs under
    "foldsim:cutouts" (docs/cutting.md, "FOLD files of polygon sheets").

    Exit codes:
      0  every item is written
      1  some items have no file (one error line each; the others are written)
      2  the file cannot be read, or --out cannot be written

    Examples:
      foldsim fold demo-out/families/spatialviz/spatialviz_items.json --out demo-out/fold
    """
    from ..errors import InputError, debugging, internal_error_text
    from ..simulate import record_positions
    from ..io import FileNames, NotRegularFileError, atomic_write_text, read_records, record_name, record_object

    check_output_path(out_dir, "dir")
    try:
        records = read_records(items)
    except InputError as problem:
        fail(problem)
    errors: list[str] = []
    written: list[str] = []
    names = FileNames()  # one safe name per id (foldsim.io.safe_file_name), never one file for two items
    positions = record_positions(records, len(records))  # "line 4" / "item 2", as simulate names them
    for index, record in enumerate(records):
        name = record_name(record, index)
        if name == record_name(None, index):
            name = positions[index]
        try:
            document = any_fold_document(record_object(record, name), index, name)
            target = f"{names.claim(document['file_title'], name)}.fold"
        except InputError as problem:
            if problem.item in (None, record_name(None, index)):  # an id-less item: by its position
                problem = InputError(problem.message, item=name, field=problem.field)
            errors.append(str(problem))
            continue
        except Exception as problem:  # noqa: BLE001  (one item's bug is that item's error line)
            if debugging():
                raise
            errors.append(f"{name}: {internal_error_text(problem)}")
            continue
        try:
            atomic_write_text(out_dir / target, json.dumps(document, indent=1) + "\n")
        except NotRegularFileError as problem:  # a device or FIFO at this item's path: this item's error
            errors.append(f"{name}: {problem.filename}: cannot write: {problem.strerror}")
            continue
        except OSError as problem:  # the folder itself fails (full, read-only): the rest would too
            item_errors(items, errors)
            fail(f"--out: {out_dir / target}: cannot write: {problem.strerror or problem}")
        written.append(target)
    failed = item_errors(items, errors)
    if as_json:
        print_json({"items": len(records), "written": len(written), "failed": failed, "files": written})
    else:
        out.print(f"{items}: wrote {len(written)} of {len(records)} FOLD files to {out_dir}", markup=False)
    raise typer.Exit(items_exit_code(failed))


def any_fold_document(record: dict, index: int, name: str) -> dict:
    """The FOLD object of a record of any kind (foldsim.record_kinds): a fold-and-cut item's
    (foldsim.cut_fold_file), a general or MentalBlackboard item's (foldsim.foldfile); a cube net
    has none (InputError)."""
    from ..errors import InputError
    from ..foldfile import fold_document
    from ..record_kinds import KIND_CUT, KIND_NET, read_cut_item, record_kind

    kind = record_kind(record)
    if kind == KIND_NET:
        raise InputError("is a cube net (it has \"cells\"): FOLD files are written for folded sheets, not nets",
                         item=name)
    if kind == KIND_CUT:
        from ..cut_fold_file import cut_fold_document

        return cut_fold_document(read_cut_item(record, index, name), name)
    return fold_document(record, index=index, name=name)
