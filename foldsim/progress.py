"""The one progress bar: counts, rate, elapsed and remaining time, on stderr, silent when stderr is
not a terminal (so logs and CI output stay clean)."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Units per second."""

    def __init__(self, unit: str = "items"):
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        rate = f"{task.speed:,.1f}" if task.speed else "--"
        return Text(f"{rate} {self.unit}/s", style="progress.data.speed")


def progress_bar(unit: str = "items", console: Console | None = None) -> Progress:
    """A rich Progress (use it as a context manager and add tasks to it)."""
    console = console or Console(stderr=True)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(unit),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True,
                    disable=not console.is_terminal)


def counting_bar(description: str, unit: str = "items", total: int | None = None,
                 console: Console | None = None) -> tuple[Progress, Callable[[int], None]]:
    """A progress bar with one task, and the `advance(n)` callback batched code reports through."""
    bar = progress_bar(unit, console)
    task = bar.add_task(description, total=total)
    return bar, lambda n: bar.advance(task, n)


def staged_bar(unit: str = "items", console: Console | None = None
               ) -> tuple[Progress, Callable[[int], None], Callable[[str, int | None], None]]:
    """A progress bar for work done in stages of known size (an enumeration's levels): the bar, the
    `advance(n)` callback, and `stage(description, total)`, which starts the next stage from zero so
    each shows its own count, rate and remaining time."""
    bar = progress_bar(unit, console)
    task = bar.add_task("", total=None)

    def stage(description: str, total: int | None) -> None:
        bar.reset(task, description=description, total=total)

    return bar, lambda n: bar.advance(task, n), stage
