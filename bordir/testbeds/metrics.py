"""Testbed scores from the per-item table: rates with cluster score intervals, paired tests, NoMIRACL rates.

The item table has one row per (model, instance) with each policy's labels
(:func:`bordir.testbeds.runner.score_items`). Every metric is a ratio of sums
of two per-row indicators, so a group's sufficient statistics are the per-cluster
sums and a bootstrap resample is a weight vector over clusters
(:func:`bordir.stats.bootstrap_weights`); clusters are questions
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
hallucination_rate        not rejected / answered, at r = 1 (NoMIRACL; with a  failed calls stay in n
                          ``p_affirmed`` column: affirmed / answered)
error_rate                rejected / answered, at r < 1 with ≥ 1 positive      failed calls stay in n
                          (NoMIRACL)
invalid_rate              neither affirmed nor rejected / answered (NoMIRACL's failed calls stay in n
                          Invalid; the nomiracl testbed)
rejection_rate_judge      judge says "not addressed" / judged (RGB Rej*)       same
error_detection_rate_     judge says "has identified" or "Yes" / judged        same
judge                     (RGB ED*)
error_correction_rate_    flagged by the judge and correct / flagged (CR*);    bordir's correct; undefined
judge                     0 when none flagged (``fact_evalue.py``)             when none is flagged
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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._io.json_read import loads
from ..errors import ConfigError
from ..signature import Signature
from ..stats import (
    DEFAULT_RESAMPLES,
    MIN_N,
    PairedResult,
    cluster_sums,
    paired_test,
    rate_interval,
    rate_method,
    ratio,
    resolve_seed,
)
from .echoes import echo_rows, n_echoes
from .testbed import NODOCS, get_testbed

__all__ = [
    "METRICS",
    "RGB_REJECTION_NOTE",
    "Rate",
    "rate",
    "indicators",
    "PairedRate",
    "paired_rate",
    "summarize",
]

METRICS: dict[str, str] = {
    "accuracy": "Acc",
    "rejection_rate": "Rej",
    "error_detection_rate": "ED",
    "error_correction_rate": "CR",
    "hallucination_rate": "Halluc.",
    "error_rate": "Err",
    "invalid_rate": "Inv.",
    "rejection_rate_judge": "Rej*",
    "error_detection_rate_judge": "ED*",
    "error_correction_rate_judge": "CR*",
}
"""Every testbed metric, in reporting order, with its short label (tables, ``bordir testbed`` reports)."""


def _labels(col: pd.Series) -> list[list[int]]:
    return [loads(x) if isinstance(x, str) else list(x) for x in col]


def indicators(table: pd.DataFrame, metric: str, policy: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-row (numerator, denominator) of ``metric`` under ``policy``; rows outside its scope have 0 / 0."""
    if metric not in METRICS:
        raise ConfigError(f"unknown testbed metric {metric!r}; known: {', '.join(METRICS)}")
    p = policy
    failed = table["failed"].to_numpy(bool)
    answered = ~failed
    base = answered.astype(float) if p in ANSWERED_ONLY else np.ones(len(table))
    correct = table[f"{p}_correct"].to_numpy(bool) & answered
    rejected = table[f"{p}_rejected"].to_numpy(bool) & answered
    fact = table[f"{p}_fact"].to_numpy(bool) & answered
    # a table that says which replies affirm (NoMIRACL: "answer is present") has a third kind of
    # reply, neither affirmed nor refused (Invalid); without it, every non-refusal affirms but an echo
    affirmed = (
        table[f"{p}_affirmed"].to_numpy(bool) & answered
        if f"{p}_affirmed" in table.columns
        else answered & ~rejected & ~echo_rows(table, p)
    )
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
        return (affirmed & r1).astype(float), base * r1
    if metric == "invalid_rate":
        return (answered & ~rejected & ~affirmed).astype(float), base
    # error_rate: refusals although a positive document was in the prompt
    scope = (~r1) & (table["n_pos"].to_numpy(float) > 0)
    return (rejected & scope).astype(float), base * scope


ANSWERED_ONLY = ("rgb", "nomiracl")
"""Policies whose denominators leave failed calls out (RGB's loop skips them; NoMIRACL has none)."""

RGB_REJECTION_NOTE = (
    "rgb policy: the rejection rate counts correct answers as rejections "
    "(RGB's all_rate at noise_rate 1: rejected or correct)"
)
"""Said next to every rejection rate under the rgb policy (JSON ``note``, tables, the CLI)."""

_ZERO_IF_NONE_FLAGGED = ("error_correction_rate", "error_correction_rate_judge")
"""RGB reports these as 0, not undefined, when no prediction is flagged (``correct_rate``)."""


