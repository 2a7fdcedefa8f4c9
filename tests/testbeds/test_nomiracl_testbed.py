"""``bordir testbed nomiracl``: through the loopback OpenAI server and the local model, resumable, reported and viewed.

The data are NoMIRACL files written by the test (``tests/nomiracl_files.py``): in each
subset three queries with 10 judged passages and one with 9 (left out, as NoMIRACL's
generation leaves it out). The loopback model answers NoMIRACL's vanilla prompt by the query
text (the test's queries name their subset) in English or in Swahili, so the two policies
read some replies differently; the result files the run writes re-score to its own numbers.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from bordir.testbeds.instructions import get_instruction
from bordir.testbeds.nomiracl.rescore import rescore_nomiracl
from bordir.testbeds.nomiracl.template import vanilla_prompt
from bordir.testbeds.runner import TestbedConfig, run_testbed

from ..conftest import invoke_cli
from ..loopback import loopback  # noqa: F401  (fixture)
from ..nomiracl_files import write_nomiracl

MODELS = ("openai-compatible/loop-a", "openai-compatible/loop-b")


def _reply(body: dict) -> str:
    """loop-a: NoMIRACL's phrases in English; loop-b: in Swahili for Swahili queries, else always "yes"."""
    user = body["messages"][-1]["content"]
    question = user.split("QUESTION:\n")[-1].split("\n")[0] if "QUESTION:" in user else user
    relevant = " relevant" in question or "of relevant" in question or " la relevant" in question
    if len(body["messages"]) == 2:  # bordir's instructions (the native setting)
        refusal = get_instruction("sw" if "Swali" in user else "en").refusal
        return "Jibu ni Nairobi." if relevant else refusal
    if body["model"] == "loop-a":
        return "Yes, answer is present." if relevant else "I don't know."
    if "Swali" in question:
        return "Ndiyo, jibu lipo [3]." if relevant else "Sijui."
    return "Yes, answer is present."


@pytest.fixture
def server(loopback, monkeypatch, tmp_path):  # noqa: F811
    loopback.reply.text = _reply
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    return loopback


def _cfg(root, tmp_path, **kw):
    base = dict(
        testbed="nomiracl",
        data=f"nomiracl:{root}",
        models=MODELS,
        langs=("sw", "en", "de"),
        passage_num=10,
        temperature=0.1,
        max_tokens=50,
        n_resamples=200,
        cache=str(tmp_path / "responses.sqlite3"),
    )
    return TestbedConfig(**{**base, **kw})


