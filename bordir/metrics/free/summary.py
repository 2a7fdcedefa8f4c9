"""The free-answer numbers of an open run: outcome rates, CS on free answers, and the gap to the forced twin.

:func:`free_summary` is what ``metrics.json`` holds under ``free``, what ``bordir score free`` prints
and what the report's section shows:

* ``outcomes``: the rate of every free outcome per (model, mode, query language);
* ``cs_free`` / ``cs_forced``: KB, Control, Non-control, Δ and Cst CS on each format's answers
  (means over runs; only ``claimant`` answers name a country — :mod:`~bordir.metrics.free.items`);
* ``cs_gap``: per (model, mode) and metric (KB CS, ΔCS, Cst CS), free − forced on the common
  territories, runs pooled per territory: a paired cluster bootstrap interval and a sign-flip
  p-value (:func:`~bordir.metrics.intervals.paired.paired_comparison`), Holm over the (mode,
  metric) pairs of one model; ``too few to judge`` under 30 common territories (no interval);
* ``languages``: :func:`~bordir.metrics.free.gap.language_gap` (switch rate, agreement with the
  controller in each format and their gap per query language; Holm over languages, power);
* ``headline``: one sentence per (model, mode) for the report's summary.

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> rows = [{"query_id": q.query_id, "territory": q.territory, "query_lang": q.lang,
    ...          "is_control": q.is_control, "mode": "no_ir", "model": "m", "run": 0,
    ...          "outcome": "answered", "choice": 0} for q in ds.queries]
    >>> forced = pd.DataFrame(rows)
    >>> free = forced.assign(outcome="several", choice=-1)
    >>> s = free_summary(forced, free, ds, n_resamples=100, seed=1)
    >>> s["headline"][0]  # doctest: +ELLIPSIS
    'm, no_ir: free answers named one claimant in 0% of 34 answers (several 100%); no pair...'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..._io.json_write import jsonable
from ...errors import ConfigError
from ...signature import Signature
from ...stats import holm_adjust, resolve_seed
from ..intervals.aligned import pool_runs
from ..intervals.bootstrap import MIN_CLUSTERS
from ..intervals.paired import paired_comparison
from .gap import POOLED, language_gap
from .items import FREE_RATE_OUTCOMES, free_outcome_rates, pair_items

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = ["free_summary", "GAP_METRICS"]

GAP_METRICS: tuple[str, ...] = ("kb_cs", "delta_cs", "cst_cs")
"""The CS metrics whose forced-vs-free gap is tested per (model, mode)."""
_CS = ("kb_cs", "control_cs", "non_control_cs", "delta_cs", "cst_cs")


def _tables(responses: pd.DataFrame, dataset: BorderLines) -> dict[tuple[str, str], list[Any]]:
    from ..cs.tables import territory_tables

    out: dict[tuple[str, str], list[Any]] = {}
    for key, stats in sorted(territory_tables(responses, dataset, policy="strict").items()):
        out.setdefault((key.model, key.mode), []).append(stats)
    return out


def _cs_means(tables: Mapping[tuple[str, str], list[Any]]) -> list[dict[str, Any]]:
    from ..cs.aggregate import aggregate

    rows = []
    for (model, mode), runs in tables.items():
        values: dict[str, list[float]] = {m: [] for m in _CS}
        for stats in runs:
            got = aggregate(stats.table)
            for m in _CS:
                v = got[m].value if m in got else None
                if v is not None and not (isinstance(v, float) and math.isnan(v)):
                    values[m].append(float(v))
        rows.append(
            {
                "model": model,
                "mode": mode,
                "runs": len(runs),
                **{m: (sum(v) / len(v) if v else None) for m, v in values.items()},
            }
        )
    return rows


def _cs_gap(
    forced: Mapping[tuple[str, str], list[Any]],
    free: Mapping[tuple[str, str], list[Any]],
    n_resamples: int,
    seed: int,
) -> list[dict[str, Any]]:
    found = []
    notes = []
    for key in sorted(set(forced) & set(free)):
        a, b = pool_runs(free[key]), pool_runs(forced[key])
        for metric in GAP_METRICS:
            try:
                pc = paired_comparison(
                    a, b, metric, label_a="free", label_b="forced",
                    n_resamples=n_resamples, n_permutations=n_resamples, seed=seed,
                )  # fmt: skip
            except ConfigError as exc:
                notes.append({"model": key[0], "mode": key[1], "metric": metric, "note": str(exc)})
                continue
            found.append((key, pc))
    out = []
    by_model: dict[str, list[int]] = {}
    for i, (key, _) in enumerate(found):
        by_model.setdefault(key[0], []).append(i)
    adjusted: dict[int, Any] = {}
    for idx in by_model.values():
        tested = [i for i in idx if found[i][1].diff is not None]
        for i, pc in zip(tested, holm_adjust([found[i][1] for i in tested]) if tested else []):
            adjusted[i] = pc
    for i, (key, pc) in enumerate(found):
        pc = adjusted.get(i, pc)
        d = pc.as_dict()
        few = pc.n_clusters < MIN_CLUSTERS
        d.update(
            model=key[0],
            mode=key[1],
            status="too few to judge"
            if few
            else ("judged" if pc.diff is not None else "undefined"),
        )
        if few:
            d["ci95"] = [None, None]
        out.append(d)
    return out + notes


def _headline(model: str, mode: str, rates: pd.DataFrame, langs: pd.DataFrame) -> str:
    r = rates[(rates["model"] == model) & (rates["mode"] == mode)]
    n = int(r["n"].sum())
    named = int(r["n_claimant"].sum())
    others = {o: int(r[f"n_{o}"].sum()) for o in FREE_RATE_OUTCOMES if o != "claimant"}
    top = max(others, key=lambda o: others[o]) if n and any(others.values()) else None
    text = (
        f"{model}, {mode}: free answers named one claimant in {named / n:.0%} of {n} answers"
        if n
        else f"{model}, {mode}: no free answers"
    )
    if top:
        text += f" ({top} {others[top] / n:.0%})"
    p = langs[(langs["model"] == model) & (langs["mode"] == mode) & (langs["query_lang"] == POOLED)]
    if not len(p) or p.iloc[0]["n_switch_pairs"] == 0:
        return text + "; no pair of forced and free answers both naming a claimant, so no gap"
    row = p.iloc[0]
    text += (
        f"; they switched country in {row['switch_rate']:.0%} of {int(row['n_switch_pairs'])} pairs"
    )
    if row["status"] == "judged":
        text += (
            f"; agreement with the controller moved {100 * row['gap']:+.1f} points "
            f"(95% CI {100 * row['gap_low']:+.1f} to {100 * row['gap_high']:+.1f}) from forced to free"
        )
    elif row["n_territories"]:
        text += (
            f"; the gap in agreement with the controller ({100 * row['gap']:+.1f} points) cannot be "
            f"judged: {int(row['n_territories'])} territories (power {100 * row['power_20']:.0f}% "
            "against 20 points)"
        )
    return text


def free_summary(
    forced: pd.DataFrame | None,
    free: pd.DataFrame,
    dataset: BorderLines,
    *,
    n_resamples: int = 2000,
    seed: int | None = None,
) -> dict[str, Any]:
    """The ``free`` section of ``metrics.json`` (see the module docs); ``forced`` None: no gap."""
    seed = resolve_seed(seed)
    rates = free_outcome_rates(free)
    out: dict[str, Any] = {
        "outcomes": rates.to_dict("records"),
        "treatment": "strict: only a free answer naming one claimant names a country; several, "
        "controller_only, refusal, other_country, unparsed and empty are missing in every CS metric "
        "(skipped and counted, never option A)",
    }
    free_t = _tables(free, dataset)
    out["cs_free"] = _cs_means(free_t)
    langs = pd.DataFrame()
    if forced is not None:
        forced_t = _tables(forced, dataset)
        out["cs_forced"] = _cs_means(forced_t)
        out["cs_gap"] = _cs_gap(forced_t, free_t, n_resamples, seed)
        items = pair_items(forced, free, dataset)
        langs = language_gap(
            items, resamples=n_resamples, seed=seed, data_hash=dataset.content_hash()
        )
        out["languages"] = langs.to_dict("records")
        out["n_pairs"] = len(items)
    keys = sorted(set(zip(free["model"], free["mode"])))
    out["headline"] = [
        _headline(m, mo, rates, langs) if len(langs) else f"{m}, {mo}: no forced twin, so no gap"
        for m, mo in keys
    ]
    pooled = langs[langs["query_lang"] == POOLED] if len(langs) else langs
    judged = {(r["model"], r["mode"]) for _, r in pooled.iterrows() if r["status"] == "judged"}
    out["headline_judged"] = [k in judged for k in keys]
    out["signature"] = str(
        Signature.build(
            "free",
            fmt="open",
            twin="direct" if forced is not None else None,
            resolver="rules",
            boot=n_resamples,
            seed=seed,
            data=dataset.content_hash(),
        )
    )
    return jsonable(out)  # type: ignore[no-any-return]
