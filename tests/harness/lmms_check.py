"""lmms-eval 0.7.x against foldsim's lmms-eval export (run in the lmms venv by tests/harness/run.py).

1. TaskManager with --include_path on a MOVED export: the task loads its Parquet shards and
   videos from where the folder lies now, evaluates only the test split, and its doc_to_messages
   is foldsim eval's message part for part (text, images, video interleaved).
2. The lmms-eval CLI with a registered recording chat model (tests/harness/plugin, an entry point):
   what the model is handed is foldsim eval's message for every test item and nothing of another
   split; a truthful model scores exact_match 1.0, a wrong one 0.0.

    python lmms_check.py EXPORTS_DIR DATASET_DIR WORK_DIR
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import check, excerpt, main_guard, records, report, sent_parts  # noqa: E402

MODALITIES = ("images", "video")


def content_parts(messages: list[dict]) -> list[dict]:
    from common import digest

    [message] = messages
    check(message["role"] == "user", f"one user message expected, got {message['role']}")
    parts = []
    for c in message["content"]:
        if c["type"] == "text":
            parts.append({"type": "text", "text": c["text"]})
        elif c["type"] == "image":
            parts.append({"type": "image", "size": list(c["url"].size), "digest": digest(c["url"])})
        else:
            check(Path(c["url"]).is_file(), f"video {c['url']} is not a file")
            parts.append({"type": "video", "name": Path(c["url"]).name, "path": c["url"]})
    return parts


def same(got: list[dict], want: list[dict]) -> bool:
    strip = [{k: v for k, v in p.items() if k != "path"} for p in got]
    return strip == want


def task_manager_checks(exports: Path, dataset: Path) -> dict[str, list[str]]:
    from lmms_eval.tasks import TaskManager, get_task_dict

    truth = records(dataset)
    test_ids = sorted(i for i, r in truth.items() if (r.get("split") or "test") == "test")
    lines, tested = [], {}
    for modality in MODALITIES:
        folder = exports / f"lmms_{modality}"
        name = f"foldsim_prediction_{modality}"
        manager = TaskManager(include_path=str(folder / "lmms_eval"))
        check(name in manager.all_tasks, f"TaskManager does not list {name}")
        task = get_task_dict([name], manager)[name]
        check(task.config.test_split == "test", f"{name}: test_split is {task.config.test_split}")
        docs = list(task.test_docs())
        ids = sorted(d["id"] for d in docs)
        check(ids == test_ids, f"{name}: evaluates {ids}, the test split is {test_ids}")
        for doc in docs:
            got = content_parts(task.config.doc_to_messages(doc))
            want = sent_parts(dataset, "prediction", modality, truth[doc["id"]])
            check(same(got, want), f"{name} {doc['id']}: doc_to_messages differs from foldsim eval's message:\n"
                  f"{excerpt(got)}\nfoldsim eval:\n{excerpt(want)}")
            for part in got:
                if part["type"] == "video":
                    check(Path(part["path"]).is_relative_to(folder), f"{part['path']} is not under the moved export")
        tested[name] = ids
        lines.append(f"TaskManager {name}: {len(docs)} test docs (of {len(truth)} items), messages = foldsim eval's")
    report("lmms-eval", lines)
    return tested


def cli_checks(exports: Path, dataset: Path, work: Path, tested: dict[str, list[str]]) -> None:
    truth = records(dataset)
    env = dict(os.environ)  # the recorder is registered by the entry point of tests/harness/plugin
    lines = []
    for modality in MODALITIES:
        name = f"foldsim_prediction_{modality}"
        for mode, expected in (("truthful", 1.0), ("wrong", 0.0)):
            record = work / f"recorded_{modality}_{mode}.jsonl"
            record.unlink(missing_ok=True)
            out = work / f"lmms_out_{modality}_{mode}"
            command = [str(Path(sys.executable).with_name("lmms-eval")), "--model", "foldsim_recorder",
                       "--model_args", f"record={record},mode={mode}", "--include_path",
                       str(exports / f"lmms_{modality}" / "lmms_eval"), "--tasks", name, "--batch_size", "1",
                       "--output_path", str(out)]
            done = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True, timeout=900)
            log = done.stdout + done.stderr
            check(done.returncode == 0, f"lmms-eval exited {done.returncode}:\n{log[-3000:]}")
            results = sorted(out.rglob("*results*.json"))
            check(results, f"lmms-eval wrote no results file under {out}:\n{log[-2000:]}")
            scores = json.loads(results[-1].read_text())["results"][name]
            exact = scores.get("exact_match,none")
            check(exact == expected, f"{name} ({mode}): exact_match {exact}, expected {expected}")
            rows = [json.loads(line) for line in record.read_text().splitlines()]
            check(sorted(r["id"] for r in rows) == tested[name], f"{name}: the model was asked {[r['id'] for r in rows]}")
            check(all(r["split"] == "test" for r in rows), f"{name}: asked about splits {set(r['split'] for r in rows)}")
            for row in rows:
                want = sent_parts(dataset, "prediction", modality, truth[row["id"]])
                got = [{**p, "name": Path(p["url"]).name} if p["type"] == "video" else p for p in row["parts"]]
                got = [{k: v for k, v in p.items() if k != "url"} for p in got]
                check(row["roles"] == ["user"] and got == want, f"{name} {row['id']}: the model got\n"
                      f"{excerpt(row['parts'])}\nfoldsim eval sends\n{excerpt(want)}")
            lines.append(f"CLI {name} {mode}: exact_match {exact}, {len(rows)} requests, all test, "
                         "each = foldsim eval's message")
            if mode == "truthful":
                lines.append(f"recorded message ({rows[0]['id']}, {modality}):\n" + excerpt(rows[0]["parts"]))
    report("lmms-eval", lines)


def main() -> None:
    exports, dataset, work = (Path(a).resolve() for a in sys.argv[1:4])
    work.mkdir(parents=True, exist_ok=True)
    tested = task_manager_checks(exports, dataset)
    cli_checks(exports, dataset, work, tested)


if __name__ == "__main__":
    main_guard("lmms-eval", main)
