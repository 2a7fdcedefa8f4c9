"""Language detection for records that do not give a language: seeded, in blocks, mapped to bordir codes.

The detector is bordir's one language detector, :func:`bordir.langid.check.detect`
(seeded, with the script priors that keep Traditional Chinese from being read as
Korean), so an audit gives the same languages every time and the same as the corpus checker. Its codes are mapped to
BorderLines codes with :meth:`bordir.languages.LanguageRegistry.from_langdetect`
(``he`` → ``iw``, ``zh-cn`` → ``zhs``); a code the registry does not know is
kept as langdetect gives it, and a text with nothing to detect (empty, digits
only) is ``und``. Every detected language is counted as such in the audit's
output. It runs only for records that miss a language, a block of texts at a
time (:meth:`LanguageDetector.detect_many`); identical texts are detected once.
On ``langdetect-rs`` (the ``audit`` extra) it detects tens of thousands of short
texts per second, on plain ``langdetect`` about a thousand, with the same answers;
:meth:`~LanguageDetector.stats` names the engine that ran
(:mod:`bordir.langid.engine`).

Example:
    >>> d = LanguageDetector()
    >>> d.detect("Крым — полуостров в Чёрном море, который аннексировала Россия."), d.detect("12345")
    ('ru', 'und')
    >>> d.calls, d.cached
    (2, 0)
    >>> d.detect("答案：中華民國")  # langdetect alone says 'ko'
    'zht'
    >>> d.detect_many(["Bonjour à tous, comment allez-vous ?", None, "12345"])
    ['fr', 'und', 'und']

"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..languages import registry

__all__ = ["LanguageDetector", "UNDETERMINED", "DETECTOR_SEED"]

UNDETERMINED = "und"
DETECTOR_SEED = 0


class LanguageDetector:
    """The seeded detector with a bounded cache and counters (``calls``, ``cached``, ``seconds``).

    ``calls`` counts the texts detected, ``cached`` those answered from the cache (or repeated
    within a block).
    """

    def __init__(self, *, cache_size: int = 50_000) -> None:
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._cache_size = cache_size
        self._engine: str | None = None
        self.calls = 0
        self.cached = 0
        self.seconds = 0.0

    def detect(self, text: str | None) -> str:
        """The bordir code of ``text``'s language (or langdetect's code, or ``und``)."""
        return self.detect_many([text])[0]

    def detect_many(self, texts: Sequence[str | None]) -> list[str]:
        """:meth:`detect` of every text: the new ones detected in one block, identical ones once."""
        from ..langid.check import detect_many, engine_label

        keys = [(t or "").strip() for t in texts]
        new = list(dict.fromkeys(k for k in keys if k not in self._cache))
        self.cached += len(keys) - len(new)
        if new:
            t0 = time.perf_counter()
            self._engine = engine_label("audit")
            raw = [code for code, _ in detect_many(new, extra="audit")]
            self.seconds += time.perf_counter() - t0
            self.calls += len(new)
            fresh = {k: _bordir_code(r) for k, r in zip(new, raw)}
        else:
            fresh = {}
        out = []
        for k in keys:
            code = fresh.get(k)
            if code is None:
                code = self._cache[k]
                self._cache.move_to_end(k)
            out.append(code)
        for k, code in fresh.items():
            self._cache[k] = code
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return out

    @property
    def engine(self) -> str | None:
        """The engine that ran (``langdetect-rs-0.1.0``, ``langdetect-1.0.9``), None before any detection."""
        return self._engine

    def stats(self) -> dict[str, Any]:
        return {
            "detector": "langdetect",
            "engine": self._engine,
            "seed": DETECTOR_SEED,
            "calls": self.calls,
            "cached": self.cached,
            "seconds": round(self.seconds, 3),
            "texts_per_second": round(self.calls / self.seconds, 1) if self.seconds > 0 else None,
        }


@lru_cache(maxsize=256)
def _bordir_code(raw: str) -> str:
    lang = registry().from_langdetect(raw) if raw else None
    return lang.code if lang is not None else (raw or UNDETERMINED)
