"""A run's numbers as tidy tables: its scores, summary and paired comparisons, one row each.

Pure functions of the responses table (and, for :func:`summary`, the run as the
summary reads it, :class:`~bordir.metrics.summary.scored.ScoredRun`); the
:class:`~bordir.runner.result.Run` methods ``scores()``, ``summary()`` and
``compare()`` call them. Every row carries a signature built from the
responses' own signatures (:func:`metric_signature`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from ...errors import ConfigError
from ...signature import Signature

if TYPE_CHECKING:
    from ...dataset import BorderLines
    from ..responses import Policy
    from .scored import ScoredRun

__all__ = ["RUN_RESAMPLES", "given", "metric_signature", "scores", "summary", "compare"]

RUN_RESAMPLES = 1000
"""Resamples and permutations of :func:`summary` and :func:`compare` by default (the report uses more)."""


def given(responses: pd.DataFrame) -> pd.DataFrame:
    """The responses asked in the given option order (all of them unless ``option_orders`` was set)."""
    from ..order.items import given_order

    return given_order(responses)


def _signature(responses: pd.DataFrame, policy: Policy, model: str, mode: str) -> Signature:
    """The responses' own signature for (model, mode), else one built from the policy."""
    sub = responses[(responses["model"] == model) & (responses["mode"] == mode)]
    sigs = sub["signature"].dropna().astype(str).unique() if "signature" in sub.columns else []
    if len(sigs) == 1:
        return Signature.parse(sigs[0])
    return Signature.build("responses", mode=mode, gen=model, policy=policy)


def metric_signature(
    responses: pd.DataFrame, policy: Policy, metric: str, model: str, mode: str, /, **extra: Any
) -> Signature:
    """``metric``'s signature: the (model, mode) responses' fields plus ``extra`` (None drops one)."""
    base = _signature(responses, policy, model, mode)
    fields = {k: v for k, v in base.fields if k != "version"}
    fields.update({k: v for k, v in extra.items() if v is not None})
    return Signature.build(metric, **fields, version=base.get("version"))


def scores(responses: pd.DataFrame, dataset: BorderLines, *, policy: Policy) -> pd.DataFrame:
    """Every CS metric per (model, mode, run), with counts and a signature (one tidy row each)."""
    from ..cs.scoring import score_responses

    df = score_responses(given(responses), dataset, policy=policy)
    df["signature"] = [
        str(metric_signature(responses, policy, m, model, mode))
        for m, model, mode in zip(df["metric"], df["model"], df["mode"])
    ]
    return df


def summary(
    run: ScoredRun,
    responses: pd.DataFrame,
    *,
    n_resamples: int = RUN_RESAMPLES,
    seed: int | None = None,
) -> pd.DataFrame:
    """Mean over runs with its t-interval and the cluster-bootstrap interval, per (model, mode, metric).

    ``boot_low`` / ``boot_high`` are NaN where no interval over territories is given, and
    ``boot_refused`` says why (fewer than 5 contributing territories, an infinite bound …).
    The numbers are the report's (:func:`bordir.metrics.summary.build.build_metrics` of ``run``);
    the signatures are built from ``responses`` (the whole table, every option order).
    """
    from ...stats import resolve_seed
    from .build import build_metrics
    from .names import CI_RUNS

    seed = resolve_seed(seed)
    metrics = build_metrics(run, n_resamples=n_resamples, seed=seed)
    policy = run.config.policy
    rows = []
    for model, modes in metrics["results"].items():
        for mode, cell in modes.items():
            for m, e in cell["metrics"].items():
                ci, boot = e["ci95"] or [None, None], e["boot95"] or [None, None]
                sig = metric_signature(
                    responses,
                    policy,
                    m,
                    model,
                    mode,
                    runs=e["n_runs"],
                    ci=CI_RUNS,
                    boot=n_resamples,
                    seed=seed,
                )
                rows.append(
                    {
                        "model": model,
                        "mode": mode,
                        "metric": m,
                        "n_runs": e["n_runs"],
                        "mean": e["mean"],
                        "low": ci[0],
                        "high": ci[1],
                        "boot_low": boot[0],
                        "boot_high": boot[1],
                        "boot_refused": (e.get("bootstrap") or {}).get("refused"),
                        "note": e["note"],
                        "signature": str(sig),
                    }
                )
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "mode",
            "metric",
            "n_runs",
            "mean",
            "low",
            "high",
            "boot_low",
            "boot_high",
            "boot_refused",
            "note",
            "signature",
        ],
    )


