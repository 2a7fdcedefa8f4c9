"""Country identities and CLDR's country names in every locale (through ``babel``).

A country is identified by its CLDR region code (``RU``, ``TW`` …). BorderLines names countries in
English; :data:`REGION_CODES` maps each of its 120 names to a code (``People's Republic of China`` →
``CN``, ``Republic of China`` → ``TW``, ``Republic of Kosovo`` → ``XK``). A country CLDR does not
know (``Artsakh``, ``Sahrawi Arab Democratic Republic``) is identified by ``name:<English name>``
(:func:`country_code`).

:func:`cldr_names` reads every locale of ``babel``'s CLDR data once (about 1,100 locales, 4 s) and
keeps each country's names, folded with :func:`~bordir.generation.parse.free.fold.quick_fold`; the
result is stored in bordir's cache folder (``$BORDIR_CACHE/cldr-names-<babel version>.json``), so
later processes read it in a tenth of a second.

Which names are kept: region codes of two letters (not ``EU``, ``UN``, ``EZ``, ``QO`` or the
private-use ``X?`` codes other than ``XK``); every name of the locales of :data:`MAJOR_LOCALES` (the
query languages and other widely written ones) and the names of :data:`LONG_NAME` letters or more of
every other locale. A name is dropped when it is shorter than 3 characters in a script written with
spaces (``Nga`` stays, ``UK`` does not: English short forms are aliases of the lexicon), shorter
than 2 in the others, when it is a common word (:data:`STOP_NAMES`: ``end`` is India in one
locale), or when locales give it to two different countries (``Kongo``).

Example:
    >>> country_code("People's Republic of China"), country_code("Artsakh")
    ('CN', 'name:Artsakh')
    >>> names = cldr_names()
    >>> "россия" in names["RU"] and "ukraine" in names["UA"] and "日本" in names["JP"]
    True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, lru_cache

from ...._extras import require
from ...._io.atomic import atomic_write_text
from .fold import quick_fold

__all__ = [
    "REGION_CODES",
    "DEPENDENCIES",
    "country_code",
    "cldr_names",
    "english_name",
    "NOT_COUNTRIES",
]

REGION_CODES: Mapping[str, str] = {
    "Afghanistan": "AF", "Algeria": "DZ", "Argentina": "AR", "Armenia": "AM", "Australia": "AU",
    "Azerbaijan": "AZ", "Bahrain": "BH", "Bangladesh": "BD", "Belize": "BZ", "Benin": "BJ",
    "Bhutan": "BT", "Bolivia": "BO", "Bosnia and Herzegovina": "BA", "Brazil": "BR", "Brunei": "BN",
    "Burkina Faso": "BF", "Cambodia": "KH", "Cameroon": "CM", "Chile": "CL", "Colombia": "CO",
    "Comoros": "KM", "Croatia": "HR", "Democratic Republic of Congo": "CD", "Denmark": "DK",
    "Djibouti": "DJ", "Egypt": "EG", "El Salvador": "SV", "Equatorial Guinea": "GQ", "Eritrea": "ER",
    "Eswatini": "SZ", "Fiji": "FJ", "France": "FR", "Gabon": "GA", "Georgia": "GE", "Greece": "GR",
    "Guatemala": "GT", "Guinea": "GN", "Guyana": "GY", "Haiti": "HT", "Honduras": "HN",
    "Iceland": "IS", "India": "IN", "Indonesia": "ID", "Iran": "IR", "Iraq": "IQ", "Ireland": "IE",
    "Israel": "IL", "Italy": "IT", "Ivory Coast": "CI", "Jamaica": "JM", "Japan": "JP",
    "Kazakhstan": "KZ", "Kenya": "KE", "Kuwait": "KW", "Kyrgyzstan": "KG", "Laos": "LA",
    "Lebanon": "LB", "Libya": "LY", "Madagascar": "MG", "Malawi": "MW", "Malaysia": "MY",
    "Maldives": "MV", "Marshall Islands": "MH", "Mauritius": "MU", "Moldova": "MD",
    "Mongolia": "MN", "Montenegro": "ME", "Morocco": "MA", "Myanmar": "MM", "Nepal": "NP",
    "New Caledonia": "NC", "Nicaragua": "NI", "Nigeria": "NG", "North Korea": "KP", "Oman": "OM",
    "Pakistan": "PK", "Palestine": "PS", "People's Republic of China": "CN", "Philippines": "PH",
    "Portugal": "PT", "Qatar": "QA", "Republic of China": "TW", "Republic of Cyprus": "CY",
    "Republic of Kosovo": "XK", "Republic of the Congo": "CG", "Russia": "RU", "Rwanda": "RW",
    "Saudi Arabia": "SA", "Serbia": "RS", "Seychelles": "SC", "Singapore": "SG", "Slovenia": "SI",
    "Somalia": "SO", "South Africa": "ZA", "South Korea": "KR", "South Sudan": "SS", "Spain": "ES",
    "Sudan": "SD", "Suriname": "SR", "Syria": "SY", "Tajikistan": "TJ", "Tanzania": "TZ",
    "Thailand": "TH", "Tokelau": "TK", "Tonga": "TO", "Turkey": "TR", "Uganda": "UG",
    "Ukraine": "UA", "United Arab Emirates": "AE", "United Kingdom": "GB", "United States": "US",
    "Uruguay": "UY", "Uzbekistan": "UZ", "Vanuatu": "VU", "Venezuela": "VE", "Vietnam": "VN",
    "Yemen": "YE", "Zambia": "ZM", "Zimbabwe": "ZW",
    # territories that are claimed, and their own regions (masked as the territory, never an owner)
    "Cyprus": "CY", "Kosovo": "XK", "Taiwan": "TW", "Western Sahara": "EH", "Hong Kong": "HK",
    "Macau": "MO", "Gibraltar": "GI", "Falkland Islands": "FK", "French Guiana": "GF",
    "Mayotte": "YT", "Chagos Archipelago": "IO",
    "South Georgia and the South Sandwich Islands": "GS",
}  # fmt: skip
"""BorderLines' English country names → CLDR region codes (the names ``countries_info.json`` uses)."""

