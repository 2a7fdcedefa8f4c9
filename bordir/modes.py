"""Retrieval modes: the :class:`Mode` values and which documents each may use (BordIRLines definitions).

A mode is a value with a canonical name (the paper's); the code/hub spellings
parse too::

    >>> Mode.parse("qlang_en") is Mode.QLANG_EN
    True
    >>> str(Mode.parse("en")), Mode.parse("ablate_swap").hub_name
    ('en_only', 'ablate_swap')
    >>> Mode.parse("all_langs")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: unknown retrieval mode 'all_langs'; valid: no_ir, qlang, qlang+en, en_only, rel_langs, swap_docs (aliases: qlang_en, en, ablate_swap); did you mean 'rel_langs'?

For a query in language ``l`` about territory ``t``, with ``C(t)`` the
languages of all claimants of ``t``:

=============  ==========================================================
``no_ir``      no documents
``qlang``      ``{l}``
``qlang+en``   ``{l, en}``
``en_only``    ``{en}``
``rel_langs``  ``C(t) ∪ {en}``
``swap_docs``  the ``qlang`` documents retrieved for the same territory's
               query in the next claimant language (claimant order,
               circular, de-duplicated, restricted to query languages)
=============  ==========================================================

Example:
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> q = ds.query("Senkaku_Islands_ja")
    >>> mode_langs(Mode.REL_LANGS, q, ds)
    ('zht', 'zhs', 'ja', 'en')
    >>> swap_partner(q, ds).query_id    # ja is last among zht, zhs, ja: wraps to zht
    'Senkaku_Islands_zht'
    >>> swap_partner(ds.query("Western_Sahara_ar"), ds) is None   # both claimants speak Arabic
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, NamedTuple

from .errors import ConfigError
from .records import Query, query_id

if TYPE_CHECKING:  # pragma: no cover
    from .dataset import BorderLines

__all__ = [
    "Mode",
    "MODE_DESCRIPTIONS",
    "mode_langs",
    "pool_langs",
    "swap_partner",
    "swap_skip_reason",
    "swap_eligible",
    "Skip",
    "SKIP_NO_TERRITORY",
    "SKIP_NO_DOCUMENTS",
    "skip_cause",
    "SkipCount",
    "count_skips",
    "describe_skips",
    "short_cause",
]


class Mode(str, Enum):
    """The six BordIRLines retrieval modes."""

    NO_IR = "no_ir"
    QLANG = "qlang"
    QLANG_EN = "qlang+en"
    EN_ONLY = "en_only"
    REL_LANGS = "rel_langs"
    SWAP_DOCS = "swap_docs"

    def __str__(self) -> str:
        return self.value

    @property
    def hub_name(self) -> str:
        """The name the BordIRLines code and hub dataset use (``qlang_en``, ``en``, ``ablate_swap``)."""
        return _HUB_NAMES.get(self, self.value)

    @classmethod
    def parse(cls, name: str | Mode) -> Mode:
        """Parse a canonical name or an alias; raise :class:`ConfigError` listing the valid ones."""
        if isinstance(name, Mode):
            return name
        key = name.strip().lower()
        for m in cls:
            if key in (m.value, m.hub_name):
                return m
        from ._suggest import did_you_mean

        names = [m.value for m in cls]
        raise ConfigError(
            f"unknown retrieval mode {name!r}; valid: {', '.join(names)} "
            f"(aliases: {', '.join(_HUB_NAMES.values())})"
            f"{did_you_mean(key, [*names, *_HUB_NAMES.values()], n=2)}"
        )


_HUB_NAMES = {Mode.QLANG_EN: "qlang_en", Mode.EN_ONLY: "en", Mode.SWAP_DOCS: "ablate_swap"}

MODE_DESCRIPTIONS: dict[Mode, str] = {
    Mode.NO_IR: "no documents: the model's own knowledge",
    Mode.QLANG: "documents in the query's language",
    Mode.QLANG_EN: "documents in the query's language and English",
    Mode.EN_ONLY: "English documents only",
    Mode.REL_LANGS: "documents in every claimant's language and English",
    Mode.SWAP_DOCS: "the qlang documents of the same territory's query in the next claimant language",
}
"""One line per mode (``bordir list modes``)."""


@dataclass(frozen=True, slots=True)
class Skip:
    """A (query, mode) for which the mode is not defined, and why."""

    query_id: str
    mode: str
    reason: str


SKIP_NO_TERRITORY = "the corpus has no passage about this territory"
"""Why a (query, IR mode) pair is dropped when the corpus does not cover the query's territory."""
SKIP_NO_DOCUMENTS = "the corpus has no passage in the mode's languages for this territory"
"""Why a (query, IR mode) pair is dropped when the territory's pools lack the mode's languages."""


