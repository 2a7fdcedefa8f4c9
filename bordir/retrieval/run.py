"""Run retrieval for a dataset × modes: the hits table.

For each query and mode, the candidate documents are the (territory, language)
pools of the mode's languages. The retriever scores each language's documents
(:meth:`~bordir.retrieval.base.Retriever.score`), scores are made comparable
across languages by ``fusion``, and all documents are ranked together with no
per-language quota (as BordIRLines). ``balanced=True`` instead gives each
language of the mode an equal share of the first ``k`` slots.

Fusion (``fusion=``):

* ``raw`` — use the retriever's scores as they are. Right for cosine scores of
  one multilingual embedder (BordIRLines' choice); wrong for BM25, whose scale
  depends on each language index's statistics.
* ``minmax`` — per document language, rescale scores to [0, 1] (best = 1). The
  default for lexical retrievers.
* ``rrf`` — reciprocal rank within each language, ``1 / (60 + rank)``.

Lexical retrievers (``cross_lingual = False``) score documents in language
``d`` with the territory's parallel query in ``d`` (BorderLines has each
territory's query in every claimant language and English); where there is
none, the query's own text is used.

The result is one row per (query, mode, rank): ``query_id, territory,
query_lang, mode, rank, doc_id, doc_lang, score, raw_score``; ``swap_docs``
rows also name ``source_query_id``. Each hit carries its passage's provenance:
``title``, ``revision_id`` and ``fetched_at`` (empty when the corpus has none,
e.g. the demo; a corpus fetched by ``bordir corpus fetch`` has all three). Queries for which a mode is undefined are
listed in ``skipped`` with the reason, never dropped silently.

Example:
    >>> from bordir.loaders import load_demo, load_demo_corpus
    >>> from bordir.retrieval.run import retrieve
    >>> run = retrieve(load_demo(), load_demo_corpus(), "bm25", modes="all", k=3, progress=False)
    >>> sorted(run.hits["mode"].unique())
    ['en_only', 'qlang', 'qlang+en', 'rel_langs', 'swap_docs']
    >>> run.skipped_counts()["swap_docs"]   # 10 control queries of territories without an English claimant + Western Sahara
    11
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._io.atomic import atomic_write_parquet
from .._io.columns import require_columns
from .._io.json_read import loads, not_valid
from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import ConfigError, DataError
from ..modes import Mode, Skip, mode_langs, swap_partner, swap_skip_reason
from ..records import Passage, Query, query_id
from ..signature import Signature
from .base import Retriever, get_retriever
from .fusion import FUSIONS, fuse

if TYPE_CHECKING:
    from ..loaders.bordirlines import BordIRLines

__all__ = [
    "RetrievalRun",
    "retrieve",
    "parse_modes",
    "load_hits",
    "from_bordirlines",
    "FUSIONS",
    "HIT_COLUMNS",
    "PROVENANCE_COLUMNS",
]

HIT_COLUMNS = [
    "query_id",
    "territory",
    "query_lang",
    "mode",
    "rank",
    "doc_id",
    "doc_lang",
    "score",
    "raw_score",
    "source_query_id",
]
PROVENANCE_COLUMNS = ["title", "revision_id", "fetched_at"]
"""Passage provenance carried by every hit (from the passage's ``title`` and meta; empty when unknown)."""


def parse_modes(modes: str | Iterable[str | Mode]) -> tuple[Mode, ...]:
    """``"all"``, a comma-separated string, or an iterable of names → modes (canonical order)."""
    if isinstance(modes, str):
        modes = list(Mode) if modes.strip() == "all" else [m for m in modes.split(",") if m.strip()]
    parsed = {Mode.parse(m) for m in modes}
    if not parsed:
        raise ConfigError("no retrieval mode given; use e.g. 'all' or 'qlang,rel_langs'")
    return tuple(m for m in Mode if m in parsed)


_fuse = fuse  # the name the tests and older callers use


@dataclass
class RetrievalRun:
    """Hits of one retrieval run plus what produced them.

    Attributes:
        hits: the hits table (see module docs), ranks 1-based, ``depth`` per (query, mode).
        skipped: (query, mode) pairs for which the mode is undefined, with reasons.
        k: documents per prompt (what consumers take with :meth:`top`).
        params: everything that changes the result (retriever signature, fusion, depth …).
    """

    hits: pd.DataFrame
    skipped: list[Skip] = field(default_factory=list)
    k: int = 10
    params: dict[str, str] = field(default_factory=dict)

    def signature_object(self) -> Signature:
        """The run's :class:`~bordir.signature.Signature` (retriever and its parameters, k, data, corpus)."""
        return Signature.build("retrieval", **self.params, k=self.k)

    @property
    def signature(self) -> str:
        """``retrieval|ret:…|fusion:…|…|k:…|version:…``, the identity of the run."""
        return str(self.signature_object())

    def top(self, k: int | None = None) -> pd.DataFrame:
        """The first ``k`` (default: the run's ``k``) hits of every (query, mode)."""
        k = self.k if k is None else k
        return self.hits[self.hits["rank"] <= k].reset_index(drop=True)

    def skipped_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.skipped:
            out[s.mode] = out.get(s.mode, 0) + 1
        return out

    def to_parquet(self, path: str | Path) -> Path:
        """Write the hits with the run's parameters and skips in the Parquet metadata."""
        import pyarrow as pa

        path = Path(path)
        table = pa.Table.from_pandas(self.hits, preserve_index=False)
        meta = {
            b"bordir.signature": self.signature.encode(),
            b"bordir.params": json.dumps({**self.params, "k": self.k}).encode(),
            b"bordir.skipped": json.dumps(
                [asdict(s) for s in self.skipped], ensure_ascii=False
            ).encode(),
        }
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
        return atomic_write_parquet(path, table)


def load_hits(path: str | Path) -> RetrievalRun:
    """Read a hits Parquet file written by :meth:`RetrievalRun.to_parquet`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise DataError(
            "file not found (expected a hits .parquet written by bordir retrieve)", path=path
        )
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"not a readable Parquet file: {first}", path=path) from None
    meta = table.schema.metadata or {}
    hits = table.to_pandas()
    require_columns(hits, HIT_COLUMNS, path=path)
    for c in PROVENANCE_COLUMNS:
        if c not in hits.columns:
            hits[c] = ""
    try:
        params = loads(meta.get(b"bordir.params", b"{}"))
        k = int(params.pop("k", 10))
        skipped = [Skip(**s) for s in loads(meta.get(b"bordir.skipped", b"[]"))]
    except (ValueError, TypeError, AttributeError) as exc:
        why = not_valid(exc) if isinstance(exc, json.JSONDecodeError) else f"malformed: {exc}"
        raise DataError(
            f"its bordir.params / bordir.skipped metadata is {why}; write it again with bordir retrieve",
            path=path,
        ) from None
    return RetrievalRun(
        hits=hits, skipped=skipped, k=k, params={k_: str(v) for k_, v in params.items()}
    )


def _rank(
    cands: list[tuple[Passage, float, float]], langs: Sequence[str], k: int, balanced: bool
) -> list[tuple[Passage, float, float]]:
    """Order candidates (passage, fused, raw): pooled by fused score, or balanced over ``langs`` for the first k."""
    pooled = sorted(cands, key=lambda c: (-c[1], c[0].lang, c[0].doc_id))
    if not balanced or len(langs) < 2:
        return pooled
    quota = {l: k // len(langs) + (1 if i < k % len(langs) else 0) for i, l in enumerate(langs)}
    first: list[Any] = []
    for c in pooled:
        if quota.get(c[0].lang, 0) > 0:
            quota[c[0].lang] -= 1
            first.append(c)
    chosen = {id(c) for c in first}
    rest = [c for c in pooled if id(c) not in chosen]
    first += rest[
        : max(0, k - len(first))
    ]  # languages with too few documents give their slots back
    chosen = {id(c) for c in first}
    first.sort(key=lambda c: (-c[1], c[0].lang, c[0].doc_id))
    return first + [c for c in pooled if id(c) not in chosen]


def _provenance(p: Passage) -> tuple[str, str, str]:
    meta = dict(p.meta)
    return (p.title, meta.get("revision_id", ""), meta.get("fetched_at", ""))


def retrieve(
    dataset: BorderLines,
    corpus: Corpus,
    retriever: Retriever | str,
    modes: str | Iterable[str | Mode] = "all",
    *,
    k: int = 10,
    depth: int = 50,
    fusion: str | None = None,
    balanced: bool = False,
    queries: Sequence[Query] | None = None,
    progress: bool = True,
) -> RetrievalRun:
    """Retrieve documents for every query of ``dataset`` under every mode.

    Args:
        dataset: the queries and territories.
        corpus: the passages; pools are ``corpus.pool(territory, lang)``.
        retriever: a :class:`Retriever` or a registry name (``bm25``, ``e5-small`` …).
        modes: ``"all"``, comma-separated names, or an iterable.
        k: documents per prompt (recorded; :meth:`RetrievalRun.top` applies it).
        depth: hits stored per (query, mode); at least ``k``.
        fusion: ``raw``, ``minmax`` or ``rrf``; default: the retriever's.
        balanced: give each language of the mode ``k / n`` of the first ``k`` slots.
        queries: a subset of the dataset's queries (default: all).
        progress: show a progress bar.
    """
    if isinstance(retriever, str):
        retriever = get_retriever(retriever)
    mode_list = parse_modes(modes)
    fusion = fusion or retriever.default_fusion
    if fusion not in FUSIONS:
        raise ConfigError(f"unknown fusion {fusion!r}; valid: {', '.join(FUSIONS)}")
    if k < 1:
        raise ConfigError(f"k must be >= 1, got {k}")
    depth = max(depth, k)
    queries = list(dataset.queries if queries is None else queries)
    where = corpus.source or corpus.name or None
    if len(corpus) == 0:
        raise DataError("the corpus has no passages; nothing to retrieve", path=where)
    if not corpus.territories:
        raise DataError(
            "no passage names a territory, so every (territory, language) pool is empty; give passages "
            "a 'territory' (or, for all_docs.json / raw articles, pass hits= to place them)",
            path=where,
        )
    retriever.fit(corpus)
    warm = getattr(retriever, "warm_queries", None)
    if warm is not None and retriever.cross_lingual:
        warm(
            sorted({q.text for q in queries})
        )  # embed all queries in batches (API retrievers: few calls)

    cache: dict[tuple[str, tuple[str, ...]], list[Any]] = {}
    looked = [0, 0]  # pools asked for, pools with documents

    def ranked(q: Query, langs: tuple[str, ...], n: int) -> list[Any]:
        key = (q.query_id, langs)
        if key not in cache:
            cands: list[tuple[Passage, float, float]] = []
            for lang in langs:
                docs = list(corpus.pool(q.territory, lang))
                looked[0] += 1
                if not docs:
                    continue
                looked[1] += 1
                text = q.text
                if not retriever.cross_lingual and lang != q.lang:
                    parallel = dataset.find_query(query_id(q.territory, lang))
                    text = parallel.text if parallel is not None else q.text
                raw = np.asarray(retriever.score(text, q.lang, docs), dtype=float)
                fused = _fuse(raw, fusion)
                cands.extend(zip(docs, fused.tolist(), raw.tolist()))
            cache[key] = _rank(cands, langs, k, balanced)
        return cache[key][:n]

    rows: list[tuple[Any, ...]] = []
    skipped: list[Skip] = []
    from .._progress import progress_bar

    bar = progress_bar(
        progress,
        total=len(queries) * len(mode_list),
        desc=f"retrieve {retriever.name}",
        unit="q×mode",
    )
    for mode in mode_list:
        for q in queries:
            bar.update(1)
            if mode is Mode.NO_IR:
                continue
            source = q
            if mode is Mode.SWAP_DOCS:
                reason = swap_skip_reason(q, dataset)
                if reason is not None:
                    skipped.append(Skip(q.query_id, mode.value, reason))
                    continue
                partner = swap_partner(q, dataset)
                assert partner is not None  # swap_skip_reason returned None: there is a partner
                source = partner
                langs: tuple[str, ...] = (source.lang,)
            else:
                langs = mode_langs(mode, q, dataset)
            for rank, (p, fused, raw) in enumerate(ranked(source, langs, depth), start=1):
                rows.append(
                    (
                        q.query_id,
                        q.territory,
                        q.lang,
                        mode.value,
                        rank,
                        p.doc_id,
                        p.lang,
                        fused,
                        raw,
                        source.query_id if source is not q else "",
                        *_provenance(p),
                    )
                )
    bar.close()
    if looked[0] and not looked[1]:  # every pool any (query, mode) asked for is empty
        terrs = sorted({q.territory for q in queries})
        overlap = sorted(set(terrs) & set(corpus.territories))
        raise DataError(
            "no query found a document in any mode: the corpus has languages "
            f"{', '.join(sorted(corpus.langs)) or 'none'} and {len(corpus.territories)} territories "
            f"({len(overlap)} of the dataset's {len(terrs)}"
            + (f", e.g. {overlap[0]!r}" if overlap else "")
            + "), but no passage is in a language the modes ask "
            "for there; add passages in the query, claimant or English languages of those territories",
            path=where,
        )
    hits = pd.DataFrame(rows, columns=HIT_COLUMNS + PROVENANCE_COLUMNS)
    params = {
        **retriever.signature(),
        "fusion": fusion,
        "balanced": str(balanced).lower(),
        "depth": str(depth),
        "data": dataset.name,
        "corpus": corpus.content_hash(),
    }
    return RetrievalRun(hits=hits, skipped=skipped, k=k, params=params)


def from_bordirlines(
    bordirlines: BordIRLines, system: str = "openai", *, k: int = 10
) -> RetrievalRun:
    """The BordIRLines hub hits of one ``system`` as a :class:`RetrievalRun` (same table as :func:`retrieve`).

    Query ids become bordir's ``{Territory}_{lang}`` (BordIRLines' own ``Q{n}`` ids are dropped), so the
    paper's retrieval can replace bordir's in later steps.
    """
    h = bordirlines.hits
    h = h[h["system"] == system]
    if h.empty:
        raise ConfigError(
            f"no BordIRLines hits for system {system!r}; loaded systems: "
            f"{', '.join(sorted(bordirlines.hits['system'].unique())) or 'none'}"
        )
    hits = pd.DataFrame(
        {
            "query_id": [query_id(t, l) for t, l in zip(h["territory"], h["query_lang"])],
            "territory": h["territory"].to_numpy(),
            "query_lang": h["query_lang"].to_numpy(),
            "mode": h["mode"].to_numpy(),
            "rank": h["rank"].astype(int).to_numpy(),
            "doc_id": h["doc_id"].to_numpy(),
            "doc_lang": h["doc_lang"].to_numpy(),
            "score": h["score"].astype(float).to_numpy(),
            "raw_score": h["score"].astype(float).to_numpy(),
            "source_query_id": "",
            "title": "",
            "revision_id": "",
            "fetched_at": "",
        }
    )[HIT_COLUMNS + PROVENANCE_COLUMNS]
    params = {
        "ret": f"bordirlines/{system}",
        "fusion": "raw",
        "balanced": "false",
        "depth": str(bordirlines.n_hits),
        "data": "bordirlines",
    }
    return RetrievalRun(hits=hits.reset_index(drop=True), skipped=[], k=k, params=params)
