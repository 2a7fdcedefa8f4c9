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

:meth:`Attributor.attribute` does this for a whole column of URLs at once: the URLs are taken
apart by one regular expression in Arrow, and only the distinct authorities, hosts, (host,
path segment, query) triples and snippets are looked at in Python.

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
from .urllang import param_language, path_language, subdomain_language
from .urls import REDIRECT_HOSTS, clean_query, host_ascii

__all__ = ["HostInfo", "Attributor", "UrlAttribution", "UNDETERMINED", "psl_extractor"]

UNDETERMINED = "und"
_SPLIT = r"(?s)^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?P<slashes>//)?(?P<auth>[^/?#]*)(?P<path>[^?#]*)(?:\?(?P<query>[^#]*))?"
_UNSAFE = frozenset({"javascript", "data", "vbscript", "blob"})


def _none(a: np.ndarray) -> np.ndarray:
    """Where an object array holds None."""
    return np.fromiter((v is None for v in a), dtype=bool, count=len(a))


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


@dataclass(frozen=True)
class UrlAttribution:
    """One column of URLs attributed; arrays aligned with the input.

    Attributes:
        reason: ``""`` or why the URL is not attributed (:data:`~.urls.URL_REASONS`).
        host_id: index into :attr:`Attributor.hosts` (-1 where ``reason``).
        canonical: the canonical URL (null where ``reason``), for counting a URL once per answer.
        shown: the URL as given with credentials masked (null where it is not a string).
        lang: the source language (``und`` when undetermined; ``""`` where ``reason``).
        lang_rule: the rule that gave it (``subdomain:ru``, ``path:en``, ``param:hl``, ``publisher:…``,
            ``snippet``, ``none``).
    """

    reason: np.ndarray
    host_id: np.ndarray
    canonical: pa.Array
    shown: pa.Array
    lang: np.ndarray
    lang_rule: np.ndarray


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
        self._lang: dict[tuple[int, str, str], tuple[str | None, str]] = {}
        self.snippets_detected = 0
        self._host_cols: dict[str, pa.Array] | None = None
        self._host_lang: list[tuple[str | None, str, str | None, str, bool]] = []

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
        try:
            ipaddress.ip_address(host)
            return HostInfo(host, host, "", "", None, "ip_host", "", None, lists)
        except ValueError:
            pass
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
            try:
                host = ipaddress.ip_address(h).compressed
            except ValueError:
                host = host_ascii(h) or ""
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

    # ---------------------------------------------------------------- URLs
    def attribute(self, urls: pa.Array, snippets: pa.Array | None = None) -> UrlAttribution:
        """Attribute a string column of URLs (nulls: ``not_a_string``); ``snippets`` aligned, or None."""
        n = len(urls)
        reason = np.full(n, "", dtype=object)
        host_id = np.full(n, -1, dtype=np.int32)
        lang = np.full(n, "", dtype=object)
        lang_rule = np.full(n, "", dtype=object)
        if n == 0:
            empty = pa.array([], pa.string())
            return UrlAttribution(reason, host_id, empty, empty, lang, lang_rule)
        urls = urls.cast(pa.string())
        trimmed = pc.utf8_trim_whitespace(urls)
        null = urls.is_null().to_numpy(zero_copy_only=False)
        empty = pc.fill_null(pc.equal(trimmed, ""), False).to_numpy(zero_copy_only=False)
        parts = pc.extract_regex(trimmed, _SPLIT)
        matched = parts.is_valid().to_numpy(zero_copy_only=False)
        scheme = pc.utf8_lower(parts.field("scheme"))
        slashes = parts.field("slashes").to_numpy(zero_copy_only=False)
        reason[null] = "not_a_string"
        reason[~null & empty] = "empty_url"
        reason[~null & ~empty & ~matched] = "relative_url"
        sch = scheme.dictionary_encode()
        sch_codes = pc.fill_null(sch.indices, -1).to_numpy(zero_copy_only=False)
        for k, s in enumerate(sch.dictionary.to_pylist()):
            rows = (sch_codes == k) & (reason == "")
            if not rows.any():
                continue
            if s in _UNSAFE:
                reason[rows] = "unsafe_scheme"
            elif s not in ("http", "https"):
                if "." in s:  # "www.example.com:80/x": a host, not a scheme
                    reason[rows & (slashes == "")] = "relative_url"
                reason[rows & (reason == "")] = "unsupported_scheme"
            else:
                reason[rows & (slashes == "")] = "relative_url"
        auth = parts.field("auth").dictionary_encode()
        acodes = pc.fill_null(auth.indices, -1).to_numpy(zero_copy_only=False)
        info = [self._authority(a) for a in auth.dictionary.to_pylist()]
        a_reason = np.array([x[0] for x in info] + [""], dtype=object)
        a_host = np.array([x[1] for x in info] + [-1], dtype=np.int32)
        ok = reason == ""
        reason[ok] = a_reason[acodes[ok]]
        ok = reason == ""
        host_id[ok] = a_host[acodes[ok]]
        # the canonical URL: scheme://host[:port]path[?clean query]
        path = pc.if_else(pc.equal(parts.field("path"), ""), "/", parts.field("path"))
        q = parts.field("query").dictionary_encode()
        qclean = pa.array([clean_query(x or "") for x in q.dictionary.to_pylist()], pa.string())
        query = pc.take(qclean, q.indices)
        netloc = self._netlocs(auth)
        canon = pc.binary_join_element_wise(
            scheme, "://", pc.take(netloc, auth.indices), path,
            pc.if_else(pc.equal(query, ""), "", pc.binary_join_element_wise("?", query, "")), "",
        )  # fmt: skip
        canonical = pc.if_else(pa.array(ok), canon, pa.scalar(None, pa.string()))
        shown = self._shown(urls, auth, acodes, info)
        self._languages(ok, host_id, path, q.indices, q.dictionary, snippets, lang, lang_rule)
        return UrlAttribution(reason, host_id, canonical, shown, lang, lang_rule)

    def _netlocs(self, auth: pa.DictionaryArray) -> pa.Array:
        out: list[str | None] = []
        for a in auth.dictionary.to_pylist():
            reason, hid, _ = self._authority(a)
            if reason:
                out.append(None)
                continue
            host = self.hosts[hid].host
            hostport = a[a.rfind("@") + 1 :]
            _, sep, port = hostport.rpartition(":")
            port = port if sep and not hostport.endswith("]") else ""
            net = f"[{host}]" if ":" in host else host
            if port.isdigit() and port not in ("80", "443"):
                net += f":{port}"
            out.append(net)
        return pa.array(out, pa.string())

    def _shown(self, urls: pa.Array, auth: Any, acodes: np.ndarray, info: list[Any]) -> pa.Array:
        masked = [k for k, x in enumerate(info) if "@" in x[2]]
        if not masked:
            return urls
        vals = urls.to_pylist()
        for k in masked:
            raw = auth.dictionary[k].as_py()
            for i in np.flatnonzero(acodes == k):
                vals[i] = vals[i].replace(raw, info[k][2], 1)
        return pa.array(vals, pa.string())

    def _host_langs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per host id: subdomain language and rule, publisher language and rule, subdomains-are-languages."""
        for h in self.hosts[len(self._host_lang) :]:
            langsub = h.publisher is not None and h.publisher.lang_subdomains
            sl, sr = subdomain_language(h.subdomain, langsub)
            pl = h.publisher.lang if h.publisher is not None and h.publisher.lang else None
            self._host_lang.append(
                (
                    sl,
                    sr,
                    pl,
                    f"publisher:{h.publisher.domain}" if pl and h.publisher else "",
                    langsub,
                )
            )
        t = self._host_lang
        return (np.array([x[0] for x in t], dtype=object), np.array([x[1] for x in t], dtype=object),
                np.array([x[2] for x in t], dtype=object), np.array([x[3] for x in t], dtype=object),
                np.array([x[4] for x in t], dtype=bool))  # fmt: skip

    def _languages(
        self,
        ok: np.ndarray,
        host_id: np.ndarray,
        path: pa.Array,
        qcodes: pa.Array,
        qdict: pa.Array,
        snippets: pa.Array | None,
        lang: np.ndarray,
        lang_rule: np.ndarray,
    ) -> None:
        rows = np.flatnonzero(ok)
        if not len(rows):
            return
        h_sl, h_sr, h_pl, h_pr, h_ls = self._host_langs()
        hid = host_id[rows]
        seg = pc.extract_regex(path, r"^/?(?P<seg>[^/]*)").field("seg").dictionary_encode()
        segs = seg.dictionary
        cand = np.flatnonzero(
            pc.match_substring_regex(
                segs, r"^([A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?|[A-Za-z]{4,20})$"
            ).to_numpy(zero_copy_only=False)
        )
        s_strict = np.full(len(segs), None, dtype=object)
        s_amb = np.full(len(segs), None, dtype=object)
        for k in cand.tolist():
            token = segs[k].as_py()
            s_strict[k] = path_language(token)[0]
            s_amb[k] = path_language(token, True)[0]
        scode = pc.fill_null(seg.indices, 0).to_numpy(zero_copy_only=False)[rows]
        seg_lang = np.where(h_ls[hid], s_amb[scode], s_strict[scode])
        seg_text = (
            np.asarray(segs.to_pylist(), dtype=object)[scode]
            if len(segs)
            else np.zeros(0, dtype=object)
        )
        qs = np.full(len(qdict), None, dtype=object)
        qr = np.full(len(qdict), "", dtype=object)
        qcand = np.flatnonzero(
            pc.fill_null(
                pc.match_substring_regex(
                    qdict, r"(^|&)(lang|hl|language|locale|setlang|uselang)=", ignore_case=True
                ),
                False,
            ).to_numpy(zero_copy_only=False)
        )
        for k in qcand.tolist():
            qs[k], qr[k] = param_language(qdict[k].as_py() or "")
        qc = (
            pc.fill_null(qcodes, 0).to_numpy(zero_copy_only=False)[rows]
            if len(qdict)
            else np.zeros(len(rows), dtype=np.int64)
        )
        q_lang = qs[qc] if len(qdict) else np.full(len(rows), None, dtype=object)
        q_rule = qr[qc] if len(qdict) else np.full(len(rows), "", dtype=object)
        sub = h_sl[hid]
        has_sub, has_seg, has_q = ~_none(sub), ~_none(seg_lang), ~_none(q_lang)
        found = np.where(
            has_sub, sub, np.where(has_seg, seg_lang, np.where(has_q, q_lang, h_pl[hid]))
        )
        rule = np.where(
            has_sub, h_sr[hid], np.where(has_seg, "path:", np.where(has_q, q_rule, h_pr[hid]))
        )
        is_path = rule == "path:"
        if is_path.any():
            rule[is_path] = np.array(
                ["path:" + str(x).lower() for x in seg_text[is_path]], dtype=object
            )
        lang[rows] = found
        lang_rule[rows] = rule
        todo = rows[lang[rows] == None]  # noqa: E711 - an object array
        if len(todo) and snippets is not None:
            texts = snippets.take(pa.array(todo)).to_pylist()
            have = [i for i, t in enumerate(texts) if isinstance(t, str) and t.strip()]
            if have:
                if self.detector is None:
                    from ..detect import LanguageDetector

                    self.detector = LanguageDetector()
                got = self.detector.detect_many([texts[i] for i in have])
                self.snippets_detected += len(have)
                for i, code in zip(have, got):
                    if code and code != UNDETERMINED:
                        lang[todo[i]] = code
                        lang_rule[todo[i]] = "snippet"
        still = rows[lang[rows] == None]  # noqa: E711
        lang[still] = UNDETERMINED
        lang_rule[still] = "none"
