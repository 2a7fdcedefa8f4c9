"""Parse model answers (direct format) and cited answers (citation format).

An answer has one of four **outcomes**: ``answered`` (``choice`` is an option
index), ``refused``, ``multiple`` (two or more different options named, none
clearly chosen) or ``unparsed``; ``choice`` is -1 unless answered. The strict
policy (default) never falls back to option A.

**Strict parsing order** (see ``docs/prompts.md``):

0. Empty or blank → ``unparsed``. The text is normalized (NFKC, invisible
   characters, markdown ``*``/backticks); a verbatim echo of the query text and of
   an ``Options:`` block is removed.
1. *Leading choice.* After stripping a leading label (``Answer:``,
   ``Ответ:``, ``答案：`` …), quotes, and an "As a citizen of X," opening, the reply
   starts with an option letter in range: ``A)``, ``(A)``, ``[A]``, ``A.``,
   ``A:``, ``Option A``, a bare ``A``, fullwidth ``Ａ）`` (via NFKC), a lowercase
   ``a)``, or a letter of the query's script followed by ``)`` (Arabic
   ``أ) ب) ج) د)``, Hebrew ``א) ב)``, Greek ``Α) Β) Γ)``, Armenian ``Ա) Բ)``,
   Devanagari ``क) ख)``, Japanese ``ア) イ)``, Chinese/Japanese ``甲) 乙)``,
   Cyrillic ``Б)``); Cyrillic ``А) В) С)`` count as A, B, C in any query,
   because they are look-alikes of the Latin letters (only when followed by ``)``).
   The same check is repeated on the text after the last ``Answer:`` label.
   The leading letter is *not* a clear choice when the reply lists two or more
   options at line starts (an echo of the options) or its label text contains
   another letter. When the name right after the letter is a different option
   (``A) Україна`` for A = Росія) → ``multiple``. Otherwise → ``answered``.
2. *Refusal.* A refusal phrase (``I cannot choose``, ``не могу``, ``no puedo``,
   ``لا أستطيع``, ``无法``/``無法``, ``できません``, ``je ne peux pas``,
   ``ich kann nicht``, ``नहीं कर सकता``, ``не можу``, ``cevaplayamam``, ``לא יכול`` …)
   → ``refused``.
3. *Options named anywhere:* option letters followed by ``)`` anywhere, and
   option names — native (``query.options``) and English (``query.claimants``) —
   matched on :func:`~bordir.generation._textnorm.fold`-ed text (case,
   diacritics, harakat, niqqud, Traditional/Simplified Chinese). A longer
   name hides a shorter one inside it ("South Sudan" is not also "Sudan").
   Exactly one option → ``answered``; two or more → ``multiple``.
4. Otherwise ``unparsed``.

``policy="reference"`` reproduces BordIRLines' ``match_one_letter`` (see
:func:`parse_answer`) and sets ``reference_pick`` to the option the reference
response table would score (option A, index 0, when unparsed).

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_uk")
    >>> parse_answer("B) Україна", q)
    ParsedAnswer(outcome='answered', choice=1, matched='B)', reference_pick=None)
    >>> parse_answer("Відповідь: україна", q).choice
    1
    >>> parse_answer("Росія контролює Крим, але Україна…", q).outcome
    'multiple'
    >>> parse_answer("Не можу відповісти на це питання.", q).outcome
    'refused'
    >>> parse_answer("Hmm.", q)
    ParsedAnswer(outcome='unparsed', choice=-1, matched='', reference_pick=None)
    >>> parse_answer("Hmm.", q, policy="reference")
    ParsedAnswer(outcome='unparsed', choice=-1, matched='', reference_pick=0)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ..errors import ConfigError, UnknownLanguageError
from ..languages import registry
from ..records import Query
from ._textnorm import fold, light
from .types import Document

__all__ = [
    "Outcome",
    "Policy",
    "OUTCOMES",
    "POLICIES",
    "ParsedAnswer",
    "ParsedCitation",
    "parse_answer",
    "parse_citation_response",
    "strip_prompt_echo",
    "extract_citations",
    "match_one_letter",
]

Outcome = Literal["answered", "refused", "multiple", "unparsed"]
Policy = Literal["strict", "reference"]
OUTCOMES: tuple[str, ...] = ("answered", "refused", "multiple", "unparsed")
POLICIES: tuple[str, ...] = ("strict", "reference")

LETTERS = "ABCDEFGH"
LETTERS_MC = tuple(c + ")" for c in LETTERS)
"""The BordIRLines option labels, ``A)`` … ``H)``."""


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """The parsed answer to one query.

    Attributes:
        outcome: ``answered``, ``refused``, ``multiple`` or ``unparsed``.
        choice: the chosen option index (0 = A), or -1 unless answered.
        matched: the evidence: the letter label, the (folded) name or the refusal
            phrase that decided the outcome; ``""`` when nothing matched.
        reference_pick: ``policy="reference"`` only: the option the BordIRLines
            response table scores (``choice``, or 0 = option A when unparsed); None otherwise.
    """

    outcome: Outcome
    choice: int
    matched: str = ""
    reference_pick: int | None = None

    @property
    def answered(self) -> bool:
        return self.outcome == "answered"

    def claimant(self, query: Query) -> str | None:
        """The English claimant name of the choice, or None unless answered."""
        return query.claimants[self.choice] if self.choice >= 0 else None


@dataclass(frozen=True, slots=True)
class ParsedCitation:
    """A parsed citation-format response.

    Attributes:
        answer: the chosen option, parsed from the ``Chosen Option:`` line.
        cited: prompt document numbers cited in the explanation, in order, with repeats.
        dropped_out_of_range: citations in the explanation outside ``0..n_docs-1`` (not in ``cited``).
        explanation: the text after ``Explanation:`` (stripped; ``""`` if absent).
        cited_documents_field: the in-range numbers of the ``Cited Documents:`` line, in order.
        dropped_field_out_of_range: numbers of that line outside ``0..n_docs-1``.
    """

    answer: ParsedAnswer
    cited: tuple[int, ...]
    dropped_out_of_range: int
    explanation: str
    cited_documents_field: tuple[int, ...]
    dropped_field_out_of_range: int = 0


# --- option letters -------------------------------------------------------------
_HOMOGLYPHS = {"А": 0, "В": 1, "С": 2}  # Cyrillic look-alikes of A, B, C (only before ")")
_CJK_STEMS = {c: i for i, c in enumerate("甲乙丙丁戊己庚辛")}
_SCRIPT_LETTERS: dict[str, dict[str, int]] = {
    "Cyrl": {"А": 0, "Б": 1, "В": 1, "С": 2},
    "Grek": {c: i for i, c in enumerate("ΑΒΓΔΕΖΗΘ")},
    "Arab": {"الف": 0, "أ": 0, "ا": 0, "ب": 1, "ج": 2, "د": 3, "ه": 4, "و": 5, "ز": 6, "ح": 7},
    "Hebr": {c: i for i, c in enumerate("אבגדהוזח")},
    "Armn": {**{c: i for i, c in enumerate("ԱԲԳԴԵԶԷԸ")}, **{c: i for i, c in enumerate("աբգդեզէը")}},
    "Deva": {c: i for i, c in enumerate("कखगघ")},
    "Jpan": {**{c: i for i, c in enumerate("アイウエオカキク")}, **_CJK_STEMS},
    "Hans": _CJK_STEMS,
    "Hant": _CJK_STEMS,
}

_LEAD_LATIN = re.compile(
    r"""^(?:
        [(\[]\s*(?P<a>[A-Ha-h])\s*[)\]]             # (A)  [A]
      | (?P<b>[A-Ha-h])\s*\)                        # A)  a)
      | (?P<c>[A-H])(?:\s*[.:]|\s+[-])(?=\s|$)      # A.  A:  A -
      | (?P<d>[A-H])[.!]?\s*$                       # a bare A
      | (?i:option|choice|letter)\s+[(\[]?(?P<e>[A-H])(?![\w])[)\]]?   # Option B
    )""",
    re.X,
)
_ANY_LATIN = re.compile(r"(?:(?<![\w'])\(([A-H])\)|(?<![\w'(])([A-H])\))")
_LINE_START_LATIN = re.compile(r"(?m)^\s*[(\[]?([A-H])[)\]]")


def _script(query: Query) -> str:
    try:
        return registry()[query.lang].script
    except UnknownLanguageError:
        return ""


@lru_cache(maxsize=256)
def _script_letter_res(script: str) -> tuple[dict[str, int], re.Pattern[str], re.Pattern[str]]:
    """(letter → index, leading-letter regex, anywhere regex) for a script; always includes the homoglyphs."""
    table = {**_HOMOGLYPHS, **_SCRIPT_LETTERS.get(script, {})}
    alts = "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
    lead = re.compile(rf"^[(\[]?\s*(?P<s>{alts})\s*[)\]]")
    anywhere = re.compile(rf"(?<!\w)[(\[]?(?P<s>{alts})\s*[)\]]")
    return table, lead, anywhere


# --- labels, openings, echoes ---------------------------------------------------------
_ANSWER_LABELS = (
    "final answer|the answer is|my answer is|answer is|answer|chosen option|selected option|option chosen|"
    "response|réponse|respuesta|resposta|risposta|antwort|ответ|відповідь|الإجابة|الاجابة|الجواب|جواب|"
    "答案|回答|答え|解答|उत्तर|cevap|yanıt|cavab|պատասխան|תשובה|απάντηση|jawaban|trả lời"
)
_LEAD_LABEL = re.compile(rf"^(?i:{_ANSWER_LABELS})(?!\w)\s*(?::|-|is\b)?\s*")
_LABEL_ANYWHERE = re.compile(rf"(?im)(?:^|(?<=[\n.!?]))\s*(?:{_ANSWER_LABELS})\s*:\s*")
_CITIZEN = re.compile(r"^(?i:as an? (?:citizen|national) of)\s+[^,\n]{1,80},\s*")
_OPTIONS_BLOCK = re.compile(r"(?im)^\s*options\s*:\s*\n(?:[ \t]*[(\[]?[A-H][)\]][^\n]*(?:\n|$))+")
_LEAD_JUNK = " \t\n\"'#>-:|"


def _clean(text: str) -> str:
    """Light normalization plus markdown emphasis removed (``**B)**`` → ``B)``)."""
    return light(text).replace("*", "").replace("`", "").replace("\r", "")


def _strip_lead(s: str) -> str:
    for _ in range(4):
        before = s
        s = s.lstrip(_LEAD_JUNK)
        s = _LEAD_LABEL.sub("", s, count=1)
        s = _CITIZEN.sub("", s, count=1)
        if s == before:
            break
    return s


def _remove_query_echo(s: str, query: Query) -> str:
    q = _clean(query.text).strip()
    if q and q in s:
        s = s.replace(q, "\n")
    return _OPTIONS_BLOCK.sub("\n", s)


# --- option names ---------------------------------------------------------------
_SUFFIXING = frozenset({"tr", "az", "hu", "fi", "et", "uz", "tk", "kk", "ky", "mn", "ka", "hy", "ja", "ko", "sw"})
_VOWELS_CYRL_GREK = set("аеёиіїоуыэюяєαεηιουω")


def _no_space_script(ch: str) -> bool:
    """True for scripts where names attach to neighbouring letters (Arabic, Hebrew, CJK, Thai …)."""
    o = ord(ch)
    return (
        0x0590 <= o <= 0x08FF  # Hebrew, Arabic, Syriac, Thaana, Arabic ext.
        or 0x0E00 <= o <= 0x109F  # Thai, Lao, Tibetan, Myanmar
        or 0x1780 <= o <= 0x17FF  # Khmer
        or o >= 0x2E80  # CJK, kana, Hangul, presentation forms
    )


def _is_latin(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("LATIN")


def _is_cyrl_grek(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith(("CYRILLIC", "GREEK"))


@dataclass(frozen=True, slots=True)
class _Variant:
    text: str
    option: int
    left: bool
    right: bool


@lru_cache(maxsize=1024)
def _name_variants(query: Query) -> tuple[_Variant, ...]:
    out: dict[tuple[str, int], _Variant] = {}
    suffixing = query.lang in _SUFFIXING
    for i, names in enumerate(zip(query.options, query.claimants)):
        for name in names:
            key = fold(name).strip()
            if not key:
                continue
            forms = {key}
            if key.startswith("ال") and len(key) > 3:  # Arabic: ل + ال → لل (للمغرب)
                forms.add("لل" + key[2:])
            if " " not in key and len(key) >= 5 and _is_cyrl_grek(key[0]) and key[-1] in _VOWELS_CYRL_GREK:
                forms.add(key[:-1])  # inflection stem: Россия → России, Ελλάδα → Ελλάδας
            for f in forms:
                left = not _no_space_script(f[0])
                right = _is_latin(f[-1]) and not suffixing
                out[(f, i)] = _Variant(f, i, left, right)
    return tuple(sorted(out.values(), key=lambda v: (-len(v.text), v.option, v.text)))


def _name_hits(folded: str, query: Query) -> list[tuple[int, int, int, str]]:
    """Non-overlapping (start, end, option, name) matches; longer names win."""
    spans: list[tuple[int, int, int, str]] = []
    for v in _name_variants(query):
        start = folded.find(v.text)
        while start != -1:
            end = start + len(v.text)
            ok = not (v.left and start > 0 and folded[start - 1].isalpha())
            ok = ok and not (v.right and end < len(folded) and folded[end].isalpha())
            if ok and not any(s < end and start < e for s, e, _, _ in spans):
                spans.append((start, end, v.option, v.text))
            start = folded.find(v.text, start + 1)
    return sorted(spans)


def _letter_hits(s: str, query: Query) -> list[tuple[int, str]]:
    n = len(query.options)
    hits: list[tuple[int, str]] = []
    for m in _ANY_LATIN.finditer(s):
        idx = LETTERS.index(m.group(1) or m.group(2))
        if idx < n:
            hits.append((idx, m.group(0)))
    table, _, anywhere = _script_letter_res(_script(query))
    for m in anywhere.finditer(s):
        idx = table[m.group("s")]
        if idx < n:
            hits.append((idx, m.group(0)))
    return hits


# --- refusals -------------------------------------------------------------------
_REFUSAL_EN = re.compile(
    r"\b(?:i|we)\s*(?:cannot|can't|can not|'m unable to|am unable to|'m not able to|am not able to|won't|will not|"
    r"must decline to|decline to|prefer not to|would rather not)\s+(?:\w+\s+){0,2}?"
    r"(?:answer|choose|determine|decide|select|pick|provide|take|make|give|say|comply|assist|offer|state|confirm)"
    r"|\bunable to (?:answer|choose|determine|decide|select|pick|provide|say|make)"
    r"|\b(?:cannot|can't|can not) be (?:determined|answered|decided)"
    r"|\b(?:it is|it's) (?:not possible|impossible) (?:for me )?to (?:answer|choose|determine|decide|say|select|pick)"
    r"|\bno (?:single|definitive|clear|correct) answer\b"
    r"|\bi (?:must|have to) (?:respectfully )?decline\b"
)
_REFUSAL_PHRASES = (
    # fr, de, es, pt, it, nl, id
    "je ne peux pas", "je ne suis pas en mesure", "impossible de déterminer", "impossible de répondre",
    "ich kann nicht", "ich kann keine", "kann ich nicht", "nicht beantworten",
    "no puedo", "no me es posible", "no es posible determinar", "não posso", "não consigo",
    "non posso", "non sono in grado", "ik kan niet", "ik kan geen", "saya tidak dapat", "saya tidak bisa",
    # ru, uk
    "не могу", "невозможно определить", "затрудняюсь", "не можу", "неможливо визначити",
    # ar, fa, ur
    "لا أستطيع", "لا يمكنني", "لا يمكن تحديد", "يتعذر علي", "لا يسعني", "نمیتوانم", "نمی توانم",
    "نہیں کر سکتا", "نہیں کر سکتی", "نہیں دے سکتا", "نہیں دے سکتی", "قاصر ہوں",
    # hi
    "नहीं कर सकता", "नहीं कर सकती", "नहीं दे सकता", "नहीं दे सकती", "असमर्थ हूँ", "असमर्थ हूं",
    # zh, ja, ko
    "无法", "無法", "不能回答", "不能确定", "不便回答", "できません", "答えられません", "回答を控え", "할 수 없",
    # tr, az, hy, iw, el
    "yapamam", "cevaplayamam", "yanıtlayamam", "belirleyemem", "seçemem", "karar veremem", "bilmərəm",
    "չեմ կարող", "לא יכול", "איני יכול", "אינני יכול", "לא ניתן לקבוע", "δεν μπορώ", "δεν είναι δυνατόν",
)
_REFUSAL_FOLDED = tuple(sorted({fold(p) for p in _REFUSAL_PHRASES}, key=len, reverse=True))


def _refusal(folded: str) -> str:
    m = _REFUSAL_EN.search(folded)
    if m:
        return m.group(0)
    for p in _REFUSAL_FOLDED:
        if p in folded:
            return p
    return ""


# --- strict parsing -------------------------------------------------------------------
_LABEL_END = re.compile(r"[.,;:!?\n。，、؟،！？]| - ")


def _leading(seg: str, query: Query) -> ParsedAnswer | None:
    """A clear leading-letter choice in ``seg``, a conflict (``multiple``), or None."""
    s = _strip_lead(seg)
    n = len(query.options)
    m = _LEAD_LATIN.match(s)
    idx = -1
    if m:
        letter = next(g for g in m.groups() if g)
        idx = LETTERS.index(letter.upper())
    else:
        table, lead, _ = _script_letter_res(_script(query))
        m = lead.match(s)
        if m:
            idx = table[m.group("s")]
    if m is None or idx >= n:
        return None
    label = m.group(0).strip()
    # an echo of the option list: two or more different letters at line starts
    starts = {LETTERS.index(x) for x in _LINE_START_LATIN.findall(s)}
    if len(starts | {idx}) >= 2:
        return None
    _, _, anywhere_script = _script_letter_res(_script(query))
    rest = s[m.end():]
    cut = _LABEL_END.search(rest)
    label_text = rest[: cut.start()] if cut else rest
    if _ANY_LATIN.search(label_text) or anywhere_script.search(label_text):
        return None
    named = {o for _, _, o, _ in _name_hits(fold(label_text), query)}
    if named and named != {idx}:
        other = sorted(named - {idx})
        return ParsedAnswer("multiple", -1, f"{label} ≠ {query.options[other[0]]}")
    return ParsedAnswer("answered", idx, label)


def _segments(s: str) -> Iterable[str]:
    yield s
    last = None
    for last in _LABEL_ANYWHERE.finditer(s):
        pass
    if last is not None and last.end() < len(s):
        yield s[last.end():]


def _parse_strict(text: str, query: Query) -> ParsedAnswer:
    if not text or not text.strip():
        return ParsedAnswer("unparsed", -1, "")
    s = _remove_query_echo(_clean(text), query).strip()
    if not s:
        return ParsedAnswer("unparsed", -1, "")
    for seg in _segments(s):
        lead = _leading(seg, query)
        if lead is not None:
            return lead
    folded = fold(s)
    refusal = _refusal(folded)
    if refusal:
        return ParsedAnswer("refused", -1, refusal)
    found: dict[int, str] = {}
    for idx, ev in _letter_hits(s, query):
        found.setdefault(idx, ev)
    for _, _, idx, name in _name_hits(folded, query):
        found.setdefault(idx, name)
    if len(found) == 1:
        (idx, ev), = found.items()
        return ParsedAnswer("answered", idx, ev)
    if len(found) > 1:
        return ParsedAnswer("multiple", -1, " | ".join(found[i] for i in sorted(found)))
    return ParsedAnswer("unparsed", -1, "")


# --- reference policy ---------------------------------------------------------------
def match_one_letter(text: str) -> int | None:
    """BordIRLines' ``match_one_letter``: the option index a reply's letter gives, or None.

    A one-character reply gets ``)`` appended; a reply starting with ``A)`` …
    ``H)`` gives that letter; otherwise, if exactly one of ``A)`` … ``H)``
    occurs anywhere (as a substring), that letter. The index is not checked
    against the number of options here.

    >>> match_one_letter("B"), match_one_letter("I pick C) x"), match_one_letter("A) x or B) y")
    (1, 2, 0)
    >>> match_one_letter("It is A) x, not B) y") is None
    True
    """
    if len(text) == 1:
        text += ")"
    for i, lab in enumerate(LETTERS_MC):
        if text.startswith(lab):
            return i
    present = [lab in text for lab in LETTERS_MC]
    if sum(present) == 1:
        return present.index(True)
    return None


def _reference_direct(text: str, query: Query) -> ParsedAnswer:
    answer = (text or "").strip()
    idx = match_one_letter(answer)
    if idx is not None and idx < len(query.options):
        return ParsedAnswer("answered", idx, LETTERS_MC[idx], reference_pick=idx)
    if answer in query.options:
        i = query.options.index(answer)
        return ParsedAnswer("answered", i, answer, reference_pick=i)
    return ParsedAnswer("unparsed", -1, "", reference_pick=0)


def _reference_chosen(text: str, query: Query) -> ParsedAnswer:
    """BordIRLines ``parse_citation_responses``: the answer part only."""
    raw = text or ""
    if not ("Chosen Option:" in raw and "Explanation:" in raw):
        return ParsedAnswer("unparsed", -1, "", reference_pick=0)
    _, rest = raw.split("Chosen Option:", 1)
    if "Explanation:" not in rest:  # the reference would crash here
        return ParsedAnswer("unparsed", -1, "", reference_pick=0)
    choice = rest.split("Explanation:", 1)[0].strip()
    labels = [query.option_label(i) for i in range(len(query.options))]
    for i, lab in enumerate(labels):
        if lab in choice:
            return ParsedAnswer("answered", i, lab, reference_pick=i)
    idx = match_one_letter(choice)
    if idx is not None and idx < len(query.options):
        return ParsedAnswer("answered", idx, LETTERS_MC[idx], reference_pick=idx)
    return ParsedAnswer("unparsed", -1, "", reference_pick=0)


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ConfigError(f"unknown parse policy {policy!r}; valid: {', '.join(POLICIES)}")


def parse_answer(text: str | None, query: Query, *, policy: Policy = "strict") -> ParsedAnswer:
    """Parse a direct-format reply to ``query``.

    Args:
        text: the model's output (never the prompt).
        query: the query it answers (its ``options`` and ``claimants``, and its language's script).
        policy: ``strict`` (the documented order above; no default option) or
            ``reference`` — the BorderLines/BordIRLines compatibility setting: the
            stripped reply goes through :func:`match_one_letter` (the letter must
            be a valid option), else a reply *equal* to a native option name gives
            it; anything else is ``unparsed`` with ``choice=-1`` and
            ``reference_pick=0``, because the reference response table turns -1
            into option A. Outcomes ``refused``/``multiple`` never occur there.

    Returns:
        A :class:`ParsedAnswer`.
    """
    _check_policy(policy)
    if policy == "reference":
        return _reference_direct(text or "", query)
    return _parse_strict(text or "", query)


# --- citations ---------------------------------------------------------------------
_CITE = re.compile(
    r"""
      <\s*docs?\s*(?P<tag>\d+(?:\s*,\s*\d+)*)\s*/?>                    # <doc3> <doc1,3> <doc 3>
    | <\s*co\s*:\s*(?P<co>\d+(?:\s*,\s*\d+)*)\s*>                      # Command-R <co: 1,2>
    | (?P<br>(?:\[\s*\d{1,3}(?:\s*,\s*\d{1,3})*\s*\])+)                # [1][3]  [1, 3]
    | (?<![</])\b(?:documents?|docs?)\.?[ \t]*\#?[ \t]*(?P<word>\d+(?:[ \t]*(?:,|and|&)[ \t]*\#?\d+)*)\b   # Document 2
    """,
    re.I | re.X,
)
_REFERENCE_CITE = re.compile(r"<doc(\d+(?:,\d+)*)>")
_FIELD = re.compile(r"(?i)\b(cited\s+documents?|chosen\s+options?|explanation)\s*:")


def extract_citations(text: str) -> tuple[int, ...]:
    """Document numbers cited in ``text``, in order, with repeats (range not checked).

    Accepted: ``<doc3>``, ``<doc1,3>``, ``<doc 3>``, ``<co: 1,2>``, ``[1][3]``,
    ``[1, 3]`` (numbers of at most 3 digits, so ``[2014]`` is not a citation),
    ``Document 2``, ``Doc 2``, ``Documents 1 and 3``. Closing tags and
    ``Document: 2`` headers (the prompt's layout) are not citations.

    Examples:
        >>> extract_citations("because <doc1,3> and [2][0]; see Document 4 and doc 1 </doc1>")
        (1, 3, 2, 0, 4, 1)
    """
    out: list[int] = []
    for m in _CITE.finditer(_clean(text)):
        group = next(g for g in (m.group("tag"), m.group("co"), m.group("br"), m.group("word")) if g)
        out.extend(int(x) for x in re.findall(r"\d+", group))
    return tuple(out)


def strip_prompt_echo(text: str, documents: Sequence[Document], *, min_chars: int = 12) -> str:
    """Remove verbatim copies of the prompt's documents from a model response.

    A document may itself contain citation-like strings (``<doc9>``); when the
    model copies it into its answer those must not count as citations. Every
    verbatim (and NFKC-equivalent) occurrence of a document text of at least
    ``min_chars`` characters is replaced by a newline, longest texts first.
    Shorter texts are kept, since they could be a legitimate part of an answer.
    Partial quotes are not removed.

    >>> d = Document(0, "x", "en", "Crimea is a peninsula <doc9> in the Black Sea.")
    >>> strip_prompt_echo("As stated: Crimea is a peninsula <doc9> in the Black Sea. <doc0>", [d])
    'As stated: \\n <doc0>'
    """
    texts = sorted({d.text.strip() for d in documents if len(d.text.strip()) >= min_chars}, key=len, reverse=True)
    for t in texts:
        if t in text:
            text = text.replace(t, "\n")
    if texts:
        cleaned = light(text)
        changed = False
        for t in texts:
            lt = light(t)
            if lt in cleaned:
                cleaned = cleaned.replace(lt, "\n")
                changed = True
        if changed:
            text = cleaned
    return text


def _split_ids(ids: Iterable[int], n_docs: int) -> tuple[tuple[int, ...], int]:
    kept, dropped = [], 0
    for i in ids:
        if 0 <= i < n_docs:
            kept.append(i)
        else:
            dropped += 1
    return tuple(kept), dropped


def _fields(s: str) -> dict[str, tuple[int, int, int]]:
    """First occurrence of each label: name → (label start, value start, value end).

    ``Cited Documents`` and ``Chosen Option`` end at the end of their line (or of the next
    non-empty line when the label stands alone); ``Explanation`` runs to the next label or the end.
    """
    firsts: dict[str, re.Match[str]] = {}
    for m in _FIELD.finditer(s):
        name = re.sub(r"\s+", " ", m.group(1).lower())
        name = "cited documents" if name.startswith("cited") else "chosen option" if name.startswith("chosen") else name
        firsts.setdefault(name, m)
    ordered = sorted(firsts.items(), key=lambda kv: kv[1].start())
    out: dict[str, tuple[int, int, int]] = {}
    for k, (name, m) in enumerate(ordered):
        end = ordered[k + 1][1].start() if k + 1 < len(ordered) else len(s)
        if name != "explanation":  # one-line fields: the label's line, or the next non-empty line
            body = s[m.end():end]
            first = len(body) - len(body.lstrip())
            nl = body.find("\n", first)
            if nl != -1:
                end = m.end() + nl
        out[name] = (m.start(), m.end(), end)
    return out


def parse_citation_response(
    text: str | None,
    query: Query,
    n_docs: int,
    *,
    documents: Sequence[Document] = (),
    policy: Policy = "strict",
) -> ParsedCitation:
    """Parse a citation-format response (``Cited Documents:`` / ``Chosen Option:`` / ``Explanation:``).

    Args:
        text: the model's output.
        query: the query it answers.
        n_docs: the number of documents in the prompt (valid ids are ``0..n_docs-1``).
        documents: the prompt's documents; when given, their verbatim copies are
            removed first (:func:`strip_prompt_echo`), so citations inside an echoed
            document do not count.
        policy: ``strict``: the ``Chosen Option:`` value goes through
            :func:`parse_answer` (without that line, the text outside the explanation
            does); citations use every syntax of :func:`extract_citations`, from the
            explanation (or, without an ``Explanation:`` label, from the whole text
            except the two other fields). ``reference``: BordIRLines — both markers
            (case-sensitive) are required, the value between them must contain a full
            option label or pass :func:`match_one_letter`, and only
            ``<doc(\\d+(?:,\\d+)*)>`` after ``Explanation:`` counts as a citation.

    Example:
        >>> from bordir.loaders import load_demo
        >>> q = load_demo().query("Crimea_ru")
        >>> r = parse_citation_response(
        ...     "Cited Documents: 0, 2\\nChosen Option: B) Украина\\n"
        ...     "Explanation: because the documents say so <doc0> <doc2,7>.", q, n_docs=3)
        >>> r.answer.choice, r.cited, r.dropped_out_of_range, r.cited_documents_field
        (1, (0, 2), 1, (0, 2))
    """
    _check_policy(policy)
    raw = text or ""
    if documents:
        raw = strip_prompt_echo(raw, documents)
    if policy == "reference":
        answer = _reference_chosen(raw, query)
        explanation = raw.split("Explanation:", 1)[1].strip() if "Explanation:" in raw else ""
        ids = [int(x) for m in _REFERENCE_CITE.finditer(explanation) for x in m.group(1).split(",")]
        cited, dropped = _split_ids(ids, n_docs)
        s = _clean(raw)
        f = _fields(s)
        field_ids = [int(x) for x in re.findall(r"\d+", s[f["cited documents"][1]:f["cited documents"][2]])] \
            if "cited documents" in f else []
        field, fdropped = _split_ids(field_ids, n_docs)
        return ParsedCitation(answer, cited, dropped, explanation, field, fdropped)

    s = _clean(raw)
    f = _fields(s)
    if "chosen option" in f:
        _, a, b = f["chosen option"]
        answer = parse_answer(s[a:b], query)
    else:
        rest = s
        for name in sorted((k for k in f if k in ("explanation", "cited documents")), key=lambda k: -f[k][0]):
            start, _, end = f[name]
            rest = rest[:start] + "\n" + rest[end:]
        answer = parse_answer(rest, query)
    if "explanation" in f:
        _, a, b = f["explanation"]
        explanation = s[a:b].strip()
        source = explanation
    else:
        explanation = ""
        source = s
        for name in sorted((k for k in f if k in ("chosen option", "cited documents")), key=lambda k: -f[k][0]):
            start, _, end = f[name]
            source = source[:start] + "\n" + source[end:]
    cited, dropped = _split_ids(extract_citations(source), n_docs)
    field_ids: list[int] = []
    if "cited documents" in f:
        _, a, b = f["cited documents"]
        field_ids = [int(x) for x in re.findall(r"\d+", s[a:b])]
    field, fdropped = _split_ids(field_ids, n_docs)
    return ParsedCitation(answer, cited, dropped, explanation, field, fdropped)
