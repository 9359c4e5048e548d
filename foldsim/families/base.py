"""The one family interface: a benchmark family's rules as data (levels with sheet size, fold and
hole counts; allowed lines; the side rule; the punch rule) plus small predicates, a sampler of
candidate items, the family's own distractor rules and its own file format. `FAMILIES` maps
names to families; `generate_family` turns any of them into keyed multiple-choice items on the
general engine (docs/families.md).

Generation is batched: a batch of candidates is sampled (pure Python, exact Fractions), every
candidate and every simulated-mistake variant of it goes through ONE `simulate_items` call, the
realizable ones with enough distinct options are kept. A candidate that fails in any way is
dropped and replaced; it never aborts the batch.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError, describe
from ..sheets import SIDE_SIGNS, Fold, PointHole, SheetItem, item_to_record

Q = Fraction
LABELS = "ABCDEFGH"


@dataclass(frozen=True)
class Level:
    """One difficulty level: sheet `cols` x `rows`, `folds` and `holes` as inclusive ranges."""

    name: str
    cols: int
    rows: int
    folds: tuple[int, int]
    holes: tuple[int, int] = (1, 1)

    def to_dict(self) -> dict:
        return {"name": self.name, "sheet": f"{self.cols}x{self.rows}", "folds": list(self.folds),
                "holes": list(self.holes)}


@dataclass
class Plan:
    """A sampled candidate: the general item and what the family knows about it without the engine
    (its own fold names, the moving side of each fold where known, punch cells or pixels ...)."""

    item: SheetItem
    level: str
    info: dict = field(default_factory=dict)
    #: per fold: the named side that moves (None where only the engine knows)
    movers: tuple[str | None, ...] = ()


@dataclass
class Option:
    holes: tuple[PointHole, ...]
    error: str | None
    detail: dict


class Family:
    """Rules as data plus predicates; subclasses fill in the sampler, distractors and format."""

    name = ""
    summary = ""
    levels: dict[str, Level] = {}
    lines = ""  # the allowed fold lines, in words
    side_rule = ""  # which side moves, in words
    punch_rule = ""  # where punches go, in words
    n_options = 4
    task_type = "Choice"
    native_file = ""  # the family's own format file in the output folder
    #: the family's own distractor rules, by their names
    distractor_rules: tuple[str, ...] = ()
    #: how the open-ended task names holes: "cell" (row, col) when every hole is at a cell centre,
    #: else "point" (exact x, y)
    hole_names = "point"
    #: the multiple-choice question, as the family words it (the composite image shows the rest)
    question = ("The top row of the image shows a sheet of paper being folded (each fold drawn as a dashed line, "
                "the arrow shows which part moves) and, last, the folded paper with the holes punched through it. "
                "Which option below shows the paper after it is completely unfolded?")

    # -- data ----------------------------------------------------------------------------------

    def level(self, name: str | None) -> Level:
        if name is None:
            return next(iter(self.levels.values()))
        if name not in self.levels:
            raise InputError(f"must be one of {', '.join(self.levels)} for {self.name}, got {describe(name)}",
                             field="--level")
        return self.levels[name]

    def mesh(self, level: str | None = None):
        """The level's flat sheet as a `foldsim.mesh.TriangleSheet` (the general engine's finest
        common mesh of its cells): what sheet-speaking code (drawing, symmetry tables) reads."""
        from ..mesh import TriangleSheet

        lv = self.level(level)
        return TriangleSheet.rectangle(f"{self.name}:{lv.name}", lv.cols, lv.rows)

    def rules(self) -> dict:
        return {"family": self.name, "summary": self.summary, "levels": [lv.to_dict() for lv in self.levels.values()],
                "lines": self.lines, "side_rule": self.side_rule, "punch_rule": self.punch_rule,
                "options": self.n_options, "task_type": self.task_type,
                "distractor_rules": list(self.distractor_rules)}

    # -- to be provided -------------------------------------------------------------------------

    def sample(self, rng: random.Random, level: Level) -> Plan | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def rule_violations(self, item: SheetItem, level: Level) -> list[str]:
        """What in `item` breaks the family's rules at `level` (empty: it follows them)."""
        return base_violations(item, level)

    def offset_variants(self, plan: Plan) -> list[tuple[dict, SheetItem]]:
        """Wrong-crease-offset variants: the same item with one fold line moved to a neighbouring
        allowed line of the family."""
        return []

    def family_distractors(self, plan: Plan, key: tuple[PointHole, ...], rng: random.Random) -> list[Option]:
        """The family's own distractor rules, computed exactly from the key (and the plan)."""
        return []

    def native_rows(self, record: dict) -> list[dict]:  # pragma: no cover - abstract
        raise NotImplementedError

    def native_text(self, rows: list[dict]) -> str:
        """The family's own file: a JSON list by default."""
        import json

        return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"

    def count_space(self, level: Level, on_progress: Callable[[int], None] | None = None) -> dict:
        raise NotImplementedError  # pragma: no cover - abstract

    # -- writing a run ------------------------------------------------------------------------------

    def write_run(self, out_dir, count: int, seed: int, level: str | None = None, *, console=None,
                  media: bool = True, splits=(), workers: int = 1, backend: str = "local",
                  address: str | None = None, first_id: int = 1):
        """`foldsim generate --family NAME`: generate `count` items and write them atomically as
        foldsim's machine-readable items (`<family>_items.json`) and the family's own format
        (`native_file`); a yes/no family also its rows in foldsim's split format
        (`<family>_split.json`); `media`: the images (foldsim.families.media) through the media
        machinery of `foldsim generate --task` (foldsim.dataset.media): the folder checked and
        locked before any work, per-item manifests, resume, `workers` local processes or Ray tasks
        (`backend`, `address`). The items file names an image only where the item's verified
        manifest lists it (`foldsim.dataset.media.listed`). Returns ({items, native[, split],
        count, images}, the RenderReport). A family with its own generator overrides this (MentalBlackboard)."""
        return _write_sampled_run(self, out_dir, count, seed, level, console=console, media=media, splits=splits,
                                  workers=workers, backend=backend, address=address, first_id=first_id)


