"""Power per query language: how small a difference between two modes the design can detect.

The comparison is paired: two modes on the same territories, tested by the
sign-flip permutation test of :func:`bordir.metrics.intervals.paired.paired_comparison`.
For a cell (query language × metric) with *n* territories, the **minimum
detectable difference** (MDE) is the smallest δ whose power is ≥ 0.8 at
α = 0.05 (two-sided).

**The design model.** Each territory contributes one paired difference
dₜ = xₜ(mode a) − xₜ(mode b) of answers that agree with the controller (or, for
Cst CS, answer pairs that agree). For binary answers dₜ ∈ {−1, 0, +1}, with
P(+1) = q₊, P(−1) = q₋, the effect δ = q₊ − q₋ and the variance
σ_d² = q₊ + q₋ − δ². Given σ_d (the planning value :data:`PLANNING_SD` = 0.5 before
a run — modes correlated 0.5 on a territory at a 50 % rate; the observed SD of
the per-territory differences, runs pooled, in a report) the discordance is
ψ = q₊ + q₋ = min(1, max(σ_d² + δ², |δ|)): at least a share |δ| of territories must
change for the rate to move by δ.

**Exact power** (one run, n ≤ :data:`EXACT_MAX`): with k = #nonzero differences and
S = Σ dₜ, the exact sign-flip p-value is P(|2B − k| ≥ |S|), B ~ Binomial(k, ½);
the power is the sum of the multinomial probabilities of (n₊, n₋) whose
p-value is ≤ α. It is exact for the model, at every n; in particular the test
can never reject with n ≤ 5 (the smallest p-value is 2/2ⁿ ≥ 1/16), so such a
cell is *undetectable* whatever the effect.

**Several runs.** With R runs pooled per territory, dₜ is the mean of R
differences: it lies on a grid of step 1/R and is no longer ternary, and its
SD σ_d (the SD of the *pooled* differences: smaller than one answer's when the
runs disagree) is what the test sees. The ternary model would force ψ ≥ |δ|
(a share |δ| of territories moving by a whole answer) and overstate the MDE
(power 97–100 % at it for 3 and 10 runs). So with R > 1 (and above
:data:`EXACT_MAX` territories with one run) the power is the **analytic** one of
the sign-flip test. Conditional on the |dₜ| its statistic S = Σ dₜ has null
variance Q = Σ dₜ² = (n − 1)s² + S²/n, so rejecting at |S| ≥ z·√Q is rejecting
at |t| ≥ c_t = z·√((n − 1)/(n − z²)), t = √n·d̄/s the one-sample t statistic;
under the alternative t is noncentral t with n − 1 degrees of freedom and
noncentrality √n·δ/σ_d, lowered by the continuity correction (1/R)/(σ_d√n)
(S moves in steps of 2/R). Its tail uses the normal approximation of the
noncentral t (``(t(1 − 1/4ν) − λ)/√(1 + t²/2ν)``), so a dry run needs no scipy.
The MDE is the δ at which that power reaches 0.8 (bisection on δ, to 1e-4).
For one run above :data:`EXACT_MAX` this replaces the plain normal
approximation, which ignored the discreteness (76.5 % power at its MDE); it
agrees with the exact power to within 1.5 points there (the MDE at 401 territories is the exact one at 400 to within 0.002).
``benchmarks/power_mde.py`` checks the power at the reported MDE by simulation
(``benchmarks/simulate/power.py``).

Cells with fewer than :data:`THIN` territories are marked *thin* (most
BorderLines query languages have fewer than 10).

Example:
    >>> mde(3) is None, round(mde(200), 3), round(mde(200, sigma_d=0.3), 3)
    (True, 0.104, 0.062)
    >>> round(sign_flip_power(100, 0.1, 0.1), 2)
    0.94
    >>> mde(20, sigma_d=0.3), mde(20, sigma_d=0.3, runs=3)   # pooled runs: no ternary floor
    (0.3665, 0.2171)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, cast

import numpy as np

from .shape import Shape, spread_factor

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = [
    "ALPHA",
    "POWER",
    "THIN",
    "PLANNING_SD",
    "EXACT_MAX",
    "POWER_COLUMNS",
    "sign_flip_power",
    "analytic_power",
    "lattice_runs",
    "power_at",
    "mde",
    "min_territories",
]

ALPHA = 0.05
POWER = 0.8
THIN = 10
"""Cells with fewer territories are marked thin."""
PLANNING_SD = 0.5
"""σ_d assumed before a run (see the module docs)."""
EXACT_MAX = 400
POWER_COLUMNS = (
    "query_lang",
    "metric",
    "n_territories",
    "sd",
    "sd_source",
    "mde",
    "method",
    "thin",
    "detectable",
    "runs",
    "skew",
    "kurtosis",
    "signature",
)


def _binom_pmf_row(k: int) -> np.ndarray:
    return _binom_pmf(np.arange(k + 1), k, 0.5)


@cache
def _p_values(k: int) -> np.ndarray:
    """Exact two-sided sign-flip p-value for S = k − 2j, j = 0..k (j = #negative differences)."""
    pmf = _binom_pmf_row(k)
    stat = np.abs(2 * np.arange(k + 1) - k)  # |2B − k| for B = 0..k
    out = np.empty(k + 1)
    for j in range(k + 1):
        s = abs(k - 2 * j)
        out[j] = pmf[stat >= s].sum()
    return out


@cache
def _log_comb(n: int) -> np.ndarray:
    return np.array(
        [math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) for k in range(n + 1)]
    )


