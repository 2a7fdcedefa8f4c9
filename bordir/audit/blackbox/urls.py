"""A cited URL taken apart: scheme, host (IDN to punycode, IP literals, port dropped, credentials masked), path, query.

:func:`parse_url` reads one URL and returns a :class:`ParsedUrl`, or the reason it
cannot be attributed (:data:`URL_REASONS`): not a string, empty, a ``javascript:`` /
``data:`` / other non-web scheme, a relative URL, a URL without a host. Nothing
is fetched. The **canonical** form (:attr:`ParsedUrl.canonical`), used to count a
URL once per answer, is ``scheme://host/path?query`` with the host in lower case
and punycode, the default port, credentials and fragment dropped, and the
tracking parameters (:data:`TRACKING_PARAMS`, ``utm_*``) removed. The URL kept for
display (:attr:`ParsedUrl.shown`) masks credentials as ``***@``.

Example:
    >>> p = parse_url("HTTPS://user:secret@Кремль.РФ:443/ru/news?utm_source=x&id=3#top")
    >>> p.host, p.port, p.canonical, p.shown
    ('xn--e1ajeds9e.xn--p1ai', None, 'https://xn--e1ajeds9e.xn--p1ai/ru/news?id=3', 'HTTPS://***@Кремль.РФ:443/ru/news?utm_source=x&id=3#top')
    >>> parse_url("javascript:alert(1)"), parse_url("/wiki/Crimea"), parse_url(7)
    ('unsafe_scheme', 'relative_url', 'not_a_string')
    >>> parse_url("http://192.168.0.1:8080/x").is_ip
    True
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = [
    "ParsedUrl",
    "parse_url",
    "URL_REASONS",
    "TRACKING_PARAMS",
    "clean_query",
    "host_ascii",
    "REDIRECT_HOSTS",
]

URL_REASONS: dict[str, str] = {
    "not_a_string": "a cited URL is not a string (a number, an object, null)",
    "empty_url": "a cited URL is empty or blank",
    "unsafe_scheme": "a javascript:, data:, vbscript: or blob: URL (not a source)",
    "unsupported_scheme": "a URL whose scheme is not http or https (mailto:, ftp:, file: …)",
    "relative_url": "a relative URL (no scheme and host): it names no site",
    "no_host": "a URL without a host (http:///x) or with an invalid one",
}
"""Why a cited URL is not attributed: each is counted in ``skipped.jsonl`` with its line and field."""

TRACKING_PARAMS: frozenset[str] = frozenset(
    {
        "fbclid", "gclid", "dclid", "gclsrc", "msclkid", "mc_cid", "mc_eid", "yclid", "_ga", "_gl",
        "igshid", "ref_src", "ref_url", "spm", "srsltid", "twclid", "ttclid", "wbraid", "gbraid",
        "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "_hsenc", "_hsmi", "rb_clickid",
    }
)  # fmt: skip
"""Query parameters that track a click rather than name a page (plus every ``utm_*``): ignored in the canonical URL."""

REDIRECT_HOSTS: frozenset[str] = frozenset({"vertexaisearch.cloud.google.com"})
"""Hosts whose URLs are redirects to the real source (Gemini's grounding links): unresolved offline."""

_URL = re.compile(
    r"^([A-Za-z][A-Za-z0-9+.\-]*):(//)?([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$", re.S
)
_UNSAFE = frozenset({"javascript", "data", "vbscript", "blob"})
_ASCII_HOST = re.compile(r"[a-z0-9_\-.]+")


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """A URL taken apart (see the module docs).

    Attributes:
        scheme: ``http`` or ``https``.
        host: lower-case ASCII host (punycode for IDNs; an IPv6 literal without brackets).
        host_unicode: the host as written, lower case (what a reader recognises).
        port: the port when not the scheme's default, else None.
        path: the path (``/`` when empty).
        query: the query without tracking parameters (``""`` when none).
        raw_query: the query as written.
        is_ip: the host is an IP address.
        canonical: ``scheme://host[:port]path[?query]`` (credentials, fragment and tracking dropped).
        shown: the URL as given, credentials masked.
    """

    scheme: str
    host: str
    host_unicode: str
    port: int | None
    path: str
    query: str
    raw_query: str
    is_ip: bool
    canonical: str
    shown: str


def host_ascii(host: str) -> str | None:
    """``host`` in lower case ASCII (IDNA; each label on its own), None when it is not a valid host.

    >>> host_ascii("Bücher.Example."), host_ascii("exa mple.com")
    ('xn--bcher-kva.example', None)
    """
    h = host.strip().rstrip(".").lower()
    if h.isascii():  # (whitespace fails the pattern)
        return h if _ASCII_HOST.fullmatch(h) and ".." not in h else None
    if any(c.isspace() for c in h):
        return None
    labels = []
    for label in h.split("."):
        if label.isascii():
            labels.append(label)
            continue
        try:
            labels.append("xn--" + label.encode("punycode").decode("ascii"))
        except UnicodeError:
            return None
    return ".".join(labels)


def clean_query(query: str) -> str:
    """``query`` without tracking parameters (``utm_*`` and :data:`TRACKING_PARAMS`), order kept.

    >>> clean_query("utm_source=a&id=3&fbclid=x&lang=ru")
    'id=3&lang=ru'
    """
    if not query:
        return ""
    pairs = parse_qsl(query, keep_blank_values=True)
    kept = [
        (k, v)
        for k, v in pairs
        if not (k.lower().startswith("utm_") or k.lower() in TRACKING_PARAMS)
    ]
    if len(kept) == len(pairs):
        return query
    return urlencode(kept)


def _mask(url: str, userinfo_end: int, start: int) -> str:
    return url[:start] + "***" + url[userinfo_end:]


def parse_url(value: Any) -> ParsedUrl | str:
    """The :class:`ParsedUrl` of ``value``, or the reason (a key of :data:`URL_REASONS`) it is not a web URL."""
    if not isinstance(value, str):
        return "not_a_string"
    url = value.strip()
    if not url:
        return "empty_url"
    m = _URL.match(url)
    if m is None:
        return "relative_url"
    scheme = m.group(1).lower()
    if scheme in _UNSAFE:
        return "unsafe_scheme"
    if scheme not in ("http", "https"):
        if m.group(2) is None and "." in scheme:  # "www.example.com:80/x" has no scheme
            return "relative_url"
        return "unsupported_scheme"
    if m.group(2) is None:
        return "relative_url"
    authority = m.group(3)
    shown = url
    at = authority.rfind("@")
    if at >= 0:
        start = m.start(3)
        shown = _mask(url, start + at, start)
        authority = authority[at + 1 :]
    port: int | None = None
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            return "no_host"
        host_part, rest = authority[1:end], authority[end + 1 :]
        if rest.startswith(":") and rest[1:].isdigit():
            port = int(rest[1:])
    else:
        host_part, sep, port_text = authority.rpartition(":")
        if not sep:
            host_part = authority
        elif port_text.isdigit():
            port = int(port_text)
        elif port_text:
            return "no_host"
    if port is not None and port == (443 if scheme == "https" else 80):
        port = None
    is_ip = False
    try:
        ip = ipaddress.ip_address(host_part)
        host = ip.compressed
        is_ip = True
    except ValueError:
        h = host_ascii(host_part)
        if h is None:
            return "no_host"
        host = h
    path = m.group(4) or "/"
    raw_query = m.group(5) or ""
    query = clean_query(raw_query)
    netloc = f"[{host}]" if is_ip and ":" in host else host
    if port is not None:
        netloc += f":{port}"
    canonical = f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")
    return ParsedUrl(
        scheme, host, host_part.lower().rstrip("."), port, path, query, raw_query, is_ip,
        canonical, shown,
    )  # fmt: skip
