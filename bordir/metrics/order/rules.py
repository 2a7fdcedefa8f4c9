"""Option-order metrics: position bias, pick rates by letter and country, order-debiased and calibrated CS.

Input: a responses table asked in several option orders (column ``option_order``,
see :mod:`bordir.option_orders`), ``choice`` always the *given* index of the
picked claimant (so it names the same country in every order) and
``choice_position`` the letter picked (0 = A; derived from ``option_order`` when
absent).

Per item (one row per model × mode × run × query, :func:`order_items`): the
country picked in each order, ``stable`` (answered in every order, always the
same country) and ``changed`` (answered in at least two orders, with different
countries). Every aggregate is a function of that table:

* **position-bias rate** = #changed / #queries answered in ≥ 2 orders
  (:func:`position_bias`; a cluster-bootstrap CI over territories). A model that
  always picks A has rate 1 with two orders; a deterministic model that reads the question, 0.
  Under sampling (temperature > 0) two orders disagree by chance as often as two runs in one order:
  the order's own effect is the **excess** of the reorder changes over the same-order re-sampling
  changes, paired by query (:func:`position_bias_excess`, with its interval and test); for rank
  classification :func:`argmax_responses` gives the rate of the scores themselves (temperature 0).
* **pick rate by letter** = #answers at letter L / #answers, against the
  uniform rate Σᵢ [L < nᵢ]/nᵢ / #answers (nᵢ options in answer i)
  (:func:`letter_pick_rates`); **by country**: #times country c picked / #answers
  offering c, against Σ 1/nᵢ over those answers (:func:`country_pick_rates`).
* CS metrics under four **rules** (:func:`order_metrics`), each through the
  ordinary per-territory statistics of :mod:`bordir.metrics.cs` (strict policy):

  - ``given`` — the given order only, as BorderLines and BordIRLines ask;
  - ``stable`` — a query counts only if its country is stable across orders; an
    unstable one is missing (outcome ``multiple``: it named different options in
    different orders), so its comparisons are skipped and counted;
  - ``averaged`` — each answer becomes the distribution p over claimants of its
    picks across the orders; two answers agree with probability Σ_c p₁(c)·p₂(c)
    and an answer is right (KB, Control, Non-control) with probability
    p(controller). With one order this is the ordinary CS; for a model that
    always picks A among two options every p is (½, ½) and Cst CS is ½, not 1;
  - ``calibrated`` — rank classification only: choices re-drawn from
    ``option_logprobs − cf_logprobs`` (:mod:`bordir.runner.calibration`), given order;
    it needs only the given order, so it is available in a run asked in one order too.

Example:
    >>> import pandas as pd
    >>> from bordir.metrics.order.bias import position_bias
    >>> rows = [dict(model="m", mode="no_ir", run=0, query_id=f"T_{l}", territory="T", query_lang=l,
    ...              is_control=l == "en", outcome="answered", option_order=o, choice=c)
    ...         for l in ("en", "xx") for o, c in (("given", 0), ("reversed", 1))]
    >>> items = order_items(pd.DataFrame(rows))
    >>> items["changed"].tolist(), float(position_bias(pd.DataFrame(rows), n_resamples=10)["rate"].iloc[0])
    ([True, True], 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ConfigError
from ...signature import Signature
from ..cs.aggregate import METRICS, aggregate
from ..cs.tables import territory_tables
from .averaged import averaged_territory_tables
from .items import ITEM_KEYS, given_order, order_items, orders_of

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = [
    "RULES",
    "multi_order",
    "stable_responses",
    "calibrated_logprobs",
    "calibrated_responses",
    "has_calibration",
    "order_metrics",
]

RULES: tuple[str, ...] = ("given", "stable", "averaged", "calibrated")
"""The CS rules :func:`order_metrics` knows (see the module docs)."""


def multi_order(responses: pd.DataFrame) -> pd.DataFrame:
    """The rows of the (model, mode) groups asked in at least two option orders."""
    orders = orders_of(responses)
    n = orders.groupby([responses["model"], responses["mode"]]).transform("nunique")
    return responses[(n >= 2).to_numpy()]


def stable_responses(responses: pd.DataFrame) -> pd.DataFrame:
    """Given-order rows where a query whose country is not stable across orders becomes missing (``multiple``)."""
    items = order_items(responses).set_index(list(ITEM_KEYS))["stable"]
    given = given_order(responses).copy()
    idx = pd.MultiIndex.from_frame(given[list(ITEM_KEYS)])
    stable = items.reindex(idx).fillna(False).to_numpy(dtype=bool)
    given.loc[~stable & (given["outcome"] == "answered").to_numpy(), "outcome"] = "multiple"
    given.loc[~stable, "choice"] = -1
    if "choice_name" in given.columns:
        given.loc[~stable, "choice_name"] = ""
    return given


def calibrated_logprobs(logprobs: Sequence[float], cf_logprobs: Sequence[float]) -> list[float]:
    """``lp − lp_cf`` option by option (both in the same option order)."""
    if len(logprobs) != len(cf_logprobs):
        raise ConfigError(
            f"calibration: {len(logprobs)} option scores but {len(cf_logprobs)} content-free scores"
        )
    return [float(a) - float(b) for a, b in zip(logprobs, cf_logprobs)]


def calibrated_responses(
    responses: pd.DataFrame, calibration: pd.DataFrame | None = None, *, temperature: float
) -> pd.DataFrame:
    """Given-order rows with choices re-drawn from calibrated scores (rows without scores become ``failed``).

    The content-free scores (given option order) come from the responses' own ``cf_logprobs`` column (as the
    runner writes it) or from ``calibration``, a table with ``model``, ``query_id``, ``option_order`` and
    ``cf_logprobs`` (:func:`bordir.runner.calibration.run_calibration`).
    """
    from ...generation.choice import choose_option

    df = given_order(responses).copy()
    if calibration is not None:
        cf = {
            (m, q, o): lp
            for m, q, o, lp in zip(
                calibration["model"],
                calibration["query_id"],
                calibration["option_order"],
                calibration["cf_logprobs"],
            )
        }
        cfs = [cf.get((m, q, "given")) for m, q in zip(df["model"], df["query_id"])]
    else:
        cfs = list(df["cf_logprobs"]) if "cf_logprobs" in df.columns else [None] * len(df)
    outcome, choice = [], []
    for lp, c, seed, oc in zip(df["option_logprobs"], cfs, df["seed"], df["outcome"]):
        if lp is None or c is None or oc == "failed":
            outcome.append("failed")
            choice.append(-1)
            continue
        outcome.append("answered")
        choice.append(choose_option(calibrated_logprobs(list(lp), list(c)), temperature, int(seed)))
    df["outcome"], df["choice"] = outcome, choice
    return df


def has_calibration(responses: pd.DataFrame) -> bool:
    """True when the responses carry content-free scores (``cf_logprobs``) for their rank-classification rows."""
    return "cf_logprobs" in responses.columns and bool(responses["cf_logprobs"].notna().any())


def order_metrics(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    rules: Sequence[str] = ("given", "stable", "averaged"),
    calibration: pd.DataFrame | None = None,
    temperature: float = 0.0,
) -> pd.DataFrame:
    """Every CS metric per (model, mode, rule): the mean over runs and the per-run values.

    ``stable`` and ``averaged`` cover the (model, mode) groups asked in at least two orders only.
    Columns: ``model``, ``mode``, ``rule``, ``metric``, ``value`` (mean over runs of the defined values, None
    when no run defines it), ``n_runs``, ``runs`` (per-run values), ``signature``. ``calibrated`` needs
    content-free scores (the responses' ``cf_logprobs`` column, or ``calibration``) and the run's ``temperature``.
    """
    bad = [r for r in rules if r not in RULES]
    if bad:
        raise ConfigError(f"unknown order rule(s) {', '.join(bad)}; known: {', '.join(RULES)}")
    orders = ",".join(
        sorted(set(orders_of(responses)), key=lambda o: (o != "given", o != "reversed", o))
    )
    out = []
    for rule in rules:
        if rule == "given":
            tables = territory_tables(given_order(responses), dataset, validate=False)
        elif rule == "stable":  # only (model, mode) groups asked in several orders have a stability
            multi = multi_order(responses)
            tables = (
                territory_tables(stable_responses(multi), dataset, validate=False)
                if len(multi)
                else {}
            )
        elif rule == "averaged":
            multi = multi_order(responses)
            tables = averaged_territory_tables(multi, dataset) if len(multi) else {}
        else:
            if (calibration is None or not len(calibration)) and not has_calibration(responses):
                continue
            tables = territory_tables(
                calibrated_responses(responses, calibration, temperature=temperature),
                dataset,
                validate=False,
            )
        by_cfg: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for (model, mode, _run), ts in tables.items():
            by_cfg.setdefault((model, mode), []).append(aggregate(ts.table))
        for (model, mode), runs in by_cfg.items():
            for metric in METRICS:
                vals = [r[metric].value for r in runs]
                ok = [v for v in vals if v is not None]
                sig = Signature.build(
                    metric,
                    mode=mode,
                    gen=model,
                    runs=len(runs),
                    orders=orders,
                    rule=rule,
                    calib="cf:na-noir" if rule == "calibrated" else None,
                    policy="strict",
                )
                out.append(
                    {
                        "model": model,
                        "mode": mode,
                        "rule": rule,
                        "metric": metric,
                        "value": float(np.mean(ok)) if ok else None,
                        "n_runs": len(runs),
                        "runs": vals,
                        "signature": str(sig),
                    }
                )
    return pd.DataFrame(
        out, columns=["model", "mode", "rule", "metric", "value", "n_runs", "runs", "signature"]
    )
