"""The cluster score test of a citation ratio (:func:`ratio_score_test`): its p-value for ratio = 1 and its Fieller-type interval.

The ratio's interval and its test are **not** bootstrap percentiles: with few
clusters those cover too little (63 % for 5 clusters, 79 % for 8, 88 % for 12
in the simulation of ``docs/citations.md``) and a Wald p-value from the
bootstrap standard error is far too small in the tail. Instead
:func:`ratio_score_test` uses the cluster **score test** of ``ratio = ρ``: with
``Y``/``V`` the citation / citing-document totals (pooled; the citing answers
for ``per_query``) and ``q`` the inclusion rate, each cluster contributes
``s_k(ρ) = x_k / Y − ρ · u_k / V + ρ · q · (v_k / V − y_k / Y)`` (zero mean under
the null, summing to ``citation_rate − ρ · inclusion_rate_citing``), and
``T(ρ) = Σ s_k / √Σ s_k²`` is referred to the normal distribution. ``p_value``
is the two-sided p of ``T(1)``; the interval is the set of ρ with ``|T(ρ)| <
z``, a quadratic inequality in ρ (a Fieller-type interval, solved exactly),
which may be unbounded above (``ratio_high`` = inf, ``None`` in JSON) when the
cell is too small to bound it. Because ``|T| ≤ √(clusters)``, a cell with
fewer than 4 clusters can never reach p < 0.05, and a cell whose clusters are
all alike gets a zero-width interval, which never flags
(:mod:`~bordir.citations.flags`). The percentile interval of the ratio is kept
as ``ratio_boot_low`` / ``ratio_boot_high``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..stats.normal import z_quantile

__all__ = ["RATIO_TEST", "VARIANT_TERMS", "RatioTest", "ratio_score_test", "score_terms"]


RATIO_TEST = "score"
"""How the ratio's p-value and interval are made (see the module docs)."""


VARIANT_TERMS: dict[str, tuple[str, str, str, str]] = {
    # (x: per-language numerator of the citation rate, y: its denominator,
    #  u: per-language numerator of the citing inclusion rate, v: its denominator)
    "pooled": ("cites", "cites_total", "docs_citing", "docs_citing_total"),
    "per_query": ("share_cites", "citing", "share_docs_citing", "citing"),
}


