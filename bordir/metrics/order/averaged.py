"""The ``averaged`` option-order rule: each answer as its distribution of picks over the orders.

Answer *a* becomes pₐ, the share of its answered orders that picked each claimant. Two
answers agree with probability Σ_c pₐ(c)·p_b(c) (Cst CS: the mean over answer pairs) and an
answer is right with probability pₐ(controller) (KB, Control, Non-control CS). The per-territory
table has the columns of :data:`bordir.metrics.cs.territory.TERRITORY_COLUMNS`, so every aggregate and
bootstrap of :mod:`bordir.metrics.cs` applies unchanged; with one order it is the ordinary table.

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> rows = [dict(model="m", mode="no_ir", run=0, query_id=q.query_id, territory="Crimea", query_lang=q.lang,
    ...              is_control=q.is_control, outcome="answered", option_order=o, choice=c)
    ...         for q in ds.queries_for("Crimea") for o, c in (("given", 0), ("reversed", 1))]
    >>> t = averaged_territory_tables(pd.DataFrame(rows), ds)[("m", "no_ir", 0)].table
    >>> float(t["kb_num"].iloc[0]), float(t["cst_num"].iloc[0])
    (0.5, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...records import UNKNOWN
from ..cs.table import TerritoryStats, build_stats
from ..cs.territory import fix_responses_d
from ..responses import TableKey

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = ["averaged_territory_tables"]


def _soft_stats(
    territory: str,
    controller: str,
    code: str,
    claimants: Sequence[str],
    dists: dict[str, np.ndarray | None],
    en: np.ndarray | None,
    n_queries: int,
) -> tuple[dict[str, Any], list[Any]]:
    known = controller != UNKNOWN
    ci = claimants.index(controller) if known and controller in claimants else None
    kb_num = kb_den = kb_sk = 0.0
    if known:
        if en is None:
            kb_sk = 1
        else:
            kb_den, kb_num = 1.0, float(en[ci]) if ci is not None else 0.0
    ctl_num = ctl_den = ctl_sk = 0.0
    nc_sum, nc_n, nc_sk = 0.0, 0, 0
    items = []
    for lang, p in dists.items():
        role = "unknown" if not known else ("control" if lang == code else "non_control")
        agree = np.nan if (p is None or not known) else (float(p[ci]) if ci is not None else 0.0)
        if role == "control":
            if p is None:
                ctl_sk += 1
            else:
                ctl_den, ctl_num = 1.0, agree
        elif role == "non_control":
            if p is None:
                nc_sk += 1
            else:
                nc_n, nc_sum = nc_n + 1, nc_sum + agree
        items.append(
            {
                "territory": territory,
                "query_lang": lang,
                "role": role,
                "answer": None,
                "missing": p is None,
                "agree": agree,
            }
        )
    valid = [p for p in dists.values() if p is not None]
    pairs = list(combinations(valid, 2))
    cst = float(np.mean([float(a @ b) for a, b in pairs])) if pairs else 0.0
    all_pairs = len(dists) * (len(dists) - 1) // 2
    row = {
        "territory": territory,
        "controller": controller,
        "controller_code": code,
        "controller_known": known,
        "n_queries": n_queries,
        "n_claimant": len(dists),
        "n_missing": len(dists) - len(valid),
        "kb_num": kb_num,
        "kb_den": kb_den,
        "kb_skipped": int(kb_sk),
        "control_num": ctl_num,
        "control_den": ctl_den,
        "control_skipped": int(ctl_sk),
        "nc_agree": nc_sum,
        "nc_n": nc_n,
        "nc_skipped": nc_sk,
        "nc_num": nc_sum / nc_n if nc_n else 0.0,
        "nc_den": float(nc_n > 0),
        "cst_agree": sum(float(a @ b) for a, b in pairs),
        "cst_pairs": len(pairs),
        "cst_skipped": all_pairs - len(pairs),
        "cst_num": cst,
        "cst_den": float(bool(pairs)),
        "cst_unk_num": cst if not known else 0.0,
        "cst_unk_den": float(bool(pairs) and not known),
    }
    return row, items


def averaged_territory_tables(
    responses: pd.DataFrame, dataset: BorderLines
) -> dict[TableKey, TerritoryStats]:
    """Per-territory statistics of the ``averaged`` rule (answers as pick distributions over orders)."""
    df = responses.copy()
    order = {t.name: i for i, t in enumerate(dataset.territories)}
    out: dict[TableKey, TerritoryStats] = {}
    for key, group in sorted(
        df.groupby(["model", "mode", "run"], sort=False), key=lambda kv: kv[0]
    ):
        rows = []
        for name, g in sorted(group.groupby("territory", sort=False), key=lambda kv: order[kv[0]]):
            terr = dataset.territory(name)
            n = len(terr.claimants)
            dists: dict[str, np.ndarray | None] = {}
            en = None
            for (lang, ctl), q in g.groupby(["query_lang", "is_control"], sort=True):
                ch = q.loc[q["outcome"] == "answered", "choice"].astype(int).to_numpy()
                p = np.bincount(ch, minlength=n) / len(ch) if len(ch) else None
                if ctl:
                    en = p
                dists[lang] = p
            dists = fix_responses_d(dists, dataset.claimant_langs(name))
            rows.append(
                _soft_stats(
                    name,
                    terr.controller,
                    dataset.controller_lang(name),
                    terr.claimants,
                    dists,
                    en,
                    int(g["query_id"].nunique()),
                )
            )
        out[TableKey(*key)] = build_stats(
            rows, policy="strict", key=dict(zip(("model", "mode", "run"), key))
        )
    return out
