"""`foldsim eval` (foldsim.eval.pipeline) from a dataset to a saved score report against a real
OpenAI-compatible server process, resuming and refusing to mix runs; `--dry-run`; and
`score_item`, the per-item metrics of reward functions, which never raises on any response."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from conftest import fuzz_settings
from cli_invoke import invoke
from foldsim.codes import code_of_entry
from foldsim.eval import score_item
from foldsim.eval.pipeline import image_tokens
from foldsim.eval.prompts import dataset_prompts
from foldsim.eval.requests import RequestOptions, chat_messages
from openai_stub_server import StubServer, message_key
from test_prompts import make_dataset

MODEL = "stub-model"



def keys_of(dataset: Path, task: str, modality: str, templates: Path | None = None) -> dict[str, str]:
    """item id -> the stub's key for the request `eval` sends for it."""
    _, items = dataset_prompts(dataset, task, modality, templates=templates)
    return {item.id: message_key(chat_messages(item.messages, RequestOptions(MODEL))) for item in items if not item.error}


def prediction_text(record: dict) -> str:
    return "Let me unfold.\n```json\n" + json.dumps({"totalNumberofHoles": len(record["resultHoles"]),
                                                    "unfoldingTypes": record["unfoldingTypes"],
                                                    "resultHoles": record["resultHoles"]}) + "\n```"


def plan_text(record: dict) -> str:
    """The record's own plan as a model following the schema writes it: numeric directions (the
    reference's replay cannot take the data's class strings such as "90, 270")."""
    holes = [dict(h, direction=int(str(h["direction"]).split(",")[0] or 0)) for h in record["initialHoles"]]
    plan = {"folds": [code_of_entry(e) for e in record["foldingTypes"]], "holes": holes}
    return "```json\n" + json.dumps(plan) + "\n```"


@pytest.fixture(scope="module")
def prediction(tmp_path_factory) -> Path:
    path, _ = make_dataset(tmp_path_factory.mktemp("eval-data"), "prediction")
    return path


def test_eval_from_dataset_to_report_and_resume(prediction, tmp_path):
    records = json.loads(prediction.read_text())
    keys = keys_of(prediction, "prediction", "images")
    script = {"answers": {keys[r["id"]]: prediction_text(r) for r in records}}
    out = tmp_path / "run"
    argv = ["eval", prediction, "--endpoint", None, "--model", MODEL, "--task", "prediction", "--modality", "images",
            "--out", out]
    with StubServer(script, tmp_path / "stub") as server:
        argv[3] = server.url
        first = invoke(*argv)
        assert first.exit_code == 0, first.output
        assert "2 of 2 items answered (2 now, 0 before)" in first.stdout and "score report:" in first.stdout
        report = json.loads((out / "score.json").read_text())
        assert report["metrics"]["exact_match"] == 1.0 and report["model"] == MODEL
        assert len(report["items"]) == 2 and report["run"]["answered_now"] == 2
        settings = json.loads((out / "eval.json").read_text())
        assert settings["model"] == MODEL and settings["task"] == "prediction" and settings["modality"] == "images"
        again = invoke(*argv, "--json")
        assert again.exit_code == 0
        assert len(server.log()) == 2  # resumed: nothing asked twice
        assert json.loads(again.stdout)["score"]["metrics"]["exact_match"] == 1.0
        other = invoke(*[a if a != MODEL else "another-model" for a in argv])
        assert other.exit_code == 2
        assert other.stderr.strip() == (f"error: {out}: holds the answers of another run (model: '{MODEL}' there, "
                                        "'another-model' now); give another --out to start a new run")
        assert len(server.log()) == 2


def test_a_missing_item_is_reported_and_scored_as_missing(prediction, tmp_path):
    """An item whose media are missing is an error line and exit 1; the others are asked and the
    report still covers every truth item (the missing one scores zero)."""
    import shutil

    root = tmp_path / "data"
    shutil.copytree(prediction.parent, root)
    records = json.loads(prediction.read_text())
    gone = root / f"img_text_outputs/{records[0]['id']}/img/{records[0]['id']}_fold_0_initial.png"
    gone.unlink()
    dataset = root / prediction.name
    keys = keys_of(dataset, "prediction", "images")
    with StubServer({"answers": {keys[r["id"]]: prediction_text(r) for r in records if r["id"] in keys}},
                    tmp_path / "stub") as server:
        result = invoke("eval", dataset, "--endpoint", server.url, "--model", MODEL, "--task", "prediction",
                        "--modality", "images", "--out", tmp_path / "run")
    assert result.exit_code == 1
    assert f"error: {dataset}: {records[0]['id']}: steps: missing media file" in result.stderr
    report = json.loads((tmp_path / "run" / "score.json").read_text())
    assert report["metrics"]["exact_match"] == 0.5 and report["counts"]["answers_missing"] == 1


