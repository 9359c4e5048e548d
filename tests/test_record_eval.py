"""Issues 25 (item 5) and 27 (items 6-7): the evaluation road for the record families' records, on
hand-written records in the contract's shape (foldsim/families/record_family.py): a cube-net
"Choice" family with step pictures, option images and the open tasks count and opposite, a STARE
"YesNo" family, and the count task derived on a real SpatialViz grid record.

What is proved: every provider's request file carries exactly the pictures the task shows, in
order, and none of the answer's values; `foldsim score` reads right, wrong, ambiguous and omitted
answers of each task (choice, yes/no through the split scorer, count, opposite) with accuracy by
level; score_item and the TRL rewards agree with it; hostile answers (huge, binary, nested deeper
than any parser allows) score 0 and never raise; the HF, VLMEvalKit and lmms-eval exports load
and score their own ground truth perfectly, and a STARE export has STARE's document fields and task
shape; the report page shows the scores by level; a SpatialViz record's bytes stay the same."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
from pathlib import Path

import pytest
import yaml
from PIL import Image

from hypothesis import given
from hypothesis import strategies as st

from cli_invoke import invoke
from conftest import fuzz_settings
from foldsim.eval.item import score_item
from test_family_requests import PROVIDERS, SYSTEM, unpack, write_requests_cli

CANARY_NAME = "Canaryviolet"  # an opposite answer no prompt may show
CANARY_COUNT = 7919  # a count no prompt may show
CANARIES = ("Canaryinfo", "Canarynative", "Canarydetail")  # planted in info, native, errorDetail


def png(shade: int) -> bytes:
    """A distinct tiny PNG per file, so a request's images can be told apart."""
    buffer = io.BytesIO()
    Image.new("RGB", (4 + shade % 5, 3), (shade * 37 % 256, shade * 11 % 256, 90)).save(buffer, "PNG")
    return buffer.getvalue()


def cube_record(n: int, level: str, answer: str) -> dict:
    rid = f"pfp-cube_{n:05d}"
    labels = "ABCD"
    return {"id": rid, "family": "pfp-cube", "level": level, "taskType": "Choice",
            "question": "Which cube does the net fold into?", "questionImg": f"{rid}.png",
            "stepsImgs": [f"{rid}_step{k}.png" for k in (1, 2)], "optionImgs": [f"{rid}_{x}.png" for x in labels],
            "options": [{"label": x, "view": f"cube-{n}-{x}", "error": None if x == answer else "relabelling",
                         "errorDetail": "" if x == answer
                         else {"swapped": ["red", "blue"], "note": CANARIES[2]}} for x in labels],
            "answer": answer, "info": {"net": n, "note": CANARIES[0]}, "native": [{"qid": rid, "note": CANARIES[1]}],
            "countQuestion": "How many faces of the cube are red, and how many blue?",
            "countAnswer": {"red": n, "blue": CANARY_COUNT},
            "oppositeQuestion": "Which colour is opposite the red face?", "oppositeAnswer": {"opposite": CANARY_NAME}}


def stare_record(n: int, level: str, answer: str) -> dict:
    rid = f"stare_{n:05d}"
    return {"id": rid, "family": "stare", "level": level, "taskType": "YesNo",
            "question": "Based on the steps, can the net be folded to form a cube, yes or no?",
            "questionImg": f"{rid}.png", "stepsImgs": [f"{rid}_step{k}.png" for k in (1, 2, 3)], "options": [],
            "answer": answer, "info": {"valid": answer == "yes", "note": CANARIES[0]},
            "native": [{"qid": rid, "answer": answer, "note": CANARIES[1]}]}


