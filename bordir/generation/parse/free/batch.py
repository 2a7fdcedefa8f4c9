"""Many free answers at once: :func:`resolve_many`, on every CPU bordir may use.

The answers are cut into one part per CPU (``BORDIR_CPUS``, else the CPUs the process may run on);
each part but the first is resolved in a forked child (:mod:`bordir._fork`: the resolver built in
the parent is shared, nothing is pickled on the way in) while the parent resolves the first; the
results come back as compact tuples and are rebuilt into :class:`Resolution` records in the
answers' order.

Example:
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> q = ds.query("Crimea_en")
    >>> [r.outcome for r in resolve_many(["Ukraine.", "", "Russia claims it."], [q, q, q], dataset=ds)]
    ['claimant', 'empty', 'unparsed']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .outcome import Resolution
from .resolve import FreeResolver, resolver_for

if TYPE_CHECKING:  # pragma: no cover
    from ....dataset import BorderLines
    from ....records import Query

__all__ = ["resolve_many"]

_Packed = tuple[str, str, int, str, int, int, str, str, str]


def _pack(r: Resolution) -> _Packed:
    return (
        r.outcome,
        r.claimant,
        r.index,
        r.rule,
        r.span[0],
        r.span[1],
        r.evidence,
        r.country,
        r.reader,
    )


def _unpack(p: _Packed) -> Resolution:
    return Resolution(
        p[0],  # type: ignore[arg-type]
        claimant=p[1],
        index=p[2],
        rule=p[3],
        span=(p[4], p[5]),
        evidence=p[6],
        country=p[7],
        reader=p[8],
    )


def _part(resolver: FreeResolver, texts: Sequence[Any], queries: Sequence[Query]) -> list[_Packed]:
    return [_pack(resolver.resolve(t, q)) for t, q in zip(texts, queries)]


def resolve_many(
    texts: Sequence[str | None],
    queries: Sequence[Query],
    *,
    dataset: BorderLines | None = None,
    resolver: FreeResolver | None = None,
    parallel: bool = True,
) -> list[Resolution]:
    """Resolve ``texts[i]`` as an answer to ``queries[i]``, for every ``i`` (see the module docs).

    Args:
        texts: the free answers (None and whitespace are ``empty``).
        queries: the query each answers (same length).
        dataset: the dataset of the queries (its resolver is built once and kept).
        resolver: a resolver to use instead (built from ``dataset`` otherwise).
        parallel: use the other CPUs too (False: this process only).
    """
    from ...._fork import cpus, start

    if len(texts) != len(queries):
        from ....errors import ConfigError

        raise ConfigError(
            f"resolve_many needs one query per answer: {len(texts)} answers, {len(queries)} queries"
        )
    res = resolver or resolver_for(dataset)
    n = len(texts)
    parts = max(1, min(cpus() if parallel else 1, n // 2000 or 1))
    bounds = [round(i * n / parts) for i in range(parts + 1)]
    pending = [
        start(_part, res, texts[a:b], queries[a:b], parallel=None)
        for a, b in zip(bounds[1:-1], bounds[2:])
    ]
    resolve = res.resolve
    out = [resolve(t, q) for t, q in zip(texts[: bounds[1]], queries[: bounds[1]])]
    for job in pending:
        out.extend(_unpack(p) for p in job.result())
    return out