def test_dry_run_counts_and_sends_nothing(prediction, tmp_path):
    result = invoke("eval", prediction.parent, "--task", "prediction", "--modality", "images", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    _, items = dataset_prompts(prediction, "prediction", "images")
    items = list(items)
    media = [p for item in items for p in item.media]
    text = sum(len(p.text) for item in items for m in item.messages for p in m.parts if not p.is_media)
    expected_images = 0
    for part in media:
        width, height = Image.open(part.path).size
        expected_images += image_tokens(width, height)
    assert stats["requests"] == 2 and stats["images"] == len(media) and stats["videos"] == 0
    assert stats["estimated_input_tokens"] == math.ceil(text / 4) + expected_images
    refused = invoke("eval", prediction, "--task", "prediction", "--modality", "images", "--model", MODEL)
    assert refused.exit_code == 2
    assert refused.stderr.strip() == "error: --endpoint: required (only --dry-run runs without it)"
    # OpenAI's worked example: 2048 x 4096 -> 1024 x 2048 -> 768 x 1536 -> 2 x 3 tiles
    assert image_tokens(2048, 4096) == 85 + 170 * 6 and image_tokens(600, 600) == 85 + 170 * 4
    assert image_tokens(4096, 1024, "low") == 85


def test_eval_of_the_published_planning_file_in_both_modes(planning_file, tmp_path):
    """The runner's rows of perfect plans (the file's own) score every plan with at most two
    punches exact, by default and in --compat mentalblackboard."""
    records = json.loads(planning_file.read_text())[:8]
    dataset = tmp_path / "planning.json"
    dataset.write_text(json.dumps(records))
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "planning.text.txt").write_text("Holes:\n{{result_holes}}\nExactly {{num_folds}} folds.\n")
    keys = keys_of(dataset, "planning", "text", templates)
    expected = sum(len(r["initialHoles"]) <= 2 for r in records)
    with StubServer({"answers": {keys[r["id"]]: plan_text(r) for r in records}}, tmp_path / "stub") as server:
        for compat, out in ((None, tmp_path / "default"), ("mentalblackboard", tmp_path / "compat")):
            argv = ["eval", dataset, "--endpoint", server.url, "--model", MODEL, "--task", "planning", "--modality",
                    "text", "--out", out, "--templates", templates, "--concurrency", "4"]
            result = invoke(*argv, *(["--compat", compat] if compat else []))
            assert result.exit_code == 0, result.output
            report = json.loads((out / "score.json").read_text())
            assert report["counts"]["exact"] == expected, (compat, report["counts"])


def test_eval_of_a_choice_task_scores_it_with_the_choice_scorer(tmp_path):
    """`eval` takes the multiple-choice tasks too: the stub answers every item with its right label
    ("**C**"-style prose), and the saved report is the choice scorer's, with the chance level."""
    data = tmp_path / "data"
    generated = invoke("generate", "--task", "choice", "--group", "one_step", "--group", "two_step", "--count", "2",
                       "--seed", "4", "--out", data, "--text")
    assert generated.exit_code == 0, generated.output
    dataset = data / "PFHP_Choice_Data.json"
    records = json.loads(dataset.read_text())
    keys = keys_of(dataset, "choice", "text")
    with StubServer({"answers": {keys[r["id"]]: f"The sheet is option **{r['answer']}**." for r in records}},
                    tmp_path / "stub") as server:
        result = invoke("eval", dataset, "--endpoint", server.url, "--model", MODEL, "--task", "choice", "--modality",
                        "text", "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "run" / "score.json").read_text())
    assert report["metrics"]["accuracy"] == 1.0 and report["metrics"]["chance"] == pytest.approx(1 / 5)
    assert score_item("choice", records[0], f"Answer: {records[0]['answer']}")["correct"] == 1.0


# --------------------------------------------------------------------------------------------------
# score_item


def test_score_item_perfect_and_wrong(planning_file):
    record = json.loads(planning_file.read_text())[0]
    perfect = score_item("prediction", record, prediction_text(record))
    assert perfect["exact_match"] == perfect["partial"] == perfect["unfolding_exact"] == perfect["answer_parsed"] == 1.0
    assert perfect["extra_rate"] == perfect["missing_rate"] == 0.0
    assert set(perfect) >= {"field_shape", "field_location_shape_direction", "unfolding_steps"}
    half = dict(record, resultHoles=record["resultHoles"][: len(record["resultHoles"]) // 2])
    partial = score_item("prediction", record, prediction_text(half))
    assert partial["exact_match"] == 0.0 and partial["partial"] == 0.5 and partial["missing_rate"] == 1.0
    planned = score_item("planning", record, plan_text(record))
    assert planned["exact_match"] == 1.0 and planned["valid_plan_rate"] == 1.0
    chat = score_item("prediction", record, [{"role": "user", "content": "q"},
                                             {"role": "assistant", "content": prediction_text(record)}])
    assert chat == perfect
    for nothing in (None, "", "no json here", "{", 17):
        empty = score_item("prediction", record, nothing)
        assert empty["exact_match"] == 0.0 and empty["answer_parsed"] == 0.0
        assert all(isinstance(v, float) for v in empty.values())


ANSWERISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True), st.text(max_size=20),
              st.sampled_from(["star", "large", "H1-F", "0, 180", "", "[2,1,1]"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(
        st.sampled_from(["resultHoles", "unfoldingTypes", "totalNumberofHoles", "shape", "size", "direction",
                         "location", "folds", "holes"]), inner, max_size=5)),
    max_leaves=12)


@pytest.mark.fuzz
@fuzz_settings(0.03)
@given(payload=ANSWERISH, prose=st.text(max_size=40), fence=st.booleans())
def test_score_item_never_raises(planning_file, payload, prose, fence):
    record = json.loads(planning_file.read_text())[0]
    body = json.dumps(payload, default=str) if not isinstance(payload, str) else payload
    text = f"{prose}\n```json\n{body}\n```" if fence else f"{prose}{body}"
    scores = score_item("prediction", record, text)
    assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in scores.values())
