"""Who is cited: each URL's registrable domain, source country, source language and list labels, with the rule that decided.

A host is attributed once (:meth:`Attributor.host`) and remembered:

* **registrable domain** by the Public Suffix List: ``tldextract`` with the snapshot it
  bundles and no network (``suffix_list_urls=()``, no cache directory); an IP host is its own
  domain; a host without a known suffix (``localhost``) too;
* **country**, first rule that speaks: ``unresolved_redirect`` (a Gemini grounding redirect,
  resolved only by ``bordir audit resolve``) → none; ``ip_host`` → none; the publisher
  registry (``publisher:<domain>``; a registry entry may say *no* country: encyclopedias,
  platforms); then the name (:func:`~.countries.tld_country`: government second-level
  domains, sponsored TLDs, ccTLDs, generic-use ccTLDs, generic TLDs);
* **lists**: the labels of the user lists the host is on (:class:`~.lists.DomainLists`).

A URL's **language** comes from the URL (:func:`~.urllang.url_language`), else from its snippet
(``snippet``: the seeded detector, when the log has one), else ``und`` (rule ``none``).

:meth:`Attributor.attribute` does this for a whole column of URLs at once (:mod:`.urlcols`): the
URLs are taken apart by a regular expression in Arrow, and only the distinct authorities, hosts,
path segments, queries and snippets are looked at in Python, each once.

Example:
    >>> import pyarrow as pa
    >>> a = Attributor()
    >>> r = a.attribute(pa.array(["https://ru.wikipedia.org/wiki/Крым", "https://www.rt.com/news/1",
    ...                           "javascript:alert(1)", "https://minfin.gov.ua/x?utm_source=t"]))
    >>> [a.hosts[h].country for h in r.host_id[[0, 1, 3]]], [a.hosts[h].rule for h in r.host_id[[0, 1, 3]]]
    ([None, 'RU', 'UA'], ['publisher:wikipedia.org', 'publisher:rt.com', 'gov_sld:gov.ua'])
    >>> list(r.lang), list(r.lang_rule), list(r.reason)
    (['ru', 'en', '', 'und'], ['subdomain:ru', 'publisher:rt.com', '', 'none'], ['', '', 'unsafe_scheme', ''])
    >>> r.canonical[3].as_py()
    'https://minfin.gov.ua/x'
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..._extras import require
from .countries import tld_country
from .lists import DomainLists
from .publishers import Publisher, PublisherRegistry, load_publishers
from .urlcols import URL_REASON_CODES, URL_REASON_NAMES, UrlAttribution, attribute_column
from .urllang import subdomain_language
from .urls import REDIRECT_HOSTS, host_ascii

__all__ = [
    "HostInfo", "Attributor", "UrlAttribution", "UNDETERMINED", "psl_extractor", "URL_REASON_NAMES",
    "URL_REASON_CODES",
]  # fmt: skip

UNDETERMINED = "und"


def _ip(h: str) -> str | None:
    """``h`` as an IP address (compressed), else None; only what could be one is parsed."""
    if ":" not in h and not (h.isascii() and h.replace(".", "").isdigit()):
        return None  # neither IPv6 (a colon) nor dotted IPv4 (digits and dots)
    try:
        return ipaddress.ip_address(h).compressed
    except ValueError:
        return None


def _code(vocab: list[str], index: dict[str, int], value: str) -> int:
    """``value``'s place in ``vocab`` (added at the end when new)."""
    i = index.get(value)
    if i is None:
        i = index[value] = len(vocab)
        vocab.append(value)
    return i


def psl_extractor() -> Any:
    """A ``tldextract.TLDExtract`` on its bundled Public Suffix List snapshot: it never fetches, never caches to disk."""
    tldextract = require("tldextract", "audit", purpose="registrable domains (Public Suffix List)")
    return tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=False
    )


@dataclass(frozen=True, slots=True)
class HostInfo:
    """A host's attribution (see the module docs); ``rule`` says which rule gave the country (or none)."""

    host: str
    domain: str
    suffix: str
    subdomain: str
    country: str | None
    rule: str
    kind: str
    publisher: Publisher | None
    lists: tuple[str, ...]


