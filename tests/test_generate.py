"""The dataset generator and the render command: reproducible JSON that passes the conformance check,
the reference's drawing rules, generalization pairs, planning items, resumable media, clear errors.

Batches are kept at 8 or 16 items so the simulator compiles for two batch shapes only."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from foldsim.check import check_records
from foldsim.cli import app
from foldsim.dataset.draw import MAX_HOLES, draw_holes, hole_limit
from foldsim.dataset.generate import GenerateOptions, generate_records
from foldsim.holes import SHAPE_PERIOD, SHAPES, direction_quarter
from foldsim.dataset.media import LOCK_FILE, MediaRequest, asset_fields, render_items

GROUPS = ["--group", "one_step", "--group", "three_step_with_rotation"]
ARGS = ["generate", "--task", "prediction", *GROUPS, "--count", "2", "--seed", "7"]
DATA = "PFHP_Prediction_Data.json"

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> Path:
    """A prediction dataset with text and images, rendered in this process."""
    out = tmp_path_factory.mktemp("first")
    result = invoke(*ARGS, "--out", str(out), "--text", "--images", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "media: 4 rendered, 0 already complete, 0 failed" in result.stdout
    return out


def records_of(out: Path) -> list[dict]:
    return json.loads((out / DATA).read_text())


def test_json_passes_the_conformance_check(first_run):
    records = records_of(first_run)
    assert [r["id"] for r in records] == ["PFHP_1", "PFHP_2", "PFHP_3", "PFHP_4"]
    summary = check_records(records).summary()
    assert summary["match"] == 4 and not summary["inconsistent"]
    assert [r["numberofFoldingSteps"] for r in records] == [1, 1, 3, 3]
    # text and images only: no record names a video, frames folder or result image (none was written)
    assert not {"foldingVideo", "foldingFramesDir", "unfoldingVideo", "unfoldingFramesDir", "resultImg"} & set(records[0])
    assert all(r["totalNumberofHoles"] == len(r["resultHoles"]) and r["totalNumberofHoles"] % 2 == 0 for r in records)
    assert (first_run / "paper_structure.png").is_file()
    checked = invoke("check", str(first_run / DATA))
    assert checked.exit_code == 0 and "4/4 match" in checked.stdout


def test_same_seed_same_bytes_whatever_the_workers(first_run, tmp_path):
    """A second run in two spawned worker processes writes the same JSON and the same media bytes."""
    result = invoke(*ARGS, "--out", str(tmp_path), "--text", "--workers", "2", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary == {"data": str(tmp_path / DATA), "records": 4, "rendered": 4, "skipped": 0, "failed": {}}
    assert (tmp_path / DATA).read_bytes() == (first_run / DATA).read_bytes()
    texts = sorted(p.relative_to(tmp_path) for p in tmp_path.glob("img_text_outputs/*/text/*.txt"))
    assert len(texts) == 8
    assert all((tmp_path / p).read_bytes() == (first_run / p).read_bytes() for p in texts)
    other_seed = generate_records(GenerateOptions("prediction", ("one_step", "three_step_with_rotation"), 2, seed=8))
    assert other_seed != records_of(first_run)


def folder_bytes(out: Path) -> dict[str, bytes]:
    """Every file under a folder, hidden ones included (relative path -> bytes)."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_a_finished_folder_holds_only_the_dataset_and_same_seed_folders_are_identical(first_run, tmp_path):
    """No lock file or other run state is left in what users publish (issue 19 item 2): a second run
    with the same seed, into a folder a killed run left its lock file in, gives a byte-identical
    folder, file for file; `render`'s output holds only media and manifests."""
    expected = folder_bytes(first_run)
    top = {path.split("/")[0] for path in expected}
    assert top == {DATA, "paper_structure.png", "img_text_outputs", "manifest"}, top
    assert not [path for path in expected if any(part.startswith(".") for part in path.split("/"))]
    again = tmp_path / "again"
    again.mkdir()
    (again / LOCK_FILE).write_text("99999999")  # a killed run's lock file: unlocked, taken over, removed
    assert invoke(*ARGS, "--out", str(again), "--text", "--images", "--workers", "1").exit_code == 0
    assert folder_bytes(again) == expected
    rendered = tmp_path / "rendered"
    assert invoke("render", str(first_run / DATA), "--out", str(rendered), "--text", "--workers", "1").exit_code == 0
    assert {p.name for p in rendered.iterdir()} == {"paper_structure.png", "img_text_outputs", "manifest"}


