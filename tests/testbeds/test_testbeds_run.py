"""The four testbeds end to end: the loopback OpenAI-protocol server and the local model, on RGB's files and the demo.

Runs go through the real response cache and executor; a re-run calls nothing;
``bordir report`` renders the directory; the RGB-format prediction files that a
run writes re-score (``bordir testbed score``) to the run's own rgb numbers.
"""

from __future__ import annotations

import json
import re
import shutil

import pandas as pd
import pytest

from bordir.testbeds.instructions import get_instruction
from bordir.testbeds.rescore import rescore_predictions
from bordir.testbeds.runner import TestbedConfig, run_testbed

from ..conftest import SHARED, invoke_cli, run_cli
from ..loopback import loopback  # noqa: F401  (fixture)

RGB = SHARED / "data" / "rgb"
MODEL = "openai-compatible/loop-model"
FILES = {
    "noise": "zh_refine.json",
    "rejection": "zh_refine.json",
    "integration": "zh_int.json",
    "counterfactual": "zh_fact.json",
}


def _reply(body: dict) -> str:
    """Refuse when no document names an option, else answer with the first option named in the documents."""
    user = body["messages"][-1]["content"]
    if body["model"] == "judge-model":  # RGB's judge prompts: a fixed verdict each
        if "Question:" in user:
            return "No, the question is not addressed by the documents."
        return "NO, the model fail to identify the factual errors."
    if (
        "Is " in user and ") " in user
    ):  # a territorial query: answer with the option the documents name most
        opts = re.findall(r"[A-H]\) ([^?]+?)(?: or |\?)", user.split("Question:")[-1])
        docs = user.split("Question:")[0]
        if opts:
            best = max(opts, key=docs.count)
            if docs.count(best):
                return f"The answer is {best}."
    if len(user) < 80:
        return "I can not answer the question because of the insufficient information in documents."
    return user[:60]


@pytest.fixture
def server(loopback, monkeypatch, tmp_path):  # noqa: F811
    loopback.reply.text = _reply
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    return loopback


def _rgb_dir():
    if not (RGB / "zh_refine.json").is_file():
        pytest.skip("../shared/data/rgb is not present")
    return RGB


@pytest.mark.slow
@pytest.mark.parametrize("testbed", ["noise", "rejection", "integration", "counterfactual"])
def test_rgb_files_through_loopback(server, tmp_path, testbed):
    rgb = _rgb_dir()
    cfg = TestbedConfig(
        testbed=testbed,
        data=f"rgb:{rgb / FILES[testbed]}",
        models=(MODEL,),
        limit=3,
        n_resamples=200,
        cache=str(tmp_path / "responses.sqlite3"),
    )
    out = run_testbed(cfg, tmp_path / "out", progress=False)
    info = json.loads((out / "testbed.json").read_text(encoding="utf-8"))
    items = pd.read_parquet(out / "items.parquet")
    n = {"noise": 15, "rejection": 3, "integration": 9, "counterfactual": 6}[testbed]
    assert info["status"] == "complete" and info["instances"] == n == len(items)
    assert info["instructions"] == {"zhs": "rgb"} and info["config"]["seed"] == 12345
    bodies = server.bodies("/v1/chat/completions")
    assert len(bodies) == info["calls"]["requests"] == n  # distinct prompts, one call each
    with_docs = [b for b in bodies if len(b["messages"]) == 2]
    assert all(b["messages"][0]["content"] == get_instruction("zhs").system for b in with_docs)
    if testbed == "counterfactual":  # without documents RGB sends no system prompt
        assert sum(len(b["messages"]) == 1 for b in bodies) == 3
        # the 3 of 100 items whose fake answer contains the true one are named in testbed.json
        assert len(info["data"]["warnings"]) == 3
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert scores["policy"] == "rgb"
    # the RGB-format predictions re-score to the run's own rgb numbers
    pred = out / "predictions" / "openai-compatible__loop-model" / f"zhs.{testbed}.jsonl"
    re_ = rescore_predictions(
        pred,
        dataset_kind={"counterfactual": "fact", "integration": "integration"}.get(testbed, "noise"),
        lang="zh",
    )
    assert re_["label_mismatches"]["count"] == 0
    for g in scores["groups"]:
        got = re_["by_noise_rate"][f"{g['noise_rate']:g}"]["metrics"]["accuracy"]
        if testbed != "counterfactual":  # one setting per file
            assert got["count"] == g["metrics"]["rgb"]["accuracy"]["count"]
    if testbed == "rejection":
        rr = scores["groups"][0]["metrics"]["rgb"]["rejection_rate"]
        assert rr["n"] == 3 and rr["signature"].startswith("rejection_rate|data:sha256-")
    # resumable: a re-run calls nothing
    server.reset()
    run_testbed(cfg, out, progress=False)
    assert server.bodies("/v1/chat/completions") == []
    assert json.loads((out / "testbed.json").read_text(encoding="utf-8"))["calls"]["resumed"] == n


