"""One reader per corpus format :func:`bordir.corpus.load_corpus` accepts.

* :mod:`.jsonl` — passages ``.jsonl`` (one JSON object per line);
* :mod:`.table` — passages ``.parquet``, ``.csv`` and ``.tsv``;
* :mod:`.all_docs` — BordIRLines ``all_docs.json`` (``{lang: {doc_id: text}}``);
* :mod:`.wiki_raw` — BordIRLines raw Wikipedia articles, ``<lang>/Q<wiki_id>.json``.

Passages files share the columns of :mod:`._rows`. A corpus directory written
by ``bordir corpus fetch`` is read by :class:`bordir.corpus.store.CorpusStore`.
"""

from __future__ import annotations

from .all_docs import read_all_docs
from .jsonl import read_passages_jsonl
from .table import read_passages_table
from .wiki_raw import is_wiki_raw_dir, read_wiki_raw

__all__ = [
    "read_all_docs",
    "read_passages_jsonl",
    "read_passages_table",
    "read_wiki_raw",
    "is_wiki_raw_dir",
]
