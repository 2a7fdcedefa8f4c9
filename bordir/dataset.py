"""The BorderLines dataset as typed records: territories, countries, queries.

All loaders (repository files, the hub, the bundled demo) return a
:class:`BorderLines`, so the rest of bordir does not care where data came from.

Example:
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> ds.territory("Crimea").claimants
    ('Russia', 'Ukraine')
    >>> ds.claimant_langs("Crimea")
    ('ru', 'uk')
    >>> ds.query("Crimea_uk").options
    ('Росія', 'Україна')
"""

from __future__ import annotations

import difflib
import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, TypeVar

from . import languages
from ._version import __version__
from .errors import ConfigError, DataError
from .records import Country, Query, Territory

__all__ = ["BorderLines"]

_T = TypeVar("_T")


def _freeze(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True, eq=False)
class BorderLines:
    """A loaded BorderLines-format dataset.

    Attributes:
        name: dataset id (``borderlines``, ``demo`` …).
        territories: in table order.
        countries: English name → :class:`Country`.
        queries: control queries first (one per territory), then the other
            languages sorted by code. The ``en`` claimant queries *are* the control
            queries and are counted once.
        warnings: data defects found while loading (missing countries …), each
            naming what is affected.
        repairs: fixes applied to the source files (empty unless asked for).
        source: where the data was read from.
    """

    name: str
    territories: tuple[Territory, ...]
    countries: Mapping[str, Country]
    queries: tuple[Query, ...]
    warnings: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()
    source: str = ""
    _extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "countries", _freeze(self.countries))

    # --- lookups -----------------------------------------------------------
    @cached_property
    def _territory_index(self) -> dict[str, Territory]:
        return {t.name: t for t in self.territories}

    @cached_property
    def _query_index(self) -> dict[str, Query]:
        return {q.query_id: q for q in self.queries}

    def territory(self, name: str) -> Territory:
        """The territory called ``name``; the error suggests close names."""
        return self._lookup(self._territory_index, name, "territory")

    def query(self, query_id: str) -> Query:
        """The query with id ``query_id`` (``Crimea_uk``, ``Crimea_en`` …)."""
        return self._lookup(self._query_index, query_id, "query")

    def _lookup(self, index: Mapping[str, _T], key: str, what: str) -> _T:
        """``index[key]``, or a :class:`ConfigError` naming ``what`` is missing and suggesting close keys."""
        try:
            return index[key]
        except KeyError:
            close = difflib.get_close_matches(key, index, n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ConfigError(f"{self.name} has no {what} {key!r}{hint}") from None

    def find_query(self, query_id: str) -> Query | None:
        """The query with id ``query_id``, or None."""
        return self._query_index.get(query_id)

    def queries_for(self, territory: str) -> tuple[Query, ...]:
        """The control query and every claimant-language query of ``territory``."""
        self.territory(territory)
        return tuple(q for q in self.queries if q.territory == territory)

    def country_lang(self, country: str) -> str:
        """The BorderLines language code of ``country``, or ``""`` if it is not in the table."""
        c = self.countries.get(country)
        return c.lang if c is not None else ""

    def claimant_langs(self, territory: str) -> tuple[str, ...]:
        """Language codes of the claimants of ``territory`` in claimant order, de-duplicated.

        Claimants missing from the countries table contribute nothing.
        """
        out: list[str] = []
        for c in self.territory(territory).claimants:
            code = self.country_lang(c)
            if code and code not in out:
                out.append(code)
        return tuple(out)

    def controller_lang(self, territory: str) -> str:
        """The controller's language code; ``""`` if Unknown or not in the countries table."""
        t = self.territory(territory)
        return self.country_lang(t.controller) if t.controller_known else ""

    # --- summaries ---------------------------------------------------------
    @property
    def query_langs(self) -> tuple[str, ...]:
        """Codes of the query languages present (``en`` included), sorted."""
        return tuple(sorted({q.lang for q in self.queries}))

    def lang_counts(self) -> dict[str, int]:
        """Queries per language, sorted by count (desc) then code.

        ``en`` counts the territories with an English-speaking claimant (their
        claimant query is the control query), as BorderLines does.
        """
        counts: Counter[str] = Counter()
        for q in self.queries:
            if not q.is_control or "en" in self.claimant_langs(q.territory):
                counts[q.lang] += 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def content_hash(self) -> str:
        """``sha256-…`` of the territories, countries' languages and queries: the data identity in signatures."""
        h = hashlib.sha256()
        for t in self.territories:
            h.update(repr((t.name, t.claimants, t.controller)).encode())
        for c in sorted(self.countries.values(), key=lambda c: c.name):
            h.update(repr((c.name, c.lang)).encode())
        for q in self.queries:
            h.update(repr((q.query_id, q.text, q.options)).encode())
        return "sha256-" + h.hexdigest()[:16]

    @property
    def signature(self) -> str:
        """``data:<name>|hash:sha256-…|repair:<yes/no>|version:<bordir>``."""
        return (
            f"data:{self.name}|hash:{self.content_hash()}|repair:{'yes' if self.repairs else 'no'}"
            f"|version:{__version__}"
        )

    def info(self) -> dict[str, Any]:
        """Counts that describe the dataset (what ``bordir data info`` prints)."""
        n_control = sum(q.is_control for q in self.queries)
        return {
            "dataset": self.name,
            "source": self.source,
            "territories": len(self.territories),
            "territories_controller_unknown": sum(not t.controller_known for t in self.territories),
            "countries": len(self.countries),
            "queries": len(self.queries),
            "control_queries": n_control,
            "non_english_queries": sum(q.lang != "en" for q in self.queries),
            "query_languages": len(self.query_langs),
            "queries_per_language": self.lang_counts(),
            "warnings": list(self.warnings),
            "repairs": list(self.repairs),
            "signature": self.signature,
        }

    # --- checks ------------------------------------------------------------
    def validate(self) -> None:
        """Check internal consistency; raise :class:`DataError` on the first problem.

        Every query's territory exists and its ``claimants`` equal the territory's;
        it has one option per claimant; every language code (of queries and
        countries) is in the languages registry; query ids are unique.
        """
        reg = languages.registry()
        seen: set[str] = set()
        for q in self.queries:
            where = f"{self.name}: query {q.query_id}"
            if q.query_id in seen:
                raise DataError(
                    f"duplicate query id {q.query_id!r}", path=self.source, field="query_id"
                )
            seen.add(q.query_id)
            reg.get_checked(q.lang, where=where)
            t = self._territory_index.get(q.territory)
            if t is None:
                raise DataError(
                    f"{where}: unknown territory {q.territory!r}",
                    path=self.source,
                    field="territory",
                )
            if q.claimants != t.claimants:
                raise DataError(
                    f"{where}: claimants {q.claimants} differ from the territory's {t.claimants}",
                    path=self.source,
                    field="claimants",
                )
            if len(q.options) != len(t.claimants):
                raise DataError(
                    f"{where}: {len(q.options)} options for {len(t.claimants)} claimants",
                    path=self.source,
                    field="options",
                )
        for c in self.countries.values():
            reg.get_checked(c.lang, where=f"{self.name}: country {c.name}")

    def __repr__(self) -> str:
        return (
            f"BorderLines(name={self.name!r}, territories={len(self.territories)}, "
            f"queries={len(self.queries)}, languages={len(self.query_langs)}, warnings={len(self.warnings)})"
        )
