"""TRL against foldsim's hf export and reward functions (run in the trl venv by tests/harness/run.py).

- examples/train_grpo.py's conversational prompts go through TRL's own prepare_multimodal_messages:
  every image placeholder gets the export's image of the same position (interleaving kept);
- TRL's own reward call (GRPOTrainer._calculate_rewards, on a stand-in holding just what it reads:
  the reward functions, an Accelerator, the trainer state) with the example's reward wiring:
  the true answers score 1.0, broken completions 0.0, chat-message completions like strings.

    python trl_check.py HF_EXPORT DATASET_DIR     (PYTHONPATH = the foldsim checkout, for examples/)
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import check, main_guard, report  # noqa: E402


def main() -> None:
    import torch
    from accelerate import Accelerator
    from datasets import load_dataset
    from transformers import TrainerState
    from trl.data_utils import prepare_multimodal_messages
    from trl.trainer.grpo_trainer import GRPOTrainer

    from examples.train_grpo import pick_split, reward_setup, to_conversation

    export = Path(sys.argv[1])
    data = load_dataset(str(export), "prediction_images")
    split = pick_split(list(data), None)
    check(split == "train", f"the example picked {split}")
    rows = data[split]
    lines = []
    for row in rows:
        prompt = to_conversation(row)["prompt"]
        filled = prepare_multimodal_messages(prompt, images=list(row["images"]))
        content = filled[0]["content"]
        images = [p["image"] for p in content if p["type"] == "image"]
        check(len(images) == len(row["images"]) and all(a is b for a, b in zip(images, row["images"])),
              f"{row['id']}: TRL filled the placeholders with other images")
        check(content[0]["type"] == "text" and not any("<image" in p.get("text", "") or "<video" in p.get("text", "")
                                                        for p in content), f"{row['id']}: marks left in the text")
    lines.append(f"{len(rows)} {split} prompts: TRL's prepare_multimodal_messages fills each image placeholder in "
                 "place (text first, images interleaved)")

    functions, weights = reward_setup(set(rows["task"]))
    stand_in = SimpleNamespace(
        accelerator=Accelerator(cpu=True), reward_funcs=functions, reward_processing_classes=[None] * len(functions),
        reward_func_names=[f.__name__ for f in functions], state=TrainerState(), environments=None,
        _log_completion_extra=lambda *a, **k: None, _log_metric=lambda *a, **k: None,
        args=SimpleNamespace(report_to=[]))
    inputs = [dict(row, **to_conversation(row)) for row in rows]
    prompts = [i["prompt"] for i in inputs]
    for label, completions, expected in (
        ("true answers (strings)", list(rows["answer"]), 1.0),
        ("true answers (chat messages)", [[{"role": "assistant", "content": a}] for a in rows["answer"]], 1.0),
        ("broken completions", ["no idea", "```json\n{\"resultHoles\": [{\"shape\": 7}]", ""][: len(rows)]
         + ["{}"] * max(0, len(rows) - 3), 0.0),
    ):
        rewards = GRPOTrainer._calculate_rewards(stand_in, inputs, prompts, completions, [[0]] * len(completions))
        check(tuple(rewards.shape) == (len(rows), len(functions)), f"shape {tuple(rewards.shape)}")
        check(bool(torch.all(rewards == expected)), f"{label}: rewards {rewards.tolist()}, expected all {expected}")
        lines.append(f"TRL _calculate_rewards, {label}: {[f.__name__ for f in functions]} all {expected}")
    report("trl", lines)


if __name__ == "__main__":
    main_guard("trl", main)
