"""BM25 (via the ``bm25s`` package): one index per document language.

Each document language gets its own ``bm25s`` index over the passages of that
language, analysed by :mod:`bordir.retrieval.analysis` (stemming, word splitting
or bigrams as the languages registry says). A query is analysed with the
analyzer of the *documents'* language: BM25 only matches words, so it is not
cross-lingual, and :mod:`bordir.retrieval.run` gives it the parallel query in
the documents' language. Scores of different languages come from different
indexes and are made comparable by min-max fusion by default.

Only the passage text is indexed (not the title), as for the dense retrievers.

With ``index_dir=``, the per-language indexes are saved there (built one
language at a time) and loaded memory-mapped, so a corpus whose index does not
fit in memory can be searched; a later :meth:`BM25Retriever.fit` of the same
corpus opens them without analysing a document (:mod:`bordir.retrieval.bm25_store`).

Example:
    >>> from bordir.loaders import load_demo_corpus
    >>> from bordir.retrieval.base import get_retriever
    >>> corpus = load_demo_corpus()
    >>> bm25 = get_retriever("bm25")
    >>> bm25.fit(corpus)
    >>> pool = corpus.pool("Crimea", "en")
    >>> scores = bm25.score("Is Crimea a peninsula of Russia or Ukraine?", "en", pool)
    >>> scores.shape == (len(pool),) and scores.dtype.kind == "f"
    True
    >>> dict(pool[int(scores.argmax())].meta)["about"]
    'territory'
    >>> sorted(bm25.signature())
    ['analysis', 'b', 'bm25s', 'k1', 'method', 'ret']
"""

from __future__ import annotations

import importlib.metadata
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

import numpy as np

from .._extras import require
from ..corpus import Corpus
from ..errors import ConfigError
from ..records import Passage
from . import analysis, bm25_build, bm25_store
from .base import Retriever, register

__all__ = ["BM25Retriever", "METHODS"]

METHODS = ("robertson", "lucene", "atire", "bm25l", "bm25+")
"""The BM25 variants ``bm25s`` implements."""

_ANALYSIS = f"registry-{analysis.ANALYSIS_VERSION}"
"""The analysis in a signature: the languages registry's, at this version of the analysis code."""


class _LangIndex:
    """The ``bm25s`` index of one document language and the row of each of its documents.

    ``bm25`` is ``None`` when no document of the language has a token (``bm25s`` cannot index that).
    """

    __slots__ = ("lang", "bm25", "analyze", "rows")

    def __init__(
        self, lang: str, bm25: Any, analyze: Callable[[str], list[str]], rows: dict[str, int]
    ) -> None:
        self.lang = lang
        self.bm25 = bm25
        self.analyze = analyze
        self.rows = rows
        """doc_id → row of the document in ``bm25`` (the corpus's (lang, doc_id) → row, for this lang)."""

    def scores(self, query_text: str) -> np.ndarray:
        """BM25 scores of every document of the index for ``query_text`` (tokens not in the vocabulary count 0)."""
        tokens = self.analyze(query_text)
        if self.bm25 is None or not tokens:
            return np.zeros(len(self.rows), dtype=np.float32)
        return cast("np.ndarray", self.bm25.get_scores(tokens))


def _version(module: Any) -> str:
    version = getattr(module, "__version__", None)
    return str(version) if version else importlib.metadata.version("bm25s")


