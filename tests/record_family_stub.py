"""A tiny, real `RecordFamily` for the tests of the road (generate, media, splits, audit, the
evaluation side), written against foldsim/families/record_family.py alone while the real record
families are built elsewhere.

"toy" (Choice, 4 options): how many dots lie on a small square grid? The object is exact (a set
of grid cells), the key is its size, each distractor is a named miscount, the open task "count"
asks the same question ({"dots": n}). "toyyn" (YesNo): are there exactly K dots? Both draw their
images with Pillow (question, one steps picture, one picture per option for toy), audit anyone's
keys by counting the cells again, and key splits on the dot set up to the grid's 8 symmetries.

Registration, never a hook in the product:
- in-process: the `toy_family` fixture (monkeypatch of `RECORD_FAMILIES`, both families);
- in other processes (CLI subprocesses, spawned media workers, Ray workers): the fixture also puts
  tests/record_plugin on PYTHONPATH and sets FOLDSIM_TEST_RECORD_FAMILIES=1; the `sitecustomize`
  there registers both families at interpreter start. `plugin_env()` gives that environment for a
  subprocess started by hand.
"""

from __future__ import annotations

import io
import os
import random
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from foldsim.errors import InputError, describe
from foldsim.io import record_name
from foldsim.families.audit import DIFFERS, INVALID, OK, AuditItem, AuditReport
from foldsim.families.record_family import RecordFamily

PLUGIN_DIR = Path(__file__).resolve().parent / "record_plugin"
PLUGIN_ENV = "FOLDSIM_TEST_RECORD_FAMILIES"
#: seconds each drawing of a stub record waits (unset: none), so a test can kill a run midway
DRAW_SECONDS_ENV = "FOLDSIM_TEST_TOY_DRAW_SECONDS"
#: seconds each generated stub record waits (unset: none), so a test can kill a generation midway
GENERATE_SECONDS_ENV = "FOLDSIM_TEST_TOY_GENERATE_SECONDS"
#: the distractors' named mistakes and the count each one gives for n dots
MISCOUNTS = {"one_fewer": -1, "one_more": 1, "two_more": 2}
MAX_GRID = 8
CELL = 12  # pixels per grid cell


def _cells(record: dict, name: str) -> tuple[int, list[tuple[int, int]]]:
    """(grid size, dot cells) of a record; InputError naming the item and field."""
    info = record.get("info")
    if not isinstance(info, dict):
        raise InputError(f"must be an object, got {describe(info)}", item=name, field="info")
    grid = info.get("grid")
    if type(grid) is not int or not 2 <= grid <= MAX_GRID:
        raise InputError(f"must be an integer from 2 to {MAX_GRID}, got {describe(grid)}", item=name, field="info.grid")
    dots = info.get("dots")
    if not isinstance(dots, list) or len(dots) > grid * grid:
        raise InputError(f"must be a list of at most {grid * grid} cells, got {describe(dots)}", item=name,
                         field="info.dots")
    cells = []
    for i, dot in enumerate(dots):
        if (not isinstance(dot, list) or len(dot) != 2 or any(type(v) is not int or not 0 <= v < grid for v in dot)):
            raise InputError(f"must be [row, column] inside the {grid}x{grid} grid, got {describe(dot)}", item=name,
                             field=f"info.dots[{i}]")
        if tuple(dot) in cells:
            raise InputError(f"repeats the cell {dot}", item=name, field=f"info.dots[{i}]")
        cells.append(tuple(dot))
    return grid, cells


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _grid_picture(grid: int, cells: list[tuple[int, int]]) -> bytes:
    side = grid * CELL + 1
    image = Image.new("RGB", (side, side), "white")
    draw = ImageDraw.Draw(image)
    for k in range(grid + 1):
        draw.line([(k * CELL, 0), (k * CELL, side)], fill="grey")
        draw.line([(0, k * CELL), (side, k * CELL)], fill="grey")
    for row, col in cells:
        x, y = col * CELL + CELL // 2, row * CELL + CELL // 2
        draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill="black")
    return _png(image)


def _tally_picture(count: int) -> bytes:
    """An option's picture: `count` vertical bars."""
    image = Image.new("RGB", (4 + 4 * max(count, 1), 16), "white")
    draw = ImageDraw.Draw(image)
    for k in range(count):
        draw.line([(3 + 4 * k, 2), (3 + 4 * k, 13)], fill="black", width=2)
    return _png(image)


def _symmetries(grid: int, cells: list[tuple[int, int]]) -> list[tuple]:
    """The cell set under the square grid's 8 symmetries, each as a sorted tuple."""
    last = grid - 1
    maps = [lambda r, c: (r, c), lambda r, c: (c, last - r), lambda r, c: (last - r, last - c),
            lambda r, c: (last - c, r), lambda r, c: (r, last - c), lambda r, c: (last - r, c),
            lambda r, c: (c, r), lambda r, c: (last - c, last - r)]
    return [tuple(sorted(m(r, c) for r, c in cells)) for m in maps]


