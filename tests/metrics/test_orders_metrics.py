"""Order metrics on planted behaviour: a model that always picks A, and one that reads the question."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bordir.generation.backend import get_backend
from bordir.generation.parse import parse_answer
from bordir.generation.prompts import build_request
from bordir.loaders import load_demo
from bordir.metrics.order.bias import country_pick_rates, letter_pick_rates, position_bias
from bordir.metrics.order.items import order_items
from bordir.metrics.order.rules import calibrated_responses, order_metrics, stable_responses
from bordir.option_orders import OptionOrder, ordered_queries, row_in_given_order
from bordir.runner.calibration import (
    CALIBRATION,
    content_free_query,
    content_free_request,
    run_calibration,
)

DS = load_demo()


def _responses(answer, scheme="reversed", runs=2, model="mock/first"):
    """Responses of ``answer(permuted query) -> text`` (the mock backend's text when None) in every order."""
    backend = get_backend(model)
    triples, skipped = ordered_queries(DS.queries, scheme)
    assert not skipped
    rows = []
    for q, order, p in triples:
        req = build_request(p, (), model=model, no_ir=True, countries=DS.countries)
        text = backend.generate(req).text if answer is None else answer(p)
        pa = parse_answer(text, p)
        for run in range(runs):
            row = dict(
                query_id=q.query_id,
                territory=q.territory,
                query_lang=q.lang,
                is_control=q.is_control,
                mode="no_ir",
                model=model,
                run=run,
                seed=run,
                outcome=pa.outcome,
                choice=pa.choice,
                choice_name=p.claimants[pa.choice] if pa.choice >= 0 else "",
                raw_text=text,
                option_logprobs=None,
            )
            rows.append(row_in_given_order(row, order))
    return pd.DataFrame(rows)


def _value(m, rule, metric):
    v = m[(m["rule"] == rule) & (m["metric"] == metric)]["value"].iloc[0]
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


@pytest.mark.slow
def test_always_a_has_position_bias_near_one_and_debiased_cst_below_one():
    resp = _responses(None)  # mock/first answers the first option label
    assert (resp["choice_position"] == 0).all()
    bias = position_bias(resp, n_resamples=200, seed=1)
    assert bias["n_queries"].iloc[0] == 2 * len(DS.queries) and bias["rate"].iloc[
        0
    ] == pytest.approx(1.0)
    assert (
        bias["low"].iloc[0] == pytest.approx(1.0)
        and "orders:given,reversed" in bias["signature"].iloc[0]
    )
    letters = letter_pick_rates(resp, DS).set_index("letter")
    assert letters.loc["A", "rate"] == 1.0 and letters.loc["A", "uniform"] < 0.5
    m = order_metrics(resp, DS)
    assert _value(m, "given", "cst_cs") == pytest.approx(1.0)  # what the papers would report
    assert _value(m, "stable", "cst_cs") is None  # no query is stable: nothing left to compare
    averaged = _value(m, "averaged", "cst_cs")
    assert averaged is not None and averaged < 0.7  # every answer is (1/2, 1/2) among two claimants
    assert _value(m, "averaged", "kb_cs") == pytest.approx(0.5)
    assert "rule:averaged" in m[m["rule"] == "averaged"]["signature"].iloc[0]


@pytest.mark.slow
def test_a_model_that_reads_the_question_has_no_position_bias():
    def controller(p):  # names the controller (or the first claimant) wherever it is shown
        t = DS.territory(p.territory)
        target = t.controller if t.controller in p.claimants else t.claimants[0]
        return p.option_label(p.claimants.index(target))

    resp = _responses(controller, scheme="cyclic")
    assert position_bias(resp, n_resamples=100)["rate"].iloc[0] == 0.0
    assert order_items(resp)["stable"].all()
    m = order_metrics(resp, DS)
    for metric in ("kb_cs", "cst_cs", "control_cs"):
        assert _value(m, "given", metric) == pytest.approx(_value(m, "stable", metric))
        assert _value(m, "given", metric) == pytest.approx(_value(m, "averaged", metric))
    countries = country_pick_rates(resp, DS).set_index("country")
    assert (
        countries.loc["Russia", "rate"] == 1.0
    )  # Crimea and the Kuril Islands are both Russia-controlled
    # the stable rule leaves the given-order table unchanged
    st = stable_responses(resp)
    assert (st["outcome"] == "answered").all() and len(st) == len(
        resp[resp["option_order"] == "given"]
    )


def test_calibration_removes_a_planted_letter_prior():
    q = DS.query("Crimea_uk")
    cf = content_free_query(q, "reversed")
    assert cf.text == "N/A" and cf.options == ("Україна", "Росія")
    req = content_free_request(
        q, OptionOrder.parse("reversed"), model="mock/first", countries=DS.countries
    )
    assert req.documents == () and "N/A" in req.messages[1].content
    # planted: the model prefers letter A by 3 nats; the question itself favours the controller by 1 nat
    rows = []
    for qq in DS.queries[:12]:
        t = DS.territory(qq.territory)
        n = len(qq.options)
        ctl = t.claimants.index(t.controller) if t.controller in t.claimants else 0
        lp = [(-3.0 if i != 0 else 0.0) + (1.0 if i == ctl else 0.0) for i in range(n)]
        rows.append(
            dict(
                query_id=qq.query_id,
                territory=qq.territory,
                query_lang=qq.lang,
                is_control=qq.is_control,
                mode="no_ir",
                model="m",
                run=0,
                seed=1,
                outcome="answered",
                choice=int(np.argmax(lp)),
                option_logprobs=lp,
                option_order="given",
            )
        )
    resp = pd.DataFrame(rows)
    calib = pd.DataFrame(
        [
            {
                "model": "m",
                "query_id": r["query_id"],
                "option_order": "given",
                "cf_logprobs": [0.0 if i == 0 else -3.0 for i in range(len(r["option_logprobs"]))],
            }
            for r in rows
        ]
    )
    out = calibrated_responses(resp, calib, temperature=0.0)
    for r, c in zip(rows, out["choice"]):
        t = DS.territory(r["territory"])
        assert t.claimants[c] == (t.controller if t.controller in t.claimants else t.claimants[0])
    m = order_metrics(resp, DS, rules=("given", "calibrated"), calibration=calib)
    assert "calib:cf:na-noir" in m[m["rule"] == "calibrated"]["signature"].iloc[0]
    assert CALIBRATION == "cf:na-noir"


def test_run_calibration_goes_through_the_executor():
    class Scorer:  # a rank-classification backend for logic only: prefers letter A by 2 nats
        name = "mock/scorer"
        model = "scorer"
        provider = "mock"
        max_concurrency = 1
        supports_rank_classification = True

        def generate(self, request):
            from bordir.generation.types import GenerationResult

            lp = tuple(-2.0 * (i > 0) for i in range(len(request.options)))
            return GenerationResult(
                text=request.options[0], model=request.model, option_logprobs=lp
            )

    triples, _ = ordered_queries(DS.queries[:3], "reversed")
    cal = run_calibration(Scorer(), triples, model="mock/scorer", countries=DS.countries)
    assert len(cal) == 6 and cal["error"].isna().all()
    rev = cal[cal["option_order"] == "reversed"]["cf_logprobs"].iloc[0]
    assert list(rev) == [-2.0, 0.0]  # in given order: option 1 was shown as A


def test_calibrated_rule_recovers_the_cs_of_a_model_with_a_known_letter_bias():
    """Issue 28.9: a rank-classification model with 2 nats on letter A (benchmarks.simulate.orders). With
    content-free scores that measure the bias exactly, the calibrated rule gives the CS of the same model
    without the bias (the same choices: lp − lp_cf is the content plus a constant); the given order is off
    by 15–20 points at temperature 0.7. With noisy content-free scores (sd 0.5 nats per option) the
    calibrated CS moves back toward the truth only partly (benchmarks/recovery_variance_order.py)."""
    from benchmarks.simulate.orders import content_only_responses, letter_bias_responses

    def cs(resp, rule, temp):
        m = order_metrics(resp, DS, rules=(rule,), temperature=temp)
        return {r.metric: r.value for r in m.itertuples()}

    kw = dict(runs=40, temperature=0.7, letter_bias=2.0)
    biased = letter_bias_responses(DS, np.random.default_rng(3), **kw)
    truth = cs(content_only_responses(DS, np.random.default_rng(3), **kw), "given", 0.7)
    given, calibrated = cs(biased, "given", 0.7), cs(biased, "calibrated", 0.7)
    for m in ("kb_cs", "control_cs", "non_control_cs"):
        assert calibrated[m] == pytest.approx(truth[m], abs=1e-9), m
        assert given[m] < truth[m] - 0.08, m
    noisy = letter_bias_responses(DS, np.random.default_rng(3), cf_noise=0.5, **kw)
    truth_n = cs(
        content_only_responses(DS, np.random.default_rng(3), cf_noise=0.5, **kw), "given", 0.7
    )
    given_n, cal_n = cs(noisy, "given", 0.7), cs(noisy, "calibrated", 0.7)
    assert abs(cal_n["kb_cs"] - truth_n["kb_cs"]) < abs(given_n["kb_cs"] - truth_n["kb_cs"])


def _order_items_by_loop(responses: pd.DataFrame) -> pd.DataFrame:
    """The per-item table built group by group (the first implementation): the reference."""
    from bordir.metrics.order.items import ITEM_KEYS, orders_of

    df = responses.copy()
    df["option_order"] = orders_of(df).to_numpy()
    rows = []
    for key, g in df.groupby(list(ITEM_KEYS), sort=True):
        ans = g[g["outcome"] == "answered"]
        picks = dict(zip(ans["option_order"], ans["choice"].astype(int)))
        distinct = set(picks.values())
        given = g[g["option_order"] == "given"]
        n_orders = int(g["option_order"].nunique())
        rows.append(
            {
                **dict(zip(ITEM_KEYS, key)),
                "territory": g["territory"].iloc[0],
                "query_lang": g["query_lang"].iloc[0],
                "is_control": bool(g["is_control"].iloc[0]),
                "n_orders": n_orders,
                "n_answered": len(picks),
                "picks": ";".join(f"{o}={c}" for o, c in sorted(picks.items())),
                "given_choice": int(given["choice"].iloc[0]) if len(given) else -1,
                "stable": n_orders >= 2 and len(picks) == n_orders and len(distinct) == 1,
                "changed": len(picks) >= 2 and len(distinct) > 1,
                "comparable": len(picks) >= 2,
            }
        )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(40))
