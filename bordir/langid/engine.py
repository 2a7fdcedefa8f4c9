"""The engine under bordir's language detector: ``langdetect-rs`` when installed, else ``langdetect``.

`langdetect-rs <https://pypi.org/project/langdetect-rs/>`_ is a port of
``langdetect`` 1.0.9 with a Rust core that reproduces its random walk bit for
bit (same Mersenne Twister, same float operations in the same order), many
times faster (``benchmarks/audit.py`` measures the ratio). bordir's detector
(:func:`bordir.langid.check.detect`) runs on it when it is installed and on
``langdetect`` otherwise; both are seeded (:data:`SEED`), so the answers — the
language and its probability — are the same on either engine and from run to
run (``tests/langid/test_langdetect_engines.py`` checks it on every curated language).

The environment variable :data:`ENV` (``BORDIR_LANGDETECT_ENGINE``) chooses:
``auto`` (the default: ``langdetect-rs`` if installed, else ``langdetect``),
``langdetect-rs`` or ``langdetect`` (an error if that one is not installed).

**Blocks.** :meth:`Engine.detect_block` detects many texts at once. On
``langdetect-rs`` the texts without any :data:`KO_JA_ONLY` character (no CJK,
no ``·``, ``×`` …: most texts) go through its batch call (all cores, without
the GIL) on a factory without the Korean and Japanese profiles: their script
priors give those two languages prior 0, which is the same computation as
leaving the two profiles out as long as the text has no n-gram only those
profiles know — and every such n-gram has a :data:`KO_JA_ONLY` character.
The other texts are detected one at a time with their prior map, while the
batch call runs.

Example:
    >>> e = engine()
    >>> e.name in ("langdetect-rs", "langdetect"), e.label() == f"{e.name}-{e.version}"
    (True, True)
    >>> lang, prob = e.probabilities("Крым — полуостров в Чёрном море.", ("ko", "ja"))[0]
    >>> lang, prob > 0.9
    ('ru', True)
"""

from __future__ import annotations

import importlib.metadata
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .._extras import require
from ..settings import LANGDETECT_ENGINE, LANGDETECT_ENGINES

__all__ = ["ENV", "ENGINES", "SEED", "KO_JA_ONLY", "Engine", "engine", "engine_choice"]

ENV = LANGDETECT_ENGINE.name
"""The environment variable that chooses the engine (:data:`bordir.settings.LANGDETECT_ENGINE`)."""
ENGINES: tuple[str, ...] = LANGDETECT_ENGINES
SEED = 0
"""The seed of every detection (``DetectorFactory.seed = 0``, set per detector, not globally)."""

KO_JA_ONLY = re.compile(
    r"[\u00b7\u00d7\u223c\u1100-\u11ff\u2e80-\ua4cf\ua960-\ua97f\uac00-\ud7ff"
    r"\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff]"
)
"""Characters that can make an n-gram only the Korean or Japanese profile knows (or normalize to one).

All CJK blocks (ideographs, kana, Hangul, CJK symbols and punctuation, compatibility, fullwidth
forms) and the three others that occur in such n-grams (``·``, ``×``, ``∼``); a test derives the
set from the profiles and checks that this pattern covers it.
"""

Probabilities = list[tuple[str, float]]


@dataclass(frozen=True)
class Engine:
    """A loaded detection engine: its factory (all profiles) and, on langdetect-rs, the batch factories.

    Attributes:
        name: ``langdetect-rs`` or ``langdetect``.
        version: the package version.
        module: the imported package.
        factory: a ``DetectorFactory`` with every profile loaded.
        profiles: ``langdetect-rs`` only: langdetect's JSON profiles by file name, in the order of
            ``factory``, to build the batch factories from; None when the batch path is unavailable.
    """

    name: str
    version: str
    module: Any = field(repr=False)
    factory: Any = field(repr=False)
    profiles: dict[str, str] | None = field(default=None, repr=False)
    _batch: dict[tuple[str, ...], Any] = field(default_factory=dict, repr=False, compare=False)

    def label(self) -> str:
        """The engine as a signature value, e.g. ``langdetect-rs-0.1.0``."""
        return f"{self.name}-{self.version}"

    def probabilities(self, text: str, absent: Sequence[str]) -> Probabilities | None:
        """``(lang, prob)`` pairs best first (as ``get_probabilities``), None without features.

        ``absent``: langdetect codes whose prior is 0 (the script priors); empty for none.
        """
        detector = self.factory.create()
        detector.seed = SEED
        if absent:
            detector.set_prior_map(_prior(tuple(self.factory.get_lang_list()), tuple(absent)))
        detector.append(text)
        try:
            best = detector.get_probabilities()
        except self.module.LangDetectException:
            return None
        return [(x.lang, float(x.prob)) for x in best]

    @property
    def batch(self) -> Any:
        """The batch factory for texts without Hangul and kana (no ko, no ja), or None."""
        return self.batch_for(("ko", "ja"))

    def batch_for(self, absent: tuple[str, ...]) -> Any:
        """The factory whose batch call detects texts with prior 0 for ``absent`` (None if none)."""
        if self.profiles is None:
            return None
        if absent not in self._batch:
            self._batch[absent] = _batch_factory(self.module, self.factory, self.profiles, absent)
        return self._batch[absent]

    def on_batch(self, text: str, absent: tuple[str, ...]) -> bool:
        """Whether :meth:`detect_block` detects ``text`` through the batch call.

        Texts with both Hangul and kana (no prior: the full factory), and texts without any
        :data:`KO_JA_ONLY` character (so no Hangul, no kana, and no n-gram only the Korean or
        Japanese profile has: the factory without them). Any other text is detected one at a
        time with its prior map.
        """
        if absent == ("ko", "ja"):
            return KO_JA_ONLY.search(text) is None and self.batch_for(absent) is not None
        return not absent and self.batch_for(absent) is not None

    def detect_block(
        self, texts: Sequence[str], absent: Sequence[tuple[str, ...]]
    ) -> list[Probabilities | None]:
        """:meth:`probabilities` of every text, through the batch call where it gives the same answer."""
        out: list[Probabilities | None] = [None] * len(texts)
        groups: dict[tuple[str, ...], list[int]] = {}
        one: list[int] = []
        for i, (text, ab) in enumerate(zip(texts, absent)):
            if self.on_batch(text, ab):
                groups.setdefault(ab, []).append(i)
            else:
                one.append(i)

        def run_batches() -> list[tuple[list[int], list[Any]]]:
            done = []
            for ab, idx in groups.items():
                factory = self._batch[ab]
                done.append(
                    (idx, factory._core.detect_langs_batch([texts[i] for i in idx], _seed_state()))
                )
            return done

        if groups and one:  # the batch call releases the GIL: the texts one at a time meanwhile
            with ThreadPoolExecutor(max_workers=1) as pool:
                future = pool.submit(run_batches)
                for i in one:
                    out[i] = self.probabilities(texts[i], absent[i])
                batches = future.result()
        else:
            for i in one:
                out[i] = self.probabilities(texts[i], absent[i])
            batches = run_batches()
        for idx, res in batches:
            for i, r in zip(idx, res):
                out[i] = None if r is None else [(lang, float(p)) for lang, p in r]
        return out


