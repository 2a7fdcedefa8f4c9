"""NoMIRACL (Thakur et al., "Knowing When You Don't Know", EMNLP Findings 2024) as a bordir testbed.

One concept per module:

* :mod:`~bordir.testbeds.nomiracl.template` — NoMIRACL's vanilla prompt and its
  ``postprocess`` (the ``nomiracl`` policy), ported line by line;
* :mod:`~bordir.testbeds.nomiracl.evaluation` — NoMIRACL's ``ConfusionMetric`` and the
  rows of its evaluation script, quirks included;
* :mod:`~bordir.testbeds.nomiracl.reading` — bordir's multilingual reading of a reply
  (the ``bordir`` policy), with explicit outcomes;
* :mod:`~bordir.testbeds.nomiracl.results` — NoMIRACL's result files (read and written);
* :mod:`~bordir.testbeds.nomiracl.rescore` — ``bordir testbed score --format nomiracl``;
* :mod:`~bordir.testbeds.nomiracl.engine` — the testbed run: questions, prompts, items,
  rates, comparisons and files;
* :mod:`~bordir.testbeds.nomiracl.plots` — hallucination rate against error rate.

The data are loaded by :func:`bordir.loaders.catalog.load_dataset` (``nomiracl``,
:mod:`bordir.loaders.nomiracl`); the testbed registers itself in
:mod:`bordir.testbeds.builtin.nomiracl`. ``docs/testbeds.md`` maps every number to NoMIRACL's.
"""