def base_violations(item: SheetItem, level: Level) -> list[str]:
    out = []
    if (item.sheet.cols, item.sheet.rows) != (level.cols, level.rows):
        out.append(f"sheet {item.sheet.cols}x{item.sheet.rows}, level {level.name} has {level.cols}x{level.rows}")
    folds = [a for a in item.actions if isinstance(a, Fold)]
    if len(folds) != len(item.actions):
        out.append("rotations or flips are not part of this family")
    if not level.folds[0] <= len(folds) <= level.folds[1]:
        out.append(f"{len(folds)} folds, level {level.name} has {level.folds[0]}..{level.folds[1]}")
    if not level.holes[0] <= len(item.punches) <= level.holes[1]:
        out.append(f"{len(item.punches)} punches, level {level.name} has {level.holes[0]}..{level.holes[1]}")
    return out


def opposite(family: str, side: str) -> str:
    a, b = SIDE_SIGNS[family]
    return b if side == a else a


#: shapes whose drawing does not change when turned: their direction is no part of what an option shows
ROUND_SHAPES = frozenset({"circle"})


def seen_as(hole: PointHole) -> PointHole:
    """The hole as an option shows it: a circle's direction (carried through the layers' isometries)
    is invisible, so it is set to 0; a shape that looks the same after a half or quarter turn
    (foldsim.holes.SHAPE_PERIOD: MentalBlackboard's ellipse, square ...) keeps its direction only up
    to that turn, the way the benchmark writes it."""
    from ..holes import SHAPE_PERIOD

    if hole.shape in ROUND_SHAPES:
        direction = 0
    elif hole.shape in SHAPE_PERIOD:
        direction = hole.direction % (90 * SHAPE_PERIOD[hole.shape])
    else:
        return hole
    if direction == hole.direction:
        return hole
    return PointHole(hole.x, hole.y, hole.shape, hole.size, direction, hole.mirrored)


def hole_key(holes: Sequence[PointHole]) -> tuple:
    """A hole multiset as a hashable value, as it is seen (PointHole equality: position, shape, size,
    direction; circles' directions ignored)."""
    return tuple(sorted(seen_as(h) for h in holes))


def holes_to_json(holes: Sequence[PointHole]) -> list[dict]:
    return [h.to_dict() for h in sorted(holes)]


