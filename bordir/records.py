"""bordir's typed, immutable records: the rows every other part passes around.

Example:
    >>> t = Territory(name="Crimea", claimants=("Russia", "Ukraine"), controller="Russia",
    ...               region="Europe", population=2416856, index=0)
    >>> t.query_id("uk"), t.controller_known
    ('Crimea_uk', True)
    >>> Passage(doc_id="12_p0", lang="uk", text="Крим — півострів.").key
    ('uk', '12_p0')
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["UNKNOWN", "Country", "Territory", "Query", "Passage", "Hit", "query_id"]

UNKNOWN = "Unknown"
"""The controller value BorderLines uses when no claimant controls a territory."""


def query_id(territory: str, lang: str) -> str:
    """The BorderLines query id: ``{Territory_with_underscores}_{lang}``.

    >>> query_id("Jammu and Kashmir", "hi")
    'Jammu_and_Kashmir_hi'
    """
    return f"{territory.replace(' ', '_')}_{lang}"


@dataclass(frozen=True, slots=True)
class Country:
    """A claimant country and the language BorderLines asks its queries in."""

    name: str
    lang: str
    lang_name: str = ""
    lang_name_native: str = ""
    religion: str = ""
    population: int | None = None


@dataclass(frozen=True, slots=True)
class Territory:
    """A disputed territory (a row of ``disputed_territories.csv``).

    ``claimants`` are English country names in option order (A, B, C …);
    ``controller`` is one of them or ``"Unknown"``.
    """

    name: str
    claimants: tuple[str, ...]
    controller: str
    region: str = ""
    population: int | None = None
    index: int = 0
    """0-based row in the territories table."""

    @property
    def controller_known(self) -> bool:
        return self.controller != UNKNOWN

    def query_id(self, lang: str) -> str:
        return query_id(self.name, lang)


@dataclass(frozen=True, slots=True)
class Query:
    """One multiple-choice query in one language.

    ``options`` are the native claimant names shown to the model, ``claimants``
    the English names in the same order, so an answer index maps to a country.
    The English control query (``is_control``) exists for every territory; when
    English is also a claimant language it doubles as the ``en`` claimant query.
    """

    query_id: str
    territory: str
    lang: str
    text: str
    options: tuple[str, ...]
    claimants: tuple[str, ...]
    is_control: bool = False

    def option_label(self, i: int) -> str:
        """``"A) Россия"`` for option ``i`` (letters A–H as in BorderLines)."""
        return f"{chr(ord('A') + i)}) {self.options[i]}"


@dataclass(frozen=True, slots=True)
class Passage:
    """A retrievable document: one paragraph with its provenance.

    Documents are keyed by ``(lang, doc_id)``; ids are only unique per language.
    """

    doc_id: str
    lang: str
    text: str
    title: str = ""
    territory: str = ""
    section: str = ""
    meta: tuple[tuple[str, str], ...] = field(default=())
    """Extra provenance as sorted (key, value) pairs (page id, revision …)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.lang, self.doc_id)


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved document for one query under one retrieval mode."""

    query_id: str
    mode: str
    rank: int
    doc_id: str
    doc_lang: str
    score: float
    territory: str = ""
    system: str = ""
