"""The languages registry: one typed record per language BorderLines uses.

The data lives in ``languages/languages.tsv`` (shipped inside the wheel). Codes
are BorderLines codes (``iw`` for Hebrew, ``zhs``/``zht`` for Simplified and
Traditional Chinese); each record says how to reach the language elsewhere
(ISO 639, BCP-47, Wikipedia edition, ``langdetect`` code) and how to analyse it
for BM25.

Example:
    >>> from bordir import languages
    >>> he = languages.get("iw")
    >>> he.wiki, he.direction, he.bcp47
    ('he', 'rtl', 'he')
    >>> languages.get("zhs").tokenizer
    'bigram'
    >>> len(languages.query_languages())
    49
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
from typing import Literal

from ._resources import resource_dir
from .errors import DataError, UnknownLanguageError

__all__ = [
    "Language",
    "LanguageRegistry",
    "registry",
    "get",
    "all_languages",
    "codes",
    "query_languages",
    "registry_path",
]

Resource = Literal["high", "medium", "low"]
Tokenizer = Literal["snowball", "whitespace", "bigram"]


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
    joshi_class: int
    tokenizer: Tokenizer
    stemmer: str
    """PyStemmer (Snowball) algorithm name, or empty."""
    query_language: bool
    """True for the 49 BorderLines query languages."""

    def __str__(self) -> str:
        return self.code


_COLUMNS = tuple(f.name for f in fields(Language))
_ALLOWED = {
    "direction": {"ltr", "rtl"},
    "resource": {"high", "medium", "low"},
    "tokenizer": {"snowball", "whitespace", "bigram"},
    "query_language": {"yes", "no"},
}


class LanguageRegistry(Mapping[str, Language]):
    """An immutable mapping code → :class:`Language` with helpful errors."""

    def __init__(self, languages: Iterable[Language], *, source: str = "") -> None:
        self._by_code: dict[str, Language] = {}
        for lang in languages:
            self._by_code[lang.code] = lang
        self.source = source
        self._by_langdetect = {l.langdetect: l for l in self._by_code.values() if l.langdetect}

    def __getitem__(self, code: str) -> Language:
        try:
            return self._by_code[code]
        except KeyError:
            raise UnknownLanguageError(code, self._by_code) from None

    def get_checked(self, code: str, *, where: str = "") -> Language:
        """Like ``registry[code]`` but the error names ``where`` the code was found."""
        if code not in self._by_code:
            raise UnknownLanguageError(code, self._by_code, where=where)
        return self._by_code[code]

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
        return f"LanguageRegistry({len(self)} languages from {self.source or '?'})"


def registry_path() -> Path:
    """Path of the shipped ``languages.tsv``."""
    return resource_dir("languages") / "languages.tsv"


def load_registry(path: str | Path) -> LanguageRegistry:
    """Read a languages TSV (``#`` comment lines, a header, one row per language).

    Raises:
        DataError: naming the file, line and field of the first bad value.
    """
    path = Path(path)
    langs: list[Language] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8", newline="") as fh:
        lines = [(i, ln) for i, ln in enumerate(fh, start=1) if ln.strip() and not ln.startswith("#")]
    if not lines:
        raise DataError("no header line found", path=path)
    header_no, header = lines[0]
    cols = header.rstrip("\r\n").split("\t")
    missing = [c for c in _COLUMNS if c not in cols]
    if missing:
        raise DataError(
            f"missing column(s) {', '.join(missing)}; expected tab-separated columns: {', '.join(_COLUMNS)}",
            path=path,
            line=header_no,
        )
    reader = csv.reader((ln for _, ln in lines[1:]), delimiter="\t", quoting=csv.QUOTE_NONE)
    for (lineno, _), row in zip(lines[1:], reader):
        if len(row) != len(cols):
            raise DataError(f"expected {len(cols)} tab-separated fields, found {len(row)}", path=path, line=lineno)
        rec = dict(zip(cols, row))
        for col, allowed in _ALLOWED.items():
            if rec[col] not in allowed:
                raise DataError(
                    f"{rec[col]!r} is not one of {', '.join(sorted(allowed))}", path=path, line=lineno, field=col
                )
        if not rec["code"]:
            raise DataError("empty language code", path=path, line=lineno, field="code")
        if rec["code"] in seen:
            raise DataError(f"duplicate code {rec['code']!r}", path=path, line=lineno, field="code")
        seen.add(rec["code"])
        try:
            joshi = int(rec["joshi_class"])
        except ValueError:
            raise DataError(
                f"expected an integer 0-5, found {rec['joshi_class']!r}", path=path, line=lineno, field="joshi_class"
            ) from None
        values = {c: rec[c] for c in _COLUMNS}
        values["joshi_class"] = joshi
        values["query_language"] = rec["query_language"] == "yes"
        langs.append(Language(**values))  # type: ignore[arg-type]
    return LanguageRegistry(langs, source=str(path))


@lru_cache(maxsize=1)
def registry() -> LanguageRegistry:
    """The shipped registry (loaded once)."""
    return load_registry(registry_path())


def get(code: str) -> Language:
    """The language with BorderLines code ``code``; raises :class:`UnknownLanguageError`."""
    return registry()[code]


def all_languages() -> tuple[Language, ...]:
    """Every language of the registry, sorted by code."""
    reg = registry()
    return tuple(reg[c] for c in sorted(reg))


def codes() -> tuple[str, ...]:
    """Every code of the registry, sorted."""
    return tuple(sorted(registry()))


def query_languages() -> tuple[Language, ...]:
    """The 49 BorderLines query languages."""
    return tuple(l for l in all_languages() if l.query_language)
