"""Drawing MentalBlackboard-format items by structure group (formats §1.5-§1.6, §7.4), the way the
reference generator draws them: configurations, holes, generalization pairs, level presets, and the
records of the base tasks. foldsim.dataset.generate simulates and writes them; the choice tasks
(foldsim.dataset.choice) draw their items here too.

Everything here is a pure function of the options: the same seed gives the same records, byte for
byte, whatever renders them afterwards (`foldsim.dataset.media`). Hole draws are NumPy arrays over the whole
batch; rows whose draw breaks a rule (an odd result total, a generalization pair that cannot be
modified) are redrawn together until none is left.

Decisions where the reference leaves room (documented in the README):
- shapes: the six prompt shapes (circle, ellipse, triangle, star, letter, trapezoid) for prediction,
  planning and generalization (the only shapes the published items and the answer schema use); all
  nine for backward; circle and square never with a rotation;
- odd result totals are refused like the reference does (run.py) unless `even_totals=False`: such
  rows get new holes, and after a few failed tries a new configuration from the same group. (In the
  reference's structure groups every grid position holds an even number of layers, so the rule
  never rejects a draw there; it is kept for compatibility and as a guard.)
- generalization pairs: a shape or size pair changes that attribute of every initial hole, a
  direction or location pair changes one hole (as in the published pairs); the change always alters
  the result, which is checked after simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..config import Config
from ..enumerate import CODE_OF_ACTION, configurations, fold_rows
from ..errors import InputError
from ..mentalblackboard_sheet import SHEET
from ..holes import SHAPE_PERIOD, SHAPES, SIZES, Hole, direction_value
from ..kernels import actions as A
from ..rules import GROUPS, MENTALBLACKBOARD
from ..simulate import Result, simulate
from ..solve import count_solutions
from .levels import level_of, preset, record_solutions
from .media_names import asset_fields
from .options import ATTRIBUTES, GenerateOptions

#: the benchmark's taskType strings (its Back_Prediction file uses "Prediction" too)
TASK_TYPE = {"prediction": "Prediction", "planning": "Planning", "generalization": "Generalization",
             "backward": "Prediction", "choice": "Choice", "split": "Split", "plan-choice": "PlanChoice"}
#: the published file name per task (formats §1.1)
DATA_FILE = {"prediction": "PFHP_Prediction_Data.json", "planning": "PFHP_Planning_Data.json",
             "generalization": "PFHP_Generalization_Data.json", "backward": "PFHP_Back_Prediction_Data.json",
             "choice": "PFHP_Choice_Data.json", "split": "PFHP_Split_Data.json",
             "plan-choice": "PFHP_PlanChoice_Data.json"}
#: the answer shapes of the benchmark's prompts (formats §6.1)
PROMPT_SHAPES = ("circle", "ellipse", "triangle", "star", "letter", "trapezoid")
TASK_SHAPES = {"prediction": PROMPT_SHAPES, "planning": PROMPT_SHAPES, "generalization": PROMPT_SHAPES,
               "backward": SHAPES}
NO_ROTATION_SHAPES = ("circle", "square")  # the reference never draws them with a rotation
MAX_HOLES = 3
MAX_PLANNING_HOLES = 2
MAX_REDRAWS = 64  # rounds of redrawing rows that break a rule
CONFIG_REDRAW_EVERY = 8  # every this many failed rounds a row also gets a new configuration

PERIOD_OF_SHAPE = np.array([SHAPE_PERIOD[s] for s in SHAPES], dtype=np.int32)


# -- holes as arrays over the batch -------------------------------------------------------------------


@dataclass(frozen=True)
class HoleArrays:
    """The initial holes of B items, MAX_HOLES columns each: grid index (-1 = no hole), shape index
    into SHAPES, size index into SIZES and direction in quarter turns."""

    location: np.ndarray  # int32[B, MAX_HOLES]
    shape: np.ndarray
    size: np.ndarray
    quarter: np.ndarray

    @property
    def used(self) -> np.ndarray:
        return self.location >= 0

    def rows(self, index: np.ndarray) -> "HoleArrays":
        return HoleArrays(*(a[index] for a in self._arrays()))

    def with_rows(self, index: np.ndarray, new: "HoleArrays") -> "HoleArrays":
        """A copy with rows `index` replaced by the rows of `new`."""
        arrays = [a.copy() for a in self._arrays()]
        for array, fresh in zip(arrays, new._arrays()):
            array[index] = fresh
        return HoleArrays(*arrays)

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return self.location, self.shape, self.size, self.quarter


def pick(rng: np.random.Generator, allowed: np.ndarray) -> np.ndarray:
    """Per leading index, a uniformly chosen position of the last axis where `allowed` is True
    (argmin of random keys); rows with nothing allowed get an arbitrary position."""
    keys = np.where(allowed, rng.random(allowed.shape), 2.0)
    return keys.argmin(-1).astype(np.int32)


def hole_limit(n_visible: np.ndarray, cap: int) -> np.ndarray:
    """The reference's hole count bound: >8 visible positions 3, >4 two, else one (run.py:1052)."""
    return np.minimum(np.select([n_visible > 8, n_visible > 4], [3, 2], 1), cap)


