"""Comparisons of failures: per configuration with intervals, paired between configurations, strategy vs baseline.

The per-item table (:func:`verdict_table`) has one row per (config, test):
the final verdict (:func:`~bordir.testgen.reliability.final_verdicts`), the
test's language, strategy and negativity, whether a source chunk was retrieved,
whether the answer is a refusal, the primary judge's ratings, and a **failure
category**. Every aggregate is a pure function of that table:

* :func:`failure_rates` — failures / decided tests (``pass`` + ``fail``) per
  group (config; config × language; config × strategy …) with the interval every rate bordir
  prints (:func:`bordir.stats.rate_interval`, continuity-corrected Wilson; ``too_few`` below
  :data:`bordir.stats.MIN_N` decided tests), or Wilson / Clopper–Pearson on request;
  ``tie``/``unparsed``/``failed``/``no_answer``/``echo`` are
  counted in their own columns and never enter the rate as passes.
* :func:`paired_configs` — every pair of configurations on the **same tests**
  (both decided): the discordant counts and the exact McNemar p-value, overall
  and per language.
* :func:`strategy_vs_baseline` — two suites (strategies vs the baseline
  generator) run on the same configurations: per configuration (and language)
  both failure *rates* with their counts, the rate difference with its interval
  and the test that fits the design (:mod:`bordir.stats.rate_difference`): two
  suites hold different tests, so the rates are unpaired (Newcombe's hybrid
  score interval, Fisher's exact test); only when the same tests are run on
  both sides (``paired=True``) are they paired (Newcombe's paired interval, the
  exact McNemar test). Across configurations: on how many the strategy's
  failure *rate* is higher, lower or equal (descriptive: every configuration answers the same two
  suites, so they are not replicates), and one test whose unit is the **test**
  (:func:`suite_permutation`): each test's failure rate over the configurations, the difference of
  the two suites' mean per-test rates, and its permutation p-value (suite labels shuffled over
  tests; with ``paired``, signs flipped per test). A sign test over configurations treated one
  pair of suites as 24 replicates (p < 0.05 in a quarter of pairs of suites drawn from one
  generator); the permutation holds its level (``benchmarks/testgen_suite_test.py``). Failure
  counts are never compared directly: 40 failures of 200 tests is a lower rate than 30 of 100.

**Failure categories** (from the test, the retrieval and the judge's ratings
and rationale; ``other`` when none applies):

* ``unsupported_answer`` — a negative test answered instead of refused, or
  faithfulness False, or a rationale saying the answer is not supported;
* ``wrong_retrieval`` — a positive test whose source chunk was not retrieved;
* ``misread_complex_passage`` — source retrieved, completeness not True, a
  ``complex`` test;
* ``incomplete_use_of_context`` — source retrieved, completeness not True (or a
  refusal although the answer was retrieved).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from .._version import __version__
from ..signature import Signature
from ..stats import (
    MIN_N,
    ci_name,
    flip_matrix,
    mcnemar_exact,
    paired_rate_difference,
    permutation_pvalue,
    proportion_ci,
    rate_difference,
    resolve_seed,
    sign_flip_pvalue,
)

__all__ = [
    "CATEGORIES",
    "categorize",
    "verdict_table",
    "failure_rates",
    "paired_configs",
    "strategy_vs_baseline",
    "suite_permutation",
]

CATEGORIES = (
    "unsupported_answer",
    "wrong_retrieval",
    "misread_complex_passage",
    "incomplete_use_of_context",
    "other",
)
_UNSUPPORTED = re.compile(
    r"not supported|unsupported|hallucinat|not (?:in|mentioned in|found in) the (?:documents?|"
    r"context)|fabricat|invent",
    re.I,
)
OUTCOME_COLUMNS = ("tie", "unparsed", "failed", "no_answer", "echo")


def categorize(row: dict[str, Any]) -> str | None:
    """The failure category of a failed row (None for rows that did not fail); see module docs.

    >>> categorize({"verdict": "fail", "negative": True, "refusal": False})
    'unsupported_answer'
    >>> categorize({"verdict": "fail", "negative": False, "refusal": False, "source_retrieved": False,
    ...             "mode": "qlang"})
    'wrong_retrieval'
    """
    if row.get("verdict") != "fail":
        return None
    if row.get("negative"):
        return "unsupported_answer" if not row.get("refusal") else "other"
    if row.get("faithfulness") == "False" or _UNSUPPORTED.search(str(row.get("rationale") or "")):
        return "unsupported_answer"
    if not row.get("source_retrieved") and row.get("mode") != "no_ir":
        return "wrong_retrieval"
    if row.get("refusal"):
        return "incomplete_use_of_context"
    if row.get("completeness") in ("False", "Partially"):
        return (
            "misread_complex_passage"
            if row.get("strategy") == "complex"
            else "incomplete_use_of_context"
        )
    return "other"


def verdict_table(
    final: dict[tuple[str, str], dict[str, Any]],
    answers: Sequence[dict[str, Any]],
    judgments: Sequence[dict[str, Any]],
    *,
    prompt_lang: str | None = None,
) -> pd.DataFrame:
    """The per-item table (see module docs)."""
    lang = prompt_lang or (judgments[0]["prompt_lang"] if judgments else "en")
    first: dict[tuple[str, str], dict[str, Any]] = {}
    for r in judgments:
        if r["prompt_lang"] == lang and r["outcome"] == "judged":
            first.setdefault((r["config"], r["test_id"]), r)
    rows = []
    for a in answers:
        unit = (a["config"], a["test_id"])
        f = final.get(unit, {"verdict": "no_answer", "votes": {}})
        j = first.get(unit, {})
        mode = next(
            (p.split("=", 1)[1] for p in a["config"].split(",") if p.startswith("mode=")), ""
        )
        row = {
            "config": a["config"],
            "mode": mode,
            "test_id": a["test_id"],
            "lang": a["lang"],
            "strategy": a["strategy"],
            "negative": bool(a.get("negative")),
            "source_retrieved": bool(a.get("source_retrieved")),
            "refusal": bool(a.get("refusal")),
            "verdict": f["verdict"],
            "mean": j.get("mean"),
            **{
                c: j.get(c)
                for c in ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")
            },
            "keyword_match_computed": j.get("keyword_match_computed"),
            "rationale": j.get("rationale", ""),
        }
        row["category"] = categorize(row)
        rows.append(row)
    return pd.DataFrame(rows)


def failure_rates(
    table: pd.DataFrame,
    *,
    by: Sequence[str] = ("config",),
    method: str = "wilsoncc",
    conf: float = 0.95,
    judge: str = "",
) -> pd.DataFrame:
    """Failures / decided per group, with intervals and outcome counts (see module docs)."""
    out = []
    for key, g in table.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        fails = int((g["verdict"] == "fail").sum())
        decided = int(g["verdict"].isin(["pass", "fail"]).sum())
        lo, hi = proportion_ci(fails, decided, method=method, conf=conf)
        fields = dict(zip(by, key))
        sig = Signature.build(
            "testgen_fail_rate",
            **{k: v for k, v in fields.items() if k != "config"},
            config=fields.get("config"),
            judge=judge or None,
            ci=ci_name(method, conf),
            n=decided,
            version=__version__,
        )
        cats = g["category"].value_counts().to_dict()
        out.append(
            {
                **fields,
                "tests": len(g),
                "decided": decided,
                "fails": fails,
                "fail_rate": fails / decided if decided else None,
                "ci_low": lo,
                "ci_high": hi,
                "too_few": decided < MIN_N,
                **{o: int((g["verdict"] == o).sum()) for o in OUTCOME_COLUMNS},
                **{f"cat_{c}": int(cats.get(c, 0)) for c in CATEGORIES},
                "signature": str(sig),
            }
        )
    return pd.DataFrame(out)


def _pair(g1: pd.DataFrame, g2: pd.DataFrame) -> dict[str, Any]:
    m = g1[["test_id", "verdict"]].merge(
        g2[["test_id", "verdict"]], on="test_id", suffixes=("_a", "_b")
    )
    m = m[m["verdict_a"].isin(["pass", "fail"]) & m["verdict_b"].isin(["pass", "fail"])]
    b = int(((m["verdict_a"] == "fail") & (m["verdict_b"] == "pass")).sum())
    c = int(((m["verdict_a"] == "pass") & (m["verdict_b"] == "fail")).sum())
    return {
        "paired_tests": len(m),
        "fails_a": int((m["verdict_a"] == "fail").sum()),
        "fails_b": int((m["verdict_b"] == "fail").sum()),
        "only_a_fails": b,
        "only_b_fails": c,
        "p_mcnemar": mcnemar_exact(b=b, c=c),
    }


def paired_configs(table: pd.DataFrame, *, per_language: bool = True) -> pd.DataFrame:
    """Exact McNemar tests between every pair of configurations on the same tests (overall and per language)."""
    configs = sorted(table["config"].unique())
    out = []
    for a, b in combinations(configs, 2):
        ga, gb = table[table["config"] == a], table[table["config"] == b]
        groups = [("all", ga, gb)]
        if per_language:
            groups += [
                (lang, ga[ga["lang"] == lang], gb[gb["lang"] == lang])
                for lang in sorted(ga["lang"].unique())
            ]
        for lang, x, y in groups:
            sig = Signature.build(
                "testgen_paired", test="mcnemar_exact", lang=lang, version=__version__
            )
            out.append(
                {"config_a": a, "config_b": b, "lang": lang, **_pair(x, y), "signature": str(sig)}
            )
    return pd.DataFrame(out)


def _decided(g: pd.DataFrame) -> tuple[int, int]:
    """(failures, decided tests) of a group."""
    return int((g["verdict"] == "fail").sum()), int(g["verdict"].isin(["pass", "fail"]).sum())


def _paired_table(x: pd.DataFrame, y: pd.DataFrame) -> tuple[int, int, int, int]:
    """(both fail, only x fails, only y fails, neither) over the tests decided on both sides."""
    m = x[["test_id", "verdict"]].merge(
        y[["test_id", "verdict"]], on="test_id", suffixes=("_x", "_y")
    )
    m = m[m["verdict_x"].isin(["pass", "fail"]) & m["verdict_y"].isin(["pass", "fail"])]
    fx, fy = m["verdict_x"] == "fail", m["verdict_y"] == "fail"
    return (
        int((fx & fy).sum()),
        int((fx & ~fy).sum()),
        int((~fx & fy).sum()),
        int((~fx & ~fy).sum()),
    )


def _per_test(table: pd.DataFrame, configs: Sequence[str]) -> pd.Series:
    """Each test's failure rate over the decided answers of ``configs`` (tests never decided left out)."""
    t = table[table["config"].isin(configs) & table["verdict"].isin(["pass", "fail"])]
    g = t.assign(fail=(t["verdict"] == "fail").astype(float)).groupby("test_id")["fail"]
    return g.mean()


