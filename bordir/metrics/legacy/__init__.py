"""BorderLines ``response_table.csv`` files scored exactly as the paper's ``calculate_CS.py`` does.

* :mod:`~bordir.metrics.legacy.response_table` — read the tables and score them
  (``read_response_table``, ``score_legacy_tables``);
* :mod:`~bordir.metrics.legacy.distinct_rows` — a table read as its distinct rows (the scorer's fast reader);
* :mod:`~bordir.metrics.legacy.territories` — per-territory statistics of a parsed table, vectorised;
* :mod:`~bordir.metrics.legacy.dict_literal` — ``Responses_d`` cells (Python dict literals) parsed fast.
"""
