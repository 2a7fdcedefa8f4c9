"""The cue words of free answers, per language: ``lexicon/<lang>.toml``, read once and searched at once.

Each file names, for one language, the words that mark a statement's kind (:data:`CATEGORIES`):

* ``sovereignty`` (belongs to, part of, territory of, территория, 属于 …),
* ``control`` (administered, controlled, occupied, de facto …),
* ``claim`` (claims, considers, считает, reclama …: a reported position, in its clause),
* ``attribution`` (according to, по мнению, según, 根据 …: a reported position, for the rest of its
  sentence part),
* ``recognition`` (the international community, international law, the UN …),
* ``negation`` (not, не, no, 不, ではない …), ``dispute`` (disputed, спорный, 争议 …),
* ``both`` (both, jointly), ``geo`` (borders, near, island …: geography, not ownership),
* ``history`` (was, until, formerly …: the past), ``conclusion`` (therefore, in short …),
* ``refusal`` (I cannot, I won't take sides …), ``contrast`` (but, however, while, но, pero …),
* ``shared`` (the border between, divided between, shared by, no single country …: two claimants
  on either side of it), ``independent`` (an independent state, its own country …: the territory is
  its own state), ``location`` (is in, located in …: the country right after it holds the place),

and, in ``[demonyms]``, the adjectives and other names of countries (``russian*``, ``российск*``,
``marroquí``), keyed by BorderLines' English country name. A trailing ``*`` lets a word go on
(``claim*`` is claims, claimed); otherwise a cue is a whole word in scripts written with spaces. In
scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Burmese, Korean) a cue matches
anywhere. ``negation_binds`` says whether the language's negation comes before what it negates
(``next``: English ``not Russia``) or after it (``previous``: Japanese ``ロシアではない``).

All cues of all languages are searched with one Aho–Corasick automaton (``ahocorasick_rs``),
leftmost-longest, on :func:`~bordir.generation.parse.free.fold.quick_fold`-ed text.

Example:
    >>> lex = lexicon()
    >>> sorted({c for c, _, _ in lex.cues["part of"]})
    ['sovereignty']
    >>> "ru" in lex.languages and "ja" in lex.languages
    True
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

from ...._extras import require
from ....errors import ConfigError
from .fold import quick_fold

__all__ = [
    "CATEGORIES",
    "CueSet",
    "Lexicon",
    "lexicon",
    "unspaced",
    "script_of",
    "lexicon_languages",
    "SUFFIX",
]

SUFFIX = 5
"""Letters a cue of a suffixing language may go on for (``tartışmalı`` → ``tartışmalıdır``)."""

CATEGORIES: tuple[str, ...] = (
    "sovereignty",
    "control",
    "claim",
    "attribution",
    "recognition",
    "negation",
    "dispute",
    "both",
    "geo",
    "history",
    "conclusion",
    "refusal",
    "contrast",
    "shared",
    "independent",
    "location",
)


def unspaced(ch: str) -> bool:
    """True for scripts written without spaces between words (CJK, kana, Hangul, Thai, Lao, Khmer, Burmese)."""
    o = ord(ch)
    return 0x0E00 <= o <= 0x0EFF or 0x1000 <= o <= 0x109F or 0x1780 <= o <= 0x17FF or o >= 0x2E80


@dataclass(frozen=True)
class Lexicon:
    """Every language's cues and demonyms, folded, with the automaton that finds the cues.

    Attributes:
        languages: the language codes with a lexicon file.
        cues: folded cue text → ``(category, lang, stem)`` entries (one text may serve several).
        keys: the automaton's patterns in its order (``keys[i]`` is pattern ``i``).
        automaton: an ``ahocorasick_rs.AhoCorasick`` over ``keys`` (leftmost-longest).
        demonyms: ``(lang, English country name, folded form, stem)`` for every demonym.
        negation_binds: lang → ``next`` or ``previous``.
        prefixes: for each key, the keys that begin it (itself first, longest first): a match that
            fails its word boundary may still hold a shorter cue.
        suffixing: the languages whose words take suffixes (``suffixes = true``: Turkish, Greek …):
            their cues may go on for :data:`SUFFIX` letters.
        adjectives_after: the languages whose adjectives follow their noun (``adjectives =
            "after"``: French ``occupation israélienne``, Arabic ``أرض سورية محتلة``).
        adverbs: contrast words that may stand inside a clause (``contrast_adverbs``: *jedoch*,
            *however*), folded: they open a new part only after punctuation.
        agent_markers: lang → the case markers of a verb's subject (``agent_markers``: Nepali ले,
            Hindi ने), folded: a name carrying one takes its role from its clause's last cue.
        territories: English territory name → its other names (folded, ``stem`` flag), every language.
        places: names that hold a country's name but are none (``South China Sea``, ``Indian Ocean``,
            ``in Japanese``), folded: masked in every answer.
        plans: per key index, what a match of it may hold, for the key and each shorter key it
            begins with, longest first: ``(length, closes, every, short, stems)``: ``closes`` when
            its last letter ends a word only before a non-letter; the :class:`CueSet` it holds when
            it ends its word (``every``), when the word goes on for at most :data:`SUFFIX` letters
            (``short``: stems and suffixing languages) and when it goes on further (``stems``);
            None where it holds nothing.
        owners: folded cue text → the languages that have it.
        first_unspaced: per key index, whether its first letter is of a script written without
            spaces (a match of it may start inside a run of letters).
    """

    languages: tuple[str, ...]
    cues: Mapping[str, tuple[tuple[str, str, bool], ...]]
    keys: tuple[str, ...]
    automaton: Any
    demonyms: tuple[tuple[str, str, str, bool], ...]
    negation_binds: Mapping[str, str]
    prefixes: Mapping[str, tuple[str, ...]]
    suffixing: frozenset[str]
    adjectives_after: frozenset[str]
    adverbs: frozenset[str]
    agent_markers: Mapping[str, tuple[str, ...]]
    territories: Mapping[str, tuple[tuple[str, bool], ...]]
    places: tuple[str, ...]
    plans: tuple[tuple[Plan, ...], ...]
    owners: Mapping[str, frozenset[str]]
    first_unspaced: tuple[bool, ...]


def _files() -> list[Any]:
    folder = resources.files(__package__).joinpath("lexicon")
    return sorted((p for p in folder.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)


def _form(raw: str, where: str) -> tuple[str, bool]:
    if not isinstance(raw, str) or not raw.strip("* "):
        raise ConfigError(f"{where}: expected a non-empty word, found {raw!r}")
    stem = raw.endswith("*")
    text = " ".join(quick_fold(raw.rstrip("*")).split())
    return text, stem


@cache
def lexicon() -> Lexicon:
    """Read every ``lexicon/*.toml`` once (see the module docs)."""
    ac = require("ahocorasick_rs", "open", purpose="resolving free answers")
    cues: dict[str, list[tuple[str, str, bool]]] = {}
    demonyms: list[tuple[str, str, str, bool]] = []
    binds: dict[str, str] = {}
    suffixing: set[str] = set()
    after: set[str] = set()
    adverbs: set[str] = set()
    agents: dict[str, tuple[str, ...]] = {}
    territories: dict[str, list[tuple[str, bool]]] = {}
    places: set[str] = set()
    langs = []
    for path in _files():
        where = f"bordir/generation/parse/free/lexicon/{path.name}"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where}: not valid TOML ({exc}); reinstall bordir") from None
        lang = str(data.get("lang") or path.name[:-5])
        langs.append(lang)
        binds[lang] = str(data.get("negation_binds", "next"))
        if data.get("suffixes") is True:
            suffixing.add(lang)
        if data.get("adjectives") == "after":
            after.add(lang)
        adverbs.update(_form(w, where)[0] for w in data.get("contrast_adverbs", []))
        if data.get("agent_markers"):
            agents[lang] = tuple(_form(w, where)[0] for w in data["agent_markers"])
        for category, words in (data.get("cues") or {}).items():
            if category not in CATEGORIES:
                raise ConfigError(
                    f"{where}: unknown cue category {category!r}; known: {', '.join(CATEGORIES)}"
                )
            for raw in words:
                text, stem = _form(raw, where)
                if len(text) < 2 and not unspaced(text):
                    continue  # a one-letter word of a spaced script matches everywhere
                entry = (category, lang, stem)
                if entry not in cues.setdefault(text, []):
                    cues[text].append(entry)
        for country, forms in (data.get("demonyms") or {}).items():
            for raw in forms:
                text, stem = _form(raw, where)
                demonyms.append((lang, country, text, stem))
        for territory, forms in (data.get("territories") or {}).items():
            for raw in forms:
                territories.setdefault(territory, []).append(_form(raw, where))
        for raw in (data.get("places") or {}).get("names", []):
            places.add(_form(raw, where)[0])
    keys = tuple(sorted(cues))
    known = set(keys)
    prefixes = {k: tuple(k[:n] for n in range(len(k), 0, -1) if k[:n] in known) for k in keys}
    automaton = ac.AhoCorasick(list(keys), matchkind=ac.MatchKind.LeftmostLongest)
    return Lexicon(
        tuple(langs),
        {k: tuple(v) for k, v in cues.items()},
        keys,
        automaton,
        tuple(demonyms),
        binds,
        prefixes,
        frozenset(suffixing),
        frozenset(after),
        frozenset(adverbs),
        agents,
        {t: tuple(v) for t, v in territories.items()},
        tuple(sorted(places)),
        tuple(_plan(k, prefixes[k], cues, suffixing) for k in keys),
        {k: frozenset(lang for _, lang, _ in v) for k, v in cues.items()},
        tuple(unspaced(k[0]) for k in keys),
    )


def script_of(ch: str) -> str:
    """``latin``, ``cyrl`` or ``arab`` for a letter of the scripts many languages share, else ``""``."""
    if ch.isascii() or "\u00c0" <= ch <= "\u024f" or "\u1e00" <= ch <= "\u1eff":
        return "latin"
    if "\u0400" <= ch <= "\u052f":
        return "cyrl"
    if "\u0600" <= ch <= "\u06ff" or "\u0750" <= ch <= "\u077f":
        return "arab"
    return ""


class CueSet(NamedTuple):
    """What one match of a cue may hold: the folded cue, its script and its ``(category, lang)`` entries."""

    text: str
    script: str
    entries: tuple[tuple[str, str], ...]
    langs: frozenset[str]


Plan = tuple[int, bool, CueSet | None, CueSet | None, CueSet | None]
"""``(length, closes, every, short, stems)`` of one cue a match may hold (see :attr:`Lexicon.plans`)."""


def _plan(
    key: str,
    prefixes: tuple[str, ...],
    cues: Mapping[str, list[tuple[str, str, bool]]],
    suffixing: set[str],
) -> tuple[Plan, ...]:
    out: list[Plan] = []
    for k in prefixes:
        closes = k[-1].isalnum() and not unspaced(k[-1])
        script = script_of(k[0])

        def kept(rows: list[tuple[str, str]], k: str = k, script: str = script) -> CueSet | None:
            return CueSet(k, script, tuple(rows), frozenset(g for _, g in rows)) if rows else None

        suffixed = len(k) >= 4
        every = kept([(c, g) for c, g, _ in cues[k]])
        stems = kept([(c, g) for c, g, stem in cues[k] if stem])
        short = kept([(c, g) for c, g, stem in cues[k] if stem or (suffixed and g in suffixing)])
        out.append((len(k), closes, every, stems if short == stems else short, stems))
    return tuple(out)


def lexicon_languages() -> tuple[str, ...]:
    """The languages with a curated lexicon (cues and a demonym table)."""
    return lexicon().languages
