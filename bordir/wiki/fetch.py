"""Fetch a BordIRLines-style corpus from Wikipedia into a corpus directory, resumably.

For every selected territory and every language of ``--langs`` (by default its
claimants' languages and English), the (territory, language) *pool* is built
from the territory's English article titles (:mod:`~bordir.wiki.titles`):

1. each English title is resolved on en.wikipedia (redirects followed);
2. for another language, its interlanguage link into the language's edition
   (the registry's ``wiki``: ``iw`` → ``he``, ``zhs``/``zht`` → ``zh``) gives the
   article; English uses the English article;
3. the article is fetched — the current page (``as_of=None``) or the latest
   revision at or before ``as_of`` — split into paragraphs
   (:mod:`~bordir.wiki.paragraphs`), converted for ``zhs``/``zht``
   (:mod:`~bordir.wiki.zh`) and language-checked (:mod:`~bordir.wiki.langcheck`);
4. exact duplicate paragraphs within the pool are dropped from it.

Paragraph ids are ``{page_id}_p{index}`` (``zhs.``/``zht.`` prefixed), so one
article's paragraphs have the same ids in every pool: they are stored once, and
the other pools that contain them get pool rows (see
:class:`~bordir.corpus.pooled.PooledCorpus`).

**Resume.** Each finished pool is appended to the store at once, together with
one *unit* record per (territory, language, title) saying what happened (``ok``,
``missing``, ``no_langlink``, ``no_edition``). A re-run with the same
``--out`` skips the pools already recorded and reuses stored articles instead
of fetching them again, so an interrupted run loses at most the pool in
progress. Settings that change the text (``as_of``, ``endpoint``, ``min_chars``)
must match the stored ones.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..corpus import CorpusStore, is_corpus_dir, read_manifest
from ..dataset import BorderLines
from ..errors import ConfigError
from ..languages import registry
from ..records import Passage, Territory
from .client import DEFAULT_ENDPOINT, RawArticle, WikiClient
from .langcheck import SEED, check
from .paragraphs import MIN_CHARS, paragraphs_from_blocks, paragraphs_from_wikitext, wikitext_parser
from .retry import RetryPolicy
from .titles import TitleFixes, load_title_fixes
from .zh import OPENCC_CONFIGS, convert

__all__ = ["LangSpec", "FetchReport", "fetch_corpus", "normalize_as_of", "SOURCE"]

SOURCE = "wikipedia"
"""The ``parameters.source`` of a fetched corpus."""
RESULT_PARAMETERS = ("as_of", "endpoint", "min_chars")
"""Parameters a resumed fetch must share with the stored corpus."""


@dataclass(frozen=True)
class LangSpec:
    """Which languages to fetch per territory: ``claimants``, explicit codes, or both (``claimants+en``).

    Tokens are separated by ``+`` or ``,``; codes are checked against the registry.

    Example:
        >>> s = LangSpec.parse("claimants+en")
        >>> s.claimants, s.codes, str(s)
        (True, ('en',), 'claimants+en')
        >>> LangSpec.parse("ru,xx")
        Traceback (most recent call last):
        ...
        bordir.errors.UnknownLanguageError: --langs: languages/ has no entry 'xx'; known codes: ...
    """

    claimants: bool
    codes: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> LangSpec:
        tokens = [t.strip() for t in re.split(r"[+,]", text or "") if t.strip()]
        if not tokens:
            raise ConfigError(
                "--langs is empty; use e.g. claimants+en, claimants, or codes such as ru,uk,en"
            )
        reg = registry()
        codes: list[str] = []
        claimants = False
        for tok in tokens:
            if tok == "claimants":
                claimants = True
                continue
            reg.get_checked(tok, where="--langs")
            if tok not in codes:
                codes.append(tok)
        return cls(claimants, tuple(codes))

    def for_territory(self, dataset: BorderLines, territory: str) -> tuple[str, ...]:
        langs = list(dataset.claimant_langs(territory)) if self.claimants else []
        return tuple(dict.fromkeys([*langs, *self.codes]))

    def __str__(self) -> str:
        return "+".join((["claimants"] if self.claimants else []) + list(self.codes))


def normalize_as_of(value: str | None) -> str | None:
    """``2023-05-15`` → ``2023-05-15T23:59:59Z`` (the end of that day, UTC, as BordIRLines); full timestamps pass.

    >>> normalize_as_of("2023-05-15"), normalize_as_of("2023-05-15T12:00:00Z"), normalize_as_of(None)
    ('2023-05-15T23:59:59Z', '2023-05-15T12:00:00Z', None)
    """
    if value is None or not str(value).strip():
        return None
    v = str(value).strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
            _dt.date.fromisoformat(v)
            return f"{v}T23:59:59Z"
        when = _dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"--as-of {value!r} is not a date; use YYYY-MM-DD (e.g. 2023-05-15) or an ISO timestamp"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.UTC)
    return when.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class FetchReport:
    """What a fetch did and what the corpus now holds.

    Attributes:
        rows: one per language: ``lang, pools, articles, paragraphs, flagged,
            missing, no_langlink`` (corpus totals after the run).
        pools_fetched / pools_skipped: pools built by this run / already stored.
    """

    path: Path
    signature: str
    content_hash: str
    passages: int
    rows: list[dict[str, Any]]
    pools_fetched: int
    pools_skipped: int
    requests: int
    retries: int
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.path),
            "passages": self.passages,
            "content_hash": self.content_hash,
            "pools_fetched": self.pools_fetched,
            "pools_skipped": self.pools_skipped,
            "requests": self.requests,
            "retries": self.retries,
            "per_language": self.rows,
            "warnings": self.warnings,
            "signature": self.signature,
        }


def summary_rows(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-language counts from a manifest: pools, articles, paragraphs, flagged, missing, no_langlink."""
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "pools": set(),
            "articles": 0,
            "paragraphs": 0,
            "flagged": 0,
            "missing": 0,
            "no_langlink": 0,
        }
    )
    for lang, c in (manifest.get("counts", {}).get("per_language") or {}).items():
        per[lang]["paragraphs"] = c.get("passages", 0)
        per[lang]["flagged"] = c.get("flagged", 0)
        per[lang]["articles"] = c.get("articles", 0)
    for u in manifest.get("units", []):
        row = per[u["lang"]]
        row["pools"].add(u["territory"])
        if u["status"] == "missing":
            row["missing"] += 1
        elif u["status"] in ("no_langlink", "no_edition"):
            row["no_langlink"] += 1
    order = sorted(per, key=lambda l: (l != "en", l))
    return [
        {"lang": l, **{k: (len(v) if isinstance(v, set) else v) for k, v in per[l].items()}}
        for l in order
    ]