class ToyFamily(RecordFamily):
    """Count the dots on a small grid (see the module docstring)."""

    name = "toy"
    summary = "how many dots lie on a small square grid (a test family)"
    levels = {"small": {"grid": 3, "min_dots": 2, "max_dots": 5}, "large": {"grid": 4, "min_dots": 3, "max_dots": 9}}
    n_options = 4
    task_type = "Choice"
    native_file = "toy_native.json"
    distractor_rules = tuple(MISCOUNTS)
    open_tasks = ("count",)
    question = "How many dots lie on the grid?"

    def generate(self, count, seed, level=None, on_progress=None, first=0):
        rng = random.Random(f"{seed}:{first}")
        names = [self.level(level)] if level is not None else list(self.levels)
        records = []
        for index in range(first, first + count):
            time.sleep(float(os.environ.get(GENERATE_SECONDS_ENV) or 0))
            level_name = names[index % len(names)]
            params = self.levels[level_name]
            grid = params["grid"]
            n = rng.randint(params["min_dots"], params["max_dots"])
            cells = sorted(rng.sample([(r, c) for r in range(grid) for c in range(grid)], n))
            records.append(self._record(f"{self.name}_{index + 1:05d}", level_name, grid, cells, rng))
            if on_progress is not None:
                on_progress(1)
        return records

    def _record(self, item_id, level, grid, cells, rng) -> dict:
        n = len(cells)
        record = {"id": item_id, "family": self.name, "level": level, "taskType": self.task_type,
                  "question": self.question, "questionImg": f"{item_id}.png", "stepsImgs": [f"{item_id}_grid.png"]}
        counts = [(n, None), *((n + delta, rule) for rule, delta in MISCOUNTS.items())]
        rng.shuffle(counts)
        labels = "ABCD"
        options = [{"label": labels[k], "error": rule, "errorDetail": None if rule is None else f"{rule}: {c} dots",
                    "count": c} for k, (c, rule) in enumerate(counts)]
        answer = next(o["label"] for o in options if o["error"] is None)
        record.update(optionImgs=[f"{item_id}_{o['label']}.png" for o in options], options=options, answer=answer,
                      info={"grid": grid, "dots": [list(c) for c in cells]},
                      native=[{"id": item_id, "image": f"{item_id}.png", "question": self.question,
                               "choices": [str(o["count"]) for o in options], "answer": answer}],
                      countQuestion=("How many dots lie on the grid? End your reply with one line of JSON, "
                                     'for example {"dots": 3}'),
                      countAnswer={"dots": n})
        return record

    def images(self, record):
        if os.environ.get(DRAW_SECONDS_ENV):  # a slow drawing, for tests that kill a run midway
            time.sleep(float(os.environ[DRAW_SECONDS_ENV]))
        name = record_name(record)
        grid, cells = _cells(record, name)
        if not isinstance(record.get("questionImg"), str):
            raise InputError(f"must be a file name, got {describe(record.get('questionImg'))}", item=name,
                             field="questionImg")
        out = {record["questionImg"]: _grid_picture(grid, cells)}
        for step in record.get("stepsImgs") or []:
            out[str(step)] = _grid_picture(grid, [])
        options = record.get("options") or []
        for i, image in enumerate(record.get("optionImgs") or []):
            option = options[i] if i < len(options) else None
            if not isinstance(option, dict) or type(option.get("count")) is not int or not 0 <= option["count"] <= 99:
                raise InputError(f"must be an option with a count from 0 to 99, got {describe(option)}", item=name,
                                 field=f"options[{i}]")
            out[str(image)] = _tally_picture(option["count"])
        return out

    def audit(self, records, file):
        report = AuditReport(file)
        for index, record in enumerate(records):
            name = (record["id"] if isinstance(record, dict) and isinstance(record.get("id"), str) and record["id"]
                    else f"item {index}")
            try:
                report.items.append(self._verdict(record, name))
            except InputError as err:
                report.items.append(AuditItem(name, INVALID, str(err)))
        return report

    def _verdict(self, record, name) -> AuditItem:
        if not isinstance(record, dict):
            raise InputError(f"must be an object, got {describe(record)}", item=name)
        if record.get("family") not in (None, self.name):
            raise InputError(f"is a record of {describe(record['family'])}, not of {self.name}", item=name,
                             field="family")
        _, cells = _cells(record, name)
        return self._keyed(record, name, len(cells))

    def _keyed(self, record, name, n) -> AuditItem:
        options = record.get("options")
        if not isinstance(options, list) or len(options) != self.n_options:
            raise InputError(f"must be a list of {self.n_options} options, got {describe(options)}", item=name,
                             field="options")
        counts = {}
        for i, option in enumerate(options):
            if (not isinstance(option, dict) or not isinstance(option.get("label"), str)
                    or type(option.get("count")) is not int):
                raise InputError("must be an object with a label and an integer count", item=name,
                                 field=f"options[{i}]")
            if option["label"] in counts:
                raise InputError(f"repeats the label {describe(option['label'])}", item=name, field=f"options[{i}].label")
            if option["count"] in counts.values():
                raise InputError(f"repeats the count {option['count']}: options must differ", item=name,
                                 field=f"options[{i}].count")
            counts[option["label"]] = option["count"]
        answer = record.get("answer")
        if not isinstance(answer, str) or answer not in counts:
            raise InputError(f"must be one of the option labels {', '.join(counts)}, got {describe(answer)}",
                             item=name, field="answer")
        if counts[answer] == n:
            return AuditItem(name, OK)
        physical = next((label for label, c in counts.items() if c == n), None)
        return AuditItem(name, DIFFERS, f"{name}: the keyed option counts {counts[answer]} dots, the grid has {n} "
                         f"(physical answer: {physical or 'no option'})", physical_option=physical)

    def split_key(self, record):
        grid, cells = _cells(record, record_name(record))
        return f"{grid}:{min(_symmetries(grid, cells))}"


