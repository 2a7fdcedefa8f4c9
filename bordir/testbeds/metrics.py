"""Testbed scores from the per-item table: rates with cluster-bootstrap intervals, paired tests, NoMIRACL rates.

The item table has one row per (model, instance) with each policy's labels
(:func:`bordir.testbeds.runner.score_items`). Every metric is a ratio of sums
of two per-row indicators, so a group's sufficient statistics are the per-cluster
sums and a bootstrap resample is a weight vector over clusters
(:func:`bordir.metrics.uncertainty.bootstrap_weights`); clusters are questions
that share a source (a territory asked in several languages; an RGB question).

========================  ===================================================  =============================
metric                    numerator / denominator (rgb policy)                 bordir policy differs
========================  ===================================================  =============================
accuracy                  correct / answered calls                             failed calls stay in n
rejection_rate (r = 1)    rejected *or correct* / answered (``evalue.py``'s     rejected / n
                          ``all_rate`` at ``noise_rate == 1``)
error_detection_rate      factlabel / answered (RGB ``fact_check_rate``)       failed calls stay in n
error_correction_rate     factlabel and ``0 not in label`` (so rejected        factlabel and correct /
                          answers count) / factlabel; 0 when no factlabel       factlabel; undefined when none
hallucination_rate        not rejected / answered, at r = 1 (NoMIRACL)         failed calls stay in n
error_rate                rejected / answered, at r < 1 with ≥ 1 positive      failed calls stay in n
                          (NoMIRACL)
rejection_rate_judge      judge says "not addressed" / judged (RGB Rej*)       same
error_detection_rate_     judge says "has identified" or "Yes" / judged        same
judge                     (RGB ED*)
error_correction_rate_    flagged by the judge and correct / flagged (CR*)     bordir's correct
judge
========================  ===================================================  =============================

Example:
    >>> import pandas as pd
    >>> t = pd.DataFrame({"cluster": ["a", "b", "c", "d"], "failed": [False] * 4, "noise_rate": [0.0] * 4,
    ...                   "n_pos": [5] * 4, "rgb_correct": [True, True, False, True],
    ...                   "rgb_rejected": [False, False, True, False], "rgb_fact": [False] * 4,
    ...                   "rgb_labels": ["[1]", "[1]", "[-1]", "[1]"]})
    >>> r = rate(t, "accuracy", "rgb", n_resamples=200, seed=1)
    >>> r.value, r.count, r.n, 0 <= r.low <= r.value <= r.high <= 1
    (0.75, 3, 4, True)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..metrics.signature import Signature
from ..metrics.uncertainty import DEFAULT_RESAMPLES, bootstrap_weights, flip_matrix, resolve_seed

__all__ = [
    "METRICS",
    "Rate",
    "rate",
    "indicators",
    "PairedRate",
    "paired_rate",
    "holm_rates",
    "summarize",
]

METRICS: tuple[str, ...] = (
    "accuracy",
    "rejection_rate",
    "error_detection_rate",
    "error_correction_rate",
    "hallucination_rate",
    "error_rate",
    "rejection_rate_judge",
    "error_detection_rate_judge",
    "error_correction_rate_judge",
)
_EPS = 1e-12


def _labels(col: pd.Series) -> list[list[int]]:
    return [json.loads(x) if isinstance(x, str) else list(x) for x in col]


def indicators(table: pd.DataFrame, metric: str, policy: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-row (numerator, denominator) of ``metric`` under ``policy``; rows outside its scope have 0 / 0."""
    if metric not in METRICS:
        raise ConfigError(f"unknown testbed metric {metric!r}; known: {', '.join(METRICS)}")
    p = policy
    failed = table["failed"].to_numpy(bool)
    answered = ~failed
    base = answered.astype(float) if p == "rgb" else np.ones(len(table))
    correct = table[f"{p}_correct"].to_numpy(bool) & answered
    rejected = table[f"{p}_rejected"].to_numpy(bool) & answered
    fact = table[f"{p}_fact"].to_numpy(bool) & answered
    r1 = np.isclose(table["noise_rate"].to_numpy(float), 1.0)
    if metric.endswith("_judge"):
        col = (
            table["judge_flag"] if "judge_flag" in table.columns else pd.Series([None] * len(table))
        )
        judged = col.notna().to_numpy(bool) & answered
        flag = (
            np.array([bool(x) if x is not None and x == x else False for x in col], dtype=bool)
            & judged
        )
        if metric == "error_correction_rate_judge":
            return (flag & correct).astype(float), flag.astype(float)
        return flag.astype(float), judged.astype(float)
    if metric == "accuracy":
        return correct.astype(float), base
    if metric == "rejection_rate":
        num = (rejected | correct) if p == "rgb" else rejected
        return (num & r1).astype(float), base * r1
    if metric == "error_detection_rate":
        return fact.astype(float), base
    if metric == "error_correction_rate":
        if p == "rgb":
            ok = np.array([0 not in lab for lab in _labels(table[f"{p}_labels"])], dtype=bool)
        else:
            ok = correct
        return (fact & ok).astype(float), fact.astype(float)
    if metric == "hallucination_rate":
        return (answered & ~rejected & r1).astype(float), base * r1
    # error_rate: refusals although a positive document was in the prompt
    scope = (~r1) & (table["n_pos"].to_numpy(float) > 0)
    return (rejected & scope).astype(float), base * scope


