"""Cost accounting: what each call cost and the usage and cost per (model, language) of a run.

Prices come from :mod:`~bordir.generation.prices` (the shipped, dated
``prices.toml`` and a user file); token estimates from
:mod:`~bordir.generation.tokens`; dry-run estimates from
:mod:`~bordir.generation.estimate`. All their public names are importable from
here too, as before the split. A model without a price gets cost ``None`` and a
note, never an error.

A result that came back from a provider batch (``result.meta["batch"]`` set,
see :mod:`bordir.generation.batch`) is priced at the model's batch price
(half the online price for OpenAI), or at the online price with a note when
the table has no batch price for it.

Example:
    >>> from bordir.generation.types import GenerationRequest, GenerationResult, Message
    >>> prices = load_prices()
    >>> prices.lookup("openai/gpt-4o-mini").input
    0.15
    >>> r = GenerationResult(text="A", model="openai/gpt-4o-mini", input_tokens=1_000_000, output_tokens=0)
    >>> cost(r, prices)
    0.15
    >>> cost(r.__class__(text="A", model="openai/gpt-4o-mini", input_tokens=1_000_000, output_tokens=0,
    ...                  meta={"batch": "batch_1"}), prices)
    0.075
    >>> cost(r.__class__(text="A", model="acme/unknown", input_tokens=10, output_tokens=1), prices) is None
    True
    >>> req = GenerationRequest(model="openai/gpt-4o", messages=(Message("user", "x" * 400),), max_tokens=100)
    >>> est = estimate([req, req], ["en", "en"], prices=prices)
    >>> row = est.rows[0]
    >>> row.requests, row.calls, row.input_tokens, row.max_output_tokens, row.max_cost_usd
    (2, 1, 100, 100, 0.00125)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from typing import Any

from .estimate import Estimate, EstimateRow, estimate
from .prices import SHIPPED_PRICES, Price, PriceTable, load_prices, price_table
from .tokens import (
    CHARS_PER_TOKEN,
    INPUT_ESTIMATE_NOTE,
    estimate_call_tokens,
    estimate_input_tokens,
)
from .types import GenerationRequest, GenerationResult

__all__ = [
    "SHIPPED_PRICES",
    "CHARS_PER_TOKEN",
    "INPUT_ESTIMATE_NOTE",
    "Price",
    "PriceTable",
    "load_prices",
    "estimate_input_tokens",
    "estimate_call_tokens",
    "cost",
    "is_batch",
    "CostRow",
    "summarize",
    "EstimateRow",
    "Estimate",
    "estimate",
]


def is_batch(result: GenerationResult) -> bool:
    """True when ``result`` came back from a provider batch (priced at the batch rate)."""
    return bool(result.meta.get("batch")) if result.meta else False


def cost(
    result: GenerationResult,
    prices: PriceTable | str | PathLike[str] | None = None,
    *,
    model: str | None = None,
) -> float | None:
    """USD this call cost: 0 for cache hits, None if the model has no price or a success reported no usage.

    A batch result (:func:`is_batch`) is priced at the batch price when the table has one.

    Args:
        result: the call's result.
        prices: a :class:`PriceTable`, a user price file, or None (shipped table and ``$BORDIR_PRICES``).
        model: the ``provider/model`` to price (default ``result.model``; pass the request's
            model when a backend reports a dated model name).
    """
    if result.cached:
        return 0.0
    price = price_table(prices).lookup(model or result.model)
    if price is None:
        return None
    if is_batch(result):
        price = price.batch_price() or price
    if result.ok and result.input_tokens is None and result.output_tokens is None:
        return None
    return price.cost(result.input_tokens or 0, result.output_tokens or 0)


@dataclass(frozen=True, slots=True)
class CostRow:
    """Usage and cost of one (model, language) cell of a run.

    Attributes:
        calls: results produced by calls in this run (successful or failed).
        cached: results served from the cache (cost 0, tokens not counted).
        failed: calls that ended in an error.
        input_tokens, output_tokens: reported usage of the calls in this run.
        cost_usd: the cost of the calls in this run; None if the model has no price.
        note: why a cost is missing or incomplete ("" when complete).
        batch_calls: of ``calls``, those answered through a provider batch (priced at the batch price).
    """

    model: str
    lang: str
    calls: int
    cached: int
    failed: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    note: str = ""
    batch_calls: int = 0


def summarize(
    rows: Iterable[tuple[GenerationRequest, GenerationResult, str]],
    prices: PriceTable | str | PathLike[str] | None = None,
) -> list[CostRow]:
    """Usage and cost per (model, language), sorted, from ``(request, result, lang)`` triples.

    The model is the request's ``provider/model``.

    Example:
        >>> from bordir.generation.types import GenerationRequest, GenerationResult, Message
        >>> req = GenerationRequest(model="openai/gpt-4o", messages=(Message("user", "Q"),))
        >>> ok = GenerationResult(text="A", model="gpt-4o-2024-08-06", input_tokens=1000, output_tokens=100)
        >>> hit = GenerationResult(text="A", model="openai/gpt-4o", input_tokens=1000, output_tokens=100, cached=True)
        >>> (row,) = summarize([(req, ok, "uk"), (req, hit, "uk")])
        >>> row.calls, row.cached, row.input_tokens, row.cost_usd
        (1, 1, 1000, 0.0035)
    """
    table = price_table(prices)
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for request, result, lang in rows:
        cell = cells.setdefault(
            (request.model, lang),
            {"calls": 0, "cached": 0, "failed": 0, "in": 0, "out": 0, "no_usage": 0}
            | {"batch": 0, "b_in": 0, "b_out": 0},
        )
        if result.cached:
            cell["cached"] += 1
            continue
        cell["calls"] += 1
        cell["failed"] += 0 if result.ok else 1
        cell["in"] += result.input_tokens or 0
        cell["out"] += result.output_tokens or 0
        if is_batch(result):
            cell["batch"] += 1
            cell["b_in"] += result.input_tokens or 0
            cell["b_out"] += result.output_tokens or 0
        if result.ok and result.input_tokens is None and result.output_tokens is None:
            cell["no_usage"] += 1
    out = []
    for (model, lang), cell in sorted(cells.items()):
        price = table.lookup(model)
        notes = []
        if price is None:
            total: float | None = None
            notes.append(table.missing_note(model))
        else:
            batch = price.batch_price()
            if cell["batch"] and batch is None:
                notes.append(
                    f"no batch price for {model!r}: {cell['batch']} batch calls priced online"
                )
            online_in, online_out = cell["in"] - cell["b_in"], cell["out"] - cell["b_out"]
            total = price.cost(online_in, online_out) + (batch or price).cost(
                cell["b_in"], cell["b_out"]
            )
        if cell["no_usage"]:
            notes.append(
                f"{cell['no_usage']} successful calls reported no token usage and are not counted"
            )
        out.append(
            CostRow(
                model,
                lang,
                cell["calls"],
                cell["cached"],
                cell["failed"],
                cell["in"],
                cell["out"],
                total,
                "; ".join(notes),
                cell["batch"],
            )
        )
    return out