def draw_holes(rng: np.random.Generator, layers: np.ndarray, allowed_shapes: np.ndarray, cap: int) -> HoleArrays:
    """1..limit holes per item at distinct positions holding paper; shape (among the allowed),
    size and direction uniform. `layers`: int[B, 32]; `allowed_shapes`: bool[B, len(SHAPES)]."""
    rows = len(layers)
    visible = layers > 0
    count = rng.integers(1, hole_limit(visible.sum(1), cap) + 1)
    order = np.argsort(np.where(visible, rng.random(visible.shape), 2.0), axis=1, kind="stable")[:, :MAX_HOLES]
    location = np.where(np.arange(MAX_HOLES) < count[:, None], order, -1).astype(np.int32)
    shape = pick(rng, np.broadcast_to(allowed_shapes[:, None, :], (rows, MAX_HOLES, len(SHAPES))))
    size = rng.integers(0, len(SIZES), (rows, MAX_HOLES), dtype=np.int32)
    quarter = rng.integers(0, 4, (rows, MAX_HOLES), dtype=np.int32)
    return HoleArrays(location, shape, size, quarter)


def result_totals(layers: np.ndarray, holes: HoleArrays) -> np.ndarray:
    """int[B]: result holes per item: every punch makes one hole per layer it meets (SPEC §4)."""
    met = np.take_along_axis(layers, np.maximum(holes.location, 0), axis=1)
    return np.where(holes.used, met, 0).sum(1)


def allowed_shapes(task: str, actions: np.ndarray) -> np.ndarray:
    """bool[B, len(SHAPES)]: the shapes an item may use (task set, minus circle/square with rotations)."""
    in_task = np.isin(SHAPES, TASK_SHAPES[task])
    symmetric = np.isin(SHAPES, NO_ROTATION_SHAPES)
    rotated = (actions >= A.FIRST_ROTATION).any(1)
    return in_task[None, :] & ~(symmetric[None, :] & rotated[:, None])


# -- generalization: modify one attribute --------------------------------------------------------------


def modify(rng: np.random.Generator, holes: HoleArrays, attribute: np.ndarray, layers: np.ndarray,
           shapes: np.ndarray, even_totals: bool) -> tuple[HoleArrays, np.ndarray]:
    """The modified twin of every item and whether the modification was possible.

    attribute: int[B] index into ATTRIBUTES. Shape and size change on every hole (each hole gets a
    different allowed shape / the other size); direction changes one hole whose shape has a
    direction, to another class; location moves one hole to a free position holding paper (with
    the same layer parity when totals must stay even).
    """
    rows = np.arange(len(layers))
    used = holes.used
    new_shape = pick(rng, shapes[:, None, :] & (np.arange(len(SHAPES)) != holes.shape[..., None]))
    shape = np.where(used & (attribute == 0)[:, None], new_shape, holes.shape)
    size = np.where(used & (attribute == 1)[:, None], 1 - holes.size, holes.size)

    period = PERIOD_OF_SHAPE[holes.shape]
    turns = np.where(period == 4, rng.integers(1, 4, period.shape), 2 * rng.integers(0, 2, period.shape) + 1)
    turnable = used & (period > 1)
    taken = (holes.location[..., None] == np.arange(SHEET.n_triangles)).any(1)  # bool[B, 32]
    hole_layers = np.take_along_axis(layers, np.maximum(holes.location, 0), axis=1)
    free = (layers > 0) & ~taken  # bool[B, 32]
    same_parity = (layers[:, None, :] % 2) == (hole_layers[..., None] % 2)  # [B, H, 32]
    targets = free[:, None, :] & (same_parity | (not even_totals))
    movable = used & targets.any(-1)

    eligible = np.where((attribute == 2)[:, None], turnable, movable)
    one = pick(rng, eligible)  # the hole a direction or location pair changes
    chosen = np.arange(MAX_HOLES) == one[:, None]
    quarter = np.where(chosen & (attribute == 2)[:, None], (holes.quarter + turns) % 4, holes.quarter)
    new_location = pick(rng, targets[rows, one])
    location = np.where(chosen & (attribute == 3)[:, None], new_location[:, None], holes.location)
    possible = (attribute < 2) | eligible.any(1)
    return HoleArrays(location.astype(np.int32), shape, size, quarter.astype(np.int32)), possible


