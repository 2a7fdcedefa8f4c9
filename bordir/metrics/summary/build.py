"""The numbers of a run (the report's ``metrics.json``): every metric per (model, mode), with intervals and signatures.

For each (model, mode) and each CS metric of the metric registry
(:func:`~bordir.metrics.registry.cs_metrics`: the built-ins, then any a plugin registers):

* ``mean`` over runs with the t-interval ``ci95`` (sample σ, ddof = 1);
* ``terr95``: the small-sample interval over territories (cluster Wilson for
  the CS shares, MOVER for ΔCS; :mod:`bordir.metrics.intervals.smallsample`), with
  ``territory_interval`` (method, contributing territories, ``warning`` when
  fewer than :data:`~bordir.metrics.intervals.bootstrap.MIN_CLUSTERS` contribute);
* ``boot95``: the cluster-bootstrap percentile interval, territories resampled
  jointly across runs (``bootstrap`` has the settings and its own signature;
  for the normalised ΔCS the counts are pooled over runs);
* ``terr95`` and ``boot95`` are ``null`` (with the reason in
  ``territory_interval.refused`` / ``bootstrap.refused``) over fewer than
  :data:`~bordir.metrics.intervals.smallsample.MIN_INTERVAL_CLUSTERS`
  contributing territories and where a bound would be infinite: no bound of
  +∞ or NaN is ever written as an interval;
* for ΔCS and ΔCS unnormalised, ``undefined``: the runs and the share of
  resamples where it is undefined (or +∞); for ΔCS also ``unstable`` (Non-control
  CS's interval comes near 0);
* ``runs``: the value and counts (numerator, denominator, items, skipped) of
  every run;
* ``note`` when a value is undefined, and a ``signature``.

Then Control / Non-control CS per query language, outcome rates per
(model, mode, query language), and paired comparisons of every IR mode against
``no_ir`` per model (Holm-corrected across all of them). The headline ΔCS is the
unnormalised Control − Non-control (``delta_cs``); the normalised
``delta_cs_norm`` is kept for comparison with the papers, labelled "normalized
(reference)"; its ``mean`` (of the per-run ratios) goes with ``ci95``, and ``pooled`` (the
ratio of the counts pooled over runs) with ``terr95`` and ``boot95``. Small-sample and instability warnings are in ``warnings``. ``swap_docs`` has no
real control query (the English control queries are skipped, see
:func:`bordir.retrieval.swap_skip_reason`), so its KB CS is ``null`` with a
note. The dict is strict JSON: undefined values are ``None``, never NaN
(:func:`bordir._io.json_write.jsonable`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from ..._io.json_write import jsonable
from ..._version import __version__
from ...errors import ConfigError
from ...provenance import now_iso
from ...signature import Signature
from ...stats import DEFAULT_RESAMPLES, resolve_seed
from .. import language_breakdown, outcome_rates, territory_tables
from ..cs.aggregate import METRIC_BOUNDS
from ..cs.breakdown import COUNT_COLUMNS
from ..cs.table import TerritoryStats
from ..intervals.bootstrap import MIN_CLUSTERS
from ..intervals.paired_rule import DEFAULT_MIN_TERRITORIES, MIN_INTERVAL_TERRITORIES
from ..intervals.runs import t_interval
from ..intervals.smallsample import (
    COVERAGE_NOTE,
    METRIC_COVERAGE_NOTES,
    MIN_INTERVAL_CLUSTERS,
    TERRITORY_METHODS,
    UNSTABLE_NON_CONTROL,
    ci_pair,
)
from ..registry import cs_metric_names, metric_label
from ..responses import TableKey
from .caveats import build_warnings
from .cells import base_fields, build_cell, kb_undefined
from .comparisons import build_comparisons
from .names import BASELINE, CI_RUNS, COMPARISON_METRICS, CONF, SCHEMA
from .scored import ScoredRun

__all__ = ["build_metrics"]

_OUTCOME_KEYS = ("model", "mode", "query_lang")


def _languages(
    run: ScoredRun, tables: Mapping[TableKey, TerritoryStats], data_hash: str
) -> list[dict[str, Any]]:
    frames = [
        s.items.assign(model=model, mode=mode, run=r)
        for (model, mode, r), s in tables.items()
        if len(s.items)
    ]
    if not frames:
        return []
    lb = language_breakdown(pd.concat(frames, ignore_index=True), by=["model", "mode", "run"])
    out = []
    order = {(m, d): i for i, (m, d) in enumerate((m, d) for m in run.models for d in run.modes)}
    groups = sorted(
        lb.groupby(["model", "mode", "query_lang"], sort=False),
        key=lambda kv: (order[kv[0][:2]], kv[0][2]),
    )
    for (model, mode, lang), g in groups:
        rec: dict[str, Any] = {"model": model, "mode": mode, "query_lang": lang}
        for k in ("control_cs", "non_control_cs"):
            iv = t_interval(g[k].tolist(), variant=CI_RUNS, conf=CONF, bounds=METRIC_BOUNDS[k])
            rec[k] = {"mean": iv.mean, "ci95": ci_pair(iv.low, iv.high), "n_runs": iv.n}
        for c in COUNT_COLUMNS:
            rec[c] = g[c].sum()
        base = base_fields(run, model, mode, int(g["run"].nunique()), data_hash)
        rec["signature"] = str(Signature.build("language_cs", lang=lang, **base, ci=CI_RUNS))
        out.append(rec)
    return out


def _outcomes(run: ScoredRun, by: Sequence[str]) -> list[dict[str, Any]]:
    """Outcome counts and rates per ``by`` group, in model and mode order."""
    rates = outcome_rates(run.responses, by=by)
    rank = {
        "model": {m: i for i, m in enumerate(run.models)},
        "mode": {m: i for i, m in enumerate(run.modes)},
    }
    rates = rates.sort_values(
        list(by),
        key=lambda col: col.map(rank[col.name]) if col.name in rank else col,
        ignore_index=True,
    )
    return cast("list[dict[str, Any]]", rates.to_dict("records"))


def _run_section(run: ScoredRun, skipped_by_mode: Mapping[str, int]) -> dict[str, Any]:
    keys = (
        "bordir_version",
        "git_revision",
        "config",
        "packages",
        "dataset",
        "corpus",
        "retrieval",
        "queries",
        "responses",
        "calls",
        "started",
        "finished",
    )
    out = {k: run.info.get(k) for k in keys}
    out["config"] = run.config.to_dict()
    out["skipped_by_mode"] = dict(skipped_by_mode)
    out["dropped"] = dropped_pairs(run)
    return out


def dropped_pairs(run: ScoredRun) -> dict[str, Any]:
    """The (query, mode) pairs the grid left out, by cause: ``{pairs, n, causes: [{cause, n, modes}]}``.

    ``pairs`` is queries × modes of the config; the causes come from ``run.json`` ``skipped``
    (:func:`bordir.modes.count_skips`).
    """
    from ...modes import count_skips

    skipped = [
        (str(s.get("query_id")), str(s.get("mode")), str(s.get("reason")))
        for s in run.info.get("skipped") or []
        if isinstance(s, dict)
    ]
    n_queries = run.info.get("queries")
    modes = (
        getattr(run.config, "modes", None) or run.modes
    )  # the grid's modes, dropped pairs included
    pairs = n_queries * len(modes) if isinstance(n_queries, int) else None
    return {
        "pairs": pairs,
        "n": len(skipped),
        "causes": [c._asdict() for c in count_skips(skipped)],
    }


def build_metrics(
    run: ScoredRun, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None
) -> dict[str, Any]:
    """Every number of the report, as a JSON-ready dict (see the module docs).

    Args:
        run: a loaded run directory (:func:`~bordir.experiment.rundir.read_run_dir`).
        n_resamples: bootstrap resamples and permutations.
        seed: bootstrap / permutation seed (default ``$BORDIR_SEED`` or 12345).
    """
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, found {n_resamples}")
    seed = resolve_seed(seed)
    policy = run.config.policy
    data_hash = run.dataset.content_hash()
    responses = run.responses
    tables = territory_tables(responses, run.dataset, policy=policy, validate=False)
    per_cell: dict[tuple[str, str], list[tuple[int, TerritoryStats]]] = {}
    for (model, mode, r), s in tables.items():
        per_cell.setdefault((model, mode), []).append((int(r), s))
    groups = {k: g for k, g in responses.groupby(["model", "mode"], sort=False)}

    results: dict[str, dict[str, Any]] = {}
    kb_notes: dict[tuple[str, str], str | None] = {}
    for model in run.models:
        for mode in run.modes:
            if (model, mode) not in per_cell:
                continue
            group = groups[(model, mode)]
            kb_notes[(model, mode)] = kb_undefined(mode, group)
            results.setdefault(model, {})[mode] = build_cell(
                run,
                model,
                mode,
                sorted(per_cell[(model, mode)]),
                group,
                n_resamples,
                seed,
                data_hash,
            )

    comparisons, cmp_notes = build_comparisons(
        run, per_cell, kb_notes, n_resamples, seed, data_hash
    )
    skipped_by_mode = dict(
        Counter(str(s.get("mode")) for s in run.info.get("skipped") or [] if isinstance(s, dict))
    )
    notes = [
        f"{model} / {mode}: {metric_label(m)}: {e['note']}"
        for model, modes in results.items()
        for mode, cell in modes.items()
        for m, e in cell["metrics"].items()
        if e["note"]
    ]
    n_runs = max((c["n_runs"] for modes in results.values() for c in modes.values()), default=0)
    signature = Signature.build(
        "report",
        runs=n_runs,
        ci=CI_RUNS,
        boot=n_resamples,
        perm=n_resamples,
        seed=seed,
        holm="yes",
        policy=policy,
        data=data_hash,
    )
    return cast(
        "dict[str, Any]",
        jsonable(
            {
                "schema": SCHEMA,
                "bordir_version": __version__,
                "generated": now_iso(),
                "run_dir": str(run.path.resolve()),
                "signature": str(signature),
                "settings": {
                    "scale": "fractions in [0, 1]",
                    "policy": policy,
                    "conf": CONF,
                    "ci95": {"method": "t-interval over runs", "variant": CI_RUNS, "ddof": 1},
                    "boot95": {
                        "method": "cluster bootstrap over territories, jointly across runs; percentile interval",
                        "n_resamples": n_resamples,
                        "seed": seed,
                        "delta_cs_norm": "the ratio of the counts pooled over runs (resamples with Non-control "
                        "CS 0 kept as +inf; no interval when more than 2.5% are +inf or undefined); its "
                        "estimate is delta_cs_norm.pooled, not delta_cs_norm.mean (the mean of the "
                        "per-run ratios, whose interval is ci95)",
                        "refused": f"no interval over fewer than {MIN_INTERVAL_CLUSTERS} contributing "
                        "territories, nor with an infinite or undefined bound (bootstrap.refused says why)",
                    },
                    "terr95": {
                        "method": "cluster Wilson for the CS shares, MOVER for ΔCS, log-MOVER for ΔCS normalized; "
                        "runs pooled per territory",
                        "methods": dict(TERRITORY_METHODS),
                        "min_clusters": MIN_CLUSTERS,
                        "min_interval_clusters": MIN_INTERVAL_CLUSTERS,
                        "unstable_non_control": UNSTABLE_NON_CONTROL,
                        "coverage": COVERAGE_NOTE,
                        "coverage_by_metric": dict(METRIC_COVERAGE_NOTES),
                    },
                    "headline_delta": "delta_cs (Control − Non-control); delta_cs_norm = normalized (reference)",
                    "comparisons": {
                        "baseline": BASELINE,
                        "metrics": list(COMPARISON_METRICS),
                        "runs": "pooled per territory (pool_runs)",
                        "ci95": "paired cluster bootstrap over the common territories, given from "
                        f"{MIN_INTERVAL_TERRITORIES} paired territories",
                        "test": "two-sided paired permutation test (sign flips within territories), "
                        f"p = (c + 1) / (n + 1); too few to judge below {DEFAULT_MIN_TERRITORIES} "
                        "paired territories",
                        "min_territories": DEFAULT_MIN_TERRITORIES,
                        "min_interval_territories": MIN_INTERVAL_TERRITORIES,
                        "n_permutations": n_resamples,
                        "correction": "holm",
                        "seed": seed,
                    },
                },
                "run": _run_section(run, skipped_by_mode),
                "models": run.models,
                "modes": run.modes,
                "metrics": list(cs_metric_names()),
                "results": results,
                "languages": _languages(run, tables, data_hash),
                "outcomes": _outcomes(run, _OUTCOME_KEYS),
                "outcomes_overall": _outcomes(run, ("model", "mode")),
                "comparisons": comparisons,
                "notes": [*notes, *cmp_notes],
                "warnings": build_warnings(run, results, skipped_by_mode),
            }
        ),
    )