def write_items(folder: Path, name: str, records: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shade = 0
    for record in records:
        for field in ("questionImg", "stepsImgs", "optionImgs"):
            for source in (record.get(field) if isinstance(record.get(field), list) else [record.get(field)]):
                if source:
                    shade += 1
                    (folder / source).write_bytes(png(shade))
    path = folder / name
    path.write_text(json.dumps(records, indent=1))
    return path


@pytest.fixture(scope="module")
def road(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("record-road")
    cubes = [cube_record(1, "easy", "A"), cube_record(2, "easy", "C"), cube_record(3, "hard", "B")]
    stare = [stare_record(1, "all_vis", "yes"), stare_record(2, "all_vis", "no"), stare_record(3, "partial_vis", "no")]
    return {"cube": write_items(root / "cube", "pfp-cube_items.json", cubes),
            "stare": write_items(root / "stare", "stare_items.json", stare)}


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> Path:
    """Two real SpatialViz grid records with their images, as `generate --family` writes them."""
    from foldsim.dataset.families import write_family
    from foldsim.families.registry import family

    folder = tmp_path_factory.mktemp("grid")
    write_family(family("spatialviz"), folder, 2, 1, "L0", media=True)
    return folder / "spatialviz_items.json"


def records(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def perfect(task: str, record: dict) -> str:
    from foldsim.eval.open_values import answer_of

    if task in ("count", "opposite"):
        return "Reasoning first.\n" + json.dumps(answer_of(task, record))
    return f"Worked it out.\nAnswer: {record['answer']}"


#: (dataset, task, scorer, the scorer's headline metric)
CASES = [("cube", "family-choice", "choice", "accuracy"), ("stare", "family-yesno", "split", "item_accuracy"),
         ("cube", "count", "count", "exact_match"), ("cube", "opposite", "opposite", "exact_match")]


def expected_images(record: dict, task: str) -> list[str]:
    """What the task shows, in order: the question image, the step pictures, the option images
    (the choice task only: the open questions never show the options)."""
    return [record["questionImg"], *record["stepsImgs"], *(record["optionImgs"] if task == "family-choice" else [])]


# --------------------------------------------------------------------------------------------------
# requests


@pytest.mark.parametrize("name,task,scorer,metric", CASES)
def test_request_files_show_the_pictures_in_order_and_no_answer(road, tmp_path, name, task, scorer, metric):
    dataset = road[name]
    items = records(dataset)
    for provider in PROVIDERS:
        requests = write_requests_cli(dataset, task, provider, tmp_path / f"{provider}.jsonl")
        assert len(requests) == len(items)
        for record, request in zip(items, requests, strict=True):
            item, texts, images = unpack(provider, request)
            assert item == record["id"]
            assert [base64.b64decode(i) for i in images] == [(dataset.parent / s).read_bytes()
                                                              for s in expected_images(record, task)]
            text = "\n".join(texts)
            assert not [c for c in (CANARY_NAME, str(CANARY_COUNT), *CANARIES) if c in text]
            if task == "family-choice":
                assert record["question"] in text and "Answer: <letter>" in text
                assert [t for t in texts if t.startswith("Option ")] == ["Option A:", "Option B:", "Option C:", "Option D:"]
            elif task == "family-yesno":
                assert record["question"] in text and "Answer: <yes or no>" in text
            else:
                assert record[f"{task}Question"] in text and record["question"] not in text
                assert all(f'"{k}": <' in text for k in record[f"{task}Answer"])


def test_count_on_spatialviz_grid_records_is_derived_and_leaves_their_bytes(grid, tmp_path):
    """The count task on records that carry no countAnswer: the question is worded from the sheet,
    the truth is how many resultHoles; the records file is the same byte for byte afterwards."""
    from foldsim.eval.open_values import truth_values

    before = grid.read_bytes()
    items = records(grid)
    requests = write_requests_cli(grid, "count", "chat", tmp_path / "chat.jsonl")
    for record, request in zip(items, requests, strict=True):
        _, texts, images = unpack("chat", request)
        assert [base64.b64decode(i) for i in images] == [(grid.parent / record["stepsImg"]).read_bytes()]
        assert "How many holes" in "\n".join(texts) and '"holes": <whole number>' in "\n".join(texts)
        assert truth_values("count", record) == {"holes": len(record["resultHoles"])}
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": r["id"], "response": f'{{"holes": {len(r["resultHoles"])}}}'}) + "\n"
                               for r in items))
    result = invoke("score", "count", grid, answers, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["metrics"]["exact_match"] == 1.0
    assert grid.read_bytes() == before


@pytest.mark.parametrize("name,task,scorer,metric", CASES)
def test_eval_against_a_served_model_scores_right_and_wrong(road, tmp_path, name, task, scorer, metric):
    """`foldsim eval` (prompts, a real OpenAI-compatible server process, the task's scorer): perfect
    answers score 1.0, answers that name a wrong value 0.0, and the server saw each item's pictures."""
    from test_families_eval import MODEL, keys_of, sent
    from openai_stub_server import StubServer

    dataset = road[name]
    items = records(dataset)
    keys = keys_of(dataset, task)
    wrong_text = {"family-choice": "Answer: D", "family-yesno": "Answer: maybe"}.get(task, '{"red": 99, "opposite": "x"}')
    for label, answers in (("perfect", {keys[r["id"]]: perfect(task, r) for r in items}),
                           ("wrong", {keys[r["id"]]: wrong_text for r in items})):
        with StubServer({"answers": answers, "log_messages": True}, tmp_path / label / "stub") as server:
            run = invoke("eval", dataset, "--endpoint", server.url, "--model", MODEL, "--task", task,
                         "--modality", "images", "--out", tmp_path / label / "run")
            assert run.exit_code == 0, run.output
            log = server.log()
        score = json.loads((tmp_path / label / "run" / "score.json").read_text())
        assert score["task"] == scorer
        if label == "perfect":
            assert score["metrics"][metric] == 1.0
            for record in items:
                _, images = sent(log)[keys[record["id"]]]
                assert images == [(dataset.parent / s).read_bytes() for s in expected_images(record, task)]
        else:
            assert score["metrics"][metric] == 0.0


# --------------------------------------------------------------------------------------------------
# scoring


def answers_file(path: Path, rows: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "response": text}) + "\n" for i, text in rows.items()))
    return path


