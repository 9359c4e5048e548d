"""Distractors of the choice tasks (issue 9, item 2): property tests over random configurations.

For random realizable action sequences (any pattern, -F and -B, rotations anywhere) with random
punches on the paper, every variant the error models produce is checked against an independent
reading of its model: the truth equals `simulate`, every variant differs from it, and each one is
re-simulated through the public `simulate` (or built from single-punch simulations and exact
reference geometry) exactly as its model says."""

from __future__ import annotations

import functools
from collections import Counter
from fractions import Fraction as Q

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foldsim import Config, Hole, simulate
from foldsim.batching import pad_columns
from foldsim.codes import action_code
from foldsim.dataset import distractors as D
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.holes import SHAPES, SIZES, direction_value
from foldsim.kernels import OK, fold_batch
from foldsim.kernels import actions as A
from foldsim.reference import FLAT_CENTROIDS, reflect, rotate
from foldsim.trace import trace

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
ITEMS = 6  # configurations per example
SIM_ROWS = 512  # `simulate` batches are padded to this, so they compile once


def _pool(n: int = 4000, seed: int = 11) -> list[tuple[int, ...]]:
    """Realizable action rows of 1-6 actions (any of the 19 actions anywhere)."""
    rng = np.random.default_rng(seed)
    rows = [[int(a) for a in rng.integers(1, A.N_ACTION_CODES, size=int(rng.integers(1, 7)))] for _ in range(n)]
    rows = [r for r in rows if any(a < A.FIRST_ROTATION for a in r)]
    ok = np.asarray(fold_batch(pad_columns(rows, 6, A.NOOP)).status.code) == OK
    return sorted({tuple(r) for r, good in zip(rows, ok) if good})


POOL = _pool()


def random_configs(seed: int) -> list[Config]:
    """ITEMS configurations: a realizable row, 1-3 punches of random holes where there is paper."""
    rng = np.random.default_rng(seed)
    rows = [POOL[i] for i in rng.integers(0, len(POOL), ITEMS)]
    layers = np.asarray(fold_batch(pad_columns(rows, 6, A.NOOP)).layers)
    configs = []
    for row, on in zip(rows, layers):
        places = np.flatnonzero(on)
        count = int(rng.integers(1, min(3, len(places)) + 1))
        holes = []
        for loc in rng.choice(places, count, replace=False):
            shape = SHAPES[int(rng.integers(len(SHAPES)))]
            holes.append(Hole(shape, SIZES[int(rng.integers(2))], direction_value(shape, int(rng.integers(4))), int(loc) + 1))
        configs.append(Config.from_codes([action_code(a) for a in row], holes))
    return configs


def simulate_padded(configs: list[Config]):
    """`simulate` on a batch padded to SIM_ROWS rows and 6 punches (one compiled shape)."""
    filler = Config.from_codes(["H1-F"], [Hole("circle", "small", "", loc) for loc in (17, 18, 19, 20, 21, 22)])
    return simulate(configs + [filler] * (SIM_ROWS - len(configs) % SIM_ROWS))[: len(configs)]


def keys(holes) -> Counter:
    return Counter(h.key for h in holes)


def turned(hole: Hole, quarters: int) -> Hole:
    """A hole turned about the sheet centre by quarter turns (exact reference geometry)."""
    where = rotate(FLAT_CENTROIDS[hole.location - 1], quarters)
    return Hole(hole.shape, hole.size, direction_value(hole.shape, hole.quarter + quarters), FLAT_CENTROIDS.index(where) + 1)


MIRROR_LINES = {"left-right": (Q(0), Q(1), 2), "top-bottom": (Q(1), Q(0), 0), "diagonal /": (Q(1), Q(1), 1),
                "diagonal \\": (Q(1), Q(-1), 3)}  # direction of the line through the centre, 2*phi in quarters


def mirrored(hole: Hole, name: str) -> Hole:
    dx, dy, two_phi = MIRROR_LINES[name]
    where = reflect(FLAT_CENTROIDS[hole.location - 1], (Q(0), Q(0)), (dx, dy))
    return Hole(hole.shape, hole.size, direction_value(hole.shape, two_phi + 2 - hole.quarter), FLAT_CENTROIDS.index(where) + 1)