@pytest.mark.slow
def test_run_through_loopback_resume_rescore_report_and_view(server, tmp_path):
    root = write_nomiracl(tmp_path / "data", ("sw", "en", "de"))
    cfg = _cfg(root, tmp_path)
    out = run_testbed(cfg, tmp_path / "out", progress=False)
    info = json.loads((out / "testbed.json").read_text(encoding="utf-8"))
    # 3 languages × 2 subsets × 3 queries; vanilla everywhere, native where bordir has instructions (not de)
    assert info["instances"] == 3 * 2 * 3 + 2 * 2 * 3 == 30
    reasons = [s["reason"] for s in info["skipped"]]
    assert sum("9 judged passages" in r for r in reasons) == 6
    assert any(s["setting"] == "native" and s["query_id"] == "de:*" for s in info["skipped"])
    bodies = server.bodies("/v1/chat/completions")
    assert len(bodies) == info["calls"]["requests"] == 60
    vanilla = [b for b in bodies if len(b["messages"]) == 1]
    assert len(vanilla) == 36 and all(
        b["temperature"] == 0.1 and b["max_tokens"] == 50 for b in bodies
    )
    text = vanilla[0]["messages"][0]["content"]
    assert (
        text.startswith("I will give you a question and several contexts")
        and text.count("\n[") == 10
    )
    # title: text, in NoMIRACL's order
    assert re.search(r"\[1\] Title 0: Text 0 of \w+ second line\n", text)
    native = [b for b in bodies if len(b["messages"]) == 2]
    assert {b["messages"][0]["content"] for b in native} == {
        get_instruction("sw").system,
        get_instruction("en").system,
    }

    items = pd.read_parquet(out / "items.parquet")
    assert len(items) == 60 and set(items["subset"]) == {"relevant", "non_relevant"}
    assert set(items["nomiracl_outcome"]) <= {"answer", "no_answer", "invalid"}
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert scores["policy"] == "nomiracl" and scores["policies"] == ["nomiracl", "bordir"]

    def group(model, lang, setting, subset):
        return next(
            g
            for g in scores["groups"]
            if (g["model"], g["lang"], g["setting"], g["subset"]) == (model, lang, setting, subset)
        )

    b_sw = group("openai-compatible/loop-b", "sw", "vanilla", "non_relevant")["metrics"]
    assert b_sw["nomiracl"]["hallucination_rate"]["value"] == 0.0  # "Sijui" is Invalid for NoMIRACL
    assert (
        b_sw["nomiracl"]["invalid_rate"]["value"] == 1.0
        and b_sw["nomiracl"]["accuracy"]["value"] == 0.0
    )
    assert b_sw["bordir"]["accuracy"]["value"] == 1.0  # bordir reads the Swahili refusal
    b_en = group("openai-compatible/loop-b", "en", "vanilla", "non_relevant")["metrics"]
    assert b_en["nomiracl"]["hallucination_rate"] == {
        **b_en["nomiracl"]["hallucination_rate"],
        "value": 1.0,
        "count": 3,
        "n": 3,
    }
    assert b_en["nomiracl"]["hallucination_rate"]["ci95"][0] is not None
    a_rel = group("openai-compatible/loop-a", "en", "vanilla", "relevant")["metrics"]["nomiracl"]
    assert a_rel["error_rate"]["value"] == 0.0 and a_rel["accuracy"]["value"] == 1.0
    assert "rejection_rate" not in a_rel and "invalid_rate" in a_rel
    nat = group("openai-compatible/loop-a", "sw", "native", "non_relevant")["metrics"]["bordir"]
    assert nat["accuracy"]["value"] == 1.0  # the refusal sentence of bordir's Swahili instruction
    comps = scores["comparisons"]
    assert any(
        c["a"] == "openai-compatible/loop-a" and c["metric"] == "hallucination_rate" for c in comps
    )
    assert any((c["a"], c["b"]) == ("vanilla", "native") for c in comps)
    assert all(c["p_holm"] is not None and c["p_holm"] >= c["p_value"] for c in comps)

    # NoMIRACL-format result files: every model's reply per query, re-scored to the run's numbers
    f = out / "nomiracl" / "non_relevant" / "sw.test.vanilla_prompt.jsonl"
    lines = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3 and set(lines[0]) == {
        "query_id",
        "docids",
        "prompt",
        "template",
        "results",
    }
    assert lines[0]["template"] == "vanilla" and len(lines[0]["docids"]) == 10
    assert lines[0]["prompt"] == vanilla_prompt(
        lines[0]["prompt"].split("QUESTION:\n")[1].split("\n")[0],
        [
            p.split("] ", 1)[1]
            for p in lines[0]["prompt"].split("CONTEXTS:\n")[1].split("\n\nOUTPUT")[0].split("\n\n")
        ],
    )
    res = rescore_nomiracl(sorted((out / "nomiracl").glob("*/*.vanilla_prompt.jsonl")))
    for g in res["groups"]:
        run = group(g["model"], g["lang"], "vanilla", g["subset"])["metrics"]
        for p in ("nomiracl", "bordir"):
            for m in (
                "accuracy",
                "invalid_rate",
                "hallucination_rate" if g["subset"] == "non_relevant" else "error_rate",
            ):
                assert (g[p][m]["count"], g[p][m]["n"]) == (run[p][m]["count"], run[p][m]["n"]), (
                    g["model"],
                    p,
                    m,
                )

    # resumable: a re-run calls nothing
    server.reset()
    run_testbed(cfg, out, progress=False)
    assert server.bodies("/v1/chat/completions") == []
    assert json.loads((out / "testbed.json").read_text(encoding="utf-8"))["calls"]["resumed"] == 60

    # bordir report: tables, the trade-off plot; bordir view: every request key verified
    res = invoke_cli("report", str(out), "--resamples", "100")
    assert res.returncode == 0, res.stderr
    assert (out / "plots" / "hallucination_vs_error.png").is_file()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "plot-hallucination_vs_error" in html and "Inv." in html
    from bordir.view.testbed_view import testbed_page

    meta, rows = testbed_page(out)
    assert meta["warnings"] == [] and [f["key"] for f in meta["facets"]][4:6] == [
        "nomiracl_outcome",
        "bordir_outcome",
    ]
    assert sum(rows["cols"]["key_ok"]["n"]) == 60  # every request rebuilt with NoMIRACL's prompt
    res = invoke_cli("view", str(out))
    assert res.returncode == 0, res.stderr
    assert (out / "view.html").is_file()


