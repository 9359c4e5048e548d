"""The choice tasks: multiple choice, its yes/no split, plan choice, and cue tests (issue 9).

- `choice`: a folding item plus K drawings of the unfolded sheet (labels A, B, ...), one right; every
  wrong one is the simulator's result for a named mistake (`foldsim.dataset.distractors`);
- `split`: the same item as K yes/no rows ("is this the unfolded sheet?") sharing an item index;
- `plan-choice`: a target hole pattern plus K fold sequences; the exhaustive solver says which of
  them can produce the target (the generating one always can, others may too: `answer` lists them
  all, and an answer naming any one of them is right).

Items are drawn exactly as `foldsim generate` draws prediction (choice, split) or planning
(plan-choice) items of the same groups and seed, level preset included; an item that cannot get
K - 1 pairwise different wrong options is redrawn from its group's random stream (never padded).
Every round simulates all pending items' variants in one batched kernel call.

Cue tests (`cues`): each item is written once per cue condition, with the same options; a `true`
cue is the folded state after step k, a `counterfactual` one the state after a different realizable
fold at step k, whose result (what the cue implies) is always one of the options.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..codes import action_code, code_of_entry, entry_of_code
from ..config import Config
from ..errors import InputError
from ..mentalblackboard_sheet import SHEET
from ..tasks import CHOICE_TASKS
from .. import kernels as K
from ..kernels import actions as A
from ..render.choice import cue_text, media_paths, options_text, plan_options_text, record_media
from ..render.text import grid_chars, grid_text
from ..rules import GROUPS
from ..solve import solve_tasks
from . import distractors as D
from .levels import level_score
from .media_names import MEDIA_FIELDS
from .options import CUE_KINDS, DEFAULT_OPTIONS, ChoiceSpec

BASE_TASK = {"choice": "prediction", "split": "prediction", "plan-choice": "planning"}
LABELS = "ABCDEFGH"
MAX_ROUNDS = 32  # redraw rounds before giving up on a group


def parse_list(text: str | None) -> tuple[str, ...] | None:
    """"a,b, c" -> ("a", "b", "c"); None stays None."""
    if text is None:
        return None
    return tuple(part.strip() for part in text.split(",") if part.strip())


@dataclass
class Chosen:
    """One item with its options picked: the configuration, the option entries in label order, the
    answer (a label; for plan-choice the list of labels that produce the target), and the cue."""

    config: Config
    options: list[dict]
    answer: str | list[str]
    truth: tuple[int, ...] = ()  # the result holes (hole keys), as the kernel computed them
    unfolding: tuple[str, ...] = ()
    max_layers: int = 0  # the most layers a punch goes through (for the level)
    cue_step: int | None = None  # 1-based action index whose state a cue shows
    counterfactual: np.ndarray | None = None  # the action row of the counterfactual cue
    counterfactual_label: str | None = None
    solutions: int | None = None  # plan-choice: the solver's number of distinct plans


# -- picking options ---------------------------------------------------------------------------------


def labelled(rng: np.random.Generator, distractors: Sequence, answer) -> list:
    """The options in label order: the answer at a uniformly random position, the distractors in
    a random order around it."""
    shuffled = [distractors[j] for j in rng.permutation(len(distractors))]
    at = int(rng.integers(len(distractors) + 1))
    return [*shuffled[:at], answer, *shuffled[at:]]


def select_choice(rng: np.random.Generator, config: Config, truth: tuple[int, ...], pool: list[D.Candidate],
                  spec: ChoiceSpec, models: Sequence[str], rows: D.Rows, actions: np.ndarray) -> Chosen | None:
    """The options of one choice item (None: not enough distinct distractors, redraw)."""
    forced: list[D.Candidate] = []
    cue_step = None
    if "counterfactual" in spec.cues:
        replaced = [c for c in pool if c.model == "replaced_fold"]
        if not replaced:
            return None
        steps = sorted({c.detail["step"] for c in replaced})
        cue_step = steps[int(rng.integers(len(steps)))]
        at_step = [c for c in replaced if c.detail["step"] == cue_step]
        forced = [at_step[int(rng.integers(len(at_step)))]]
    elif "true" in spec.cues:
        folds = D.fold_positions(actions)
        cue_step = folds[int(rng.integers(len(folds)))] + 1
    picked = D.choose(rng, pool, spec.options - 1, models, spec.similarity, taken=[truth], forced=forced)
    if picked is None:
        return None
    order = labelled(rng, picked, None)
    entries = [D.option_entry(LABELS[j], c, truth, rows) for j, c in enumerate(order)]
    answer = LABELS[order.index(None)]
    chosen = Chosen(config, entries, answer, cue_step=cue_step)
    if forced:
        chosen.counterfactual = rows.actions[forced[0].row]
        chosen.counterfactual_label = LABELS[next(j for j, c in enumerate(order) if c is forced[0])]
    return chosen


def select_plan(rng: np.random.Generator, config: Config, truth: tuple[int, ...], pool: list[D.Candidate],
                produces: set[tuple[str, ...]], solutions: int, spec: ChoiceSpec, models: Sequence[str],
                rows: D.Rows) -> Chosen | None:
    """The options of one plan-choice item: fold sequences that cannot produce the target first, then,
    only when too few exist, further ones that can (they are correct too)."""
    wrong = [c for c in pool if codes_of(c.keys) not in produces]
    right = [c for c in pool if codes_of(c.keys) in produces]
    wanted = spec.options - 1
    distinct_wrong = len({c.keys for c in wrong if c.model in models})
    picked = D.choose(rng, wrong, min(wanted, distinct_wrong), models, spec.similarity, taken=[truth]) or []
    if len(picked) < wanted:
        more = D.choose(rng, right, wanted - len(picked), models, spec.similarity,
                        taken=[truth, *(c.keys for c in picked)])
        if more is None:
            return None
        picked += more
    order = labelled(rng, picked, None)
    entries = []
    for j, candidate in enumerate(order):
        keys = truth if candidate is None else candidate.keys
        entry = {"label": LABELS[j], "foldingTypes": [entry_of_code(c) for c in codes_of(keys)],
                 "error": None if candidate is None else candidate.model,
                 "producesTarget": codes_of(keys) in produces}
        if candidate is not None:
            entry["errorDetail"] = candidate.detail
            entry["sharedHoles"] = candidate.shared
        entries.append(entry)
    answer = [e["label"] for e in entries if e["producesTarget"]]
    return Chosen(config, entries, answer, solutions=solutions)


def codes_of(actions: Sequence[int]) -> tuple[str, ...]:
    return tuple(action_code(int(a)) for a in actions if a != A.NOOP)


def plan_candidates(rows: D.Rows, outcome: D.Outcome, n_items: int):
    """Per item: the generating sequence (as action ints) and every distinct realizable variant
    sequence (a punch off the paper does not matter: options are fold sequences)."""
    realizable = np.isin(outcome.status, [K.OK, K.OFF_PAPER])
    truth_seq: list[tuple[int, ...]] = [()] * n_items
    truth_keys: list[tuple[int, ...]] = [()] * n_items
    for v, (i, model) in enumerate(zip(rows.item, rows.model)):
        if model == "truth":
            truth_seq[i] = tuple(int(a) for a in rows.actions[v] if a != A.NOOP)
            truth_keys[i] = outcome.keys[v]
    pools: list[list[D.Candidate]] = [[] for _ in range(n_items)]
    for v, (i, model) in enumerate(zip(rows.item, rows.model)):
        sequence = tuple(int(a) for a in rows.actions[v] if a != A.NOOP)
        if model != "truth" and realizable[v] and sequence != truth_seq[i]:
            shared = D.shared_holes(outcome.keys[v], truth_keys[i]) if outcome.ok[v] else 0
            pools[i].append(D.Candidate(model, rows.detail[v], sequence, v, shared))
    return truth_seq, truth_keys, pools


def pick_round(configs: list[Config], rngs: list[np.random.Generator], task: str, spec: ChoiceSpec) -> list[Chosen | None]:
    """One round: every pending item's variants simulated in one batched call, options picked."""
    items = D.Items.of_configs(configs)
    models = spec.models(task)
    if task == "plan-choice":
        rows = D.plan_rows(items, models)
        outcome = D.run_variants(rows)
        truth_seq, truth_keys, pools = plan_candidates(rows, outcome, len(items))
        tasks = [{"id": str(i), "numberofFoldingSteps": len(seq), "resultHoles": [D.hole_of_key(k).to_dict() for k in keys]}
                 for i, (seq, keys) in enumerate(zip(truth_seq, truth_keys))]
        solved = solve_tasks(tasks)
        out = []
        for i, (rng, config) in enumerate(zip(rngs, configs)):
            produces = {tuple(s.folds) for s in solved[i].solutions}
            if codes_of(truth_seq[i]) not in produces:
                raise RuntimeError(f"the solver does not reproduce generated plan {codes_of(truth_seq[i])}")
            out.append(select_plan(rng, config, truth_seq[i], pools[i], produces, solved[i].count, spec, models, rows))
        return with_truth(out, rows, outcome, items)
    needed = tuple(dict.fromkeys([*models, *(["replaced_fold"] if "counterfactual" in spec.cues else [])]))
    rows = D.choice_rows(items, D.prepare(items), needed)
    outcome = D.run_variants(rows)
    truth, pools = D.candidates(rows, outcome)
    out = [None if truth[i] is None else
           select_choice(rngs[i], configs[i], truth[i], pools[i], spec, models, rows, items.actions[i])
           for i in range(len(items))]
    return with_truth(out, rows, outcome, items)


