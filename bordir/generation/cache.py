"""The response cache: one SQLite file mapping ``GenerationRequest.cache_key()`` to the result.

Only successful results are stored, so a re-run retries the calls that failed.
Each :meth:`ResponseCache.put` commits at once: a crash (even ``SIGKILL``)
loses at most the calls in flight. The file is in WAL mode with a busy
timeout, so several threads (sharing one connection behind a lock) and
several processes can read and write it at the same time.

Each row holds the key, the model, the creation time (Unix seconds), the
request's full key payload as JSON (for auditing: a request never contains API
keys) and the result as JSON.

**Claims** keep two processes (or two runs in one process) sharing the file
from paying for the same call: before calling, the executor claims the key
(:meth:`ResponseCache.claim`, one row in the ``claims`` table naming the
owner's host, process id and a lease expiry); a key claimed by another live
owner is not called but waited for, and its result read from the cache when
the owner stores it. A claim is released when the call ends (stored or
failed); a claim of a process that died (same host, process gone) or whose
lease expired is taken over.

**Batch claims** (the ``batch_claims`` table) record the keys a provider batch
holds while it is pending (:meth:`ResponseCache.claim_for_batch`: the batch id, its
input file, its run directory and the end of its window), so that a run on this
cache does not pay online for a request a batch is already billed for
(:mod:`bordir.generation.batch.claims` says when such a claim is in force).

Example:
    >>> import tempfile, pathlib
    >>> from bordir.generation.types import GenerationRequest, GenerationResult, Message
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "responses.sqlite3"
    >>> req = GenerationRequest(model="mock/echo", messages=(Message("user", "Is Crimea ..."),))
    >>> with ResponseCache(path) as cache:
    ...     cache.get(req) is None
    ...     cache.put(req, GenerationResult(text="A) Russia", model="mock/echo"))
    ...     cache.put(req.replace(seed=1), GenerationResult(text="", model="mock/echo", error="HTTP 500"))
    ...     cache.get(req).text, cache.get(req).cached, len(cache)
    True
    True
    False
    ('A) Russia', True, 1)
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal, NamedTuple, overload

from .._io.pid import pid_alive
from ..errors import ConfigError, DataError
from ..settings import CACHE
from .types import GenerationRequest, GenerationResult

__all__ = ["ResponseCache", "BatchClaim", "default_cache_path", "new_owner", "CLAIM_LEASE"]

_SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key      TEXT PRIMARY KEY,
    model    TEXT NOT NULL,
    created  REAL NOT NULL,
    request  TEXT NOT NULL,
    result   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS claims (
    key      TEXT PRIMARY KEY,
    owner    TEXT NOT NULL,
    host     TEXT NOT NULL,
    pid      INTEGER NOT NULL,
    expires  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_claims (
    key      TEXT PRIMARY KEY,
    batch    TEXT NOT NULL,
    file     TEXT NOT NULL,
    run_dir  TEXT NOT NULL,
    expires  REAL NOT NULL
);
INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', '1');
"""
_PUT = (
    "INSERT OR REPLACE INTO responses (key, model, created, request, result) VALUES (?, ?, ?, ?, ?)"
)
CLAIM_LEASE = 600.0
"""Seconds a claim lasts. On the owner's host a claim lasts as long as its process; the lease only
frees the claims of a process on another host (a cache on a shared disk) that stopped without releasing."""
_HOST = socket.gethostname()

# SQLite's IN (...) limit is 32766 parameters on current builds; stay well below.
_CHUNK = 500


class BatchClaim(NamedTuple):
    """A key held by a provider batch: its id (``""`` while its creation is unconfirmed), its input file, the run directory whose batch state lists it, and the end of its window (Unix time)."""

    batch: str
    file: str
    run_dir: str
    expires: float


def new_owner() -> str:
    """A claim owner id unique to this host, process and call: ``host:pid:random``."""
    return f"{_HOST}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def default_cache_path() -> Path:
    """``$BORDIR_CACHE/responses.sqlite3`` (``$BORDIR_CACHE`` is bordir's cache folder, default ``~/.cache/bordir``)."""
    return CACHE.get() / "responses.sqlite3"