@pytest.mark.slow
def test_demo_four_testbeds_through_loopback_and_report(server, tmp_path):
    for testbed in ("noise", "rejection", "integration", "counterfactual"):
        out = tmp_path / testbed
        res = invoke_cli(
            "testbed",
            testbed,
            "--data",
            "demo",
            "--model",
            MODEL,
            "--lang",
            "en,ru,ar,zhs",
            "--limit",
            "2",
            "--out",
            str(out),
            "--resamples",
            "200",
            "--no-progress",
            "--json",
            "--cache",
            str(tmp_path / "responses.sqlite3"),
            env={"OPENAI_COMPATIBLE_BASE_URL": server.openai_url, "NO_PROXY": "127.0.0.1"},
        )
        assert res.returncode == 0, res.stderr
        scores = json.loads(res.stdout)
        settings = {g["setting"] for g in scores["groups"]}
        assert (
            settings
            == {
                "noise": {"noise", "noise-xling"},
                "rejection": {"rejection", "rejection-xling"},
                "integration": {"integration"},
                "counterfactual": {"counterfactual", "nodocs"},
            }[testbed]
        )
        langs = {g["lang"] for g in scores["groups"]}
        assert langs >= (
            {"en", "ar", "all"} if testbed == "integration" else {"en", "ru", "ar", "zhs", "all"}
        )
        items = pd.read_parquet(out / "items.parquet")
        assert set(items["bordir_outcome"]) <= {
            "correct",
            "wrong",
            "rejected",
            "multiple",
            "unparsed",
            "refused",
        }
        if testbed == "noise":
            assert all(c["signature"].startswith("accuracy|") for c in scores["comparisons"])
            assert any(c["a"] == "noise" and c["b"] == "noise-xling" for c in scores["comparisons"])
            assert all(c["p_holm"] is not None for c in scores["comparisons"])
        rep = invoke_cli("report", str(out))
        assert rep.returncode == 0, rep.stderr
        page = (out / "report.html").read_text(encoding="utf-8")
        assert "table-testbed_scores" in page and "table-testbed_comparisons" in page
        assert ("plot-accuracy_vs_noise" in page) == (testbed in ("noise", "integration"))
        assert (out / "tables" / "testbed_scores.csv").is_file()
        if testbed == "noise":  # --no-plots: the same tables, the page says the plot is left out
            shutil.rmtree(out / "plots")
            assert invoke_cli("report", str(out), "--no-plots").returncode == 0
            page = (out / "report.html").read_text(encoding="utf-8")
            assert 'id="no-plots"' in page and "plot-accuracy_vs_noise" not in page
            assert "table-testbed_scores" in page and not (out / "plots").exists()
    before = server.count
    res = invoke_cli(
        "testbed",
        "noise",
        "--data",
        "demo",
        "--model",
        MODEL,
        "--lang",
        "en,ru,ar,zhs",
        "--limit",
        "2",
        "--out",
        str(tmp_path / "noise"),
        "--resamples",
        "200",
        "--no-progress",
        "--cache",
        str(tmp_path / "responses.sqlite3"),
        env={"OPENAI_COMPATIBLE_BASE_URL": server.openai_url, "NO_PROXY": "127.0.0.1"},
    )
    assert res.returncode == 0 and server.count == before  # nothing billed twice


@pytest.mark.slow
@pytest.mark.parametrize("testbed", ["rejection", "counterfactual"])
def test_judge_rates_through_loopback(server, tmp_path, testbed):
    cfg = TestbedConfig(
        testbed=testbed,
        data="demo",
        langs=("en", "ru"),
        models=(MODEL,),
        limit=2,
        n_resamples=100,
        judge="openai-compatible/judge-model",
    )
    out = run_testbed(cfg, tmp_path / "out", progress=False)
    info = json.loads((out / "testbed.json").read_text(encoding="utf-8"))
    judge_bodies = [b for b in server.bodies("/v1/chat/completions") if b["model"] == "judge-model"]
    n_judged = {"rejection": 8, "counterfactual": 4}[testbed]  # nodocs predictions are not judged
    assert len(judge_bodies) == info["judge_calls"]["requests"] == n_judged
    assert all("Begin to generate:" in b["messages"][0]["content"] for b in judge_bodies)
    groups = json.loads((out / "scores.json").read_text(encoding="utf-8"))["groups"]
    for g in groups:
        m = g["metrics"]["bordir"]
        if testbed == "rejection":
            assert m["rejection_rate_judge"]["value"] == 1.0
        elif g["setting"] == "counterfactual":
            assert (
                m["error_detection_rate_judge"]["value"] == 0.0
                and m["error_correction_rate_judge"]["value"] is None
            )
        else:
            assert "error_detection_rate_judge" not in m
    server.reset()
    run_testbed(cfg, out, progress=False)
    assert server.bodies("/v1/chat/completions") == []  # judge calls resume too


