"""Model-facing code: reading answers (`answers`), scoring them (`scoring`, `compat` on top of
`score_base`), replaying planning answers (`verify`), and the evaluation road: prompts from
templates (`prompts`), provider request files (`requests`), a resumable runner for
OpenAI-compatible endpoints (`runner`), dataset-to-score in one call (`pipeline`) and one item's
score (`item`).

The public API (imported on first use, so `import foldsim.eval` stays light):

    build_messages(record, task, modality, dataset_dir=..., templates=None, example=None, system=None)
    load_prompt(task, modality, templates=None)            a checked template, for many items
    score_item(task, truth_record, response_text) -> dict[str, float]
    openai_request / anthropic_request / gemini_request / chat_request(id, messages, options)
    write_requests(dataset, task, modality, provider, out, options=RequestOptions(...))
    restore_ids(answers_path, map_path)                    Anthropic results back to the original ids
    run_dataset(dataset, task, modality, out, endpoint=Endpoint(url), options=RequestOptions(model=...))
    evaluate(dataset, task, modality, out_dir, endpoint=..., options=...)
"""

from __future__ import annotations

#: public name -> the module (under foldsim.eval) that defines it
_EXPORTS = {
    "build_messages": "prompts", "load_prompt": "prompts", "dataset_prompts": "prompts", "Message": "prompts",
    "Part": "prompts", "Templates": "prompts", "TemplateError": "prompts", "ItemError": "prompts",
    "MODALITIES": "prompts",
    "score_item": "item",
    "RequestOptions": "requests", "openai_request": "requests", "anthropic_request": "requests",
    "gemini_request": "requests", "chat_request": "requests", "chat_body": "requests", "write_requests": "requests",
    "restore_ids": "requests", "anthropic_ids": "requests", "PROVIDERS": "requests",
    "Endpoint": "runner", "RetryPolicy": "runner", "run_dataset": "runner", "run_jobs": "runner", "Job": "runner",
    "evaluate": "pipeline", "dry_run": "pipeline",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
