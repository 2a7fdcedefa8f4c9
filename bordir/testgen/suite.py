"""Generating a test suite: the strategies complex, negative and coverage, and the strategy-free baseline.

:func:`generate_suite` splits ``n`` tests evenly over the requested strategies
(the first strategies get the remainder) and keeps, like RAG-Tester, **one test
per chunk**: a chunk used by one strategy is not used again.

* **complex** — chunks ranked by readability (:mod:`bordir.testgen.readability`;
  lower is harder) **within their language**, then merged by rank percentile, so
  each language gives its hardest chunks in proportion to its size; the hardest
  unused chunks get positive questions.
* **negative** — unused chunks in seeded random order, alternating the two
  methods (``absent``, then ``cross``, …; ``negative_methods`` selects them). A
  cross-document question is generated from a chunk of another document in the
  same language (seeded choice), whose document is withheld at run time.
* **coverage** — chunks no test has used yet, round-robin over documents in
  seeded order. With ``full_coverage=True`` it goes on until **every chunk** is
  the source of a test (whatever ``n`` says); chunks that cannot give a test
  are counted in the outcomes and :meth:`TestSuite.coverage` shows them with 0.
* **baseline** (alone) — "the same generator without strategies": chunks drawn
  uniformly at random **with replacement** (no coverage, no complexity), positive questions.

A job that gives no test (see :mod:`~bordir.testgen.generators`) is counted in
``suite.outcomes[strategy][outcome]`` and another chunk is tried, for up to
``max_rounds`` rounds.

Example:
    >>> from bordir.testgen.chunks import make_chunks
    >>> chunks = (make_chunks("Alpha ferries cross the Zorbian strait.\\n\\nBeta towers guard Quorl harbour.",
    ...                       doc="a", lang="en")
    ...           + make_chunks("Gamma mines produce Vantrel copper.", doc="b", lang="en"))
    >>> s = generate_suite(chunks, strategies=("coverage",), n=1, full_coverage=True, seed=1)
    >>> sorted(s.coverage().values()), s.coverage_rate()
    ([1, 1, 1], 1.0)
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from .._version import __version__
from ..errors import ConfigError
from ..signature import Signature
from .chunks import Chunk
from .generators import Generator, Job, TemplateGenerator
from .readability import complexity_score
from .testcase import NEGATIVE_METHODS, STRATEGIES, TestCase, TestSuite

__all__ = ["generate_suite", "parse_strategies", "complexity_order", "chunks_hash"]


def parse_strategies(spec: str | Sequence[str]) -> tuple[str, ...]:
    """``"complex,negative,coverage"`` → a tuple; ``baseline`` must come alone.

    >>> parse_strategies("complex, coverage")
    ('complex', 'coverage')
    """
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    bad = [s for s in items if s not in STRATEGIES]
    if bad or not items:
        raise ConfigError(
            f"unknown strategy {', '.join(bad) or '(none)'}; choose from {', '.join(STRATEGIES)}"
        )
    if "baseline" in items and len(items) > 1:
        raise ConfigError(
            "the baseline generator has no strategies: use --strategies baseline alone"
        )
    return tuple(dict.fromkeys(items))


def chunks_hash(chunks: Sequence[Chunk]) -> str:
    """``sha256-…`` of the chunks' ids, languages and texts (the suite's data identity)."""
    h = hashlib.sha256()
    for c in chunks:
        h.update(f"{c.chunk_id}\t{c.lang}\t{c.text}\n".encode())
    return f"sha256-{h.hexdigest()[:16]}"


def complexity_order(chunks: Sequence[Chunk]) -> list[tuple[Chunk, float, str]]:
    """Chunks hardest first, by rank percentile within their language: ``(chunk, score, method)``."""
    by_lang: dict[str, list[tuple[Chunk, float, str]]] = defaultdict(list)
    for c in chunks:
        score, method = complexity_score(c.text, c.lang)
        by_lang[c.lang].append((c, score, method))
    ranked: list[tuple[float, str, int, tuple[Chunk, float, str]]] = []
    for lang, items in by_lang.items():
        items.sort(key=lambda x: (x[1], x[0].chunk_id))
        for r, item in enumerate(items):
            ranked.append(((r + 0.5) / len(items), lang, r, item))
    ranked.sort(key=lambda x: (x[0], x[1], x[2]))
    return [x[3] for x in ranked]


def _round_robin(chunks: Sequence[Chunk], rng: np.random.Generator) -> list[Chunk]:
    by_doc: dict[str, list[Chunk]] = defaultdict(list)
    for c in chunks:
        by_doc[c.doc].append(c)
    docs = list(by_doc)
    rng.shuffle(docs)
    out: list[Chunk] = []
    depth = 0
    while len(out) < len(chunks):
        for d in docs:
            if depth < len(by_doc[d]):
                out.append(by_doc[d][depth])
        depth += 1
    return out


def _kth_outside(taken: list[int], k: int) -> int:
    """The ``k``-th (0-based) position not in the sorted list ``taken``.

    >>> [_kth_outside([1, 2, 5], k) for k in range(4)]
    [0, 3, 4, 6]
    """
    at = k
    while True:
        nxt = k + bisect.bisect_right(taken, at)
        if nxt == at:
            return at
        at = nxt


def _split(n: int, k: int) -> list[int]:
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def generate_suite(
    chunks: Sequence[Chunk],
    *,
    strategies: Sequence[str] | str = ("complex", "negative", "coverage"),
    n: int = 50,
    generator: Generator | None = None,
    seed: int = 12345,
    negative_methods: Sequence[str] = NEGATIVE_METHODS,
    full_coverage: bool = False,
    max_rounds: int = 3,
) -> TestSuite:
    """Generate tests from ``chunks`` (see module docs).

    Args:
        chunks: the chunks of every source document (also the retrieval corpus at run time).
        strategies: some of ``complex``, ``negative``, ``coverage``; or ``baseline`` alone.
        n: tests to make in all (coverage with ``full_coverage`` may make more).
        generator: default: a :class:`TemplateGenerator` over ``chunks``.
        seed: seed of every random choice (in the signature).
        negative_methods: ``absent`` and/or ``cross``.
        full_coverage: coverage continues until every chunk is used.
        max_rounds: generation rounds per strategy (a round retries the jobs that gave no test).

    Raises:
        ConfigError: no chunks, bad strategies / methods, or ``n < 1``.
    """
    chunks = list(chunks)
    if not chunks:
        raise ConfigError("no chunks to generate tests from")
    if n < 1:
        raise ConfigError(f"n must be >= 1, found {n}")
    strategies = parse_strategies(strategies)
    methods = tuple(negative_methods)
    if not methods or set(methods) - set(NEGATIVE_METHODS):
        raise ConfigError(
            f"negative methods must be some of {', '.join(NEGATIVE_METHODS)}, found {methods}"
        )
    gen = generator or TemplateGenerator(chunks)
    rng = np.random.default_rng(seed)
    used: set[str] = set()
    tests: list[TestCase] = []
    outcomes: dict[str, Counter[str]] = {s: Counter() for s in strategies}
    ranked = complexity_order(chunks) if "complex" in strategies else []  # computed once
    cx_of = {c.chunk_id: (s, m) for c, s, m in ranked}
    by_lang_doc: dict[str, list[Chunk]] = defaultdict(list)
    at_of: dict[tuple[str, str], list[int]] = defaultdict(list)  # (lang, doc) -> its positions
    for c in chunks:
        at_of[c.lang, c.doc].append(len(by_lang_doc[c.lang]))
        by_lang_doc[c.lang].append(c)

    def run(strategy: str, pool: list[Chunk], want: int, kinds: Sequence[str]) -> None:
        made = 0
        cursor = 0
        for _ in range(max_rounds):
            jobs: list[Job] = []
            while len(jobs) < want - made and cursor < len(pool):
                c = pool[cursor]
                cursor += 1
                if strategy != "baseline" and c.chunk_id in used:
                    continue
                kind = kinds[(made + len(jobs)) % len(kinds)]
                other = None
                if kind == "cross":
                    # the chunks of the language from other documents, in order (not built: a
                    # document's positions are skipped by bisection, so no job costs O(chunks))
                    own = at_of[c.lang, c.doc]
                    n_others = len(by_lang_doc[c.lang]) - len(own)
                    if not n_others:
                        outcomes[strategy]["no_other_document"] += 1
                        continue
                    pick = _kth_outside(own, int(rng.integers(n_others)))
                    other = by_lang_doc[c.lang][pick]
                jobs.append((kind, c, other))
                if strategy != "baseline":
                    used.add(c.chunk_id)
            if not jobs:
                break
            for (_kind, c, _other), res in zip(jobs, gen.make(jobs)):
                if isinstance(res, str):
                    outcomes[strategy][res] += 1
                    continue
                outcomes[strategy]["made"] += 1
                cx = cx_of.get(c.chunk_id)
                res = dataclasses.replace(
                    res,
                    strategy=strategy,
                    test_id=f"{strategy}-{len(tests):04d}",
                    complexity=cx[0] if cx else res.complexity,
                    complexity_method=cx[1] if cx else None,
                )
                tests.append(res)
                made += 1
            if made >= want:
                break

    if strategies == ("baseline",):
        pool = [chunks[int(i)] for i in rng.integers(len(chunks), size=n * max_rounds)]
        run("baseline", pool, n, ("positive",))
    else:
        shares = dict(zip(strategies, _split(n, len(strategies))))
        for strategy in strategies:
            if strategy == "complex":
                pool = [c for c, _, _ in ranked]
                run("complex", pool, shares["complex"], ("positive",))
            elif strategy == "negative":
                order = rng.permutation(len(chunks))
                run("negative", [chunks[int(i)] for i in order], shares["negative"], methods)
            else:
                pool = _round_robin(chunks, rng)
                want = len(pool) if full_coverage else shares["coverage"]
                run("coverage", pool, want, ("positive",))
                if full_coverage:
                    sources = {cid for t in tests for cid in t.source_chunk_ids}
                    outcomes["coverage"]["unused_chunks"] = sum(
                        1 for c in chunks if c.chunk_id not in sources
                    )
    sig = Signature.build(
        "testgen",
        strategies="+".join(strategies),
        n=n,
        full_coverage=full_coverage or None,
        neg="+".join(methods) if "negative" in strategies else None,
        seed=seed,
        **gen.signature_fields(),
        chunks=len(chunks),
        data=chunks_hash(chunks),
        version=__version__,
    )
    meta = {
        "signature": str(sig),
        "strategies": list(strategies),
        "n": n,
        "seed": seed,
        "generator": gen.name,
        "negative_methods": list(methods),
        "full_coverage": full_coverage,
        "languages": sorted({c.lang for c in chunks}),
    }
    if isinstance(gen, TemplateGenerator):
        meta["stop_words"] = gen.stop_word_note()
    return TestSuite(
        tests=tests,
        chunks=chunks,
        meta=meta,
        outcomes={s: dict(sorted(c.items())) for s, c in outcomes.items()},
    )
