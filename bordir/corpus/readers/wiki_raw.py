"""Reader of the BordIRLines raw Wikipedia layout: ``<lang>/Q<wiki_id>.json``, one article per file.

Each article file is a JSON object::

    {"title": "Crimea", "timestamp": "2023-05-10T08:00:00Z", "wiki_id": 1234,
     "article": ["paragraph", …],            # or [{"section": "History", "text": "…"}, …]
     "territory": "Crimea"}                  # optional; or "territories": [...]

Paragraphs are whitespace-stripped; those of at most 20 characters are dropped
(the BordIRLines length filter), and the rest are numbered in order, giving the
BordIRLines ids ``{wiki_id}_p{i}`` (``zhs.``/``zht.`` prefixed for Chinese, as in
``all_docs.json``). Provenance is kept as meta: ``page_id`` (the wiki id),
``revision_timestamp`` and ``source_file``. Without territories in the files, a
hits table (``hits=``) puts documents into pools, as for ``all_docs.json``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..._io.json_read import read_json
from ...errors import DataError
from ...records import Passage
from ..base import Corpus
from ..pooled import PooledCorpus, PoolRow
from .all_docs import pools_from_hits

__all__ = ["read_wiki_raw", "is_wiki_raw_dir", "MIN_CHARS"]

MIN_CHARS = 20
"""Paragraphs of at most this many characters are dropped (BordIRLines)."""

_FILE = re.compile(r"^Q(\d+)\.json$")


def _article_files(root: Path) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        out.extend((sub.name, f) for f in sorted(sub.iterdir()) if _FILE.match(f.name))
    return out


def is_wiki_raw_dir(path: str | Path) -> bool:
    """True if ``path`` is a directory with at least one ``<lang>/Q<n>.json`` file."""
    p = Path(path)
    return p.is_dir() and bool(_article_files(p))


def _paragraphs(article: Any, path: Path) -> list[tuple[str, str]]:
    if not isinstance(article, list):
        raise DataError("expected a list of paragraphs", path=path, field="article")
    out = []
    for i, item in enumerate(article):
        if isinstance(item, str):
            section, text = "", item
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            section, text = str(item.get("section") or item.get("heading") or ""), item["text"]
        else:
            raise DataError(
                f"item {i} is neither a string nor an object with 'text'",
                path=path,
                field="article",
            )
        text = text.strip()
        if len(text) > MIN_CHARS:
            out.append((section, text))
    return out


def read_wiki_raw(path: str | Path, *, hits: Any = None, name: str = "") -> Corpus:
    """Read every ``<lang>/Q<wiki_id>.json`` article below ``path`` into a corpus.

    Example:
        >>> import json, tempfile, pathlib
        >>> root = pathlib.Path(tempfile.mkdtemp()); (root / "de").mkdir()
        >>> _ = (root / "de" / "Q7.json").write_text(json.dumps({"title": "Krim", "timestamp": "2023-05-01T00:00:00Z",
        ...     "wiki_id": 7, "territory": "Crimea", "article": ["kurz", "Die Krim ist eine Halbinsel im Schwarzen Meer."]}))
        >>> c = read_wiki_raw(root)
        >>> [(p.doc_id, p.lang, p.title, p.territory) for p in c], dict(c[0].meta)["revision_timestamp"]
        ([('7_p0', 'de', 'Krim', 'Crimea')], '2023-05-01T00:00:00Z')
    """
    from ...languages import registry

    root = Path(path)
    files = _article_files(root) if root.is_dir() else []
    if not files:
        raise DataError(
            "no <lang>/Q<wiki_id>.json article files (BordIRLines raw Wikipedia layout)", path=root
        )
    reg = registry()
    pools = pools_from_hits(hits)
    passages: list[Passage] = []
    extra: list[PoolRow] = []
    seen: dict[tuple[str, str], Path] = {}
    for lang_dir, f in files:
        lang = reg.resolve(lang_dir, where=str(f.parent)).code
        art = read_json(f)
        if not isinstance(art, dict):
            raise DataError(
                "expected a JSON object with title, timestamp, wiki_id, article", path=f
            )
        for key in ("title", "wiki_id", "article"):
            if key not in art:
                raise DataError(
                    "missing (expected title, timestamp, wiki_id, article)", path=f, field=key
                )
        wiki_id = str(art["wiki_id"]).strip()
        if re.fullmatch(
            r"[Qq]\d+", wiki_id
        ):  # a Wikidata-style "Q7835" names the same file as 7835
            wiki_id = wiki_id[1:]
        if str(_FILE.match(f.name).group(1)) != wiki_id:  # type: ignore[union-attr]
            raise DataError(
                f"wiki_id {wiki_id} does not match the file name {f.name}", path=f, field="wiki_id"
            )
        terrs = art.get("territories") or ([art["territory"]] if art.get("territory") else [])
        if not isinstance(terrs, list) or not all(isinstance(t, str) for t in terrs):
            raise DataError("expected a list of territory names", path=f, field="territories")
        prefix = f"{lang}." if lang in ("zhs", "zht") else ""
        meta = [("page_id", wiki_id), ("source_file", f"{lang_dir}/{f.name}")]
        if art.get("timestamp"):
            meta.append(("revision_timestamp", str(art["timestamp"])))
        meta_t = tuple(sorted(meta))
        for i, (section, text) in enumerate(_paragraphs(art["article"], f)):
            doc_id = f"{prefix}{wiki_id}_p{i}"
            if (lang, doc_id) in seen:
                raise DataError(
                    f"document {doc_id!r} also comes from {seen[(lang, doc_id)]}", path=f
                )
            seen[(lang, doc_id)] = f
            all_terrs = list(dict.fromkeys([*terrs, *pools.get((lang, doc_id), [])]))
            passages.append(
                Passage(
                    doc_id=doc_id,
                    lang=lang,
                    text=text,
                    title=str(art["title"]),
                    territory=all_terrs[0] if all_terrs else "",
                    section=section,
                    meta=meta_t,
                )
            )
            extra.extend((t, lang, doc_id) for t in all_terrs[1:])
    return PooledCorpus(passages, extra_pools=extra, name=name or root.name, source=str(root))
