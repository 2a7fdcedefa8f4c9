"""Per-language measures (bordir.metrics.perlang.items) against a hand computation on a small table of the demo.

The table: one model, modes qlang and rel_langs, two runs, the territories Crimea (Russia; Ukraine;
controller Russia), Kuril Islands (Russia; Japan; Russia), Western Sahara (Morocco; SADR, both Arabic;
Morocco), Falkland Islands (Argentina; United Kingdom; United Kingdom — English is a claimant language, so
the control query is also the `en` claimant answer) and East Jerusalem (Israel; Palestine; Unknown).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bordir.errors import ConfigError, DataError
from bordir.loaders import load_demo
from bordir.metrics.perlang.items import ITEM_COLUMNS, group_of, language_measures, perlang_items
from bordir.metrics.perlang.measures import PERLANG_MEASURES, PERLANG_NAMES, get_measure

DS = load_demo()
M = "mock/hand"

# (query_id, mode, run, outcome, choice)
ROWS = [
    # qlang, run 0
    ("Crimea_en", "qlang", 0, "answered", 0),
    ("Crimea_ru", "qlang", 0, "answered", 0),
    ("Crimea_uk", "qlang", 0, "answered", 1),
    ("Kuril_Islands_en", "qlang", 0, "answered", 1),
    ("Kuril_Islands_ru", "qlang", 0, "answered", 0),
    ("Kuril_Islands_ja", "qlang", 0, "refused", -1),
    ("Western_Sahara_en", "qlang", 0, "answered", 0),
    ("Western_Sahara_ar", "qlang", 0, "answered", 1),
    ("Falkland_Islands_en", "qlang", 0, "answered", 1),
    ("Falkland_Islands_es", "qlang", 0, "answered", 0),
    ("East_Jerusalem_en", "qlang", 0, "answered", 0),
    ("East_Jerusalem_iw", "qlang", 0, "answered", 0),
    ("East_Jerusalem_ar", "qlang", 0, "unparsed", -1),
    # qlang, run 1
    ("Crimea_en", "qlang", 1, "unparsed", -1),
    ("Crimea_ru", "qlang", 1, "answered", 0),
    ("Crimea_uk", "qlang", 1, "answered", 0),
    ("Kuril_Islands_en", "qlang", 1, "answered", 0),
    ("Kuril_Islands_ru", "qlang", 1, "multiple", -1),
    ("Kuril_Islands_ja", "qlang", 1, "answered", 1),
    # rel_langs, run 0
    ("Crimea_en", "rel_langs", 0, "answered", 0),
    ("Crimea_ru", "rel_langs", 0, "answered", 0),
    ("Crimea_uk", "rel_langs", 0, "answered", 0),
    ("Kuril_Islands_en", "rel_langs", 0, "answered", 0),
    ("Kuril_Islands_ja", "rel_langs", 0, "answered", 0),
]


def _table(rows=ROWS) -> pd.DataFrame:
    out = []
    for qid, mode, run, outcome, choice in rows:
        q = DS.query(qid)
        out.append(
            {
                "query_id": qid,
                "territory": q.territory,
                "query_lang": q.lang,
                "is_control": q.is_control,
                "mode": mode,
                "model": M,
                "run": run,
                "outcome": outcome,
                "choice": choice,
            }
        )
    return pd.DataFrame(out)


def _item(items: pd.DataFrame, qid: str, mode: str, run: int) -> dict:
    q = DS.query(qid)
    sel = items[
        (items["territory"] == q.territory)
        & (items["query_lang"] == q.lang)
        & (items["mode"] == mode)
        & (items["run"] == run)
    ]
    assert len(sel) == 1, (qid, mode, run)
    return sel.iloc[0].to_dict()


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_items_by_hand():
    items = perlang_items(_table(), DS)
    assert list(items.columns) == list(ITEM_COLUMNS)
    # the control queries of territories without an English claimant are not claimant-language answers
    assert len(items) == len(ROWS) - 8
    nan = math.nan
    expected = {  # controller, control, non_control, in_group, en_agreement, refused, unparsed, multiple
        ("Crimea_ru", "qlang", 0): (1, 1, nan, 1, 1, 0, 0, 0),
        ("Crimea_uk", "qlang", 0): (0, nan, 0, 1, 0, 0, 0, 0),
        ("Kuril_Islands_ru", "qlang", 0): (1, 1, nan, 1, 0, 0, 0, 0),  # English answered Japan
        ("Kuril_Islands_ja", "qlang", 0): (nan, nan, nan, nan, nan, 1, 0, 0),
        ("Western_Sahara_ar", "qlang", 0): (
            0,
            0,
            nan,
            nan,
            0,
            0,
            0,
            0,
        ),  # both claimants speak Arabic
        ("Falkland_Islands_en", "qlang", 0): (
            1,
            1,
            nan,
            1,
            nan,
            0,
            0,
            0,
        ),  # the English query itself
        ("Falkland_Islands_es", "qlang", 0): (0, nan, 0, 1, 0, 0, 0, 0),
        ("East_Jerusalem_iw", "qlang", 0): (nan, nan, nan, 1, 1, 0, 0, 0),  # Unknown controller
        ("East_Jerusalem_ar", "qlang", 0): (nan, nan, nan, nan, nan, 0, 1, 0),
        ("Crimea_ru", "qlang", 1): (
            1,
            1,
            nan,
            1,
            nan,
            0,
            0,
            0,
        ),  # English unparsed: no English answer
        ("Crimea_uk", "qlang", 1): (1, nan, 1, 0, nan, 0, 0, 0),
        ("Kuril_Islands_ru", "qlang", 1): (nan, nan, nan, nan, nan, 0, 0, 1),
        ("Kuril_Islands_ja", "qlang", 1): (0, nan, 0, 1, 0, 0, 0, 0),
        ("Crimea_ru", "rel_langs", 0): (1, 1, nan, 1, 1, 0, 0, 0),
        ("Crimea_uk", "rel_langs", 0): (1, nan, 1, 0, 1, 0, 0, 0),
        ("Kuril_Islands_ja", "rel_langs", 0): (1, nan, 1, 0, 1, 0, 0, 0),
    }
    assert len(expected) == len(items)
    for (qid, mode, run), values in expected.items():
        row = _item(items, qid, mode, run)
        got = tuple(row[n] for n in PERLANG_NAMES)
        assert all(_same(float(g), float(v)) for g, v in zip(got, values)), (
            qid,
            mode,
            run,
            got,
            values,
        )
    assert _item(items, "Crimea_uk", "qlang", 0)["answer"] == "Ukraine"
    assert pd.isna(_item(items, "Kuril_Islands_ja", "qlang", 0)["answer"])


def test_language_measures_by_hand():
    m = language_measures(_table(), DS)
    v = m.set_index(["mode", "run", "query_lang", "metric"])
    # Russian, qlang, run 0: Crimea and Kuril, both name Russia (the controller, Russian-speaking)
    assert v.loc[("qlang", 0, "ru", "controller_agreement"), "value"] == 1.0
    assert v.loc[("qlang", 0, "ru", "en_agreement"), ["numerator", "denominator"]].tolist() == [
        1.0,
        2,
    ]
    # Arabic, qlang, run 0: W. Sahara answers SADR (not the controller); E. Jerusalem unparsed
    ar = v.loc[("qlang", 0, "ar")]
    assert (
        ar.loc["controller_agreement", "value"] == 0.0
        and ar.loc["controller_agreement", "denominator"] == 1
    )
    assert (
        math.isnan(ar.loc["in_group_rate", "value"]) and ar.loc["in_group_rate", "denominator"] == 0
    )
    assert ar.loc["unparsed_rate", "value"] == 0.5 and ar.loc["refused_rate", "value"] == 0.0
    assert ar.loc["controller_agreement", "n_responses"] == 2
    # Japanese, qlang, run 1: names Japan → in-group, not the controller
    ja = v.loc[("qlang", 1, "ja")]
    assert (ja.loc["in_group_rate", "value"], ja.loc["controller_agreement", "value"]) == (1.0, 0.0)
    # Ukrainian, rel_langs: names Russia (the controller; not its own claimant; agrees with English)
    uk = v.loc[("rel_langs", 0, "uk")]
    assert (
        uk.loc["non_control_agreement", "value"],
        uk.loc["in_group_rate", "value"],
        uk.loc["en_agreement", "value"],
    ) == (1.0, 0.0, 1.0)
    sig = v.loc[("rel_langs", 0, "uk", "in_group_rate"), "signature"]
    assert sig.startswith(
        "in_group_rate|lang:uk|mode:rel_langs|gen:mock/hand|run:0|policy:strict|data:sha256-"
    )
    assert sig.endswith("|version:" + sig.rsplit(":", 1)[1])


def test_reference_policy_counts_missing_as_option_a():
    items = perlang_items(_table(), DS, policy="reference")
    ja = _item(items, "Kuril_Islands_ja", "qlang", 0)  # refused → option A = Russia = controller
    assert (ja["controller_agreement"], ja["in_group_rate"], ja["refused_rate"]) == (1.0, 0.0, 1.0)
    ru = _item(
        items, "Crimea_ru", "qlang", 1
    )  # English control unparsed → "None": agrees with nothing
    assert ru["en_agreement"] == 0.0


def test_order_invariance_and_resource_grouping():
    t = _table()
    a = language_measures(t, DS).drop(columns="signature")
    b = language_measures(t.sample(frac=1.0, random_state=3), DS).drop(columns="signature")
    key = ["mode", "run", "query_lang", "metric"]
    pd.testing.assert_frame_equal(
        a.sort_values(key, ignore_index=True), b.sort_values(key, ignore_index=True)
    )
    r = language_measures(t, DS, by="resource")
    assert set(r["query_lang"]) <= {"high", "medium", "low"}
    # resource level 'high' pools ar, en, es, ja, ru (uk and iw are medium)
    high = r[
        (r["mode"] == "qlang")
        & (r["run"] == 0)
        & (r["query_lang"] == "high")
        & (r["metric"] == "controller_agreement")
    ].iloc[0]
    # ru: 1, 1; ar: 0 (W. Sahara); en: 1 (Falklands); es: 0; ja refused → 3 of 5
    assert (high["numerator"], high["denominator"]) == (3.0, 5)
    assert "resource:high" in high["signature"]
    assert group_of(["uk", "iw", "ar"], "resource").tolist() == ["medium", "medium", "high"]


def test_registry_and_errors():
    assert all(m.bounds == (0.0, 1.0) for m in PERLANG_MEASURES.values())
    assert get_measure(PERLANG_MEASURES["en_agreement"]) is PERLANG_MEASURES["en_agreement"]
    with pytest.raises(
        ConfigError, match="unknown per-language measure 'kb'; known: controller_agreement"
    ):
        get_measure("kb")
    with pytest.raises(ConfigError, match="unknown grouping 'script'"):
        group_of(["ru"], "script")  # type: ignore[arg-type]
    bad = _table()
    bad.loc[0, "choice"] = 7
    with pytest.raises(DataError, match="choice 7 is out of range"):
        perlang_items(bad, DS)
    with pytest.raises(ConfigError, match="unknown scoring policy"):
        perlang_items(_table(), DS, policy="lenient")  # type: ignore[arg-type]


def test_values_are_shares_of_the_items():
    items = perlang_items(_table(), DS)
    m = language_measures(_table(), DS, items=items)
    for rec in m.itertuples():
        sel = items[
            (items["mode"] == rec.mode)
            & (items["run"] == rec.run)
            & (items["query_lang"] == rec.query_lang)
        ]
        col = sel[rec.metric].to_numpy(dtype=float)
        assert rec.denominator == int((~np.isnan(col)).sum())
        assert _same(rec.value, float(np.nanmean(col)) if rec.denominator else math.nan)