def holes_from_json(rows: object, where: str) -> tuple[PointHole, ...]:
    """PointHoles from [{"x", "y", "shape", "size", "direction"}] (InputError naming `where`)."""
    from ..sheets import PUNCH_SHAPES, PUNCH_SIZES, as_fraction

    if not isinstance(rows, list):
        raise InputError(f"must be a list of holes, got {describe(rows)}", field=where)
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(f"must be an object, got {describe(row)}", field=f"{where}[{i}]")
        try:
            direction = row.get("direction", 0)
            if isinstance(direction, bool) or not isinstance(direction, int):
                raise InputError(f"must be whole degrees, got {describe(direction)}", field="direction")
            for key, allowed, default in (("shape", PUNCH_SHAPES, "circle"), ("size", PUNCH_SIZES, "small")):
                value = row.get(key, default)
                if not isinstance(value, str) or value not in allowed:
                    raise InputError(f"must be one of {', '.join(allowed)}, got {describe(value)}", field=key)
            mirrored = row.get("mirrored", False)
            if not isinstance(mirrored, bool):
                raise InputError(f"must be true or false, got {describe(mirrored)}", field="mirrored")
            out.append(PointHole(as_fraction(row.get("x"), "x"), as_fraction(row.get("y"), "y"),
                                 row.get("shape", "circle"), row.get("size", "small"), direction % 360, mirrored))
        except InputError as err:
            raise InputError(err.message, field=f"{where}[{i}].{err.field}") from None
    return tuple(sorted(out))


# -- the registry ------------------------------------------------------------------------------


def _registry() -> dict[str, Family]:
    from .mentalblackboard import MentalBlackboardFamily
    from .spatialviz import SPATIALVIZ
    from .srbench import SRBENCH
    from .visfactor import VISFACTOR

    return {f.name: f for f in (SPATIALVIZ, VISFACTOR, SRBENCH, MentalBlackboardFamily())}


class _Families(dict):
    """FAMILIES: name -> Family, filled on first use (the family modules import this one)."""

    def _fill(self) -> None:
        if not super().__len__():
            self.update(_registry())

    def __getitem__(self, key):
        self._fill()
        return super().__getitem__(key)

    def __contains__(self, key):
        self._fill()
        return super().__contains__(key)

    def __iter__(self):
        self._fill()
        return super().__iter__()

    def __len__(self):
        self._fill()
        return super().__len__()

    def keys(self):
        self._fill()
        return super().keys()

    def items(self):
        self._fill()
        return super().items()

    def values(self):
        self._fill()
        return super().values()


FAMILIES: dict[str, Family] = _Families()
#: the families whose items `generate_family` samples; MentalBlackboard's come from its own
#: generator (foldsim.dataset.generate), through its `write_run`, into the same item format
GENERAL_FAMILIES = ("spatialviz", "visfactor", "srbench")


def family(name: str) -> Family:
    if name not in FAMILIES:
        raise InputError(f"must be one of {', '.join(FAMILIES)}, got {describe(name)}", field="--family")
    return FAMILIES[name]


# -- generation --------------------------------------------------------------------------------


def generate_family(fam: Family, count: int, seed: int, level: str | None = None,
                    on_progress: Callable[[int], None] | None = None, first_id: int = 1) -> list[dict]:
    """`count` keyed items of the family (foldsim's machine-readable records, see docs/families.md).
    Level: the one named, else the levels in turn. Same arguments, same records."""
    from ..engine import simulate_items
    from .distractors import choose_options, simulated_variants

    if count < 0:
        raise InputError(f"must be at least 0, got {count}", field="--count")
    names = [fam.level(level).name] if level is not None else list(fam.levels)
    rng = random.Random(f"foldsim:{fam.name}:{seed}")
    records: list[dict] = []
    attempts = 0
    while len(records) < count:
        want = count - len(records)
        batch_size = 64 if want <= 24 else 256  # few batch shapes: the kernel compiles once per shape
        plans: list[Plan] = []
        for k in range(batch_size):
            lv = fam.levels[names[(len(records) + k) % len(names)]] if len(names) > 1 else fam.levels[names[0]]
            try:
                plan = fam.sample(rng, lv)
            except InputError:
                plan = None
            if plan is not None:
                plans.append(plan)
        attempts += batch_size
        if attempts > 200 * count + 1000:
            raise InputError(f"could not generate {count} items of {fam.name} (too many unrealizable candidates)")
        variants = [simulated_variants(fam, p) for p in plans]
        flat = [p.item for p in plans] + [v.item for vs in variants for v in vs]
        results = simulate_items(flat)
        keys, rest = results[: len(plans)], results[len(plans):]
        pos = 0
        for plan, vs, key in zip(plans, variants, keys, strict=True):
            vres = rest[pos: pos + len(vs)]
            pos += len(vs)
            if len(records) >= count or not key.ok or not key.holes:
                continue
            try:
                options = choose_options(fam, plan, key.holes, vs, vres, rng)
            except (InputError, ValueError, ArithmeticError):  # one bad candidate: drop it
                options = None
            if options is None:
                continue
            records.append(make_record(fam, plan, key.holes, options, rng, first_id + len(records)))
            if on_progress:
                on_progress(1)
    return records


