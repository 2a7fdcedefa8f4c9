"""Citation and inclusion rates from per-answer sufficient statistics.

Every answer (one response to one prompt) is reduced once to two count
vectors over document languages: ``included[L]``, the documents of language
``L`` placed in its prompt, and ``cited[L]``, its citations to documents of
``L`` (with repeats). Everything else is a pure function of per-cluster sums
of the quantities :func:`answer_statistics` derives from them, so the estimate
and every bootstrap resample are the same arithmetic on different weights.

Two rates, named in every output (``rate`` column):

* ``pooled``: over all citations of the cell. The citation rate of ``L`` is
  Σ citations to ``L`` / Σ citations; the inclusion rate is Σ documents of ``L``
  / Σ documents. Answers with many citations weigh more.
* ``per_query``: the mean of per-answer shares. The citation rate of ``L`` is the
  mean, over answers with at least one citation, of the answer's share of
  citations going to ``L``; the inclusion rate is the mean over answers with
  at least one document of the share of its documents in ``L``. Every answer
  weighs the same.

The **citation ratio** is the citation rate divided by the inclusion rate of the
*citing* answers (``inclusion_rate_citing``: the same definition restricted to
answers with at least one citation), so that answers without any citation,
whose prompts may differ, do not bias it. When every answer cites,
``inclusion_rate_citing == inclusion_rate``.

Examples:
    >>> inc = np.array([[2, 1], [1, 3]])   # answer 0: 2 docs in L0, 1 in L1; answer 1: 1 and 3
    >>> cit = np.array([[2, 0], [0, 1]])   # answer 0 cites L0 twice; answer 1 cites L1 once
    >>> cell = CellStats.from_answers(("en", "sw"), inc, cit)
    >>> est = cell.estimates()
    >>> [round(float(x), 3) for x in est["pooled"]["citation_rate"]]      # (2, 1) / 3
    [0.667, 0.333]
    >>> [round(float(x), 3) for x in est["per_query"]["citation_rate"]]   # mean of (1, 0) and (0, 1)
    [0.5, 0.5]
    >>> [round(float(x), 3) for x in est["pooled"]["inclusion_rate"]]     # (3, 4) / 7
    [0.429, 0.571]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..stats.clusters import cluster_sums, ratio

__all__ = [
    "RATE_VARIANTS",
    "RATE_MEASURES",
    "LANG_STATS",
    "BASE_SCALARS",
    "answer_statistics",
    "CellStats",
    "rates_from_sums",
    "scalar_rate",
]

RATE_VARIANTS: tuple[str, ...] = ("pooled", "per_query")
"""The two ways of averaging, named in every output."""
RATE_MEASURES: tuple[str, ...] = (
    "inclusion_rate",
    "inclusion_rate_citing",
    "citation_rate",
    "ratio",
)
"""What :func:`rates_from_sums` returns for each variant."""
LANG_STATS: tuple[str, ...] = (
    "docs",
    "docs_citing",
    "cites",
    "share_docs",
    "share_docs_citing",
    "share_cites",
)
"""Per-answer statistics with one value per document language."""
BASE_SCALARS: tuple[str, ...] = (
    "answers",
    "with_docs",
    "citing",
    "docs_total",
    "docs_citing_total",
    "cites_total",
)
"""Per-answer statistics with one value per answer."""


def answer_statistics(
    included: np.ndarray, cited: np.ndarray
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Derived per-answer statistics from the two count matrices.

    Args:
        included: shape ``(n_answers, n_langs)``, documents per language in each prompt.
        cited: same shape, citations per language in each answer (with repeats).

    Returns:
        ``(per_language, scalars)``: arrays of shape ``(n, L)`` named by
        :data:`LANG_STATS` and of shape ``(n,)`` named by :data:`BASE_SCALARS`.
    """
    inc = np.asarray(included, dtype=np.float64)
    cit = np.asarray(cited, dtype=np.float64)
    if inc.ndim != 2 or inc.shape != cit.shape:
        raise ConfigError(
            f"included and cited must be 2-D arrays of the same shape; found {inc.shape} and {cit.shape}"
        )
    if (inc < 0).any() or (cit < 0).any():
        raise ConfigError("counts must be >= 0")
    n_docs = inc.sum(axis=1)
    n_cites = cit.sum(axis=1)
    has_docs = n_docs > 0
    citing = n_cites > 0
    share_docs = np.divide(inc, n_docs[:, None], out=np.zeros_like(inc), where=has_docs[:, None])
    share_cites = np.divide(cit, n_cites[:, None], out=np.zeros_like(cit), where=citing[:, None])
    c = citing[:, None]
    per_lang = {
        "docs": inc,
        "docs_citing": inc * c,
        "cites": cit,
        "share_docs": share_docs,
        "share_docs_citing": share_docs * c,
        "share_cites": share_cites,
    }
    scalars = {
        "answers": np.ones(len(inc)),
        "with_docs": has_docs.astype(np.float64),
        "citing": citing.astype(np.float64),
        "docs_total": n_docs,
        "docs_citing_total": n_docs * citing,
        "cites_total": n_cites,
    }
    return per_lang, scalars


