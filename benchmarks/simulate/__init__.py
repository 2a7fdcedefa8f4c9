"""Synthetic data with known population values: the simulations behind the coverage benchmarks and their fast tests.

* :mod:`benchmarks.simulate.intervals` — CS tables of territories with known values (the intervals' coverage);
* :mod:`benchmarks.simulate.runs` — repeated runs of a dataset (the intervals over runs);
* :mod:`benchmarks.simulate.power` — per-language differences of known size (the power planner);
* :mod:`benchmarks.simulate.orders` — answers with a letter habit (the option-order metrics);
* :mod:`benchmarks.simulate.citations` — citation audits of known fairness (the flags' error rates).

The benchmarks (``benchmarks/coverage_*.py``, ``power_mde.py`` …) run them at full size; the tests
(``tests/metrics``, ``tests/citations``, ``tests/report``) import them for their fast versions. Nothing
in ``bordir/`` imports them.
"""
