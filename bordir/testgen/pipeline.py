"""Judging a ``testrun`` directory end to end: judgments, verdicts, rates, agreement, invariance, precision.

:func:`judge_run` reads ``answers.jsonl`` / ``run.json`` and the suite they
answer, judges every answer (:func:`~bordir.testgen.judge.judge_answers`) and
writes, next to the answers:

* ``judgments.jsonl`` — one row per config × test × judge × prompt language × repeat;
* ``verdicts.csv`` — the per-item table (:func:`~bordir.testgen.compare.verdict_table`);
* ``fail_rates.csv`` — per config, config × language, config × strategy, with intervals;
* ``paired.csv`` — exact McNemar tests between configurations (when there are several);
* ``summary.json`` — outcome counts, the passes flagged as a possible prompt
  injection (``flagged_passes``), the rates, repeat and judge agreement,
  invariance (when several prompt languages are given), oracle precision (when
  label judges are given), each with its signature.

:func:`compare_to_baseline` compares two judged directories (a strategy suite
and a baseline suite run on the same configurations).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._io.atomic import atomic_write_text
from .._io.json_write import jsonable
from .._version import __version__
from ..errors import DataError
from ..signature import Signature

if TYPE_CHECKING:
    from .testcase import TestSuite

__all__ = ["judge_run", "compare_to_baseline"]


def _suite_for(run_dir: Path, meta: dict[str, Any], suite_path: str | Path | None) -> TestSuite:
    from .testcase import read_suite

    path = suite_path or meta.get("suite")
    if not path:
        raise DataError(
            "run.json names no suite; pass the tests file (--suite tests.jsonl)",
            path=run_dir / "run.json",
        )
    return read_suite(path)


def _judge_name(judge: Any) -> str:
    return judge if isinstance(judge, str) else str(getattr(judge, "name", judge))


def _refuse_another_judge(
    d: Path,
    judges: Sequence[Any],
    prompt_langs: Sequence[str],
    repeats: int,
    temperature: float | None,
    keyword_source: str,
) -> None:
    """Refuse to overwrite the verdicts an earlier, different judge setting left in ``d``."""
    path = d / "summary.json"
    if not path.is_file():
        return
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not isinstance(earlier, dict):
        return
    sig = Signature.parse(str(earlier.get("signature") or "testgen_judge"))
    now: dict[str, Any] = {
        "judges": sorted(_judge_name(j) for j in judges),
        "prompt_langs": list(prompt_langs),
        "repeats": repeats,
        "kw": keyword_source,
    }
    before: dict[str, Any] = {
        "judges": sorted(str(j) for j in earlier.get("judges") or []),
        "prompt_langs": [str(x) for x in earlier.get("prompt_langs") or []],
        "repeats": earlier.get("repeats"),
        "kw": sig.get("kw", keyword_source),
    }
    temp_before = sig.get("temp")
    same_temp = temperature is None or temp_before is None or float(temp_before) == temperature
    if now == before and same_temp:
        return  # the same judge again: its files are refreshed (answers served from the cache)
    from ..errors import ConfigError

    raise ConfigError(
        f"{d} already holds the verdicts of judge(s) {', '.join(before['judges']) or '?'} "
        f"(prompt languages {', '.join(before['prompt_langs']) or '?'}, {before['repeats']} "
        f"repeat(s); summary.json); judging with {', '.join(now['judges'])} would replace "
        "judgments.jsonl, verdicts.csv, fail_rates.csv and summary.json: copy the directory "
        f"first (cp -r {d} {d}-2) or pass --replace to overwrite them"
    )


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
    ci: str = "wilsoncc",
    suite_path: str | Path | None = None,
    cache: Any = None,
    concurrency: int | None = None,
    progress: bool = False,
    replace: bool = False,
    timeout: float | None = None,
    max_retries: int | None = None,
    calibration: Any = None,
    correct: bool = False,
) -> dict[str, Any]:
    """Judge a testrun directory and write the files listed in the module docs; return the summary.

    The summary's ``judge_calibration`` gives per (config, language) the unsupported rate beside
    the judge's calibration there (:func:`~bordir.testgen.calibration.judge_calibration`):
    with ``calibration`` (a :class:`~bordir.judging.calibration.Calibration`) its balanced
    accuracy, ``uncalibrated`` marks and, with ``correct``, the corrected rate; without, "judge
    not calibrated in this language".

    The summary's ``calls`` counts the judge calls asked (``requests``) and those that failed
    (``failed``, with the ``first`` error), and ``decided`` the judgments read (outcome
    ``judged``); ``bordir judge`` exits 1 when a call failed and 2 when nothing was decided.

    Raises:
        ConfigError: the directory already holds the verdicts of another judge setting (judges,
            prompt languages, repeats, temperature, keyword source) and ``replace`` is False: an
            earlier judge's files are never replaced silently; or ``calibration`` is not of this
            judge, prompt and setting (checked before any call).
        DataError: ``calibration`` lacks a language of the run.
    """
    from ..generation.backend import get_backend
    from ..runrecord.record import RECORD_FILE
    from ..runrecord.writer import RecordWriter
    from .answers import read_answers
    from .calibration import check_calibration

    d = Path(run_dir)
    answers, meta = read_answers(d)
    if not replace:
        _refuse_another_judge(d, judges, prompt_langs, repeats, temperature, keyword_source)
    suite = _suite_for(d, meta, suite_path)
    if calibration is not None:  # refused before anything is billed
        tests_by_id = {t.test_id: t for t in suite.tests}
        check_calibration(
            calibration,
            judges=[_judge_name(j) for j in judges],
            prompt_lang=prompt_langs[0],
            repeats=repeats,
            temperature=temperature,
            langs={tests_by_id[a["test_id"]].lang for a in answers if a["test_id"] in tests_by_id},
        )
    for j in (*judges, *label_judges):  # a missing key fails here, before the directory changes
        if isinstance(j, str):
            get_backend(j)
    with RecordWriter(d, "testrun") as w:
        if not (d / RECORD_FILE).exists():  # answers written by hand or by another tool: adopted
            w.start({"adopted": True, "suite": meta.get("suite")})
            w.finish(files=("answers.jsonl", "run.json"))
        w.start_stage(
            "judge",
            {
                "judges": [_judge_name(j) for j in judges],
                "prompt_langs": list(prompt_langs),
                "repeats": repeats,
                "temperature": temperature,
                "seed": seed,
                "label_judges": [_judge_name(j) for j in label_judges],
                "keyword_source": keyword_source,
                "ci": ci,
            },
        )
        spec = JudgeSpec(
            judges=tuple(judges), prompt_langs=tuple(prompt_langs), repeats=repeats,
            label_judges=tuple(label_judges), precision_n=precision_n,
            precision_seed=precision_seed, ci=ci, calibration=calibration, correct=correct,
            calls=dict(temperature=temperature, seed=seed, cache=cache, concurrency=concurrency,
                       progress=progress, keyword_source=keyword_source, timeout=timeout,
                       max_retries=max_retries),
        )  # fmt: skip
        summary = _judge(d, answers, meta, suite, spec)
        w.finish(
            files=JUDGE_FILES,
            signature=summary["signature"],
            counts={k: v for k, v in summary["calls"].items() if k != "first"},
        )
    return summary


JUDGE_FILES = ("judgments.jsonl", "verdicts.csv", "fail_rates.csv", "paired.csv", "summary.json")
"""What ``bordir judge`` writes into a test run's directory (its stage of the run's record)."""


@dataclass(frozen=True)
class JudgeSpec:
    """What :func:`judge_run` asks of the judges, handed whole to the step that judges.

    ``calls`` are the keywords every judge call takes (:func:`~bordir.testgen.judge.judge_answers`:
    temperature, seed, cache, concurrency, progress, keyword source, timeout, retries).
    """

    judges: tuple[Any, ...]
    prompt_langs: tuple[str, ...]
    repeats: int
    label_judges: tuple[Any, ...]
    precision_n: int | None
    precision_seed: int
    ci: str
    calibration: Any
    correct: bool
    calls: dict[str, Any] = field(default_factory=dict)


def _judge(
    d: Path, answers: list[dict[str, Any]], meta: dict[str, Any], suite: TestSuite, spec: JudgeSpec
) -> dict[str, Any]:
    """Judge every answer and write :data:`JUDGE_FILES`; returns the summary."""
    from .calibration import judge_calibration
    from .compare import failure_rates, paired_configs, verdict_table
    from .judge import judge_answers
    from .precision import label_by_majority, oracle_precision, sample_failures
    from .reliability import final_verdicts, invariance, judge_agreement, repeat_agreement

    judges, prompt_langs, repeats, ci = spec.judges, spec.prompt_langs, spec.repeats, spec.ci
    keyword_source = spec.calls["keyword_source"]
    judgments = judge_answers(
        answers, suite, judges=judges, prompt_langs=prompt_langs, repeats=repeats, **spec.calls
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
        "flagged_passes": sum(bool(r.get("flag")) for r in judgments),
        "calls": _calls(judgments),
        "decided": sum(r["outcome"] == "judged" for r in judgments),
        "fail_rates": failure_rates(table, by=("config",), method=ci, judge=judge_names).to_dict(
            "records"
        ),
        "keyword_match_agreement": _keyword_agreement(judgments),
        "repeat_agreement": repeat_agreement(judgments) if repeats > 1 else [],
        "judge_agreement": judge_agreement(judgments, prompt_lang=primary)
        if len(judges) > 1
        else None,
    }
    summary["judge_calibration"] = judge_calibration(
        judgments,
        spec.calibration,
        judges=[_judge_name(j) for j in judges],
        prompt_lang=primary,
        correct=spec.correct,
    )
    if table["config"].nunique() > 1:
        paired = paired_configs(table)
        _write_csv(paired, d / "paired.csv")
        summary["paired"] = paired[paired["lang"] == "all"].to_dict("records")
    if len(prompt_langs) > 1:
        summary["invariance"] = invariance(judgments)
    if spec.label_judges:
        failed = [u for u, f in final.items() if f["verdict"] == "fail"]
        sample = sample_failures(failed, spec.precision_n, seed=spec.precision_seed)
        sampled = {u for u in sample}
        rows = [a for a in answers if (a["config"], a["test_id"]) in sampled]
        label_rows = judge_answers(
            rows, suite, judges=spec.label_judges, prompt_langs=(primary,), repeats=1, **spec.calls
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


def _calls(judgments: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Judge calls asked (an answer that failed in testrun, or an echo, asks none) and failed, with the first error."""
    asked = [r for r in judgments if r["outcome"] not in ("no_answer", "echo")]
    failed = [r for r in asked if r["outcome"] == "failed"]
    return {
        "requests": len(asked),
        "failed": len(failed),
        "unparsed": sum(r["outcome"] == "unparsed" for r in asked),
        "first": failed[0]["note"] if failed else None,
    }


def _keyword_agreement(judgments: Sequence[dict[str, Any]]) -> dict[str, Any]:
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
    res["per_config"] = jsonable(
        res["per_config"].to_dict("records")
    )  # NaN (an empty side) as None
    return res
