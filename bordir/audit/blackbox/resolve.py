"""The explicit online step: follow a log's redirect URLs (Gemini's grounding links) to the sources they stand for.

:func:`redirect_urls` lists the URLs of a black-box log whose host is a redirect host
(:data:`~.urls.REDIRECT_HOSTS`); :func:`resolve_redirects` asks each once (``GET``, redirects
not followed) and keeps the ``Location`` it answers, following up to ``hops`` redirects. The
map ``{redirect URL: final URL}`` is what ``bordir audit LOG --resolved MAP.json`` reads; a URL
that does not resolve (an error, no ``Location``) is left out and counted. ``rewrite`` sends the
requests of a prefix elsewhere (a mirror, an archive, a local server in the tests).

Example:
    >>> resolve_redirects([], timeout=1.0)
    ({}, {})
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin

from .fields import FieldMap
from .reader import iter_rows, log_kind
from .records import normalize_record
from .urls import REDIRECT_HOSTS, parse_url

__all__ = ["redirect_urls", "resolve_redirects"]


class _NoFollow(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def redirect_urls(
    path: str | os.PathLike[str], fmt: str, fields: dict[str, str] | None = None
) -> list[str]:
    """The distinct redirect URLs the answers of a black-box log cite, in order of first use."""
    _, keys = log_kind(path, fmt, fields)
    fm = FieldMap.resolve(keys, fields or {})
    out: dict[str, None] = {}
    for block in iter_rows(path, fmt):
        for item in block:
            if not isinstance(item, tuple):
                continue
            a = normalize_record(item[1], item[0], fm, csv=fmt == "csv")
            for c in getattr(a, "cites", []):
                p = parse_url(c.url)
                if not isinstance(p, str) and p.host in REDIRECT_HOSTS:
                    out.setdefault(c.url, None)
    return list(out)


def resolve_redirects(
    urls: Iterable[str],
    *,
    timeout: float = 20.0,
    hops: int = 5,
    rewrite: dict[str, str] | None = None,
) -> tuple[dict[str, str], dict[str, int]]:
    """``({redirect: final URL}, {failure reason: count})`` (see the module docs)."""
    opener = urllib.request.build_opener(_NoFollow)
    resolved: dict[str, str] = {}
    failed: Counter[str] = Counter()
    for url in urls:
        cur = url
        for _ in range(hops):
            target = cur
            for a, b in (rewrite or {}).items():
                if target.startswith(a):
                    target = b + target[len(a) :]
            try:
                with opener.open(
                    urllib.request.Request(target, method="GET"), timeout=timeout
                ) as resp:  # noqa: S310
                    loc = (
                        None
                        if resp.status not in (301, 302, 303, 307, 308)
                        else resp.headers.get("Location")
                    )
            except urllib.error.HTTPError as exc:
                loc = exc.headers.get("Location") if exc.code in (301, 302, 303, 307, 308) else None
                if loc is None:
                    failed[f"HTTP {exc.code}"] += 1
                    cur = ""
                    break
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                failed[type(exc).__name__] += 1
                cur = ""
                break
            if not loc:
                break
            cur = urljoin(cur, loc)
            p = parse_url(cur)
            if isinstance(p, str) or p.host not in REDIRECT_HOSTS:
                break
        if cur and cur != url:
            resolved[url] = cur
        elif cur:
            failed["no redirect"] += 1
    return resolved, dict(failed)