def score_json(task: str, dataset: Path, answers: Path) -> tuple[int, dict]:
    result = invoke("score", task, dataset, answers, "--json", "--details")
    return result.exit_code, json.loads(result.stdout)


def test_choice_right_wrong_ambiguous_by_level(road, tmp_path):
    dataset = road["cube"]
    answers = answers_file(tmp_path / "a.jsonl", {"pfp-cube_00001": "Answer: A",
                                                  "pfp-cube_00002": "Answer: A\nNo, on second thought. Answer: C",
                                                  "pfp-cube_00003": "Answer: D"})
    code, report = score_json("choice", dataset, answers)
    assert code == 0
    assert {k: report["counts"][k] for k in ("right", "wrong", "ambiguous", "omitted")} == {
        "right": 1, "wrong": 2, "ambiguous": 1, "omitted": 0}
    assert report["metrics"]["accuracy"] == pytest.approx(1 / 3) and report["metrics"]["chance"] == 0.25
    assert report["groups"]["level"]["pfp-cube easy"]["accuracy"] == 0.5
    assert report["groups"]["level"]["pfp-cube hard"]["accuracy"] == 0.0
    assert report["confusion"]["relabelling"]["chosen"] == 1  # D, a named distractor


def test_yes_no_records_score_as_split_rows_that_are_their_own_items(road, tmp_path):
    dataset = road["stare"]
    answers = answers_file(tmp_path / "a.jsonl", {"stare_00001": "Yes, it folds.\nAnswer: yes",
                                                  "stare_00002": "Answer: yes. Hmm. Answer: no"})  # 00003 omitted
    code, report = score_json("split", dataset, answers)
    assert code == 0
    metrics, counts = report["metrics"], report["counts"]
    assert metrics["row_accuracy"] == metrics["item_accuracy"] == pytest.approx(1 / 3)
    assert metrics["row_chance"] == metrics["item_chance"] == 0.5
    assert counts["rows"] == counts["items"] == 3 and counts["ambiguous"] == 1 and counts["missing"] == 1
    assert report["groups"]["level"]["stare all_vis"]["accuracy"] == 0.5
    assert report["groups"]["level"]["stare partial_vis"]["chance"] == 0.5


