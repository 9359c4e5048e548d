"""The report's figures, drawn with matplotlib as static SVG (text as paths, so the page needs no
font and no script to show them; the same bytes for the same data).

Every figure is a grouped bar chart: items split by one grouping (action pattern, folds, rotation,
level, fold sides), one bar per model, with the number of items under each group and, for choice
tasks, the chance level as a line.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

#: bar colours, one per model (Okabe-Ito: distinguishable with the common colour-vision deficiencies)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
#: labels whose order is not alphabetical
KNOWN_ORDER = ("without rotation", "with rotation", "F only", "B only", "F and B", "easy", "medium", "hard")


@dataclass(frozen=True)
class Breakdown:
    """Accuracy per group for every model: `values[model][group]` (None for an empty group)."""

    title: str
    groups: tuple[str, ...]
    counts: tuple[int, ...]
    models: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]
    chance: float | None = None


def group_order(name: str) -> tuple:
    """Numbers numerically, known labels in their natural order, the rest alphabetically."""
    if name.lstrip("-").isdigit():
        return (0, int(name), "")
    try:
        return (1, float(name), "")
    except ValueError:
        pass
    if name in KNOWN_ORDER:
        return (2, KNOWN_ORDER.index(name), "")
    return (3, len(name), name)


def breakdown(title: str, labels: Sequence[str | None], correct: Sequence[Sequence[bool]], models: Sequence[str],
              chance: float | None = None) -> Breakdown | None:
    """Per-group accuracy; items whose label is None are left out. None when no item has a label."""
    groups = sorted({label for label in labels if label is not None}, key=group_order)
    if not groups:
        return None
    counts = [sum(label == g for label in labels) for g in groups]
    values = []
    for flags in correct:
        row = []
        for g, count in zip(groups, counts):
            right = sum(flag for flag, label in zip(flags, labels) if label == g)
            row.append(right / count if count else None)
        values.append(tuple(row))
    return Breakdown(title, tuple(groups), tuple(counts), tuple(models), tuple(values), chance)


def bar_chart_svg(data: Breakdown, *, ylabel: str = "accuracy (exact match)") -> bytes:
    """One grouped bar chart as SVG bytes."""
    import matplotlib

    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    n_groups, n_models = len(data.groups), max(1, len(data.models))
    width = min(11.0, max(4.2, 0.55 * n_groups * max(1.0, n_models ** 0.5) + 1.6))
    with matplotlib.rc_context({"svg.hashsalt": "foldsim-report", "svg.fonttype": "path", "font.size": 9}):
        figure = Figure(figsize=(width, 2.9))
        FigureCanvasSVG(figure)
        axes = figure.add_subplot()
        bar = 0.8 / n_models
        for m, (name, row) in enumerate(zip(data.models, data.values)):
            xs = [g + (m - (n_models - 1) / 2) * bar for g in range(n_groups)]
            heights = [100 * v if v is not None else 0 for v in row]
            axes.bar(xs, heights, bar * 0.92, label=name, color=PALETTE[m % len(PALETTE)])
        if data.chance is not None:
            axes.axhline(100 * data.chance, color="#555555", linestyle="--", linewidth=1, label=f"chance ({100 * data.chance:.0f} %)")
        axes.set_xticks(range(n_groups), [f"{g}\n{c} items" if c != 1 else f"{g}\n1 item" for g, c in zip(data.groups, data.counts)],
                        fontsize=8 if n_groups <= 8 else 7)
        axes.set_ylim(0, 100)
        axes.set_ylabel(ylabel)
        axes.set_title(data.title, fontsize=10, loc="left")
        axes.grid(axis="y", color="#dddddd", linewidth=0.6)
        axes.set_axisbelow(True)
        axes.spines[["top", "right"]].set_visible(False)
        if n_models > 1 or data.chance is not None:
            axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return buffer.getvalue()
