"""Check a text's language against the one it should be in: bordir's one language detector.

Wikipedia paragraphs are not always in the edition's language: lists of names,
quotations and transliterations mix scripts and languages. bordir detects the
language of every paragraph and keeps the result in the store (meta
``lang_detected``, ``lang_prob``, ``lang_flag``); it never drops a paragraph for it.

``langdetect`` is randomized; bordir gives every detector the seed 0 (the
effect of ``DetectorFactory.seed = 0``, without changing langdetect's global
state), so the same text always gets the same answer. The detection runs on
``langdetect-rs`` when it is installed (the same answers, bit for bit, many
times faster) and on ``langdetect`` otherwise; ``BORDIR_LANGDETECT_ENGINE``
chooses (:mod:`bordir.langid.engine`).

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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from ..languages import registry
from .engine import KO_JA_ONLY, engine

__all__ = [
    "SCRIPT_REQUIRED",
    "LangCheck",
    "check",
    "check_many",
    "detect",
    "detect_many",
    "engine_label",
    "expected_codes",
]

SCRIPT_REQUIRED = {
    "ko": re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"),  # Hangul
    "ja": re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]"),  # Hiragana, Katakana
}
"""langdetect code → the script a text must contain for that language to be considered."""

Flag = Literal["ok", "mismatch", "unsupported", "undetected"]
_BOTH = tuple(SCRIPT_REQUIRED)


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


def _absent(text: str) -> tuple[str, ...]:
    """The langdetect codes the script priors rule out for ``text`` (:data:`SCRIPT_REQUIRED`)."""
    if not KO_JA_ONLY.search(text):  # no CJK character at all, so neither Hangul nor kana
        return _BOTH
    return tuple(code for code, script in SCRIPT_REQUIRED.items() if not script.search(text))


def _flag(best: list[tuple[str, float]] | None, lang: str) -> LangCheck:
    if not best:
        return LangCheck("", 0.0, "undetected")
    top, prob = best[0]
    expected = expected_codes(lang)
    if not expected:
        return LangCheck(top, prob, "unsupported")
    return LangCheck(top, prob, "ok" if top in expected else "mismatch")


def check(text: str, lang: str) -> LangCheck:
    """Detect the language of ``text`` (seeded) and compare it with ``lang`` (a registry code)."""
    return _flag(engine("wiki").probabilities(text, _absent(text)), lang)


def check_many(texts: Sequence[str], langs: Sequence[str]) -> list[LangCheck]:
    """:func:`check` of every ``(text, lang)``, detected in one block (see :func:`detect_many`)."""
    e = engine("wiki")
    best = e.detect_block(list(texts), [_absent(t) for t in texts])
    return [_flag(b, lang) for b, lang in zip(best, langs)]


def detect(text: str, *, extra: str = "wiki") -> tuple[str, float]:
    """The langdetect code and probability of ``text``'s language, seeded and with the script priors.

    The one detector bordir uses for corpus paragraphs, audit logs and model answers. ``("", 0.0)`` when
    nothing can be detected (empty text, digits only). ``extra`` names the extra to install when
    no engine is installed (``wiki``, ``audit`` …). The engine is langdetect-rs or langdetect
    (:mod:`bordir.langid.engine`), with the same answers.

    >>> detect("答案：中華民國")[0], detect("12345")  # plain langdetect reads the first as Korean
    ('zh-tw', ('', 0.0))
    """
    e = engine(extra)
    text = text or ""
    if not text.strip():
        return "", 0.0
    best = e.probabilities(text, _absent(text))
    return best[0] if best else ("", 0.0)


def detect_many(texts: Sequence[str], *, extra: str = "wiki") -> list[tuple[str, float]]:
    """:func:`detect` of every text, identical texts once, in one block (the batch call where it can).

    >>> detect_many(["Крым — полуостров.", "", "Крым — полуостров.", "答案：中華民國"])
    [('ru', 0.99...), ('', 0.0), ('ru', 0.99...), ('zh-tw', 0.99...)]
    """
    e = engine(extra)
    unique = list(dict.fromkeys(t for t in texts if t and t.strip()))
    best = e.detect_block(unique, [_absent(t) for t in unique])
    found = {t: (b[0] if b else ("", 0.0)) for t, b in zip(unique, best)}
    return [found.get(t, ("", 0.0)) if t else ("", 0.0) for t in texts]


def engine_label(extra: str = "wiki") -> str:
    """The engine :func:`detect` runs on, as a signature value (``langdetect-rs-0.1.0``)."""
    return engine(extra).label()
