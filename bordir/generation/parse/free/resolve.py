"""Resolving a free answer to one outcome, with the rule and the span that decided (:class:`FreeResolver`).

1. empty or whitespace → ``empty``;
2. an **echo** — the answer is mostly a copy of its prompt (the instruction, the question, the
   documents: :func:`~bordir.generation.parse.echo.detect_echo`, as for every other format) →
   ``echo``: it is never a claimant, whatever the copied text names. Without the prompt at hand
   (free answers from a file), the open format's own prompt of the query (no documents) stands in;
3. else the countries of the answer get their roles (:mod:`~bordir.generation.parse.free.analyze`)
   and :mod:`~bordir.generation.parse.free.decide` gives the outcome.

A name of a dependent territory stands for its country (``British Indian Ocean Territory`` is the
United Kingdom, :data:`~bordir.generation.parse.free.countries.DEPENDENCIES`), unless it is a
claimant itself; an ``independent`` word (*Kosovo is an independent state*) names the claimant that
is the territory's own state (``Republic of Kosovo``; ``Republic of China`` for Taiwan), when one is.
Negation (``not part of Russia``) and a quoted claim (``Russia claims …``) never endorse.

Example:
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> r = FreeResolver(ds)
    >>> q = ds.query("Crimea_en")
    >>> r.resolve("Crimea is internationally recognized as part of Ukraine, though Russia annexed it in 2014.", q)
    Resolution(outcome='claimant', claimant='Ukraine', index=1, rule='sovereignty', span=(0, 57), evidence='sovereignty: ukraine', country='', reader='')
    >>> r.resolve("Russia claims Crimea.", q).outcome, r.resolve("  ", q).outcome
    ('unparsed', 'empty')
    >>> r.resolve("Крым — не Россия, а Украина.", ds.query("Crimea_ru")).claimant
    'Ukraine'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..echo import PromptParts, detect_echo, may_echo
from .analyze import Mention, analyze
from .countries import DEPENDENCIES, REGION_CODES, cldr_names, country_code
from .cues import Cue, cue_hits
from .decide import decide
from .fold import quick_fold
from .lexicon import lexicon
from .names import Hit, NameIndex, territory_forms
from .outcome import Resolution
from .parts import sentences

if TYPE_CHECKING:  # pragma: no cover
    from ....dataset import BorderLines
    from ....records import Query

__all__ = ["FreeResolver", "resolve_free"]


class FreeResolver:
    """Resolves free answers to BorderLines queries; build once per dataset, then call :meth:`resolve`.

    Args:
        dataset: the dataset the queries come from (its native claimant names and territory names
            are used); None: CLDR names, the lexicons and each query's own options only.
    """

    def __init__(self, dataset: BorderLines | None = None) -> None:
        self.dataset = dataset
        self.index = NameIndex.build(dataset)
        self.lex = lexicon()
        self._keys = frozenset(self.index.keys)
        self._territory_natives: dict[str, set[str]] = {}
        self._names: Any = None
        if dataset is not None:
            from ...open_question import territory_name, territory_names_of

            names = self._names = territory_names_of(dataset)
            for q in dataset.queries:
                try:
                    native = territory_name(q, names=names)
                except Exception:  # noqa: BLE001 - a query off-template only loses a mask
                    continue
                self._territory_natives.setdefault(q.territory, set()).add(native)

    @lru_cache(maxsize=4096)  # noqa: B019 - one resolver lives as long as its dataset
    def _masker(self, territory: str, native: str) -> Any:
        import ahocorasick_rs as ac

        natives = {*self._territory_natives.get(territory, ()), native} - {""}
        aliases = [form for form, _ in self.lex.territories.get(territory, ())]
        forms = territory_forms(territory, [*natives, *aliases], cldr_names()) + self.lex.places
        return ac.AhoCorasick(list(forms), matchkind=ac.MatchKind.LeftmostLongest)

    @lru_cache(maxsize=4096)  # noqa: B019 - one resolver lives as long as its dataset
    def _query_native(self, query: Query) -> str:
        from ...open_question import territory_name

        try:
            return territory_name(query)
        except Exception:  # noqa: BLE001 - off-template: the dataset's other names still mask
            return ""

    def mentions(
        self, text: str, query: Query
    ) -> tuple[str, list[Mention], list[Cue], list[tuple[int, int]]]:
        """The folded answer, its countries with their roles, its cues (in text order), its sentences."""
        return self._mentions(text, self._asked(query))

    def _mentions(
        self, text: str, asked: _Asked
    ) -> tuple[str, list[Mention], list[Cue], list[tuple[int, int]]]:
        folded = quick_fold(text)
        masks = [(s, e) for _, s, e in asked.masker.find_matches_as_indexes(folded)]
        hits = self.index.find(folded, masks)
        extra = _option_hits(folded, asked.options, masks) if asked.options else None
        if extra:
            hits = sorted(hits + extra)
        codes = asked.codes
        hits = [h if h[2] in codes else (h[0], h[1], _stands_for(h[2], codes), h[3]) for h in hits]
        cues = cue_hits(folded, self.lex, asked.prefer, [*masks, *((s, e) for s, e, _, _ in hits)])
        own = asked.own
        if own and any(c.category == "independent" for c in cues):
            hits = sorted([*hits, *_independence(cues, own)])
        spans = sentences(folded)
        lex = self.lex
        ms = analyze(
            folded,
            hits,
            cues,
            lex.negation_binds,
            codes,
            spans,
            masks,
            lex.adjectives_after,
            lex.adverbs,
            asked.agents,
        )
        return folded, ms, cues, spans

    @lru_cache(maxsize=4096)  # noqa: B019 - one resolver lives as long as its dataset
    def _asked(self, query: Query) -> _Asked:
        """What resolving an answer to ``query`` needs, worked out once per query."""
        options = []  # the query's own option names that the index does not know
        for native, english in zip(query.options, query.claimants):
            key = " ".join(quick_fold(native).split())
            if key and key not in self._keys:
                options.append((key, country_code(english)))
        return _Asked(
            masker=self._masker(query.territory, self._query_native(query)),
            codes=self._codes(query.claimants),
            code_list=tuple(country_code(c) for c in query.claimants),
            own=self._own_state(query.territory, query.claimants),
            prefer=(query.lang, "en"),
            agents=self.lex.agent_markers.get(query.lang, ()),
            options=tuple(options),
        )

    @lru_cache(maxsize=4096)  # noqa: B019 - one resolver lives as long as its dataset
    def _own_state(self, territory: str, claimants: tuple[str, ...]) -> str:
        """The code of the claimant that is the territory's own state (Republic of Kosovo), or ``""``."""
        mine = REGION_CODES.get(territory)
        for c in claimants:
            code = country_code(c)
            if code == mine or (len(territory) >= 4 and territory.casefold() in c.casefold()):
                return code
        return ""

    @lru_cache(maxsize=4096)  # noqa: B019 - one resolver lives as long as its dataset
    def _prompt(self, query: Query) -> PromptParts:
        """The open format's prompt of ``query`` without documents (what a free answer may echo)."""
        from ...prompts import render

        try:
            msgs = render(
                query, [], response_format="open", no_ir=True, territory_names=self._names
            )
        except Exception:  # noqa: BLE001 - a query the open format cannot ask: nothing to echo
            return PromptParts()
        return PromptParts.of_messages(msgs)

    @lru_cache(maxsize=4096)  # noqa: B019 - one resolver lives as long as its dataset
    def _codes(self, claimants: tuple[str, ...]) -> frozenset[str]:
        return frozenset(country_code(c) for c in claimants)

    def resolve(
        self, text: str | None, query: Query, *, prompt: PromptParts | None = None
    ) -> Resolution:
        """One free answer to ``query``, resolved (see the module docs).

        ``prompt``: the prompt the answer was given (its documents too); None: the open format's
        prompt of the query without documents.
        """
        if text is None or not str(text).strip():
            return Resolution("empty", rule="empty")
        text = str(text)
        parts = prompt if prompt is not None else self._prompt(query)
        if may_echo(text, parts):
            echo = detect_echo(text, parts)
            if echo.is_echo:
                evidence = echo.evidence()
                return Resolution("echo", rule="echo", span=(0, len(text)), evidence=evidence)
        asked = self._asked(query)
        folded, ms, cues, spans = self._mentions(text, asked)
        return decide(text, folded, ms, cues, asked.code_list, query.claimants, spans)