def score_terms(
    x: np.ndarray, y: np.ndarray, u: np.ndarray, v: np.ndarray, weight: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sufficient sums of the score test of ``(Σx/Σy) / (Σu/Σv) = ρ`` over clusters (the last axis).

    ``x``, ``u`` have shape ``(..., K, L)`` (one column per document language),
    ``y``, ``v`` shape ``(..., K)``; ``weight`` ``(..., K)`` counts identical
    clusters (default 1). Returns ``(ratio, q, S_aa, S_ab, S_bb, n)`` with
    ``s_k(ρ) = a_k + ρ b_k``, ``a_k = x_k / Y``, ``b_k = q (v_k / V − y_k / Y) − u_k / V``
    (``Σ a = ratio · q``, ``Σ b = −q``), each of shape ``(..., L)``: everything
    :func:`ratio_score_test` needs, so many cells can be tested at once.
    """
    x, u = np.asarray(x, dtype=np.float64), np.asarray(u, dtype=np.float64)
    y, v = np.asarray(y, dtype=np.float64)[..., None], np.asarray(v, dtype=np.float64)[..., None]
    w = np.ones(y.shape) if weight is None else np.asarray(weight, dtype=np.float64)[..., None]
    Y, V = (w * y).sum(-2), (w * v).sum(-2)
    X, U = (w * x).sum(-2), (w * u).sum(-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = U / V
        ratio = np.where((Y > 0) & (V > 0) & (U > 0), (X / Y) / q, np.nan)
        a = x / Y[..., None, :]
        b = q[..., None, :] * (v / V[..., None, :] - y / Y[..., None, :]) - u / V[..., None, :]
        saa, sab, sbb = (w * a * a).sum(-2), (w * a * b).sum(-2), (w * b * b).sum(-2)
    n = np.broadcast_to(w.sum(-2), ratio.shape)
    return ratio, q, saa, sab, sbb, n


@dataclass(frozen=True)
class RatioTest:
    """The score test of ``ratio = 1`` and the score interval of the ratio, per document language.

    Attributes:
        ratio: the estimate (NaN when undefined).
        p_value: two-sided p of ``ratio = 1`` (NaN when undefined; 1 when no cluster deviates at all).
        low, high: the interval (``high`` may be inf: not bounded by the data).
        zero_width: every cluster alike: the interval is the estimate alone (never flagged).
    """

    ratio: np.ndarray
    p_value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    zero_width: np.ndarray


def ratio_score_test(
    x: np.ndarray,
    y: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    conf: float = 0.95,
) -> RatioTest:
    """Score test and interval of the citation ratio from per-cluster sums (see the module docs).

    Arguments as :func:`score_terms`; vectorised over any leading axes.

    >>> x = np.array([[1.0], [1.0], [0.0], [1.0]] * 5)          # citations to L of 20 single-citation answers
    >>> one = np.ones(20)
    >>> u = np.array([[1.0]] * 20); v = 2 * one                 # every prompt: 1 document in L out of 2
    >>> t = ratio_score_test(x, one, u, v)
    >>> float(t.ratio[0]), round(float(t.p_value[0]), 4), bool(t.low[0] > 1.0), bool(t.zero_width[0])
    (1.5, 0.0253, True, False)
    """
    ratio, q, saa, sab, sbb, _ = score_terms(x, y, u, v, weight)
    z = z_quantile(conf)
    z2 = z * z
    ok = np.isfinite(ratio)
    with np.errstate(invalid="ignore", divide="ignore"):
        # T(1) = (Σa + Σb) / sqrt(Σ(a + b)²) with Σa = ratio·q, Σb = −q
        num = np.where(ok, ratio * q - q, np.nan)
        var1 = saa + 2 * sab + sbb
        p = np.where(
            var1 > _TINY * np.maximum(q * q, _TINY),
            _erfc(np.abs(num) / np.sqrt(np.where(var1 > 0, var1, 1.0)) / math.sqrt(2.0)),
            1.0,
        )
        p = np.where(ok, p, np.nan)
        # |T(ρ)| < z  ⇔  (A + ρB)² − z² (Saa + 2ρ Sab + ρ² Sbb) < 0 with A = ratio·q, B = −q
        A, B = ratio * q, -q
        a2 = B * B - z2 * sbb
        a1 = 2 * A * B - 2 * z2 * sab
        a0 = A * A - z2 * saa
        disc = np.maximum(a1 * a1 - 4 * a2 * a0, 0.0)
        root = np.sqrt(disc)
        bounded = a2 > _TINY * np.maximum(B * B, _TINY)
        safe = np.where(bounded, a2, 1.0)
        r_lo = np.where(bounded, (-a1 - root) / (2 * safe), np.nan)
        r_hi = np.where(bounded, (-a1 + root) / (2 * safe), np.nan)
        # a2 <= 0: the accepted set is the line outside the roots (or all of it); within [0, ∞) its hull is
        # [0, ∞) unless the lower part lies below 0
        nb = np.where(a2 < 0, a2, -1.0)
        s_lo = (-a1 + root) / (2 * nb)  # the smaller root (a2 < 0)
        s_hi = (-a1 - root) / (2 * nb)
        unb_low = np.where(
            (a2 < 0) & (disc > 0) & (s_lo < 0) & (s_hi <= ratio), np.maximum(s_hi, 0.0), 0.0
        )
    low = np.where(bounded, np.maximum(np.minimum(r_lo, ratio), 0.0), unb_low)
    high = np.where(bounded, np.maximum(r_hi, ratio), np.inf)
    low, high = np.where(ok, low, np.nan), np.where(ok, high, np.nan)
    width_tol = 1e-9 * np.maximum(1.0, np.abs(np.nan_to_num(ratio)))
    zero_width = ok & np.isfinite(high) & ((high - low) <= width_tol)
    return RatioTest(ratio, p, low, high, zero_width)


_TINY = 1e-24


_erfc = np.vectorize(math.erfc, otypes=[float])
