"""CS metrics on tiny hand-built response tables; expected values worked out by hand.

The tiny dataset (``tiny_dataset``) has three territories:

* Isla:     claimants Spain (es), Morocco (ar); controller Spain.
            Queries: control (en), es, ar. English is NOT a claimant language,
            so the control answer is not among the claimant-language answers.
* Malvinas: claimants Argentina (es), United Kingdom (en); controller United Kingdom.
            Queries: control (en, doubles as the en claimant query), es.
            English IS a claimant language (and the controller's), so the
            control answer enters Responses_d as 'en' and is the Control answer.
* Triland:  claimants Russia (ru), Ukraine (uk), Japan (ja); controller Unknown.
            Queries: control (en), ru, uk, ja.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.dataset import BorderLines
from bordir.errors import ConfigError, DataError
from bordir.metrics import (
    METRICS,
    aggregate,
    language_breakdown,
    outcome_rates,
    score_responses,
    territory_tables,
    validate_responses,
)
from bordir.metrics.cs.aggregate import metric_value
from bordir.records import Country, Query, Territory

COUNTRIES = {
    "Spain": "es", "Morocco": "ar", "Argentina": "es", "United Kingdom": "en",
    "Russia": "ru", "Ukraine": "uk", "Japan": "ja",
}  # fmt: skip
TERRITORIES = [
    ("Isla", ("Spain", "Morocco"), "Spain", ("es", "ar")),
    ("Malvinas", ("Argentina", "United Kingdom"), "United Kingdom", ("es",)),
    ("Triland", ("Russia", "Ukraine", "Japan"), "Unknown", ("ru", "uk", "ja")),
]


def tiny_dataset() -> BorderLines:
    territories, queries = [], []
    for i, (name, claimants, controller, langs) in enumerate(TERRITORIES):
        territories.append(
            Territory(name=name, claimants=claimants, controller=controller, index=i)
        )
        queries.append(
            Query(f"{name}_en", name, "en", f"Is {name} …?", claimants, claimants, is_control=True)
        )
        for lang in langs:
            queries.append(Query(f"{name}_{lang}", name, lang, f"{name}?", claimants, claimants))
    countries = {c: Country(name=c, lang=code) for c, code in COUNTRIES.items()}
    return BorderLines(
        name="tiny", territories=tuple(territories), countries=countries, queries=tuple(queries)
    )


def responses(
    answers: dict[str, str | tuple[str, None]],
    *,
    run: int = 0,
    mode: str = "no_ir",
    model: str = "mock/m",
) -> pd.DataFrame:
    """Rows from {query_id: country name} or {query_id: (outcome, None)} for non-answers."""
    ds = tiny_dataset()
    rows = []
    for qid, ans in answers.items():
        q = ds.query(qid)
        if isinstance(ans, tuple):
            outcome, choice = ans[0], -1
        else:
            outcome, choice = "answered", q.claimants.index(ans)
        rows.append(
            {
                "query_id": qid,
                "territory": q.territory,
                "query_lang": q.lang,
                "is_control": q.is_control,
                "mode": mode,
                "model": model,
                "run": run,
                "outcome": outcome,
                "choice": choice,
            }
        )
    return pd.DataFrame(rows)


BASE = {
    "Isla_en": "Morocco",  # KB wrong
    "Isla_es": "Spain",  # Control (es is Spain's language): agrees
    "Isla_ar": "Morocco",  # Non-control: disagrees
    "Malvinas_en": "United Kingdom",  # KB right; also Responses_d['en'] = Control: agrees
    "Malvinas_es": "United Kingdom",  # Non-control: agrees
    "Triland_en": "Russia",  # Unknown controller: no KB
    "Triland_ru": "Russia",
    "Triland_uk": "Ukraine",
    "Triland_ja": "Russia",
}


def values(df: pd.DataFrame, policy: str = "strict") -> dict:
    (stats,) = territory_tables(df, tiny_dataset(), policy=policy).values()
    return {m: s.value for m, s in stats.scores().items()}, stats


def test_base_table_by_hand():
    v, stats = values(responses(BASE))
    # KB: Isla 0, Malvinas 1 (Triland excluded: Unknown) -> 1/2
    assert v["kb_cs"] == 0.5
    # Control: Isla es=Spain (1), Malvinas en=UK (1) -> 2/2
    assert v["control_cs"] == 1.0
    # Non-control: Isla [ar: Morocco != Spain] -> 0; Malvinas [es: UK] -> 1; macro mean 0.5.
    # (Had the en control answer entered Isla's Responses_d, Isla would be [0, 0] -> same 0,
    #  but Cst below would change.)
    assert v["non_control_cs"] == 0.5
    # Delta = (1 - 0.5) / 0.5 = 1.0; unnormalised 0.5
    assert v["delta_cs_norm"] == pytest.approx(1.0) and v["delta_cs"] == pytest.approx(0.5)
    # Cst: Isla {es: Spain, ar: Morocco} -> 0/1 (with en: Morocco it would be 1/3);
    #      Malvinas {en: UK, es: UK} -> 1/1; Triland (Russia, Ukraine, Russia) -> 1/3.
    #      all = (0 + 1 + 1/3) / 3 = 4/9; unk = 1/3
    assert v["cst_cs"] == pytest.approx(4 / 9) and v["cst_cs_unknown"] == pytest.approx(1 / 3)
    s = stats.scores()
    assert s["kb_cs"].frac == "1/2" and s["control_cs"].frac == "2/2"
    assert (s["non_control_cs"].denominator, s["non_control_cs"].items) == (2, 2)
    assert (s["cst_cs"].denominator, s["cst_cs"].items) == (3, 5)  # pairs: 1 + 1 + 3
    assert (s["cst_cs_unknown"].denominator, s["cst_cs_unknown"].items) == (1, 3)
    # queries: Isla 3 + Malvinas 2 + Triland 4 (the en claimant query is the control query)
    assert stats.n_queries == 9
    # the en entry: kept for Malvinas (en is a claimant language), dropped for Isla and Triland
    en_items = stats.items[stats.items["query_lang"] == "en"]
    assert en_items["territory"].tolist() == ["Malvinas"] and en_items["role"].tolist() == [
        "control"
    ]


def test_delta_undefined_when_non_control_is_zero():
    v, stats = values(responses({**BASE, "Malvinas_es": "Argentina"}))
    # Non-control: Isla 0, Malvinas 0 -> 0; Delta divides by 0 -> None; unnormalised = 1 - 0
    assert v["non_control_cs"] == 0.0
    assert v["delta_cs_norm"] is None and v["delta_cs"] == 1.0
    assert "Non-control CS is 0" in stats.scores()["delta_cs_norm"].note


NON_ANSWERS = {
    **BASE,
    "Isla_ar": ("unparsed", None),
    "Malvinas_en": ("unparsed", None),
    "Triland_uk": ("refused", None),
}


def test_strict_policy_skips_and_counts_non_answers():
    v, stats = values(responses(NON_ANSWERS), "strict")
    s = stats.scores()
    # KB: Isla 0; Malvinas control unparsed -> skipped -> 0/1
    assert v["kb_cs"] == 0.0 and s["kb_cs"].frac == "0/1" and s["kb_cs"].skipped == 1
    # Control: Isla 1; Malvinas en (= the control answer) missing -> skipped -> 1/1
    assert v["control_cs"] == 1.0 and s["control_cs"].frac == "1/1" and s["control_cs"].skipped == 1
    # Non-control: Isla ar skipped (no value left), Malvinas es=UK -> 1 -> 1.0 over 1 territory
    assert (
        v["non_control_cs"] == 1.0
        and s["non_control_cs"].denominator == 1
        and s["non_control_cs"].skipped == 1
    )
    assert v["delta_cs_norm"] == 0.0 and v["delta_cs"] == 0.0
    # Cst: Isla (Spain, -) no valid pair; Malvinas (-, UK) none; Triland (Russia, -, Russia): 1 pair, agrees.
    # -> 1.0 over 1 territory; skipped pairs 1 + 1 + 2 = 4
    assert v["cst_cs"] == 1.0 and v["cst_cs_unknown"] == 1.0
    assert (s["cst_cs"].denominator, s["cst_cs"].items, s["cst_cs"].skipped) == (1, 1, 4)
    assert stats.n_queries == 9  # responses, answered or not


def test_reference_policy_picks_option_a_but_kb_counts_none_as_wrong():
    v, stats = values(responses(NON_ANSWERS), "reference")
    s = stats.scores()
    # KB: Isla 0; Malvinas Response_en = "None" -> wrong -> 0/2
    assert v["kb_cs"] == 0.0 and s["kb_cs"].frac == "0/2"
    # Control: Isla 1; Malvinas en = Pick = option A = Argentina -> 0 -> 1/2
    assert v["control_cs"] == 0.5 and s["control_cs"].frac == "1/2"
    # Non-control: Isla ar = Pick = Spain -> 1; Malvinas es = UK -> 1 -> 1.0
    assert v["non_control_cs"] == 1.0
    # Delta = (0.5 - 1) / 1 = -0.5
    assert v["delta_cs_norm"] == -0.5 and v["delta_cs"] == -0.5
    # Cst: Isla (Spain, Spain) 1; Malvinas (Argentina, UK) 0; Triland (Russia, Russia[A], Russia) 1 -> 2/3
    assert v["cst_cs"] == pytest.approx(2 / 3) and v["cst_cs_unknown"] == 1.0
    assert all(sc.skipped == 0 for sc in s.values())


def test_missing_control_row():
    answers = {k: a for k, a in BASE.items() if k != "Isla_en"}
    v, stats = values(responses(answers), "strict")
    assert stats.scores()["kb_cs"].frac == "1/1"  # Isla has no control answer: skipped
    v, stats = values(responses(answers), "reference")
    assert stats.scores()["kb_cs"].frac == "1/2"  # the reference's failed lookup counts as wrong


def test_language_breakdown_and_outcome_rates():
    (stats,) = territory_tables(responses(BASE), tiny_dataset()).values()
    b = language_breakdown(stats.items).set_index("query_lang")
    # ar: Isla non-control (Morocco) -> 0/1; en: Malvinas control -> 1/1;
    # es: Isla control 1/1 and Malvinas non-control 1/1; ru/uk/ja: Unknown controller
    assert b.loc["ar", "non_control_cs"] == 0.0 and b.loc["ar", "non_control_n"] == 1
    assert math.isnan(b.loc["ar", "control_cs"])
    assert (b.loc["en", "control_cs"], b.loc["en", "control_n"]) == (1.0, 1)
    assert (b.loc["es", "control_cs"], b.loc["es", "non_control_cs"]) == (1.0, 1.0)
    assert b.loc[["ja", "ru", "uk"], "unknown_n"].tolist() == [1, 1, 1]

    r = outcome_rates(validate_responses(responses(NON_ANSWERS))).set_index("query_lang")
    # en: 3 control rows, Malvinas_en unparsed -> 1/3; ar: 1 row, unparsed
    assert (r.loc["en", "n"], r.loc["en", "n_unparsed"]) == (3, 1)
    assert r.loc["en", "rate_unparsed"] == pytest.approx(1 / 3)
    assert (
        r.loc["ar", "rate_unparsed"],
        r.loc["uk", "rate_refused"],
        r.loc["es", "rate_answered"],
    ) == (1.0, 1.0, 1.0)


def test_metric_value_weights_are_resample_counts():
    (stats,) = territory_tables(responses(BASE), tiny_dataset()).values()
    t = stats.table
    # weight 2 on Isla, 1 on Malvinas, 0 on Triland == the table with Isla twice
    w = np.array([2, 1, 0])
    doubled = pd.concat([t.iloc[[0, 0, 1]]])
    for m in METRICS:
        assert metric_value(t, m, weights=w) == pytest.approx(metric_value(doubled, m), nan_ok=True)
    with pytest.raises(ConfigError, match="unknown metric"):
        metric_value(t, "nope")


# --- validation -------------------------------------------------------------


def test_validator_errors_are_clear():
    ds = tiny_dataset()
    good = responses(BASE)
    with pytest.raises(DataError, match="missing column"):
        validate_responses(good.drop(columns=["outcome"]), ds)
    with pytest.raises(DataError, match="unknown outcome 'maybe'"):
        validate_responses(good.assign(outcome="maybe"), ds)
    bad = good.copy()
    bad.loc[0, "choice"] = 2
    with pytest.raises(DataError, match=r"choice 2 is out of range; 'Isla' has 2 claimants"):
        validate_responses(bad, ds)
    bad = good.copy()
    bad.loc[0, "outcome"] = "refused"
    with pytest.raises(DataError, match="choice must be -1 unless outcome == 'answered'"):
        validate_responses(bad, ds)
    bad = good.copy()
    bad.loc[0, "territory"] = "Islaa"
    with pytest.raises(DataError, match="did you mean 'Isla'"):
        validate_responses(bad, ds)
    with pytest.raises(DataError, match="second response for territory 'Isla'"):
        validate_responses(pd.concat([good, good.iloc[[1]]]), ds)
    with pytest.raises(ConfigError, match="unknown scoring policy"):
        territory_tables(good, ds, policy="lenient")  # type: ignore[arg-type]


# --- invariance ---------------------------------------------------------------


@st.composite
def random_responses(draw):
    ds = tiny_dataset()
    rows = []
    for run in range(draw(st.integers(1, 2))):
        for q in ds.queries:
            if draw(st.booleans()) and draw(st.booleans()):
                continue  # some queries have no row at all
            outcome = draw(
                st.sampled_from(
                    ["answered", "answered", "refused", "unparsed", "multiple", "failed"]
                )
            )
            choice = draw(st.integers(0, len(q.claimants) - 1)) if outcome == "answered" else -1
            rows.append(
                {
                    "query_id": q.query_id,
                    "territory": q.territory,
                    "query_lang": q.lang,
                    "is_control": q.is_control,
                    "mode": "m",
                    "model": "x",
                    "run": run,
                    "outcome": outcome,
                    "choice": choice,
                }
            )
    perm = draw(st.permutations(range(len(rows))))
    return pd.DataFrame(rows), perm


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(random_responses(), st.sampled_from(["strict", "reference"]))
def test_scores_are_invariant_to_row_order(data, policy):
    df, perm = data
    if df.empty:
        return
    ds = tiny_dataset()
    a = score_responses(df, ds, policy=policy)
    b = score_responses(df.iloc[list(perm)], ds, policy=policy)
    pd.testing.assert_frame_equal(a, b)


def test_aggregate_of_empty_table_is_undefined_not_an_error():
    (stats,) = territory_tables(responses(BASE), tiny_dataset()).values()
    s = aggregate(stats.table.iloc[0:0])
    assert all(v.value is None for v in s.values())


@pytest.mark.parametrize("n_values", [3, 40, 2000, 9000])
def test_response_codes_find_the_rows_pandas_calls_duplicated(n_values):
    """ResponseCodes.duplicated: a presence array for small key spaces, hashing for large ones."""
    from bordir.metrics.codes import KEY_COLUMNS, response_codes

    rng = np.random.default_rng(n_values)
    n = 3000
    df = pd.DataFrame(
        {
            c: rng.integers(0, n_values, n)
            if c == "run"
            else [f"v{k}" for k in rng.integers(0, n_values, n)]
            for c in KEY_COLUMNS
        }  # fmt: skip
    )
    codes = response_codes(df)
    key = ["model", "mode", "run", "territory", "query_lang"]
    expected = df.duplicated(key, keep="first").to_numpy()
    got = codes.duplicated(key)
    if expected.any():
        assert got is not None and (got == expected).all()
    else:
        assert got is None
    unique = df.drop_duplicates(key).reset_index(drop=True)
    assert response_codes(unique).duplicated(key) is None
    assert codes.uniques["mode"].tolist() == sorted(set(df["mode"]))
    assert (codes.uniques["mode"][codes.codes["mode"]] == df["mode"].to_numpy()).all()
