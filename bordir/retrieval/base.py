"""The retriever interface and its registry.

A retriever scores a query against candidate passages of ONE document language
at a time; :mod:`bordir.retrieval.run` assembles a mode's pool from the
(territory, language) pools, calls :meth:`Retriever.score` once per document
language, makes scores comparable across languages (``fusion``) and ranks.

Retrievers register by name (``@register("bm25")``); provider-addressed names
(``openai/text-embedding-3-large``) register the prefix (``openai``) and get
the model as argument. Third-party SDKs are imported only when a retriever is
built.

Example:
    >>> from bordir.retrieval.base import available
    >>> "bm25" in available()
    True
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from ..corpus import Corpus
from ..errors import ConfigError
from ..records import Passage

__all__ = ["Retriever", "register", "get_retriever", "available"]


class Retriever(ABC):
    """Scores passages for a query. Subclasses implement :meth:`fit` and :meth:`score`.

    Attributes:
        name: the registry name that builds this retriever (``bm25``, ``e5-small``,
            ``openai/text-embedding-3-large`` …); part of every signature.
        cross_lingual: True if the retriever can match a query in one language
            against documents in another (dense multilingual embedders). Lexical
            retrievers set False: documents of language ``d`` are then scored
            with the *parallel* query of the same territory in ``d`` (BorderLines
            asks each territory in every claimant language and English), or
            the English control query when there is none.
        default_fusion: how scores of different document languages are made
            comparable by default (``raw``, ``minmax``, ``rrf``; see ``run.py``).
    """

    name: ClassVar[str] = ""
    cross_lingual: ClassVar[bool] = True
    default_fusion: ClassVar[str] = "raw"

    @abstractmethod
    def fit(self, corpus: Corpus) -> None:
        """Index (or load cached embeddings of) every passage of ``corpus``."""

    @abstractmethod
    def score(self, query_text: str, query_lang: str, docs: Sequence[Passage]) -> np.ndarray:
        """Scores (higher is better) of ``docs`` — all of one language, all from the fitted corpus."""

    def signature(self) -> dict[str, str]:
        """``key: value`` pairs that identify how scores were made (name, model, parameters, version)."""
        return {"ret": self.name}

    def __repr__(self) -> str:
        sig = ", ".join(f"{k}={v}" for k, v in self.signature().items())
        return f"{type(self).__name__}({sig})"


Factory = Callable[..., Retriever]
_REGISTRY: dict[str, Factory] = {}
# where each built-in retriever lives: imported on first use so `import bordir` stays light
_BUILTIN_MODULES = {
    "bm25": "bordir.retrieval.bm25",
    "e5-small": "bordir.retrieval.dense.e5",
    "bge-m3": "bordir.retrieval.dense.bge",
    "openai": "bordir.retrieval.dense.openai",
    "cohere": "bordir.retrieval.dense.cohere",
}


def register(name: str) -> Callable[[Factory], Factory]:
    """Class decorator: make a retriever buildable by ``name`` (or ``name/<model>``)."""

    def deco(factory: Factory) -> Factory:
        _REGISTRY[name] = factory
        return factory

    return deco


def available() -> tuple[str, ...]:
    """Names (or provider prefixes) that :func:`get_retriever` accepts."""
    return tuple(sorted(set(_REGISTRY) | set(_BUILTIN_MODULES)))


def get_retriever(name: str, **options) -> Retriever:
    """Build the retriever called ``name`` (``bm25``, ``e5-small``, ``bge-m3``, ``openai/<model>``, ``cohere/<model>``)."""
    prefix, _, model = name.partition("/")
    if prefix not in _REGISTRY and prefix in _BUILTIN_MODULES:
        importlib.import_module(_BUILTIN_MODULES[prefix])
    factory = _REGISTRY.get(prefix)
    if factory is None:
        raise ConfigError(
            f"unknown retriever {name!r}; available: {', '.join(available())} (providers as provider/model)"
        )
    if model:
        options["model"] = model
    return factory(**options)
