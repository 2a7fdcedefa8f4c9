"""Query vectors on disk: a dense retriever embeds each distinct query once, across runs.

A run embeds its queries again each time it starts (a warm ``bordir demo``
spent seconds on e5-small's 34 query vectors; an API embedder pays for them).
:class:`QueryStore` keeps them in one SQLite file beside the passage
embeddings of the same embedder and parameters
(``<cache>/embeddings/<slug>/queries.sqlite3``): the key is the SHA-256 of the
query text, the value the L2-normalised float32 vector, byte for byte as it
was computed, so a retrieval served from the store is the one computed.

Example:
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> store = QueryStore(pathlib.Path(tempfile.mkdtemp()) / "queries.sqlite3")
    >>> store.put({"Is Crimea Russian?": np.array([0.6, 0.8], dtype=np.float32)})
    >>> store.get(["Is Crimea Russian?", "unseen"])["Is Crimea Russian?"].tolist()
    [0.6000000238418579, 0.800000011920929]
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

__all__ = ["QueryStore"]

_CHUNK = 500


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class QueryStore:
    """Query vectors of one embedder (and its parameters) in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS queries (key TEXT PRIMARY KEY, dims INTEGER NOT NULL, vec BLOB NOT NULL)"
            )
            self._conn = conn
        return self._conn

    def get(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those of ``texts`` that have one."""
        by_key = {_key(t): t for t in dict.fromkeys(texts)}
        keys = list(by_key)
        out: dict[str, np.ndarray] = {}
        if not keys or not self.path.is_file():
            return out
        with self._lock:
            conn = self._connection()
            for i in range(0, len(keys), _CHUNK):
                chunk = keys[i : i + _CHUNK]
                sql = f"SELECT key, dims, vec FROM queries WHERE key IN ({','.join('?' * len(chunk))})"
                for key, dims, blob in conn.execute(sql, chunk):
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (dims,):
                        out[by_key[key]] = vec.copy()
        return out

    def put(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Store ``vectors`` (text → vector), keeping any already stored."""
        rows = [
            (_key(t), int(v.shape[0]), np.ascontiguousarray(v, dtype=np.float32).tobytes())
            for t, v in vectors.items()
        ]
        if not rows:
            return
        with self._lock:
            conn = self._connection()
            with conn:
                conn.executemany("INSERT OR IGNORE INTO queries VALUES (?, ?, ?)", rows)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
