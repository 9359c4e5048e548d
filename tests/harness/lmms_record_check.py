"""lmms-eval 0.7.x against a record family's lmms-eval export in STARE's shape (run in the lmms venv
by tests/harness/run.py, after lmms_check.py).

Six hand-written yes/no records of the `stare` family in the record contract's shape
(foldsim/families/record_family.py: question, question image, step pictures, answer yes/no, two
levels), exported with `foldsim export --format lmms-eval --task family-yesno`:

1. TaskManager loads `foldsim_stare_folding_nets` with STARE's generation settings; its documents
   carry STARE's fields (qid, question, images, answer, category) and its doc_to_messages is
   foldsim eval's message part for part (the question, the net, every step picture, in order).
2. The lmms-eval CLI with the recording chat model: a truthful model scores `correct` 1.0, a wrong
   one 0.0, and each request is foldsim eval's message.

    python lmms_record_check.py WORK_DIR
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import check, excerpt, main_guard, report, sent_parts  # noqa: E402

TASK = "foldsim_stare_folding_nets"
LEVELS = ("all_vis", "partial_vis")
STARE_GENERATION = {"max_new_tokens": 8192, "temperature": 0.0, "top_p": 1.0, "num_beams": 1, "do_sample": False}


def png(shade: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (24 + shade, 16), (40 * shade % 256, 90, 200)).save(buffer, "PNG")
    return buffer.getvalue()


def make_records(folder: Path) -> Path:
    """The records file and its pictures (distinct bytes each)."""
    folder.mkdir(parents=True, exist_ok=True)
    records, shade = [], 0
    for n in range(1, 7):
        rid = f"stare_{n:05d}"
        record = {"id": rid, "family": "stare", "level": LEVELS[n % 2], "taskType": "YesNo",
                  "question": "Based on the steps, can the net be folded to form a cube, yes or no?",
                  "questionImg": f"{rid}.png", "stepsImgs": [f"{rid}_step{k}.png" for k in (1, 2, 3)], "options": [],
                  "answer": "yes" if n % 3 else "no", "info": {}, "native": []}
        for name in (record["questionImg"], *record["stepsImgs"]):
            shade += 1
            (folder / name).write_bytes(png(shade))
        records.append(record)
    path = folder / "stare_items.json"
    path.write_text(json.dumps(records, indent=1))
    return path


def task_manager_checks(export: Path, dataset: Path, truth: dict[str, dict]) -> None:
    from lmms_eval.tasks import TaskManager, get_task_dict

    manager = TaskManager(include_path=str(export / "lmms_eval"))
    check(TASK in manager.all_tasks, f"TaskManager does not list {TASK}")
    task = get_task_dict([TASK], manager)[TASK]
    check(task.config.test_split == "test", f"{TASK}: test_split is {task.config.test_split}")
    generation = {k: task.config.generation_kwargs.get(k) for k in STARE_GENERATION}
    check(generation == STARE_GENERATION, f"{TASK}: generation_kwargs {generation}, STARE's are {STARE_GENERATION}")
    docs = list(task.test_docs())
    check(sorted(d["id"] for d in docs) == sorted(truth), f"{TASK}: evaluates {[d['id'] for d in docs]}")
    for doc in docs:
        record = truth[doc["id"]]
        stare = {"qid": doc["qid"], "category": doc["category"], "answer": doc["answer"], "images": len(doc["images"])}
        want = {"qid": record["id"], "category": record["level"], "answer": record["answer"],
                "images": 1 + len(record["stepsImgs"])}
        check(stare == want and isinstance(doc["question"], str), f"{doc['id']}: STARE's fields {stare}, want {want}")
        got = _parts(task.config.doc_to_messages(doc))
        expected = sent_parts(dataset.parent, "family-yesno", "images", record)
        check(got == expected, f"{doc['id']}: doc_to_messages differs from foldsim eval's message:\n{excerpt(got)}\n"
              f"foldsim eval:\n{excerpt(expected)}")
    report("lmms-eval", [f"TaskManager {TASK}: {len(docs)} docs with STARE's fields, STARE's generation settings, "
                         "messages = foldsim eval's"])


def _parts(messages: list[dict]) -> list[dict]:
    from common import digest

    [message] = messages
    check(message["role"] == "user", f"one user message expected, got {message['role']}")
    return [{"type": "text", "text": c["text"]} if c["type"] == "text" else
            {"type": "image", "size": list(c["url"].size), "digest": digest(c["url"])} for c in message["content"]]


def cli_checks(export: Path, dataset: Path, work: Path, truth: dict[str, dict]) -> None:
    lines = []
    for mode, expected in (("truthful", 1.0), ("wrong", 0.0)):
        record = work / f"recorded_stare_{mode}.jsonl"
        record.unlink(missing_ok=True)
        out = work / f"lmms_out_stare_{mode}"
        command = [str(Path(sys.executable).with_name("lmms-eval")), "--model", "foldsim_recorder",
                   "--model_args", f"record={record},mode={mode}", "--include_path", str(export / "lmms_eval"),
                   "--tasks", TASK, "--batch_size", "1", "--output_path", str(out)]
        done = subprocess.run(command, env=dict(os.environ), cwd=work, capture_output=True, text=True, timeout=900)
        log = done.stdout + done.stderr
        check(done.returncode == 0, f"lmms-eval exited {done.returncode}:\n{log[-3000:]}")
        results = sorted(out.rglob("*results*.json"))
        check(results, f"lmms-eval wrote no results file under {out}:\n{log[-2000:]}")
        correct = json.loads(results[-1].read_text())["results"][TASK].get("correct,none")
        check(correct == expected, f"{TASK} ({mode}): correct {correct}, expected {expected}")
        rows = [json.loads(line) for line in record.read_text().splitlines()]
        check(sorted(r["id"] for r in rows) == sorted(truth), f"{TASK}: the model was asked {[r['id'] for r in rows]}")
        for row in rows:
            want = sent_parts(dataset.parent, "family-yesno", "images", truth[row["id"]])
            check(row["roles"] == ["user"] and row["parts"] == want, f"{row['id']}: the model got\n"
                  f"{excerpt(row['parts'])}\nfoldsim eval sends\n{excerpt(want)}")
        lines.append(f"CLI {TASK} {mode}: correct {correct}, {len(rows)} requests, each = foldsim eval's message")
    report("lmms-eval", lines)


def main() -> None:
    work = Path(sys.argv[1]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    dataset = make_records(work / "stare")
    export = work / "stare-lmms"
    done = subprocess.run([sys.executable, "-m", "foldsim.cli", "export", str(dataset), "--format", "lmms-eval",
                           "--task", "family-yesno", "--modality", "images", "--out", str(export)],
                          capture_output=True, text=True, timeout=900)
    check(done.returncode == 0, f"foldsim export exited {done.returncode}: {done.stderr[-2000:]}")
    truth = {r["id"]: r for r in json.loads(dataset.read_text())}
    task_manager_checks(export, dataset, truth)
    cli_checks(export, dataset, work, truth)


if __name__ == "__main__":
    main_guard("lmms-eval", main)
