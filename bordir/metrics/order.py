"""Option-order metrics: position bias, pick rates by letter and country, order-debiased and calibrated CS.

Input: a responses table asked in several option orders (column ``option_order``,
see :mod:`bordir.experiment.orders`), ``choice`` always the *given* index of the
picked claimant (so it names the same country in every order) and
``choice_position`` the letter picked (0 = A; derived from ``option_order`` when
absent).

Per item (one row per model × mode × run × query, :func:`order_items`): the
country picked in each order, ``stable`` (answered in every order, always the
same country) and ``changed`` (answered in at least two orders, with different
countries). Every aggregate is a function of that table:

* **position-bias rate** = #changed / #queries answered in ≥ 2 orders
  (:func:`position_bias`; a cluster-bootstrap CI over territories). A model that
  always picks A has rate 1 with two orders; a model that reads the question, 0.
  Under sampling (temperature > 0) two orders can disagree by chance: :func:`seed_change_rate` (same
  order, next run) is the reference, and for rank classification :func:`argmax_responses` gives the
  rate of the scores themselves (temperature 0).
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
    ``option_logprobs − cf_logprobs`` (:mod:`bordir.experiment.calibration`), given order;
    it needs only the given order, so it is available in a run asked in one order too.

Example:
    >>> import pandas as pd
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

from ..errors import ConfigError
from .cs import METRICS, aggregate, territory_tables
from .order_averaged import averaged_territory_tables
from .signature import Signature
from .uncertainty import bootstrap_weights, resolve_seed

if TYPE_CHECKING:  # pragma: no cover
    from ..dataset import BorderLines

__all__ = [
    "RULES",
    "ITEM_KEYS",
    "given_order",
    "with_positions",
    "order_items",
    "position_bias",
    "argmax_responses",
    "seed_change_rate",
    "letter_pick_rates",
    "country_pick_rates",
    "multi_order",
    "stable_responses",
    "averaged_territory_tables",
    "calibrated_responses",
    "has_calibration",
    "order_metrics",
]

RULES: tuple[str, ...] = ("given", "stable", "averaged", "calibrated")
"""The CS rules :func:`order_metrics` knows (see the module docs)."""
ITEM_KEYS: tuple[str, ...] = ("model", "mode", "run", "query_id")


def _orders_of(df: pd.DataFrame) -> pd.Series:
    """``option_order`` as strings; a table without it, or a row with none, is in the given order."""
    if "option_order" not in df.columns:
        return pd.Series("given", index=df.index)
    return df["option_order"].where(df["option_order"].notna(), "given").astype(str)


def given_order(responses: pd.DataFrame) -> pd.DataFrame:
    """The rows asked in the given order (all rows of a table without ``option_order``)."""
    if "option_order" not in responses.columns:
        return responses
    return responses[(_orders_of(responses) == "given").to_numpy()].reset_index(drop=True)


def _perm(name: str, n: int) -> tuple[int, ...]:
    from ..experiment.orders import OptionOrder

    return OptionOrder.parse(name, n).perm


def with_positions(responses: pd.DataFrame, dataset: BorderLines | None = None) -> pd.DataFrame:
    """``responses`` with ``option_order``, ``n_options`` and ``choice_position`` filled in.

    ``n_options`` comes from ``dataset`` (the territory's claimants), else from ``option_logprobs``, else from
    the order's name; ``choice_position`` (−1 unless answered) from the order when the column is missing.
    """
    df = responses.copy()
    df["option_order"] = _orders_of(df).to_numpy()
    if "n_options" not in df.columns:
        if dataset is not None:
            df["n_options"] = [len(dataset.territory(t).claimants) for t in df["territory"]]
        elif "option_logprobs" in df.columns:
            df["n_options"] = [len(x) if x is not None else 2 for x in df["option_logprobs"]]
        else:
            df["n_options"] = [len(o.split(",")) if "," in o else 2 for o in df["option_order"]]
    if "choice_position" not in df.columns or df["choice_position"].isna().any():
        pos = []
        for o, c, n in zip(df["option_order"], df["choice"], df["n_options"]):
            pos.append(-1 if int(c) < 0 else _perm(o, int(n)).index(int(c)))
        df["choice_position"] = pos
    answered = (df["outcome"] == "answered").to_numpy()
    df.loc[~answered, "choice_position"] = -1
    return df


def order_items(responses: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, mode, run, query): its picks per order, ``stable`` and ``changed`` (see module docs)."""
    df = responses.copy()
    df["option_order"] = _orders_of(df).to_numpy()
    rows = []
    for key, g in df.groupby(list(ITEM_KEYS), sort=True):
        ans = g[g["outcome"] == "answered"]
        picks = dict(zip(ans["option_order"], ans["choice"].astype(int)))
        n_orders = int(g["option_order"].nunique())
        distinct = set(picks.values())
        given = g[g["option_order"] == "given"]
        rows.append(
            {
                **dict(zip(ITEM_KEYS, key)),
                "territory": g["territory"].iloc[0],
                "query_lang": g["query_lang"].iloc[0],
                "is_control": bool(g["is_control"].iloc[0]),
                "n_orders": n_orders,
                "n_answered": len(picks),
                "picks": ";".join(f"{o}={c}" for o, c in sorted(picks.items())),
                "given_choice": int(given["choice"].iloc[0]) if len(given) else -1,
                "stable": n_orders >= 2 and len(picks) == n_orders and len(distinct) == 1,
                "changed": len(picks) >= 2 and len(distinct) > 1,
                "comparable": len(picks) >= 2,
            }
        )
    cols = [
        *ITEM_KEYS,
        "territory",
        "query_lang",
        "is_control",
        "n_orders",
        "n_answered",
        "picks",
        "given_choice",
        "stable",
        "changed",
        "comparable",
    ]
    return pd.DataFrame(rows, columns=cols)


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
    boot = boot[~np.isnan(boot)]
    a = (1 - conf) / 2
    lo, hi = np.quantile(boot, [a, 1 - a]) if len(boot) else (np.nan, np.nan)
    return float(n.sum() / d.sum()), float(lo), float(hi)


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
        sorted(set(_orders_of(responses)), key=lambda o: (o != "given", o != "reversed", o))
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
    df["option_order"] = _orders_of(df).to_numpy()
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


def multi_order(responses: pd.DataFrame) -> pd.DataFrame:
    """The rows of the (model, mode) groups asked in at least two option orders."""
    orders = _orders_of(responses)
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


def calibrated_responses(
    responses: pd.DataFrame, calibration: pd.DataFrame | None = None, *, temperature: float
) -> pd.DataFrame:
    """Given-order rows with choices re-drawn from calibrated scores (rows without scores become ``failed``).

    The content-free scores (given option order) come from the responses' own ``cf_logprobs`` column (as the
    runner writes it) or from ``calibration``, a table with ``model``, ``query_id``, ``option_order`` and
    ``cf_logprobs`` (:func:`bordir.experiment.calibration.run_calibration`).
    """
    from ..experiment.calibration import calibrated_logprobs
    from ..generation.backends.local import choose_option

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
        sorted(set(_orders_of(responses)), key=lambda o: (o != "given", o != "reversed", o))
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