class Attributor:
    """Attributes hosts and URLs (see the module docs).

    Args:
        publishers: the publisher registry (default: the shipped one).
        lists: user domain lists.
        detector: a :class:`~bordir.audit.detect.LanguageDetector` for snippets (created on first use).
    """

    def __init__(
        self,
        publishers: PublisherRegistry | None = None,
        lists: DomainLists | None = None,
        detector: Any = None,
    ) -> None:
        self.publishers = publishers if publishers is not None else load_publishers()
        self.lists = lists if lists is not None else DomainLists()
        self.detector = detector
        self._psl = psl_extractor()
        self.hosts: list[HostInfo] = []
        self._host_index: dict[str, int] = {}
        self._auth: dict[str, tuple[str, int, str]] = {}  # authority -> (reason, host id, masked)
        # the authorities seen, by id: reason code, host id, netloc code, credentials given, masked form
        self.auth_keys: list[str] = []
        self._auth_arr: pa.Array | None = None
        self.auth_reason = np.zeros(0, dtype=np.int8)
        self.auth_host = np.zeros(0, dtype=np.int32)
        self.auth_net = np.zeros(0, dtype=np.int64)
        self.auth_cred = np.zeros(0, dtype=bool)
        self.auth_masked: list[str] = []
        self._net_ix: dict[str, int] = {}
        self._net_list: list[str] = []
        self.snippets_detected = 0
        self._host_cols: dict[str, pa.Array] | None = None
        self._host_lang_cols: tuple[np.ndarray, ...] = (
            *(np.zeros(0, np.int64) for _ in range(4)), np.zeros(0, dtype=bool),
        )  # fmt: skip
        self.langs: list[str] = []  # the languages and language rules URLs were given, by code
        self._lang_ix: dict[str, int] = {}
        self.rules: list[str] = []
        self._rule_ix: dict[str, int] = {}
        self.segments: dict[
            str, tuple[int, int, int]
        ] = {}  # path segment -> (lang, lang if ambiguous allowed, rule)

    # ---------------------------------------------------------------- hosts
    def host(self, host: str) -> HostInfo:
        """The attribution of ``host`` (lower-case ASCII, or an IP address)."""
        i = self._host_index.get(host)
        if i is None:
            i = self._host_id(host)
        return self.hosts[i]

    def _host_id(self, host: str) -> int:
        i = self._host_index.get(host)
        if i is not None:
            return i
        self.hosts.append(self._attribute_host(host))
        i = len(self.hosts) - 1
        self._host_index[host] = i
        return i

    def _attribute_host(self, host: str) -> HostInfo:
        lists = self.lists.labels(host)
        if _ip(host) is not None:
            return HostInfo(host, host, "", "", None, "ip_host", "", None, lists)
        ext = self._psl(host)
        suffix = ext.suffix
        domain = f"{ext.domain}.{suffix}" if ext.domain and suffix else host
        sub = ext.subdomain if ext.domain and suffix else ""
        if host in REDIRECT_HOSTS:
            return HostInfo(host, host, suffix, sub, None, "unresolved_redirect", "", None, lists)
        pub = self.publishers.match(host)
        if pub is not None:
            country = pub.country or None
            return HostInfo(
                host, domain, suffix, sub, country, f"publisher:{pub.domain}", pub.type, pub, lists
            )
        if not suffix:
            return HostInfo(host, domain, "", "", None, "no_public_suffix", "", None, lists)
        cc, rule, kind = tld_country(host, suffix)
        return HostInfo(host, domain, suffix, sub, cc, rule, kind, None, lists)

    def _authority(self, auth: str) -> tuple[str, int, str]:
        """``(reason, host id, masked authority)`` of an authority (``user:pw@Host:port``)."""
        hit = self._auth.get(auth)
        if hit is not None:
            return hit
        at = auth.rfind("@")
        masked = auth if at < 0 else "***" + auth[at:]
        a = auth[at + 1 :]
        reason, host = "", ""
        if a.startswith("["):
            end = a.find("]")
            host = a[1:end] if end > 0 else ""
            try:
                host = ipaddress.ip_address(host).compressed
            except ValueError:
                reason = "no_host"
        else:
            h, sep, port = a.rpartition(":")
            if not sep:
                h = a
            elif port and not port.isdigit():
                reason = "no_host"
            host = _ip(h) or host_ascii(h) or ""
            if not host:
                reason = "no_host"
        out = (reason, -1 if reason else self._host_id(host), masked)
        self._auth[auth] = out
        return out

    def host_columns(self) -> dict[str, pa.Array]:
        """Every host attributed so far as Arrow columns indexed by host id (taken per URL)."""
        k = len(self.hosts)
        if self._host_cols is None or len(self._host_cols["host"]) != k:
            hs = self.hosts
            self._host_cols = {
                "host": pa.array([h.host for h in hs], pa.string()),
                "domain": pa.array([h.domain for h in hs], pa.string()),
                "country": pa.array([h.country for h in hs], pa.string()),
                "country_rule": pa.array([h.rule for h in hs], pa.string()),
                "kind": pa.array([h.kind for h in hs], pa.string()),
                "publisher": pa.array(
                    [h.publisher.name if h.publisher else None for h in hs], pa.string()
                ),
                "lists": pa.array([list(h.lists) for h in hs], pa.list_(pa.string())),
            }
        return self._host_cols

    # ---------------------------------------------------------------- codes
    def lang_code(self, lang: str) -> int:
        """The code of a language (or of ``""``) in :attr:`langs`."""
        return _code(self.langs, self._lang_ix, lang)

    def rule_code(self, rule: str) -> int:
        """The code of a language rule (``subdomain:ru``, ``none`` …) in :attr:`rules`."""
        return _code(self.rules, self._rule_ix, rule)

    def authorities(self, auths: pa.Array) -> np.ndarray:
        """The ids of distinct authorities (strings, no null) in the attributor's tables of them (:attr:`auth_host` …).

        Each authority is attributed once (:meth:`_authority`) and remembered; the known ones are
        looked up in Arrow.
        """
        ids = np.full(len(auths), -1, dtype=np.int64)
        if self._auth_arr is not None and len(auths):
            ids = (
                pc.fill_null(pc.index_in(auths, value_set=self._auth_arr), -1)
                .to_numpy(zero_copy_only=False)
                .astype(np.int64)
            )
        new = np.flatnonzero(ids < 0)
        if len(new):
            start = len(self.auth_keys)
            rows = []
            for a in auths.take(pa.array(new)).to_pylist():
                reason, host, masked = self._authority(a)
                net = self._netloc(a, reason, host)
                self.auth_keys.append(a)
                self.auth_masked.append(masked)
                rows.append((URL_REASON_CODES[reason], host, -1 if net is None else self._net_ix.setdefault(net, len(self._net_ix)),
                             "@" in a))  # fmt: skip
            t = np.array(rows, dtype=np.int64).reshape(-1, 4)
            self.auth_reason = np.concatenate([self.auth_reason, t[:, 0].astype(np.int8)])
            self.auth_host = np.concatenate([self.auth_host, t[:, 1].astype(np.int32)])
            self.auth_net = np.concatenate([self.auth_net, t[:, 2]])
            self.auth_cred = np.concatenate([self.auth_cred, t[:, 3].astype(bool)])
            self._auth_arr = pa.array(self.auth_keys, pa.string())
            ids[new] = np.arange(start, start + len(new))
        return ids

    def netlocs(self) -> list[str]:
        """The netlocs (``host[:port]``) of the authorities, by the code of :attr:`auth_net`."""
        if len(self._net_list) < len(self._net_ix):
            self._net_list = list(self._net_ix)
        return self._net_list

    def _netloc(self, a: str, reason: str, hid: int) -> str | None:
        if reason:
            return None
        host = self.hosts[hid].host
        hostport = a[a.rfind("@") + 1 :]
        _, sep, port = hostport.rpartition(":")
        port = port if sep and not hostport.endswith("]") else ""
        net = f"[{host}]" if ":" in host else host
        if port.isdigit() and port not in ("80", "443"):
            net += f":{port}"
        return net

    def host_langs(self) -> tuple[np.ndarray, ...]:
        """Per host id: subdomain language and rule codes, publisher language and rule codes (-1: none), and whether its subdomains are languages."""
        done = len(self._host_lang_cols[0])
        if done < len(self.hosts):
            rows = []
            for h in self.hosts[done:]:
                langsub = h.publisher is not None and h.publisher.lang_subdomains
                sl, sr = subdomain_language(h.subdomain, langsub)
                pl = h.publisher.lang if h.publisher is not None and h.publisher.lang else None
                rows.append((
                    -1 if sl is None else self.lang_code(sl), self.rule_code(sr),
                    -1 if pl is None else self.lang_code(pl),
                    self.rule_code(f"publisher:{h.publisher.domain}" if pl and h.publisher else ""),
                    langsub,
                ))  # fmt: skip
            t = np.array(rows, dtype=np.int64).reshape(-1, 5)
            old = self._host_lang_cols
            self._host_lang_cols = tuple(
                np.concatenate([old[k], t[:, k] if k < 4 else t[:, k].astype(bool)])
                for k in range(5)
            )
        return self._host_lang_cols

    # ---------------------------------------------------------------- URLs
    def attribute(self, urls: pa.Array, snippets: pa.Array | None = None) -> UrlAttribution:
        """Attribute a string column of URLs (nulls: ``not_a_string``); ``snippets`` aligned, or None."""
        return attribute_column(self, urls, snippets)
