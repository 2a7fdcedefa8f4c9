"""The languages registry: one typed record per language, curated for BorderLines or generated for Wikipedia.

Two tables ship inside the wheel:

* ``languages/languages.tsv`` — **curated**: the 55 languages BorderLines uses
  (49 query languages + 6 claimant-only), with BorderLines codes (``iw`` for
  Hebrew, ``zhs``/``zht`` for Simplified and Traditional Chinese), resource level
  and Joshi class;
* ``languages/wikipedia.tsv`` — **generated** by ``languages/generate.py`` (from
  ``langcodes``/``language-data`` and a literal list of Wikipedia editions): every
  other Wikipedia language edition (~290) with script, direction, edition and a
  BM25 analysis chosen by script (Snowball stemmer where PyStemmer has one,
  whitespace words for other spaced scripts, character bigrams for unspaced ones).

Each record says how to reach the language elsewhere (ISO 639, BCP-47,
Wikipedia edition, ``langdetect`` code) and how to analyse it for BM25.
Lookups accept aliases: ``he`` ↔ ``iw``, ``zh``/``zh-Hans``/``zh-CN`` → ``zhs``,
``zh-Hant``/``zh-TW`` → ``zht``, ISO 639-3 codes (``deu``), BCP-47 tags with
region or script subtags (``pt-BR`` → ``pt``), in any case.

Example:
    >>> from bordir import languages
    >>> he = languages.get("iw")
    >>> he.wiki, he.direction, he.bcp47
    ('he', 'rtl', 'he')
    >>> languages.get("zhs").tokenizer
    'bigram'
    >>> len(languages.query_languages())
    49
    >>> languages.get("he").code, languages.get("zh-Hant").code, languages.get("pt-BR").code
    ('iw', 'zht', 'pt')
    >>> de = languages.get("de")
    >>> de.curated, de.tokenizer, de.stemmer, de.analysis
    (False, 'snowball', 'german', ('char4grams',))
    >>> languages.get("xx")
    Traceback (most recent call last):
    ...
    bordir.errors.UnknownLanguageError: languages/ has no entry 'xx'; known codes: ...
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from ._io.columns import require_columns
from ._io.resources import resource_dir
from .errors import DataError, UnknownLanguageError

__all__ = [
    "Language",
    "LanguageRegistry",
    "registry",
    "get",
    "all_languages",
    "codes",
    "query_languages",
    "generated_languages",
    "registry_path",
    "generated_path",
    "ALIASES",
    "COUNTRY_CODES",
    "ANALYSIS_STEPS",
]

Resource = Literal["high", "medium", "low", ""]
Tokenizer = Literal["snowball", "whitespace", "bigram"]

ANALYSIS_STEPS = frozenset(
    {
        "turkic-i",
        "apostrophe-suffix",
        "hebrew-geresh",
        "inword-apostrophe",
        "arabic-normalize",
        "arabic-light-stem",
        "fold-circumflex",
        "char4grams",
    }
)
"""The steps the ``analysis`` column may list (:mod:`bordir.retrieval.analysis` says what each does)."""


@dataclass(frozen=True, slots=True)
class Language:
    """One language of the registry (a row of ``languages/languages.tsv``)."""

    code: str
    """BorderLines code (``iw``, ``zhs``, ``zht`` …)."""
    iso639_1: str
    iso639_3: str
    bcp47: str
    name: str
    native_name: str
    script: str
    """ISO 15924 script code (``Latn``, ``Arab``, ``Hans`` …)."""
    direction: Literal["ltr", "rtl"]
    wiki: str
    """Wikipedia edition (``he`` for ``iw``); empty when there is none."""
    wiki_variant: str
    """MediaWiki language variant (``zh-hans`` / ``zh-hant``) or empty."""
    langdetect: str
    """The code ``langdetect`` returns for this language, or empty if unsupported."""
    resource: Resource
    """high / medium / low; empty for generated rows (not rated)."""
    joshi_class: int | None
    """Joshi et al. (2020) class 0-5; None for generated rows."""
    tokenizer: Tokenizer
    stemmer: str
    """PyStemmer (Snowball) algorithm name, or empty."""
    analysis: tuple[str, ...]
    """Extra BM25 analysis steps (``arabic-normalize``, ``fold-circumflex``, ``char4grams`` …; :data:`ANALYSIS_STEPS`)."""
    query_language: bool
    """True for the 49 BorderLines query languages."""
    curated: bool = True
    """True for rows of languages.tsv, False for rows generated into wikipedia.tsv."""

    def __str__(self) -> str:
        return self.code


_COLUMNS = tuple(f.name for f in fields(Language) if f.name != "curated")
_ALLOWED = {
    "direction": {"ltr", "rtl"},
    "resource": {"high", "medium", "low", ""},
    "tokenizer": {"snowball", "whitespace", "bigram"},
    "query_language": {"yes", "no"},
}


ALIASES: Mapping[str, str] = {
    "he": "iw",
    "zh": "zhs",
    "zh-hans": "zhs",
    "zh-cn": "zhs",
    "zh-sg": "zhs",
    "zh-my": "zhs",
    "zh-hant": "zht",
    "zh-tw": "zht",
    "zh-hk": "zht",
    "zh-mo": "zht",
    "cmn": "zhs",
    "zho": "zhs",
    "chi": "zhs",
    "in": "id",
    "ji": "yi",
    "jw": "jv",
    "nb": "no",
    "nob": "no",
    "fil": "tl",
    "heb": "iw",
    "mo": "ro",
    "yue": "zh-yue",
    "nan": "zh-min-nan",
    "lzh": "zh-classical",
    "sgs": "bat-smg",
    "gsw": "als",
    "rup": "roa-rup",
    "vro": "fiu-vro",
    "cbk": "cbk-zam",
    "be-x-old": "be-tarask",
    "bho": "bh",
    "zh-classical-hant": "zh-classical",
}
"""Alias → code, for spellings the tables' columns do not give (all keys lower case)."""

