"""``bordir report``: metrics.json, tables, plots and a report.html that renders in headless Chromium.

The run directory is synthetic (no LLM is called): responses.parquet with the
runner's columns for the demo dataset, 2 models × 6 modes × 3 runs, and a
run.json as the runner writes it.

* ``mock/controller`` always answers the controller (option A for Unknown
  controllers), so every CS it has is 1 and ΔCS is 0 — computed by hand below.
* ``mock/noisy`` answers the controller with a mode-dependent probability
  (rel_langs 0.95, no_ir 0.4), otherwise a random claimant; about 10 % of its
  responses are refused, unparsed, multiple or failed.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bordir import __version__
from bordir.errors import DataError
from bordir.experiment.config import ExperimentConfig
from bordir.experiment.seeds import PAPER_SEEDS
from bordir.loaders import load_demo
from bordir.metrics import METRICS
from bordir.report import build_report
from bordir.retrieval import swap_skip_reason
from bordir.runner.rows import RESPONSE_COLUMNS

from ..rundirs import record_by_hand, rerecord

pytestmark = pytest.mark.slow  # the tests read one built report (plots, tables, HTML)

MODELS = ("mock/controller", "mock/noisy")
N_RUNS = 3
P_CONTROLLER = {
    "no_ir": 0.4,
    "qlang": 0.7,
    "qlang+en": 0.75,
    "en_only": 0.7,
    "rel_langs": 0.95,
    "swap_docs": 0.6,
}
B = 300  # resamples: enough for the checks, fast


def _row(
    q, mode: str, model: str, run: int, seed: int, outcome: str, choice: int, claimants
) -> dict:
    return {
        "query_id": q.query_id,
        "territory": q.territory,
        "query_lang": q.lang,
        "is_control": q.is_control,
        "mode": mode,
        "model": model,
        "run": run,
        "seed": seed,
        "temperature": 0.5,
        "outcome": outcome,
        "choice": choice,
        "choice_name": claimants[choice] if choice >= 0 else "",
        "raw_text": f"<{outcome}>",
        "prompt": "[]",
        "cited_doc_ids": [],
        "n_cited_dropped": 0,
        "doc_ids": [] if mode == "no_ir" else [f"d{q.lang}1", "den2"],
        "doc_langs": [] if mode == "no_ir" else [q.lang, "en"],
        "input_tokens": 100,
        "output_tokens": 2,
        "latency_s": 0.01,
        "cached": False,
        "error": "boom" if outcome == "failed" else None,
        "option_logprobs": None,
        "signature": f"mode:{mode}|gen:{model}|synthetic",
    }


def make_run_dir(path: Path) -> Path:
    """A run directory as `bordir run` writes it, with synthetic responses."""
    ds = load_demo()
    cfg = ExperimentConfig(dataset="demo", models=MODELS, seeds=PAPER_SEEDS[:N_RUNS])
    rng = np.random.default_rng(20240611)
    rows = []
    for model in MODELS:
        for mode in cfg.modes:
            for q in ds.queries:
                if mode == "swap_docs" and swap_skip_reason(q, ds):
                    continue
                terr = ds.territory(q.territory)
                target = (
                    terr.claimants.index(terr.controller)
                    if terr.controller in terr.claimants
                    else 0
                )
                for run, seed in enumerate(cfg.seeds):
                    outcome, choice = "answered", target
                    if model == "mock/noisy":
                        u = rng.random()
                        if u < 0.10:
                            outcome, choice = (
                                ("refused", "unparsed", "multiple", "failed")[int(u * 40) % 4],
                                -1,
                            )
                        elif rng.random() > P_CONTROLLER[mode]:
                            choice = int(rng.integers(len(terr.claimants)))
                    rows.append(_row(q, mode, model, run, seed, outcome, choice, terr.claimants))
    df = pd.DataFrame(rows, columns=RESPONSE_COLUMNS)
    path.mkdir(parents=True, exist_ok=True)
    df.to_parquet(path / "responses.parquet", index=False)
    skipped = [
        {"query_id": q.query_id, "mode": "swap_docs", "reason": r}
        for q in ds.queries
        if (r := swap_skip_reason(q, ds))
    ]
    n_failed = int((df["outcome"] == "failed").sum())
    info = {
        "bordir_version": __version__,
        "config": cfg.to_dict(),
        "packages": {"python": "3.11"},
        "git_revision": None,
        "dataset": {
            "name": ds.name,
            "signature": ds.signature,
            "warnings": list(ds.warnings),
            "repairs": [],
        },
        "corpus": {"name": "demo", "hash": "sha256-synthetic", "passages": 0},
        "retrieval": {"signature": "bm25|synthetic"},
        "queries": len(ds.queries),
        "responses": len(df),
        "calls": {"requests": len(df), "cached": 0, "failed": n_failed},
        "skipped": skipped,
        "started": "2025-01-01T00:00:00+00:00",
        "finished": "2025-01-01T00:01:00+00:00",
    }
    (path / "run.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    record_by_hand(path, "run", files=("run.json", "responses.parquet"))
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    run_dir = make_run_dir(tmp_path_factory.mktemp("run"))
    return build_report(run_dir, n_resamples=B, seed=7)


@pytest.fixture(scope="module")
def metrics(report) -> dict:
    return json.loads((report.parent / "metrics.json").read_text(encoding="utf-8"))


# --- metrics.json ----------------------------------------------------------------


def test_metrics_json_is_strict_and_complete(report, metrics):
    text = (report.parent / "metrics.json").read_text(encoding="utf-8")
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert metrics["models"] == list(MODELS)
    assert metrics["modes"] == ["no_ir", "qlang", "qlang+en", "en_only", "rel_langs", "swap_docs"]
    assert metrics["run"]["config"]["models"] == list(MODELS)
    boot = metrics["settings"]["boot95"]
    assert boot == {
        "method": boot["method"],
        "n_resamples": B,
        "seed": 7,
        "delta_cs_norm": boot["delta_cs_norm"],
        "refused": boot["refused"],
    }
    # the headline ΔCS has the plain name; the normalised form is named and described apart
    assert "pooled over runs" in boot["delta_cs_norm"] and "fewer than 5" in boot["refused"]
    assert metrics["settings"]["headline_delta"].startswith("delta_cs (Control − Non-control)")
    assert metrics["signature"].startswith("report|") and "boot:300|" in metrics["signature"]
    for model in MODELS:
        for mode in metrics["modes"]:
            cell = metrics["results"][model][mode]
            assert cell["n_runs"] == N_RUNS and cell["runs"] == [0, 1, 2]
            assert set(cell["metrics"]) == set(METRICS)
            for m, e in cell["metrics"].items():
                assert {"mean", "ci95", "boot95", "bootstrap", "runs", "note", "signature"} <= set(
                    e
                )
                assert (
                    e["signature"].startswith(f"{m}|mode:{mode}|")
                    and f"gen:{model}" in e["signature"]
                )
                assert "|ci:t95|boot:300|seed:7|version:" in e["signature"]
                assert len(e["runs"]) == N_RUNS


def test_controller_model_by_hand(metrics):
    """Always the controller: KB = Control = Non-control = Cst = 1, ΔCS = 0, with the demo's counts."""
    cell = metrics["results"]["mock/controller"]["no_ir"]["metrics"]
    for m in ("kb_cs", "control_cs", "non_control_cs", "cst_cs", "cst_cs_unknown"):
        assert cell[m]["mean"] == 1.0, m
        assert cell[m]["ci95"] == [1.0, 1.0], m
    for m in ("kb_cs", "control_cs", "non_control_cs", "cst_cs"):
        assert cell[m]["boot95"] == [1.0, 1.0], m
    # Cst CS unk rests on the 2 Unknown-controller territories: fewer than 5, so no interval over
    # territories is given (MIN_INTERVAL_CLUSTERS), with the reason, never a misleading [1, 1]
    unk = cell["cst_cs_unknown"]
    assert unk["boot95"] is None and unk["terr95"] is None
    assert "only 2 contributing territories" in unk["bootstrap"]["refused"]
    assert "only 2 contributing territories" in unk["territory_interval"]["refused"]
    assert cell["delta_cs_norm"]["mean"] == 0.0 and cell["delta_cs"]["mean"] == 0.0
    # 12 territories, 10 with a known controller; 11 have >= 2 claimant-language answers (13 pairs)
    assert [r["numerator"] for r in cell["kb_cs"]["runs"]] == [10.0] * 3
    assert [r["denominator"] for r in cell["kb_cs"]["runs"]] == [10] * 3
    assert [(r["denominator"], r["items"]) for r in cell["cst_cs"]["runs"]] == [(11, 13)] * 3
    assert [r["denominator"] for r in cell["cst_cs_unknown"]["runs"]] == [2] * 3
    langs = [
        r for r in metrics["languages"] if r["model"] == "mock/controller" and r["mode"] == "no_ir"
    ]
    ru = next(r for r in langs if r["query_lang"] == "ru")
    assert (
        ru["control_cs"]["mean"] == 1.0 and ru["control_n"] == 2 * N_RUNS
    )  # Crimea, Kuril Islands
    assert ru["non_control_cs"]["mean"] is None and ru["non_control_n"] == 0