def with_truth(chosen: list[Chosen | None], rows: D.Rows, outcome: D.Outcome, items: D.Items) -> list[Chosen | None]:
    """The picked items with their truth (result keys, unfolding codes, deepest punch) from the
    same kernel call: the records need no further simulation."""
    for v, (i, model) in enumerate(zip(rows.item, rows.model)):
        if model == "truth" and chosen[i] is not None:
            chosen[i].truth = outcome.keys[v]
            chosen[i].unfolding = outcome.unfolding_codes(v)
            punched = items.location[i][items.location[i] >= 0]
            chosen[i].max_layers = int(outcome.layers[v, punched].max(initial=0))
    return chosen


def pick_items(options, spec: ChoiceSpec) -> list[Chosen]:
    """The items of every group (`options.group_slots()`), drawn as the base task draws them, with their options; items
    without enough distinct distractors are redrawn from the same group's random stream."""
    from .draw import draw_group, draw_group_at_level, item_configs

    base = replace(options, task=BASE_TASK[options.task], choice=None, total=None)
    draw_of = draw_group_at_level if base.level else draw_group
    names = list(GROUPS)
    slots = options.group_slots()
    groups = [group for group, _, _ in slots]
    rngs = [np.random.default_rng([options.seed, names.index(g)]) for g in groups]
    draws = [draw_of(rng, replace(base, count=items), group, first) for rng, (group, first, items) in zip(rngs, slots)]
    chosen: list[list[Chosen | None]] = [[None] * items for _, _, items in slots]
    for round_ in range(MAX_ROUNDS + 1):
        pending = {g: [r for r in range(len(chosen[g])) if chosen[g][r] is None] for g in range(len(draws))}
        pending = {g: rows for g, rows in pending.items() if rows}
        if not pending:
            return [c for group in chosen for c in group]
        if round_ == MAX_ROUNDS:
            g, rows = next(iter(pending.items()))
            raise InputError(f"group {groups[g]}: {len(rows)} items found no {spec.options - 1} distinct "
                             f"distractors from {', '.join(spec.models(options.task))} in {MAX_ROUNDS} redraws",
                             field="--options")
        if round_:
            for g, rows in pending.items():
                fresh = draw_of(rngs[g], replace(base, count=len(rows)), groups[g], slots[g][1])
                draws[g] = draws[g].with_rows(np.array(rows), fresh)
        keys = [(g, r) for g, rows in pending.items() for r in rows]
        configs = [c for g, rows in pending.items() for c in item_configs(draws[g].rows(np.array(rows)), 1)]
        for (g, r), pick in zip(keys, pick_round(configs, [rngs[g] for g, _ in keys], options.task, spec)):
            chosen[g][r] = pick
    raise AssertionError("unreachable")


