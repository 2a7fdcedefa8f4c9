"""Power tables: the MDE per query language of a design before it runs, and of a run after.

:func:`design_power` plans (σ_d at its planning value), :func:`observed_power` measures (σ_d, the
runs' grid and the differences' shape from the run's own per-territory values,
:func:`per_territory`). Both are rows of :data:`~bordir.metrics.perlang.power.POWER_COLUMNS`
built from the primitives of :mod:`bordir.metrics.perlang.power` (``mde`` …).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...signature import Signature
from .power import (
    ALPHA,
    EXACT_MAX,
    PLANNING_SD,
    POWER,
    POWER_COLUMNS,
    THIN,
    lattice_runs,
    mde,
)
from .shape import Shape, shape_of

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines
    from ...records import Query

__all__ = ["design_power", "observed_power", "per_territory"]


def _row(
    lang: str,
    metric: str,
    n: int,
    sd: float,
    source: str,
    runs: int | None,
    alpha: float,
    power: float,
    model_runs: int | None = None,
    shape: Shape | None = None,
) -> dict[str, Any]:
    """One power-table row; ``runs`` is the design's (signature), ``model_runs`` the model's (default: ``runs``)."""
    r = int(model_runs or runs or 1)
    m = mde(n, sigma_d=sd, alpha=alpha, power=power, runs=r, shape=shape)
    exact = n <= EXACT_MAX and r <= 1
    sig = Signature.build(
        "mde",
        metric=metric,
        lang=lang,
        alpha=alpha,
        power=power,
        test="signflip-exact" if exact else "signflip-normal",
        sd=f"{sd:.3f}",
        sd_src=source,
        runs=runs,
        grid=r if r > 1 else None,
        shape=None if shape is None or r <= 1 else f"{shape[0]:.2f},{shape[1]:.2f}",
    )
    return {
        "query_lang": lang,
        "metric": metric,
        "n_territories": int(n),
        "sd": float(sd),
        "sd_source": source,
        "mde": m,
        "method": "exact" if exact else "analytic",
        "thin": n < THIN,
        "detectable": m is not None,
        "runs": r,
        "skew": None if shape is None else shape[0],
        "kurtosis": None if shape is None else shape[1],
        "signature": str(sig),
    }


def design_power(
    queries: Sequence[Query],
    dataset: BorderLines,
    *,
    sigma_d: float = PLANNING_SD,
    runs: int | None = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> pd.DataFrame:
    """The power table of a design before it is run: per query language, Control and Non-control CS.

    Territories per cell: Control CS in language *l* — territories asked in *l* whose controller's language
    is *l*; Non-control CS — territories asked in *l* with a known controller of another language. The
    ``*`` rows are the pooled metrics (KB CS: territories with a known controller and a control query;
    Cst CS: territories asked in ≥ 2 claimant languages). σ_d is the planning value, that of one
    answer's difference: before a run the run-to-run part is unknown, so the MDE is that of one run
    whatever ``runs`` is (``bordir plan --run RUN_DIR`` estimates it; ``runs`` is in the signature).
    """
    by_terr: dict[str, set[str]] = {}
    for q in queries:
        if not q.is_control or q.lang in dataset.claimant_langs(q.territory):
            by_terr.setdefault(q.territory, set()).add(q.lang)
    control: dict[str, int] = {}
    non: dict[str, int] = {}
    for terr, langs in by_terr.items():
        t = dataset.territory(terr)
        code = dataset.controller_lang(terr)
        for lang in langs & set(dataset.claimant_langs(terr)):
            if not t.controller_known:
                continue
            d = control if lang == code else non
            d[lang] = d.get(lang, 0) + 1
    controls = {q.territory for q in queries if q.is_control}
    n_kb = sum(dataset.territory(t).controller_known for t in controls)
    n_cst = sum(len(langs & set(dataset.claimant_langs(t))) >= 2 for t, langs in by_terr.items())
    rows = [
        _row("*", "kb_cs", n_kb, sigma_d, "planning", runs, alpha, power, 1),
        _row("*", "cst_cs", n_cst, sigma_d, "planning", runs, alpha, power, 1),
    ]
    for lang in sorted(set(control) | set(non)):
        for metric, d in (("control_cs", control), ("non_control_cs", non)):
            if d.get(lang):
                rows.append(_row(lang, metric, d[lang], sigma_d, "planning", runs, alpha, power, 1))
    return pd.DataFrame(rows, columns=list(POWER_COLUMNS))


def per_territory(responses: pd.DataFrame, dataset: BorderLines) -> pd.DataFrame:
    """Per (model, mode, territory, query_lang, metric): the value, runs pooled (mean).

    Read from the long per-territory table of every (model, mode, run) at once
    (:func:`~bordir.metrics.cs.tables.grouped_stats`), in the order the groups have there, so a
    mean adds its runs' values in run order.
    """
    from ..cs.tables import grouped_stats

    g = grouped_stats(responses, dataset, validate=False)
    keys = g.keys
    cols = ["model", "mode", "run", "territory", "query_lang", "metric", "value"]
    if not keys:
        return (
            pd.DataFrame(columns=cols).groupby(cols[:2] + cols[3:6], as_index=False)["value"].mean()
        )

    def long(starts: np.ndarray) -> dict[str, np.ndarray]:
        group = np.repeat(np.arange(len(keys)), np.diff(starts))
        return {
            "model": np.array([k.model for k in keys], dtype=object)[group],
            "mode": np.array([k.mode for k in keys], dtype=object)[group],
            "run": np.array([k.run for k in keys])[group],
        }

    items, table = g.items, g.table
    role = np.asarray(items["role"], dtype=object)
    keep = ~np.asarray(items["missing"]).astype(bool) & np.isin(
        role, np.array(["control", "non_control"], dtype=object)
    )
    per_item, per_terr = long(g.item_starts), long(g.starts)
    parts = [
        {
            **{k: v[keep] for k, v in per_item.items()},
            "territory": np.asarray(items["territory"], dtype=object)[keep],
            "query_lang": np.asarray(items["query_lang"], dtype=object)[keep],
            "metric": np.char.add(role[keep].astype(str), "_cs").astype(object),
            "value": np.asarray(items["agree"]).astype(float)[keep],
        }
    ]
    for metric, num, den in (("kb_cs", "kb_num", "kb_den"), ("cst_cs", "cst_num", "cst_den")):
        m = np.asarray(table[den]) > 0
        parts.append(
            {
                **{k: v[m] for k, v in per_terr.items()},
                "territory": np.asarray(table["territory"], dtype=object)[m],
                "query_lang": np.full(int(m.sum()), "*", dtype=object),
                "metric": np.full(int(m.sum()), metric, dtype=object),
                "value": np.asarray(table[num]).astype(float)[m],
            }
        )
    # every (model, mode, territory, query_lang, metric) comes from one of the parts, whose rows are
    # in (model, mode, run) order: the same values in the same order as one frame per run gave
    df = pd.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in cols})
    return df.groupby(["model", "mode", "territory", "query_lang", "metric"], as_index=False)[
        "value"
    ].mean()


def observed_power(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    baseline: str = "no_ir",
    alpha: float = ALPHA,
    power: float = POWER,
    min_sd: float = 0.0,
) -> pd.DataFrame:
    """The power table of a run: per query language and metric, with σ_d observed on its comparisons.

    For every model and every mode compared with ``baseline`` (as the report compares them), the SD of the
    per-territory differences (runs pooled) on the common territories; σ_d is the median over those
    comparisons (at least ``min_sd``), n the median number of common territories. The MDE counts the
    runs: the pooled differences' grid (:func:`lattice_runs`: 1 when they are all −1, 0 or +1, e.g. a
    temperature-0 model) picks the exact one-run model or the analytic one of several runs (``runs``).
    Without a baseline in the responses, σ_d falls back to :data:`PLANNING_SD` (``sd_source`` says which).
    """
    n_runs = int(responses["run"].nunique()) if len(responses) else 1
    per = per_territory(responses, dataset)
    rows = []
    for (lang, metric), g in per.groupby(["query_lang", "metric"], sort=True):
        sds, ns, diffs = [], [], []
        for _model, gm in g.groupby("model"):
            base = gm[gm["mode"] == baseline].set_index("territory")["value"]
            for mode, gx in gm.groupby("mode"):
                if mode == baseline:
                    continue
                other = gx.set_index("territory")["value"]
                common = base.index.intersection(other.index)
                if len(common) >= 2:
                    d = (other[common] - base[common]).to_numpy(float)
                    sds.append(float(np.std(d, ddof=1)))
                    ns.append(len(common))
                    diffs.append(d)
        shape = None
        if sds:
            sd, n, src = max(float(np.median(sds)), min_sd), int(np.median(ns)), "observed"
            grid = lattice_runs(np.concatenate(diffs), n_runs)
            shapes = [shape_of(d) for d in diffs]
            shape = (
                float(np.median([s[0] for s in shapes])),
                float(np.median([s[1] for s in shapes])),
            )
        else:
            sd, n, src, grid = PLANNING_SD, int(g["territory"].nunique()), "planning", 1
        rows.append(_row(lang, metric, n, sd, src, n_runs, alpha, power, grid, shape))
    order = {"*": 0}
    df = pd.DataFrame(rows, columns=list(POWER_COLUMNS))
    return df.sort_values(
        by=["query_lang", "metric"],
        key=lambda s: s.map(lambda v: (order.get(v, 1), v)) if s.name == "query_lang" else s,
    ).reset_index(drop=True)