@dataclass(frozen=True)
class Rate:
    """One metric of one group, with its cluster-bootstrap interval.

    Attributes:
        metric, policy: what was computed.
        value: numerator / denominator (None when the denominator is 0; RGB's
            error-correction rate is 0 then, under the rgb policy).
        count, n: numerator and denominator (items).
        low, high: percentile interval over resampled clusters.
        n_clusters: clusters with a nonzero denominator.
        n_resamples, seed: bootstrap settings.
        fields: signature fields of the group (testbed, setting, lang, model …).
    """

    metric: str
    policy: str
    value: float | None
    count: int
    n: int
    low: float | None
    high: float | None
    n_clusters: int
    n_resamples: int
    seed: int
    fields: tuple[tuple[str, Any], ...] = ()
    conf: float = 0.95

    @property
    def signature(self) -> Signature:
        return Signature.build(
            self.metric,
            **dict(self.fields),
            policy=self.policy,
            ci=f"cluster{int(round(self.conf * 100))}" if self.n_resamples else None,
            boot=self.n_resamples or None,
            bseed=self.seed if self.n_resamples else None,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "count": self.count,
            "n": self.n,
            "ci95": [self.low, self.high],
            "n_clusters": self.n_clusters,
            "signature": str(self.signature),
        }


def _cluster_sums(
    table: pd.DataFrame, num: np.ndarray, den: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    codes, _ = pd.factorize(table["cluster"], sort=True)
    k = int(codes.max()) + 1 if len(codes) else 0
    return np.bincount(codes, weights=num, minlength=k), np.bincount(
        codes, weights=den, minlength=k
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _pct(values: np.ndarray, conf: float) -> tuple[float | None, float | None]:
    v = values[~np.isnan(values)]
    if not len(v):
        return None, None
    a = (1 - conf) / 2
    lo, hi = np.quantile(v, [a, 1 - a])
    return float(lo), float(hi)


def rate(
    table: pd.DataFrame,
    metric: str,
    policy: str,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    conf: float = 0.95,
    fields: Mapping[str, Any] | None = None,
) -> Rate:
    """``metric`` on ``table`` (one group) with a cluster-bootstrap percentile interval (``n_resamples=0``: none)."""
    seed = resolve_seed(seed)
    num, den = indicators(table, metric, policy)
    cnum, cden = _cluster_sums(table, num, den)
    keep = cden > 0
    cnum, cden = cnum[keep], cden[keep]
    total = float(cden.sum())
    count = int(round(float(cnum.sum())))
    value: float | None = float(cnum.sum()) / total if total > 0 else None
    if value is None and metric == "error_correction_rate" and policy == "rgb":
        value = 0.0  # evalue.py: correct_rate = 0 when fact_tt == 0
    low = high = None
    if n_resamples and len(cnum):
        w = bootstrap_weights(len(cnum), n_resamples, np.random.default_rng(seed))
        low, high = _pct(_ratio(w @ cnum, w @ cden), conf)
    return Rate(
        metric,
        policy,
        value,
        count,
        int(round(total)),
        low,
        high,
        int(keep.sum()),
        n_resamples,
        seed,
        tuple((fields or {}).items()),
        conf,
    )


@dataclass(frozen=True)
class PairedRate:
    """``metric(a) − metric(b)`` on the clusters both have: paired bootstrap CI and sign-flip permutation p."""

    metric: str
    policy: str
    label_a: str
    label_b: str
    value_a: float | None
    value_b: float | None
    diff: float | None
    low: float | None
    high: float | None
    p_value: float
    n_clusters: int
    n_resamples: int
    seed: int
    p_holm: float | None = None
    fields: tuple[tuple[str, Any], ...] = ()

    @property
    def signature(self) -> Signature:
        return Signature.build(
            self.metric,
            **dict(self.fields),
            cmp=f"{self.label_a}-vs-{self.label_b}",
            policy=self.policy,
            boot=self.n_resamples,
            perm=self.n_resamples,
            bseed=self.seed,
            holm="yes" if self.p_holm is not None else None,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "a": self.label_a,
            "b": self.label_b,
            "value_a": self.value_a,
            "value_b": self.value_b,
            "diff": self.diff,
            "ci95": [self.low, self.high],
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "n_clusters": self.n_clusters,
            "signature": str(self.signature),
        }


def paired_rate(
    a: pd.DataFrame,
    b: pd.DataFrame,
    metric: str,
    policy: str,
    *,
    label_a: str,
    label_b: str,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    conf: float = 0.95,
    fields: Mapping[str, Any] | None = None,
) -> PairedRate | None:
    """Compare two groups on their common clusters (None when they share none with a defined metric)."""
    seed = resolve_seed(seed)
    sums = []
    for t in (a, b):
        num, den = indicators(t, metric, policy)
        g = (
            pd.DataFrame({"cluster": t["cluster"].to_numpy(), "num": num, "den": den})
            .groupby("cluster")
            .sum()
        )
        sums.append(g[g["den"] > 0])
    common = sorted(set(sums[0].index) & set(sums[1].index))
    if not common:
        return None
    na, da = sums[0].loc[common, "num"].to_numpy(), sums[0].loc[common, "den"].to_numpy()
    nb, db = sums[1].loc[common, "num"].to_numpy(), sums[1].loc[common, "den"].to_numpy()
    va, vb = na.sum() / da.sum(), nb.sum() / db.sum()
    diff = float(va - vb)
    w = bootstrap_weights(len(common), n_resamples, np.random.default_rng(seed))
    low, high = _pct(_ratio(w @ na, w @ da) - _ratio(w @ nb, w @ db), conf)
    flips = flip_matrix(n_resamples, len(common), np.random.default_rng(seed))
    pa = np.where(flips, nb, na), np.where(flips, db, da)
    pb = np.where(flips, na, nb), np.where(flips, da, db)
    perm = _ratio(pa[0].sum(axis=1), pa[1].sum(axis=1)) - _ratio(
        pb[0].sum(axis=1), pb[1].sum(axis=1)
    )
    perm = perm[~np.isnan(perm)]
    c = int(np.sum(np.abs(perm) >= abs(diff) - _EPS))
    p = (c + 1) / (len(perm) + 1)
    return PairedRate(
        metric,
        policy,
        label_a,
        label_b,
        float(va),
        float(vb),
        diff,
        low,
        high,
        p,
        len(common),
        n_resamples,
        seed,
        None,
        tuple((fields or {}).items()),
    )


def holm_rates(comparisons: Sequence[PairedRate]) -> list[PairedRate]:
    """The comparisons with ``p_holm`` set (Holm across all of them; needs the ``stats`` extra)."""
    if not comparisons:
        return []
    from ..metrics.uncertainty import holm

    adjusted, _ = holm([c.p_value for c in comparisons])
    return [replace(c, p_holm=float(p)) for c, p in zip(comparisons, adjusted)]


GROUP = ["model", "lang", "testbed", "setting", "noise_rate"]


def _applies(
    metric: str, testbed: str, setting: str, noise_rate: float, judged: bool = False
) -> bool:
    r1 = math.isclose(noise_rate, 1.0)
    if metric.endswith("_judge"):
        return judged and (
            testbed == "rejection"
            if metric == "rejection_rate_judge"
            else testbed == "counterfactual" and setting == "counterfactual"
        )
    if metric in ("rejection_rate", "hallucination_rate"):
        return r1
    if metric in ("error_detection_rate", "error_correction_rate"):
        return testbed == "counterfactual" and setting != "nodocs"
    if metric == "error_rate":
        return not r1 and setting != "nodocs"
    return True


def summarize(
    items: pd.DataFrame,
    *,
    policies: Sequence[str] = ("rgb", "bordir"),
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    fields: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One record per model × language (and ``all``) × testbed × setting × noise rate, with every metric that applies."""
    seed = resolve_seed(seed)
    pooled = items.assign(lang="all")
    frames = [items, pooled] if items["lang"].nunique() > 1 else [items]
    out = []
    for frame in frames:
        for key, g in frame.groupby(GROUP, sort=True):
            model, lang, testbed, setting, r = key
            group_fields = {
                **(fields or {}),
                "testbed": testbed,
                "setting": setting,
                "r": f"{r:g}",
                "lang": lang,
                "gen": model,
            }
            rec: dict[str, Any] = {
                "model": model,
                "lang": lang,
                "testbed": testbed,
                "setting": setting,
                "noise_rate": float(r),
                "n_items": len(g),
                "n_failed": int(g["failed"].sum()),
                "metrics": {},
            }
            judged = "judge_flag" in g.columns and bool(g["judge_flag"].notna().any())
            for p in policies:
                rec["metrics"][p] = {
                    m: rate(
                        g, m, p, n_resamples=n_resamples, seed=seed, fields=group_fields
                    ).as_dict()
                    for m in METRICS
                    if _applies(m, testbed, setting, float(r), judged)
                }
            out.append(rec)
    return out
