"""Resolving a free answer to one outcome, with the rule and the span that decided (:class:`FreeResolver`).

The countries of the answer get their roles (:mod:`~bordir.generation.parse.free.analyze`); then, in
this order:

1. empty or whitespace → ``empty``;
2. the claimants named as owner (roles ``sovereign``, ``recognized``, ``bare``, ``demonym``): one →
   ``claimant``; two or more → ``several`` (``two_owners``), unless a concluding sentence
   (therefore, in short …) names exactly one (``conclusion``);
3. none: a short ``copula`` sentence naming one claimant → ``claimant``;
4. a country that is not a claimant named as owner → ``other_country``;
5. a refusal (I cannot / will not answer, take sides …) → ``refusal``;
6. the territory called disputed, or two claimants' claims given → ``several`` (``disputed``);
7. only control (administered, occupied, de facto …) → ``controller_only``, with the controller when
   one claimant is named so;
8. one side's claim quoted → ``unparsed`` (``claim_only``); a claimant only negated →
   ``unparsed`` (``negation_only``); else ``unparsed`` (``no_country``).

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

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .analyze import Mention, analyze, sentences
from .countries import cldr_names, country_code, english_name
from .cues import Cue, cue_hits
from .fold import original_offset, quick_fold
from .lexicon import lexicon
from .names import NameIndex, territory_forms
from .outcome import Resolution

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
        if dataset is not None:
            from ...open_question import territory_name, territory_names_of

            names = territory_names_of(dataset)
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
        forms = territory_forms(territory, [*natives, *aliases], cldr_names())
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
        folded = quick_fold(text)
        masker = self._masker(query.territory, self._query_native(query))
        masks = [(s, e) for _, s, e in masker.find_matches_as_indexes(folded)]
        hits = self.index.find(folded, masks)
        extra = self._option_hits(folded, query, masks)
        if extra:
            hits = sorted(hits + extra)
        cues = cue_hits(
            folded, self.lex, (query.lang, "en"), [*masks, *((s, e) for s, e, _, _ in hits)]
        )
        codes = self._codes(query.claimants)
        spans = sentences(folded)
        ms = analyze(folded, hits, cues, self.lex.negation_binds, codes, spans)
        return folded, ms, cues, spans

    @lru_cache(maxsize=4096)  # noqa: B019 - one resolver lives as long as its dataset
    def _codes(self, claimants: tuple[str, ...]) -> frozenset[str]:
        return frozenset(country_code(c) for c in claimants)

    def _option_hits(
        self, folded: str, query: Query, masks: Sequence[tuple[int, int]]
    ) -> list[tuple[int, int, str, str]]:
        """A query's own option names that the index does not know (a dataset-less resolver)."""
        out = []
        for native, english in zip(query.options, query.claimants):
            key = " ".join(quick_fold(native).split())
            if not key or key in self._keys:
                continue
            start = folded.find(key)
            while start != -1:
                end = start + len(key)
                if not any(a <= start and end <= b for a, b in masks):
                    out.append((start, end, country_code(english), "name"))
                start = folded.find(key, end)
        return out

    def resolve(self, text: str | None, query: Query) -> Resolution:
        """One free answer to ``query``, resolved (see the module docs)."""
        if text is None or not str(text).strip():
            return Resolution("empty", rule="empty")
        text = str(text)
        folded, ms, cues, spans = self.mentions(text, query)
        codes = [country_code(c) for c in query.claimants]
        return _decide(text, folded, ms, cues, codes, query, spans)


def _span(text: str, folded: str, a: int, b: int) -> tuple[int, int]:
    if len(text) == len(folded):
        return a, b
    return original_offset(text, a), original_offset(text, b)


def _result(
    outcome: str,
    rule: str,
    text: str,
    folded: str,
    m: Mention | None,
    codes: Sequence[str],
    query: Query,
    *,
    country: str = "",
) -> Resolution:
    claimant, index, span, evidence = "", -1, (0, 0), ""
    if m is not None:
        if m.code in codes and outcome in ("claimant", "controller_only"):
            index = codes.index(m.code)
            claimant = query.claimants[index]
        span = _span(text, folded, m.seg_start, m.seg_end)
        evidence = f"{m.cue or m.role}: {folded[m.start : m.end]}"
    return Resolution(
        outcome,  # type: ignore[arg-type]
        claimant=claimant,
        index=index,
        rule=rule,
        span=span,
        evidence=evidence,
        country=country,
    )


_RULE_OF_ROLE = {
    "sovereign": "sovereignty",
    "recognized": "recognition",
    "bare": "bare_name",
    "demonym": "demonym",
}