def test_count_and_opposite_exact_overall_and_per_name(road, tmp_path):
    dataset = road["cube"]
    answers = answers_file(tmp_path / "count.jsonl", {
        "pfp-cube_00001": f'Counting.\n{{"red": "1", "blue": {CANARY_COUNT}}}',  # a digit string is a count
        "pfp-cube_00002": f'{{"red": 2, "blue": 3}} no wait: {{"red": 2, "blue": {CANARY_COUNT}.0}}',  # the last object
        "pfp-cube_00003": '{"red": "three", "blue": 7919.5}'})  # neither is a whole number
    code, report = score_json("count", dataset, answers)
    assert code == 0
    assert report["metrics"]["exact_match"] == pytest.approx(2 / 3)
    assert report["metrics"]["field_red"] == pytest.approx(2 / 3) and report["metrics"]["fields"] == pytest.approx(4 / 6)
    assert report["groups"]["level"]["pfp-cube easy"]["exact_match"] == 1.0
    names = answers_file(tmp_path / "opposite.jsonl", {"pfp-cube_00001": f'{{"opposite": "  {CANARY_NAME.upper()} "}}',
                                                       "pfp-cube_00002": '{"opposite": "red"}'})
    code, report = score_json("opposite", dataset, names)
    assert code == 0
    assert [i["exact"] for i in report["items"]] == [True, False, False]
    assert [i["status"] for i in report["items"]] == ["ok", "ok", "missing"]
    assert report["counts"] == {"items": 3, "answered": 2, "exact": 1, "missing": 1, "unreadable": 0, "invalid_truth": 0}


def test_bad_truth_records_are_one_line_each_and_exit_1(road, tmp_path):
    items = records(road["cube"])
    items[1]["countAnswer"] = {"red": -10**10}
    items[2]["countAnswer"] = {"red": True}
    dataset = write_items(tmp_path, "bad_items.json", items)
    result = invoke("score", "count", dataset, answers_file(tmp_path / "a.jsonl", {}), "--json")
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert lines == [f"error: {dataset}: pfp-cube_00002: countAnswer.red: must be a whole number from -1000000000 to "
                     "1000000000",
                     f"error: {dataset}: pfp-cube_00003: countAnswer.red: must be a whole number from -1000000000 to "
                     "1000000000"]
    assert json.loads(result.stdout)["counts"]["invalid_truth"] == 2
    assert "Traceback" not in result.output


def test_score_item_and_rewards_agree_with_the_scorer(road):
    from foldsim.eval.family_rewards import family_choice_correct, values_exact, values_fields

    cube, stare = records(road["cube"]), records(road["stare"])
    assert score_item("choice", cube[0], "Answer: A")["correct"] == 1.0
    assert score_item("split", stare[1], "Answer: no") == {"correct": 1.0, "answered": 1.0, "ambiguous": 0.0,
                                                             "chance": 0.5, "corrected": 1.0}
    assert score_item("count", cube[0], perfect("count", cube[0])) == {"exact_match": 1.0, "fields": 1.0,
                                                                       "field_blue": 1.0, "field_red": 1.0,
                                                                       "answer_parsed": 1.0}
    half = '{"red": 1, "blue": 0}'
    assert score_item("count", cube[0], half)["fields"] == 0.5
    tasks = ["family-yesno", "family-yesno", "count", "count", "opposite"]
    rows = [stare[0], stare[1], cube[0], cube[0], cube[0]]
    completions = ["Answer: yes", "Answer: yes", perfect("count", cube[0]), half, perfect("opposite", cube[0])]
    columns = {"record": [json.dumps(r) for r in rows], "task": tasks}
    assert family_choice_correct(completions=completions, **columns) == [1.0, 0.0, None, None, None]
    assert values_exact(completions=completions, **columns) == [None, None, 1.0, 0.0, 1.0]
    assert values_fields(completions=completions, **columns) == [None, None, 1.0, 0.5, 1.0]


HOSTILE = ["x" * 3_000_000, "\x00\xff\xfe binary \x00" * 1000, "[" * 100_000, '{"red": ' * 50_000 + "1" + "}" * 50_000,
           '{"opposite": ' + "[" * 5000 + '"red"' + "]" * 5000 + "}", '{"red": 1' + "0" * 5000 + "}", None, [], {}]


@pytest.mark.parametrize("task", ["choice", "split", "count", "opposite"])
def test_hostile_answers_score_zero_and_never_raise(road, task):
    record = records(road["stare"] if task == "split" else road["cube"])[0]
    for response in HOSTILE:
        metrics = score_item(task, record, response)
        assert metrics.get("correct", metrics.get("exact_match")) == 0.0