def suite_permutation(
    strategy: pd.DataFrame,
    baseline: pd.DataFrame,
    *,
    paired: bool = False,
    n_permutations: int = 9999,
    seed: int | None = None,
) -> dict[str, Any]:
    """Strategy vs baseline with the test as the unit: a permutation test over tests.

    Each test's failure rate over the configurations both suites ran (its decided answers) is
    one observation. The statistic is the strategy's mean per-test rate minus the baseline's;
    under the null that both suites come from one generator their tests are exchangeable, so the
    suite labels are shuffled over tests (``paired``: the same tests on both sides, the signs of
    the per-test differences flipped) and ``p = (c + 1)/(n + 1)``, two-sided.

    Example:
        >>> rows = lambda v: pd.DataFrame({"config": ["c"] * len(v), "test_id": [f"t{i}" for i in range(len(v))],
        ...                                "verdict": v})
        >>> r = suite_permutation(rows(["fail"] * 12), rows(["pass"] * 12), seed=1, n_permutations=999)
        >>> r["diff"], r["p_value"] == 1 / 1000
        (1.0, True)
    """
    configs = sorted(set(strategy["config"]) & set(baseline["config"]))
    a, b = _per_test(strategy, configs), _per_test(baseline, configs)
    rng = np.random.default_rng(resolve_seed(seed))
    if paired:
        common = a.index.intersection(b.index)
        d = (a[common] - b[common]).to_numpy(float)
        diff = float(d.mean()) if len(d) else None
        p = sign_flip_pvalue(d, flip_matrix(n_permutations, len(d), rng)) if len(d) else 1.0
        n_a = n_b = len(d)
    else:
        x = np.concatenate([a.to_numpy(float), b.to_numpy(float)])
        n_a, n_b = len(a), len(b)
        diff = float(a.mean() - b.mean()) if n_a and n_b else None
        if diff is None:
            p = 1.0
        else:
            perm = np.argsort(rng.random((n_permutations, len(x))), axis=1)
            xs = x[perm]
            null = xs[:, :n_a].mean(axis=1) - xs[:, n_a:].mean(axis=1)
            p = permutation_pvalue(diff, null)
    return {
        "unit": "test",
        "test": "sign_flip_tests" if paired else "permutation_tests",
        "statistic": "mean per-test failure rate (over the configurations), strategy − baseline",
        "diff": diff,
        "p_value": float(p),
        "n_tests_strategy": int(n_a),
        "n_tests_baseline": int(n_b),
        "n_configs": len(configs),
        "n_permutations": n_permutations,
        "seed": resolve_seed(seed),
    }


