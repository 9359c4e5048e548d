"""The choice tasks end to end (issue 9): `foldsim generate --task choice|split|plan-choice`, the
records' options and answers against independent re-simulation, determinism, the uniform position
of the answer, redraws instead of padding, and the media (no answer in a picture or a file name)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from foldsim import Config, simulate
from foldsim.cli import app
from foldsim.codes import code_of_entry
from foldsim.dataset.choice import ChoiceSpec
from foldsim.dataset.distractors import CHOICE_MODELS, PLAN_MODELS
from foldsim.dataset.generate import GenerateOptions, generate_records
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.holes import parse_holes
from foldsim.reference import simulate_reference
from foldsim.render.choice import record_media, render_choice_media
from foldsim.render.text import grid_chars, grid_text
from foldsim.rules import GROUPS as GROUP_NAMES

runner = CliRunner()
GROUPS = ["--group", "one_step", "--group", "three_step_with_rotation", "--group", "four_step"]
PLAN_GROUPS = ["--group", "one_step", "--group", "two_step", "--group", "three_step"]
FILES = {"choice": "PFHP_Choice_Data.json", "split": "PFHP_Split_Data.json", "plan-choice": "PFHP_PlanChoice_Data.json"}


def generate(out: Path, task: str, *extra: str, seed: int = 3, count: int = 5) -> list[dict]:
    groups = PLAN_GROUPS if task == "plan-choice" else GROUPS
    result = runner.invoke(app, ["generate", "--task", task, *groups, "--count", str(count), "--seed", str(seed),
                                 "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return json.loads((out / FILES[task]).read_text())


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> dict[str, tuple[Path, list[dict]]]:
    out = {}
    for task in FILES:
        folder = tmp_path_factory.mktemp(task)
        out[task] = folder, generate(folder, task)
    return out


def multiset(holes) -> Counter:
    return Counter(h.key for h in parse_holes(holes, "holes"))


def config_of(record: dict) -> Config:
    return Config.from_record(record)


def test_choice_options_are_the_answer_and_k_minus_one_named_mistakes(datasets):
    _, records = datasets["choice"]
    assert [r["id"] for r in records] == [f"PFHP_{n}" for n in range(1, 16)]
    for record in records:
        config = config_of(record)
        truth = simulate_reference(config.actions, config.holes)  # independent of the kernel
        assert truth.status == "ok"
        options = record["options"]
        assert [o["label"] for o in options] == list("ABCDE") and record["numberofOptions"] == 5
        [right] = [o for o in options if o["error"] is None]
        assert right["label"] == record["answer"]
        assert multiset(right["resultHoles"]) == Counter(h.key for h in truth.holes) == multiset(record["resultHoles"])
        assert len({frozenset(multiset(o["resultHoles"]).items()) for o in options}) == 5  # pairwise distinct
        for option in options:
            if option["error"] is not None:
                assert option["error"] in CHOICE_MODELS and isinstance(option["errorDetail"], dict)
                assert option["resultHoles"] and option["sharedHoles"] == sum(
                    (multiset(option["resultHoles"]) & multiset(right["resultHoles"])).values())
        assert isinstance(record["level"], int)


def test_every_error_configuration_replays_to_its_option(datasets):
    _, records = datasets["choice"]
    pairs = [(o["resultHoles"], Config.from_record(o["errorConfig"])) for r in records for o in r["options"]
             if "errorConfig" in o]
    assert len(pairs) > 20
    for holes, result in zip((h for h, _ in pairs), simulate([c for _, c in pairs])):
        assert result.ok and Counter(h.key for h in result.holes) == multiset(holes)


def test_same_seed_same_bytes_other_seed_other_items(datasets, tmp_path):
    folder, records = datasets["choice"]
    again = generate(tmp_path / "again", "choice")
    assert (tmp_path / "again" / FILES["choice"]).read_bytes() == (folder / FILES["choice"]).read_bytes()
    other = generate(tmp_path / "other", "choice", seed=4)
    assert other != again


def test_choice_items_are_the_prediction_items_of_the_seed_unless_redrawn(datasets, tmp_path):
    """Items are drawn as `--task prediction` draws them: most first draws need no redraw."""
    _, records = datasets["choice"]
    result = runner.invoke(app, ["generate", "--task", "prediction", *GROUPS, "--count", "5", "--seed", "3",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    prediction = json.loads((tmp_path / "PFHP_Prediction_Data.json").read_text())
    same = sum(p["foldingTypes"] == c["foldingTypes"] and p["initialHoles"] == c["initialHoles"]
               for p, c in zip(prediction, records))
    assert same >= len(records) - 2


def test_the_answer_position_is_uniform_with_the_seed():
    records = generate_records(GenerateOptions("choice", tuple(GROUP_NAMES), 8, 9, choice=ChoiceSpec()))
    positions = Counter(r["answer"] for r in records)
    assert set(positions) == set("ABCDE")
    expected = len(records) / 5  # 72 items: 14.4 each; chi-square with 4 degrees of freedom, p > 0.001
    assert sum((n - expected) ** 2 / expected for n in positions.values()) < 18.47, positions


def test_eight_options_are_redrawn_never_padded_and_impossible_asks_fail_cleanly(tmp_path):
    records = generate(tmp_path / "k8", "choice", "--options", "8", count=3)
    for record in records:
        assert len({frozenset(multiset(o["resultHoles"]).items()) for o in record["options"]}) == 8
    result = runner.invoke(app, ["generate", "--task", "choice", "--group", "one_step", "--count", "2", "--out",
                                 str(tmp_path / "bad"), "--options", "8", "--distractors", "pattern_turned"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --options: group one_step:") and "\n" == result.stderr[-1:]
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--options", "2"], "--options: must be an integer from 3 to 8"),
    (["--distractors", "wrong_crease,nonsense"], "--distractors: unknown error model 'nonsense'"),
    (["--similarity", "medium"], "--similarity: unknown similarity 'medium'"),
    (["--cues", "none,sometimes"], "--cues: unknown cue condition 'sometimes'"),
])
def test_bad_choice_options_are_one_line_usage_errors(tmp_path, args, message):
    result = runner.invoke(app, ["generate", "--task", "choice", "--group", "one_step", "--out", str(tmp_path), *args])
    assert result.exit_code == 2 and result.stderr == f"error: {message}" + result.stderr.split(message, 1)[1]
    assert result.stderr.count("\n") == 1


def test_distractors_come_only_from_the_named_models(tmp_path):
    records = generate(tmp_path, "choice", "--distractors", "missing_layer,extra_layer,pattern_reflected",
                       "--options", "4", count=3)
    models = Counter(o["error"] for r in records for o in r["options"] if o["error"])
    assert set(models) <= {"missing_layer", "extra_layer", "pattern_reflected"} and len(models) == 3


def test_hard_similarity_shares_more_holes_than_easy(tmp_path):
    shared = {}
    for similarity in ("hard", "easy"):
        records = generate(tmp_path / similarity, "choice", "--similarity", similarity)
        shared[similarity] = np.mean([o["sharedHoles"] for r in records for o in r["options"] if o["error"]])
    assert shared["hard"] > shared["easy"]


def test_split_rows_are_the_choice_options_as_yes_no_questions(datasets):
    _, choice = datasets["choice"]
    _, rows = datasets["split"]
    assert len(rows) == 5 * len(choice)
    by_item: dict[str, list[dict]] = {}
    for row in rows:
        by_item.setdefault(row["item"], []).append(row)
    for record in choice:  # same seed, same spec: the same items and options
        item_rows = by_item[record["id"]]
        assert [r["option"] for r in item_rows] == list("ABCDE")
        assert [r["id"] for r in item_rows] == [f"{record['id']}_{label}" for label in "ABCDE"]
        assert [r["answer"] for r in item_rows].count("yes") == 1
        for row, option in zip(item_rows, record["options"]):
            assert row["optionHoles"] == option["resultHoles"] and row["error"] == option["error"]
            assert (row["answer"] == "yes") == (option["label"] == record["answer"])
            assert row["resultHoles"] == record["resultHoles"] and row["foldingTypes"] == record["foldingTypes"]


def test_plan_choice_options_are_realizable_sequences_and_the_solver_marks_the_right_ones(datasets):
    _, records = datasets["plan-choice"]
    for record in records:
        target = multiset(record["resultHoles"])
        generating = config_of(record)
        assert Counter(h.key for h in simulate_reference(generating.actions, generating.holes).holes) == target
        codes = [tuple(code_of_entry(e) for e in o["foldingTypes"]) for o in record["options"]]
        assert len(set(codes)) == len(codes) == 5
        assert all(c[-1] == "F" for seq in codes for c in seq) and all(len(seq) == len(generating.actions) for seq in codes)
        assert all(r.ok for r in simulate([Config.from_codes(seq) for seq in codes]))  # realizable
        assert record["answer"] == [o["label"] for o in record["options"] if o["producesTarget"]]
        [mine] = [o for o in record["options"] if o["error"] is None]
        assert mine["producesTarget"] and codes[ord(mine["label"]) - 65] == generating.actions
        for option, seq in zip(record["options"], codes):
            if option["error"] is not None:
                assert option["error"] in PLAN_MODELS
            replay = simulate([Config(seq, generating.holes)])[0]  # with the generating punches
            if replay.ok and Counter(h.key for h in replay.holes) == target:
                assert option["producesTarget"]  # a sequence the item's own punches solve is right
        assert record["numberofSolutions"] >= len(record["answer"])


def test_media_show_no_answer_and_name_options_by_label_only(datasets):
    folder, records = datasets["choice"]
    record = records[7]
    files = render_choice_media(record, folder, ("images", "text"), sheet=SHEET)
    names = [f.relative_to(folder).as_posix() for f in files]
    assert not any(model in name for name in names for model in CHOICE_MODELS)
    assert not any("result" in name for name in names)  # no result image, no final-result grid
    media = record_media(record)  # the file was written without images: it names none
    for label, path in zip("ABCDE", media["optionImgs"], strict=True):
        assert path == f"choice_options/{record['id']}/{record['id']}_option_{label}.png" and path in names
    images = [np.asarray(Image.open(folder / p)) for p in media["optionImgs"]]
    assert len({i.tobytes() for i in images}) == 5 and len({i.shape for i in images}) == 1  # one style, 5 drawings
    question = Image.open(folder / media["questionImg"])
    assert question.width > 5 * 200 and question.height > 2 * 200
    text = (folder / f"img_text_outputs/{record['id']}/text/{record['id']}_textual_options.txt").read_text()
    for option in record["options"]:
        grid = grid_text(grid_chars(np.ones(32, bool), parse_holes(option["resultHoles"], "h")), sheet=SHEET)
        assert f"Option {option['label']}:\n{grid}" in text


def test_split_and_plan_choice_media(datasets):
    folder, rows = datasets["split"]
    files = render_choice_media(rows[3], folder, ("images", "text"), sheet=SHEET)
    media = record_media(rows[3])
    assert (folder / media["questionImg"]).is_file() and (folder / media["optionImg"]).is_file()
    assert media["optionImg"].endswith(f"_option_{rows[3]['option']}.png")
    folder, records = datasets["plan-choice"]
    files = render_choice_media(records[0], folder, ("images", "text"), sheet=SHEET)
    names = {f.relative_to(folder).as_posix() for f in files}
    media = record_media(records[0])
    assert {media["questionImg"], media["targetImg"], *media["optionImgs"]} <= names
    assert not any(f"img_text_outputs/{records[0]['id']}/img" in n for n in names)  # no steps: they are the answer


@pytest.mark.parametrize("task", list(FILES))
def test_prompt_templates_show_the_question_and_no_answer(datasets, task):
    """The built-in templates of every choice task and modality build for every item, and no
    message names an error model, a cue kind or the answer fields."""
    from foldsim.eval.prompts import Templates, dataset_prompts
    from foldsim.dataset.media import write_sheet

    from foldsim.dataset.choice import with_media

    folder, records = datasets[task]
    write_sheet(folder)
    for record in records[:2]:
        render_choice_media(record, folder, ("images", "text"), sheet=SHEET)
    records = [with_media(r, record_media(r)) for r in records[:2]]  # as a file lists them once drawn
    subset = folder / f"subset-{FILES[task]}"
    subset.write_text(json.dumps(records))
    modalities = Templates().modalities(task)
    assert {"text", "images"} <= set(modalities)
    for modality in set(modalities) - {"video"}:
        _, items = dataset_prompts(subset, task, modality)
        items = list(items)
        assert len(items) == len(records) and all(i.error is None for i in items), [i.error for i in items]
        for item, record in zip(items, records):
            text = "\n".join(p.text for m in item.messages for p in m.parts if not p.is_media)
            assert "Answer: <" in text and "{{" not in text
            assert not any(word in text for word in (*CHOICE_MODELS, *PLAN_MODELS, "counterfactual", "impliedAnswer"))
            if modality == "text":
                assert (record.get("optionText") or record["optionsText"]) in text
            else:
                assert [p.source for m in item.messages for p in m.parts if p.is_media] == ["paper_structure.png", record["questionImg"]]