# --------------------------------------------------------------------------------------------


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


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class _Fetcher:
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
    def _en(self, title: str):
        if title not in self.en_info:
            self.en_info[title] = self.client.info("en", title)
        return self.en_info[title]

    def _links(self, en_title: str) -> dict[str, str]:
        if en_title not in self.en_links:
            self.en_links[en_title] = self.client.langlinks("en", en_title)
        return self.en_links[en_title]

    def _raw(self, edition: str, title: str, info=None) -> RawArticle | None:
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


def _check_resume(manifest: dict[str, Any], params: dict[str, Any], out: Path) -> None:
    stored = manifest.get("parameters") or {}
    if stored.get("source") != SOURCE:
        raise ConfigError(
            f"{out} holds a corpus that was not fetched from Wikipedia (source {stored.get('source')!r}); "
            "choose another --out"
        )
    for k in RESULT_PARAMETERS:
        if stored.get(k) != params.get(k):
            raise ConfigError(
                f"{out} was fetched with {k}={stored.get(k)!r}, this run asks for {k}={params.get(k)!r}; "
                "use the same setting to resume, or another --out"
            )


def fetch_corpus(
    dataset: BorderLines,
    out: str | Path,
    *,
    langs: str | LangSpec = "claimants+en",
    territories: Sequence[str] | None = None,
    as_of: str | None = None,
    endpoint: str = DEFAULT_ENDPOINT,
    title_fixes: TitleFixes | None = None,
    min_chars: int = MIN_CHARS,
    policy: RetryPolicy | None = None,
    contact: str | None = None,
    client: WikiClient | None = None,
    progress: bool | None = None,
    on_pool: Callable[[str, str], object] | None = None,
    compact: bool = True,
) -> FetchReport:
    """Fetch the pools of ``dataset``'s territories into the corpus directory ``out`` (created or resumed).

    Args:
        dataset: territories and claimants (BorderLines, or the demo).
        out: the corpus directory.
        langs: ``claimants+en`` (default), ``claimants``, or codes (``ru,uk,en``), see :class:`LangSpec`.
        territories: names to fetch (default: all); an unknown name raises :class:`ConfigError`.
        as_of: fetch the latest revision at or before this date (``2023-05-15``: the
            BordIRLines snapshot) instead of the current page.
        endpoint: MediaWiki API URL template with ``{edition}``.
        title_fixes: default: the shipped table.
        min_chars: paragraphs of this many characters or fewer are dropped.
        policy: rate limit, retries, timeout.
        contact: User-Agent contact (default ``$BORDIR_WIKI_CONTACT``).
        client: a ready :class:`WikiClient` (its endpoint wins over ``endpoint``).
        progress: a progress bar per language on stderr (None: only on a terminal).
        on_pool: called with ``(territory, lang)`` after each pool is stored.
        compact: merge the store's part files when the run completes.
    """
    spec = langs if isinstance(langs, LangSpec) else LangSpec.parse(langs)
    fixes = title_fixes if title_fixes is not None else load_title_fixes()
    as_of_n = normalize_as_of(as_of)
    if min_chars < 0:
        raise ConfigError(f"min_chars must be >= 0, got {min_chars}")
    chosen = (
        [dataset.territory(t) for t in territories] if territories else list(dataset.territories)
    )
    own_client = client is None
    if client is None:
        client = WikiClient(endpoint=endpoint, contact=contact, policy=policy)
    out = Path(out)
    params = {
        "source": SOURCE,
        "as_of": as_of_n,
        "endpoint": client.endpoint,
        "min_chars": min_chars,
        "text_format": "wikitext" if as_of_n else "extract",
        "wikitext_parser": wikitext_parser() if as_of_n else None,
        "langdetect_seed": SEED,
        "opencc": dict(OPENCC_CONFIGS),
        "id_format": "{page_id}_p{index}; zhs./zht. prefixed",
    }
    try:
        if is_corpus_dir(out):
            _check_resume(read_manifest(out), params, out)
            store = CorpusStore.open(out)
        else:
            store = CorpusStore.create(out, name=out.name, parameters=params)
        plan: list[tuple[Territory, str]] = [
            (t, l) for t in chosen for l in spec.for_territory(dataset, t.name)
        ]
        done = {(u["territory"], u["lang"]) for u in store.manifest.get("units", [])}
        by_lang: dict[str, list[Territory]] = defaultdict(list)
        for t, l in plan:
            by_lang[l].append(t)
        editions = defaultdict(set)
        for l in by_lang:
            editions[registry()[l].wiki].add(l)
        shared = {e for e, ls in editions.items() if e and len(ls) > 1}
        run = {
            "started_at": _now(),
            "bordir_version": __version__,
            "dataset": dataset.name,
            "dataset_hash": dataset.content_hash(),
            "langs": str(spec),
            "territories": len(chosen),
            "title_fixes": fixes.sha256,
            "user_agent": client.user_agent,
            "status": "running",
        }
        with store.writing():
            runs = store.manifest.get("runs", [])
            store.update_manifest(runs=[*runs, run])
            fetched = skipped = 0
            status = "interrupted"
            try:
                fetcher = _Fetcher(
                    store, client, as_of=as_of_n, min_chars=min_chars, shared_editions=shared
                )
                for lang in sorted(by_lang, key=lambda l: (l != "en", l)):
                    terrs = by_lang[lang]
                    todo = [t for t in terrs if (t.name, lang) not in done]
                    skipped += len(terrs) - len(todo)
                    bar = _bar(
                        progress, total=len(terrs), initial=len(terrs) - len(todo), desc=lang
                    )
                    try:
                        for t in todo:
                            fetcher.pool(t, lang, fixes.titles_for(t))
                            fetched += 1
                            if bar is not None:
                                bar.update(1)
                            if on_pool is not None:
                                on_pool(t.name, lang)
                    finally:
                        if bar is not None:
                            bar.close()
                status = "complete"
                if compact:
                    store.compact()
            except BaseException as exc:
                status = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"failed: {exc}"
                raise
            finally:
                run.update(
                    finished_at=_now(),
                    status=status,
                    pools_fetched=fetched,
                    pools_skipped=skipped,
                    requests=client.throttle.requests,
                    retries=client.throttle.retries,
                )
                store.update_manifest(runs=[*runs, run])
    finally:
        if own_client:
            client.close()
    manifest = store.manifest
    return FetchReport(
        path=out,
        signature=store.signature,
        content_hash=manifest["content_hash"],
        passages=manifest["counts"]["passages"],
        rows=summary_rows(manifest),
        pools_fetched=fetched,
        pools_skipped=skipped,
        requests=client.throttle.requests,
        retries=client.throttle.retries,
        warnings=list(manifest.get("warnings", [])),
    )


def _bar(progress: bool | None, *, total: int, initial: int, desc: str):
    if progress is False:
        return None
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit="pool",
        dynamic_ncols=True,
        disable=None if progress is None else False,
        leave=True,
    )
