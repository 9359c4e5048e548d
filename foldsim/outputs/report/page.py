"""One self-contained HTML page from a ReportData: headline metrics per model side by side, the
plots, and the item browser (filters and pages run by a small inline script; every image a data URI
or a file in the assets folder beside the page). Nothing is fetched at view time: the page's
Content-Security-Policy allows no network at all.
"""

from __future__ import annotations

import json
from dataclasses import replace
from collections.abc import Callable, Sequence
from html import escape
from importlib.resources import files

from ...errors import InputError
from ...mentalblackboard_sheet import SHEET
from ...holes import parse_holes
from ...eval.verify import CORRECT, REASONS
from .build import GROUPINGS, HOLES_TASK, VERDICTS, ReportData
from .values import truth_line
from ...eval.open_values import VALUE_TASKS
from ...tasks import CHOICE_TASKS
from .views import AnswerView, ItemView, OptionView, truth_marks
from .media import RECORD_MEDIA, ItemMedia, Medium, found_media, item_media
from .plots import Breakdown, bar_chart_svg, breakdown, group_order
from .sheet import Mark, definitions, glyphs_used, grid_svg, legend_html, on_sheet, sheet_svg

RECORD_CHARS = 20_000  # a record longer than this is cut in the page
CSP = ("default-src 'none'; img-src data: 'self'; media-src data: 'self'; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'")
#: metrics where lower is better (the best value of a row is emphasised)
LOWER_IS_BETTER = ("extra_rate", "missing_rate")
#: media shown wide: a family item's composite (the fold steps in a row, the options below) and its steps image
WIDE_MEDIA = ("stepsImg", "questionImg")
CHECK_VERDICTS = ("match", "mismatch", "not_realizable", "off_paper", "invalid")


def asset_text(name: str) -> str:
    """A file shipped with the package (the page's CSS and script)."""
    return files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def metric_text(name: str, value: float | None) -> str:
    """A metric as the page shows it: rates in percent, scores (sums such as R - W/(K-1)) as numbers."""
    if value is not None and name.endswith("_score"):
        return f"{value:.1f}"
    return percent(value)


# --------------------------------------------------------------------------------------------------
# headline


def metrics_table(data: ReportData) -> str:
    """Every model's metrics and counts side by side, the best value of each metric in bold."""
    names = list(dict.fromkeys(k for m in data.models for k in m.report.metrics))
    counts = list(dict.fromkeys(k for m in data.models for k in m.report.counts))
    head = "".join(f'<th scope="col" data-model="{i}">{escape(m.name)}</th>' for i, m in enumerate(data.models))
    rows = []
    for name in names:
        values = [m.report.metrics.get(name) for m in data.models]
        known = [v for v in values if v is not None]
        best = (min(known) if name in LOWER_IS_BETTER else max(known)) if len(known) > 1 and "chance" not in name else None
        cells = "".join(f'<td data-model="{i}"{" class=best" if v is not None and v == best else ""}>{metric_text(name, v)}</td>'
                        for i, v in enumerate(values))
        rows.append(f"<tr><th scope=row>{escape(name.replace('_', ' '))}</th>{cells}</tr>")
    count_rows = []
    for name in counts:
        cells = "".join(f'<td data-model="{i}">{m.report.counts.get(name, "")}</td>' for i, m in enumerate(data.models))
        count_rows.append(f'<tr class="count"><th scope=row>{escape(name.replace("_", " "))}</th>{cells}</tr>')
    return (f'<div class="metrics-block"><table class="metrics"><thead><tr><th scope="col">metric</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>'
            f'<details class="counts"><summary>counts</summary><table class="metrics"><thead><tr><th scope="col">count</th>'
            f'{head}</tr></thead><tbody>{"".join(count_rows)}</tbody></table></details></div>')


