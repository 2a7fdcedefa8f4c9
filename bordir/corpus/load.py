"""``load_corpus(spec)``: the one function every command and the runner use to get a corpus.

``spec`` may be:

* ``"demo"`` — the bundled demo corpus;
* a :class:`~bordir.corpus.base.Corpus` — returned as it is;
* a corpus directory (``manifest.json``) written by ``bordir corpus fetch`` or
  :func:`~bordir.corpus.store.save_corpus`;
* a directory in the BordIRLines raw Wikipedia layout (``<lang>/Q<wiki_id>.json``);
* a passages ``.jsonl``, ``.parquet``, ``.csv`` or ``.tsv`` (columns in
  :mod:`bordir.corpus.readers._rows`);
* a BordIRLines ``all_docs.json``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._io.resources import package_data
from ..errors import DataError
from .base import Corpus

__all__ = ["load_corpus", "corpus_kind"]

DEMO_PASSAGES = ("data", "demo", "corpus", "passages.jsonl")
"""Where the bundled demo corpus lives inside the package (:func:`bordir._io.resources.package_data`)."""

_FORMATS = (
    "'demo', a corpus directory (manifest.json, from `bordir corpus fetch`), a BordIRLines raw Wikipedia "
    "directory (<lang>/Q<wiki_id>.json), a passages .jsonl/.parquet/.csv/.tsv, or a BordIRLines all_docs.json"
)


def corpus_kind(spec: str | os.PathLike[str]) -> str:
    """Which reader :func:`load_corpus` would use: ``demo``, ``store``, ``wiki_raw``, ``jsonl``, ``table``, ``all_docs``.

    Example:
        >>> corpus_kind("demo"), corpus_kind("x/passages.parquet")
        ('demo', 'table')
    """
    from .manifest import is_corpus_dir
    from .readers.wiki_raw import is_wiki_raw_dir

    if isinstance(spec, str) and spec == "demo":
        return "demo"
    p = Path(spec)
    if p.is_dir():
        if is_corpus_dir(p):
            return "store"
        if is_wiki_raw_dir(p):
            return "wiki_raw"
        raise DataError(f"directory is not a corpus; expected {_FORMATS}", path=p)
    suffix = p.suffix.lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix in (".parquet", ".csv", ".tsv"):
        return "table"
    if suffix == ".json":
        return "all_docs"
    raise DataError(f"unknown corpus format; expected {_FORMATS}", path=p)


def load_corpus(
    spec: str | os.PathLike[str] | Corpus, *, hits: Any = None, name: str = "", verify: bool = False
) -> Corpus:
    """Load a corpus from any source bordir knows (see module docs).

    Args:
        spec: ``"demo"``, a :class:`Corpus`, or a path.
        hits: for ``all_docs.json`` and raw article directories, which may lack
            territories: a hits table (``territory, doc_lang, doc_id`` columns, or a
            :class:`~bordir.loaders.bordirlines.BordIRLines`) whose rows put each
            retrieved document in its query's territory pool.
        name: corpus name (default: the manifest's, or the file name).
        verify: corpus directories only: recompute the content hash and compare.

    Raises:
        DataError: the path does not exist, is not one of these formats, or a row is bad
            (the message names the file and line).

    Example:
        >>> c = load_corpus("demo")
        >>> c.name, len(c.langs)
        ('demo', 15)
        >>> load_corpus("/nonexistent/")
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: /nonexistent: not found (no such file or directory); expected 'demo', a corpus directory (manifest.json, from `bordir corpus fetch`), a BordIRLines raw Wikipedia directory (<lang>/Q<wiki_id>.json), a passages .jsonl/.parquet/.csv/.tsv, or a BordIRLines all_docs.json
    """
    if isinstance(spec, Corpus):
        return spec
    if spec != "demo" and not Path(spec).exists():
        raise DataError(
            f"not found (no such file or directory); expected {_FORMATS}", path=Path(spec)
        )
    kind = corpus_kind(spec)
    if kind == "demo":
        return _demo_corpus()
    p = Path(spec)
    if kind == "store":
        from .store import CorpusStore

        corpus = CorpusStore.open(p).load(verify=verify)
        if name:
            corpus.name = name
        return corpus
    if kind == "wiki_raw":
        from .readers.wiki_raw import read_wiki_raw

        return read_wiki_raw(p, hits=hits, name=name)
    if not p.is_file():
        raise DataError("no such file or directory", path=p)
    if kind == "jsonl":
        from .readers.jsonl import read_passages_jsonl

        return read_passages_jsonl(p, name=name or p.stem)
    if kind == "table":
        from .readers.table import read_passages_table

        return read_passages_table(p, name=name or p.stem)
    from .readers.all_docs import read_all_docs

    return read_all_docs(p, hits=hits, name=name or p.stem)


@lru_cache(maxsize=1)
def _demo_corpus() -> Corpus:
    """The bundled demo corpus, read once (``load_corpus("demo")`` and ``load_demo_corpus()`` share it)."""
    from .readers.jsonl import read_passages_jsonl

    return read_passages_jsonl(package_data(*DEMO_PASSAGES), name="demo")
