"""`foldsim eval`: from a dataset to a score report in one resumable command.

The output folder holds `eval.json` (what was asked: dataset, task, modality, model, template
fingerprint, sampling options), `answers.jsonl` (foldsim.eval.runner's rows) and `score.json`
(the `foldsim score` report with per-item details). Running the same command again resumes: the
answered items are skipped, failed ones asked again, and the score recomputed. A folder that
holds another run (a different model, task, modality, dataset, wording or sampling) is refused,
so answers of two runs are never mixed.

`--dry-run` builds every prompt, sends nothing and estimates the input: text tokens as
characters / 4, image tokens by OpenAI's published rule for its vision models (the image scaled
to fit 2048 x 2048, then its short side to at most 768; 170 tokens per 512-pixel tile plus 85;
85 at detail=low). Other servers count differently (Qwen-VL: about one token per 28 x 28 pixels),
so the figure is an order of magnitude, not a bill. Videos are counted but not estimated.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from rich.console import Console

from ..errors import InputError
from ..io import atomic_write_json
from .prompts import Templates, as_templates, dataset_prompts, load_prompt, resolve_dataset
from .requests import RequestOptions
from .runner import Endpoint, RunReport, run_dataset

SETTINGS_FILE = "eval.json"
ANSWERS_FILE = "answers.jsonl"
SCORE_FILE = "score.json"
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Settings:
    """What makes two runs the same run (their answers may share a folder)."""

    dataset: str
    task: str
    modality: str
    model: str
    templates: str  # fingerprint of the wording (foldsim.eval.prompts.Templates.fingerprint)
    system: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    detail: str | None = None
    media_base: str | None = None


def check_settings(out_dir: Path, settings: Settings) -> None:
    """Write the settings of a new run; refuse (InputError) a folder holding a different run."""
    path = out_dir / SETTINGS_FILE
    wanted = asdict(settings)
    if path.is_file():
        try:
            before = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            before = None
        if not isinstance(before, dict):
            raise InputError(f"{SETTINGS_FILE} is unreadable; give another --out", item=str(out_dir))
        changed = [k for k in wanted if before.get(k) != wanted[k]]
        if changed:
            k = changed[0]
            raise InputError(f"holds the answers of another run ({k}: {before.get(k)!r} there, {wanted[k]!r} now); "
                             "give another --out to start a new run", item=str(out_dir))
        return
    atomic_write_json(path, wanted)


@dataclass
class EvalResult:
    """A finished (or interrupted) `eval`: the run report, the score report (None if the task has
    no scorer or the run was interrupted) and the files."""

    run: RunReport
    score: object | None
    answers: Path
    score_path: Path | None


def evaluate(dataset: str | Path, task: str, modality: str, out_dir: str | Path, *, endpoint: Endpoint,
             options: RequestOptions, templates: Templates | str | Path | None = None, system: str | None = None,
             compat: str | None = None, console: Console | None = None) -> EvalResult:
    """Ask the endpoint about every item (resuming), then score the answers and save the report.
    Raises InputError when the dataset, template, options or output folder cannot be used."""
    from .scoring import score_files

    dataset_path = resolve_dataset(dataset)
    templates = as_templates(templates)
    prompt = load_prompt(task, modality, templates)
    options = options.check("chat")
    endpoint.check()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    check_settings(out_dir, Settings(str(dataset_path.resolve()), task, modality, options.model or "", prompt.fingerprint,
                                     system, options.max_tokens, options.temperature, options.detail, options.media_base))
    answers = out_dir / ANSWERS_FILE
    run = run_dataset(dataset_path, task, modality, answers, endpoint=endpoint, options=options, templates=templates,
                      system=system, console=console)
    if run.interrupted or not prompt.task.score:
        return EvalResult(run, None, answers, None)
    report = score_files(prompt.task.score, dataset_path, answers, compat=compat)
    score_path = out_dir / SCORE_FILE
    atomic_write_json(score_path, {"model": options.model, "modality": modality, "run": run.summary(),
                                   **report.to_dict(details=True)})
    return EvalResult(run, report, answers, score_path)


# --------------------------------------------------------------------------------------------------
# dry run


@dataclass
class DryRun:
    """What a run would send: requests, media, and an input-token estimate (see the module
    docstring)."""

    requests: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    images: int = 0
    videos: int = 0
    text_chars: int = 0
    image_tokens: int = 0

    @property
    def text_tokens(self) -> int:
        return math.ceil(self.text_chars / CHARS_PER_TOKEN)

    @property
    def input_tokens(self) -> int:
        return self.text_tokens + self.image_tokens

    def summary(self) -> dict:
        return {"requests": self.requests, "failed": self.failed, "images": self.images, "videos": self.videos,
                "text_chars": self.text_chars, "estimated_text_tokens": self.text_tokens,
                "estimated_image_tokens": self.image_tokens, "estimated_input_tokens": self.input_tokens}


def image_tokens(width: int, height: int, detail: str | None = None) -> int:
    """Input tokens of one image by OpenAI's published tile rule (see the module docstring)."""
    if detail == "low":
        return 85
    scale = min(1.0, 2048 / max(width, height))
    width, height = width * scale, height * scale
    scale = min(1.0, 768 / min(width, height))
    width, height = width * scale, height * scale
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


@lru_cache(maxsize=1024)
def _image_size(path: str) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as image:  # reads the header only
        return image.size


def dry_run(dataset: str | Path, task: str, modality: str, *, options: RequestOptions = RequestOptions(),
            templates: Templates | str | Path | None = None, system: str | None = None) -> DryRun:
    """Build every prompt of a dataset and count what would be sent; nothing is sent."""
    _, items = dataset_prompts(dataset, task, modality, templates=templates, system=system)
    stats = DryRun()
    for item in items:
        if item.error:
            stats.failed[item.id] = item.error
            continue
        stats.requests += 1
        for message in item.messages:
            for part in message.parts:
                if part.kind == "text":
                    stats.text_chars += len(part.text)
                elif part.kind == "image":
                    stats.images += 1
                    stats.image_tokens += image_tokens(*_image_size(str(part.path)), options.detail)
                else:
                    stats.videos += 1
    return stats
