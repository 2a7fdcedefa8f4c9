"""Texts too short for a detected language to be trusted (issue 51.3): the letters each script needs.

Replies of 2–20 characters in ten scripts are too short; the same answers written out are not.
The thresholds are measured (``benchmarks/langid_short.py``); here: what they decide, that the
detector really misreads such replies, and the rule's invariants.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.langid.short import DEFAULT_MIN_LETTERS, MIN_LETTERS, min_letters, script_of, too_short

SHORT = [
    "B) Ukraine", "Ukraine.", "The answer is B.", "Kyiv", "Sí, España.",  # Latin
    "Б) Україна", "Ответ: Россия",  # Cyrillic
    "उत्तर: भारत",  # Devanagari
    "المغرب",  # Arabic: 6 letters
    "答えはBです", "日本です。",  # Japanese
    "中国", "中華民國",  # Han
    "Ελλάδα"[:3], "ישר",  # Greek, Hebrew: 3 letters
    "12", "?!", "",  # no letters at all
]  # fmt: skip
LONG = [
    "Crimea is part of Ukraine under international law.",
    "Крым является частью Украины по международному праву.",
    "भारत का हिस्सा है, अंतरराष्ट्रीय कानून के अनुसार यह क्षेत्र",
    "المغرب يسيطر على الإقليم",
    "答えは日本です。日本が島を実効支配しているからです。",
    "钓鱼岛是中国的固有领土",
    "Ελλάδα",
    "ישראל",
]


@pytest.mark.parametrize("text", SHORT)
def test_short_replies(text):
    assert too_short(text)


@pytest.mark.parametrize("text", LONG)
def test_long_enough(text):
    assert not too_short(text), script_of(text)


def test_the_thresholds_per_script():
    assert MIN_LETTERS == {
        "latin": 30, "cyrillic": 25, "devanagari": 25, "japanese": 20,
        "arabic": 8, "han": 8, "greek": 4, "hebrew": 4,
    }  # fmt: skip
    assert min_letters("georgian") == DEFAULT_MIN_LETTERS == 30
    assert script_of("答えはBです") == "japanese" and script_of("B) Україна") == "cyrillic"


def test_the_detector_misreads_what_is_too_short():
    pytest.importorskip("langdetect")
    from bordir.langid.check import detect_many, expected_codes

    replies = {"en": ["B) Ukraine", "Ukraine.", "Yes.", "It is Ukraine.", "Answer: B", "Kyiv"]}
    found = detect_many(replies["en"], extra="audit")
    wrong = sum(code not in expected_codes("en") for code, _ in found)
    assert wrong >= 3  # most of them are "not English": the audit's 100 % mismatch


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(min_size=1, max_size=60))
def test_more_letters_of_the_same_script_never_make_a_text_short(text, more):
    if not too_short(text) and script_of(text + more) == script_of(text):
        assert not too_short(text + more) or script_of(text) == ""