def make_record(fam: Family, plan: Plan, key: tuple[PointHole, ...], wrong: list[Option], rng: random.Random,
                number: int) -> dict:
    item_id = f"{fam.name}_{number:05d}"
    options = [Option(key, None, {})] + list(wrong)
    rng.shuffle(options)
    labels = LABELS[: len(options)]
    answer = labels[next(i for i, o in enumerate(options) if o.error is None)]
    item = plan.item
    item = SheetItem(item.sheet, item.actions, item.punches, item_id, item.resolution)
    record = {"id": item_id, "family": fam.name, "level": plan.level, "taskType": fam.task_type,
              "item": item_to_record(item), "resultHoles": holes_to_json(key), "totalNumberofHoles": len(key),
              "options": [{"label": lab, "resultHoles": holes_to_json(o.holes), "error": o.error,
                           "errorDetail": o.detail} for lab, o in zip(labels, options, strict=True)],
              "answer": answer, "info": plan.info}
    record["native"] = fam.native_rows(record)
    add_prompt_fields(fam, record)
    return record


def add_prompt_fields(fam: Family, record: dict) -> None:
    """The fields the evaluation road reads (docs/families.md, Evaluation): the media file names,
    the multiple-choice question, and the open-ended task's question and hole naming."""
    from .media import media_fields
    from .open import open_question

    labels = [o["label"] for o in record["options"]]
    record.update(media_fields(fam.name, record["id"], labels))
    native = record["native"][0].get("Question") if record.get("native") else None
    choices = ", ".join(labels[:-1]) + f" or {labels[-1]}"
    record["question"] = native if isinstance(native, str) else fam.question + f" Choose from options {choices}."
    record["holeNames"] = fam.hole_names
    record["openQuestion"] = open_question(record)


# -- counting the space with the batched kernel ---------------------------------------------------


def count_sequences(cols: int, rows: int, alphabets: Sequence[Sequence[Fold]], *, min_folds: int = 1,
                    on_progress: Callable[[int], None] | None = None, resolution: int = 1) -> dict[int, int]:
    """Realizable fold sequences of 1..len(alphabets) folds (fold k from alphabets[k-1]), counted level
    by level on the engine's batched kernel: the realizable prefixes of level k-1 times the alphabet
    of step k, all rows in one batched run per level (non-realizable prefixes dropped). A line off
    the mesh restarts the count on a finer mesh, so counts stay exact."""
    import numpy as np

    from ..engine import encode_action, rectangle_mesh, run_mesh
    from ..kernels import engine as E
    from ..kernels.state import CREASE_CUTS_TRIANGLE, OK

    r = resolution
    while True:
        mesh = rectangle_mesh(cols, rows, r)
        counts: dict[int, int] = {}
        prefixes = np.zeros((1, 0, E.ACTION_WIDTH), np.int32)
        finer = 0
        for k, alphabet in enumerate(alphabets, 1):
            table = np.array([encode_action(a, cols, rows, r) for a in alphabet], np.int32)
            n, a = len(prefixes), len(table)
            rows_ = np.concatenate([np.repeat(prefixes, a, 0), np.tile(table, (n, 1))[:, None, :]], 1)
            width = max(4, k)
            padded = np.zeros((len(rows_), width, E.ACTION_WIDTH), np.int32)
            padded[:, :k] = rows_
            out = run_mesh(mesh, padded, np.zeros((len(rows_), 2, 3), np.int32))
            code = np.asarray(out.status.code)
            if (code == E.OFF_LATTICE).any():
                finer = int(np.asarray(out.status.triangle)[code == E.OFF_LATTICE].max())
                break
            if (code == CREASE_CUTS_TRIANGLE).any():
                finer = 2
                break
            if on_progress:
                on_progress(len(rows_))
            prefixes = rows_[code == OK]
            if k >= min_folds:
                counts[k] = int(len(prefixes))
        if not finer:
            return counts
        r *= max(2, finer)


