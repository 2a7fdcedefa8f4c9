"""The metric registry: every metric's computation, description, labels and bounds in one place.

Each entry's factory is what computes the metric; its metadata is what tables,
plots and ``bordir list metrics`` show:

* ``kind``: ``cs`` — a concurrence-style score, a pure function of the
  per-territory sufficient statistics; the factory is its
  :class:`~bordir.metrics.cs.metric.CSMetric` (``score`` from the column sums,
  ``value`` under resample weights). ``bordir score``, ``bordir report``,
  ``metrics.json`` and ``Run.scores()`` / ``Run.summary()`` compute every
  ``cs`` entry, in registration order (:func:`cs_metrics`); or
  ``per-language`` — the factory is the :class:`~bordir.metrics.perlang.measures.Measure`;
* ``label``: the label of report tables and plots; ``text_label``: plain ASCII
  for terminal tables; ``paper_label``: the BorderLines paper's column name
  (``bordir score``);
* ``bounds``: the range of the metric (intervals are clipped to it).

A new metric is one module that registers itself (a plugin named in
``BORDIR_PLUGINS``, or a file of bordir): a function of the column sums of the
per-territory table::

    from bordir.metrics.registry import cs_metric

    @cs_metric("kb_miss", columns=("kb_num", "kb_den"), label="KB miss", bounds=(0.0, 1.0))
    def kb_miss(s):
        \"\"\"Share of control answers that do not name the controller.\"\"\"
        return 1 - s["kb_num"] / s["kb_den"]

Example:
    >>> METRIC_REGISTRY.entry("kb_cs").meta["bounds"]
    (0.0, 1.0)
    >>> metric_label("delta_cs"), metric_label("delta_cs", "text_label")
    ('ΔCS', 'Delta CS')
    >>> "in_group_rate" in METRIC_REGISTRY, cs_metric_names()[:3]
    (True, ('kb_cs', 'control_cs', 'non_control_cs'))
    >>> headline_metrics()
    ('kb_cs', 'cst_cs', 'delta_cs')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..registry import Registry
from .cs.aggregate import CS_METRICS, METRICS
from .cs.metric import CSMetric, Sums
from .perlang.measures import PERLANG_MEASURES
from .summary.names import HEADLINE

__all__ = [
    "METRIC_REGISTRY",
    "cs_metric",
    "cs_metrics",
    "cs_metric_names",
    "headline_metrics",
    "metric_label",
    "metric_bounds",
    "describe_metrics",
]

METRIC_REGISTRY: Registry[Any] = Registry("metric")
"""Every metric by name: the CS metrics in reporting order, then the per-language measures."""


def register_cs_metric(metric: CSMetric) -> CSMetric:
    """Register ``metric`` (a :class:`~bordir.metrics.cs.metric.CSMetric`) under its name; returns it."""
    METRIC_REGISTRY.register(metric.name, metric, description=metric.description, **metric.meta())
    return metric


for _m in CS_METRICS:
    register_cs_metric(_m)
for _p in PERLANG_MEASURES.values():
    METRIC_REGISTRY.register(
        _p.name,
        _p,
        description=f"{_p.label}: higher = {_p.toward}",
        kind="per-language",
        label=_p.label,
        text_label=_p.label,
        paper_label=_p.label,
        bounds=_p.bounds,
    )


def cs_metric(
    name: str,
    *,
    columns: tuple[str, ...],
    label: str = "",
    text_label: str = "",
    paper_label: str = "",
    bounds: tuple[float, float] = (-math.inf, math.inf),
    description: str = "",
) -> Callable[[Callable[[Sums], Any]], Callable[[Sums], Any]]:
    """Decorator: register ``fn(sums) -> value`` as the CS metric ``name``.

    ``sums`` maps each of ``columns`` (per-territory columns,
    :data:`~bordir.metrics.cs.territory.TERRITORY_COLUMNS`) to its sum over the
    territories of one (model, mode, run) — or to an array of sums, one per
    bootstrap resample, so ``fn`` must work on numpy arrays too. A value that is
    not finite is undefined. ``bordir score`` and ``bordir report`` show it after the built-ins.

    Raises:
        ConfigError: ``name`` is already registered, or a column is unknown.
    """

    def deco(fn: Callable[[Sums], Any]) -> Callable[[Sums], Any]:
        doc = (fn.__doc__ or "").strip().splitlines()
        register_cs_metric(
            CSMetric.of_sums(
                name,
                fn,
                tuple(columns),
                description=description or (doc[0].strip() if doc else ""),
                label=label,
                text_label=text_label,
                paper_label=paper_label,
                bounds=bounds,
            )
        )
        return fn

    return deco


def cs_metrics() -> tuple[CSMetric, ...]:
    """Every registered CS metric (built-ins first, then plugins'), in registration order."""
    return tuple(
        e.factory for e in METRIC_REGISTRY.entries(load=True) if e.meta.get("kind") == "cs"
    )


def cs_metric_names() -> tuple[str, ...]:
    """The names of :func:`cs_metrics`."""
    return tuple(m.name for m in cs_metrics())


def headline_metrics() -> tuple[str, ...]:
    """The CS metrics ``bordir report`` shows: the report's headline ones, then every plugin's."""
    return (*HEADLINE, *(n for n in cs_metric_names() if n not in METRICS))


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
