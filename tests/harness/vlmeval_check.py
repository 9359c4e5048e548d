"""VLMEvalKit (source checkout) against foldsim's VLMEvalKit export (run in the vlmeval venv by
tests/harness/run.py).

1. The export's class is registered as its README says (module copied into vlmeval/dataset/, the
   class imported and put in IMAGE_DATASET) in the harness's copy of the checkout, and the TSV put
   in $LMUData. build_dataset builds it; it holds the test split only; its prompt is foldsim
   eval's message part for part; it forces that prompt (the InternVL3 adapter, a model class with
   its own prompt builder, would otherwise put the images first and append "Answer the question
   using a single word or phrase").
2. run.py against a loopback OpenAI-compatible server (chat_server.py, answering truthfully):
   a plain chat model (--base-url) and the same with --custom-prompt internvl3. The server's log
   shows what reached the model; foldsim's scorer gives exact_match 1.0 on the test items.

    python vlmeval_check.py VLMEVALKIT_COPY EXPORT_DIR DATASET_DIR WORK_DIR
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import check, digest, excerpt, main_guard, records, report, sent_parts  # noqa: E402

NAME = "Foldsim_Prediction_Images"
CLASS = "FoldsimPredictionImages"
MODULE = "foldsim_prediction_images"
MARKER = "# registered by foldsim make test-harness"


def register(source: Path, export: Path) -> None:
    """What the export's README says to do, in the harness's copy of the checkout."""
    shutil.copyfile(export / f"{MODULE}.py", source / "vlmeval" / "dataset" / f"{MODULE}.py")
    init = source / "vlmeval" / "dataset" / "__init__.py"
    text = init.read_text()
    if MARKER not in text:
        anchor = "DATASET_CLASSES = "
        check(anchor in text, f"{init} has no `{anchor}` line to register the class before")
        line = f"from .{MODULE} import {CLASS}  {MARKER}\nIMAGE_DATASET += [{CLASS}]  {MARKER}\n"
        text = text.replace(anchor, line + anchor, 1)
        init.write_text(text)


def dataset_checks(export: Path, dataset: Path) -> tuple[list[dict], list[str]]:
    from vlmeval.dataset import DATASET_MODALITY, DATASET_TYPE, build_dataset
    from vlmeval.api.adapters import build_adapter
    from PIL import Image

    truth = records(dataset)
    test_ids = sorted(i for i, r in truth.items() if (r.get("split") or "test") == "test")
    data = build_dataset(NAME)
    check(type(data).__name__ == CLASS, f"build_dataset gave {type(data).__name__}")
    check(DATASET_TYPE(NAME) == "VQA" and DATASET_MODALITY(NAME) == "IMAGE", "type/modality")
    check(getattr(data, "force_use_dataset_prompt", False) is True, "the class does not force its prompt")
    ids = sorted(data.data["id"])
    check(ids == test_ids, f"the TSV holds {ids}, the test split is {test_ids}")
    items, lines = [], []
    for i in range(len(data)):
        line = data.data.iloc[i]
        want = sent_parts(dataset, "prediction", "images", truth[line["id"]])
        got = []
        for part in data.build_prompt(line):
            if part["type"] == "text":
                got.append({"type": "text", "text": part["value"]})
            else:
                with Image.open(part["value"]) as image:
                    got.append({"type": "image", "size": list(image.size), "digest": digest(image)})
        check(got == want, f"{line['id']}: build_prompt differs from foldsim eval's message:\n{excerpt(got)}\n"
              f"foldsim eval:\n{excerpt(want)}")
        from foldsim.eval.prompts import load_prompt

        [message] = [m for m in load_prompt("prediction", "images").messages(truth[line["id"]], dataset_dir=dataset)
                     if m.role == "user"]
        items.append({"id": line["id"], "answer": line["answer"], "want": want,
                      "images": [str(p.path) for p in message.parts if p.kind == "image"]})
    lines.append(f"build_dataset({NAME}): {CLASS}, {len(data)} test rows, build_prompt = foldsim eval's message")
    adapter = build_adapter("internvl3")
    adapter.dump_image_func = data.dump_image
    check(adapter.use_custom_prompt(NAME), "the InternVL3 adapter would not use its own prompt builder here")
    own = adapter.build_prompt(data.data.iloc[0], dataset=NAME)
    kinds = [p["type"] for p in own]
    lines.append("without force_use_dataset_prompt the InternVL3 adapter's own build_prompt would give: "
                 f"{kinds.count('image')} images first, then one text ending "
                 f"{own[-1]['value'][-60:]!r}")
    return items, lines


def internvl_text(want: list[dict]) -> str:
    """What the InternVL3 adapter's input processing makes of the interleaved parts: one prompt
    that starts `Image-1: <IMAGE_TOKEN>` per image and marks each image's place with <Image-k>."""
    n = sum(p["type"] == "image" for p in want)
    body, k = "", 0
    for part in want:
        if part["type"] == "text":
            body += part["text"]
        else:
            k += 1
            body += f"<Image-{k}>"
    body = body.replace("".join(f"<Image-{i + 1}>" for i in range(n)), "")
    return "".join(f"Image-{i + 1}: <IMAGE_TOKEN>\n" for i in range(n)) + body


