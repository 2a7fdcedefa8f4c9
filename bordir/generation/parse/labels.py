"""Answer labels, option words and copulas in the 49 query languages, and the reply clean-up before parsing.

A reply often wraps its letter in words: ``Answer: B``, ``答案是B``,
``La opción B``, ``الإجابة هي B``, ``विकल्प B``, ``Ответ — Б``, ``答えはBです``,
``B şıkkı``. This module holds those words, per language (:data:`ANSWER_WORDS`,
:data:`OPTION_WORDS`, :data:`COPULAS`, :data:`TRAILING`), and the regexes built
from them:

* :data:`LEAD_LABEL`: a leading answer label with an optional copula
  (``The answer is``, ``Ответ —``, ``答案是``, ``Jibu ni``);
* :data:`OPTION_PREFIX`: an option word before a letter (``Option``, ``La opción``, ``选项``, ``विकल्प``);
* :data:`TRAILING_RE`: words after a letter that keep it a clear choice
  (``です``, ``है``, ``است``, ``'dir``, ``şıkkı``, ``variantı``);
* :data:`LABEL_ANYWHERE`: ``<answer word>:`` at a line or sentence start, anywhere.

Words of scripts written without spaces (Chinese, Japanese, Korean particles,
Thai, Lao, Khmer, Burmese) may touch the next word; the others must end at a
word boundary (``answers`` is not ``answer``, ``उत्तरी`` is not ``उत्तर``).

Every regex here runs in time linear in the reply (no unbounded ``\\s*``
before an alternation at every line start).

Example:
    >>> strip_lead("答案是B")
    ('B', True)
    >>> strip_lead("La respuesta es: B) España")
    ('B) España', True)
    >>> OPTION_PREFIX.match("La opción B").group(0)
    'La opción '
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ...records import Query
from .._textnorm import light, unmark

__all__ = [
    "ANSWER_WORDS",
    "OPTION_WORDS",
    "COPULAS",
    "TRAILING",
    "ARTICLES",
    "LEAD_LABEL",
    "OPTION_PREFIX",
    "TRAILING_RE",
    "LABEL_ANYWHERE",
    "OPTIONS_BLOCK",
    "clean",
    "strip_lead",
    "remove_query_echo",
]

ANSWER_WORDS: Mapping[str, tuple[str, ...]] = {
    "en": (
        "final answer",
        "the answer is",
        "my answer is",
        "answer is",
        "answer",
        "correct answer",
        "chosen option",
        "selected option",
        "option chosen",
        "response",
        "my choice is",
        "i choose",
        "i pick",
    ),
    "fr": (
        "réponse",
        "la réponse est",
        "ma réponse",
        "bonne réponse",
        "réponse correcte",
        "je choisis",
    ),
    "es": ("respuesta", "la respuesta es", "respuesta correcta", "mi respuesta", "elijo"),
    "pt": (
        "resposta",
        "resposta correta",
        "resposta certa",
        "a resposta é",
        "minha resposta",
        "escolho",
    ),
    "it": ("risposta", "risposta corretta", "la risposta è", "scelgo"),
    "de": ("antwort", "richtige antwort", "die antwort ist", "ich wähle"),
    "nl": ("antwoord", "het antwoord is", "juiste antwoord", "ik kies"),
    "da": ("svar", "svaret", "svaret er", "det rigtige svar"),
    "is": ("svar", "svarið", "rétt svar"),
    "sl": ("odgovor", "pravilni odgovor", "pravilen odgovor"),
    "hr": ("odgovor", "točan odgovor", "tačan odgovor", "ispravan odgovor"),
    "bs": ("odgovor", "tačan odgovor", "ispravan odgovor"),
    "sr": ("одговор", "тачан одговор", "odgovor"),
    "sq": ("përgjigja", "përgjigjja", "përgjigje", "përgjigja e saktë"),
    "ru": ("ответ", "правильный ответ", "мой ответ", "я выбираю"),
    "uk": ("відповідь", "правильна відповідь", "моя відповідь", "я обираю"),
    "ky": ("жооп", "туура жооп"),
    "tg": ("ҷавоб", "ҷавоби дуруст", "чавоб"),
    "mn": ("хариулт", "хариу", "зөв хариулт"),
    "ar": ("الإجابة", "الاجابة", "الجواب", "جواب", "الإجابة الصحيحة", "الاجابة الصحيحة"),
    "fa": ("پاسخ", "جواب", "پاسخ صحیح", "پاسخ درست"),
    "ur": ("جواب", "صحیح جواب", "درست جواب"),
    "hi": ("उत्तर", "सही उत्तर", "जवाब", "सही जवाब"),
    "ne": ("उत्तर", "सही उत्तर", "जवाफ"),
    "bn": ("উত্তর", "সঠিক উত্তর"),
    "zhs": ("答案", "回答", "正确答案", "我选择", "我选", "答"),
    "zht": ("答案", "回答", "正確答案", "我選擇", "我選", "答"),
    "ja": ("答え", "回答", "解答", "正解"),
    "ko": ("답", "정답", "답변"),
    "tr": ("cevap", "yanıt", "doğru cevap", "doğru yanıt", "cevabım", "doğru seçenek"),
    "az": ("cavab", "düzgün cavab", "doğru cavab"),
    "hy": ("պատասխան", "պատասխանը", "ճիշտ պատասխանը"),
    "iw": ("תשובה", "התשובה", "התשובה הנכונה"),
    "el": ("απάντηση", "η απάντηση", "σωστή απάντηση"),
    "id": ("jawaban", "jawabannya", "jawaban yang benar"),
    "ms": ("jawapan", "jawapannya", "jawapan yang betul"),
    "tl": ("sagot", "tamang sagot"),
    "vi": ("trả lời", "câu trả lời", "đáp án", "đáp án đúng"),
    "th": ("คำตอบ", "คำตอบที่ถูกต้อง"),
    "lo": ("ຄຳຕອບ", "ຄໍາຕອບ"),
    "km": ("ចម្លើយ", "ចម្លើយត្រឹមត្រូវ"),
    "my": ("အဖြေ", "အဖြေမှန်"),
    "ka": ("პასუხი", "პასუხია", "სწორი პასუხია", "სწორი პასუხი"),
    "sw": ("jibu", "jibu sahihi", "jibu langu"),
    "so": ("jawaab", "jawaabta", "jawaabtu", "jawaabta saxda ah"),
    "mg": ("valiny", "ny valiny"),
    "ht": ("repons", "repons lan", "bon repons lan"),
    "sn": ("mhinduro", "mhinduro yacho"),
    "ti": ("መልሲ", "ትኽክለኛ መልሲ"),
    "uz": ("javob", "to'g'ri javob", "toʻgʻri javob", "javobim"),
    "dz": ("ལན",),
    "mfe": ("repons", "repons la", "bon repons"),
    "rn": ("inyishu", "inyishu nyayo"),
    "rw": ("igisubizo", "igisubizo nyacyo"),
    "ro": ("răspuns", "răspunsul", "răspunsul corect"),
    "to": ("tali", "ko e tali"),
}
"""Words that introduce an answer, per language (a leading label, or ``<word>:`` anywhere)."""

OPTION_WORDS: Mapping[str, tuple[str, ...]] = {
    "en": ("option", "choice", "letter", "alternative"),
    "fr": ("option", "l'option", "choix", "la réponse"),
    "es": ("opción", "la opción", "alternativa", "la alternativa", "inciso"),
    "pt": ("opção", "a opção", "alternativa", "a alternativa", "letra"),
    "it": ("opzione", "l'opzione", "alternativa"),
    "de": ("option", "antwortmöglichkeit", "auswahl"),
    "nl": ("optie", "keuze"),
    "da": ("mulighed", "valgmulighed"),
    "is": ("valkostur", "kostur"),
    "sl": ("možnost",),
    "hr": ("opcija", "mogućnost"),
    "bs": ("opcija",),
    "sr": ("опција", "opcija"),
    "sq": ("opsioni", "alternativa"),
    "ro": ("opțiunea", "varianta"),
    "ru": ("вариант", "пункт"),
    "uk": ("варіант",),
    "ky": ("вариант",),
    "tg": ("вариант", "интихоб"),
    "mn": ("сонголт", "хувилбар"),
    "ar": ("الخيار", "خيار", "الاختيار"),
    "fa": ("گزینه", "گزینهٔ"),
    "ur": ("آپشن", "انتخاب"),
    "hi": ("विकल्प",),
    "ne": ("विकल्प",),
    "bn": ("বিকল্প",),
    "zhs": ("选项", "选择"),
    "zht": ("選項", "選擇"),
    "ja": ("選択肢",),
    "ko": ("선택지", "보기", "옵션"),
    "tr": ("seçenek", "şık"),
    "az": ("variant", "seçim"),
    "hy": ("տարբերակ",),
    "iw": ("אפשרות",),
    "el": ("επιλογή",),
    "id": ("pilihan", "opsi"),
    "ms": ("pilihan",),
    "tl": ("opsyon", "titik"),
    "vi": ("lựa chọn", "phương án"),
    "th": ("ตัวเลือก", "ข้อ"),
    "lo": ("ທາງເລືອກ",),
    "km": ("ជម្រើស",),
    "my": ("ရွေးချယ်မှု",),
    "ka": ("ვარიანტი",),
    "sw": ("chaguo",),
    "so": ("doorashada",),
    "mg": ("safidy",),
    "ht": ("opsyon", "chwa"),
    "sn": ("sarudzo",),
    "ti": ("ምርጫ",),
    "uz": ("variant",),
    "dz": ("གདམ་ཁ",),
    "mfe": ("opsion", "swa"),
    "rn": ("ihitamwo",),
    "rw": ("ihitamo",),
    "to": ("fili",),
}
"""Words for "option" that may stand before a letter (``Option B``, ``La opción B``, ``选项B``)."""

COPULAS: tuple[str, ...] = (
    "is",
    "es",
    "est",
    "ist",
    "è",
    "é",
    "er",
    "je",
    "је",
    "është",
    "este",
    "ni",
    "waa",
    "dia",
    "ay",
    "se",
    "là",
    "adalah",
    "ialah",
    "ndeye",
    "ndiyo",
    "ko e",
    "ko",
    "это",
    "це",
    "бол",
    "هي",
    "هو",
    "است",
    "היא",
    "είναι",
    "হলো",
    "হল",
    "है",
    "是",
    "为",
    "為",
    "は",
    "が",
    "은",
    "는",
    "คือ",
    "ແມ່ນ",
    "គឺ",
    "မှာ",
)
"""Words between an answer label and the letter (``The answer is B``, ``答案是B``, ``Jibu ni B``)."""

TRAILING: tuple[str, ...] = (
    "です",
    "だ",
    "입니다",
    "이다",
    "है",
    "हो",
    "হয়",
    "است",
    "ہے",
    "аст",
    "እዩ",
    "ဖြစ်သည်",
    "ဖြစ်ပါသည်",
    "'dir",
    "'dır",
    "'dur",
    "'dür",
    "-dir",
    "-dır",
    "dir",
    "dır",
    "şıkkı",
    "şıkkıdır",
    "seçeneği",
    "seçeneğidir",
    "variantı",
    "variantıdır",
)
"""Words after a letter that keep it a clear choice (``答えはBです``, ``उत्तर B है``, ``B şıkkı``)."""

ARTICLES: tuple[str, ...] = (
    "the",
    "la",
    "el",
    "le",
    "a",
    "o",
    "die",
    "der",
    "das",
    "het",
    "de",
    "ang",
    "ny",
    "η",
    "l'",
)
"""Articles that may stand before an answer or option word (``La opción B``, ``A resposta é B``)."""

_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u064b-\u065f\u0670\u0900-\u0963\u0966-\u0dff"  # no dandas
_END = rf"(?![^\W\d_]|[{_MARKS}])"  # not followed by a letter or a combining mark of the same word


def _unspaced(word: str) -> bool:
    o = ord(word[-1])
    return 0x0E00 <= o <= 0x0EFF or 0x1000 <= o <= 0x109F or 0x1780 <= o <= 0x17FF or o >= 0x2E80


def _alternation(words: Iterable[str]) -> str:
    """``(?:spaced words, each ending at a word boundary | unspaced words)``, longest first, case-insensitive."""
    uniq = sorted({light(w) for w in words}, key=lambda w: (-len(w), w))  # NFKC, as replies are
    spaced = [re.escape(w).replace(r"\ ", r"\s+") for w in uniq if not _unspaced(w)]
    unspaced = [re.escape(w) for w in uniq if _unspaced(w)]
    parts = []
    if spaced:
        parts.append(rf"(?i:{'|'.join(spaced)}){_END}")
    if unspaced:
        parts.append(rf"(?i:{'|'.join(unspaced)})")
    return "(?:" + "|".join(parts) + ")"


def _all(table: Mapping[str, tuple[str, ...]]) -> list[str]:
    return [w for words in table.values() for w in words]


_ARTICLE = r"(?:(?i:l')|(?i:" + "|".join(re.escape(a) for a in ARTICLES if a != "l'") + r")\s+)"
_ANSWER = _alternation(_all(ANSWER_WORDS))
_OPTION = _alternation(_all(OPTION_WORDS))
_SEP = (
    r"[ \t]*(?:[:\-\u055d][ \t]*)?"  # a colon, a dash (em dashes are '-' after light()), Armenian ՝
)

LEAD_LABEL = re.compile(
    rf"^{_ARTICLE}?{_ANSWER}(?:{_SEP}{_alternation(COPULAS)})?\s*(?:[:\-\u055d]\s*)?"
)
"""A leading answer label, its copula and separator (``The answer is``, ``Ответ —``, ``答案是``)."""

OPTION_PREFIX = re.compile(rf"^{_ARTICLE}?{_OPTION}{_SEP}")
"""An option word before a letter (``Option``, ``La opción``, ``选项``, ``विकल्प``)."""

TRAILING_RE = re.compile(rf"[ \t]*{_alternation(TRAILING)}")
"""A word after a letter that keeps it a clear choice (``です``, ``है``, ``'dir``, ``şıkkı``)."""

LABEL_ANYWHERE = re.compile(rf"(?m)(?:^|(?<=[\n.!?]))[ \t]*{_ANSWER}[ \t]*:\s*")
"""``<answer word>:`` at a line or sentence start (the last one starts the final segment)."""

OPTIONS_BLOCK = re.compile(
    r"(?im)^[ \t]*options[ \t]*:[ \t]*\n(?:[ \t]*[(\[]?[A-H][)\]][^\n]*(?:\n|$))+"
)
"""An echoed ``Options:`` block of the prompt."""

_CITIZEN = re.compile(r"^(?i:as an? (?:citizen|national) of)\s+[^,\n]{1,80},\s*")
_LEAD_JUNK = " \t\n\"'#>-:|"


def clean(text: str) -> str:
    """Light normalization plus markdown emphasis removed (``**B)**`` → ``B)``): :func:`~bordir.generation._textnorm.unmark`."""
    return unmark(text)


def strip_lead(s: str) -> tuple[str, bool]:
    """Strip leading quotes, labels (``Answer:``, ``答案是``) and an "As a citizen of X," opening.

    Returns the rest and whether an answer label was stripped.
    """
    labelled = False
    for _ in range(4):
        before = s
        s = s.lstrip(_LEAD_JUNK)
        m = LEAD_LABEL.match(s)
        if m and m.end() > 0:
            s, labelled = s[m.end() :], True
        s = _CITIZEN.sub("", s, count=1)
        if s == before:
            break
    return s, labelled


def remove_query_echo(s: str, query: Query) -> str:
    """Remove a verbatim echo of the query text and of an ``Options:`` block."""
    q = clean(query.text).strip()
    if q and q in s:
        s = s.replace(q, "\n")
    return OPTIONS_BLOCK.sub("\n", s)
