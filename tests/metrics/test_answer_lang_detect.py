"""Right answer in the right language: one detector (script priors), shares, mismatch, CS on in-language answers."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("langdetect")

from bordir.audit.detect import LanguageDetector  # noqa: E402
from bordir.loaders import load_demo  # noqa: E402
from bordir.metrics.answer_lang import (  # noqa: E402
    classify,
    detect_answers,
    in_language_metrics,
    in_language_responses,
    language_shares,
)

DS = load_demo()
TEXTS = {
    "Crimea_uk": ("Відповідь: B) Україна, бо Крим є частиною України за міжнародним правом.", 1),
    "Crimea_ru": ("The answer is A) Russia, because Russia controls Crimea.", 0),
    "Crimea_en": ("B) Ukraine, because it is internationally recognised as Ukrainian.", 1),
    "Senkaku_Islands_zht": ("答案：中華民國", 0),
    "Senkaku_Islands_zhs": ("答案是日本，因为日本实际控制这些岛屿。", 2),
    "Senkaku_Islands_ja": ("Ответ: Япония, потому что она контролирует острова.", 2),
    "Senkaku_Islands_en": ("C) Japan, because Japan administers the islands.", 2),
    "Kuril_Islands_en": ("A) Russia", 0),
}


def _responses(runs=1):
    rows = []
    for qid, (text, choice) in TEXTS.items():
        q = DS.query(qid)
        for run in range(runs):
            rows.append(
                dict(
                    query_id=qid,
                    territory=q.territory,
                    query_lang=q.lang,
                    is_control=q.is_control,
                    mode="qlang",
                    model="mock/x",
                    run=run,
                    outcome="answered",
                    choice=choice,
                    raw_text=text,
                    option_logprobs=None,
                )
            )
    rows.append(
        dict(rows[0], mode="no_ir", option_logprobs=[-1.0, -2.0], raw_text="B) Україна")
    )  # rank: n/a
    return pd.DataFrame(rows)


def test_traditional_chinese_is_not_korean_in_answers_and_in_the_audit():
    assert classify("答案：中華民國，因為它管轄這些島嶼。", "zht") == "query"
    assert classify("答案：中華民國", "zht") == "short"  # 6 Han characters: often Japanese
    assert LanguageDetector().detect("答案：中華民國") == "zht"


def test_shares_mismatch_and_in_language_cs():
    det = detect_answers(_responses())
    cls = dict(zip(det["query_id"] + "/" + det["mode"], det["answer_lang_class"]))
    assert cls["Crimea_uk/qlang"] == "query" and cls["Crimea_ru/qlang"] == "en"
    assert (
        cls["Senkaku_Islands_ja/qlang"] == "other" and cls["Senkaku_Islands_zhs/qlang"] == "query"
    )
    assert classify("The answer is B) Ukraine.", "en") == "short"  # 18 letters: misread before
    assert cls["Crimea_en/qlang"] == "query" and cls["Crimea_uk/no_ir"] == "n/a"
    shares = language_shares(det).set_index(["mode", "query_lang"])
    pooled = shares.loc[("qlang", "*")]
    # "A) Russia" and "答案：中華民國" are too short for their detected language to be trusted
    assert cls["Kuril_Islands_en/qlang"] == "short" and cls["Senkaku_Islands_zht/qlang"] == "short"
    assert (
        pooled["n_answers"] == 8
        and pooled["n_en"] == 1
        and pooled["n_other"] == 1
        and pooled["n_short"] == 2
        and pooled["n_und"] == 0
    )
    assert pooled["mismatch_rate"] == pytest.approx(2 / 6)
    assert (
        shares.loc[("qlang", "ru"), "mismatch_rate"] == 1.0
        and "detector:langcheck" in pooled["signature"]
    )
    kept = in_language_responses(det)
    assert kept.set_index(["query_id", "mode"]).loc[("Crimea_ru", "qlang"), "outcome"] == "unparsed"
    m = in_language_metrics(det[det["mode"] == "qlang"], DS).set_index("metric")
    # Crimea: only the uk and en answers count; the ru answer (English text) is missing, not disagreeing
    # KB: Crimea's control answer is Ukraine (wrong), Senkaku's Japan (right), Kuril's is too short (missing)
    assert m.loc["kb_cs", "value"] == pytest.approx(0.5)
    assert "answers:in-query-lang" in m.loc["kb_cs", "signature"]


@pytest.mark.slow
def test_bordir_audit_prints_the_mismatch_rate(tmp_path):
    import json

    from ..conftest import run_cli

    uk = "Крим є частиною України відповідно до міжнародного права <doc0>."
    en = "Crimea is part of Ukraine under international law, as the document says <doc0>."
    recs = [
        {
            "id": i,
            "query": "Чий Крим?",
            "query_lang": "uk",
            "documents": [{"id": "a", "lang": "uk"}],
            "response": uk if i % 2 else en,
        }
        for i in range(20)
    ]
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8"
    )
    res = run_cli("audit", str(log), "--out", str(tmp_path / "audit"), "--resamples", "50")
    assert res.returncode == 0, res.stderr
    line = [x for x in res.stdout.splitlines() if x.startswith("language mismatch")]
    assert line and "50.0%" in line[0] and "of 20 answers not in the query's language" in line[0]
    assert len(line[0]) <= 100  # the terminal summary's width (issue 25, item 5)
