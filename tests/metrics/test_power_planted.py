"""Power per language: a planted 10-point mode difference is detected with enough territories, not with three."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bordir.dataset import BorderLines
from bordir.loaders import load_demo
from bordir.metrics.perlang.power import PLANNING_SD, mde, min_territories, sign_flip_power
from bordir.metrics.perlang.power_tables import design_power, observed_power
from bordir.records import Country, Query, Territory
from bordir.stats import sign_flip_test


def synthetic(n_big: int = 150, n_thin: int = 3) -> BorderLines:
    """Territories claimed by Russia (controller) and Ukraine; the thin ones by Russia and Armenia."""
    countries = {
        "Russia": Country("Russia", "ru"),
        "Ukraine": Country("Ukraine", "uk"),
        "Armenia": Country("Armenia", "hy"),
    }
    territories, queries = [], []
    for i in range(n_big + n_thin):
        other = "Ukraine" if i < n_big else "Armenia"
        t = Territory(f"T{i}", ("Russia", other), "Russia", index=i)
        territories.append(t)
        queries.append(
            Query(
                f"T{i}_en",
                t.name,
                "en",
                f"Is T{i} a territory of A) Russia or B) {other}?",
                ("Russia", other),
                ("Russia", other),
                True,
            )
        )
        for lang in ("ru", countries[other].lang):
            queries.append(
                Query(
                    f"T{i}_{lang}",
                    t.name,
                    lang,
                    f"T{i}: A) Russia B) {other}?",
                    ("Russia", other),
                    ("Russia", other),
                )
            )
    controls = [q for q in queries if q.is_control]
    return BorderLines(
        "synthetic",
        tuple(territories),
        countries,
        tuple(controls + [q for q in queries if not q.is_control]),
    )


def planted_responses(
    ds: BorderLines, effect: float = 0.10, runs: int = 2, seed: int = 0
) -> pd.DataFrame:
    """no_ir: non-controller-language answers name the controller in half the territories; qlang: 10 points more."""
    rng = np.random.default_rng(seed)
    rows = []
    terrs = [t.name for t in ds.territories]
    base = {t: rng.random() < 0.5 for t in terrs}
    flip_pool = [t for t in terrs if not base[t]]
    n_flip = int(round(effect * len(terrs)))
    flipped = set(rng.choice(flip_pool, size=n_flip, replace=False))
    for q in ds.queries:
        for mode in ("no_ir", "qlang"):
            agree = (
                True
                if q.lang in ("ru", "en")
                else (base[q.territory] or (mode == "qlang" and q.territory in flipped))
            )
            for run in range(runs):
                rows.append(
                    dict(
                        query_id=q.query_id,
                        territory=q.territory,
                        query_lang=q.lang,
                        is_control=q.is_control,
                        mode=mode,
                        model="mock/x",
                        run=run,
                        outcome="answered",
                        choice=0 if agree else 1,
                    )
                )
    return pd.DataFrame(rows)


def test_exact_power_matches_the_sign_flip_test_it_models():
    # with n = 5 the smallest two-sided p-value is 2/32 > 0.05: never detected
    assert mde(5) is None and mde(6) is not None
    assert sign_flip_power(5, 1.0, 1.0) == 0.0 and sign_flip_power(6, 1.0, 1.0) == pytest.approx(
        1.0
    )
    # monte-carlo check of the exact power under the ternary model
    rng = np.random.default_rng(3)
    n, delta, psi = 40, 0.25, 0.45
    hits = 0
    for _ in range(300):
        d = rng.choice([1.0, -1.0, 0.0], size=n, p=[(psi + delta) / 2, (psi - delta) / 2, 1 - psi])
        hits += sign_flip_test(d, n_permutations=999, seed=int(rng.integers(1 << 30))) <= 0.05
    assert abs(hits / 300 - sign_flip_power(n, delta, psi)) < 0.08
    assert mde(1000) < mde(100) < mde(20) and min_territories(mde(100)) <= 100


def test_planted_ten_points_detected_in_a_big_language_undetectable_in_a_thin_one():
    ds = synthetic()
    resp = planted_responses(ds)
    table = observed_power(resp, ds).set_index(["query_lang", "metric"])
    big, thin = table.loc[("uk", "non_control_cs")], table.loc[("hy", "non_control_cs")]
    assert big["n_territories"] == 150 and not big["thin"] and big["sd_source"] == "observed"
    assert big["detectable"] and big["mde"] <= 0.10
    assert thin["n_territories"] == 3 and thin["thin"] and not thin["detectable"]
    assert "lang:hy" in thin["signature"] and "test:signflip-exact" in thin["signature"]
    # and the paired test the report runs does detect the planted difference in the big language
    it = resp[(resp["query_lang"] == "uk") & (resp["run"] == 0)].pivot(
        index="territory", columns="mode", values="choice"
    )
    d = (it["no_ir"] - it["qlang"]).to_numpy(
        float
    )  # choice 0 = controller: +1 where qlang agrees and no_ir not
    assert d.mean() == pytest.approx(0.10, abs=0.01)
    assert sign_flip_test(d, n_permutations=1999, seed=1) < 0.05
    it3 = resp[(resp["query_lang"] == "hy") & (resp["run"] == 0)].pivot(
        index="territory", columns="mode", values="choice"
    )
    assert (
        sign_flip_test((it3["no_ir"] - it3["qlang"]).to_numpy(float), n_permutations=999, seed=1)
        > 0.05
    )


def test_design_power_before_a_run():
    ds = load_demo()
    t = design_power(ds.queries, ds)
    assert set(t["sd_source"]) == {"planning"} and (t["sd"] == PLANNING_SD).all()
    assert t[t["query_lang"] != "*"][
        "thin"
    ].all()  # every demo language has fewer than 10 territories
    pooled = t[t["query_lang"] == "*"].set_index("metric")
    assert pooled.loc["kb_cs", "n_territories"] == sum(x.controller_known for x in ds.territories)
    assert not t[t["query_lang"] != "*"]["detectable"].any()


# --- issue 28.3: the MDE counts runs -------------------------------------------------------------
def test_pooled_runs_lower_the_mde_below_the_ternary_floor():
    """With several runs the differences are not ternary: at 20 territories the ternary model's floor
    (ψ ≥ |δ|) kept the MDE at 0.37 for any σ_d ≤ 0.4; pooled runs detect smaller effects."""
    ternary = mde(20, sigma_d=0.2)
    assert ternary == pytest.approx(
        mde(20, sigma_d=0.35), abs=1e-3
    )  # the floor: σ_d does not matter
    three, ten = mde(20, sigma_d=0.35, runs=3), mde(20, sigma_d=0.2, runs=10)
    assert three < ternary - 0.08 and ten < three
    assert min_territories(0.1, sigma_d=0.2, runs=10) < min_territories(0.1, sigma_d=0.2)


def test_analytic_branch_above_400_agrees_with_the_exact_power():
    """The normal approximation used above 400 territories gave 76.5 % power at its MDE; now the two
    branches meet: the MDE at 401 is the exact one at 400 to within 0.002."""
    from bordir.metrics.perlang.power import _psi, analytic_power

    assert mde(401) == pytest.approx(mde(400), abs=0.002)
    for delta, sd in ((0.07, 0.5), (0.05, 0.35), (0.1, 0.6)):
        exact = sign_flip_power(401, delta, round(_psi(delta, sd), 6))
        assert analytic_power(401, delta, sd) == pytest.approx(exact, abs=0.015)


@pytest.mark.parametrize("design,runs,n", [("beta", 3, 60), ("beta", 10, 20), ("movers", 3, 20)])
def test_power_at_the_reported_mde_is_eighty_percent(design, runs, n):
    """Measured (1,000 datasets, benchmarks/power_mde.py): 76.8–83.7 % in every cell. 300 datasets give a
    Monte Carlo SE of 2.3 points: the band 0.80 ± 0.07 is 3 SE wide."""
    from benchmarks.simulate.power import power_check

    r = power_check(
        np.random.default_rng(runs * 100 + n),
        n=n,
        runs=runs,
        design=design,
        n_sets=300,
        n_flips=999,
    )
    assert r["mde"] is not None and abs(r["power"] - 0.80) <= 0.07, r


def test_observed_power_uses_the_grid_of_the_pooled_differences():
    ds = synthetic(n_big=60, n_thin=0)
    rng = np.random.default_rng(5)
    resp = planted_responses(ds, runs=3)
    # answers that differ between runs: the pooled differences are on a grid of thirds
    flip = rng.random(len(resp)) < 0.25
    resp.loc[flip & ~resp["is_control"], "choice"] = (
        1 - resp.loc[flip & ~resp["is_control"], "choice"]
    )
    table = observed_power(resp, ds).set_index(["query_lang", "metric"])
    row = table.loc[("uk", "non_control_cs")]
    assert row["runs"] == 3 and row["method"] == "analytic" and "grid:3" in row["signature"]
    shape = (row["skew"], row["kurtosis"])  # the differences' own shape (issue 50.5)
    assert row["mde"] == pytest.approx(mde(60, sigma_d=row["sd"], runs=3, shape=shape))
    fixed = observed_power(planted_responses(ds, runs=3), ds).set_index(["query_lang", "metric"])
    assert (
        fixed.loc[("uk", "non_control_cs"), "runs"] == 1
    )  # identical runs: ternary, the exact model


def _per_territory_run_by_run(responses: pd.DataFrame, dataset: BorderLines) -> pd.DataFrame:
    """The reference: one frame per (model, mode, run) table, then the mean over runs."""
    from bordir.metrics.cs.tables import territory_tables

    frames = []
    for (model, mode, run), ts in territory_tables(responses, dataset, validate=False).items():
        it = ts.items[
            ~ts.items["missing"].astype(bool) & ts.items["role"].isin(["control", "non_control"])
        ]
        frames.append(pd.DataFrame({"model": model, "mode": mode, "run": run, "territory": it["territory"],
                                    "query_lang": it["query_lang"], "metric": it["role"] + "_cs",
                                    "value": it["agree"].astype(float)}))  # fmt: skip
        t = ts.table
        for metric, num, den in (("kb_cs", "kb_num", "kb_den"), ("cst_cs", "cst_num", "cst_den")):
            sel = t[t[den] > 0]
            frames.append(pd.DataFrame({"model": model, "mode": mode, "run": run, "territory": sel["territory"],
                                        "query_lang": "*", "metric": metric, "value": sel[num]}))  # fmt: skip
    df = pd.concat(frames, ignore_index=True)
    keys = ["model", "mode", "territory", "query_lang", "metric"]
    return df.groupby(keys, as_index=False)["value"].mean()


@pytest.mark.parametrize("runs", [1, 3])
def test_per_territory_is_the_run_by_run_mean_bit_for_bit(runs, tmp_path):
    """The long-table per_territory (one pass over every run) against one frame per run."""
    import bordir
    from bordir.metrics.perlang.power_tables import per_territory

    run = bordir.run({"models": ["mock/planted:uk+ru+ja", "mock/first"], "modes": ["no_ir", "qlang", "rel_langs"],
                      "runs": runs, "k": 2, "temperature": 0.7}, progress=False, cache=tmp_path / "c.sqlite3")  # fmt: skip
    ds = load_demo()
    got = per_territory(run.responses, ds)
    pd.testing.assert_frame_equal(
        got, _per_territory_run_by_run(run.responses, ds), check_exact=True
    )
    assert set(got["metric"]) == {"control_cs", "non_control_cs", "kb_cs", "cst_cs"}
    assert len(got) > 100