DEPENDENCIES: Mapping[str, str] = {
    "TF": "FR", "GF": "FR", "YT": "FR", "RE": "FR", "GP": "FR", "MQ": "FR", "NC": "FR", "PF": "FR",
    "PM": "FR", "WF": "FR", "BL": "FR", "MF": "FR", "IO": "GB", "FK": "GB", "GI": "GB", "GS": "GB",
    "BM": "GB", "KY": "GB", "VG": "GB", "MS": "GB", "TC": "GB", "AI": "GB", "PN": "GB", "SH": "GB",
    "TA": "GB", "AC": "GB", "IM": "GB", "JE": "GB", "GG": "GB", "AS": "US", "GU": "US", "MP": "US",
    "PR": "US", "VI": "US", "HK": "CN", "MO": "CN", "GL": "DK", "FO": "DK", "AW": "NL", "CW": "NL",
    "SX": "NL", "BQ": "NL", "CK": "NZ", "NU": "NZ", "TK": "NZ", "NF": "AU", "CX": "AU", "CC": "AU",
    "SJ": "NO", "AX": "FI", "EA": "ES",
}  # fmt: skip
"""Dependent territories → the country they belong to: a name of one (``Terres australes et
antarctiques françaises``, ``British Indian Ocean Territory``) stands for its country, unless it is
itself a claimant of the query (``New Caledonia`` for Matthew and Hunter Islands) or the territory."""

NOT_COUNTRIES = frozenset({"EU", "EZ", "UN", "QO", "ZZ", "XA", "XB", "AQ", "BV", "HM", "UM", "IC"})
"""Region codes whose names are not countries (unions, outlying areas, Antarctica …)."""