def test_swap_docs_kb_is_null_with_a_note(metrics):
    for model in MODELS:
        kb = metrics["results"][model]["swap_docs"]["metrics"]["kb_cs"]
        assert kb["mean"] is None and kb["ci95"] is None and kb["boot95"] is None
        assert all(r["value"] is None for r in kb["runs"])
        assert "swap_docs" in kb["note"] and "control" in kb["note"]
    assert any("swap_docs" in n and "KB CS" in n for n in metrics["notes"])


def test_noisy_model_and_comparisons(metrics):
    res = metrics["results"]["mock/noisy"]
    assert res["rel_langs"]["metrics"]["cst_cs"]["mean"] > res["no_ir"]["metrics"]["cst_cs"]["mean"]
    boot = res["no_ir"]["metrics"]["cst_cs"]["boot95"]
    assert boot[0] <= res["no_ir"]["metrics"]["cst_cs"]["mean"] <= boot[1]
    cmp = metrics["comparisons"]
    # 2 models × 5 IR modes × 3 metrics, minus KB for swap_docs
    assert len(cmp) == 2 * (5 * 3 - 1)
    assert all(c["a"] == "no_ir" and c["p_holm"] >= c["p_value"] for c in cmp)
    assert all(c["mode"] == c["b"] for c in cmp)  # the old name, kept for older readers
    flat = [c for c in cmp if c["model"] == "mock/controller"]
    assert all(c["diff"] == 0.0 and c["p_value"] == 1.0 for c in flat)
    rel = next(
        c
        for c in cmp
        if c["model"] == "mock/noisy" and c["b"] == "rel_langs" and c["metric"] == "cst_cs"
    )
    assert rel["diff"] > 0 and rel["p_value"] < 0.05 and rel["status"] == "judged"
    # the demo's 12 territories: the permutation p-value, no bootstrap interval (docs/metrics.md)
    assert rel["ci_low"] is None and rel["ci95"] is None and "needs 30" in rel["ci_refused"]
    assert "cmp:no_ir-vs-rel_langs" in rel["signature"] and "gen:mock/noisy" in rel["signature"]
    assert rel["p_value"] >= 1 / (B + 1)