def theta_of(config: Config) -> int:
    return sum(int(c[2:]) // 90 for c in config.actions if c.startswith("R-")) % 4


class Oracle:
    """Single-punch simulations through the public `simulate`, asked for up front and run in one
    padded batch: what one punch (possibly moved) makes on a given action sequence."""

    def __init__(self):
        self.queries: dict[tuple, Config] = {}
        self.answers: dict[tuple, tuple | None] = {}

    def ask(self, codes: tuple[str, ...], hole: Hole) -> None:
        self.queries.setdefault((codes, hole), Config(codes, (hole,)))

    def run(self) -> "Oracle":
        results = simulate_padded(list(self.queries.values()))
        self.answers = {key: (r.holes if r.ok else None) for key, r in zip(self.queries, results)}
        return self

    def holes(self, codes: tuple[str, ...], hole: Hole):
        return self.answers[(codes, hole)]


def moved(hole: Hole, location: int | None) -> Hole:
    return hole if location is None else Hole(hole.shape, hole.size, hole.direction, location)


def prefix_without_last_fold(config: Config) -> tuple[str, ...]:
    folds = [k for k, c in enumerate(config.actions) if not c.startswith("R-")]
    return tuple(c for k, c in enumerate(config.actions) if k != folds[-1])


def oracle_for(configs, pools) -> Oracle:
    oracle = Oracle()
    for config, pool in zip(configs, pools):
        for hole in config.holes:
            oracle.ask(config.actions, hole)
            oracle.ask(prefix_without_last_fold(config), hole)
        for candidate in pool:
            if candidate.model == "extra_layer":
                oracle.ask(config.actions, moved(config.holes[candidate.detail["hole"] - 1], candidate.detail["from"]))
    return oracle.run()


ORACLE = Oracle()  # the current example's (set by the test)


def single_punch_holes(config: Config, index: int, location: int | None = None):
    """The holes one punch makes (optionally moved to `location`)."""
    holes = ORACLE.holes(config.actions, moved(config.holes[index], location))
    assert holes is not None
    return holes


def reference_holes(codes: tuple[str, ...], hole: Hole):
    return ORACLE.holes(codes, hole)


def hole_at(holes, location: int) -> Hole:
    [hole] = [h for h in holes if h.location == location]
    return hole


@functools.lru_cache(maxsize=4096)
def crease_image(config: Config, location: int, crease: str) -> int | None:
    """Grid id of `location` mirrored across `crease` of the shape folded without the last fold
    (box from the trace, reflection in exact reference geometry)."""
    folds = [k for k, c in enumerate(config.actions) if not c.startswith("R-")]
    prefix = Config.from_codes([c for k, c in enumerate(config.actions) if k != folds[-1]])
    sheet = trace(prefix).sheet(len(prefix.actions))
    vertices = np.einsum("tij,tvj->tvi", sheet.linear, SHEET.vertices) + sheet.shift[:, None, :]
    x0, x1 = Q(int(vertices[..., 0].min()), 2), Q(int(vertices[..., 0].max()), 2)
    y0, y1 = Q(int(vertices[..., 1].min()), 2), Q(int(vertices[..., 1].max()), 2)
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    direction = {"horizontal": (Q(1), Q(0)), "vertical": (Q(0), Q(1)), "diagonal /": (Q(1), Q(1)),
                 "diagonal \\": (Q(1), Q(-1))}[crease]
    where = reflect(FLAT_CENTROIDS[location - 1], centre, direction)
    return FLAT_CENTROIDS.index(where) + 1 if where in FLAT_CENTROIDS else None


def check_variant(config: Config, truth, model: str, detail: dict, option, error_config: Config | None) -> None:
    """One variant against an independent reading of its error model."""
    theta = theta_of(config)
    if model == "replaced_fold":
        step = detail["step"] - 1
        assert config.actions[step] == detail["replaces"] and detail["fold"] != detail["replaces"]
        assert detail["fold"][-1] == detail["replaces"][-1]  # same -F/-B
        assert error_config.actions == config.actions[:step] + (detail["fold"],) + config.actions[step + 1:]
        assert error_config.holes == config.holes
    elif model in ("pattern_turned", "rotation_ignored"):
        quarters = detail["turn"] // 90
        if model == "rotation_ignored":
            assert theta and quarters == (-theta) % 4
        assert keys(option) == keys(turned(h, quarters) for h in truth)
    elif model == "pattern_reflected":
        assert keys(option) == keys(mirrored(h, detail["mirror"]) for h in truth)
    elif model == "wrong_direction":
        expected = [Hole(h.shape, h.size, direction_value(h.shape, config.holes[p].quarter + theta), h.location)
                    for p in range(len(config.holes)) for h in single_punch_holes(config, p)]
        assert keys(option) == keys(expected)
    elif model == "missing_layer":
        p, layer = detail["hole"] - 1, detail["layer"]
        location = FLAT_CENTROIDS.index(rotate(FLAT_CENTROIDS[layer - 1], theta)) + 1
        lost = hole_at(single_punch_holes(config, p), location)
        assert keys(option) == keys(truth) - Counter([lost.key])
        assert sum(keys(option).values()) == len(truth) - 1
    elif model == "extra_layer":
        p, layer, source = detail["hole"] - 1, detail["layer"], detail["from"]
        assert SHEET.edge_neighbours[config.holes[p].location - 1, source - 1]
        location = FLAT_CENTROIDS.index(rotate(FLAT_CENTROIDS[layer - 1], theta)) + 1
        extra = hole_at(single_punch_holes(config, p, source), location)
        assert keys(option) == keys(truth) + Counter([extra.key])
    elif model == "wrong_crease":
        folds = [k for k, c in enumerate(config.actions) if not c.startswith("R-")]
        assert detail["step"] == folds[-1] + 1
        assert error_config.actions == tuple(c for k, c in enumerate(config.actions) if k != folds[-1])
        expected = []
        for p, hole in enumerate(config.holes):
            kept = reference_holes(error_config.actions, hole)
            stays = kept is not None
            moved = len(single_punch_holes(config, p)) > (len(kept) if stays else 0)
            if stays:
                expected.append(hole.location)
            if moved:
                expected.append(crease_image(config, hole.location, detail["crease"]))
        assert sorted(h.location for h in error_config.holes) == sorted(expected)
    else:
        raise AssertionError(f"unknown model {model}")


@given(st.integers(0, 2**31 - 1))
@SETTINGS
def test_every_variant_reproduces_its_error_model(seed):
    configs = random_configs(seed)
    items = D.Items.of_configs(configs)
    rows = D.choice_rows(items, D.prepare(items), D.CHOICE_MODELS)
    outcome = D.run_variants(rows)
    truth_keys, pools = D.candidates(rows, outcome)
    results = simulate_padded(configs)
    plain = [v for v in range(len(rows)) if rows.plain_config[v] and rows.model[v] != "truth"]
    replayed = dict(zip(plain, simulate_padded([rows.config(v) for v in plain])))
    global ORACLE
    ORACLE = oracle_for(configs, pools)
    for i, (config, result) in enumerate(zip(configs, results)):
        assert result.ok and Counter(truth_keys[i]) == Counter(D.hole_key(
            np.array(h.location - 1), np.array(SHAPES.index(h.shape)), np.array(SIZES.index(h.size)), np.array(h.quarter)).item()
            for h in result.holes)  # the correct option is what simulate says
        for candidate in pools[i]:
            option = candidate.holes()
            assert candidate.keys != truth_keys[i] and option
            error_config = rows.config(candidate.row) if rows.plain_config[candidate.row] else None
            if error_config is not None:  # an ordinary configuration: re-simulated through simulate()
                assert keys(replayed[candidate.row].holes) == keys(option)
            check_variant(config, result.holes, candidate.model, candidate.detail, option, error_config)


@given(st.integers(0, 2**31 - 1))
@SETTINGS
def test_the_true_crease_and_no_turn_give_back_the_truth(seed):
    """The constructions are right, not merely different: the wrong-crease configuration built
    with the TRUE crease, and the turn/mirror transform by the identity, reproduce the truth."""
    configs = random_configs(seed)
    items = D.Items.of_configs(configs)
    prep = D.prepare(items)
    rows = D.Rows()
    for i in range(len(items)):
        punches = D.punches_of(items, i)
        moved = D.wrong_crease_punches(punches, prep, i, int(prep.last_family[i]))
        rows.append(i, "true_crease", {}, D.without(items.actions[i], int(prep.last_fold[i])), moved)
        rows.append(i, "identity", {}, *D.transformed(items.actions[i], punches, False, 0))
        rows.append(i, "mirror_twice", {}, *D.transformed(*D.transformed(items.actions[i], punches, True, 0), True, 0))
    outcome = D.run_variants(rows)
    results = simulate_padded(configs)
    for v, i in enumerate(rows.item):
        assert outcome.ok[v]
        assert Counter(D.hole_of_key(k).key for k in outcome.keys[v]) == keys(results[i].holes), rows.model[v]


def test_a_candidate_pool_has_every_model_and_distinct_choices():
    """Over a few dozen benchmark-like items every model yields variants, and `choose` returns
    pairwise distinct results none equal to the answer, one per model first."""
    configs = random_configs(5) + random_configs(6) + random_configs(7)
    items = D.Items.of_configs(configs)
    rows = D.choice_rows(items, D.prepare(items), D.CHOICE_MODELS)
    truth, pools = D.candidates(rows, D.run_variants(rows))
    seen = Counter(c.model for pool in pools for c in pool)
    assert set(seen) >= set(D.CHOICE_MODELS) - {"rotation_ignored"} or seen["rotation_ignored"]
    rng = np.random.default_rng(0)
    for i, pool in enumerate(pools):
        picked = D.choose(rng, pool, 4, D.CHOICE_MODELS, "random", taken=[truth[i]])
        if picked is None:
            assert len({c.keys for c in pool}) < 4
            continue
        assert len({c.keys for c in picked} | {truth[i]}) == 5
        models = [c.model for c in picked]
        assert len(set(models)) == min(4, len({c.model for c in pool}))


@pytest.mark.parametrize("similarity", ["hard", "easy"])
def test_similarity_prefers_more_or_fewer_shared_holes(similarity):
    configs = random_configs(21)
    items = D.Items.of_configs(configs)
    rows = D.choice_rows(items, D.prepare(items), D.CHOICE_MODELS)
    truth, pools = D.candidates(rows, D.run_variants(rows))
    rng = np.random.default_rng(1)
    for i, pool in enumerate(pools):
        picked = D.choose(rng, pool, 1, ["missing_layer", "pattern_turned"], similarity, taken=[truth[i]])
        if not picked:
            continue
        of_model = [c.shared for c in pool if c.model == picked[0].model]
        assert picked[0].shared == (max(of_model) if similarity == "hard" else min(of_model))
