"""The raw responses of search-enabled assistant APIs, read as they come: answer text and cited URLs.

:data:`FORMATS` holds one reader per wire format, each in its own module and imported on first
use: ``openai-responses`` (OpenAI Responses API, ``web_search`` tool, ``url_citation``
annotations), ``perplexity`` (chat completions with ``citations`` / ``search_results``),
``gemini`` (``generateContent`` with ``groundingMetadata``), ``anthropic`` (Messages with the
web search tool, ``web_search_result_location`` citations). :func:`parse_response` finds the
format of a response object and reads it into a :class:`~.base.ParsedResponse`.
"""

from __future__ import annotations

from .base import FORMATS, Cited, ParsedResponse, detect_format, parse_response

__all__ = ["FORMATS", "Cited", "ParsedResponse", "detect_format", "parse_response"]