def skip_cause(reason: str) -> str:
    """The cause of a skip, without the query's own names: what dry runs, summaries and reports count.

    Example:
        >>> skip_cause("query language en is not a claimant language of Abyei")
        "swap_docs: the query's language is not a claimant language (English controls)"
        >>> skip_cause(SKIP_NO_TERRITORY)
        'the corpus has no passage about this territory'
    """
    if reason.startswith("query language ") and " is not a claimant language of " in reason:
        return "swap_docs: the query's language is not a claimant language (English controls)"
    if reason.startswith("the claimants of ") and " share one language" in reason:
        return "swap_docs: the territory's claimants share one language"
    return reason


class SkipCount(NamedTuple):
    """How many (query, mode) pairs one cause dropped, in all and per mode."""

    cause: str
    n: int
    modes: dict[str, int]


def count_skips(skips: Iterable[tuple[str, str, str]]) -> list[SkipCount]:
    """``(query_id, mode, reason)`` triples counted by :func:`skip_cause`, largest first.

    Example:
        >>> count_skips([("a", "qlang", SKIP_NO_TERRITORY), ("a", "rel_langs", SKIP_NO_TERRITORY)])
        [SkipCount(cause='the corpus has no passage about this territory', n=2, modes={'qlang': 1, 'rel_langs': 1})]
    """
    by: dict[str, dict[str, int]] = {}
    for _qid, mode, reason in skips:
        modes = by.setdefault(skip_cause(str(reason)), {})
        modes[str(mode)] = modes.get(str(mode), 0) + 1
    out = [SkipCount(cause, sum(modes.values()), modes) for cause, modes in by.items()]
    out.sort(key=lambda c: (-c.n, c.cause))
    return out


_SHORT_CAUSES = {
    SKIP_NO_TERRITORY: "no passage about the territory",
    SKIP_NO_DOCUMENTS: "no passage in the mode's languages",
    "swap_docs: the query's language is not a claimant language (English controls)": (
        "swap_docs undefined (English control)"
    ),
    "swap_docs: the territory's claimants share one language": (
        "swap_docs undefined (one claimant language)"
    ),
}


def short_cause(cause: str) -> str:
    """A skip cause (:func:`skip_cause`) in a few words, for the one-line form of :func:`describe_skips`.

    Example:
        >>> short_cause("the corpus has no passage about this territory")
        'no passage about the territory'
    """
    if cause.startswith("no documents left after relevance_filter"):
        return "left out by the relevance filter"
    return _SHORT_CAUSES.get(cause, cause)


