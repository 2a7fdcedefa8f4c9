"""OpenAI Chat Completions with a search model: the answer in ``choices[0].message.content``, ``url_citation`` annotations.

The search models of Chat Completions (``gpt-4o-search-preview``, ``gpt-5-search-api``) and the
OpenAI-compatible servers that copy them (OpenRouter's web search, among others) return a
``chat.completion`` whose message carries ``annotations``: objects of type ``url_citation`` with
the fields nested under ``url_citation`` (``url``, ``title``, ``start_index``, ``end_index``;
OpenRouter adds ``content``, the page excerpt). The cited URLs are those annotations, in order.
Unlike the Responses API, the response does not say what was searched. Perplexity's chat
completions (top-level ``search_results`` / ``citations``) have their own reader.

Example:
    >>> r = OpenAIChat().parse({"object": "chat.completion", "model": "gpt-4o-search-preview",
    ...     "choices": [{"message": {"role": "assistant", "content": "Ukraine ([bbc.com](https://bbc.com/x)).",
    ...       "annotations": [{"type": "url_citation", "url_citation": {"start_index": 9,
    ...         "end_index": 38, "title": "Crimea", "url": "https://bbc.com/x"}}]}}],
    ...     "usage": {"prompt_tokens": 9, "completion_tokens": 12}})
    >>> [c.url for c in r.citations], r.searches, r.output_tokens
    (['https://bbc.com/x'], None, 12)
"""

from __future__ import annotations

from typing import Any

from .base import FORMATS, Cited, ParsedResponse, text_of

__all__ = ["OpenAIChat"]


def _message(obj: dict[str, Any]) -> dict[str, Any]:
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return {}
    msg = choices[0].get("message")
    return msg if isinstance(msg, dict) else {}


@FORMATS.register("openai-chat")
class OpenAIChat:
    """Reader of Chat Completions with ``url_citation`` annotations (see the module docs)."""

    name = "openai-chat"

    def detect(self, obj: dict[str, Any]) -> bool:
        if "search_results" in obj or "citations" in obj:
            return False  # Perplexity's
        notes = _message(obj).get("annotations")
        return isinstance(notes, list) and any(
            isinstance(a, dict) and a.get("type") == "url_citation" for a in notes
        )

    def parse(self, obj: dict[str, Any]) -> ParsedResponse:
        msg = _message(obj)
        cited: list[Cited] = []
        for a in msg.get("annotations") or []:
            if not isinstance(a, dict) or a.get("type") != "url_citation":
                continue
            inner = a.get("url_citation")
            body = inner if isinstance(inner, dict) else a  # a flat annotation is read as given
            cited.append(
                Cited(body.get("url"), text_of(body.get("title")), text_of(body.get("content")))
            )
        usage: dict[str, Any] = obj["usage"] if isinstance(obj.get("usage"), dict) else {}
        return ParsedResponse(
            "openai-chat",
            text_of(msg.get("content")) or "",
            cited,
            model=text_of(obj.get("model")),
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            note="url_citation annotations",
        )
