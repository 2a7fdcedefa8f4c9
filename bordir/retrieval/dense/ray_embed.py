"""Corpus embedding over a Ray cluster: Ray Data ``map_batches`` with the embedder in a pool of actors.

For a corpus too large for one machine's patience, ``EmbeddingStore(executor="ray")``
hands the distinct passage texts to :func:`embed_texts_on_ray`:

* the texts become a Ray Dataset (``ray.data.from_items``, each row its index and text);
* ``map_batches`` runs :class:`EmbedBatches` — an actor class: each actor builds
  (unpickles) the embedder once and loads its model once, then embeds
  ``batch_size`` texts per call — over ``concurrency`` actors (default: the
  cluster's CPUs);
* the vectors come back in the texts' order (by index, whatever order the
  blocks finish in) and the store normalises, verifies and writes them exactly
  as in a local run, into the same file (``$BORDIR_CACHE/embeddings/<embedder>/<corpus>.npz``).

The result equals the local embedding (the same embedder on the same texts);
only where the work runs differs. Example (in ``docs/scale.md``)::

    from bordir.retrieval.dense import E5Small
    from bordir.retrieval.dense.store import EmbeddingStore
    store = EmbeddingStore(executor="ray", address="auto")
    emb = store.get(corpus, E5Small())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import BordirError
from .store import EMBEDDING_EXECUTORS

__all__ = ["EmbedBatches", "embed_texts_on_ray", "embed_on_ray"]


class EmbedBatches:
    """The ``map_batches`` actor: one embedder per actor, one ``embed_documents`` call per batch.

    Without Ray, a batch is a dict of columns.

    Examples:
        >>> class Lengths:
        ...     name = "lengths"
        ...     def embed_documents(self, texts):
        ...         return np.array([[len(t), 1.0] for t in texts])
        >>> out = EmbedBatches(Lengths())({"i": np.array([0, 1]), "text": np.array(["ab", "abc"])})
        >>> out["i"].tolist(), out["vec"].tolist()
        ([0, 1], [[2.0, 1.0], [3.0, 1.0]])
    """

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        texts = [str(t) for t in batch["text"]]
        out = np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise BordirError(
                f"{self.embedder.name} returned embeddings of shape {out.shape} for {len(texts)} "
                f"texts; expected ({len(texts)}, dims)"
            )
        return {"i": np.asarray(batch["i"]), "vec": out}


def embed_texts_on_ray(
    texts: Sequence[str],
    embedder: Any,
    *,
    batch_size: int = 32,
    concurrency: int | None = None,
    address: str | None = None,
) -> np.ndarray:
    """The (unnormalised) embeddings of ``texts`` by ``embedder``, computed by Ray Data; row ``i`` is ``texts[i]``.

    Args:
        texts: the texts (the store passes each distinct passage text once).
        embedder: a :class:`~bordir.retrieval.dense.store.DocumentEmbedder`; it is
            pickled to the actors (its model loads in each actor, once).
        batch_size: texts per ``embed_documents`` call.
        concurrency: actors (default: the cluster's CPUs).
        address: the cluster (see :func:`bordir._net.ray.connect`).
    """
    from ..._net.ray import connect

    ray, started = connect(address)
    try:
        if concurrency is None:
            concurrency = max(1, int(ray.cluster_resources().get("CPU", 1)))
        ds = ray.data.from_items([{"i": i, "text": t} for i, t in enumerate(texts)])
        out = ds.map_batches(
            EmbedBatches,
            fn_constructor_args=(embedder,),
            batch_size=max(1, int(batch_size)),
            batch_format="numpy",
            concurrency=max(1, min(int(concurrency), len(texts))),
            num_cpus=1,
        )
        index: list[np.ndarray] = []
        vecs: list[np.ndarray] = []
        for batch in out.iter_batches(batch_format="numpy", batch_size=None):
            index.append(np.asarray(batch["i"]))
            vecs.append(np.asarray(batch["vec"], dtype=np.float32))
    finally:
        if started:
            ray.shutdown()
    if not vecs:
        return np.zeros((0, 0), dtype=np.float32)
    order = np.argsort(np.concatenate(index), kind="stable")
    matrix = np.concatenate(vecs)[order]
    if matrix.shape[0] != len(texts):
        raise BordirError(
            f"Ray Data returned {matrix.shape[0]} embeddings for {len(texts)} texts; expected one each"
        )
    return matrix


@EMBEDDING_EXECUTORS.register("ray")
def embed_on_ray(
    texts: Sequence[str],
    embedder: Any,
    *,
    batch_size: int,
    progress: bool | None = None,
    address: str | None = None,
) -> list[np.ndarray]:
    """The ``ray`` embedding executor: :func:`embed_texts_on_ray` (no progress bar: Ray reports its own)."""
    if not texts:
        return []
    return [embed_texts_on_ray(texts, embedder, batch_size=batch_size, address=address)]
