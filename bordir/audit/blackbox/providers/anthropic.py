"""Anthropic's Messages API with the web search tool: ``text`` blocks and their ``web_search_result_location`` citations.

A message (``"type": "message"``) holds ``content`` blocks: ``server_tool_use`` (``name``
``web_search``, one per search), ``web_search_tool_result`` (the results: ``web_search_result``
objects with ``url``, ``title``, ``encrypted_content``, ``page_age``) and ``text`` blocks whose
``citations`` of type ``web_search_result_location`` carry ``url``, ``title``, ``cited_text``
(up to 150 characters of the page: the snippet) and ``encrypted_index``. The cited URLs are those
citations, in order; results no citation uses are counted apart. ``usage.server_tool_use
.web_search_requests`` is the number of searches billed. Wire format:
https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool and the ``anthropic``
SDK's types ``CitationsWebSearchResultLocation``, ``WebSearchResultBlock``, ``ServerToolUseBlock``.

Example:
    >>> r = Anthropic().parse({"type": "message", "model": "claude-sonnet-4-5", "content": [
    ...     {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "Крим"}},
    ...     {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
    ...         {"type": "web_search_result", "url": "https://www.ukrinform.ua/x", "title": "Крим", "encrypted_content": "e"}]},
    ...     {"type": "text", "text": "Крим — Україна.", "citations": [{"type": "web_search_result_location",
    ...         "url": "https://www.ukrinform.ua/x", "title": "Крим", "cited_text": "Крим є частиною України", "encrypted_index": "i"}]}],
    ...     "usage": {"input_tokens": 1000, "output_tokens": 30, "server_tool_use": {"web_search_requests": 1}}})
    >>> r.answer, [(c.url, c.snippet) for c in r.citations], r.searches
    ('Крим — Україна.', [('https://www.ukrinform.ua/x', 'Крим є частиною України')], 1)
"""

from __future__ import annotations

from typing import Any

from .base import FORMATS, Cited, ParsedResponse, text_of

__all__ = ["Anthropic"]


@FORMATS.register("anthropic")
class Anthropic:
    """Reader of Anthropic Messages responses (see the module docs)."""

    name = "anthropic"

    def detect(self, obj: dict[str, Any]) -> bool:
        content = obj.get("content")
        return obj.get("type") == "message" and isinstance(content, list)

    def parse(self, obj: dict[str, Any]) -> ParsedResponse:
        texts: list[str] = []
        cited: list[Cited] = []
        results: set[str] = set()
        tool_calls = 0
        for block in obj.get("content") or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "server_tool_use" and block.get("name") == "web_search":
                tool_calls += 1
            elif kind == "web_search_tool_result" and isinstance(block.get("content"), list):
                for r in block["content"]:
                    if isinstance(r, dict) and isinstance(r.get("url"), str):
                        results.add(r["url"])
            elif kind == "text":
                texts.append(text_of(block.get("text")) or "")
                for c in block.get("citations") or []:
                    if isinstance(c, dict) and c.get("type") == "web_search_result_location":
                        cited.append(
                            Cited(
                                c.get("url"), text_of(c.get("title")), text_of(c.get("cited_text"))
                            )
                        )
        usage: dict[str, Any] = obj["usage"] if isinstance(obj.get("usage"), dict) else {}
        stu = usage.get("server_tool_use")
        searches = stu.get("web_search_requests") if isinstance(stu, dict) else tool_calls
        urls = {c.url for c in cited if isinstance(c.url, str)}
        return ParsedResponse(
            "anthropic",
            "".join(texts),
            cited,
            model=text_of(obj.get("model")),
            searches=searches,
            consulted=len(results - urls),
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
        )
