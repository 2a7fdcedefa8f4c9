"""CS denominators on the real BorderLines data (skipped when ../shared is absent)."""

from __future__ import annotations

import pandas as pd

from bordir.loaders import load_borderlines_files
from bordir.metrics import score_responses, territory_tables


def all_controller_responses(ds) -> pd.DataFrame:
    """Every query answered with the controller (option A when the controller is Unknown or no option)."""
    rows = []
    for q in ds.queries:
        t = ds.territory(q.territory)
        choice = t.claimants.index(t.controller) if t.controller in t.claimants else 0
        rows.append(
            {
                "query_id": q.query_id,
                "territory": q.territory,
                "query_lang": q.lang,
                "is_control": q.is_control,
                "mode": "no_ir",
                "model": "mock/controller",
                "run": 0,
                "outcome": "answered",
                "choice": choice,
            }
        )
    return pd.DataFrame(rows)


def test_reference_denominators_on_real_data(shared_borderlines):
    ds = load_borderlines_files(shared_borderlines)
    df = all_controller_responses(ds)
    (stats,) = territory_tables(df, ds, policy="strict").values()
    s = stats.scores()
    # reference denominators (reference doc 5.2): KB 161, Cst all 212 rows, Cst unk 72 rows, 720 queries;
    # Control: 155 territories with a controller-language query in the data files (the released JSON says 130)
    assert s["kb_cs"].denominator == 161
    assert s["cst_cs"].denominator == 212
    assert s["cst_cs_unknown"].denominator == 72
    assert s["control_cs"].denominator == 155
    assert stats.n_queries == 720 and len(stats.table) == 251
    # every answer is the controller: KB misses only Lachin corridor (controller Artsakh is not an option)
    assert s["kb_cs"].frac == "160/161"
    assert s["control_cs"].value == 1.0
    lachin = stats.table.set_index("territory").loc["Lachin corridor"]
    assert lachin["nc_num"] == 0.0 and lachin["control_den"] == 0
    # the reference policy gives the same numbers when everything is answered
    ref = score_responses(df, ds, policy="reference").set_index("metric")["value"]
    strict = score_responses(df, ds, policy="strict").set_index("metric")["value"]
    pd.testing.assert_series_equal(ref, strict)