def test_resume_renders_only_what_is_missing(first_run):
    records = records_of(first_run)
    request = MediaRequest.of(images=True, text=True)
    victim = first_run / "img_text_outputs" / "PFHP_3" / "img" / "PFHP_3_punching_holes.png"
    victim.unlink()
    report = render_items(records, first_run, request)
    assert report.rendered == ["PFHP_3"] and report.skipped == ["PFHP_1", "PFHP_2", "PFHP_4"] and not report.failed
    assert victim.is_file()
    again = render_items(records, first_run, MediaRequest.of(text=True))  # a subset of what is done
    assert again.rendered == [] and len(again.skipped) == 4


@pytest.mark.parametrize("args, option", [
    (["--task", "prediction", "--group", "seven_step"], "--group"),
    (["--task", "prediction", "--group", "one_step", "--count", "0"], "--count"),
    (["--task", "guessing", "--group", "one_step"], "--task"),
    (["--task", "planning", "--group", "two_step_with_rotation"], "--group"),
    (["--task", "prediction", "--group", "one_step", "--attribute", "size"], "--attribute"),
    (["--task", "prediction", "--group", "one_step", "--video", "--width", "321"], "--width"),
])
def test_bad_options_give_one_line_naming_the_option(args, option, tmp_path):
    result = invoke("generate", *args, "--out", str(tmp_path))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}:"), result.stderr
    assert not (tmp_path / DATA).exists()


def test_hole_draws_follow_the_reference_rules():
    """1-3 holes by visible positions (>8: up to 3, >4: up to 2, else 1), distinct, all on paper."""
    rng = np.random.default_rng(0)
    layers = np.zeros((3000, 32), dtype=np.int32)
    visible_counts = np.array([16, 9, 8, 5, 4, 2])[np.arange(3000) % 6]
    for row, n in enumerate(visible_counts):
        layers[row, rng.choice(32, n, replace=False)] = 2
    allowed = np.isin(SHAPES, ["star", "ellipse"])[None, :].repeat(3000, 0)
    holes = draw_holes(rng, layers, allowed, MAX_HOLES)
    counts = holes.used.sum(1)
    limit = hole_limit(visible_counts, MAX_HOLES)
    assert (counts >= 1).all() and (counts <= limit).all()
    for n in (16, 9, 8, 5, 4, 2):
        assert set(counts[visible_counts == n]) == set(range(1, hole_limit(np.array([n]), MAX_HOLES)[0] + 1))
    where = np.take_along_axis(layers, np.maximum(holes.location, 0), 1)
    assert (where[holes.used] > 0).all()
    sorted_locations = np.sort(np.where(holes.used, holes.location, -1 - np.arange(MAX_HOLES)), 1)
    assert (np.diff(sorted_locations, axis=1) != 0).all()
    assert set(np.asarray(SHAPES)[holes.shape[holes.used]]) == {"star", "ellipse"}
    assert set(holes.quarter[holes.used]) == {0, 1, 2, 3} and set(holes.size[holes.used]) == {0, 1}


def same_drawn_direction(a: dict, b: dict) -> bool:
    """Equal directions up to the coarser of the two shapes' symmetries (a shape change may
    rewrite 270 as "90, 270" or "")."""
    period = min(SHAPE_PERIOD[a["shape"]], SHAPE_PERIOD[b["shape"]])
    return direction_quarter(a["shape"], a["direction"]) % period == direction_quarter(b["shape"], b["direction"]) % period


def test_generalization_pairs_differ_in_exactly_one_attribute():
    records = generate_records(GenerateOptions("generalization", ("one_step", "three_step_with_rotation"), 4, seed=3))
    assert check_records(records).summary()["match"] == len(records) == 16
    by_id = {r["id"]: r for r in records}
    attributes = Counter()
    for item_id in [i for i in by_id if not i.endswith("_mod")]:
        original, modified = by_id[item_id], by_id[f"{item_id}_mod"]
        attribute = item_id.split("_")[2]
        attributes[attribute] += 1
        assert original["foldingTypes"] == modified["foldingTypes"]
        before, after = original["initialHoles"], modified["initialHoles"]
        assert len(before) == len(after)
        changed = [k for k in ("shape", "size", "location") if any(x[k] != y[k] for x, y in zip(before, after))]
        turned = not all(same_drawn_direction(x, y) for x, y in zip(before, after))
        assert changed + (["direction"] if turned else []) == [attribute], item_id
        key = lambda r: sorted(json.dumps(h, sort_keys=True) for h in r["resultHoles"])  # noqa: E731
        assert key(original) != key(modified), item_id
        if attribute in ("direction", "location"):
            assert sum(x != y for x, y in zip(before, after)) == 1
    assert attributes == {"shape": 2, "size": 2, "direction": 2, "location": 2}


