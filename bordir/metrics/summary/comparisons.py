"""The summary's paired comparisons: every IR mode against ``no_ir`` per model, Holm-corrected across all of them.

Each entry has the names of every paired comparison bordir returns
(:data:`~bordir.metrics.perlang.compare.COMPARE_COLUMNS`): ``a`` (``no_ir``) and ``b`` (the
mode), ``value_a``, ``value_b``, ``diff`` = b − a, ``ci_low``, ``ci_high``, ``ci_refused``,
``p_value``, ``p_holm``, ``significant``, ``status``, ``n_territories``, and follows the same rule
(:mod:`~bordir.metrics.intervals.paired_rule`): too few paired territories to be tested, no interval
below 30. ``mode`` (= ``b``) and ``ci95`` (= ``[ci_low, ci_high]``) are kept for readers of
``metrics.json`` written before the names were unified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import ConfigError
from ...stats import holm_adjust
from ..cs.table import TerritoryStats
from ..intervals.aligned import pool_runs
from ..intervals.paired import defined_on_both, paired_comparison
from ..intervals.paired_rule import ALPHA, DEFAULT_MIN_TERRITORIES, interval_refused, paired_status
from ..intervals.smallsample import ci_pair
from .cells import recorded_fields, with_fields
from .names import BASELINE, COMPARISON_METRICS, CONF
from .scored import ScoredRun

__all__ = ["build_comparisons"]


def build_comparisons(
    run: ScoredRun,
    stats: Mapping[tuple[str, str], list[tuple[int, TerritoryStats]]],
    kb_notes: Mapping[tuple[str, str], str | None],
    n_resamples: int,
    seed: int,
    data_hash: str,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Paired comparisons of every IR mode against :data:`BASELINE` per model (Holm across all), with notes."""
    found: list[tuple[str, Any]] = []
    paired: list[tuple[Any, int]] = []  # each comparison and its paired territories
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
                paired.append((pc, defined_on_both(pooled, base, metric)))
    n_paired = {id(pc): n for pc, n in paired}
    judged = [
        (m, pc)
        for m, pc in found
        if paired_status(n_paired[id(pc)], DEFAULT_MIN_TERRITORIES) == "judged"
    ]
    adjusted = {id(pc): adj for (_, pc), adj in zip(judged, holm_adjust([pc for _, pc in judged]))}
    out = []
    for model, pc in found:
        n = n_paired[id(pc)]
        status = paired_status(n, DEFAULT_MIN_TERRITORIES)
        refused = interval_refused(n)
        ci = ci_pair(pc.low, pc.high) if status == "judged" and refused is None else None
        p_holm = adjusted[id(pc)].p_holm if id(pc) in adjusted else None
        n_runs = max(len(stats[(model, pc.label_a)]), len(stats[(model, BASELINE)]))
        have = {
            "mode": None,
            "gen": model,
            "runs": n_runs,
            "policy": run.config.policy,
            "data": data_hash,
        }
        sig = with_fields(
            pc.signature,
            gen=model,
            runs=n_runs,
            policy=run.config.policy,
            data=data_hash,
            **recorded_fields(run, model, pc.label_a, have),
        )
        out.append(
            {
                "model": model,
                "metric": pc.metric,
                "a": pc.label_b,
                "b": pc.label_a,
                "value_a": pc.value_b,
                "value_b": pc.value_a,
                "diff": pc.diff,
                "ci_low": ci[0] if ci else None,
                "ci_high": ci[1] if ci else None,
                "ci_refused": refused,
                "p_value": pc.p_value if status == "judged" else None,
                "p_holm": p_holm,
                "significant": p_holm is not None and p_holm < ALPHA,
                "status": status,
                "n_territories": n,
                "n_resamples": pc.n_resamples,
                "n_permutations": pc.n_permutations,
                "seed": pc.seed,
                "signature": str(sig),
                "mode": pc.label_a,  # = b, for readers of older metrics.json
                "ci95": ci,  # = [ci_low, ci_high]
            }
        )
    return out, notes