COUNTRY_CODES: Mapping[str, tuple[str, str]] = {
    "ua": ("uk", "Ukraine"),
    "cn": ("zhs", "China"),
    "tw": ("zht", "Taiwan"),
    "hk": ("zht", "Hong Kong"),
    "jp": ("ja", "Japan"),
    "kr": ("ko", "South Korea"),
    "gr": ("el", "Greece"),
    "cz": ("cs", "Czechia"),
    "dk": ("da", "Denmark"),
    "il": ("iw", "Israel"),
    "ir": ("fa", "Iran"),
    "vn": ("vi", "Vietnam"),
    "rs": ("sr", "Serbia"),
    "by": ("be", "Belarus"),
    "kz": ("kk", "Kazakhstan"),
    "ge": ("ka", "Georgia"),
    "pk": ("ur", "Pakistan"),
    "bd": ("bn", "Bangladesh"),
    "np": ("ne", "Nepal"),
    "mm": ("my", "Myanmar"),
    "kh": ("km", "Cambodia"),
    "al": ("sq", "Albania"),
    "gb": ("en", "the United Kingdom"),
    "us": ("en", "the United States"),
}
"""Country codes often written for a language (``ua`` for Ukrainian): read as the language, with a
:class:`~bordir.errors.BordirNote` saying so. A code that is itself a language (``se``, ``am``) is
never reinterpreted."""


