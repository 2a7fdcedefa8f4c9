"""The report's vocabulary: its schema id, the baseline mode, the headline metrics and their labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..metrics.uncertainty import CIVariant

__all__ = [
    "SCHEMA",
    "BASELINE",
    "HEADLINE",
    "DELTA_METRICS",
    "COMPARISON_METRICS",
    "LABELS",
    "CONF",
    "CI_RUNS",
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
CI_RUNS: CIVariant = "t95"