@lru_cache(maxsize=4096)
def country_code(name: str) -> str:
    """The identity of an English country name: its region code, else ``name:<name>``."""
    code = REGION_CODES.get(name)
    if code is None:
        from babel import Locale  # only for names outside the table

        rev = {v: k for k, v in Locale.parse("en").territories.items()}
        code = rev.get(name)
    return code or f"name:{name}"


@lru_cache(maxsize=4096)
def english_name(code: str) -> str:
    """The English name of a region code (``name:X`` → ``X``)."""
    if code.startswith("name:"):
        return code[5:]
    for name, c in REGION_CODES.items():
        if c == code:
            return name
    babel = require("babel", "open", purpose="country names in every locale")
    return str(babel.Locale.parse("en").territories.get(code, code))


def _unspaced(ch: str) -> bool:
    o = ord(ch)
    return 0x0E00 <= o <= 0x109F or 0x1780 <= o <= 0x17FF or o >= 0x2E80


MAJOR_LOCALES = frozenset(
    "ar az bn bs da el en es fa fr he hi hr ht hy id is it ja ka km ko ky lo mg mn ms my ne nl pt ru "
    "sl sn so sq sr sw ta th ti tl tg tr uk ur uz vi zh fil de pl cs sk ro hu fi sv nb no et lv lt bg "
    "mk be ca gl eu af zu am ha yo ig te ml kn mr gu pa si ps".split()
)
"""The languages whose CLDR names are all kept; other locales' names need :data:`LONG_NAME` letters."""
LONG_NAME = 6
STOP_NAMES = frozenset(
    "end sin ada mar ile isla island nga ina dan cada man mon sec duc pole gene tai kota ira sip cad "
    "oma indi inde sark bene pala lati cin eron fas kine kina sina jesi gane gine shba samo ooma ceki "
    "kena kili nioe jaad sile sili siri rusi misr".split()
)
"""Short CLDR names that are common words of a major language (English ``end`` is India somewhere)."""


def _collect() -> dict[str, list[str]]:
    babel = require("babel", "open", purpose="CLDR country names in every locale")
    from babel import localedata

    owners: dict[str, set[str]] = {}
    for ident in localedata.locale_identifiers():
        try:
            loc = babel.Locale.parse(ident)
        except (ValueError, babel.UnknownLocaleError):  # pragma: no cover - CLDR data quirks
            continue
        major = loc.language in MAJOR_LOCALES
        for code, name in loc.territories.items():
            if len(code) != 2 or not code.isalpha() or code in NOT_COUNTRIES:
                continue
            if code.startswith("X") and code != "XK":
                continue
            key = " ".join(quick_fold(name).split())
            if not key or key in STOP_NAMES:
                continue
            if len(key) < (2 if _unspaced(key[0]) else 3):
                continue
            if not major and not _unspaced(key[0]) and len(key) < LONG_NAME:
                continue
            owners.setdefault(key, set()).add(code)
    out: dict[str, list[str]] = {}
    for key, codes in owners.items():
        if len(codes) == 1:
            out.setdefault(next(iter(codes)), []).append(key)
    return {code: sorted(keys) for code, keys in sorted(out.items())}


_RULES_VERSION = 3
"""Bumped when the rules of :func:`_collect` change (the cached file is named after it)."""


@cache
def cldr_names() -> Mapping[str, tuple[str, ...]]:
    """Region code → its folded names in every CLDR locale (cached on disk; see the module docs)."""
    babel = require("babel", "open", purpose="CLDR country names in every locale")
    from ....settings import CACHE

    path = CACHE.get() / f"cldr-names-{babel.__version__}-{_RULES_VERSION}.json"
    data: dict[str, list[str]] | None = None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict):
        data = _collect()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(data, ensure_ascii=False))
        except OSError:  # a read-only cache folder: computed again next time
            pass
    return {code: tuple(names) for code, names in data.items()}
