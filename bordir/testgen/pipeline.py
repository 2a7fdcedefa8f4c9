"""Judging a ``testrun`` directory end to end: judgments, verdicts, rates, agreement, invariance, precision.

:func:`judge_run` reads ``answers.jsonl`` / ``run.json`` and the suite they
answer, judges every answer (:func:`~bordir.testgen.judge.judge_answers`) and
writes, next to the answers:

* ``judgments.jsonl`` — one row per config × test × judge × prompt language × repeat;
* ``verdicts.csv`` — the per-item table (:func:`~bordir.testgen.compare.verdict_table`);
* ``fail_rates.csv`` — per config, config × language, config × strategy, with intervals;
* ``paired.csv`` — exact McNemar tests between configurations (when there are several);
* ``summary.json`` — outcome counts, the rates, repeat and judge agreement,
  invariance (when several prompt languages are given), oracle precision (when
  label judges are given), each with its signature.

:func:`compare_to_baseline` compares two judged directories (a strategy suite
and a baseline suite run on the same configurations).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._atomic import atomic_write_text
from .._json import jsonable
from .._version import __version__
from ..errors import DataError
from ..signature import Signature

__all__ = ["judge_run", "compare_to_baseline"]


def _suite_for(run_dir: Path, meta: dict, suite_path: str | Path | None):
    from .testcase import read_suite

    path = suite_path or meta.get("suite")
    if not path:
        raise DataError(
            "run.json names no suite; pass the tests file (--suite tests.jsonl)",
            path=run_dir / "run.json",
        )
    return read_suite(path)


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    atomic_write_text(path, frame.to_csv(index=False))


def judge_run(
    run_dir: str | Path,
    *,
    judges: Sequence[Any],
    prompt_langs: Sequence[str] = ("en",),
    repeats: int = 1,
    temperature: float | None = None,
    seed: int = 0,
    label_judges: Sequence[Any] = (),
    precision_n: int | None = None,
    precision_seed: int = 12345,
    keyword_source: str = "judge",
    ci: str = "wilson",
    suite_path: str | Path | None = None,
    cache: Any = None,
    concurrency: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Judge a testrun directory and write the files listed in the module docs; return the summary."""
    from .compare import failure_rates, paired_configs, verdict_table
    from .execute import read_answers
    from .judge import judge_answers
    from .precision import label_by_majority, oracle_precision, sample_failures
    from .reliability import final_verdicts, invariance, judge_agreement, repeat_agreement

    d = Path(run_dir)
    answers, meta = read_answers(d)
    suite = _suite_for(d, meta, suite_path)
    common = dict(
        temperature=temperature,
        seed=seed,
        cache=cache,
        concurrency=concurrency,
        progress=progress,
        keyword_source=keyword_source,
    )
    judgments = judge_answers(
        answers, suite, judges=judges, prompt_langs=prompt_langs, repeats=repeats, **common
    )
    atomic_write_text(
        d / "judgments.jsonl",
        "".join(
            json.dumps(jsonable(r), ensure_ascii=False, sort_keys=True) + "\n" for r in judgments
        ),
    )
    primary = prompt_langs[0]
    final = final_verdicts(judgments, prompt_lang=primary)
    table = verdict_table(final, answers, judgments, prompt_lang=primary)
    _write_csv(table, d / "verdicts.csv")
    judge_names = "+".join(sorted({r["judge"] for r in judgments}))
    rates = pd.concat(
        [
            failure_rates(table, by=by, method=ci, judge=judge_names)
            for by in (("config",), ("config", "lang"), ("config", "strategy"))
        ],
        ignore_index=True,
    )
    _write_csv(rates, d / "fail_rates.csv")
    data = (
        Signature.parse(meta["suite_signature"]).get("data")
        if meta.get("suite_signature")
        else None
    )
    sig = Signature.build(
        "testgen_judge",
        judges=judge_names,
        prompt_langs="+".join(prompt_langs),
        repeats=repeats,
        temp=judgments[0]["temperature"] if judgments else None,
        kw=keyword_source,
        prompt=judgments[0]["prompt"] if judgments else None,
        data=data,
        version=__version__,
    )
    summary: dict[str, Any] = {
        "signature": str(sig),
        "run": str(d),
        "suite_signature": meta.get("suite_signature"),
        "judges": sorted({r["judge"] for r in judgments}),
        "prompt_langs": list(prompt_langs),
        "repeats": repeats,
        "outcomes": table["verdict"].value_counts().to_dict(),
        "judgment_outcomes": pd.Series([r["outcome"] for r in judgments]).value_counts().to_dict(),
        "fail_rates": failure_rates(table, by=("config",), method=ci, judge=judge_names).to_dict(
            "records"
        ),
        "keyword_match_agreement": _keyword_agreement(judgments),
        "repeat_agreement": repeat_agreement(judgments) if repeats > 1 else [],
        "judge_agreement": judge_agreement(judgments, prompt_lang=primary)
        if len(judges) > 1
        else None,
    }
    if table["config"].nunique() > 1:
        paired = paired_configs(table)
        _write_csv(paired, d / "paired.csv")
        summary["paired"] = paired[paired["lang"] == "all"].to_dict("records")
    if len(prompt_langs) > 1:
        summary["invariance"] = invariance(judgments)
    if label_judges:
        failed = [u for u, f in final.items() if f["verdict"] == "fail"]
        sample = sample_failures(failed, precision_n, seed=precision_seed)
        sampled = {u for u in sample}
        rows = [a for a in answers if (a["config"], a["test_id"]) in sampled]
        label_rows = judge_answers(
            rows, suite, judges=label_judges, prompt_langs=(primary,), repeats=1, **common
        )
        labels = label_by_majority(sample, label_rows, prompt_lang=primary)
        source = "majority:" + "+".join(sorted({r["judge"] for r in label_rows}))
        summary["oracle_precision"] = oracle_precision(
            labels, population=len(failed), method=ci, label_source=source, oracle=judge_names
        )
    atomic_write_text(
        d / "summary.json", json.dumps(jsonable(summary), ensure_ascii=False, indent=2) + "\n"
    )
    return summary


def _keyword_agreement(judgments: Sequence[dict]) -> dict[str, Any]:
    """How often the judge's keyword match equals the computed one (judged rows)."""
    pairs = [
        (r["keyword_match"], r["keyword_match_computed"])
        for r in judgments
        if r["outcome"] == "judged" and r.get("keyword_match_computed") is not None
    ]
    same = sum(1 for a, b in pairs if a == b)
    judges = "+".join(sorted({r["judge"] for r in judgments}))
    sig = Signature.build(
        "keyword_match_agreement",
        judges=judges or None,
        of="judge~computed",
        n=len(pairs),
        version=__version__,
    )
    return {
        "rows": len(pairs),
        "equal": same,
        "rate": same / len(pairs) if pairs else None,
        "signature": str(sig),
    }


def compare_to_baseline(strategy_dir: str | Path, baseline_dir: str | Path) -> dict[str, Any]:
    """Strategy suite vs baseline suite from two judged directories (their ``verdicts.csv``)."""
    from .compare import strategy_vs_baseline

    frames = []
    for d in (strategy_dir, baseline_dir):
        p = Path(d) / "verdicts.csv"
        if not p.is_file():
            raise DataError(
                "not found: judge the run first (`bordir judge DIR --judge MODEL`)", path=p
            )
        frames.append(pd.read_csv(p))
    res = strategy_vs_baseline(*frames)
    res["per_config"] = res["per_config"].to_dict("records")
    return res