def test_outcomes_and_warnings(metrics):
    noisy = [r for r in metrics["outcomes"] if r["model"] == "mock/noisy"]
    cells = metrics["results"]["mock/noisy"]
    assert sum(r["n"] for r in noisy) == sum(cells[m]["n_responses"] for m in metrics["modes"])
    assert sum(r["n_refused"] + r["n_unparsed"] for r in noisy) > 0
    for r in metrics["outcomes"]:
        assert math.isclose(
            sum(r[f"rate_{o}"] for o in ("answered", "refused", "multiple", "unparsed", "failed")),
            1.0,
        )
    ctl = [r for r in metrics["outcomes_overall"] if r["model"] == "mock/controller"]
    assert all(r["rate_answered"] == 1.0 for r in ctl)
    warnings = "\n".join(metrics["warnings"])
    assert (
        "pairs dropped: swap_docs:" in warnings
    )  # with the cause (25.1), not "the mode is undefined"
    assert sum(c["n"] for c in metrics["run"]["dropped"]["causes"]) == 11
    assert "calls failed" in warnings


# --- tables, plots, html ------------------------------------------------------


def test_tables_have_captions(report, metrics):
    tables = report.parent / "tables"
    for name in ("main", "comparisons"):
        md = (tables / f"{name}.md").read_text(encoding="utf-8")
        tex = (tables / f"{name}.tex").read_text(encoding="utf-8")
        csv = pd.read_csv(tables / f"{name}.csv")
        assert "\\caption{" in tex and "\\begin{tabular}" in tex and "\\end{table}" in tex
        assert len(csv) > 0
        for text in (md, tex):
            assert "bootstrap" in text and "300 resamples" in text and "seed 7" in text
            if name == "main":
                assert "t-interval over runs" in text and "ddof = 1" in text
            else:
                assert "permutation test" in text and "Holm" in text
    main = pd.read_csv(tables / "main.csv")
    assert len(main) == 2 * 6
    row = main[(main["model"] == "mock/controller") & (main["mode"] == "no_ir")].iloc[0]
    assert row["kb_cs_mean"] == 1.0 and row["cst_cs_t_low"] == 1.0
    assert main[main["mode"] == "swap_docs"]["kb_cs_mean"].isna().all()
    assert "| mock/controller | no_ir |" in (tables / "main.md").read_text(encoding="utf-8")
    assert "mock/controller & no\\_ir" in (tables / "main.tex").read_text(encoding="utf-8")


def test_plots_exist(report):
    plots = report.parent / "plots"
    for name in ("scores", "languages", "outcomes"):
        png, svg = plots / f"{name}.png", plots / f"{name}.svg"
        assert png.stat().st_size > 5000, name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in svg.read_text(encoding="utf-8")[:2000]


