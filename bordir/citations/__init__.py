"""Citation rate vs inclusion rate: which document languages does a model cite, relative to what it was shown?

* :mod:`~bordir.citations.rates` — per-answer sufficient statistics; ``pooled``
  and ``per_query`` rates (both always reported, and named);
* :mod:`~bordir.citations.ratio` — the citation ratio, vectorised
  cluster-bootstrap intervals for the rates, and the cluster score test and
  interval of the ratio;
* :mod:`~bordir.citations.flags` — over- / under-citation flags (score
  interval excluding 1, Holm across the output by default) and a verdict for
  every cell, ``too few to judge`` below :data:`~.flags.MIN_CELL_CLUSTERS`;
* :mod:`~bordir.citations.experiment` — the metrics of a citation-format run;
* :mod:`~bordir.citations.viewpoint` — agreement of the chosen option with the
  cited documents' viewpoints (input contract for viewpoint labels);
* :mod:`~bordir.citations.plots` — citation vs inclusion, ratio heatmap, spread
  by resource level (matplotlib, the ``stats`` extra).

``bordir audit`` (:mod:`bordir.audit`) applies the same metrics to a deployed
assistant's logs. See ``docs/citations.md``.
"""

from __future__ import annotations

from .experiment import experiment_citations
from .flags import assign_flags
from .rates import RATE_VARIANTS, CellStats, answer_statistics, rates_from_sums
from .ratio import summarize_cell
from .tables import ALL_LANGS, CitationTables, build_tables

__all__ = [
    "RATE_VARIANTS",
    "ALL_LANGS",
    "CellStats",
    "CitationTables",
    "answer_statistics",
    "rates_from_sums",
    "summarize_cell",
    "assign_flags",
    "build_tables",
    "experiment_citations",
]
