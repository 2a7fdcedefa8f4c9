"""Token and cost accounting: a TOML price table, per-call cost, summaries and dry-run estimates.

Prices are USD per 1 million input / output tokens, read from the table
shipped as ``bordir/generation/prices.toml`` (dated; edit me) and, over it,
model by model, a user file given as ``prices=`` or named by ``$BORDIR_PRICES``.
Keys are ``provider/model``; ``*`` matches anything (``local/*``, ``mock/*``
cost 0). A model without a price gets cost ``None`` and a note, never an error.

Before a run, :func:`estimate` counts the calls, estimates input tokens as
**characters / 4** (a rough rule for English; scripts other than Latin often
need more tokens per character, so the input estimate can be low) and takes
``max_tokens`` as the output, giving an upper bound on output cost per model
and language; requests already in the response cache cost nothing.

Example:
    >>> from bordir.generation.types import GenerationRequest, GenerationResult, Message
    >>> prices = load_prices()
    >>> prices.lookup("openai/gpt-4o-mini").input
    0.15
    >>> r = GenerationResult(text="A", model="openai/gpt-4o-mini", input_tokens=1_000_000, output_tokens=0)
    >>> cost(r, prices)
    0.15
    >>> cost(r.__class__(text="A", model="acme/unknown", input_tokens=10, output_tokens=1), prices) is None
    True
    >>> req = GenerationRequest(model="openai/gpt-4o", messages=(Message("user", "x" * 400),), max_tokens=100)
    >>> est = estimate([req, req], ["en", "en"], prices=prices)
    >>> row = est.rows[0]
    >>> row.requests, row.calls, row.input_tokens, row.max_output_tokens, row.max_cost_usd
    (2, 1, 100, 100, 0.00125)
"""

from __future__ import annotations

import fnmatch
import math
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, DataError
from .types import GenerationRequest, GenerationResult

if TYPE_CHECKING:
    from .cache import ResponseCache

__all__ = [
    "PRICES_ENV",
    "INPUT_ESTIMATE_NOTE",
    "Price",
    "PriceTable",
    "load_prices",
    "estimate_input_tokens",
    "estimate_call_tokens",
    "cost",
    "CostRow",
    "summarize",
    "EstimateRow",
    "Estimate",
    "estimate",
]

PRICES_ENV = "BORDIR_PRICES"
"""Environment variable naming a user price file (TOML) whose entries override the shipped ones."""

SHIPPED_PRICES = Path(__file__).with_name("prices.toml")
CHARS_PER_TOKEN = 4
INPUT_ESTIMATE_NOTE = (
    "input tokens are estimated as characters / 4 before the call; scripts other than Latin "
    "often need more tokens per character, so the estimate can be low"
)


# -- token estimates ---------------------------------------------------------------------------


def estimate_input_tokens(request: GenerationRequest) -> int:
    """Prompt tokens estimated as characters / 4 (rounded up), over all messages.

    Documents are counted once: their text is already in the messages.

    Example:
        >>> from bordir.generation.types import GenerationRequest, Message
        >>> estimate_input_tokens(GenerationRequest(model="mock/echo", messages=(Message("user", "abcde"),)))
        2
    """
    chars = sum(len(m.content) for m in request.messages)
    return math.ceil(chars / CHARS_PER_TOKEN)


def estimate_call_tokens(request: GenerationRequest) -> int:
    """Tokens a call may use at most, as reserved by a rate limiter: estimated input + ``max_tokens``."""
    return estimate_input_tokens(request) + int(request.max_tokens)


# -- the price table ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Price:
    """The price of a model (or a ``*`` pattern of models), USD per 1M tokens."""

    pattern: str
    input: float
    output: float
    source: str = ""

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for the given token counts."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


class PriceTable:
    """Prices by ``provider/model``; build with :func:`load_prices`.

    Attributes:
        entries: pattern -> :class:`Price`.
        as_of: the date the prices were checked (from ``[meta] as_of``).
        sources: the files read, shipped table first.
    """

    def __init__(
        self, entries: Mapping[str, Price], *, as_of: str = "", sources: Sequence[str] = ()
    ) -> None:
        self.entries = dict(entries)
        self.as_of = as_of
        self.sources = tuple(sources)

    def lookup(self, model: str) -> Price | None:
        """The price of ``model``: an exact entry, else the most specific matching pattern, else None."""
        if model in self.entries:
            return self.entries[model]
        matches = [p for p in self.entries if "*" in p and fnmatch.fnmatchcase(model, p)]
        if not matches:
            return None
        return self.entries[max(matches, key=lambda p: len(p.replace("*", "")))]

    def missing_note(self, model: str) -> str:
        files = ", ".join(self.sources) or "no price file"
        return (
            f'no price for {model!r} in {files}; add [models."{model}"] with input = and output = '
            f"(USD per 1M tokens) to a TOML file passed as prices= or named by ${PRICES_ENV}"
        )

    def __repr__(self) -> str:
        return f"PriceTable({len(self.entries)} models, as_of={self.as_of!r}, sources={list(self.sources)!r})"