def describe_skips(
    skips: Sequence[tuple[str, str, str]], pairs: int, *, width: int = 100, compact: bool = False
) -> list[str]:
    """Lines (at most ``width`` characters) saying how many of ``pairs`` (query, mode) pairs are dropped and why.

    ``compact``: the causes in a few words on wrapped lines, without the count per mode.

    Example:
        >>> for line in describe_skips([("a", "qlang", SKIP_NO_TERRITORY)], 10):
        ...     print(line)
        dropped 1 of 10 (query, mode) pairs:
          1  the corpus has no passage about this territory (qlang 1)
        >>> describe_skips([], 10)
        ['dropped 0 of 10 (query, mode) pairs']
    """
    if not skips:
        return [f"dropped 0 of {pairs:,} (query, mode) pairs"]
    counts = count_skips(skips)
    if compact:
        import textwrap

        text = f"dropped {len(skips):,} of {pairs:,} (query, mode) pairs: " + ", ".join(
            f"{c.n:,} {short_cause(c.cause)}" for c in counts
        )
        return textwrap.wrap(text, width, subsequent_indent="  ", break_long_words=False)
    lines = [f"dropped {len(skips):,} of {pairs:,} (query, mode) pairs:"]
    w = max(len(f"{c.n:,}") for c in counts)
    order = {m.value: i for i, m in enumerate(Mode)}
    for c in counts:
        modes = sorted(c.modes.items(), key=lambda kv: order.get(kv[0], len(order)))
        where = ", ".join(f"{m} {n:,}" for m, n in modes)
        head = f"  {c.n:>{w},}  {c.cause}"
        if len(head) > width:
            head = head[: width - 1] + "…"
        if len(f"{head} ({where})") <= width:
            lines.append(f"{head} ({where})")
        else:
            lines.append(head)
            pad = " " * (4 + w)
            lines.append((pad + where)[:width])
    return lines


def _dedup(codes: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for c in codes:
        if c not in out:
            out.append(c)
    return tuple(out)


def _swap_langs(query: Query, ds: BorderLines) -> tuple[str, ...]:
    from . import languages

    query_langs = {l.code for l in languages.query_languages()}
    return tuple(c for c in ds.claimant_langs(query.territory) if c in query_langs)


def swap_skip_reason(query: Query, ds: BorderLines) -> str | None:
    """Why ``swap_docs`` is undefined for ``query``, or None if it is defined."""
    langs = _swap_langs(query, ds)
    if query.lang not in langs:
        return f"query language {query.lang} is not a claimant language of {query.territory}"
    if len(langs) < 2:
        return f"the claimants of {query.territory} share one language ({langs[0]})"
    return None


def swap_partner(query: Query, ds: BorderLines) -> Query | None:
    """The query whose ``qlang`` documents ``swap_docs`` gives to ``query`` (None if skipped)."""
    if swap_skip_reason(query, ds) is not None:
        return None
    langs = _swap_langs(query, ds)
    other = langs[(langs.index(query.lang) + 1) % len(langs)]
    return ds.query(query_id(query.territory, other))


def swap_eligible(ds: BorderLines) -> list[Query]:
    """The queries for which ``swap_docs`` is defined."""
    return [q for q in ds.queries if swap_skip_reason(q, ds) is None]


def pool_langs(
    mode: Mode | str, lang: str, claimants: Sequence[str] | None = None
) -> tuple[str, ...] | None:
    """Document languages ``mode`` searches for a query in ``lang``; None when that needs more.

    ``claimants``: the languages of the territory's claimants (``rel_langs`` needs them);
    ``swap_docs`` depends on the partner query (:func:`mode_langs`), so it is always None here.

    >>> pool_langs("qlang+en", "uk"), pool_langs("qlang+en", "en"), pool_langs("rel_langs", "uk")
    (('uk', 'en'), ('en',), None)
    >>> pool_langs(Mode.REL_LANGS, "uk", ("uk", "ru"))
    ('uk', 'ru', 'en')
    """
    mode = Mode.parse(mode)
    if mode is Mode.NO_IR:
        return ()
    if mode is Mode.QLANG:
        return (lang,)
    if mode is Mode.QLANG_EN:
        return _dedup((lang, "en"))
    if mode is Mode.EN_ONLY:
        return ("en",)
    if mode is Mode.REL_LANGS and claimants is not None:
        return _dedup((*claimants, "en"))
    return None


def mode_langs(mode: Mode | str, query: Query, ds: BorderLines) -> tuple[str, ...]:
    """Document languages ``mode`` searches for ``query`` (for ``swap_docs``: the partner's language)."""
    mode = Mode.parse(mode)
    if mode is Mode.SWAP_DOCS:
        partner = swap_partner(query, ds)
        return () if partner is None else (partner.lang,)
    claimants = ds.claimant_langs(query.territory) if mode is Mode.REL_LANGS else None
    return pool_langs(mode, query.lang, claimants) or ()  # defined for every other mode