# -- writing -------------------------------------------------------------------------------------


def items_file_name(fam: Family) -> str:
    return f"{fam.name}_items.json"


def write_json_list(path, rows: list, out_dir) -> None:
    """A JSON list written atomically; an InputError naming --out when the folder refuses it."""
    import json

    from ..io import atomic_write_text

    try:
        atomic_write_text(path, json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    except OSError as err:
        raise InputError(f"cannot write into {out_dir}: {err.strerror or err}", field="--out") from None


def write_family(fam: Family, out_dir, count: int, seed: int, level: str | None = None, console=None,
                 media: bool = True, splits=(), **options) -> dict:
    """`fam.write_run` without the render report object: the paths, the count, the images listed
    in the manifests, and the report's summary (rendered, skipped, failed[, fatal])."""
    written, report = fam.write_run(out_dir, count, seed, level, console=console, media=media, splits=splits,
                                    **options)
    return {**written, **(report.summary() if media else {})}


def _write_sampled_run(fam: Family, out_dir, count: int, seed: int, level: str | None = None, *, console=None,
                      media: bool = True, splits=(), workers: int = 1, backend: str = "local",
                      address: str | None = None, first_id: int = 1):
    """`Family.write_run` of a family that samples its items (`generate_family`)."""
    from pathlib import Path

    from ..dataset.media import MediaRequest, RenderReport, listed, open_output
    from ..progress import counting_bar
    from .open import split_records

    if first_id != 1:
        raise InputError(f"is not used with --family {fam.name} (ids are {fam.name}_<n>)", field="--first-id")
    if level is not None:
        fam.level(level)
    out = Path(out_dir)
    items_path, native_path = out / items_file_name(fam), out / fam.native_file
    split_path = out / f"{fam.name}_split.json"
    request = MediaRequest.of(family=media)
    with open_output(out, request, (items_path.name, native_path.name, split_path.name)) as folder:
        bar, advance = counting_bar(f"generating {fam.name}", "items", total=count, console=console)
        with bar:
            records = generate_family(fam, count, seed, level, on_progress=advance)
        if splits:  # leak-free: items equal under the rectangle's symmetries share a split
            from ..dataset.splits import add_splits

            add_splits(records, splits)
        native = [row for r in records for row in r["native"]]
        yes_no = fam.task_type == "YesNo"

        def write_items(manifests: dict) -> None:
            """The items (and split rows) naming only the images the manifests vouch for."""
            named = [listed(r, manifests.get(r["id"])) for r in records]
            write_json_list(items_path, named, out)
            if yes_no:
                rows = []
                for record in named:
                    for row in split_records(record):
                        row = {k: v for k, v in row.items() if not (k.endswith("Img") and v is None)}
                        if record.get("split") is not None:
                            row["split"] = record["split"]
                        rows.append(row)
                write_json_list(split_path, rows, out)

        write_items({})  # before drawing: no image is vouched for yet
        try:
            from ..io import atomic_write_text

            atomic_write_text(native_path, fam.native_text(native))
        except OSError as err:
            raise InputError(f"cannot write into {out}: {err.strerror or err}", field="--out") from None
        report = RenderReport(removed_temps=folder.removed_temps)
        if media:
            report = folder.render(records, workers=workers, backend=backend, address=address, console=console,
                                   source=items_path.name, sheet=False)
            write_items(folder.manifests)
    images = sum(len(m.files(["family"])) for m in folder.manifests.values()) if media else 0
    written = {"items": str(items_path), "native": str(native_path), "count": len(records), "images": images}
    if yes_no:
        written["split"] = str(split_path)
    return written, report


def image_names(fam: Family, record: dict) -> list[str]:
    """The image files the family's own rows reference (drawn by foldsim.families.media)."""
    if fam.name == "visfactor":
        return [f"{record['id']}.png"] + [f"{record['id']}_{o['label']}.png" for o in record["options"]]
    return [f"{record['id']}.png"]
