"""Issue 18: `foldsim eval` on family records against a real OpenAI-compatible server process on
127.0.0.1 (tests/openai_stub_server.py): a family choice set (SRBench, the composite image) and an
open-ended `holes` set (SpatialViz 5x5, the steps image). The server answers perfectly (score 1.0)
and wrongly (score < 1); the messages it received hold the item's image (the very PNG bytes
`generate --family` wrote) and its question. Sheet sizes as tests/test_families_road.py, so the
compilations are shared through the persistent cache."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from cli_invoke import invoke
from foldsim.eval.prompts import dataset_prompts
from foldsim.eval.requests import RequestOptions, chat_messages
from openai_stub_server import StubServer, message_key

MODEL = "stub-model"
COUNT = 3



@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Path]:
    from foldsim.dataset.families import write_family
    from foldsim.families.registry import family

    root = tmp_path_factory.mktemp("family-eval")
    out = {}
    for name, level in (("srbench", "2"), ("spatialviz", "L2")):
        written = write_family(family(name), root / name, COUNT, 0, level, media=True)
        out[name] = Path(written["items"])
    return out


def keys_of(dataset: Path, task: str) -> dict[str, str]:
    """item id -> the stub's key for the request `eval` sends for it."""
    items = list(dataset_prompts(dataset, task, "images")[1])
    assert items and not [i.error for i in items if i.error]
    return {item.id: message_key(chat_messages(item.messages, RequestOptions(MODEL))) for item in items}


def evaluate(dataset: Path, task: str, answers: dict[str, str], folder: Path) -> tuple[dict, list[dict]]:
    """`foldsim eval` against the stub answering `answers` (key -> text): (score.json, server log)."""
    with StubServer({"answers": answers, "log_messages": True}, folder / "stub") as server:
        run = invoke("eval", dataset, "--endpoint", server.url, "--model", MODEL, "--task", task,
                     "--modality", "images", "--out", folder / "run")
        assert run.exit_code == 0, run.output
        log = server.log()
    assert f"{COUNT} of {COUNT} items answered" in run.stdout
    return json.loads((folder / "run" / "score.json").read_text()), log


def sent(log: list[dict]) -> dict[str, tuple[str, list[bytes]]]:
    """key -> (the text of every message, the decoded images) of each request the server answered."""
    out = {}
    for row in log:
        assert row["outcome"] == "answer", row
        texts, images = [], []
        for message in row["messages"]:
            content = message["content"]
            for part in [{"type": "text", "text": content}] if isinstance(content, str) else content:
                if part["type"] == "text":
                    texts.append(part["text"])
                else:
                    url = part["image_url"]["url"]
                    assert url.startswith("data:image/png;base64,")
                    images.append(base64.b64decode(url.partition(",")[2]))
        out[row["key"]] = ("\n".join(texts), images)
    return out


def test_eval_family_choice(generated, tmp_path):
    dataset = generated["srbench"]
    records = json.loads(dataset.read_text())
    keys = keys_of(dataset, "family-choice")
    perfect = {keys[r["id"]]: f"The unfolded sheet matches.\nAnswer: {r['answer']}" for r in records}
    score, log = evaluate(dataset, "family-choice", perfect, tmp_path / "perfect")
    assert score["metrics"]["accuracy"] == 1.0 and len(score["items"]) == COUNT
    messages = sent(log)
    assert len(messages) == COUNT
    for record in records:  # the composite image, byte for byte, and the question
        text, images = messages[keys[record["id"]]]
        assert images == [(dataset.parent / record["questionImg"]).read_bytes()]
        assert record["question"] in text and "Answer: <letter>" in text
    wrong = {keys[r["id"]]: "Answer: " + next(o["label"] for o in r["options"] if o["error"]) for r in records}
    score, _ = evaluate(dataset, "family-choice", wrong, tmp_path / "wrong")
    assert score["metrics"]["accuracy"] == 0.0


def test_eval_holes(generated, tmp_path):
    from foldsim.eval.holes import answer_pairs

    dataset = generated["spatialviz"]
    records = json.loads(dataset.read_text())
    keys = keys_of(dataset, "holes")
    perfect = {keys[r["id"]]: "Unfolding.\n" + json.dumps({"holes": answer_pairs(r)}) for r in records}
    score, log = evaluate(dataset, "holes", perfect, tmp_path / "perfect")
    assert score["metrics"]["exact_match"] == 1.0 and score["metrics"]["partial"] == 1.0
    messages = sent(log)
    for record in records:  # the steps image (never the options) and the open question
        text, images = messages[keys[record["id"]]]
        assert images == [(dataset.parent / record["stepsImg"]).read_bytes()]
        assert record["openQuestion"] in text and record["question"] not in text
    dropped = {keys[r["id"]]: json.dumps({"holes": answer_pairs(r)[1:]}) for r in records}  # one hole missing
    score, _ = evaluate(dataset, "holes", dropped, tmp_path / "dropped")
    assert score["metrics"]["exact_match"] == 0.0 and 0 < score["metrics"]["partial"] < 1
