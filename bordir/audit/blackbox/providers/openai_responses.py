"""OpenAI's Responses API with the ``web_search`` tool: ``output_text`` parts and their ``url_citation`` annotations.

A response (``"object": "response"``) holds ``output``: ``web_search_call`` items (one per
search; with ``include=["web_search_call.action.sources"]`` their ``action.sources`` list what
was consulted) and ``message`` items whose ``content`` parts of type ``output_text`` carry the
text and ``annotations`` of type ``url_citation`` (``url``, ``title``, ``start_index``,
``end_index``). The cited URLs are the ``url_citation`` annotations, in order; consulted
sources that no annotation cites are counted apart. Wire format: the OpenAI web search guide
(https://platform.openai.com/docs/guides/tools-web-search) and the ``openai`` SDK's types
``ResponseOutputText.AnnotationURLCitation`` and ``ResponseFunctionWebSearch``.

Example:
    >>> r = OpenAIResponses().parse({"object": "response", "model": "gpt-4.1-mini", "output": [
    ...     {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "Crimea"}},
    ...     {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Crimea is disputed.",
    ...      "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 6, "url": "https://en.wikipedia.org/wiki/Crimea", "title": "Crimea"}]}]}],
    ...     "usage": {"input_tokens": 300, "output_tokens": 20}})
    >>> r.answer, [c.url for c in r.citations], r.searches
    ('Crimea is disputed.', ['https://en.wikipedia.org/wiki/Crimea'], 1)
"""

from __future__ import annotations

from typing import Any

from .base import FORMATS, Cited, ParsedResponse, text_of

__all__ = ["OpenAIResponses"]


@FORMATS.register("openai-responses")
class OpenAIResponses:
    """Reader of OpenAI Responses API objects (see the module docs)."""

    name = "openai-responses"

    def detect(self, obj: dict[str, Any]) -> bool:
        out = obj.get("output")
        return obj.get("object") == "response" or (
            isinstance(out, list)
            and any(
                isinstance(i, dict) and i.get("type") in ("message", "web_search_call") for i in out
            )
        )

    def parse(self, obj: dict[str, Any]) -> ParsedResponse:
        texts: list[str] = []
        cited: list[Cited] = []
        searches = 0
        consulted: set[str] = set()
        for item in obj.get("output") or []:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "web_search_call":
                searches += 1
                action = item.get("action") or {}
                for s in action.get("sources") or [] if isinstance(action, dict) else []:
                    if isinstance(s, dict) and isinstance(s.get("url"), str):
                        consulted.add(s["url"])
            elif item.get("type") == "message":
                for part in item.get("content") or []:
                    if not isinstance(part, dict) or part.get("type") != "output_text":
                        continue
                    texts.append(text_of(part.get("text")) or "")
                    for a in part.get("annotations") or []:
                        if isinstance(a, dict) and a.get("type") == "url_citation":
                            cited.append(Cited(a.get("url"), text_of(a.get("title"))))
        usage: dict[str, Any] = obj["usage"] if isinstance(obj.get("usage"), dict) else {}
        urls = {c.url for c in cited if isinstance(c.url, str)}
        return ParsedResponse(
            "openai-responses",
            "".join(texts),
            cited,
            model=text_of(obj.get("model")),
            searches=searches,
            consulted=len(consulted - urls),
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
        )
