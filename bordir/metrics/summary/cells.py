"""One (model, mode) cell of ``metrics.json``: every metric's mean, intervals, per-run counts, notes and signature."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ...signature import Signature
from ..cs.aggregate import METRICS
from ..cs.response_countries import response_countries, summarize_response_countries
from ..cs.table import TerritoryStats
from ..intervals.bootstrap import cluster_bootstrap
from ..intervals.runs import t_interval
from ..intervals.smallsample import ci_pair
from ..intervals.territory import territory_interval
from ..registry import cs_metrics
from .names import BASELINE, CI_RUNS, CONF, DELTA_METRICS
from .scored import ScoredRun

__all__ = [
    "kb_undefined",
    "base_fields",
    "recorded_fields",
    "cell_note",
    "with_fields",
    "build_cell",
]


def kb_undefined(mode: str, group: pd.DataFrame) -> str | None:
    """Why KB CS is not reported for this (model, mode), or None."""
    if mode == "swap_docs":
        return (
            "undefined for swap_docs: its English control queries are skipped (swap_docs needs another "
            "claimant language), so there is no control answer to score"
        )
    if not group["is_control"].any():
        return "undefined: this mode has no control (English) responses"
    return None


def base_fields(
    run: ScoredRun, model: str, mode: str, n_runs: int, data_hash: str
) -> dict[str, Any]:
    """The signature fields every metric of this (model, mode) shares."""
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
    return {**out, **recorded_fields(run, model, mode, out)}


def recorded_fields(
    run: ScoredRun, model: str, mode: str, have: Mapping[str, Any]
) -> dict[str, str]:
    """Fields of the responses' own signature (built by the runner) that ``have`` lacks: corpus hash, retriever parameters, instruction language … so every score names everything its responses depended on."""
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


def cell_note(metric: str, runs: Sequence[int], notes: Sequence[str]) -> str:
    """Why ``metric`` is undefined in some of ``runs`` (empty when it never is)."""
    bad = [(r, n) for r, n in zip(runs, notes) if n]
    if not bad:
        return ""
    why = "; ".join(dict.fromkeys(n for _, n in bad))
    if len(bad) == len(runs):
        return f"undefined in every run ({why})"
    return (
        f"undefined in run(s) {', '.join(str(r) for r, _ in bad)} ({why}); mean over the other runs"
    )


def with_fields(sig: Signature, **extra: Any) -> Signature:
    """``sig`` with ``extra`` fields after its first field (``version`` stays last)."""
    fields = [(k, v) for k, v in sig.fields if k != "version"]
    merged = dict([*fields[:1], *extra.items(), *fields[1:]])
    return Signature.build(sig.name, **merged, version=sig.get("version"))


def build_cell(
    run: ScoredRun,
    model: str,
    mode: str,
    per_run: list[tuple[int, TerritoryStats]],
    group: pd.DataFrame,
    n_resamples: int,
    seed: int,
    data_hash: str,
) -> dict[str, Any]:
    """Every metric of one (model, mode): mean, ``ci95``, ``terr95``, ``boot95``, per-run counts, notes and signature."""
    runs = [r for r, _ in per_run]
    stats = [s for _, s in per_run]
    scores = [s.scores() for s in stats]
    kb_note = kb_undefined(mode, group)
    base = base_fields(run, model, mode, len(runs), data_hash)
    metrics: dict[str, Any] = {}
    for spec in cs_metrics():
        m = spec.name
        builtin = m in METRICS
        ms = [sc[m] for sc in scores]
        undefined = m == "kb_cs" and kb_note is not None
        values = [None if undefined else s.value for s in ms]
        iv = t_interval(values, variant=CI_RUNS, conf=CONF, bounds=spec.bounds)
        boot = (
            None
            if undefined
            else cluster_bootstrap(
                stats,
                m if builtin else spec.on_table(),
                n_resamples=n_resamples,
                seed=seed,
                conf=CONF,
            )
        )
        # the small-sample interval is defined for the built-ins (cluster Wilson, MOVER)
        terr = None if undefined or not builtin else territory_interval(stats, m, conf=CONF)
        metrics[m] = {
            "mean": iv.mean,
            "ci95": ci_pair(iv.low, iv.high),
            "sd": iv.sd,
            "n_runs": iv.n,
            "terr95": None if terr is None or terr.low is None else [terr.low, terr.high],
            "territory_interval": None if terr is None else terr.as_dict(),
            "boot95": None if boot is None else ci_pair(boot.low, boot.high),
            "bootstrap": None
            if boot is None
            else {
                **boot.as_dict(),
                "signature": str(with_fields(boot.signature, mode=mode, gen=model)),
            },
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
            "note": kb_note if undefined else cell_note(m, runs, [s.note for s in ms]),
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
        if m == "delta_cs_norm":
            metrics[m]["unstable"] = bool(terr is not None and terr.unstable)
            # terr95 and boot95 are intervals of the ratio of the counts pooled over runs, not of the
            # mean of the per-run ratios: their own estimate goes beside them wherever they are printed
            metrics[m]["pooled"] = (
                terr.estimate
                if terr is not None and terr.estimate is not None
                else (None if boot is None else boot.estimate)
            )
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
