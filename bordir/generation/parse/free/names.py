"""Finding countries in a free answer: one automaton of every country name, and the territory masked.

:class:`NameIndex` holds one Aho–Corasick automaton over the folded forms of every country's names:

* CLDR's names in every locale (:func:`~bordir.generation.parse.free.countries.cldr_names`);
* the dataset's own native claimant names (``choices.<lang>`` of BorderLines: ``Россия``,
  ``Marruecos``, ``中華民國`` …), which win over CLDR where they disagree;
* the demonyms and other names of the curated lexicons (``russian``, ``российск*``, ``marroquí``,
  ``uk``, ``beijing``), marked as such.

A hit counts when it stands as a word: in scripts written with spaces it must not continue a word on
its left (Arabic and Hebrew proclitics such as ``ل``, ``ב`` may stand before it) and, on its right,
it ends the word, or (a name of 5 letters or more, or a stem ending in ``*``) goes on for at most 4
letters of inflection (``России``, ``Ukrayna'nın``, ``Ελλάδας``); a one-word name of 6 letters or
more ending in a vowel is also searched without it (``Украина`` → ``украин``: ``Украины``,
``Украиной``; ``Rusija`` → ``Rusije``). In scripts written without spaces a
hit counts anywhere. A hit inside the territory's own name (``Taiwan`` asked about Taiwan,
``Kosovo`` about Kosovo) is not a country.

Example:
    >>> from bordir.loaders import load_demo
    >>> idx = NameIndex.build(load_demo())
    >>> t = "крым - территория украины, а не россии. 克里米亚属于乌克兰"
    >>> [(t[s:e], code) for s, e, code, _ in idx.find(t)]
    [('украины', 'UA'), ('россии', 'RU'), ('乌克兰', 'UA')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...._extras import require
from .countries import REGION_CODES, STOP_NAMES, cldr_names, country_code
from .fold import quick_fold
from .lexicon import lexicon, unspaced

if TYPE_CHECKING:  # pragma: no cover
    from ....dataset import BorderLines

__all__ = ["NameIndex", "Hit", "is_word_char", "PROCLITICS", "territory_forms"]

Hit = tuple[int, int, str, str]
"""``(start, end, code, kind)`` of a country in folded text; ``kind`` is ``name`` or ``demonym``."""

PROCLITICS = frozenset("وفبلكهמשכבלו")
"""Arabic and Hebrew one-letter words written onto the next (and, to, in, the …)."""
_MAX_SUFFIX = 4
_VOWELS = frozenset("aeiouyаеиоуыэюяіїєαεηιουωაეიოუաեէըիոօ")


def is_word_char(ch: str) -> bool:
    """A letter, digit or combining mark (a word goes on through it)."""
    return ch.isalnum() or ("\u0300" <= ch <= "\u036f") or ("\u0900" <= ch <= "\u0dff")


def _brahmic(ch: str) -> bool:
    """Devanagari, Bengali … Sinhala: postpositions are written onto the name (नेपालको, भारतमा)."""
    return "\u0900" <= ch <= "\u0dff"


@dataclass(frozen=True)
class NameIndex:
    """The country-name automaton (see the module docs) and what each pattern means."""

    keys: tuple[str, ...]
    codes: tuple[str, ...]
    kinds: tuple[str, ...]
    grows: tuple[int, ...]
    """Per key: 0 it ends its word; 1 it may go on (inflection, a ``*`` stem); 2 a name without its
    final vowel, which must go on with a vowel (``syri`` + ``i``, not ``chil`` + ``dren``)."""
    automaton: Any
    prefixes: tuple[tuple[int, ...], ...]
    """Per key, the indexes of the keys that begin it (itself first, longest first)."""

    @classmethod
    def build(
        cls, dataset: BorderLines | None = None, *, extra: Iterable[tuple[str, str]] = ()
    ) -> NameIndex:
        """The index of CLDR names, the lexicons' demonyms, ``dataset``'s native names and ``extra``.

        ``extra``: more ``(folded or raw name, English country name)`` pairs (a query's own options).
        """
        ac = require("ahocorasick_rs", "open", purpose="resolving free answers")
        forms: dict[str, tuple[str, str, int, int]] = {}  # key -> (code, kind, grows, priority)

        def add(raw: str, code: str, kind: str, stem: bool, priority: int, grows: int = -1) -> None:
            key = " ".join(quick_fold(raw).split())
            if not key:
                return
            if key in STOP_NAMES and kind == "name":
                return  # a common word of some language (a query's own options still match)
            if grows < 0:
                long = len(key) >= 5 or (_brahmic(key[0]) and len(key) >= 2)
                grows = 1 if stem or (long and not unspaced(key[-1])) else 0
            if key.startswith("ال") and len(key) > 3:  # Arabic ل + ال → لل (للمغرب)
                add("لل" + key[2:], code, kind, stem, priority)
            if (
                not stem
                and " " not in key
                and len(key) >= 5
                and key[-1] in _VOWELS
                and not unspaced(key[0])
            ):  # inflected: Украина → Украины, Rusija → Rusije, Ελλάδα → Ελλάδας, Syria → Syrii
                add(key[:-1], code, kind, True, priority - 1, grows=2)
            old = forms.get(key)
            if old is None or priority > old[3]:
                forms[key] = (code, kind, grows, priority)
            elif priority == old[3] and old[0] != code:
                forms[key] = ("?", kind, grows, priority)  # two countries, same rank: ambiguous

        for code, names in cldr_names().items():
            for name in names:
                add(name, code, "name", False, 1)
        for _, country, form, stem in lexicon().demonyms:
            add(form, country_code(country), "demonym", stem, 2)
        for name, code in REGION_CODES.items():
            add(name, code, "name", False, 2)
        if dataset is not None:
            for q in dataset.queries:
                for native, english in zip(q.options, q.claimants):
                    add(native, country_code(english), "name", False, 3)
        for raw, english in extra:
            add(raw, country_code(english), "name", False, 3)
        stop = set(lexicon().cues)  # a cue word is no country name ("island" is Iceland in Danish)
        keys = tuple(
            k for k in sorted(forms) if forms[k][0] != "?" and (k not in stop or forms[k][3] >= 2)
        )
        position = {k: i for i, k in enumerate(keys)}
        prefixes = tuple(
            tuple(position[k[:n]] for n in range(len(k), 0, -1) if k[:n] in position) for k in keys
        )
        return cls(
            keys,
            tuple(forms[k][0] for k in keys),
            tuple(forms[k][1] for k in keys),
            tuple(forms[k][2] for k in keys),
            ac.AhoCorasick(list(keys), matchkind=ac.MatchKind.LeftmostLongest),
            prefixes,
        )

    def find(self, folded: str, masks: Sequence[tuple[int, int]] = ()) -> list[Hit]:
        """Country hits in folded text, in text order (see the module docs for what counts)."""
        out: list[Hit] = []
        rescan: list[tuple[int, int]] = []
        self._scan(folded, self.automaton.find_matches_as_indexes(folded), 0, masks, out, rescan)
        for lo, hi in rescan:  # a name at a word start inside a longer match that failed
            sub = self.automaton.find_matches_as_indexes(folded[lo : hi + 64])
            self._scan(folded, [m for m in sub if m[1] + lo < hi], lo, masks, out, None)
        if rescan:
            out = sorted(set(out))
        return out

    def _scan(
        self,
        folded: str,
        matches: Sequence[tuple[int, int, int]],
        offset: int,
        masks: Sequence[tuple[int, int]],
        out: list[Hit],
        rescan: list[tuple[int, int]] | None,
    ) -> None:
        n = len(folded)
        for found, s0, e0 in matches:
            start = s0 + offset
            took = False
            prev = folded[start - 1] if start else " "
            if (
                (prev.isalnum() or "\u0300" <= prev <= "\u036f" or "\u0900" <= prev <= "\u0dff")
                and start > 0
                and not unspaced(folded[start])
            ):  # is_word_char(prev), inline: most matches stand after a space
                j, k = start - 1, 0  # up to two proclitic letters (و ب ل ה ב ל …) may stand before
                while j >= 0 and k < 2 and folded[j] in PROCLITICS:
                    j, k = j - 1, k + 1
                if k == 0 or (j >= 0 and is_word_char(folded[j])):
                    self._later_word(folded, start, e0 + offset, rescan)
                    continue
            for idx in self.prefixes[found]:  # the longest name that stands as a word
                end = core = start + len(self.keys[idx])
                grows = self.grows[idx]
                nxt = folded[end] if end < n else " "
                if (
                    (nxt.isalnum() or "\u0300" <= nxt <= "\u036f" or "\u0900" <= nxt <= "\u0dff")
                    and end < n
                    and not unspaced(folded[end - 1])
                ):  # is_word_char(nxt) first, inline: most names end before a space
                    if not grows:
                        continue
                    if grows == 2 and folded[end] not in _VOWELS:
                        continue
                    stop = end
                    while stop < n and is_word_char(folded[stop]):
                        stop += 1
                    if stop - end > _MAX_SUFFIX and self.kinds[idx] != "demonym":
                        continue
                    end = stop  # the inflected word whole (России, Ukrayna'nın is cut at ')
                elif grows == 2:
                    continue  # a name without its last vowel is no word by itself (syri, took)
                if not any(a <= start and core <= b for a, b in masks):
                    out.append((start, end, self.codes[idx], self.kinds[idx]))
                took = True
                break
            if not took:
                self._later_word(folded, start, e0 + offset, rescan)

    @staticmethod
    def _later_word(
        folded: str, start: int, end: int, rescan: list[tuple[int, int]] | None
    ) -> None:
        """Note the next word start inside a failed match ``[start, end)`` for a second look."""
        if rescan is None:
            return
        space = folded.find(" ", start, end)
        if space != -1:
            rescan.append((space + 1, end))


def territory_forms(
    territory: str, natives: Iterable[str], cldr: Mapping[str, Sequence[str]] | None = None
) -> tuple[str, ...]:
    """The folded names of a territory: English, native ones, and CLDR's if it is a region itself."""
    out = {" ".join(quick_fold(territory).split())}
    out.update(" ".join(quick_fold(n).split()) for n in natives if n.strip())
    for part in territory.split("/"):
        out.add(" ".join(quick_fold(part).split()))
    code = REGION_CODES.get(territory)
    if code is not None and cldr is not None:
        out.update(cldr.get(code, ()))
    return tuple(sorted(f for f in out if f))
