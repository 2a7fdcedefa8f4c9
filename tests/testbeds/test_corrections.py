"""The bordir policy on explicit corrections and on re-scored RGB files (issue 50, item 7).

An answer that quotes the fake answer in order to correct it ("The documents say F, which is
incorrect; the answer is X") is what counterfactual robustness asks for: it is ``correct``, not
``hedged``, in every language whose cues are listed; "X or F" stays ``hedged``. ``bordir testbed
score --policy bordir`` reads ``fakeanswer`` from ``--data`` by id, and says that hedges cannot be
detected without it.
"""

from __future__ import annotations

import json

import pytest

from bordir.testbeds.corrections import LANGS
from bordir.testbeds.scorer import answer_outcome

from ..conftest import invoke_cli

# per language: (attribution form, falsity form, hedge form) with X = 70 (true) and F = 80 (fake)
CORRECTIONS = {
    "en": (
        "Although the document claims 80, the correct answer is 70.",
        "The documents say 80, which is incorrect; the answer is 70.",
        "It is 70 or 80.",
    ),
    "zhs": ("虽然文档声称是80，但正确答案是70。", "文档称答案是80，这是错误的；正确答案是70。", "答案是70或80。"),
    "zht": ("雖然文檔聲稱是80，但正確答案是70。", "文檔稱答案是80，這是錯誤的；正確答案是70。", "答案是70或80。"),
    "fr": ("Selon le document c'est 80, mais la bonne réponse est 70.", "Le document dit 80, ce qui est faux ; la réponse est 70.", "C'est 70 ou 80."),
    "es": ("Aunque el documento afirma 80, la respuesta correcta es 70.", "El documento dice 80, lo cual es incorrecto; la respuesta es 70.", "Es 70 o 80."),
    "pt": ("Embora o documento diga 80, a resposta correta é 70.", "O documento diz 80, o que está incorreto; a resposta é 70.", "É 70 ou 80."),
    "it": ("Secondo il documento è 80, ma la risposta corretta è 70.", "Il documento dice 80, il che è errato; la risposta è 70.", "È 70 o 80."),
    "de": ("Obwohl das Dokument 80 behauptet, ist die richtige Antwort 70.", "Das Dokument sagt 80, was falsch ist; die Antwort ist 70.", "Es ist 70 oder 80."),
    "nl": ("Hoewel het document 80 zegt, is het juiste antwoord 70.", "Het document zegt 80, wat onjuist is; het antwoord is 70.", "Het is 70 of 80."),
    "ru": ("Хотя в документе указано 80, правильный ответ 70.", "В документе сказано 80, что неверно; ответ 70.", "Это 70 или 80."),
    "uk": ("Хоча в документі сказано 80, правильна відповідь 70.", "У документі сказано 80, що невірно; відповідь 70.", "Це 70 або 80."),
    "ja": ("文書によると80ですが、正しい答えは70です。", "文書には80とありますが、80は誤りです。答えは70です。", "70か80です。"),
    "ko": ("문서에 따르면 80이지만, 정답은 70입니다.", "문서는 80이라고 하지만 80은 틀렸습니다. 정답은 70입니다.", "70 또는 80입니다."),
    "ar": ("رغم أن الوثيقة تقول 80، فإن الإجابة الصحيحة هي 70.", "تقول الوثيقة 80، وهذا خطأ؛ الإجابة هي 70.", "إنها 70 أو 80."),
    "tr": ("Belgeye göre 80, ancak doğru cevap 70.", "Belge 80 diyor, bu yanlış; cevap 70.", "70 veya 80."),
    "id": ("Meskipun dokumen mengatakan 80, jawaban yang benar adalah 70.", "Dokumen mengatakan 80, yang salah; jawabannya 70.", "Itu 70 atau 80."),
    "vi": ("Mặc dù tài liệu nói 80, câu trả lời đúng là 70.", "Tài liệu nói 80, điều đó là sai; câu trả lời là 70.", "Đó là 70 hoặc 80."),
}  # fmt: skip


def test_every_listed_language_is_tested():
    assert set(CORRECTIONS) == set(LANGS)


@pytest.mark.parametrize("lang", sorted(CORRECTIONS))
def test_a_correction_that_quotes_the_fake_answer_is_correct(lang):
    attribution, falsity, hedge = CORRECTIONS[lang]
    assert answer_outcome(attribution, ("70",), ("80",))[1] == "correct", attribution
    assert answer_outcome(falsity, ("70",), ("80",))[1] == "correct", falsity
    assert answer_outcome(hedge, ("70",), ("80",))[1] == "hedged", hedge


def _files(tmp_path):
    data = tmp_path / "en_fact.json"
    pred = tmp_path / "prediction_en_fact_m_temp0.7_noise0.0_passage5_correct0.0.json"
    qs = [{"id": i, "query": "Q?", "answer": "70", "fakeanswer": "80", "positive": ["70"],
           "positive_wrong": ["80"], "negative": []} for i in range(4)]  # fmt: skip
    replies = [
        "70 or 80.",
        "70.",
        "The documents say 80, which is incorrect; the answer is 70.",
        "80.",
    ]
    data.write_text("".join(json.dumps(q) + "\n" for q in qs))
    pred.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "query": "Q?",
                    "ans": "70",
                    "label": [],
                    "prediction": p,
                    "docs": [],
                    "noise_rate": 0.0,
                    "factlabel": 0,
                }
            )
            + "\n"  # fmt: skip
            for i, p in enumerate(replies)
        )
    )
    return data, pred


def test_rescore_reads_the_fake_answer_from_data(tmp_path):
    data, pred = _files(tmp_path)
    res = invoke_cli(
        "testbed", "score", str(pred), "--policy", "bordir", "--data", str(data), "--json"
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["metrics"]["accuracy"]["count"] == 2  # "70." and the correction; not "70 or 80."
    assert out["hedges"].startswith("fakeanswer read by id")


def test_rescore_without_data_says_hedges_cannot_be_detected(tmp_path):
    _, pred = _files(tmp_path)
    res = invoke_cli("testbed", "score", str(pred), "--policy", "bordir")
    assert res.returncode == 0, res.stderr
    assert "hedged answers cannot be detected" in res.stderr and "--data" in res.stderr


def test_an_id_missing_from_data_is_one_line(tmp_path):
    data, pred = _files(tmp_path)
    data.write_text(data.read_text().splitlines()[0] + "\n")
    res = invoke_cli("testbed", "score", str(pred), "--policy", "bordir", "--data", str(data))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "is not in the data file" in res.stderr and len(res.stderr.strip().splitlines()) == 1
