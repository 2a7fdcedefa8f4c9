"""For territorial questions: the share of the cited sources from each claimant's country, per territory × model × query language.

An answer about a territory with known claimants (the log's ``claimants``, ISO codes or
names) contributes its attributed URLs; per territory, model and query language, each
claimant's share is ``Σ a_g / Σ b_g`` over the cell's clusters (answers or question groups),
with the cluster Wilson interval (:mod:`.wilson`), ``too few to judge`` below ``min_clusters``.
``own`` marks the claimant whose language is the query's (the log's ``claimant_langs``, else
the country's official languages).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from .shares import ShareOptions, cluster_keys, own_claimants
from .wilson import wilson_from_sums

__all__ = ["claimant_table"]


def claimant_table(answers: pa.Table, urls: pa.Table, options: ShareOptions) -> pd.DataFrame:
    """One row per territory × model × query language × claimant (empty without territorial answers)."""
    claim = answers["claimants"].to_pylist()
    terr = answers["territory"].to_pylist()
    keep = [i for i, (c, t) in enumerate(zip(claim, terr)) if c]
    cols = [
        "territory",
        "model",
        "query_lang",
        "claimant",
        "own",
        "n_answers",
        "n_clusters",
        "n_urls",
        "count",
        "share",
        "low",
        "high",
        "status",
    ]
    if not keep:
        return pd.DataFrame(columns=cols)
    clus = cluster_keys(answers, options.cluster)
    n_urls = answers["n_urls"].to_numpy().astype(float)
    model = answers["model"].to_pylist()
    qlang = answers["query_lang"].to_pylist()
    clangs = answers["claimant_langs"].to_pylist()
    url_ans = urls["answer"].to_numpy().astype(np.int64)
    country = np.asarray(urls["country"].to_pylist(), dtype=object)
    per_answer: dict[tuple[int, str], int] = {}
    for a, c in zip(url_ans, country):
        if c is not None:
            per_answer[(int(a), c)] = per_answer.get((int(a), c), 0) + 1
    cells: dict[tuple[str, str, str, str], dict[int, list[float]]] = {}
    owns: dict[tuple[str, str, str, str], bool] = {}
    for i in keep:
        t = terr[i] or "+".join(claim[i])
        own = own_claimants(claim[i], clangs[i] or [], qlang[i])
        for c in claim[i]:
            key = (t, model[i], qlang[i], c)
            owns[key] = c in own
            g = cells.setdefault(key, {})
            ab = g.setdefault(int(clus[i]), [0.0, 0.0, 0.0])
            ab[0] += per_answer.get((i, c), 0)
            ab[1] += n_urls[i]
            ab[2] += 1
    rows = []
    for key, g in sorted(cells.items()):
        arr = np.array(list(g.values()))
        a, b = arr[:, 0], arr[:, 1]
        ng = int((b > 0).sum())
        if ng == 0:
            continue
        est, lo, hi = wilson_from_sums(
            np.array([a.sum()]), np.array([(a * a).sum()]), np.array([(a * b).sum()]),
            np.array([b.sum()]), np.array([(b * b).sum()]), np.array([ng]), options.conf,
        )  # fmt: skip
        few = ng < options.min_clusters
        rows.append(
            [*key, owns[key], int(arr[:, 2].sum()), ng, int(b.sum()), int(a.sum()), float(est[0]),
             None if few else float(lo[0]), None if few else float(hi[0]), "too few to judge" if few else "ok"]
        )  # fmt: skip
    return pd.DataFrame(rows, columns=cols)
