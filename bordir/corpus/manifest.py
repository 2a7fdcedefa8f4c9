"""A corpus directory's ``manifest.json``: format, counts, content hash, and the corpus signature.

The manifest is the directory's record: ``format`` (:data:`FORMAT`), ``name``,
the writing bordir version, fetch ``parameters`` (source, ``as_of`` …), the
part files with their SHA-256, derived ``counts`` and ``content_hash``, and the
fetcher's ``articles``, ``units``, ``runs`` and ``warnings``.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._io.json_read import read_json
from ..errors import DataError
from ..records import Passage
from .base import Corpus
from .parts import MANIFEST
from .pooled import PooledCorpus

__all__ = [
    "FORMAT",
    "MANIFEST",
    "FLAG_KEY",
    "is_corpus_dir",
    "read_manifest",
    "signature",
    "counts",
    "now",
]

FORMAT = "bordir-corpus/1"
"""The ``format`` value of ``manifest.json``; a reader refuses other values."""

FLAG_KEY = "lang_flag"
"""The meta key of the language check (see :mod:`bordir.langid.check`); ``mismatch`` counts as flagged."""


def now() -> str:
    """The current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


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
    manifest = read_json(mpath)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise DataError(f"expected format {FORMAT!r}, found {found!r}", path=mpath, field="format")
    return manifest


def counts(corpus: Corpus, articles: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The manifest's counts: passages, languages, territories, pools, flagged passages, articles."""
    per: dict[str, dict[str, int]] = defaultdict(
        lambda: {"passages": 0, "flagged": 0, "articles": 0}
    )
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
    parts = [
        f"corpus:{manifest.get('name') or 'unnamed'}",
        f"hash:{manifest.get('content_hash', '')}",
    ]
    if params.get("source"):
        parts.append(f"source:{params['source']}")
    if params.get("as_of"):
        parts.append(f"as_of:{params['as_of']}")
    parts.append(f"version:{manifest.get('bordir_version', '')}")
    return "|".join(parts)
