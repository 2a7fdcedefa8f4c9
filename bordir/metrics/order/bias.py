"""Position bias and pick rates: how often a query's answer changes with the option order, and picks by letter and by country against uniform."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...signature import Signature
from ...stats import bootstrap_weights, percentile_bounds, resolve_seed
from .items import order_items, orders_of, with_positions

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines


__all__ = [
    "position_bias",
    "argmax_responses",
    "seed_change_rate",
    "letter_pick_rates",
    "country_pick_rates",
]


def _territory_ratio(
    items: pd.DataFrame, num: str, den: str, n_resamples: int, seed: int, conf: float
) -> tuple[float | None, float | None, float | None]:
    per = items.groupby("territory")[[num, den]].sum()
    n, d = per[num].to_numpy(float), per[den].to_numpy(float)
    if d.sum() == 0:
        return None, None, None
    w = bootstrap_weights(len(per), n_resamples, np.random.default_rng(seed))
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (w * n).sum(axis=1) / (w * d).sum(axis=1)
    lo, hi, _ = percentile_bounds(boot, conf)
    return (
        float(n.sum() / d.sum()),
        np.nan if lo is None else lo,
        np.nan if hi is None else hi,
    )


def position_bias(
    responses: pd.DataFrame,
    *,
    by: Sequence[str] = ("model", "mode"),
    n_resamples: int = 1000,
    seed: int | None = None,
    conf: float = 0.95,
) -> pd.DataFrame:
    """Share of queries whose picked country changes with the option order, per ``by`` group (runs pooled).

    Columns: the ``by`` keys, ``n_queries`` (answered in ≥ 2 orders), ``n_changed``, ``rate``, ``low``,
    ``high`` (cluster bootstrap over territories), ``orders`` and ``signature``.
    """
    seed = resolve_seed(seed)
    items = order_items(responses)
    items["changed_n"] = items["changed"].astype(float)
    items["comparable_n"] = items["comparable"].astype(float)
    orders = ",".join(
        sorted(set(orders_of(responses)), key=lambda o: (o != "given", o != "reversed", o))
    )
    out = []
    groups = items.groupby(list(by), sort=False) if by else [((), items)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        if not g["comparable"].any():  # e.g. a mode asked in the given order only
            continue
        rate, lo, hi = _territory_ratio(g, "changed_n", "comparable_n", n_resamples, seed, conf)
        fields = dict(zip(by, key))
        sig = Signature.build(
            "position_bias",
            mode=fields.get("mode"),
            gen=fields.get("model"),
            runs=int(g["run"].nunique()),
            orders=orders,
            boot=n_resamples,
            seed=seed,
            ci=f"cluster{int(round(conf * 100))}",
        )
        out.append(
            {
                **fields,
                "n_queries": int(g["comparable"].sum()),
                "n_changed": int(g["changed"].sum()),
                "rate": rate,
                "low": lo,
                "high": hi,
                "orders": orders,
                "signature": str(sig),
            }
        )
    return pd.DataFrame(
        out, columns=[*by, "n_queries", "n_changed", "rate", "low", "high", "orders", "signature"]
    )


def argmax_responses(responses: pd.DataFrame) -> pd.DataFrame:
    """Rank-classification rows re-chosen at temperature 0: ``choice`` = argmax of ``option_logprobs``.

    Sampling at a temperature can change the country between two orders by chance; the argmax cannot, so
    :func:`position_bias` of these rows is the position bias of the scores themselves. Rows without scores
    are left as they are.
    """
    df = responses.copy()
    if "option_logprobs" not in df.columns:
        return df
    for i, lp in zip(df.index, df["option_logprobs"]):
        if lp is not None and len(lp) and df.at[i, "outcome"] != "failed":
            df.at[i, "choice"] = int(np.argmax(np.asarray(lp, dtype=float)))
            df.at[i, "outcome"] = "answered"
    return df


def seed_change_rate(
    responses: pd.DataFrame, *, by: Sequence[str] = ("model", "mode")
) -> pd.DataFrame:
    """The reference for the position-bias rate: how often the country changes between two runs in one order.

    Per group, over (query, order) and consecutive runs answered in both: #pairs naming different countries
    / #pairs. A position-bias rate above it is an effect of the order, not of sampling.
    """
    df = responses[responses["outcome"] == "answered"].copy()
    df["option_order"] = orders_of(df).to_numpy()
    out = []
    for key, g in df.groupby(list(by), sort=False) if by else [((), df)]:
        key = key if isinstance(key, tuple) else (key,)
        pairs = changed = 0
        for _, q in g.sort_values("run").groupby(["query_id", "option_order"], sort=False):
            c = q["choice"].to_numpy(int)
            pairs += max(len(c) - 1, 0)
            changed += int((c[1:] != c[:-1]).sum())
        out.append(
            {
                **dict(zip(by, key)),
                "n_pairs": pairs,
                "n_changed": changed,
                "rate": changed / pairs if pairs else None,
            }
        )
    return pd.DataFrame(out, columns=[*by, "n_pairs", "n_changed", "rate"])


def letter_pick_rates(
    responses: pd.DataFrame, dataset: BorderLines | None = None, *, by: Sequence[str] = ("model",)
) -> pd.DataFrame:
    """Share of answers at each letter against the uniform rate (all orders, runs and modes in a ``by`` group)."""
    df = with_positions(responses, dataset)
    df = df[df["outcome"] == "answered"]
    out = []
    for key, g in df.groupby(list(by), sort=False) if by else [((), df)]:
        key = key if isinstance(key, tuple) else (key,)
        n = g["n_options"].to_numpy(int)
        pos = g["choice_position"].to_numpy(int)
        for letter in range(int(n.max()) if len(n) else 0):
            out.append(
                {
                    **dict(zip(by, key)),
                    "letter": chr(65 + letter),
                    "n_answers": len(g),
                    "n_picked": int((pos == letter).sum()),
                    "rate": float((pos == letter).mean()),
                    "uniform": float(((letter < n) / n).mean()),
                }
            )
    return pd.DataFrame(out, columns=[*by, "letter", "n_answers", "n_picked", "rate", "uniform"])


def country_pick_rates(
    responses: pd.DataFrame, dataset: BorderLines, *, by: Sequence[str] = ("model",)
) -> pd.DataFrame:
    """How often each claimant country is picked when offered, against 1/n (all orders, runs, modes pooled)."""
    df = responses[responses["outcome"] == "answered"]
    out = []
    for key, g in df.groupby(list(by), sort=False) if by else [((), df)]:
        key = key if isinstance(key, tuple) else (key,)
        offered: dict[str, list[float]] = {}
        picked: dict[str, int] = {}
        for terr, choice in zip(g["territory"], g["choice"].astype(int)):
            claimants = dataset.territory(terr).claimants
            for c in claimants:
                offered.setdefault(c, []).append(1 / len(claimants))
            picked[claimants[choice]] = picked.get(claimants[choice], 0) + 1
        for c, u in sorted(offered.items()):
            out.append(
                {
                    **dict(zip(by, key)),
                    "country": c,
                    "n_offered": len(u),
                    "n_picked": picked.get(c, 0),
                    "rate": picked.get(c, 0) / len(u),
                    "uniform": float(np.mean(u)),
                }
            )
    return pd.DataFrame(out, columns=[*by, "country", "n_offered", "n_picked", "rate", "uniform"])
