"""Per-language measures: shares per query language (or resource level), their comparisons and their power.

* :mod:`~bordir.metrics.perlang.measures` — the measures: names, labels, bounds, signatures;
* :mod:`~bordir.metrics.perlang.items` — one item per claimant-language answer, then shares per language;
* :mod:`~bordir.metrics.perlang.compare` — paired comparisons per language: two modes, or two models;
* :mod:`~bordir.metrics.perlang.power` — how small a difference the design can detect per language.
"""