# -- records ------------------------------------------------------------------------------------------------


def cue_grids(chosen: Sequence[Chosen]) -> list[dict[str, str]]:
    """Per item: the text grid of the folded state after the cue step, for the true sequence and
    (when the item has one) the counterfactual one; one batched kernel call for all."""
    rows = D.Rows()
    for i, item in enumerate(chosen):
        if item.cue_step is None:
            continue
        actions = D.Items.of_configs([item.config]).actions[0]
        prefix = np.where(np.arange(D.WIDTH) < item.cue_step, actions, A.NOOP)
        rows.append(i, "true", {}, prefix, ())
        if item.counterfactual is not None:
            rows.append(i, "counterfactual", {}, np.where(np.arange(D.WIDTH) < item.cue_step, item.counterfactual, A.NOOP), ())
    grids: list[dict[str, str]] = [{} for _ in chosen]
    if len(rows):
        outcome = D.run_variants(rows)
        for v, (i, kind) in enumerate(zip(rows.item, rows.model)):
            grids[i][kind] = grid_text(grid_chars(outcome.layers[v] > 0), sheet=SHEET)
            grids[i][f"{kind}_codes"] = codes_of(rows.actions[v])
    return grids


def cue_field(kind: str, item: Chosen, grids: dict[str, str]) -> dict:
    """The record's `cue`: its kind, the step whose state it shows, that state's actions and text
    grid, and the option the cue implies (the truth for a true cue)."""
    if kind == "none":
        return {"kind": "none"}
    implied = item.answer if kind == "true" else item.counterfactual_label
    return {"kind": kind, "step": item.cue_step, "foldingTypes": [entry_of_code(c) for c in grids[f"{kind}_codes"]],
            "grid": grids[kind], "impliedAnswer": implied}


