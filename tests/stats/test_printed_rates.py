"""Every rate bordir prints, at tiny n: no interval of zero width (issue 51, item 2; issue 50, item 2).

The walk covers testbed rates (``testbeds.metrics.summarize``: scores.json, the report, ``bordir
testbed``), RGB prediction files re-scored (``bordir testbed score``), NoMIRACL result files
(``bordir testbed score --format nomiracl``, printed), the audit's and the citation tables'
rates and answer shares, and testgen's failure rates, oracle precision and judge invariance. A
zero-width interval is allowed only when n is large and the rate is exactly 0 or 1 (none of the
inputs here is large), so every interval found must have ``low < high``.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from bordir.audit.config import AuditOptions
from bordir.audit.run import run_audit
from bordir.citations.rates import CellStats
from bordir.citations.tables import build_tables
from bordir.stats import MIN_N, rate_interval
from bordir.testbeds.metrics import summarize
from bordir.testbeds.rescore import rescore_predictions
from bordir.testgen.compare import failure_rates
from bordir.testgen.precision import oracle_precision
from tests.conftest import invoke_cli

pytest.importorskip("statsmodels")


def _nonzero(lo: float | None, hi: float | None, what: str) -> None:
    assert lo is not None and hi is not None, f"{what}: no interval"
    assert hi - lo > 1e-9, f"{what}: zero-width interval [{lo}, {hi}]"


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 2), (2, 2), (0, 20), (20, 20), (1, 250)])
def test_the_helper_never_has_zero_width_and_flags_few(k, n):
    r = rate_interval(k, n)
    _nonzero(r.low, r.high, f"{k}/{n}")
    assert r.low <= r.value <= r.high and r.too_few == (n < MIN_N)
    c = rate_interval(np.full(n, float(k == n)), np.ones(n))  # every cluster alike
    _nonzero(c.low, c.high, f"clusters {k}/{n}")


def _testbed_table(outcome: bool) -> pd.DataFrame:
    rec = {"model": "m", "lang": "en", "testbed": "counterfactual", "setting": "counterfactual"}
    rec |= {"cluster": "q1", "noise_rate": 1.0, "failed": False, "n_pos": 0}
    for p in ("rgb", "bordir"):
        rec |= {
            f"{p}_labels": json.dumps([1] if outcome else [0]),
            f"{p}_rejected": False,
            f"{p}_correct": outcome,
            f"{p}_fact": outcome,
        }
    return pd.DataFrame([rec])


@pytest.mark.parametrize("outcome", [True, False])
def test_testbed_rates_of_one_item(outcome):
    groups = summarize(_testbed_table(outcome), n_resamples=50, seed=1)
    seen = 0
    for g in groups:
        for policy, ms in g["metrics"].items():
            for name, m in ms.items():
                if (
                    m["value"] is None or m["n"] == 0
                ):  # RGB's 0 when nothing is flagged: no interval
                    assert m["ci95"] == [None, None]
                    continue
                _nonzero(*m["ci95"], f"testbed {policy} {name}")
                assert m["too_few"] is True
                seen += 1
    assert seen >= 4


def test_rgb_rescore_of_one_line(tmp_path):
    p = tmp_path / "prediction_en_m_temp0.7_noise1.0_passage5_correct0.0.json"
    row = {"id": 0, "query": "Q", "ans": ["x"], "label": [1], "prediction": "x", "docs": []}
    p.write_text(json.dumps(row | {"noise_rate": 1.0, "factlabel": 0}) + "\n")
    res = rescore_predictions(p)
    for name, m in res["metrics"].items():
        _nonzero(*m["ci95"], f"rgb rescore {name}")
    out = invoke_cli("testbed", "score", str(p))
    assert out.returncode == 0, out.stderr
    assert "too few to judge" in out.stdout and "[100.0, 100.0]" not in out.stdout


def test_nomiracl_printed_rates_of_one_reply(tmp_path):
    d = tmp_path / "non_relevant"
    d.mkdir()
    line = {"query_id": "1", "results": {"m": "Yes, answer is present", "k": "I don't know"}}
    (d / "sw.test.vanilla_prompt.jsonl").write_text(json.dumps(line) + "\n")
    out = invoke_cli(
        "testbed", "score", str(d / "sw.test.vanilla_prompt.jsonl"), "--format", "nomiracl"
    )
    assert out.returncode == 0, out.stderr
    assert not re.search(r"\[(\d+\.\d), \1\]", out.stdout), out.stdout  # no [x, x]
    assert "too few to judge" in out.stdout


def test_citation_and_audit_rates_of_one_answer(tmp_path):
    cells = {("en",): CellStats.from_answers(("en", "sw"), np.array([[1, 1]]), np.array([[1, 0]]))}
    t = build_tables(cells, ["query_lang"], n_resamples=50, seed=1)
    for r in t.rates.itertuples():
        for m in ("inclusion_rate", "inclusion_rate_citing", "citation_rate"):
            _nonzero(getattr(r, f"{m}_low"), getattr(r, f"{m}_high"), f"citations {r.rate} {m}")
    for col in [c for c in t.answers.columns if c.endswith("_low")]:
        base = col[: -len("_low")]
        for r in t.answers.itertuples():
            if getattr(r, base) is not None and not pd.isna(getattr(r, base)):
                _nonzero(getattr(r, col), getattr(r, f"{base}_high"), f"answers {base}")
    log = tmp_path / "log.jsonl"
    rec = {"id": 1, "query": "q", "query_lang": "sw", "response": "jibu", "response_lang": "sw"}
    rec |= {"documents": [{"id": "a", "lang": "en"}, {"id": "b", "lang": "sw"}], "citations": ["a"]}
    log.write_text(json.dumps(rec) + "\n")
    res = run_audit(log, AuditOptions(n_resamples=50, seed=1))
    for r in res.tables.rates.itertuples():
        for m in ("inclusion_rate", "citation_rate"):
            _nonzero(getattr(r, f"{m}_low"), getattr(r, f"{m}_high"), f"audit {m}")
    for r in res.tables.answers.itertuples():
        if r.no_citation_rate is not None and not pd.isna(r.no_citation_rate):
            _nonzero(r.no_citation_rate_low, r.no_citation_rate_high, "audit no-citation share")


def test_testgen_rates_of_one_test():
    t = pd.DataFrame(
        [{"config": "A", "test_id": "t0", "lang": "en", "verdict": "fail", "category": "other"}]
    )
    r = failure_rates(t).iloc[0]
    _nonzero(r["ci_low"], r["ci_high"], "testgen fail rate")
    assert bool(r["too_few"])
    p = oracle_precision({("A", "t0"): True})
    _nonzero(*p["precision_ci"], "oracle precision")


def test_answer_language_mismatch_of_one_answer():
    from bordir.metrics.answer_lang import language_shares

    det = pd.DataFrame(
        {
            "model": ["m"],
            "mode": ["no_ir"],
            "query_lang": ["sw"],
            "territory": ["T"],
            "answer_lang_class": ["en"],
        }  # fmt: skip
    )
    for r in language_shares(det).itertuples():
        _nonzero(r.mismatch_low, r.mismatch_high, "answer-language mismatch")
        assert r.mismatch_too_few
