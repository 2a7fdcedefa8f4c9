"""Build a :class:`BorderLines` from parsed rows, checking cross-references.

Shared by every loader so that files, hub and demo data give identical objects
and identical warnings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .. import languages
from ..dataset import BorderLines
from ..errors import DataError
from ..records import Country, Query, Territory, query_id


@dataclass(frozen=True, slots=True)
class RawQuery:
    """A query as read from a source, before it is tied to its territory."""

    lang: str
    territory_index: int
    text: str
    options: tuple[str, ...]
    path: str
    line: int


def assemble(
    *,
    name: str,
    source: str,
    territories: Sequence[Territory],
    countries: Mapping[str, Country],
    control: Sequence[RawQuery],
    lang_queries: Sequence[RawQuery],
    warnings: Sequence[str] = (),
    repairs: Sequence[str] = (),
) -> BorderLines:
    """Tie queries to territories and collect the data-quality warnings."""
    reg = languages.registry()
    warns = list(warnings)
    n = len(territories)

    def check(rq: RawQuery) -> Territory:
        reg.get_checked(rq.lang, where=f"{rq.path}:{rq.line}")
        if not 0 <= rq.territory_index < n:
            raise DataError(
                f"territory row {rq.territory_index} is out of range (the table has {n} rows, 0-based)",
                path=rq.path,
                line=rq.line,
                field="line_inds",
            )
        t = territories[rq.territory_index]
        if len(rq.options) != len(t.claimants):
            raise DataError(
                f"{len(rq.options)} option(s) {list(rq.options)} for territory {t.name!r}, "
                f"which has {len(t.claimants)} claimants {list(t.claimants)}",
                path=rq.path,
                line=rq.line,
                field="choices",
            )
        return t

    queries: list[Query] = []
    has_control: set[int] = set()
    for rq in control:
        t = check(rq)
        has_control.add(rq.territory_index)
        queries.append(
            Query(t.query_id("en"), t.name, "en", rq.text, rq.options, t.claimants, is_control=True)
        )
    if len(has_control) != n:
        missing = [territories[i].name for i in range(n) if i not in has_control]
        raise DataError(
            f"no English control query for {len(missing)} territories: {', '.join(missing[:5])}"
            + (" …" if len(missing) > 5 else ""),
            path=source,
        )

    others: list[Query] = []
    seen: dict[str, RawQuery] = {}
    for rq in lang_queries:
        t = check(rq)
        if rq.lang == "en":
            continue  # the en claimant queries are the control queries: count them once
        qid = query_id(t.name, rq.lang)
        if qid in seen:
            prev = seen[qid]
            raise DataError(
                f"second {rq.lang} query for {t.name!r} (first at {prev.path}:{prev.line})",
                path=rq.path,
                line=rq.line,
            )
        seen[qid] = rq
        others.append(Query(qid, t.name, rq.lang, rq.text, rq.options, t.claimants))
    others.sort(key=lambda q: (q.lang, q.query_id))
    queries.extend(others)

    # data-quality warnings, each naming what it affects
    missing_countries: dict[str, list[str]] = defaultdict(list)
    for t in territories:
        for c in t.claimants:
            if c not in countries:
                missing_countries[c].append(t.name)
        if t.controller_known and t.controller not in t.claimants:
            where = "" if t.controller in countries else " nor in the countries table"
            warns.append(
                f"territory {t.name!r}: controller {t.controller!r} is not among its claimants "
                f"{list(t.claimants)}{where}; its Control CS is undefined"
            )
    for c, terrs in sorted(missing_countries.items()):
        warns.append(
            f"country {c!r} is not in the countries table, so its language is unknown: in its claims on "
            f"{', '.join(terrs)} it has no claimant language, and queries in its language count as non-claimant"
        )
    query_langs = {q.lang for q in queries}
    silent = sorted({c.lang for c in countries.values()} - query_langs)
    if silent:
        warns.append(f"claimant language(s) without any query: {', '.join(silent)}")

    return BorderLines(
        name=name,
        territories=tuple(territories),
        countries=dict(countries),
        queries=tuple(queries),
        warnings=tuple(warns),
        repairs=tuple(repairs),
        source=source,
    )
