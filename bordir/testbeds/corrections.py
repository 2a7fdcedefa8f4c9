"""Correction cues: a fake answer quoted in order to correct it is not a hedge.

Counterfactual robustness asks a model to notice that the documents are wrong and say so:
"The documents say F, which is incorrect; the answer is X" or "Although the document claims F,
the correct answer is X". Such an answer names the fake answer F, but only to attribute it to the
documents or to call it false: :func:`bordir.testbeds.scorer.answer_outcome` does not count that
mention as naming F (the answer stays ``correct``), while "X or F" stays ``hedged``.

A mention of the fake answer is a **correction** when, within its sentence (up to ``.``, ``;``,
``!``, ``?``, ``。`` …),

* the text before it contains an **attribution** cue (:data:`ATTRIBUTION`: "the document says",
  "according to the documents", "although the document", "文档称", "selon le document" …), or
* the text right after it contains a **falsity** cue (:data:`FALSITY`: "which is incorrect",
  "is wrong", "这是错误的", "ce qui est faux" …).

The cues are case-folded and NFKC-normalised like the answers and cover the RGB languages
(English, Chinese) and :data:`LANGS`; a language outside them keeps the stricter reading (a
quoted fake answer makes the answer ``hedged``).

Example:
    >>> corrected("the documents say 80, which is incorrect; the answer is 70.", 18, 20)
    True
    >>> corrected("it is 70 or 80.", 12, 14)
    False
"""

from __future__ import annotations

import re

__all__ = ["LANGS", "ATTRIBUTION", "FALSITY", "corrected"]

LANGS: tuple[str, ...] = (
    "en", "zhs", "zht", "fr", "es", "pt", "it", "de", "nl", "ru", "uk", "ja", "ko", "ar", "tr",
    "id", "vi",
)  # fmt: skip
"""The languages whose correction cues are listed (``tests/testbeds/test_corrections.py`` tests each)."""

ATTRIBUTION: tuple[str, ...] = (
    # en
    "document says", "documents say", "document said", "documents said", "document claims",
    "documents claim", "document claimed", "documents claimed", "document states",
    "documents state", "document stated", "document suggests", "documents suggest",
    "document mentions", "documents mention", "document reports", "documents report",
    "according to the document", "the passage says", "the passages say", "the passage claims",
    "the text says", "the text claims", "the context says", "the context claims",
    "although the document", "though the document", "while the document", "whereas the document",
    "contrary to the document", "the documents incorrectly", "the document incorrectly",
    "the documents wrongly", "the document wrongly", "the documents erroneously",
    # zh (simplified, traditional)
    "文档称", "文档说", "文档中说", "文档中称", "文档声称", "文档中提到", "文档提到", "文档显示",
    "文档中写道", "文档表示", "根据文档", "虽然文档", "尽管文档", "文件称", "文件中说", "文件声称",
    "资料称", "資料稱", "文檔稱", "文檔說", "文檔中說", "文檔聲稱", "文檔中提到", "根據文檔",
    "雖然文檔", "儘管文檔", "文件稱", "文件中說", "文件聲稱",
    # fr
    "le document dit", "les documents disent", "le document affirme", "les documents affirment",
    "le document indique", "les documents indiquent", "selon le document", "selon les documents",
    "bien que le document", "bien que les documents",
    # es
    "el documento dice", "los documentos dicen", "el documento afirma", "los documentos afirman",
    "el documento indica", "según el documento", "según los documentos", "aunque el documento",
    "aunque los documentos",
    # pt
    "o documento diz", "os documentos dizem", "o documento afirma", "os documentos afirmam",
    "segundo o documento", "de acordo com o documento", "embora o documento",
    # it
    "il documento dice", "i documenti dicono", "il documento afferma", "i documenti affermano",
    "secondo il documento", "sebbene il documento", "anche se il documento",
    # de
    "das dokument sagt", "die dokumente sagen", "das dokument behauptet",
    "die dokumente behaupten", "laut dem dokument", "laut dokument", "obwohl das dokument",
    # nl
    "het document zegt", "de documenten zeggen", "het document beweert", "volgens het document",
    "hoewel het document",
    # ru, uk
    "в документе сказано", "в документах сказано", "документ утверждает", "документы утверждают",
    "согласно документу", "хотя в документе", "в документе указано", "у документі сказано",
    "в документі сказано", "документ стверджує", "згідно з документом", "хоча в документі",
    # ja, ko
    "文書では", "文書には", "文書によると", "文書は", "문서에서는", "문서에 따르면", "문서는",
    # ar, tr, id, vi
    "تقول الوثيقة", "تذكر الوثيقة", "وفقا للوثيقة", "وفقًا للوثيقة", "تزعم الوثيقة",
    "رغم أن الوثيقة", "belgede", "belgeye göre", "belge iddia", "dokumen mengatakan",
    "menurut dokumen", "meskipun dokumen", "tài liệu nói", "theo tài liệu", "mặc dù tài liệu",
)  # fmt: skip
"""Cues before a fake mention (same sentence) that attribute it to the documents."""

FALSITY: tuple[str, ...] = (
    # en
    "which is incorrect", "which is wrong", "which is false", "which is not correct",
    "which is inaccurate", "but this is incorrect", "but that is incorrect", "but this is wrong",
    "but that is wrong", "is incorrect", "is wrong", "is false", "is inaccurate", "is not correct",
    # zh
    "这是错误的", "是错误的", "这不正确", "不正确", "有误", "是错的", "這是錯誤的", "是錯誤的",
    "這不正確", "不正確", "有誤", "是錯的",
    # fr, es, pt, it, de, nl
    "ce qui est faux", "ce qui est incorrect", "est faux", "est incorrect", "lo cual es incorrecto",
    "lo que es incorrecto", "es incorrecto", "es falso", "o que está incorreto", "está incorreto",
    "é falso", "o que é falso", "il che è errato", "il che è sbagliato", "è errato", "è sbagliato",
    "was falsch ist", "ist falsch", "ist nicht korrekt", "wat onjuist is", "is onjuist",
    # ru, uk
    "что неверно", "это неверно", "неверно", "ошибочно", "что неправильно", "що невірно",
    "це неправильно", "неправильно", "помилково",
    # ja, ko
    "は誤り", "は間違い", "誤りです", "間違いです", "틀렸", "잘못",
    # ar, tr, id, vi
    "وهذا خطأ", "غير صحيح", "yanlış", "hatalı", "yang salah", "tidak benar", "là sai",
    "không đúng",
)  # fmt: skip
"""Cues right after a fake mention (same sentence) that call it false."""

_SENTENCE = re.compile(r"[.;!?\n。；！？]")


def corrected(soft: str, start: int, end: int) -> bool:
    """Whether the mention ``soft[start:end]`` (case-folded text) is quoted to be corrected (module docs)."""
    before = _SENTENCE.split(soft[:start])[-1][-100:]
    after = _SENTENCE.split(soft[end:])[0][:60]
    return any(c in before for c in ATTRIBUTION) or any(c in after for c in FALSITY)
