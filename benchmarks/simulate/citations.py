"""Simulated audits of known fairness: the size and power of the citation flags, vectorised.

An audit here is ``n_cells`` query languages × 2 document languages (``en``,
``sw``), ``n_records`` records per query language, each record its own
cluster (as ``bordir audit`` clusters by default). A record has 1–4 prompt
documents, each English with the cell's probability (0.3–0.7), and 0–2
citations:

* **fair**: each citation picks a prompt document uniformly (with repeats), so
  every ratio is 1;
* **planted**: prompts of 3 documents, one English; in the biased query
  language a citation goes to the English document with probability 1/2
  (included 1/3: a ratio of 1.5), elsewhere uniformly.

:func:`audit_flags` tests every cell with the library's own score test
(:func:`~bordir.citations.ratio.ratio_score_test`, both rate variants) and
flags with :func:`~bordir.citations.flags.assign_flags`, Holm across every
tested cell of an audit (per query language and the cell pooling them all,
``*``; both rate variants), as :func:`~bordir.citations.tables.build_tables`
does.
``tests/citations/test_citation_flags_fwer.py`` runs it small; ``benchmarks/coverage_citations.py``
full size.

Example:
    >>> rng = np.random.default_rng(0)
    >>> inc, cit = fair_audits(rng, n_audits=50, n_cells=5, n_records=20)
    >>> inc.shape, cit.shape
    ((50, 5, 20, 2), (50, 5, 20, 2))
    >>> f = audit_flags(inc, cit)
    >>> f.keys() >= {"any_flag", "flags", "too_few", "tested"}
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bordir.citations.flags import MIN_CELL_CLUSTERS, TOO_FEW, assign_flags
from bordir.citations.rates import answer_statistics
from bordir.citations.ratio_test import VARIANT_TERMS, ratio_score_test

__all__ = ["DOC_LANGS", "fair_audits", "planted_audits", "audit_flags"]

DOC_LANGS: tuple[str, ...] = ("en", "sw")


def fair_audits(
    rng: np.random.Generator, *, n_audits: int, n_cells: int, n_records: int
) -> tuple[np.ndarray, np.ndarray]:
    """Included and cited counts ``(n_audits, n_cells, n_records, 2)`` of a fair assistant (see the module docs)."""
    shape = (n_audits, n_cells, n_records)
    p_en = np.linspace(0.3, 0.7, n_cells)[None, :, None]
    n_docs = rng.integers(1, 5, size=shape)
    n_en = rng.binomial(n_docs, np.broadcast_to(p_en, shape))
    n_cites = rng.integers(0, 3, size=shape)
    c_en = rng.binomial(n_cites, n_en / n_docs)
    inc = np.stack([n_en, n_docs - n_en], axis=-1).astype(float)
    cit = np.stack([c_en, n_cites - c_en], axis=-1).astype(float)
    return inc, cit


def planted_audits(
    rng: np.random.Generator,
    *,
    n_audits: int,
    n_cells: int,
    n_records: int,
    ratio: float = 1.5,
    biased_cell: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts as :func:`fair_audits`, prompts of 1 English + 2 Swahili documents, one citation per record, English cited ``ratio`` times as often as included in ``biased_cell``."""
    shape = (n_audits, n_cells, n_records)
    p = np.full(shape, 1 / 3)
    p[:, biased_cell] = min(1.0, ratio / 3)
    c_en = (rng.random(shape) < p).astype(float)
    inc = np.stack([np.ones(shape), 2 * np.ones(shape)], axis=-1)
    cit = np.stack([c_en, 1 - c_en], axis=-1)
    return inc, cit


def _cell_tests(inc: np.ndarray, cit: np.ndarray, conf: float) -> dict[str, Any]:
    """Score tests of every (audit, cell, doc language) and rate variant: arrays ``(A, C, L)``."""
    a, c, g, L = inc.shape
    per_lang, scal = answer_statistics(inc.reshape(-1, L), cit.reshape(-1, L))
    out = {}
    for v, (xn, yn, un, vn) in VARIANT_TERMS.items():
        out[v] = ratio_score_test(
            per_lang[xn].reshape(a, c, g, L),
            scal[yn].reshape(a, c, g),
            per_lang[un].reshape(a, c, g, L),
            scal[vn].reshape(a, c, g),
            conf=conf,
        )
    return out


def _table(
    tests: dict[str, Any], n_clusters: int, cells: list[str], inc: np.ndarray, cit: np.ndarray
) -> pd.DataFrame:
    shown = ((inc > 0) & (cit.sum(-1, keepdims=True) > 0)).sum(
        -2
    )  # (A, C, L): clusters citing with L shown
    frames = []
    for v, t in tests.items():
        a, c, L = t.ratio.shape
        idx = np.indices((a, c, L)).reshape(3, -1)
        frames.append(
            pd.DataFrame(
                {
                    "audit": idx[0],
                    "query_lang": np.asarray(cells)[idx[1]],
                    "doc_lang": np.asarray(DOC_LANGS)[idx[2]],
                    "rate": v,
                    "n_clusters": n_clusters,
                    "n_clusters_lang": shown.ravel(),
                    "ratio": t.ratio.ravel(),
                    "ratio_low": t.low.ravel(),
                    "ratio_high": t.high.ravel(),
                    "p_value": t.p_value.ravel(),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    return df.astype(object).where(df.notna(), None)


def audit_flags(
    inc: np.ndarray,
    cit: np.ndarray,
    *,
    conf: float = 0.95,
    min_clusters: int = MIN_CELL_CLUSTERS,
    adjust: str = "holm",
) -> dict[str, Any]:
    """Flag every simulated audit as ``bordir audit`` would; per-audit results.

    Returns:
        ``any_flag`` (bool per audit: at least one flag in the per-language table or the pooled cell),
        ``flags`` (the flagged rows), ``too_few`` (rows judged ``too few to judge``), ``tested`` (rows tested)
        and ``table`` (every row, with ``verdict``).
    """
    n_audits, n_cells, n_records, _ = inc.shape
    cells = [f"q{i}" for i in range(n_cells)]
    per = _table(_cell_tests(inc, cit, conf), n_records, cells, inc, cit)
    inc1, cit1 = (
        inc.reshape(n_audits, 1, -1, inc.shape[-1]),
        cit.reshape(n_audits, 1, -1, cit.shape[-1]),
    )
    pooled = _table(_cell_tests(inc1, cit1, conf), n_cells * n_records, ["*"], inc1, cit1)
    table = assign_flags(
        pd.concat([per, pooled], ignore_index=True),
        family=("audit",),
        conf=conf,
        adjust=adjust,
        min_clusters=min_clusters,
    )
    flagged = table[table["flag"].notna()]
    any_flag = np.zeros(n_audits, dtype=bool)
    any_flag[flagged["audit"].astype(int).unique()] = True
    return {
        "any_flag": any_flag,
        "flags": flagged,
        "too_few": table[table["verdict"] == TOO_FEW],
        "tested": table[table["tested"].astype(bool)],
        "table": table,
    }