def rates_from_sums(
    lang: Mapping[str, np.ndarray], scal: Mapping[str, np.ndarray]
) -> dict[str, dict[str, np.ndarray]]:
    """Rates of both variants from summed statistics.

    ``lang`` arrays have shape ``(..., L)`` and ``scal`` arrays ``(...)`` (one
    cell, or one row per bootstrap resample). Undefined values (a zero
    denominator) are NaN.
    """
    s = {k: np.asarray(v, dtype=np.float64)[..., None] for k, v in scal.items()}
    return {
        "pooled": _variant(
            ratio(lang["docs"], s["docs_total"]),
            ratio(lang["docs_citing"], s["docs_citing_total"]),
            ratio(lang["cites"], s["cites_total"]),
        ),
        "per_query": _variant(
            ratio(lang["share_docs"], s["with_docs"]),
            ratio(lang["share_docs_citing"], s["citing"]),
            ratio(lang["share_cites"], s["citing"]),
        ),
    }


def _variant(
    inclusion: np.ndarray, inclusion_citing: np.ndarray, citation: np.ndarray
) -> dict[str, np.ndarray]:
    """The :data:`RATE_MEASURES` of one variant: the ratio is citation rate / citing inclusion rate."""
    return {
        "inclusion_rate": inclusion,
        "inclusion_rate_citing": inclusion_citing,
        "citation_rate": citation,
        "ratio": ratio(citation, inclusion_citing),
    }