# -- sampling configurations and holes ----------------------------------------------------------------


def group_actions(group: str, task: str) -> np.ndarray:
    """int32[N, 6]: every action row of a structure group (the reference's -F structures); the
    backward task turns every fold into its -B twin."""
    actions = configurations(MENTALBLACKBOARD, group=group).front_only().actions
    if task != "backward":
        return actions
    fold = (actions >= A.FIRST_FOLD_FRONT) & (actions < A.FIRST_FOLD_BACK)
    return np.where(fold, actions + (A.FIRST_FOLD_BACK - A.FIRST_FOLD_FRONT), actions).astype(np.int32)


def sample_rows(rng: np.random.Generator, available: int, count: int) -> np.ndarray:
    """Row indices: `count` without replacement, or every row (shuffled) plus random repeats when
    more are asked than exist (animate.py's rule)."""
    if count <= available:
        return rng.choice(available, count, replace=False)
    return np.concatenate([rng.permutation(available), rng.integers(0, available, count - available)])


@dataclass(frozen=True)
class Draw:
    """The drawn items of one group: action rows, their folded layers, the initial holes and, for
    generalization, the modified holes and attribute index of each pair."""

    actions: np.ndarray  # int32[B, 6]
    layers: np.ndarray  # int32[B, 32]
    holes: HoleArrays
    modified: HoleArrays | None = None
    attribute: np.ndarray | None = None  # int[B]

    def rows(self, index: np.ndarray) -> "Draw":
        return Draw(*(_take(value, index) for value in self._values()))

    def with_rows(self, index: np.ndarray, new: "Draw") -> "Draw":
        """A copy with rows `index` replaced by the rows of `new`."""
        return Draw(*(_put(old, index, fresh) for old, fresh in zip(self._values(), new._values())))

    def _values(self) -> tuple:
        return self.actions, self.layers, self.holes, self.modified, self.attribute


def _take(value, index: np.ndarray):
    if value is None:
        return None
    return value.rows(index) if isinstance(value, HoleArrays) else value[index]


def _put(value, index: np.ndarray, new):
    if value is None:
        return None
    if isinstance(value, HoleArrays):
        return value.with_rows(index, new)
    out = value.copy()
    out[index] = new
    return out


def folded_layers(actions: np.ndarray) -> np.ndarray:
    """int32[B, 32]: layers on each grid position after each row's actions (one kernel call)."""
    return np.asarray(fold_rows(actions).layers)


def draw_rows(rng: np.random.Generator, options: GenerateOptions, actions: np.ndarray, layers: np.ndarray,
              attribute: np.ndarray | None) -> tuple[Draw, np.ndarray]:
    """Holes (and their modification) for the given rows, and which rows obey every rule."""
    cap = MAX_PLANNING_HOLES if options.task == "planning" else MAX_HOLES
    shapes = allowed_shapes(options.task, actions)
    holes = draw_holes(rng, layers, shapes, cap)
    ok = np.ones(len(actions), dtype=bool)
    if options.even_totals:
        ok &= result_totals(layers, holes) % 2 == 0
    modified = None
    if attribute is not None:
        modified, possible = modify(rng, holes, attribute, layers, shapes, options.even_totals)
        ok &= possible
    return Draw(actions, layers, holes, modified, attribute), ok