def strategy_vs_baseline(
    strategy: pd.DataFrame,
    baseline: pd.DataFrame,
    *,
    per_language: bool = True,
    paired: bool = False,
    conf: float = 0.95,
    n_permutations: int = 9999,
    seed: int | None = None,
) -> dict[str, Any]:
    """Strategy suite vs baseline suite on the same configurations, by failure rate (see module docs).

    Args:
        strategy: the verdict table (:func:`verdict_table`) of the strategy suite.
        baseline: the verdict table of the baseline suite.
        per_language: also one row per (configuration, language).
        paired: the two tables hold the **same tests** (a ``test_id`` names the same test on both
            sides): compare on the tests decided on both sides, Newcombe's paired interval and the
            exact McNemar test. Default: two suites, different tests: unpaired rates, Newcombe's
            hybrid score interval and Fisher's exact test.
        conf: level of the rate-difference interval.
        n_permutations: permutations of the test-level test across configurations.
        seed: its seed (default ``$BORDIR_SEED`` or 12345).

    Returns:
        ``per_config`` (one row per configuration and language: the counts, both rates,
        ``rate_diff`` = strategy − baseline with ``diff_low`` / ``diff_high``, ``interval``,
        ``test`` and ``p_value``), ``higher_rate`` / ``lower_rate`` / ``same_rate`` (configurations
        where the strategy's failure rate is higher, lower, equal: descriptive, no p-value: the
        configurations answer the same two suites), ``across`` (:func:`suite_permutation`: the
        test-level permutation test across configurations; ``p_value``), ``test`` and a ``signature``.
    """
    rows = []
    higher = lower = same = 0
    for cfg in sorted(set(strategy["config"]) & set(baseline["config"])):
        s, b = strategy[strategy["config"] == cfg], baseline[baseline["config"] == cfg]
        groups = [("all", s, b)]
        if per_language:
            groups += [
                (l, s[s["lang"] == l], b[b["lang"] == l])
                for l in sorted(set(s["lang"]) & set(b["lang"]))
            ]
        for lang, x, y in groups:
            if paired:
                d = paired_rate_difference(*_paired_table(x, y), conf=conf)
            else:
                d = rate_difference(*_decided(x), *_decided(y), conf=conf)
            rows.append(
                {
                    "config": cfg,
                    "lang": lang,
                    "strategy_fails": d.k1,
                    "strategy_decided": d.n1,
                    "baseline_fails": d.k2,
                    "baseline_decided": d.n2,
                    "strategy_rate": d.rate1,
                    "baseline_rate": d.rate2,
                    "rate_diff": d.diff,
                    "diff_low": d.low,
                    "diff_high": d.high,
                    "interval": d.interval,
                    "test": d.test,
                    "p_value": d.p_value,
                }
            )
            if lang == "all" and d.diff is not None:
                higher, lower, same = (
                    higher + (d.diff > 0),
                    lower + (d.diff < 0),
                    same + (d.diff == 0),
                )
    test = "mcnemar_exact" if paired else "fisher_exact"
    across = suite_permutation(
        strategy, baseline, paired=paired, n_permutations=n_permutations, seed=seed
    )
    sig = Signature.build(
        "testgen_strategy_vs_baseline",
        test=f"{test}+{across['test']}",
        ci=f"{'newcombe-paired' if paired else 'newcombe'}{round(conf * 100):d}",
        perm=n_permutations,
        seed=across["seed"],
        version=__version__,
    )
    return {
        "per_config": pd.DataFrame(rows),
        "higher_rate": higher,
        "lower_rate": lower,
        "same_rate": same,
        "across": across,
        "test": test,
        "paired": paired,
        "signature": str(sig),
    }
