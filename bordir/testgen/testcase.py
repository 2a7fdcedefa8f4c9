"""Test cases and test suites, stored as JSONL.

A :class:`TestCase` is one generated test: a question in some language, the
expected answer and its keywords, the chunk(s) it was made for
(``source_chunk_ids``), the chunk its question text was generated from
(``generated_from``: the same chunk for ordinary tests, a chunk of another
document for cross-document negative tests), the strategy that chose it
(``complex``, ``negative``, ``coverage`` or ``baseline``), and for negative
tests the method (``absent`` or ``cross``) and the documents withheld from
retrieval (``withheld_docs``). One JSON object per line; a suite's meta file
(``<tests>.meta.json``) holds the generation settings and the signature, and
``<tests>.chunks.jsonl`` the chunks the tests refer to, so a suite can be run
without its original documents.

Example:
    >>> t = TestCase(test_id="t0", lang="en", strategy="coverage", question="What does the text say about X?",
    ...              expected_answer="X is Y.", keywords=("X",), source_chunk_ids=("doc#0",),
    ...              generated_from="doc#0")
    >>> TestCase.from_dict(t.to_dict()) == t
    True
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .._io.json_read import iter_json_objects, read_json
from ..errors import DataError

__all__ = [
    "TestCase",
    "TestSuite",
    "STRATEGIES",
    "STRATEGY_DESCRIPTIONS",
    "NEGATIVE_METHODS",
    "write_suite",
    "read_suite",
    "read_tests",
]

STRATEGIES = ("complex", "negative", "coverage", "baseline")
NEGATIVE_METHODS = ("absent", "cross")
STRATEGY_DESCRIPTIONS = {
    "complex": "positive questions from the hardest chunks (readability, ranked within each language)",
    "negative": "questions the documents cannot answer: absent facts, or another document's (cross)",
    "coverage": "a question from every chunk no test has used yet, round-robin over documents",
    "baseline": "alone: chunks drawn at random with replacement, positive questions (no strategy)",
}
"""One line per strategy (``bordir list strategies``; :mod:`bordir.testgen.suite` has the details)."""


@dataclass(frozen=True, slots=True)
class TestCase:
    """One generated test (see module docs)."""

    __test__ = False  # not a pytest test class

    test_id: str
    lang: str
    strategy: str
    question: str
    expected_answer: str
    keywords: tuple[str, ...]
    source_chunk_ids: tuple[str, ...]
    generated_from: str
    negative: bool = False
    negative_method: str | None = None
    withheld_docs: tuple[str, ...] = ()
    complexity: float | None = None
    complexity_method: str | None = None
    generator: str = ""
    meta: tuple[tuple[str, str], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("keywords", "source_chunk_ids", "withheld_docs"):
            d[k] = list(d[k])
        d["meta"] = dict(self.meta)
        return d

    @classmethod
    def from_dict(
        cls, d: dict[str, Any], *, path: str | Path | None = None, line: int | None = None
    ) -> TestCase:
        """Build from a JSON object; a missing or mistyped field raises :class:`DataError`."""

        def bad(f: str, expected: str) -> DataError:
            return DataError(
                f"expected {expected}, found {d.get(f)!r}", path=path, line=line, field=f
            )

        for f in ("test_id", "lang", "strategy", "question", "expected_answer", "generated_from"):
            if not isinstance(d.get(f), str) or not d[f].strip():
                raise bad(f, "a non-empty string")
        if d["strategy"] not in STRATEGIES:
            raise bad("strategy", f"one of {', '.join(STRATEGIES)}")
        for f in ("keywords", "source_chunk_ids"):
            if not isinstance(d.get(f), list) or not all(isinstance(x, str) for x in d[f]):
                raise bad(f, "a list of strings")
        if not d["source_chunk_ids"]:
            raise bad("source_chunk_ids", "at least one chunk id")
        negative = d.get("negative", False)
        if not isinstance(negative, bool):
            raise bad("negative", "true or false")
        method = d.get("negative_method")
        if negative and method not in NEGATIVE_METHODS:
            raise bad(
                "negative_method", f"one of {', '.join(NEGATIVE_METHODS)} for a negative test"
            )
        withheld = d.get("withheld_docs") or []
        if not isinstance(withheld, list) or not all(isinstance(x, str) for x in withheld):
            raise bad("withheld_docs", "a list of strings")
        cx = d.get("complexity")
        if cx is not None and not isinstance(cx, (int, float)):
            raise bad("complexity", "a number or null")
        meta = d.get("meta") or {}
        if not isinstance(meta, dict):
            raise bad("meta", "an object")
        return cls(
            test_id=d["test_id"],
            lang=d["lang"],
            strategy=d["strategy"],
            question=d["question"],
            expected_answer=d["expected_answer"],
            keywords=tuple(d["keywords"]),
            source_chunk_ids=tuple(d["source_chunk_ids"]),
            generated_from=d["generated_from"],
            negative=negative,
            negative_method=method if negative else None,
            withheld_docs=tuple(withheld),
            complexity=None if cx is None else float(cx),
            complexity_method=d.get("complexity_method"),
            generator=str(d.get("generator", "")),
            meta=tuple(sorted((str(k), str(v)) for k, v in meta.items())),
        )


@dataclass
class TestSuite:
    """Generated tests, the chunks they refer to, and how they were made.

    Attributes:
        tests: the tests, in generation order.
        chunks: every chunk of the source documents (the retrieval corpus of ``testrun``).
        meta: generation settings (strategies, n, seed, generator, sources) and ``signature``.
        outcomes: per (strategy, outcome) counts of generation attempts (``made``,
            ``unparsed``, ``yes_no``, ``no_keywords``, ``failed``, ``no_absent_topic`` …).
    """

    __test__ = False

    tests: list[TestCase]
    chunks: list[Any]
    meta: dict[str, Any] = field(default_factory=dict)
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.tests)

    def __iter__(self) -> Iterator[TestCase]:
        return iter(self.tests)

    _by_id: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def chunk(self, chunk_id: str) -> Any:
        """The chunk with ``chunk_id``."""
        if len(self._by_id) != len(self.chunks):
            self._by_id = {c.chunk_id: c for c in self.chunks}
        return self._by_id[chunk_id]

    def coverage(self) -> dict[str, int]:
        """Tests per chunk id: how often each chunk is a test's source (0 for unused chunks)."""
        used = {c.chunk_id: 0 for c in self.chunks}
        for t in self.tests:
            for cid in t.source_chunk_ids:
                used[cid] = used.get(cid, 0) + 1
        return used

    def coverage_rate(self) -> float:
        """Share of chunks that are the source of at least one test."""
        cov = self.coverage()
        return sum(1 for v in cov.values() if v) / len(cov) if cov else 0.0


