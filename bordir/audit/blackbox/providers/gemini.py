"""Gemini ``generateContent`` with Google Search grounding: ``groundingMetadata`` chunks and supports.

A response holds ``candidates[0].content.parts[].text`` and ``candidates[0].groundingMetadata``:
``webSearchQueries``, ``groundingChunks`` (``web.uri``, ``web.title``; on Vertex AI also
``web.domain``) and ``groundingSupports`` (a ``segment`` of the answer and the
``groundingChunkIndices`` that support it). The cited URLs are the chunks some support points
to, in order of first use; when a response has chunks but no supports, all its chunks (said in
:attr:`~.base.ParsedResponse.note`). An index past the chunk list, or supports without a chunk
list, is a problem. The URIs are ``https://vertexaisearch.cloud.google.com/grounding-api-redirect/…``
redirects: they are kept as given (unresolved offline; ``bordir audit resolve`` follows them).
Both the REST spelling (camelCase) and the Python SDK's ``model_dump()`` (snake_case) are read.
Wire format: https://ai.google.dev/gemini-api/docs/google-search and the ``google-genai``
types ``GroundingMetadata``, ``GroundingChunkWeb``, ``GroundingSupport``.

Example:
    >>> r = Gemini().parse({"candidates": [{"content": {"parts": [{"text": "Крым — спорная территория."}]},
    ...     "groundingMetadata": {"webSearchQueries": ["Крым"],
    ...        "groundingChunks": [{"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AB1", "title": "ria.ru"}},
    ...                            {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AB2", "title": "wikipedia.org"}}],
    ...        "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 4}, "groundingChunkIndices": [1]}]}}],
    ...     "modelVersion": "gemini-2.5-flash"})
    >>> [c.url[-3:] for c in r.citations], r.consulted, r.searches
    (['AB2'], 1, 1)
"""

from __future__ import annotations

from typing import Any

from .base import FORMATS, Cited, ParsedResponse, text_of

__all__ = ["Gemini"]


def _get(d: Any, camel: str, snake: str) -> Any:
    if not isinstance(d, dict):
        return None
    return d.get(camel, d.get(snake))


@FORMATS.register("gemini")
class Gemini:
    """Reader of Gemini ``generateContent`` responses (see the module docs)."""

    name = "gemini"

    def detect(self, obj: dict[str, Any]) -> bool:
        c = obj.get("candidates")
        return isinstance(c, list) and (
            "usageMetadata" in obj or "usage_metadata" in obj or "modelVersion" in obj
            or "model_version" in obj or any(isinstance(x, dict) and "content" in x for x in c)
        )  # fmt: skip

    def parse(self, obj: dict[str, Any]) -> ParsedResponse:
        cands = obj.get("candidates") or []
        cand = cands[0] if cands and isinstance(cands[0], dict) else {}
        parts = (cand.get("content") or {}).get("parts") or []
        answer = "".join(text_of(p.get("text")) or "" for p in parts if isinstance(p, dict))
        gm = _get(cand, "groundingMetadata", "grounding_metadata") or {}
        chunks = _get(gm, "groundingChunks", "grounding_chunks")
        supports = _get(gm, "groundingSupports", "grounding_supports") or []
        queries = _get(gm, "webSearchQueries", "web_search_queries")
        usage = _get(obj, "usageMetadata", "usage_metadata") or {}
        out = ParsedResponse(
            "gemini",
            answer,
            model=text_of(_get(obj, "modelVersion", "model_version")),
            searches=len(queries) if isinstance(queries, list) else None,
            input_tokens=_get(usage, "promptTokenCount", "prompt_token_count"),
            output_tokens=_get(usage, "candidatesTokenCount", "candidates_token_count"),
        )
        used: list[int] = []
        for s in supports if isinstance(supports, list) else []:
            for i in _get(s, "groundingChunkIndices", "grounding_chunk_indices") or []:
                if isinstance(i, int) and i not in used:
                    used.append(i)
        if not isinstance(chunks, list) or not chunks:
            if used:
                out.problem = (
                    "index_without_urls",
                    f"groundingSupports point to chunks {used[:5]} but groundingMetadata has no groundingChunks",
                )
            return out
        if not used:
            used = list(range(len(chunks)))
            out.note = "no groundingSupports: every grounding chunk counted as cited"
        bad = [i for i in used if not 0 <= i < len(chunks)]
        if bad:
            out.problem = (
                "citation_index_out_of_range",
                f"groundingChunkIndices {bad[:5]} past the {len(chunks)} grounding chunks",
            )
            return out
        for i in used:
            web = chunks[i].get("web") if isinstance(chunks[i], dict) else None
            out.citations.append(Cited((web or {}).get("uri"), text_of((web or {}).get("title"))))
        out.consulted = len(chunks) - len(used)
        return out
