"""Option orders: ask a query with its claimants permuted, letters and names moving together.

A model may pick option A whatever A is. To see it, each query is asked in
several **option orders**. An order is a permutation ``perm`` of the given
option indices: position ``j`` (letter ``chr(65 + j)``) shows the given option
``perm[j]``. Its canonical name is ``given`` (the identity), ``reversed``, or
the indices joined by commas (``"1,2,0"``); :meth:`OptionOrder.parse` reads
any of them back.

**Schemes** (the run setting ``option_orders``) name a set of orders, the
given order always first:

* ``given`` — the dataset's order only (what BorderLines and BordIRLines ask);
* ``reversed`` — given and reversed;
* ``cyclic`` — the *n* rotations (every option once at every letter);
* ``all`` — the *n!* permutations.

:func:`permute_query` builds the permuted :class:`~bordir.records.Query`, so
the prompt builder (``bordir.generation.prompts``) and the answer parser work
unchanged: ``options`` and ``claimants`` are permuted together, and the query
text is rewritten by swapping the option names that follow its letter markers
(``A) Россия или B) Украина`` → ``A) Украина или B) Россия``). The names in
the text are the spans right after each marker: the option's native name when
the text has it verbatim (extended over an apostrophe suffix such as Turkish
``Yunanistan'ın``), else the inflected word that shares its stem (Russian
``России`` for ``Россия``), so case endings travel with the name they belong
to. A text without letter markers keeps its wording (the letters are then only
in the ``Options:`` block); a text where some option cannot be located raises
:class:`OrderError`, which names the query.

A choice parsed on the permuted query is a *position*; :meth:`OptionOrder.to_given`
maps it back to the given index, so ``choice`` and ``choice_name`` in a
responses table always name the same country whatever the order.

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_ru")
    >>> rev = OptionOrder.parse("reversed")
    >>> p = permute_query(q, rev)
    >>> p.text, p.options, p.claimants
    ('Является ли Крым территорией A) Украина или B) Россия?', ('Украина', 'Россия'), ('Ukraine', 'Russia'))
    >>> rev.to_given(0), str(rev), [str(o) for o in orders_for(3, "cyclic")]
    (1, 'reversed', ['given', '1,2,0', '2,0,1'])
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .errors import ConfigError
from .records import Query

__all__ = [
    "ORDER_SCHEMES",
    "GIVEN",
    "OptionOrder",
    "OrderError",
    "orders_for",
    "parse_schemes",
    "permute_query",
    "option_spans",
]

ORDER_SCHEMES: tuple[str, ...] = ("given", "reversed", "cyclic", "all")
"""The names the ``option_orders`` setting accepts (comma-separated for a union)."""

GIVEN = "given"


class OrderError(ConfigError):
    """A query's options cannot be permuted in its text (an option name was not found after its letter)."""


@dataclass(frozen=True, slots=True)
class OptionOrder:
    """A permutation of a query's options: position ``j`` shows the given option ``perm[j]``.

    >>> o = OptionOrder((1, 2, 0))
    >>> str(o), o.to_given(0), o.position_of(0), OptionOrder.parse("1,2,0") == o
    ('1,2,0', 1, 2, True)
    """

    perm: tuple[int, ...]

    def __post_init__(self) -> None:
        if sorted(self.perm) != list(range(len(self.perm))):
            raise ConfigError(
                f"option order {self.perm!r} is not a permutation of 0..{len(self.perm) - 1}"
            )

    @classmethod
    def identity(cls, n: int) -> OptionOrder:
        return cls(tuple(range(n)))

    @classmethod
    def parse(cls, text: str, n: int | None = None) -> OptionOrder:
        """``given``, ``reversed`` (need ``n`` unless a 2-option default is wanted) or ``"1,0"``.

        ``given`` and ``reversed`` without ``n`` assume two options.
        """
        t = str(text).strip()
        if t in (GIVEN, "reversed"):
            k = 2 if n is None else n
            return cls.identity(k) if t == GIVEN else cls(tuple(range(k - 1, -1, -1)))
        try:
            perm = tuple(int(x) for x in t.split(","))
        except ValueError:
            raise ConfigError(
                f"option order {text!r}: expected 'given', 'reversed' or indices such as '1,0'"
            ) from None
        order = cls(perm)
        if n is not None and len(perm) != n:
            raise ConfigError(
                f"option order {text!r} has {len(perm)} positions; the query has {n} options"
            )
        return order

    @property
    def is_given(self) -> bool:
        return self.perm == tuple(range(len(self.perm)))

    @property
    def is_reversed(self) -> bool:
        return len(self.perm) > 1 and self.perm == tuple(range(len(self.perm) - 1, -1, -1))

    def __str__(self) -> str:
        if self.is_given:
            return GIVEN
        if self.is_reversed:
            return "reversed"
        return ",".join(map(str, self.perm))

    def to_given(self, position: int) -> int:
        """The given index of the option shown at ``position`` (−1 stays −1)."""
        return -1 if position < 0 else self.perm[position]

    def position_of(self, given_index: int) -> int:
        """The position (0 = A) at which the given option ``given_index`` is shown."""
        return self.perm.index(given_index)

    def apply(self, items: Sequence[Any]) -> tuple[Any, ...]:
        """``items`` (in given order) in this order."""
        return tuple(items[i] for i in self.perm)

    def to_given_order(self, items: Sequence[Any]) -> tuple[Any, ...]:
        """``items`` listed by position (as the prompt showed them) back in given order."""
        out: list[Any] = [None] * len(self.perm)
        for pos, i in enumerate(self.perm):
            out[i] = items[pos]
        return tuple(out)


