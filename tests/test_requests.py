"""Provider request files (foldsim.eval.requests, `foldsim requests`): each provider's output is
checked against its documented shape (evaluation-formats.md §1), media travel as base64 of the very
files (or as URLs), large sets are split at the provider's limits, ids Anthropic refuses are mapped
and scored back through the map, and the request files of the published planning file join back
to 359/400 when answered with its own plans."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from cli_invoke import invoke
from foldsim.codes import code_of_entry
from foldsim.errors import InputError
from foldsim.eval.requests import (
    RequestOptions, anthropic_ids, id_map_path, read_id_map, restore_ids, write_requests,
)
from test_prompts import add_3d_media, make_dataset, tiny_mp4

SYSTEM = "You are careful."


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """Two prediction items with text grids, step images, frames and a folding video."""
    root = tmp_path_factory.mktemp("requests-data")
    path, records = make_dataset(root, "prediction")
    tiny_mp4(root / "tiny.mp4")
    add_3d_media(root, records, root / "tiny.mp4")
    return path



def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def decoded(data: str, root: Path, source: str) -> bool:
    return base64.b64decode(data, validate=True) == (root / source).read_bytes()


def sources_of(dataset: Path, item: str, modality: str = "images") -> list[str]:
    from foldsim.eval.prompts import dataset_prompts

    _, items = dataset_prompts(dataset, "prediction", modality)
    [found] = [i for i in items if i.id == item]
    return [p.source for p in found.media]


# --------------------------------------------------------------------------------------------------
# documented shapes


def check_openai_line(line: dict, root: Path, sources: list[str], detail: str | None) -> None:
    """OpenAI Batch input: custom_id/method/url/body; body a chat.completions request."""
    assert set(line) == {"custom_id", "method", "url", "body"}
    assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
    body = line["body"]
    assert isinstance(body["model"], str) and body["max_completion_tokens"] == 321 and body["temperature"] == 0.5
    system, user = body["messages"]
    assert system == {"role": "system", "content": SYSTEM}
    assert user["role"] == "user" and isinstance(user["content"], list)
    images = []
    for part in user["content"]:
        if part["type"] == "text":
            assert set(part) == {"type", "text"} and part["text"]
        else:
            assert part["type"] == "image_url" and set(part) == {"type", "image_url"}
            match = re.fullmatch(r"data:image/png;base64,([A-Za-z0-9+/=]+)", part["image_url"]["url"])
            assert match and part["image_url"].get("detail") == detail
            images.append(match.group(1))
    assert len(images) == len(sources) and all(decoded(d, root, s) for d, s in zip(images, sources))


def test_openai_batch_lines(dataset, tmp_path):
    out = tmp_path / "batch.jsonl"
    options = RequestOptions("gpt-test", 321, 0.5, "high")
    report = write_requests(dataset, "prediction", "images", "openai", out, options=options, system=SYSTEM)
    assert report.files == [out] and report.requests == 2 and not report.failed
    rows = lines(out)
    assert [r["custom_id"] for r in rows] == ["PFHP_1", "PFHP_2"]
    for row in rows:
        check_openai_line(row, dataset.parent, sources_of(dataset, row["custom_id"]), "high")


def test_anthropic_batch_body(dataset, tmp_path):
    """Message Batches: {"requests": [{"custom_id", "params"}]}; the system prompt is `system`, not
    a message; images are base64 sources; max_tokens is always given (the API requires it)."""
    out = tmp_path / "batch.json"
    write_requests(dataset, "prediction", "images", "anthropic", out, options=RequestOptions("claude-test"), system=SYSTEM)
    data = json.loads(out.read_text())
    assert set(data) == {"requests"} and len(data["requests"]) == 2
    for request in data["requests"]:
        assert set(request) == {"custom_id", "params"} and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", request["custom_id"])
        params = request["params"]
        assert params["model"] == "claude-test" and params["max_tokens"] == 4096 and params["system"] == SYSTEM
        [message] = params["messages"]
        assert message["role"] == "user"
        images = []
        for block in message["content"]:
            if block["type"] == "text":
                assert set(block) == {"type", "text"}
            else:
                assert block["type"] == "image" and set(block["source"]) == {"type", "media_type", "data"}
                assert block["source"]["type"] == "base64" and block["source"]["media_type"] == "image/png"
                images.append(block["source"]["data"])
        sources = sources_of(dataset, request["custom_id"])
        assert len(images) == len(sources) and all(decoded(d, dataset.parent, s) for d, s in zip(images, sources))
    assert not id_map_path(out).exists()  # every id was valid: no map


def test_gemini_batch_lines(dataset, tmp_path):
    out = tmp_path / "batch.jsonl"
    write_requests(dataset, "prediction", "images", "gemini", out, options=RequestOptions(None, 99, 0.0), system=SYSTEM)
    for row in lines(out):
        assert set(row) == {"key", "request"}
        request = row["request"]
        assert set(request) == {"contents", "system_instruction", "generation_config"}
        assert request["system_instruction"] == {"parts": [{"text": SYSTEM}]}
        assert request["generation_config"] == {"max_output_tokens": 99, "temperature": 0.0}
        [content] = request["contents"]
        assert content["role"] == "user"
        images = []
        for part in content["parts"]:
            assert set(part) in ({"text"}, {"inline_data"})
            if "inline_data" in part:
                assert part["inline_data"]["mime_type"] == "image/png"
                images.append(part["inline_data"]["data"])
        sources = sources_of(dataset, row["key"])
        assert len(images) == len(sources) and all(decoded(d, dataset.parent, s) for d, s in zip(images, sources))


def test_chat_lines_are_chat_requests(dataset, tmp_path):
    """`chat`: {"id", ...} where everything but the id is a chat.completions body."""
    out = tmp_path / "chat.jsonl"
    write_requests(dataset, "prediction", "text", "chat", out, options=RequestOptions("local", 50))
    for row in lines(out):
        assert set(row) == {"id", "model", "messages", "max_tokens"} and row["model"] == "local"
        [user] = row["messages"]
        assert user["role"] == "user" and [p["type"] for p in user["content"]] == ["text"]
        assert "Step 0: initial sheet" in user["content"][0]["text"]


def test_media_as_urls(dataset, tmp_path):
    base = "https://data.example/set"
    source = sources_of(dataset, "PFHP_1")[1]
    options = RequestOptions("m", media_base=base + "/")
    write_requests(dataset, "prediction", "images", "openai", tmp_path / "o.jsonl", options=options)
    write_requests(dataset, "prediction", "images", "anthropic", tmp_path / "a.json", options=options)
    write_requests(dataset, "prediction", "images", "gemini", tmp_path / "g.jsonl", options=options)
    openai = lines(tmp_path / "o.jsonl")[0]["body"]["messages"][0]["content"]
    assert {"type": "image_url", "image_url": {"url": f"{base}/{source}"}} in openai
    anthropic = json.loads((tmp_path / "a.json").read_text())["requests"][0]["params"]["messages"][0]["content"]
    assert {"type": "image", "source": {"type": "url", "url": f"{base}/{source}"}} in anthropic
    gemini = lines(tmp_path / "g.jsonl")[0]["request"]["contents"][0]["parts"]
    assert {"file_data": {"mime_type": "image/png", "file_uri": f"{base}/{source}"}} in gemini
    assert "base64" not in (tmp_path / "o.jsonl").read_text()


def test_video_goes_to_providers_that_take_it(dataset, tmp_path):
    root = dataset.parent
    record = json.loads(dataset.read_text())[0]
    write_requests(dataset, "prediction", "video", "gemini", tmp_path / "g.jsonl", options=RequestOptions())
    parts = lines(tmp_path / "g.jsonl")[0]["request"]["contents"][0]["parts"]
    [video] = [p["inline_data"] for p in parts if p.get("inline_data", {}).get("mime_type") == "video/mp4"]
    assert decoded(video["data"], root, record["foldingVideo"])
    write_requests(dataset, "prediction", "video", "chat", tmp_path / "c.jsonl", options=RequestOptions("m"))
    content = lines(tmp_path / "c.jsonl")[0]["messages"][0]["content"]
    [video] = [p for p in content if p["type"] == "video_url"]
    assert video["video_url"]["url"].startswith("data:video/mp4;base64,")
    for provider in ("openai", "anthropic"):
        with pytest.raises(InputError, match="takes no video"):
            write_requests(dataset, "prediction", "video", provider, tmp_path / "x.jsonl", options=RequestOptions("m"))
    assert not (tmp_path / "x.jsonl").exists()


# --------------------------------------------------------------------------------------------------
# splitting


def test_files_split_at_the_limits_and_stale_parts_go(dataset, tmp_path):
    out = tmp_path / "batch.jsonl"
    report = write_requests(dataset, "prediction", "text", "openai", out, options=RequestOptions("m"), limits=(1, None))
    assert report.files == [tmp_path / "batch-0001.jsonl", tmp_path / "batch-0002.jsonl"] and not out.exists()
    assert [len(lines(f)) for f in report.files] == [1, 1]
    sizes = [len(line) + 1 for line in (tmp_path / "batch-0001.jsonl").read_text().splitlines()]
    report = write_requests(dataset, "prediction", "text", "openai", out, options=RequestOptions("m"),
                            limits=(None, sizes[0] + 10))  # room for one request per file
    assert len(report.files) == 2 and all(f.stat().st_size <= sizes[0] + 10 for f in report.files)
    report = write_requests(dataset, "prediction", "text", "openai", out, options=RequestOptions("m"))
    assert report.files == [out] and len(lines(out)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["batch.jsonl"]  # the split files were removed
    with pytest.raises(InputError, match="over the 100-byte file limit"):
        write_requests(dataset, "prediction", "text", "openai", out, options=RequestOptions("m"), limits=(None, 100))
    assert len(lines(out)) == 2 and sorted(p.name for p in tmp_path.iterdir()) == ["batch.jsonl"]


def test_anthropic_parts_are_each_a_batch_body(dataset, tmp_path):
    report = write_requests(dataset, "prediction", "text", "anthropic", tmp_path / "b.json",
                            options=RequestOptions("m"), limits=(1, None))
    assert [len(json.loads(f.read_text())["requests"]) for f in report.files] == [1, 1]


# --------------------------------------------------------------------------------------------------
# ids and joining back


def test_anthropic_ids_are_valid_unique_and_stable():
    ids = ["PFHP_1", "PFHP 1", "PFHP.1", "x" * 80, "x" * 80 + "y", "é", "PFHP_1-dd2b34e6"]
    mapped = anthropic_ids(ids)
    assert mapped["PFHP_1"] == "PFHP_1" and mapped["PFHP_1-dd2b34e6"] == "PFHP_1-dd2b34e6"
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", c) for c in mapped.values())
    assert len(set(mapped.values())) == len(ids) and anthropic_ids(ids) == mapped


TEXT_ONLY = "Holes punched through the folded sheet:\n{{initial_holes}}\nThere were {{num_steps}} steps.\n"


def prediction_answer(record: dict) -> str:
    return "Unfolding...\n```json\n" + json.dumps({"totalNumberofHoles": len(record["resultHoles"]),
                                                  "unfoldingTypes": record["unfoldingTypes"],
                                                  "resultHoles": record["resultHoles"]}) + "\n```"


def test_mapped_anthropic_ids_score_back_through_the_map(planning_file, tmp_path):
    """Ids Anthropic refuses are mapped in the request file, the map is kept next to it, and the
    provider's results (keyed by the mapped ids) score perfectly with `score --id-map`."""
    records = json.loads(planning_file.read_text())[:6]
    for index, record in enumerate(records):
        record["id"] = ["item 1", "item/2", "itém_3", "i.4", "z" * 70, "ok_6"][index]
    dataset = tmp_path / "odd.json"
    dataset.write_text(json.dumps(records))
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "prediction.text.txt").write_text(TEXT_ONLY)
    out = tmp_path / "batch.json"
    result = invoke("requests", dataset, "--task", "prediction", "--modality", "text", "--provider", "anthropic",
                    "--model", "claude-test", "--out", out, "--templates", templates)
    assert result.exit_code == 0, result.output
    assert "5 ids changed" in result.stdout and str(id_map_path(out)) in result.stdout
    id_map = read_id_map(id_map_path(out))
    assert sorted(id_map.values()) == sorted(r["id"] for r in records[:5])
    requests = json.loads(out.read_text())["requests"]
    by_original = {id_map.get(r["custom_id"], r["custom_id"]): r["custom_id"] for r in requests}
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps({"custom_id": by_original[r["id"]], "result": {"type": "succeeded", "message": {
        "type": "message", "role": "assistant", "content": [{"type": "text", "text": prediction_answer(r)}]}}}) + "\n"
        for r in reversed(records)))
    scored = invoke("score", "prediction", dataset, results, "--id-map", id_map_path(out), "--json")
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["metrics"]["exact_match"] == 1.0
    unmapped = json.loads(invoke("score", "prediction", dataset, results, "--json").stdout)
    assert unmapped["metrics"]["exact_match"] == pytest.approx(1 / 6)  # only ok_6 joins without the map
    restored = restore_ids(results, id_map_path(out))
    assert {row["custom_id"] for row in lines(restored)} == {r["id"] for r in records}


