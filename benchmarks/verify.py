"""verify: planning answers judged per second, end to end from the answer text (parse, replay,
judge), on three paths measured in the same run on the same input:

- fast (the default): `verify_completions` — plain plans decoded once with orjson and read by dict
  lookups, 1..4-fold plans replayed by gathers from the fold-sequence table;
- kernel: the tolerant reader for every answer and the JAX kernel for every replay
  (`judge_plans(..., engine="kernel", fast=False)` over `parse_answer_record`), the path the fast
  one is tested against;
- plain loop: parse the plan, replay it with `simulate_reference`, compare the hole multisets, per
  item (timed on a sample, extrapolated).

Plus `score_completions("planning", ...)` (the default-mode scores of the same answers: replay and
hole matching as arrays). The answers are the shared planning file's own plans, 100K of them, each a
distinct text: half a bare JSON object, half a reasoning line and the object in a ```json fence.
The published three-punch plans break the two-punch rule, so not every item is correct, which
every path must agree on. Tasks are parsed once beforehand (as a reward function holds them).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import replace

import numpy as np
from rich.table import Table

from foldsim.codes import code_of_entry
from foldsim.eval.answers import parse_answer_record
from foldsim.eval.score_base import truth_item
from foldsim.eval.scoring import score_completions
from foldsim.eval.verify import MAX_PUNCHES, judge_plans, verify_completions
from foldsim.planning import PlanningTask, planning_task
from foldsim.reference import simulate_reference

from .harness import Context, first_and_steady, fmt_rate, fmt_seconds, rate, timed_loop


def answer_count(ctx: Context) -> int:
    return 2_000 if ctx.options.quick else 100_000


def plan_text(record: dict, i: int) -> str:
    """The record's own plan written the way a model answers a planning prompt (distinct per i)."""
    plan = json.dumps({"folds": [code_of_entry(e) for e in record["foldingTypes"]], "holes": record["initialHoles"]})
    return plan if i % 2 else f"Attempt {i}: I fold, then punch through every layer.\n```json\n{plan}\n```"


def workload(records: list, n: int) -> tuple[list[PlanningTask], list, list[str]]:
    """n (task, truth item, answer text) triples cycling through the records, each with its own id."""
    tasks = [planning_task(r, i) for i, r in enumerate(records)]
    truth = [truth_item(r, i) for i, r in enumerate(records)]
    ids = [f"{records[i % len(records)]['id']}#{i // len(records)}" for i in range(n)]
    return ([replace(tasks[i % len(tasks)], id=ids[i]) for i in range(n)],
            [replace(truth[i % len(truth)], id=ids[i]) for i in range(n)],
            [plan_text(records[i % len(records)], i) for i in range(n)])


def kernel_path(tasks: list[PlanningTask], texts: list[str]):
    """The tolerant reader on every answer and the kernel for every replay."""
    answers = [parse_answer_record({"id": t.id, "response": text}, i) for i, (t, text) in enumerate(zip(tasks, texts))]
    return judge_plans(tasks, answers, engine="kernel", fast=False)


def reference_verdict(pair: tuple[PlanningTask, str]) -> bool:
    """The plain loop's judgement of one answer: read it, check the plan's rules, replay it, compare."""
    task, text = pair
    plan = parse_answer_record(text, 0).plan()
    holes = [h.hole() for h in plan.holes]
    if plan.notes or None in holes or any(c.startswith("R") for c in plan.folds):
        return False
    if len(plan.folds) != task.folds or len(holes) > MAX_PUNCHES:
        return False
    result = simulate_reference(plan.folds, holes)
    return result.status == "ok" and Counter(h.key for h in result.holes) == Counter(h.key for h in task.target)


def cpu_seconds(fn) -> float:
    """Process CPU seconds of one call: steadier than wall time on a shared machine (it counts
    XLA's worker threads too, so for the kernel it can exceed the wall time on an idle one)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def run(ctx: Context) -> dict:
    n = answer_count(ctx)
    tasks, truth, texts = workload(ctx.planning_records, n)
    fast_timing, fast = first_and_steady(lambda: verify_completions(tasks, texts), ctx.options.repeats)
    kernel_timing, kernel = first_and_steady(lambda: kernel_path(tasks, texts), 1, min_seconds=0.0)
    score_timing, report = first_and_steady(lambda: score_completions("planning", truth, texts), ctx.options.repeats)
    fast_timing["cpu_s"] = cpu_seconds(lambda: verify_completions(tasks, texts))
    kernel_timing["cpu_s"] = cpu_seconds(lambda: kernel_path(tasks, texts))
    score_timing["cpu_s"] = cpu_seconds(lambda: score_completions("planning", truth, texts))
    size = min(ctx.options.baseline_sample, n)
    rows = np.sort(np.random.default_rng([ctx.options.seed, n]).choice(n, size, replace=False))
    seconds, judged = timed_loop([(tasks[i], texts[i]) for i in rows], reference_verdict, "reference verify loop")
    per_item = seconds / size
    return {
        "answers": n,
        "fast": {**fast_timing, "plans_per_s": rate(n, fast_timing["steady_s"]), "correct": int(fast.correct.sum())},
        "kernel": {**kernel_timing, "plans_per_s": rate(n, kernel_timing["steady_s"]), "correct": int(kernel.correct.sum())},
        "score": {**score_timing, "answers_per_s": rate(n, score_timing["steady_s"]), "exact": report.counts["exact"]},
        "same_verdicts": fast.reasons.tolist() == kernel.reasons.tolist(),
        "reasons": dict(Counter(fast.reasons[: len(ctx.planning_records)].tolist())),
        "reference": {"sample": size, "sample_s": seconds, "per_item_s": per_item, "batch_s": per_item * n,
                      "extrapolated": size < n, "plans_per_s": rate(1, per_item),
                      "disagreements": int((np.array(judged) != fast.correct[rows]).sum())},
        "speedup_vs_kernel": kernel_timing["steady_s"] / fast_timing["steady_s"],
        "speedup_vs_loop": per_item * n / fast_timing["steady_s"],
    }


def report(result: dict) -> list[Table]:
    ref = result["reference"]
    table = Table("path", "first call", "steady", "CPU", "answers/s", "correct", "vs fast",
                  title=f"verify {result['answers']:,} planning answers, end to end from text "
                        f"(same verdicts on every path: {result['same_verdicts']})", title_justify="left")
    fast, kernel, score = result["fast"], result["kernel"], result["score"]
    table.add_row("fast: verify_completions", fmt_seconds(fast["first_s"]), fmt_seconds(fast["steady_s"]),
                  fmt_seconds(fast["cpu_s"]), fmt_rate(fast["plans_per_s"]), f"{fast['correct']:,}", "1x")
    table.add_row("kernel + tolerant reader", fmt_seconds(kernel["first_s"]), fmt_seconds(kernel["steady_s"]),
                  fmt_seconds(kernel["cpu_s"]), fmt_rate(kernel["plans_per_s"]), f"{kernel['correct']:,}",
                  f"{result['speedup_vs_kernel']:,.1f}x slower")
    table.add_row(f"plain loop (extrapolated from {ref['sample']}; {ref['disagreements']} disagree)", "",
                  fmt_seconds(ref["batch_s"]), "", fmt_rate(ref["plans_per_s"]), "", f"{result['speedup_vs_loop']:,.0f}x slower")
    table.add_row("score_completions (planning)", fmt_seconds(score["first_s"]), fmt_seconds(score["steady_s"]),
                  fmt_seconds(score["cpu_s"]), fmt_rate(score["answers_per_s"]), f"{score['exact']:,} exact", "")
    return [table]