def test_html_is_self_contained(report):
    html = report.read_text(encoding="utf-8")
    # the report's 3 plots, then one or more per section (per-language, power, ...): every image inline
    assert html.count('src="data:image/png;base64,') == html.count("<img ") >= 3
    assert "<table" in html and "mock/controller" in html and "swap_docs" in html
    assert "http://" not in html and "https://" not in html  # nothing to fetch
    assert "report|" in html  # the signature


def _same_report(ours: Path, theirs: Path) -> None:
    """Every file of two reports of one run is the same, but for when and where they were written."""
    files = sorted(p.relative_to(ours) for p in ours.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file())
    for rel in files:
        if rel.suffix in (".png", ".svg", ".csv", ".md", ".tex", ".parquet"):
            assert (ours / rel).read_bytes() == (theirs / rel).read_bytes(), rel
    m_ours, m_theirs = (json.loads((d / "metrics.json").read_text("utf-8")) for d in (ours, theirs))
    for m in (m_ours, m_theirs):
        assert m.pop("generated") and m.pop("run_dir")
    assert m_ours == m_theirs


@pytest.mark.slow
def test_cli_report(report, tmp_path, monkeypatch, capsys):
    """``bordir report`` on 2 CPUs (the per-language section drawn in a forked child) writes the
    files the fixture's report (built in one process on the worker's one CPU) has."""
    from bordir import _fork
    from bordir.cli import main
    from bordir.cli.main import cli
    from bordir.cli.report import report_cmd

    monkeypatch.setitem(cli.commands, "report", report_cmd)  # until main.py registers it
    monkeypatch.setattr(_fork, "cpus", lambda: 2)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for name in ("run.json", "responses.parquet", "record.json"):
        shutil.copy(report.parent / name, run_dir / name)
    assert main(["report", str(run_dir), "--resamples", str(B), "--seed", "7", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"] == str(run_dir / "report.html") and out["signature"].startswith("report|")
    assert f"|boot:{B}|perm:{B}|seed:7|" in out["signature"]
    _same_report(report.parent, run_dir)
    kb = out["results"]["mock/controller"]["no_ir"]["kb_cs"]
    assert (
        kb["mean"] == 1.0
        and kb["ci95"] == [1.0, 1.0]
        and kb["signature"].startswith("kb_cs|mode:no_ir|")
    )
    assert out["results"]["mock/noisy"]["swap_docs"]["kb_cs"]["mean"] is None
    # the text summary of `bordir report`: tests/runner/test_workflow_e2e.py::test_cli_path_writes_a_report_...
    assert main(["report", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bordir: error: ") and err.count("\n") == 1 and "record.json" in err


def test_invalid_run_dirs(tmp_path):
    with pytest.raises(DataError, match="no such directory; not a bordir output directory"):
        build_report(tmp_path / "missing")
    with pytest.raises(DataError, match=r"record\.json: file not found"):
        build_report(tmp_path)
    (tmp_path / "run.json").write_text("{not json", encoding="utf-8")
    record_by_hand(tmp_path, "run", ("run.json",))  # a record of the run that wrote it
    with pytest.raises(DataError, match=r"run\.json:1: not valid JSON"):
        build_report(tmp_path)
    (tmp_path / "run.json").write_text(
        json.dumps({"config": {"dataset": "demo"}}), encoding="utf-8"
    )
    rerecord(tmp_path)
    with pytest.raises(DataError, match=r"responses\.parquet: file not found"):
        build_report(tmp_path)
    pd.DataFrame({"query_id": ["Crimea_uk"]}).to_parquet(tmp_path / "responses.parquet")
    with pytest.raises(DataError, match=r"responses\.parquet: field 'territory': missing column"):
        build_report(tmp_path)


# --- a real browser -----------------------------------------------------------


def _chromium() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--virtual-time-budget=5000",
)


def test_report_renders_in_chromium(report, tmp_path):
    exe = _chromium()
    if exe is None:
        pytest.skip("no chromium binary (apt-get install chromium)")
    url = report.resolve().as_uri()
    common = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=90)
    assert dom.returncode == 0, dom.stderr[-2000:]
    import re

    body = re.search(r"<body([^>]*)>", dom.stdout)
    assert body, dom.stdout[:500]
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    assert attrs.get("data-ready") == "1", attrs
    n_img = report.read_text(encoding="utf-8").count("<img ")
    assert n_img >= 3 and attrs["data-images-total"] == attrs["data-images-loaded"] == str(n_img), (
        attrs
    )
    assert (
        int(attrs["data-tables-total"]) >= 2
        and attrs["data-tables-visible"] == attrs["data-tables-total"]
    ), attrs

    shot = tmp_path / "shot.png"
    res = subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1280,2000", url],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert res.returncode == 0 and shot.is_file(), res.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as im:
        colours = im.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, tables and plots, not a blank page