def _binom_pmf(ks: np.ndarray, n: int, p: float) -> np.ndarray:
    """Binomial(n, p) probabilities at ``ks`` (numpy only: a dry run needs no scipy)."""
    ks = np.asarray(ks, dtype=int)
    if p <= 0.0:
        return cast("np.ndarray", (ks == 0).astype(float))
    if p >= 1.0:
        return cast("np.ndarray", (ks == n).astype(float))
    return cast(
        "np.ndarray", np.exp(_log_comb(n)[ks] + ks * math.log(p) + (n - ks) * math.log1p(-p))
    )


@cache
def sign_flip_power(n: int, delta: float, psi: float, alpha: float = ALPHA) -> float:
    """Exact power of the two-sided sign-flip test for n ternary differences with P(±1) = (ψ ± δ)/2."""
    qp, qm = (psi + delta) / 2, (psi - delta) / 2
    if qp < -1e-12 or qm < -1e-12 or psi > 1 + 1e-12:
        return float("nan")
    qp, qm, psi = max(qp, 0.0), max(qm, 0.0), min(psi, 1.0)
    total = 0.0
    pk = _binom_pmf(np.arange(n + 1), n, psi)  # k nonzero differences
    frac = qm / psi if psi > 0 else 0.0
    for k in range(n + 1):
        if pk[k] < 1e-12 or k == 0:
            continue
        reject = _p_values(k) <= alpha + 1e-12  # index j = number of negative differences
        if not reject.any():
            continue
        total += float(pk[k]) * float(_binom_pmf(np.flatnonzero(reject), k, frac).sum())
    return float(total)


def lattice_runs(
    differences: Sequence[float] | np.ndarray, runs: int, *, max_grid: int = 60
) -> int:
    """The ``runs`` the power model uses for these per-territory differences: 1 on a ternary grid.

    Differences that are all −1, 0 or +1 are ternary (a temperature-0 model gives the same answer
    in every run): the exact one-run model. Otherwise the grid step 1/g of the values (g ≤ ``max_grid``;
    ``runs`` when they fit no such grid), which sets the continuity correction.

    >>> lattice_runs([1, 0, -1, 1], 10), lattice_runs([1 / 3, 0, -2 / 3], 3), lattice_runs([0.5, 0.25], 3)
    (1, 3, 4)
    """
    from fractions import Fraction
    from math import lcm

    vals = [abs(float(x)) for x in np.asarray(differences, dtype=float).ravel() if np.isfinite(x)]
    nonzero = [v for v in vals if v > 1e-9]
    if all(abs(v - 1.0) < 1e-9 for v in nonzero):
        return 1
    g = 1
    for v in nonzero:
        f = Fraction(v).limit_denominator(max_grid)
        if abs(float(f) - v) > 1e-6:
            return max(int(runs), 1)
        g = lcm(g, f.denominator)
        if g > max_grid:
            return max(int(runs), 1)
    return max(g, 1)


def _psi(delta: float, sd: float) -> float:
    return min(1.0, max(sd * sd + delta * delta, abs(delta)))


def analytic_power(
    n: int,
    delta: float,
    sd: float,
    *,
    alpha: float = ALPHA,
    runs: int = 1,
    shape: Shape | None = None,
) -> float:
    """The sign-flip test's power for ``n`` pooled differences of mean ``delta`` and SD ``sd`` (module docs).

    >>> round(analytic_power(401, 0.07, 0.5), 3), round(sign_flip_power(401, 0.07, _psi(0.07, 0.5)), 3)
    (0.769, 0.771)
    """
    from statistics import NormalDist

    norm = NormalDist()
    z = norm.inv_cdf(1 - alpha / 2)
    if n <= z * z + 1:
        return 0.0
    if sd <= 0:
        return 1.0 if delta != 0 else 0.0
    nu = n - 1
    c_t = z * math.sqrt((n - 1) / (n - z * z))
    lam = abs(delta) * math.sqrt(n) / sd
    cc = (1.0 / max(int(runs), 1)) / (sd * math.sqrt(n))
    adj, den = c_t * (1 - 1 / (4 * nu)), math.sqrt(1 + c_t * c_t / (2 * nu))
    den *= spread_factor(delta, sd, shape)  # the differences' own shape (shape.py); 1 if normal
    return float(norm.cdf((lam - cc - adj) / den) + norm.cdf((-lam - cc - adj) / den))


