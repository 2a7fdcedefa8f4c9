"""Perplexity's chat completions: the answer in ``choices[0].message.content``, sources in ``search_results`` / ``citations``.

A response is an OpenAI-style ``chat.completion`` with, at the top level, ``search_results``
(objects with ``title``, ``url``, ``date``, ``last_updated``, ``snippet``) and the older
``citations`` (the same URLs as strings); the answer marks them ``[1]``, ``[2]`` … The cited
URLs are ``search_results`` when present (they carry titles and snippets), else ``citations``.
An answer that carries ``[n]`` markers but neither list is a problem (``index_without_urls``):
its citations cannot be known. ``usage.cost.total_cost`` is the cost Perplexity reports.
Wire format: https://docs.perplexity.ai (Sonar API) and the ``perplexityai`` SDK's types
``StreamChunk``, ``SearchResult`` and ``UsageInfo``.

Example:
    >>> r = Perplexity().parse({"model": "sonar", "object": "chat.completion",
    ...     "choices": [{"message": {"content": "Disputed [1][2]."}}],
    ...     "search_results": [{"title": "Crimea", "url": "https://en.wikipedia.org/wiki/Crimea", "snippet": "Crimea is …"},
    ...                        {"title": "Крым", "url": "https://ria.ru/crimea"}],
    ...     "usage": {"prompt_tokens": 9, "completion_tokens": 5, "cost": {"total_cost": 0.0051}}})
    >>> [c.url for c in r.citations], r.cost_usd
    (['https://en.wikipedia.org/wiki/Crimea', 'https://ria.ru/crimea'], 0.0051)
    >>> Perplexity().parse({"model": "sonar", "choices": [{"message": {"content": "Yes [1]."}}]}).problem[0]
    'index_without_urls'
"""

from __future__ import annotations

import re
from typing import Any

from .base import FORMATS, Cited, ParsedResponse, text_of

__all__ = ["Perplexity"]

_MARKER = re.compile(r"\[(\d{1,3})\]")


@FORMATS.register("perplexity")
class Perplexity:
    """Reader of Perplexity chat completions (see the module docs)."""

    name = "perplexity"

    def detect(self, obj: dict[str, Any]) -> bool:
        return isinstance(obj.get("choices"), list) and (
            "search_results" in obj
            or "citations" in obj
            or str(obj.get("model", "")).startswith("sonar")
        )

    def parse(self, obj: dict[str, Any]) -> ParsedResponse:
        choices = obj.get("choices") or []
        msg = (
            (choices[0] or {}).get("message") if choices and isinstance(choices[0], dict) else None
        )
        answer = text_of((msg or {}).get("content")) or ""
        results = obj.get("search_results")
        cites = obj.get("citations")
        cited: list[Cited] = []
        note = ""
        if isinstance(results, list) and results:
            for r in results:
                if isinstance(r, dict):
                    cited.append(
                        Cited(r.get("url"), text_of(r.get("title")), text_of(r.get("snippet")))
                    )
                else:
                    cited.append(Cited(r))
            note = "search_results"
        elif isinstance(cites, list) and cites:
            cited = [Cited(u) for u in cites]
            note = "citations"
        usage: dict[str, Any] = obj["usage"] if isinstance(obj.get("usage"), dict) else {}
        cost = usage.get("cost")
        total = cost.get("total_cost") if isinstance(cost, dict) else None
        problem = None
        markers = {int(m) for m in _MARKER.findall(answer)}
        if markers and not cited:
            problem = (
                "index_without_urls",
                f"the answer cites [{min(markers)}]…[{max(markers)}] but the response has neither "
                "search_results nor citations",
            )
        return ParsedResponse(
            "perplexity",
            answer,
            cited,
            model=text_of(obj.get("model")),
            searches=usage.get("num_search_queries"),
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            cost_usd=float(total) if isinstance(total, int | float) else None,
            problem=problem,
            note=note,
        )
