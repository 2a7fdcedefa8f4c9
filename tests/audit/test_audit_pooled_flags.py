"""A white-box audit where French queries always cite the English document (issue 25.7): a zero-width interval
never flags, the pooled flags reach the terminal and audit.md, and a never-cited language is the bottom of the
ratio plot's scale, not "no data"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ..conftest import invoke_cli


@pytest.fixture(scope="module")
def audit_logs(tmp_path_factory) -> Path:
    from .test_audit_planted import make_records, write_jsonl

    recs = make_records(600, seed=1)
    for r in recs:  # French queries always cite the English document: every cluster alike
        if r["query_lang"] == "fr":
            r["citations"] = [next(d["id"] for d in r["documents"] if d["lang"] == "en")]
            r["response"] = "Answer."
    return write_jsonl(recs, tmp_path_factory.mktemp("aud") / "logs.jsonl")


def test_a_zero_width_interval_never_flags_and_pooled_flags_reach_the_cli(audit_logs, tmp_path):
    from bordir.audit import AuditOptions, run_audit

    res = run_audit(str(audit_logs), AuditOptions(n_resamples=300, seed=1))
    rates = res.tables.rates
    fr_en = rates[(rates["query_lang"] == "fr") & (rates["doc_lang"] == "en")]
    assert (fr_en["verdict"] == "zero-width interval").all() and fr_en["flag"].isna().all()
    pooled = res.tables.flagged(overall=True)
    assert len(pooled) and (pooled["ratio_low"] > 1).any()  # a cell wholly above 1, pooled
    out = invoke_cli("audit", str(audit_logs), "--out", str(tmp_path / "a"), "--no-plots",
                     "--resamples", "300", "--seed", "1")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "no cell flagged" not in out.stdout  # before: the pooled flags were left out
    assert any(l.split()[:3] == ["all", "*", "en"] and l.rstrip().endswith("over")
               for l in out.stdout.splitlines())  # fmt: skip
    md = (tmp_path / "a" / "audit.md").read_text(encoding="utf-8")
    assert "No cell is flagged.\n" not in md  # the page no longer says none while listing some


def test_a_never_cited_language_is_not_shown_as_no_data(audit_logs):
    pytest.importorskip("matplotlib")
    from bordir.audit import AuditOptions, run_audit
    from bordir.citations.plots import _mpl, _ratio

    res = run_audit(str(audit_logs), AuditOptions(n_resamples=100, seed=1))
    t = res.tables.rates
    never = t[(t["rate"] == "pooled") & (t["query_lang"] == "fr") & (t["doc_lang"] == "sw")]
    assert float(never["ratio"].iloc[0]) == 0.0
    fig = _ratio(t, ["group"], _mpl(), "pooled")
    grid = fig.axes[0].images[0].get_array()
    qls = sorted(set(t[t["rate"] == "pooled"]["query_lang"]))
    langs = sorted(set(t[t["rate"] == "pooled"]["doc_lang"]))
    cell = grid[qls.index("fr"), langs.index("sw")]
    assert not np.ma.is_masked(cell) and float(cell) == -2.0  # the bottom of the scale, not grey
