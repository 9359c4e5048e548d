"""The harness files of an export: VLMEvalKit's TSV, dataset class and README (`--format vlmevalkit`)
and lmms-eval's task YAML and utils.py next to the Hugging Face folder (`--format lmms-eval`), from
the templates in foldsim/outputs/harness/."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from string import Template

from ..io import atomic_write_text, read_bounded
from .hf import preset_name, write_hf
from .items import (
    LMMS_DIR, LOWER_IS_BETTER, PEER_TASKS, ExportItem, _by_split, _video_path, config_name, evaluated_split, metric_names,
)

def _b64(path: Path) -> str:
    return base64.b64encode(read_bounded(path)).decode("ascii")


def tsv_frame(items: Sequence[ExportItem], on_item: Callable[[int], None] | None = None):
    """The VLMEvalKit table: one row per item (pandas DataFrame)."""
    import pandas as pd

    rows = []
    for index, item in enumerate(items):
        row = {"index": index}
        if item.images:
            encoded = [_b64(p) for p in item.images]
            row["image"] = encoded[0] if len(encoded) == 1 else repr(encoded)
            row["image_path"] = repr([f"{item.id}_{k + 1}{p.suffix}" for k, p in enumerate(item.images)])
        row.update({"question": item.question, "answer": item.answer, "category": item.group,
                    "l2-category": preset_name(item.level), "split": item.split, "id": item.id, "task": item.task,
                    "modality": item.modality, "scorer": item.scorer, "level": item.level, "video": _video_path(item),
                    "record": item.record, **dict(item.options)})
        rows.append(row)
        if on_item:
            on_item(1)
    frame = pd.DataFrame(rows)
    if "image" in frame:  # the image columns after index, as VLMEvalKit's own TSVs have them
        frame = frame[["index", "image", "image_path", *[c for c in frame.columns if c not in ("index", "image", "image_path")]]]
    return frame


def _resource(name: str) -> str:
    return resources.files("foldsim.outputs").joinpath("harness", name).read_text(encoding="utf-8")


def dataset_name(task: str, modality: str) -> str:
    """The VLMEvalKit dataset name of an export (the TSV's stem)."""
    return "Foldsim_" + "_".join(part.capitalize() for part in config_name(task, modality).split("_"))


#: how to install foldsim where a harness runs (foldsim is not on PyPI)
INSTALL_HINT = ("`pip install \"foldsim[datasets] @ git+<foldsim repository URL>\"` or `pip install ./foldsim-<version>-py3-none-any.whl` "
                "(a wheel built with `python -m build` in a foldsim checkout), or `pip install -e <foldsim checkout>`")


def readme_name(name: str) -> str:
    """The VLMEvalKit export's own README (never the folder's README.md)."""
    return f"{name}_README.md"


def write_vlmevalkit(items: Sequence[ExportItem], out: Path, task: str, modality: str, scorer: str,
                     on_item: Callable[[int], None] | None = None) -> tuple[dict[str, int], list[str], str, dict[str, int]]:
    """The TSV of the evaluated split (VLMEvalKit scores every row of it), the dataset class file and
    `<NAME>_README.md` with where to put them. Returns the split written, the files, the evaluated
    split and the splits left out with their sizes."""
    name = dataset_name(task, modality)
    module = name.lower()
    by_split = _by_split(items)
    split = evaluated_split(list(by_split))
    members = by_split[split]
    left_out = {s: len(m) for s, m in by_split.items() if s != split}
    frame = tsv_frame(members, on_item)
    if on_item and left_out:
        on_item(sum(left_out.values()))
    atomic_write_text(out / f"{name}.tsv", frame.to_csv(sep="\t", index=False))
    class_name = name.replace("_", "")
    atomic_write_text(out / f"{module}.py", Template(_resource("vlmevalkit_dataset.py.tmpl")).substitute(
        DATASET=name, CLASS=class_name, MODULE=module, TASK=task, MODALITY=modality, SCORER=scorer, SPLIT=split))
    others = ", ".join(f"{s} ({n} items)" for s, n in left_out.items())
    lines = [f"# {name}: foldsim {task} / {modality} for VLMEvalKit", "",
             f"`{name}.tsv` holds the {split} split ({len(members)} items): VLMEvalKit scores every row of a TSV"
             + (f"; not exported: {others}." if others else "."), "",
             f"1. Copy `{name}.tsv` into `$LMUData` (default `~/LMUData`).",
             f"2. Copy `{module}.py` to `vlmeval/dataset/{module}.py` in your VLMEvalKit checkout; in",
             f"   `vlmeval/dataset/__init__.py` add `from .{module} import {class_name}` and put `{class_name}`",
             "   in the `IMAGE_DATASET` list.",
             f"3. Install foldsim in the same environment (evaluate scores with foldsim's scorer): {INSTALL_HINT}.",
             f"4. `python run.py --data {name} --model <model>` (or `--base-url http://host:port/v1 --model <name>`",
             "   for an OpenAI-compatible server). Do not add `--api-mode`: its pipeline lets a model's own",
             "   prompt builder replace the dataset's prompt.", "",
             "The class sets `force_use_dataset_prompt`: every model, including those with their own prompt",
             "builder (InternVL, MiniCPM-V, ...), gets the text and images interleaved as `foldsim eval` sends",
             "them. Scores: `<prediction file>_score.json` (foldsim's metrics, counts and groups).", ""]
    atomic_write_text(out / readme_name(name), "\n".join(lines))
    return {split: len(members)}, [f"{name}.tsv", f"{module}.py", readme_name(name)], split, left_out


def write_lmms_eval(items: Sequence[ExportItem], out: Path, config: str, scorer: str,
                    on_item: Callable[[int], None] | None = None) -> tuple[dict[str, int], list[str], str]:
    """The `hf` folder plus a task folder: the YAML (no paths: utils.py finds the shards of the
    evaluated split next to itself) and utils.py. Returns the splits, the files and the evaluated
    split."""
    splits, files = write_hf(items, out, config, on_item)
    metrics = metric_names(items)
    test_split = evaluated_split(list(splits))
    metric_list = "\n".join(f"  - metric: {m}\n    aggregation: mean\n    higher_is_better: {str(m not in LOWER_IS_BETTER).lower()}"
                            for m in metrics)
    task, generation = lmms_task_shape(items, config)
    yaml_text = Template(_resource("lmms_eval_task.yaml.tmpl")).substitute(
        TASK=task, CONFIG=config, TEST_SPLIT=test_split, METRICS=metric_list, GENERATION=generation)
    atomic_write_text(out / LMMS_DIR / f"{task}.yaml", yaml_text)
    atomic_write_text(out / LMMS_DIR / "utils.py", _resource("lmms_eval_utils.py.tmpl"))
    return splits, [*files, f"{LMMS_DIR}/{task}.yaml", f"{LMMS_DIR}/utils.py"], test_split


#: lmms-eval's generation settings: foldsim's, and a peer task's where the export is its family's
GENERATION = "  max_new_tokens: 4096\n  temperature: 0\n  do_sample: false"
PEER_GENERATION = {"stare_folding_nets": "  max_new_tokens: 8192\n  temperature: 0.0\n  top_p: 1.0\n  num_beams: 1\n"
                                         "  do_sample: false"}


def lmms_task_shape(items: Sequence[ExportItem], config: str) -> tuple[str, str]:
    """The lmms-eval task name and generation settings of an export: `foldsim_<config>`, or, when
    every item is of a family with a peer task (STARE), `foldsim_<peer task>` (foldsim_stare_folding_nets)
    with the peer's generation settings (its rows carry the peer's document fields too)."""
    families = {json.loads(item.record).get("family") for item in items}
    if len(families) == 1 and (peer := PEER_TASKS.get(next(iter(families)))):
        return f"foldsim_{peer}", PEER_GENERATION[peer]
    return f"foldsim_{config}", GENERATION
