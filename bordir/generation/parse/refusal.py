"""Refusals: "I cannot choose", ``не могу``, ``no puedo``, ``لا أستطيع``, ``无法`` … in folded text.

A refusal is an English pattern (:data:`REFUSAL_EN`) or one of the phrases of
:data:`REFUSAL_PHRASES` (fr, de, es, pt, it, nl, id, ru, uk, ar, fa, ur, hi,
zh, ja, ko, tr, az, hy, iw, el), matched on
:func:`~bordir.generation._textnorm.fold`-ed text.

Example:
    >>> refusal("je ne peux pas choisir")
    'je ne peux pas'
    >>> refusal("b) ukraine")
    ''
"""

from __future__ import annotations

import re

from .._textnorm import fold

__all__ = ["REFUSAL_EN", "REFUSAL_PHRASES", "refusal"]

REFUSAL_EN = re.compile(
    r"\b(?:i|we)\s*(?:cannot|can't|can not|'m unable to|am unable to|'m not able to|am not able to|won't|will not|"
    r"must decline to|decline to|prefer not to|would rather not)\s+(?:\w+\s+){0,2}?"
    r"(?:answer|choose|determine|decide|select|pick|provide|take|make|give|say|comply|assist|offer|state|confirm)"
    r"|\bunable to (?:answer|choose|determine|decide|select|pick|provide|say|make)"
    r"|\b(?:cannot|can't|can not) be (?:determined|answered|decided)"
    r"|\b(?:it is|it's) (?:not possible|impossible) (?:for me )?to (?:answer|choose|determine|decide|say|select|pick)"
    r"|\bno (?:single|definitive|clear|correct) answer\b"
    r"|\bi (?:must|have to) (?:respectfully )?decline\b"
)
"""English refusals (on folded, i.e. lower-cased, text)."""

REFUSAL_PHRASES: tuple[str, ...] = (
    # fr, de, es, pt, it, nl, id
    "je ne peux pas",
    "je ne suis pas en mesure",
    "impossible de déterminer",
    "impossible de répondre",
    "ich kann nicht",
    "ich kann keine",
    "kann ich nicht",
    "nicht beantworten",
    "no puedo",
    "no me es posible",
    "no es posible determinar",
    "não posso",
    "não consigo",
    "non posso",
    "non sono in grado",
    "ik kan niet",
    "ik kan geen",
    "saya tidak dapat",
    "saya tidak bisa",
    # ru, uk
    "не могу",
    "невозможно определить",
    "затрудняюсь",
    "не можу",
    "неможливо визначити",
    # ar, fa, ur
    "لا أستطيع",
    "لا يمكنني",
    "لا يمكن تحديد",
    "يتعذر علي",
    "لا يسعني",
    "نمیتوانم",
    "نمی توانم",
    "نہیں کر سکتا",
    "نہیں کر سکتی",
    "نہیں دے سکتا",
    "نہیں دے سکتی",
    "قاصر ہوں",
    # hi
    "नहीं कर सकता",
    "नहीं कर सकती",
    "नहीं दे सकता",
    "नहीं दे सकती",
    "असमर्थ हूँ",
    "असमर्थ हूं",
    # zh, ja, ko
    "无法",
    "無法",
    "不能回答",
    "不能确定",
    "不便回答",
    "できません",
    "答えられません",
    "回答を控え",
    "할 수 없",
    # tr, az, hy, iw, el
    "yapamam",
    "cevaplayamam",
    "yanıtlayamam",
    "belirleyemem",
    "seçemem",
    "karar veremem",
    "bilmərəm",
    "չեմ կարող",
    "לא יכול",
    "איני יכול",
    "אינני יכול",
    "לא ניתן לקבוע",
    "δεν μπορώ",
    "δεν είναι δυνατόν",
)
"""Refusal phrases in other languages (matched after folding)."""

_REFUSAL_FOLDED = tuple(sorted({fold(p) for p in REFUSAL_PHRASES}, key=len, reverse=True))


def refusal(folded: str) -> str:
    """The refusal phrase found in folded text, or ``""``."""
    m = REFUSAL_EN.search(folded)
    if m:
        return m.group(0)
    for p in _REFUSAL_FOLDED:
        if p in folded:
            return p
    return ""
