"""Paired comparisons per query language (or resource level): two modes, or two models.

:func:`compare_by` answers "does ``rel_langs`` move Swahili answers toward
the controller more than ``qlang`` does?" for every language at once:

1. From :func:`~bordir.metrics.perlang.items.perlang_items`, each territory *t* of
   a group (the territories with a query in that language, or in any language
   of that resource level) gets, per side, the share ``p_t`` of its defined
   items over all runs (and languages of the group). Runs are pooled per
   territory: the territory, not the run, is the unit of evidence.
2. The territories defined on both sides are paired; the effect is
   ``diff = mean_t(p_t^b) − mean_t(p_t^a)``: how the measure moves from A to B
   (each territory weighs the same; the sign rule of every comparison in bordir,
   ``docs/metrics.md``).
3. Its CI is a paired percentile cluster bootstrap over those territories
   (the same resampled territories for both sides); the p-value is a two-sided
   sign-flip permutation test of the per-territory differences (a and b
   swapped within random territories), ``p = (c + 1) / (n + 1)``.
4. Holm's correction runs across the groups of one comparison (one model,
   one metric, one pair of modes) that were judged.

Which groups are tested and which get an interval is the rule of every paired comparison
(:mod:`bordir.metrics.intervals.paired_rule`): a group with fewer than ``min_territories`` paired
territories (default :func:`~bordir.metrics.intervals.paired_rule.min_testable` of ``alpha``: 6 at
0.05, below which the sign-flip test cannot reach p < α, its smallest value being 2 / 2^n) is not
tested: its row stays, with its point estimate, its count and the status ``too few to judge``. A
judged group has its p-value (exact at any number of territories); its bootstrap interval only
from ``MIN_CLUSTERS`` (30) paired territories, below which the percentile cluster bootstrap
under-covers (measured 82–91 % at 12 territories, ``docs/metrics.md``): ``ci_low`` / ``ci_high``
are NaN there and ``ci_refused`` says why. Power rises with the number of territories whose
difference is nonzero: with k such territories, all of one sign, the exact p is 2 / 2^k before Holm.

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> rows = [{"query_id": q.query_id, "territory": q.territory, "query_lang": q.lang,
    ...          "is_control": q.is_control, "mode": mode, "model": "mock/x", "run": 0,
    ...          "outcome": "answered", "choice": c} for q in ds.queries for mode, c in (("qlang", 0), ("rel_langs", 1))]
    >>> t = compare_by(pd.DataFrame(rows), ds, "qlang", "rel_langs", metric="in_group_rate", resamples=200, seed=1)
    >>> t.loc[t["group"] == "ru", ["diff", "n_territories", "status"]].to_dict("records")
    [{'diff': -1.0, 'n_territories': 2, 'status': 'too few to judge'}]
    >>> t = compare_by(pd.DataFrame(rows), ds, "qlang", "rel_langs", by="all", resamples=200, seed=1)
    >>> t[["n_territories", "status", "p_value", "ci_low"]].round(3).to_dict("records")  # tested, no interval
    [{'n_territories': 10, 'status': 'judged', 'p_value': 1.0, 'ci_low': nan}]
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ConfigError
from ...stats import (
    DEFAULT_RESAMPLES,
    holm,
    resolve_seed,
)
from ..intervals.paired_rule import (
    ALPHA,
    DEFAULT_MIN_TERRITORIES,
    STATUSES,
    interval_refused,
    paired_status,
    resolve_min_territories,
)
from ..responses import Policy, check_policy
from .items import GROUPINGS, Grouping, group_of, perlang_items
from .measures import DEFAULT_MEASURE, get_measure
from .pairing import COMPARE_COLUMNS, paired_territories, territory_test
from .power import PLANNING_SD, lattice_runs, power_at

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = [
    "DEFAULT_MIN_TERRITORIES",
    "COMPARE_COLUMNS",
    "POWER_EFFECTS",
    "STATUSES",
    "compare_by",
    "compare_models_by",
    "compare_items",
    "paired_territories",
    "significant_groups",
]

POWER_EFFECTS: tuple[float, ...] = (0.10, 0.20)
"""The effects whose power every row states: a group not judged, or judged and not significant, is
not evidence of "no difference" when this power is low."""


@dataclass(frozen=True)
class _Settings:
    """What every group of one comparison shares (the keyword arguments of :func:`compare_by`)."""

    dataset: BorderLines
    metric: str
    by: Grouping
    resamples: int
    seed: int
    min_territories: int
    alpha: float
    policy: str


def _compare(
    items_a: pd.DataFrame,
    items_b: pd.DataFrame,
    st: _Settings,
    *,
    factor: str,
    model: str | None,
    mode: str | None,
    a: str,
    b: str,
) -> list[dict[str, Any]]:
    by, resamples, seed, min_territories = st.by, st.resamples, st.seed, st.min_territories
    measure = get_measure(st.metric)
    pt = paired_territories(items_a, items_b, measure.name)
    runs_a = int(items_a["run"].nunique()) if len(items_a) else 0
    runs_b = int(items_b["run"].nunique()) if len(items_b) else 0
    groups = sorted(set(items_a["_group"]) | set(items_b["_group"]))
    data_hash = st.dataset.content_hash()
    rows = []
    diffs = []
    # each group's rows of ``pt`` (in its order), as arrays: split once, not filtered per group
    pa, pb = pt["p_a"].to_numpy(dtype=float), pt["p_b"].to_numpy(dtype=float)
    den_a, den_b = pt["den_a"].to_numpy(dtype=float), pt["den_b"].to_numpy(dtype=float)
    rows_of: dict[Any, list[int]] = {}
    for i, key in enumerate(pt["_group"]):
        rows_of.setdefault(key, []).append(i)
    langs_a, langs_b = _langs_of_groups(items_a), _langs_of_groups(items_b)
    for grp in groups:
        at = np.asarray(rows_of.get(grp, ()), dtype=np.intp)
        has_a, has_b = ~np.isnan(pa[at]), ~np.isnan(pb[at])
        both_a, both_b = pa[at][has_a & has_b], pb[at][has_a & has_b]
        d = both_b - both_a  # B − A
        diffs.append(d)
        n = len(d)
        langs = sorted(langs_a.get(grp, set()) | langs_b.get(grp, set()))
        row: dict[str, Any] = {
            "factor": factor,
            "model": model,
            "mode": mode,
            "a": a,
            "b": b,
            "metric": measure.name,
            "by": by,
            "group": grp,
            "languages": ",".join(langs),
            "value_a": float(both_a.mean()) if n else math.nan,
            "value_b": float(both_b.mean()) if n else math.nan,
            "diff": float(np.round(d.mean(), 12)) if n else math.nan,  # no -2.6e-18 for an exact 0
            "ci_low": math.nan,
            "ci_high": math.nan,
            "ci_refused": interval_refused(n),
            "p_value": math.nan,
            "p_holm": math.nan,
            "significant": False,
            "status": paired_status(n, min_territories),
            "n_territories": n,
            "n_territories_a": int(has_a.sum()),
            "n_territories_b": int(has_b.sum()),
            "n_items_a": int(np.nansum(den_a[at])),
            "n_items_b": int(np.nansum(den_b[at])),
            "n_runs_a": runs_a,
            "n_runs_b": runs_b,
        }
        if row["status"] == "judged":
            lo, hi, row["p_value"] = territory_test(d, resamples, [seed, zlib.crc32(grp.encode())])
            if row["ci_refused"] is None:  # the interval only where it covers (paired_rule)
                row["ci_low"], row["ci_high"] = lo, hi
        group_field = {"resource": grp} if by == "resource" else {"lang": grp}  # all: lang:*
        row["signature"] = str(
            measure.signature(
                cmp=f"{a}-vs-{b}",
                **group_field,
                mode=mode,
                gen=model,
                runs=max(runs_a, runs_b),
                ci="cluster95",
                boot=resamples,
                perm=resamples,
                seed=seed,
                holm="yes",
                min_terr=min_territories,
                policy=st.policy,
                data=data_hash,
            )
        )
        rows.append(row)
    judged = [r for r in rows if r["status"] == "judged"]
    if judged:
        adjusted, reject = holm([r["p_value"] for r in judged], alpha=st.alpha)
        for r, p, rej in zip(judged, adjusted, reject):
            r["p_holm"], r["significant"] = float(p), bool(rej)
    for r, d in zip(rows, diffs):
        r.update(
            _stated_power(d, r["status"] == "judged", len(judged), st.alpha, max(runs_a, runs_b))
        )
    return rows


def _langs_of_groups(items: pd.DataFrame) -> dict[Any, set[Any]]:
    """The query languages of each ``_group`` of ``items``."""
    return {k: set(v) for k, v in items.groupby("_group", sort=False)["query_lang"]}


def _stated_power(
    d: np.ndarray, judged: bool, n_judged: int, alpha: float, runs: int
) -> dict[str, float]:
    """``power_10``, ``power_20`` and ``power_alpha`` of one group (:data:`POWER_EFFECTS`).

    The model of :func:`~bordir.metrics.perlang.power.power_at` with the group's paired territories,
    the SD of its per-territory differences (the planning value with fewer than 2) and their grid.
    A judged group is tested at α / m (m groups judged together): Holm's first step, the power a
    single real effect has when the other groups show none. A group too few to judge is not tested;
    its power is the one a test at α alone would have had (an upper bound).
    """
    level = alpha / n_judged if judged and n_judged else alpha
    sd = float(np.std(d, ddof=1)) if len(d) >= 2 else PLANNING_SD
    grid = lattice_runs(d, runs) if len(d) else 1
    out = {
        f"power_{round(100 * e)}": power_at(len(d), e, sigma_d=sd, alpha=level, runs=grid)
        for e in POWER_EFFECTS
    }
    out["power_alpha"] = level
    return out


def _args(by: str, resamples: int, min_territories: int, policy: str) -> None:
    if by not in GROUPINGS:
        raise ConfigError(f"unknown grouping by={by!r}; known: {', '.join(GROUPINGS)}")
    if resamples < 1:
        raise ConfigError(f"resamples must be >= 1, found {resamples}")
    if min_territories < 1:
        raise ConfigError(f"min_territories must be >= 1, found {min_territories}")
    check_policy(policy)


def _check(
    responses: pd.DataFrame,
    dataset: BorderLines,
    by: str,
    resamples: int,
    min_territories: int,
    policy: str,
) -> pd.DataFrame:
    _args(by, resamples, min_territories, policy)
    return perlang_items(responses, dataset, policy=policy)  # type: ignore[arg-type]


def _grouped(items: pd.DataFrame, st: _Settings, factor: str, a: str, b: str) -> pd.DataFrame:
    """What every comparison does first: check the settings and the two sides, group the items.

    The two sides ``a`` and ``b`` of ``factor`` (``mode`` or ``model``) must differ and be present;
    ``_group`` is computed from ``st.by``.
    """
    get_measure(st.metric)
    _args(st.by, st.resamples, st.min_territories, st.policy)
    _two(f"{factor}s", a, b)
    items = items.assign(_group=group_of(items["query_lang"], st.by))
    for side in (a, b):
        _present(items, factor, side)
    return items


def _present(items: pd.DataFrame, column: str, value: str) -> None:
    if not (items[column] == value).any():
        known = ", ".join(map(str, dict.fromkeys(items[column])))
        raise ConfigError(f"no responses with {column} {value!r}; present: {known}")


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(COMPARE_COLUMNS))
    for c in (
        "n_territories",
        "n_territories_a",
        "n_territories_b",
        "n_items_a",
        "n_items_b",
        "n_runs_a",
        "n_runs_b",
    ):
        df[c] = df[c].astype(int)
    df["significant"] = df["significant"].astype(bool)
    return df


def _two(what: str, a: str, b: str) -> None:
    """Refuse to compare a mode (or model) with itself: every difference would be 0 by construction."""
    if a == b:
        raise ConfigError(
            f"two different {what} are needed, got {a!r} twice (every difference would be 0); "
            f"name two {what}, e.g. qlang,rel_langs"
            if what == "modes"
            else f"two different {what} are needed, got {a!r} twice (every difference would be 0)"
        )


def compare_by(
    responses: pd.DataFrame,
    dataset: BorderLines,
    mode_a: str,
    mode_b: str,
    *,
    by: Grouping = "query_lang",
    metric: str = DEFAULT_MEASURE,
    model: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    min_territories: int | None = None,
    policy: Policy = "strict",
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """Compare two modes per query language (or resource level): ``metric(mode_b) − metric(mode_a)``.

    Args:
        responses: the responses table (every model and mode of a run).
        dataset: its dataset.
        mode_a: the mode compared from (the baseline: ``no_ir``, ``qlang`` …).
        mode_b: the mode compared to; diff = b − a.
        by: ``query_lang`` (one row per language), ``resource`` (high / medium / low) or
            ``all`` (one row, group ``*``: every language pooled).
        metric: a per-language measure (:data:`~bordir.metrics.perlang.measures.PERLANG_MEASURES`).
        model: one model; default every model in ``responses`` (Holm runs per model).
        resamples: bootstrap resamples, and random sign flips of the permutation test.
        seed: RNG seed (default ``$BORDIR_SEED`` or 12345); in every signature.
        min_territories: groups with fewer paired territories get ``too few to judge`` (default:
            :func:`~bordir.metrics.intervals.paired_rule.min_testable` of ``alpha``, 6 at 0.05).
        policy: scoring policy.
        alpha: family-wise error rate of ``significant`` (Holm across the groups).

    Returns:
        One row per (model, group) with :data:`COMPARE_COLUMNS`, groups sorted by
        name; no group is dropped. Undefined numbers are NaN.

    Raises:
        ConfigError: unknown mode, model, measure or grouping.
    """
    min_territories = resolve_min_territories(min_territories, alpha)
    items = _check(responses, dataset, by, resamples, min_territories, policy)
    return compare_items(
        items,
        dataset,
        mode_a,
        mode_b,
        by=by,
        metric=metric,
        model=model,
        resamples=resamples,
        seed=seed,
        min_territories=min_territories,
        policy=policy,
        alpha=alpha,
    )


def compare_items(
    items: pd.DataFrame,
    dataset: BorderLines,
    mode_a: str,
    mode_b: str,
    *,
    by: Grouping = "query_lang",
    metric: str = DEFAULT_MEASURE,
    model: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    min_territories: int | None = None,
    policy: Policy = "strict",
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """:func:`compare_by` on precomputed :func:`perlang_items` (computed once for many comparisons).

    ``items`` must come from the same ``policy``; the ``_group`` column is (re)computed from ``by``.
    """
    min_t = resolve_min_territories(min_territories, alpha)
    st = _Settings(dataset, metric, by, resamples, resolve_seed(seed), min_t, alpha, policy)
    items = _grouped(items, st, "mode", mode_a, mode_b)
    if model is not None:
        _present(items, "model", model)
    models = [model] if model is not None else list(dict.fromkeys(items["model"]))
    rows: list[dict[str, Any]] = []
    for m in models:
        sub = items[items["model"] == m]
        a, b = sub[sub["mode"] == mode_a], sub[sub["mode"] == mode_b]
        rows += _compare(a, b, st, factor="mode", model=m, mode=None, a=mode_a, b=mode_b)
    return _frame(rows)


def compare_models_by(
    responses: pd.DataFrame,
    dataset: BorderLines,
    model_a: str,
    model_b: str,
    *,
    mode: str,
    by: Grouping = "query_lang",
    metric: str = DEFAULT_MEASURE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    min_territories: int | None = None,
    policy: Policy = "strict",
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """Compare two models in one mode per query language (or resource level), as :func:`compare_by`.

    ``diff`` = metric(model_b) − metric(model_a), paired by territory.
    """
    min_territories = resolve_min_territories(min_territories, alpha)
    items = _check(responses, dataset, by, resamples, min_territories, policy)
    st = _Settings(
        dataset, metric, by, resamples, resolve_seed(seed), min_territories, alpha, policy
    )
    items = _grouped(items, st, "model", model_a, model_b)
    _present(items, "mode", mode)
    sub = items[items["mode"] == mode]
    a, b = sub[sub["model"] == model_a], sub[sub["model"] == model_b]
    return _frame(_compare(a, b, st, factor="model", model=None, mode=mode, a=model_a, b=model_b))


def significant_groups(table: pd.DataFrame, direction: int = 0) -> list[str]:
    """Groups flagged ``significant`` (``direction`` +1: b > a only, −1: b < a only, 0: both).

    >>> significant_groups(pd.DataFrame({"group": ["ru", "uk"], "significant": [True, False], "diff": [0.4, 0.1]}))
    ['ru']
    """
    sel = table["significant"].astype(bool)
    if direction:
        sel &= np.sign(table["diff"]) == np.sign(direction)
    return [str(g) for g in table.loc[sel, "group"]]
