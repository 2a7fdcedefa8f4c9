"""Black-box citation audits: logs of answers and the URLs they cite (no prompt documents); see ``docs/audit.md``.

* :mod:`~bordir.audit.blackbox.reader`, :mod:`~.fields`, :mod:`~.records`, :mod:`~.providers` — the log
  (JSONL / Parquet / CSV; field mapping and common names; the raw responses of OpenAI's
  Responses and Chat Completions search, Perplexity, Gemini and Anthropic);
* :mod:`~.urls`, :mod:`~.countries`, :mod:`~.publishers`, :mod:`~.urllang`, :mod:`~.lists`,
  :mod:`~.attribution`, :mod:`~.urlcols` — who is cited: domain, country, language, lists, with the
  deciding rule;
* :mod:`~.ingest`, :mod:`~.fastblock`, :mod:`~.urltable`, :mod:`~.codes` — the answers and URLs tables,
  as columns and integer codes; :mod:`~.shares`, :mod:`~.roles`, :mod:`~.claimants`, :mod:`~.compare`
  — the shares, their intervals (:func:`bordir.stats.cluster_wilson.wilson_from_sums`) and the
  paired comparisons;
* :mod:`~.run` — :func:`~.run.run_blackbox_audit`; :mod:`~.report`, :mod:`~.plots` — its files;
* :mod:`~.collect` — ``bordir audit collect``.
"""

from __future__ import annotations

from .run import BlackboxOptions, BlackboxResult, run_blackbox_audit

__all__ = ["BlackboxOptions", "BlackboxResult", "run_blackbox_audit"]
