"""`bordir judge calibrate` end to end against a loopback judge whose errors follow a planted per-language rate."""

from __future__ import annotations

import json

import pytest

from bordir.judging import Calibration, calibrate_judge
from bordir.judging.agreement import MIN_CLUSTERS

from ..conftest import invoke_cli
from ..loopback import loopback  # noqa: F401  (fixture)
from .planted import planted_reply, realized, write_items

JUDGE = "openai-compatible/planted-judge"
ERRORS = {"de": (0.05, 0.10), "hi": (0.35, 0.40), "fr": (0.15, 0.15)}
GARBLE = {"de": 0.0, "hi": 0.05, "fr": 0.0}


@pytest.fixture
def planted(loopback, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    truth = write_items(tmp_path / "labels.jsonl", {"de": 60, "hi": 60, "fr": 40})
    loopback.reply.text = planted_reply(truth, ERRORS, GARBLE)
    return loopback, truth, tmp_path


def test_the_planted_agreement_is_recovered_per_language(planted):
    server, truth, tmp = planted
    cache = str(tmp / "c.sqlite3")
    args = [
        "judge",
        "calibrate",
        "--data",
        f"labels:{tmp}/labels.jsonl",
        "--judge",
        JUDGE,
        "--out",
        str(tmp / "cal.json"),
        "--cache",
        cache,
        "--resamples",
        "1000",
    ]
    res = invoke_cli(*args)
    assert res.returncode == 0, res.stderr
    assert server.count == len(truth)
    cal = Calibration.load(tmp / "cal.json")
    want = realized(truth, ERRORS, GARBLE)
    for lang, w in want.items():
        lc = cal.for_language(lang)
        ba = lc.balanced_accuracy
        assert ba["value"] == pytest.approx(w["balanced_accuracy"])  # unparseable counted as wrong
        assert lc.metric("sensitivity")["value"] == pytest.approx(w["sensitivity"])
        assert lc.metric("unparseable")["value"] == pytest.approx(w["unparseable"])
        assert ba["low"] <= w["balanced_accuracy"] <= ba["high"]
        assert ba["high"] - ba["low"] < 0.3
    # the planted rates: de well above the floor, hi near chance, fr in between
    assert cal.for_language("de").calibrated and not cal.for_language("hi").calibrated
    assert "lower bound" in cal.for_language("hi").reason
    assert (
        "de" in res.stdout
        and "uncalibrated" in res.stdout
        and "signature: judge_calibration|" in res.stdout
    )
    sig = cal.signature.as_dict()
    assert (sig["task"], sig["judge"], sig["variant"], sig["prompt_lang"]) == (
        "faithfulness",
        JUDGE,
        "zero_shot",
        "en",
    )
    assert sig["data"].startswith("labels:labels.jsonl@sha256-") and sig["version"]
    # a re-run is served from the cache: nothing is billed twice, the same file comes out
    again = invoke_cli(
        *args[:-4], "--out", str(tmp / "again.json"), "--cache", cache, "--resamples", "1000"
    )
    assert again.returncode == 0 and server.count == len(truth)
    a = json.loads((tmp / "cal.json").read_text())
    b = json.loads((tmp / "again.json").read_text())
    assert a["languages"] == b["languages"] and a["signature"] == b["signature"]
    assert b["calls"]["cached"] == len(truth)


def test_the_interval_covers_the_planted_balanced_accuracy(planted):
    """The planted (population) balanced accuracy lies in the reported interval in every language."""
    server, truth, tmp = planted
    cal = calibrate_judge(f"labels:{tmp}/labels.jsonl", JUDGE, n_resamples=1000, progress=False)
    for lang, (ep, en) in ERRORS.items():
        g = GARBLE[lang]
        planted_ba = 1 - (g + (1 - g) * ep + g + (1 - g) * en) / 2  # garbled counts as wrong
        ba = cal.for_language(lang).balanced_accuracy
        assert ba["low"] <= planted_ba <= ba["high"], (lang, planted_ba, ba)
        assert abs(ba["value"] - planted_ba) < 0.03, (lang, planted_ba, ba)


def test_prompt_variants_and_the_item_language_prompt_reach_the_judge(planted):
    server, truth, tmp = planted
    for variant, needle in (
        ("guidelines_cot", "Annotationsrichtlinien"),
        ("cot", "Schritt für Schritt"),
    ):
        server.reset()
        cal = calibrate_judge(
            f"labels:{tmp}/labels.jsonl",
            JUDGE,
            variant=variant,
            prompt_lang="item",
            langs=["de"],
            limit=3,
            n_resamples=0,
            progress=False,
        )
        prompts = [b["messages"][-1]["content"] for b in server.bodies("/v1/chat/completions")]
        assert prompts and all(needle in p for p in prompts)
        assert cal.for_language("de").prompt.startswith(f"faithfulness.{variant}.de@sha256-")
        assert cal.signature.as_dict()["prompt_lang"] == "item"
    en = calibrate_judge(
        f"labels:{tmp}/labels.jsonl", JUDGE, langs=["hi"], limit=2, n_resamples=0, progress=False
    )
    assert en.for_language("hi").prompt.startswith("faithfulness.zero_shot.en@")


def test_dry_run_calls_nothing_and_max_cost_refuses_before_calling(planted, monkeypatch):
    server, truth, tmp = planted
    res = invoke_cli(
        "judge",
        "calibrate",
        "--data",
        f"labels:{tmp}/labels.jsonl",
        "--judge",
        "openai/gpt-4o-mini",
        "--dry-run",
        "--no-cache",
    )
    assert res.returncode == 0 and "openai/gpt-4o-mini" in res.stdout and "total" in res.stdout
    assert server.count == 0
    res = invoke_cli(
        "judge",
        "calibrate",
        "--data",
        f"labels:{tmp}/labels.jsonl",
        "--judge",
        "openai/gpt-4o-mini",
        "--out",
        str(tmp / "x.json"),
        "--max-cost",
        "0.000001",
        "--no-cache",
    )
    assert res.returncode == 2 and "above --max-cost" in res.stderr and server.count == 0
    assert len(res.stderr.strip().splitlines()) == 1
    # a model without a price cannot honour a cost cap
    res = invoke_cli(
        "judge",
        "calibrate",
        "--data",
        f"labels:{tmp}/labels.jsonl",
        "--judge",
        "openai/no-such-priced-model",
        "--out",
        str(tmp / "x.json"),
        "--max-cost",
        "5",
        "--no-cache",
    )
    assert res.returncode == 2 and "cannot be honoured" in res.stderr and server.count == 0


def test_few_questions_give_no_interval_and_no_calibration(planted):
    server, truth, tmp = planted
    cal = calibrate_judge(
        f"labels:{tmp}/labels.jsonl", JUDGE, langs=["de"], limit=MIN_CLUSTERS - 1, progress=False
    )
    lc = cal.for_language("de")
    assert lc.balanced_accuracy["low"] is None and not lc.calibrated
    assert "fewer than" in lc.reason


def test_failed_calls_exit_1_and_a_rerun_retries_only_them(planted):
    from ..loopback import Fault

    server, truth, tmp = planted
    server.push(*[Fault.status(400)] * 3)  # permanent: not retried
    args = [
        "judge",
        "calibrate",
        "--data",
        f"labels:{tmp}/labels.jsonl",
        "--judge",
        JUDGE,
        "--langs",
        "fr",
        "--out",
        str(tmp / "cal.json"),
        "--cache",
        str(tmp / "c.sqlite3"),
        "--concurrency",
        "1",
    ]
    res = invoke_cli(*args)
    assert res.returncode == 1 and "3 of 80 judge calls failed" in res.stderr
    left = json.loads((tmp / "cal.json").read_text())["languages"]["fr"]["left_out"]
    assert left["failed"] == 3
    n = server.count
    res = invoke_cli(*args)
    assert res.returncode == 0 and server.count == n + 3


def test_a_threshold_on_the_judges_score_is_fitted_and_reported_held_out(planted):
    server, truth, tmp = planted
    from .planted import sentence_of, unit

    def scored(body):  # a score that separates the classes better than the judge's own label
        text = sentence_of(body["messages"][-1]["content"])
        lang, label, _ = truth[text]
        score = (1.0 if label == "Supported" else -1.0) + unit(text, "noise") - 0.5 + 0.8
        return json.dumps({"verdict": "Supported", "score": score})

    server.reply.text = scored
    cal = calibrate_judge(
        f"labels:{tmp}/labels.jsonl", JUDGE, langs=["de"], split=0.5, progress=False
    )
    lc = cal.for_language("de")
    assert lc.balanced_accuracy["value"] == 0.5  # its labels: always Supported
    t = lc.data["threshold"]
    assert t["fitted"] and t["calibration_questions"] == t["held_out_questions"] == 30
    assert t["held_out"]["metrics"]["balanced_accuracy"]["value"] == 1.0
    assert t["held_out_own_labels"]["metrics"]["balanced_accuracy"]["value"] == 0.5
    assert -0.3 < t["threshold"] < 0.8


def test_an_empty_split_is_refused_before_any_call(planted):
    server, truth, tmp = planted
    one = tmp / "one.jsonl"
    one.write_text((tmp / "labels.jsonl").read_text().splitlines()[0] + "\n")
    res = invoke_cli(
        "judge",
        "calibrate",
        "--data",
        f"labels:{one}",
        "--judge",
        JUDGE,
        "--split",
        "0.5",
        "--out",
        str(tmp / "x.json"),
        "--no-cache",
    )
    assert res.returncode == 2 and server.count == 0
    assert res.stderr.strip() == (
        f"bordir: error: {one}: field 'split': the calibration split of 'de' is empty (1 question(s) "
        "with --split 0.5); give more items of 'de' or another --split"
    )