def _power(
    n: int, delta: float, sd: float, alpha: float, runs: int = 1, shape: Shape | None = None
) -> float:
    if runs <= 1 and n <= EXACT_MAX:
        psi = _psi(delta, sd)
        return sign_flip_power(int(n), round(delta, 6), round(psi, 6), alpha)
    if runs <= 1:  # one binary answer per territory: the ternary model's SD at this effect
        sd = math.sqrt(max(_psi(delta, sd) - delta * delta, 0.0))
    else:  # on a grid of step 1/R a mean δ < 1/R needs a share δR of territories at 1/R
        sd = max(sd, math.sqrt(max(abs(delta) / runs - delta * delta, 0.0)))
    return analytic_power(n, delta, sd, alpha=alpha, runs=runs, shape=shape)


def power_at(
    n: int,
    delta: float,
    *,
    sigma_d: float = PLANNING_SD,
    alpha: float = ALPHA,
    runs: int = 1,
    shape: Shape | None = None,
) -> float:
    """The power of the paired sign-flip test with ``n`` territories against a true difference ``delta``.

    The model of :func:`mde` (exact for one run up to :data:`EXACT_MAX` territories, analytic
    otherwise); 0 when the test cannot reject at all (n ≤ 5 at α = 0.05).

    >>> round(power_at(37, 0.15, sigma_d=0.4), 2), power_at(5, 0.5)
    (0.42, 0.0)
    """
    n = int(n)
    if n < 1 or n < math.log2(2.0 / alpha):
        return 0.0
    sd = float(min(max(sigma_d, 0.0), 1.0))
    return float(_power(n, min(abs(float(delta)), 1.0), sd, alpha, int(runs), shape))


def _first(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest ``i`` in ``[lo, hi]`` with ``ok(i)`` by bisection (``ok`` monotone, ``ok(hi)`` true)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def mde(
    n: int,
    *,
    sigma_d: float = PLANNING_SD,
    alpha: float = ALPHA,
    power: float = POWER,
    runs: int = 1,
    shape: Shape | None = None,
) -> float | None:
    """The smallest difference δ ∈ (0, 1] detected with ``power`` by the paired sign-flip test; None if none is.

    ``sigma_d`` is the SD of the per-territory differences with ``runs`` runs pooled per territory
    (one run: of one binary answer's); ``shape`` their skewness and kurtosis (the data's own,
    :func:`~bordir.metrics.perlang.shape.shape_of`; default normal) for the analytic model. δ is found by bisection to 1e-4 (rounded up: the power there
    is at least ``power``); None when even δ = 1 is not detected with that power (e.g. n ≤ 5: the
    test cannot reject).
    """
    n = int(n)
    if n < 1 or n < math.log2(
        2.0 / alpha
    ):  # the smallest attainable p-value, 2 / 2^n, exceeds alpha
        return None
    sd = float(min(max(sigma_d, 0.0), 1.0))

    def ok(d: float) -> bool:
        return _power(n, d, sd, alpha, int(runs), shape) >= power

    if not ok(1.0):
        return None
    lo, hi = 0.0, 1.0  # bisection: power grows with the effect
    while hi - lo > 1e-4:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return round(hi, 4)


def min_territories(
    target: float,
    *,
    sigma_d: float = PLANNING_SD,
    alpha: float = ALPHA,
    power: float = POWER,
    max_n: int = 100_000,
    runs: int = 1,
) -> int | None:
    """The fewest territories whose MDE is ≤ ``target`` (bisection; None beyond ``max_n``).

    >>> min_territories(0.5), min_territories(0.1) > 100
    (15, True)
    """

    def ok(n: int) -> bool:
        m = mde(n, sigma_d=sigma_d, alpha=alpha, power=power, runs=runs)
        return m is not None and m <= target + 1e-9

    if not ok(max_n):
        return None
    lo, hi = 1, 8
    while not ok(hi):
        lo, hi = hi, min(hi * 2, max_n)
    return _first(ok, lo, hi)
