"""Build a corpus from Wikipedia: the articles of each territory and its claimants, per language.

The parts, one concept per module:

- :mod:`~bordir.wiki.titles`: which English articles a territory's pools use (and the title fixes);
- :mod:`~bordir.wiki.client`: the MediaWiki clients (wikipedia-api for current pages, httpx for revisions);
- :mod:`~bordir.wiki.retry`: rate limit and retries with backoff;
- :mod:`~bordir.wiki.paragraphs`: section and paragraph splitting, markup stripping;
- :mod:`~bordir.langid.check`: the seeded per-paragraph language check;
- :mod:`~bordir.wiki.zh`: Simplified/Traditional Chinese with OpenCC;
- :mod:`~bordir.wiki.fetch`: the orchestration, with resume, into a :class:`~bordir.corpus.store.CorpusStore`.

Everything that needs the ``wiki`` extra imports it on use.
"""

from __future__ import annotations

from .fetch import FetchReport, LangSpec, fetch_corpus
from .retry import FetchError, RetryPolicy
from .titles import TitleFixes, load_title_fixes

__all__ = [
    "fetch_corpus",
    "FetchReport",
    "LangSpec",
    "FetchError",
    "RetryPolicy",
    "TitleFixes",
    "load_title_fixes",
]
