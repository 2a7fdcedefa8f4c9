"""The numpy build of a bm25s index (bordir/retrieval/bm25_build.py) gives bm25s's own matrix, bit for bit."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from bordir.loaders import load_demo_corpus
from bordir.retrieval import analysis
from bordir.retrieval.bm25_build import index_ids

bm25s = pytest.importorskip("bm25s")
pytest.importorskip("Stemmer")


def _by_lang() -> dict[str, list[str]]:
    texts: dict[str, list[str]] = defaultdict(list)
    for p in load_demo_corpus():
        texts[p.lang].append(p.text)
    return texts


@pytest.mark.parametrize(
    ("method", "k1", "b"), [("lucene", 1.5, 0.75), ("robertson", 1.2, 0.4), ("lucene", 0.0, 1.0)]
)
def test_same_matrix_as_bm25s_for_every_demo_language(method, k1, b):
    for lang, texts in _by_lang().items():
        ids, vocab = analysis.analyzer(lang).encode([*texts, "", texts[0] * 3])
        ours = bm25s.BM25(k1=k1, b=b, method=method)
        theirs = bm25s.BM25(k1=k1, b=b, method=method)
        index_ids(ours, ids, vocab)
        theirs.index((ids, dict(vocab)), show_progress=False)
        for key in ("data", "indices", "indptr"):
            a, t = ours.scores[key], theirs.scores[key]
            assert a.dtype == t.dtype and np.array_equal(a, t), (lang, key)
        assert ours.scores["num_docs"] == theirs.scores["num_docs"]
        assert ours.vocab_dict == theirs.vocab_dict
        assert ours.unique_token_ids_set == theirs.unique_token_ids_set
        query = analysis.analyze(texts[1], lang)
        assert np.array_equal(ours.get_scores(query), theirs.get_scores(query))


@pytest.mark.parametrize("method", ["atire", "bm25l", "bm25+"])
def test_other_methods_go_through_bm25s(method):
    ids, vocab = [[0, 1, 0], [1, 2]], {"a": 0, "b": 1, "c": 2}
    ours, theirs = bm25s.BM25(method=method), bm25s.BM25(method=method)
    index_ids(ours, ids, vocab)
    theirs.index((ids, dict(vocab)), show_progress=False)
    assert np.array_equal(ours.scores["data"], theirs.scores["data"])
    assert vocab == {"a": 0, "b": 1, "c": 2}  # the caller's vocabulary is not changed
