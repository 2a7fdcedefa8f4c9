"""Corpus rows as Arrow tables: passages and pool parts to and from Parquet, checksummed.

A passages part has the fixed columns ``doc_id, lang, territory, title,
section, text`` (strings) plus one string column per meta key (provenance such
as ``page_id``, ``revision_id``, ``fetched_at``; null where a passage lacks
it). A pools part has ``territory, lang, doc_id``. Parts are written through
:func:`bordir._io.atomic.atomic_write_parquet` and their SHA-256 is checked on read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io.atomic import atomic_write_parquet
from ..errors import DataError
from ..records import Passage
from .pooled import PoolRow

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "FIXED_COLUMNS",
    "POOL_COLUMNS",
    "MANIFEST",
    "passages_table",
    "pools_table",
    "passages_from_table",
    "read_part",
    "write_parquet",
    "sha256_file",
]

MANIFEST = "manifest.json"
FIXED_COLUMNS = ("doc_id", "lang", "territory", "title", "section", "text")
POOL_COLUMNS = ("territory", "lang", "doc_id")


def _pa() -> tuple[Any, Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


def _meta_keys(passages: Sequence[Passage]) -> list[str]:
    keys: set[str] = set()
    for p in passages:
        keys.update(k for k, _ in p.meta)
    bad = sorted(keys & set(FIXED_COLUMNS))
    if bad:
        raise DataError(
            f"passage meta key(s) {', '.join(bad)} collide with the fixed columns {', '.join(FIXED_COLUMNS)}"
        )
    return sorted(keys)


def passages_table(passages: Sequence[Passage]) -> pa.Table:
    """The passages part of ``passages``: the fixed columns, then one column per meta key."""
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


def pools_table(rows: Sequence[PoolRow]) -> pa.Table:
    """The pools part of ``rows``: ``territory, lang, doc_id``."""
    pa, _ = _pa()
    return pa.table(
        {c: pa.array([r[i] for r in rows], type=pa.string()) for i, c in enumerate(POOL_COLUMNS)}
    )


def sha256_file(path: Path) -> str:
    """The hex SHA-256 of the file at ``path``."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_parquet(table: pa.Table, path: Path) -> str:
    """Write ``table`` to ``path`` atomically (:mod:`bordir._io.atomic`); return its SHA-256."""
    atomic_write_parquet(path, table, compression="zstd")
    return sha256_file(path)


def read_part(root: Path, rel: str, sha256: str | None) -> pa.Table:
    """Read part ``rel`` of the store at ``root``, checked against ``sha256`` (DataError if it differs)."""
    pa, pq = _pa()
    path = root / rel
    if not path.is_file():
        raise DataError(f"part file {rel} listed in {MANIFEST} is missing", path=root)
    data = path.read_bytes()
    if sha256 and hashlib.sha256(data).hexdigest() != sha256:
        raise DataError(
            f"part file {rel} does not match the SHA-256 in {MANIFEST} (changed or truncated)",
            path=root,
        )
    try:
        return pq.read_table(pa.BufferReader(data))
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"part file {rel} is not valid Parquet: {exc}", path=root) from None


def passages_from_table(table: pa.Table, path: Path) -> list[Passage]:
    """The passages of a passages part read from ``path`` (DataError naming a missing column)."""
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
                meta = cache[mrow] = tuple(
                    [(k, v) for k, v in zip(meta_keys, mrow) if v is not None]
                )
            append(Passage(row[0], row[1], row[5], row[3], row[2], row[4], meta))
    else:
        for row in zip(*fixed):
            append(Passage(row[0], row[1], row[5], row[3], row[2], row[4]))
    return out
