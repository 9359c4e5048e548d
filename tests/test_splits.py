"""Canonical forms and splits without leaks.

The proofs: for random configurations (any of the 15 patterns, any fold codes with -F and -B, any
rotations, 1-3 holes of any shape anywhere, so realizable, unrealizable and off-paper items alike)
and each of the 8 symmetries g of the square, simulate(g.config) = g.simulate(config): the same
status, the result holes mapped by g, the unfolding codes mapped by g; flipping F/B of any folds
changes only the suffixes of the matching unfolding codes; and the canonical form is the same for
every image. Then: splits keep every linked group together, and `overlap` finds every planted copy.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from foldsim.cli import main
from foldsim.codes import is_rotation
from foldsim.config import Config
from foldsim.dataset.canonical import SYMMETRIES, configuration_keys, target_keys
from foldsim.dataset.generate import GenerateOptions, generate_records
from foldsim.dataset.splits import add_splits, assign_splits, item_keys, overlap_files, parse_splits
from foldsim.errors import InputError
from foldsim.holes import SHAPES, SIZES, Hole
from foldsim.io import read_records
from foldsim.kernels import actions as A
from foldsim.rules import PATTERNS
from foldsim.simulate import simulate

FOLD_CODES = [f"{t}-{s}" for t in A.FOLD_TYPES for s in "FB"]
PROPERTY = settings(max_examples=6, deadline=None, derandomize=True)
BATCH = 80  # configurations per example: every example simulates 9 batches of this shape


def random_configs(seed: int, n: int = BATCH) -> list[Config]:
    """n random configurations: a random pattern, random fold codes (diagonal ones less often, so
    most sequences are realizable) and angles, then 1-3 random holes, mostly on the folded paper."""
    rng = np.random.default_rng(seed)
    straight, diagonal = FOLD_CODES[:8], FOLD_CODES[8:]

    def fold() -> str:
        options = diagonal if rng.random() < 0.2 else straight
        return options[rng.integers(len(options))]
    sequences = [[f"R-{90 * rng.integers(1, 4)}" if step == "R" else fold() for step in PATTERNS[rng.integers(len(PATTERNS))]]
                 for _ in range(n)]
    folded = simulate([Config.from_codes(codes) for codes in sequences])
    configs = []
    for i, (codes, state) in enumerate(zip(sequences, folded)):
        paper = sorted(state.layers) if state.layers and rng.random() < 0.9 else list(range(1, 33))
        holes = [Hole.make(SHAPES[rng.integers(len(SHAPES))], SIZES[rng.integers(2)], 90 * int(rng.integers(4)),
                           int(paper[rng.integers(len(paper))])) for _ in range(rng.integers(1, 4))]
        configs.append(Config.from_codes(codes, holes, f"c{i}"))
    return configs


def hole_keys(holes) -> list:
    return sorted(h.key for h in holes)


def test_the_symmetries_match_the_kernel_and_form_a_group():
    names = {g.name for g in SYMMETRIES}
    assert len(names) == 8 and len({g.matrix.tobytes() for g in SYMMETRIES}) == 8
    turn = next(g for g in SYMMETRIES if g.name == "rotate_90")
    assert (turn.fold_types == A.QUARTER_TURN).all()  # the kernel's own quarter-turn table (SPEC §4)
    flip = next(g for g in SYMMETRIES if g.name == "mirror_top_bottom")
    assert [flip.code(c) for c in ("H1-F", "H2-B", "V1-F", "V2-F", "D1-F", "D2-F", "D3-B", "D4-F", "R-90", "R-180")] == \
        ["H2-F", "H1-B", "V1-F", "V2-F", "D3-F", "D4-F", "D1-B", "D2-F", "R-270", "R-180"]
    by_matrix = {g.matrix.tobytes(): g for g in SYMMETRIES}
    for g in SYMMETRIES:
        for h in SYMMETRIES:
            gh = by_matrix[(g.matrix @ h.matrix).tobytes()]  # closed under composition ...
            assert (g.locations[h.locations] == gh.locations).all()  # ... and every table composes with it
            assert (g.actions[h.actions] == gh.actions).all()
            assert all(g.quarter(h.quarter(q)) == gh.quarter(q) for q in range(4))


@PROPERTY
@given(st.integers(0, 2**32 - 1))
def test_simulation_commutes_with_every_symmetry(seed):
    configs = random_configs(seed)
    base = simulate(configs)
    assert Counter(r.status for r in base)["ok"] > BATCH // 10  # enough items get through to compare holes
    for g in SYMMETRIES:
        for config, before, after in zip(configs, base, simulate([g.config(c) for c in configs])):
            assert after.status == before.status, (g.name, config)
            assert after.failed_step == before.failed_step
            assert after.unfolding == g.codes(before.unfolding)
            assert hole_keys(after.holes) == hole_keys(g.holes(before.holes)), (g.name, config)


@PROPERTY
@given(st.integers(0, 2**32 - 1))
def test_front_and_back_change_only_the_suffixes_of_their_own_unfolding_codes(seed):
    configs = random_configs(seed)
    rng = np.random.default_rng(seed)
    flipped = []
    for c in configs:
        codes = [a if is_rotation(a) or rng.random() < 0.5 else a[:-1] + ("B" if a.endswith("F") else "F") for a in c.actions]
        flipped.append(Config(tuple(codes), c.holes, c.id))
    for config, other, before, after in zip(configs, flipped, simulate(configs), simulate(flipped)):
        assert after.status == before.status
        assert hole_keys(after.holes) == hole_keys(before.holes)
        assert [u[:-1] for u in after.unfolding] == [u[:-1] for u in before.unfolding]
        if after.ok:  # the k-th code from the end belongs to the k-th fold and keeps its suffix
            folds = [a for a in other.actions if not is_rotation(a)]
            assert [u[-1] for u in after.unfolding] == [a[-1] for a in reversed(folds)]
        assert configuration_keys([config]) == configuration_keys([other])


@PROPERTY
@given(st.integers(0, 2**32 - 1))
def test_the_canonical_form_is_the_same_for_every_image_and_only_for_images(seed):
    configs = random_configs(seed)
    keys = configuration_keys(configs)
    results = [r.holes for r in simulate(configs[:16])]
    targets = target_keys([3] * 16, results)
    for g in SYMMETRIES:
        assert configuration_keys([g.config(c) for c in configs]) == keys
        assert target_keys([3] * 16, [g.holes(holes) for holes in results]) == targets
    # equal keys only for images: a key names one orbit (F/B dropped)
    def plain(c: Config) -> tuple:
        return tuple(a.split("-")[0] if not is_rotation(a) else a for a in c.actions), tuple(hole_keys(c.holes))
    first_of = {}
    for config, key in zip(configs, keys):
        if key in first_of:
            assert any(plain(g.config(first_of[key])) == plain(config) for g in SYMMETRIES)
        first_of.setdefault(key, config)
    assert len(set(keys)) > BATCH * 0.9


def test_canonical_keys_are_readable():
    [key] = configuration_keys([Config.from_codes("H1-B,R-90", [Hole.make("star", "large", 90, 1)])])
    assert key.count("|") == 1 and "-B" not in key and key.split("|")[0].count(",") == 1


@pytest.mark.parametrize("text, expected", [
    ("train=0.8,validation=0.1,test=0.1", (("train", 0.8), ("validation", 0.1), ("test", 0.1))),
    (" a=0.5 , b=0.5 ", (("a", 0.5), ("b", 0.5))),
])
def test_split_specifications(text, expected):
    assert parse_splits(text) == expected


@pytest.mark.parametrize("text, message", [
    ("train=0.8,test=0.1", "sum to 0.9"), ("train=0.5,train=0.5", "named twice"), ("train", "not name=fraction"),
    ("train=x,test=1", "not a number"), ("train=0,test=1", "in (0, 1]"), ("", "expected name=fraction"),
])
def test_bad_split_specifications_name_the_option(text, message):
    with pytest.raises(InputError, match=f"--splits: .*{re.escape(message)}"):
        parse_splits(text)


def image_record(record: dict, g, new_id: str, flip_back: bool = False) -> dict:
    """A copy of a record under symmetry g (F/B flipped too when asked), re-simulated, new id."""
    config = g.config(Config.from_record(record))
    if flip_back:
        config = Config(tuple(a if is_rotation(a) else a[:-1] + "B" for a in config.actions), config.holes[::-1])
    [result] = simulate([config])
    return {**record, "id": new_id, "foldingTypes": config.folding_types(),
            "initialHoles": [h.to_dict() for h in config.holes], **result.to_record()}


@pytest.fixture(scope="module")
def generated() -> list[dict]:
    return generate_records(GenerateOptions("prediction", ("one_step", "three_step_with_rotation"), 40, seed=2,
                                            splits=(("train", 0.8), ("validation", 0.1), ("test", 0.1))))


def test_generated_splits_share_no_problem(generated, tmp_path, capsys):
    """`generate --splits` writes a split per record; with rotated, mirrored and F/B-flipped copies
    planted among them, every copy lands in its original's split and `overlap` finds nothing."""
    assert Counter(r["split"] for r in generated).keys() == {"train", "validation", "test"}
    copies = [image_record(generated[i], SYMMETRIES[i % 8], f"copy_{i}", flip_back=i % 3 == 0) for i in range(0, 80, 5)]
    records = [dict(r) for r in generated] + copies
    add_splits(records, parse_splits("train=0.8,validation=0.1,test=0.1"))
    assert [r["split"] for r in records[: len(generated)]] == [r["split"] for r in generated]  # order-free, per key
    assert [r["split"] for r in copies] == [generated[i]["split"] for i in range(0, 80, 5)]
    path = tmp_path / "data.json"
    path.write_text(json.dumps(records))
    with pytest.raises(SystemExit) as exit_info:
        main(["overlap", str(path), "--json"])
    assert exit_info.value.code == 0
    assert json.loads(capsys.readouterr().out)["overlapping"] == 0
    records[-1]["split"] = "test" if records[-1]["split"] != "test" else "train"  # a leak, planted by hand
    path.write_text(json.dumps(records))
    with pytest.raises(SystemExit) as exit_info:
        main(["overlap", str(path), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert exit_info.value.code == 1 and sorted(o["id"] for o in summary["overlaps"]) == sorted(["copy_75", generated[75]["id"]])


def test_splits_do_not_depend_on_record_order_and_keep_linked_items_together(generated):
    keys, _ = item_keys(generated)
    splits = assign_splits(keys, parse_splits("train=0.5,test=0.5"))
    order = np.random.default_rng(0).permutation(len(keys))
    shuffled = assign_splits([keys[i] for i in order], parse_splits("train=0.5,test=0.5"))
    assert [shuffled[list(order).index(i)] for i in range(len(keys))] == splits
    # a rotated copy, a mirrored F/B-flipped copy, a generalization pair and a same-target planning item
    copies = [image_record(generated[0], SYMMETRIES[1], "copy_a"), image_record(generated[1], SYMMETRIES[6], "copy_b", True)]
    both, _ = item_keys([*generated, *copies])
    spread = assign_splits(both, parse_splits("a=0.25,b=0.25,c=0.25,d=0.25"))
    assert spread[-2] == spread[0] and spread[-1] == spread[1]


def test_generalization_pairs_and_planning_targets_are_linked(planning_file):
    pair = [{"id": "PFHP_1_shape", "taskType": "Generalization", "foldingTypes": [{"foldType": "horizontal_top_to_bottom", "foldToFront": True}],
             "initialHoles": [{"shape": "star", "size": "large", "direction": 0, "location": 20}]},
            {"id": "PFHP_1_shape_mod", "taskType": "Generalization", "foldingTypes": [{"foldType": "horizontal_top_to_bottom", "foldToFront": True}],
             "initialHoles": [{"shape": "circle", "size": "large", "direction": "", "location": 20}]}]
    same_target = {r["id"]: r for r in read_records(planning_file) if r["id"] in ("PFHP_2", "PFHP_69")}
    keys, errors = item_keys([*pair, same_target["PFHP_2"], same_target["PFHP_69"]])
    assert not errors and keys[2].configuration != keys[3].configuration and keys[2].target == keys[3].target
    for spec in ("a=0.5,b=0.5", "a=0.1,b=0.2,c=0.3,d=0.4", "x=0.25,y=0.25,z=0.5"):
        splits = assign_splits(keys, parse_splits(spec))
        assert splits[0] == splits[1] and splits[2] == splits[3]


def test_overlap_finds_every_planted_copy(generated, tmp_path, capsys):
    """B holds images of A's items under all 8 symmetries (F/B flipped, holes reordered, new ids)
    and fresh items; overlap reports exactly the planted ones, by task and pattern."""
    fresh = generate_records(GenerateOptions("prediction", ("four_step",), 6, seed=99, first_id=1000))
    fresh_keys = set(k.configuration for k in item_keys(fresh)[0])
    a_keys = set(k.configuration for k in item_keys(generated)[0])
    assert not fresh_keys & a_keys  # four-step items cannot be one- or three-step ones
    planted = [image_record(generated[3 * i], g, f"planted_{i}", flip_back=i % 2 == 1) for i, g in enumerate(SYMMETRIES)]
    b_path, a_path = tmp_path / "b.json", tmp_path / "a.json"
    b_path.write_text(json.dumps(fresh[:3] + planted + fresh[3:]))
    a_path.write_text(json.dumps(generated))
    report = overlap_files(b_path, a_path)
    assert sorted(o.id for o in report.overlaps) == sorted(r["id"] for r in planted)
    assert all(generated[3 * int(o.id.split("_")[1])]["id"] in o.matches for o in report.overlaps)
    with pytest.raises(SystemExit) as exit_info:
        main(["overlap", str(b_path), str(a_path), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert exit_info.value.code == 1 and summary["overlapping"] == 8
    assert summary["by_task"] == {"prediction": {"items": 14, "overlapping": 8}}
    assert sum(v["overlapping"] for v in summary["by_pattern"].values()) == 8


def test_overlap_of_the_published_files(planning_file, generalization_file, capsys):
    """9 published planning tasks are configurations of generalization items (up to a symmetry)."""
    with pytest.raises(SystemExit) as exit_info:
        main(["overlap", str(planning_file), str(generalization_file)])
    assert exit_info.value.code == 1
    out = capsys.readouterr().out
    assert out.startswith("9 of 400 items of") and "PFHP_398 (planning, F): same configuration and target as PFHP_859_size" in out


def test_bad_items_are_one_line_each_and_unreadable_files_exit_2(tmp_path, capsys):
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([{"id": "good", "taskType": "Prediction", "foldingTypes": [{"foldType": "horizontal_top_to_bottom"}],
                                 "initialHoles": [{"shape": "star", "size": "large", "direction": 0, "location": 20}]},
                                {"id": "bad", "foldingTypes": [{"foldType": "sideways"}], "initialHoles": []}, 7]))
    with pytest.raises(SystemExit) as exit_info:
        main(["overlap", str(path), str(path)])
    captured = capsys.readouterr()
    assert exit_info.value.code == 1
    errors = captured.err.strip().splitlines()
    assert len(errors) == 4 and all(line.startswith(f"error: {path}: ") for line in errors)  # 2 bad items, read twice
    assert "bad: foldingTypes[0].foldType: unknown foldType" in errors[0]
    with pytest.raises(SystemExit) as exit_info:
        main(["overlap", str(tmp_path / "missing.json")])
    assert exit_info.value.code == 2 and "cannot read" in capsys.readouterr().err