class LanguageRegistry(Mapping[str, Language]):
    """An immutable mapping code → :class:`Language` with aliases and helpful errors.

    ``registry[code]`` accepts aliases (see :meth:`resolve`); iteration yields
    canonical codes only, curated first.
    """

    def __init__(self, languages: Iterable[Language], *, source: str = "") -> None:
        self._by_code: dict[str, Language] = {}
        for lang in languages:
            self._by_code.setdefault(lang.code, lang)
        self.source = source
        self._by_langdetect: dict[str, Language] = {}
        for l in self._by_code.values():
            if l.langdetect:
                self._by_langdetect.setdefault(l.langdetect, l)
        alias: dict[str, str] = {}
        for code in self._by_code:
            alias.setdefault(code.lower(), code)
        for a, code in ALIASES.items():
            if code in self._by_code:
                alias.setdefault(a, code)
        self._country = {
            a: code
            for a, (code, _) in COUNTRY_CODES.items()
            if code in self._by_code and a not in self._by_code
        }
        for l in self._by_code.values():  # curated rows first: they win an ISO/BCP-47 spelling
            for spelling in (l.bcp47, l.iso639_3, l.iso639_1):
                if spelling:
                    alias.setdefault(spelling.lower(), l.code)
        self._alias = alias

    def _lookup(self, code: str) -> Language | None:
        lang = self._by_code.get(code)
        if lang is not None:
            return lang
        key = str(code).strip().replace("_", "-").lower()
        hit = self._alias.get(key)
        if hit is None:
            parts = [p for p in key.split("-") if p]
            # drop region (pt-br, es-419) and other subtags, keep a script subtag (zh-hant-tw -> zh-hant)
            for n in range(len(parts) - 1, 0, -1):
                hit = self._alias.get("-".join(parts[:n]))
                if hit is not None:
                    break
        return None if hit is None else self._by_code[hit]

    def resolve(self, code: str, *, where: str = "") -> Language:
        """The language for ``code`` or an alias of it (``he``, ``zh-Hant``, ``pt-BR``, ``deu`` …).

        Raises:
            UnknownLanguageError: no such language; the message gives close matches.

        Example:
            >>> reg = registry()
            >>> reg.resolve("zh").code, reg.resolve("IW").code, reg.resolve("es-419").code, reg.resolve("deu").code
            ('zhs', 'iw', 'es', 'de')
        """
        lang = self._lookup(code) if isinstance(code, str) else None
        if lang is None:
            wrong = self._country.get(str(code).strip().lower())
            if wrong is None:
                raise self._unknown(str(code), where)
            import warnings

            from .errors import BordirNote

            lang = self._by_code[wrong]
            country = COUNTRY_CODES[str(code).strip().lower()][1]
            prefix = f"{where}: " if where else ""
            warnings.warn(
                f"{prefix}{str(code)!r} is the country code of {country}; read as the language "
                f"code {lang.code!r} ({lang.name}); write {lang.code!r} to silence this note",
                BordirNote,
                stacklevel=2,
            )
        return lang

    def _unknown(self, code: str, where: str) -> UnknownLanguageError:
        import difflib

        curated = [c for c, l in self._by_code.items() if l.curated]
        err = UnknownLanguageError(code, curated, where=where)
        names = {l.name.lower(): c for c, l in self._by_code.items()}
        close = difflib.get_close_matches(code.lower(), list(self._alias), n=4, cutoff=0.7)
        close = list(
            dict.fromkeys(
                [
                    *(self._alias[c] for c in close),
                    *(names[n] for n in difflib.get_close_matches(code.lower(), names, n=3)),
                ]
            )
        )
        n_gen = len(self._by_code) - len(curated)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        err.args = (
            f"{err.args[0]} (curated), and {n_gen} generated Wikipedia languages "
            f"(`bordir list languages`){hint}",
        )
        return err

    def __getitem__(self, code: str) -> Language:
        return self.resolve(code)

    def __contains__(self, code: object) -> bool:
        return isinstance(code, str) and self._lookup(code) is not None

    def get_checked(self, code: str, *, where: str = "") -> Language:
        """Like ``registry[code]`` but the error names ``where`` the code was found."""
        return self.resolve(code, where=where)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_code)

    def __len__(self) -> int:
        return len(self._by_code)

    def from_langdetect(self, detected: str) -> Language | None:
        """The language whose ``langdetect`` code is ``detected`` (``he`` → ``iw``), if any.

        ``zh-cn`` maps to ``zhs`` and ``zh-tw`` to ``zht``.
        """
        return self._by_langdetect.get(detected)

    def __repr__(self) -> str:
        n_cur = sum(l.curated for l in self._by_code.values())
        return f"LanguageRegistry({n_cur} curated + {len(self) - n_cur} generated languages from {self.source or '?'})"


def registry_path() -> Path:
    """Path of the shipped curated ``languages.tsv``."""
    return resource_dir("languages") / "languages.tsv"


def generated_path() -> Path:
    """Path of the shipped generated ``wikipedia.tsv`` (see ``languages/generate.py``)."""
    return resource_dir("languages") / "wikipedia.tsv"


def load_registry(path: str | Path, *generated: str | Path) -> LanguageRegistry:
    """Read a languages TSV (``#`` comment lines, a header, one row per language).

    ``generated`` files (same columns) are read after it, their rows marked
    ``curated=False``; a generated code that a curated row already has is skipped.

    Raises:
        DataError: naming the file, line and field of the first bad value.
    """
    langs = _read_table(Path(path), curated=True)
    have = {l.code for l in langs}
    for g in generated:
        langs.extend(l for l in _read_table(Path(g), curated=False) if l.code not in have)
    return LanguageRegistry(langs, source=", ".join(str(p) for p in (path, *generated)))


