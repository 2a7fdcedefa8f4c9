"""Echoes in the testbeds (issue 51.3): ``mock/echo`` no longer scores 100 % on RGB's noise testbed.

``mock/echo`` answers with its prompt's user message, which holds the documents and so the
answer: RGB's substring rule counted it correct, and the echoed system prompt (which quotes the
refusal and error phrases) as a refusal. Every testbed now scores such a reply ``echo`` under
every policy (never correct, rejected or flagged) and says how many there were: end to end
through ``bordir testbed`` on an RGB-format file the test writes, on RGB's own file when
../shared is present, on the demo for the four testbeds, on a NoMIRACL set, and through
``bordir testbed score``.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bordir.testbeds.echoes import rgb_record_prompt
from bordir.testbeds.instructions import get_instruction
from bordir.testbeds.runner import TestbedConfig, run_testbed
from bordir.testbeds.scorer import score

from ..conftest import SHARED, invoke_cli
from ..nomiracl_files import write_nomiracl

QUESTIONS = [
    {
        "id": 0,
        "query": "Who won the 2022 Citrus Bowl?",
        "answer": ["Kentucky"],
        "positive": [
            "The 2022 Citrus Bowl was won by the Kentucky Wildcats, who beat the Iowa Hawkeyes 20-17 "
            "in Orlando on January 1, 2022, in front of a crowd of more than fifty thousand.",
            "Kentucky defeated Iowa in the Citrus Bowl played at Camping World Stadium on New "
            "Year's Day 2022, the fourth bowl win in a row for the Wildcats.",
        ],
        "negative": [
            "The Citrus Bowl is an annual college football bowl game played in Orlando, Florida, "
            "since 1947, and is one of the oldest bowl games in the country.",
            "Iowa Hawkeyes football represents the University of Iowa in college football and "
            "competes in the Big Ten Conference.",
            "Orlando is a city in central Florida known for its theme parks and warm winters.",
        ],
    },
    {
        "id": 1,
        "query": "What is the capital of Australia?",
        "answer": ["Canberra"],
        "positive": [
            "Canberra is the capital city of Australia, chosen as a compromise between Sydney and "
            "Melbourne after the federation of the colonies in 1901.",
            "The Australian Parliament has sat in Canberra since 1927, when it moved there from "
            "Melbourne, the temporary seat of government.",
        ],
        "negative": [
            "Sydney is the largest city in Australia and home to the Sydney Opera House and the "
            "Harbour Bridge.",
            "Melbourne is the second largest city in Australia and the capital of Victoria.",
            "Australia is a country comprising the mainland of the Australian continent, Tasmania "
            "and numerous smaller islands.",
        ],
    },
]


def _rgb_file(tmp_path):
    p = tmp_path / "en_refine.json"
    p.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return p


def test_mock_echo_scores_zero_on_the_noise_testbed_and_is_counted(tmp_path):
    data = _rgb_file(tmp_path)
    res = invoke_cli(
        "testbed", "noise", "--data", f"rgb:{data}", "--model", "mock/echo",
        "--model", "mock/fixed:Kentucky or Canberra", "--out", str(tmp_path / "o"),
        env={"BORDIR_CACHE": str(tmp_path / "cache.sqlite3")},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    items = pd.read_parquet(tmp_path / "o" / "items.parquet")
    echo = items[items["model"] == "mock/echo"]
    fixed = items[items["model"] != "mock/echo"]
    assert len(echo) == 10 and (echo["rgb_outcome"] == "echo").all()
    assert (echo["bordir_outcome"] == "echo").all()
    assert not echo["rgb_correct"].any() and not echo["bordir_correct"].any()
    assert not echo["rgb_rejected"].any() and not echo["rgb_fact"].any()
    assert fixed["rgb_correct"].all() and fixed["bordir_correct"].all()  # answers stay answers
    scores = json.loads((tmp_path / "o" / "scores.json").read_text(encoding="utf-8"))
    for g in scores["groups"]:
        mine = g["model"] == "mock/echo"
        assert g["n_echo"] == (g["n_items"] if mine else 0)
        acc = g["metrics"]["rgb"]["accuracy"]["value"]
        assert acc == (0.0 if mine else 1.0), g
    out = " ".join(res.stdout.split())
    assert "echoes (replies mostly copied from the prompt or a document" in out
    assert "mock/echo 10 of 10" in out and "mock/fixed" not in out.split("echoes")[1]
    # the prediction file the run wrote re-scores to the same: echoes, not label mismatches
    pred = next((tmp_path / "o" / "predictions" / "mock__echo").iterdir())
    res = invoke_cli("testbed", "score", str(pred))
    assert res.returncode == 0, res.stderr
    assert "0 line(s) whose stored label/factlabel differ" in res.stdout
    assert "10 of 10 prediction(s) are echoes" in res.stdout


def test_rgb_own_file_with_mock_echo(tmp_path):
    rgb = SHARED / "data" / "rgb" / "zh_refine.json"
    if not rgb.is_file():
        pytest.skip("../shared/data/rgb is not present")
    cfg = TestbedConfig(
        testbed="noise", data=f"rgb:{rgb}", models=("mock/echo",), limit=3, n_resamples=50,
        ratios=(0.0, 0.4), cache=str(tmp_path / "cache.sqlite3"),
    )  # fmt: skip
    out = run_testbed(cfg, tmp_path / "o", progress=False)
    items = pd.read_parquet(out / "items.parquet")
    assert len(items) == 6 and (items["rgb_outcome"] == "echo").all()
    assert not items["rgb_correct"].any()


@pytest.mark.parametrize("testbed", ["noise", "rejection", "integration", "counterfactual"])
def test_every_testbed_on_the_demo(tmp_path, testbed):
    cfg = TestbedConfig(
        testbed=testbed, data="demo", models=("mock/echo",), langs=("en", "ru"), limit=2,
        n_resamples=50, cache=str(tmp_path / "cache.sqlite3"),
    )  # fmt: skip
    out = run_testbed(cfg, tmp_path / "o", progress=False)
    items = pd.read_parquet(out / "items.parquet")
    with_docs = items[items["n_docs"] > 0]
    assert len(with_docs) and (with_docs["bordir_outcome"] == "echo").all()
    assert (with_docs["rgb_outcome"] == "echo").all()
    assert not with_docs["bordir_correct"].any() and not with_docs["rgb_rejected"].any()
    if testbed == "rejection":  # an echo is no answer: not a hallucination either
        scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
        rates = [g["metrics"]["bordir"]["hallucination_rate"]["value"] for g in scores["groups"]]
        assert rates and all(v == 0.0 for v in rates)


def test_nomiracl_echo_is_invalid_under_both_policies(tmp_path):
    root = write_nomiracl(tmp_path / "data", ("en", "sw"))
    cfg = TestbedConfig(
        testbed="nomiracl", data=f"nomiracl:{root}", models=("mock/echo",), langs=("en", "sw"),
        passage_num=10, max_tokens=50, n_resamples=50, cache=str(tmp_path / "cache.sqlite3"),
    )  # fmt: skip
    out = run_testbed(cfg, tmp_path / "o", progress=False)
    items = pd.read_parquet(out / "items.parquet")
    assert len(items) and (items["bordir_outcome"] == "echo").all()
    assert (items["nomiracl_outcome"] == "echo").all()
    for p in ("nomiracl", "bordir"):
        assert not items[f"{p}_rejected"].any() and not items[f"{p}_affirmed"].any()
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    inv = [g["metrics"]["nomiracl"]["invalid_rate"]["value"] for g in scores["groups"]]
    assert inv and all(v == 1.0 for v in inv)


def test_the_scorer_without_and_with_the_prompt():
    q = QUESTIONS[0]
    ins = get_instruction("en")
    docs = q["positive"] + q["negative"]
    user = ins.user_text(q["query"], docs)
    for policy in ("rgb", "bordir"):
        # today's rule (no prompt): the echoed documents contain the answer
        assert score(user, ("Kentucky",), "en", policy=policy).correct
        prompt = rgb_record_prompt(q["query"], "en", docs)
        s = score(user, ("Kentucky",), "en", policy=policy, prompt=prompt)
        assert (s.outcome, s.correct, s.rejected, s.labels) == ("echo", False, False, (0,))
        s = score(ins.system, ("Kentucky",), "en", policy=policy, prompt=prompt)
        assert (s.outcome, s.rejected, s.fact_flag) == ("echo", False, False)
        # the instructed refusal sentence is a refusal, not an echo of the system prompt
        s = score(ins.refusal, ("Kentucky",), "en", policy=policy, prompt=prompt)
        assert s.rejected and s.outcome == "rejected"
        s = score(
            "Kentucky won it, beating Iowa 20-17.",
            ("Kentucky",),
            "en",
            policy=policy,
            prompt=prompt,
        )
        assert s.correct
