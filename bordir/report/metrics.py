"""The report's numbers (``metrics.json``): every metric per (model, mode), with intervals, counts and signatures.

For each (model, mode) and each metric of :data:`~bordir.metrics.METRICS`:

* ``mean`` over runs with the t-interval ``ci95`` (sample σ, ddof = 1);
* ``terr95``: the small-sample interval over territories (cluster Wilson for
  the CS shares, MOVER for ΔCS; :mod:`bordir.metrics.smallsample`), with
  ``territory_interval`` (method, contributing territories, ``warning`` when
  fewer than :data:`~bordir.metrics.uncertainty.MIN_CLUSTERS` contribute);
* ``boot95``: the cluster-bootstrap percentile interval, territories resampled
  jointly across runs (``bootstrap`` has the settings and its own signature);
* for ΔCS and ΔCS unnormalised, ``undefined``: the runs and the share of
  resamples where it is undefined (or +∞); for ΔCS also ``unstable`` (Non-control
  CS's interval comes near 0);
* ``runs``: the value and counts (numerator, denominator, items, skipped) of
  every run;
* ``note`` when a value is undefined, and a ``signature``.

Then Control / Non-control CS per query language, outcome rates per
(model, mode, query language), and paired comparisons of every IR mode against
``no_ir`` per model (Holm-corrected across all of them). The headline ΔCS is the
unnormalised Control − Non-control (``delta_cs_abs``); the normalised
``delta_cs`` is kept for comparison with the papers, labelled "normalized
(reference)". Small-sample and instability warnings are in ``warnings``. ``swap_docs`` has no
real control query (the English control queries are skipped, see
:func:`bordir.retrieval.swap_skip_reason`), so its KB CS is ``null`` with a
note. The dict is strict JSON: undefined values are ``None``, never NaN
(:func:`bordir._json.jsonable`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._json import jsonable, write_json
from .._version import __version__
from ..errors import ConfigError
from ..experiment.provenance import now_iso
from ..metrics import METRICS, language_breakdown, outcome_rates, territory_tables
from ..metrics.cs import METRIC_BOUNDS, TerritoryStats
from ..metrics.response_countries import response_countries, summarize_response_countries
from ..metrics.signature import Signature
from ..metrics.smallsample import COVERAGE_NOTE, TERRITORY_METHODS, UNSTABLE_NON_CONTROL
from ..metrics.uncertainty import (
    DEFAULT_RESAMPLES,
    MIN_CLUSTERS,
    cluster_bootstrap,
    holm_adjust,
    paired_comparison,
    pool_runs,
    resolve_seed,
    t_interval,
    territory_interval,
)
from .rundir import RunDir

__all__ = [
    "SCHEMA",
    "BASELINE",
    "HEADLINE",
    "COMPARISON_METRICS",
    "DELTA_METRICS",
    "LABELS",
    "build_metrics",
    "interval_warnings",
    "jsonable",
    "write_json",
]

SCHEMA = "bordir.report/1"
BASELINE = "no_ir"
"""The mode every IR mode is compared against."""
HEADLINE: tuple[str, ...] = ("kb_cs", "cst_cs", "delta_cs_abs")
"""The metrics of the main table and plot: the headline ΔCS is unnormalised (Control − Non-control)."""
DELTA_METRICS: tuple[str, ...] = ("delta_cs_abs", "delta_cs")
"""Metrics reported with their share of undefined runs and resamples."""
COMPARISON_METRICS: tuple[str, ...] = HEADLINE
"""The metrics compared between modes."""
LABELS: Mapping[str, str] = {
    "kb_cs": "KB CS",
    "control_cs": "Control CS",
    "non_control_cs": "Non-control CS",
    "delta_cs": "ΔCS normalized (reference)",
    "delta_cs_abs": "ΔCS",
    "cst_cs": "Cst CS",
    "cst_cs_unknown": "Cst CS unk",
}
CONF = 0.95
CI_RUNS = "t95"
_OUTCOME_KEYS = ("model", "mode", "query_lang")


def _kb_undefined(mode: str, group: pd.DataFrame) -> str | None:
    """Why KB CS is not reported for this (model, mode), or None."""
    if mode == "swap_docs":
        return (
            "undefined for swap_docs: its English control queries are skipped (swap_docs needs another "
            "claimant language), so there is no control answer to score"
        )
    if not group["is_control"].any():
        return "undefined: this mode has no control (English) responses"
    return None


def _base_fields(run: RunDir, model: str, mode: str, n_runs: int, data_hash: str) -> dict[str, Any]:
    cfg = run.config
    ir = mode != BASELINE
    rel = getattr(cfg, "relevance_filter", "all")
    out = {
        "mode": mode,
        "ret": cfg.retriever if ir else None,
        "k": cfg.k if ir else None,
        "rel": rel if ir and rel != "all" else None,
        "gen": model,
        "fmt": cfg.response_format,
        "sys": cfg.system,
        "temp": cfg.temperature,
        "runs": n_runs,
        "policy": cfg.policy,
        "data": data_hash,
    }
    return {**out, **_recorded_fields(run, model, mode, out)}


def _recorded_fields(run: RunDir, model: str, mode: str, have: Mapping[str, Any]) -> dict[str, str]:
    """Fields of the responses' own signature (built by the runner) that ``have`` lacks: corpus hash, retriever
    parameters, instruction language … so every score names everything its responses depended on."""
    resp = run.responses
    if "signature" not in resp.columns:
        return {}
    sigs = (
        resp.loc[(resp["model"] == model) & (resp["mode"] == mode), "signature"]
        .dropna()
        .astype(str)
        .unique()
    )
    if len(sigs) != 1 or not sigs[0].startswith("responses|"):
        return {}
    return {k: v for k, v in Signature.parse(sigs[0]).fields if k not in have and k != "version"}


def _ci(low: float | None, high: float | None) -> list[float] | None:
    return None if low is None or high is None else [low, high]


def _note(metric: str, runs: Sequence[int], notes: Sequence[str]) -> str:
    bad = [(r, n) for r, n in zip(runs, notes) if n]
    if not bad:
        return ""
    why = "; ".join(dict.fromkeys(n for _, n in bad))
    if len(bad) == len(runs):
        return f"undefined in every run ({why})"
    return (
        f"undefined in run(s) {', '.join(str(r) for r, _ in bad)} ({why}); mean over the other runs"
    )


def _cell(
    run: RunDir,
    model: str,
    mode: str,
    per_run: list[tuple[int, TerritoryStats]],
    group: pd.DataFrame,
    n_resamples: int,
    seed: int,
    data_hash: str,
) -> dict[str, Any]:
    runs = [r for r, _ in per_run]
    stats = [s for _, s in per_run]
    scores = [s.scores() for s in stats]
    kb_note = _kb_undefined(mode, group)
    base = _base_fields(run, model, mode, len(runs), data_hash)
    metrics: dict[str, Any] = {}
    for m in METRICS:
        ms = [sc[m] for sc in scores]
        undefined = m == "kb_cs" and kb_note is not None
        values = [None if undefined else s.value for s in ms]
        iv = t_interval(values, variant=CI_RUNS, conf=CONF, bounds=METRIC_BOUNDS.get(m))
        boot = (
            None
            if undefined
            else cluster_bootstrap(stats, m, n_resamples=n_resamples, seed=seed, conf=CONF)
        )
        terr = None if undefined else territory_interval(stats, m, conf=CONF)
        metrics[m] = {
            "mean": iv.mean,
            "ci95": _ci(iv.low, iv.high),
            "sd": iv.sd,
            "n_runs": iv.n,
            "terr95": None if terr is None or terr.low is None else [terr.low, terr.high],
            "territory_interval": None if terr is None else terr.as_dict(),
            "boot95": None if boot is None else _ci(boot.low, boot.high),
            "bootstrap": None
            if boot is None
            else {**boot.as_dict(), "signature": str(_with(boot.signature, mode=mode, gen=model))},
            "runs": [
                {
                    "run": r,
                    "value": v,
                    "numerator": s.numerator,
                    "denominator": s.denominator,
                    "items": s.items,
                    "skipped": s.skipped,
                }
                for r, v, s in zip(runs, values, ms)
            ],
            "note": kb_note if undefined else _note(m, runs, [s.note for s in ms]),
            "signature": str(Signature.build(m, **base, ci=CI_RUNS, boot=n_resamples, seed=seed)),
        }
        if m in DELTA_METRICS:
            metrics[m]["undefined"] = {
                "runs": iv.n_undefined,
                "of_runs": len(runs),
                "resamples": None if boot is None else boot.share_undefined,
                "resamples_undefined": None if boot is None else boot.n_undefined,
                "resamples_infinite": None if boot is None else boot.n_infinite,
            }
        if m == "delta_cs":
            metrics[m]["unstable"] = bool(terr is not None and terr.unstable)
    run_sigs = (
        sorted(set(group["signature"].dropna().astype(str))) if "signature" in group.columns else []
    )
    return {
        "n_runs": len(runs),
        "runs": runs,
        "n_territories": len({t for s in stats for t in s.table["territory"]}),
        "n_responses": int(len(group)),
        "n_queries": int(group["query_id"].nunique()),
        "outcomes": {o: int(n) for o, n in group["outcome"].value_counts().sort_index().items()},
        "signature": str(Signature.build("cs", **base, ci=CI_RUNS, boot=n_resamples, seed=seed)),
        "run_signatures": run_sigs,
        "metrics": metrics,
        "response_countries": {
            **summarize_response_countries([response_countries(s) for s in stats], variant=CI_RUNS),
            "signature": str(Signature.build("response_countries", **base, ci=CI_RUNS)),
        },
    }


def _languages(
    run: RunDir, tables: Mapping[tuple[Any, ...], TerritoryStats], data_hash: str
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
            rec[k] = {"mean": iv.mean, "ci95": _ci(iv.low, iv.high), "n_runs": iv.n}
        for c in (
            "control_agree",
            "control_n",
            "non_control_agree",
            "non_control_n",
            "unknown_n",
            "missing",
        ):
            rec[c] = g[c].sum()
        base = _base_fields(run, model, mode, int(g["run"].nunique()), data_hash)
        rec["signature"] = str(Signature.build("language_cs", lang=lang, **base, ci=CI_RUNS))
        out.append(rec)
    return out


def _outcomes(run: RunDir, by: Sequence[str]) -> list[dict[str, Any]]:
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
    return rates.to_dict("records")


def _with(sig: Signature, **extra: Any) -> Signature:
    """``sig`` with ``extra`` fields after its first field (``version`` stays last)."""
    fields = [(k, v) for k, v in sig.fields if k != "version"]
    merged = dict([*fields[:1], *extra.items(), *fields[1:]])
    return Signature.build(sig.name, **merged, version=sig.get("version"))


def _comparisons(
    run: RunDir,
    stats: Mapping[tuple[str, str], list[tuple[int, TerritoryStats]]],
    kb_notes: Mapping[tuple[str, str], str | None],
    n_resamples: int,
    seed: int,
    data_hash: str,
) -> tuple[list[dict[str, Any]], list[str]]:
    found: list[tuple[str, Any]] = []
    notes: list[str] = []
    for model in run.models:
        if (model, BASELINE) not in stats:
            notes.append(f"{model}: no {BASELINE} responses, so no mode comparisons")
            continue
        base = pool_runs([s for _, s in stats[(model, BASELINE)]])
        for mode in run.modes:
            if mode == BASELINE or (model, mode) not in stats:
                continue
            pooled = pool_runs([s for _, s in stats[(model, mode)]])
            for metric in COMPARISON_METRICS:
                if metric == "kb_cs" and (kb_notes[(model, mode)] or kb_notes[(model, BASELINE)]):
                    notes.append(
                        f"{model}: {mode} vs {BASELINE} on {metric} not compared: KB CS is undefined "
                        f"for {mode if kb_notes[(model, mode)] else BASELINE}"
                    )
                    continue
                try:
                    pc = paired_comparison(
                        pooled,
                        base,
                        metric,
                        label_a=mode,
                        label_b=BASELINE,
                        n_resamples=n_resamples,
                        n_permutations=n_resamples,
                        seed=seed,
                        conf=CONF,
                    )
                except ConfigError as exc:
                    notes.append(f"{model}: {mode} vs {BASELINE} on {metric} not compared: {exc}")
                    continue
                if pc.diff is None:
                    notes.append(
                        f"{model}: {mode} vs {BASELINE} on {metric} not compared: the metric is undefined "
                        "on the common territories"
                    )
                    continue
                found.append((model, pc))
    adjusted = holm_adjust([pc for _, pc in found]) if found else []
    out = []
    for (model, _), pc in zip(found, adjusted):
        n_runs = max(len(stats[(model, pc.label_a)]), len(stats[(model, BASELINE)]))
        have = {
            "mode": None,
            "gen": model,
            "runs": n_runs,
            "policy": run.config.policy,
            "data": data_hash,
        }
        sig = _with(
            pc.signature,
            gen=model,
            runs=n_runs,
            policy=run.config.policy,
            data=data_hash,
            **_recorded_fields(run, model, pc.label_a, have),
        )
        out.append(
            {
                "model": model,
                "metric": pc.metric,
                "mode": pc.label_a,
                "baseline": pc.label_b,
                "value_mode": pc.value_a,
                "value_baseline": pc.value_b,
                "diff": pc.diff,
                "ci95": _ci(pc.low, pc.high),
                "p_value": pc.p_value,
                "p_holm": pc.p_holm,
                "n_territories": pc.n_territories,
                "n_resamples": pc.n_resamples,
                "n_permutations": pc.n_permutations,
                "seed": pc.seed,
                "signature": str(sig),
            }
        )
    return out, notes


def _warnings(
    run: RunDir, results: Mapping[str, Mapping[str, Any]], skipped_by_mode: Mapping[str, int]
) -> list[str]:
    info, ds = run.info, run.dataset
    out: list[str] = []
    ds_info = info.get("dataset") if isinstance(info.get("dataset"), dict) else {}
    for w in dict.fromkeys([*map(str, ds_info.get("warnings") or []), *map(str, ds.warnings)]):
        out.append(f"dataset: {w}")
    recorded = ds_info.get("signature")
    if recorded and recorded != ds.signature:
        out.append(
            f"dataset: run.json records {recorded} but the loaded dataset is {ds.signature}; "
            "scores use the loaded dataset"
        )
    for mode, n in skipped_by_mode.items():
        out.append(
            f"{mode}: {n} queries skipped by retrieval (the mode is undefined for them; run.json 'skipped')"
        )
    calls = info.get("calls") if isinstance(info.get("calls"), dict) else {}
    if calls.get("failed"):
        out.append(
            f"{calls['failed']} of {calls.get('requests', '?')} calls failed (outcome 'failed'; "
            "re-run `bordir run` to retry them)"
        )
    n_queries = info.get("queries")
    if not isinstance(n_queries, int):
        langs = set(run.config.langs)
        n_queries = sum(1 for q in ds.queries if not langs or q.lang in langs)
    n_seeds = len(run.config.seeds)
    for model, modes in results.items():
        for mode, cell in modes.items():
            failed = cell["outcomes"].get("failed", 0)
            if failed:
                out.append(f"{model} / {mode}: {failed} of {cell['n_responses']} responses failed")
            n_mode = n_queries - skipped_by_mode.get(mode, 0)
            if cell["n_responses"] < n_mode * n_seeds:
                out.append(
                    f"{model} / {mode}: {cell['n_responses']} of {n_mode * n_seeds} expected responses "
                    f"({n_mode} queries × {n_seeds} runs); the run is incomplete"
                )
            if cell["n_runs"] < 2:
                out.append(
                    f"{model} / {mode}: {cell['n_runs']} run; t-intervals over runs need at least 2"
                )
            out += interval_warnings(model, mode, cell)
    if any("intervals over territories rest on" in w for w in out):
        out.append(
            f"intervals over territories marked † rest on fewer than {MIN_CLUSTERS} territories and cover "
            f"less than 95% ({COVERAGE_NOTE})"
        )
    return out


def interval_warnings(model: str, mode: str, cell: Mapping[str, Any]) -> list[str]:
    """The small-sample and instability warnings of one (model, mode) cell of ``results``."""
    out = []
    few = [
        (LABELS[m], e["territory_interval"]["n_clusters"])
        for m, e in cell["metrics"].items()
        if e.get("territory_interval") and e["territory_interval"].get("warning")
    ]
    if few:
        which = ", ".join(f"{label} {n}" for label, n in few)
        out.append(
            f"{model} / {mode}: intervals over territories rest on fewer than {MIN_CLUSTERS} territories "
            f"({which}); marked † in the tables"
        )
    d = cell["metrics"].get("delta_cs", {})
    if d.get("unstable"):
        nc = cell["metrics"]["non_control_cs"].get("terr95") or [None, None]
        low = "n/a" if nc[0] is None else f"{100 * nc[0]:.1f}"
        out.append(
            f"{model} / {mode}: {LABELS['delta_cs']} is unstable: Non-control CS's interval reaches {low} "
            f"(below {100 * UNSTABLE_NON_CONTROL:.0f}), so dividing by it can multiply Control CS tenfold; "
            "use ΔCS (unnormalised)"
        )
    und = d.get("undefined") or {}
    if und.get("runs"):
        out.append(
            f"{model} / {mode}: {LABELS['delta_cs']} undefined (Non-control CS = 0) in {und['runs']} of "
            f"{und['of_runs']} runs; its mean and t-interval skip them"
        )
    return out


def _run_section(run: RunDir, skipped_by_mode: Mapping[str, int]) -> dict[str, Any]:
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
    return out


def build_metrics(
    run: RunDir, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None
) -> dict[str, Any]:
    """Every number of the report, as a JSON-ready dict (see the module docs).

    Args:
        run: a loaded run directory (:func:`~bordir.report.rundir.load_run`).
        n_resamples: bootstrap resamples and permutations.
        seed: bootstrap / permutation seed (default ``$BORDIR_SEED`` or 12345).
    """
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, found {n_resamples}")
    seed = resolve_seed(seed)
    policy = run.config.policy
    data_hash = run.dataset.content_hash()
    responses = run.responses
    tables = territory_tables(responses, run.dataset, policy=policy, validate=False)  # type: ignore[arg-type]
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
            kb_notes[(model, mode)] = _kb_undefined(mode, group)
            results.setdefault(model, {})[mode] = _cell(
                run,
                model,
                mode,
                sorted(per_cell[(model, mode)]),
                group,
                n_resamples,
                seed,
                data_hash,
            )

    comparisons, cmp_notes = _comparisons(run, per_cell, kb_notes, n_resamples, seed, data_hash)
    skipped_by_mode = dict(
        Counter(str(s.get("mode")) for s in run.info.get("skipped") or [] if isinstance(s, dict))
    )
    notes = [
        f"{model} / {mode}: {LABELS[m]}: {e['note']}"
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
    return jsonable(
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
                },
                "terr95": {
                    "method": "cluster Wilson for the CS shares, MOVER for ΔCS, log-MOVER for ΔCS normalized; "
                    "runs pooled per territory",
                    "methods": dict(TERRITORY_METHODS),
                    "min_clusters": MIN_CLUSTERS,
                    "unstable_non_control": UNSTABLE_NON_CONTROL,
                    "coverage": COVERAGE_NOTE,
                },
                "headline_delta": "delta_cs_abs (Control − Non-control); delta_cs = normalized (reference)",
                "comparisons": {
                    "baseline": BASELINE,
                    "metrics": list(COMPARISON_METRICS),
                    "runs": "pooled per territory (pool_runs)",
                    "ci95": "paired cluster bootstrap over the common territories",
                    "test": "two-sided paired permutation test (sign flips within territories), "
                    "p = (c + 1) / (n + 1)",
                    "n_permutations": n_resamples,
                    "correction": "holm",
                    "seed": seed,
                },
            },
            "run": _run_section(run, skipped_by_mode),
            "models": run.models,
            "modes": run.modes,
            "metrics": list(METRICS),
            "results": results,
            "languages": _languages(run, tables, data_hash),
            "outcomes": _outcomes(run, _OUTCOME_KEYS),
            "outcomes_overall": _outcomes(run, ("model", "mode")),
            "comparisons": comparisons,
            "notes": [*notes, *cmp_notes],
            "warnings": _warnings(run, results, skipped_by_mode),
        }
    )
