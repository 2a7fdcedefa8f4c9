"""RGB's testbeds as an :class:`~bordir.testbeds.testbed.Engine`: questions, prompt, items, rates, files, plot.

The built-in testbeds of RGB (``noise``, ``rejection``, ``integration``, ``counterfactual``)
and any testbed registered without an engine of its own run with :data:`ENGINE`, through the
one path of :func:`bordir.testbeds.runner.run_testbed`, as NoMIRACL runs with its own:

* **plan**: the questions of an RGB file or of the territorial data, one instance per
  question × setting × noise ratio (:func:`~bordir.testbeds.plan.plan`);
* **request**: bordir's instructions in the question's language (:func:`~bordir.testbeds.prompt.request_for`);
* **items**: the per-item table under the ``rgb`` and ``bordir`` policies
  (:func:`~bordir.testbeds.items.score_items`);
* **rates** and **comparisons**: :func:`~bordir.testbeds.metrics.summarize`,
  :func:`~bordir.testbeds.comparisons.comparisons`;
* **files**: RGB-format prediction files ``predictions/<model>/<lang>.<setting>.jsonl``;
* **plot**: accuracy against the noise ratio (:func:`~bordir.testbeds.plots.write_noise_plot`).

Example:
    >>> ENGINE.policies, ENGINE.default_policy
    (('rgb', 'bordir'), 'bordir')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.atomic import atomic_write_text
from .construct import Instance
from .prompt import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE

__all__ = ["RGBEngine", "ENGINE"]


class RGBEngine:
    """The :class:`~bordir.testbeds.testbed.Engine` of RGB's testbeds (see the module docs)."""

    policies: tuple[str, ...] = ("rgb", "bordir")
    default_policy = "bordir"
    """On territorial data; an RGB file's runs default to ``rgb`` (its own scoring)."""

    def __repr__(self) -> str:
        return "RGBEngine()"

    def plan(self, cfg: Any) -> tuple[list[Instance], list[dict[str, str]], dict[str, Any]]:
        from .plan import plan

        return plan(cfg)

    def request(
        self,
        instance: Instance,
        *,
        model: str,
        temperature: float = DEFAULT_TEMPERATURE,
        seed: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> Any:
        from .prompt import request_for

        return request_for(
            instance, model=model, temperature=temperature, seed=seed, max_tokens=max_tokens
        )

    def instructions(self, instances: Sequence[Instance]) -> dict[str, str]:
        from .instructions import get_instruction

        langs = sorted({i.question.lang for i in instances})
        return {lang: get_instruction(lang).source for lang in langs}

    def items(
        self, instances: Sequence[Instance], results: Sequence[Mapping[str, Any]], judged: Any
    ) -> pd.DataFrame:
        from .items import score_items

        return score_items(instances, results, judged)

    def summarize(
        self, items: pd.DataFrame, *, n_resamples: int, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        from .metrics import summarize

        return summarize(items, n_resamples=n_resamples, seed=None, fields=fields)

    def comparisons(
        self, items: pd.DataFrame, policy: str, *, n_resamples: int, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        from .comparisons import comparisons

        return comparisons(items, policy, n_resamples=n_resamples, fields=fields)

    def write(
        self, out: Path, instances: Sequence[Instance], items: pd.DataFrame, cfg: Any
    ) -> None:
        """RGB-format prediction files, one per model × language × setting."""
        from .items import rgb_records
        from .runner import model_dir_name

        for (model, lang, setting), g in items.groupby(["model", "lang", "setting"]):
            path = Path(out) / "predictions" / model_dir_name(model) / f"{lang}.{setting}.jsonl"
            atomic_write_text(
                path,
                "".join(
                    json.dumps(r, ensure_ascii=False) + "\n" for r in rgb_records(instances, g)
                ),
            )

    def plot(self, groups: Sequence[Mapping[str, Any]], policy: str, out_dir: Any) -> Any:
        """Accuracy against the noise ratio: ``(png, svg, caption, alt text)``, or None (one ratio)."""
        from .plots import PLOT_NAME, write_noise_plot

        drawn = write_noise_plot(groups, policy, out_dir)
        if drawn is None:
            return None
        caption = (
            f"Accuracy ({policy} policy) against the noise ratio per language and model; dashed: "
            f"cross-lingual noise (also plots/{PLOT_NAME}.svg)."
        )
        return (*drawn, caption, "accuracy against noise ratio")


ENGINE = RGBEngine()
"""RGB's engine (:data:`bordir.testbeds.testbed.ENGINES` ``rgb``)."""
