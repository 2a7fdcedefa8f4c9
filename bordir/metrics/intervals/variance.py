"""Where the variance comes from: run-to-run sampling, territory sampling, and judge noise.

A metric of one (model, mode) is the mean over R runs of a ratio over n
territories. Each run's ratio v_r = Σₜ num_tr / Σₜ den_tr is linearised into
per-territory pseudo-values

    y_tr = v_r + n · (num_tr − v_r · den_tr) / Σₜ den_tr      (so meanₜ y_tr = v_r exactly)

(ΔCS: the delta method on Control and Non-control CS). On the n × R table of
y a crossed random-effects ANOVA (territory, run, residual) gives
σ²_T = (MS_T − MS_E)/R, σ²_R = (MS_R − MS_E)/n, σ²_E = MS_E (negative
estimates set to 0), and the variance of the reported mean splits into

    Var = σ²_T / n   (territory sampling: which disputes were asked)
        + σ²_R / R + σ²_E / (n R)   (run-to-run sampling: the seed and temperature).

The run part is estimated as MS_R / (n R), which is unbiased for
σ²_R / R + σ²_E / (n R) and never negative; only the territory part
(MS_T − MS_E) / (n R) is set to 0 when negative. (Setting σ²_R to 0 first
overstated the run part by 20–38 % with 3 runs: ``benchmarks/recovery_variance_order.py``.)

With a judge or annotator axis (an n × R × J array, :func:`decompose`), the
judge main effect σ²_J / J is a third component and the residual
σ²_E / (n R J) a fourth (it mixes run and judge noise). The **shares** are each
component over their sum; their uncertainty is a percentile bootstrap that
resamples territories and runs (and judges) with replacement
(:func:`decompose`, ``n_resamples``). The dominant component says what would
narrow the interval: more territories, more runs, or more judges; it is called
*clear* when the lower bound of its share's interval is above one half.

Territories that never contribute to a metric (denominator 0 in every run) are
left out. With one run, the run component is not identifiable (reported as None).

Example:
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(0, 1, size=(40, 1)) + rng.normal(0, 0.1, size=(40, 5))  # territories dominate
    >>> d = decompose(y, n_resamples=200, seed=1)
    >>> d.dominant, d.share["territory"] > 0.9
    ('territory', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from ...errors import ConfigError
from ...signature import Signature
from ...stats import percentile_bounds, resolve_seed
from ..cs.aggregate import METRICS, RATIO_METRICS
from ..cs.table import TerritoryStats
from ..responses import TableKey

__all__ = [
    "COMPONENTS",
    "Decomposition",
    "components",
    "decompose",
    "pseudo_values",
    "variance_table",
]

COMPONENTS: tuple[str, ...] = ("territory", "run", "judge", "residual")
ADVICE = {
    "territory": "more territories",
    "run": "more runs",
    "judge": "more judges or annotators",
    "residual": "more runs and judges",
}


def components(y: np.ndarray) -> dict[str, float]:
    """Variance components of the grand mean of ``y`` (n × R, or n × R × J); see the module docs."""
    y = np.asarray(y, dtype=float)
    if y.ndim == 2:
        n, r = y.shape
        if n < 2:
            return {"territory": float("nan"), "run": float("nan")}
        g = y.mean()
        mt, mr = y.mean(axis=1), y.mean(axis=0)
        if r < 2:
            return {"territory": float(np.var(mt, ddof=1) / n), "run": float("nan")}
        ms_t = r * ((mt - g) ** 2).sum() / (n - 1)
        ms_r = n * ((mr - g) ** 2).sum() / (r - 1)
        e = y - mt[:, None] - mr[None, :] + g
        ms_e = (e**2).sum() / ((n - 1) * (r - 1))
        # σ²_R / R + σ²_E / (nR) = MS_R / (nR): unbiased and never negative. Truncating σ²_R at 0
        # first (max(MS_R, MS_E) / (nR)) overstated the run part by a fifth to a third with 3 runs.
        return {
            "territory": float(max(ms_t - ms_e, 0.0) / (n * r)),
            "run": float(ms_r / (n * r)),
        }
    if y.ndim == 3:
        n, r, j = y.shape
        if n < 2 or r < 2 or j < 2:
            raise ConfigError(
                f"a territory × run × judge array needs at least 2 of each; got shape {y.shape}"
            )
        g = y.mean()
        mt, mr, mj = y.mean(axis=(1, 2)), y.mean(axis=(0, 2)), y.mean(axis=(0, 1))
        ms_t = r * j * ((mt - g) ** 2).sum() / (n - 1)
        ms_r = n * j * ((mr - g) ** 2).sum() / (r - 1)
        ms_j = n * r * ((mj - g) ** 2).sum() / (j - 1)
        e = y - mt[:, None, None] - mr[None, :, None] - mj[None, None, :] + 2 * g
        ms_e = (e**2).sum() / (y.size - n - r - j + 2)
        return {
            "territory": float(max((ms_t - ms_e) / (r * j), 0.0) / n),
            "run": float(max((ms_r - ms_e) / (n * j), 0.0) / r),
            "judge": float(max((ms_j - ms_e) / (n * r), 0.0) / j),
            "residual": float(ms_e / (n * r * j)),
        }
    raise ConfigError(f"expected a territory × run (× judge) array, got {y.ndim} dimensions")


@dataclass(frozen=True)
class Decomposition:
    """Variance components of one estimate, their shares and the shares' bootstrap intervals.

    Attributes:
        variance: component → variance of the estimate it contributes (None when not identifiable).
        share: component → share of the total (None when not identifiable).
        low, high: component → percentile bounds of the share.
        dominant: the component with the largest share; advice: what would narrow the interval.
        n_territories, n_runs, n_judges, n_resamples, seed: the design and bootstrap settings.
    """

    variance: Mapping[str, float | None]
    share: Mapping[str, float | None]
    low: Mapping[str, float | None]
    high: Mapping[str, float | None]
    dominant: str | None
    n_territories: int
    n_runs: int
    n_judges: int = 1
    n_resamples: int = 0
    seed: int = 0
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def advice(self) -> str:
        return ADVICE.get(self.dominant or "", "")

    def signature(self, metric: str = "variance", **extra: Any) -> Signature:
        return Signature.build(
            f"{metric}_variance",
            terr=self.n_territories,
            runs=self.n_runs,
            judges=self.n_judges if self.n_judges > 1 else None,
            boot=self.n_resamples,
            seed=self.seed,
            **extra,
        )


def _none(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def decompose(
    y: np.ndarray, *, n_resamples: int = 500, seed: int | None = None, conf: float = 0.95
) -> Decomposition:
    """:func:`components` of ``y`` with shares and a territory × run (× judge) bootstrap of the shares."""
    seed = resolve_seed(seed)
    y = np.asarray(y, dtype=float)
    comp = components(y)
    names = list(comp)
    total = sum(v for v in comp.values() if np.isfinite(v))
    share = {
        k: (v / total if total > 0 and np.isfinite(v) else (None if not np.isfinite(v) else 0.0))
        for k, v in comp.items()
    }
    rng = np.random.default_rng(seed)
    draws = [
        [rng.integers(0, s, size=s) for s in y.shape]
        for _ in range(n_resamples if y.shape[0] >= 2 else 0)
    ]
    if y.ndim == 2 and y.shape[1] >= 2 and draws:
        b = _shares_2d(y, draws)
    else:
        boots = []
        for idx in draws:
            c = components(y[np.ix_(*idx)])
            t = sum(v for v in c.values() if np.isfinite(v))
            boots.append([c[k] / t if t > 0 and np.isfinite(c[k]) else np.nan for k in names])
        b = np.array(boots) if boots else np.full((0, len(names)), np.nan)
    low: dict[str, float | None] = {}
    high: dict[str, float | None] = {}
    for i, k in enumerate(names):
        lo, hi, _ = percentile_bounds(b[:, i], conf)
        low[k], high[k] = (lo, hi) if share[k] is not None else (None, None)
    ok = {k: v for k, v in share.items() if v is not None}
    dominant = max(ok, key=lambda k: ok[k]) if ok and total > 0 else None
    return Decomposition(
        {k: _none(v) for k, v in comp.items()},
        share,
        low,
        high,
        dominant,
        int(y.shape[0]),
        int(y.shape[1]),
        int(y.shape[2]) if y.ndim == 3 else 1,
        n_resamples,
        seed,
    )


_BLOCK = 1 << 21
"""Resampled values held at once by :func:`_shares_2d` (16 MB of float64)."""


def _shares_2d(y: np.ndarray, draws: Sequence[Sequence[Any]]) -> np.ndarray:
    """The (territory, run) shares of :func:`components` for each resample ``y[np.ix_(ti, ri)]``.

    ``y`` is n × R (R ≥ 2); the resamples go a block at a time, with the same operations in the
    same order on each as :func:`components`, so the same bits, without a Python loop per resample.
    """
    n, r = y.shape
    out = np.empty((len(draws), 2))
    step = max(1, _BLOCK // (n * r))
    for lo in range(0, len(draws), step):
        part = draws[lo : lo + step]
        ti = np.stack([d[0] for d in part])
        ri = np.stack([d[1] for d in part])
        yb = y[ti[:, :, None], ri[:, None, :]]  # block × n × R, C-contiguous as each y[np.ix_]
        g = yb.reshape(len(part), -1).mean(axis=1)
        mt, mr = yb.mean(axis=2), yb.mean(axis=1)
        ms_t = r * ((mt - g[:, None]) ** 2).sum(axis=1) / (n - 1)
        ms_r = n * ((mr - g[:, None]) ** 2).sum(axis=1) / (r - 1)
        e = yb - mt[:, :, None] - mr[:, None, :] + g[:, None, None]
        ms_e = (e**2).reshape(len(part), -1).sum(axis=1) / ((n - 1) * (r - 1))
        terr = np.maximum(ms_t - ms_e, 0.0) / (n * r)
        run = ms_r / (n * r)
        total = np.where(np.isfinite(terr), terr, 0.0) + np.where(np.isfinite(run), run, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = total > 0
            out[lo : lo + len(part), 0] = np.where(ok & np.isfinite(terr), terr / total, np.nan)
            out[lo : lo + len(part), 1] = np.where(ok & np.isfinite(run), run / total, np.nan)
    return out


def _ratio_pseudo(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pseudo-values (n × R) of Σnum/Σden per run, and their per-run values."""
    n = num.shape[0]
    d = den.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(d > 0, num.sum(axis=0) / np.where(d > 0, d, 1), np.nan)
        y = v[None, :] + n * (num - v[None, :] * den) / np.where(d > 0, d, 1)[None, :]
    return y, v