def test_cli_options_defaults_and_errors(server, tmp_path):
    root = write_nomiracl(tmp_path / "data", ("sw",), n=4)
    out = tmp_path / "cli"
    res = invoke_cli(
        "testbed", "nomiracl", "--data", f"nomiracl:{root}", "--model", MODELS[0], "--lang", "swahili",
        "--limit", "2", "--settings", "vanilla", "--split", "dev", "--seed", "42", "--resamples", "100",
        "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    info = json.loads((out / "testbed.json").read_text(encoding="utf-8"))
    cfg = info["config"]
    # NoMIRACL's defaults
    assert (cfg["temperature"], cfg["max_tokens"], cfg["passage_num"]) == (0.1, 50, 10)
    assert cfg["extra"] == {"split": "dev", "settings": "vanilla"}
    assert info["data"]["sample"] == {"max_sample_pool": 2, "ratios": [0.5, 0.5], "seed": 42}
    assert info["instances"] <= 4 and all(
        f.name.startswith("sw.dev.") for f in (out / "nomiracl").glob("*/*")
    )
    assert "hallucination_rate (nomiracl)" in res.stdout
    for args, message in (
        (("--data", "rgb:x.json"), "nomiracl:PATH"),
        (("--data", f"nomiracl:{root}", "--passages", "5"), "exactly 10 passages"),
        (("--data", f"nomiracl:{root}", "--settings", "loud"), "--settings takes"),
        (("--data", f"nomiracl:{root}", "--policy", "rgb"), "the policies nomiracl, bordir"),
        (("--data", f"nomiracl:{root}", "--lang", "el"), "NoMIRACL has no language 'el'"),
    ):
        res = invoke_cli(
            "testbed", "nomiracl", *args, "--model", MODELS[0], "--out", str(tmp_path / "e")
        )
        assert res.returncode == 2 and message in res.stderr, (args, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_local_model_a_few_items(local_model, tmp_path, monkeypatch):
    """The in-process Gemma 3 270M model on two queries per subset (slow: kept tiny)."""
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    root = write_nomiracl(tmp_path / "data", ("sw",), n=2)
    cfg = TestbedConfig(
        testbed="nomiracl",
        data=f"nomiracl:{root}",
        models=("local/gemma-3-270m",),
        langs=("sw",),
        passage_num=10,
        temperature=0.0,
        max_tokens=8,
        n_resamples=50,
        extra={"settings": "vanilla"},
    )
    out = run_testbed(cfg, tmp_path / "out", progress=False)
    items = pd.read_parquet(out / "items.parquet")
    info = json.loads((out / "testbed.json").read_text(encoding="utf-8"))
    assert len(items) == info["instances"] == 4 and not items["failed"].any(), items["error"]
    assert info["calls"]["requests"] == 4
    assert set(items["nomiracl_outcome"]) <= {"answer", "no_answer", "invalid"}
    assert set(items["bordir_outcome"]) <= {
        "affirmed",
        "refused",
        "contradictory",
        "unparsed",
        "empty",
    }
    res = rescore_nomiracl(sorted((out / "nomiracl").glob("*/*.jsonl")))
    assert {g["n"] for g in res["groups"]} == {2}
