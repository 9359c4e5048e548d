"""The model-facing commands: score, verify."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..progress import counting_bar
from .common import app, err, fail, out, print_json

@app.command()
def score(
    task: Annotated[str, typer.Argument(help="prediction | backward | text | generalization | planning")],
    truth: Annotated[Path, typer.Argument(help="ground-truth MentalBlackboard file (JSON array or JSONL)")],
    answers: Annotated[Path, typer.Argument(help="model answers: JSON, JSONL, provider batch output or raw text")],
    compat: Annotated[str | None, typer.Option("--compat", help="reproduce a reference scorer: mentalblackboard")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print every number as one JSON object")] = False,
    details: Annotated[bool, typer.Option("--details", help="with --json: add the per-item scores")] = False,
) -> None:
    """Score model answers against the truth (correct metrics; --compat for the reference's numbers)."""
    from ..errors import InputError
    from ..eval.scoring import render_report, score_files

    try:
        report = score_files(task, truth, answers, compat=compat)
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json(report.to_dict(details=details))
    else:
        render_report(report, out)


@app.command()
def verify(
    tasks: Annotated[Path, typer.Argument(help="planning tasks: a MentalBlackboard planning file")],
    answers: Annotated[Path, typer.Argument(help="proposed plans: model answers, or MentalBlackboard records")],
    as_json: Annotated[bool, typer.Option("--json", help="print {items, correct, by_reason, by_folds} as JSON")] = False,
    details: Annotated[bool, typer.Option("--details", help="add one verdict per item")] = False,
) -> None:
    """Replay every proposed plan in one batched kernel call and judge it against its task."""
    from ..errors import InputError
    from ..eval.verify import render_verify, verify_files

    try:
        bar, advance = counting_bar("replaying plans", "plans", console=err)
        with bar:
            report = verify_files(tasks, answers, on_progress=advance)
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json(report.summary(details=details))
    else:
        render_verify(report, out, details=details)
