"""``bge-m3``: BAAI/bge-m3 via FlagEmbedding, dense retrieval re-scored by M3's hybrid score.

As BordIRLines' ``m3`` system: dense vectors (CLS pooling, normalised, max
length 512, lower-cased text) give each query's top 50 passages, which are
re-scored with FlagEmbedding's ``compute_score`` using the weights
**dense 1, sparse 0.3, colbert 1**; FlagEmbedding divides by the weight sum, so
the score is ``(dense + 0.3·sparse + colbert) / 2.3``. Passages outside the top
50 keep their dense score minus 10, so they rank below every re-scored one.
bordir scores one document language at a time, so the top 50 is taken per
(query, language) pool rather than over the pooled languages.

fp16 is used only on a GPU (``use_fp16=None``). The weights are never
downloaded at run time: they are read from ``BORDIR_BGE_M3_PATH`` (or
``model_path=``), else from the Hugging Face cache.

Install with ``pip install 'bordir[bge]'``; fetch the weights once with
``huggingface-cli download BAAI/bge-m3``.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..._extras import require
from ...errors import ConfigError
from ...records import Passage
from ...settings import BGE_M3_PATH
from ..base import register
from .base import DenseRetriever

__all__ = ["BGEM3", "resolve_bge_m3_path", "OUTSIDE_PENALTY"]

MODEL = "BAAI/bge-m3"
OUTSIDE_PENALTY = 10.0
"""Subtracted from the dense score of passages that are not re-scored."""

_WEIGHT_FILES = ("pytorch_model.bin", "model.safetensors")


def _hf_hub_caches() -> list[Path]:
    out = []
    if os.environ.get("HF_HUB_CACHE"):
        out.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        out.append(Path(os.environ["HF_HOME"]) / "hub")
    xdg = os.environ.get("XDG_CACHE_HOME")
    out.append((Path(xdg) if xdg else Path.home() / ".cache") / "huggingface" / "hub")
    return list(dict.fromkeys(p.expanduser() for p in out))


def _is_model_dir(path: Path) -> bool:
    return (path / "config.json").is_file() and any((path / f).is_file() for f in _WEIGHT_FILES)


def resolve_bge_m3_path(model_path: str | os.PathLike[str] | None = None) -> Path:
    """The local directory holding the BGE-M3 weights.

    Looks at ``model_path``, then ``$BORDIR_BGE_M3_PATH``, then the Hugging Face
    cache (``$HF_HUB_CACHE``, ``$HF_HOME/hub``, ``~/.cache/huggingface/hub``).

    Raises:
        ConfigError: the weights are not there, saying where it looked and how to get them.
    """
    explicit = model_path or BGE_M3_PATH.get()
    if explicit:
        path = Path(explicit).expanduser()
        if _is_model_dir(path):
            return path
        raise ConfigError(
            f"no BGE-M3 model in {path} (expected config.json and {' or '.join(_WEIGHT_FILES)}); "
            "point BORDIR_BGE_M3_PATH at a copy of BAAI/bge-m3 (huggingface-cli download BAAI/bge-m3 --local-dir DIR)"
        )
    looked = []
    for hub in _hf_hub_caches():
        snaps = hub / "models--BAAI--bge-m3" / "snapshots"
        looked.append(str(snaps))
        if snaps.is_dir():
            ref = hub / "models--BAAI--bge-m3" / "refs" / "main"
            preferred = [snaps / ref.read_text().strip()] if ref.is_file() else []
            for cand in [*preferred, *sorted(snaps.iterdir())]:
                if _is_model_dir(cand):
                    return cand
    raise ConfigError(
        "the BGE-M3 weights are not available locally (bordir does not download them at run time); "
        f"looked in: {', '.join(looked)}. Download them once with `huggingface-cli download BAAI/bge-m3` "
        "or set BORDIR_BGE_M3_PATH to a directory holding them"
    )


@register("bge-m3")
class BGEM3(DenseRetriever):
    """BGE-M3: dense top ``rerank_depth`` re-scored with the dense+sparse+colbert hybrid score.

    Args:
        model_path: directory of the weights (default: ``$BORDIR_BGE_M3_PATH`` or the HF cache).
        rerank_depth: dense candidates re-scored per query and language (BordIRLines: 50; 0 = dense only).
        weights: weights of the dense, sparse and colbert scores.
        max_length: tokens per text (BordIRLines: 512).
        lowercase: lower-case queries and passages before embedding (BordIRLines does).
        use_fp16: half precision; default: only when a GPU is available.
        device: a torch device (``cpu``, ``cuda:0``); default: FlagEmbedding's choice.
        **options: see :class:`~bordir.retrieval.dense.base.DenseRetriever` (``batch_size`` default 16).
    """

    name: ClassVar[str] = "bge-m3"
    default_model: ClassVar[str] = MODEL
    known_dims: ClassVar[dict[str, int]] = {MODEL: 1024}
    default_batch_size: ClassVar[int] = 16

    def __init__(
        self,
        *,
        model_path: str | os.PathLike[str] | None = None,
        rerank_depth: int = 50,
        weights: Sequence[float] = (1.0, 0.3, 1.0),
        max_length: int = 512,
        lowercase: bool = True,
        use_fp16: bool | None = None,
        device: str | None = None,
        model: str | None = None,
        **options: Any,
    ) -> None:
        if model not in (None, MODEL, "bge-m3"):
            raise ConfigError(f"bge-m3 runs {MODEL}, not {model!r}")
        if rerank_depth < 0:
            raise ConfigError(f"rerank_depth must be >= 0, got {rerank_depth}")
        if len(weights) != 3:
            raise ConfigError(f"weights are (dense, sparse, colbert), got {tuple(weights)!r}")
        self._flag = require("FlagEmbedding", "bge", purpose="the bge-m3 retriever")
        torch = require("torch", "bge", purpose="the bge-m3 retriever")
        self.model_path = resolve_bge_m3_path(model_path)
        self.rerank_depth = int(rerank_depth)
        self.weights = tuple(float(w) for w in weights)
        self.max_length = int(max_length)
        self.lowercase = bool(lowercase)
        on_gpu = device.startswith("cuda") if device else bool(torch.cuda.is_available())
        self.use_fp16 = on_gpu if use_fp16 is None else bool(use_fp16 and on_gpu)
        self.device = device
        self._m3: Any = None
        self._hybrid_cache: OrderedDict[tuple[Any, ...], np.ndarray] = OrderedDict()
        super().__init__(model=MODEL, **options)

    def embedding_params(self) -> dict[str, str]:
        return {
            "pool": "cls",
            "maxlen": str(self.max_length),
            "lower": str(self.lowercase).lower(),
            "fp16": str(self.use_fp16).lower(),
        }

    def scoring_params(self) -> dict[str, str]:
        if self.rerank_depth == 0:
            return {"rescore": "none"}
        w = ",".join(f"{x:g}" for x in self.weights)
        return {"rescore": f"m3-hybrid({w})@{self.rerank_depth}"}

    def _model(self) -> Any:
        if self._m3 is None:
            kwargs: dict[str, Any] = {"use_fp16": self.use_fp16}
            if self.device:
                kwargs["devices"] = self.device
            self._m3 = self._flag.BGEM3FlagModel(str(self.model_path), **kwargs)
        return self._m3

    def _prep(self, texts: Sequence[str]) -> list[str]:
        return [t.lower() for t in texts] if self.lowercase else list(texts)

    def _dense(self, texts: Sequence[str]) -> np.ndarray:
        out = self._model().encode(
            self._prep(texts),
            batch_size=self.batch_size,
            max_length=self.max_length,
            return_dense=True,
            return_sparse=False,
            return_colbert_vecs=False,
        )
        return np.asarray(out["dense_vecs"], dtype=np.float32).reshape(len(texts), -1)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._dense(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._dense(texts)

    def score(self, query_text: str, query_lang: str, docs: Sequence[Passage]) -> np.ndarray:
        """Hybrid score for the dense top ``rerank_depth`` of ``docs``; dense − 10 for the rest."""
        dense = super().score(query_text, query_lang, docs)
        n = min(self.rerank_depth, len(docs))
        if n == 0:
            return dense
        top = np.lexsort((np.arange(len(docs)), -dense))[:n]
        key = (query_text, tuple(docs[i].key for i in top))
        hybrid = self._hybrid_cache.get(key)
        if hybrid is None:
            q = self._prep([query_text])[0]
            pairs = [(q, t) for t in self._prep([docs[i].text for i in top])]
            out = self._model().compute_score(
                pairs,
                batch_size=self.batch_size,
                max_query_length=self.max_length,
                max_passage_length=self.max_length,
                weights_for_different_modes=list(self.weights),
            )
            hybrid = np.asarray(out["colbert+sparse+dense"], dtype=float).reshape(n)
            self._hybrid_cache[key] = hybrid
            while len(self._hybrid_cache) > 1024:
                self._hybrid_cache.popitem(last=False)
        scores = dense - OUTSIDE_PENALTY
        scores[top] = hybrid
        return scores
