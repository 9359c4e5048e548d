"""A choice, split or plan-choice record names a media file only once it was written and verified
(foldsim.dataset.media.listed, the one rule for every record): without images the data files name
none; with images exactly the drawn files; an item whose drawing failed names none while the others
do; `foldsim render --images` on a file written without images draws them at the same paths, the
same bytes, and lists them (a later `generate --images` resumes and writes the file with them).
Prompts of the text modality need no image field; the image modality says which one is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.dataset.choice import ChoiceSpec, with_media
from foldsim.dataset.generate import DATA_FILE, GenerateOptions, generate_records
from foldsim.dataset.media import MEDIA_FIELDS, Manifest, listed, record_hash
from foldsim.render.choice import record_media

runner = CliRunner()
CUES = "none,true,counterfactual"
RUNS = {  # task -> the generate options of a small run (a cue run for choice and split)
    "choice": ["--group", "one_step", "--group", "two_step", "--count", "2", "--cues", CUES],
    "split": ["--group", "two_step", "--count", "1", "--options", "3", "--cues", CUES],
    "plan-choice": ["--group", "one_step", "--group", "two_step", "--count", "1"],
}


def generate(out: Path, task: str, *extra: str, code: int = 0) -> list[dict]:
    result = runner.invoke(app, ["generate", "--task", task, *RUNS[task], "--seed", "4", "--workers", "1",
                                 "--out", str(out), *extra])
    assert result.exit_code == code, result.output
    return json.loads((out / DATA_FILE[task]).read_text())


def named(record: dict) -> list[str]:
    """Every file a record's media fields name."""
    return [name for field in MEDIA_FIELDS if field in record
            for name in (record[field] if isinstance(record[field], list) else [record[field]])]


def drawn(out: Path) -> set[str]:
    """The choice images in a folder (questions, options, targets, cues), relative to it."""
    return {p.relative_to(out).as_posix() for p in out.rglob("*.png")
            if p.parts[len(out.parts)] in ("choice_questions", "choice_options") or p.name.endswith("_cue.png")}


def files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def with_images(tmp_path_factory) -> dict[str, tuple[Path, list[dict]]]:
    out = {}
    for task in RUNS:
        folder = tmp_path_factory.mktemp(f"{task}-images")
        out[task] = folder, generate(folder, task, "--images")
    return out


@pytest.mark.parametrize("task", list(RUNS))
def test_the_media_fields_go_back_where_the_generator_puts_them(task):
    """`with_media` is where every record gets its media fields, so a record stripped of them and
    given them back is the record, key order included; its hash does not change either."""
    spec = ChoiceSpec(cues=tuple(CUES.split(","))) if task != "plan-choice" else ChoiceSpec()
    for record in generate_records(GenerateOptions(task, ("two_step",), 2, 5, choice=spec)):
        bare = {k: v for k, v in record.items() if k not in MEDIA_FIELDS}
        assert list(with_media(bare, record_media(record)).items()) == list(record.items())
        assert record_media(bare) == record_media(record) and record_hash(bare) == record_hash(record)
        assert listed(record, None) == bare and list(listed(record, None)) == list(bare)


@pytest.mark.parametrize("task", list(RUNS))
def test_without_images_no_record_names_an_image(tmp_path, task):
    records = generate(tmp_path, task)
    assert records and not any(field in r for r in records for field in MEDIA_FIELDS)
    assert not drawn(tmp_path)


@pytest.mark.parametrize("task", list(RUNS))
def test_with_images_the_records_name_exactly_the_drawn_files(with_images, task):
    folder, records = with_images[task]
    for record in records:
        media = record_media(record)
        assert {k: record[k] for k in MEDIA_FIELDS if k in record} == {k: v for k, v in media.items()
                                                                       if k != "foldingVideo"}
        manifest = Manifest.read(folder, record["id"])
        assert set(named(record)) <= set(manifest.modalities["images"]["files"])
    assert drawn(folder) == {name for r in records for name in named(r)}


@pytest.mark.parametrize("task", ["choice", "split"])
def test_an_item_whose_drawing_fails_names_none_the_others_all(tmp_path, monkeypatch, task):
    import foldsim.render.choice as choice_media

    writer = choice_media.render_choice_media
    bad = "PFHP_2_c1" if task == "choice" else "PFHP_1_c2_B"

    def failing(record, *args, **kwargs):
        if record["id"] == bad:
            raise OSError(f"cannot draw {bad} (planted)")
        return writer(record, *args, **kwargs)

    monkeypatch.setattr(choice_media, "render_choice_media", failing)
    records = generate(tmp_path, task, "--images", code=1)
    assert {r["id"] for r in records if not named(r)} == {bad}
    for record in records:  # the others name every image (no video was asked for)
        images = {k: v for k, v in record_media(record).items() if k != "foldingVideo"}
        assert set(named(record)) == (set() if record["id"] == bad else set(named(images)))


@pytest.mark.parametrize("task", list(RUNS))
def test_render_draws_an_imageless_file_and_lists_its_images(tmp_path, with_images, task):
    """`foldsim render --images` does not need the fields the file lacks: the same files, byte for
    byte (manifests included), as `generate --images`; `listed` then gives the records with their
    images, where the generator puts them; a later `generate --images` only resumes."""
    folder, expected = with_images[task]
    bare = generate(tmp_path, task)
    result = runner.invoke(app, ["render", str(tmp_path / DATA_FILE[task]), "--images", "--out", str(tmp_path),
                                 "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rendered"] == len(bare)
    mine, theirs = files(tmp_path), files(folder)
    del mine[DATA_FILE[task]], theirs[DATA_FILE[task]]
    assert mine == theirs
    relisted = [listed(r, Manifest.read(tmp_path, r["id"])) for r in bare]
    assert [list(r.items()) for r in relisted] == [list(r.items()) for r in expected]
    again = runner.invoke(app, ["generate", "--task", task, *RUNS[task], "--seed", "4", "--workers", "1",
                                "--out", str(tmp_path), "--images"])
    assert f"media: 0 rendered, {len(bare)} already complete, 0 failed" in again.stdout
    assert (tmp_path / DATA_FILE[task]).read_bytes() == (folder / DATA_FILE[task]).read_bytes()


def test_prompts_without_image_fields(tmp_path):
    """The text modality builds from a file written with text only; the image modality refuses each
    item with one line naming it and the missing field."""
    from foldsim.eval.prompts import dataset_prompts

    records = generate(tmp_path, "choice", "--text")
    _, items = dataset_prompts(tmp_path / DATA_FILE["choice"], "choice", "text")
    assert [i.error for i in items] == [None] * len(records)
    _, items = dataset_prompts(tmp_path / DATA_FILE["choice"], "choice", "images")
    for item, record in zip(items, records, strict=True):
        assert item.error.startswith(f"{record['id']}: questionImg: missing") and "\n" not in item.error


def test_every_split_row_of_a_cue_run_lists_its_items_folding_video(tmp_path):
    """The folding video is named by the item (`PF_<n>`), not by the row's id: every row lists it,
    where the generator puts it, once it is there."""
    records = generate(tmp_path, "split", "--video", "--width", "64", "--height", "48")
    for record in records:
        assert record["foldingVideo"] == "folding_videos/PF_1_animation.mp4"
        keys = list(record)
        assert keys.index("foldingVideo") == keys.index("level") + 1 and "optionImg" not in record
