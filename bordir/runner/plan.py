"""``bordir plan``: how many territories (or runs) a design needs to detect a target difference between modes.

For every cell of the power table (:mod:`bordir.metrics.perlang.power`: query language ×
metric) :func:`plan` reports the territories the config asks, the MDE they give,
and the fewest territories whose MDE is ≤ ``target_mde`` at the same σ_d.

Runs: the paired difference of a territory, averaged over R runs, has variance
σ_d²(R) = σ_T² + σ_W² / R, where σ_W² is the run-to-run variance of one
territory's difference and σ_T² the rest. Before any run σ_W² is unknown and
taken as 0 — more runs cannot help then, and the plan says so. With ``run_dir``
(a finished run of the same design) σ_T² and σ_W² are estimated from its
per-run, per-territory differences of every IR mode against ``no_ir`` (median over
modes), and the plan also gives the fewest runs (up to :data:`MAX_RUNS`) whose
MDE reaches the target with the territories asked.

Example:
    >>> from bordir.experiment.config import ExperimentConfig
    >>> p = plan(ExperimentConfig.from_dict({"models": ["mock/first"], "modes": "no_ir,qlang"}), 0.5)
    >>> row = p[(p["query_lang"] == "*") & (p["metric"] == "kb_cs")].iloc[0]
    >>> int(row["n_territories"]), int(row["territories_needed"]), row["runs_needed"] is None
    (10, 15, True)
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..experiment.config import ExperimentConfig
from ..metrics.perlang.power import ALPHA, PLANNING_SD, POWER, mde, min_territories
from ..metrics.perlang.power_tables import design_power

if TYPE_CHECKING:
    from ..dataset import BorderLines

__all__ = ["MAX_RUNS", "PLAN_COLUMNS", "plan", "run_components"]

MAX_RUNS = 100
PLAN_COLUMNS = (
    "query_lang",
    "metric",
    "n_territories",
    "mde",
    "target_mde",
    "sd",
    "sd_territory",
    "sd_run",
    "territories_needed",
    "runs",
    "runs_needed",
    "note",
)


def run_components(
    responses: pd.DataFrame, dataset: BorderLines, *, baseline: str = "no_ir"
) -> pd.DataFrame:
    """Per (query_lang, metric): σ_T² and σ_W² of the paired per-territory differences (median over modes)."""
    from ..metrics.perlang.power_tables import per_territory

    rows = []
    per_run = []
    for run, g in responses.groupby("run"):
        t = per_territory(g, dataset)
        t["run"] = run
        per_run.append(t)
    if not per_run:
        return pd.DataFrame(columns=["query_lang", "metric", "var_territory", "var_run", "runs"])
    df = pd.concat(per_run, ignore_index=True)
    n_runs = int(df["run"].nunique())
    for (lang, metric), g in df.groupby(["query_lang", "metric"]):
        vt, vw = [], []
        for (_model), gm in g.groupby("model"):
            base = gm[gm["mode"] == baseline].set_index(["territory", "run"])["value"]
            for mode, gx in gm.groupby("mode"):
                if mode == baseline:
                    continue
                d = (gx.set_index(["territory", "run"])["value"] - base).dropna().unstack("run")
                if len(d) < 2:
                    continue
                w = float(np.nanmean(d.var(axis=1, ddof=1))) if d.shape[1] > 1 else 0.0
                between = float(d.mean(axis=1).var(ddof=1))
                vw.append(w)
                vt.append(max(between - w / d.shape[1], 0.0))
        if vt:
            rows.append(
                {
                    "query_lang": lang,
                    "metric": metric,
                    "var_territory": float(np.median(vt)),
                    "var_run": float(np.median(vw)),
                    "runs": n_runs,
                }
            )
    return pd.DataFrame(rows, columns=["query_lang", "metric", "var_territory", "var_run", "runs"])


def plan(
    cfg: ExperimentConfig,
    target_mde: float,
    *,
    run_dir: str | Path | None = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> pd.DataFrame:
    """One row per power-table cell: MDE now, and the territories (and runs) needed for ``target_mde``."""
    from ..experiment.inputs import load_dataset_of, select_queries

    if not 0 < target_mde <= 1:
        from ..errors import ConfigError

        raise ConfigError(
            f"target_mde must be in (0, 1] (a difference in CS units, 0.05 = 5 points), "
            f"found {target_mde}"
        )
    ds = load_dataset_of(cfg)
    queries = select_queries(cfg, ds)
    design = design_power(queries, ds, runs=len(cfg.seeds), alpha=alpha, power=power)
    comps = None
    if run_dir is not None:
        from ..experiment.rundir import read_run_dir

        run = read_run_dir(run_dir)
        comps = run_components(run.responses, run.dataset).set_index(["query_lang", "metric"])
    rows = []
    runs = len(cfg.seeds)
    for r in design.itertuples():
        sd_t, sd_w, note = (
            PLANNING_SD,
            0.0,
            "σ_d: planning value; run-to-run part unknown (pass --run RUN_DIR)",
        )
        if comps is not None and (r.query_lang, r.metric) in comps.index:
            c = comps.loc[(r.query_lang, r.metric)]
            sd_t, sd_w = math.sqrt(c["var_territory"]), math.sqrt(c["var_run"])
            note = f"σ_T, σ_W estimated from {int(c['runs'])} runs of {run_dir}"
        sd = math.sqrt(sd_t**2 + sd_w**2 / runs)
        # runs only count when they differ (σ_W > 0): then the pooled differences are not ternary
        model_runs = runs if sd_w > 0 else 1
        now = mde(r.n_territories, sigma_d=sd, alpha=alpha, power=power, runs=model_runs)
        need_t = min_territories(target_mde, sigma_d=sd, alpha=alpha, power=power, runs=model_runs)
        need_r = None
        if sd_w > 0:
            for k in range(1, MAX_RUNS + 1):
                m = mde(
                    r.n_territories,
                    sigma_d=math.sqrt(sd_t**2 + sd_w**2 / k),
                    alpha=alpha,
                    power=power,
                    runs=k,
                )
                if m is not None and m <= target_mde + 1e-9:
                    need_r = k
                    break
        if need_r is None and sd_w > 0:
            note += f"; more runs cannot reach it with {r.n_territories} territories (up to {MAX_RUNS} runs tried)"
        rows.append(
            {
                "query_lang": r.query_lang,
                "metric": r.metric,
                "n_territories": r.n_territories,
                "mde": now,
                "target_mde": target_mde,
                "sd": sd,
                "sd_territory": sd_t,
                "sd_run": sd_w,
                "territories_needed": need_t,
                "runs": runs,
                "runs_needed": need_r,
                "note": note,
            }
        )
    return (
        pd.DataFrame(rows, columns=list(PLAN_COLUMNS))
        .astype(object)
        .where(lambda d: d.notna(), None)
    )
