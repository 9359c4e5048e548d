"""Provider envelopes: the model text (or the error) inside a record of OpenAI Batch and its error
file, the Responses API, Anthropic Message Batches, Gemini batch, vLLM's offline runner, foldsim's
runner or the reference runner.
"""

from __future__ import annotations

from ..errors import describe
from .answer_json import one_line

# --------------------------------------------------------------------------------------------------
# provider envelopes


def response_text(record: dict) -> tuple[str | None, str]:
    """Raw model text of a record and where it was found: first the reference's order (`response`
    string; `result.message.content` text blocks, joined by newlines; `response.body.choices[0]
    .message.content`), then the other providers (a chat.completion under `response` or at the top;
    Responses-API `output[]` message parts of type output_text; Gemini `candidates[0].content
    .parts[].text`, thought parts skipped), then `raw_response`. (None, "") when there is none."""
    response = record.get("response")
    if isinstance(response, str):
        return response, "response"
    content = _dig(record, "result", "message", "content")
    if isinstance(content, list):
        blocks = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        blocks = [b for b in blocks if isinstance(b, str)]
        if blocks:
            return "\n".join(blocks), "result"
    if isinstance(content, str):
        return content, "result"
    body = _dig(record, "response", "body")
    for holder, chat_source in ((body, "openai"), (response, "chat"), (record, "chat")):
        if not isinstance(holder, dict):
            continue
        text = _chat_text(holder)
        if text is not None:
            return text, chat_source
        text = _responses_text(holder)
        if text is not None:
            return text, "responses"
        text = _gemini_text(holder)
        if text is not None:
            return text, "gemini"
    raw = record.get("raw_response")
    if isinstance(raw, str):
        return raw, "raw_response"
    return None, ""


def _chat_text(body: dict) -> str | None:
    """`choices[0].message.content` of a chat.completion (a string or text parts)."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    return _content_text(_dig(choices[0], "message", "content"))


def _responses_text(body: dict) -> str | None:
    """The output_text parts of the message items of a Responses-API body, joined by newlines."""
    output = body.get("output")
    if not isinstance(output, list):
        return None
    parts = [part.get("text") for item in output if isinstance(item, dict) and item.get("type", "message") == "message"
             for part in (item.get("content") if isinstance(item.get("content"), list) else ())
             if isinstance(part, dict) and part.get("type") == "output_text"]
    parts = [p for p in parts if isinstance(p, str)]
    return "\n".join(parts) if parts else None


def _gemini_text(body: dict) -> str | None:
    """The text parts (thought summaries skipped) of a Gemini response's first candidate."""
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return None
    parts = _dig(candidates[0], "content", "parts")
    if not isinstance(parts, list):
        return None
    texts = [p.get("text") for p in parts if isinstance(p, dict) and not p.get("thought")]
    texts = [t for t in texts if isinstance(t, str)]
    return "".join(texts) if texts else None


def provider_error(record: dict) -> str | None:
    """Why a record is not a successful answer, naming the provider's status; None when it is one.

    An error row (`error` set: the reference runner, foldsim's runner, an OpenAI/vLLM batch error
    line; `"error": null` is success), an HTTP status other than 2xx in a batch line, an error
    object in its body, an Anthropic result that did not succeed (errored, canceled, expired), a
    Gemini status object or a blocked prompt, a failed or cancelled Responses-API response.
    """
    error = record.get("error")
    if error not in (None, "", {}, []):
        return f"{_error_prefix(record)}: {_error_text(error)}"
    response = record.get("response")
    if isinstance(response, dict):
        status = response.get("status_code")
        if isinstance(status, int) and not isinstance(status, bool) and not 200 <= status < 300:
            detail = _dig(response, "body", "error")
            return f"HTTP status {status}" + (f": {_error_text(detail)}" if detail else "")
    for body in (_dig(record, "response", "body"), response, record):
        failure = _body_failure(body) if isinstance(body, dict) else None
        if failure:
            return failure
    body = _dig(record, "response", "body")
    if isinstance(body, dict) and body.get("error") not in (None, "", {}):
        return f"response body error: {_error_text(body['error'])}"
    result = record.get("result")
    if isinstance(result, dict) and isinstance(result.get("type"), str) and result["type"] != "succeeded":
        detail = result.get("error")
        return f"Anthropic result {result['type']}" + (f": {_error_text(detail)}" if detail else "")
    status = record.get("status")
    if isinstance(status, dict) and status.get("code") not in (None, 0):
        return f"Gemini status {describe(status.get('code'))}: {_error_text(status)}"
    return None


