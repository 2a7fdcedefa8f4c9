"""The audit's answers (issue 51.3): echoes counted apart, and no language verdict on a reply too short to detect.

A log on disk (JSONL) of answers 2–20 characters long in English, Russian, Chinese and Arabic,
whose languages the log does not give: before, each was detected and most were "not in the
query's language" (the headline said 100 % mismatch for English). Now a detected reply under its
script's letters (:mod:`bordir.langid.short`) is skipped and counted; a long reply is checked;
a reply whose language the log gives is trusted at any length; a reply that copies its
document is an echo: counted, and left out of the citation rates and the language match.
"""

from __future__ import annotations

import json

import pytest

from bordir.audit import AuditOptions, run_audit
from bordir.langid.short import too_short

from ..conftest import invoke_cli

DOC_EN = (
    "Crimea is a peninsula on the northern coast of the Black Sea. Russia has administered it "
    "since 2014, while Ukraine and most other states regard it as Ukrainian territory [1]."
)
SHORT = {  # 2-20 characters: the replies langdetect misreads
    "en": ["Ukraine.", "B) Ukraine", "Kyiv", "Yes.", "It is Ukraine.", "Answer: B"],
    "ru": ["Украина.", "Б) Украина", "Да."],
    "zhs": ["乌克兰", "答案是B"],
}
LONG = {
    "en": "Crimea is Ukrainian territory under international law, administered by Russia.",
    "ru": "Крым является территорией Украины по международному праву, хотя им управляет Россия.",
    "zhs": "根据国际法，克里米亚是乌克兰的领土，但自二零一四年起由俄罗斯管理。",
    "ar": "أوكرانيا",  # eight Arabic letters: enough (measured 97 % right)
}


def _records():
    recs, i = [], 0
    for lang, replies in SHORT.items():
        for text in replies:
            recs.append({"id": i, "query": "Whose is Crimea?", "query_lang": lang, "response": text,
                         "documents": [{"id": "d", "lang": "en"}], "citations": []})  # fmt: skip
            i += 1
    for lang, text in LONG.items():
        recs.append({"id": i, "query": "Whose is Crimea?", "query_lang": lang, "response": text,
                     "documents": [{"id": "d", "lang": "en"}], "citations": []})  # fmt: skip
        i += 1
    # the log gives the language: trusted at any length
    recs.append({"id": i, "query": "Whose is Crimea?", "query_lang": "en", "response": "Ukraine.",
                 "response_lang": "en", "documents": [{"id": "d", "lang": "en"}], "citations": []})  # fmt: skip
    # an echo of the document (with a citation-like "[1]" in it): counted apart
    recs.append({"id": i + 1, "query": "Whose is Crimea?", "query_lang": "en",
                 "response": DOC_EN + "\n\n" + DOC_EN,
                 "documents": [{"id": "a", "lang": "en", "text": DOC_EN},
                               {"id": "b", "lang": "uk", "text": "Крим — півострів."}]})  # fmt: skip
    return recs


@pytest.fixture
def log(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _records()), "utf-8")
    return p


def test_every_short_reply_is_too_short_and_the_long_ones_are_not():
    assert all(too_short(t) for texts in SHORT.values() for t in texts)
    assert not any(too_short(t) for t in LONG.values())


def test_short_replies_are_skipped_and_counted_echoes_apart(log):
    res = run_audit(log, AuditOptions(n_resamples=100, seed=1))
    a = res.tables.answers.set_index(["group", "query_lang"])
    pooled = a.loc[("all", "*")]
    n_short = sum(len(v) for v in SHORT.values())
    assert pooled["n_lang_short"] == n_short
    assert pooled["n_echo"] == 1 and pooled["echo_rate"] == pytest.approx(1 / len(_records()))
    # checked: the four long replies and the one whose language the log gives
    assert pooled["n_lang_checked"] == len(LONG) + 1
    assert pooled["language_match_rate"] == 1.0
    en = a.loc[("all", "en")]
    assert en["n_lang_short"] == len(SHORT["en"]) and en["n_lang_checked"] == 2
    # the echo cites nothing and includes nothing: "[1]" of the copied text is not its citation
    assert pooled["n_out_of_range"] == 0
    rates = res.tables.overall
    assert "uk" not in set(rates["doc_lang"])  # the echo's second document is not counted


def test_cli_says_how_many_were_skipped(log, tmp_path):
    r = invoke_cli("audit", str(log), "--out", str(tmp_path / "out"), "--no-plots",
                   "--resamples", "100")  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "language mismatch (all): 0.0%" in out
    assert (
        f"{sum(len(v) for v in SHORT.values())} answers too short to detect their language were skipped"
        in out
    )
    assert "echoes (all): 1 of" in out
    md = (tmp_path / "out" / "audit.md").read_text(encoding="utf-8")
    assert "too short" in md and "| echoes |" in md
