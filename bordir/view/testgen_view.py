"""The page data of a test run (``bordir testrun`` + ``bordir judge``): one row per (config, generated test).

Read through the files: the test run's ``run.json`` (the suite it ran, its
configs) and ``answers.jsonl``, the judge's ``judgments.jsonl`` (when judged),
and the suite the run names (``tests.jsonl``, and the chunk file its
``.meta.json`` names) for the question, the source chunk and the expected
answer (only while the suite is the one the run answered: its digest is in the run's record).
Each test shows its source chunk, the answer, the judge's five verdicts
(:data:`bordir.testgen.oracle.CRITERIA`) for every judge and repeat, and
whether the repeats disagree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import DataError
from .columns import coded
from .dispatch import ViewKind
from .files import read_json, read_jsonl
from .page import page_meta, table_columns
from .run_data import Facet

__all__ = ["testgen_page", "TESTGEN_FACETS", "disagreement"]

TESTGEN_FACETS: tuple[Facet, ...] = (
    Facet("config", "Config"),
    Facet("lang", "Language"),
    Facet("strategy", "Strategy"),
    Facet("negative", "Negative test"),
    Facet("verdict", "Verdict"),
    Facet("outcome", "Judge outcome"),
    Facet("disagree", "Repeats disagree"),
    Facet("source_retrieved", "Source chunk retrieved"),
)
_COLUMNS = table_columns(
    {
        "test_id": "test",
        "config": "config",
        "lang": "lang",
        "strategy": "strategy",
        "verdict": "verdict",
        "disagree": "repeats disagree",
        "answer": "answer",
    }
)
_HINT = "re-run `bordir testrun` (and `bordir judge`) into this directory, or restore the file"


def disagreement(judgments: list[dict[str, Any]]) -> str:
    """``yes`` when some judge's repeats of one test give different verdicts or ratings, ``no``, or ``one repeat``.

    >>> disagreement([{"judge": "j", "repeat": 0, "verdict": "pass"}, {"judge": "j", "repeat": 1, "verdict": "fail"}])
    'yes'
    >>> disagreement([{"judge": "j", "repeat": 0, "verdict": "pass"}])
    'one repeat'
    """
    from ..testgen.oracle import CRITERIA

    by_judge: dict[str, set[tuple[Any, ...]]] = {}
    repeats: dict[str, int] = {}
    for j in judgments:
        name = str(j.get("judge"))
        by_judge.setdefault(name, set()).add((j.get("verdict"), *(j.get(c) for c in CRITERIA)))
        repeats[name] = repeats.get(name, 0) + 1
    if not repeats or max(repeats.values()) < 2:
        return "one repeat"
    return "yes" if any(len(v) > 1 for v in by_judge.values()) else "no"


def _suite(
    info: dict[str, Any], out: Path
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], list[str]]:
    warnings: list[str] = []
    suite = info.get("suite")
    if not suite:
        return (
            {},
            {},
            [
                "run.json names no suite: questions, source chunks and expected answers are not shown"
            ],
        )
    p = Path(str(suite))
    if not p.is_absolute():
        p = out / p
    if not p.is_file():
        return (
            {},
            {},
            [
                f"{p}: the suite run.json names is not here: questions, source chunks and expected answers are "
                "not shown (restore the file)"
            ],
        )
    from ..runrecord.record import file_digest, read_record

    ran = read_record(out).inputs.get("suite")  # the digest of the suite the run answered
    if isinstance(ran, str) and file_digest(p) != ran:
        return (
            {},
            {},
            [
                f"{p}: the suite changed since the run answered it (it no longer hashes to "
                f"{ran[:19]}…): questions, source chunks and expected answers are not shown"
            ],
        )
    tests = {
        str(t.get("test_id")): t
        for t in read_jsonl(p, hint="restore the suite `bordir testgen` wrote")
    }
    meta_path = p.with_name(p.name + ".meta.json")
    chunks: dict[str, dict[str, Any]] = {}
    if meta_path.is_file():
        meta = read_json(meta_path, hint="restore the suite `bordir testgen` wrote")
        cf = meta.get("chunks_file") if isinstance(meta, dict) else None
        if cf and (p.parent / cf).is_file():
            chunks = {
                str(c.get("chunk_id")): c
                for c in read_jsonl(p.parent / cf, hint="restore the suite `bordir testgen` wrote")
            }
        elif cf:
            warnings.append(
                f"{p.parent / cf}: the suite's chunk file is not here: source chunks are not shown"
            )
    return tests, chunks, warnings


def testgen_page(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, rows)`` of a test run's page."""
    from ..testgen.oracle import CRITERIA

    out = Path(path)
    info = read_json(
        out / "run.json", hint="expected a directory written by `bordir testrun SUITE --out DIR`"
    )
    if not isinstance(info, dict) or "configs" not in info:
        raise DataError(
            "not a test-run record (expected 'suite' and 'configs', as `bordir testrun` writes)",
            path=out / "run.json",
            field="configs",
        )
    answers = read_jsonl(out / "answers.jsonl", hint=_HINT)
    judged = (out / "judgments.jsonl").exists()
    judgments = read_jsonl(out / "judgments.jsonl", hint=_HINT) if judged else []
    by_test: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for j in judgments:
        by_test.setdefault((str(j.get("config")), str(j.get("test_id"))), []).append(j)
    tests, chunks, warnings = _suite(info, out)
    if not judged:
        warnings.append("not judged yet (no judgments.jsonl): run `bordir judge DIR --judge MODEL`")
    cols: dict[str, list[Any]] = {k: [] for k in (
        "test_id", "config", "lang", "strategy", "negative", "verdict", "outcome", "disagree", "source_retrieved",
        "answer", "question", "chunk", "chunk_id", "expected", "judgments", "retrieved", "keywords",
    )}  # fmt: skip
    for a in answers:
        tid, cfg = str(a.get("test_id")), str(a.get("config"))
        js = sorted(
            by_test.get((cfg, tid), []),
            key=lambda j: (str(j.get("judge")), int(j.get("repeat") or 0)),
        )
        t = tests.get(tid, {})
        src = (t.get("source_chunk_ids") or [t.get("generated_from")])[0] if t else None
        chunk = chunks.get(str(src)) if src else None
        verdicts = (
            sorted(
                {"(no verdict)" if j.get("verdict") is None else str(j.get("verdict")) for j in js}
            )
            if js
            else ["(not judged)"]
        )
        outcomes = sorted({str(j.get("outcome")) for j in js}) if js else ["(not judged)"]
        cols["test_id"].append(tid)
        cols["config"].append(cfg)
        cols["lang"].append(str(a.get("lang")))
        cols["strategy"].append(str(a.get("strategy")))
        cols["negative"].append("yes" if a.get("negative") else "no")
        cols["verdict"].append(" / ".join(verdicts))
        cols["outcome"].append(" / ".join(outcomes))
        cols["disagree"].append(disagreement(js) if js else "(not judged)")
        cols["source_retrieved"].append("yes" if a.get("source_retrieved") else "no")
        cols["answer"].append(str(a.get("answer") or a.get("error") or ""))
        cols["question"].append(t.get("question"))
        cols["chunk"].append(chunk.get("text") if chunk else None)
        cols["chunk_id"].append(src)
        cols["expected"].append(t.get("expected_answer"))
        cols["judgments"].append(
            json.dumps(
                [
                    {
                        k: j.get(k)
                        for k in (
                            "judge",
                            "repeat",
                            *CRITERIA,
                            "verdict",
                            "outcome",
                            "rationale",
                            "note",
                        )
                    }
                    for j in js
                ],
                ensure_ascii=False,
            )
        )
        cols["retrieved"].append(", ".join(map(str, a.get("retrieved") or [])))
        cols["keywords"].append(", ".join(map(str, t.get("keywords") or [])))
    subtitle = (
        f"Test run of {info.get('tests')} generated tests ({info.get('suite_signature', '')})"
    )
    labels, extra = ("answer", "answers", "Tests"), {"criteria": list(CRITERIA)}
    if judged and (out / "summary.json").is_file():  # the judge's calibration per language
        summary = read_json(out / "summary.json", hint=_HINT)
        if isinstance(summary, dict) and summary.get("judge_calibration"):
            extra["judge_calibration"] = summary["judge_calibration"]
    meta = page_meta(
        "testgen", out, subtitle, TESTGEN_FACETS, _COLUMNS, labels, warnings=warnings, **extra
    )

    if (out / "summary.json").is_file():  # judged: the page leads with the fail rates
        from ..testgen.lead import summarize_test_run

        judge_summary = read_json(out / "summary.json", hint=_HINT)
        meta["lead"] = summarize_test_run(
            judge_summary if isinstance(judge_summary, dict) else None
        )
    return meta, {"n": len(answers), "cols": {k: coded(v) for k, v in cols.items()}}


VIEW = ViewKind(page=testgen_page)
"""The page of a ``testrun`` directory (:data:`bordir.view.dispatch.VIEWS` ``testrun``)."""