def _paths(path: str | Path) -> tuple[Path, Path, Path]:
    path = Path(path)
    return (
        path,
        path.with_name(path.name + ".meta.json"),
        path.with_name(path.stem + ".chunks.jsonl"),
    )


def write_suite(suite: TestSuite, path: str | Path) -> Path:
    """Write ``path`` (tests JSONL), ``<path>.meta.json`` and ``<stem>.chunks.jsonl`` atomically."""
    from .._io.atomic import atomic_write_text
    from .chunks import write_chunks

    tests_path, meta_path, chunks_path = _paths(path)
    tests_path.parent.mkdir(parents=True, exist_ok=True)
    write_chunks(suite.chunks, chunks_path)
    meta = {
        **suite.meta,
        "outcomes": suite.outcomes,
        "tests": len(suite.tests),
        "chunks_file": chunks_path.name,
        "coverage_rate": round(suite.coverage_rate(), 6),
    }
    atomic_write_text(
        meta_path, json.dumps(meta, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    )
    lines = [json.dumps(t.to_dict(), ensure_ascii=False, sort_keys=True) for t in suite.tests]
    return atomic_write_text(tests_path, "\n".join(lines) + ("\n" if lines else ""))


def read_tests(path: str | Path) -> list[TestCase]:
    """Read a tests JSONL file; every line is checked (:class:`DataError` names file, line and field).

    Raises:
        DataError: the file is missing, a line is not a test, two tests share an id, or it has none.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError("tests file not found (write one with `bordir testgen`)", path=path)
    out: list[TestCase] = []
    seen: set[str] = set()
    for lineno, rec in iter_json_objects(path):
        t = TestCase.from_dict(rec, path=path, line=lineno)
        if t.test_id in seen:
            raise DataError(
                f"duplicate test id {t.test_id!r}", path=path, line=lineno, field="test_id"
            )
        seen.add(t.test_id)
        out.append(t)
    if not out:
        raise DataError(
            "has no tests (an empty tests file); write one with `bordir testgen SOURCES --out FILE`",
            path=path,
        )
    return out


def read_suite(path: str | Path) -> TestSuite:
    """Read a suite written by :func:`write_suite`; tests must refer to chunks of its chunks file."""
    from .chunks import read_chunks

    tests_path, meta_path, chunks_path = _paths(path)
    tests = read_tests(tests_path)
    meta: dict[str, Any] = {}
    if meta_path.is_file():
        meta = read_json(meta_path)
        chunks_path = tests_path.with_name(meta.get("chunks_file", chunks_path.name))
    chunks = read_chunks(chunks_path)
    ids = {c.chunk_id for c in chunks}
    for i, t in enumerate(tests, start=1):
        for cid in (*t.source_chunk_ids, t.generated_from):
            if cid not in ids:
                raise DataError(
                    f"chunk {cid!r} is not in {chunks_path.name}",
                    path=tests_path,
                    line=i,
                    field="source_chunk_ids",
                )
    outcomes = meta.pop("outcomes", {}) if isinstance(meta, dict) else {}
    return TestSuite(tests=tests, chunks=chunks, meta=meta, outcomes=outcomes)
