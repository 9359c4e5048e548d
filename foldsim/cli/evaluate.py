"""The model-facing commands: score, verify, and the evaluation road: requests, run, eval."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..progress import counting_bar
from .common import app, err, fail, item_errors, items_exit_code, out, print_json
from .help import EVALUATE, SPACES, FoldsimCommand

@app.command(cls=FoldsimCommand, rich_help_panel=EVALUATE)
def score(
    task: Annotated[str, typer.Argument(help="prediction, backward, text, generalization, planning, choice, split (yes/no rows and a record family's yes/no items), plan-choice, holes, count or opposite")],
    truth: Annotated[Path, typer.Argument(help="ground-truth MentalBlackboard file (JSON array or JSONL)")],
    answers: Annotated[Path, typer.Argument(help="model answers: JSON, JSONL, provider batch output or raw text")],
    compat: Annotated[str | None, typer.Option("--compat", metavar="SCORER", help="reproduce a reference scorer: mentalblackboard (top-level prediction_scoring.py) or mentalblackboard-scoring-dir (scoring/prediction_scoring.py)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print every number as one JSON object")] = False,
    details: Annotated[bool, typer.Option("--details", help="with --json: add the per-item scores")] = False,
    id_map: Annotated[Path | None, typer.Option("--id-map", help="id map written by `foldsim requests --provider anthropic`: restores the original ids")] = None,
) -> None:
    """Score model answers against the ground truth.

    Open-ended tasks get the paper's metrics, scored correctly (--compat reproduces a reference
    scorer's numbers); choice tasks get accuracy, chance and the error-model confusion; count and
    opposite (record families) exact match overall and per named value. Wrong answers are
    results, not errors.

    Exit codes:
      0  every answer is scored
      1  some truth record is invalid or some answer record unreadable (one error line each)
      2  a file cannot be read, or a bad option

    Examples:
      foldsim score choice demo-out/choice/PFHP_Choice_Data.json
          demo-out/choice/answers-mirror-model.json
      foldsim score choice demo-out/choice/PFHP_Choice_Data.json
          demo-out/choice/answers-oracle.json --json
    """
    import tempfile

    from ..errors import InputError
    from ..eval.scoring import render_report, score_files

    try:
        with tempfile.TemporaryDirectory() as scratch:
            if id_map is not None:
                from ..eval.requests import restore_ids

                answers = restore_ids(answers, id_map, Path(scratch) / f"restored{answers.suffix}")
            report = score_files(task, truth, answers, compat=compat)
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json(report.to_dict(details=details))
    else:
        render_report(report, out)
    # wrong answers are results (exit 0); an invalid truth record or an unreadable answer record is an error
    raise typer.Exit(items_exit_code(item_errors(None, getattr(report, "errors", ()))))


@app.command(cls=FoldsimCommand, rich_help_panel=SPACES)
def verify(
    tasks: Annotated[Path, typer.Argument(help="planning tasks: a MentalBlackboard planning file")],
    answers: Annotated[Path, typer.Argument(help="proposed plans: model answers, or MentalBlackboard records")],
    as_json: Annotated[bool, typer.Option("--json", help="print {items, correct, by_reason, by_folds} as JSON")] = False,
    details: Annotated[bool, typer.Option("--details", help="add one verdict per item")] = False,
) -> None:
    """Replay proposed plans and judge each against its planning task.

    Every plan is replayed in one batch; a wrong plan is counted under the first reason it fails
    (--details lists the verdict of every item). A dataset's own records are answers too: their
    plans are all correct.

    Exit codes:
      0  every plan is correct
      1  some plan is not, or some task is invalid or some answer record unreadable (one error
         line each for invalid tasks and unreadable answer records)
      2  it could not run: a file cannot be read

    Examples:
      foldsim generate --task planning --count 3 --seed 2024 --out demo-out/planning
      foldsim verify demo-out/planning/PFHP_Planning_Data.json
          demo-out/planning/PFHP_Planning_Data.json
    """
    from ..errors import InputError
    from ..eval.verify import render_verify, verify_files

    try:
        bar, advance = counting_bar("replaying plans", "plans", console=err)
        with bar:
            report = verify_files(tasks, answers, on_progress=advance)
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json(report.summary(details=details))
    else:
        render_verify(report, out, details=details)
    bad = item_errors(None, report.errors)
    raise typer.Exit(items_exit_code(bad or not report.all_correct))


# -- the evaluation road: requests, run, eval (foldsim.eval.prompts/requests/runner/pipeline) --------

TaskOption = Annotated[str, typer.Option("--task", metavar="TASK", help="prediction, backward, text, generalization, planning, choice, ... (or a task of --templates)")]
ModalityOption = Annotated[str, typer.Option("--modality", metavar="[text|images|frames|video]", help="what the prompts show")]
TemplatesOption = Annotated[Path | None, typer.Option("--templates", help="folder of templates replacing the built-in ones (same file names)")]
SystemOption = Annotated[str | None, typer.Option("--system", help="system prompt")]
MaxTokensOption = Annotated[int | None, typer.Option("--max-tokens", help="most tokens per answer")]
TemperatureOption = Annotated[float | None, typer.Option("--temperature", help="sampling temperature")]
DetailOption = Annotated[str | None, typer.Option("--detail", metavar="[low|high|auto]", help="OpenAI image detail")]
MediaBaseOption = Annotated[str | None, typer.Option("--media-base", metavar="URL", help="send media as URLs <base>/<path in the dataset> instead of inline base64")]
ConcurrencyOption = Annotated[int, typer.Option("--concurrency", help="requests in flight")]
ApiKeyEnvOption = Annotated[str | None, typer.Option("--api-key-env", metavar="NAME", help="environment variable holding the API key (sent as a Bearer token)")]
TimeoutOption = Annotated[float, typer.Option("--timeout", help="seconds to wait for one answer")]
AttemptsOption = Annotated[int, typer.Option("--attempts", help="tries per request (timeouts, dropped connections, 429, 5xx)")]
#: at most this many per-item error lines; the rest are counted
MAX_ITEM_ERRORS = 50


def print_error(message: str) -> None:
    """One `error:` line (common.error: control characters escaped, so it stays one line)."""
    from .common import error

    error(message)


def _item_error_lines(where: object, errors: dict[str, str]) -> None:
    """One `error: <where>: <item>: ...` line per failed item (the first MAX_ITEM_ERRORS); a
    dataset folder is named by its data file."""
    from ..errors import InputError
    from ..eval.prompts import resolve_dataset

    try:
        where = resolve_dataset(where) if errors else where
    except InputError:
        pass
    for message in list(errors.values())[:MAX_ITEM_ERRORS]:
        print_error(f"{where}: {message}")
    if len(errors) > MAX_ITEM_ERRORS:
        print_error(f"{where}: ... and {len(errors) - MAX_ITEM_ERRORS} more failed items")


def _request_options(model, max_tokens, temperature, detail, media_base):
    from ..eval.requests import RequestOptions

    return RequestOptions(model, max_tokens, temperature, detail, media_base)


def _endpoint(url: str, api_key_env: str | None, concurrency: int, timeout: float, attempts: int):
    """The Endpoint of the options; a missing API-key variable is a usage error."""
    import os

    from ..eval.runner import Endpoint, RetryPolicy

    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            fail(f"--api-key-env: environment variable {api_key_env} is not set")
    return Endpoint(url, api_key, concurrency, timeout, retry=RetryPolicy(attempts=attempts)).check()


@app.command(cls=FoldsimCommand, rich_help_panel=EVALUATE)
def requests(
    dataset: Annotated[Path, typer.Argument(help="a MentalBlackboard-format file (or its folder) with its media beside it")],
    task: TaskOption,
    modality: ModalityOption,
    provider: Annotated[str, typer.Option("--provider", metavar="[openai|anthropic|gemini|chat]", help="whose batch "
                                          "API the file is for (chat: one chat request per line)")],
    out_path: Annotated[Path, typer.Option("--out", help="request file (split into <name>-0001<ext>... when too large)")],
    model: Annotated[str | None, typer.Option("--model", help="model name (gemini: named when the batch is created)")] = None,
    max_tokens: MaxTokensOption = None,
    temperature: TemperatureOption = None,
    system: SystemOption = None,
    detail: DetailOption = None,
    media_base: MediaBaseOption = None,
    templates: TemplatesOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {files, requests, failed, id_map} as JSON")] = False,
) -> None:
    """Write a provider's batch request file for every item of a dataset.

    The prompts are built from the templates (built-in, or --templates) with the media inline, or
    as URLs under --media-base; a file too large for the provider is split into numbered parts.

    Exit codes:
      0  every item has its request
      1  some item's prompt cannot be built (one error line each; the others are written)
      2  a bad option, an unreadable dataset, or --out cannot be written

    Examples:
      foldsim requests demo-out/choice --task choice --modality text --provider openai
          --model my-model --out demo-out/requests.jsonl
    """
    from ..errors import InputError
    from ..eval.requests import write_requests
    from .common import check_output_path

    check_output_path(out_path, "file")
    try:
        bar, advance = counting_bar("building requests", "requests", console=err)
        with bar:
            report = write_requests(dataset, task, modality, provider, out_path, templates=templates, system=system,
                                    options=_request_options(model, max_tokens, temperature, detail, media_base),
                                    on_progress=advance)
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json(report.summary())
    else:
        files = ", ".join(str(f) for f in report.files)
        out.print(f"wrote {report.requests} {provider} requests to {files}", markup=False)
        if report.id_map:
            out.print(f"{report.mapped} ids changed to fit Anthropic's custom_id rules; the map is {report.id_map} "
                      f"(score with --id-map {report.id_map})", markup=False)
    _item_error_lines(dataset, report.failed)
    raise typer.Exit(1 if report.failed else 0)


@app.command(cls=FoldsimCommand, rich_help_panel=EVALUATE)
def run(
    dataset: Annotated[Path, typer.Argument(help="a MentalBlackboard-format file (or its folder) with its media beside it")],
    endpoint: Annotated[str, typer.Option("--endpoint", metavar="URL", help="OpenAI-compatible server, e.g. http://localhost:8000")],
    model: Annotated[str, typer.Option("--model", metavar="NAME", help="model name the server knows")],
    task: TaskOption,
    modality: ModalityOption,
    out_path: Annotated[Path, typer.Option("--out", help="answers file (JSON Lines; rerun to resume)")],
    concurrency: ConcurrencyOption = 8,
    api_key_env: ApiKeyEnvOption = None,
    timeout: TimeoutOption = 600.0,
    attempts: AttemptsOption = 6,
    max_tokens: MaxTokensOption = None,
    temperature: TemperatureOption = None,
    system: SystemOption = None,
    detail: DetailOption = None,
    media_base: MediaBaseOption = None,
    templates: TemplatesOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the run summary as JSON")] = False,
) -> None:
    """Ask an OpenAI-compatible server about every item of a dataset.

    Each answer is appended to --out as it arrives; run the same command again to resume after an
    interruption or failed requests (answered items are not asked again).

    Exit codes:
      0  every item is answered
      1  some item failed (one error line each; run again to retry them)
      2  a bad option, or an unreadable dataset
      130  interrupted (every answer so far is kept)

    Examples:
      foldsim run demo-out/choice --endpoint http://localhost:8000 --model my-model
          --task choice --modality text --out demo-out/answers.jsonl
    """
    from ..errors import InputError
    from ..eval.runner import run_dataset
    from .common import check_output_path

    check_output_path(out_path, "file")
    try:
        report = run_dataset(dataset, task, modality, out_path, console=err, templates=templates, system=system,
                             endpoint=_endpoint(endpoint, api_key_env, concurrency, timeout, attempts),
                             options=_request_options(model, max_tokens, temperature, detail, media_base))
    except InputError as error:
        fail(str(error))
    _print_run(report, dataset, "summary" if as_json else False)
    raise typer.Exit(_run_exit_code(report))


def _print_run(report, dataset: Path, as_json: bool) -> None:
    """The run's summary (a line, or JSON when `as_json` is "summary"), then its notes and one
    error line per item that failed."""
    if as_json == "summary":
        print_json(report.summary())
    elif not as_json:
        out.print(f"{report.out}: {report.skipped + len(report.answered)} of {report.items} items answered "
                  f"({len(report.answered)} now, {report.skipped} before), {len(report.failed)} failed; "
                  f"tokens {report.prompt_tokens:,} in, {report.completion_tokens:,} out", markup=False)
    for note in report.notes:
        err.print(f"note: {report.out}: {note}", markup=False)
    _item_error_lines(dataset, report.prompt_errors)
    _item_error_lines(report.out, {i: f"{i}: request failed: {m}" for i, m in report.failed.items()})
    if report.interrupted:
        print_error(f"interrupted; run the same command again to resume ({report.out} keeps every answer so far)")


def _run_exit_code(report) -> int:
    if report.interrupted:
        return 130
    return 0 if report.complete else 1


@app.command(name="eval", cls=FoldsimCommand, rich_help_panel=EVALUATE)
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="a MentalBlackboard-format file (or its folder) with its media beside it")],
    task: TaskOption,
    modality: ModalityOption,
    endpoint: Annotated[str | None, typer.Option("--endpoint", metavar="URL", help="OpenAI-compatible server, e.g. http://localhost:8000")] = None,
    model: Annotated[str | None, typer.Option("--model", metavar="NAME", help="model name the server knows")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="folder for eval.json, answers.jsonl and score.json")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="count requests, images and input tokens; send nothing (no --endpoint, --model, --out needed)")] = False,
    concurrency: ConcurrencyOption = 8,
    api_key_env: ApiKeyEnvOption = None,
    timeout: TimeoutOption = 600.0,
    attempts: AttemptsOption = 6,
    max_tokens: MaxTokensOption = None,
    temperature: TemperatureOption = None,
    system: SystemOption = None,
    detail: DetailOption = None,
    media_base: MediaBaseOption = None,
    templates: TemplatesOption = None,
    compat: Annotated[str | None, typer.Option("--compat", metavar="SCORER", help="score as a reference scorer: mentalblackboard or mentalblackboard-scoring-dir")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the run and the score report as JSON")] = False,
) -> None:
    """From a dataset to a score report: prompts, answers, score, in one go.

    Builds the prompts, asks the endpoint (resumably, as run does) and scores the answers (as score
    does), writing eval.json, answers.jsonl and score.json into --out. With --dry-run it counts
    requests, images and input tokens and sends nothing.

    Exit codes:
      0  every item is answered and the answers are scored (with --dry-run: every prompt is built)
      1  some item failed (one error line each; run again to retry them)
      2  a bad option, or an unreadable dataset
      130  interrupted (every answer so far is kept)

    Examples:
      foldsim eval demo-out/choice --task choice --modality text --dry-run
      foldsim eval demo-out/choice --task choice --modality text
          --endpoint http://localhost:8000 --model my-model --out demo-out/eval
    """
    from ..errors import InputError
    from ..eval import pipeline
    from ..eval.scoring import render_report

    options = _request_options(model, max_tokens, temperature, detail, media_base)
    missing = [name for name, value in (("--endpoint", endpoint), ("--model", model), ("--out", out_dir)) if value is None]
    if missing and not dry_run:
        fail(f"{missing[0]}: required (only --dry-run runs without it)")
    if not dry_run:
        from .common import check_output_path

        check_output_path(out_dir, "dir")
    try:
        if dry_run:
            stats = pipeline.dry_run(dataset, task, modality, options=options.check("chat"), templates=templates,
                                     system=system)
            _print_dry_run(stats, as_json)
            _item_error_lines(dataset, stats.failed)
            raise typer.Exit(1 if stats.failed else 0)
        result = pipeline.evaluate(dataset, task, modality, out_dir, options=options, templates=templates,
                                   system=system, compat=compat, console=err,
                                   endpoint=_endpoint(endpoint, api_key_env, concurrency, timeout, attempts))
    except InputError as error:
        fail(str(error))
    if as_json:
        print_json({"run": result.run.summary(), "score": result.score.to_dict() if result.score else None,
                    "score_file": str(result.score_path) if result.score_path else None})
        _print_run(result.run, dataset, as_json=True)  # the errors only: the summary is in the JSON above
    else:
        _print_run(result.run, dataset, as_json=False)
        if result.score is not None:
            render_report(result.score, out)
            out.print(f"score report: {result.score_path}", markup=False)
    raise typer.Exit(_run_exit_code(result.run))


def _print_dry_run(stats, as_json: bool) -> None:
    if as_json:
        print_json(stats.summary())
        return
    per = f" ({stats.images / stats.requests:.1f} per request)" if stats.requests else ""
    out.print(f"requests: {stats.requests}\nimages: {stats.images}{per}\nvideos: {stats.videos}"
              f"{' (not in the token estimate)' if stats.videos else ''}\n"
              f"input tokens (estimate): {stats.input_tokens:,} = text {stats.text_tokens:,} (characters / 4) "
              f"+ images {stats.image_tokens:,} (OpenAI tile rule)", markup=False)
