"""Check each paragraph's language against its Wikipedia edition, with seeded ``langdetect``.

Wikipedia paragraphs are not always in the edition's language: lists of names,
quotations and transliterations mix scripts and languages. bordir detects the
language of every paragraph and keeps the result in the store (meta
``lang_detected``, ``lang_prob``, ``lang_flag``); it never drops a paragraph for it.

``langdetect`` is randomized; bordir gives every detector the seed 0 (the
effect of ``DetectorFactory.seed = 0``, without changing langdetect's global
state), so the same text always gets the same answer.

Flags:

- ``ok``: the detected language is the one the registry's ``langdetect`` code
  names for the paragraph's language, or another language of the same edition
  (``zh-cn`` and ``zh-tw`` both agree with ``zhs`` and ``zht``, which come from
  zh.wikipedia);
- ``mismatch``: another language was detected (counted as *flagged*);
- ``unsupported``: langdetect has no profile for the language (its registry
  ``langdetect`` field is empty, e.g. ``hy``, ``az``): nothing to compare;
  the detected language is still recorded;
- ``undetected``: langdetect found no features (digits or punctuation only).

**Script priors.** langdetect often calls Traditional Chinese Korean (its
Korean profile is full of Han characters). Languages whose script cannot be
missing from a text in them get prior probability 0 through langdetect's own
prior map (``Detector.set_prior_map``) when the text lacks that script: Korean
without Hangul, Japanese without kana (:data:`SCRIPT_REQUIRED`).

Example:
    >>> check("Крим — півострів на півночі Чорного моря, омиваний Азовським морем.", "uk").flag
    'ok'
    >>> check("The largest towns are Simferopol, Sevastopol and Kerch, listed by population.", "ru").flag
    'mismatch'
    >>> check("Արցախը լեռնային երկրամաս է Հարավային Կովկասում։", "hy").flag
    'unsupported'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from .._extras import require
from ..languages import registry

__all__ = ["SEED", "SCRIPT_REQUIRED", "LangCheck", "check", "detect", "expected_codes"]

SEED = 0
"""The langdetect seed."""

SCRIPT_REQUIRED = {
    "ko": re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"),  # Hangul
    "ja": re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]"),  # Hiragana, Katakana
}
"""langdetect code → the script a text must contain for that language to be considered."""

Flag = Literal["ok", "mismatch", "unsupported", "undetected"]


@dataclass(frozen=True, slots=True)
class LangCheck:
    """The result for one paragraph: ``detected`` (langdetect code or ``""``), its probability, the flag."""

    detected: str
    prob: float
    flag: Flag

    def meta(self) -> tuple[tuple[str, str], ...]:
        """As passage meta pairs."""
        return (
            ("lang_detected", self.detected),
            ("lang_flag", self.flag),
            ("lang_prob", f"{self.prob:.3f}"),
        )


@lru_cache(maxsize=1)
def _factory():
    ld = require("langdetect", "wiki", purpose="checking paragraph languages")
    from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory

    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    return ld, factory


@cache
def expected_codes(lang: str) -> frozenset[str]:
    """The langdetect codes that agree with ``lang``: its own and those of languages of the same edition.

    >>> sorted(expected_codes("zht")), sorted(expected_codes("iw")), sorted(expected_codes("hy"))
    (['zh-cn', 'zh-tw'], ['he'], [])
    """
    reg = registry()
    own = reg[lang]
    if not own.langdetect:
        return frozenset()
    edition = own.wiki
    return frozenset(
        l.langdetect
        for l in reg.values()
        if l.langdetect and (l.code == lang or (edition and l.wiki == edition))
    )


def check(text: str, lang: str) -> LangCheck:
    """Detect the language of ``text`` (seeded) and compare it with ``lang`` (a registry code)."""
    ld, factory = _factory()
    expected = expected_codes(lang)
    detector = factory.create()
    detector.seed = SEED
    absent = [code for code, script in SCRIPT_REQUIRED.items() if not script.search(text)]
    if absent:
        detector.set_prior_map(
            {code: 0.0 if code in absent else 1.0 for code in factory.get_lang_list()}
        )
    detector.append(text)
    try:
        best = detector.get_probabilities()
    except ld.lang_detect_exception.LangDetectException:
        return LangCheck("", 0.0, "undetected")
    if not best:
        return LangCheck("", 0.0, "undetected")
    top = best[0]
    if not expected:
        return LangCheck(top.lang, float(top.prob), "unsupported")
    return LangCheck(top.lang, float(top.prob), "ok" if top.lang in expected else "mismatch")


def detect(text: str, *, extra: str = "wiki") -> tuple[str, float]:
    """The langdetect code and probability of ``text``'s language, seeded and with the script priors.

    The one detector bordir uses for corpus paragraphs, audit logs and model answers. ``("", 0.0)`` when
    nothing can be detected (empty text, digits only). ``extra`` names the extra to install when
    langdetect is missing (``wiki``, ``audit`` …).

    >>> detect("答案：中華民國")[0], detect("12345")  # plain langdetect reads the first as Korean
    ('zh-tw', ('', 0.0))
    """
    require("langdetect", extra, purpose="detecting languages")
    ld, factory = _factory()
    text = text or ""
    if not text.strip():
        return "", 0.0
    detector = factory.create()
    detector.seed = SEED
    absent = [code for code, script in SCRIPT_REQUIRED.items() if not script.search(text)]
    if absent:
        detector.set_prior_map(
            {code: 0.0 if code in absent else 1.0 for code in factory.get_lang_list()}
        )
    detector.append(text)
    try:
        best = detector.get_probabilities()
    except ld.lang_detect_exception.LangDetectException:
        return "", 0.0
    return (best[0].lang, float(best[0].prob)) if best else ("", 0.0)
