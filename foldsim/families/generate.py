"""Keyed multiple-choice items of any family on the general engine (docs/families.md):
`generate_family` samples candidates with the family's sampler, simulates each with its
simulated-mistake variants in one batched call and keeps the realizable ones with enough distinct
options; `make_record` writes foldsim's family record of one.

Generation is batched: a batch of candidates is sampled (pure Python, exact Fractions), every
candidate and every simulated-mistake variant of it goes through ONE `simulate_items` call, the
realizable ones with enough distinct options are kept. A candidate that fails in any way is
dropped and replaced; it never aborts the batch.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..errors import InputError
from ..sheets import PointHole, SheetItem, item_to_record
from .base import LABELS, Family, Option, Plan, holes_to_json
from .distractors import choose_options, simulated_variants
from .records import media_fields, open_question


def generate_family(fam: Family, count: int, seed: int, level: str | None = None,
                    on_progress: Callable[[int], None] | None = None, first_id: int = 1) -> list[dict]:
    """`count` keyed items of the family (foldsim's machine-readable records, see docs/families.md).
    Level: the one named, else the levels in turn. Same arguments, same records."""
    from ..engine import simulate_items  # imported on use: it starts JAX

    if count < 0:
        raise InputError(f"must be at least 0, got {count}", field="--count")
    names = [fam.level(level).name] if level is not None else list(fam.levels)
    rng = random.Random(f"foldsim:{fam.name}:{seed}")
    records: list[dict] = []
    attempts = 0
    while len(records) < count:
        want = count - len(records)
        batch_size = 64 if want <= 24 else 256  # few batch shapes: the kernel compiles once per shape
        plans: list[Plan] = []
        for k in range(batch_size):
            lv = fam.levels[names[(len(records) + k) % len(names)]] if len(names) > 1 else fam.levels[names[0]]
            try:
                plan = fam.sample(rng, lv)
            except InputError:
                plan = None
            if plan is not None:
                plans.append(plan)
        attempts += batch_size
        if attempts > 200 * count + 1000:
            raise InputError(f"could not generate {count} items of {fam.name} (too many unrealizable candidates)")
        variants = [simulated_variants(fam, p) for p in plans]
        flat = [p.item for p in plans] + [v.item for vs in variants for v in vs]
        results = simulate_items(flat)
        keys, rest = results[: len(plans)], results[len(plans):]
        pos = 0
        for plan, vs, key in zip(plans, variants, keys, strict=True):
            vres = rest[pos: pos + len(vs)]
            pos += len(vs)
            if len(records) >= count or not key.ok or not key.holes:
                continue
            try:
                options = choose_options(fam, plan, key.holes, vs, vres, rng)
            except (InputError, ValueError, ArithmeticError):  # one bad candidate: drop it
                options = None
            if options is None:
                continue
            records.append(make_record(fam, plan, key.holes, options, rng, first_id + len(records)))
            if on_progress:
                on_progress(1)
    return records


def make_record(fam: Family, plan: Plan, key: tuple[PointHole, ...], wrong: list[Option], rng: random.Random,
                number: int) -> dict:
    item_id = f"{fam.name}_{number:05d}"
    options = [Option(key, None, {})] + list(wrong)
    rng.shuffle(options)
    labels = LABELS[: len(options)]
    answer = labels[next(i for i, o in enumerate(options) if o.error is None)]
    item = plan.item
    item = SheetItem(item.sheet, item.actions, item.punches, item_id, item.resolution)
    record = {"id": item_id, "family": fam.name, "level": plan.level, "taskType": fam.task_type,
              "item": item_to_record(item), "resultHoles": holes_to_json(key), "totalNumberofHoles": len(key),
              "options": [{"label": lab, "resultHoles": holes_to_json(o.holes), "error": o.error,
                           "errorDetail": o.detail} for lab, o in zip(labels, options, strict=True)],
              "answer": answer, "info": plan.info}
    record["native"] = fam.native_rows(record)
    add_prompt_fields(fam, record)
    return record


def add_prompt_fields(fam: Family, record: dict) -> None:
    """The fields the evaluation road reads (docs/families.md, Evaluation): the media file names,
    the multiple-choice question, and the open-ended task's question and hole naming."""
    labels = [o["label"] for o in record["options"]]
    record.update(media_fields(fam.name, record["id"], labels))
    native = record["native"][0].get("Question") if record.get("native") else None
    choices = ", ".join(labels[:-1]) + f" or {labels[-1]}"
    record["question"] = native if isinstance(native, str) else fam.question + f" Choose from options {choices}."
    record["holeNames"] = fam.hole_names
    record["openQuestion"] = open_question(record)
