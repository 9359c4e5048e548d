"""What `foldsim enumerate --sheet` and `foldsim solve --sheet` read and show: targets from the
--target option, a space as a columnar .npz, and a space's counts and solutions as tables and JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from .errors import InputError, describe
from .sheet_holes import target_points
from .sheet_space import SheetSpace, Solutions
from .sheets import Fold, distinct_points


def describe_plan(space: SheetSpace, k: int, config: int, punch: int) -> dict:
    """One plan as JSON: its folds (the general item record's fold entries) and punch point."""
    from .sheets import item_to_record

    record = item_to_record(space.item(k, config, punch))
    return {"folds": record["actions"], "punch": {"x": record["punches"][0]["x"], "y": record["punches"][0]["y"]}}


def fold_text(fold: Fold) -> str:
    return f"{fold.line.describe()} {fold.moves}{'' if fold.front else ' (back)'}"


def read_targets(text: str) -> list[list]:
    """Targets from JSON text or a JSON file path (the --target option: errors name it so): a list of
    points ([x, y] or {"x", "y"}; "p/q" strings allowed) is one target; a list of such lists is
    several; {"targets": [...]} too."""
    from pathlib import Path

    raw = text
    if not text.lstrip().startswith(("[", "{")):
        from .io import read_text  # bounded (limits.MAX_INPUT_BYTES): --target /dev/zero ends

        try:
            raw = read_text(Path(text))
        except InputError as err:
            raise InputError(f"is neither JSON nor a readable file ({err.message})", field="--target") from None
    try:
        data = json.loads(raw)
    except ValueError as err:
        raise InputError(f"is not valid JSON ({err})", field="--target") from None
    if isinstance(data, dict):
        data = data.get("targets", data.get("holes"))
    if not isinstance(data, list):
        raise InputError(f"must be a list of holes or of hole lists, got {describe(data)}", field="--target")
    if data and all(isinstance(t, list) and (not t or isinstance(t[0], (list, dict))) for t in data):
        targets = data
    else:
        targets = [data]
    for i, target in enumerate(targets):
        try:
            distinct_points(target_points(target), "target")  # exact, bounded numbers; a repeated hole refused
        except InputError as err:
            raise err.at(field_prefix=f"--target: target {i + 1}") from None
    return targets


def space_npz_bytes(space: SheetSpace) -> bytes:
    """The configurations as a columnar .npz: `alphabet` (kernel rows), `folds` (text),
    `sequences_<k>` (int16 alphabet indices) and, when punched, `masks_<k>` / `on_paper_<k>`."""
    import io

    arrays = {"alphabet": space.alphabet, "folds": np.array([fold_text(f) for f in space.folds]),
              "punches": space.punches, "family": np.array(json.dumps(space.family.to_dict()))}
    for k, seq in space.sequences.items():
        arrays[f"sequences_{k}"] = seq
        if space.masks is not None:
            arrays[f"masks_{k}"], arrays[f"on_paper_{k}"] = space.masks[k], space.on_paper[k]
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def render_space(space: SheetSpace, console) -> None:
    from rich.table import Table

    table = Table(title=space.family.describe(), title_justify="left")
    table.add_column("folds", justify="right")
    table.add_column("sequences", justify="right")
    table.add_column("realizable", justify="right")
    if space.on_paper is not None:
        table.add_column("plans (punch on paper)", justify="right")
    plans = space.plan_counts() if space.on_paper is not None else {}
    for k, n in space.counts().items():
        table.add_row(str(k), f"{len(space.alphabet) ** k:,}", f"{n:,}", *([f"{plans[k]:,}"] if plans else []))
    table.add_row("[bold]total[/]", "", f"[bold]{space.total:,}[/]",
                  *([f"[bold]{sum(plans.values()):,}[/]"] if plans else []), end_section=True)
    console.print(table)
    console.print(f"{len(space.alphabet)} folds in the alphabet, {len(space.punches)} punch points, "
                  f"mesh resolution {space.resolution}", markup=False)


def solve_json(space: SheetSpace, solutions: Sequence[Solutions], *, with_plans: bool, limit: int | None = None) -> dict:
    targets = []
    for s in solutions:
        entry = {"target": [[str(x), str(y)] for x, y in s.target], "on_grid": s.on_grid, "solutions": s.count,
                 "by_folds": {str(k): n for k, n in s.by_folds().items()}}
        if with_plans:
            plans = [describe_plan(space, k, int(c), int(p)) for k, pairs in s.plans.items() for c, p in pairs[:limit]]
            entry["plans"] = plans
        targets.append(entry)
    return {"family": space.family.to_dict(), "plans_in_family": sum(space.plan_counts().values()), "targets": targets}


def render_solutions(space: SheetSpace, solutions: Sequence[Solutions], console, show: int = 5) -> None:
    console.print(f"{space.family.describe()}: {sum(space.plan_counts().values()):,} plans searched", markup=False)
    for i, s in enumerate(solutions, 1):
        holes = " ".join(f"({x}, {y})" for x, y in s.target)
        if not s.on_grid:
            console.print(f"target {i}: a hole is off the family's lattice: no solution", markup=False)
            continue
        by = ", ".join(f"{n:,} with {k} fold{'s' if k != 1 else ''}" for k, n in s.by_folds().items() if n)
        console.print(f"target {i} {holes}: {s.count:,} solution{'s' if s.count != 1 else ''}"
                      + (f" ({by})" if by else ""), markup=False)
        shown = 0
        for k, pairs in s.plans.items():
            for c, p in pairs[: show - shown].tolist():
                folds = "; ".join(fold_text(space.folds[a]) for a in space.sequences[k][c].tolist())
                x, y = space.family.punch_points()[p]
                console.print(f"  {folds or 'no fold'}; punch ({x}, {y})", markup=False)
                shown += 1
        if s.count > shown:
            console.print(f"  ... and {s.count - shown:,} more (--out writes them all)", markup=False)
