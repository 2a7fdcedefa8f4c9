"""Option-order metrics: is an answer the same when the options are asked in another order?

* :mod:`~bordir.metrics.order.items` — the per-item table: one row per (model, mode, run, query)
  with the country picked in each order;
* :mod:`~bordir.metrics.order.bias` — position bias, pick rates by letter and by country;
* :mod:`~bordir.metrics.order.averaged` — the ``averaged`` rule (each answer as its distribution of picks);
* :mod:`~bordir.metrics.order.rules` — CS under the four rules (``given``, ``stable``,
  ``averaged``, ``calibrated``): ``order_metrics``.
"""
