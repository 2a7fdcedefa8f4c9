"""The report's vocabulary: its schema id, the baseline mode and the headline metrics (labels: the metric registry)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..intervals.runs import CIVariant

__all__ = [
    "SCHEMA",
    "BASELINE",
    "HEADLINE",
    "DELTA_METRICS",
    "COMPARISON_METRICS",
    "CONF",
    "CI_RUNS",
]

SCHEMA = "bordir.report/1"
BASELINE = "no_ir"
"""The mode every IR mode is compared against."""
HEADLINE: tuple[str, ...] = ("kb_cs", "cst_cs", "delta_cs")
"""The metrics of the main table and plot: the headline ΔCS is unnormalised (Control − Non-control)."""
DELTA_METRICS: tuple[str, ...] = ("delta_cs", "delta_cs_norm")
"""Metrics reported with their share of undefined runs and resamples."""
COMPARISON_METRICS: tuple[str, ...] = HEADLINE
"""The metrics compared between modes."""
CONF = 0.95
CI_RUNS: CIVariant = "t95"
