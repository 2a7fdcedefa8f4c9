"""The paired comparisons a testbed run reports, Holm-corrected across all of them.

On the questions (clusters) both sides have, with
:func:`~bordir.testbeds.metrics.paired_rate` (paired cluster bootstrap of the
difference, sign-flip permutation test, p = (c + 1) / (n + 1)):

* every noise rate against the lowest one (same model, language, setting): accuracy;
* same-language against cross-lingual noise at each rate: accuracy
  (``rejection`` vs ``rejection-xling``: rejection rate);
* the pairs of settings a testbed compares (:attr:`~bordir.testbeds.testbed.Testbed.compare`;
  counterfactual documents against no documents): accuracy;
* every pair of models on the same language, setting and rate: the testbed's
  headline metric (:attr:`~bordir.testbeds.testbed.Testbed.headline`: rejection
  rate for ``rejection``, accuracy otherwise).

Examples:
    >>> import pandas as pd
    >>> rows = [{"model": "m", "lang": "en", "testbed": "noise", "setting": "noise", "noise_rate": r,
    ...          "cluster": c, "failed": False, "n_pos": 1, "rgb_correct": ok, "rgb_rejected": False,
    ...          "rgb_fact": False, "rgb_labels": "[1]"} for r, oks in ((0.0, [1, 1, 1, 1]), (0.8, [0, 1, 0, 0]))
    ...         for c, ok in zip("abcd", map(bool, oks))]
    >>> [c["a"] + " vs " + c["b"] for c in comparisons(pd.DataFrame(rows), "rgb", n_resamples=99)]
    ['r=0.8 vs r=0']
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..stats import holm_adjust
from .metrics import PairedRate, paired_rate
from .testbed import get_testbed

__all__ = ["comparisons", "PairedComparisons"]


class PairedComparisons:
    """Paired comparisons gathered one by one (:meth:`add`) and Holm-adjusted together (:meth:`adjusted`).

    Args:
        policy: the scoring policy whose labels are compared.
        n_resamples: resamples of every :func:`~bordir.testbeds.metrics.paired_rate`.
        seed: its bootstrap seed (resolved by :func:`~bordir.stats.resolve_seed`).
        fields: signature fields of every comparison (each :meth:`add` adds its own).
    """

    def __init__(
        self,
        policy: str,
        *,
        n_resamples: int,
        seed: int | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> None:
        self.policy = policy
        self.n_resamples = n_resamples
        self.seed = seed
        self.fields = dict(fields or {})
        self.found: list[PairedRate] = []

    def add(
        self, a: pd.DataFrame, b: pd.DataFrame, metric: str, la: str, lb: str, **f: Any
    ) -> None:
        """Compare ``a`` (labelled ``la``) with ``b`` (``lb``) on ``metric``; kept if they share clusters."""
        c = paired_rate(
            a,
            b,
            metric,
            self.policy,
            label_a=la,
            label_b=lb,
            n_resamples=self.n_resamples,
            seed=self.seed,
            fields={**self.fields, **f},
        )
        if c is not None:
            self.found.append(c)

    def adjusted(self) -> list[dict[str, Any]]:
        """Every comparison added, as dicts with ``p_holm`` (Holm across all of them)."""
        return [c.as_dict() for c in holm_adjust(self.found)]


def comparisons(
    items: pd.DataFrame,
    policy: str,
    *,
    n_resamples: int = 2000,
    seed: int | None = None,
    fields: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The comparisons of the module docs, as dicts (with ``p_holm`` and signatures)."""
    if items.empty:
        return []
    found = PairedComparisons(policy, n_resamples=n_resamples, seed=seed, fields=fields)
    add = found.add

    for (model, lang, testbed, setting), g in items.groupby(
        ["model", "lang", "testbed", "setting"]
    ):
        rates = sorted(g["noise_rate"].unique())
        for r in rates[1:]:
            add(
                g[g["noise_rate"] == r],
                g[g["noise_rate"] == rates[0]],
                "accuracy",
                f"r={r:g}",
                f"r={rates[0]:g}",
                gen=model,
                lang=lang,
                testbed=testbed,
                setting=setting,
            )
    for (model, lang, testbed, r), g in items.groupby(["model", "lang", "testbed", "noise_rate"]):
        for setting in g["setting"].unique():
            if setting + "-xling" in set(g["setting"]):
                metric = get_testbed(testbed).headline
                add(
                    g[g["setting"] == setting],
                    g[g["setting"] == setting + "-xling"],
                    metric,
                    setting,
                    setting + "-xling",
                    gen=model,
                    lang=lang,
                    testbed=testbed,
                    r=f"{r:g}",
                )
    for testbed in items["testbed"].unique():
        pairs = get_testbed(testbed).compare
        if not pairs:
            continue
        for (model, lang), g in items[items["testbed"] == testbed].groupby(["model", "lang"]):
            for sa, sb in pairs:
                add(
                    g[g["setting"] == sa],
                    g[g["setting"] == sb],
                    "accuracy",
                    sa,
                    sb,
                    gen=model,
                    lang=lang,
                    testbed=testbed,
                )
    for (lang, testbed, setting, r), g in items.groupby(
        ["lang", "testbed", "setting", "noise_rate"]
    ):
        metric = get_testbed(testbed).headline
        for ma, mb in itertools.combinations(sorted(g["model"].unique()), 2):
            add(
                g[g["model"] == ma],
                g[g["model"] == mb],
                metric,
                ma,
                mb,
                lang=lang,
                testbed=testbed,
                setting=setting,
                r=f"{r:g}",
            )
    return found.adjusted()