# --------------------------------------------------------------------------------------------------
# exports


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Loader(yaml.SafeLoader):
    """lmms-eval YAML: `!function utils.name` read as the string "utils.name"."""


_Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


@pytest.mark.parametrize("name,task,scorer,metric", CASES)
def test_hf_and_lmms_eval_exports_load_and_score_their_truth(road, tmp_path, name, task, scorer, metric):
    from datasets import load_dataset

    from foldsim.outputs.export import hf_features

    out = tmp_path / "lmms"
    result = invoke("export", road[name], "--format", "lmms-eval", "--task", task, "--modality", "images", "--out", out,
                    "--json")
    assert result.exit_code == 0, result.output
    stare = name == "stare"
    yaml_name = "foldsim_stare_folding_nets" if stare else f"foldsim_{task.replace('-', '_')}_images"
    spec = yaml.load((out / "lmms_eval" / f"{yaml_name}.yaml").read_text(), Loader=_Loader)
    assert spec["task"] == yaml_name and spec["test_split"] == "test" and spec["output_type"] == "generate_until"
    if stare:  # STARE's generation settings
        assert spec["generation_kwargs"] == {"max_new_tokens": 8192, "temperature": 0.0, "top_p": 1.0, "num_beams": 1,
                                             "do_sample": False}
    utils = load_module(out / "lmms_eval" / "utils.py", f"utils_{name}_{scorer}")
    files = getattr(utils, spec["dataset_kwargs"]["data_files"].removeprefix("utils."))
    docs = load_dataset("parquet", data_files=files)["test"]
    assert docs.features == hf_features(("qid", "category") if stare else ())
    by_id = {r["id"]: r for r in records(road[name])}
    for doc in docs:
        record = by_id[doc["id"]]
        assert doc["scorer"] == scorer and doc["group"] == f"{record['family']} {record['level']}"
        if stare:  # STARE's own document fields
            assert doc["qid"] == record["id"] and doc["category"] == record["level"] and doc["answer"] == record["answer"]
        assert len(utils.foldsim_doc_to_visual(doc)) == len(expected_images(record, task)) == len(doc["images"])
        assert "<image" not in utils.foldsim_doc_to_text(doc)
        good = utils.foldsim_process_results(doc, [perfect(task, record)])
        assert good.get("correct", good.get("exact_match")) == 1.0
        assert utils.foldsim_process_results(doc, [doc["answer"]]) == good  # the answer column is a right answer
        bad = utils.foldsim_process_results(doc, ["\x00" * 10])
        assert bad.get("correct", bad.get("exact_match")) == 0.0
    assert [m["metric"] for m in spec["metric_list"]] == list(good)


@pytest.mark.parametrize("name,task,scorer,metric", CASES)
def test_vlmevalkit_export_scores_with_foldsim(road, tmp_path, name, task, scorer, metric):
    import pandas as pd

    out = tmp_path / "vlm"
    result = invoke("export", road[name], "--format", "vlmevalkit", "--task", task, "--modality", "images", "--out", out)
    assert result.exit_code == 0, result.output
    stem = "Foldsim_" + "_".join(p.capitalize() for p in f"{task.replace('-', '_')}_images".split("_"))
    frame = pd.read_csv(out / f"{stem}.tsv", sep="\t")
    module = load_module(out / f"{stem.lower()}.py", stem.lower())
    data = getattr(module, stem.replace("_", ""))(root=str(out))
    parts = data.build_prompt(0)
    assert [p["type"] for p in parts].count("image") == len(expected_images(records(road[name])[0], task))
    if task == "family-choice":  # the option columns hold each option's content, never its named mistake
        assert [json.loads(frame[x][0]) for x in "ABCD"] == [{"view": f"cube-1-{x}"} for x in "ABCD"]
    frame.assign(prediction=frame["answer"]).to_csv(out / "right.tsv", sep="\t", index=False)
    assert data.evaluate(str(out / "right.tsv"))[metric][0] == 1.0
    frame.assign(prediction=["I cannot tell"] * len(frame)).to_csv(out / "wrong.tsv", sep="\t", index=False)
    assert data.evaluate(str(out / "wrong.tsv"))[metric][0] == 0.0


