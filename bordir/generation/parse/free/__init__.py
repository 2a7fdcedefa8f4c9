"""Free answers resolved to claimants, in any language (the open response format's parser).

* :mod:`~bordir.generation.parse.free.outcome` — the outcomes, rules and :class:`Resolution`;
* :mod:`~bordir.generation.parse.free.resolve` — :class:`FreeResolver` and :func:`resolve_free`;
* :mod:`~bordir.generation.parse.free.analyze` — each country's role;
* :mod:`~bordir.generation.parse.free.parts` — sentences, segments and clauses;
* :mod:`~bordir.generation.parse.free.agency` — whom a cue word speaks for;
* :mod:`~bordir.generation.parse.free.mention` — a named country and its role;
* :mod:`~bordir.generation.parse.free.names` — the country-name automaton (CLDR, dataset, demonyms);
* :mod:`~bordir.generation.parse.free.countries` — region codes and CLDR's names in every locale;
* :mod:`~bordir.generation.parse.free.lexicon` — the cue words per language (``lexicon/*.toml``);
* :mod:`~bordir.generation.parse.free.fold` — the fast matching key;
* :mod:`~bordir.generation.parse.free.batch` — many answers at once, in worker processes;
* :mod:`~bordir.generation.parse.free.reader` — the optional LLM stance reader (a second pass).

Needs ``babel`` and ``ahocorasick_rs`` (``pip install 'bordir[open]'``), imported on use.
"""

from __future__ import annotations

from .outcome import FREE_OUTCOMES, RULES, FreeOutcome, Resolution
from .resolve import FreeResolver, resolve_free, resolver_for

__all__ = [
    "FREE_OUTCOMES",
    "RULES",
    "FreeOutcome",
    "Resolution",
    "FreeResolver",
    "resolve_free",
    "resolver_for",
]