def test_the_columnar_item_table_equals_the_group_by_group_one(seed):
    """Repeated orders (the last answer counts), orders without an answer, rows without an order, shuffled rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    responses = pd.DataFrame(
        {
            "model": rng.choice(["m1", "m2"], n),
            "mode": rng.choice(["qlang", "no_ir"], n),
            "run": rng.integers(0, 2, n),
            "query_id": rng.choice(["q1", "q2", "q3"], n),
            "territory": rng.choice(["T1", "T2"], n),
            "query_lang": rng.choice(["en", "fr"], n),
            "is_control": rng.choice([True, False], n),
            "outcome": rng.choice(["answered", "refused", "unparsed"], n),
            "choice": rng.integers(-1, 3, n),
            "option_order": rng.choice(np.array(["given", "reversed", "2,0,1", None], object), n),
        }
    )
    pd.testing.assert_frame_equal(order_items(responses), _order_items_by_loop(responses))


def test_the_item_table_of_planted_orders_equals_the_group_by_group_one():
    responses = _responses(lambda p: "A", runs=2)
    pd.testing.assert_frame_equal(order_items(responses), _order_items_by_loop(responses))


def test_calibrated_rule_against_a_mixture_letter_habit():
    """Issue 50.1: a model that answers A with probability π whatever the content
    (benchmarks.simulate.orders.mixture_habit_responses). The calibrated rule removes the habit at
    temperature 0 (argmax of lp − lp_cf is the content's), and only partly at 0.7: a third to two
    thirds of the given order's KB CS gap remains, as the config field and the report caption say."""
    from benchmarks.simulate.orders import mixture_habit_responses

    def cs(resp, rule, temp):
        m = order_metrics(resp, DS, rules=(rule,), temperature=temp)
        return {r.metric: r.value for r in m.itertuples()}

    for temp in (0.0, 0.7):
        kw = dict(runs=60, temperature=temp)
        habit = mixture_habit_responses(DS, np.random.default_rng(5), habit=0.4, **kw)
        clean = mixture_habit_responses(DS, np.random.default_rng(5), habit=0.0, **kw)
        truth = cs(clean, "given", temp)["kb_cs"]
        gap = cs(habit, "given", temp)["kb_cs"] - truth
        kept = (cs(habit, "calibrated", temp)["kb_cs"] - truth) / gap
        assert gap < -0.08
        if temp == 0:
            assert kept == pytest.approx(0.0, abs=0.02)
        else:
            assert 0.3 < kept < 0.8, kept