# --------------------------------------------------------------------------------------------------
# the report


@pytest.mark.parametrize("name,task,scorer,metric", CASES)
def test_report_page_shows_the_scores_by_level(road, tmp_path, name, task, scorer, metric):
    from foldsim.outputs.report.build import build_report

    items = records(road[name])
    answers = answers_file(tmp_path / "a.jsonl", {items[0]["id"]: perfect(task, items[0]),
                                                  items[2]["id"]: "I do not know"})
    data = build_report(road[name], [answers], task=None if scorer in ("choice", "split") else scorer)
    assert data.task == scorer and not data.errors
    assert data.models[0].correct == [True, False, False]
    assert [g["level"] for g in data.scored_groups] == [f"{r['family']} {r['level']}" for r in items]
    assert [a.verdict for i in data.items for a in i.answers] == ["correct", "missing", "unreadable" if scorer in (
        "count", "opposite") else "unreadable"]
    out = tmp_path / "page.html"
    result = invoke("report", road[name], answers, "--task", scorer, "--out", out)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "accuracy by level" in page or "accuracy-by-level" in page
    if scorer in ("count", "opposite"):
        assert "named values right" in page and "right answer" in page
    assert "? folds" not in page  # a record family's item has no folds to count


# --------------------------------------------------------------------------------------------------
# a real record family end to end (the stub families of tests/record_family_stub.py)


@pytest.fixture(scope="module")
def stub_sets(tmp_path_factory) -> dict[str, Path]:
    """The stub families' records and images, as their RecordFamily methods make them (what
    `generate --family` writes: tests/test_record_road.py)."""
    from record_family_stub import TOY, TOY_YES_NO

    out = {}
    for fam in (TOY, TOY_YES_NO):
        folder = tmp_path_factory.mktemp(fam.name)
        items = fam.generate(4, 5)
        for record in items:
            for name, data in fam.images(record).items():
                (folder / name).write_bytes(data)
        out[fam.name] = folder / f"{fam.name}_items.json"
        out[fam.name].write_text(json.dumps(items, indent=1))
    return out


@pytest.mark.parametrize("family,task,scorer,metric", [("toy", "family-choice", "choice", "accuracy"),
                                                       ("toy", "count", "count", "exact_match"),
                                                       ("toyyn", "family-yesno", "split", "item_accuracy")])
def test_a_record_family_runs_the_whole_road(stub_sets, tmp_path, family, task, scorer, metric):
    """A real RecordFamily's records straight into requests, score, rewards, the export and the
    report: the ground truth scores 1.0 everywhere, a wrong answer 0.0; a question that words its
    own answer form is shown as it is (the road adds none)."""
    from foldsim.eval.family_rewards import family_choice_correct, values_exact
    from foldsim.outputs.report.build import build_report

    dataset = stub_sets[family]
    items = records(dataset)
    requests = write_requests_cli(dataset, task, "chat", tmp_path / "chat.jsonl")
    for record, request in zip(items, requests, strict=True):
        _, texts, images = unpack("chat", request)
        assert [base64.b64decode(i) for i in images] == [(dataset.parent / s).read_bytes()
                                                          for s in expected_images(record, task)]
        if task == "count":
            assert "\n".join(texts) == record["countQuestion"]
    answers = answers_file(tmp_path / "right.jsonl", {r["id"]: perfect(task, r) for r in items})
    code, report = score_json(scorer, dataset, answers)
    assert code == 0 and report["metrics"][metric] == 1.0
    assert set(report["groups"]["level"]) == {f"{family} {r['level']}" for r in items}
    reward = values_exact if task == "count" else family_choice_correct
    columns = {"record": items, "task": [task] * len(items)}
    assert reward(completions=[perfect(task, r) for r in items], **columns) == [1.0] * len(items)
    assert reward(completions=["Answer: Z\n{\"dots\": -4}"] * len(items), **columns) == [0.0] * len(items)
    export = tmp_path / "hf"
    result = invoke("export", dataset, "--format", "hf", "--task", task, "--modality", "images", "--out", export, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["items"] == len(items), result.output
    data = build_report(dataset, [answers], task=scorer)
    assert data.models[0].correct == [True] * len(items) and not data.errors


# --------------------------------------------------------------------------------------------------
# fuzz: any answer and any truth object


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)


