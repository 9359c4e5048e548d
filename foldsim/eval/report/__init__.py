"""The score report and dataset browser: one self-contained web page people look at.

    write_report(dataset, answers, out)   headline metrics per model, plots, and the item browser
                                          with every answer drawn against the truth
    write_browser(dataset, out_dir)       the same browser without answers (a dataset before publishing)

build (the data: scores, verdicts, holes marked against the truth), sheet (the numbered-sheet SVG
drawings), plots (matplotlib figures), media (step media found or drawn, embedded or copied) and page
(the HTML, with the CSS and script in assets/).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ...io import atomic_write_text
from .build import ReportData, build_report
from .media import AssetSink, InlineSink
from .page import page_html

#: datasets with at most this many items in the browser get their missing step images drawn
DRAW_LIMIT = 100
#: the item browser holds at most this many items (metrics and plots always cover every item)
MAX_ITEMS = 2000
#: bytes of media a page embeds as data URIs before leaving the rest out (--assets has no bound)
INLINE_BUDGET = 48 * 2**20

__all__ = ["DRAW_LIMIT", "INLINE_BUDGET", "MAX_ITEMS", "ReportData", "assets_folder", "build_report", "page_text",
           "write_browser", "write_page", "write_report"]


def assets_folder(page: Path) -> Path:
    """Where `--assets` puts a page's media: `<page stem>_files` beside it."""
    return page.with_name(f"{page.stem}_files")


def page_text(data: ReportData, out: str | Path, *, assets: bool = False, draw_limit: int = DRAW_LIMIT,
              inline_budget: int = INLINE_BUDGET, advance: Callable[[int], None] = lambda n: None) -> str:
    """The HTML of the page that will be written to `out`; with `assets`, its media files are
    written now (before the page, so the page never names a missing file)."""
    out = Path(out)
    sink = AssetSink(assets_folder(out), out) if assets else InlineSink(inline_budget)
    return page_html(data, sink, draw_limit=draw_limit, advance=advance)


def write_page(data: ReportData, out: str | Path, **options) -> Path:
    """Write the page for `data` to `out` atomically (options: those of `page_text`)."""
    atomic_write_text(out, page_text(data, out, **options))
    return Path(out)


def write_report(dataset: str | Path, answers: Sequence[str | Path], out: str | Path, *, task: str | None = None,
                 names: Sequence[str] | None = None, assets: bool = False, draw_limit: int = DRAW_LIMIT,
                 max_items: int = MAX_ITEMS) -> ReportData:
    """Score `answers` (one file per model) on `dataset` and write the report page to `out`."""
    data = build_report(dataset, answers, task=task, names=names, max_items=max_items)
    write_page(data, out, assets=assets, draw_limit=draw_limit)
    return data


def write_browser(dataset: str | Path, out_dir: str | Path, *, task: str | None = None, draw_limit: int = DRAW_LIMIT,
                  max_items: int = MAX_ITEMS) -> ReportData:
    """Write `out_dir/index.html`, the browser of a dataset without answers, its media in `out_dir/index_files`."""
    data = build_report(dataset, task=task, max_items=max_items)
    write_page(data, Path(out_dir) / "index.html", assets=True, draw_limit=draw_limit)
    return data
