"""Requests and results of LLM calls.

A :class:`GenerationRequest` holds everything that changes the answer; its
:meth:`~GenerationRequest.cache_key` hashes exactly that (nothing operational
such as concurrency or timeouts), so a response cache can return a stored
answer with zero calls.

Example:
    >>> r = GenerationRequest(model="mock/echo", messages=(Message("user", "Hi"),), temperature=0.5, seed=4321)
    >>> r.cache_key() == GenerationRequest(model="mock/echo", messages=(Message("user", "Hi"),),
    ...                                    temperature=0.5, seed=4321).cache_key()
    True
    >>> r.cache_key() == r.replace(seed=2557).cache_key()
    False
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from .._io.json_read import loads

__all__ = ["Message", "Document", "GenerationRequest", "GenerationResult", "ResponseFormat"]

ResponseFormat = Literal["direct", "citation", "open"]


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class Document:
    """A document placed in a prompt: its number in the prompt, its corpus id and language."""

    index: int
    doc_id: str
    lang: str
    text: str


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """Everything that determines one LLM call's answer.

    Attributes:
        model: ``provider/model`` (``openai/gpt-4o-mini``, ``local/gemma-3-270m`` …).
        messages: the rendered chat messages.
        temperature, seed, max_tokens: sampling settings.
        response_format: ``direct``, ``citation`` or ``open`` (a free answer; no options).
        options: option labels (``"A) Россия"``) for backends that score options
            (rank classification); empty otherwise.
        documents: the prompt's documents, for backends with native grounding
            (Cohere ``documents``); their text is also in ``messages``.
        extra: further result-changing backend parameters, as sorted pairs.
    """

    model: str
    messages: tuple[Message, ...]
    temperature: float = 0.0
    seed: int | None = None
    max_tokens: int = 128
    response_format: ResponseFormat = "direct"
    options: tuple[str, ...] = ()
    documents: tuple[Document, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()
    _key: str | None = field(default=None, init=False, repr=False, compare=False)
    """:meth:`cache_key`, once computed (a request is immutable)."""

    @property
    def provider(self) -> str:
        return self.model.partition("/")[0]

    @property
    def model_name(self) -> str:
        return self.model.partition("/")[2]

    def replace(self, **changes: Any) -> GenerationRequest:
        return dataclasses.replace(self, **changes)

    def key_payload(self) -> dict[str, Any]:
        """The result-changing fields, as a JSON-able dict (what :meth:`cache_key` hashes)."""
        return {
            "model": self.model,
            "messages": [[m.role, m.content] for m in self.messages],
            "temperature": round(float(self.temperature), 6),
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "format": self.response_format,
            "options": list(self.options),
            "documents": [[d.index, d.lang, d.doc_id, d.text] for d in self.documents],
            "extra": [list(kv) for kv in self.extra],
        }

    def cache_key(self) -> str:
        """SHA-256 of :meth:`key_payload` as canonical JSON (computed once per request)."""
        key = self._key
        if key is None:
            blob = json.dumps(
                self.key_payload(), ensure_ascii=False, sort_keys=True, separators=(",", ":")
            )
            key = hashlib.sha256(blob.encode("utf-8")).hexdigest()
            object.__setattr__(self, "_key", key)
        return key


@dataclass(frozen=True, slots=True)
class GenerationResult:
    """What one call produced (or why it failed after the last retry).

    Attributes:
        text: the raw model text ("" on failure).
        error: None, or the failure reason after the last retry (the run goes on).
        input_tokens, output_tokens: token usage when the backend reports it.
        latency_s: wall time of the successful attempt (0 for cache hits).
        attempts: number of attempts made (0 for cache hits).
        option_logprobs: rank classification: the teacher-forced log-likelihood of each option.
        native_citations: backend-native citations as tuples of prompt document indices.
        cached: True when served from the response cache.
    """

    text: str
    model: str
    error: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_s: float = 0.0
    attempts: int = 1
    finish_reason: str = ""
    option_logprobs: tuple[float, ...] | None = None
    native_citations: tuple[tuple[int, ...], ...] | None = None
    cached: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> str:
        """The result as stored in the response cache (every field but ``cached``), as JSON.

        The fields are read as they are (tuples are JSON arrays): the same text as through
        :func:`dataclasses.asdict`, at a tenth of its cost (it deep-copies every value), which was
        0.1 ms of each call's CPU on the executor's event loop.
        """
        d = {name: getattr(self, name) for name in _RESULT_FIELDS}
        try:
            return json.dumps(d, ensure_ascii=False, sort_keys=True)
        except TypeError:  # a value json does not know as it is (a dataclass in meta …)
            d = dataclasses.asdict(self)
            d.pop("cached")
            return json.dumps(d, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, blob: str, *, cached: bool = True) -> GenerationResult:
        d = loads(blob)
        for key in ("option_logprobs",):
            if d.get(key) is not None:
                d[key] = tuple(d[key])
        if d.get("native_citations") is not None:
            d["native_citations"] = tuple(tuple(c) for c in d["native_citations"])
        return cls(**d, cached=cached)


_RESULT_FIELDS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(GenerationResult) if f.name != "cached"
)
