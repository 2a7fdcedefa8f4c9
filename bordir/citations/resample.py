"""Cluster-bootstrap resamples of a cell's sums: exact multinomial draws of profile counts, or their normal approximation.

Clusters (territories in experiments; records, or a chosen key such as a
conversation id, in audits) are resampled with replacement. A cell's clusters
are stored as distinct profiles with multiplicities (:class:`~.rates.CellStats`),
so a resample is a multinomial draw of profile counts
(:func:`bordir.stats.multinomial_weights`) — exactly the ordinary
cluster bootstrap, vectorised: every statistic of every resample is one matrix
product over the (few) profiles.

When a cell has so many distinct profiles that the exact draw would be slow
(``n_resamples × profiles`` above :data:`EXACT_LIMIT`, e.g. a million log
records with varied prompts), ``method="auto"`` switches to the **normal**
approximation of the same bootstrap: the vector of cell sums is drawn from the
Gaussian with the exact mean and covariance of the multinomial resampling of
clusters (sums clipped at 0), and the rates are computed from each draw as
before. With thousands of clusters the two agree closely (central limit
theorem); the method used is reported per row (``bootstrap``).

Each cell gets its own random stream, derived from the seed and the cell's
name (:func:`bordir.stats.named_rng`), so a cell's interval does not depend on which other cells are present
or on row order. The rate rows and the answer-level shares of a cell use the
same resamples (:func:`bootstrap_sums`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..stats.resample import multinomial_weights
from ..stats.seeds import named_rng
from .rates import CellStats

__all__ = [
    "BOOT_METHODS",
    "EXACT_LIMIT",
    "BootSums",
    "bootstrap_sums",
]


_MAX_CELLS = 4_000_000  # resample × profile entries per chunk


BOOT_METHODS: tuple[str, ...] = ("auto", "multinomial", "normal")


EXACT_LIMIT = 2_000_000
"""``auto`` draws the exact multinomial while ``n_resamples × profiles`` is at most this."""


def _chunks(n_resamples: int, k: int) -> list[int]:
    size = max(1, min(n_resamples, _MAX_CELLS // max(k, 1)))
    out, left = [], n_resamples
    while left > 0:
        out.append(min(size, left))
        left -= size
    return out


@dataclass(frozen=True)
class BootSums:
    """The cell sums of every resample: ``lang`` arrays ``(B, L)``, ``scal`` arrays ``(B,)``, and the method."""

    lang: dict[str, np.ndarray]
    scal: dict[str, np.ndarray]
    method: str


def _normal_sums(
    cell: CellStats, n_resamples: int, rng: np.random.Generator
) -> tuple[dict[str, Any], dict[str, Any]]:
    names_l, names_s = list(cell.lang), list(cell.scalars)
    L = len(cell.langs)
    x = np.hstack([cell.lang[k] for k in names_l] + [cell.scalars[k][:, None] for k in names_s])
    w = cell.weight
    n = w.sum()
    p = w / n
    mu = p @ x
    cov = n * ((x * p[:, None]).T @ x - np.outer(mu, mu))
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    draws = n * mu + rng.standard_normal((n_resamples, len(mu))) @ root.T
    draws = np.clip(draws, 0.0, None)
    lang = {k: draws[:, i * L : (i + 1) * L] for i, k in enumerate(names_l)}
    scal = {k: draws[:, len(names_l) * L + j] for j, k in enumerate(names_s)}
    return lang, scal


def bootstrap_sums(
    cell: CellStats,
    *,
    n_resamples: int = 2000,
    seed: int = 12345,
    name: str = "",
    method: str = "auto",
) -> BootSums:
    """The cell's sums in ``n_resamples`` cluster-bootstrap resamples (see the module docs for ``method``)."""
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, found {n_resamples}")
    if method not in BOOT_METHODS:
        raise ConfigError(f"unknown bootstrap method {method!r}; known: {', '.join(BOOT_METHODS)}")
    if method == "auto":
        method = "multinomial" if n_resamples * max(cell.n_profiles, 1) <= EXACT_LIMIT else "normal"
    rng = named_rng(seed, name)
    if method == "normal" and cell.n_profiles > 0:
        lang, scal = _normal_sums(cell, n_resamples, rng)
        return BootSums(lang, scal, method)
    parts_l: dict[str, list[np.ndarray]] = {k: [] for k in cell.lang}
    parts_s: dict[str, list[np.ndarray]] = {k: [] for k in cell.scalars}
    for size in _chunks(n_resamples, cell.n_profiles):
        sl, ss = cell.sums(multinomial_weights(cell.weight, size, rng))
        for k, v in sl.items():
            parts_l[k].append(v)
        for k, v in ss.items():
            parts_s[k].append(v)
    return BootSums(
        {k: np.vstack(v) for k, v in parts_l.items()},
        {k: np.concatenate(v) for k, v in parts_s.items()},
        "multinomial",
    )