def _read_table(path: Path, *, curated: bool) -> list[Language]:
    langs: list[Language] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8", newline="") as fh:
        lines = [
            (i, ln) for i, ln in enumerate(fh, start=1) if ln.strip() and not ln.startswith("#")
        ]
    if not lines:
        raise DataError("no header line found", path=path)
    header_no, header = lines[0]
    cols = header.rstrip("\r\n").split("\t")
    require_columns(
        cols,
        _COLUMNS,
        path=path,
        line=header_no,
        expected=f"expected tab-separated columns: {', '.join(_COLUMNS)}",
        name_field=False,
    )
    reader = csv.reader((ln for _, ln in lines[1:]), delimiter="\t", quoting=csv.QUOTE_NONE)
    for (lineno, _), row in zip(lines[1:], reader):
        if len(row) != len(cols):
            raise DataError(
                f"expected {len(cols)} tab-separated fields, found {len(row)}",
                path=path,
                line=lineno,
            )
        rec = dict(zip(cols, row))
        for col, allowed in _ALLOWED.items():
            if rec[col] not in allowed:
                raise DataError(
                    f"{rec[col]!r} is not one of {', '.join(sorted(allowed))}",
                    path=path,
                    line=lineno,
                    field=col,
                )
        if not rec["code"]:
            raise DataError("empty language code", path=path, line=lineno, field="code")
        if rec["code"] in seen:
            raise DataError(f"duplicate code {rec['code']!r}", path=path, line=lineno, field="code")
        seen.add(rec["code"])
        try:
            joshi = None if rec["joshi_class"] == "" and not curated else int(rec["joshi_class"])
        except ValueError:
            raise DataError(
                f"expected an integer 0-5, found {rec['joshi_class']!r}",
                path=path,
                line=lineno,
                field="joshi_class",
            ) from None
        values: dict[str, Any] = {c: rec[c] for c in _COLUMNS}
        values["joshi_class"] = joshi
        values["query_language"] = rec["query_language"] == "yes"
        values["analysis"] = _analysis_steps(rec, path, lineno)
        if curated and not rec["resource"]:
            raise DataError(
                "empty; curated rows need high, medium or low",
                path=path,
                line=lineno,
                field="resource",
            )
        langs.append(Language(**values, curated=curated))
    return langs


def _analysis_steps(rec: dict[str, str], path: Path, lineno: int) -> tuple[str, ...]:
    steps = tuple(s.strip() for s in rec["analysis"].split(",") if s.strip())
    for step in steps:
        if step not in ANALYSIS_STEPS:
            raise DataError(
                f"unknown analysis step {step!r}; known: {', '.join(sorted(ANALYSIS_STEPS))}",
                path=path,
                line=lineno,
                field="analysis",
            )
    if "arabic-light-stem" in steps and rec["tokenizer"] != "whitespace":
        raise DataError(
            "arabic-light-stem is the stemmer: it needs tokenizer whitespace (no Snowball stemmer)",
            path=path,
            line=lineno,
            field="analysis",
        )
    return steps


@lru_cache(maxsize=1)
def registry() -> LanguageRegistry:
    """The shipped registry, curated and generated (loaded once)."""
    return load_registry(registry_path(), generated_path())


def get(code: str) -> Language:
    """The language with code (or alias) ``code``; raises :class:`UnknownLanguageError` with close matches."""
    return registry()[code]


def all_languages(*, generated: bool = False) -> tuple[Language, ...]:
    """The curated languages (with ``generated=True``: every language), sorted by code."""
    reg = registry()
    return tuple(reg[c] for c in sorted(reg) if generated or reg[c].curated)


def generated_languages() -> tuple[Language, ...]:
    """The generated (non-curated) Wikipedia languages, sorted by code."""
    reg = registry()
    return tuple(reg[c] for c in sorted(reg) if not reg[c].curated)


def codes(*, generated: bool = False) -> tuple[str, ...]:
    """The curated codes (with ``generated=True``: every code), sorted."""
    return tuple(l.code for l in all_languages(generated=generated))


def query_languages() -> tuple[Language, ...]:
    """The 49 BorderLines query languages."""
    return tuple(l for l in all_languages() if l.query_language)
