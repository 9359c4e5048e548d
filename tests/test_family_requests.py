"""Issue 18: `foldsim requests` and `foldsim run` on family records, on their own (test_families_eval
goes through `foldsim eval`). For SpatialViz, VisFactor and SRBench items as `generate --family`
writes them: every provider's batch file has its documented shape (evaluation-formats §1, as
tests/test_requests.py checks for MentalBlackboard records) and carries the very image files the
family defines for the task (the composite; VisFactor its steps row and each option labelled, or a
yes/no row's two images; the steps row for the open-ended holes task); no answer field reaches a
request; `foldsim run` against the stub server (tests/openai_stub_server.py) answers every item
exactly once, resumes after Ctrl-C, and the answers score 1.0; bad records are one line each."""

from __future__ import annotations

import base64
import json
import re
import shutil
import signal
from pathlib import Path

import pytest

from cli_invoke import invoke
from foldsim.eval.prompts import Templates, dataset_prompts
from foldsim.eval.requests import RequestOptions, chat_messages
from openai_stub_server import StubServer, message_key
from test_runner import start_foldsim, wait_for_rows

MODEL = "stub-model"
SYSTEM = "You are careful."
COUNT = 3
PROVIDERS = ("openai", "anthropic", "gemini", "chat")
#: the smallest sheet of each family (3x3, 3x3, 1x1): few compilations
LEVELS = {"spatialviz": "L0", "visfactor": "easy", "srbench": "1"}
#: (family, task, records file): every task a family's files are asked in
CASES = [("spatialviz", "family-choice", "spatialviz_items.json"), ("spatialviz", "holes", "spatialviz_items.json"),
         ("visfactor", "family-choice", "visfactor_items.json"), ("visfactor", "family-split", "visfactor_split.json"),
         ("visfactor", "holes", "visfactor_items.json"), ("srbench", "family-choice", "srbench_items.json"),
         ("srbench", "holes", "srbench_items.json")]
SCORER = {"family-choice": ("choice", "accuracy"), "family-split": ("split", "item_accuracy"),
          "holes": ("holes", "exact_match")}



@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Path]:
    """family -> its folder: COUNT items with their images, as `generate --family` writes them."""
    from foldsim.dataset.families import write_family
    from foldsim.families.registry import family

    root = tmp_path_factory.mktemp("family-requests")
    for name, level in LEVELS.items():
        write_family(family(name), root / name, COUNT, 1, level, media=True)
    return {name: root / name for name in LEVELS}


