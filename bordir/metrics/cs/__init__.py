"""Concurrence scores (CS): per-territory sufficient statistics, the CS aggregates and their tables.

CS is 1 when two answers name the same country. For one (model, mode, run),
each territory *t* has:

* ``Responses_d``: its claimant-language answers as English country names,
  keyed by query language. The control answer enters as ``en`` only when
  ``en`` is one of the territory's claimant languages (``fix_responses_d``).
* ``Response_en``: the control (English) answer; ``controller`` and its
  language ``controller_code``.

One concept per module:

* :mod:`~bordir.metrics.cs.territory` — one territory's sufficient statistics
  (``territory_stats``, the row-by-row definition; ``TERRITORY_COLUMNS``);
* :mod:`~bordir.metrics.cs.aggregate` — the metrics as pure functions of the
  per-territory table (``METRICS``, ``metric_value``, ``aggregate``, ``Score``);
* :mod:`~bordir.metrics.cs.table` — ``TerritoryStats`` of one (model, mode, run);
* :mod:`~bordir.metrics.cs.tables` — ``territory_tables``: every (model, mode,
  run) of a responses table at once, with the vectorised engine
  (:mod:`~bordir.metrics.cs.columnar`; ``tests/metrics/cs_reference.py`` is the
  row-by-row scorer it replaced, kept as the tests' reference);
* :mod:`~bordir.metrics.cs.scoring` — tidy scores per (model, mode, run) and over runs;
* :mod:`~bordir.metrics.cs.breakdown` — CS per query language, outcome rates;
* :mod:`~bordir.metrics.cs.response_countries` — how many countries a territory's answers name.

Example:
    >>> import pandas as pd
    >>> from bordir.metrics.cs.aggregate import aggregate
    >>> from bordir.metrics.cs.territory import territory_stats
    >>> row, items = territory_stats("X", "A", "a", {"a": "A", "b": "B", "c": "A"}, "A")
    >>> row["kb_num"], row["control_num"], row["nc_agree"], row["nc_n"], row["cst_agree"], row["cst_pairs"]
    (1.0, 1.0, 1, 2, 1, 3)
    >>> s = aggregate(pd.DataFrame([row]))
    >>> s["non_control_cs"].value, s["delta_cs_norm"].value, round(s["cst_cs"].value, 4)
    (0.5, 1.0, 0.3333)
    >>> s["kb_cs"].frac
    '1/1'
"""
