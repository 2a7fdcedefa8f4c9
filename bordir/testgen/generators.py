"""Test generators: a deterministic template generator (offline) and an LLM generator (any backend, cached).

A generator turns **jobs** into tests. A job is ``(kind, chunk, other)``:

* ``positive`` — a question answered by ``chunk`` (strategies complex,
  coverage and baseline);
* ``absent`` — a negative question about content **not in** ``chunk``'s document;
* ``cross`` — a negative question generated from ``other``, a chunk of a
  *different* document, whose document is then withheld from retrieval, so the
  system under test only finds documents that do not answer it.

Each job gives a :class:`~bordir.testgen.testcase.TestCase` or an outcome
string saying why not (``unparsed``, ``yes_no``, ``failed``, ``no_keywords``,
``no_absent_topic``, ``answerable``): nothing is dropped silently.

:class:`TemplateGenerator` asks ``What does the text say about <word> and <word>?``
(in the chunk's language, :data:`~bordir.testgen.phrases.QUESTION`) about the
two rarest words of the chunk's most informative sentence; that sentence is the
expected answer and its next rarest words the keywords. Absent-content questions ask the
same about an off-topic word found nowhere in the corpus; cross-document
questions use a word of ``other`` that occurs in no other document.

:class:`LLMGenerator` sends one prompt per job (English instructions naming
the output language) through :func:`~bordir.generation.executor.execute` with
the response cache, and reads a JSON object ``{"question", "answer",
"keywords"}``; yes/no questions are rejected (:func:`~bordir.testgen.phrases.is_yes_no`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import languages
from ..errors import ConfigError
from .chunks import Chunk, sentences
from .headings import body_sentences
from .keywords import Idf, pick_keywords, present
from .phrases import OFF_TOPIC, idk, is_yes_no, question
from .structured import json_object
from .testcase import TestCase

if TYPE_CHECKING:
    from ..generation.types import GenerationRequest

__all__ = [
    "Job",
    "Generator",
    "TemplateGenerator",
    "LLMGenerator",
    "POSITIVE_PROMPT",
    "ABSENT_PROMPT",
]

Job = tuple[str, Chunk, Chunk | None]
Result = TestCase | str

POSITIVE_PROMPT = """You write test questions for a question-answering system.
Read the passage and write ONE question in {language} that the passage answers, its answer, and 2 to 4 keywords
that a correct answer must contain (words copied from the passage).
The question must not be answerable by yes or no (start it with a question word), and must make sense without
seeing the passage.

Passage ({language}):
{text}

Answer with a JSON object only: {{"question": "...", "answer": "...", "keywords": ["...", "..."]}}"""

ABSENT_PROMPT = """You write test questions for a question-answering system.
Read the passage and write ONE question in {language} about the same topic ({title}) that the passage does NOT
answer: ask about something the passage does not mention. The question must not be answerable by yes or no.

Passage ({language}):
{text}