def pseudo_values(tables: Sequence[TerritoryStats | pd.DataFrame], metric: str) -> np.ndarray:
    """The n × R pseudo-values of ``metric`` over the runs' per-territory tables (contributing territories only)."""

    def column(t: TerritoryStats | pd.DataFrame, name: str) -> np.ndarray:
        # a TerritoryStats' own column: no DataFrame built per run (ColumnStats keeps arrays)
        return t.column(name) if isinstance(t, TerritoryStats) else t[name].to_numpy()

    names_of = [column(t, "territory") for t in tables]
    terrs = list(dict.fromkeys(x for names in names_of for x in names))
    row_of = {x: i for i, x in enumerate(terrs)}

    def cols(names: Sequence[str]) -> dict[str, np.ndarray]:
        """``names`` as territories × runs (0 where a run has no row for a territory)."""
        out = {c: np.zeros((len(terrs), len(tables))) for c in names}
        for r, (t, tn) in enumerate(zip(tables, names_of)):
            if len(set(tn)) != len(tn):
                raise ValueError("a per-territory table lists a territory twice")
            at = np.fromiter((row_of[x] for x in tn), dtype=np.intp, count=len(tn))
            for c in names:
                out[c][at, r] = np.nan_to_num(np.asarray(column(t, c), dtype=float), nan=0.0)
        return out

    if metric in RATIO_METRICS:
        num, den = RATIO_METRICS[metric]
        c = cols((num, den))
        keep = c[den].sum(axis=1) > 0
        y, _ = _ratio_pseudo(c[num][keep], c[den][keep])
        return y
    if metric in ("delta_cs_norm", "delta_cs"):
        c = cols(("control_num", "control_den", "nc_num", "nc_den"))
        keep = (c["control_den"].sum(axis=1) > 0) | (c["nc_den"].sum(axis=1) > 0)
        yc, vc = _ratio_pseudo(c["control_num"][keep], c["control_den"][keep])
        yn, vn = _ratio_pseudo(c["nc_num"][keep], c["nc_den"][keep])
        if metric == "delta_cs":
            return cast("np.ndarray", yc - yn)
        with np.errstate(invalid="ignore", divide="ignore"):
            return cast(
                "np.ndarray", (vc / vn - 1)[None, :] + (yc - vc) / vn - vc * (yn - vn) / vn**2
            )
    raise ConfigError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")


