"""Per-record checks of an audited reply: is it an echo, and is it long enough for its language to be detected.

* :func:`echo_mask` — a reply that is mostly a copy of its query or of its documents' texts
  (:func:`bordir.generation.parse.echo.detect_echo`; records without document texts are
  checked against their query alone). About 0.7 ms a record with five 200-character
  document texts; a record whose reply or prompt is under 39 characters costs nothing. An echo is counted (``echo``, the answers table's
  ``echo_rate``) and left out of the citation and inclusion rates (its documents and citations
  are not counted: the citations of a copy are the copied text's) and of the language match.
* :func:`short_mask` — a reply too short for its detected language to be trusted
  (:func:`bordir.langid.short.too_short`: 30 letters in Latin script, 25 in Cyrillic or
  Devanagari, 20 in Japanese, 8 in Arabic or Han, 4 in Greek or Hebrew). The language match
  skips such replies when their language was detected (``lang_short``, reported as skipped);
  a language the log gives is trusted at any length.

Example:
    >>> import pyarrow as pa
    >>> doc = "Crimea is a peninsula on the northern coast of the Black Sea. " * 4
    >>> t = pa.table({"query": ["Whose is Crimea?"] * 2, "response": [doc, "Ukraine."],
    ...               "documents": [[{"id": "a", "lang": "en", "text": doc}]] * 2})
    >>> echo_mask(t).tolist(), short_mask(t["response"]).tolist()
    ([True, False], [False, True])
    >>> short_mask(t["response"], rows=np.array([True, False])).tolist()
    [False, False]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..generation.parse.echo import MIN_CHARS, PromptParts, detect_echo
from ..langid.short import too_short

__all__ = ["echo_mask", "short_mask"]


def _lengths(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Characters of each string (0 for null)."""
    if pa.types.is_null(arr.type):
        return np.zeros(len(arr), dtype=np.int64)
    return np.asarray(pc.fill_null(pc.utf8_length(arr), 0).to_numpy(zero_copy_only=False))


def echo_mask(t: pa.Table) -> np.ndarray:
    """Per record of ``t`` (``query``, ``response``, ``documents``): whether its reply is an echo."""
    n = t.num_rows
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    docs = t["documents"].combine_chunks()
    texts = pc.struct_field(pc.list_flatten(docs), "text")
    prompt = _lengths(t["query"]) + np.bincount(
        pc.list_parent_indices(docs).to_numpy(), weights=_lengths(texts), minlength=n
    )
    # a reply or a prompt under MIN_CHARS characters holds no 20 words to copy: not read
    cand = np.flatnonzero((_lengths(t["response"]) >= MIN_CHARS) & (prompt >= MIN_CHARS))
    if not len(cand):
        return out
    idx = pa.array(cand)
    rows = zip(
        t["response"].take(idx).to_pylist(),
        t["query"].take(idx).to_pylist(),
        docs.take(idx).to_pylist(),
    )
    for i, (reply, query, ds) in zip(cand, rows):
        texts_i = tuple(d["text"] for d in ds or () if d and d.get("text"))
        out[i] = detect_echo(reply, PromptParts(user=query or "", documents=texts_i)).is_echo
    return out


def short_mask(texts: pa.ChunkedArray | pa.Array, rows: np.ndarray | None = None) -> np.ndarray:
    """Per text: too short for its detected language to be trusted (only ``rows``, a mask, are read)."""
    out = np.zeros(len(texts), dtype=bool)
    at = np.flatnonzero(rows) if rows is not None else np.arange(len(texts))
    if len(at):
        picked = texts.take(pa.array(at)).to_pylist()
        out[at] = np.fromiter(map(too_short, picked), dtype=bool, count=len(at))
    return out
