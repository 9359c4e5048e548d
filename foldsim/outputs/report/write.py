"""Writing the pages: the report (answers scored) and the browser (a dataset alone)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ...io import atomic_write_text
from .build import ReportData, build_report
from .limits import DRAW_LIMIT, INLINE_BUDGET, MAX_ITEMS
from .media import AssetSink, InlineSink
from .page import page_html


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