def scalar_rate(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` elementwise, NaN where ``den`` is 0."""
    return ratio(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))


@dataclass(frozen=True)
class CellStats:
    """The per-cluster sums of one cell (e.g. one query language of one model and mode).

    Identical cluster profiles are merged (``weight`` counts them): resampling
    clusters is then resampling profiles with multinomial counts, which is
    exactly the same bootstrap, and a million single-answer clusters with a
    few hundred distinct profiles cost a few hundred rows.

    Attributes:
        langs: the document languages (columns of the per-language arrays).
        weight: ``(K,)`` how many clusters have each profile.
        lang: ``(K, L)`` arrays named by :data:`LANG_STATS`.
        scalars: ``(K,)`` arrays: :data:`BASE_SCALARS` and any extra sums.
    """

    langs: tuple[str, ...]
    weight: np.ndarray
    lang: dict[str, np.ndarray] = field(repr=False)
    scalars: dict[str, np.ndarray] = field(repr=False)

    @property
    def n_clusters(self) -> int:
        return int(round(float(self.weight.sum())))

    @property
    def n_profiles(self) -> int:
        return len(self.weight)

    @classmethod
    def from_answers(
        cls,
        langs: Sequence[str],
        included: np.ndarray,
        cited: np.ndarray,
        *,
        clusters: Sequence[Any] | np.ndarray | None = None,
        extra: Mapping[str, np.ndarray] | None = None,
        weight: np.ndarray | None = None,
    ) -> CellStats:
        """Build from per-answer counts.

        Args:
            langs: document language of each column.
            included: ``(n_answers, L)`` counts: documents of each language in each answer's prompt.
            cited: ``(n_answers, L)`` counts: each answer's citations to documents of each language.
            clusters: the cluster of each answer (territory, conversation …);
                default: every answer is its own cluster.
            extra: further per-answer values to sum per cluster (counts of
                out-of-range citations, language matches …).
            weight: multiplicity of each answer row (rows that stand for
                several identical single-answer clusters); only without ``clusters``.
        """
        per_lang, scal = answer_statistics(included, cited)
        scal = {**scal, **{k: np.asarray(v, dtype=np.float64) for k, v in (extra or {}).items()}}
        n = len(per_lang["docs"])
        if clusters is not None:
            if weight is not None:
                raise ConfigError("pass either clusters or weight, not both")
            codes = (
                np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)
                if n
                else np.zeros(0, int)
            )
            names_l, names_s = list(per_lang), list(scal)
            L = len(langs)
            mat = (
                np.hstack([per_lang[k] for k in names_l] + [scal[k][:, None] for k in names_s])
                if n
                else np.zeros((0, len(names_l) * L + len(names_s)))
            )
            _, sums = cluster_sums(codes, mat)
            per_lang = {k: sums[:, i * L : (i + 1) * L] for i, k in enumerate(names_l)}
            scal = {k: sums[:, len(names_l) * L + j] for j, k in enumerate(names_s)}
            weight = np.ones(len(sums))
        elif weight is None:
            weight = np.ones(n)
        return cls.from_cluster_sums(langs, per_lang, scal, weight)

    @classmethod
    def from_cluster_sums(
        cls,
        langs: Sequence[str],
        lang: Mapping[str, np.ndarray],
        scalars: Mapping[str, np.ndarray],
        weight: np.ndarray,
    ) -> CellStats:
        """Build from per-cluster (or per-profile) sums; identical rows are merged."""
        L = len(langs)
        names_l, names_s = list(lang), list(scalars)
        w = np.asarray(weight, dtype=np.float64)
        if len(w) == 0:
            return cls(
                tuple(langs),
                w,
                {k: np.zeros((0, L)) for k in names_l},
                {k: np.zeros(0) for k in names_s},
            )
        mat = np.hstack(
            [np.asarray(lang[k], dtype=np.float64).reshape(len(w), L) for k in names_l]
            + [np.asarray(scalars[k], dtype=np.float64)[:, None] for k in names_s]
        )
        mat = np.round(mat, 12) + 0.0  # merge profiles that differ only by float noise; -0.0 → 0.0
        uniq, inv = np.unique(mat, axis=0, return_inverse=True)
        w2 = np.bincount(inv.reshape(-1), weights=w, minlength=len(uniq))
        keep = w2 > 0
        uniq, w2 = uniq[keep], w2[keep]
        return cls(
            tuple(langs),
            w2,
            {k: uniq[:, i * L : (i + 1) * L] for i, k in enumerate(names_l)},
            {k: uniq[:, len(names_l) * L + j] for j, k in enumerate(names_s)},
        )

    def sums(
        self, weights: np.ndarray | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Weighted sums: ``weights`` ``(K,)`` → one cell; ``(B, K)`` → one row per resample."""
        w = self.weight if weights is None else np.asarray(weights, dtype=np.float64)
        return (
            {k: w @ v for k, v in self.lang.items()},
            {k: w @ v for k, v in self.scalars.items()},
        )

    def estimates(self) -> dict[str, dict[str, np.ndarray]]:
        """:func:`rates_from_sums` of the cell itself."""
        return rates_from_sums(*self.sums())
