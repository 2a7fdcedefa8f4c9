"""The uncertainty of the CS metrics: which variance each interval covers, on the statistics of :mod:`bordir.stats`.

* :mod:`~bordir.metrics.intervals.runs` — ``t_interval``: run-to-run (sampling)
  noise only, the mean of a metric over R runs and a t-interval (``t95``: sample σ;
  ``paper``: BordIRLines' population σ);
* :mod:`~bordir.metrics.intervals.bootstrap` — ``cluster_bootstrap``: the sampling of
  territories (the answers of one territory in all its languages and runs move
  together), percentile or BCa; ``MIN_CLUSTERS``: fewer contributing territories
  carry a ``warning``;
* :mod:`~bordir.metrics.intervals.territory` (on :mod:`~bordir.metrics.intervals.smallsample`) —
  ``territory_interval``: the small-sample interval over territories (cluster Wilson,
  MOVER), which keeps its coverage at 12 territories;
* :mod:`~bordir.metrics.intervals.paired` — ``paired_comparison``: two configurations
  on the same territories, paired bootstrap CI and swap permutation test;
* :mod:`~bordir.metrics.intervals.aligned` — per-territory tables of several runs on one territory axis;
* :mod:`~bordir.metrics.intervals.variance` — where the variance comes from (runs, territories, judges);

Randomness comes from ``np.random.default_rng(seed)``; the seed defaults to
12345, is overridden by ``BORDIR_SEED`` (:func:`bordir.stats.resolve_seed`), and
is recorded in every result's signature.

Example:
    >>> from bordir.metrics.intervals.runs import t_interval
    >>> iv = t_interval([0.70, 0.72, 0.74])
    >>> round(iv.mean, 2), [round(x, 4) for x in (iv.low, iv.high)]
    (0.72, [0.6703, 0.7697])
"""