def pair_attributes(options: GenerateOptions, first_index: int) -> np.ndarray | None:
    """Generalization: the modified attribute (index into ATTRIBUTES) of pairs first_index, ...:
    the fixed one, or all four in turn across the whole dataset."""
    if options.task != "generalization":
        return None
    if options.attribute is not None:
        return np.full(options.count, ATTRIBUTES.index(options.attribute))
    return (first_index + np.arange(options.count)) % len(ATTRIBUTES)


def draw_group(rng: np.random.Generator, options: GenerateOptions, group: str, first_index: int = 0) -> Draw:
    """`options.count` items of one group (dataset positions from `first_index`); rows that break a
    rule are redrawn (new holes; every CONFIG_REDRAW_EVERY rounds also a new configuration)."""
    pool = group_actions(group, options.task)
    actions = pool[sample_rows(rng, len(pool), options.count)]
    attribute = pair_attributes(options, first_index)
    draw, ok = draw_rows(rng, options, actions, folded_layers(actions), attribute)
    for round_ in range(1, MAX_REDRAWS + 1):
        if ok.all():
            return draw
        bad = np.flatnonzero(~ok)
        retry = draw.rows(bad)
        if round_ % CONFIG_REDRAW_EVERY == 0:
            new_actions = pool[rng.integers(0, len(pool), len(bad))]
            retry = replace(retry, actions=new_actions, layers=folded_layers(new_actions))
        fresh, fresh_ok = draw_rows(rng, options, retry.actions, retry.layers, retry.attribute)
        draw = draw.with_rows(bad, fresh)
        ok[bad] = fresh_ok
    raise RuntimeError(f"group {group}: {int((~ok).sum())} items still break a rule after {MAX_REDRAWS} redraws")


# -- records ------------------------------------------------------------------------------------------


def holes_of(holes: HoleArrays, row: int) -> list[Hole]:
    """The Hole objects of one row (directions collapsed to the shape's class form)."""
    out = []
    for k in np.flatnonzero(holes.used[row]):
        shape = SHAPES[holes.shape[row, k]]
        quarter = int(holes.quarter[row, k])
        out.append(Hole(shape, SIZES[holes.size[row, k]], direction_value(shape, quarter), int(holes.location[row, k]) + 1))
    return out


def item_configs(draw: Draw, first_number: int) -> list[Config]:
    """Configs of a drawn group, numbered from `first_number`; generalization pairs come as
    PFHP_<n>_<attr> followed by PFHP_<n>_<attr>_mod."""
    configs = []
    for row in range(len(draw.actions)):
        codes = [str(CODE_OF_ACTION[a]) for a in draw.actions[row] if a != A.NOOP]
        number = first_number + row
        if draw.modified is None:
            configs.append(Config.from_codes(codes, holes_of(draw.holes, row), f"PFHP_{number}"))
        else:
            base = f"PFHP_{number}_{ATTRIBUTES[draw.attribute[row]]}"
            configs.append(Config.from_codes(codes, holes_of(draw.holes, row), base))
            configs.append(Config.from_codes(codes, holes_of(draw.modified, row), f"{base}_mod"))
    return configs


def record_of(config: Config, result: Result, task: str) -> dict:
    """A MentalBlackboard record (the published field names and order)."""
    return {
        "id": config.id,
        "taskType": TASK_TYPE[task],
        "numberofFoldingSteps": len(config.actions),
        "foldingTypes": config.folding_types(),
        "unfoldingTypes": list(result.unfolding),
        **asset_fields(config.id),
        "initialHoles": [h.to_dict() for h in config.holes],
        "resultHoles": [h.to_dict() for h in result.holes],
        "totalNumberofHoles": len(result.holes),
    }


def check_results(configs: Sequence[Config], results: Sequence[Result]) -> None:
    """Every generated item must simulate, and a generalization twin must change the result."""
    for config, result in zip(configs, results):
        if not result.ok:
            raise RuntimeError(f"generated item {config.id} does not simulate: {result.reason}")
    by_id = {c.id: r for c, r in zip(configs, results)}
    for item_id, result in by_id.items():
        if item_id.endswith("_mod"):
            original = by_id[item_id.removesuffix("_mod")]
            if sorted(h.key for h in original.holes) == sorted(h.key for h in result.holes):
                raise RuntimeError(f"generated pair {item_id}: the modification does not change the result")


