"""Prompts as templates (foldsim.eval.prompts): every task and modality builds from real generated
datasets, the parts come in the benchmark's order, user templates replace the built-in wording,
and no prompt of any task, modality or provider carries an answer (canary answers planted in every
answer field and answer file never reach a message or a request file)."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from foldsim import Config, Hole, simulate
from foldsim.dataset.generate import DATA_FILE, record_of
from foldsim.dataset.media import write_sheet
from foldsim.eval.prompts import (
    MODALITIES, ItemError, TemplateError, Templates, build_messages, dataset_prompts, load_prompt, step_image_sources,
)
from foldsim.eval.requests import PROVIDERS, TAKES_VIDEO, write_requests
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.render.images import ImageStyle, step_image_names, write_images
from foldsim.render.text import write_text
from foldsim.trace import trace

#: small hand-picked items per dataset: (id, codes, holes as (shape, size, direction, location))
ITEMS = {
    "prediction": [("PFHP_1", "V2-F", [("star", "large", 0, 1), ("ellipse", "small", "0, 180", 9)]),
                   ("PFHP_2", "H1-F,R-90", [("triangle", "large", 90, 30)])],
    "backward": [("PFHP_1", "D2-B,V1-B", [("letter", "small", 270, 31)])],
    "generalization": [("PFHP_1_shape", "H1-F", [("star", "large", 0, 28)]),
                       ("PFHP_1_shape_mod", "H1-F", [("trapezoid", "large", 0, 28)])],
    "planning": [("PFHP_1", "V1-F,H1-F", [("letter", "large", 90, 30), ("circle", "small", "", 29)])],
}
#: task -> the dataset it is asked about
TASK_DATA = {"prediction": "prediction", "backward": "backward", "text": "prediction",
             "generalization": "generalization", "planning": "planning"}
SMALL_IMAGES = ImageStyle(width=90, height=75, supersample=1)  # the prompts only need the files


def make_dataset(root: Path, dataset: str, *, images: bool = True, text: bool = True) -> tuple[Path, list[dict]]:
    """A small dataset folder in the generator's layout (records, numbered sheet, text grids and
    2-D step images drawn small); returns the data file and its records."""
    configs = [Config.from_codes(codes, [Hole.make(*h) for h in holes], item) for item, codes, holes in ITEMS[dataset]]
    results = simulate(configs)
    records = [record_of(c, r, dataset) for c, r in zip(configs, results)]
    root.mkdir(parents=True, exist_ok=True)
    path = root / DATA_FILE[dataset]
    path.write_text(json.dumps(records))
    write_sheet(root)
    for record in records:
        history = trace(record)
        if text:
            write_text(history, root, record["id"], sheet=SHEET)
        if images:
            write_images(history, root, record["id"], SMALL_IMAGES, sheet=SHEET)
    return path, records


def tiny_png(path: Path, shade: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((8, 8, 3), shade, np.uint8)).save(path)


def tiny_mp4(path: Path) -> None:
    """A real two-frame 16x16 H.264 file (what the video modality sends)."""
    from moviepy.video.io.ffmpeg_writer import FFMPEG_VideoWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    with FFMPEG_VideoWriter(str(path), (16, 16), 2, codec="libx264") as writer:
        for shade in (0, 200):
            writer.write_frame(np.full((16, 16, 3), shade, np.uint8))


def add_3d_media(root: Path, records: list[dict], video: Path) -> None:
    """Frames, a folding video and a result image where the records say they are (the 3-D renderer
    is tested elsewhere; here only their presence and order matter)."""
    for record in records:
        for index in range(3):
            tiny_png(root / record["foldingFramesDir"] / f"frame_{index:04d}.png", 40 * index)
        (root / record["foldingVideo"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(video, root / record["foldingVideo"])
        tiny_png(root / record["resultImg"], 255)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> dict[str, Path]:
    """task -> dataset file, with text grids, step images, frames, videos and result images."""
    base = tmp_path_factory.mktemp("prompt-data")
    video = base / "tiny.mp4"
    tiny_mp4(video)
    made = {}
    for dataset in ITEMS:
        made[dataset], records = make_dataset(base / dataset, dataset)
        add_3d_media(base / dataset, records, video)
    return {task: made[dataset] for task, dataset in TASK_DATA.items()}


def records_of(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def first_item(path: Path, task: str) -> tuple[dict, dict | None]:
    records = records_of(path)
    if task == "generalization":
        by_id = {r["id"]: r for r in records}
        mod = next(r for r in records if r["id"].endswith("_mod"))
        return mod, by_id[mod["id"].removesuffix("_mod")]
    return records[0], None


def media_sources(messages) -> list[str]:
    return [p.source for m in messages for p in m.parts if p.is_media]


def text_of(messages) -> str:
    return "\n".join(p.text for m in messages for p in m.parts if not p.is_media)


# --------------------------------------------------------------------------------------------------


def test_every_built_in_task_has_its_modalities():
    templates = Templates()
    assert set(templates.tasks()) >= {"prediction", "backward", "text", "generalization", "planning"}
    assert templates.modalities("prediction") == list(MODALITIES)
    assert templates.modalities("text") == ["text"]
    assert templates.modalities("planning") == ["text", "images", "frames"]


@pytest.mark.parametrize("task", list(TASK_DATA))
def test_every_task_and_modality_builds(datasets, task):
    for modality in Templates().modalities(task):
        _, items = dataset_prompts(datasets[task], task, modality, system="sys")
        items = list(items)
        assert items and all(item.error is None for item in items), [i.error for i in items]
        for item in items:
            system, user = item.messages
            assert system.role == "system" and system.parts[0].text == "sys"
            assert user.role == "user" and not user.parts[0].is_media  # the prompt opens with text
            text = text_of(item.messages)
            assert "```json" in text and "{{" not in text and "}}" not in text
            sources = media_sources(item.messages)
            if modality == "text":
                assert sources == [] and ("Final Result:" if task == "planning" else "Step 0: initial sheet") in text
            else:  # the numbered sheet comes first, then the item's media
                assert sources[0] == "paper_structure.png" and len(sources) > 1


def test_parts_follow_the_benchmark_order(datasets):
    """Prediction with 2-D images: sheet, initial, every action, punching (the renderer's names, the
    result image left out), then the punched holes as JSON and the answer schema."""
    path = datasets["prediction"]
    for record in records_of(path):
        messages = build_messages(record, "prediction", "images", dataset_dir=path.parent)
        item = record["id"]
        drawn = step_image_names(trace(record), item)
        assert drawn[-1].endswith("_result_holes.png")
        expected = ["paper_structure.png", *(f"img_text_outputs/{item}/img/{name}" for name in drawn[:-1])]
        assert media_sources(messages) == expected == ["paper_structure.png", *step_image_sources(record)]
        text = text_of(messages)
        for hole in record["initialHoles"]:
            assert json.dumps({k: hole[k] for k in ("shape", "size", "direction", "location")}) in text
        assert text.index("punched holes") < text.index('"resultHoles"')
        frames = build_messages(record, "prediction", "frames", dataset_dir=path.parent)
        assert media_sources(frames)[1:] == [f"{record['foldingFramesDir']}/frame_{i:04d}.png" for i in range(3)]
        [video] = [p for m in build_messages(record, "prediction", "video", dataset_dir=path.parent) for p in m.parts
                   if p.kind == "video"]
        assert video.source == record["foldingVideo"] and video.mime == "video/mp4"


def test_generalization_shows_the_original_as_a_solved_example(datasets):
    mod, original = first_item(datasets["generalization"], "generalization")
    messages = build_messages(mod, "generalization", "images", dataset_dir=datasets["generalization"].parent,
                              example=original)
    sources = media_sources(messages)
    assert f"img_text_outputs/{original['id']}/img/{original['id']}_result_holes.png" in sources
    assert f"img_text_outputs/{mod['id']}/img/{mod['id']}_result_holes.png" not in sources
    assert sources.index(f"img_text_outputs/{original['id']}/img/{original['id']}_punching_holes.png") < \
        sources.index(f"img_text_outputs/{mod['id']}/img/{mod['id']}_punching_holes.png")
    with pytest.raises(ItemError, match="example"):
        build_messages(mod, "generalization", "images", dataset_dir=datasets["generalization"].parent)


def test_planning_shows_the_result_and_the_fold_count_only(datasets):
    record, _ = first_item(datasets["planning"], "planning")
    messages = build_messages(record, "planning", "images", dataset_dir=datasets["planning"].parent)
    assert media_sources(messages) == ["paper_structure.png", f"img_text_outputs/{record['id']}/img/{record['id']}_result_holes.png"]
    assert f"exactly {record['numberofFoldingSteps']} folds" in text_of(messages)


# --------------------------------------------------------------------------------------------------
# no leak


CANARY = "CANARY"


def canary_file(path: Path, label: str) -> bytes:
    """Write a file of unique canary bytes; returns them."""
    data = b"\x89PNG\r\n\x1a\n" + f"{CANARY}-{label}-".encode() * 40
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data


def plant_canaries(root: Path, record: dict, task: str) -> list[bytes]:
    """Canary values in every answer field and canary bytes in every answer file of `record`
    (planning: the folds and punches, and every view of the folding); returns the file bytes."""
    item, planted = record["id"], []
    canary_holes = [{"shape": f"{CANARY}shape", "size": f"{CANARY}size", "direction": 271828, "location": 314159}]
    record["unfoldingTypes"] = [f"{CANARY}-U1"]
    for name, field in (("unfoldingVideo", "mp4"), ("unfoldingFramesDir", "dir")):
        source = f"canary/{item}_{name}" + (".mp4" if field == "mp4" else "")
        target = root / source / "frame_0000.png" if field == "dir" else root / source
        planted.append(canary_file(target, f"{item}-{name}"))
        record[name] = source
    images = root / "img_text_outputs" / item / "img"
    texts = root / "img_text_outputs" / item / "text"
    if task == "planning":
        record["foldingTypes"] = [{"foldType": f"{CANARY}fold", "foldToFront": True}] * record["numberofFoldingSteps"]
        record["initialHoles"] = canary_holes
        for name, suffix in (("foldingVideo", ".mp4"), ("foldingFramesDir", "")):
            source = f"canary/{item}_{name}{suffix}"
            planted.append(canary_file(root / source / "frame_0000.png" if not suffix else root / source, f"{item}-{name}"))
            record[name] = source
        for path in images.glob("*.png"):
            if not path.name.endswith("_result_holes.png"):
                planted.append(canary_file(path, f"{item}-{path.name}"))
        (texts / f"{item}_textual_steps.txt").write_text(f"{CANARY}-steps-grid")
    else:
        record["resultHoles"] = canary_holes
        record["totalNumberofHoles"] = 271828
        record["resultImg"] = f"canary/{item}_result.png"
        planted.append(canary_file(root / record["resultImg"], f"{item}-resultImg"))
        planted.append(canary_file(images / f"{item}_result_holes.png", f"{item}-result-image"))
        (texts / f"{item}_textual_final_result.txt").write_text(f"{CANARY}-final-grid")
    return planted


@pytest.mark.parametrize("task", list(TASK_DATA))
def test_no_prompt_carries_an_answer(datasets, task, tmp_path):
    """Every answer field and answer file of every asked item holds a canary; no message and no
    request file of any modality or provider may contain one (the reference's own runners sent
    the result image)."""
    source = datasets[task]
    root = tmp_path / "data"
    shutil.copytree(source.parent, root)
    records = records_of(source)
    asked = [r for r in records if task != "generalization" or r["id"].endswith("_mod")]
    planted = [data for record in asked for data in plant_canaries(root, record, task)]
    dataset = root / source.name
    dataset.write_text(json.dumps(records))
    assert planted
    for modality in Templates().modalities(task):
        _, items = dataset_prompts(dataset, task, modality)
        items = list(items)
        assert len(items) == len(asked) and all(i.error is None for i in items), [i.error for i in items]
        for item in items:
            assert CANARY not in text_of(item.messages)
            assert not any(CANARY in source for source in media_sources(item.messages))
        for provider in PROVIDERS:
            if modality == "video" and provider not in TAKES_VIDEO:
                continue
            out = tmp_path / f"{modality}-{provider}.jsonl"
            report = write_requests(dataset, task, modality, provider, out, options=_options(provider))
            assert report.requests == len(asked) and not report.failed
            data = b"".join(p.read_bytes() for p in report.files)
            assert CANARY.encode() not in data
            for secret in planted:
                assert base64.b64encode(secret)[8:200] not in data


def _options(provider: str):
    from foldsim.eval.requests import RequestOptions

    return RequestOptions(model="m" if provider in ("openai", "anthropic") else None)


def test_a_template_showing_an_answer_is_refused(tmp_path):
    for view, field in (("result", "resultHoles"), ("result_holes", "resultHoles"), ("record.unfoldingTypes", "unfoldingTypes"),
                        ("media.unfoldingVideo", "unfoldingVideo")):
        (tmp_path / "prediction.images.txt").write_text(f"Look: {{{{{view}}}}}\n")
        with pytest.raises(TemplateError, match=f"would show .*{field}"):
            load_prompt("prediction", "images", tmp_path)
    (tmp_path / "planning.images.txt").write_text("{{steps}}")
    with pytest.raises(TemplateError, match="foldingTypes"):
        load_prompt("planning", "images", tmp_path)


# --------------------------------------------------------------------------------------------------
# user templates


def test_user_templates_replace_the_wording(datasets, tmp_path):
    """Same file names in --templates win; fragments fall back to the built-in ones; comments and
    includes work; the fingerprint changes with the wording."""
    path = datasets["prediction"]
    record = records_of(path)[0]
    builtin = load_prompt("prediction", "images")
    (tmp_path / "prediction.images.txt").write_text(
        "{{# the paper's wording would go here }}\nPAPER WORDING\n{{sheet}}\nFrames follow.\n{{steps}}\n"
        "Holes:\n{{initial_holes}}\n{{> codes}}\n")
    messages = build_messages(record, "prediction", "images", dataset_dir=path.parent, templates=tmp_path)
    text = text_of(messages)
    assert text.startswith("PAPER WORDING") and "the paper's wording" not in text and "- H1:" in text
    assert media_sources(messages) == ["paper_structure.png", *step_image_sources(record)]
    assert load_prompt("prediction", "images", tmp_path).fingerprint != builtin.fingerprint
    # an unchanged modality still comes from the built-in templates
    assert load_prompt("prediction", "text", tmp_path).fingerprint == load_prompt("prediction", "text").fingerprint


def test_a_new_task_is_files_only(datasets, tmp_path):
    """A task added by dropping a task file and a template into --templates: record fields as text
    and media named by record fields, no code change."""
    path = datasets["prediction"]
    root = tmp_path / "data"
    shutil.copytree(path.parent, root)
    records = records_of(path)
    for record in records:
        record["question"] = f"Which sheet is {record['id']}?"
        record["optionImages"] = [f"img_text_outputs/{record['id']}/img/{record['id']}_fold_0_initial.png", "paper_structure.png"]
    (root / path.name).write_text(json.dumps(records))
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "pick.toml").write_text('description = "pick one"\nanswer_fields = ["answer"]\n')
    (templates / "pick.images.txt").write_text("{{record.question}}\n{{media.optionImages}}\nAnswer A or B.")
    _, items = dataset_prompts(root / path.name, "pick", "images", templates=templates)
    items = list(items)
    assert [i.error for i in items] == [None] * len(records)
    first = items[0].messages[0]
    assert first.parts[0].text == f"Which sheet is {records[0]['id']}?"
    assert [p.source for p in first.parts if p.is_media] == records[0]["optionImages"]
    assert "pick" in Templates(templates).tasks()
    (templates / "pick.images.txt").write_text("{{record.answer}}")
    with pytest.raises(TemplateError, match="answer"):
        load_prompt("pick", "images", templates)


@pytest.mark.parametrize("text, problem", [
    ("{{nonsense_view}}", "unknown view"),
    ("{{> missing_fragment}}", "no fragment"),
    ("{{ a b c }}", "cannot read placeholder"),
])
def test_template_mistakes_are_one_line_errors(tmp_path, text, problem):
    (tmp_path / "prediction.images.txt").write_text(text)
    with pytest.raises(TemplateError, match=problem) as caught:
        load_prompt("prediction", "images", tmp_path)
    assert "\n" not in str(caught.value)


def test_an_include_cycle_is_refused(tmp_path):
    (tmp_path / "prediction.images.txt").write_text("{{> loop}}")
    (tmp_path / "_loop.txt").write_text("again {{> loop}}")
    with pytest.raises(TemplateError, match="includes itself"):
        load_prompt("prediction", "images", tmp_path)


def test_unknown_task_or_modality(tmp_path):
    with pytest.raises(TemplateError, match="unknown task"):
        load_prompt("nosuchtask", "images")
    with pytest.raises(TemplateError, match="no template for modality 'images'"):
        load_prompt("text", "images")
    with pytest.raises(TemplateError, match="unknown modality"):
        load_prompt("prediction", "smell")


# --------------------------------------------------------------------------------------------------
# bad items


def test_a_missing_media_file_is_an_item_error(datasets, tmp_path):
    source = datasets["prediction"]
    root = tmp_path / "data"
    shutil.copytree(source.parent, root)
    first, second = records_of(source)[:2]
    gone = f"img_text_outputs/{first['id']}/img/{first['id']}_punching_holes.png"
    (root / gone).unlink()
    _, items = dataset_prompts(root / source.name, "prediction", "images")
    by_id = {i.id: i for i in items}
    assert by_id[first["id"]].error == f"{first['id']}: steps: missing media file {gone}"
    assert by_id[second["id"]].error is None
    shutil.rmtree(root / second["foldingFramesDir"])
    _, items = dataset_prompts(root / source.name, "prediction", "frames")
    errors = {i.id: i.error for i in items}
    assert errors[second["id"]] == f"{second['id']}: steps: missing media folder {second['foldingFramesDir']}"
    records = records_of(source)
    del records[0]["foldingVideo"]
    (root / source.name).write_text(json.dumps(records))
    _, items = dataset_prompts(root / source.name, "prediction", "video")
    assert "has no foldingVideo" in next(iter(items)).error


def test_a_generalization_item_without_its_original(datasets, tmp_path):
    records = [r for r in records_of(datasets["generalization"]) if r["id"].endswith("_mod")]
    path = tmp_path / "mods.json"
    path.write_text(json.dumps(records))
    _, items = dataset_prompts(path, "generalization", "text")
    [item] = list(items)
    assert "no original record" in item.error