def _read_table(path: Path) -> tuple[dict[str, Price], str]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(
            f"price file {str(path)!r} does not exist; pass an existing TOML file or unset ${PRICES_ENV}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"not valid TOML: {exc}", path=path) from None
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise DataError(
            'expected a [models."provider/model"] table per model', path=path, field="models"
        )
    entries: dict[str, Price] = {}
    for pattern, spec in models.items():
        where = f'models."{pattern}"'
        if "/" not in pattern:
            raise DataError(
                f"model {pattern!r} must be written provider/model (e.g. openai/gpt-4o)",
                path=path,
                field=where,
            )
        if not isinstance(spec, dict):
            raise DataError(
                "expected a table with input = and output = (USD per 1M tokens)",
                path=path,
                field=where,
            )
        values = {}
        for side in ("input", "output"):
            value = spec.get(side)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise DataError(
                    f"expected a number >= 0 (USD per 1M tokens), found {value!r}",
                    path=path,
                    field=f"{where}.{side}",
                )
            values[side] = float(value)
        entries[pattern] = Price(
            pattern, values["input"], values["output"], str(spec.get("source", ""))
        )
    meta = data.get("meta", {})
    as_of = str(meta.get("as_of", "")) if isinstance(meta, dict) else ""
    return entries, as_of


def load_prices(path: str | PathLike[str] | None = None) -> PriceTable:
    """The shipped price table, overridden model by model by ``path`` or ``$BORDIR_PRICES``.

    Raises:
        ConfigError: the user file does not exist.
        DataError: a file is not valid TOML or an entry is malformed.
    """
    entries, as_of = _read_table(SHIPPED_PRICES)
    sources = [str(SHIPPED_PRICES)]
    user = path if path is not None else (os.environ.get(PRICES_ENV) or None)
    if user is not None:
        user_path = Path(user).expanduser()
        user_entries, user_as_of = _read_table(user_path)
        entries.update(user_entries)
        as_of = user_as_of or as_of
        sources.append(str(user_path))
    return PriceTable(entries, as_of=as_of, sources=sources)


def _table(prices: PriceTable | str | PathLike[str] | None) -> PriceTable:
    return prices if isinstance(prices, PriceTable) else load_prices(prices)


# -- cost of results ---------------------------------------------------------------------------


def cost(
    result: GenerationResult,
    prices: PriceTable | str | PathLike[str] | None = None,
    *,
    model: str | None = None,
) -> float | None:
    """USD this call cost: 0 for cache hits, None if the model has no price or a success reported no usage.

    Args:
        result: the call's result.
        prices: a :class:`PriceTable`, a user price file, or None (shipped table and ``$BORDIR_PRICES``).
        model: the ``provider/model`` to price (default ``result.model``; pass the request's
            model when a backend reports a dated model name).
    """
    if result.cached:
        return 0.0
    price = _table(prices).lookup(model or result.model)
    if price is None:
        return None
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
    table = _table(prices)
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for request, result, lang in rows:
        cell = cells.setdefault(
            (request.model, lang),
            {"calls": 0, "cached": 0, "failed": 0, "in": 0, "out": 0, "cost": 0.0, "no_usage": 0},
        )
        if result.cached:
            cell["cached"] += 1
            continue
        cell["calls"] += 1
        cell["failed"] += 0 if result.ok else 1
        cell["in"] += result.input_tokens or 0
        cell["out"] += result.output_tokens or 0
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
            total = price.cost(cell["in"], cell["out"])
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
            )
        )
    return out


# -- dry-run estimates -------------------------------------------------------------------------


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
) -> Estimate:
    """Calls, estimated input tokens, maximal output tokens and upper-bound cost per (model, language).

    Duplicate requests (same cache key) count as one call, as in
    :func:`~bordir.generation.executor.execute`; requests found in ``cache`` cost 0.

    Args:
        requests: the requests a run would make.
        langs: the language of each request (same length).
        prices: a :class:`PriceTable`, a user price file, or None (shipped table and ``$BORDIR_PRICES``).
        cache: a response cache to look requests up in.

    Raises:
        ConfigError: ``langs`` does not have one entry per request.
    """
    if len(requests) != len(langs):
        raise ConfigError(
            f"estimate() needs one language per request: got {len(requests)} requests "
            f"and {len(langs)} languages"
        )
    table = _table(prices)
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
                "" if price is not None else table.missing_note(model),
            )
        )
    notes = [INPUT_ESTIMATE_NOTE, "output tokens are counted at max_tokens, an upper bound"]
    notes.append(
        f"prices as of {table.as_of or 'unknown date'} from {', '.join(table.sources)} (edit me)"
    )
    notes.extend(dict.fromkeys(r.note for r in rows if r.note))
    return Estimate(tuple(rows), tuple(notes), table.as_of)
