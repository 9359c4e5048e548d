"""verify: plans/s of `foldsim.eval.verify.replay_plans` on many planning answers against the per-item
loop (parse the plan, replay it with `simulate_reference`, compare the hole multisets).

The answers are the shared planning file's own plans (its foldingTypes and initialHoles written as
`folds`/`holes` answers) repeated to 100K items with distinct ids; the published plans that punch
three holes break the two-punch rule, so not every item is correct, which both sides must agree on.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
from rich.table import Table

from foldsim.eval.answers import Answer, parse_answer_record
from foldsim.codes import code_of_entry
from foldsim.reference import simulate_reference
from foldsim.eval.verify import MAX_PUNCHES, replay_plans
from foldsim.planning import PlanningTask, planning_task

from .harness import Context, first_and_steady, fmt_rate, fmt_seconds, rate, timed_loop


def answer_count(ctx: Context) -> int:
    return 2_000 if ctx.options.quick else 100_000


def plan_answer(record: dict) -> dict:
    """The record's own plan written the way a model answers a planning prompt."""
    return {"id": record["id"], "folds": [code_of_entry(e) for e in record["foldingTypes"]],
            "holes": record["initialHoles"]}


def repeated(records: list, n: int) -> tuple[list[PlanningTask], list[Answer]]:
    """n (task, answer) pairs cycling through the records, each copy with its own id."""
    tasks = [planning_task(r, i) for i, r in enumerate(records)]
    answers = [parse_answer_record(plan_answer(r), i) for i, r in enumerate(records)]
    ids = [f"{tasks[i % len(tasks)].id}#{i // len(tasks)}" for i in range(n)]
    return ([replace(tasks[i % len(tasks)], id=ids[i]) for i in range(n)],
            [replace(answers[i % len(answers)], id=ids[i]) for i in range(n)])


def reference_verdict(pair: tuple[PlanningTask, Answer]) -> bool:
    """The plain loop's judgement of one answer: the plan's rules, then a replay and a multiset compare."""
    task, answer = pair
    plan = answer.plan()
    holes = [h.hole() for h in plan.holes]
    if plan.notes or None in holes or any(c.startswith("R") for c in plan.folds):
        return False
    if len(plan.folds) != task.folds or len(holes) > MAX_PUNCHES:
        return False
    result = simulate_reference(plan.folds, holes)
    return result.status == "ok" and Counter(h.key for h in result.holes) == Counter(h.key for h in task.target)


def run(ctx: Context) -> dict:
    n = answer_count(ctx)
    tasks, answers = repeated(ctx.planning_records, n)
    timing, verdicts = first_and_steady(lambda: replay_plans(tasks, answers), 1)
    correct = np.array([v.correct for v in verdicts])
    size = min(ctx.options.baseline_sample, n)
    rows = np.sort(np.random.default_rng([ctx.options.seed, n]).choice(n, size, replace=False))
    seconds, judged = timed_loop([(tasks[i], answers[i]) for i in rows], reference_verdict, "reference verify loop")
    per_item = seconds / size
    return {"answers": n, **timing, "plans_per_s": rate(n, timing["steady_s"]), "correct": int(correct.sum()),
            "reasons": dict(Counter(v.reason for v in verdicts[: len(ctx.planning_records)])),
            "reference": {"sample": size, "sample_s": seconds, "per_item_s": per_item, "batch_s": per_item * n,
                          "extrapolated": size < n, "plans_per_s": rate(1, per_item),
                          "disagreements": int((np.array(judged) != correct[rows]).sum())},
            "speedup": per_item * n / timing["steady_s"]}


def report(result: dict) -> list[Table]:
    ref = result["reference"]
    table = Table("answers", "first call", "steady", "plans/s", "correct", "reference (per-item loop)", "speedup",
                  title="verify: replay_plans vs the plain loop", title_justify="left")
    table.add_row(f"{result['answers']:,}", fmt_seconds(result["first_s"]), fmt_seconds(result["steady_s"]),
                  fmt_rate(result["plans_per_s"]), f"{result['correct']:,}",
                  f"{fmt_seconds(ref['batch_s'])} ({fmt_rate(ref['plans_per_s'])}/s, extrapolated from "
                  f"{ref['sample']}; {ref['disagreements']} disagree)", f"{result['speedup']:,.0f}x")
    return [table]
