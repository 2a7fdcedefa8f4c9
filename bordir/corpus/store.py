"""The on-disk corpus store: :class:`CorpusStore` (create, open, append, compact) and :func:`save_corpus`.

A corpus directory holds::

    DIR/
    ├── manifest.json                 parameters, counts, content hash, provenance, bordir version
    ├── passages/part-00000.parquet   one row per passage (doc_id, lang, territory, title, section, text, meta…)
    └── pools/part-00000.parquet      extra pool memberships (territory, lang, doc_id), only when there are any

**Append = a new part file.** :meth:`CorpusStore.append` writes the new rows to
the next ``part-NNNNN.parquet`` (atomically) and only then replaces
``manifest.json`` (also atomically). Old parts are never rewritten, so an
append costs the size of what is added, and a crash at any point leaves a valid
corpus: a part that the manifest does not list is ignored and overwritten by
the next append. :meth:`CorpusStore.compact` merges the parts into one (the
fetcher does so at the end of a run). Each part's SHA-256 is in the manifest
and is checked on load.

Example:
    >>> import tempfile
    >>> from bordir.corpus import load_corpus
    >>> demo = load_corpus("demo")
    >>> d = tempfile.mkdtemp()
    >>> manifest = save_corpus(demo, d)
    >>> back = load_corpus(d)
    >>> list(back) == list(demo), manifest["content_hash"] == demo.content_hash()
    (True, True)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from .._io.atomic import atomic_write_text
from .._io.pid import pid_alive
from .._version import __version__
from ..errors import ConfigError, DataError
from ..records import Passage
from .base import Corpus
from .manifest import FORMAT, MANIFEST, counts, is_corpus_dir, now, read_manifest, signature
from .parts import (
    POOL_COLUMNS,
    passages_from_table,
    passages_table,
    pools_table,
    read_part,
    write_parquet,
)
from .pooled import PooledCorpus, PoolRow

__all__ = ["CorpusStore", "save_corpus"]


class CorpusStore:
    """An open corpus directory that can be loaded, appended to and compacted.

    Use :meth:`create` for a new directory and :meth:`open` for an existing one.
    Appends hold an advisory lock file (``.lock``, with the writer's pid) for the
    lifetime of :meth:`writing`; a lock left by a process that no longer runs is
    taken over.

    Example:
        >>> import tempfile
        >>> store = CorpusStore.create(tempfile.mkdtemp(), name="toy", parameters={"source": "hand"})
        >>> store.append([Passage("a", "en", "Crimea is a peninsula.", territory="Crimea")])
        >>> store.append([Passage("b", "en", "Russia is a country.", territory="Crimea")],
        ...              extra_pools=[("Kuril Islands", "en", "b")])
        >>> c = CorpusStore.open(store.path).load()
        >>> len(c), [p.doc_id for p in c.pool("Kuril Islands", "en")], len(store.manifest["parts"])
        (2, ['b'], 2)
        >>> store.compact(); len(store.manifest["parts"]), len(CorpusStore.open(store.path).load())
        (1, 2)
    """

    def __init__(self, path: Path, manifest: dict[str, Any]) -> None:
        self.path = path
        self._manifest = manifest
        self._passages: list[Passage] | None = None
        self._pools: list[PoolRow] | None = None
        self._corpus: PooledCorpus | None = None

    # -- opening -----------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        *,
        name: str = "",
        parameters: Mapping[str, Any] | None = None,
        overwrite: bool = False,
    ) -> CorpusStore:
        """Start an empty corpus directory (refuses to replace one unless ``overwrite``)."""
        root = Path(path)
        if is_corpus_dir(root):
            if not overwrite:
                raise ConfigError(
                    f"{root} already holds a corpus; open it to append, or pass overwrite=True to replace it"
                )
            for sub in ("passages", "pools"):
                shutil.rmtree(root / sub, ignore_errors=True)
        elif root.exists() and not root.is_dir():
            raise ConfigError(f"{root} exists and is not a directory")
        root.mkdir(parents=True, exist_ok=True)
        created = now()
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "name": name or root.name,
            "bordir_version": __version__,
            "created_at": created,
            "updated_at": created,
            "parameters": dict(parameters or {}),
            "parts": [],
            "next_part": 0,
            "counts": {},
            "content_hash": Corpus(()).content_hash(),
            "articles": [],
            "units": [],
            "runs": [],
            "warnings": [],
        }
        store = cls(root, manifest)
        store._passages, store._pools = [], []
        store._refresh()
        store._write_manifest()
        return store

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> CorpusStore:
        """Open an existing corpus directory."""
        root = Path(path)
        return cls(root, read_manifest(root))

    @property
    def manifest(self) -> dict[str, Any]:
        """The current manifest (a copy)."""
        return cast("dict[str, Any]", json.loads(json.dumps(self._manifest)))

    @property
    def signature(self) -> str:
        return signature(self._manifest)

    # -- loading -----------------------------------------------------------------------------
    def _load_parts(self) -> None:
        passages: list[Passage] = []
        pools: list[PoolRow] = []
        for part in self._manifest.get("parts", []):
            table = read_part(self.path, part["passages"], part.get("passages_sha256"))
            passages.extend(passages_from_table(table, self.path / part["passages"]))
            if part.get("pools"):
                pt = read_part(self.path, part["pools"], part.get("pools_sha256"))
                cols = [pt.column(c).to_pylist() for c in POOL_COLUMNS]
                pools.extend(zip(*cols))
        self._passages, self._pools = passages, pools

    def load(self, *, verify: bool = False) -> PooledCorpus:
        """The corpus (cached). ``verify`` also recomputes the content hash and compares it with the manifest."""
        if self._corpus is None:
            if self._passages is None:
                self._load_parts()
            assert self._passages is not None and self._pools is not None
            self._corpus = PooledCorpus(
                self._passages,
                extra_pools=self._pools,
                name=self._manifest.get("name", ""),
                source=str(self.path),
            )
        if verify and self._corpus.content_hash() != self._manifest.get("content_hash"):
            raise DataError(
                f"content hash {self._corpus.content_hash()} differs from the manifest's "
                f"{self._manifest.get('content_hash')}",
                path=self.path,
            )
        return self._corpus

    # -- writing -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def writing(self) -> Iterator[CorpusStore]:
        """Hold the directory's lock file while appending (one writer at a time)."""
        lock = self.path / ".lock"
        for _ in range(2):
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                try:
                    pid = int(lock.read_text().strip() or "0")
                except (OSError, ValueError):
                    pid = 0
                if pid and pid_alive(pid):
                    raise ConfigError(
                        f"{self.path} is being written by process {pid}; wait for it, or remove {lock} "
                        "if no such process runs"
                    ) from None
                lock.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(str(os.getpid()))
            break
        try:
            yield self
        finally:
            lock.unlink(missing_ok=True)

    def append(
        self,
        passages: Sequence[Passage],
        *,
        extra_pools: Sequence[PoolRow] = (),
        articles: Sequence[Mapping[str, Any]] = (),
        units: Sequence[Mapping[str, Any]] = (),
        warnings: Sequence[str] = (),
    ) -> None:
        """Add passages (new keys only), pool rows, article and unit records; rewrite the manifest.

        The new rows go to a new part file; nothing already stored is rewritten.
        Raises :class:`DataError` if a passage key is already stored or a pool row
        names an unknown passage (nothing is written then).
        """
        if self._passages is None:
            self._load_parts()
        assert self._passages is not None and self._pools is not None
        new_passages = list(passages)
        new_pools = [tuple(r) for r in extra_pools]
        # validate (and build the new corpus) before writing anything
        corpus = PooledCorpus(
            [*self._passages, *new_passages],
            extra_pools=[*self._pools, *new_pools],  # type: ignore[list-item]
            name=self._manifest.get("name", ""),
            source=str(self.path),
        )
        if new_passages or new_pools:
            self._manifest["parts"].append(self._write_part(new_passages, new_pools))  # type: ignore[arg-type]
        self._passages.extend(new_passages)
        self._pools.extend(new_pools)  # type: ignore[arg-type]
        self._manifest["articles"].extend(dict(a) for a in articles)
        self._manifest["units"].extend(dict(u) for u in units)
        self._manifest["warnings"].extend(
            w for w in warnings if w not in self._manifest["warnings"]
        )
        self._corpus = corpus
        self._refresh()
        self._write_manifest()

    def update_manifest(self, **fields: Any) -> None:
        """Set top-level manifest fields (``runs``, ``parameters`` …) and rewrite it; counts stay derived."""
        reserved = {"format", "parts", "next_part", "counts", "content_hash", "articles", "units"}
        bad = sorted(set(fields) & reserved)
        if bad:
            raise ConfigError(
                f"manifest field(s) {', '.join(bad)} are derived by the store and cannot be set"
            )
        self._manifest.update(fields)
        self._write_manifest()

    def compact(self) -> None:
        """Merge all parts into one passages file and one pools file.

        The merged part gets a new name; the manifest switches to it in one
        rename, and only then are the old parts deleted, so a crash at any step
        leaves a loadable corpus.
        """
        parts = self._manifest["parts"]
        if len(parts) <= 1:
            return
        corpus = self.load()
        merged = self._write_part(list(corpus), list(corpus.extra_pools))
        old = [p[k] for p in parts for k in ("passages", "pools") if p.get(k)]
        self._manifest["parts"] = [merged]
        self._write_manifest()
        for rel in old:
            (self.path / rel).unlink(missing_ok=True)

    def _write_part(self, passages: Sequence[Passage], pools: Sequence[PoolRow]) -> dict[str, Any]:
        n = int(self._manifest.get("next_part", len(self._manifest["parts"])))
        self._manifest["next_part"] = n + 1
        part: dict[str, Any] = {"passages": f"passages/part-{n:05d}.parquet", "rows": len(passages)}
        part["passages_sha256"] = write_parquet(
            passages_table(passages), self.path / part["passages"]
        )
        if pools:
            part["pools"] = f"pools/part-{n:05d}.parquet"
            part["pool_rows"] = len(pools)
            part["pools_sha256"] = write_parquet(pools_table(pools), self.path / part["pools"])
        return part

    def _refresh(self) -> None:
        corpus = self.load()
        self._manifest["counts"] = counts(corpus, self._manifest["articles"])
        self._manifest["content_hash"] = corpus.content_hash()
        self._manifest["updated_at"] = now()
        self._manifest["bordir_version"] = __version__

    def _write_manifest(self) -> None:
        atomic_write_text(
            self.path / MANIFEST, json.dumps(self._manifest, ensure_ascii=False, indent=1) + "\n"
        )

    def __repr__(self) -> str:
        c = self._manifest.get("counts", {})
        return f"CorpusStore({str(self.path)!r}, passages={c.get('passages', '?')}, parts={len(self._manifest['parts'])})"


def save_corpus(
    corpus: Corpus,
    path: str | os.PathLike[str],
    *,
    name: str = "",
    parameters: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Write ``corpus`` as a corpus directory; return its manifest.

    Extra pool memberships of a :class:`PooledCorpus` are kept.
    """
    store = CorpusStore.create(
        path, name=name or corpus.name, parameters=parameters, overwrite=overwrite
    )
    with store.writing():
        extra = corpus.extra_pools if isinstance(corpus, PooledCorpus) else ()
        store.append(list(corpus), extra_pools=extra)
    return store.manifest
