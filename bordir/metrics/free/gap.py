"""The forced-vs-free gap: does a free answer name the country the forced choice named?

From the items of :func:`~bordir.metrics.free.items.pair_items` (paired by model, mode, query —
that is territory and query language — and run), per (model, mode) and query language, and for all
languages pooled (``query_lang`` = ``*``):

* ``switch_rate``: among the pairs where both formats name a claimant, the share where they name
  different ones; ``free_named_rate``: the share of free answers that name one claimant at all;
* ``agree_forced`` / ``agree_free``: the share naming the territory's controller (known
  controllers; the per-language KB CS — for the English control queries it *is* KB CS), and
  ``gap`` = free − forced on the same pairs.

The unit of evidence is the **territory**: each territory's pairs (its runs, and its languages when
pooled) are averaged first. The 95 % interval of each rate and of the gap is a percentile cluster
bootstrap over territories (the same resampled territories for both formats); the gap's p-value is
a two-sided sign-flip test of the per-territory differences, ``p = (c + 1) / (n + 1)``; Holm's
correction runs over the languages of one (model, mode). A group with fewer than
``min_territories`` (default 30, where the percentile cluster bootstrap starts to cover) is
``too few to judge``: its point estimates stay, without interval or test, with the power a test
would have had against a gap of 10 / 20 points (``power_10`` / ``power_20``), as in
:mod:`bordir.metrics.perlang.compare`.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame({"model": "m", "mode": "no_ir", "query_id": ["T1_xx", "T2_xx"],
    ...     "territory": ["T1", "T2"], "query_lang": "xx", "run": 0, "same": [1.0, 0.0],
    ...     "free_named": [1.0, 1.0], "forced_agree": [1.0, 1.0], "free_agree": [1.0, 0.0]})
    >>> g = language_gap(items, resamples=200, seed=1)
    >>> g.loc[g["query_lang"] == "xx", ["switch_rate", "gap", "n_territories", "status"]].to_dict("records")
    [{'switch_rate': 0.5, 'gap': -0.5, 'n_territories': 2, 'status': 'too few to judge'}]
"""

from __future__ import annotations

import math
import zlib
from typing import Any

import numpy as np
import pandas as pd

from ...signature import Signature
from ...stats import (
    bootstrap_weights,
    flip_matrix,
    holm,
    percentile_bounds,
    resolve_seed,
    sign_flip_pvalue,
)
from ..intervals.bootstrap import MIN_CLUSTERS
from ..perlang.power import PLANNING_SD, lattice_runs, power_at

__all__ = ["GAP_COLUMNS", "language_gap", "POOLED"]

POOLED = "*"
"""The ``query_lang`` of the all-languages row of each (model, mode)."""
GAP_COLUMNS: tuple[str, ...] = (
    "model", "mode", "query_lang", "switch_rate", "switch_low", "switch_high", "free_named_rate",
    "agree_forced", "agree_free", "gap", "gap_low", "gap_high", "p_value", "p_holm", "significant",
    "status", "n_territories", "n_pairs", "n_switch_pairs", "n_runs", "power_10", "power_20",
    "signature",
)  # fmt: skip
_CONF = 0.95


def _per_territory(g: pd.DataFrame, column: str) -> pd.Series:
    v = g[column].to_numpy(dtype=float)
    ok = ~np.isnan(v)
    return pd.Series(v[ok], index=g["territory"].to_numpy()[ok]).groupby(level=0).mean()


def _bounds(values: np.ndarray, w: np.ndarray) -> tuple[float | None, float | None]:
    lo, hi, _ = percentile_bounds((w @ values) / len(values), _CONF)
    return lo, hi