class ToyYesNoFamily(ToyFamily):
    """Are there exactly K dots on the grid? (yes/no; K is the count or a named miscount)."""

    name = "toyyn"
    summary = "whether a small square grid holds exactly K dots (a yes/no test family)"
    n_options = 0
    task_type = "YesNo"
    native_file = "toyyn_native.jsonl"
    open_tasks = ()

    def _record(self, item_id, level, grid, cells, rng) -> dict:
        n = len(cells)
        rule = rng.choice([None, None, None, *MISCOUNTS])
        asked = n + (0 if rule is None else MISCOUNTS[rule])
        answer = "yes" if rule is None else "no"
        question = f"Are there exactly {asked} dots on the grid?"
        return {"id": item_id, "family": self.name, "level": level, "taskType": self.task_type, "question": question,
                "questionImg": f"{item_id}.png", "stepsImgs": [f"{item_id}_grid.png"], "options": [],
                "answer": answer, "info": {"grid": grid, "dots": [list(c) for c in cells], "asked": asked,
                                           "error": rule},
                "native": [{"id": item_id, "image": f"{item_id}.png", "question": question, "answer": answer}]}

    def _keyed(self, record, name, n) -> AuditItem:
        asked = record["info"].get("asked")
        if type(asked) is not int:
            raise InputError(f"must be an integer, got {describe(asked)}", item=name, field="info.asked")
        answer = record.get("answer")
        if answer not in ("yes", "no"):
            raise InputError(f"must be yes or no, got {describe(answer)}", item=name, field="answer")
        truth = "yes" if asked == n else "no"
        if answer == truth:
            return AuditItem(name, OK)
        return AuditItem(name, DIFFERS, f"{name}: keyed {answer}, the grid has {n} dots (physical answer: {truth})",
                         physical_option=truth)

    def native_text(self, rows):
        import json

        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


TOY = ToyFamily()
TOY_YES_NO = ToyYesNoFamily()
STUB_FAMILIES = {TOY.name: TOY, TOY_YES_NO.name: TOY_YES_NO}


def register(families: dict | None = None) -> None:
    """Put the stub families into `families` (default: foldsim's RECORD_FAMILIES)."""
    if families is None:
        from foldsim.families.registry import RECORD_FAMILIES as families
    families.update(STUB_FAMILIES)


def plugin_env(environ: dict | None = None) -> dict:
    """An environment whose Python processes register the stub families at start (sitecustomize)."""
    env = dict(os.environ if environ is None else environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PLUGIN_DIR), env.get("PYTHONPATH", "")) if p)
    env[PLUGIN_ENV] = "1"
    return env


@pytest.fixture
def toy_family(monkeypatch):
    """TOY, registered in RECORD_FAMILIES (with TOY_YES_NO) here and in every process started
    while the test runs (CLI subprocesses, spawned media workers, Ray workers)."""
    from foldsim.families.registry import RECORD_FAMILIES

    for fam in STUB_FAMILIES.values():
        monkeypatch.setitem(RECORD_FAMILIES, fam.name, fam)
    for key, value in plugin_env({k: os.environ.get(k, "") for k in ("PYTHONPATH",)}).items():
        monkeypatch.setenv(key, value)
    return TOY