def test_planning_items_have_two_punches_at_most_and_no_rotation():
    records = generate_records(GenerateOptions("planning", ("one_step", "two_step", "three_step", "four_step"), 4, seed=5))
    assert check_records(records).summary()["match"] == len(records) == 16
    for record in records:
        assert record["taskType"] == "Planning" and 1 <= len(record["initialHoles"]) <= 2
        assert all(f["foldToFront"] and not f["foldType"].startswith("rotation") for f in record["foldingTypes"])
        assert record["numberofSolutions"] >= 1  # the generating plan is one


def test_backward_items_fold_behind_and_may_use_every_shape():
    records = generate_records(GenerateOptions("backward", ("two_step_with_rotation", "four_step"), 8, seed=2))
    assert check_records(records).summary()["match"] == len(records)
    folds = [f for r in records for f in r["foldingTypes"] if not f["foldType"].startswith("rotation")]
    assert folds and not any(f["foldToFront"] for f in folds)
    assert all(code.endswith("-B") for r in records for code in r["unfoldingTypes"])
    shapes = {h["shape"] for r in records for h in r["initialHoles"]}
    assert {"square", "rectangle", "text"} & shapes
    rotated = [r for r in records if any(f["foldType"].startswith("rotation") for f in r["foldingTypes"])]
    assert rotated and not {"circle", "square"} & {h["shape"] for r in rotated for h in r["initialHoles"]}


def test_render_reports_unrealizable_items_and_renders_the_rest(generalization_file, tmp_path):
    result = invoke("render", str(generalization_file), "--out", str(tmp_path), "--text", "--workers", "1",
                    "--ids", "PFHP_31_direction,PFHP_803_shape", "--ids", "PFHP_0")
    assert result.exit_code == 1
    assert "media: 1 rendered, 0 already complete, 2 failed" in result.stdout
    errors = result.stderr.strip().splitlines()
    assert any(line.startswith("error: PFHP_31_direction:") and "not realizable" in line for line in errors)
    assert any(line.startswith("error: PFHP_0:") and "not in the file" in line for line in errors)
    assert (tmp_path / "img_text_outputs" / "PFHP_803_shape" / "text" / "PFHP_803_shape_textual_steps.txt").is_file()


def test_tiny_video_is_written_and_redone_when_its_options_change(first_run, tmp_path):
    [record] = [r for r in records_of(first_run) if r["id"] == "PFHP_1"]
    request = MediaRequest.of(video=True, width=64, height=48, fps=2)
    assert render_items([record], tmp_path, request).rendered == ["PFHP_1"]
    for field in ("foldingVideo", "unfoldingVideo", "resultImg"):
        assert (tmp_path / asset_fields("PFHP_1")[field]).stat().st_size > 0
    assert render_items([record], tmp_path, request).skipped == ["PFHP_1"]
    assert render_items([record], tmp_path, MediaRequest.of(video=True, width=64, height=48, fps=3)).rendered == ["PFHP_1"]
    assert render_items([record], tmp_path, MediaRequest.of(video=True, width=64, height=48, fps=3,
                                                            captions="codes")).rendered == ["PFHP_1"]


def test_without_a_group_count_is_the_total_spread_over_every_group_the_task_allows(tmp_path):
    from foldsim.dataset.generate import GenerateOptions, default_groups, generate_records
    from foldsim.rules import GROUPS

    runner = CliRunner()
    result = runner.invoke(app, ["generate", "--task", "prediction", "--count", "10", "--seed", "2", "--out",
                                 str(tmp_path)])
    assert result.exit_code == 0, result.output
    records = json.loads((tmp_path / "PFHP_Prediction_Data.json").read_text())
    assert len(records) == 10 and [r["id"] for r in records] == [f"PFHP_{n}" for n in range(1, 11)]
    # 10 over the 9 groups: the first takes two items, in the order of the rule set
    per_group = GenerateOptions("prediction", default_groups("prediction"), 1, total=10).group_counts()
    assert per_group == (2, 1, 1, 1, 1, 1, 1, 1, 1) and default_groups("prediction") == tuple(GROUPS)
    # the same items as naming the groups with those counts: group streams are independent
    first = generate_records(GenerateOptions("prediction", ("one_step",), 2, 2))
    assert [r["foldingTypes"] for r in records[:2]] == [r["foldingTypes"] for r in first]
    assert all(not GROUPS[g][1] for g in default_groups("planning"))
