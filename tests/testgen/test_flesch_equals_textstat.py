"""bordir's Flesch reading ease (textstat's rules, each word's syllables counted once) equals textstat's.

:func:`bordir.testgen.readability.flesch_reading_ease` reads words, sentences
and syllables by textstat's own rules without reading each text again for every
count (the complexity ranking of a 10 MB document took most of ``testgen``'s
time). Differential test: the same value as ``textstat.flesch_reading_ease`` on
the demo corpus, on punctuation, apostrophe and Unicode edge cases, and on
random strings of the characters those rules look at.
"""

from __future__ import annotations

import random

import pytest

from bordir.testgen.readability import _offline_cmudict, complexity, flesch_reading_ease

textstat = pytest.importorskip("textstat")


@pytest.fixture(scope="module")
def demo_chunks():
    from bordir.testgen.sources import load_chunks

    return load_chunks(["demo"])


EDGES = [
    "",
    " ",
    "...",
    "Hello",
    "Don't stop-believing, ok?! Dr. Smith's 3.5 cats",
    "A. B. C.",
    "x\ny",
    "'' ' '' ok",
    "It's — a test… yes! no? «quoted» 'single' rock'n'roll",
    "ÉCOLE élève naïve café. Ça va?",
    "1 2 3. 4 5. six seven eight nine.",
    "Tabs\tand_underscores __ mixed; semi: colon!",
    "Practical arrangements\nThe meeting starts at nine. It ends at ten.",
]


def test_flesch_equals_textstat(demo_chunks):
    _offline_cmudict(textstat)
    rng = random.Random(7)
    alphabet = "ab c.!?'-\n,;:\"()é1 ’_\t"
    texts = [c.text for c in demo_chunks] + EDGES
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(1000)]
    differ = [t for t in texts if flesch_reading_ease(t) != float(textstat.flesch_reading_ease(t))]
    assert differ == []


def test_complexity_of_english_is_textstat_flesch(demo_chunks):
    en = [c for c in demo_chunks if c.lang == "en"]
    for c in en:
        assert complexity(c.text, "en").score == round(
            float(textstat.flesch_reading_ease(c.text)), 4
        )
