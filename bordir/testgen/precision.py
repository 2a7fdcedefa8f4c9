"""Oracle precision: how many of the failures the judge reports are real, on a labelled sample.

RAG-Tester samples the failed tests (Cochran's formula: 382 of 41,926),
labels each sampled failure a true or false positive by a **majority vote of
four larger judges**, and reports precision and false discovery rate (FDR).

* :func:`cochran_sample_size` — ``n0 = z²·p(1−p)/e²`` rounded up, then the
  finite-population correction ``n = n0 / (1 + (n0 − 1)/N)`` rounded up
  (``z`` for the confidence level, ``p = 0.5``, margin ``e = 0.05`` by default);
  this gives the paper's 382 for ``N = 41,926``.
* :func:`sample_failures` — a seeded simple random sample of the failed units.
* :func:`label_by_majority` — the label of each sampled failure from other
  judges' verdicts (the majority of :func:`~bordir.testgen.reliability.majority`):
  ``fail`` → true positive, ``pass`` → false positive, a tie or no verdict →
  unlabelled (counted, left out).
* :func:`oracle_precision` — precision ``TP/(TP+FP)`` and FDR ``FP/(TP+FP)`` with
  Wilson (default) or Clopper–Pearson intervals. The intervals are binomial,
  i.e. they ignore the finite-population correction and are conservative when
  the sample is a large share of the failures.

Example:
    >>> cochran_sample_size(41926)
    382
    >>> r = oracle_precision({"a": True, "b": True, "c": False, "d": None})
    >>> r["precision"], r["fdr"], r["labelled"], r["unlabelled"]
    (0.6667, 0.3333, 3, 1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import ConfigError
from ..signature import Signature
from ..stats import ci_name, proportion_ci, z_quantile
from .reliability import majority

__all__ = ["cochran_sample_size", "sample_failures", "label_by_majority", "oracle_precision"]


def cochran_sample_size(
    population: int, *, margin: float = 0.05, conf: float = 0.95, p: float = 0.5
) -> int:
    """Cochran's sample size with finite-population correction (see module docs).

    Raises:
        ConfigError: a parameter out of range.
    """
    if population < 0 or not 0 < margin < 1 or not 0 < conf < 1 or not 0 < p < 1:
        raise ConfigError(
            f"cochran_sample_size: need population >= 0 and margin, conf, p in (0, 1); found "
            f"{population}, {margin}, {conf}, {p}"
        )
    if population == 0:
        return 0
    z = z_quantile(conf)
    n0 = math.ceil(z * z * p * (1 - p) / (margin * margin))
    return min(population, math.ceil(n0 / (1 + (n0 - 1) / population)))


def sample_failures(
    failed: Sequence[Any],
    n: int | None = None,
    *,
    seed: int = 12345,
    margin: float = 0.05,
    conf: float = 0.95,
) -> list[Any]:
    """A seeded random sample of ``failed`` units of size ``n`` (default: Cochran's), in input order."""
    k = (
        cochran_sample_size(len(failed), margin=margin, conf=conf)
        if n is None
        else min(n, len(failed))
    )
    idx: Sequence[int] = (
        np.sort(np.random.default_rng(seed).choice(len(failed), size=k, replace=False)).tolist()
        if k
        else []
    )
    return [failed[int(i)] for i in idx]


def label_by_majority(
    units: Sequence[Any], judgments: Sequence[dict[str, Any]], *, prompt_lang: str | None = None
) -> dict[Any, bool | None]:
    """True (a true positive) / False (a false positive) / None per sampled unit, from label judges' verdicts."""
    votes: dict[Any, list[str | None]] = {u: [] for u in units}
    lang = prompt_lang or (judgments[0]["prompt_lang"] if judgments else "en")
    for r in judgments:
        u = (r["config"], r["test_id"])
        if u in votes and r["prompt_lang"] == lang:
            votes[u].append(r.get("verdict"))
    out: dict[Any, bool | None] = {}
    for u, vs in votes.items():
        m = majority(vs)
        out[u] = True if m == "fail" else False if m == "pass" else None
    return out


def oracle_precision(
    labels: Mapping[Any, bool | None],
    *,
    population: int | None = None,
    method: str = "wilsoncc",
    conf: float = 0.95,
    label_source: str = "labels",
    oracle: str = "",
) -> dict[str, Any]:
    """Precision and FDR of the oracle's failures on labelled sampled failures (see module docs).

    Args:
        labels: sampled failed unit → True (real failure), False (false alarm), None (no label).
        population: the number of failures sampled from (for the report).
        method: ``wilsoncc`` (:func:`bordir.stats.rate_interval`), ``wilson`` or ``beta`` (Clopper–Pearson).
        conf: the confidence level of the precision interval.
        label_source: who labelled (e.g. ``majority:judge1+judge2+judge3``), for the signature.
        oracle: the judged oracle, for the signature.
    """
    tp = sum(1 for v in labels.values() if v is True)
    fp = sum(1 for v in labels.values() if v is False)
    n = tp + fp
    lo, hi = proportion_ci(tp, n, method=method, conf=conf)
    flo, fhi = proportion_ci(fp, n, method=method, conf=conf)
    sig = Signature.build(
        "oracle_precision",
        oracle=oracle or None,
        labels=label_source,
        ci=ci_name(method, conf),
        n=n,
        population=population,
        version=__version__,
    )
    return {
        "precision": round(tp / n, 4) if n else None,
        "precision_ci": [lo, hi],
        "fdr": round(fp / n, 4) if n else None,
        "fdr_ci": [flo, fhi],
        "true_positives": tp,
        "false_positives": fp,
        "labelled": n,
        "unlabelled": sum(1 for v in labels.values() if v is None),
        "sampled": len(labels),
        "population": population,
        "signature": str(sig),
    }