def variance_table(
    tables: Mapping[TableKey, TerritoryStats],
    *,
    metrics: Sequence[str] = METRICS,
    n_resamples: int = 500,
    seed: int | None = None,
) -> pd.DataFrame:
    """One row per (model, mode, metric): each component's variance and share (with CI), dominant, advice.

    ``tables``: ``{(model, mode, run): TerritoryStats}`` as :func:`~bordir.metrics.cs.tables.territory_tables` returns.
    """
    seed = resolve_seed(seed)
    groups: dict[tuple[str, str], list[TerritoryStats]] = {}
    for (model, mode, _run), ts in sorted(tables.items(), key=lambda kv: kv[0]):
        groups.setdefault((model, mode), []).append(ts)
    rows = []
    for (model, mode), runs in groups.items():
        for metric in metrics:
            y = pseudo_values(runs, metric)
            row: dict[str, Any] = {
                "model": model,
                "mode": mode,
                "metric": metric,
                "n_territories": y.shape[0],
                "n_runs": y.shape[1],
            }
            if y.shape[0] < 2 or not np.isfinite(y).all():
                row.update(dominant=None, clear=False, advice="", signature="")
                rows.append(row)
                continue
            d = decompose(y, n_resamples=n_resamples, seed=seed)
            for k in ("territory", "run"):
                row[f"var_{k}"], row[f"share_{k}"] = d.variance.get(k), d.share.get(k)
                row[f"share_{k}_low"], row[f"share_{k}_high"] = d.low.get(k), d.high.get(k)
            low = d.low.get(d.dominant) if d.dominant else None
            clear = (
                low is not None and low > 0.5
            )  # the dominant share's interval lies above one half
            row.update(
                dominant=d.dominant,
                clear=clear,
                advice=d.advice if clear else "unclear: more of both",
                signature=str(d.signature(metric, mode=mode, gen=model)),
            )
            rows.append(row)
    cols = ["model", "mode", "metric", "n_territories", "n_runs"]
    cols += [
        f"{p}_{k}{s}"
        for k in ("territory", "run")
        for p, s in (("var", ""), ("share", ""), ("share", "_low"), ("share", "_high"))
    ]
    cols += ["dominant", "clear", "advice", "signature"]
    return pd.DataFrame(rows).reindex(columns=cols)
