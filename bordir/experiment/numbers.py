"""The numbers of an in-memory :class:`~bordir.experiment.run.Run`: its scores, summary and paired comparisons.

The :class:`~bordir.experiment.run.Run` methods ``scores()``, ``summary()`` and
``compare()`` delegate here; every row carries a signature built from the run's
own response signatures (:func:`metric_signature`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from ..errors import ConfigError
from ..metrics.signature import Signature

if TYPE_CHECKING:
    from .run import Run
    from .rundir import RunDir

__all__ = ["DEFAULT_RESAMPLES", "given", "metric_signature", "scores", "summary", "compare"]

DEFAULT_RESAMPLES = 1000


def given(run: Run) -> pd.DataFrame:
    """The responses asked in the given option order (all of them unless ``option_orders`` was set)."""
    from ..metrics.order import given_order

    return given_order(run.responses)


def _rundir(run: Run) -> RunDir:
    """The run as the report reads it (validated responses in the given order)."""
    from ..metrics.responses import validate_responses
    from .rundir import RunDir

    resp = validate_responses(given(run), run.dataset)
    return RunDir(
        path=run.path or Path("."),
        info=run.info,
        config=run.config,
        dataset=run.dataset,
        responses=resp,
    )


def _signature(run: Run, model: str, mode: str) -> Signature:
    """The responses' own signature for (model, mode), else one built from the config."""
    sub = run.responses[(run.responses["model"] == model) & (run.responses["mode"] == mode)]
    sigs = sub["signature"].dropna().astype(str).unique() if "signature" in sub.columns else []
    if len(sigs) == 1:
        return Signature.parse(sigs[0])
    return Signature.build("responses", mode=mode, gen=model, policy=run.config.policy)


def metric_signature(run: Run, metric: str, model: str, mode: str, /, **extra: Any) -> Signature:
    """``metric``'s signature: the (model, mode) responses' fields plus ``extra`` (None drops one)."""
    base = _signature(run, model, mode)
    fields = {k: v for k, v in base.fields if k != "version"}
    fields.update({k: v for k, v in extra.items() if v is not None})
    return Signature.build(metric, **fields, version=base.get("version"))


def scores(run: Run) -> pd.DataFrame:
    """Every CS metric per (model, mode, run), with counts and a signature (one tidy row each)."""
    from ..metrics.scoring import score_responses

    df = score_responses(given(run), run.dataset, policy=run.config.policy)
    df["signature"] = [
        str(metric_signature(run, m, model, mode))
        for m, model, mode in zip(df["metric"], df["model"], df["mode"])
    ]
    return df


def summary(
    run: Run, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None
) -> pd.DataFrame:
    """Mean over runs with its t-interval and the cluster-bootstrap interval, per (model, mode, metric).

    Reuses the report's computation (:func:`bordir.report.metrics.build_metrics`).
    """
    from ..metrics.uncertainty import resolve_seed
    from ..report.metrics import CI_RUNS, build_metrics

    seed = resolve_seed(seed)
    metrics = build_metrics(_rundir(run), n_resamples=n_resamples, seed=seed)
    rows = []
    for model, modes in metrics["results"].items():
        for mode, cell in modes.items():
            for m, e in cell["metrics"].items():
                ci, boot = e["ci95"] or [None, None], e["boot95"] or [None, None]
                sig = metric_signature(
                    run, m, model, mode, runs=e["n_runs"], ci=CI_RUNS, boot=n_resamples, seed=seed
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
            "note",
            "signature",
        ],
    )


def compare(
    run: Run,
    mode_a: str,
    mode_b: str,
    by: str | None = None,
    *,
    metric: str | None = None,
    model: str | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> Any:
    """The body of :meth:`bordir.experiment.run.Run.compare` (documented there)."""
    from ..metrics.cs import territory_tables
    from ..metrics.uncertainty import holm_adjust, paired_comparison, pool_runs, resolve_seed
    from ..retrieval.modes import Mode

    a, b = Mode.parse(mode_a).value, Mode.parse(mode_b).value
    models = [model] if model else list(dict.fromkeys(run.responses["model"]))
    seed = resolve_seed(seed)
    if by is not None:
        from ..metrics.perlang import GROUPINGS, Grouping
        from ..metrics.perlang_compare import compare_by
        from ..metrics.perlang_measures import DEFAULT_MEASURE

        if by not in GROUPINGS:
            raise ConfigError(f"unknown grouping by={by!r}; known: {', '.join(GROUPINGS)}")
        return compare_by(
            given(run),
            run.dataset,
            a,
            b,
            by=cast(Grouping, by),  # checked just above
            metric=metric or DEFAULT_MEASURE,
            model=model,
            resamples=n_resamples,
            seed=seed,
            policy=run.config.policy,
        )
    metric = metric or "cst_cs"
    tables = territory_tables(given(run), run.dataset, policy=run.config.policy)
    found = []
    for mdl in models:
        ta = [s for key, s in tables.items() if key.model == mdl and key.mode == a]
        tb = [s for key, s in tables.items() if key.model == mdl and key.mode == b]
        if not ta or not tb:
            raise ConfigError(
                f"model {mdl!r} has no responses in mode {a if not ta else b!r}; "
                f"modes present: {', '.join(dict.fromkeys(run.responses['mode']))}"
            )
        found.append(
            (
                mdl,
                paired_comparison(
                    pool_runs(ta),
                    pool_runs(tb),
                    metric,
                    label_a=a,
                    label_b=b,
                    n_resamples=n_resamples,
                    n_permutations=n_resamples,
                    seed=seed,
                ),
                max(len(ta), len(tb)),
            )
        )
    adjusted = holm_adjust([pc for _, pc, _ in found])
    rows = []
    for (mdl, _, n_runs), pc in zip(found, adjusted):
        sig = metric_signature(
            run,
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
        )
        rows.append(
            {
                "model": mdl,
                "metric": metric,
                "mode_a": a,
                "mode_b": b,
                "value_a": pc.value_a,
                "value_b": pc.value_b,
                "diff": pc.diff,
                "low": pc.low,
                "high": pc.high,
                "p_value": pc.p_value,
                "p_holm": pc.p_holm,
                "n_territories": pc.n_territories,
                "signature": str(sig),
            }
        )
    return pd.DataFrame(rows)
