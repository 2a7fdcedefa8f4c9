"""A column of URLs attributed at once (:meth:`~.attribution.Attributor.attribute`): Arrow kernels per URL, Python per distinct part.

The URLs are taken apart by one regular expression in Arrow; the reasons a URL is not
attributed (:data:`~.attribution.URL_REASON_NAMES`), its host, its canonical form and its
language are integer codes per URL, computed from tables of the distinct schemes, authorities
(each attributed once and remembered by the attributor), first path segments and queries. The
language rules are :func:`~.urllang.url_language`'s, in its order: a language subdomain, the
first path segment, a ``lang``-like query parameter, the publisher's language, then the
snippet (the seeded detector), else ``und`` (rule ``none``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .urllang import param_language, path_language
from .urls import URL_REASONS, clean_query

__all__ = [
    "attribute_column",
    "UrlAttribution",
    "URL_REASON_NAMES",
    "URL_REASON_CODES",
    "ColumnAttributor",
]

URL_REASON_NAMES: tuple[str, ...] = ("", *URL_REASONS)
"""The reason codes of :attr:`UrlAttribution.reason_code`: 0 for an attributed URL."""
URL_REASON_CODES: dict[str, int] = {r: i for i, r in enumerate(URL_REASON_NAMES)}


@dataclass(frozen=True)
class UrlAttribution:
    """One column of URLs attributed; arrays aligned with the input.

    Attributes:
        reason_code: 0, or why the URL is not attributed: an index into :data:`URL_REASON_NAMES`.
        host_id: index into :attr:`~.attribution.Attributor.hosts` (-1 where ``reason``).
        site: the scheme and netloc as one code (-1 where ``reason``): two URLs of different
            sites have different canonical forms.
        shown: the URL as given with credentials masked (null where it is not a string).
        lang_code: the source language, an index into the attributor's ``langs`` (-1 where ``reason``).
        rule_code: the rule that gave it, an index into its ``rules`` (-1 where ``reason``).
        langs, rules: those vocabularies.
        canonical_of: the canonical URLs of the given rows (attributed ones), for counting a URL once
            per answer (computed on demand: only URLs of one site cited twice in an answer need it).
    """

    reason_code: np.ndarray
    host_id: np.ndarray
    site: np.ndarray
    shown: pa.Array
    lang_code: np.ndarray
    rule_code: np.ndarray
    langs: list[str]
    rules: list[str]
    canonical_of: Callable[[np.ndarray], pa.Array]

    @property
    def canonical(self) -> pa.Array:
        """The canonical URL of every URL (null where ``reason``)."""
        ok = np.flatnonzero(self.reason_code == 0)
        out = pa.nulls(len(self.reason_code), pa.string())
        if not len(ok):
            return out
        where = np.full(len(self.reason_code), -1, dtype=np.int64)
        where[ok] = np.arange(len(ok))
        return self.canonical_of(ok).take(pa.array(where, mask=where < 0))

    @property
    def reason(self) -> np.ndarray:
        """``""`` or why the URL is not attributed (:data:`~.urls.URL_REASONS`), per URL."""
        return np.asarray(np.asarray(URL_REASON_NAMES, dtype=object)[self.reason_code])

    @property
    def lang(self) -> np.ndarray:
        """The source language (``und`` when undetermined; ``""`` where ``reason``), per URL."""
        return np.asarray(np.asarray([*self.langs, ""], dtype=object)[self.lang_code])

    @property
    def lang_rule(self) -> np.ndarray:
        """The rule that gave it (``subdomain:ru``, ``path:en``, ``param:hl``, ``publisher:…``, ``snippet``, ``none``)."""
        return np.asarray(np.asarray([*self.rules, ""], dtype=object)[self.rule_code])


class ColumnAttributor(Protocol):
    """What :func:`attribute_column` uses of an :class:`~.attribution.Attributor`: its tables and vocabularies."""

    auth_keys: list[str]
    auth_reason: np.ndarray
    auth_host: np.ndarray
    auth_net: np.ndarray
    auth_cred: np.ndarray
    auth_masked: list[str]
    langs: list[str]
    rules: list[str]
    segments: dict[str, tuple[int, int, int]]
    detector: Any
    snippets_detected: int

    def authorities(self, auths: pa.Array) -> np.ndarray: ...
    def netlocs(self) -> list[str]: ...
    def host_langs(self) -> tuple[np.ndarray, ...]: ...
    def lang_code(self, lang: str) -> int: ...
    def rule_code(self, rule: str) -> int: ...


_SPLIT = r"(?s)^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?P<slashes>//)?(?P<auth>[^/?#]*)(?P<path>[^?#]*)(?:\?(?P<query>[^#]*))?"
_HEAD = r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?P<slashes>//)?(?P<auth>[^/?#]*)"
"""What every URL needs: its scheme and authority (the whole split only where needed)."""
_LANG_SEGMENT = r"^[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*/(?:[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?|[A-Za-z]{4,20})(?:[/?#]|$)"
"""A URL whose first path segment looks like a language tag (:data:`_SEGMENT`)."""
_FIRST_SEGMENT = r"^[^/?#]*//[^/?#]*/(?P<seg>[^/?#]*)"
_UNSAFE = frozenset({"javascript", "data", "vbscript", "blob"})
_SEGMENT = r"^([A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?|[A-Za-z]{4,20})$"
_LANG_PARAM = r"(^|&)(lang|hl|language|locale|setlang|uselang)="
_MAYBE_LANG_PARAM = r"(lang|hl|language|locale|setlang|uselang)="
_NOT_A_STRING, _EMPTY, _UNSAFE_SCHEME, _UNSUPPORTED, _RELATIVE = (
    URL_REASON_CODES[r]
    for r in ("not_a_string", "empty_url", "unsafe_scheme", "unsupported_scheme", "relative_url")
)


def _np(a: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(a.to_numpy(zero_copy_only=False))


def attribute_column(
    att: ColumnAttributor, urls: pa.Array, snippets: pa.Array | None
) -> UrlAttribution:
    """See the module docs; ``snippets`` aligned with ``urls``, or None."""
    n = len(urls)
    reason = np.zeros(n, dtype=np.int8)
    host_id = np.full(n, -1, dtype=np.int32)
    site = np.full(n, -1, dtype=np.int64)
    lang = np.full(n, -1, dtype=np.int32)
    rule = np.full(n, -1, dtype=np.int32)
    urls = urls.cast(pa.string())
    trimmed = pc.utf8_trim_whitespace(urls)
    null = _np(urls.is_null())
    empty = _np(pc.fill_null(pc.equal(trimmed, ""), False))
    parts = pc.extract_regex(trimmed, _HEAD)
    matched = _np(parts.is_valid())
    reason[null] = _NOT_A_STRING
    reason[~null & empty] = _EMPTY
    reason[~null & ~empty & ~matched] = _RELATIVE
    scheme = pc.utf8_lower(parts.field("scheme"))
    no_slashes = _np(pc.fill_null(pc.equal(parts.field("slashes"), ""), True))
    sch = scheme.dictionary_encode()
    sch_codes = _np(pc.fill_null(sch.indices, -1))
    https = np.zeros(n, dtype=np.int64)
    for k, s in enumerate(sch.dictionary.to_pylist()):
        rows = (sch_codes == k) & (reason == 0)
        if not rows.any():
            continue
        if s in _UNSAFE:
            reason[rows] = _UNSAFE_SCHEME
        elif s not in ("http", "https"):
            if "." in s:  # "www.example.com:80/x": a host, not a scheme
                reason[rows & no_slashes] = _RELATIVE
            reason[rows & (reason == 0)] = _UNSUPPORTED
        else:
            reason[rows & no_slashes] = _RELATIVE
            https[rows] = s == "https"
    auth = parts.field("auth").dictionary_encode()
    acodes = _np(pc.fill_null(auth.indices, -1))
    ids = np.append(att.authorities(auth.dictionary), -1)[acodes]
    ok = reason == 0
    reason[ok] = att.auth_reason[ids[ok]]
    ok = reason == 0
    host_id[ok] = att.auth_host[ids[ok]]
    site[ok] = att.auth_net[ids[ok]] * 2 + https[ok]
    shown = _shown(att, urls, ids)
    rows = np.flatnonzero(ok)
    if len(rows):
        _languages(att, rows, host_id, trimmed, snippets, lang, rule)

    def canonical_of(sel: np.ndarray) -> pa.Array:
        """``scheme://host[:port]path[?clean query]`` of the URLs ``sel``."""
        take = pa.array(sel, pa.int64())
        whole = pc.extract_regex(trimmed.take(take), _SPLIT)
        path = pc.if_else(pc.equal(whole.field("path"), ""), "/", whole.field("path"))
        q = whole.field("query").dictionary_encode()
        qclean = pa.array([clean_query(x or "") for x in q.dictionary.to_pylist()], pa.string())
        query = pc.take(qclean, q.indices)
        netloc = pa.array(att.netlocs(), pa.string()).take(pa.array(att.auth_net[ids[sel]]))
        return pc.binary_join_element_wise(
            scheme.take(take), "://", netloc, path,
            pc.if_else(pc.equal(query, ""), "", pc.binary_join_element_wise("?", query, "")), "",
        )  # fmt: skip

    return UrlAttribution(
        reason, host_id, site, shown, lang, rule, att.langs, att.rules, canonical_of
    )


