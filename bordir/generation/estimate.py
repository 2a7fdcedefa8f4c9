"""Dry-run estimates: calls, tokens and the upper-bound cost a run would have, per (model, language).

:func:`estimate` counts the calls (duplicates once, cached requests at cost 0),
estimates input tokens as **characters / 4** (:mod:`~bordir.generation.tokens`)
and takes ``max_tokens`` as the output, giving an upper bound on the cost per
model and language; with ``batch=True`` models with a batch price
(:meth:`~bordir.generation.prices.Price.batch_price`) are priced at it.

Example:
    >>> from bordir.generation.types import GenerationRequest, Message
    >>> req = GenerationRequest(model="openai/gpt-4o", messages=(Message("user", "x" * 400),), max_tokens=100)
    >>> estimate([req], ["en"]).rows[0].max_cost_usd, estimate([req], ["en"], batch=True).rows[0].max_cost_usd
    (0.00125, 0.000625)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .prices import PriceTable, price_table
from .tokens import INPUT_ESTIMATE_NOTE, estimate_input_tokens
from .types import GenerationRequest

if TYPE_CHECKING:
    from .cache import ResponseCache

__all__ = ["EstimateRow", "Estimate", "estimate"]


@dataclass(frozen=True, slots=True)
class EstimateRow:
    """What a run would cost at most, for one (model, language).

    Attributes:
        requests: requests given (duplicates included).
        calls: distinct requests not in the cache: the calls a run would make.
        cached: distinct requests already in the cache (cost 0).
        input_tokens: estimated input tokens of the calls (characters / 4).
        max_output_tokens: the sum of ``max_tokens`` over the calls.
        max_cost_usd: estimated input cost + output cost at ``max_tokens``; None without a price.
        note: why the cost is missing ("" otherwise).
    """

    model: str
    lang: str
    requests: int
    calls: int
    cached: int
    input_tokens: int
    max_output_tokens: int
    max_cost_usd: float | None
    note: str = ""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A dry-run estimate: one :class:`EstimateRow` per (model, language), and notes."""

    rows: tuple[EstimateRow, ...]
    notes: tuple[str, ...]
    prices_as_of: str = ""

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.rows)

    @property
    def cached(self) -> int:
        return sum(r.cached for r in self.rows)

    @property
    def max_cost_usd(self) -> float | None:
        """The total upper-bound cost; None if a model has no price."""
        costs = [r.max_cost_usd for r in self.rows]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)

    def __str__(self) -> str:
        header = (
            "model",
            "lang",
            "requests",
            "calls",
            "cached",
            "input_tok~",
            "max_output_tok",
            "max_usd",
        )
        body = [
            (
                r.model,
                r.lang,
                str(r.requests),
                str(r.calls),
                str(r.cached),
                str(r.input_tokens),
                str(r.max_output_tokens),
                "?" if r.max_cost_usd is None else f"{r.max_cost_usd:.4f}",
            )
            for r in self.rows
        ]
        total = self.max_cost_usd
        body.append(
            (
                "total",
                "",
                str(sum(r.requests for r in self.rows)),
                str(self.calls),
                str(self.cached),
                str(sum(r.input_tokens for r in self.rows)),
                str(sum(r.max_output_tokens for r in self.rows)),
                "?" if total is None else f"{total:.4f}",
            )
        )
        widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
        lines = [
            "  ".join(
                c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
            )
            for row in [header, *body]
        ]
        return "\n".join([*lines, *(f"note: {n}" for n in self.notes)])


def estimate(
    requests: Sequence[GenerationRequest],
    langs: Sequence[str],
    *,
    prices: PriceTable | str | PathLike[str] | None = None,
    cache: ResponseCache | None = None,
    batch: bool = False,
) -> Estimate:
    """Calls, estimated input tokens, maximal output tokens and upper-bound cost per (model, language).

    Duplicate requests (same cache key) count as one call, as in
    :func:`~bordir.generation.executor.execute`; requests found in ``cache`` cost 0.

    Args:
        requests: the requests a run would make.
        langs: the language of each request (same length).
        prices: a :class:`PriceTable`, a user price file, or None (shipped table and ``$BORDIR_PRICES``).
        cache: a response cache to look requests up in.
        batch: price at the models' batch prices (``--submit batch``); a model without one is
            priced online, with a note.

    Raises:
        ConfigError: ``langs`` does not have one entry per request.
    """
    if len(requests) != len(langs):
        raise ConfigError(
            f"estimate() needs one language per request: got {len(requests)} requests "
            f"and {len(langs)} languages"
        )
    table = price_table(prices)
    keys = [r.cache_key() for r in requests]
    in_cache = cache.contains_keys(keys) if cache is not None else set()
    seen: set[str] = set()
    cells: dict[tuple[str, str], dict[str, int]] = {}
    for request, lang, key in zip(requests, langs, keys):
        cell = cells.setdefault(
            (request.model, lang), {"requests": 0, "calls": 0, "cached": 0, "in": 0, "out": 0}
        )
        cell["requests"] += 1
        if key in seen:
            continue
        seen.add(key)
        if key in in_cache:
            cell["cached"] += 1
            continue
        cell["calls"] += 1
        cell["in"] += estimate_input_tokens(request)
        cell["out"] += int(request.max_tokens)
    rows = []
    for (model, lang), cell in sorted(cells.items()):
        price = table.lookup(model)
        note = "" if price is not None else table.missing_note(model)
        if batch and price is not None:
            if price.batch_price() is None:
                note = f"no batch price for {model!r} in the price table: priced online"
            else:
                price = price.batch_price()
        rows.append(
            EstimateRow(
                model,
                lang,
                cell["requests"],
                cell["calls"],
                cell["cached"],
                cell["in"],
                cell["out"],
                None if price is None else round(price.cost(cell["in"], cell["out"]), 10),
                note,
            )
        )
    notes = [INPUT_ESTIMATE_NOTE, "output tokens are counted at max_tokens, an upper bound"]
    if batch:
        notes.append("priced at the batch prices (provider batch APIs)")
    notes.append(
        f"prices as of {table.as_of or 'unknown date'} from {', '.join(table.sources)} (edit me)"
    )
    notes.extend(dict.fromkeys(r.note for r in rows if r.note))
    return Estimate(tuple(rows), tuple(notes), table.as_of)