def record_id(number: int, cue: str, spec: ChoiceSpec) -> str:
    """`PFHP_<n>`, with a neutral suffix `_c<j>` (j = position in CUE_KINDS) when several cue
    conditions are written, so no file name tells a counterfactual cue from a true one."""
    return f"PFHP_{number}" if len(spec.cues) == 1 else f"PFHP_{number}_c{CUE_KINDS.index(cue)}"


def choice_records(options) -> list[dict]:
    """Every record of a choice, split or plan-choice dataset (GenerateOptions with `choice` set or
    None for the defaults)."""
    from .draw import TASK_TYPE

    task = options.task
    spec = (options.choice or ChoiceSpec()).validate(task)
    chosen = pick_items(options, spec)
    numbers = [options.first_id + k for k in range(len(chosen))]
    configs = [replace(item.config, id=f"PFHP_{n}") for item, n in zip(chosen, numbers)]
    grids = cue_grids(chosen)
    plan_papers = plan_option_papers(chosen, configs) if task == "plan-choice" else {}
    records = []
    for item, config, grid in zip(chosen, configs, grids):
        base = {
            "numberofFoldingSteps": len(config.actions),
            "foldingTypes": config.folding_types(),
            "unfoldingTypes": list(item.unfolding),
            "initialHoles": [h.to_dict() for h in config.holes],
            "resultHoles": [D.hole_of_key(k).to_dict() for k in item.truth],
            "totalNumberofHoles": len(item.truth),
        }
        rotations = sum(code.startswith("R-") for code in config.actions)
        level = level_score(len(config.actions) - rotations, rotations, item.max_layers, len(config.holes), item.solutions)
        for cue in spec.cues:
            rid = record_id(int(config.id.split("_")[1]), cue, spec)
            labels = [o["label"] for o in item.options]
            record = {"id": rid, "taskType": TASK_TYPE[task], **base, "options": item.options, "answer": item.answer,
                      "numberofOptions": len(item.options)}
            if task == "plan-choice":
                record["numberofSolutions"] = item.solutions
            if len(spec.cues) > 1 or cue != "none":
                record["cue"] = cue_field(cue, item, grid)
            record["level"] = level
            record.update(prompt_texts(record, plan_papers.get(config.id)))
            record = with_media(record, media_paths(task, rid, config.id, labels, cue=cue != "none"))
            records += split_rows(record, config.id) if task == "split" else [record]
    return records


#: where a media field goes in a choice, split or plan-choice record: before the first of these
#: fields the record has (or last). Choice and plan-choice records: every media field before
#: `optionsText`; split rows: `foldingVideo` and `cueImg` before `cueText`, their question and
#: option images before `optionText`.
MEDIA_PLACES = {"questionImg": ("optionsText", "optionText"), "optionImgs": ("optionsText", "optionText"),
                "optionImg": ("optionsText", "optionText"), "targetImg": ("optionsText", "optionText"),
                "foldingVideo": ("optionsText", "cueText"), "cueImg": ("optionsText", "cueText")}


