"""The summary's warnings: dataset repairs, failed calls, incomplete runs, small-sample and unstable intervals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..intervals.bootstrap import MIN_CLUSTERS
from ..intervals.smallsample import COVERAGE_NOTE, UNSTABLE_NON_CONTROL
from ..registry import metric_label
from .scored import ScoredRun, info_section

__all__ = ["build_warnings", "interval_warnings"]


def build_warnings(
    run: ScoredRun, results: Mapping[str, Mapping[str, Any]], skipped_by_mode: Mapping[str, int]
) -> list[str]:
    """Every warning of the report: dataset, skipped queries, failed calls, incomplete runs, intervals."""
    info, ds = run.info, run.dataset
    out: list[str] = []
    ds_info = info_section(info, "dataset")
    for w in dict.fromkeys([*map(str, ds_info.get("warnings") or []), *map(str, ds.warnings)]):
        out.append(f"dataset: {w}")
    recorded = ds_info.get("signature")
    if recorded and recorded != ds.signature:
        out.append(
            f"dataset: run.json records {recorded} but the loaded dataset is {ds.signature}; "
            "scores use the loaded dataset"
        )
    from ...modes import count_skips

    skipped = [
        (str(s.get("query_id")), str(s.get("mode")), str(s.get("reason")))
        for s in info.get("skipped") or []
        if isinstance(s, dict)
    ]
    for c in count_skips(skipped):
        where = ", ".join(f"{m} {n}" for m, n in c.modes.items())
        out.append(
            f"{c.n} (query, mode) pairs dropped: {c.cause} ({where}; run.json 'skipped' lists them)"
        )
    calls = info_section(info, "calls")
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
        (metric_label(m), e["territory_interval"]["n_clusters"])
        for m, e in cell["metrics"].items()
        if e.get("territory_interval") and e["territory_interval"].get("warning")
    ]
    if few:
        which = ", ".join(f"{label} {n}" for label, n in few)
        out.append(
            f"{model} / {mode}: intervals over territories rest on fewer than {MIN_CLUSTERS} territories "
            f"({which}); marked † in the tables"
        )
    refused = [
        (metric_label(m), e["territory_interval"]["refused"])
        for m, e in cell["metrics"].items()
        if e.get("territory_interval") and e["territory_interval"].get("refused")
    ]
    for label, why in refused:
        out.append(f"{model} / {mode}: {label}: {why}")
    d = cell["metrics"].get("delta_cs_norm", {})
    if d.get("unstable"):
        nc = cell["metrics"]["non_control_cs"].get("terr95") or [None, None]
        low = "n/a" if nc[0] is None else f"{100 * nc[0]:.1f}"
        out.append(
            f"{model} / {mode}: {metric_label('delta_cs_norm')} is unstable: Non-control CS's interval reaches {low} "
            f"(below {100 * UNSTABLE_NON_CONTROL:.0f}), so dividing by it can multiply Control CS tenfold; "
            "use ΔCS (unnormalised)"
        )
    und = d.get("undefined") or {}
    if und.get("runs"):
        out.append(
            f"{model} / {mode}: {metric_label('delta_cs_norm')} undefined (Non-control CS = 0) in {und['runs']} of "
            f"{und['of_runs']} runs; its mean and t-interval skip them"
        )
    return out