def compare(
    responses: pd.DataFrame,
    dataset: BorderLines,
    mode_a: str,
    mode_b: str,
    by: str | None = None,
    *,
    policy: Policy,
    metric: str | None = None,
    model: str | None = None,
    n_resamples: int = RUN_RESAMPLES,
    seed: int | None = None,
    min_territories: int | None = None,
    alpha: float = 0.05,
) -> Any:
    """Paired comparison from ``mode_a`` to ``mode_b``: diff = B − A (:meth:`bordir.runner.result.Run.compare`).

    ``metric`` defaults to :data:`~bordir.metrics.perlang.measures.DEFAULT_MEASURE` (as ``bordir
    compare``). A per-language measure goes through
    :func:`~bordir.metrics.perlang.compare.compare_by` (``by`` None: every language pooled, group
    ``*``); a CS metric (``cst_cs``, ``delta_cs`` …, pooled over languages by definition) through
    the paired comparison of the territory tables, without ``by``. Both return the columns
    :data:`~bordir.metrics.perlang.compare.COMPARE_COLUMNS` and follow one rule for what is tested
    and what gets an interval (:mod:`bordir.metrics.intervals.paired_rule`).
    """
    from ...modes import Mode
    from ...stats import resolve_seed
    from ..cs.aggregate import METRICS
    from ..intervals.paired_rule import resolve_min_territories
    from ..perlang.measures import DEFAULT_MEASURE

    a, b = Mode.parse(mode_a).value, Mode.parse(mode_b).value
    seed = resolve_seed(seed)
    metric = metric or DEFAULT_MEASURE
    min_territories = resolve_min_territories(min_territories, alpha)
    if metric not in METRICS:
        from ..perlang.compare import compare_by
        from ..perlang.items import GROUPINGS, Grouping

        grouping = by or "all"
        if grouping not in GROUPINGS:
            raise ConfigError(f"unknown grouping by={by!r}; known: {', '.join(GROUPINGS)}")
        return compare_by(
            given(responses),
            dataset,
            a,
            b,
            by=cast(Grouping, grouping),  # checked just above
            metric=metric,
            model=model,
            resamples=n_resamples,
            seed=seed,
            policy=policy,
            min_territories=min_territories,
            alpha=alpha,
        )
    if by is not None:
        from ..perlang.measures import get_measure

        get_measure(metric)  # a CS metric per language: the error says which measure to use
    return _cs_compare(
        responses,
        dataset,
        a,
        b,
        policy=policy,
        metric=metric,
        models=[model] if model else list(dict.fromkeys(responses["model"])),
        n_resamples=n_resamples,
        seed=seed,
        min_territories=min_territories,
        alpha=alpha,
    )


def _cs_compare(
    responses: pd.DataFrame,
    dataset: BorderLines,
    a: str,
    b: str,
    *,
    policy: Policy,
    metric: str,
    models: list[str],
    n_resamples: int,
    seed: int,
    min_territories: int,
    alpha: float,
) -> pd.DataFrame:
    """A CS metric from ``a`` to ``b`` per model, in :data:`COMPARE_COLUMNS` (group ``*``, Holm over models).

    ``n_items_*`` count the responses of each side (given option order); ``power_*`` are NaN (the
    power model is the per-language measures' mean of per-territory shares, not a CS ratio).
    """
    import math

    from ...stats import holm
    from ..cs.tables import territory_tables
    from ..intervals.aligned import contributing_territories, pool_runs
    from ..intervals.paired import defined_on_both, paired_comparison
    from ..intervals.paired_rule import interval_refused, paired_status
    from ..perlang.pairing import COMPARE_COLUMNS

    rows_in = given(responses)
    tables = territory_tables(rows_in, dataset, policy=policy)
    rows: list[dict[str, Any]] = []
    for mdl in models:
        ta = [s for key, s in tables.items() if key.model == mdl and key.mode == a]
        tb = [s for key, s in tables.items() if key.model == mdl and key.mode == b]
        if not ta or not tb:
            raise ConfigError(
                f"model {mdl!r} has no responses in mode {a if not ta else b!r}; "
                f"modes present: {', '.join(dict.fromkeys(responses['mode']))}"
            )
        pa, pb = pool_runs(ta), pool_runs(tb)
        pc = paired_comparison(  # B first: diff = B − A
            pb,
            pa,
            metric,
            label_a=b,
            label_b=a,
            n_resamples=n_resamples,
            n_permutations=n_resamples,
            seed=seed,
        )
        n = defined_on_both(pa, pb, metric)
        status = paired_status(n, min_territories) if pc.diff is not None else "undefined"
        refused = interval_refused(n)
        judged = status == "judged"
        sub = rows_in[rows_in["model"] == mdl]
        n_runs = max(len(ta), len(tb))
        sig = metric_signature(
            responses,
            policy,
            metric,
            mdl,
            a,
            mode=None,
            cmp=f"{a}-vs-{b}",
            runs=n_runs,
            boot=n_resamples,
            perm=n_resamples,
            seed=seed,
            holm="yes",
            min_terr=min_territories,
        )
        nan = math.nan
        rows.append(
            {
                "factor": "mode",
                "model": mdl,
                "mode": None,
                "a": a,
                "b": b,
                "metric": metric,
                "by": "all",
                "group": "*",
                "languages": ",".join(sorted(map(str, set(sub["query_lang"])))),
                "value_a": nan if pc.value_b is None else pc.value_b,
                "value_b": nan if pc.value_a is None else pc.value_a,
                "diff": nan if pc.diff is None else pc.diff,
                "ci_low": pc.low if judged and refused is None and pc.low is not None else nan,
                "ci_high": pc.high if judged and refused is None and pc.high is not None else nan,
                "ci_refused": refused,
                "p_value": pc.p_value if judged else nan,
                "p_holm": nan,
                "significant": False,
                "status": status,
                "n_territories": n,
                "n_territories_a": contributing_territories(pa, metric),
                "n_territories_b": contributing_territories(pb, metric),
                "n_items_a": int((sub["mode"] == a).sum()),
                "n_items_b": int((sub["mode"] == b).sum()),
                "n_runs_a": len(ta),
                "n_runs_b": len(tb),
                "power_10": nan,
                "power_20": nan,
                "power_alpha": nan,
                "signature": str(sig),
            }
        )
    judged_rows = [r for r in rows if r["status"] == "judged"]
    if judged_rows:
        adjusted, reject = holm([float(r["p_value"]) for r in judged_rows], alpha=alpha)
        for r, p, rej in zip(judged_rows, adjusted, reject):
            r["p_holm"], r["significant"] = float(p), bool(rej)
    return pd.DataFrame(rows, columns=list(COMPARE_COLUMNS))
