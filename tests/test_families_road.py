"""Issue 18, the evaluation road on family items, end to end from the CLI: generate (with the
family's images) -> export -> perfect / always-"A" answers -> score; the open-ended holes task on a
5x5 set; the report page; canonical keys under the rectangle's symmetries; the rewards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ENV = {**os.environ, "PYOPENGL_PLATFORM": "egl"}
COUNT = 8
#: family, level, options (one sheet size each: 5x5, 1x1, 3x3)
FAMILIES = [("spatialviz", "L2", 4), ("srbench", "2", 3), ("visfactor", "normal", 5)]


def cli(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "foldsim", *args], capture_output=True, text=True, env=ENV, timeout=600)
    if ok:
        assert run.returncode == 0, run.stderr[-2000:]
    return run


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("families")
    out = {}
    for name, level, _ in FAMILIES:
        cli("generate", "--family", name, "--level", level, "--count", str(COUNT), "--seed", "0", "--out", str(root / name),
            "--workers", "1")  # a handful of items: no worker processes to start
        out[name] = root / name
    return out


def records(folder: Path, name: str) -> list[dict]:
    return json.loads((folder / f"{name}_items.json").read_text())


def write_answers(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "response": text}) + "\n" for i, text in rows))
    return path


@pytest.mark.parametrize("name,level,options", FAMILIES)
def test_family_images_and_choice_scores(generated, tmp_path, name, level, options):
    folder = generated[name]
    items = records(folder, name)
    assert len(items) == COUNT
    for record in items:  # every image the records and the family's rows reference exists
        names = [record["questionImg"], record["stepsImg"], *record.get("optionImgs", [])]
        assert all((folder / n).is_file() and (folder / n).read_bytes()[:4] == b"\x89PNG" for n in names)
    # export, as harnesses load it; the prompt holds the composite image and the question
    cli("export", str(folder / f"{name}_items.json"), "--format", "vlmevalkit", "--task", "family-choice",
        "--modality", "images", "--out", str(tmp_path / "vlm"))
    tsv = next((tmp_path / "vlm").glob("*.tsv")).read_text()
    assert items[0]["id"] in tsv and "Answer: <letter>" in tsv
    truth = str(folder / f"{name}_items.json")
    perfect = write_answers(tmp_path / "perfect.jsonl", [(r["id"], f"Answer: {r['answer']}") for r in items])
    always_a = write_answers(tmp_path / "a.jsonl", [(r["id"], "The answer is A.\nAnswer: A") for r in items])
    good = json.loads(cli("score", "choice", truth, str(perfect), "--json").stdout)
    assert good["metrics"]["accuracy"] == 1.0
    base = json.loads(cli("score", "choice", truth, str(always_a), "--json").stdout)
    assert base["metrics"]["chance"] == pytest.approx(1 / options)
    right_a = sum(r["answer"] == "A" for r in items) / len(items)
    assert base["metrics"]["accuracy"] == pytest.approx(right_a) and right_a < 0.75  # near chance, never perfect
    assert set(base["groups"]["level"]) == {f"{name} {level}"}


def test_visfactor_yes_no_split(generated, tmp_path):
    folder = generated["visfactor"]
    rows = json.loads((folder / "visfactor_split.json").read_text())
    assert len(rows) == 5 * COUNT and sum(r["answer"] == "yes" for r in rows) == COUNT
    cli("export", str(folder / "visfactor_split.json"), "--format", "hf", "--task", "family-split", "--modality", "images",
        "--out", str(tmp_path / "hf"))
    truth = str(folder / "visfactor_split.json")
    perfect = write_answers(tmp_path / "p.jsonl", [(r["id"], f"Answer: {r['answer']}") for r in rows])
    report = json.loads(cli("score", "split", truth, str(perfect), "--json").stdout)
    assert report["metrics"]["item_accuracy"] == 1.0 and report["counts"]["items"] == COUNT
    # one wrong row spoils its item: VisFactor's rule
    flipped = [(r["id"], "Answer: " + ({"yes": "no", "no": "yes"}[r["answer"]] if i == 0 else r["answer"]))
               for i, r in enumerate(rows)]
    report = json.loads(cli("score", "split", truth, str(write_answers(tmp_path / "f.jsonl", flipped)), "--json").stdout)
    assert report["metrics"]["item_accuracy"] == pytest.approx((COUNT - 1) / COUNT)
    always_yes = write_answers(tmp_path / "y.jsonl", [(r["id"], "Answer: yes") for r in rows])
    report = json.loads(cli("score", "split", truth, str(always_yes), "--json").stdout)
    assert report["metrics"]["item_accuracy"] == 0.0 and report["metrics"]["row_accuracy"] == pytest.approx(0.2)


def test_open_ended_holes_5x5(generated, tmp_path):
    from foldsim.eval.holes import answer_pairs

    folder = generated["spatialviz"]
    items = records(folder, "spatialviz")
    assert {r["item"]["sheet"]["cols"] for r in items} == {5} and all(r["holeNames"] == "cell" for r in items)
    cli("export", str(folder / "spatialviz_items.json"), "--format", "lmms-eval", "--task", "holes", "--modality",
        "images", "--out", str(tmp_path / "lmms"))
    truth = str(folder / "spatialviz_items.json")
    perfect = [(r["id"], "Listing them.\n" + json.dumps({"holes": answer_pairs(r)})) for r in items]
    report = json.loads(cli("score", "holes", truth, str(write_answers(tmp_path / "p.jsonl", perfect)), "--json").stdout)
    assert report["metrics"]["exact_match"] == 1.0 and report["metrics"]["partial"] == 1.0
    assert report["metrics"]["field_row"] == 1.0 and report["metrics"]["field_col"] == 1.0
    perturbed = []  # one hole dropped, one moved a row down, a garbage and a huge answer
    for k, r in enumerate(items):
        holes = answer_pairs(r)
        if k % 4 == 0:
            holes = holes[1:]
        elif k % 4 == 1:
            holes = [[holes[0][0] % 5 + 1, holes[0][1]], *holes[1:]]
        perturbed.append((r["id"], json.dumps({"holes": holes}) if k % 4 < 2 else
                          ("no idea" if k % 4 == 2 else json.dumps({"holes": [[1, 1]] * 600}))))
    report = json.loads(cli("score", "holes", truth, str(write_answers(tmp_path / "q.jsonl", perturbed)), "--json",
                            "--details").stdout)
    assert report["metrics"]["exact_match"] == 0.0 and 0 < report["metrics"]["partial"] < 1
    statuses = {i["status"] for i in report["items"]}
    assert statuses == {"ok", "unparseable", "too_large"}
    moved = [i for k, i in enumerate(report["items"]) if k % 4 == 1]
    assert all(i["fields"]["col"] == i["truth"] for i in moved) and all(i["fields"]["row"] < i["truth"] for i in moved)


def test_open_ended_points_decimals_and_fractions(generated):
    from foldsim.eval.item import score_item
    from foldsim.eval.holes import truth_pairs

    for name in ("srbench", "visfactor"):
        record = records(generated[name], name)[0]
        pairs = truth_pairs(record)
        as_decimals = json.dumps({"holes": [[round(float(x), 4), round(float(y), 4)] for x, y in pairs]})
        as_text = json.dumps({"holes": [f"({x}, {y})" for x, y in pairs]})
        assert score_item("holes", record, as_decimals)["exact_match"] == 1.0
        assert score_item("holes", record, as_text)["exact_match"] == 1.0
        for junk in ("", None, "{" * 5000, json.dumps({"holes": [["1e999", "x"], {"x": True}]})):
            metrics = score_item("holes", record, junk)
            assert metrics["exact_match"] == 0.0


def test_report_shows_a_family_item(generated, tmp_path):
    folder = generated["srbench"]
    items = records(folder, "srbench")
    answers = write_answers(tmp_path / "m.jsonl", [(r["id"], f"Answer: {r['answer']}") for r in items])
    page = tmp_path / "page.html"
    run = cli("report", str(folder / "srbench_items.json"), str(answers), "--task", "choice", "--out", str(page))
    assert "error" not in run.stderr, run.stderr
    html = page.read_text()
    first = items[0]
    assert first["id"] in html and "question (choice)" in html and "fold steps and punch" in html
    wrong = next(o["error"] for o in first["options"] if o["error"])
    assert wrong in html and "data:image/png" in html


def test_same_seed_same_bytes(generated, tmp_path):
    cli("generate", "--family", "srbench", "--level", "2", "--count", str(COUNT), "--seed", "0", "--out", str(tmp_path),
        "--workers", "1")
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(written) == 2 + 3 * COUNT  # records, metadata.jsonl; per item composite, steps image, manifest
    for name in written:
        assert (generated["srbench"] / name).read_bytes() == (tmp_path / name).read_bytes(), name


def test_canonical_keys_under_rectangle_symmetries(generated):
    from foldsim.dataset.canonical import general_item_key, rectangle_symmetries
    from foldsim.dataset.splits import item_keys
    from foldsim.engine import simulate_items
    from foldsim.sheets import item_from_record

    assert len(rectangle_symmetries(3, 3)) == 8 and len(rectangle_symmetries(4, 3)) == 4
    base = {"id": "a", "sheet": {"cols": 4, "rows": 3}, "punches": [{"x": "1/2", "y": "1/2"}],
            "actions": [{"type": "fold", "line": {"family": "V", "at": "1"}, "moves": "left"}]}
    mirror = {**base, "punches": [{"x": "7/2", "y": "1/2"}],
              "actions": [{"type": "fold", "line": {"family": "V", "at": "3"}, "moves": "right"}]}
    other = {**base, "punches": [{"x": "3/2", "y": "1/2"}]}
    assert general_item_key(base) == general_item_key(mirror) != general_item_key(other)
    # every image of a real item keeps its key and its hole count
    from foldsim.dataset.canonical import _map_fold, _map_point
    from fractions import Fraction

    record = records(generated["visfactor"], "visfactor")[0]["item"]
    images = []
    for g in rectangle_symmetries(3, 3):
        punches = [dict(p, x=str(x), y=str(y)) for p in record["punches"]
                   for x, y in [_map_point(g, Fraction(p["x"]), Fraction(p["y"]))]]
        images.append({**record, "actions": [{"type": "fold", **_map_fold(g, a)} for a in record["actions"]],
                       "punches": punches})
    assert {general_item_key(i) for i in images} == {general_item_key(record)}
    results = simulate_items([item_from_record(i) for i in [record, *images]])
    assert len({len(r.holes) for r in results}) == 1 and all(r.ok for r in results)
    keys, errors = item_keys(records(generated["visfactor"], "visfactor"))
    assert not errors and all(k.configuration for k in keys)


def test_rewards_on_family_records(generated):
    from foldsim.eval.holes import answer_pairs
    from foldsim.eval.family_rewards import family_choice_correct, holes_exact, holes_partial

    items = records(generated["spatialviz"], "spatialviz")[:3]
    columns = {"record": [json.dumps(r) for r in items], "task": ["family-choice"] * 3}
    assert family_choice_correct(completions=[f"Answer: {r['answer']}" for r in items], **columns) == [1.0] * 3
    columns["task"] = ["holes"] * 3
    completions = [json.dumps({"holes": answer_pairs(r)}) for r in items]
    assert holes_exact(completions=completions, **columns) == [1.0] * 3
    assert holes_partial(completions=["{", None, []], **columns) == [0.0] * 3