@dataclass(frozen=True)
class Rate:
    """One metric of one group, with its cluster score interval (:func:`bordir.stats.rate_interval`).

    Attributes:
        metric, policy: what was computed.
        value: numerator / denominator (None when the denominator is 0; RGB's
            error-correction rates, CR and the judged CR*, are 0 then, under the rgb policy).
        count, n: numerator and denominator (items).
        low, high: the continuity-corrected cluster Wilson interval (None when not asked for).
        n_clusters: clusters with a nonzero denominator.
        n_resamples, seed: 0 when no interval was asked for; the seed of the group.
        too_few: fewer than :data:`bordir.stats.MIN_N` clusters: printed "too few to judge".
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
    too_few: bool = False

    @property
    def signature(self) -> Signature:
        return Signature.build(
            self.metric,
            **dict(self.fields),
            policy=self.policy,
            ci=rate_method(self.conf, clustered=True) if self.n_resamples else None,
        )

    def as_dict(self) -> dict[str, Any]:
        out = {
            "value": self.value,
            "count": self.count,
            "n": self.n,
            "ci95": [self.low, self.high],
            "n_clusters": self.n_clusters,
            "too_few": self.too_few,
            "signature": str(self.signature),
        }
        if self.metric == "rejection_rate" and self.policy == "rgb":
            out["note"] = RGB_REJECTION_NOTE
        return out


def _cluster_sums(
    table: pd.DataFrame, num: np.ndarray, den: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    codes, _ = pd.factorize(table["cluster"], sort=True)
    _, sums = cluster_sums(codes, np.column_stack([num, den]))
    return sums[:, 0], sums[:, 1]


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
    """``metric`` on ``table`` (one group) with its cluster score interval (``n_resamples=0``: none).

    ``n_resamples`` only switches the interval on (any value > 0) or off (0): the interval is
    :func:`bordir.stats.rate_interval` over the per-cluster sums, which resamples nothing.
    """
    seed = resolve_seed(seed)
    num, den = indicators(table, metric, policy)
    cnum, cden = _cluster_sums(table, num, den)
    keep = cden > 0
    cnum, cden = cnum[keep], cden[keep]
    total = float(cden.sum())
    count = int(round(float(cnum.sum())))
    value: float | None = float(cnum.sum()) / total if total > 0 else None
    if value is None and metric in _ZERO_IF_NONE_FLAGGED and policy == "rgb":
        value = 0.0  # evalue.py / fact_evalue.py: correct_rate = 0 when nothing is flagged
    low = high = None
    too_few = len(cnum) < MIN_N
    if n_resamples and len(cnum):
        ci = rate_interval(cnum, cden, conf=conf)
        low, high, too_few = ci.low, ci.high, ci.too_few
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
        too_few,
    )


@dataclass(frozen=True)
class PairedRate(PairedResult):
    """``metric(a) − metric(b)`` on the clusters both have: paired bootstrap CI and sign-flip permutation p.

    A :class:`~bordir.stats.PairedResult` whose signature names the bootstrap seed ``bseed``
    (the group fields may carry the generation seed).
    """

    seed_key: ClassVar[str] = "bseed"


def _rate_statistic(cols: Mapping[str, np.ndarray], weights: np.ndarray | None) -> np.ndarray:
    """Σnum / Σden over the clusters (the last axis), or per resample with resample counts ``weights``."""
    if weights is None:
        return ratio(cols["num"].sum(axis=-1), cols["den"].sum(axis=-1))
    return ratio(weights @ cols["num"], weights @ cols["den"])


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
    side_a, side_b = ({c: s.loc[common, c].to_numpy() for c in ("num", "den")} for s in sums)
    t = paired_test(
        side_a,
        side_b,
        _rate_statistic,
        n_resamples=n_resamples,
        n_permutations=n_resamples,
        seed=seed,
        conf=conf,
    )
    return PairedRate(
        metric,
        label_a,
        label_b,
        t.value_a,
        t.value_b,
        t.diff,
        t.low,
        t.high,
        t.p_value,
        len(common),
        n_resamples,
        n_resamples,
        seed,
        conf=conf,
        fields=tuple((fields or {}).items()),
        policy=policy,
    )


GROUP = ["model", "lang", "testbed", "setting", "noise_rate"]


def _applies(
    metric: str, testbed: str, setting: str, noise_rate: float, judged: bool = False
) -> bool:
    """The common metrics by noise rate; the others where the testbed adds or judges them."""
    r1 = math.isclose(noise_rate, 1.0)
    if metric == "accuracy":
        return True
    if metric in ("rejection_rate", "hallucination_rate"):
        return r1
    if metric == "error_rate":
        return not r1 and setting != NODOCS
    return get_testbed(testbed).applies(metric, setting, judged=judged)


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
                "n_echo": n_echoes(g),
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
