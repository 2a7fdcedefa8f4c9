"""Which keys a response cache file holds, read without writing anything (``bordir view`` marks each key verified or not).

The file is opened read-only through its ``file:`` URI, built by :meth:`pathlib.Path.as_uri`:
a name with ``#``, ``?`` or ``%`` is percent-encoded, so SQLite opens that very file. (A URI
pasted together as ``f"file:{path}?mode=ro"`` reads ``#…`` as a fragment and ``?…`` as the
query: SQLite then opens, and creates, another file, read-write, and finds no key in it.)
Besides the file, SQLite may leave the ``-wal`` / ``-shm`` companions any reader of a WAL-mode
database makes; they are the cache's own, and its next writer removes them.

Example:
    >>> import tempfile, pathlib
    >>> from bordir.generation.cache import ResponseCache
    >>> from bordir.generation.types import GenerationRequest, GenerationResult, Message
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> req = GenerationRequest(model="mock/echo", messages=(Message("user", "q"),))
    >>> with ResponseCache(d / "run #1?.sqlite3") as cache:
    ...     _ = cache.put(req, GenerationResult(text="A) x", model="mock/echo"))
    >>> stored_keys(d / "run #1?.sqlite3", [req.cache_key(), "nope"]) == {req.cache_key()}
    True
    >>> sorted(p.name for p in d.iterdir() if not p.name.endswith(("-wal", "-shm")))
    ['run #1?.sqlite3']
    >>> stored_keys(d / "missing.sqlite3", ["x"]) is None
    True
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

__all__ = ["open_read_only", "stored_keys"]

_CHUNK = 500  # keys per query (SQLite's default limit of bound parameters is 999 or more)


def open_read_only(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only connection to the SQLite file ``path`` (never created; any name, ``#`` and ``?`` too)."""
    return sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)


def stored_keys(path: str | os.PathLike[str] | None, keys: Sequence[str]) -> set[str] | None:
    """The keys of ``keys`` that the response cache file ``path`` holds; None: no readable cache there."""
    if path is None or not Path(path).is_file():
        return None
    found: set[str] = set()
    try:
        con = open_read_only(path)
        try:
            for i in range(0, len(keys), _CHUNK):
                chunk = list(keys[i : i + _CHUNK])
                q = f"SELECT key FROM responses WHERE key IN ({','.join('?' * len(chunk))})"
                found.update(r[0] for r in con.execute(q, chunk))
        finally:
            con.close()
    except sqlite3.Error:
        return None
    return found