@lru_cache(maxsize=8)
def _prior(langs: tuple[str, ...], absent: tuple[str, ...]) -> dict[str, float]:
    return {code: 0.0 if code in absent else 1.0 for code in langs}


def _seed_state() -> Any:
    from langdetect_rs._seed import seed_state

    return seed_state(SEED)


def engine_choice() -> str:
    """The engine asked for by :data:`ENV` (``auto`` when unset); a ConfigError for another value."""
    return LANGDETECT_ENGINE.get()


def engine(extra: str = "wiki") -> Engine:
    """The engine :data:`ENV` chooses, loaded once per choice.

    ``extra`` names the extra to install when no engine is available (``wiki``, ``audit`` …).
    """
    choice = engine_choice()
    if choice == "auto":
        choice = _auto()
    try:
        return _load(choice)
    except ImportError:
        require(choice.replace("-", "_"), extra, purpose="detecting languages")
        raise


@lru_cache(maxsize=1)
def _auto() -> str:
    """``langdetect-rs`` if it can be imported, else ``langdetect``."""
    try:
        import langdetect_rs  # noqa: F401
    except ImportError:
        return "langdetect"
    return "langdetect-rs"


@lru_cache(maxsize=2)
def _load(name: str) -> Engine:
    version = importlib.metadata.version(name)
    if name == "langdetect":
        import langdetect as ld
        from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
    else:
        import langdetect_rs as ld  # type: ignore[no-redef,unused-ignore]
        from langdetect_rs.detector_factory import (  # type: ignore[no-redef,unused-ignore]
            PROFILES_DIRECTORY,
            DetectorFactory,
        )
    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    profiles = _profiles(ld, factory) if name == "langdetect-rs" else None
    return Engine(name, version, ld, factory, profiles)


def _profiles(ld: Any, factory: Any) -> dict[str, str] | None:
    """langdetect's JSON profiles (langdetect-rs keeps its own inside its core) in ``factory``'s order, when the batch path can be used: langdetect installed, and the calls it needs there."""
    try:
        import langdetect_rs._seed  # noqa: F401
        from langdetect.detector_factory import PROFILES_DIRECTORY as directory
    except ImportError:
        return None
    texts: dict[str, str] = {}
    try:
        for n in os.listdir(directory):
            if not n.startswith("."):
                with open(os.path.join(directory, n), encoding="utf-8") as fh:
                    texts[n] = fh.read()
    except OSError:
        return None
    core = getattr(ld, "_core", None)
    if list(texts) != factory.get_lang_list() or core is None:
        return None
    return texts


def _batch_factory(ld: Any, factory: Any, profiles: dict[str, str], absent: tuple[str, ...]) -> Any:
    """A langdetect-rs factory of every profile but ``absent``'s, in ``factory``'s order (None if it cannot be built): a prior of 0 for ``absent`` is the same as leaving their profiles out."""
    if not absent:
        return factory
    if not set(absent) <= profiles.keys():
        return None
    reduced = ld.DetectorFactory()
    reduced.load_json_profile([t for n, t in profiles.items() if n not in absent])
    order = reduced.get_lang_list() == [x for x in factory.get_lang_list() if x not in absent]
    if not order or not hasattr(getattr(reduced, "_core", None), "detect_langs_batch"):
        return None
    return reduced