@pytest.mark.fuzz
@fuzz_settings(0.1)
@given(value=_JSON, prefix=st.text(max_size=40), truth=st.dictionaries(st.text(max_size=10), _JSON, max_size=3))
def test_any_answer_or_truth_scores_or_is_refused_with_a_line(value, prefix, truth):
    """A value task never raises on an answer (any JSON after any text), and a truth object it
    cannot use is an InputError naming the item and field, never another exception."""
    from foldsim.errors import InputError

    for task in ("count", "opposite"):
        record = {"id": "x_00001", "family": "x", "level": "a", f"{task}Answer": truth}
        try:
            score_item(task, record, "")
        except InputError as err:
            assert err.item == "x_00001" and err.field.startswith(f"{task}Answer")
            continue
        for response in (prefix + json.dumps({**{k: value for k in truth}, "z": value}), json.dumps(value), prefix):
            metrics = score_item(task, record, response)
            assert metrics["exact_match"] in (0.0, 1.0) and 0.0 <= metrics["fields"] <= 1.0


def test_count_on_mentalblackboard_family_items_shows_the_steps_never_the_options(tmp_path):
    """MentalBlackboard's family items name their steps as a list and a composite question image
    that shows the options: the count task shows the steps alone (an option is the answer drawn)."""
    from foldsim.dataset.families import write_family
    from foldsim.families.registry import family

    write_family(family("mentalblackboard"), tmp_path / "mb", 1, 1, "easy", media=True)
    dataset = tmp_path / "mb" / "mentalblackboard_items.json"
    [record] = records(dataset)
    assert isinstance(record["stepsImg"], list) and record["questionImg"] not in record["stepsImg"]
    [request] = write_requests_cli(dataset, "count", "chat", tmp_path / "chat.jsonl")
    _, texts, images = unpack("chat", request)
    assert [base64.b64decode(i) for i in images] == [(dataset.parent / s).read_bytes() for s in record["stepsImg"]]
    assert "How many holes" in "\n".join(texts)


def test_a_count_may_be_a_signed_difference():
    """VisWorld-Eval asks "triangle_left minus triangle_right": a negative truth is read, and a
    signed answer ("-2", -2) matches it; "2" does not."""
    from foldsim.eval.open_values import count_value, truth_values

    record = {"id": "v1", "family": "visworld", "level": "L0",
              "countAnswer": {"cutouts": 3, "triangle_left_minus_right": -2}}
    assert truth_values("count", record)["triangle_left_minus_right"] == -2
    assert [count_value(v) for v in ("-2", " +2 ", -2, "2", "--2")] == [-2, 2, -2, 2, None]


def test_stare_pictures_stand_at_their_image_marks(tmp_path):
    """A stare question places its pictures with STARE's `<image_k>` marks: the yes/no prompt puts
    the net picture and each step picture there (it put them all after the text before), and marks
    that do not match the pictures are the item's one error."""
    from foldsim.eval.prompts import ItemError, build_messages
    from foldsim.families.stare import STARE

    [record] = STARE.generate(1, 3, "all_intermediate_last_vis")
    for name, data in STARE.images(record).items():
        (tmp_path / name).write_bytes(data)
    [message] = build_messages(record, "family-yesno", "images", dataset_dir=tmp_path)
    kinds = ["text" if not p.is_media else "image" for p in message.parts]
    assert kinds == ["text", "image", "text", "image", "text"]
    assert message.parts[1].source.endswith(record["questionImg"])
    assert message.parts[3].source.endswith(record["stepsImgs"][0])
    assert "<image_" not in "".join(p.text for p in message.parts)
    broken = {**record, "question": record["question"].replace("<image_1>", "<image_2>")}
    with pytest.raises(ItemError, match=r"question: its image marks \[0, 2\] are not <image_0> .. <image_1>"):
        build_messages(broken, "family-yesno", "images", dataset_dir=tmp_path)
