"""SpatialViz-Bench's paper folding (wangst0181/SpatialViz-Bench, create_paper_folding.py) as a
family of the general engine. Rules (docs/families.md):

- sheet: a grid of cols x rows unit cells, folded by SpatialViz's grid folds (their levels, lines
  and moving sides: `foldsim.families.grid_folds`, shared with visworld);
- holes: distinct circles at cell centres of the folded shape (cells cut in half by the 45°
  crease included: such a hole lies on the crease and unfolds to one hole per layer).

The grid folds live in `foldsim.families.grid_folds` (shared with visworld's cut family), tracked
exactly in Python (integer rectangles); the engine computes every key.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from ..sheets import Fold, Line, PointHole, Punch, SheetItem, SheetSpec
from .base import Family, Level, Option, Plan, base_violations, count_sequences
from .grid_folds import GRID_LEVELS, TIES, corner_folds, draw_grid_folds, punch_cells, straight_folds

Q = Fraction


class SpatialVizFamily(Family):
    name = "spatialviz"
    summary = "SpatialViz-Bench paper folding: grid folds of the current rectangle, a last 45° corner fold, cell-centre holes"
    levels = {name: Level(name, g["cols"], g["rows"], g["folds"], g["marks"]) for name, g in GRID_LEVELS.items()}
    lines = ("H/V: every interior grid line of the current folded rectangle; last fold: a 45° corner fold "
             "x ± y = integer through two cell centres on adjacent edges")
    side_rule = "the smaller part moves (equal halves: bottom onto top, right onto left); the corner triangle for the 45° fold"
    punch_rule = "distinct circles at cell centres of the folded shape (a bisected cell's centre lies on the 45° crease)"
    n_options = 4
    task_type = "Choice"
    hole_names = "cell"
    native_file = "spatialviz.json"
    distractor_rules = ("delete_row", "delete_column", "copy_row", "copy_column", "move_row", "move_column",
                        "swap_columns")

    # -- sampling ----------------------------------------------------------------------------------

    def sample(self, rng: random.Random, level: Level) -> Plan | None:
        drawn = draw_grid_folds(rng, level.cols, level.rows, rng.randint(*level.folds))
        if drawn is None:
            return None
        drawn_folds, steps, rect = drawn
        folds = [Fold(Line(family, at=at), moves="smaller", tie=tie) for family, at, _, tie in drawn_folds]
        movers = [mover for _, _, mover, _ in drawn_folds]
        family, at, mover, _ = drawn_folds[-1]
        cells = punch_cells(rect, family, at, mover)
        holes = rng.randint(*level.holes)
        if len(cells) < holes:
            return None
        points = sorted(rng.sample(cells, holes))
        item = SheetItem(SheetSpec(level.cols, level.rows), tuple(folds), tuple(Punch(x, y) for x, y in points))
        return Plan(item, level.name, {"steps": steps, "folded": list(rect)}, tuple(movers))

    # -- predicates --------------------------------------------------------------------------------

    def rule_violations(self, item: SheetItem, level: Level) -> list[str]:
        out = base_violations(item, level)
        rect = (0, 0, item.sheet.cols, item.sheet.rows)
        folds = [a for a in item.actions if isinstance(a, Fold)]
        for i, fold in enumerate(folds):
            last = i == len(folds) - 1
            at = fold.line.at
            if at is None or at.denominator != 1 or fold.moves != "smaller":
                out.append(f"fold {i + 1}: not an integer line with the smaller part moving")
                return out
            if not last:
                match = [f for f in straight_folds(*rect) if f[0] == fold.line.family and f[1] == at]
                if not match or fold.tie != TIES[fold.line.family]:
                    out.append(f"fold {i + 1}: not an interior grid line of the rectangle {rect} (or wrong tie)")
                    return out
                rect = match[0][3]
            else:
                match = [f for f in corner_folds(*rect) if f[0] == fold.line.family and f[1] == at]
                if not match or fold.tie != match[0][2]:
                    out.append(f"fold {i + 1}: not a 45° corner fold of the rectangle {rect}")
                    return out
                cells = set(punch_cells(rect, match[0][0], match[0][1], match[0][2]))
                points = [(p.x, p.y) for p in item.punches]
                if len(set(points)) != len(points) or not set(points) <= cells:
                    out.append("punches: not distinct cell centres of the folded shape")
        return out

    # -- distractors -------------------------------------------------------------------------------

    def offset_variants(self, plan: Plan) -> list[tuple[dict, SheetItem]]:
        from .distractors import replace_fold

        out = []
        item = plan.item
        for i, fold in enumerate(item.actions):
            for delta in (-1, 1):
                moved = Fold(Line(fold.line.family, at=fold.line.at + delta), moves="smaller", tie=fold.tie)
                out.append(({"fold": i + 1, "at": str(moved.line.at), "should_be": str(fold.line.at)},
                            replace_fold(item, i, moved)))
        return out

    def family_distractors(self, plan: Plan, key: tuple[PointHole, ...], rng: random.Random) -> list[Option]:
        rows, cols = plan.item.sheet.rows, plan.item.sheet.cols
        cells = {h.cell(rows) for h in key}
        if None in cells:
            return []
        grid = [[(r, c) in cells for c in range(cols)] for r in range(rows)]
        full_rows = [r for r in range(rows) if any(grid[r])]
        full_cols = [c for c in range(cols) if any(grid[r][c] for r in range(rows))]
        empty_rows = [r for r in range(rows) if not any(grid[r])]
        empty_cols = [c for c in range(cols) if c not in full_cols]

        def holes(cell_set) -> tuple[PointHole, ...]:
            return tuple(sorted(PointHole(Q(2 * c + 1, 2), Q(2 * (rows - 1 - r) + 1, 2)) for r, c in cell_set))

        def opt(name, cell_set, **detail) -> Option:
            return Option(holes(cell_set), name, detail)

        def line_edits(axis: int, i: int) -> list[Option]:
            """Delete row/column i (axis 0/1), and copy or move it into each empty one."""
            name, empties = ("row", empty_rows) if axis == 0 else ("column", empty_cols)
            kept = {x for x in cells if x[axis] != i}
            out = [opt(f"delete_{name}", kept, **{name: i + 1})]
            for e in empties:
                copied = {(e, x[1]) if axis == 0 else (x[0], e) for x in cells if x[axis] == i}
                out.append(opt(f"copy_{name}", cells | copied, **{name: i + 1, "into": e + 1}))
                out.append(opt(f"move_{name}", kept | copied, **{name: i + 1, "into": e + 1}))
            return out

        def swap(a: int, b: int) -> Option:
            swapped = {(r, b if c == a else a if c == b else c) for r, c in cells}
            return opt("swap_columns", swapped, columns=[a + 1, b + 1])

        # the peer's choice first: a row or a column (both when every row and column has a hole)
        if len(full_rows) == rows and len(full_cols) == cols:
            first = line_edits(0, rng.choice(full_rows))  # no empty line: the deletion alone
            if len(full_cols) > 1:
                a, b = rng.sample(full_cols, 2)
                first += [*line_edits(1, a), swap(a, b)]
        else:
            axis = 0 if rng.random() < 0.5 else 1
            full, empties = (full_rows, empty_rows) if axis == 0 else (full_cols, empty_cols)
            edits = line_edits(axis, rng.choice(full))
            e = rng.choice(empties) if empties else None
            first = [edits[0]] + [o for o in edits[1:] if o.detail.get("into") == (e + 1 if e is not None else None)]
        rest = [o for r in full_rows for o in line_edits(0, r)] + [o for c in full_cols for o in line_edits(1, c)]
        rest += [swap(a, b) for a in full_cols for b in full_cols if a < b]
        rng.shuffle(rest)
        return first + rest

    # -- the family's own format -------------------------------------------------------------------

    def native_rows(self, record: dict) -> list[dict]:
        sheet = record["item"]["sheet"]
        folds = len(record["item"]["actions"])
        question = (f"The original paper is a {sheet['cols']}x{sheet['rows']} grid. The top row of images shows the "
                    f"effect of folding the grid paper {folds} times. Folding operations include horizontal, vertical, "
                    "and diagonal folds. The rightmost image in the top row shows the result after punching a hole. "
                    "Which image shows the paper after it is unfolded? Black solid circles represent holes in the "
                    "grid squares. Please choose from options A, B, C, or D.")
        explanation = {}
        for option in record["options"]:
            if option["error"] is not None:
                explanation[option["label"]] = explain(option["label"], option["error"], option["errorDetail"])
        return [{"Category": "MentalFolding", "Task": "PaperFolding", "Level": "Level" + record["level"][1:],
                 "Image_id": record["id"], "Question": question, "Choices": ["A", "B", "C", "D"],
                 "Answer": record["answer"], "Explanation": explanation}]

    # -- the space ---------------------------------------------------------------------------------

    def count_space(self, level: Level, on_progress=None) -> dict:
        """Fold sequences and items (sequence x hole set) exactly; the straight-fold prefixes are also
        counted on the batched kernel (every interior grid line of the sheet with the smaller side
        moving: lines off the current rectangle are not realizable there) and must agree."""
        configs = items = 0
        prefixes = [((0, 0, level.cols, level.rows), ())]
        n_folds = level.folds[1]
        for _ in range(n_folds - 1):
            prefixes = [(after, seq + ((f, at),)) for rect, seq in prefixes for f, at, _, after in straight_folds(*rect)]
        for rect, _ in prefixes:
            for family, at, mover, _, _ in corner_folds(*rect):
                configs += 1
                n = len(punch_cells(rect, family, at, mover))
                items += sum(math.comb(n, h) for h in range(level.holes[0], level.holes[1] + 1))
        grid = [Fold(Line("H", at=y), moves="smaller", tie="below") for y in range(1, level.rows)]
        grid += [Fold(Line("V", at=x), moves="smaller", tie="right") for x in range(1, level.cols)]
        kernel = count_sequences(level.cols, level.rows, [grid] * (n_folds - 1), on_progress=on_progress)
        if kernel.get(n_folds - 1, 1) != len(prefixes):
            raise AssertionError(f"kernel counts {kernel} straight-fold prefixes, the rectangle walk {len(prefixes)}")
        return {"family": self.name, "level": level.name, "sheet": f"{level.cols}x{level.rows}", "folds": n_folds,
                "straight_prefixes": len(prefixes), "kernel_straight_prefixes": kernel.get(n_folds - 1, 1),
                "configurations": configs, "items": items,
                "note": "items = fold sequences x distinct cell-centre hole sets of the level's size"}


def explain(label: str, error: str, detail: dict) -> str:
    words = {
        "delete_row": lambda d: f"it is missing holes on row {d['row']}",
        "delete_column": lambda d: f"it is missing holes on column {d['column']}",
        "copy_row": lambda d: f"it adds extra holes on row {d['into']}",
        "copy_column": lambda d: f"it adds extra holes on column {d['into']}",
        "move_row": lambda d: f"the holes that should be on row {d['row']} are shown on row {d['into']}",
        "move_column": lambda d: f"the holes that should be on column {d['column']} are shown on column {d['into']}",
        "swap_columns": lambda d: f"the holes in columns {d['columns'][0]} and {d['columns'][1]} are swapped",
        "wrong_crease_offset": lambda d: f"fold {d['fold']} is unfolded along the wrong line",
        "flap_not_moved": lambda d: f"fold {d['fold']} is ignored",
        "mirrored_unfold": lambda d: f"fold {d['fold']} is unfolded to the wrong side",
        "missing_layer": lambda d: "a hole through one of the layers is missing",
    }
    reason = words.get(error, lambda d: error)(detail)
    return f"Option {label} is incorrect because {reason}."


SPATIALVIZ = SpatialVizFamily()