def _group(g: pd.DataFrame, resamples: int, rng_seed: list[int], min_t: int) -> dict[str, Any]:
    sw = _per_territory(g, "same")
    named = _per_territory(g, "free_named")
    fa, fr = _per_territory(g, "forced_agree"), _per_territory(g, "free_agree")
    common = fa.index.intersection(fr.index)
    d = (fr[common] - fa[common]).to_numpy()
    n = len(common)
    row: dict[str, Any] = {
        "switch_rate": float(1 - sw.mean()) if len(sw) else math.nan,
        "switch_low": math.nan,
        "switch_high": math.nan,
        "free_named_rate": float(named.mean()) if len(named) else math.nan,
        "agree_forced": float(fa[common].mean()) if n else math.nan,
        "agree_free": float(fr[common].mean()) if n else math.nan,
        "gap": float(np.round(d.mean(), 12)) if n else math.nan,
        "gap_low": math.nan,
        "gap_high": math.nan,
        "p_value": math.nan,
        "p_holm": math.nan,
        "significant": False,
        "status": "judged" if n >= min_t else ("too few to judge" if n else "undefined"),
        "n_territories": n,
        "n_pairs": int((~np.isnan(g["free_agree"].to_numpy(dtype=float))).sum()),
        "n_switch_pairs": int((~np.isnan(g["same"].to_numpy(dtype=float))).sum()),
        "n_runs": int(g["run"].nunique()),
    }
    rng = np.random.default_rng(rng_seed)
    if len(sw) >= min_t:  # the switch rate's interval: territories resampled
        lo, hi = _bounds(1 - sw.to_numpy(), bootstrap_weights(len(sw), resamples, rng))
        row["switch_low"], row["switch_high"] = lo, hi
    if row["status"] == "judged":
        lo, hi = _bounds(d, bootstrap_weights(n, resamples, rng))
        row["gap_low"], row["gap_high"] = lo, hi
        row["p_value"] = sign_flip_pvalue(d, flip_matrix(resamples, n, rng))
    sd = float(np.std(d, ddof=1)) if n >= 2 else PLANNING_SD
    grid = lattice_runs(d, row["n_runs"]) if n else 1
    row["power_10"] = power_at(n, 0.10, sigma_d=sd, runs=grid)
    row["power_20"] = power_at(n, 0.20, sigma_d=sd, runs=grid)
    return row


def language_gap(
    items: pd.DataFrame,
    *,
    resamples: int = 2000,
    seed: int | None = None,
    min_territories: int = MIN_CLUSTERS,
    alpha: float = 0.05,
    data_hash: str | None = None,
) -> pd.DataFrame:
    """The gap per (model, mode, query language) and pooled (see the module docs): :data:`GAP_COLUMNS`."""
    seed = resolve_seed(seed)
    rows: list[dict[str, Any]] = []
    for (model, mode), g in items.groupby(["model", "mode"], sort=True):
        groups = [(lang, sub) for lang, sub in g.groupby("query_lang", sort=True)]
        groups.append((POOLED, g))
        block = []
        for lang, sub in groups:
            key = f"{model}|{mode}|{lang}"
            row = {"model": model, "mode": mode, "query_lang": lang}
            row.update(_group(sub, resamples, [seed, zlib.crc32(key.encode())], min_territories))
            row["signature"] = str(
                Signature.build(
                    "free_gap",
                    lang=lang,
                    mode=mode,
                    gen=model,
                    runs=row["n_runs"],
                    pair="territory+lang+run",
                    ci="cluster95",
                    boot=resamples,
                    perm=resamples,
                    seed=seed,
                    holm="langs",
                    min_terr=min_territories,
                    data=data_hash,
                )
            )
            block.append(row)
        judged = [r for r in block if r["status"] == "judged" and r["query_lang"] != POOLED]
        if judged:
            adjusted, reject = holm([r["p_value"] for r in judged], alpha=alpha)
            for r, p, rej in zip(judged, adjusted, reject):
                r["p_holm"], r["significant"] = float(p), bool(rej)
        pooled = block[-1]
        if pooled["status"] == "judged":  # one test of its own, not part of the languages' family
            pooled["p_holm"] = pooled["p_value"]
            pooled["significant"] = bool(pooled["p_value"] < alpha)
        rows.extend(block)
    return pd.DataFrame(rows, columns=list(GAP_COLUMNS))