def _schemes(text: str | Sequence[str]) -> tuple[str, ...]:
    parts = [
        p.strip() for p in (text.split(",") if isinstance(text, str) else text) if str(p).strip()
    ]
    bad = [p for p in parts if p not in ORDER_SCHEMES]
    if bad or not parts:
        raise ConfigError(
            f"option_orders: unknown scheme {', '.join(map(repr, bad)) or repr(text)}; "
            f"valid: {', '.join(ORDER_SCHEMES)} (comma-separated for a union)"
        )
    return tuple(dict.fromkeys(parts))


def parse_schemes(text: str | Sequence[str]) -> str:
    """The canonical spelling of an ``option_orders`` setting (schemes in :data:`ORDER_SCHEMES` order).

    >>> parse_schemes("reversed,given"), parse_schemes(["cyclic"])
    ('given,reversed', 'cyclic')
    >>> parse_schemes("shuffled")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: option_orders: unknown scheme 'shuffled'; valid: given, reversed, cyclic, all (comma-separated for a union)
    """
    got = set(_schemes(text))
    return ",".join(s for s in ORDER_SCHEMES if s in got)


def orders_for(n_options: int, scheme: str | Sequence[str] = GIVEN) -> tuple[OptionOrder, ...]:
    """The orders a scheme (or comma-separated union of schemes) asks for ``n_options`` options; given first.

    >>> [str(o) for o in orders_for(2, "all")], len(orders_for(3, "all")), [str(o) for o in orders_for(1, "all")]
    (['given', 'reversed'], 6, ['given'])
    """
    n = int(n_options)
    out: dict[tuple[int, ...], None] = {tuple(range(n)): None}
    for s in _schemes(scheme):
        if s == "reversed":
            out[tuple(range(n - 1, -1, -1))] = None
        elif s == "cyclic":
            for r in range(n):
                out[tuple((i + r) % n for i in range(n))] = None
        elif s == "all":
            for p in itertools.permutations(range(n)):
                out[p] = None
    return tuple(OptionOrder(p) for p in out)


# --- rewriting the query text --------------------------------------------------

_MARKER = re.compile(r"([A-H])\)\s*")
_APOSTROPHES = "'’ʼ"


