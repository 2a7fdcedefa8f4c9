"""The two HTTP clients of the fetcher, behind one :class:`WikiClient`.

- **Current pages** come from ``wikipedia-api`` (:class:`wikipediaapi.Wikipedia`):
  page info (page id, latest revision id, URL), interlanguage links, and the
  plain-text extract (TextExtracts) split into sections by the library.
- **A page as of a date** comes from the MediaWiki revisions API through
  ``httpx`` (wikipedia-api only fetches current pages): ``prop=revisions`` with
  ``rvstart=<date>`` and ``rvdir=older`` gives the latest revision at or before the
  date, with its wikitext. A page that did not exist then falls back to its
  *oldest* revision (as BordIRLines does), and the article records that in its
  ``note``.

**Endpoint.** Both clients build the API URL from a template
(:mod:`~bordir.wiki.endpoint`; the real wikipedia-api library is pointed at it by
overriding only its URL builder, so tests can use a server on 127.0.0.1).
The records returned are in :mod:`~bordir.wiki.articles`.

**Etiquette.** Requests carry :func:`user_agent` (with a contact from
``BORDIR_WIKI_CONTACT`` when set), are made one at a time and pass through a
:class:`~bordir.wiki.retry.Throttle` (rate limit; retries with backoff on 429,
5xx, timeouts and connection errors, honouring ``Retry-After``).
wikipedia-api's own retries are switched off (``max_retries=0``) so that one
policy governs both clients.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

from .._extras import require
from .._io.json_read import loads
from .._net.http import tls_context
from .._net.retry import parse_retry_after
from ..errors import transport_attempt_error
from .articles import PageInfo, RawArticle, now_iso
from .endpoint import (
    DEFAULT_ENDPOINT,
    endpoint_url,
    permalink,
    user_agent,
    wikipedia_class,
)
from .retry import PermanentError, RetryPolicy, Throttle, TransientError

__all__ = [
    "DEFAULT_ENDPOINT",
    "PageInfo",
    "RawArticle",
    "WikiClient",
    "user_agent",
    "permalink",
    "endpoint_url",
]

T = TypeVar("T")


class WikiClient:
    """Fetch page info, interlanguage links and article text from MediaWiki APIs.

    Args:
        endpoint: API URL template with ``{edition}``.
        contact: contact for the User-Agent (default ``$BORDIR_WIKI_CONTACT``).
        policy: rate limit, retries and timeout.
        sleep: how waits happen (tests pass a recorder).
    """

    def __init__(
        self,
        *,
        endpoint: str = DEFAULT_ENDPOINT,
        contact: str | None = None,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        endpoint_url(endpoint, "en")  # validate the template early
        self.endpoint = endpoint
        self.user_agent = user_agent(contact)
        self.policy = policy or RetryPolicy()
        self.throttle = Throttle(self.policy, sleep=sleep)
        self._wapi, self._wiki_cls = wikipedia_class()
        self._wikis: dict[str, Any] = {}
        self._http = None

    # -- plumbing ----------------------------------------------------------------------------
    def api_url(self, edition: str) -> str:
        return endpoint_url(self.endpoint, edition)

    def _wiki(self, edition: str) -> Any:
        if edition not in self._wikis:
            self._wikis[edition] = self._wiki_cls(
                user_agent=self.user_agent,
                language=edition,
                endpoint=self.endpoint,
                extract_format=self._wapi.ExtractFormat.WIKI,
                max_retries=0,
                timeout=self.policy.timeout,
            )
        return self._wikis[edition]

    def _via_wapi(self, edition: str, fn: Callable[[], T]) -> T:
        w = self._wapi

        def attempt() -> T:
            try:
                return fn()
            except w.WikiRateLimitError as exc:
                raise TransientError(
                    "HTTP 429 (rate limited)", status=429, retry_after=exc.retry_after
                ) from None
            except w.WikiHttpError as exc:
                code = int(exc.status_code)
                if code >= 500:
                    raise TransientError(f"HTTP {code}", status=code) from None
                raise PermanentError(f"HTTP {code}", status=code) from None
            except w.WikiHttpTimeoutError:
                raise TransientError(f"no answer within {self.policy.timeout:g} s") from None
            except w.WikiConnectionError as exc:  # a DNS failure is not retried
                raise transport_attempt_error(exc) from None
            except w.WikiInvalidJsonError:
                raise PermanentError("the answer is not JSON") from None
            except (KeyError, TypeError) as exc:
                raise PermanentError(f"unexpected answer (no {exc})") from None

        return self.throttle.call(attempt, url=self.api_url(edition))

    def _client(self) -> Any:
        if self._http is None:
            httpx = require("httpx", "wiki", purpose="fetching Wikipedia revisions")
            self._http = httpx.Client(
                headers={"User-Agent": self.user_agent},
                timeout=self.policy.timeout,
                verify=tls_context(httpx) or True,
            )
        return self._http

    def _get_json(self, edition: str, params: dict[str, str]) -> dict[str, Any]:
        import httpx

        url = self.api_url(edition)

        def attempt() -> dict[str, Any]:
            try:
                r = self._client().get(url, params=params)
            except httpx.TimeoutException:
                raise TransientError(f"no answer within {self.policy.timeout:g} s") from None
            except httpx.TransportError as exc:  # a DNS failure is not retried
                raise transport_attempt_error(exc) from None
            if r.status_code == 429 or r.status_code >= 500:
                raise TransientError(
                    f"HTTP {r.status_code}",
                    status=r.status_code,
                    retry_after=_retry_after(r.headers.get("Retry-After")),
                )
            if r.status_code != 200:
                raise PermanentError(f"HTTP {r.status_code}", status=r.status_code)
            try:
                data = loads(r.content)
            except ValueError:  # not JSON, nested too deeply, not UTF-8
                raise PermanentError("the answer is not JSON") from None
            err = data.get("error") if isinstance(data, dict) else None
            if err:
                if err.get("code") == "maxlag":
                    raise TransientError(
                        "server lagged (maxlag)",
                        status=200,
                        retry_after=_retry_after(r.headers.get("Retry-After")) or 5.0,
                    )
                raise PermanentError(f"API error {err.get('code')}: {err.get('info')}")
            return cast("dict[str, Any]", data)

        return self.throttle.call(attempt, url=url)

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
        for wiki in self._wikis.values():
            client = getattr(wiki, "_client", None)
            if client is not None:
                client.close()

    def __enter__(self) -> WikiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the API -----------------------------------------------------------------------------
    def info(self, edition: str, title: str) -> PageInfo | None:
        """The page ``title`` of ``edition`` (redirects followed), or None if it does not exist."""
        wiki = self._wiki(edition)
        page = wiki.page(title)
        self._via_wapi(edition, lambda: wiki.info(page))
        attrs = page._attributes
        if int(attrs.get("pageid", -1)) < 0 or "missing" in attrs:
            return None
        return PageInfo(
            edition=edition,
            title=str(attrs.get("title", title)),
            page_id=int(attrs["pageid"]),
            revision_id=int(attrs.get("lastrevid", 0)),
            url=str(attrs.get("fullurl") or attrs.get("canonicalurl") or ""),
        )

    def langlinks(self, edition: str, title: str) -> dict[str, str]:
        """``{edition: title}`` of the page's interlanguage links (empty if the page is missing)."""
        wiki = self._wiki(edition)
        page = wiki.page(title)
        links = self._via_wapi(edition, lambda: wiki.langlinks(page))
        return {lang: p.title for lang, p in links.items()}

    def current(
        self, edition: str, title: str, *, info: PageInfo | None = None
    ) -> RawArticle | None:
        """The current page as a plain-text extract split into sections, or None if it does not exist."""
        if info is None:
            info = self.info(edition, title)
            if info is None:
                return None
        wiki = self._wiki(edition)
        page = wiki.page(info.title)
        fetched_at = now_iso()
        # page.summary makes the extracts request and marks it done, so page.sections reuses it
        summary = self._via_wapi(edition, lambda: page.summary)
        if int(page._attributes.get("pageid", -1)) < 0:
            return None
        blocks: list[tuple[str, str]] = [("", summary)]

        def walk(sections: Iterable[Any]) -> None:
            for s in sections:
                blocks.append((s.title, s.text))
                walk(s.sections)

        walk(page.sections)
        return RawArticle(
            edition=edition,
            title=info.title,
            requested_title=title,
            page_id=info.page_id,
            revision_id=info.revision_id,
            revision_timestamp="",
            url=info.url,
            permalink=permalink(self.api_url(edition), info.revision_id),
            fetched_at=fetched_at,
            format="extract",
            blocks=tuple(blocks),
        )

    def as_of(self, edition: str, title: str, when: str) -> RawArticle | None:
        """The latest revision at or before ``when`` (ISO timestamp), with its wikitext; None if no such page.

        If the page has no revision that old, its oldest revision is used and ``note`` says so.
        """
        base = {
            "action": "query",
            "format": "json",
            "formatversion": "2",
            "prop": "revisions|info",
            "inprop": "url",
            "titles": title,
            "redirects": "1",
            "rvprop": "ids|timestamp|content",
            "rvslots": "main",
            "rvlimit": "1",
        }
        fetched_at = now_iso()
        data = self._get_json(edition, {**base, "rvdir": "older", "rvstart": when})
        page = _first_page(data)
        if page is None:
            return None
        note = ""
        revs = page.get("revisions") or []
        if not revs:
            fetched_at = now_iso()
            data = self._get_json(edition, {**base, "rvdir": "newer"})
            page = _first_page(data)
            if page is None:
                return None
            revs = page.get("revisions") or []
            if not revs:
                return None
            note = (
                f"no revision at or before {when}; the oldest revision "
                f"({revs[0].get('timestamp', '?')}) was used"
            )
        rev = revs[0]
        slot = (rev.get("slots") or {}).get("main") or rev
        content = slot.get("content", slot.get("*", ""))
        revid = int(rev["revid"])
        return RawArticle(
            edition=edition,
            title=str(page.get("title", title)),
            requested_title=title,
            page_id=int(page["pageid"]),
            revision_id=revid,
            revision_timestamp=str(rev.get("timestamp", "")),
            url=str(page.get("fullurl") or page.get("canonicalurl") or ""),
            permalink=permalink(self.api_url(edition), revid),
            fetched_at=fetched_at,
            format="wikitext",
            text=str(content),
            note=note,
        )

    def __repr__(self) -> str:
        return f"WikiClient(endpoint={self.endpoint!r}, policy={self.policy!r})"


def _first_page(data: dict[str, Any]) -> dict[str, Any] | None:
    try:
        pages = data["query"]["pages"]
    except (KeyError, TypeError):
        raise PermanentError("unexpected answer (no query.pages)") from None
    page = pages[0] if isinstance(pages, list) else next(iter(pages.values()), None)
    if (
        not page
        or page.get("missing") is not None
        or page.get("invalid") is not None
        or "pageid" not in page
    ):
        return None
    return cast("dict[str, Any] | None", page)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date; :func:`bordir._net.retry.parse_retry_after`).

    >>> _retry_after("3"), _retry_after(None), _retry_after("soon")
    (3.0, None, None)
    """
    return parse_retry_after({"Retry-After": value}) if value else None