@pytest.mark.slow
def test_cli_errors_are_one_line(tmp_path):
    res = run_cli(
        "testbed",
        "integration",
        "--data",
        f"rgb:{tmp_path / 'zh_refine.json'}",
        "--model",
        "mock/echo",
        "--out",
        str(tmp_path / "o"),
    )
    assert (
        res.returncode == 2
        and "the integration testbed needs an RGB integration file" in res.stderr
    )
    res = run_cli(
        "testbed",
        "noise",
        "--data",
        "demo",
        "--model",
        "mock/echo",
        "--lang",
        "el",
        "--out",
        str(tmp_path / "o"),
    )
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_local_model_four_testbeds_on_rgb_and_demo(local_model, tmp_path, monkeypatch):
    """The in-process Gemma 3 270M model, one question per testbed and data source (slow: kept tiny)."""
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    runs = [(t, "demo", {"langs": ("en",) if t == "integration" else ("uk",)}) for t in FILES]
    if (RGB / "zh_refine.json").is_file():
        runs += [(t, f"rgb:{RGB / f}", {}) for t, f in FILES.items()]
    for testbed, data, extra in runs:
        cfg = TestbedConfig(
            testbed=testbed,
            data=data,
            models=("local/gemma-3-270m",),
            limit=1,
            max_tokens=8,
            passage_num=2,
            temperature=0.0,
            ratios=None if testbed == "rejection" else (0.4,),
            n_resamples=50,
            **extra,
        )
        out = run_testbed(cfg, tmp_path / f"{testbed}-{data[:3]}", progress=False)
        items = pd.read_parquet(out / "items.parquet")
        info = json.loads((out / "testbed.json").read_text(encoding="utf-8"))
        assert len(items) == info["instances"] >= 1 and not items["failed"].any(), (
            testbed,
            data,
            items["error"],
        )
        assert info["calls"]["requests"] == len(items)
        assert set(items["rgb_outcome"]) <= {"correct", "wrong", "rejected", "echo"}
    # the CLI on the same cache: served without a call, and the report renders
    res = invoke_cli(
        "testbed",
        "rejection",
        "--data",
        "demo",
        "--lang",
        "uk",
        "--model",
        "local/gemma-3-270m",
        "--limit",
        "1",
        "--max-tokens",
        "8",
        "--passages",
        "2",
        "--temperature",
        "0",
        "--resamples",
        "50",
        "--no-progress",
        "--out",
        str(tmp_path / "rejection-dem"),
        env={"BORDIR_CACHE": str(tmp_path / "cache")},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    info = json.loads((tmp_path / "rejection-dem" / "testbed.json").read_text(encoding="utf-8"))
    assert info["calls"]["requests"] == 0 and info["calls"]["resumed"] == 2
    assert invoke_cli("report", str(tmp_path / "rejection-dem")).returncode == 0


@pytest.mark.slow
def test_testbed_report_renders_in_chromium(tmp_path, monkeypatch):
    import os
    import shutil
    import subprocess

    exe = shutil.which("chromium") or (
        "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None
    )
    if exe is None:
        pytest.skip("no chromium binary (apt-get install chromium)")
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    cfg = TestbedConfig(
        testbed="noise",
        data="demo",
        models=("mock/echo", "mock/fixed:A) Russia"),
        langs=("en",),
        limit=3,
        ratios=(0.0, 0.4, 0.8),
        n_resamples=100,
    )
    out = run_testbed(cfg, tmp_path / "out", progress=False)
    from bordir.report.testbeds import build_testbed_report

    page = build_testbed_report(out)
    flags = (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--virtual-time-budget=5000",
        f"--user-data-dir={tmp_path / 'profile'}",
    )
    dom = subprocess.run(
        [exe, *flags, "--dump-dom", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    attrs = dict(
        re.findall(r'([\w-]+)="([^"]*)"', re.search(r"<body([^>]*)>", dom.stdout).group(1))
    )
    assert (
        attrs.get("data-ready") == "1"
        and attrs["data-images-total"] == attrs["data-images-loaded"] == "1"
    )
    assert (
        attrs["data-tables-visible"] == attrs["data-tables-total"]
        and int(attrs["data-tables-total"]) >= 4
    )
    # two models: their comparison is in the table, Holm-adjusted
    comps = json.loads((out / "scores.json").read_text(encoding="utf-8"))["comparisons"]
    assert any({c["a"], c["b"]} == {"mock/echo", "mock/fixed:A) Russia"} for c in comps)