def _word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in ("L", "M")


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _span_end(text: str, start: int, name: str, suffix: bool = True) -> int | None:
    """Where the option ``name`` written at ``text[start:]`` ends, or None if it is not there."""
    if not name:
        return None
    if text.startswith(name, start):
        end = start + len(name)
        # a suffix joined by an apostrophe belongs to the name (Turkish, Azerbaijani case endings)
        if (
            suffix
            and end + 1 < len(text)
            and text[end] in _APOSTROPHES
            and _word_char(text[end + 1])
        ):
            end += 1
            while end < len(text) and _word_char(text[end]):
                end += 1
        return end
    # inflected: the longest prefix shared with the name, if it is most of its last word, then to the word's end
    k = _common_prefix(name, text[start:])
    last_word = name.split()[-1] if name.split() else name
    head = len(name) - len(last_word)
    if k <= head or k - head < max(2, (len(last_word) + 1) // 2):
        return None
    end = start + k
    while end < len(text) and _word_char(text[end]):
        end += 1
    return end


def option_spans(query: Query) -> list[tuple[int, int]] | None:
    """``(start, end)`` of each option's name in ``query.text`` after its letter, or None without markers.

    Raises:
        OrderError: the text has letter markers but some option's name was not found after its letter.

    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Imia/Kardak_tr")
    >>> names = [q.text[a:b] for a, b in option_spans(q)]
    >>> names
    ["Yunanistan'ın", "Türkiye'nin"]
    """
    n = len(query.options)
    markers: dict[int, int] = {}
    for m in _MARKER.finditer(query.text):
        idx = ord(m.group(1)) - ord("A")
        if idx < n and idx not in markers and (not markers or idx == max(markers) + 1):
            markers[idx] = m.end()
    if not markers:
        return None
    if len(markers) != n:
        raise OrderError(
            f"query {query.query_id}: found letters {', '.join(chr(65 + i) for i in sorted(markers))} "
            f"in its text but it has {n} options; cannot permute its options"
        )
    spans = []
    for i in range(n):
        start = markers[i]
        end = _span_end(query.text, start, query.options[i])
        if end is None or (i + 1 < n and end > markers[i + 1]):
            raise OrderError(
                f"query {query.query_id}: option {chr(65 + i)} {query.options[i]!r} is not written "
                f"after '{chr(65 + i)})' in its text {query.text!r}; cannot permute its options"
            )
        spans.append((start, end))
    plain = [
        _span_end(query.text, a, query.options[i], suffix=False) for i, (a, _) in enumerate(spans)
    ]
    suffixed = [b != p for (_, b), p in zip(spans, plain)]
    if any(suffixed) and not all(suffixed):
        # only some names carry an apostrophe suffix ("A) Suriye veya B) Türkiye'nin bölgesi"): it marks the
        # position (the phrase's case ending), not the name, so it stays where it is
        spans = [(a, p if p is not None else b) for (a, b), p in zip(spans, plain)]
    return spans


def permute_query(query: Query, order: OptionOrder | str) -> Query:
    """``query`` with its options shown in ``order`` (see the module docs); the given order returns it as is.

    Raises:
        OrderError: the order does not fit the query, or its text cannot be rewritten.
    """
    n = len(query.options)
    if isinstance(order, str):
        order = OptionOrder.parse(order, n)
    if len(order.perm) != n:
        raise OrderError(
            f"query {query.query_id}: option order {order} has {len(order.perm)} positions, "
            f"the query has {n} options"
        )
    if order.is_given:
        return query
    spans = option_spans(query)
    text = query.text
    if spans is not None:
        pieces = [text[a:b] for a, b in spans]
        out, last = [], 0
        for pos, (a, b) in enumerate(spans):
            out += [text[last:a], pieces[order.perm[pos]]]
            last = b
        out.append(text[last:])
        text = "".join(out)
    return replace(
        query, text=text, options=order.apply(query.options), claimants=order.apply(query.claimants)
    )


# --- responses in several orders ---------------------------------------------------


def ordered_queries(
    queries: Sequence[Query], scheme: str | Sequence[str] = GIVEN
) -> tuple[list[tuple[Query, OptionOrder, Query]], dict[str, str]]:
    """Every ``(given query, order, permuted query)`` a scheme asks, and the queries that cannot be permuted.

    Returns:
        The triples (given order first for each query) and ``{query_id: reason}`` for the queries whose
        text cannot be rewritten (they are asked in the given order only; the reason says why).

    >>> from bordir.loaders import load_demo
    >>> triples, skipped = ordered_queries(load_demo().queries[:2], "reversed")
    >>> [(q.query_id, str(o)) for q, o, _ in triples], skipped
    ([('Crimea_en', 'given'), ('Crimea_en', 'reversed'), ('Kuril_Islands_en', 'given'), ('Kuril_Islands_en', 'reversed')], {})
    """
    out: list[tuple[Query, OptionOrder, Query]] = []
    skipped: dict[str, str] = {}
    for q in queries:
        for order in orders_for(len(q.options), scheme):
            try:
                out.append((q, order, permute_query(q, order)))
            except OrderError as exc:
                skipped[q.query_id] = str(exc)
    return out, skipped


def row_in_given_order(row: dict[str, Any], order: OptionOrder) -> dict[str, Any]:
    """A response row parsed on the permuted query, with ``choice`` and ``option_logprobs`` in given order.

    Adds ``option_order`` (its canonical name) and ``choice_position`` (0 = the letter A was picked, −1 when not
    answered); ``choice_name`` is unchanged (it already names the country).

    >>> row_in_given_order({"choice": 0, "choice_name": "Ukraine", "option_logprobs": [-1.0, -3.0]},
    ...                    OptionOrder.parse("reversed"))
    {'choice': 1, 'choice_name': 'Ukraine', 'option_logprobs': [-3.0, -1.0], 'option_order': 'reversed', 'choice_position': 0}
    """
    out = dict(row)
    pos = int(row.get("choice", -1))
    out["choice"] = order.to_given(pos)
    lp = row.get("option_logprobs")
    if lp is not None and len(lp) == len(order.perm):
        out["option_logprobs"] = list(order.to_given_order(list(lp)))
    out["option_order"] = str(order)
    out["choice_position"] = pos
    return out
