"""The price table: USD per 1M input / output tokens by ``provider/model``, online and batch.

Prices are read from the table shipped as ``bordir/generation/prices.toml``
(dated; edit me) and, over it, model by model, a user file given as
``prices=`` or named by ``$BORDIR_PRICES``. Keys are ``provider/model``; ``*``
matches anything (``local/*``, ``mock/*`` cost 0). An entry may give its batch
price (``batch_input`` / ``batch_output``); otherwise a ``[batch_discount]``
entry matching the model (``"openai/*" = 0.5``: half the online price) gives
it; a model with neither has no batch price (batches of it are priced online).

Example:
    >>> p = load_prices().lookup("openai/gpt-4o-mini")
    >>> p.input, p.batch_price().input
    (0.15, 0.075)
"""

from __future__ import annotations

import fnmatch
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from os import PathLike
from pathlib import Path
from typing import Any

from .._io.toml import loads as toml_loads
from ..errors import ConfigError, DataError
from ..settings import PRICES

__all__ = ["SHIPPED_PRICES", "Price", "PriceTable", "load_prices"]

SHIPPED_PRICES = Path(__file__).with_name("prices.toml")
"""The price table shipped with bordir."""


@dataclass(frozen=True, slots=True)
class Price:
    """The price of a model (or a ``*`` pattern of models), USD per 1M tokens."""

    pattern: str
    input: float
    output: float
    source: str = ""
    batch_input: float | None = None
    batch_output: float | None = None

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for the given token counts."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000

    def batch_price(self) -> Price | None:
        """The price of the same tokens sent through the provider's batch API (None: no batch price)."""
        if self.batch_input is None or self.batch_output is None:
            return None
        return Price(self.pattern, self.batch_input, self.batch_output, self.source + " (batch)")


class PriceTable:
    """Prices by ``provider/model``; build with :func:`load_prices`.

    Attributes:
        entries: pattern -> :class:`Price`.
        as_of: the date the prices were checked (from ``[meta] as_of``).
        sources: the files read, shipped table first.
        batch_discounts: pattern -> factor of the online price that batches cost (``[batch_discount]``),
            for entries without their own ``batch_input`` / ``batch_output``.
    """

    def __init__(
        self,
        entries: Mapping[str, Price],
        *,
        as_of: str = "",
        sources: Sequence[str] = (),
        batch_discounts: Mapping[str, float] | None = None,
    ) -> None:
        self.entries = dict(entries)
        self.as_of = as_of
        self.sources = tuple(sources)
        self.batch_discounts = dict(batch_discounts or {})

    def lookup(self, model: str) -> Price | None:
        """The price of ``model``: an exact entry, else the most specific matching pattern, else None.

        The price's batch side is filled from ``[batch_discount]`` when the entry has none.
        """
        found = _most_specific(self.entries, model)
        if found is None:
            return None
        price = self.entries[found]
        if price.batch_input is None or price.batch_output is None:
            d = _most_specific(self.batch_discounts, model)
            if d is not None:
                f = self.batch_discounts[d]
                price = replace(
                    price,
                    batch_input=price.input * f if price.batch_input is None else price.batch_input,
                    batch_output=price.output * f
                    if price.batch_output is None
                    else price.batch_output,
                )
        return price

    def batch_lookup(self, model: str) -> Price | None:
        """The batch price of ``model`` (None: no price, or no batch price)."""
        price = self.lookup(model)
        return None if price is None else price.batch_price()

    def missing_note(self, model: str) -> str:
        files = ", ".join(self.sources) or "no price file"
        return (
            f'no price for {model!r} in {files}; add [models."{model}"] with input = and output = '
            f"(USD per 1M tokens) to a TOML file passed as prices= or named by ${PRICES.name}"
        )

    def __repr__(self) -> str:
        return f"PriceTable({len(self.entries)} models, as_of={self.as_of!r}, sources={list(self.sources)!r})"


def _most_specific(patterns: Mapping[str, Any], model: str) -> str | None:
    if model in patterns:
        return model
    matches = [p for p in patterns if "*" in p and fnmatch.fnmatchcase(model, p)]
    return max(matches, key=lambda p: len(p.replace("*", ""))) if matches else None


def _number(value: Any, *, path: Path, field: str, what: str = "USD per 1M tokens") -> float:
    # not 0 <= value < inf: also refuses nan (TOML's `nan`, which compares false with anything)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
        raise DataError(
            f"expected a finite number >= 0 ({what}), found {value!r}", path=path, field=field
        )
    return float(value)


def _read_table(path: Path) -> tuple[dict[str, Price], str, dict[str, float]]:
    try:
        data = toml_loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"price file {str(path)!r} does not exist; pass an existing TOML file or unset ${PRICES.name}"
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
        values: dict[str, float | None] = {}
        for side in ("input", "output"):
            values[side] = _number(spec.get(side), path=path, field=f"{where}.{side}")
        for side in ("batch_input", "batch_output"):
            values[side] = (
                None
                if spec.get(side) is None
                else _number(spec.get(side), path=path, field=f"{where}.{side}")
            )
        entries[pattern] = Price(
            pattern,
            values["input"] or 0.0,
            values["output"] or 0.0,
            str(spec.get("source", "")),
            values["batch_input"],
            values["batch_output"],
        )
    discounts_spec = data.get("batch_discount", {})
    if not isinstance(discounts_spec, dict):
        raise DataError(
            'expected a [batch_discount] table of "provider/*" = factor',
            path=path,
            field="batch_discount",
        )
    discounts = {}
    for pattern, factor in discounts_spec.items():
        value = _number(
            factor,
            path=path,
            field=f'batch_discount."{pattern}"',
            what="the factor of the online price, 0.5 for half",
        )
        if value > 1:
            raise DataError(
                f"expected a factor <= 1 of the online price, found {value!r}",
                path=path,
                field=f'batch_discount."{pattern}"',
            )
        discounts[pattern] = value
    meta = data.get("meta", {})
    as_of = str(meta.get("as_of", "")) if isinstance(meta, dict) else ""
    return entries, as_of, discounts


def load_prices(path: str | PathLike[str] | None = None) -> PriceTable:
    """The shipped price table, overridden model by model by ``path`` or ``$BORDIR_PRICES``.

    Raises:
        ConfigError: the user file does not exist.
        DataError: a file is not valid TOML or an entry is malformed.
    """
    entries, as_of, discounts = _read_table(SHIPPED_PRICES)
    sources = [str(SHIPPED_PRICES)]
    user = path if path is not None else PRICES.get()
    if user is not None:
        user_path = Path(user).expanduser()
        user_entries, user_as_of, user_discounts = _read_table(user_path)
        entries.update(user_entries)
        discounts.update(user_discounts)
        as_of = user_as_of or as_of
        sources.append(str(user_path))
    return PriceTable(entries, as_of=as_of, sources=sources, batch_discounts=discounts)


def price_table(prices: PriceTable | str | PathLike[str] | None) -> PriceTable:
    """``prices`` itself when it is a table, else the table :func:`load_prices` reads from it."""
    return prices if isinstance(prices, PriceTable) else load_prices(prices)