def _shown(att: ColumnAttributor, urls: pa.Array, ids: np.ndarray) -> pa.Array:
    """The URLs as given, credentials masked (``user:pw@`` → ``***@``)."""
    cred = np.zeros(len(ids), dtype=bool)
    known = ids >= 0
    cred[known] = att.auth_cred[ids[known]]
    if not cred.any():
        return urls
    vals = urls.to_pylist()
    for i in np.flatnonzero(cred).tolist():
        raw = att.auth_keys[ids[i]]
        vals[i] = vals[i].replace(raw, att.auth_masked[ids[i]], 1)
    return pa.array(vals, pa.string())


def _segments(att: ColumnAttributor, segs: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct first path segment: its language codes (strict, ambiguous codes allowed) and path rule (-1: none)."""
    strict = np.full(len(segs), -1, dtype=np.int64)
    amb = np.full(len(segs), -1, dtype=np.int64)
    prule = np.full(len(segs), -1, dtype=np.int64)
    cand = np.flatnonzero(_np(pc.match_substring_regex(segs, _SEGMENT)))
    if not len(cand):
        return strict, amb, prule
    tokens = segs.take(pa.array(cand)).to_pylist()
    cache = att.segments
    for k, token in zip(cand.tolist(), tokens):
        hit = cache.get(token)
        if hit is None:
            s, a = path_language(token)[0], path_language(token, True)[0]
            hit = cache[token] = (
                -1 if s is None else att.lang_code(s),
                -1 if a is None else att.lang_code(a),
                att.rule_code(f"path:{token.lower()}"),
            )
        strict[k], amb[k], prule[k] = hit
    return strict, amb, prule


def _languages(
    att: ColumnAttributor,
    rows: np.ndarray,
    host_id: np.ndarray,
    trimmed: pa.Array,
    snippets: pa.Array | None,
    lang: np.ndarray,
    rule: np.ndarray,
) -> None:
    """The language code and rule code of each attributed URL (``rows``), into ``lang`` and ``rule``."""
    h_sl, h_sr, h_pl, h_pr, h_ls = att.host_langs()
    n = len(host_id)
    hid = host_id[rows]
    # the first path segment: only those that look like a language tag are looked at
    cand = np.flatnonzero(
        _np(pc.fill_null(pc.match_substring_regex(trimmed, _LANG_SEGMENT), False))
    )
    seg_lang = np.full(n, -1, dtype=np.int64)
    seg_rule = np.full(n, -1, dtype=np.int64)
    if len(cand):
        seg = pc.extract_regex(trimmed.take(pa.array(cand)), _FIRST_SEGMENT).field("seg")
        enc = seg.dictionary_encode()
        s_strict, s_amb, s_rule = _segments(att, enc.dictionary)
        k = _np(enc.indices)
        seg_lang[cand] = np.where(h_ls[np.maximum(host_id[cand], 0)], s_amb[k], s_strict[k])
        seg_rule[cand] = s_rule[k]
    # a lang-like query parameter: only in URLs that hold one of its names
    q_lang = np.full(n, -1, dtype=np.int64)
    q_rule = np.full(n, -1, dtype=np.int64)
    maybe = np.flatnonzero(
        _np(
            pc.fill_null(
                pc.match_substring_regex(trimmed, _MAYBE_LANG_PARAM, ignore_case=True), False
            )
        )
    )
    if len(maybe):
        q = (
            pc.extract_regex(trimmed.take(pa.array(maybe)), _SPLIT)
            .field("query")
            .dictionary_encode()
        )
        qdict = q.dictionary.to_pylist()
        ql = np.full(len(qdict) + 1, -1, dtype=np.int64)
        qr = np.full(len(qdict) + 1, -1, dtype=np.int64)
        found_q = pc.match_substring_regex(q.dictionary, _LANG_PARAM, ignore_case=True)
        for j in np.flatnonzero(_np(pc.fill_null(found_q, False))).tolist():
            code, r = param_language(qdict[j] or "")
            if code is not None:
                ql[j], qr[j] = att.lang_code(code), att.rule_code(r)
        qc = _np(pc.fill_null(q.indices, -1))
        q_lang[maybe], q_rule[maybe] = ql[qc], qr[qc]
    sub = h_sl[hid]
    s_l, s_r, p_l, p_r = seg_lang[rows], seg_rule[rows], q_lang[rows], q_rule[rows]
    has_sub, has_seg, has_q = sub >= 0, s_l >= 0, p_l >= 0
    found = np.where(has_sub, sub, np.where(has_seg, s_l, np.where(has_q, p_l, h_pl[hid])))
    how = np.where(has_sub, h_sr[hid], np.where(has_seg, s_r, np.where(has_q, p_r, h_pr[hid])))
    todo = rows[found < 0]
    lang[rows] = found
    rule[rows] = how
    if len(todo) and snippets is not None:
        texts = snippets.take(pa.array(todo)).to_pylist()
        have = [i for i, t in enumerate(texts) if isinstance(t, str) and t.strip()]
        if have:
            if att.detector is None:
                from ..detect import LanguageDetector

                att.detector = LanguageDetector()
            got = att.detector.detect_many([texts[i] for i in have])
            att.snippets_detected += len(have)
            snippet = att.rule_code("snippet")
            for i, code in zip(have, got):
                if code and code != "und":
                    lang[todo[i]] = att.lang_code(code)
                    rule[todo[i]] = snippet
    still = rows[lang[rows] < 0]
    lang[still] = att.lang_code("und")
    rule[still] = att.rule_code("none")
