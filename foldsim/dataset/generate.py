"""The dataset generator: MentalBlackboard-format items of every task (drawn by
foldsim.dataset.draw, the choice tasks' by foldsim.dataset.choice), simulated in one batch, checked,
and written with their media (`write_dataset`).

Everything here is a pure function of the options: the same seed gives the same records, byte for
byte, whatever renders them afterwards (`foldsim.dataset.media`).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ..simulate import simulate
from ..tasks import CHOICE_TASKS
from .choice import choice_records
from .draw import DATA_FILE, add_solution_counts, check_results, default_groups, generate_configs, record_of
from .levels import add_levels
from .media import MediaRequest, RenderReport, open_output
from .options import GenerateOptions
from .splits import add_splits

#: the generator's public names (`from foldsim.dataset.generate import GenerateOptions, write_dataset`)
__all__ = ["DATA_FILE", "GenerateOptions", "default_groups", "generate_records", "add_solution_counts",
           "write_dataset"]


def generate_records(options: GenerateOptions, *, with_solutions: bool = True) -> list[dict]:
    """Every record of a generated dataset: configurations drawn, simulated in ONE batch, checked.

    Planning records also carry `numberofSolutions` (see `add_solution_counts`) unless
    `with_solutions` is off; every record carries its difficulty `level` (foldsim.dataset.levels)
    and, when splits are asked for, its `split` (foldsim.dataset.splits).
    """
    if options.task in CHOICE_TASKS:
        records = choice_records(options.validate())
        if options.splits:
            add_splits(records, options.splits)
        return records
    configs = generate_configs(options)
    results = simulate(configs)
    check_results(configs, results)
    records = [record_of(c, r, options.task) for c, r in zip(configs, results)]
    if options.task == "planning" and with_solutions:
        add_solution_counts(records)
    add_levels(records, results)
    if options.splits:
        add_splits(records, options.splits)
    return records


def write_dataset(options: GenerateOptions, out_dir: str | Path, request: MediaRequest, *, workers: int = 1,
                  backend: str = "local", address: str | None = None,
                  console: Console | None = None) -> tuple[Path, list[dict], RenderReport]:
    """Generate the records and write them as the task's benchmark JSON file next to the numbered
    sheet its prompts show, then render the requested media (resuming: complete items are skipped).

    The output folder is checked and locked before any work (`media.open_output`: one line, not a
    traceback after the work, for a read-only, full or busy folder). The JSON is written atomically
    before and after rendering, each time listing only the media fields whose files are verifiably
    there, so a rerun with another seed or an interrupted run never leaves a record pointing at
    another item's media. Returns the JSON path, the records as written and the render report."""
    path = Path(out_dir) / DATA_FILE[options.task]
    with open_output(out_dir, request, (path.name,)) as folder:
        records = generate_records(options)
        report = folder.render(records, workers=workers, backend=backend, address=address, console=console,
                               source=path.name, data_path=path)
        return path, folder.listed_records(records), report
