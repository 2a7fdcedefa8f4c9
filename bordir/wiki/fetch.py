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
   (:mod:`~bordir.wiki.zh`) and language-checked (:mod:`~bordir.langid.check`);
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

This module holds the orchestration (:func:`fetch_corpus`); what is asked for is
in :mod:`~bordir.wiki.fetch_spec`, one pool is built by
:mod:`~bordir.wiki.pool`, and the report is :mod:`~bordir.wiki.fetch_report`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._version import __version__
from ..corpus import CorpusStore, is_corpus_dir, read_manifest
from ..dataset import BorderLines
from ..errors import ConfigError
from ..langid.check import engine_label
from ..langid.engine import SEED
from ..languages import registry
from ..records import Territory
from .client import DEFAULT_ENDPOINT, WikiClient
from .fetch_report import FetchReport, summary_rows
from .fetch_spec import RESULT_PARAMETERS, SOURCE, LangSpec, normalize_as_of
from .paragraphs import MIN_CHARS, wikitext_parser
from .pool import PoolFetcher, utc_now
from .retry import RetryPolicy
from .titles import TitleFixes, load_title_fixes
from .zh import OPENCC_CONFIGS

__all__ = ["LangSpec", "FetchReport", "fetch_corpus", "normalize_as_of", "summary_rows", "SOURCE"]


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
            "started_at": utc_now(),
            "bordir_version": __version__,
            "dataset": dataset.name,
            "dataset_hash": dataset.content_hash(),
            "langs": str(spec),
            "territories": len(chosen),
            "title_fixes": fixes.sha256,
            "user_agent": client.user_agent,
            "langdetect_engine": engine_label("wiki"),
            "status": "running",
        }
        with store.writing():
            runs = store.manifest.get("runs", [])
            store.update_manifest(runs=[*runs, run])
            fetched = skipped = 0
            status = "interrupted"
            try:
                fetcher = PoolFetcher(
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
                    finished_at=utc_now(),
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


def _bar(progress: bool | None, *, total: int, initial: int, desc: str) -> Any:
    from .._progress import progress_bar

    return progress_bar(progress, total=total, initial=initial, desc=desc, unit="pool")
