"""`foldsim export`: a dataset in the formats harnesses load directly (evaluation-formats doc §2).
The items are foldsim.outputs.items', the Hugging Face folder foldsim.outputs.hf's, the harness
files foldsim.outputs.harness_files'; this module runs an export and is the face the exported
harness files and the guides import (`score_predictions`, `question_parts`, `hf_features`).

One item = one prompt of a task in a modality, exactly as `foldsim eval` shows it: the text and the
media come from the task's template (`foldsim.eval.prompts`), images in the order the prompt shows
them. Media the prompt needs and the dataset lacks are rendered first (`foldsim.dataset.media`,
resuming: what exists is never redrawn).

- `hf`: a Hugging Face dataset folder: Parquet shards written by `datasets` under
  `data/<task>_<modality>/<split>-NNNNN-of-NNNNN.parquet` and a dataset card `README.md` whose YAML
  declares the config, its splits and its features. Columns: id, task, modality, group, level,
  split, scorer (the `foldsim score` task that scores the answer), images (a list of images, in
  prompt order), video (the video's path relative to the folder, under `videos/`, or null),
  question (the prompt's text parts, each on its own lines, with `<image k>` and `<video>` on a line
  of their own where the prompt shows them: splitting at the marks gives back the text parts
  exactly), answer (the ground-truth answer JSON, in the form the prompt asks for), record (the
  full record as JSON). Splits come from the records' `split` field (`generate --splits`); records
  without one are the `test` split. The folder's README.md is the dataset card; a README.md that is
  not a foldsim card is never overwritten (the export refuses).
- `vlmevalkit`: `<NAME>.tsv` holding the evaluated split only (test, else validation; VLMEvalKit
  scores every row), with index, image as base64 or a Python-list literal of base64 strings with
  image_path naming them, question, answer, category = structure group, l2-category = level
  preset, split, and the columns above; `<name>.py`, a dataset class that forces its own prompt
  (`force_use_dataset_prompt`: models with their own prompt builders get the interleaved parts
  `foldsim eval` sends) and whose evaluate scores with foldsim's scorer; and `<NAME>_README.md`.
  Video is refused (VLMEvalKit's image datasets carry no video; `--modality frames` shows it).
- `lmms-eval`: the `hf` folder plus `lmms_eval/` (a task YAML and `utils.py`: doc_to_messages with
  the text, images and video interleaved as `foldsim eval` sends them, doc_to_visual, doc_to_text,
  process_results calling `foldsim.eval.score_item`). The YAML names no path: utils.py finds the
  Parquet shards and videos next to itself, so the folder can be moved. It evaluates the test
  split (else validation). Run `lmms-eval --include_path DIR/lmms_eval --tasks foldsim_<task>_<modality>`.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from .harness_files import write_lmms_eval, write_vlmevalkit
from .hf import check_card_folder, hf_features, write_hf  # noqa: F401  (hf_features: public here)
from .items import (  # noqa: F401  (the names exported harness files and guides import from here)
    FORMATS, ExportReport, config_name, export_items, is_family_record, question_parts, score_predictions,
)


def export_dataset(dataset: str | Path, fmt: str, task: str, modality: str, out: str | Path, *, templates=None,
                   workers: int = 1, console=None) -> ExportReport:
    """Export a dataset (see the module docstring). InputError for an unknown format or a dataset
    or template that cannot be used; items that cannot be exported are listed in `failed`."""
    from ..progress import counting_bar

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})", field="--format")
    if fmt == "vlmevalkit" and modality == "video":
        raise InputError("VLMEvalKit image datasets cannot carry a video (it would be dropped and the item still "
                         "scored); export --modality frames (the video's frames as images) or use --format lmms-eval",
                         field="--format")
    out = Path(out)
    if fmt in ("hf", "lmms-eval"):
        check_card_folder(out)
    items, failed, rendered = export_items(dataset, task, modality, templates=templates, workers=workers,
                                           console=console)
    config = config_name(task, modality)
    report = ExportReport(fmt, out, config, failed=failed, rendered=rendered)
    if not items:
        return report
    scorer = items[0].scorer
    bar, advance = counting_bar(f"exporting {fmt}", "items", total=len(items), console=console)
    with bar:
        if fmt == "hf":
            report.splits, report.files = write_hf(items, out, config, advance)
        elif fmt == "vlmevalkit":
            report.splits, report.files, report.evaluated, report.left_out = write_vlmevalkit(
                items, out, task, modality, scorer, advance)
        else:
            report.splits, report.files, report.evaluated = write_lmms_eval(items, out, config, scorer, advance)
    return report
