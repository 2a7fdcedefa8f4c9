"""BM25 indexes on disk: one saved ``bm25s`` index per document language, memory-mapped when loaded.

:class:`~bordir.retrieval.bm25.BM25Retriever` with ``index_dir=`` keeps its
per-language indexes here instead of only in memory::

    <index_dir>/<corpus-hash>-<digest>/meta.json     parameters, languages, sizes, versions
    <index_dir>/<corpus-hash>-<digest>/<lang>/       bm25s.BM25.save(): scores (CSC .npy), vocabulary, params

``<digest>`` covers ``k1``, ``b``, the method and the bordir and ``bm25s``
versions (the analysis may change between bordir versions), so a changed
corpus or parameter gets a new directory. The indexes are built one language
at a time (the tokens of one language are in memory while it is indexed) and
loaded with ``mmap=True``: the score matrix stays in the files and only the
columns of a query's tokens are read. The vocabulary of each language is
loaded (a dict of its distinct tokens).

The score a document gets is the one the in-memory index gives: the same
analysis (:mod:`bordir.retrieval.analysis`) and the same ``bm25s`` matrix,
saved and read back.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, cast

from .._io.atomic import atomic_replace_dir, atomic_write_text
from .._io.json_read import loads
from .._version import __version__

__all__ = [
    "BM25_STORE_FORMAT",
    "index_lock",
    "lang_stem",
    "index_root",
    "read_meta",
    "save_indexes",
    "load_index",
]

BM25_STORE_FORMAT = 1
"""Version of the on-disk layout; another format is rebuilt."""


def index_root(index_dir: Path, corpus_hash: str, params: dict[str, str]) -> Path:
    """The directory of one corpus's indexes under one set of parameters."""
    key = {"format": BM25_STORE_FORMAT, "bordir": __version__, **params}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:10]
    return Path(index_dir) / f"{corpus_hash}-{digest}"


def lang_stem(lang: str) -> str:
    """A file name for a language's index, distinct for distinct languages.

    A code that is not already a plain lower-case file name (``zh.x``, ``EN``, ``""``) gets
    a digest suffix, so ``zh.x`` and ``zh_x`` (or ``EN`` and ``en`` on a case-insensitive
    filesystem) do not share a file. Used by the BM25 and the IVF-PQ indexes.

    >>> lang_stem("zh-classical"), lang_stem("zh.x") != lang_stem("zh_x")
    ('zh-classical', True)
    """
    safe = re.sub(r"[^a-z0-9_-]+", "_", lang)
    if safe == lang and lang:
        return lang
    return f"{safe or '_'}-{hashlib.sha256(lang.encode('utf-8')).hexdigest()[:8]}"


_lang_dir = lang_stem


def read_meta(root: Path, corpus_hash: str, params: dict[str, str]) -> dict[str, Any] | None:
    """The ``meta.json`` of ``root`` if it describes ``corpus_hash`` under ``params``, else None."""
    try:
        meta = loads((root / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        meta.get("format") != BM25_STORE_FORMAT
        or meta.get("corpus") != corpus_hash
        or meta.get("params") != params
    ):
        return None
    return cast("dict[str, Any] | None", meta)


def save_indexes(
    root: Path,
    langs: Iterable[tuple[str, int, Callable[[], Any]]],
    corpus_hash: str,
    params: dict[str, str],
) -> dict[str, Any]:
    """Build and save each language's index, one at a time, into ``root`` (replaced atomically).

    Args:
        root: the target directory (see :func:`index_root`).
        langs: ``(lang, n_documents, build)``; ``build()`` returns the ``bm25s.BM25`` of the
            language or None when none of its documents has a token.
        corpus_hash: recorded in ``meta.json``.
        params: recorded in ``meta.json``.
    """
    tmp = root.with_name(f"{root.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    info: dict[str, dict[str, Any]] = {}
    from .._progress import progress_bar

    langs = list(langs)  # (lang, n, build) tuples; the builds stay lazy
    bar = progress_bar(None, total=len(langs), desc="bm25 index", unit="lang")
    for lang, n, build in langs:
        if bar is not None:
            bar.set_postfix(lang=lang, refresh=False)
            bar.update(1)
        bm25 = build()
        entry: dict[str, Any] = {"n": n, "dir": _lang_dir(lang), "empty": bm25 is None}
        if bm25 is not None:
            bm25.save(str(tmp / entry["dir"]), show_progress=False)
        info[lang] = entry
        del bm25  # one language's index in memory at a time
    if bar is not None:
        bar.close()
    meta = {
        "format": BM25_STORE_FORMAT,
        "corpus": corpus_hash,
        "params": params,
        "langs": info,
        "bordir": __version__,
    }
    atomic_write_text(tmp / "meta.json", json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    atomic_replace_dir(tmp, root)
    return meta


def load_index(bm25s: Any, root: Path, entry: dict[str, Any], *, mmap: bool) -> Any:
    """The saved ``bm25s.BM25`` of one language (None for a language without tokens)."""
    if entry.get("empty"):
        return None
    return bm25s.BM25.load(str(root / entry["dir"]), mmap=mmap, show_progress=False)


@contextlib.contextmanager
def index_lock(target: Path) -> Iterator[None]:
    """An exclusive lock on the directory that holds ``target`` (POSIX ``flock``; none elsewhere).

    Processes fitting into the same directory take turns: the first builds the index, the next
    ones find it current and open it, so no process removes an index another one is opening.
    The directory itself is locked, so no lock file is left next to the indexes. Used by the
    BM25 and the IVF-PQ indexes.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