Answer with a JSON object only: {{"question": "..."}}"""


def _negative(
    job_kind: str,
    target: Chunk,
    q: str,
    *,
    generated_from: Chunk,
    withheld: tuple[str, ...],
    generator: str,
    meta: dict[str, str],
) -> TestCase:
    return TestCase(
        test_id="",
        lang=target.lang,
        strategy="negative",
        question=q,
        expected_answer=idk(target.lang),
        keywords=(),
        source_chunk_ids=(target.chunk_id,),
        generated_from=generated_from.chunk_id,
        negative=True,
        negative_method=job_kind,
        withheld_docs=withheld,
        generator=generator,
        meta=tuple(sorted(meta.items())),
    )


class Generator:
    """Turns jobs into tests (see module docs). Subclasses implement :meth:`make`."""

    name = ""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        from ..retrieval.analysis import analyze

        self.chunks = list(chunks)
        tokens = [set(analyze(c.text, c.lang)) for c in self.chunks]  # each chunk analysed once
        self.idf = Idf(self.chunks, tokens=tokens)
        per_doc: dict[tuple[str, str], set[str]] = {}  # (lang, doc) -> its tokens
        for c, toks in zip(self.chunks, tokens):
            per_doc.setdefault((c.lang, c.doc), set()).update(toks)
        self._docs_of: dict[tuple[str, str], set[str]] = {}
        for (lang, doc), toks in per_doc.items():
            for tok in toks:
                self._docs_of.setdefault((lang, tok), set()).add(doc)

    def docs_with(self, text: str, lang: str) -> set[str]:
        """Documents having every analyzer token of ``text`` somewhere in their chunks."""
        from ..retrieval.analysis import analyze

        toks = set(analyze(text, lang))
        if not toks:
            return set()
        sets = [self._docs_of.get((lang, t), set()) for t in toks]
        return set.intersection(*sets)

    def make(self, jobs: Sequence[Job]) -> list[Result]:
        raise NotImplementedError

    def signature_fields(self) -> dict[str, Any]:
        return {"gen": self.name}


class TemplateGenerator(Generator):
    """The deterministic, offline generator (see module docs)."""

    name = "template"

    def signature_fields(self) -> dict[str, Any]:
        from importlib.metadata import version

        from .stopwords import SOURCE

        return {"gen": self.name, "stop": f"{SOURCE}-{version('stopwordsiso')}"}

    def stop_word_note(self) -> dict[str, Any]:
        """Where the stop words come from, and the chunks' languages without a list (said, not guessed)."""
        from importlib.metadata import version

        from .stopwords import SOURCE, missing

        return {
            "source": f"{SOURCE} {version('stopwordsiso')}",
            "missing": missing(c.lang for c in self.chunks),
        }

    def _sentence_and_anchor(
        self, chunk: Chunk
    ) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
        best: tuple[float, str, tuple[str, ...], tuple[str, ...]] | None = None
        for s in body_sentences(chunk.text) or sentences(chunk.text) or [chunk.text]:
            kws = pick_keywords(s, chunk.lang, self.idf, k=4, exclude=(chunk.title,))
            if not kws:
                continue
            from ..retrieval.analysis import analyze

            scores = {k: min(self.idf(t, chunk.lang) for t in analyze(k, chunk.lang)) for k in kws}
            ranked = sorted(kws, key=lambda k: (-scores[k], kws.index(k)))
            anchors = tuple(sorted(ranked[:2], key=kws.index))
            total = sum(scores.values())
            if best is None or total > best[0]:
                rest = tuple(k for k in kws if k not in anchors)[:3] or anchors
                best = (total, s, anchors, rest)
        return None if best is None else best[1:]

    def positive(self, chunk: Chunk) -> Result:
        found = self._sentence_and_anchor(chunk)
        if found is None:
            return "no_keywords"
        sentence, anchors, keywords = found
        return TestCase(
            test_id="",
            lang=chunk.lang,
            strategy="coverage",
            question=question(chunk.lang, *anchors),
            expected_answer=sentence,
            keywords=keywords,
            source_chunk_ids=(chunk.chunk_id,),
            generated_from=chunk.chunk_id,
            generator=self.name,
            meta=(("anchor", " ".join(anchors)),),
        )

    def absent(self, chunk: Chunk) -> Result:
        for topic in OFF_TOPIC.get(chunk.lang, ()):
            if not self.docs_with(topic, chunk.lang) and not present(chunk.text, topic, chunk.lang):
                return _negative(
                    "absent",
                    chunk,
                    question(chunk.lang, topic),
                    generated_from=chunk,
                    withheld=(),
                    generator=self.name,
                    meta={"anchor": topic},
                )
        return "no_absent_topic"

    def cross(self, target: Chunk, other: Chunk) -> Result:
        found = self._sentence_and_anchor(other)
        if found is None:
            return "no_keywords"
        for kw in (*found[1], *found[2]):
            if self.docs_with(kw, target.lang) <= {other.doc} and not present(
                target.text, kw, target.lang
            ):
                return _negative(
                    "cross",
                    target,
                    question(target.lang, kw),
                    generated_from=other,
                    withheld=(other.doc,),
                    generator=self.name,
                    meta={"anchor": kw},
                )
        return "answerable"

    def make(self, jobs: Sequence[Job]) -> list[Result]:
        out: list[Result] = []
        for kind, chunk, other in jobs:
            if kind == "positive":
                out.append(self.positive(chunk))
            elif kind == "absent":
                out.append(self.absent(chunk))
            elif kind == "cross":
                if other is None:
                    raise ConfigError(
                        "a cross-document negative job needs a chunk of another document"
                    )
                out.append(self.cross(chunk, other))
            else:
                raise ConfigError(
                    f"unknown generation job {kind!r}; expected positive, absent or cross"
                )
        return out


