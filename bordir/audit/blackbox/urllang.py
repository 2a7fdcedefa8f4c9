"""The language a URL states: a language subdomain, a language path segment, a ``lang=`` parameter, or its publisher.

In this order (the first that speaks decides; the rule is kept):

1. ``subdomain:<label>`` — the leftmost subdomain label (after ``www``/``m``/``mobile``) is a
   language code (``ru.wikipedia.org``, ``fr.euronews.com``, ``zh-tw.example.org``) or an English
   language name (``russian.rt.com``, ``arabic.cnn.com``);
2. ``path:<segment>`` — the first path segment is one (``/ru/``, ``/en-us/``, ``/zh-hans/``,
   ``/ukrainian/``; BBC and VOA services use names);
3. ``param:<name>`` — a ``lang``, ``hl``, ``language``, ``locale`` or ``setlang`` query parameter;
4. ``publisher:<domain>`` — the registry says the site publishes in one language.

Codes are resolved by bordir's language registry (``he`` → ``iw``, ``zh-cn`` → ``zhs``). Two-letter
codes that are as often a country edition as a language are **not** read from a subdomain or a
path (:data:`AMBIGUOUS`: ``uk`` is Ukrainian and the United Kingdom, ``ca`` Catalan and Canada,
``br`` Breton and Brazil, ``in``, ``se``, ``ar``, ``am``, ``my``), except on a publisher whose
subdomains are languages (Wikipedia); their region-qualified forms (``uk-ua``) are read. When the
URL says nothing, the caller uses a snippet's text, else ``und``.

Example:
    >>> url_language("ru.wikipedia.org", "ru", "/wiki/Крым", "")
    ('ru', 'subdomain:ru')
    >>> url_language("www.bbc.com", "www", "/ukrainian/news-1", ""), url_language("news.sky.com", "news", "/uk", "")
    (('uk', 'path:ukrainian'), (None, ''))
    >>> url_language("example.com", "", "/a", "hl=zh-TW&x=1")
    ('zht', 'param:hl')
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import parse_qsl

from ...errors import UnknownLanguageError
from ...languages import COUNTRY_CODES, registry
from .publishers import Publisher

__all__ = [
    "url_language",
    "subdomain_language",
    "path_language",
    "param_language",
    "code_of",
    "AMBIGUOUS",
    "LANG_PARAMS",
]

AMBIGUOUS: frozenset[str] = frozenset({"uk", "ca", "br", "in", "se", "ar", "am", "my", "ua", "ms"})
"""Codes not read from a subdomain or path on their own (also a country edition); see the module docs."""
LANG_PARAMS: tuple[str, ...] = ("lang", "hl", "language", "locale", "setlang", "uselang")
_SKIP_LABELS = frozenset({"www", "m", "mobile", "amp", "news", "www2"})


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    reg = registry()
    out: dict[str, str] = {}
    for lang in reg.values():
        for name in (lang.name,):
            key = name.casefold().replace(" ", "")
            if key.isalpha() and len(key) > 3:
                out.setdefault(key, lang.code)
    out.update({"chinese": "zhs", "mundo": "es", "persian": "fa", "farsi": "fa", "hebrew": "iw"})
    return out


@lru_cache(maxsize=4096)
def code_of(token: str, *, allow_ambiguous: bool = False, names: bool = True) -> str | None:
    """The registry code a URL token names (``ru``, ``en-US``, ``zh_hans``, ``russian``), else None.

    In a host or path (``names=True``) only two-letter codes (with a region or script) and the
    BorderLines codes ``zhs``/``zht`` count: three-letter ISO 639-3 codes are English words too
    (``/new/``, ``/art/``). A parameter's value (``names=False``) may be any code.
    """
    t = token.strip().lower().replace("_", "-")
    if not t or len(t) > 20:
        return None
    if names and t.isalpha() and len(t) > 3:
        return _names().get(t)
    head, _, region = t.partition("-")
    if not (2 <= len(head) <= 3 and head.isalpha()) or (region and not region.isalnum()):
        return None
    if names and len(head) == 3 and head not in ("zhs", "zht"):
        return None
    if not region and not allow_ambiguous and head in AMBIGUOUS:
        return None
    if head in COUNTRY_CODES:  # a country edition (jp., cn., ua.), not a language code
        return None
    try:
        return registry().resolve(t).code
    except (UnknownLanguageError, ValueError):
        return None


def subdomain_language(subdomain: str, langsub: bool = False) -> tuple[str | None, str]:
    """Rule 1: the leftmost subdomain label (after ``www``, ``m`` …) as a language, else ``(None, "")``."""
    labels = [x for x in subdomain.split(".") if x] if subdomain else []
    while labels and labels[0] in _SKIP_LABELS and len(labels) > 1:
        labels.pop(0)
    if labels and labels[0] not in _SKIP_LABELS:
        c = code_of(labels[0], allow_ambiguous=langsub)
        if c:
            return c, f"subdomain:{labels[0]}"
    return None, ""


def path_language(segment: str, langsub: bool = False) -> tuple[str | None, str]:
    """Rule 2: the first path segment as a language, else ``(None, "")``."""
    if segment:
        c = code_of(segment, allow_ambiguous=langsub)
        if c:
            return c, f"path:{segment.lower()}"
    return None, ""


def param_language(query: str) -> tuple[str | None, str]:
    """Rule 3: a ``lang``-like query parameter, else ``(None, "")``."""
    if query:
        for k, v in parse_qsl(query, keep_blank_values=False):
            if k.lower() in LANG_PARAMS:
                c = code_of(v, allow_ambiguous=True, names=False)
                if c:
                    return c, f"param:{k.lower()}"
    return None, ""


def url_language(
    host: str, subdomain: str, path: str, query: str, publisher: Publisher | None = None
) -> tuple[str | None, str]:
    """``(code, rule)`` of the language the URL states (see the module docs), ``(None, "")`` when it states none."""
    langsub = publisher is not None and publisher.lang_subdomains
    for lang, rule in (
        subdomain_language(subdomain, langsub),
        path_language(path.lstrip("/").split("/", 1)[0] if path else "", langsub),
        param_language(query),
    ):
        if lang:
            return lang, rule
    if publisher is not None and publisher.lang:
        return publisher.lang, f"publisher:{publisher.domain}"
    return None, ""
