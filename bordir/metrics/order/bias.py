"""Position bias and pick rates: how often a query's answer changes with the option order, and picks by letter and by country against uniform."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...signature import Signature
from ...stats import (
    bootstrap_weights,
    percentile_bounds,
    rate_interval,
    resolve_seed,
    sign_flip_test,
)
from ..perlang.power import analytic_power
from .items import order_items, orders_of, with_positions

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines


__all__ = [
    "position_bias",
    "position_bias_excess",
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


def _pair_rates(g: pd.DataFrame) -> pd.DataFrame:
    """Per query: differing pairs / pairs across orders within a run, and within an order across runs."""
    rows = []
    for (terr, qid), q in g.groupby(["territory", "query_id"], sort=False):
        runs = {r: dict(zip(x["option_order"], x["choice"])) for r, x in q.groupby("run")}
        xd = xn = sd = sn = 0
        for picks in runs.values():  # across orders, one run: the order's effect plus sampling
            c = list(picks.values())
            for i in range(len(c)):
                for j in range(i + 1, len(c)):
                    xn += 1
                    xd += c[i] != c[j]
        by_order: dict[str, list[int]] = {}
        for picks in runs.values():
            for o, c in picks.items():
                by_order.setdefault(o, []).append(c)
        for c in by_order.values():  # one order, two runs: sampling alone
            for i in range(len(c)):
                for j in range(i + 1, len(c)):
                    sn += 1
                    sd += c[i] != c[j]
        if xn and sn:
            rows.append((terr, qid, xd / xn, sd / sn))
    return pd.DataFrame(rows, columns=["territory", "query_id", "reorder", "resample"])


def position_bias_excess(
    responses: pd.DataFrame,
    *,
    by: Sequence[str] = ("model",),
    deterministic: bool = False,
    n_resamples: int = 1000,
    seed: int | None = None,
    conf: float = 0.95,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """The order's own effect: how much more often answers change with the order than between two runs.

    At temperature > 0 a model with no letter habit at all also names another country when the
    options are reordered, as often as between two runs in one order. Per query (answered in ≥ 2
    orders and ≥ 2 runs), the share of pairs of answers that differ is measured two ways:
    ``reorder`` over pairs in different orders within one run and ``resample`` over pairs in one
    order across runs; under no order effect the two have one expectation. The **excess** is the
    mean over queries of ``reorder − resample`` (paired by query), with a cluster-bootstrap interval
    over territories and a two-sided sign-flip test of the per-territory mean differences
    (``(c + 1)/(n + 1)``); ``significant``: ``p < alpha`` and the interval above 0.

    ``deterministic=True`` (argmax of option scores, or temperature 0): answers cannot change
    between runs, so the reference is 0 and the rate is the order's effect: its interval is the
    cluster score interval of the reorder rate (:func:`bordir.stats.rate_interval`, territories)
    and ``significant`` means that interval excludes 0. One run and not deterministic: no
    reference; ``basis`` says so and nothing is significant.

    Columns: the ``by`` keys, ``basis`` (``resample`` / ``deterministic`` / ``one run``),
    ``n_queries``, ``n_territories``, ``reorder``, ``resample``, ``excess``, ``low``, ``high``,
    ``p_value``, ``significant``, ``power_10`` (the test's power against a 10-point excess with
    these territories and their spread), ``signature``.

    Example:
        >>> rows = [dict(model="m", mode="no_ir", run=r, query_id=q, territory=f"t{q}", option_order=o,
        ...              outcome="answered", choice=(q + r) % 2, query_lang="en", is_control=False)
        ...         for r in range(3) for q in range(12) for o in ("given", "reversed")]
        >>> ex = position_bias_excess(pd.DataFrame(rows), n_resamples=200, seed=1).iloc[0]
        >>> float(ex["reorder"]), round(float(ex["resample"]), 3), bool(ex["significant"])
        (0.0, 0.667, False)
    """
    seed = resolve_seed(seed)
    df = responses[responses["outcome"] == "answered"].copy()
    df["option_order"] = orders_of(df).to_numpy()
    df["choice"] = df["choice"].astype(int)
    cols = [
        *by,
        "basis",
        "n_queries",
        "n_territories",
        "reorder",
        "resample",
        "excess",
        "low",
        "high",
        "p_value",
        "significant",
        "power_10",
        "signature",
    ]
    out = []
    for key, g in df.groupby(list(by), sort=False) if by else [((), df)]:
        key = key if isinstance(key, tuple) else (key,)
        fields = dict(zip(by, key))
        g = g.drop_duplicates(["mode", "run", "query_id", "option_order"], keep="last")
        g = g.assign(query_id=g["mode"].astype(str) + "/" + g["query_id"].astype(str))
        if g["option_order"].nunique() < 2:
            continue
        n_runs = int(g["run"].nunique())
        basis = "deterministic" if deterministic else "resample" if n_runs >= 2 else "one run"
        rec: dict[str, object] = {**fields, "basis": basis}
        if basis == "resample":
            q = _pair_rates(g)
            if q.empty:
                continue
            q["d"] = q["reorder"] - q["resample"]
            per = q.groupby("territory")[["d"]].agg(["sum", "count"])
            sums, counts = per[("d", "sum")].to_numpy(float), per[("d", "count")].to_numpy(float)
            w = bootstrap_weights(len(per), n_resamples, np.random.default_rng(seed))
            lo, hi, _ = percentile_bounds((w @ sums) / (w @ counts), conf)
            p = sign_flip_test(sums / counts, n_permutations=n_resamples, seed=seed)
            sd = float(np.std(sums / counts, ddof=1)) if len(per) > 1 else 0.0
            rec |= {
                "n_queries": len(q),
                "n_territories": len(per),
                "reorder": float(q["reorder"].mean()),
                "resample": float(q["resample"].mean()),
                "excess": float(q["d"].mean()),
                "low": lo,
                "high": hi,
                "p_value": p,
                "significant": bool(p < alpha and lo is not None and lo > 0),
                # the sign-flip test's power against a 10-point excess with these territories
                "power_10": analytic_power(len(per), 0.10, sd, alpha=alpha) if sd > 0 else None,
            }
        else:
            items = order_items(g)
            items = items[items["comparable"]]
            if items.empty:
                continue
            per = items.groupby("territory")[["changed"]].agg(["sum", "count"])
            ci = rate_interval(
                per[("changed", "sum")].to_numpy(float),
                per[("changed", "count")].to_numpy(float),
                conf=conf,
            )
            rec |= {
                "n_queries": len(items),
                "n_territories": len(per),
                "reorder": ci.value,
                "resample": 0.0 if deterministic else None,
                "excess": ci.value if deterministic else None,
                "low": ci.low if deterministic else None,
                "high": ci.high if deterministic else None,
                "p_value": None,
                "significant": bool(deterministic and ci.low is not None and ci.low > 0),
                "power_10": None,
            }
        rec["signature"] = str(
            Signature.build(
                "position_bias_excess",
                gen=fields.get("model"),
                mode=fields.get("mode"),
                basis=basis,
                runs=n_runs,
                boot=n_resamples if basis == "resample" else None,
                seed=seed if basis == "resample" else None,
                ci=f"cluster{int(round(conf * 100))}"
                if basis == "resample"
                else f"cwilsoncc{int(round(conf * 100))}",
                test="signflip" if basis == "resample" else None,
            )
        )
        out.append(rec)
    return pd.DataFrame(out, columns=cols)


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
