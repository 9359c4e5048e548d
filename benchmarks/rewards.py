"""rewards: completions scored per second by the TRL reward functions (foldsim.eval.rewards), against
the one-by-one path (`foldsim.eval.score_item` on each completion), in the same run.

The completions are model-like texts for the shared planning file's 400 tasks, cycled to 100K, every
one distinct (a reasoning line naming its number, so no two are the same and nothing is scored from
a cache): 60 % the right answer in a ```json block, 20 % a wrong one (a punch moved), 10 % the right
answer as a chat message list, 10 % prose without any JSON. The truth is the `record` column as
`foldsim export --format hf` writes it (the record as JSON text). Prediction answers list the
record's resultHoles and unfoldingTypes; planning answers its folds and punches.
"""

from __future__ import annotations

import json

import numpy as np
from rich.table import Table

from foldsim.codes import code_of_entry
from foldsim.eval import rewards as R
from foldsim.eval.item import score_item

from .harness import Context, first_and_steady, fmt_rate, fmt_seconds, rate, timed_loop

#: reward -> (task, the score_item metric it equals on each completion)
MEASURED = {"planning_correct": ("planning", "exact_match"), "planning_partial": ("planning", None),
            "prediction_exact": ("prediction", None), "prediction_partial": ("prediction", "partial")}


def completion_count(ctx: Context) -> int:
    return 2_000 if ctx.options.quick else 100_000


def answer_object(record: dict, task: str, wrong: bool) -> dict:
    """The record's own answer for the task; `wrong` moves the first hole by one triangle."""
    holes = [dict(h) for h in (record["initialHoles"] if task == "planning" else record["resultHoles"])]
    if wrong and holes:
        holes[0]["location"] = holes[0]["location"] % 32 + 1
    if task == "planning":
        return {"folds": [code_of_entry(e) for e in record["foldingTypes"]], "holes": holes}
    return {"totalNumberofHoles": len(holes), "unfoldingTypes": record["unfoldingTypes"], "resultHoles": holes}


def completion(record: dict, task: str, i: int) -> str | list:
    """The i-th completion (kinds cycle every 10: 6 right, 2 wrong, 1 chat, 1 prose)."""
    kind = i % 10
    reasoning = f"Attempt {i}: I follow the folds one at a time and track every layer under the punch."
    if kind == 9:
        return reasoning + " I am not sure of the final answer."
    text = f"{reasoning}\n```json\n{json.dumps(answer_object(record, task, wrong=kind in (6, 7)))}\n```"
    return [{"role": "assistant", "content": text}] if kind == 8 else text


def batch(ctx: Context, task: str, n: int) -> tuple[list, list[str], list[dict]]:
    """n completions, their `record` column (JSON text) and the records, cycling the planning file."""
    records = ctx.planning_records
    texts = [json.dumps(r) for r in records]
    rows = [i % len(records) for i in range(n)]
    return [completion(records[r], task, i) for i, r in enumerate(rows)], [texts[r] for r in rows], [records[r] for r in rows]


def run(ctx: Context) -> dict:
    n = completion_count(ctx)
    out = {"completions": n}
    for name, (task, metric) in MEASURED.items():
        completions, column, records = batch(ctx, task, n)
        reward = R.REWARDS[name]
        timing, values = first_and_steady(lambda: reward(completions=completions, record=column), 1)
        size = min(ctx.options.baseline_sample, n)
        sample = np.sort(np.random.default_rng([ctx.options.seed, n]).choice(n, size, replace=False))
        seconds, one_by_one = timed_loop([(records[i], completions[i]) for i in sample],
                                         lambda pair: score_item(task, pair[0], pair[1]), f"score_item loop ({name})")
        expected = [_reward_of(name, m) for m in one_by_one]
        per_item = seconds / size
        out[name] = {**timing, "completions_per_s": rate(n, timing["steady_s"]), "mean_reward": float(np.mean(values)),
                     "baseline": {"sample": size, "sample_s": seconds, "per_item_s": per_item, "batch_s": per_item * n,
                                  "extrapolated": size < n, "completions_per_s": rate(1, per_item),
                                  "disagreements": sum(abs(values[i] - e) > 1e-9 for i, e in zip(sample, expected))},
                     "speedup": per_item * n / timing["steady_s"]}
    return out


def _reward_of(name: str, metrics: dict) -> float:
    """What the reward must equal, from score_item's per-item metrics."""
    if name == "prediction_exact":
        return float(metrics["exact_match"] == 1.0 and metrics["unfolding_exact"] == 1.0)
    if name == "planning_partial":
        return metrics["partial"] if metrics["valid_plan_rate"] == 1.0 else 0.0
    return metrics[MEASURED[name][1]]


def report(result: dict) -> list[Table]:
    table = Table("reward", "completions", "first call", "steady", "completions/s", "one by one (score_item)",
                  "speedup", title="rewards: batched TRL reward functions vs score_item per completion",
                  title_justify="left")
    for name in MEASURED:
        r = result[name]
        base = r["baseline"]
        table.add_row(name, f"{result['completions']:,}", fmt_seconds(r["first_s"]), fmt_seconds(r["steady_s"]),
                      fmt_rate(r["completions_per_s"]),
                      f"{fmt_seconds(base['batch_s'])} ({fmt_rate(base['completions_per_s'])}/s, extrapolated from "
                      f"{base['sample']}; {base['disagreements']} disagree)", f"{r['speedup']:,.0f}x")
    return [table]