def _decide(
    text: str,
    folded: str,
    ms: list[Mention],
    cues: list[Cue],
    codes: Sequence[str],
    query: Query,
    spans: Sequence[tuple[int, int]],
) -> Resolution:
    claimants = set(codes)
    strong = [m for m in ms if m.strong and m.code in claimants]
    owners = {m.code for m in strong}

    def res(outcome: str, rule: str, m: Mention | None, **kw: Any) -> Resolution:
        return _result(outcome, rule, text, folded, m, codes, query, **kw)

    hedge = _concluding_hedge(spans, cues, strong)
    if hedge is not None:  # the answer ends by saying it depends / is disputed, after any verdict
        return Resolution(
            "several",
            rule="disputed",
            span=_span(text, folded, hedge.start, hedge.end),
            evidence=f"dispute: {folded[hedge.start : hedge.end]}",
        )
    if len(owners) == 1:
        m = strong[-1] if any(x.conclusion for x in strong) else strong[0]
        return res("claimant", _RULE_OF_ROLE[m.role], m)
    if len(owners) >= 2:
        last = max(m.sentence for m in strong)
        final = [m for m in strong if m.sentence == last and m.conclusion]
        if len({m.code for m in final}) == 1 and not any(m.both for m in final):
            return res("claimant", "conclusion", final[0])
        return res("several", "two_owners", strong[0])
    weak = [m for m in ms if m.role == "copula" and m.code in claimants]
    if len({m.code for m in weak}) == 1:
        return res("claimant", "copula", weak[0])
    others = [m for m in ms if m.strong and m.code not in claimants]
    if others:
        m = others[0]
        return res("other_country", "other_country", m, country=english_name(m.code))
    categories = {c.category for c in cues}
    if "refusal" in categories:
        c = next(c for c in cues if c.category == "refusal")
        return Resolution(
            "refusal",
            rule="refusal",
            span=_span(text, folded, c.start, c.end),
            evidence=f"refusal: {folded[c.start : c.end]}",
        )
    ours = [m for m in ms if m.code in claimants]
    claims = [m for m in ours if m.role == "claimed"]
    claimed = {m.code for m in claims}
    disputed = [m for m in ours if m.role == "disputed"]
    # two claimants' claims: said of both at once (both, all, each) or in different sentence parts
    two_claims = len(claimed) >= 2 and (
        any(m.both for m in claims) or len({(m.sentence, m.seg_start) for m in claims}) >= 2
    )
    first_claim: dict[tuple[int, int], int] = {}  # per clause, its first claimed country
    for m in claims:
        first_claim[m.clause] = min(first_claim.get(m.clause, m.start), m.start)
    clause_starts = sorted(first_claim)

    def reported(
        c: Cue,
    ) -> bool:  # a dispute word inside a reported claim ("X considers it disputed")
        i = bisect_right(clause_starts, (c.start, 1 << 62)) - 1
        if i < 0:
            return False
        clause = clause_starts[i]
        return clause[0] <= c.start < clause[1] and first_claim[clause] < c.start

    free_dispute = any(c.category == "dispute" and not reported(c) for c in cues)
    if disputed or two_claims or free_dispute:
        m0 = disputed[0] if disputed else next((m for m in ours if m.role == "claimed"), None)
        if m0 is None:
            c = next(c for c in cues if c.category == "dispute")  # a dispute word, no country
            return Resolution(
                "several",
                rule="disputed",
                span=_span(text, folded, c.start, c.end),
                evidence=f"dispute: {folded[c.start : c.end]}",
            )
        return res("several", "disputed", m0)
    control = [m for m in ours if m.role == "control"]
    if control:
        one = len({m.code for m in control}) == 1
        return (
            res("controller_only", "control", control[0] if one else None)
            if one
            else (_result("controller_only", "control", text, folded, None, codes, query))
        )
    if claimed:
        return res("unparsed", "claim_only", next(m for m in ours if m.role == "claimed"))
    negated = [m for m in ours if m.role == "negated"]
    if negated:
        return res("unparsed", "negation_only", negated[0])
    return Resolution("unparsed", rule="no_country")


def _concluding_hedge(
    spans: Sequence[tuple[int, int]], cues: list[Cue], strong: list[Mention]
) -> Cue | None:
    """A dispute word in the last concluding sentence (So …, In short …), after every verdict."""
    starts = [a for a, _ in spans]

    def index(pos: int) -> int:
        return bisect_right(starts, pos) - 1

    concluding = [index(c.start) for c in cues if c.category == "conclusion"]
    if not concluding:
        return None
    last = max(concluding)
    if any(m.sentence >= last for m in strong):
        return None
    return next((c for c in cues if c.category == "dispute" and index(c.start) == last), None)


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


_ = Mapping  # re-exported typing name kept for readers of the signature above
