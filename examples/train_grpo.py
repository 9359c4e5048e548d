"""Train a vision-language model on foldsim items with TRL's GRPOTrainer and foldsim's rewards.

    foldsim generate --task prediction --group two_step --group three_step --count 500 --seed 1 \\
        --splits train=0.9,test=0.1 --out data
    foldsim export data --format hf --task prediction --modality images --out hf-data
    python -m examples.train_grpo hf-data --check          # the rewards on the true answers: all 1.0
    python -m examples.train_grpo hf-data --model Qwen/Qwen2.5-VL-3B-Instruct   # needs trl, a GPU

The export's `record` column reaches the reward functions as a keyword argument (TRL passes every
dataset column but `prompt`), so no truth has to be wired by hand. Not run by the test suite (TRL
and a model are not installed there); the reward functions themselves are tested.
"""

from __future__ import annotations

import argparse
import re

MARK = re.compile(r"(<image \d+>)")


def to_conversation(row: dict) -> dict:
    """A TRL conversational prompt: the question's text with an image placeholder wherever the
    prompt shows an image (the images themselves stay in the `images` column, in the same order)."""
    content = []
    for piece in MARK.split(row["question"]):
        if MARK.fullmatch(piece):
            content.append({"type": "image"})
        elif piece.strip():
            content.append({"type": "text", "text": piece})
    return {"prompt": [{"role": "user", "content": content}]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="a folder written by `foldsim export --format hf`")
    parser.add_argument("--config", default="prediction_images", help="the export's config (task_modality)")
    parser.add_argument("--model", default="Qwen/Qwen2.5-VL-3B-Instruct")
    parser.add_argument("--out", default="grpo-foldsim")
    parser.add_argument("--check", action="store_true", help="score the true answers with the rewards and stop")
    args = parser.parse_args()

    from datasets import load_dataset

    from foldsim.rewards import prediction_exact, prediction_partial

    train = load_dataset(args.data, args.config, split="train")
    if args.check:
        for reward in (prediction_exact, prediction_partial):
            scores = reward(prompts=None, completions=train["answer"], record=train["record"])
            print(f"{reward.__name__}: mean {sum(scores) / len(scores):.3f} over {len(scores)} true answers")
        return

    from trl import GRPOConfig, GRPOTrainer

    train = train.map(to_conversation)
    config = GRPOConfig(
        output_dir=args.out,
        num_generations=8,  # completions per prompt: GRPO compares them with each other
        per_device_train_batch_size=8,
        max_completion_length=2048,  # the prompt asks for step-by-step work before the JSON answer
        learning_rate=1e-6,
        reward_weights=[1.0, 0.5],  # the exact answer counts most; partial credit shapes early training
        logging_steps=10,
        bf16=True,
    )
    trainer = GRPOTrainer(model=args.model, reward_funcs=[prediction_exact, prediction_partial], args=config,
                          train_dataset=train)
    trainer.train()


if __name__ == "__main__":
    main()
