"""`bordir judge calibrate` on the real MEMERAG (../shared; skipped without it): a planted loopback judge, and the local model."""

from __future__ import annotations

import json

import pytest

from bordir.judging import Calibration, load_memerag

from ..conftest import LOCAL_MODEL, SHARED, invoke_cli
from ..loopback import loopback  # noqa: F401  (fixture)
from .planted import POS, planted_reply, realized

MEMERAG = SHARED / "data" / "memerag"
pytestmark = pytest.mark.skipif(
    not (MEMERAG / "hi.jsonl").is_file(), reason="../shared/data/memerag is not present"
)
ERRORS = {"de": (0.05, 0.1), "en": (0.1, 0.1), "es": (0.2, 0.2), "fr": (0.1, 0.3), "hi": (0.3, 0.4)}


def test_memerag_through_a_planted_loopback_judge(loopback, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    items = load_memerag(MEMERAG).select(limit=40)
    truth = {
        i.text: (i.lang, i.label, i.cluster) for i in items if i.label in (POS, "Not Supported")
    }
    reply = planted_reply(truth, ERRORS)

    def answer(body):
        prompt = body["messages"][-1]["content"]
        sentence = prompt.split("[BEGIN DATA: sentence]\n", 1)[1].split("\n[END DATA: sentence]")[0]
        return reply(body) if sentence in truth else "Verdict: Supported"  # the abstentions

    loopback.reply.text = answer
    res = invoke_cli(
        "judge",
        "calibrate",
        "--data",
        f"memerag:{MEMERAG}",
        "--judge",
        "openai-compatible/memerag-judge",
        "--limit",
        "40",
        "--prompt-lang",
        "item",
        "--out",
        str(tmp_path / "cal.json"),
        "--no-cache",
    )
    assert res.returncode == 0, res.stderr
    cal = Calibration.load(tmp_path / "cal.json")
    want = realized(truth, ERRORS)
    assert cal.languages == ("de", "en", "es", "fr", "hi")
    for lang, w in want.items():
        lc = cal.for_language(lang)
        ba = lc.balanced_accuracy
        assert ba["value"] == pytest.approx(w["balanced_accuracy"])
        assert ba["low"] <= 1 - sum(ERRORS[lang]) / 2 <= ba["high"]
        assert lc.prompt.startswith(f"faithfulness.zero_shot.{lang}@")
        assert lc.data["left_out"]["abstain"] == sum(
            1 for i in items if i.lang == lang and i.label == "Challenging to determine"
        )
    assert cal.for_language("de").calibrated and not cal.for_language("hi").calibrated
    assert cal.signature.as_dict()["data"].startswith("memerag@sha256-")


@pytest.mark.slow
def test_memerag_with_the_local_model(local_model, tmp_path):
    """Two MEMERAG questions per language (the shortest), the 270M model: a pipeline check, near chance."""
    data = tmp_path / "memerag"
    data.mkdir()
    for lang in ("de", "en", "es", "fr", "hi"):
        lines = (MEMERAG / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines()
        lines.sort(
            key=lambda l: (
                len(json.loads(l)["query"]) + sum(len(c["text"]) for c in json.loads(l)["context"])
            )
        )
        (data / f"{lang}.jsonl").write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    out = tmp_path / "cal.json"
    res = invoke_cli(
        "judge",
        "calibrate",
        "--data",
        f"memerag:{data}",
        "--judge",
        LOCAL_MODEL,
        "--out",
        str(out),
        "--cache",
        str(tmp_path / "c.sqlite3"),
        "--split",
        "0.5",
    )
    assert res.returncode == 0, res.stderr
    cal = Calibration.load(out)
    assert cal.data["method"] == "rank_classification"
    rows = cal.items
    assert rows and all(r["outcome"] == "judged" and r["score"] is not None for r in rows)
    for lang in cal.languages:
        lc = cal.for_language(lang)
        # two questions: no interval (or, where both sentences have one label, no balanced accuracy)
        assert not lc.calibrated and ("fewer than 10" in lc.reason or "one label only" in lc.reason)
        assert lc.data["threshold"]["calibration_questions"] == 1
    assert "judge local/gemma-3-270m (rank_classification)" in res.stdout
