"""The score report and dataset browser: one self-contained web page people look at.

    write_report(dataset, answers, out)   headline metrics per model, plots, and the item browser
                                          with every answer drawn against the truth
    write_browser(dataset, out_dir)       the same browser without answers (a dataset before publishing)

build (the data: scores, verdicts, holes marked against the truth), sheet (the numbered-sheet SVG
drawings), plots (matplotlib figures), media (step media found or drawn, embedded or copied) and page
(the HTML, with the CSS and script in assets/).
"""

from __future__ import annotations

from .limits import DRAW_LIMIT, INLINE_BUDGET, MAX_ITEMS

#: the API, imported on first use (the scorers and the simulator behind it load in ~0.1 s; the
#: command line reads `limits` for its defaults without them)
_LAZY = {"ReportData": "build", "build_report": "build", "assets_folder": "write", "page_text": "write",
         "write_browser": "write", "write_page": "write", "write_report": "write"}

__all__ = ["DRAW_LIMIT", "INLINE_BUDGET", "MAX_ITEMS", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
