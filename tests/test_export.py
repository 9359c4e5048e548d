"""`foldsim export`: a freshly generated prediction set, in every modality, loads in `datasets` with
the declared features (images as PIL), in pandas as a VLMEvalKit TSV (images decode, the class
interleaves them and scores with foldsim), and through the lmms-eval task's utils.py, with perfect
scores for the ground-truth answers and no crash on broken ones. Media the prompt needs are
rendered first (this set is generated without 2-D images).

Fast checks of the exported files for issue 20 (the real harnesses run in `make test-harness`):
what both harnesses hand a model is exactly the message `foldsim eval` builds (interleaved, no
marks, no glued sentences), VLMEvalKit forces the dataset's prompt, both evaluate only the test
split, the lmms-eval task names no path (a moved export loads), video is refused for VLMEvalKit,
no README of the user's is overwritten and the card says what the Hub expects."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from PIL import Image

from foldsim import rewards as R
from foldsim.cli import main
from foldsim.outputs.export import hf_features
from foldsim.eval.item import score_item
from foldsim.eval.prompts import load_prompt
from foldsim.io import read_records

MODALITIES = ("text", "images", "frames", "video")


def run(*args: str, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """Two one-fold prediction items in two splits, with video, frames and text grids (no 2-D images)."""
    out = tmp_path_factory.mktemp("dataset")
    with pytest.raises(SystemExit) as exit_info:
        main(["generate", "--task", "prediction", "--group", "one_step", "--count", "2", "--seed", "2",
              "--splits", "train=0.5,test=0.5", "--video", "--frames", "--text", "--width", "160", "--height", "120",
              "--workers", "1", "--out", str(out)])
    assert exit_info.value.code == 0
    assert not (out / "img_text_outputs" / "PFHP_1" / "img").exists()
    return out


@pytest.fixture(scope="module")
def hf_export(dataset, tmp_path_factory) -> Path:
    """Every modality exported into one folder (one config each)."""
    out = tmp_path_factory.mktemp("hf")
    for modality in MODALITIES:
        with pytest.raises(SystemExit) as exit_info:
            main(["export", str(dataset), "--format", "hf", "--task", "prediction", "--modality", modality,
                  "--out", str(out), "--json"])
        assert exit_info.value.code == 0
    return out


def test_missing_media_are_rendered_first(dataset, tmp_path, capsys):
    code, out, _ = run("export", str(dataset / "PFHP_Prediction_Data.json"), "--format", "hf", "--task", "prediction",
                       "--modality", "images", "--out", str(tmp_path), "--json", "--workers", "1", capsys=capsys)
    summary = json.loads(out)
    assert code == 0 and summary["items"] == 2 and summary["splits"] == {"train": 1, "test": 1}
    assert summary["rendered"] == 2  # the first test of the module: the images did not exist
    assert (dataset / "img_text_outputs" / "PFHP_1" / "img").is_dir()


def test_hf_export_loads_with_typed_columns_and_perfect_ground_truth(dataset, hf_export):
    from datasets import load_dataset

    out = hf_export
    card = yaml.safe_load((out / "README.md").read_text().split("---\n")[1])
    assert sorted(c["config_name"] for c in card["configs"]) == sorted(f"prediction_{m}" for m in MODALITIES)
    records = {r["id"]: r for r in read_records(dataset / "PFHP_Prediction_Data.json")}
    for modality in MODALITIES:
        loaded = load_dataset(str(out), f"prediction_{modality}")
        assert set(loaded) == {"train", "test"}
        for split, rows in loaded.items():
            assert rows.features == hf_features()
            for row in rows:
                record = records[row["id"]]
                assert row["split"] == split == record["split"] and row["level"] == record["level"]
                assert row["task"] == "prediction" and row["modality"] == modality and row["group"] == "one_step"
                assert json.loads(row["record"]) == record
                assert all(isinstance(image, Image.Image) for image in row["images"])
                assert row["question"].count("<image") == len(row["images"])
                if modality == "video":
                    assert row["video"] and (out / row["video"]).stat().st_size > 0 and "<video>" in row["question"]
                else:
                    assert row["video"] is None
                if modality == "frames":
                    assert len(row["images"]) > 5
                metrics = score_item(row["scorer"], json.loads(row["record"]), row["answer"])
                assert metrics["exact_match"] == metrics["partial"] == metrics["unfolding_exact"] == 1.0
            # the columns go straight into the TRL rewards (a `datasets` Column is a sequence)
            assert R.prediction_exact(completions=rows["answer"], record=rows["record"], task=rows["task"],
                                      modality=rows["modality"]) == [1.0] * len(rows)


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vlmevalkit_tsv_reads_in_pandas_and_its_class_scores_with_foldsim(dataset, tmp_path, capsys):
    out = tmp_path / "vlm"
    code, stdout, _ = run("export", str(dataset), "--format", "vlmevalkit", "--task", "prediction",
                          "--modality", "frames", "--out", str(out), "--json", capsys=capsys)
    assert code == 0
    tsv = out / "Foldsim_Prediction_Frames.tsv"
    frame = pd.read_csv(tsv, sep="\t")
    assert list(frame.columns[:3]) == ["index", "image", "image_path"]
    assert {"question", "answer", "category", "l2-category", "split"} <= set(frame.columns)
    assert list(frame["index"]) == [0] and set(frame["split"]) == {"test"}  # the evaluated split only
    assert json.loads(stdout)["evaluated"] == "test" and json.loads(stdout)["left_out"] == {"train": 1}
    for cell in frame["image"]:
        images = [Image.open(io.BytesIO(base64.b64decode(b))) for b in eval(cell)]  # a Python-list literal
        assert len(images) > 5 and all(i.size[0] > 0 for i in images)
    module = load_module(out / "foldsim_prediction_frames.py", "foldsim_prediction_frames")
    data = module.FoldsimPredictionFrames(root=str(out))
    parts = data.build_prompt(0)
    kinds = [p["type"] for p in parts]
    assert kinds.count("image") == len(eval(frame["image"][0])) and kinds.count("text") >= 2
    assert kinds.index("image") > 0 and all(Path(p["value"]).is_file() for p in parts if p["type"] == "image")
    predictions = frame.assign(prediction=frame["answer"])  # VLMEvalKit's prediction file (PRED_FORMAT=tsv)
    predictions.to_csv(out / "model_Foldsim_Prediction_Frames.tsv", sep="\t", index=False)
    scores = data.evaluate(str(out / "model_Foldsim_Prediction_Frames.tsv"))
    assert scores["exact_match"][0] == 1.0 and scores["unfolding_exact"][0] == 1.0
    assert json.loads((out / "model_Foldsim_Prediction_Frames_score.json").read_text())["counts"]["exact"] == 1
    broken = frame.assign(prediction=["I cannot tell"])
    broken.to_csv(out / "broken.tsv", sep="\t", index=False)
    assert data.evaluate(str(out / "broken.tsv"))["exact_match"][0] == 0.0


class _Loader(yaml.SafeLoader):
    """Reads lmms-eval YAML: `!function utils.name` becomes the string "utils.name"."""


_Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def data_files(task: dict, utils) -> dict:
    """The task's data_files as lmms-eval resolves them: `!function utils.NAME` is utils.py's NAME."""
    name = task["dataset_kwargs"]["data_files"]
    assert name.startswith("utils.")
    return getattr(utils, name.removeprefix("utils."))


def test_lmms_eval_task_folder_loads_and_scores(dataset, tmp_path, capsys):
    from datasets import load_dataset

    out = tmp_path / "lmms"
    code, _, _ = run("export", str(dataset), "--format", "lmms-eval", "--task", "prediction", "--modality", "video",
                     "--out", str(out), capsys=capsys)
    assert code == 0
    task = yaml.load((out / "lmms_eval" / "foldsim_prediction_video.yaml").read_text(), Loader=_Loader)
    assert task["task"] == "foldsim_prediction_video" and task["dataset_path"] == "parquet"
    assert task["process_results"] == "utils.foldsim_process_results" and task["test_split"] == "test"
    utils = load_module(out / "lmms_eval" / "utils.py", "foldsim_lmms_utils")
    docs = load_dataset("parquet", data_files=data_files(task, utils))  # as lmms-eval loads it
    metrics = [m["metric"] for m in task["metric_list"]]
    assert all(m["aggregation"] == "mean" for m in task["metric_list"])
    for split in docs:
        for doc in docs[split]:
            visuals = utils.foldsim_doc_to_visual(doc)
            assert visuals and all(Path(v).is_file() if isinstance(v, str) else isinstance(v, Image.Image) for v in visuals)
            text = utils.foldsim_doc_to_text(doc)
            assert "<video>" not in text and "<image" not in text and "resultHoles" in text
            perfect = utils.foldsim_process_results(doc, [doc["answer"]])
            assert sorted(perfect) == sorted(metrics)
            assert perfect["exact_match"] == perfect["partial"] == 1.0 and perfect["missing_rate"] == 0.0
            for broken in (["no idea"], [""], [], ["{\"resultHoles\": [{\"shape\": 7}]"]):
                scores = utils.foldsim_process_results(doc, broken)
                assert sorted(scores) == sorted(metrics) and scores["exact_match"] == 0.0


def test_planning_answers_are_plans_the_verifier_accepts(planning_file, tmp_path, capsys):
    """The `answer` of a planning item is its generating plan; every one scores exact."""
    folder = tmp_path / "planning"
    folder.mkdir()
    records = [r for r in read_records(planning_file) if len(r["initialHoles"]) <= 2][:3]
    (folder / "PFHP_Planning_Data.json").write_text(json.dumps(records))
    code, stdout, _ = run("export", str(folder), "--format", "hf", "--task", "planning", "--modality", "text",
                          "--out", str(tmp_path / "out"), "--json", "--workers", "1", capsys=capsys)
    assert code == 0 and json.loads(stdout)["splits"] == {"test": 3}
    from datasets import load_dataset

    for row in load_dataset(str(tmp_path / "out"), "planning_text")["test"]:
        assert set(json.loads(row["answer"])) == {"folds", "holes"}
        assert score_item("planning", json.loads(row["record"]), row["answer"])["exact_match"] == 1.0


def test_bad_options_and_bad_items(dataset, tmp_path, capsys):
    code, _, err = run("export", str(dataset), "--format", "csv", "--task", "prediction", "--modality", "images",
                       "--out", str(tmp_path), capsys=capsys)
    assert code == 2 and err.strip() == "error: --format: unknown format 'csv' (expected one of hf, vlmevalkit, lmms-eval)"
    code, _, err = run("export", str(tmp_path / "nothing.json"), "--format", "hf", "--task", "prediction",
                       "--modality", "images", "--out", str(tmp_path), capsys=capsys)
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    broken = tmp_path / "broken"
    shutil.copytree(dataset, broken)
    records = read_records(broken / "PFHP_Prediction_Data.json")
    records[1]["foldingTypes"] = [{"foldType": "sideways"}]
    (broken / "PFHP_Prediction_Data.json").write_text(json.dumps(records))
    code, out, err = run("export", str(broken), "--format", "hf", "--task", "prediction", "--modality", "text",
                         "--out", str(tmp_path / "out"), capsys=capsys)
    assert code == 1 and out.startswith("exported 1 items")
    assert err.strip().startswith("error: PFHP_2: ") and len(err.strip().splitlines()) == 1


def test_choice_items_get_option_columns_and_the_choice_scorer(tmp_path, capsys):
    data = tmp_path / "choice"
    with pytest.raises(SystemExit):
        main(["generate", "--task", "choice", "--group", "two_step", "--count", "2", "--seed", "1", "--out", str(data)])
    capsys.readouterr()
    code, _, _ = run("export", str(data), "--format", "vlmevalkit", "--task", "choice", "--modality", "text",
                     "--out", str(tmp_path / "vlm"), "--workers", "1", capsys=capsys)
    assert code == 0
    frame = pd.read_csv(tmp_path / "vlm" / "Foldsim_Choice_Text.tsv", sep="\t", keep_default_na=False)
    assert {"A", "B", "C", "D", "E"} <= set(frame.columns) and set(frame["answer"]) <= set("ABCDE")
    module = load_module(tmp_path / "vlm" / "foldsim_choice_text.py", "foldsim_choice_text")
    frame.assign(prediction=[f"Answer: {a}" for a in frame["answer"]]).to_csv(tmp_path / "p.tsv", sep="\t", index=False)
    data_class = module.FoldsimChoiceText(root=str(tmp_path / "vlm"))
    assert data_class.build_prompt(0)[0]["type"] == "text"
    assert data_class.evaluate(str(tmp_path / "p.tsv"))["accuracy"][0] == 1.0
    code, _, _ = run("export", str(data), "--format", "lmms-eval", "--task", "choice", "--modality", "text",
                     "--out", str(tmp_path / "lmms"), capsys=capsys)
    utils = load_module(tmp_path / "lmms" / "lmms_eval" / "utils.py", "foldsim_choice_utils")
    task = yaml.load((tmp_path / "lmms" / "lmms_eval" / "foldsim_choice_text.yaml").read_text(), Loader=_Loader)
    from datasets import load_dataset

    for doc in load_dataset("parquet", data_files=data_files(task, utils))["test"]:
        assert utils.foldsim_process_results(doc, [f"Answer: {doc['answer']}"])["correct"] == 1.0
        assert utils.foldsim_process_results(doc, [None])["correct"] == 0.0


# -- issue 20: what reaches the model, splits, paths, video, READMEs, the card ---------------------------


def sent_parts(dataset: Path, modality: str, record_id: str) -> list[tuple[str, object]]:
    """The user message `foldsim eval` sends for an item: ("text", text) / ("image", pixels) /
    ("video", file name), in order."""
    records = {r["id"]: r for r in read_records(dataset / "PFHP_Prediction_Data.json")}
    [message] = [m for m in load_prompt("prediction", modality).messages(records[record_id], dataset_dir=dataset)
                 if m.role == "user"]
    return [("text", p.text) if p.kind == "text" else
            ("image", Image.open(p.path).convert("RGB").tobytes()) if p.kind == "image" else ("video", p.path.name)
            for p in message.parts]


def test_vlmevalkit_class_forces_the_interleaved_prompt_foldsim_eval_sends(dataset, tmp_path, capsys):
    """VLMEvalKit asks a model for its own prompt unless the dataset forces its own
    (`force_use_dataset_prompt`); the class's prompt is foldsim eval's message, part for part."""
    code, _, _ = run("export", str(dataset), "--format", "vlmevalkit", "--task", "prediction", "--modality",
                     "images", "--out", str(tmp_path / "vlm"), capsys=capsys)
    assert code == 0
    module = load_module(tmp_path / "vlm" / "foldsim_prediction_images.py", "foldsim_prediction_images_force")
    data = module.FoldsimPredictionImages(root=str(tmp_path / "vlm"))
    assert module.FoldsimPredictionImages.force_use_dataset_prompt is True
    [record_id] = list(data.data["id"])
    got = [("text", p["value"]) if p["type"] == "text" else ("image", Image.open(p["value"]).convert("RGB").tobytes())
           for p in data.build_prompt(0)]
    want = sent_parts(dataset, "images", record_id)
    assert [k for k, _ in got] == [k for k, _ in want] and got == want
    assert sum(k == "image" for k, _ in got) >= 2 and got[0][0] == "text"  # interleaved, not images first
    assert not any("<image" in v for k, v in got if k == "text")


def test_lmms_eval_messages_interleave_as_foldsim_eval_and_text_is_not_glued(dataset, tmp_path, capsys):
    from datasets import load_dataset

    for modality in ("images", "video"):
        out = tmp_path / modality
        code, _, _ = run("export", str(dataset), "--format", "lmms-eval", "--task", "prediction", "--modality",
                         modality, "--out", str(out), capsys=capsys)
        assert code == 0
        task = yaml.load((out / "lmms_eval" / f"foldsim_prediction_{modality}.yaml").read_text(), Loader=_Loader)
        assert task["doc_to_messages"] == "utils.foldsim_doc_to_messages"
        utils = load_module(out / "lmms_eval" / "utils.py", f"foldsim_lmms_messages_{modality}")
        [doc] = load_dataset("parquet", data_files=data_files(task, utils))["test"]
        [message] = utils.foldsim_doc_to_messages(doc)
        assert message["role"] == "user"
        got = [("text", c["text"]) if c["type"] == "text" else
               ("image", c["url"].convert("RGB").tobytes()) if c["type"] == "image" else ("video", Path(c["url"]).name)
               for c in message["content"]]
        assert got == sent_parts(dataset, modality, doc["id"])
        if modality == "video":
            [video] = [c["url"] for c in message["content"] if c["type"] == "video"]
            assert Path(video).is_file() and Path(video).is_relative_to(out)
        text = utils.foldsim_doc_to_text(doc)
        texts = [v for k, v in got if k == "text"]
        assert text == "\n\n".join(texts)  # every part whole, a blank line between them: no "triangle.How"
        for before, after in zip(texts, texts[1:]):
            assert before + after not in text


def test_both_harnesses_evaluate_the_test_split_of_a_three_way_export(dataset, tmp_path, capsys):
    folder = tmp_path / "three"
    shutil.copytree(dataset, folder)
    records = read_records(folder / "PFHP_Prediction_Data.json")
    more = [dict(r, id=f"{r['id']}_{k}") for k in range(3) for r in records]  # 6 items (media shared)
    for record, split in zip(more, ["train", "train", "train", "validation", "test", "test"]):
        record["split"] = split
    (folder / "PFHP_Prediction_Data.json").write_text(json.dumps(more))
    code, stdout, _ = run("export", str(folder), "--format", "vlmevalkit", "--task", "prediction", "--modality",
                          "text", "--out", str(tmp_path / "vlm"), "--json", capsys=capsys)
    summary = json.loads(stdout)
    assert code == 0 and summary["splits"] == {"test": 2} and summary["left_out"] == {"train": 3, "validation": 1}
    frame = pd.read_csv(tmp_path / "vlm" / "Foldsim_Prediction_Text.tsv", sep="\t")
    assert list(frame["split"]) == ["test", "test"]
    code, stdout, _ = run("export", str(folder), "--format", "lmms-eval", "--task", "prediction", "--modality",
                          "text", "--out", str(tmp_path / "lmms"), "--json", capsys=capsys)
    assert code == 0 and json.loads(stdout)["evaluated"] == "test"
    task = yaml.load((tmp_path / "lmms" / "lmms_eval" / "foldsim_prediction_text.yaml").read_text(), Loader=_Loader)
    utils = load_module(tmp_path / "lmms" / "lmms_eval" / "utils.py", "foldsim_lmms_three")
    assert task["test_split"] == "test" and list(data_files(task, utils)) == ["test"]
    # without a test split: validation, never train
    for record in more:
        record["split"] = "validation" if record["split"] == "test" else record["split"]
    (folder / "PFHP_Prediction_Data.json").write_text(json.dumps(more))
    code, stdout, _ = run("export", str(folder), "--format", "lmms-eval", "--task", "prediction", "--modality",
                          "text", "--out", str(tmp_path / "lmms2"), "--json", capsys=capsys)
    assert code == 0 and json.loads(stdout)["evaluated"] == "validation"
    task = yaml.load((tmp_path / "lmms2" / "lmms_eval" / "foldsim_prediction_text.yaml").read_text(), Loader=_Loader)
    assert task["test_split"] == "validation"


def test_a_moved_lmms_eval_export_loads_its_shards_and_videos(dataset, tmp_path, capsys):
    from datasets import load_dataset

    first = tmp_path / "first" / "lmms"
    code, _, _ = run("export", str(dataset), "--format", "lmms-eval", "--task", "prediction", "--modality", "video",
                     "--out", str(first), capsys=capsys)
    assert code == 0
    yaml_text = (first / "lmms_eval" / "foldsim_prediction_video.yaml").read_text()
    assert str(tmp_path) not in yaml_text and ".parquet" not in yaml_text  # no path at all
    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    shutil.move(str(first), moved)
    task = yaml.load((moved / "lmms_eval" / "foldsim_prediction_video.yaml").read_text(), Loader=_Loader)
    utils = load_module(moved / "lmms_eval" / "utils.py", "foldsim_lmms_moved")
    files = data_files(task, utils)
    assert all(str(moved) in pattern for pattern in files.values())
    [doc] = load_dataset("parquet", data_files=files)["test"]
    [video] = [v for v in utils.foldsim_doc_to_visual(doc) if isinstance(v, str)]
    assert Path(video).is_file() and Path(video).is_relative_to(moved)


def test_vlmevalkit_refuses_video_with_one_line(dataset, tmp_path, capsys):
    code, out, err = run("export", str(dataset), "--format", "vlmevalkit", "--task", "prediction", "--modality",
                         "video", "--out", str(tmp_path / "vlm"), capsys=capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("error: --format: VLMEvalKit image datasets cannot carry a video")
    assert not (tmp_path / "vlm").exists()


def test_no_readme_of_the_user_is_overwritten_and_no_pip_install_foldsim(dataset, tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "README.md").write_text("# my notes\n")
    code, _, _ = run("export", str(dataset), "--format", "vlmevalkit", "--task", "prediction", "--modality", "text",
                     "--out", str(folder), capsys=capsys)
    assert code == 0 and (folder / "README.md").read_text() == "# my notes\n"
    readme = (folder / "Foldsim_Prediction_Text_README.md").read_text()
    assert "pip install foldsim" not in readme and "wheel" in readme and "force_use_dataset_prompt" in readme
    for fmt in ("hf", "lmms-eval"):  # their card must be README.md: they refuse instead
        code, out, err = run("export", str(dataset), "--format", fmt, "--task", "prediction", "--modality", "text",
                             "--out", str(folder), capsys=capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "not a dataset card foldsim wrote" in err
        assert (folder / "README.md").read_text() == "# my notes\n" and not (folder / "data").exists()


def test_dataset_card_declares_license_language_categories_and_arrow_sizes(hf_export):
    from datasets import load_dataset

    card = yaml.safe_load((hf_export / "README.md").read_text().split("---\n")[1])
    assert card["license"] == "mit" and card["language"] == ["en"]
    assert card["task_categories"] == ["visual-question-answering"] and card["size_categories"] == ["n<1K"]
    assert card["pretty_name"] and "foldsim" in card["tags"]
    for info in card["dataset_info"]:
        loaded = load_dataset(str(hf_export), info["config_name"])
        parquet = sum(p.stat().st_size for p in (hf_export / "data" / info["config_name"]).glob("*.parquet"))
        assert info["download_size"] == parquet
        for split in info["splits"]:  # num_bytes: the split in Arrow, as `datasets` holds it
            assert split["num_bytes"] == loaded[split["name"]].data.nbytes
        assert info["dataset_size"] == sum(s["num_bytes"] for s in info["splits"])


def test_hf_features_fall_back_to_sequence_without_datasets_list(monkeypatch):
    """datasets 3.x has no `datasets.List` (the declared lower bound is 3.0; make test-harness
    exports and loads with datasets 3.0.0 itself)."""
    import datasets

    monkeypatch.delattr(datasets, "List")
    features = hf_features()
    assert isinstance(features["images"], datasets.Sequence)


def test_train_grpo_example_takes_a_split_wires_planning_rewards_and_refuses_video():
    from examples import train_grpo
    from foldsim import rewards

    functions, weights = train_grpo.reward_setup({"planning"})
    assert functions == [rewards.planning_correct, rewards.planning_valid, rewards.planning_partial]
    assert len(weights) == 3
    functions, _ = train_grpo.reward_setup({"prediction", "planning"})
    assert rewards.prediction_exact in functions and rewards.planning_correct in functions
    assert train_grpo.pick_split(["validation", "test"], "test") == "test"
    assert train_grpo.pick_split(["test"], None) == "test"
    with pytest.raises(ValueError):
        train_grpo.pick_split(["validation", "test"], None)
    row = {"id": "x", "question": "Look.\n<image 1>\nThen this.\n<image 2>\nAnswer."}
    assert train_grpo.to_conversation(row)["prompt"][0]["content"] == [
        {"type": "text", "text": "Look."}, {"type": "image"}, {"type": "text", "text": "Then this."},
        {"type": "image"}, {"type": "text", "text": "Answer."}]
    with pytest.raises(ValueError, match="video"):
        train_grpo.to_conversation({"id": "v", "question": "Watch.\n<video>\nAnswer."})
