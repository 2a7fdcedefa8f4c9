"""A corpus on disk: Parquet passages plus a JSON manifest, loadable in well under a second.

A corpus directory holds::

    DIR/
    ├── manifest.json                 parameters, counts, content hash, provenance, bordir version
    ├── passages/part-00000.parquet   one row per passage (doc_id, lang, territory, title, section, text, meta…)
    └── pools/part-00000.parquet      extra pool memberships (territory, lang, doc_id), only when there are any

**Append = a new part file.** :meth:`CorpusStore.append` writes the new rows to
the next ``part-NNNNN.parquet`` (to a temporary name, then renamed) and only
then replaces ``manifest.json`` (also by rename). Old parts are never
rewritten, so an append costs the size of what is added, and a crash at any
point leaves a valid corpus: a part that the manifest does not list is ignored
and overwritten by the next append. :meth:`CorpusStore.compact` merges the parts
into one (the fetcher does so at the end of a run). Each part's SHA-256 is in
the manifest and is checked on load.

**Pools.** A passage belongs to the pool of its ``territory``; a Wikipedia
paragraph of a claimant country's article (e.g. *Russia*) belongs to the pools
of every territory that country claims. Such extra memberships are stored in
``pools/`` and the loaded corpus is a :class:`PooledCorpus`, whose
:meth:`~PooledCorpus.pool` includes them, while every ``(lang, doc_id)`` is
stored once.

:func:`load_corpus` also reads a passages ``.jsonl`` and a BordIRLines
``all_docs.json`` into the same :class:`~bordir.corpus.Corpus` type.

Example:
    >>> import tempfile
    >>> from bordir.loaders import load_demo_corpus
    >>> demo = load_demo_corpus()
    >>> d = tempfile.mkdtemp()
    >>> manifest = save_corpus(demo, d)
    >>> back = load_corpus(d)
    >>> list(back) == list(demo), manifest["content_hash"] == demo.content_hash()
    (True, True)
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import shutil
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from ._version import __version__
from .corpus import Corpus
from .errors import ConfigError, DataError
from .records import Passage

__all__ = [
    "FORMAT",
    "PooledCorpus",
    "CorpusStore",
    "save_corpus",
    "load_corpus",
    "read_manifest",
    "is_corpus_dir",
]

FORMAT = "bordir-corpus/1"
"""The ``format`` value of ``manifest.json``; a reader refuses other values."""

MANIFEST = "manifest.json"
FIXED_COLUMNS = ("doc_id", "lang", "territory", "title", "section", "text")
POOL_COLUMNS = ("territory", "lang", "doc_id")
FLAG_KEY = "lang_flag"
"""The meta key of the language check (see :mod:`bordir.wiki.langcheck`); ``mismatch`` counts as flagged."""

PoolRow = tuple[str, str, str]


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class PooledCorpus(Corpus):
    """A :class:`~bordir.corpus.Corpus` whose passages may belong to several (territory, language) pools.

    A passage is in the pool of its own ``territory`` (if any) and in the pool of
    every territory ``extra_pools`` lists for its key. A pool keeps corpus order.

    Args:
        passages: the passages (keys unique).
        extra_pools: ``(territory, lang, doc_id)`` rows, each adding one passage to one more pool.

    Example:
        >>> ps = [Passage("1_p0", "en", "Russia is a country.", territory="Crimea"),
        ...       Passage("9_p0", "en", "Crimea is a peninsula.", territory="Crimea")]
        >>> c = PooledCorpus(ps, extra_pools=[("Kuril Islands", "en", "1_p0")])
        >>> [p.doc_id for p in c.pool("Kuril Islands", "en")], c.territories
        (['1_p0'], ('Crimea', 'Kuril Islands'))
        >>> c.territories_of("en", "1_p0")
        ('Crimea', 'Kuril Islands')
    """

    def __init__(
        self,
        passages: Iterable[Passage],
        *,
        extra_pools: Iterable[PoolRow] = (),
        name: str = "",
        source: str = "",
    ) -> None:
        super().__init__(passages, name=name, source=source)
        primary = {p.key: p.territory for p in self}
        extra: dict[tuple[str, str], list[str]] = defaultdict(list)
        rows: list[PoolRow] = []
        for territory, lang, doc_id in extra_pools:
            key = (lang, doc_id)
            if key not in primary:
                raise DataError(
                    f"pool row ({territory!r}, {lang!r}, {doc_id!r}) names a document the corpus does not have",
                    path=source or None,
                )
            if not territory or territory == primary[key] or territory in extra[key]:
                continue
            extra[key].append(territory)
            rows.append((territory, lang, doc_id))
        self._extra = {k: tuple(v) for k, v in extra.items()}
        self._extra_rows = tuple(rows)

    @property
    def extra_pools(self) -> tuple[PoolRow, ...]:
        """The extra ``(territory, lang, doc_id)`` memberships, in the order given."""
        return self._extra_rows

    def territories_of(self, lang: str, doc_id: str) -> tuple[str, ...]:
        """Every territory whose pool holds the passage (its own first)."""
        p = self.get(lang, doc_id)
        own = (p.territory,) if p.territory else ()
        return own + self._extra.get(p.key, ())

    @cached_property
    def _multi_pools(self) -> dict[tuple[str, str], tuple[Passage, ...]]:
        pools: dict[tuple[str, str], list[Passage]] = defaultdict(list)
        for p in self:
            if p.territory:
                pools[(p.territory, p.lang)].append(p)
            for t in self._extra.get(p.key, ()):
                pools[(t, p.lang)].append(p)
        return {k: tuple(v) for k, v in pools.items()}

    def pool(self, territory: str, lang: str) -> tuple[Passage, ...]:
        return self._multi_pools.get((territory, lang), ())

    @property
    def territories(self) -> tuple[str, ...]:
        return tuple(sorted({t for t, _ in self._multi_pools}))

    def content_hash(self) -> str:
        """The :class:`~bordir.corpus.Corpus` hash, extended by the extra pool rows when there are any."""
        base = super().content_hash()
        if not self._extra_rows:
            return base
        h = hashlib.sha256(base.encode("ascii") + b"\x1d")
        for row in self._extra_rows:
            h.update("\x1f".join(row).encode("utf-8") + b"\x1e")
        return "sha256-" + h.hexdigest()[:16]

    def to_frame(self) -> pd.DataFrame:
        """As :meth:`Corpus.to_frame`, plus ``pools``: every territory of the passage, ``;``-joined."""
        df = super().to_frame()
        df["pools"] = [";".join(self.territories_of(p.lang, p.doc_id)) for p in self]
        return df

    def __repr__(self) -> str:
        return (f"PooledCorpus(name={self.name!r}, passages={len(self)}, langs={len(self.langs)}, "
                f"extra_pool_rows={len(self._extra_rows)})")


# --------------------------------------------------------------------------------------------
# reading and writing parts
# --------------------------------------------------------------------------------------------


def _pa():
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


def _meta_keys(passages: Sequence[Passage]) -> list[str]:
    keys: set[str] = set()
    for p in passages:
        keys.update(k for k, _ in p.meta)
    bad = sorted(keys & set(FIXED_COLUMNS))
    if bad:
        raise DataError(f"passage meta key(s) {', '.join(bad)} collide with the fixed columns {', '.join(FIXED_COLUMNS)}")
    return sorted(keys)


def _passages_table(passages: Sequence[Passage]):
    pa, _ = _pa()
    meta_keys = _meta_keys(passages)
    cols: dict[str, list[Any]] = {c: [] for c in FIXED_COLUMNS}
    metas: dict[str, list[str | None]] = {k: [] for k in meta_keys}
    for p in passages:
        cols["doc_id"].append(p.doc_id)
        cols["lang"].append(p.lang)
        cols["territory"].append(p.territory)
        cols["title"].append(p.title)
        cols["section"].append(p.section)
        cols["text"].append(p.text)
        m = dict(p.meta)
        for k in meta_keys:
            v = m.get(k)
            metas[k].append(None if v is None else str(v))
    arrays = {c: pa.array(v, type=pa.string()) for c, v in cols.items()}
    arrays.update({k: pa.array(v, type=pa.string()) for k, v in metas.items()})
    return pa.table(arrays)


def _pools_table(rows: Sequence[PoolRow]):
    pa, _ = _pa()
    return pa.table({c: pa.array([r[i] for r in rows], type=pa.string()) for i, c in enumerate(POOL_COLUMNS)})


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_parquet(table, path: Path) -> str:
    """Write ``table`` to ``path`` atomically (temporary name + rename); return its SHA-256."""
    _, pq = _pa()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    digest = _sha256_file(tmp)
    os.replace(tmp, path)
    return digest


def _read_part(root: Path, rel: str, sha256: str | None):
    pa, pq = _pa()
    path = root / rel
    if not path.is_file():
        raise DataError(f"part file {rel} listed in {MANIFEST} is missing", path=root)
    data = path.read_bytes()
    if sha256 and hashlib.sha256(data).hexdigest() != sha256:
        raise DataError(f"part file {rel} does not match the SHA-256 in {MANIFEST} (changed or truncated)", path=root)
    try:
        return pq.read_table(pa.BufferReader(data))
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"part file {rel} is not valid Parquet: {exc}", path=root) from None


def _passages_from_table(table, path: Path) -> list[Passage]:
    names = table.column_names
    missing = [c for c in FIXED_COLUMNS if c not in names]
    if missing:
        raise DataError(f"passages part lacks column(s) {', '.join(missing)}", path=path)
    fixed = [table.column(c).to_pylist() for c in FIXED_COLUMNS]
    meta_keys = sorted(c for c in names if c not in FIXED_COLUMNS)
    metas = [table.column(k).to_pylist() for k in meta_keys]
    out: list[Passage] = []
    append = out.append
    if metas:
        # paragraphs of one article share most meta: build each distinct meta tuple once
        cache: dict[tuple[str | None, ...], tuple[tuple[str, str], ...]] = {}
        for row, mrow in zip(zip(*fixed), zip(*metas)):
            meta = cache.get(mrow)
            if meta is None:
                meta = cache[mrow] = tuple([(k, v) for k, v in zip(meta_keys, mrow) if v is not None])
            append(Passage(row[0], row[1], row[5], row[3], row[2], row[4], meta))
    else:
        for row in zip(*fixed):
            append(Passage(row[0], row[1], row[5], row[3], row[2], row[4]))
    return out


# --------------------------------------------------------------------------------------------
# the manifest
# --------------------------------------------------------------------------------------------


def is_corpus_dir(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` is a directory with a ``manifest.json``."""
    p = Path(path)
    return p.is_dir() and (p / MANIFEST).is_file()


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed ``manifest.json`` of corpus directory ``path`` (format checked)."""
    root = Path(path)
    mpath = root / MANIFEST
    if not mpath.is_file():
        raise DataError(
            f"not a corpus directory (no {MANIFEST}); expected a directory written by "
            "`bordir corpus fetch` or save_corpus()",
            path=root,
        )
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", path=mpath, line=exc.lineno) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise DataError(f"expected format {FORMAT!r}, found {found!r}", path=mpath, field="format")
    return manifest


def _counts(corpus: Corpus, articles: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    per: dict[str, dict[str, int]] = defaultdict(lambda: {"passages": 0, "flagged": 0, "articles": 0})
    for p in corpus:
        c = per[p.lang]
        c["passages"] += 1
        if dict(p.meta).get(FLAG_KEY) == "mismatch":
            c["flagged"] += 1
    for a in articles:
        per[str(a.get("lang", ""))]["articles"] += 1
    pools = {(t, p.lang) for p in corpus for t in _territories(corpus, p)}
    return {
        "passages": len(corpus),
        "languages": len(corpus.langs),
        "territories": len(corpus.territories),
        "pools": len(pools),
        "flagged": sum(c["flagged"] for c in per.values()),
        "articles": len(articles),
        "per_language": {k: per[k] for k in sorted(per)},
    }


def _territories(corpus: Corpus, p: Passage) -> tuple[str, ...]:
    if isinstance(corpus, PooledCorpus):
        return corpus.territories_of(p.lang, p.doc_id)
    return (p.territory,) if p.territory else ()


def signature(manifest: Mapping[str, Any]) -> str:
    """``corpus:<name>|hash:sha256-…|source:…|as_of:…|version:<bordir>`` from a manifest.

    Only what identifies the passages enters: the content hash, where they came
    from and the revision date; ``version`` is the bordir that wrote them.
    """
    params = manifest.get("parameters") or {}
    parts = [f"corpus:{manifest.get('name') or 'unnamed'}", f"hash:{manifest.get('content_hash', '')}"]
    if params.get("source"):
        parts.append(f"source:{params['source']}")
    if params.get("as_of"):
        parts.append(f"as_of:{params['as_of']}")
    parts.append(f"version:{manifest.get('bordir_version', '')}")
    return "|".join(parts)


# --------------------------------------------------------------------------------------------
# the store
# --------------------------------------------------------------------------------------------


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
        now = _now()
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "name": name or root.name,
            "bordir_version": __version__,
            "created_at": now,
            "updated_at": now,
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
        return json.loads(json.dumps(self._manifest))

    @property
    def signature(self) -> str:
        return signature(self._manifest)

    # -- loading -----------------------------------------------------------------------------
    def _load_parts(self) -> None:
        passages: list[Passage] = []
        pools: list[PoolRow] = []
        for part in self._manifest.get("parts", []):
            table = _read_part(self.path, part["passages"], part.get("passages_sha256"))
            passages.extend(_passages_from_table(table, self.path / part["passages"]))
            if part.get("pools"):
                pt = _read_part(self.path, part["pools"], part.get("pools_sha256"))
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
                self._passages, extra_pools=self._pools, name=self._manifest.get("name", ""), source=str(self.path)
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
                if pid and _alive(pid):
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
        corpus = PooledCorpus([*self._passages, *new_passages], extra_pools=[*self._pools, *new_pools],  # type: ignore[list-item]
                              name=self._manifest.get("name", ""), source=str(self.path))
        if new_passages or new_pools:
            self._manifest["parts"].append(self._write_part(new_passages, new_pools))  # type: ignore[arg-type]
        self._passages.extend(new_passages)
        self._pools.extend(new_pools)  # type: ignore[arg-type]
        self._manifest["articles"].extend(dict(a) for a in articles)
        self._manifest["units"].extend(dict(u) for u in units)
        self._manifest["warnings"].extend(w for w in warnings if w not in self._manifest["warnings"])
        self._corpus = corpus
        self._refresh()
        self._write_manifest()

    def update_manifest(self, **fields: Any) -> None:
        """Set top-level manifest fields (``runs``, ``parameters`` …) and rewrite it; counts stay derived."""
        reserved = {"format", "parts", "next_part", "counts", "content_hash", "articles", "units"}
        bad = sorted(set(fields) & reserved)
        if bad:
            raise ConfigError(f"manifest field(s) {', '.join(bad)} are derived by the store and cannot be set")
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
        part["passages_sha256"] = _write_parquet(_passages_table(passages), self.path / part["passages"])
        if pools:
            part["pools"] = f"pools/part-{n:05d}.parquet"
            part["pool_rows"] = len(pools)
            part["pools_sha256"] = _write_parquet(_pools_table(pools), self.path / part["pools"])
        return part

    def _refresh(self) -> None:
        corpus = self.load()
        self._manifest["counts"] = _counts(corpus, self._manifest["articles"])
        self._manifest["content_hash"] = corpus.content_hash()
        self._manifest["updated_at"] = _now()
        self._manifest["bordir_version"] = __version__

    def _write_manifest(self) -> None:
        path = self.path / MANIFEST
        tmp = path.with_name(f".{MANIFEST}.tmp")
        tmp.write_text(json.dumps(self._manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)

    def __repr__(self) -> str:
        c = self._manifest.get("counts", {})
        return f"CorpusStore({str(self.path)!r}, passages={c.get('passages', '?')}, parts={len(self._manifest['parts'])})"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --------------------------------------------------------------------------------------------
# one-call functions
# --------------------------------------------------------------------------------------------


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
    store = CorpusStore.create(path, name=name or corpus.name, parameters=parameters, overwrite=overwrite)
    with store.writing():
        extra = corpus.extra_pools if isinstance(corpus, PooledCorpus) else ()
        store.append(list(corpus), extra_pools=extra)
    return store.manifest


def load_corpus(
    path: str | os.PathLike[str],
    *,
    hits: Any = None,
    name: str = "",
    verify: bool = False,
) -> Corpus:
    """Load a corpus from a corpus directory, a passages ``.jsonl`` or a BordIRLines ``all_docs.json``.

    Args:
        path: a directory with ``manifest.json``; a ``.jsonl`` of passages (see
            :func:`~bordir.loaders.demo.read_passages_jsonl`); or ``all_docs.json``
            (``{lang: {doc_id: text}}``, e.g. ``data/all_docs.json`` of BordIRLines).
        hits: for ``all_docs.json`` only, which has no territories: a hits table
            (a DataFrame with ``territory, doc_lang, doc_id`` columns, or a
            :class:`~bordir.loaders.bordirlines.BordIRLines`) whose rows put each
            retrieved document in its query's territory pool. Without it every
            passage has ``territory == ""`` and pools are empty.
        name: corpus name (default: the manifest's, or the file name).
        verify: directories only: recompute the content hash and compare.

    Raises:
        DataError: the path does not exist, is not one of these formats, or fails a check.
    """
    p = Path(path)
    if p.is_dir():
        store = CorpusStore.open(p)
        corpus = store.load(verify=verify)
        if name:
            corpus.name = name
        return corpus
    if not p.is_file():
        raise DataError("no such file or directory", path=p)
    if p.suffix == ".jsonl":
        from .loaders.demo import read_passages_jsonl

        return read_passages_jsonl(p, name=name or p.stem)
    if p.suffix == ".json":
        return _load_all_docs(p, hits=hits, name=name or p.stem)
    raise DataError(
        "unknown corpus format; expected a corpus directory (manifest.json), a passages .jsonl "
        "or a BordIRLines all_docs.json",
        path=p,
    )


def _load_all_docs(path: Path, *, hits: Any, name: str) -> Corpus:
    from .languages import registry

    try:
        docs = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    if not isinstance(docs, dict) or not all(isinstance(v, dict) for v in docs.values()):
        raise DataError("expected {lang: {doc_id: text}} (BordIRLines all_docs.json)", path=path)
    reg = registry()
    for lang in docs:
        reg.get_checked(lang, where=str(path))
    pools: dict[tuple[str, str], list[str]] = defaultdict(list)
    if hits is not None:
        frame = getattr(hits, "hits", hits)
        missing = [c for c in ("territory", "doc_lang", "doc_id") if c not in frame.columns]
        if missing:
            raise ConfigError(f"hits table lacks column(s) {', '.join(missing)}; expected territory, doc_lang, doc_id")
        for t, lang, doc_id in zip(frame["territory"], frame["doc_lang"], frame["doc_id"]):
            terrs = pools[(lang, doc_id)]
            if t and t not in terrs:
                terrs.append(t)
    passages: list[Passage] = []
    extra: list[PoolRow] = []
    for lang in sorted(docs):
        for doc_id, text in docs[lang].items():
            if not isinstance(text, str):
                raise DataError(f"document {doc_id!r} is not a string", path=path, field=lang)
            terrs = pools.get((lang, doc_id), [])
            passages.append(Passage(doc_id=str(doc_id), lang=lang, text=text, territory=terrs[0] if terrs else ""))
            extra.extend((t, lang, str(doc_id)) for t in terrs[1:])
    return PooledCorpus(passages, extra_pools=extra, name=name, source=str(path))
