"""The summary's paired comparisons: every IR mode against ``no_ir`` per model, Holm-corrected across all of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import ConfigError
from ...stats import holm_adjust
from ..cs.table import TerritoryStats
from ..intervals.aligned import pool_runs
from ..intervals.paired import paired_comparison
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
                "mode": pc.label_a,
                "baseline": pc.label_b,
                "value_mode": pc.value_a,
                "value_baseline": pc.value_b,
                "diff": pc.diff,
                "ci95": ci_pair(pc.low, pc.high),
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
