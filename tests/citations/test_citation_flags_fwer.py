"""Citation flags hold their family-wise error rate in small cells, and still find a planted bias.

Simulated audits (:mod:`benchmarks.simulate.citations`): 5 query languages × 2 document languages, records as
clusters. A fair assistant must get at least one flag (anywhere in the audit) in at most 5 % of audits with 5, 8,
20 and 400 records per query language, with the default minimum cell size and with the minimum lowered to 2 (the
score test alone). The full-size version with the previous rule for comparison is
``benchmarks/coverage_citations.py`` (the previous rule: 85 %, 57 %, 15 % at 5, 8, 20 records).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.simulate.citations import audit_flags, fair_audits, planted_audits
from bordir.citations import CellStats
from bordir.citations.flags import MIN_CELL_CLUSTERS, TOO_FEW
from bordir.citations.tables import build_tables


@pytest.mark.slow
@pytest.mark.parametrize(("n_records", "n_audits"), [(5, 1000), (8, 1000), (20, 1000), (400, 250)])
def test_fair_assistant_family_wise_false_flags_at_most_5_percent(n_records, n_audits):
    rng = np.random.default_rng(1000 + n_records)
    inc, cit = fair_audits(rng, n_audits=n_audits, n_cells=5, n_records=n_records)
    default = audit_flags(inc, cit)
    alone = audit_flags(inc, cit, min_clusters=2)
    assert default["any_flag"].mean() <= 0.05, default["any_flag"].mean()
    assert alone["any_flag"].mean() <= 0.05, alone["any_flag"].mean()
    if n_records < MIN_CELL_CLUSTERS:
        # below the minimum every per-language cell is reported, as too few to judge (not hidden, not tested)
        per_lang = default["table"][default["table"]["query_lang"] != "*"]
        assert len(per_lang) == n_audits * 5 * 2 * 2 and (per_lang["verdict"] == TOO_FEW).all()
        assert not per_lang["tested"].any()


def test_planted_one_and_a_half_times_bias_at_200_records_is_flagged():
    rng = np.random.default_rng(7)
    inc, cit = planted_audits(rng, n_audits=200, n_cells=5, n_records=200, ratio=1.5)
    f = audit_flags(inc, cit)["flags"]
    hit = f[(f["query_lang"] == "q0") & (f["doc_lang"] == "en") & (f["flag"] == "over")][
        "audit"
    ].nunique()
    assert hit / 200 >= 0.85, (
        hit
    )  # measured 93.6 % over 500 audits (benchmarks/coverage_citations.py)
    fair = f[~f["query_lang"].isin(["q0", "*"])]["audit"].nunique()
    assert fair / 200 <= 0.05


def _tables(inc: np.ndarray, cit: np.ndarray, **kw) -> object:
    """build_tables (the path of `bordir audit` and `bordir report`) on one simulated audit."""
    cells = {}
    for j in range(inc.shape[0]):
        cells[("all", f"q{j}")] = CellStats.from_answers(("en", "sw"), inc[j], cit[j])
    cells[("all", "*")] = CellStats.from_answers(
        ("en", "sw"), inc.reshape(-1, 2), cit.reshape(-1, 2)
    )
    return build_tables(cells, ("group", "query_lang"), n_resamples=200, seed=3, **kw)


@pytest.mark.slow
def test_small_cells_through_build_tables_hold_their_size():
    """End to end (bootstrap, score test, Holm, flags) at 8 records per cell with the minimum lowered to 2.

    The previous rule (percentile interval, Wald p from the bootstrap SD) flagged about 57 % of such audits.
    """
    rng = np.random.default_rng(11)
    inc, cit = fair_audits(rng, n_audits=80, n_cells=5, n_records=8)
    flagged = 0
    for a in range(80):
        t = _tables(inc[a], cit[a], min_clusters=2)
        flagged += bool(len(t.flagged()) or len(t.flagged(overall=True)))
        assert set(t.rates["verdict"]) <= {
            "not flagged",
            "over",
            "under",
            TOO_FEW,
            "zero-width interval",
            "ratio undefined",
        }
    assert flagged <= 4, flagged  # ≤ 5 %


def test_vectorised_simulation_matches_build_tables():
    rng = np.random.default_rng(5)
    inc, cit = fair_audits(rng, n_audits=3, n_cells=5, n_records=30)
    sim = audit_flags(inc, cit)["table"]
    for a in range(3):
        t = _tables(inc[a], cit[a])
        both = pd.concat([t.rates, t.overall])
        s = sim[sim["audit"] == a]
        for r in both.itertuples():
            m = s[
                (s["query_lang"] == r.query_lang)
                & (s["doc_lang"] == r.doc_lang)
                & (s["rate"] == r.rate)
            ].iloc[0]
            assert m["p_value"] == pytest.approx(r.p_value) and m["ratio_low"] == pytest.approx(
                r.ratio_low
            )
            assert m["n_clusters_lang"] == r.n_clusters_lang and m["verdict"] == r.verdict
