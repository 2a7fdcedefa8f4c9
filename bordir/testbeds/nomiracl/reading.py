"""bordir's reading of a NoMIRACL reply (the ``bordir`` policy): refusals and affirmations in the query language and English.

NoMIRACL's own reading (:func:`~bordir.testbeds.nomiracl.template.postprocess`)
looks for two English phrases, lower-cased. A reply in the query language
("Sijui", "Je ne sais pas", "答案不存在"), with a curly apostrophe ("I don’t
know") or that repeats the instruction's two phrases is ``Invalid`` there.
bordir reads it so:

1. a verbatim echo of the prompt (whole or cut off; a small model repeats it, with its
   ``[1]`` … ``[10]``) is removed (:func:`bordir.testbeds.scorer.strip_echo`); the text is
   NFKC-normalised and case-folded, curly apostrophes become ``'`` and runs of whitespace
   one space; a repeat of the instruction's two options (``"Yes, answer is present" or
   "I don't know"``) is removed;
2. *refusal* cues are found: "I don't know" and "the answer is not present" (and close
   variants: "no answer", "not present", "cannot answer", "none of the contexts") in
   English and in the query language (:data:`PHRASES`, one entry per NoMIRACL language),
   a sentence that begins with "No" (``no``, ``non``, ``nein``, ``нет`` …), and the
   refusal sentence of bordir's instructions in that language; their spans are masked, so a
   negation is never read as the affirmation it contains ("ไม่มีคำตอบ" holds "มีคำตอบ");
3. *affirmation* cues are found: "answer is present" and its translations, a sentence that
   begins with "Yes" (``yes``, ``oui``, ``ja``, ``да``, ``是的`` …), a bracketed passage number
   (``[3]``);
4. the outcome is explicit: ``affirmed`` or ``refused`` when only one kind of cue occurs,
   or when the first sentence that has a cue has only one kind ("Yes, answer is present
   in [6]. No answers found in the other contexts." is ``affirmed``); ``contradictory``
   when that sentence has both; ``unparsed`` with no cue; ``empty`` for an empty
   reply; ``failed`` when the call failed; ``echo`` (before all of the above, when the
   prompt is given) for a reply that is mostly a copy of the prompt or of a passage
   (:func:`bordir.generation.parse.echo.detect_echo`): neither an affirmation nor a refusal.

With bordir's own instructions (the ``native`` setting, :mod:`bordir.testbeds.instructions`:
answer from the documents or say the refusal sentence), a reply without a refusal cue is
an answer: ``answered``, which counts as an affirmation (the model took an answer to be present).

The phrase lists cover NoMIRACL's 18 languages and English; they are bordir's
translations, not NoMIRACL's, and are listed in ``docs/testbeds.md``.

Example:
    >>> [read_reply(r, "sw").outcome for r in ("Ndiyo, jibu lipo [2].", "Sijui.", "I don’t know",
    ...                                        'Jibu: "Yes, answer is present" or "I don\\'t know"', "")]
    ['affirmed', 'refused', 'refused', 'unparsed', 'empty']
    >>> read_reply("ไม่มีคำตอบ", "th").outcome, read_reply("No, answer is not present.", "en").outcome
    ('refused', 'refused')
    >>> read_reply("I don't know. Yes, answer is present in [2].", "en").outcome
    'refused'
    >>> read_reply("Yes, I don't know.", "en").outcome
    'contradictory'
    >>> read_reply("Wales", "en", setting="native").outcome
    'answered'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...generation.parse.echo import PromptParts, detect_echo
from ..scorer import strip_echo

__all__ = [
    "PHRASES",
    "OUTCOMES",
    "AFFIRMING",
    "Reading",
    "read_reply",
    "normalize_reply",
]

OUTCOMES = (
    "affirmed", "answered", "refused", "contradictory", "echo", "unparsed", "empty", "failed",
)  # fmt: skip
"""Every outcome of the bordir policy."""
AFFIRMING = frozenset({"affirmed", "answered"})
"""Outcomes that say an answer is present (a hallucination on the non-relevant subset)."""

# Per language: "I don't know", "the answer is not present" (and variants), a sentence-initial
# "no", "the answer is present", a sentence-initial "yes". Normalised as normalize_reply does.
PHRASES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "dont_know": ("i don't know", "i do not know", "i dont know", "don't know", "not sure"),
        "absent": (
            "answer is not present", "answer is not in", "answer isn't present", "not present",
            "no answer", "cannot answer", "can't answer", "cannot be answered", "unable to answer",
            "none of the contexts", "no context", "do not contain", "does not contain",
            "don't contain", "doesn't contain", "not mentioned", "not contain",
            "insufficient information",
        ),
        "no": ("no",),
        "present": ("answer is present", "answer is in", "is present in"),
        "yes": ("yes",),
    },
    "ar": {
        "dont_know": ("لا أعرف", "لا اعرف", "لا أدري", "لا ادري"),
        "absent": ("الإجابة غير موجودة", "الاجابة غير موجودة", "الجواب غير موجود", "لا توجد إجابة"),
        "no": ("لا",),
        "present": ("الإجابة موجودة", "الاجابة موجودة", "الجواب موجود"),
        "yes": ("نعم",),
    },
    "bn": {
        "dont_know": ("আমি জানি না", "জানি না"),
        "absent": ("উত্তর নেই", "উত্তর উপস্থিত নেই", "উত্তর পাওয়া যায়নি"),
        "no": ("না",),
        "present": ("উত্তর আছে", "উত্তর উপস্থিত"),
        "yes": ("হ্যাঁ", "হ্যা"),
    },
    "de": {
        "dont_know": ("ich weiß es nicht", "ich weiß nicht", "weiß ich nicht"),
        "absent": ("antwort ist nicht vorhanden", "keine antwort", "nicht enthalten"),
        "no": ("nein",),
        "present": ("antwort ist vorhanden", "antwort ist enthalten"),
        "yes": ("ja",),
    },
    "es": {
        "dont_know": ("no lo sé", "no sé", "no lo se"),
        "absent": ("respuesta no está presente", "no está presente", "no hay respuesta"),
        "no": ("no",),
        "present": ("respuesta está presente",),
        "yes": ("sí", "si"),
    },
    "fa": {
        "dont_know": ("نمی\u200cدانم", "نمیدانم", "نمی دانم", "نمی\u200cدونم", "نمیدونم"),
        "absent": ("پاسخ وجود ندارد", "جواب وجود ندارد", "پاسخی وجود ندارد"),
        "no": ("نه", "خیر"),
        "present": ("پاسخ وجود دارد", "جواب وجود دارد"),
        "yes": ("بله", "آره"),
    },
    "fi": {
        "dont_know": ("en tiedä",),
        "absent": ("vastausta ei ole", "vastausta ei löydy", "ei vastausta"),
        "no": ("ei",),
        "present": ("vastaus on olemassa", "vastaus löytyy", "vastaus on läsnä"),
        "yes": ("kyllä",),
    },
    "fr": {
        "dont_know": ("je ne sais pas", "je sais pas"),
        "absent": ("réponse n'est pas présente", "n'est pas présente", "pas de réponse", "aucune réponse"),
        "no": ("non",),
        "present": ("réponse est présente",),
        "yes": ("oui",),
    },
    "hi": {
        "dont_know": ("मुझे नहीं पता", "मैं नहीं जानता", "मैं नहीं जानती", "पता नहीं"),
        "absent": ("उत्तर मौजूद नहीं", "जवाब मौजूद नहीं", "उत्तर नहीं है", "कोई उत्तर नहीं"),
        "no": ("नहीं",),
        "present": ("उत्तर मौजूद है", "जवाब मौजूद है"),
        "yes": ("हाँ", "हां"),
    },
    "id": {
        "dont_know": ("saya tidak tahu", "tidak tahu"),
        "absent": ("jawaban tidak ada", "tidak ada jawaban", "jawabannya tidak ada"),
        "no": ("tidak",),
        "present": ("jawaban ada", "jawabannya ada"),
        "yes": ("ya",),
    },
    "ja": {
        "dont_know": ("わかりません", "分かりません", "知りません", "わからない", "分からない"),
        "absent": ("答えはありません", "答えがありません", "回答はありません", "回答がありません", "答えは存在しません"),
        "no": ("いいえ",),
        "present": ("答えがあります", "答えはあります", "回答があります", "答えは存在します"),
        "yes": ("はい",),
    },
    "ko": {
        "dont_know": ("모르겠습니다", "모르겠어요", "모릅니다", "모르겠"),
        "absent": ("답이 없습니다", "답변이 없습니다", "정답이 없습니다", "답이 존재하지 않"),
        "no": ("아니요", "아니오"),
        "present": ("답이 있습니다", "답변이 있습니다", "정답이 있습니다", "답이 존재합니다"),
        "yes": ("네", "예"),
    },
    "ru": {
        "dont_know": ("я не знаю", "не знаю"),
        "absent": ("ответ отсутствует", "ответа нет", "нет ответа"),
        "no": ("нет",),
        "present": ("ответ присутствует", "ответ есть"),
        "yes": ("да",),
    },
    "sw": {
        "dont_know": ("sijui",),
        "absent": ("jibu halipo", "hakuna jibu", "jibu halipatikani"),
        "no": ("hapana",),
        "present": ("jibu lipo", "jibu linapatikana"),
        "yes": ("ndiyo", "ndio"),
    },
    "te": {
        "dont_know": ("నాకు తెలియదు", "తెలియదు"),
        "absent": ("సమాధానం లేదు", "సమాధానం అందుబాటులో లేదు"),
        "no": ("లేదు", "కాదు"),
        "present": ("సమాధానం ఉంది",),
        "yes": ("అవును",),
    },
    "th": {
        "dont_know": ("ไม่ทราบ", "ไม่รู้"),
        "absent": ("ไม่มีคำตอบ", "คำตอบไม่มี"),
        "no": ("ไม่",),
        "present": ("มีคำตอบ",),
        "yes": ("ใช่",),
    },
    "yo": {
        "dont_know": ("emi ko mọ", "emi ko mo", "mi o mọ", "mi o mo", "n ko mọ", "n ko mo"),
        "absent": ("ko si idahun", "idahun ko si"),
        "no": ("rara",),
        "present": ("idahun wa",),
        "yes": ("bẹẹni", "beeni", "bẹ́ẹ̀ni"),
    },
    "zhs": {
        "dont_know": ("我不知道", "不知道", "不清楚"),
        "absent": ("答案不存在", "没有答案", "沒有答案", "无法回答", "無法回答"),
        "no": ("不",),
        "present": ("答案存在", "有答案"),
        "yes": ("是的",),
    },
}  # fmt: skip
"""bordir's cue phrases per language (bordir code; ``zhs`` for NoMIRACL's ``zh``), before normalisation."""

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"})
_ECHO = re.compile(
    r"[\"“”'«»]?\s*yes, answer is present\s*[\"“”'«»]?\s*(?:or|/|,)\s*[\"“”'«»]?\s*i don't know\s*[\"“”'«»]?"
)
_SENTENCE = re.compile(r"[.!?。！？\n;:؟।]+")
_CITATION = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
_UNSPACED = frozenset({"ja", "zhs", "th"})


def normalize_reply(text: str) -> str:
    """NFKC, case-folded, curly apostrophes as ``'``, whitespace runs as one space.

    >>> normalize_reply("  I Don’t\\tKnow ")
    "i don't know"
    """
    text = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)
    return " ".join(text.split())


@lru_cache(maxsize=64)
def _cues(lang: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    """``lang``'s bordir code and the normalised cues of English and ``lang`` (and the instruction's refusal phrase)."""
    from ...errors import UnknownLanguageError
    from ...languages import get as get_language
    from ..instructions import instructions

    try:
        code = get_language(lang).code
    except UnknownLanguageError:  # an unknown code: English cues only
        code = lang
    out: dict[str, list[str]] = {}
    for lg in dict.fromkeys(("en", code)):
        for kind, phrases in PHRASES.get(lg, {}).items():
            out.setdefault(kind, []).extend(normalize_reply(p) for p in phrases)
        ins = instructions().get(lg)
        if ins is not None:
            out.setdefault("absent", []).append(normalize_reply(ins.refusal_phrase))
    return code, {k: tuple(sorted(set(v), key=len, reverse=True)) for k, v in out.items()}


@dataclass(frozen=True, slots=True)
class Reading:
    """One reply under the bordir policy.

    Attributes:
        outcome: one of :data:`OUTCOMES`.
        cue: the cue that decided it (normalised), or "".
    """

    outcome: str
    cue: str = ""

    @property
    def affirmed(self) -> bool:
        """The reply says an answer is present (``affirmed`` or ``answered``)."""
        return self.outcome in AFFIRMING

    @property
    def refused(self) -> bool:
        return self.outcome == "refused"

    @property
    def invalid(self) -> bool:
        """Neither an affirmation nor a refusal (``contradictory``, ``echo``, ``unparsed``, ``empty``)."""
        return self.outcome in ("contradictory", "echo", "unparsed", "empty")


def _is_word(ch: str) -> bool:
    return ch.isalnum() or unicodedata.category(ch).startswith("M")


def _latin(ch: str) -> bool:
    return ch.isalpha() and (ord(ch) < 0x250 or 0x1E00 <= ord(ch) <= 0x1EFF)


def _find(text: str, phrase: str, *, initial: bool, spaced: bool) -> list[tuple[int, int]]:
    """Spans of ``phrase`` in ``text``: whole words when ``spaced``; with ``initial``, only at a sentence start.

    Tone marks after a Latin letter belong to it (Yoruba ``mọ̀`` is ``mọ`` with a grave accent).
    """
    spans = []
    i = text.find(phrase)
    while i >= 0:
        j = i + len(phrase)
        while j < len(text) and _latin(phrase[-1]) and unicodedata.category(text[j]) == "Mn":
            j += 1
        ok = True
        if spaced:
            ok = (i == 0 or not _is_word(text[i - 1])) and (j == len(text) or not _is_word(text[j]))
        if ok and initial:
            before = text[:i].rstrip(" \"'“”«»*-")
            ok = not before or bool(_SENTENCE.fullmatch(before[-1]))
        if ok:
            spans.append((i, j))
        i = text.find(phrase, i + 1)
    return spans


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for k in range(a, b):
            chars[k] = " " if chars[k] != "\n" else "\n"
    return "".join(chars)


def read_reply(
    text: str | None,
    lang: str,
    *,
    setting: str = "vanilla",
    failed: bool = False,
    echo: Sequence[str] = (),
    documents: Sequence[str] = (),
) -> Reading:
    """bordir's outcome for one reply (see the module docs).

    Args:
        text: the reply (None: no reply).
        lang: the query's language (bordir or NoMIRACL code).
        setting: ``vanilla`` (NoMIRACL's prompt) or ``native`` (bordir's instructions).
        failed: the call failed.
        echo: the prompt's messages: a reply that is mostly a copy of them (or of ``documents``)
            is ``echo``; otherwise their verbatim echo is removed first.
        documents: the passages in the prompt (a copy of them is a document copy).
    """
    if failed:
        return Reading("failed")
    if text and echo:
        found = detect_echo(text, PromptParts(user="\n".join(echo), documents=tuple(documents)))
        if found:
            return Reading("echo", found.evidence())
    if text is not None and echo:
        text = strip_echo(text, echo)
    if text is None or not text.strip():
        return Reading("empty")
    code, cues = _cues(lang)
    norm = _ECHO.sub(" ", normalize_reply(text))
    spaced = code not in _UNSPACED
    refusal: list[tuple[int, int, str]] = []
    for kind, initial in (("dont_know", False), ("absent", False), ("no", True)):
        for p in cues.get(kind, ()):
            for a, b in _find(norm, p, initial=initial, spaced=spaced or p.isascii()):
                if not any(a < y and x < b for x, y, _ in refusal):
                    refusal.append((a, b, p))
    masked = _mask(norm, [(a, b) for a, b, _ in refusal])
    affirm: list[tuple[int, int, str]] = []
    for kind, initial in (("present", False), ("yes", True)):
        for p in cues.get(kind, ()):
            for a, b in _find(masked, p, initial=initial, spaced=spaced or p.isascii()):
                affirm.append((a, b, p))
    affirm += [(m.start(), m.end(), m.group()) for m in _CITATION.finditer(masked)]
    if setting == "native":
        if refusal:
            return Reading("refused", min(refusal)[2])
        return Reading("answered") if norm.strip() else Reading("empty")
    if not refusal and not affirm:
        return Reading("unparsed")
    if not affirm:
        return Reading("refused", min(refusal)[2])
    if not refusal:
        return Reading("affirmed", min(affirm)[2])
    # both kinds: the first sentence with a cue decides, if it holds one kind only
    ends = [m.end() for m in _SENTENCE.finditer(norm)] + [len(norm)]
    first = min(min(refusal)[0], min(affirm)[0])
    end = next(e for e in ends if e > first)
    start = max([0, *(e for e in ends if e <= first)])
    has_r = any(start <= a < end for a, _, _ in refusal)
    has_a = any(start <= a < end for a, _, _ in affirm)
    if has_r and has_a:
        return Reading("contradictory")
    if has_r:
        return Reading("refused", min(refusal)[2])
    return Reading("affirmed", min(affirm)[2])
