"""Running an experiment: the grid of (query, mode, model, run), its calls, and the in-memory :class:`Run`.

- :mod:`~bordir.runner.run`: :func:`~bordir.runner.run.run` (what :func:`bordir.run` is);
- :mod:`~bordir.runner.result`: the in-memory :class:`~bordir.runner.result.Run` and
  :func:`~bordir.runner.result.load_run`;
- :mod:`~bordir.runner.online`: a run computed by calls made now, written as it goes;
- :mod:`~bordir.runner.runner`: the whole grid through one executor;
- :mod:`~bordir.runner.executors`: the executor registry (``local``, ``ray``),
  :mod:`~bordir.runner.ray_executor` the Ray one;
- :mod:`~bordir.runner.grid`, :mod:`~bordir.runner.shard`, :mod:`~bordir.runner.rows`:
  the inputs and calls, one slice of calls, the response rows;
- :mod:`~bordir.runner.batch`: the grid through provider batch APIs (submit, collect);
- :mod:`~bordir.runner.calibration`, :mod:`~bordir.runner.dry_run`,
  :mod:`~bordir.runner.plan`: content-free calibration, the cost estimate, the power plan.

What an experiment *is* (its config) and what it leaves on disk (the run
directory's writer and reader) are :mod:`bordir.experiment`'s; the numbers of a
run are :mod:`bordir.metrics.summary`'s.
"""
