"""What a provider reader returns (:class:`ParsedResponse`), the registry of readers, and format detection.

A reader is a class with ``name``, ``detect(obj) -> bool`` (does this object look like my
format?) and ``parse(obj) -> ParsedResponse``. Readers register in :data:`FORMATS`; the
built-ins are declared here and imported when first needed.

Example:
    >>> obj = {"id": "x", "model": "sonar", "object": "chat.completion",
    ...        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Crimea [1]."}}],
    ...        "citations": ["https://en.wikipedia.org/wiki/Crimea"]}
    >>> p = parse_response(obj)
    >>> p.provider, p.answer, [c.url for c in p.citations]
    ('perplexity', 'Crimea [1].', ['https://en.wikipedia.org/wiki/Crimea'])
    >>> parse_response({"what": 1})
    Traceback (most recent call last):
    ...
    ValueError: not the response of a known search API (openai-responses, perplexity, openai-chat, gemini, anthropic): no reader recognises its fields ['what']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from ....registry import Registry

__all__ = [
    "Cited",
    "ParsedResponse",
    "Reader",
    "FORMATS",
    "detect_format",
    "parse_response",
    "text_of",
]


@dataclass(frozen=True, slots=True)
class Cited:
    """One cited source: its URL as given (any JSON value: it is checked later), title and snippet."""

    url: Any
    title: str | None = None
    snippet: str | None = None


@dataclass
class ParsedResponse:
    """A provider response read: what an audit needs from it.

    Attributes:
        provider: the format's name (``openai-responses``, ``perplexity``, ``openai-chat``,
            ``gemini``, ``anthropic``).
        answer: the answer text (text parts joined).
        citations: the cited sources in answer order (repeats kept; the audit counts a URL once per answer).
        model: the model the response names, if any.
        searches: web searches the response reports (tool calls, queries), if it does.
        consulted: sources the search returned that the answer does not cite (not counted as citations).
        input_tokens, output_tokens: usage as reported.
        cost_usd: a cost the provider reports itself (Perplexity), else None.
        problem: ``(reason, message)`` when the response cannot be used (e.g. citation indices
            without their URL list), else None.
        note: how the citations were chosen, when the format leaves a choice.
    """

    provider: str
    answer: str
    citations: list[Cited] = field(default_factory=list)
    model: str | None = None
    searches: int | None = None
    consulted: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    problem: tuple[str, str] | None = None
    note: str = ""


class Reader(Protocol):
    """A wire-format reader (see the module docs)."""

    name: str

    def detect(self, obj: dict[str, Any]) -> bool: ...

    def parse(self, obj: dict[str, Any]) -> ParsedResponse: ...


FORMATS: Registry[Any] = Registry("response format")
"""Provider wire formats by name; the built-ins are imported on first use."""
for _name, _module, _desc in (
    ("openai-responses", "bordir.audit.blackbox.providers.openai_responses", "OpenAI Responses API with the web_search tool (url_citation annotations)"),
    ("perplexity", "bordir.audit.blackbox.providers.perplexity", "Perplexity chat completions (citations / search_results)"),
    ("openai-chat", "bordir.audit.blackbox.providers.openai_chat", "Chat Completions of a search model, OpenAI's or an OpenAI-compatible server's (url_citation annotations)"),
    ("gemini", "bordir.audit.blackbox.providers.gemini", "Gemini generateContent with Google Search grounding (groundingMetadata)"),
    ("anthropic", "bordir.audit.blackbox.providers.anthropic", "Anthropic Messages with the web search tool (web_search_result_location citations)"),
):  # fmt: skip
    FORMATS.register(_name, module=_module, description=_desc)


def text_of(value: Any) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def detect_format(obj: dict[str, Any]) -> str | None:
    """The name of the format ``obj`` is in, or None."""
    for name in FORMATS.names():
        if FORMATS.get(name)().detect(obj):
            return name
    return None


def parse_response(obj: dict[str, Any], fmt: str | None = None) -> ParsedResponse:
    """Read a provider response (format ``fmt``, or detected); a :class:`ValueError` saying why it cannot be read."""
    name = fmt or detect_format(obj)
    if name is None:
        raise ValueError(
            f"not the response of a known search API ({', '.join(FORMATS.names())}): "
            f"no reader recognises its fields {sorted(obj)[:8]}"
        )
    return cast("ParsedResponse", FORMATS.get(name)().parse(obj))