class ResponseCache:
    """A response cache in one SQLite file, safe for threads and processes.

    Args:
        path: the SQLite file (created with its parent folders). Default:
            :func:`default_cache_path`.
        timeout: seconds to wait for another writer's lock before failing.
        synchronous: SQLite ``synchronous`` level. ``"NORMAL"`` (default) survives
            a crash or ``SIGKILL`` of the process; ``"FULL"`` also survives a power
            loss, at one disk sync per stored result.

    Raises:
        DataError: the file exists but is not a bordir response cache.
        ConfigError: ``synchronous`` or ``timeout`` is not valid (the message says which).
    """

    def __init__(
        self,
        path: str | PathLike[str] | None = None,
        *,
        timeout: float = 60.0,
        synchronous: str = "NORMAL",
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else default_cache_path()
        if not isinstance(synchronous, str) or synchronous.upper() not in {
            "OFF",
            "NORMAL",
            "FULL",
            "EXTRA",
        }:
            raise ConfigError(
                f"synchronous must be OFF, NORMAL, FULL or EXTRA, got {synchronous!r}; "
                "NORMAL (the default) survives a crash of the process, FULL also a power loss"
            )
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not 0 <= timeout < float("inf")
        ):
            raise ConfigError(
                f"timeout must be a number of seconds >= 0 (how long to wait for a cache file "
                f"locked by another writer), got {timeout!r}"
            )
        self.timeout = float(timeout)
        self.synchronous = synchronous.upper()
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = os.getpid()
        self._closed = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._init_schema()

    # -- connection ----------------------------------------------------------------------------
    # One connection guarded by a lock: SQLite serialises writers anyway, and a per-thread
    # connection would leak one file handle per pool thread of every run. A forked child
    # process opens its own connection (SQLite connections must not cross a fork).

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: autocommit, so every statement commits at once.
        conn = sqlite3.connect(
            self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        deadline = time.monotonic() + self.timeout
        while True:  # switching to WAL needs a moment of exclusive access
            try:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    conn.close()
                    raise
                time.sleep(0.01)
        if str(mode).lower() != "wal":
            conn.close()
            raise DataError(
                f"could not switch the response cache to WAL mode (got {mode!r})", path=self.path
            )
        conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        return conn

    def _connection(self) -> sqlite3.Connection:
        """The open connection (call with the lock held)."""
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        if self._conn is None or self._pid != os.getpid():
            self._conn = self._connect()
            self._pid = os.getpid()
        return self._conn

    def _execute(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._connection().execute(sql, params).fetchall()

    def _changes(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one writing statement; the number of rows it changed."""
        with self._lock:
            return self._connection().execute(sql, params).rowcount

    def _init_schema(self) -> None:
        try:
            with self._lock:
                self._execute("SELECT 1")  # opens the connection
                assert self._conn is not None
                self._conn.executescript(_SCHEMA)
            row = self._execute("SELECT value FROM meta WHERE name = 'schema_version'")
            cols = [r[1] for r in self._execute("PRAGMA table_info(responses)")]
        except sqlite3.DatabaseError as exc:
            self.close()
            raise DataError(
                f"not a bordir response cache ({exc}); pass another path or delete the file",
                path=self.path,
            ) from None
        version = row[0][0] if row else None
        if version != _SCHEMA_VERSION or cols != ["key", "model", "created", "request", "result"]:
            self.close()
            raise DataError(
                f"response cache schema {version!r} with columns {cols}; expected schema "
                f"{_SCHEMA_VERSION!r} (key, model, created, request, result). Use another path or delete the file",
                path=self.path,
            )

    def close(self) -> None:
        """Close the connection (the file stays). Further use raises RuntimeError."""
        with self._lock:
            self._closed = True
            conn, self._conn = self._conn, None
        if conn is not None and self._pid == os.getpid():
            conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"

    # -- reading and writing -----------------------------------------------------------------

    def get(self, request: GenerationRequest) -> GenerationResult | None:
        """The stored result for ``request`` (``cached=True``, ``attempts=0``, ``latency_s=0``), or None."""
        return self.get_key(request.cache_key())

    def get_key(self, key: str) -> GenerationResult | None:
        """Like :meth:`get`, by cache key."""
        rows = self._execute("SELECT result FROM responses WHERE key = ?", (key,))
        if not rows:
            return None
        result = GenerationResult.from_json(rows[0][0], cached=True)
        return dataclasses.replace(result, attempts=0, latency_s=0.0)

    def put(self, request: GenerationRequest, result: GenerationResult) -> bool:
        """Store a successful result and commit; failed results are not stored.

        Returns:
            True if the result was stored (or replaced a stored one).
        """
        if not result.ok:
            return False
        self._execute(_PUT, self._row(request, result))
        return True

    def put_and_release(
        self, request: GenerationRequest, result: GenerationResult, owner: str
    ) -> bool:
        """:meth:`put`, then :meth:`release` of ``owner``'s claim of the key, in one commit."""
        if not result.ok:
            self.release(request.cache_key(), owner)
            return False
        row = self._row(request, result)
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(_PUT, row)
                conn.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (row[0], owner))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        return True

    @staticmethod
    def _row(request: GenerationRequest, result: GenerationResult) -> tuple[Any, ...]:
        payload = json.dumps(request.key_payload(), ensure_ascii=False, sort_keys=True)
        return (request.cache_key(), request.model, time.time(), payload, result.to_json())

    def contains_keys(self, keys: Iterable[str]) -> set[str]:
        """The subset of ``keys`` that are stored (one query per 500 keys)."""
        keys = list(dict.fromkeys(keys))
        found: set[str] = set()
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            found.update(
                r[0]
                for r in self._execute(f"SELECT key FROM responses WHERE key IN ({marks})", chunk)
            )
        return found

    def __contains__(self, request: object) -> bool:
        if not isinstance(request, GenerationRequest):
            return False
        return bool(self._execute("SELECT 1 FROM responses WHERE key = ?", (request.cache_key(),)))

    def __len__(self) -> int:
        return int(self._execute("SELECT COUNT(*) FROM responses")[0][0])

    def keys(self) -> list[str]:
        """Every stored cache key, sorted."""
        return [r[0] for r in self._execute("SELECT key FROM responses ORDER BY key")]

    def delete(self, request: GenerationRequest) -> bool:
        """Forget the stored result of ``request``; True if there was one."""
        with self._lock:
            had = bool(
                self._execute("SELECT 1 FROM responses WHERE key = ?", (request.cache_key(),))
            )
            self._execute("DELETE FROM responses WHERE key = ?", (request.cache_key(),))
        return had

    # -- claims (no two callers pay for one key) -----------------------------------------------

    def claim(self, key: str, owner: str, *, lease: float = CLAIM_LEASE) -> bool:
        """Claim ``key`` for ``owner`` (see :func:`new_owner`); True if ``owner`` holds it now.

        A claim held by another owner is taken over only when its lease expired or its
        process (on this host) no longer exists.
        """
        now = time.time()
        pid = os.getpid()
        with self._lock:
            rows: list[tuple[Any, ...]] = []
            for _ in range(3):  # the other owner may release between our two statements
                if self._changes(
                    "INSERT OR IGNORE INTO claims (key, owner, host, pid, expires) VALUES (?, ?, ?, ?, ?)",
                    (key, owner, _HOST, pid, now + lease),
                ):
                    return True  # the row is ours: nobody held the key
                rows = self._execute(
                    "SELECT owner, host, pid, expires FROM claims WHERE key = ?", (key,)
                )
                if rows:
                    break
            if not rows:
                return False
            other, host, other_pid, expires = rows[0]
            if other == owner:
                return True
            stale = expires < now or (
                host == _HOST and other_pid != pid and not pid_alive(int(other_pid))
            )
            if not stale:
                return False
            self._execute(
                "UPDATE claims SET owner = ?, host = ?, pid = ?, expires = ? WHERE key = ? AND owner = ?",
                (owner, _HOST, pid, now + lease, key, other),
            )
            got = self._execute("SELECT owner FROM claims WHERE key = ?", (key,))
        return bool(got) and got[0][0] == owner

    def release(self, key: str, owner: str) -> None:
        """Give up ``owner``'s claim of ``key`` (nothing happens if it holds none)."""
        self._execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, owner))

    def release_all(self, owner: str) -> None:
        """Give up every claim of ``owner``."""
        self._execute("DELETE FROM claims WHERE owner = ?", (owner,))

    def claimed_keys(self) -> list[str]:
        """Keys currently claimed by any owner (live or not), sorted."""
        return [r[0] for r in self._execute("SELECT key FROM claims ORDER BY key")]

    # -- grouped claims and stores (the executor's cache writer: one commit for many calls) -----

    @overload
    def claim_many(
        self, keys: Sequence[str], owner: str, *, lease: float = ..., wait: Literal[True] = ...
    ) -> dict[str, tuple[bool, GenerationResult | None]]: ...

    @overload
    def claim_many(
        self, keys: Sequence[str], owner: str, *, lease: float = ..., wait: bool
    ) -> dict[str, tuple[bool, GenerationResult | None]] | None: ...

    def claim_many(
        self, keys: Sequence[str], owner: str, *, lease: float = CLAIM_LEASE, wait: bool = True
    ) -> dict[str, tuple[bool, GenerationResult | None]] | None:
        """:meth:`claim` then :meth:`get_key` for each of ``keys``, in one transaction.

        Returns ``key → (claimed, hit)``. A key that is stored already is released in the same
        transaction (``(False, hit)``): the caller has nothing to call. The transaction takes
        SQLite's write lock (``BEGIN IMMEDIATE``) before it looks at any claim, so two processes
        claiming the same key are serialised exactly as with :meth:`claim`: one of them holds it.

        With ``wait=False`` nothing is done and None is returned when the transaction would have
        to wait: another thread of this process is using the cache, or another process holds the
        file's write lock (:meth:`_begin`).
        """
        keys = list(dict.fromkeys(keys))
        now, pid = time.time(), os.getpid()
        claimed: dict[str, bool] = {}
        conn = self._begin(wait)
        if conn is None:
            return None
        try:
            try:
                for key in keys:
                    if conn.execute(
                        "INSERT OR IGNORE INTO claims (key, owner, host, pid, expires) VALUES (?, ?, ?, ?, ?)",
                        (key, owner, _HOST, pid, now + lease),
                    ).rowcount:
                        claimed[key] = True
                        continue
                    other, host, other_pid, expires = conn.execute(
                        "SELECT owner, host, pid, expires FROM claims WHERE key = ?", (key,)
                    ).fetchone()
                    stale = expires < now or (
                        host == _HOST and other_pid != pid and not pid_alive(int(other_pid))
                    )
                    if other != owner and stale:
                        conn.execute(
                            "UPDATE claims SET owner = ?, host = ?, pid = ?, expires = ? WHERE key = ?",
                            (owner, _HOST, pid, now + lease, key),
                        )
                    claimed[key] = other == owner or stale
                hits: dict[str, str] = {}
                for i in range(0, len(keys), _CHUNK):
                    chunk = keys[i : i + _CHUNK]
                    sql = f"SELECT key, result FROM responses WHERE key IN ({','.join('?' * len(chunk))})"
                    hits.update(conn.execute(sql, chunk).fetchall())
                mine = [(k, owner) for k in hits if claimed[k]]
                conn.executemany("DELETE FROM claims WHERE key = ? AND owner = ?", mine)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            self._lock.release()
        out: dict[str, tuple[bool, GenerationResult | None]] = {}
        for key in keys:
            blob = hits.get(key)
            if blob is None:
                out[key] = (claimed[key], None)
            else:
                hit = GenerationResult.from_json(blob, cached=True)
                out[key] = (False, dataclasses.replace(hit, attempts=0, latency_s=0.0))
        return out

    def store_many(
        self,
        done: Sequence[tuple[GenerationRequest, GenerationResult]],
        owner: str,
        *,
        release: Iterable[str] = (),
        wait: bool = True,
    ) -> bool:
        """:meth:`put_and_release` of each (request, result) of ``done``, and :meth:`release` of the keys ``release``, in one transaction (failed results are released, not stored).

        Returns True once committed. With ``wait=False`` nothing is done and False is returned
        when the transaction would have to wait (:meth:`_begin`).
        """
        rows = [self._row(req, res) for req, res in done if res.ok]
        freed = [(req.cache_key(), owner) for req, _ in done]
        freed += [(key, owner) for key in release]
        conn = self._begin(wait)
        if conn is None:
            return False
        try:
            try:
                conn.executemany(_PUT, rows)
                conn.executemany("DELETE FROM claims WHERE key = ? AND owner = ?", freed)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            self._lock.release()
        return True

    def _begin(self, wait: bool) -> sqlite3.Connection | None:
        """Take the cache's lock and begin a write transaction (``BEGIN IMMEDIATE``); the connection.

        With ``wait=False``, None (and nothing held) when that would wait: another thread of this
        process holds the cache's lock, or another process holds the file's write lock (SQLite's
        busy timeout is 0 for this one statement). The caller commits or rolls back, then releases
        ``self._lock``.
        """
        if not self._lock.acquire(blocking=wait):
            return None
        began = False
        try:
            conn = self._connection()
            if not wait:
                conn.execute("PRAGMA busy_timeout = 0")
            try:
                conn.execute("BEGIN IMMEDIATE")
                began = True
            except sqlite3.OperationalError as exc:
                if wait or "locked" not in str(exc):
                    raise
            finally:
                if not wait:
                    conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            return conn if began else None
        finally:
            if not began:
                self._lock.release()

    # -- batch claims (a pending provider batch holds these keys) -----------------------------

    def claim_for_batch(self, keys: Iterable[str], claim: BatchClaim) -> None:
        """Record that the batch ``claim`` holds ``keys`` (replacing earlier claims of them), in one commit."""
        rows = [(k, *claim) for k in dict.fromkeys(keys)]
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("INSERT OR REPLACE INTO batch_claims VALUES (?, ?, ?, ?, ?)", rows)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def batch_claims(self, keys: Iterable[str]) -> dict[str, BatchClaim]:
        """The batch claims of those of ``keys`` that have one (one query per 500 keys)."""
        keys = list(dict.fromkeys(keys))
        out: dict[str, BatchClaim] = {}
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            sql = f"SELECT * FROM batch_claims WHERE key IN ({','.join('?' * len(chunk))})"
            out.update((r[0], BatchClaim(*r[1:])) for r in self._execute(sql, chunk))
        return out

    def release_batch_claims(self, batches: Iterable[str]) -> None:
        """Forget the claims of the batches ``batches`` (ids; collected or given up)."""
        for b in dict.fromkeys(batches):
            self._execute("DELETE FROM batch_claims WHERE batch = ?", (b,))

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"`` for a sound file."""
        return "\n".join(r[0] for r in self._execute("PRAGMA integrity_check"))
