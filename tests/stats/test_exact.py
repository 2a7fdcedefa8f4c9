"""Exact McNemar, Fisher and sign tests against statsmodels and a direct hypergeometric sum."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bordir.stats import fisher_exact, mcnemar_exact, sign_test


@pytest.mark.parametrize("b,c", [(7, 1), (0, 5), (10, 10), (3, 12), (25, 14)])
def test_mcnemar_matches_statsmodels(b, c):
    tables = pytest.importorskip("statsmodels.stats.contingency_tables")
    ref = tables.mcnemar(np.array([[5, b], [c, 9]]), exact=True)
    assert mcnemar_exact(b=b, c=c) == pytest.approx(ref.pvalue)
    assert mcnemar_exact(b=0, c=0) == 1.0


def _fisher_by_hand(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher p: the probability of tables at most as likely as the observed one, margins fixed."""
    k, n = k1 + k2, n1 + n2

    def pmf(x: int) -> float:
        return math.comb(n1, x) * math.comb(n2, k - x) / math.comb(n, k)

    obs = pmf(k1)
    xs = range(max(0, k - n2), min(k, n1) + 1)
    return min(1.0, sum(pmf(x) for x in xs if pmf(x) <= obs * (1 + 1e-7)))


@pytest.mark.parametrize(
    "k1,n1,k2,n2", [(3, 10, 8, 10), (0, 12, 5, 9), (20, 40, 21, 41), (1, 3, 2, 2)]
)
def test_fisher_matches_the_hypergeometric_sum(k1, n1, k2, n2):
    assert fisher_exact(k1, n1, k2, n2) == pytest.approx(_fisher_by_hand(k1, n1, k2, n2))
    assert fisher_exact(1, 0, 2, 3) == 1.0


@pytest.mark.parametrize("wins,losses", [(8, 2), (5, 5), (0, 6), (13, 4)])
def test_sign_test_matches_statsmodels(wins, losses):
    desc = pytest.importorskip("statsmodels.stats.descriptivestats")
    _, p = desc.sign_test(np.r_[np.ones(wins), -np.ones(losses)], mu0=0)
    assert sign_test(wins, losses) == pytest.approx(p)
    assert sign_test(0, 0) == 1.0