def with_media(record: dict, fields: dict) -> dict:
    """The record listing exactly the media `fields` (field -> path or list of paths): a field it
    already has keeps its place (with the value given), a new one goes where `choice_records` puts
    it (MEDIA_PLACES), and any other media field is dropped. So a record written without its media
    fields gets them back where a record written with them has them."""
    before: dict[str | None, list[str]] = {}
    for name in fields:
        if name not in record:
            before.setdefault(next((k for k in MEDIA_PLACES.get(name, ()) if k in record), None), []).append(name)
    out: dict = {}
    for key, value in record.items():
        out.update((name, fields[name]) for name in before.get(key, ()))
        if key not in MEDIA_FIELDS:
            out[key] = value
        elif key in fields:
            out[key] = fields[key]
    out.update((name, fields[name]) for name in before.get(None, ()))
    return out


def prompt_texts(record: dict, papers) -> dict[str, str]:
    """The text-modality views of a record (prompt templates show them with `record.FIELD`):
    `optionsText` (every option as a labelled grid; plan-choice: the target and each option's
    codes and grids) and `cueText` (the cue's grid, "" without a cue). None of them holds an
    error model or the answer."""
    if record["taskType"] == "PlanChoice":
        return {"optionsText": plan_options_text(record, papers, sheet=SHEET)}
    return {"optionsText": options_text(record, sheet=SHEET), "cueText": cue_text(record.get("cue"))}


def plan_option_papers(chosen: Sequence[Chosen], configs: Sequence[Config]) -> dict[str, list[list[np.ndarray]]]:
    """Per plan-choice item: for every option, the paper (bool[32]) after each of its folds; one
    batched kernel call for all."""
    rows = D.Rows()
    shape = []
    for i, item in enumerate(chosen):
        shape.append([])
        for option in item.options:
            codes = [code_of_entry(e) for e in option["foldingTypes"]]
            row = D.Items.of_configs([Config.from_codes(codes)]).actions[0]
            n = int((row != A.NOOP).sum())
            shape[-1].append(n)
            for k in range(1, n + 1):
                rows.append(i, "prefix", {}, np.where(np.arange(D.WIDTH) < k, row, A.NOOP), ())
    layers = D.run_variants(rows).layers if len(rows) else np.zeros((0, 32))
    out, v = {}, 0
    for config, counts in zip(configs, shape):
        out[config.id] = []
        for n in counts:
            out[config.id].append([layers[v + k] > 0 for k in range(n)])
            v += n
    return out



def split_rows(record: dict, item_id: str) -> list[dict]:
    """The K yes/no rows of a choice record: one per option, sharing the item index; their media
    fields are `record_media`'s (their own question and option image, the item's folding video and
    the record's cue image)."""
    rows = []
    for option in record["options"]:
        row = {"id": f"{record['id']}_{option['label']}", "taskType": "Split", "item": record["id"],
               "option": option["label"], "answer": "yes" if option["label"] == record["answer"] else "no"}
        row.update({k: v for k, v in record.items()
                    if k not in ("id", "taskType", "options", "answer", "optionsText") and k not in MEDIA_FIELDS})
        row["optionHoles"] = option["resultHoles"]
        row["error"] = option["error"]
        for key in ("errorDetail", "errorConfig", "sharedHoles"):
            if key in option:
                row[key] = option[key]
        if "cue" in record and record["cue"]["kind"] != "none":
            row["cue"] = {**record["cue"], "impliedAnswer": "yes" if record["cue"]["impliedAnswer"] == option["label"] else "no"}
        row["optionText"] = next(block for block in record["optionsText"].split("\n\n")
                                 if block.startswith(f"Option {option['label']}:"))
        rows.append(with_media(row, record_media(row)))
    return rows


def choice_spec_of(task: str, options: int | None, distractors: str | None, similarity: str | None,
                   cues: str | None) -> ChoiceSpec | None:
    """The ChoiceSpec of the command-line options (validated; None for other tasks), or an
    InputError naming the option: the choice options mean nothing for the other tasks."""
    given = {"--options": options, "--distractors": distractors, "--similarity": similarity, "--cues": cues}
    if task not in CHOICE_TASKS:
        for name, value in given.items():
            if value is not None:
                raise InputError(f"only the choice tasks ({', '.join(CHOICE_TASKS)}) take it", field=name)
        return None
    spec = ChoiceSpec(DEFAULT_OPTIONS if options is None else options, parse_list(distractors),
                      similarity or "random", parse_list(cues) or ("none",))
    return spec.validate(task)