def reasons_table(data: ReportData) -> str:
    """Planning: how many plans each model got right, and the first failing reason of the others."""
    if data.task != "planning" or not data.models:
        return ""
    head = "".join(f'<th scope="col" data-model="{i}">{escape(m.name)}</th>' for i, m in enumerate(data.models))
    rows = []
    for reason in (CORRECT, *REASONS):
        counts = [sum(v.reason == reason for v in m.verdicts.values()) for m in data.models]
        if any(counts):
            cells = "".join(f'<td data-model="{i}">{c}</td>' for i, c in enumerate(counts))
            rows.append(f"<tr><th scope=row>{escape(reason.replace('_', ' '))}</th>{cells}</tr>")
    return (f'<table class="metrics reasons"><caption>verifier: first failing reason per plan</caption>'
            f'<thead><tr><th scope="col">reason</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _model_table(data: ReportData, caption: str, corner: str, rows: list[tuple[str, list[str]]]) -> str:
    head = "".join(f'<th scope="col" data-model="{i}">{escape(m.name)}</th>' for i, m in enumerate(data.models))
    body = "".join(f"<tr><th scope=row>{escape(name)}</th>" + "".join(f'<td data-model="{i}">{escape(c)}</td>' for i, c in enumerate(cells))
                   + "</tr>" for name, cells in rows)
    return (f'<table class="metrics"><caption>{escape(caption)}</caption><thead><tr><th scope="col">{escape(corner)}</th>'
            f'{head}</tr></thead><tbody>{body}</tbody></table>')


def confusion_table(data: ReportData) -> str:
    """The choice tasks: per error model, how often its options were chosen among those offered."""
    if data.task not in CHOICE_TASKS or not data.models:
        return ""
    models = list(dict.fromkeys(k for m in data.models for k in m.report.confusion))
    rows = []
    for name in models:
        cells = []
        for m in data.models:
            row = m.report.confusion.get(name, {})
            offered = f" of {row['offered']}" if row.get("offered") is not None else ""
            rate = f" ({percent(row['rate'])})" if row.get("rate") is not None else ""
            cells.append(f"{row.get('chosen', 0)}{offered}{rate}")
        rows.append((name.replace("_", " "), cells))
    what = "rows answered yes" if data.task == "split" else "options chosen"
    return _model_table(data, f"error-model confusion: {what} of those offered", "error model", rows)


def cue_table(data: ReportData) -> str:
    """The choice tasks with cues: accuracy per cue condition and the cue reliance."""
    if data.task not in CHOICE_TASKS or not data.models or not any(m.report.cues for m in data.models):
        return ""
    names = list(dict.fromkeys(k for m in data.models for k in m.report.cues))
    rows = [(name.replace("_", " "), [(percent(v) if isinstance(v, float) else "n/a" if v is None else str(v))
                                      for v in (m.report.cues.get(name) for m in data.models)]) for name in names]
    return _model_table(data, "cue conditions (reliance: counterfactual-cue answers matching what the cue implies)",
                        "cue", rows)


def chance_of(data: ReportData) -> float | None:
    """The chance level the accuracy plots show (choice tasks only)."""
    if data.task not in CHOICE_TASKS or not data.models:
        return None
    metrics = data.models[0].report.metrics
    return metrics.get("chance", metrics.get("row_chance"))


def confusion_chart(data: ReportData) -> Breakdown | None:
    """The confusion table as bars: the rate each error model's options were chosen."""
    if data.task not in CHOICE_TASKS or not data.models:
        return None
    first = data.models[0].report.confusion
    kinds = [k for k, row in first.items() if row.get("offered")]
    if not kinds:
        return None
    values = tuple(tuple(m.report.confusion.get(k, {}).get("rate") for k in kinds) for m in data.models)
    counts = tuple(first[k]["offered"] for k in kinds)
    return Breakdown("error-model confusion: how often each kind of option was chosen", tuple(k.replace("_", " ") for k in kinds),
                     counts, tuple(m.name for m in data.models), values)


def plots_html(data: ReportData, sink) -> str:
    """The accuracy breakdowns as figures (groupings no item has are left out, with a note)."""
    if not data.models:
        return ""
    groups = data.scored_groups
    correct = [m.correct for m in data.models]
    names = [m.name for m in data.models]
    charts, absent, single = [], [], []
    for key, title in GROUPINGS.items():
        labels = [g.get(key) for g in groups]
        chart = breakdown(f"accuracy by {title}", labels, correct, names, chance_of(data))
        if chart is None:
            if key != "cue":
                absent.append(title)
            continue
        if len(chart.groups) == 1 and key != "pattern":
            single.append(f"{title}: {chart.groups[0]}")
            continue
        charts.append((key, chart, "accuracy (exact match)" if data.task not in CHOICE_TASKS else "accuracy"))
    confusion = confusion_chart(data)
    if confusion is not None:
        charts.append(("confusion", confusion, "chosen (% of offered)"))
    figures = []
    for key, chart, ylabel in charts:
        svg = bar_chart_svg(chart, ylabel=ylabel)
        src = sink.url("plots", Medium(chart.title, "image", f"accuracy-by-{key}.svg", data=svg))
        body = f'<img src="{escape(src)}" alt="{escape(chart.title)}">' if src else '<p class="note">left out: page size bound</p>'
        figures.append(f'<figure class="plot">{body}</figure>')
    note = f'<p class="note">all items alike in {escape("; ".join(single))}</p>' if single else ""
    note += f'<p class="note">not shown: {escape(", ".join(absent))} (no item records it)</p>' if absent else ""
    return (f'<section id="plots"><details open><summary><h2>Accuracy breakdowns</h2></summary>'
            f'<div class="plots">{"".join(figures)}</div>{note}</details></section>')


# --------------------------------------------------------------------------------------------------
# items


def _hole_count(marks: Sequence[Mark]) -> str:
    n = len(marks)
    return f"{n} hole" if n == 1 else f"{n} holes"


def _unplaced(marks: Sequence[Mark]) -> str:
    """A line for the holes a drawing cannot place (no usable location)."""
    lost = [m for m in marks if m.location is None or not 1 <= m.location <= 32]
    if not lost:
        return ""
    return f'<p class="note">not drawn (no location): {escape("; ".join(m.title for m in lost))}</p>'


def _off_sheet(marks: Sequence[Mark], cols: int, rows: int) -> str:
    """A line for the holes a family sheet cannot place (a point off the sheet)."""
    lost = [m for m in marks if not on_sheet(m, cols, rows)]
    return f'<p class="note">not drawn (off the sheet): {escape("; ".join(m.title for m in lost))}</p>' if lost else ""


def panel(title: str, marks: Sequence[Mark] | None, extra: str = "", *, css: str = "", model: int | None = None,
          item: ItemView | None = None) -> str:
    """A captioned sheet with marks (None: a caption and text only, nothing to draw); a family
    item's general sheet (`item.sheet`) is drawn as its grid."""
    attrs = f' data-model="{model}"' if model is not None else ""
    if marks is not None and item is not None and item.sheet is not None:
        cols, rows = item.sheet
        drawing = f"{grid_svg(marks, cols, rows, title, cells=item.cells)}{_off_sheet(marks, cols, rows)}"
    else:
        drawing = f"{sheet_svg(marks, title, sheet=SHEET)}{_unplaced(marks)}" if marks is not None else ""
    return f'<figure class="panel {css}"{attrs}><figcaption>{title}</figcaption>{drawing}{extra}</figure>'


def option_panel(data: ReportData, option: OptionView) -> str:
    """One option of a choice item, drawn against the right answer (a right option: all right)."""
    kind = "right option" if option.right else (option.error or "wrong").replace("_", " ")
    detail = f'<p class="note">{escape(option.detail)}</p>' if option.detail else ""
    marks = None if data.task == "plan-choice" and not option.marks and option.detail else option.marks
    return panel(f"option {escape(option.label)} · {escape(kind)}", marks, detail, css="option right" if option.right else "option")


def _holes_scores(score) -> str:
    """A holes item's scores as the scorer computes them: exact, partial and per field."""
    denominator = score.truth + max(0, score.predicted - score.truth)
    rate = (lambda n: percent(n / denominator)) if denominator else (lambda n: percent(1.0))
    fields = " · ".join(f"{escape(name)} {rate(n)}" for name, n in score.fields.items())
    return (f'<p class="scores">exact {"yes" if score.exact else "no"} · partial {rate(score.matched)}'
            f'{" · " + fields if fields else ""}</p>')


def answer_panel(data: ReportData, model: int, view: AnswerView, item: ItemView | None = None) -> str:
    name = escape(data.models[model].name)
    title = f'{name} · <span class="verdict v-{view.verdict}">{view.verdict}</span>'
    parts = []
    if view.plan is not None:
        folds = ", ".join(view.plan.folds) or "none"
        punches = "; ".join(view.plan.punches) or "none"
        parts.append(f'<p class="plan">plan: folds {escape(folds)} · punches {escape(punches)}</p>')
        parts.append('<p class="note">drawn: the plan replayed, against the target</p>')
    if view.verdict == "unreadable":
        parts.append(f'<p class="reason">{escape(view.status)}: {escape(view.reason)}</p>')
    elif view.reason:
        parts.append(f'<p class="reason">{escape(view.reason)}</p>')
    if view.score is not None and data.task in VALUE_TASKS and view.verdict != "missing":
        parts.append(f'<p class="note">{view.score.matched} of {view.score.truth} named values right</p>')
    elif view.score is not None and data.task not in ("planning", *CHOICE_TASKS) and view.verdict != "missing":
        s = view.score
        parts.append(f'<p class="note">{s.matched} of {s.truth} truth holes right, {s.predicted} given</p>')
        if data.task == HOLES_TASK:
            parts.append(_holes_scores(s))
    if view.text:
        parts.append(f'<details><summary>model text</summary><pre>{escape(view.text)}</pre></details>')
    drawn = view.marks if data.task not in (*CHOICE_TASKS, *VALUE_TASKS) or view.marks else None
    return panel(title, drawn, "".join(parts), css="answer", model=model, item=item)


def unfolding_table(data: ReportData, item: ItemView) -> str:
    """Truth and answers' unfolding codes side by side, differing positions marked."""
    rows_of = [(m, v.unfolding) for m, v in enumerate(item.answers) if v.unfolding is not None]
    if (not item.unfolding and not any(codes for _, codes in rows_of)) or (item.answers and not rows_of):
        return ""  # nothing to show, or answers that give no codes (plans) to compare
    width = max([len(item.unfolding), *(len(c) for _, c in rows_of)])

    def cells(codes: Sequence[str], compare: bool) -> str:
        out = []
        for k in range(width):
            code = codes[k] if k < len(codes) else ""
            wrong = compare and (k >= len(item.unfolding) or code != item.unfolding[k])
            out.append(f'<td{" class=diff" if wrong else ""}>{escape(code) or "–"}</td>')
        return "".join(out)

    rows = [f"<tr><th scope=row>truth</th>{cells(item.unfolding, False)}</tr>"]
    rows += [f'<tr data-model="{m}"><th scope=row>{escape(data.models[m].name)}</th>{cells(codes, True)}</tr>'
             for m, codes in rows_of]
    return f'<table class="unfolding"><caption>unfolding codes</caption>{"".join(rows)}</table>'


def media_html(media: Sequence[Medium], note: str, sink, key: str) -> str:
    parts, texts = [], []
    for medium in media:
        if medium.kind == "text":  # after the pictures
            text = medium.read().decode("utf-8", "replace")
            texts.append(f'<details class="grids"><summary>{escape(medium.caption)}</summary><pre>{escape(text)}</pre></details>')
            continue
        src = sink.url(key, medium)
        if src is None:
            parts.append(f'<p class="note">{escape(medium.caption)}: left out (page size bound; use --assets)</p>')
        elif medium.kind == "video":
            parts.append(f'<figure class="step"><video controls preload="none" src="{escape(src)}"></video>'
                         f'<figcaption>{escape(medium.caption)}</figcaption></figure>')
        else:
            wide = " wide" if medium.name.split(".")[0] in WIDE_MEDIA else ""
            parts.append(f'<figure class="step{wide}"><img loading="lazy" src="{escape(src)}" alt="{escape(medium.caption)}">'
                         f'<figcaption>{escape(medium.caption)}</figcaption></figure>')
    parts += texts
    if note:
        parts.append(f'<p class="note">{escape(note)}</p>')
    return f'<div class="media">{"".join(parts)}</div>' if parts else ""


def _record_json(record: object) -> str:
    try:
        text = json.dumps(record, indent=1, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(record)
    return text if len(text) <= RECORD_CHARS else text[:RECORD_CHARS] + "\n…"


def check_html(item: ItemView) -> str:
    if item.check is None:
        return ""
    verdict = item.check.verdict
    reason = f": {item.check.reason}" if item.check.reason else ""
    return f'<span class="check c-{escape(verdict)}" title="{escape(verdict + reason)}">check: {escape(verdict.replace("_", " "))}</span>'


def item_html(data: ReportData, item: ItemView, media_part: str) -> str:
    """One item card; its data-* attributes are what the filters read."""
    g = item.groups
    verdicts = "".join(f' data-v{m}="{v.verdict}"' for m, v in enumerate(item.answers))
    check = item.check.verdict if item.check is not None else ("invalid" if item.error else "")
    filters = (f'data-id="{escape(item.id)}" data-pattern="{escape(g.get("pattern", "?"))}" '
               f'data-level="{escape(g.get("level", ""))}" data-check="{escape(check)}"{verdicts}')
    tags = [g.get("pattern", "?")] if "pattern" in g or "folds" not in g else []  # family items have no pattern
    tags.append("1 fold" if g.get("folds") == "1" else f'{g.get("folds", "?")} folds')
    if "pattern" not in g and "folds" not in g and "level" in g:  # a record family's item: no folds to count
        tags = []
    if "level" in g:
        tags.append(f"level {g['level']}")
    if item.sheet is not None:
        tags.append(f"sheet {item.sheet[0]} × {item.sheet[1]} · holes by {'cell' if item.cells else 'point'}")
    header = "".join(f'<span class="tag">{escape(t)}</span>' for t in tags)
    badges = "".join(f'<span class="verdict v-{v.verdict}" data-model="{m}">{escape(data.models[m].name)}: {v.verdict}</span>'
                     for m, v in enumerate(item.answers))
    parts = [f'<header><h3><a href="#item-{item.index}">{escape(item.id)}</a></h3>{header}{check_html(item)}{badges}</header>']
    if item.codes:
        parts.append(f'<p class="codes">actions: {escape(" · ".join(item.codes))}</p>')
    if item.error:
        parts.append(f'<p class="error">{escape(item.error)}</p>')
    if item.check is not None and item.check.verdict not in ("match",) and item.check.reason:
        parts.append(f'<p class="reason">check: {escape(item.check.reason)}</p>')
    cue, grid = item.cue
    if cue:
        parts.append(f'<p class="cue">{escape(cue)}</p>')
        if grid:
            parts.append(f'<details class="grids"><summary>cue text grid</summary><pre>{escape(grid)}</pre></details>')
    if data.task == HOLES_TASK and isinstance(item.record, dict) and isinstance(item.record.get("openQuestion"), str):
        parts.append(f'<details class="grids"><summary>open-ended question</summary>'
                     f'<pre>{escape(item.record["openQuestion"][:RECORD_CHARS])}</pre></details>')
    parts.append(media_part)
    panels = []
    if not item.error and data.task in VALUE_TASKS:  # named values: text, no sheet to draw
        panels.append(panel("right answer", None, f'<p class="values">{escape(truth_line(data.task, item.record))}</p>',
                            css="truth"))
        panels += [answer_panel(data, m, v, item) for m, v in enumerate(item.answers)]
    elif not item.error:
        truth_title = ("target" if data.task in ("planning", "plan-choice") else "right answer" if data.task in CHOICE_TASKS
                       else "truth" if data.has_answers else "result holes (record)")
        panels.append(panel(f"{truth_title} · {_hole_count(item.truth)}", item.truth, css="truth", item=item))
        if not data.has_answers:
            punches = _initial_marks(item.record)
            if punches:
                panels.append(panel(f"punches (initialHoles) · {_hole_count(punches)}", punches, css="truth"))
        if item.simulated:
            panels.append(panel("simulation, against the record", item.simulated, css="answer"))
        panels += [option_panel(data, o) for o in item.options]
        panels += [answer_panel(data, m, v, item) for m, v in enumerate(item.answers)]
    parts.append(f'<div class="sheets">{"".join(panels)}</div>')
    if data.task not in (*CHOICE_TASKS, HOLES_TASK, *VALUE_TASKS):
        parts.append(unfolding_table(data, item))
    parts.append(f'<details class="record"><summary>record</summary><pre>{escape(_record_json(item.record))}</pre></details>')
    # a template is parsed but never laid out: the script shows the cards of the current page only,
    # so a page of thousands of items opens as fast as one of ten
    return (f'<template class="item-t" data-key="item-{item.index}" {filters}>'
            f'<article class="item" id="item-{item.index}" {filters}>{"".join(parts)}</article></template>')


def _initial_marks(record: object) -> tuple[Mark, ...]:
    """The record's punches (browse mode), drawn where they were made on the folded sheet."""
    try:
        return truth_marks(parse_holes(record.get("initialHoles"), "initialHoles")) if isinstance(record, dict) else ()
    except InputError:
        return ()


# --------------------------------------------------------------------------------------------------
# controls and page


def _options(values: Sequence[tuple[str, str]]) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(label)}</option>' for v, label in values)


def controls_html(data: ReportData) -> str:
    """The filter bar: pattern, level (when recorded), verdict (or check status), model, id search."""
    patterns = sorted({i.groups.get("pattern", "?") for i in data.items}, key=lambda p: (len(p), p))
    levels = sorted({i.groups["level"] for i in data.items if "level" in i.groups}, key=group_order)
    fields = [f'<label>pattern <select name="pattern">{_options([("", "all"), *((p, p) for p in patterns)])}</select></label>']
    if levels:
        fields.append(f'<label>level <select name="level">{_options([("", "all"), *((v, v) for v in levels)])}</select></label>')
    if data.has_answers:
        verdicts = [("", "any"), *((v, v) for v in VERDICTS), ("disagree", "models disagree")]
        models = [("", "all models"), *((str(i), m.name) for i, m in enumerate(data.models))]
        fields.append(f'<label>verdict <select name="verdict">{_options(verdicts)}</select></label>')
        fields.append(f'<label>model <select name="model">{_options(models)}</select></label>')
    present = {i.check.verdict if i.check is not None else "invalid" for i in data.items if i.check is not None or i.error}
    checks = [("", "any"), *((c, c.replace("_", " ")) for c in CHECK_VERDICTS if c in present)]
    fields.append(f'<label>check <select name="check">{_options(checks)}</select></label>')
    fields.append('<label>id <input name="id" type="search" placeholder="contains…" size="10"></label>')
    fields.append(f'<label>per page <select name="size">{_options([(s, s) for s in ("10", "25", "50", "100")])}</select></label>')
    pager = ('<div class="pager"><button type="button" data-step="-1">← previous</button>'
             '<span class="status" aria-live="polite"></span><button type="button" data-step="1">next →</button></div>')
    return f'<form id="filters" class="filters" onsubmit="return false">{"".join(fields)}</form>{pager}'


def holes_media(root, item: ItemView) -> ItemMedia:
    """A family item's pictures for the open-ended task: the fold steps image only (its composite
    and option images show the choices, which the open-ended question does not)."""
    record = item.record if isinstance(item.record, dict) else {}
    key = "questionImg" if record.get("stepsImg") and record.get("stepsImg") == record.get("questionImg") else "stepsImg"
    steps = [replace(m, caption=RECORD_MEDIA["stepsImg"]) for m in found_media(root, record, item.id)
             if m.name.startswith(f"{key}.")]
    return ItemMedia(steps, "" if steps or item.error else "no fold steps image (stepsImg) in the dataset folder")


def page_html(data: ReportData, sink, *, draw_limit: int, advance: Callable[[int], None] = lambda n: None) -> str:
    """The whole page. Step media are drawn on the fly only when the browser holds at most
    `draw_limit` items (drawing costs ~30 ms an item)."""
    draw = len(data.items) <= draw_limit
    root = data.dataset.parent
    cards, marks = [], []
    for item in data.items:
        found = (holes_media(root, item) if data.task == HOLES_TASK else
                 item_media(root, item.record, item.id, draw=draw and not item.error))
        if not draw and not found.media and not item.error:
            found.note = (f"no step media in the dataset folder; they are drawn for datasets of up to {draw_limit} items "
                          f"(--draw-limit), or render them once: foldsim render {data.dataset.name} --images --out {root}")
        cards.append(item_html(data, item, media_html(found.media, found.note, sink, f"item-{item.index}")))
        marks += [*item.truth, *item.simulated, *(m for a in item.answers for m in a.marks), *_initial_marks(item.record),
                  *(m for o in item.options for m in o.marks)]
        advance(1)
    plots = plots_html(data, sink)
    title = f"foldsim {'report' if data.has_answers else 'browser'}: {data.dataset.name}"
    summary = (f"task <b>{escape(data.task)}</b> · {data.total_items} items"
               + (f" · {len(data.models)} model{'s' if len(data.models) != 1 else ''}: "
                  + ", ".join(f"<b>{escape(m.name)}</b> ({escape(m.path.name)})" for m in data.models) if data.models else ""))
    notes = [*data.errors, *data.notes]
    if sink.left_out:
        notes.append(f"{sink.left_out} media files left out to bound the page size (use --assets to keep them all)")
    notes_html = ("<details class=notes open><summary>notes</summary><ul>"
                  + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul></details>") if notes else ""
    headline = (f'<section id="metrics"><h2>Headline metrics</h2>{metrics_table(data)}{reasons_table(data)}'
                f'{confusion_table(data)}{cue_table(data)}</section>' if data.has_answers else "")
    legend = (legend_html(("match", "missing", "extra")) if data.has_answers and data.task == HOLES_TASK
              else legend_html(("truth",), truth="result") if data.task == HOLES_TASK
              else legend_html(("match", "missing", "extra", "direction")) if data.has_answers
              else legend_html(("truth", "match", "missing", "extra", "direction"), truth="record", answer="simulation"))
    body = (f'{definitions(glyphs_used(marks) | {("star", "large", 0)}, sheet=SHEET)}'
            f'<header class="top"><h1>{escape(title)}</h1><p>{summary}</p></header>{notes_html}{headline}{plots}'
            f'<section id="browser"><h2>Items</h2>{legend}{controls_html(data)}'
            f'<div id="items"></div><div class="pager bottom"></div><div id="item-store" hidden>{"".join(cards)}</div></section>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light">'
            f"<title>{escape(title)}</title><style>{asset_text('report.css')}</style></head>"
            f'<body data-models="{len(data.models)}">{body}<script>{asset_text("report.js")}</script></body></html>\n')