@dataclass(frozen=True)
class _Asked:
    """What resolving an answer to one query needs (:meth:`FreeResolver._asked`)."""

    masker: Any
    """The automaton of the territory's names (and the places that hold a country's name)."""
    codes: frozenset[str]
    code_list: tuple[str, ...]
    """The claimants' codes, in option order."""
    own: str
    prefer: tuple[str, str]
    agents: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    """The query's own option names the index does not know, folded, with their codes."""


def _option_hits(
    folded: str, options: Sequence[tuple[str, str]], masks: Sequence[tuple[int, int]]
) -> list[Hit]:
    """A query's own option names that the index does not know (a dataset-less resolver)."""
    out: list[Hit] = []
    for key, code in options:
        start = folded.find(key)
        while start != -1:
            end = start + len(key)
            if not any(a <= start and end <= b for a, b in masks):
                out.append((start, end, code, "name"))
            start = folded.find(key, end)
    return out


def _stands_for(code: str, claimants: frozenset[str]) -> str:
    """The country a name stands for.

    A dependency's country; China for a query whose claimant is the Republic of China but not
    the People's Republic (BorderLines names China so there).
    """
    if code == "CN" and "TW" in claimants:
        return "TW"
    return DEPENDENCIES.get(code, code)


def _independence(cues: Sequence[Cue], own: str) -> list[Hit]:
    """An ``independent`` word stands for the territory's own state (a claimant)."""
    return [(c.start, c.end, own, "independent") for c in cues if c.category == "independent"]


@lru_cache(maxsize=8)
def _default(dataset_id: int, dataset: Any) -> FreeResolver:
    return FreeResolver(dataset)


def resolve_free(
    text: str | None, query: Query, *, dataset: BorderLines | None = None
) -> Resolution:
    """Resolve one free answer (a :class:`FreeResolver` per dataset is built once and kept).

    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> resolve_free("It is administered by Japan.", ds.query("Senkaku_Islands_en"), dataset=ds).outcome
    'controller_only'
    """
    return _default(id(dataset), dataset).resolve(text, query)


def resolver_for(dataset: BorderLines | None) -> FreeResolver:
    """The kept :class:`FreeResolver` of ``dataset`` (built on first use)."""
    return _default(id(dataset), dataset)
