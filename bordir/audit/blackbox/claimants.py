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

from .shares import ShareOptions, claimant_roles, cluster_keys
from .wilson import wilson_from_sums

__all__ = ["claimant_table"]


def claimant_table(answers: pa.Table, urls: pa.Table, options: ShareOptions) -> pd.DataFrame:
    """One row per territory × model × query language × claimant (empty without territorial answers)."""
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
    roles = claimant_roles(answers)
    if not len(roles):
        return pd.DataFrame(columns=cols)
    clus = cluster_keys(answers, options.cluster)
    terr = [
        t or "+".join(c or [])
        for t, c in zip(answers["territory"].to_pylist(), answers["claimants"].to_pylist())
    ]
    a = pd.DataFrame({"answer": np.arange(answers.num_rows), "territory": terr, "model": answers["model"].to_pylist(),
                      "query_lang": answers["query_lang"].to_pylist(), "cluster": clus,
                      "b": answers["n_urls"].to_numpy().astype(float)})  # fmt: skip
    hits = pd.DataFrame(
        {
            "answer": urls["answer"].to_numpy().astype(np.int64),
            "country": urls["country"].to_pylist(),
        }
    ).dropna()
    hits = hits.groupby(["answer", "country"]).size().rename("a").reset_index()
    r = (
        roles.merge(a, on="answer")
        .merge(hits, on=["answer", "country"], how="left")
        .fillna({"a": 0.0})
    )
    keys = ["territory", "model", "query_lang", "country"]
    g = (
        r.groupby([*keys, "cluster"], sort=True)
        .agg(a=("a", "sum"), b=("b", "sum"), n=("answer", "size"), own=("own", "max"))
        .reset_index()
    )
    g["aa"], g["ab"], g["bb"], g["g"] = g.a * g.a, g.a * g.b, g.b * g.b, (g.b > 0).astype(float)
    c = g.groupby(keys, sort=True).agg(x=("a", "sum"), saa=("aa", "sum"), sab=("ab", "sum"), nn=("b", "sum"), s2=("bb", "sum"),
                                       G=("g", "sum"), n_answers=("n", "sum"), own=("own", "max")).reset_index()  # fmt: skip
    c = c[c.nn > 0].reset_index(drop=True)
    est, lo, hi = wilson_from_sums(
        c.x.to_numpy(),
        c.saa.to_numpy(),
        c.sab.to_numpy(),
        c.nn.to_numpy(),
        c.s2.to_numpy(),
        c.G.to_numpy(),
        options.conf,
    )
    few = c.G.to_numpy() < options.min_clusters
    return pd.DataFrame({
        "territory": c.territory, "model": c.model, "query_lang": c.query_lang, "claimant": c.country, "own": c.own.astype(bool),
        "n_answers": c.n_answers.astype(int), "n_clusters": c.G.astype(int), "n_urls": c.nn.astype(int), "count": c.x.astype(int),
        "share": est, "low": np.where(few, np.nan, lo), "high": np.where(few, np.nan, hi),
        "status": np.where(few, "too few to judge", "ok"),
    })[cols]  # fmt: skip