class LLMGenerator(Generator):
    """Questions written by an LLM through any backend and the response cache (see module docs).

    Args:
        chunks: every chunk (for the cross-document check).
        model: ``provider/model`` or a built backend.
        cache: a :class:`~bordir.generation.cache.ResponseCache` (None: no cache).
        temperature: sampling temperature (part of the cache key).
        seed: sampling seed (part of the cache key).
        max_tokens: the longest reply (part of the cache key).
        concurrency: parallel calls, as :func:`~bordir.generation.executor.execute`.
        progress: progress bars, as :func:`~bordir.generation.executor.execute`.
        timeout: seconds one call may take over its attempts (None: the executor's default).
        max_retries: retries of a transient failure (None: the executor's default).

    Attributes:
        calls: generator calls asked so far (cached or not).
        failures: the error of each call that failed, in order.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        model: Any,
        *,
        cache: Any = None,
        temperature: float = 0.0,
        seed: int | None = 0,
        max_tokens: int = 256,
        concurrency: int | None = None,
        progress: bool = False,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> None:
        super().__init__(chunks)
        from ..generation.backend import get_backend

        self.backend = get_backend(model) if isinstance(model, str) else model
        self.name = f"llm:{self.backend.name}"
        self.cache, self.temperature, self.seed, self.max_tokens = (
            cache,
            temperature,
            seed,
            max_tokens,
        )
        self.concurrency, self.progress = concurrency, progress
        self.timeout, self.max_retries = timeout, max_retries
        self.calls = 0
        self.failures: list[str] = []
        self.prompt_id = hashlib.sha256((POSITIVE_PROMPT + ABSENT_PROMPT).encode()).hexdigest()[:12]

    def signature_fields(self) -> dict[str, Any]:
        return {
            "gen": self.backend.name,
            "temp": self.temperature,
            "prompt": f"testgen@sha256-{self.prompt_id}",
        }

    def _request(self, template: str, chunk: Chunk) -> GenerationRequest:
        from ..generation.types import GenerationRequest, Message

        text = template.format(
            language=languages.get(chunk.lang).name, text=chunk.text, title=chunk.title or chunk.doc
        )
        return GenerationRequest(
            model=self.backend.name,
            messages=(Message("user", text),),
            temperature=self.temperature,
            seed=self.seed,
            max_tokens=self.max_tokens,
            extra=(("rank_classification", "false"), ("task", "testgen")),
        )

    def make(self, jobs: Sequence[Job]) -> list[Result]:
        from ..generation.call_limits import ExecutorOptions
        from ..generation.executor import execute

        requests = []
        names: dict[str, str] = {}  # cache key -> what a warning calls the request
        for kind, chunk, other in jobs:
            source = chunk
            if kind == "cross":
                if other is None:
                    raise ConfigError(
                        "a cross-document negative job needs a chunk of another document"
                    )
                source = other
            requests.append(
                self._request(ABSENT_PROMPT if kind == "absent" else POSITIVE_PROMPT, source)
            )
            names.setdefault(
                requests[-1].cache_key(), f"{kind} question on chunk {source.chunk_id}"
            )
        results = execute(
            self.backend,
            requests,
            cache=self.cache,
            options=ExecutorOptions.given(
                concurrency=self.concurrency, timeout=self.timeout, max_retries=self.max_retries
            ),
            progress=self.progress,
            desc=f"testgen {self.backend.name}",
            label=lambda r: names.get(r.cache_key(), f"request {r.cache_key()[:12]}…"),
        )
        self.calls += len(results)
        out: list[Result] = []
        for (kind, chunk, other), res in zip(jobs, results):
            if not res.ok:
                self.failures.append(res.error or "call failed")
                out.append("failed")
                continue
            obj = json_object(res.text, ("question",))
            if obj is None:
                out.append("unparsed")
                continue
            q = obj.get("question")
            if not isinstance(q, str) or not q.strip():
                out.append("unparsed")
                continue
            q = " ".join(q.split())
            if is_yes_no(q, chunk.lang):
                out.append("yes_no")
                continue
            if kind == "absent":
                out.append(
                    _negative(
                        "absent",
                        chunk,
                        q,
                        generated_from=chunk,
                        withheld=(),
                        generator=self.name,
                        meta={},
                    )
                )
                continue
            answer, kws = obj.get("answer"), obj.get("keywords")
            if not isinstance(answer, str) or not answer.strip():
                out.append("unparsed")
                continue
            if isinstance(kws, str):
                kws = [k.strip() for k in kws.split(",")]
            keywords = tuple(str(k).strip() for k in (kws or []) if str(k).strip())
            if not keywords:
                out.append("no_keywords")
                continue
            if kind == "cross":
                assert other is not None
                out.append(
                    _negative(
                        "cross",
                        chunk,
                        q,
                        generated_from=other,
                        withheld=(other.doc,),
                        generator=self.name,
                        meta={},
                    )
                )
                continue
            out.append(
                TestCase(
                    test_id="",
                    lang=chunk.lang,
                    strategy="coverage",
                    question=q,
                    expected_answer=" ".join(answer.split()),
                    keywords=keywords,
                    source_chunk_ids=(chunk.chunk_id,),
                    generated_from=chunk.chunk_id,
                    generator=self.name,
                )
            )
        return out
