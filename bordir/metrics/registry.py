"""The metric registry: every metric's name, description, labels and bounds in one place.

Each entry's factory computes the metric; its metadata is what tables, plots
and ``bordir list metrics`` show:

* ``kind``: ``cs`` (a concurrence score over a per-territory table; the factory
  is ``f(table, weights=None)``, as :func:`~bordir.metrics.cs.metric_value`) or
  ``per-language`` (the factory is the :class:`~bordir.metrics.perlang_measures.Measure`);
* ``label``: the label of report tables and plots; ``text_label``: plain ASCII
  for terminal tables; ``paper_label``: the BorderLines paper's column name
  (``bordir score``);
* ``bounds``: the range of the metric (intervals are clipped to it).

A new metric is one new module that registers itself::

    from bordir.metrics.registry import METRIC_REGISTRY

    METRIC_REGISTRY.register("my_rate", my_rate, description="…", label="My rate",
                             bounds=(0.0, 1.0), kind="testbed")

Example:
    >>> METRIC_REGISTRY.entry("kb_cs").meta["bounds"]
    (0.0, 1.0)
    >>> metric_label("delta_cs_abs"), metric_label("delta_cs_abs", "text_label")
    ('ΔCS', 'Delta CS')
    >>> "in_group_rate" in METRIC_REGISTRY
    True
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..registry import Registry
from .cs import METRIC_BOUNDS, METRICS, metric_value
from .perlang_measures import PERLANG_MEASURES

__all__ = ["METRIC_REGISTRY", "metric_label", "metric_bounds", "describe_metrics"]

METRIC_REGISTRY: Registry[Any] = Registry("metric")
"""Every metric by name: the CS metrics in reporting order, then the per-language measures."""

_CS: dict[str, tuple[str, str, str, str]] = {
    # name: (description, report label, terminal label, paper label)
    "kb_cs": (
        "knowledge-base CS: English control answers that name the controller",
        "KB CS",
        "KB CS",
        "KB CS",
    ),
    "control_cs": (
        "answers in the controller's language that name the controller",
        "Control CS",
        "Control CS",
        "Control CS",
    ),
    "non_control_cs": (
        "answers in the other claimants' languages that name the controller",
        "Non-control CS",
        "Non-control CS",
        "Non-control CS",
    ),
    "delta_cs": (
        "(Control CS - Non-control CS) / Non-control CS: the relative gap",
        "ΔCS normalized (reference)",
        "Delta CS norm. (ref.)",
        "Delta CS",
    ),
    "delta_cs_abs": (
        "Control CS - Non-control CS (unnormalised)",
        "ΔCS",
        "Delta CS",
        "Delta CS (unnorm.)",
    ),
    "cst_cs": (
        "consistency: pairs of a territory's answers (across languages) that agree",
        "Cst CS",
        "Cst CS",
        "Cst CS all",
    ),
    "cst_cs_unknown": (
        "consistency CS on territories whose controller is Unknown",
        "Cst CS unk",
        "Cst CS unk",
        "Cst CS unk",
    ),
}

for _name in METRICS:
    _description, _label, _text, _paper = _CS[_name]
    METRIC_REGISTRY.register(
        _name,
        partial(metric_value, metric=_name),
        description=_description,
        kind="cs",
        label=_label,
        text_label=_text,
        paper_label=_paper,
        bounds=METRIC_BOUNDS[_name],
    )
for _m in PERLANG_MEASURES.values():
    METRIC_REGISTRY.register(
        _m.name,
        _m,
        description=f"{_m.label}: higher = {_m.toward}",
        kind="per-language",
        label=_m.label,
        text_label=_m.label,
        paper_label=_m.label,
        bounds=_m.bounds,
    )


def metric_label(name: str, style: str = "label") -> str:
    """The ``label`` (report), ``text_label`` (terminal) or ``paper_label`` of metric ``name``.

    Raises:
        ConfigError: ``name`` is not a registered metric.
    """
    meta = METRIC_REGISTRY.entry(name).meta
    return str(meta.get(style) or meta.get("label") or name)


def metric_bounds(name: str) -> tuple[float, float]:
    """The range of metric ``name``."""
    lo, hi = METRIC_REGISTRY.entry(name).meta.get("bounds", (float("-inf"), float("inf")))
    return float(lo), float(hi)


def describe_metrics() -> list[dict[str, str]]:
    """``name, kind, label, bounds, description`` per registered metric (``bordir list metrics``)."""
    rows = []
    for e in METRIC_REGISTRY.entries():
        lo, hi = e.meta.get("bounds", (float("-inf"), float("inf")))
        rows.append(
            {
                "name": e.name,
                "kind": str(e.meta.get("kind", "")),
                "label": str(e.meta.get("label", e.name)),
                "bounds": f"[{lo:g}, {hi:g}]",
                "description": e.description,
            }
        )
    return rows