def generate_configs(options: GenerateOptions) -> list[Config]:
    """The items' configurations, group by group; each group draws from its own seeded generator
    (seed, group), so adding a group never changes the items of another."""
    options.validate()
    configs: list[Config] = []
    group_names = list(GROUPS)
    draw_of = draw_group_at_level if options.level else draw_group
    for group, first_index, items in options.group_slots():
        rng = np.random.default_rng([options.seed, group_names.index(group)])
        draw = draw_of(rng, replace(options, count=items, total=None), group, first_index)
        configs += item_configs(draw, options.first_id + first_index)
    return configs


def default_groups(task: str) -> tuple[str, ...]:
    """Every structure group a task can draw from (planning tasks: those without rotations), for a
    `generate` that names none."""
    no_rotation_only = task in ("planning", "plan-choice")
    return tuple(g for g, (_, rotates) in GROUPS.items() if not (no_rotation_only and rotates))


# -- levels -------------------------------------------------------------------------------------------

LEVEL_BATCH = 64  # fewest candidates drawn per round when sampling within a level preset
LEVEL_ROUNDS = 16
LEVEL_ROUNDS_WITHOUT_ANY = 4  # a group that gives no item in range in this many rounds cannot reach it


def concat_draws(draws: Sequence[Draw]) -> Draw:
    """One Draw holding the rows of several, in order."""
    def joined(values: list):
        if values[0] is None:
            return None
        if isinstance(values[0], HoleArrays):
            return HoleArrays(*(np.concatenate(columns) for columns in zip(*(v._arrays() for v in values))))
        return np.concatenate(values)
    return Draw(*(joined(list(values)) for values in zip(*(d._values() for d in draws))))


def row_levels(draw: Draw, task: str) -> list[tuple[int, ...]]:
    """The level of every item a drawn row becomes (two for a generalization pair), computed from
    its records exactly as `generate_records` computes the `level` field."""
    configs = item_configs(draw, 1)
    results = simulate(configs)
    check_results(configs, results)
    records = [record_of(c, r, task) for c, r in zip(configs, results)]
    if task == "planning":
        add_solution_counts(records)
    levels = [level_of(r, record_solutions(record)) for record, r in zip(records, results)]
    per_row = len(levels) // len(draw.actions)
    return [tuple(levels[i : i + per_row]) for i in range(0, len(levels), per_row)]


def draw_group_at_level(rng: np.random.Generator, options: GenerateOptions, group: str, first_index: int = 0) -> Draw:
    """`options.count` items of one group whose every record lies in the level preset: candidates
    are drawn as `draw_group` draws them, in rounds, and kept in draw order while in range (a
    generalization pair when both halves are). Deterministic per seed. InputError naming --level
    when the group cannot reach the preset (it says which levels the group's draws had)."""
    wanted = preset(options.level)
    kept: list[Draw] = []
    found, drawn, seen = 0, 0, set()
    batch = max(2 * options.count, LEVEL_BATCH)
    for _ in range(LEVEL_ROUNDS):
        draw = draw_group(rng, replace(options, count=batch), group, first_index + drawn)
        drawn += batch
        levels = row_levels(draw, options.task)
        seen.update(level for row in levels for level in row)
        inside = np.flatnonzero([all(map(wanted.contains, row)) for row in levels])
        kept.append(draw.rows(inside))
        found += len(inside)
        if found >= options.count:
            return concat_draws(kept).rows(np.arange(options.count))
        if not found and drawn >= LEVEL_ROUNDS_WITHOUT_ANY * batch:
            break
    raise InputError(f"group {group}: {found} of {options.count} items at level {options.level} ({wanted.describe()}) "
                     f"in {drawn} draws; this group's draws had levels {min(seen)}-{max(seen)}", field="--level")


def add_solution_counts(records: list[dict]) -> None:
    """Set `numberofSolutions` on planning records: the number of distinct plans (fold sequence plus
    at most two punches) the exhaustive solver finds; the generating plan is always one of them."""
    for record, count in zip(records, count_solutions(records)):
        record["numberofSolutions"] = int(count)
