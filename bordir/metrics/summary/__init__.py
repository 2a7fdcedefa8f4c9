"""The numbers of a run: every metric per (model, mode) with intervals, comparisons and warnings.

Pure functions of the responses table and the run record
(:class:`~bordir.metrics.summary.scored.ScoredRun`); the report renders them
(:mod:`bordir.report`) and the in-memory run returns them as tables
(:meth:`bordir.runner.result.Run.summary`).

- :mod:`~bordir.metrics.summary.build`: :func:`~bordir.metrics.summary.build.build_metrics`,
  the report's ``metrics.json``;
- :mod:`~bordir.metrics.summary.cells`: one (model, mode) cell;
- :mod:`~bordir.metrics.summary.comparisons`: every IR mode against ``no_ir``;
- :mod:`~bordir.metrics.summary.caveats`: the warnings;
- :mod:`~bordir.metrics.summary.names`: the schema id, the baseline, the headline metrics
  and their labels;
- :mod:`~bordir.metrics.summary.tidy`: scores, summary and paired comparisons as tidy tables;
- :mod:`~bordir.metrics.summary.scored`: what the summary reads of a run.
"""
