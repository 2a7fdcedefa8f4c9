"""A run asked in two option orders, end to end on the mock backend: rows, cache, report, dry run, plan."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bordir.experiment.config import ExperimentConfig

from ..conftest import invoke_cli

pytest.importorskip("matplotlib")


def _cfg(tmp_path, **extra):
    return ExperimentConfig.from_dict(
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": ["mock/first"],
            "modes": "no_ir,qlang",
            "k": 2,
            "runs": 2,
            "option_orders": "reversed",
            "cache": str(tmp_path / "cache.sqlite3"),
            **extra,
        }
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from bordir.runner.run import run

    tmp = tmp_path_factory.mktemp("orders")
    out = tmp / "run"
    run(_cfg(tmp), out=out, progress=False)
    return out


def test_every_row_has_its_order_and_the_country(run_dir):
    from bordir.loaders import load_demo

    ds = load_demo()
    df = pd.read_parquet(run_dir / "responses.parquet")
    assert set(df["option_order"]) == {"given", "reversed"}
    assert len(df) == 2 * len(df[df["option_order"] == "given"])
    assert (df["choice_position"] == 0).all()  # mock/first always answers A
    for r in df.itertuples():
        assert ds.territory(r.territory).claimants[r.choice] == r.choice_name
    rev = df[
        (df["option_order"] == "reversed")
        & (df["query_id"] == "Crimea_uk")
        & (df["mode"] == "no_ir")
    ]
    assert (
        rev["choice_name"].iloc[0] == "Ukraine"
        and "A) Україна чи B) Росія" in rev["prompt"].iloc[0]
    )
    assert "orders:reversed" in df["signature"].iloc[0]


def test_rerun_is_served_from_the_cache(run_dir, tmp_path):
    from bordir.runner.run import run

    again = run(_cfg(run_dir.parent), out=tmp_path / "again", progress=False)
    assert again.info["calls"]["cached"] == again.info["calls"]["requests"] > 0


@pytest.mark.slow
def test_report_has_the_order_power_variance_sections(run_dir):
    from bordir.report import build_report

    html_path = build_report(run_dir, n_resamples=100, seed=1)
    metrics = json.loads((run_dir / "metrics.json").read_text())
    pooled = [r for r in metrics["option_order"]["position_bias"] if r["mode"] == "*"][0]
    assert pooled["rate"] == pytest.approx(1.0)
    om = pd.DataFrame(metrics["option_order"]["order_metrics"])
    cst = om[(om["metric"] == "cst_cs") & (om["mode"] == "no_ir")].set_index("rule")["value"]
    assert cst["given"] == pytest.approx(1.0) and pd.isna(cst["stable"]) and cst["averaged"] < 1.0
    assert {r["query_lang"] for r in metrics["power"]} >= {"*", "ru", "uk"}
    assert metrics["variance"] and metrics["answer_lang"] is not None
    page = html_path.read_text()
    for anchor in (
        'id="option-order"',
        'id="plot-pick_rates"',
        'id="power"',
        'id="plot-power"',
        'id="variance"',
        'id="answer-language"',
        "Position bias of mock/first (answers at temperature 0.5): answers change with the option "
        "order in 100.0 % of pairs and between two runs in one order in 0.0 %",
    ):
        assert anchor in page
    assert (run_dir / "plots" / "pick_rates.png").stat().st_size > 1000
    # the main metrics use the given order only, as the papers
    assert metrics["results"]["mock/first"]["no_ir"]["metrics"]["cst_cs"]["mean"] == pytest.approx(
        1.0
    )


@pytest.mark.slow
def test_dry_run_and_plan_print_power(tmp_path):
    cfg = tmp_path / "exp.toml"
    cfg.write_text(
        '[experiment]\ndataset = "demo"\nmodels = ["mock/first"]\nmodes = "no_ir,qlang"\nk = 2\n'
        f'runs = 2\noption_orders = "reversed"\ncache = "{tmp_path / "c.sqlite3"}"\n'
    )
    res = invoke_cli("run", str(cfg), "--out", str(tmp_path / "r"), "--dry-run")
    assert res.returncode == 0, res.stderr
    assert "power (MDE x100, two modes)" in res.stdout and "language cells thin" in res.stdout
    assert not any(line.strip() == "thin" for line in res.stdout.splitlines())
    res = invoke_cli("run", str(cfg), "--out", str(tmp_path / "r"), "--dry-run", "--verbose")
    assert "minimum detectable difference" in res.stdout
    res = invoke_cli("plan", str(cfg), "--target-mde", "0.3")
    assert res.returncode == 0, res.stderr
    assert "territories for 30" in res.stdout and "signature: plan|target:0.3" in res.stdout
    res = invoke_cli("plan", str(cfg), "--target-mde", "2")
    assert res.returncode == 2 and "Traceback" not in res.stderr


def test_in_memory_run_scores_the_given_order(tmp_path):
    from bordir.runner.run import run

    r = run(_cfg(tmp_path), progress=False)
    assert set(r.responses["option_order"]) == {"given", "reversed"}
    scores = r.scores()
    cst = scores[(scores["metric"] == "cst_cs") & (scores["mode"] == "no_ir")]["value"]
    assert (cst == 1.0).all()  # the papers' reading of an always-A model
    assert len(r.compare("qlang", "no_ir"))


class _LetterScorer:
    """Rank classification for logic only: letter A scores 2 nats above the others, whatever the option."""

    name = "mock/scorer"
    model = "scorer"
    provider = "mock"
    max_concurrency = 1
    supports_rank_classification = True

    def generate(self, request):
        from bordir.generation.types import GenerationResult

        lp = tuple(-2.0 * (i > 0) for i in range(len(request.options)))
        return GenerationResult(text=request.options[0], model=request.model, option_logprobs=lp)


@pytest.mark.slow
def test_rank_classification_run_is_calibrated_and_scored_at_temperature_zero(tmp_path):
    from bordir.report import build_report
    from bordir.runner.run import run

    cfg = _cfg(tmp_path, models=["mock/scorer"], modes="no_ir", runs=3)
    r = run(cfg, out=tmp_path / "rank", progress=False, backends={"mock/scorer": _LetterScorer()})
    df = r.responses
    rev = df[(df["option_order"] == "reversed") & (df["query_id"] == "Crimea_uk")].iloc[0]
    assert list(rev["option_logprobs"]) == [
        -2.0,
        0.0,
    ]  # given order: Ukraine (option 1) was shown as A
    given = df[df["option_order"] == "given"]
    assert (
        given["cf_logprobs"].notna().all()
        and df[df["option_order"] == "reversed"]["cf_logprobs"].isna().all()
    )
    build_report(tmp_path / "rank", n_resamples=50, seed=1)
    m = json.loads((tmp_path / "rank" / "metrics.json").read_text())["option_order"]
    assert m["position_bias_argmax"][0]["rate"] == pytest.approx(1.0)
    assert m["calibration"] == "cf:na-noir"
    om = pd.DataFrame(m["order_metrics"])
    cal = om[(om["rule"] == "calibrated") & (om["metric"] == "kb_cs")].iloc[0]
    assert "calib:cf:na-noir" in cal["signature"]
    # the content-free scores carry the same letter prior: calibrated, every option ties and the
    # choice is a fair draw, no longer always the country listed first
    assert 0.0 <= cal["value"] <= 1.0
    given_kb = om[(om["rule"] == "given") & (om["metric"] == "kb_cs")].iloc[0]["value"]
    assert given_kb is not None
