"""solve: seconds per planning task of the exhaustive solver (`foldsim.solve.solve_tasks`), by fold
count, on the shared planning file (all 100 tasks of each fold count; 10 in a quick run). The first
call builds the fold count's sequence table and compiles; the second is the steady state."""

from __future__ import annotations

from rich.table import Table

from foldsim.solve import solve_tasks

from .harness import Context, first_and_steady, fmt_seconds

FOLD_COUNTS = (1, 2, 3, 4)


def run(ctx: Context) -> dict:
    by_folds = []
    for folds in FOLD_COUNTS:
        tasks = [r for r in ctx.planning_records if r.get("numberofFoldingSteps") == folds]
        tasks = tasks[:10] if ctx.options.quick else tasks
        timing, results = first_and_steady(lambda tasks=tasks: solve_tasks(tasks), 1)
        by_folds.append({"folds": folds, "tasks": len(tasks), **timing,
                         "per_task_s": timing["steady_s"] / len(tasks),
                         "solvable": sum(r.count > 0 for r in results),
                         "solutions": sum(r.count for r in results)})
    return {"by_folds": by_folds}


def report(result: dict) -> list[Table]:
    table = Table("folds", "tasks", "first call", "steady", "per task", "solvable", "solutions",
                  title="solve: exhaustive planning solver", title_justify="left")
    for f in result["by_folds"]:
        table.add_row(str(f["folds"]), str(f["tasks"]), fmt_seconds(f["first_s"]), fmt_seconds(f["steady_s"]),
                      fmt_seconds(f["per_task_s"]), str(f["solvable"]), f"{f['solutions']:,}")
    return [table]