@register("bm25")
class BM25Retriever(Retriever):
    """Okapi BM25 over per-language indexes built with ``bm25s``.

    Args:
        k1: term-frequency saturation (``>= 0``).
        b: document-length normalisation (``0 <= b <= 1``).
        method: the ``bm25s`` BM25 variant: ``lucene`` (default), ``robertson``,
            ``atire``, ``bm25l`` or ``bm25+``.
        index_dir: keep the per-language indexes in this directory (reused by later fits of the
            same corpus) instead of only in memory.
        mmap: with ``index_dir``, read the saved score matrices memory-mapped (default) rather
            than loading them. Neither option changes a score.

    Raises:
        ConfigError: a parameter is out of range.
        MissingExtraError: ``bm25s`` (or PyStemmer) is not installed.
    """

    name = "bm25"
    cross_lingual = False
    default_fusion = "minmax"

    def __init__(
        self,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        index_dir: str | os.PathLike[str] | None = None,
        mmap: bool = True,
    ) -> None:
        if isinstance(k1, bool) or not isinstance(k1, (int, float)) or not k1 >= 0:
            raise ConfigError(f"bm25: k1 must be a number >= 0, found {k1!r}")
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0 <= b <= 1:
            raise ConfigError(f"bm25: b must be a number between 0 and 1, found {b!r}")
        if method not in METHODS:
            raise ConfigError(
                f"bm25: unknown method {method!r}; choose one of {', '.join(METHODS)}"
            )
        self.k1 = float(k1)
        self.b = float(b)
        self.method = method
        self.index_dir = None if index_dir is None else Path(index_dir)
        self.mmap = bool(mmap)
        self._bm25s = require("bm25s", "bm25", purpose="BM25 retrieval")
        self._indexes: dict[str, _LangIndex] = {}
        self._fitted = False
        self.rebuilt = False
        """With ``index_dir``: True if the last fit built the indexes, False if it opened saved ones."""

    def fit(self, corpus: Corpus) -> None:
        """Build one ``bm25s`` index per document language of ``corpus`` (replacing any earlier fit).

        With ``index_dir``, saved indexes of the same corpus and parameters are opened instead
        (nothing is analysed); otherwise they are built, saved and opened.
        """
        by_lang: dict[str, list[Passage]] = defaultdict(list)
        for p in corpus:
            by_lang[p.lang].append(p)
        if self.index_dir is not None:
            self._fit_on_disk(corpus, by_lang)
            return
        indexes: dict[str, _LangIndex] = {}
        for lang, passages in by_lang.items():
            analyze = analysis.analyzer(lang)
            bm25 = self._index(analyze.encode(p.text for p in passages))
            indexes[lang] = _LangIndex(
                lang, bm25, analyze, {p.doc_id: i for i, p in enumerate(passages)}
            )
        self._indexes = indexes
        self._fitted = True

    def _store_params(self) -> dict[str, str]:
        return {
            "k1": f"{self.k1:g}",
            "b": f"{self.b:g}",
            "method": self.method,
            "bm25s": _version(self._bm25s),
            "analysis": _ANALYSIS,
        }

    def _fit_on_disk(self, corpus: Corpus, by_lang: dict[str, list[Passage]]) -> None:
        assert self.index_dir is not None
        params, digest = self._store_params(), corpus.content_hash()
        root = bm25_store.index_root(self.index_dir, digest, params)
        with bm25_store.index_lock(root):  # one process builds; the others wait and open it
            meta = bm25_store.read_meta(root, digest, params)
            sizes = {lang: len(ps) for lang, ps in by_lang.items()}
            self.rebuilt = meta is None or {l: e["n"] for l, e in meta["langs"].items()} != sizes
            if self.rebuilt:
                meta = bm25_store.save_indexes(
                    root,
                    ((lang, len(ps), self._builder(lang, ps)) for lang, ps in by_lang.items()),
                    digest,
                    params,
                )
            assert meta is not None
            self._indexes = {
                lang: _LangIndex(
                    lang,
                    bm25_store.load_index(self._bm25s, root, meta["langs"][lang], mmap=self.mmap),
                    analysis.analyzer(lang),
                    {p.doc_id: i for i, p in enumerate(ps)},
                )
                for lang, ps in by_lang.items()
            }
        self._fitted = True

    def _builder(self, lang: str, passages: list[Passage]) -> Callable[[], Any]:
        """Analyse and index one language when called (so one language's tokens are in memory at a time)."""

        def build() -> Any:
            return self._index(analysis.analyzer(lang).encode(p.text for p in passages))

        return build

    def _index(self, encoded: tuple[list[list[int]], dict[str, int]]) -> Any:
        """A ``bm25s`` index of token ids and their vocabulary (:meth:`analysis.Analysis.encode`)."""
        ids, vocab = encoded
        if not vocab:  # bm25s cannot index an empty vocabulary
            return None
        bm25 = self._bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        bm25_build.index_ids(bm25, ids, vocab)  # the matrix bm25s.BM25.index builds, vectorised
        return bm25

    def score(self, query_text: str, query_lang: str, docs: Sequence[Passage]) -> np.ndarray:
        """BM25 scores of ``docs`` (all of one language ``d``) for ``query_text``, analysed as language ``d``.

        ``query_lang`` is not used for analysis: words match only within the documents' language.

        Raises:
            ConfigError: :meth:`fit` was not called, ``docs`` mix languages, or a
                document is not in the fitted corpus.
        """
        if not docs:
            return np.zeros(0, dtype=np.float64)
        lang = docs[0].lang
        index = self._indexes.get(lang)
        if index is None:
            if not self._fitted:
                raise ConfigError("bm25: score() was called before fit(corpus)")
            raise ConfigError(
                f"bm25: document {docs[0].doc_id!r} in language {lang!r} is not in the fitted corpus "
                f"(it has no {lang!r} documents; fitted languages: {', '.join(sorted(self._indexes))})"
            )
        rows = index.rows
        try:
            idx = [rows[p.doc_id] for p in docs if p.lang == lang]
        except KeyError:
            idx = []
        if len(idx) != len(docs):
            self._raise_bad_docs(docs, index)
        return index.scores(query_text)[idx].astype(np.float64)

    def _raise_bad_docs(self, docs: Sequence[Passage], index: _LangIndex) -> NoReturn:
        langs = sorted({p.lang for p in docs})
        if len(langs) > 1:
            raise ConfigError(
                f"bm25: score() needs documents of one language, found {', '.join(langs)}"
            )
        missing = next(p for p in docs if p.doc_id not in index.rows)
        raise ConfigError(
            f"bm25: document {missing.doc_id!r} in language {index.lang!r} is not in the fitted corpus; "
            "fit() the corpus the pools come from"
        )

    def signature(self) -> dict[str, str]:
        return {
            "ret": self.name,
            "k1": f"{self.k1:g}",
            "b": f"{self.b:g}",
            "method": self.method,
            "analysis": _ANALYSIS,
            "bm25s": _version(self._bm25s),
        }