def run_checks(source: Path, work: Path, items: list[dict]) -> list[str]:
    items_path = work / "items.json"
    items_path.write_text(json.dumps([{k: v for k, v in i.items() if k != "want"} for i in items]))
    log_path = work / "server.jsonl"
    log_path.write_text("")
    server = subprocess.Popen([sys.executable, str(HERE / "chat_server.py"), str(items_path), str(log_path)],
                              stdout=subprocess.PIPE, text=True)
    lines = []
    try:
        first = server.stdout.readline()
        check(first.startswith("PORT "), f"the loopback server did not start: {first!r}")
        url = f"http://127.0.0.1:{int(first.split()[1])}/v1"
        by_id = {i["id"]: i for i in items}
        for variant, extra in (("plain", []), ("internvl3", ["--custom-prompt", "internvl3"])):
            model = f"foldsim-stub-{variant}"
            out = work / f"run_{variant}"
            command = [sys.executable, "run.py", "--data", NAME, "--base-url", url, "--model", model, "--work-dir",
                       str(out), "--api-nproc", "1", "--retry", "1", *extra]
            done = subprocess.run(command, cwd=source, env=dict(os.environ), capture_output=True, text=True,
                                  timeout=900)
            log = done.stdout + done.stderr
            check(done.returncode == 0, f"run.py ({variant}) exited {done.returncode}:\n{log[-3000:]}")
            scores = sorted(out.rglob(f"*{NAME}*_score.json"))
            check(scores, f"run.py ({variant}) wrote no score file:\n{log[-3000:]}")
            result = json.loads(scores[-1].read_text())
            exact = result["metrics"].get("exact_match")
            check(exact == 1.0 and result["counts"]["items"] == len(items),
                  f"{variant}: exact_match {exact} over {result['counts']}")
            rows = [json.loads(r) for r in log_path.read_text().splitlines()]
            rows = [r for r in rows if r.get("model") == model]
            check(sorted(r["item"] for r in rows) == sorted(by_id), f"{variant}: requests for {[r['item'] for r in rows]}")
            for row in rows:
                [user] = [m for m in row["messages"] if m["role"] == "user"]
                want = by_id[row["item"]]["want"]
                if variant == "plain":
                    shape = [(p["type"], p.get("text")) for p in user["parts"]]
                    check(shape == [(p["type"], p.get("text")) for p in want],
                          f"plain {row['item']}: the model got\n{excerpt(user['parts'])}\nfoldsim eval sends\n{excerpt(want)}")
                else:
                    images = [p for p in user["parts"] if p["type"] == "image"]
                    texts = [p["text"] for p in user["parts"] if p["type"] == "text"]
                    check(len(images) == sum(p["type"] == "image" for p in want) and texts == [internvl_text(want)],
                          f"internvl3 {row['item']}: the model got\n{excerpt(user['parts'])}")
                    check("single word" not in texts[0] and "<image 1>" not in texts[0], "internvl3: prompt rewritten")
            lines.append(f"run.py {variant}: exact_match {exact} over {len(rows)} test items (server log = "
                         + ("foldsim eval's parts in order)" if variant == "plain" else
                            "InternVL's rendering of the same interleaved parts, no appended instruction)"))
            [user] = [m for m in rows[0]["messages"] if m["role"] == "user"]
            lines.append(f"recorded request ({variant}, {rows[0]['item']}):\n" + excerpt(user["parts"], 90))
            if variant == "internvl3":
                [text] = [p["text"] for p in user["parts"] if p["type"] == "text"]
                marks = [m.start() for m in re.finditer(r"<Image-\d+>", text)]
                lines.append("  its text around the image marks: " + " ... ".join(
                    repr(text[max(0, m - 40): m + 50]) for m in marks[:2]))
    finally:
        server.kill()
        server.wait()
    return lines


def main() -> None:
    source, export, dataset, work = (Path(a).resolve() for a in sys.argv[1:5])
    work.mkdir(parents=True, exist_ok=True)
    lmu = work / "LMUData"
    lmu.mkdir(exist_ok=True)
    shutil.copyfile(export / f"{NAME}.tsv", lmu / f"{NAME}.tsv")
    os.environ["LMUData"] = str(lmu)
    register(source, export)
    items, lines = dataset_checks(export, dataset)
    lines += run_checks(source, work, items)
    report("vlmeval", lines)


if __name__ == "__main__":
    main_guard("vlmeval", main)
