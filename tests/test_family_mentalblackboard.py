"""Issue 17 item 9 ("one world, not two") and issue 18: `generate --family mentalblackboard` writes
the benchmark's choice records (exactly what `generate --task choice` writes) and the same items in
foldsim's family format, which every family tool reads: audit (and a planted wrong key is caught),
family-choice scoring, simulate, fold, render-item. Items files name an image only when it was
written. End to end through the CLI, in process (one JAX start), a handful of items."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foldsim.cli import app

runner = CliRunner()
COUNT = 5
ARGS = ["generate", "--family", "mentalblackboard", "--count", str(COUNT), "--seed", "1", "--workers", "1"]
IMAGE_FIELDS = ("questionImg", "stepsImg", "optionImgs")


def cli(*args: str, code: int = 0):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def items(folder: Path, name: str = "mentalblackboard") -> list[dict]:
    return json.loads((folder / f"{name}_items.json").read_text())


def image_names(record: dict) -> list[str]:
    return [n for f in IMAGE_FIELDS for n in ([record[f]] if isinstance(record.get(f), str) else record.get(f, []))]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mb")
    result = cli(*ARGS, "--out", out)
    assert f"media: {COUNT} rendered, 0 already complete, 0 failed" in result.stdout
    return out


def test_both_files_and_the_native_file_is_generate_task_choice(generated, tmp_path):
    from foldsim.families.base import hole_key, holes_from_json

    cli("generate", "--task", "choice", "--count", COUNT, "--seed", 1, "--images", "--out", tmp_path)
    native = generated / "PFHP_Choice_Data.json"
    assert native.read_bytes() == (tmp_path / "PFHP_Choice_Data.json").read_bytes()  # images named as drawn
    natives, records = json.loads(native.read_text()), items(generated)
    assert [r["id"] for r in records] == [n["id"] for n in natives]
    for record, row in zip(records, natives):
        assert record["family"] == "mentalblackboard" and record["taskType"] == "Choice"
        assert record["level"] in ("easy", "medium", "hard") and record["info"]["levelScore"] == row["level"]
        assert record["answer"] == row["answer"] and record["native"] == [row]
        keyed = [o for o in record["options"] if o["error"] is None]
        assert [o["label"] for o in keyed] == [record["answer"]]
        assert hole_key(holes_from_json(keyed[0]["resultHoles"], "k")) == hole_key(holes_from_json(record["resultHoles"], "r"))
        assert not any(h["mirrored"] for o in record["options"] for h in o["resultHoles"])  # the key looks like the rest
        assert [o["error"] for o in record["options"]] == [o["error"] for o in row["options"]]
        for name in image_names(record):  # every named image was drawn and is vouched for by the manifest
            assert (generated / name).read_bytes()[:4] == b"\x89PNG"
        manifest = json.loads((generated / "manifest" / f"{record['id']}.json").read_text())
        assert set(image_names(record)) <= set(manifest["modalities"]["images"]["files"])
    # a rerun resumes: nothing redrawn, the same files
    again = cli(*ARGS, "--out", generated, "--json")
    assert json.loads(again.stdout)["skipped"] == COUNT and items(generated) == records


def test_holes_are_exact_points_at_the_locations_centroids(generated):
    from foldsim.families.base import hole_key, holes_from_json
    from foldsim.dataset.mentalblackboard_family import point_holes
    from foldsim.presets import MB_CENTROIDS, mentalblackboard_item
    from foldsim.sheets import item_to_record

    for record in items(generated):
        [row] = record["native"]
        assert record["item"] == item_to_record(mentalblackboard_item(row))
        punches = [(Fraction(p["x"]), Fraction(p["y"])) for p in record["item"]["punches"]]
        assert punches == [MB_CENTROIDS[h["location"] - 1] for h in row["initialHoles"]]
        for option, mb_option in zip(record["options"], row["options"]):
            holes = holes_from_json(option["resultHoles"], "resultHoles")
            assert hole_key(holes) == hole_key(point_holes(mb_option["resultHoles"], "resultHoles"))


def _plant(record: dict, change) -> dict:
    record = json.loads(json.dumps(record))
    keyed = next(o for o in record["options"] if o["label"] == record["answer"])
    keyed["resultHoles"] = change(keyed["resultHoles"])
    return record


def _mirrored(holes: list[dict]) -> list[dict]:
    return [{**h, "x": str(4 - Fraction(h["x"]))} for h in holes]


def test_audit_passes_every_item_and_flags_planted_keys(generated, tmp_path):
    path = generated / "mentalblackboard_items.json"
    report = json.loads(cli("audit", "--family", "mentalblackboard", path, "--json").stdout)
    assert report["ok"] == report["items"] == COUNT
    records = items(generated)
    mirror = next(r for r in records if Counter(json.dumps(h, sort_keys=True) for h in _mirrored(r["resultHoles"]))
                  != Counter(json.dumps(h, sort_keys=True) for h in r["resultHoles"]))
    planted = {records[0]["id"]: lambda hs: hs[1:], records[1]["id"]: lambda hs: [*hs, hs[0]],
               mirror["id"]: _mirrored}
    bad = [_plant(r, planted[r["id"]]) if r["id"] in planted else r for r in records]
    (tmp_path / "planted.json").write_text(json.dumps(bad))
    result = cli("audit", "--family", "mentalblackboard", tmp_path / "planted.json", "--json", code=1)
    summary = json.loads(result.stdout)
    assert {p["id"] for p in summary["problems"]} == set(planted) and summary["ok"] == COUNT - len(planted)
    assert all(p["verdict"] == "differs" and (p["only_key"] or p["only_physics"]) for p in summary["problems"])
    # records of another family are refused by --family
    cli("audit", "--family", "srbench", path, code=1)


def test_family_choice_scores(generated, tmp_path):
    records, truth = items(generated), generated / "mentalblackboard_items.json"

    def score(name: str, answer) -> dict:
        rows = "".join(json.dumps({"id": r["id"], "response": f"Answer: {answer(r)}"}) + "\n" for r in records)
        (tmp_path / name).write_text(rows)
        return json.loads(cli("score", "choice", truth, tmp_path / name, "--json").stdout)

    assert score("perfect.jsonl", lambda r: r["answer"])["metrics"]["accuracy"] == 1.0
    always_a = score("a.jsonl", lambda r: "A")
    assert always_a["metrics"]["chance"] == pytest.approx(1 / 5)
    right_a = sum(r["answer"] == "A" for r in records) / COUNT
    assert always_a["metrics"]["accuracy"] == pytest.approx(right_a) and right_a < 1  # about chance, never perfect
    assert all(group.startswith("mentalblackboard ") for group in always_a["groups"]["level"])


def test_simulate_fold_and_render_item_read_the_records(generated, tmp_path):
    from foldsim.families.base import hole_key, holes_from_json

    path, records = generated / "mentalblackboard_items.json", items(generated)
    answers = json.loads(cli("simulate", path).stdout)
    for record, answer in zip(records, answers):
        assert answer["status"] == "ok"
        assert hole_key(holes_from_json(answer["holes"], "holes")) == hole_key(holes_from_json(record["resultHoles"], "r"))
    cli("fold", path, "--out", tmp_path / "fold")
    assert sorted(p.name for p in (tmp_path / "fold").iterdir()) == sorted(f"{r['id']}.fold" for r in records)
    cli("render-item", path, "--images", "--ids", records[0]["id"], "--out", tmp_path / "media")
    assert any((tmp_path / "media").rglob("*.png"))


def test_no_media_names_no_image(tmp_path):
    cli(*ARGS[:4], 2, "--seed", 2, "--no-media", "--workers", 1, "--out", tmp_path / "mb")
    assert "Img" not in (tmp_path / "mb" / "mentalblackboard_items.json").read_text()
    native = (tmp_path / "mb" / "PFHP_Choice_Data.json").read_text()  # the benchmark's file: no media either
    assert "Img" not in native and "foldingVideo" not in native
    assert [r["native"][0] for r in items(tmp_path / "mb")] == json.loads(native)
    assert not (tmp_path / "mb" / "choice_questions").exists()
    cli("generate", "--family", "srbench", "--level", 1, "--count", 2, "--seed", 2, "--no-media", "--out", tmp_path / "sr")
    assert "Img" not in (tmp_path / "sr" / "srbench_items.json").read_text()


def test_an_item_whose_images_failed_names_none(tmp_path, monkeypatch):
    import foldsim.dataset.family_media as family_media
    import foldsim.render.choice as choice_media

    def failing(writer, bad_id):
        def write(record, *args, **kwargs):
            if record["id"] == bad_id:
                raise OSError(f"cannot draw {bad_id} (planted)")
            return writer(record, *args, **kwargs)
        return write

    monkeypatch.setattr(choice_media, "render_choice_media", failing(choice_media.render_choice_media, "PFHP_2"))
    result = cli(*ARGS[:4], 3, "--seed", 2, "--workers", 1, "--out", tmp_path / "mb", code=1)
    assert "PFHP_2" in result.stderr and "media: 2 rendered, 0 already complete, 1 failed" in result.stdout
    named = {r["id"]: image_names(r) + image_names(r["native"][0]) for r in items(tmp_path / "mb")}
    assert named["PFHP_2"] == [] and named["PFHP_1"] and named["PFHP_3"]
    natives = json.loads((tmp_path / "mb" / "PFHP_Choice_Data.json").read_text())
    assert [r["native"][0] for r in items(tmp_path / "mb")] == natives  # the native rows are the file's
    assert [bool(image_names(n)) for n in natives] == [True, False, True]

    monkeypatch.setattr(family_media, "write_record_images", failing(family_media.write_record_images, "srbench_00002"))
    cli("generate", "--family", "srbench", "--level", 1, "--count", 3, "--seed", 2, "--workers", 1,
        "--out", tmp_path / "sr", code=1)
    named = {r["id"]: image_names(r) for r in items(tmp_path / "sr", "srbench")}
    assert named["srbench_00002"] == [] and named["srbench_00001"] and named["srbench_00003"]


def test_levels_and_bad_options(tmp_path):
    cli(*ARGS[:4], 2, "--level", "hard", "--no-media", "--workers", 1, "--out", tmp_path / "hard")
    records = items(tmp_path / "hard")
    assert {r["level"] for r in records} == {"hard"} and all(r["info"]["levelScore"] >= 7 for r in records)
    task_only = ((["--cues", "none,true"], "--cues"), (["--group", "one_step"], "--group"), (["--images"], "--images"),
                 (["--options", "4"], "--options"))
    for extra, flag in ((["--level", "L1"], "--level"), (["--task", "choice"], "--task"), (["--count", "0"], "--count"),
                        *task_only):
        result = cli(*ARGS, *extra, "--out", tmp_path / "bad", code=2)
        [line] = result.stderr.strip().splitlines()
        assert line.startswith(f"error: {flag}: ")
