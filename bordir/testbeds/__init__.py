"""RGB-style robustness testbeds, in every language: noise robustness, negative rejection, information integration and counterfactual robustness (Chen et al., AAAI 2024), and NoMIRACL (Thakur et al., 2024; :mod:`bordir.testbeds.nomiracl`, its own data, prompt and scoring).

One concept per module:

* :mod:`~bordir.testbeds.testbed` — the testbed registry (:class:`~bordir.testbeds.testbed.Testbed`:
  settings, kind of RGB file, default ratios, questions, metrics, judge); the built-ins are
  one file each in :mod:`bordir.testbeds.builtin`;
* :mod:`~bordir.testbeds.rgb_data` — RGB's JSON-lines data files;
* :mod:`~bordir.testbeds.construct` — questions, instances, RGB's ``processdata``;
* :mod:`~bordir.testbeds.territorial` — testbed questions from bordir's dispute data;
* :mod:`~bordir.testbeds.counterfactual` — claimant names in paragraphs and the counterfactual edit;
* :mod:`~bordir.testbeds.instructions` — the system prompt, template and phrases per language;
* :mod:`~bordir.testbeds.prompt` — one instance's request;
* :mod:`~bordir.testbeds.scorer` — RGB's labels and bordir's;
* :mod:`~bordir.testbeds.items` — the per-item table;
* :mod:`~bordir.testbeds.metrics` / :mod:`~bordir.testbeds.comparisons` — rates, intervals, paired tests;
* :mod:`~bordir.testbeds.judge` — RGB's LLM-judge rates (Rej*, ED*, CR*);
* :mod:`~bordir.testbeds.rescore` — re-scoring RGB prediction files;
* :mod:`~bordir.testbeds.runner` — a run through the response cache and executor;
* :mod:`~bordir.testbeds.plots` — accuracy against the noise ratio;
* :mod:`bordir.testbeds.nomiracl` — the NoMIRACL testbed (an :class:`~bordir.testbeds.testbed.Engine`)
  and the re-scoring of NoMIRACL's published outputs.

See ``docs/testbeds.md`` for how each testbed and number maps to RGB.

Example:
    >>> from bordir.testbeds import score
    >>> score("信息不足", ("12人",), "zhs").outcome
    'rejected'
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "load_rgb": "rgb_data",
    "RGBQuestion": "rgb_data",
    "Question": "construct",
    "Instance": "construct",
    "Doc": "construct",
    "build_docs": "construct",
    "make_instance": "construct",
    "territorial_questions": "territorial",
    "get_instruction": "instructions",
    "score": "scorer",
    "score_items": "items",
    "rate": "metrics",
    "summarize": "metrics",
    "rescore_predictions": "rescore",
    "TestbedConfig": "runner",
    "run_testbed": "runner",
}


__all__ = list(_LAZY)
"""Every name of the package: the keys of ``_LAZY``, each imported on first use."""


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'bordir.testbeds' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