def plan_text(record: dict) -> str:
    plan = {"folds": [code_of_entry(e) for e in record["foldingTypes"]], "holes": record["initialHoles"]}
    return "My plan:\n```json\n" + json.dumps(plan) + "\n```"


PROVIDER_RESULT = {
    "openai": lambda line, text: {"id": "batch_req", "custom_id": line["custom_id"], "error": None, "response": {
        "status_code": 200, "request_id": "r", "body": {"object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}}},
    "anthropic": lambda line, text: {"custom_id": line["custom_id"], "result": {"type": "succeeded", "message": {
        "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]}}},
    "gemini": lambda line, text: {"key": line["key"], "response": {"candidates": [
        {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}},
}


@pytest.mark.parametrize("provider, first", [("openai", 400), ("anthropic", 100), ("gemini", 100)])
def test_published_planning_requests_join_back(planning_file, tmp_path, provider, first):
    """Requests for the published planning file, answered by the provider (in reverse order) with
    the file's own plans, join back on the request ids and score exact for every plan with at most
    two punches: 359/400 for the whole file (the 41 three-punch plans fail)."""
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "planning.text.txt").write_text("Holes after unfolding:\n{{result_holes}}\nUse {{num_folds}} folds.\n")
    records = json.loads(planning_file.read_text())[:first]
    dataset = tmp_path / "planning.json"
    dataset.write_text(json.dumps(records))
    by_id = {r["id"]: r for r in records}
    out = tmp_path / f"{provider}.jsonl"
    report = write_requests(dataset, "planning", "text", provider, out, templates=templates, options=RequestOptions("m"))
    assert report.requests == first and report.id_map is None
    sent = json.loads(out.read_text())["requests"] if provider == "anthropic" else lines(out)
    results = tmp_path / f"{provider}-results.jsonl"
    results.write_text("".join(json.dumps(PROVIDER_RESULT[provider](line, plan_text(by_id[line.get("custom_id") or line.get("key")])))
                               + "\n" for line in reversed(sent)))
    scored = invoke("score", "planning", dataset, results, "--json")
    assert scored.exit_code == 0, scored.output
    expected = sum(len(r["initialHoles"]) <= 2 for r in records)
    assert json.loads(scored.stdout)["counts"]["exact"] == expected == (359 if first == 400 else expected)


# --------------------------------------------------------------------------------------------------
# the command


def test_requests_command_reports_bad_items_and_usage_errors(dataset, tmp_path):
    root = tmp_path / "data"
    import shutil

    shutil.copytree(dataset.parent, root)
    record = json.loads(dataset.read_text())[1]
    (root / f"img_text_outputs/{record['id']}/text/{record['id']}_textual_steps.txt").unlink()
    out = tmp_path / "r.jsonl"
    result = invoke("requests", root / dataset.name, "--task", "prediction", "--modality", "text", "--provider", "chat",
                    "--out", out)
    assert result.exit_code == 1
    assert [r["id"] for r in lines(out)] == ["PFHP_1"]
    assert result.stderr.strip() == (f"error: {root / dataset.name}: {record['id']}: steps: missing media file "
                                     f"img_text_outputs/{record['id']}/text/{record['id']}_textual_steps.txt")
    for args, message in [
        (("--provider", "nope"), "--provider: unknown provider 'nope'"),
        (("--provider", "openai"), "--model: openai requests name their model: give --model"),
        (("--provider", "chat", "--detail", "max"), "--detail: must be one of low, high, auto, got 'max'"),
        (("--provider", "chat", "--task", "nosuch"), "task: unknown task 'nosuch'"),
    ]:
        argv = ["requests", dataset, "--task", "prediction", "--modality", "images", "--out", tmp_path / "u.jsonl", *args]
        result = invoke(*argv)
        assert result.exit_code == 2 and result.stderr.strip().startswith(f"error: {message}"), result.stderr
