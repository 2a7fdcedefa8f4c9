"""Reader of BordIRLines ``all_docs.json`` (``{lang: {doc_id: text}}``), pools from a hits table.

``all_docs.json`` has no territories; a hits table (or a loaded
:class:`~bordir.loaders.bordirlines.BordIRLines`) puts each retrieved document
into its query's territory pool.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from ..._io.json_read import read_json
from ...errors import ConfigError, DataError
from ...records import Passage
from ..base import Corpus
from ..pooled import PooledCorpus, PoolRow

__all__ = ["read_all_docs", "read_all_docs_json", "pools_from_hits"]


def read_all_docs_json(path: str | Path) -> dict[str, dict[str, str]]:
    """The raw ``{lang: {doc_id: text}}`` of a BordIRLines ``all_docs.json`` (shape checked, texts strings).

    The one reader of the file: :func:`read_all_docs` and
    :func:`bordir.loaders.bordirlines.load_bordirlines` both use it.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", path=path)
    docs = read_json(path)
    if not isinstance(docs, dict) or not all(isinstance(v, dict) for v in docs.values()):
        raise DataError("expected {lang: {doc_id: text}} (BordIRLines all_docs.json)", path=path)
    for lang, d in docs.items():
        for doc_id, text in d.items():
            if not isinstance(text, str):
                raise DataError(f"document {doc_id!r} is not a string", path=path, field=lang)
    return docs


def pools_from_hits(hits: Any) -> dict[tuple[str, str], list[str]]:
    """``(lang, doc_id) → [territory, …]`` from a hits table (``territory, doc_lang, doc_id`` columns)."""
    pools: dict[tuple[str, str], list[str]] = defaultdict(list)
    if hits is None:
        return pools
    frame = getattr(hits, "hits", hits)
    missing = [c for c in ("territory", "doc_lang", "doc_id") if c not in frame.columns]
    if missing:
        raise ConfigError(
            f"hits table lacks column(s) {', '.join(missing)}; expected territory, doc_lang, doc_id"
        )
    for t, lang, doc_id in zip(frame["territory"], frame["doc_lang"], frame["doc_id"]):
        terrs = pools[(lang, str(doc_id))]
        if t and t not in terrs:
            terrs.append(t)
    return pools


def read_all_docs(path: str | Path, *, hits: Any = None, name: str = "") -> Corpus:
    """Read ``all_docs.json``; with ``hits``, each document joins the pools of the territories it was retrieved for."""
    from ...languages import registry

    path = Path(path)
    docs = read_all_docs_json(path)
    reg = registry()
    for lang in docs:
        reg.get_checked(lang, where=str(path))
    pools = pools_from_hits(hits)
    passages: list[Passage] = []
    extra: list[PoolRow] = []
    for lang in sorted(docs):
        for doc_id, text in docs[lang].items():
            terrs = pools.get((lang, doc_id), [])
            passages.append(
                Passage(
                    doc_id=str(doc_id), lang=lang, text=text, territory=terrs[0] if terrs else ""
                )
            )
            extra.extend((t, lang, str(doc_id)) for t in terrs[1:])
    return PooledCorpus(passages, extra_pools=extra, name=name or path.stem, source=str(path))
