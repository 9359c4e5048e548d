"""Train a vision-language model on foldsim items with TRL's GRPOTrainer and foldsim's rewards.

    foldsim generate --task prediction --group two_step --group three_step --count 500 --seed 1 \\
        --splits train=0.9,test=0.1 --out data
    foldsim export data --format hf --task prediction --modality images --out hf-data
    python -m examples.train_grpo hf-data --check          # the rewards on the true answers: all 1.0
    python -m examples.train_grpo hf-data --model Qwen/Qwen2.5-VL-3B-Instruct   # needs trl, a GPU

The split is `--split` (default: `train` when the export has one, else the only split there is);
the rewards follow the config's task: prediction-like tasks (prediction, backward, text) get
`prediction_exact` and `prediction_partial`, planning gets `planning_correct`, `planning_valid` and
`planning_partial`; a config holding both gets all of them (each returns None for the other task's
rows, which TRL skips). The export's `record` and `task` columns reach the reward functions as
keyword arguments (TRL passes every dataset column but `prompt`), so no truth is wired by hand.

Prompts are TRL's conversational format: the text parts, and an image placeholder where the
prompt shows each image (the images stay in the `images` column, in the same order). TRL's
GRPOTrainer takes images, not video: a video config is refused (export `--modality frames`, the
video's frames as images, instead). Not run by `make test` (TRL is not installed there); `make
test-harness` runs `to_conversation` and the rewards through TRL's own reward call.
"""

from __future__ import annotations

import argparse
import sys

#: (reward names, weights) per task: the exact answer counts most, partial credit shapes early training
REWARDS = {
    "prediction": (("prediction_exact", "prediction_partial"), (1.0, 0.5)),
    "planning": (("planning_correct", "planning_valid", "planning_partial"), (1.0, 0.25, 0.5)),
}
PREDICTION_LIKE = ("prediction", "backward", "text")


def to_conversation(row: dict) -> dict:
    """A TRL conversational prompt: the question's text parts, with an image placeholder wherever
    the prompt shows an image. ValueError for a prompt that shows a video (TRL takes no video)."""
    from foldsim.outputs.export import question_parts

    content = []
    for kind, value in question_parts(row["question"]):
        if kind == "text":
            content.append({"type": "text", "text": value})
        elif kind == "image":
            content.append({"type": "image"})
        else:
            raise ValueError(f"{row.get('id')}: the prompt shows a video, which TRL's GRPOTrainer does not take; "
                             "export --modality frames instead")
    return {"prompt": [{"role": "user", "content": content}]}


def reward_setup(tasks: set[str]) -> tuple[list, list[float]]:
    """The reward functions and weights for the tasks of a split (a task without rewards: ValueError)."""
    from foldsim import rewards

    functions, weights = [], []
    for key in ("prediction", "planning"):
        if any(t == key or (key == "prediction" and t in PREDICTION_LIKE) for t in tasks):
            names, key_weights = REWARDS[key]
            functions += [getattr(rewards, name) for name in names]
            weights += list(key_weights)
    unknown = sorted(t for t in tasks if t not in PREDICTION_LIKE and t != "planning")
    if unknown or not functions:
        raise ValueError(f"no foldsim reward for task(s) {', '.join(unknown) or 'none'} "
                         "(rewards exist for prediction, backward, text and planning)")
    return functions, weights


def pick_split(available: list[str], wanted: str | None) -> str:
    if wanted is not None:
        if wanted not in available:
            raise ValueError(f"--split {wanted}: the export has {', '.join(available)}")
        return wanted
    if "train" in available:
        return "train"
    if len(available) == 1:
        return available[0]
    raise ValueError(f"the export has no train split; pick one with --split ({', '.join(available)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="a folder written by `foldsim export --format hf`")
    parser.add_argument("--config", default="prediction_images", help="the export's config (task_modality)")
    parser.add_argument("--split", default=None, help="the split to train on (default: train, else the only one)")
    parser.add_argument("--model", default="Qwen/Qwen2.5-VL-3B-Instruct")
    parser.add_argument("--out", default="grpo-foldsim")
    parser.add_argument("--check", action="store_true", help="score the true answers with the rewards and stop")
    args = parser.parse_args()

    from datasets import load_dataset

    data = load_dataset(args.data, args.config)
    try:
        split = pick_split(list(data), args.split)
        train = data[split]
        functions, weights = reward_setup(set(train["task"]))
    except ValueError as problem:
        sys.exit(f"error: {problem}")
    print(f"{args.config} / {split}: {len(train)} items; rewards {', '.join(f.__name__ for f in functions)}")
    if args.check:
        for reward in functions:
            scores = [s for s in reward(prompts=None, completions=train["answer"], record=train["record"],
                                        task=train["task"], modality=train["modality"]) if s is not None]
            print(f"{reward.__name__}: mean {sum(scores) / max(1, len(scores)):.3f} over {len(scores)} true answers")
        return

    from trl import GRPOConfig, GRPOTrainer

    try:
        train = train.map(to_conversation)
    except ValueError as problem:
        sys.exit(f"error: {problem}")
    config = GRPOConfig(
        output_dir=args.out,
        num_generations=8,  # completions per prompt: GRPO compares them with each other
        per_device_train_batch_size=8,
        max_completion_length=2048,  # the prompt asks for step-by-step work before the JSON answer
        learning_rate=1e-6,
        reward_weights=weights,
        logging_steps=10,
        bf16=True,
    )
    trainer = GRPOTrainer(model=args.model, reward_funcs=functions, args=config, train_dataset=train)
    trainer.train()


if __name__ == "__main__":
    main()