def records_of(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def expected_images(record: dict, task: str) -> list[str]:
    """The files a request about `record` carries, in order, as the family defines the task."""
    if task == "holes":
        return [record["stepsImg"]]
    if task == "family-split":
        return [record["stepsImg"], record["optionImg"]]
    # VisFactor's question image is its steps row: each option follows; the others' composites hold them
    return [record["questionImg"], *(record["optionImgs"] if record["family"] == "visfactor" else [])]


def perfect(record: dict, task: str) -> str:
    from foldsim.eval.holes import answer_pairs

    if task == "holes":
        return "Listing them.\n" + json.dumps({"holes": answer_pairs(record)})
    return f"Worked it out.\nAnswer: {record['answer']}"


# --------------------------------------------------------------------------------------------------
# the providers' documented shapes


def _openai_parts(content: list) -> tuple[list[str], list[str]]:
    texts, images = [], []
    for part in content:
        if part["type"] == "text":
            assert set(part) == {"type", "text"} and part["text"]
            texts.append(part["text"])
        else:
            assert part["type"] == "image_url" and set(part) == {"type", "image_url"} and set(part["image_url"]) == {"url"}
            match = re.fullmatch(r"data:image/png;base64,([A-Za-z0-9+/=]+)", part["image_url"]["url"])
            assert match, part["image_url"]["url"][:60]
            images.append(match.group(1))
    return texts, images


def _chat_messages(messages: list) -> tuple[list[str], list[str]]:
    system, user = messages
    assert system == {"role": "system", "content": SYSTEM}
    assert user["role"] == "user" and set(user) == {"role", "content"} and isinstance(user["content"], list)
    return _openai_parts(user["content"])


def unpack(provider: str, request: dict) -> tuple[str, list[str], list[str]]:
    """(id, texts, base64 images) of one request, after checking it has its provider's shape."""
    if provider == "openai":  # Batch API line: the body is a chat.completions request
        assert set(request) == {"custom_id", "method", "url", "body"}
        assert request["method"] == "POST" and request["url"] == "/v1/chat/completions"
        body = request["body"]
        assert set(body) == {"model", "messages", "max_completion_tokens", "temperature"}
        assert body["model"] == MODEL and body["max_completion_tokens"] == 321 and body["temperature"] == 0.5
        return request["custom_id"], *_chat_messages(body["messages"])
    if provider == "chat":  # the id plus a chat.completions body
        assert set(request) == {"id", "model", "messages", "max_tokens", "temperature"}
        assert request["model"] == MODEL and request["max_tokens"] == 321
        return request["id"], *_chat_messages(request["messages"])
    if provider == "anthropic":  # Message Batches: system apart, base64 image sources
        assert set(request) == {"custom_id", "params"} and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", request["custom_id"])
        params = request["params"]
        assert set(params) == {"model", "max_tokens", "messages", "system", "temperature"}
        assert params["model"] == MODEL and params["max_tokens"] == 321 and params["system"] == SYSTEM
        [message] = params["messages"]
        assert message["role"] == "user"
        texts, images = [], []
        for block in message["content"]:
            if block["type"] == "text":
                assert set(block) == {"type", "text"}
                texts.append(block["text"])
            else:
                assert block["type"] == "image" and block["source"]["type"] == "base64"
                assert set(block["source"]) == {"type", "media_type", "data"} and block["source"]["media_type"] == "image/png"
                images.append(block["source"]["data"])
        return request["custom_id"], texts, images
    assert provider == "gemini" and set(request) == {"key", "request"}  # batch line: key + GenerateContent request
    body = request["request"]
    assert set(body) == {"contents", "system_instruction", "generation_config"}
    assert body["system_instruction"] == {"parts": [{"text": SYSTEM}]}
    assert body["generation_config"] == {"max_output_tokens": 321, "temperature": 0.5}
    [content] = body["contents"]
    assert content["role"] == "user"
    texts, images = [], []
    for part in content["parts"]:
        assert set(part) in ({"text"}, {"inline_data"})
        if "text" in part:
            texts.append(part["text"])
        else:
            assert set(part["inline_data"]) == {"mime_type", "data"} and part["inline_data"]["mime_type"] == "image/png"
            images.append(part["inline_data"]["data"])
    return request["key"], texts, images


def write_requests_cli(dataset: Path, task: str, provider: str, out: Path) -> list[dict]:
    """`foldsim requests` for one provider; the requests it wrote."""
    result = invoke("requests", dataset, "--task", task, "--modality", "images", "--provider", provider, "--model", MODEL,
                    "--max-tokens", 321, "--temperature", 0.5, "--system", SYSTEM, "--out", out, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["files"] == [str(out)] and not summary["failed"]
    return json.loads(out.read_text())["requests"] if provider == "anthropic" else lines(out)


@pytest.mark.parametrize("name,task,file", CASES)
def test_request_files_carry_the_family_images(generated, tmp_path, name, task, file):
    dataset = generated[name] / file
    records = records_of(dataset)
    for provider in PROVIDERS:
        requests = write_requests_cli(dataset, task, provider, tmp_path / f"{provider}.jsonl")
        assert len(requests) == len(records)
        for record, request in zip(records, requests, strict=True):
            item, texts, images = unpack(provider, request)
            assert item == record["id"]
            sources = expected_images(record, task)
            assert [base64.b64decode(i, validate=True) for i in images] == [(dataset.parent / s).read_bytes() for s in sources]
            text = "\n".join(texts)
            if task == "holes":
                assert record["openQuestion"] in text and record["question"] not in text and '{"holes"' in text
            else:
                assert record["question"] in text
                assert ("Answer: <yes or no>" if task == "family-split" else "Answer: <letter>") in text
            if name == "visfactor" and task == "family-choice":  # each option image after its label
                labels = [o["label"] for o in record["options"]]
                assert [t for t in texts if t.startswith("Option ")] == [f"Option {label}:" for label in labels]
                assert len(images) == 1 + len(labels) == 6


def test_mentalblackboard_family_items_show_their_composite_once(tmp_path):
    """MentalBlackboard's family items list their option images too, but their question image is
    the composite that already shows them: the request carries it alone, not the options twice."""
    from foldsim.dataset.families import write_family
    from foldsim.families.registry import family

    write_family(family("mentalblackboard"), tmp_path / "mb", 2, 1, "easy", media=True)
    dataset = tmp_path / "mb" / "mentalblackboard_items.json"
    records = records_of(dataset)
    assert all(r["optionImgs"] and r["questionImg"] != r["stepsImg"] for r in records)
    requests = write_requests_cli(dataset, "family-choice", "chat", tmp_path / "chat.jsonl")
    for record, request in zip(records, requests, strict=True):
        item, texts, images = unpack("chat", request)
        assert item == record["id"] and record["question"] in "\n".join(texts)
        assert [base64.b64decode(i) for i in images] == [(dataset.parent / record["questionImg"]).read_bytes()]


CANARY = "FAMILY-CANARY"


def plant(record: dict, answer_fields: frozenset[str], root: Path, index: int) -> list[bytes]:
    """Every answer field of the task that the record has made a canary: media fields name canary
    image files (their bytes returned), the others hold canary text."""
    planted = []
    for name in sorted(answer_fields & set(record)):
        if name in ("questionImg", "optionImgs", "optionImg", "stepsImg"):
            files = []
            for k in range(len(record[name]) if isinstance(record[name], list) else 1):
                data = f"{CANARY}-{index}-{name}-{k}".encode() * 7
                (root / f"canary_{index}_{name}_{k}.png").write_bytes(data)
                files.append(f"canary_{index}_{name}_{k}.png")
                planted.append(data)
            record[name] = files if isinstance(record[name], list) else files[0]
        else:
            record[name] = f"{CANARY}-{name}"
    return planted


@pytest.mark.parametrize("name,task,file", CASES)
def test_no_answer_reaches_a_request(generated, tmp_path, name, task, file):
    """Every answer field the task lists (the key, the options' errors and holes, the native rows,
    the composite with the options for the open-ended task, ...) is a canary: no request of any
    provider holds one."""
    root = tmp_path / "data"
    shutil.copytree(generated[name], root)
    records = records_of(root / file)
    fields = Templates().task(task).answer_fields
    planted = [data for k, record in enumerate(records) for data in plant(record, fields, root, k)]
    assert planted or {"answer", "native"} & fields
    (root / file).write_text(json.dumps(records))
    for provider in PROVIDERS:
        write_requests_cli(root / file, task, provider, tmp_path / f"{provider}.jsonl")
        data = (tmp_path / f"{provider}.jsonl").read_bytes()
        assert CANARY.encode() not in data and all(base64.b64encode(secret) not in data for secret in planted)


# --------------------------------------------------------------------------------------------------
# foldsim run


def stub_answers(dataset: Path, task: str) -> tuple[dict[str, str], dict[str, str]]:
    """(item id -> the stub's key of its request, key -> the perfect answer)."""
    records = {str(r["id"]): r for r in records_of(dataset)}
    _, items = dataset_prompts(dataset, task, "images")
    keys = {}
    for item in items:
        assert item.error is None, item.error
        keys[item.id] = message_key(chat_messages(item.messages, RequestOptions(MODEL)))
    return keys, {keys[i]: perfect(records[i], task) for i in keys}


def run_args(dataset: Path, task: str, url: str, out: Path) -> list[str]:
    return ["run", str(dataset), "--endpoint", url, "--model", MODEL, "--task", task, "--modality", "images",
            "--out", str(out), "--concurrency", "1", "--timeout", "10", "--attempts", "2"]


def assert_scores_perfectly(dataset: Path, task: str, answers: Path) -> None:
    scorer, metric = SCORER[task]
    scored = invoke("score", scorer, dataset, answers, "--json")
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["metrics"][metric] == 1.0


@pytest.mark.parametrize("name", list(LEVELS))
def test_run_is_interrupted_resumes_and_scores(generated, tmp_path, name):
    """`foldsim run` on a family's choice items is stopped with Ctrl-C after its first answer, run
    again to the end: every item answered once, none that was written asked again, score 1.0. The
    stub holds every answer after the first until allowed: the run is mid-flight when stopped."""
    dataset = generated[name] / f"{name}_items.json"
    ids = [r["id"] for r in records_of(dataset)]
    keys, answers = stub_answers(dataset, "family-choice")
    out = tmp_path / "answers.jsonl"
    with StubServer({"answers": answers, "hold_after": 1}, tmp_path / "stub") as server:
        process = start_foldsim(run_args(dataset, "family-choice", server.url, out))
        wait_for_rows(out, 1, process)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        assert "interrupted; run the same command again to resume" in stderr
        before = [row["id"] for row in lines(out)]
        assert len(before) == 1
        server.allow(10**6)
        resumed = invoke(*run_args(dataset, "family-choice", server.url, out), "--json")
        assert resumed.exit_code == 0, resumed.output
        log = server.log()
    summary = json.loads(resumed.stdout)
    assert summary["answered_before"] == len(before) and summary["answered_now"] == len(ids) - len(before)
    got = [row["id"] for row in lines(out)]
    assert sorted(got) == sorted(ids) and all("response" in row for row in lines(out))
    answered = [entry["key"] for entry in log if entry["outcome"] == "answer"]
    assert all(answered.count(keys[i]) == 1 for i in before)  # written before Ctrl-C: never asked again
    assert {entry["images"] for entry in log if entry["outcome"] == "answer"} == {1 + len(records_of(dataset)[0].get("optionImgs", []))}
    assert_scores_perfectly(dataset, "family-choice", out)


@pytest.mark.parametrize("name,task,file", [c for c in CASES if c[1] != "family-choice"])
def test_run_answers_each_item_once_and_scores(generated, tmp_path, name, task, file):
    dataset = generated[name] / file
    ids = [str(r["id"]) for r in records_of(dataset)]
    _, answers = stub_answers(dataset, task)
    out = tmp_path / "answers.jsonl"
    with StubServer({"answers": answers}, tmp_path / "stub") as server:
        first = invoke(*run_args(dataset, task, server.url, out), "--json")
        again = invoke(*run_args(dataset, task, server.url, out), "--json")
        log = server.log()
    assert first.exit_code == 0 and again.exit_code == 0, first.output + again.output
    assert json.loads(first.stdout)["answered_now"] == len(ids)
    assert json.loads(again.stdout)["answered_before"] == len(ids) and json.loads(again.stdout)["answered_now"] == 0
    assert sorted(row["id"] for row in lines(out)) == sorted(ids)
    assert sum(entry["outcome"] == "answer" for entry in log) == len(ids)
    assert_scores_perfectly(dataset, task, out)


# --------------------------------------------------------------------------------------------------
# bad records


def test_bad_family_records_are_one_line_each(generated, tmp_path):
    """Records whose fields cannot make a request are left out with one `error: <file>: <item>:
    <field>: ...` line each (no traceback) by both commands; the good ones are still asked."""
    root = tmp_path / "data"
    shutil.copytree(generated["visfactor"], root)
    good = records_of(root / "visfactor_items.json")
    template = good[0]
    (root / "notes.txt").write_text("not an image")

    def bad(suffix: str, **changes) -> dict:
        record = json.loads(json.dumps(template))
        record["id"] = f"bad_{suffix}"
        for key, value in changes.items():
            if value is None:
                record.pop(key)
            else:
                record[key] = value
        return record

    records = [*good, bad("no_options", optionImgs=None), bad("options_text", optionImgs="x.png"),
               bad("option_gone", optionImgs=[*template["optionImgs"][:4], "gone.png"]),
               bad("option_txt", optionImgs=["notes.txt"]), bad("question_away", questionImg="../elsewhere.png"),
               bad("question_abs", questionImg=str(root / template["questionImg"])), bad("no_question", question=None),
               "not a record"]
    dataset = root / "mixed.json"
    dataset.write_text(json.dumps(records))
    expected = [
        "record 10: a record must be an object with an id",
        "bad_no_options: optionImgs: missing: the question image is the steps image alone, so the options must be their own images",
        "bad_options_text: optionImgs: must be a list of 1 to 26 image paths (options A, B, ...)",
        "bad_option_gone: optionImgs[4]: missing media file gone.png",
        "bad_option_txt: optionImgs[0]: notes.txt: not an image or video file",
        "bad_question_away: questionImg: ../elsewhere.png: a media path must be relative to the dataset folder and stay inside it",
        f"bad_question_abs: questionImg: {root / template['questionImg']}: a media path must be relative to the dataset "
        "folder and stay inside it",
        "bad_no_question: question: missing",
    ]
    lines_of = lambda stderr: [line.removeprefix(f"error: {dataset}: ") for line in stderr.splitlines()]  # noqa: E731
    written = invoke("requests", dataset, "--task", "family-choice", "--modality", "images", "--provider", "chat",
                     "--out", tmp_path / "r.jsonl")
    assert written.exit_code == 1 and "Traceback" not in written.output
    assert sorted(lines_of(written.stderr)) == sorted(expected)
    assert [r["id"] for r in lines(tmp_path / "r.jsonl")] == [r["id"] for r in good]
    _, answers = stub_answers(generated["visfactor"] / "visfactor_items.json", "family-choice")
    with StubServer({"answers": answers}, tmp_path / "stub") as server:
        run = invoke(*run_args(dataset, "family-choice", server.url, tmp_path / "answers.jsonl"))
    assert run.exit_code == 1 and "Traceback" not in run.output
    assert sorted(lines_of(run.stderr)) == sorted(expected)
    assert sorted(r["id"] for r in lines(tmp_path / "answers.jsonl")) == sorted(r["id"] for r in good)
