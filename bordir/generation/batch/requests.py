"""The wire format of OpenAI's Batch API: request lines out, output / error lines back to results.

A request line is ``{"custom_id", "method": "POST", "url": "/v1/chat/completions",
"body": {...}}`` whose body is exactly what the online ``openai`` backend sends
for the same :class:`~bordir.generation.types.GenerationRequest` (model,
messages, temperature, token limit, seed, extra parameters), so a batch answer
is the answer the online call would have got and is stored under the same
response-cache key.

An output line is ``{"id", "custom_id", "response": {"status_code",
"request_id", "body"}, "error"}``: a 200 ``body`` is a chat completion, turned
into a :class:`~bordir.generation.types.GenerationResult` by the online
backend's own conversion; a non-200 status or an ``error`` (``batch_expired``,
``batch_cancelled`` …) becomes a failed result with the reason.

Example:
    >>> custom_id_for("ab" * 32)
    'bordir-abababababababababababababababababababab'
    >>> key, res = parse_output_line(
    ...     {"custom_id": "c1", "response": None,
    ...      "error": {"code": "batch_expired", "message": "not executed in time"}},
    ...     {"c1": "k1"}, model="openai/gpt-4o-mini", to_result=None)
    >>> key, res.error
    ('k1', 'openai/gpt-4o-mini: batch request batch_expired: not executed in time')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ...errors import BordirError
from ..types import GenerationRequest, GenerationResult

__all__ = ["ENDPOINT", "custom_id_for", "request_line", "parse_output_line", "to_jsonl"]

ENDPOINT = "/v1/chat/completions"
"""The endpoint every batch line addresses."""


def custom_id_for(key: str) -> str:
    """The ``custom_id`` of the request whose cache key is ``key`` (unique within a model's grid)."""
    return "bordir-" + key[:40]


def request_line(body: Mapping[str, Any], custom_id: str) -> dict[str, Any]:
    """One batch input line for the chat-completions ``body``."""
    return {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": dict(body)}


def body_of(params: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body the SDK would send for ``client.chat.completions.create(**params)``.

    ``extra_body`` entries are merged into the body, as the SDK does.
    """
    body = {k: v for k, v in params.items() if k != "extra_body"}
    body.update(params.get("extra_body") or {})
    return body


def to_jsonl(lines: list[dict[str, Any]]) -> bytes:
    """``lines`` as the UTF-8 JSON-lines body of a batch input file."""
    return "".join(json.dumps(ln, ensure_ascii=False) + "\n" for ln in lines).encode("utf-8")


def parse_output_line(
    line: Mapping[str, Any],
    custom_ids: Mapping[str, str],
    *,
    model: str,
    to_result: Callable[[GenerationRequest, Mapping[str, Any]], GenerationResult] | None,
) -> tuple[str | None, GenerationResult]:
    """``(cache key, result)`` of one output or error line (key None: a ``custom_id`` we never sent).

    Args:
        line: the parsed JSON line.
        custom_ids: ``custom_id`` → cache key of the batch.
        model: the ``provider/model`` of the batch (the results' model).
        to_result: turns a chat-completion body into a result (the online backend's conversion);
            called only for a 200 response.
    """
    from ..._net.http import short_body

    key = custom_ids.get(str(line.get("custom_id")))
    response = line.get("response")
    error = line.get("error")

    def failed(reason: str) -> tuple[str | None, GenerationResult]:
        return key, GenerationResult(text="", model=model, error=f"{model}: {reason}")

    if error:
        if isinstance(error, Mapping):
            return failed(
                f"batch request {error.get('code') or 'error'}: {error.get('message') or ''}".strip()
            )
        return failed(f"batch request error: {short_body(error)}")
    if not isinstance(response, Mapping):
        return failed("batch output line without a response")
    status = int(response.get("status_code") or 0)
    body = response.get("body")
    if status != 200 or not isinstance(body, Mapping):
        return failed(f"HTTP {status} in the batch: {short_body(body)}")
    if to_result is None:
        return failed("no conversion for a batch response")
    try:
        return key, to_result(GenerationRequest(model=model, messages=()), body)
    except (BordirError, ValueError, TypeError, KeyError) as exc:
        # one malformed line fails that request, not the whole collection (which would then
        # fail the same way on every --collect); pydantic's ValidationError is a ValueError
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        detail = detail.removeprefix(f"{model}: ")
        return failed(f"malformed 200 response in the batch: {short_body(detail)}")
