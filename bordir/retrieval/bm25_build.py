"""Building a ``bm25s`` index with numpy: the score matrix ``bm25s.BM25.index`` builds, without its loop over documents.

``bm25s`` (0.3) builds its matrix one document at a time in Python (a
``Counter`` and a few small arrays per document), which is most of the time a
BM25 fit takes once the text is analysed. :func:`index_ids` computes the same
matrix for all documents at once: term frequencies from one sort of the
(term, document) pairs, document frequencies by ``bincount``, the idf of each
distinct document frequency with ``math.log`` (as ``bm25s`` does), and the
term-frequency component with the same operations in the same floating-point
types as ``bm25s`` (NumPy 2 promotes ``float64`` scalar ⊕ ``float32`` array to
``float64``, NumPy 1 to ``float32``: both are followed). The arrays are
identical, bit for bit, to ``bm25s``'s (``tests/retrieval/test_bm25_build.py``), and
``bm25s`` then scores queries, saves and loads the index as its own.

Methods ``lucene`` and ``robertson`` are built here; the others
(``atire``, ``bm25l``, ``bm25+``) go through ``bm25s.BM25.index``.

Example:
    >>> import bm25s
    >>> ids, vocab = [[0, 1, 0], [1, 2]], {"a": 0, "b": 1, "c": 2}
    >>> ours, theirs = bm25s.BM25(), bm25s.BM25()
    >>> index_ids(ours, ids, vocab)
    >>> theirs.index((ids, dict(vocab)), show_progress=False)
    >>> all((ours.scores[k] == theirs.scores[k]).all() for k in ("data", "indices", "indptr"))
    True
"""

from __future__ import annotations

import math
from itertools import chain
from typing import Any

import numpy as np

__all__ = ["index_ids"]

_FAST = ("lucene", "robertson")


def _idf(method: str, df: int, n: int) -> float:
    if method == "lucene":
        return math.log(1 + (n - df + 0.5) / (df + 0.5))
    inner = (n - df + 0.5) / (df + 0.5)  # robertson, negative idf clipped as bm25s does
    return math.log(max(inner, 1))


def index_ids(bm25: Any, ids: list[list[int]], vocab: dict[str, int]) -> None:
    """Index documents given as token ids (dense ``0 … len(vocab) - 1``) into the ``bm25s.BM25`` object ``bm25``.

    The same result as ``bm25.index((ids, vocab))``; ``vocab`` is copied (``bm25s`` adds the empty token).
    """
    vocab = dict(vocab)
    if bm25.method not in _FAST or bm25.idf_method != bm25.method or not vocab:
        bm25.index((ids, vocab), show_progress=False)
        return
    n_docs, n_vocab = len(ids), len(vocab)
    lengths = np.fromiter(map(len, ids), dtype=np.int64, count=n_docs)
    avg_doc_len = lengths.mean()  # bm25s: np.array([len(d) for d in ids]).mean()
    flat = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(lengths.sum()))
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    pairs, tf = np.unique(flat * n_docs + doc_of, return_counts=True)  # sorted by (term, doc)
    term, doc = np.divmod(pairs, n_docs)

    # idf: bm25s computes it per token with math.log and stores it as float32
    df = np.bincount(term, minlength=n_vocab)
    values, inverse = np.unique(df, return_inverse=True)
    table = np.array(
        [_idf(bm25.method, int(d), n_docs) if d else 0.0 for d in values], dtype=bm25.dtype
    )
    idf = table[inverse.reshape(-1)]

    # tfc = tf / (k1 * ((1 - b) + b * l_d / l_avg) + tf), in bm25s's types: the parenthesis is a
    # float64 scalar per document, tf a float32 array; their sum takes NumPy's promotion
    ft = np.result_type(np.float64(0), np.zeros(1, dtype=np.float32))
    k1, b = bm25.k1, bm25.b
    norm = k1 * ((1 - b) + b * lengths.astype(np.float64) / avg_doc_len)
    tf_f = tf.astype(np.float32).astype(ft)
    tfc = tf_f / (norm[doc].astype(ft) + tf_f)
    data = (idf[term].astype(ft) * tfc).astype(bm25.dtype)

    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(np.bincount(term, minlength=n_vocab), out=indptr[1:])
    bm25.scores = {
        "data": data,
        "indices": doc.astype(bm25.int_dtype),
        "indptr": indptr,
        "num_docs": n_docs,
    }
    bm25.nonoccurrence_array = None
    if "" not in vocab:
        vocab[""] = max(vocab.values()) + 1
    bm25.vocab_dict = vocab
    bm25.unique_token_ids_set = set(vocab.values())
