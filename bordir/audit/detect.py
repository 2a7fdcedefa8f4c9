"""Language detection for records that do not give a language: ``langdetect``, seeded, mapped to bordir codes.

The detector is bordir's one language detector, :func:`bordir.wiki.langcheck.detect`
(seeded, with the script priors that keep Traditional Chinese from being read as
Korean), so an audit gives the same languages every time and the same as the corpus checker. Its codes are mapped to
BorderLines codes with :meth:`bordir.languages.LanguageRegistry.from_langdetect`
(``he`` → ``iw``, ``zh-cn`` → ``zhs``); a code the registry does not know is
kept as langdetect gives it, and a text with nothing to detect (empty, digits
only) is ``und``. Every detected language is counted as such in the audit's
output. Detection is slow (about a thousand short texts per second), so it runs
only for records that miss a language; identical texts are detected once.

Example:
    >>> d = LanguageDetector()
    >>> d.detect("Крым — полуостров в Чёрном море, который аннексировала Россия."), d.detect("12345")
    ('ru', 'und')
    >>> d.calls, d.cached
    (2, 0)
    >>> d.detect("答案：中華民國")  # langdetect alone says 'ko'
    'zht'

"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from .._extras import require
from ..languages import registry

__all__ = ["LanguageDetector", "UNDETERMINED", "DETECTOR_SEED"]

UNDETERMINED = "und"
DETECTOR_SEED = 0


class LanguageDetector:
    """A seeded ``langdetect`` with a bounded cache and counters (``calls``, ``cached``, ``seconds``)."""

    def __init__(self, *, cache_size: int = 50_000) -> None:
        self._ld: Any = None
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._cache_size = cache_size
        self.calls = 0
        self.cached = 0
        self.seconds = 0.0

    def _load(self) -> Any:
        if self._ld is None:
            ld = require("langdetect", "audit", purpose="detecting missing languages")
            ld.DetectorFactory.seed = DETECTOR_SEED
            self._ld = ld
        return self._ld

    def detect(self, text: str | None) -> str:
        """The bordir code of ``text``'s language (or langdetect's code, or ``und``)."""
        key = (text or "").strip()
        hit = self._cache.get(key)
        if hit is not None:
            self.cached += 1
            self._cache.move_to_end(key)
            return hit
        from ..wiki.langcheck import detect

        self._load()
        t0 = time.perf_counter()
        raw = detect(key, extra="audit")[0] if key else ""
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        lang = registry().from_langdetect(raw) if raw else None
        code = lang.code if lang is not None else (raw or UNDETERMINED)
        self._cache[key] = code
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return code

    def stats(self) -> dict[str, Any]:
        return {
            "detector": "langdetect",
            "seed": DETECTOR_SEED,
            "calls": self.calls,
            "cached": self.cached,
            "seconds": round(self.seconds, 3),
            "texts_per_second": round(self.calls / self.seconds, 1) if self.seconds > 0 else None,
        }