def _body_failure(body: dict) -> str | None:
    """A failed Responses-API body or a blocked Gemini prompt, in words."""
    if body.get("object") == "response" and body.get("status") in ("failed", "cancelled"):
        detail = body.get("error")
        return f"Responses API status {body['status']}" + (f": {_error_text(detail)}" if detail else "")
    block = _dig(body, "promptFeedback", "blockReason")
    if block and not body.get("candidates"):
        return f"Gemini prompt blocked: {describe(block)}"
    return None


def no_text_reason(record: dict) -> str:
    """Why a successful record holds no text: a refusal, a stop with no content, or no envelope."""
    choices = _dig(record, "response", "body", "choices") or _dig(record, "response", "choices") or record.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        refusal = _dig(choices[0], "message", "refusal")
        if refusal:
            return f"the model refused: {_error_text(refusal)}"
        return f"no message content (finish_reason {describe(choices[0].get('finish_reason'))})"
    for holder in (record.get("response"), record):
        candidates = holder.get("candidates") if isinstance(holder, dict) else None
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
            return f"Gemini candidate without text (finishReason {describe(candidates[0].get('finishReason'))})"
    for holder in (_dig(record, "response", "body"), record.get("response"), record):
        if isinstance(holder, dict) and isinstance(holder.get("output"), list):
            return f"Responses API output without output_text (status {describe(holder.get('status'))})"
    return "no answer fields and no response text"


def finish_note(record: dict) -> str:
    """"truncated: ..." when the provider says generation stopped early (length, max tokens)."""
    for choices in (_dig(record, "response", "body", "choices"), _dig(record, "response", "choices"), record.get("choices")):
        if isinstance(choices, list) and choices and isinstance(choices[0], dict) and choices[0].get("finish_reason") == "length":
            return "truncated: finish_reason length"
    if _dig(record, "result", "message", "stop_reason") == "max_tokens":
        return "truncated: stop_reason max_tokens"
    for holder in (record.get("response"), record):
        candidates = holder.get("candidates") if isinstance(holder, dict) else None
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict) \
                and candidates[0].get("finishReason") == "MAX_TOKENS":
            return "truncated: finishReason MAX_TOKENS"
    for holder in (_dig(record, "response", "body"), record.get("response")):
        if isinstance(holder, dict) and holder.get("status") == "incomplete":
            return f"truncated: Responses API incomplete ({describe(_dig(holder, 'incomplete_details', 'reason'))})"
    return ""


def _error_prefix(record: dict) -> str:
    """How an `error` field is introduced: a batch line's error, a Gemini line's, or an error row."""
    if "custom_id" in record and "response" in record:
        return "batch error"
    if "key" in record:
        return "Gemini error"
    return "error row"


def _error_text(error: object) -> str:
    """An error object in one short line: `code: message` where it has them."""
    if isinstance(error, dict):
        inner = error.get("error") if isinstance(error.get("error"), dict) else error
        parts = [inner.get(k) for k in ("code", "type", "status", "message") if isinstance(inner.get(k), (str, int))]
        if parts:
            return one_line(": ".join(str(p) for p in dict.fromkeys(parts)))
    return one_line(error)


def _dig(obj: object, *path: str) -> object:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def assistant_text(messages: list) -> str | None:
    """The text of the last assistant message of a chat message list (None when there is none)."""
    replies = [m for m in messages if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
    return _content_text(replies[-1].get("content")) if replies else None


def _content_text(content: object) -> str | None:
    """A message's text: a string, or its text parts joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") in ("text", "output_text", None)]
        parts = [p for p in parts if isinstance(p, str)]
        return "\n".join(parts) if parts else None
    return None
