"""LLM-written documents in any language, through any backend and the response cache.

RAG-Tester's first stage has an LLM write documents of a given length, level
of detail, tone and topic, in Markdown. :func:`write_documents` does the same
in any bordir language: one request per (topic, copy) through
:func:`~bordir.generation.executor.execute` (cached: a re-run makes no call),
the Markdown turned into paragraphs (:func:`~bordir.testgen.documents.markdown_text`)
and cut into chunks with provenance ``llm:<model>``. RAG-Tester then converts
the Markdown to the file type under test (PDF …); bordir keeps the text
(:func:`~bordir.testgen.sources.chunks_from_file` reads real files instead).

Example:
    >>> from bordir.generation.backend import get_backend
    >>> docs = write_documents(["Lake Ohrid"], lang="en", model=get_backend("mock/fixed:Ohrid is deep. It is old."))
    >>> [(c.chunk_id, c.text, c.source) for c in docs.chunks]
    [('llm-en-lake-ohrid-0#0', 'Ohrid is deep. It is old.', 'llm:mock/fixed:Ohrid is deep. It is old.')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import languages
from ..errors import ConfigError
from .chunks import Chunk, SplitBy, make_chunks
from .documents import markdown_text

__all__ = ["WRITER_PROMPT", "WrittenDocuments", "write_documents"]

WRITER_PROMPT = """Write a document in Markdown, in {language}, about: {topic}.
Length: about {length} words. Level of detail: {detail}. Tone: {tone}.
Use a title, a few section headings and paragraphs of several sentences. Write only the document."""


@dataclass
class WrittenDocuments:
    """Chunks of the written documents, the Markdown texts, and the calls' outcomes."""

    chunks: list[Chunk]
    documents: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    def save(self, folder: str | Path) -> list[Path]:
        """Write each document as ``<doc>.md`` in ``folder`` (readable again with ``chunks_from_file``)."""
        from .._io.atomic import atomic_write_text

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        return [
            atomic_write_text(folder / f"{doc}.md", text + "\n")
            for doc, text in self.documents.items()
        ]


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.casefold()).strip("-")[:40] or "doc"


def write_documents(
    topics: Sequence[str],
    *,
    lang: str,
    model: Any,
    length: int = 300,
    detail: str = "moderate",
    tone: str = "neutral, encyclopedic",
    copies: int = 1,
    temperature: float = 0.7,
    seed: int = 0,
    cache: Any = None,
    by: SplitBy = "paragraph",
    max_tokens: int | None = None,
    progress: bool = False,
    timeout: float | None = None,
    max_retries: int | None = None,
) -> WrittenDocuments:
    """Have an LLM write ``copies`` documents per topic in ``lang`` (see module docs).

    Args:
        topics: what the documents are about.
        lang: the documents' language (bordir code).
        model: ``provider/model`` or a built backend.
        length: the document length in words, as RAG-Tester's document parameter.
        detail: the level of detail, as RAG-Tester's.
        tone: the writing tone, as RAG-Tester's.
        copies: documents per topic (seeds ``seed``, ``seed + 1`` …).
        temperature: sampling temperature (in the cache key).
        seed: the first copy's sampling seed (in the cache key).
        cache: a response cache (None: no cache).
        by: how the written documents are chunked (``paragraph`` or ``tokens``).
        max_tokens: the chunk size with ``by="tokens"``.
        progress: show a progress bar.
        timeout: seconds one call may take, as
            :class:`~bordir.generation.call_limits.ExecutorOptions` (None: the executor's default).
        max_retries: retries of a transient failure (None: the executor's default).

    Raises:
        ConfigError: no topics, or ``copies``/``length`` below 1.
    """
    from ..generation.backend import get_backend
    from ..generation.call_limits import ExecutorOptions
    from ..generation.executor import execute
    from ..generation.types import GenerationRequest, Message

    if not topics or copies < 1 or length < 1:
        raise ConfigError("write_documents needs at least one topic, copies >= 1 and length >= 1")
    language = languages.get(lang).name
    backend = get_backend(model) if isinstance(model, str) else model
    jobs, requests = [], []
    for topic in topics:
        for k in range(copies):
            prompt = WRITER_PROMPT.format(
                language=language, topic=topic, length=length, detail=detail, tone=tone
            )
            jobs.append((f"llm-{lang}-{_slug(topic)}-{k}", topic))
            requests.append(
                GenerationRequest(
                    model=backend.name,
                    messages=(Message("user", prompt),),
                    temperature=temperature,
                    seed=seed + k,
                    max_tokens=int(length * 3),
                    extra=(("rank_classification", "false"), ("task", "testgen-write")),
                )
            )
    names = {r.cache_key(): f"document {doc}" for r, (doc, _) in zip(requests, jobs)}
    results = execute(
        backend,
        requests,
        cache=cache,
        options=ExecutorOptions.given(timeout=timeout, max_retries=max_retries),
        progress=progress,
        desc=f"write {backend.name}",
        label=lambda r: names.get(r.cache_key(), f"request {r.cache_key()[:12]}…"),
    )
    out = WrittenDocuments(chunks=[])
    for (doc, topic), res in zip(jobs, results):
        if not res.ok or not res.text.strip():
            out.failed[doc] = res.error or "empty document"
            continue
        out.documents[doc] = res.text.strip()
        out.chunks += make_chunks(
            markdown_text(res.text),
            doc=doc,
            lang=lang,
            source=f"llm:{backend.name}",
            title=topic,
            by=by,
            max_tokens=max_tokens,
            meta=(("topic", topic),),
        )
    return out
