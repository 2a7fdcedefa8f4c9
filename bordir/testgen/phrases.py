"""Per-language phrases of the test generator: "not enough information", question templates, yes/no checks.

This is testgen's own small table (the RGB testbeds keep theirs); the
translations were written for bordir and have not been reviewed by native
speakers of every language. A language missing from a table falls back to
English, and :func:`coverage_of` says which tables cover a language.

* :data:`IDK` — the answer the system under test is told to give when its
  documents do not support an answer (RAG-Tester: "not enough information to
  answer" / "I don't know"); the expected answer of negative tests.
* :data:`REFUSAL_MARKERS` — fragments that mark a refusal in an answer
  (the language's own and, for every language, the English ones, since small
  models often answer in English).
* :data:`QUESTION` — the template generator's question, ``{kw}`` the topic words
  (joined by :data:`AND`):
  it asks *what* the text says, so it cannot be answered by yes or no.
* :data:`OFF_TOPIC` — topics of the template generator's "absent content"
  negative questions (used only if none of their words occurs in the corpus).
* :data:`YES_NO_STARTS` / :data:`WH_WORDS` — :func:`is_yes_no` rejects generated
  questions that a yes or a no would answer.

Example:
    >>> IDK["es"]
    'No hay suficiente información para responder.'
    >>> is_refusal("Sorry, I don't know.", "ru"), is_refusal("Москва.", "ru")
    (True, False)
    >>> is_yes_no("Is Crimea a peninsula?", "en"), is_yes_no("What is Crimea?", "en")
    (True, False)
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "IDK",
    "REFUSAL_MARKERS",
    "QUESTION",
    "AND",
    "OFF_TOPIC",
    "YES_NO_STARTS",
    "WH_WORDS",
    "idk",
    "question",
    "is_refusal",
    "is_yes_no",
    "coverage_of",
]

IDK: dict[str, str] = {
    "en": "Not enough information to answer.",
    "es": "No hay suficiente información para responder.",
    "fr": "Pas assez d'informations pour répondre.",
    "de": "Nicht genügend Informationen, um zu antworten.",
    "ru": "Недостаточно информации для ответа.",
    "uk": "Недостатньо інформації для відповіді.",
    "ar": "لا توجد معلومات كافية للإجابة.",
    "az": "Cavab vermək üçün kifayət qədər məlumat yoxdur.",
    "el": "Δεν υπάρχουν αρκετές πληροφορίες για απάντηση.",
    "hi": "उत्तर देने के लिए पर्याप्त जानकारी नहीं है।",
    "hy": "Պատասխանելու համար բավարար տեղեկություն չկա։",
    "iw": "אין מספיק מידע כדי לענות.",
    "ja": "回答するのに十分な情報がありません。",
    "tr": "Cevap vermek için yeterli bilgi yok.",
    "ur": "جواب دینے کے لیے کافی معلومات نہیں ہیں۔",
    "zhs": "没有足够的信息来回答。",
    "zht": "沒有足夠的資訊來回答。",
}

_EN_MARKERS = (
    "not enough information",
    "i don't know",
    "i do not know",
    "cannot answer",
    "can't answer",
    "no information",
)
REFUSAL_MARKERS: dict[str, tuple[str, ...]] = {
    "en": _EN_MARKERS,
    "es": ("no hay suficiente información", "no lo sé", "no sé", "no puedo responder"),
    "fr": ("pas assez d'informations", "je ne sais pas", "je ne peux pas répondre"),
    "de": ("nicht genügend informationen", "ich weiß es nicht", "weiß ich nicht"),
    "ru": ("недостаточно информации", "не знаю", "не могу ответить"),
    "uk": ("недостатньо інформації", "не знаю", "не можу відповісти"),
    "ar": ("لا توجد معلومات كافية", "لا أعرف"),
    "az": ("kifayət qədər məlumat yoxdur", "bilmirəm"),
    "el": ("δεν υπάρχουν αρκετές πληροφορίες", "δεν ξέρω"),
    "hi": ("पर्याप्त जानकारी नहीं", "मुझे नहीं पता"),
    "hy": ("բավարար տեղեկություն չկա", "չգիտեմ"),
    "iw": ("אין מספיק מידע", "אני לא יודע"),
    "ja": ("十分な情報がありません", "わかりません", "分かりません"),
    "tr": ("yeterli bilgi yok", "bilmiyorum"),
    "ur": ("کافی معلومات نہیں", "مجھے نہیں معلوم"),
    "zhs": ("没有足够的信息", "不知道"),
    "zht": ("沒有足夠的資訊", "不知道"),
}

QUESTION: dict[str, str] = {
    "en": "What does the text say about {kw}?",
    "es": "¿Qué dice el texto sobre «{kw}»?",
    "fr": "Que dit le texte à propos de « {kw} » ?",
    "de": "Was sagt der Text über „{kw}“?",
    "ru": "Что говорится в тексте о «{kw}»?",
    "uk": "Що сказано в тексті про «{kw}»?",
    "ar": "ماذا يقول النص عن «{kw}»؟",
    "az": "Mətndə «{kw}» haqqında nə deyilir?",
    "el": "Τι λέει το κείμενο για «{kw}»;",
    "hi": "पाठ में «{kw}» के बारे में क्या कहा गया है?",
    "hy": "Ի՞նչ է ասվում տեքստում «{kw}»-ի մասին։",
    "iw": 'מה נאמר בטקסט על "{kw}"?',
    "ja": "本文では「{kw}」について何と述べていますか？",
    "tr": "Metin «{kw}» hakkında ne söylüyor?",
    "ur": "متن میں «{kw}» کے بارے میں کیا کہا گیا ہے؟",
    "zhs": "文中关于“{kw}”说了什么？",
    "zht": "文中關於「{kw}」說了什麼？",
}

AND: dict[str, str] = {
    "en": "and",
    "es": "y",
    "fr": "et",
    "de": "und",
    "ru": "и",
    "uk": "і",
    "ar": "و",
    "az": "və",
    "el": "και",
    "hi": "और",
    "hy": "և",
    "iw": "ו",
    "ja": "と",
    "tr": "ve",
    "ur": "اور",
    "zhs": "和",
    "zht": "和",
}
"""The conjunction joining the two topic words of a template question."""

OFF_TOPIC: dict[str, tuple[str, ...]] = {
    "en": ("opera house", "chess tournament", "bakery"),
    "es": ("teatro de ópera", "torneo de ajedrez", "panadería"),
    "fr": ("opéra", "tournoi d'échecs", "boulangerie"),
    "de": ("Opernhaus", "Schachturnier", "Bäckerei"),
    "ru": ("оперный театр", "шахматный турнир", "пекарня"),
    "uk": ("оперний театр", "шаховий турнір", "пекарня"),
    "ar": ("دار الأوبرا", "بطولة الشطرنج", "مخبز"),
    "az": ("opera teatrı", "şahmat turniri", "çörək sexi"),
    "el": ("όπερα", "σκακιστικό τουρνουά", "αρτοποιείο"),
    "hi": ("ओपेरा हाउस", "शतरंज प्रतियोगिता", "बेकरी"),
    "hy": ("օպերային թատրոն", "շախմատի մրցաշար", "հացաբուլկեղեն"),
    "iw": ("בית אופרה", "טורניר שחמט", "מאפייה"),
    "ja": ("オペラハウス", "チェス大会", "パン屋"),
    "tr": ("opera binası", "satranç turnuvası", "fırın"),
    "ur": ("اوپیرا ہاؤس", "شطرنج کا ٹورنامنٹ", "بیکری"),
    "zhs": ("歌剧院", "国际象棋比赛", "面包店"),
    "zht": ("歌劇院", "國際象棋比賽", "麵包店"),
}

YES_NO_STARTS: dict[str, tuple[str, ...]] = {
    "en": (
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "has",
        "have",
        "had",
        "may",
        "might",
        "must",
        "shall",
        "isn't",
        "aren't",
        "doesn't",
        "didn't",
    ),
    "es": ("es", "son", "está", "están", "hay", "tiene", "puede"),
    "fr": ("est-ce", "est-il", "est-elle", "y a-t-il", "a-t-il", "peut-on"),
    "de": ("ist", "sind", "war", "waren", "hat", "haben", "gibt", "kann", "können", "wird"),
    "ru": ("ли",),
    "uk": ("чи",),
    "tr": (),
}
WH_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("what", "which", "who", "whom", "whose", "when", "where", "why", "how"),
    "es": (
        "qué",
        "cuál",
        "cuáles",
        "quién",
        "quiénes",
        "cuándo",
        "dónde",
        "por qué",
        "cómo",
        "cuánto",
        "cuántos",
    ),
    "fr": (
        "que",
        "quel",
        "quelle",
        "quels",
        "quelles",
        "qui",
        "quand",
        "où",
        "pourquoi",
        "comment",
        "combien",
    ),
    "de": ("was", "welche", "welcher", "welches", "wer", "wann", "wo", "warum", "wie", "wieso"),
    "ru": (
        "что",
        "какой",
        "какая",
        "какие",
        "кто",
        "когда",
        "где",
        "почему",
        "как",
        "сколько",
        "чем",
        "чего",
    ),
    "uk": ("що", "який", "яка", "які", "хто", "коли", "де", "чому", "як", "скільки", "чим"),
    "tr": ("ne", "hangi", "kim", "ne zaman", "nerede", "neden", "nasıl", "kaç"),
}


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'").casefold()


def idk(lang: str) -> str:
    """The "not enough information" answer in ``lang`` (English if the table lacks it)."""
    return IDK.get(lang, IDK["en"])


def question(lang: str, *kws: str) -> str:
    """The template question about the words ``kws`` in ``lang`` (English if the table lacks it).

    >>> question("en", "Tatar", "Sevastopol"), question("ja", "尖閣", "国有")
    ('What does the text say about Tatar and Sevastopol?', '本文では「尖閣と国有」について何と述べていますか？')
    """
    conj = AND[lang] if lang in QUESTION and lang in AND else AND["en"]
    if lang in ("ja", "zhs", "zht"):
        sep = conj
    elif lang == "iw":
        sep = " " + conj  # the Hebrew conjunction is a prefix of the next word
    else:
        sep = f" {conj} "
    return QUESTION.get(lang, QUESTION["en"]).format(kw=sep.join(kws))


def is_refusal(answer: str, lang: str) -> bool:
    """True if ``answer`` says the documents do not support an answer (the language's or English markers)."""
    text = _fold(answer)
    markers = set(REFUSAL_MARKERS.get(lang, ())) | set(_EN_MARKERS)
    return any(_fold(m) in text for m in markers) or _fold(idk(lang)).rstrip(".。") in text


def is_yes_no(q: str, lang: str) -> bool:
    """True if question ``q`` looks answerable by yes or no.

    English, Spanish, French and German: it starts with an auxiliary verb (or
    "hay"/"y a-t-il") and has no question word; Russian ("ли") and Ukrainian
    ("чи"): it contains the yes/no particle; Turkish: the question particle
    ``mı/mi/mu/mü`` with no question word. Other languages: False (not checked).
    """
    text = _fold(q).strip(" ¿¡\"'«»„“")
    words = re.findall(r"[\w'-]+", text)
    if not words:
        return False
    wh = WH_WORDS.get(lang, ())
    has_wh = any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in wh)
    if lang in ("ru", "uk"):
        return any(w in YES_NO_STARTS[lang] for w in words) and not has_wh
    if lang == "tr":
        return (
            any(
                w in ("mı", "mi", "mu", "mü") or re.fullmatch(r"m[ıiuü](d[ıiuü]r|s[ıiuü]n)", w)
                for w in words
            )
            and not has_wh
        )
    starts = YES_NO_STARTS.get(lang)
    if not starts:
        return False
    head = " ".join(words[:3])
    return any(head == s or head.startswith(s + " ") for s in starts) and not has_wh


def coverage_of(lang: str) -> dict[str, bool]:
    """Which tables have ``lang`` (the others fall back to English or are not checked)."""
    return {
        "idk": lang in IDK,
        "refusal": lang in REFUSAL_MARKERS,
        "question": lang in QUESTION,
        "off_topic": lang in OFF_TOPIC,
        "yes_no": lang in YES_NO_STARTS,
    }
