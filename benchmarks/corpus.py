"""Corpus store benchmark: loading a corpus directory against reading its Parquet with pyarrow, in the same run.

A synthetic fetched corpus of ``--passages`` (20,000) passages — the demo
corpus replicated, each passage given the provenance and language-check meta a
Wikipedia fetch writes (edition, page id, revision, fetch time, URL, detected
language, flag …) and one pool row in ten adding it to a second territory — is
saved with :func:`bordir.corpus.save_corpus`. Then:

* ``load_corpus``: :func:`bordir.corpus.load_corpus` of the directory
  (manifest, SHA-256 check, Parquet, :class:`~bordir.records.Passage` objects,
  the corpus index), against ``pyarrow.parquet.read_table`` of the same part
  files, and against that plus ``to_pylist`` of every column (Python objects, as
  any use of the rows needs);
* ``append``: one more pool (30 passages) appended to the 20,000-passage store.

Each figure is the median of ``--repeats`` runs (``time.perf_counter``). The
target is an absolute one: a 20k-passage corpus loads in under a second. The
ratios show what the store adds on top of reading the Parquet.

Usage: ``python benchmarks/corpus.py [--passages 20000] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from _figures import Figure, add_options, report
from _timing import median_times  # noqa: E402  (benchmarks run as scripts)

from bordir.corpus import CorpusStore, PooledCorpus, load_corpus, read_manifest, save_corpus
from bordir.loaders import load_demo_corpus
from bordir.records import Passage

TARGET_SECONDS = 1.0


def fetched_like_corpus(n_passages: int) -> PooledCorpus:
    """The demo corpus replicated to ``n_passages``, with a fetch's meta on every passage."""
    demo = load_demo_corpus()
    copies = max(1, round(n_passages / len(demo)))
    passages: list[Passage] = []
    for r in range(copies):
        for i, p in enumerate(demo):
            page_id = 100_000 + r * 50 + i // 10
            meta = (
                ("edition", {"iw": "he", "zhs": "zh", "zht": "zh"}.get(p.lang, p.lang)),
                ("fetched_at", "2025-01-01T12:00:00Z"),
                ("lang_detected", p.lang),
                ("lang_flag", "ok" if i % 40 else "mismatch"),
                ("lang_prob", "0.999"),
                ("page_id", str(page_id)),
                ("revision_id", str(1_150_000_000 + page_id)),
                ("revision_timestamp", "2023-05-01T10:00:00Z"),
                ("url", f"https://{p.lang}.wikipedia.org/wiki/Page_{page_id}"),
            )
            passages.append(replace(p, doc_id=f"{page_id}_p{i % 10}~{r}", meta=meta))
    extra = [
        (f"Territory {i % 97}", p.lang, p.doc_id) for i, p in enumerate(passages) if i % 10 == 0
    ]
    return PooledCorpus(passages, extra_pools=extra, name=f"demo×{copies}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=20_000, help="corpus size")
    add_options(parser)
    parser.add_argument(
        "--repeats", type=int, default=5, help="runs per figure; the median is reported"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.passages, args.repeats = min(args.passages, 5_000), min(args.repeats, 3)
    import pyarrow as pa
    import pyarrow.parquet as pq

    t0 = time.perf_counter()
    corpus = fetched_like_corpus(args.passages)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus"
        save_corpus(corpus, path)
        manifest = read_manifest(path)
        parts = [path / p[k] for p in manifest["parts"] for k in ("passages", "pools") if p.get(k)]
        size = sum(f.stat().st_size for f in parts)

        def arrow_only():
            return [pq.read_table(f) for f in parts]

        def arrow_pylist():
            return [{c: t.column(c).to_pylist() for c in t.column_names} for t in arrow_only()]

        assert list(load_corpus(path)) == list(corpus)
        t = median_times(
            {"load": lambda: load_corpus(path), "arrow": arrow_only, "pylist": arrow_pylist},
            args.repeats,
        )

        demo = list(load_demo_corpus())[:30]
        extra = [replace(p, doc_id=f"new{i}_{p.doc_id}") for i, p in enumerate(demo)]

        def append_one_pool():
            store = CorpusStore.open(path)
            store.append([replace(p, doc_id=f"{p.doc_id}@{time.perf_counter_ns()}") for p in extra])

        t_append = median_times({"append": append_one_pool}, args.repeats)["append"]

    print(
        f"bordir corpus store benchmark: {len(corpus)} passages, {len(corpus.extra_pools)} extra pool rows, "
        f"{size / 1e6:.1f} MB of Parquet, pyarrow {pa.__version__}, median of {args.repeats}\n"
    )
    figs = [
        Figure(
            f"load_corpus of {len(corpus)} passages (dir)",
            t["load"],
            "s",
            target=f"< {TARGET_SECONDS:.0f} s",
            reference=f"pyarrow read_table + to_pylist {t['pylist']:.3f} s",
            ratio=t["load"] / t["pylist"],
            holds=t["load"] < TARGET_SECONDS,
        ),
        Figure(
            "load_corpus vs bare Parquet read",
            t["load"],
            "s",
            reference=f"pyarrow read_table {t['arrow']:.3f} s",
            ratio=t["load"] / t["arrow"],
        ),
        Figure(
            f"append one pool to a store of {len(corpus)} passages",
            t_append,
            "s",
            note="reads the store once, writes one part and the manifest",
        ),
    ]
    print(f"({time.perf_counter() - t0:.1f} s in all)")
    report("corpus", figs, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
