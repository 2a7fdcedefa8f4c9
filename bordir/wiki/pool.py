"""Building one (territory, language) pool: resolve each English title, follow its interlanguage link, fetch, split, check, deduplicate."""

from __future__ import annotations

import datetime as _dt
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..corpus import CorpusStore
from ..langid.check import check
from ..languages import registry
from ..records import Passage, Territory
from .articles import PageInfo
from .client import RawArticle, WikiClient
from .paragraphs import paragraphs_from_blocks, paragraphs_from_wikitext
from .zh import OPENCC_CONFIGS, convert

__all__ = ["PoolFetcher", "utc_now"]


@dataclass
class _Article:
    """One article in one language, as passages (fresh or reused from the store)."""

    key: tuple[str, int]  # (lang, page_id)
    passages: list[Passage]
    record: dict[str, Any] | None  # manifest record when fetched by this run; None when reused


@dataclass
class _Outcome:
    status: str
    article: _Article | None = None
    detail: str = ""


def utc_now() -> str:
    """Now, UTC, to the second (``2024-05-01T12:00:00Z``)."""
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class PoolFetcher:
    """Builds the pools of one fetch: resolves titles, fetches or reuses articles, appends each pool to the store."""

    def __init__(
        self,
        store: CorpusStore,
        client: WikiClient,
        *,
        as_of: str | None,
        min_chars: int,
        shared_editions: set[str],
    ) -> None:
        self.store = store
        self.client = client
        self.as_of = as_of
        self.min_chars = min_chars
        self.shared_editions = shared_editions
        self.reg = registry()
        self.en_info: dict[str, Any] = {}
        self.en_links: dict[str, dict[str, str]] = {}
        self.raw_cache: dict[tuple[str, str], RawArticle | None] = {}
        self.stored: dict[tuple[str, int], list[Passage]] = defaultdict(list)
        self.by_source: dict[tuple[str, str], tuple[str, int]] = {}
        corpus = store.load()
        for p in corpus:
            pid = dict(p.meta).get("page_id")
            if pid is not None:
                self.stored[(p.lang, int(pid))].append(p)
        for u in store.manifest.get("units", []):
            if u.get("status") == "ok" and u.get("page_id") is not None:
                self.by_source[(u["lang"], u["title"])] = (u["lang"], int(u["page_id"]))
        self.keys = {p.key for p in corpus}
        self.territory_of = {p.key: p.territory for p in corpus}
        self.extra = {(t, l, d) for t, l, d in corpus.extra_pools}
        self.warnings: list[str] = []

    # -- resolving and fetching ------------------------------------------------------------
    def _en(self, title: str) -> Any:
        if title not in self.en_info:
            self.en_info[title] = self.client.info("en", title)
        return self.en_info[title]

    def _links(self, en_title: str) -> dict[str, str]:
        if en_title not in self.en_links:
            self.en_links[en_title] = self.client.langlinks("en", en_title)
        return self.en_links[en_title]

    def _raw(self, edition: str, title: str, info: PageInfo | None = None) -> RawArticle | None:
        key = (edition, title)
        if key in self.raw_cache:
            return self.raw_cache[key]
        if self.as_of:
            raw = self.client.as_of(edition, title, self.as_of)
        else:
            raw = self.client.current(edition, title, info=info)
        if edition in self.shared_editions:
            self.raw_cache[key] = raw
        return raw

    def article(self, lang: str, en_title: str) -> _Outcome:
        known = self.by_source.get((lang, en_title))
        if known is not None and known in self.stored:
            return _Outcome("ok", _Article(known, self.stored[known], None))
        en = self._en(en_title)
        if en is None:
            return _Outcome("missing", detail=f"en.wikipedia has no article {en_title!r}")
        info = en if lang == "en" else None
        if lang == "en":
            edition, title = "en", en.title
        else:
            edition = self.reg[lang].wiki
            if not edition:
                return _Outcome("no_edition", detail=f"{lang} has no Wikipedia edition")
            links = self._links(en.title)
            if edition not in links:
                return _Outcome(
                    "no_langlink", detail=f"{en.title!r} has no link into {edition}.wikipedia"
                )
            title = links[edition]
        raw = self._raw(edition, title, info)
        if raw is None:
            return _Outcome("missing", detail=f"{edition}.wikipedia has no article {title!r}")
        key = (lang, raw.page_id)
        if key in self.stored:
            return _Outcome("ok", _Article(key, self.stored[key], None))
        return _Outcome("ok", self._build(lang, en_title, raw))

    def _build(self, lang: str, en_title: str, raw: RawArticle) -> _Article:
        if raw.format == "extract":
            paras = paragraphs_from_blocks(raw.blocks, min_chars=self.min_chars)
        else:
            paras = paragraphs_from_wikitext(raw.text, min_chars=self.min_chars)
        prefix = f"{lang}." if lang in OPENCC_CONFIGS else ""
        provenance: list[tuple[str, str]] = [
            ("edition", raw.edition),
            ("fetched_at", raw.fetched_at),
            ("page_id", str(raw.page_id)),
            ("revision_id", str(raw.revision_id)),
            ("url", raw.url),
        ]
        if raw.revision_timestamp:
            provenance.append(("revision_timestamp", raw.revision_timestamp))
        title = convert(raw.title, lang)
        passages: list[Passage] = []
        flagged = 0
        for para in paras:
            text = convert(para.text, lang)
            lc = check(text, lang)
            flagged += lc.flag == "mismatch"
            passages.append(
                Passage(
                    doc_id=f"{prefix}{raw.page_id}_p{para.index}",
                    lang=lang,
                    text=text,
                    title=title,
                    section=convert(para.section, lang),
                    meta=tuple(sorted([*provenance, *lc.meta()])),
                )
            )
        record = {
            "lang": lang,
            "edition": raw.edition,
            "title": raw.title,
            "source_title": en_title,
            "page_id": raw.page_id,
            "revision_id": raw.revision_id,
            "revision_timestamp": raw.revision_timestamp or None,
            "fetched_at": raw.fetched_at,
            "url": raw.url,
            "permalink": raw.permalink,
            "text_format": raw.format,
            "paragraphs": len(passages),
            "flagged": flagged,
        }
        if raw.note:
            record["note"] = raw.note
            self.warnings.append(f"{lang} {raw.title!r}: {raw.note}")
        return _Article((lang, raw.page_id), passages, record)

    # -- one pool --------------------------------------------------------------------------
    def pool(self, territory: Territory, lang: str, titles: Sequence[str]) -> None:
        units: list[dict[str, Any]] = []
        articles: list[_Article] = []
        seen_articles: set[tuple[str, int]] = set()
        for en_title in titles:
            out = self.article(lang, en_title)
            unit: dict[str, Any] = {
                "territory": territory.name,
                "lang": lang,
                "title": en_title,
                "status": out.status,
            }
            if out.detail:
                unit["detail"] = out.detail
            if out.article is not None:
                unit["page_id"] = out.article.key[1]
                if out.article.key in seen_articles:
                    unit["detail"] = "same article as an earlier title of this pool"
                else:
                    seen_articles.add(out.article.key)
                    articles.append(out.article)
            units.append(unit)
        new_passages: list[Passage] = []
        new_pools: list[tuple[str, str, str]] = []
        records: list[dict[str, Any]] = []
        seen_text: set[str] = set()
        for art in articles:
            if art.record is not None:
                records.append(art.record)
            for p in art.passages:
                kept = p.text not in seen_text
                seen_text.add(p.text)
                if p.key not in self.keys:
                    stored = Passage(
                        p.doc_id,
                        p.lang,
                        p.text,
                        p.title,
                        territory.name if kept else "",
                        p.section,
                        p.meta,
                    )
                    new_passages.append(stored)
                    self.keys.add(p.key)
                    self.territory_of[p.key] = stored.territory
                elif kept and self.territory_of.get(p.key) != territory.name:
                    row = (territory.name, p.lang, p.doc_id)
                    if row not in self.extra:
                        self.extra.add(row)
                        new_pools.append(row)
            if art.record is not None:
                self.stored[art.key] = list(art.passages)
        for u in units:
            if u["status"] == "ok":
                self.by_source[(lang, u["title"])] = (lang, int(u["page_id"]))
        warnings, self.warnings = self.warnings, []
        self.store.append(
            new_passages, extra_pools=new_pools, articles=records, units=units, warnings=warnings
        )
