"""TRL against the record families' rewards (run in the trl venv by tests/harness/run.py, after
trl_check.py): hand-written records in the record contract's shape (STARE's yes/no items, and a
cube-net family's count task), exported with `foldsim export --format hf`, go through TRL's own
reward call (GRPOTrainer._calculate_rewards, on a stand-in holding what it reads) with
foldsim.eval.family_rewards: the export's true answers score 1.0, broken completions 0.0, chat
messages like strings.

    python trl_record_check.py WORK_DIR
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import check, main_guard, report  # noqa: E402
from lmms_record_check import make_records, png  # noqa: E402


def make_count_records(folder: Path) -> Path:
    """Four cube-net records with a two-name count task."""
    folder.mkdir(parents=True, exist_ok=True)
    records = []
    for n in range(1, 5):
        rid = f"pfp-cube_{n:05d}"
        records.append({"id": rid, "family": "pfp-cube", "level": "easy" if n % 2 else "hard", "taskType": "Choice",
                        "question": "Which cube does the net fold into?", "questionImg": f"{rid}.png",
                        "stepsImgs": [f"{rid}_step1.png"], "options": [{"label": "A", "error": None}], "answer": "A",
                        "info": {}, "native": [], "countQuestion": "How many faces are red, and how many blue?",
                        "countAnswer": {"red": n, "blue": 6 - n}})
        (folder / f"{rid}.png").write_bytes(png(2 * n))
        (folder / f"{rid}_step1.png").write_bytes(png(2 * n + 1))
    path = folder / "pfp-cube_items.json"
    path.write_text(json.dumps(records, indent=1))
    return path


def export_hf(dataset: Path, task: str, out: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "foldsim.cli", "export", str(dataset), "--format", "hf", "--task",
                           task, "--modality", "images", "--out", str(out)], capture_output=True, text=True, timeout=900)
    check(done.returncode == 0, f"foldsim export --task {task} exited {done.returncode}: {done.stderr[-2000:]}")


def main() -> None:
    import torch
    from accelerate import Accelerator
    from datasets import load_dataset
    from transformers import TrainerState
    from trl.trainer.grpo_trainer import GRPOTrainer

    from foldsim.eval.family_rewards import family_choice_correct, values_exact, values_fields

    work = Path(sys.argv[1]).resolve()
    sets = {"family-yesno": (make_records(work / "stare"), [family_choice_correct]),
            "count": (make_count_records(work / "cube"), [values_exact, values_fields])}
    lines = []
    for task, (dataset, functions) in sets.items():
        export_hf(dataset, task, work / f"hf-{task}")
        rows = load_dataset(str(work / f"hf-{task}"), f"{task.replace('-', '_')}_images")["test"]
        stand_in = SimpleNamespace(
            accelerator=Accelerator(cpu=True), reward_funcs=functions, reward_processing_classes=[None] * len(functions),
            reward_func_names=[f.__name__ for f in functions], state=TrainerState(), environments=None,
            _log_completion_extra=lambda *a, **k: None, _log_metric=lambda *a, **k: None,
            args=SimpleNamespace(report_to=[]))
        inputs = [dict(row) for row in rows]
        prompts = [[{"role": "user", "content": row["question"]}] for row in rows]
        for label, completions, expected in (
            ("true answers (strings)", list(rows["answer"]), 1.0),
            ("true answers (chat messages)", [[{"role": "assistant", "content": a}] for a in rows["answer"]], 1.0),
            ("broken completions", ["maybe", "", "{\"red\": [1]}", "\x00" * 9][: len(rows)]
             + ["{}"] * max(0, len(rows) - 4), 0.0),
        ):
            rewards = GRPOTrainer._calculate_rewards(stand_in, inputs, prompts, completions, [[0]] * len(completions))
            check(tuple(rewards.shape) == (len(rows), len(functions)), f"{task}: shape {tuple(rewards.shape)}")
            check(bool(torch.all(rewards == expected)), f"{task} {label}: rewards {rewards.tolist()}, expected {expected}")
            lines.append(f"{task}: TRL _calculate_rewards, {label}: {[f.__name__ for f in functions]} all {expected}")
    report("trl", lines)


if __name__ == "__main__":
    main_guard("trl", main)
