"""What a config names, loaded: the dataset, the corpus, the query subset and the relevance labels.

Every path into an experiment goes through :func:`load_inputs`, which uses the
one dataset loader (:func:`bordir.loaders.catalog.load_dataset`) and the one corpus
loader (:func:`bordir.corpus.load_corpus`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from ..corpus import Corpus
    from ..dataset import BorderLines
    from ..records import Query
    from .config import ExperimentConfig

__all__ = ["load_inputs", "load_dataset_of", "load_corpus_of", "select_queries", "load_labels_of"]


def load_dataset_of(cfg: ExperimentConfig) -> BorderLines:
    """The dataset ``cfg`` names (``demo``, or ``borderlines`` from ``dataset_path`` or the hub)."""
    from ..loaders.catalog import load_dataset

    return load_dataset(cfg.dataset, cfg.dataset_path, repair=cfg.repair)


def load_corpus_of(cfg: ExperimentConfig) -> Corpus:
    """The corpus ``cfg`` names (``demo``, a corpus directory, a passages file, raw articles …)."""
    from ..corpus import load_corpus

    return load_corpus(cfg.corpus)


def load_inputs(cfg: ExperimentConfig) -> tuple[BorderLines, Corpus]:
    """The dataset and corpus a config names."""
    return load_dataset_of(cfg), load_corpus_of(cfg)


def select_queries(cfg: ExperimentConfig, ds: BorderLines) -> list[Query]:
    """The dataset's queries in the config's ``langs`` (all when empty)."""
    if not cfg.langs:
        return list(ds.queries)
    qs = [q for q in ds.queries if q.lang in set(cfg.langs)]
    if not qs:
        raise ConfigError(
            f"no queries in language(s) {', '.join(cfg.langs)}; present: {', '.join(ds.query_langs)}"
        )
    return qs


@lru_cache(maxsize=4)
def load_labels_of(cfg: ExperimentConfig):
    """The labels the relevance filter uses (config ``labels``, else the demo gold labels)."""
    from ..annotations.io import load_gold, load_labels

    if cfg.labels:
        ds, corpus = load_inputs(cfg)
        labels = load_labels(cfg.labels, dataset=ds, corpus=corpus)
        if len(labels.annotators) > 1:
            raise ConfigError(
                f"labels {cfg.labels} hold several annotators ({', '.join(labels.annotators)}); "
                "write one label set (e.g. their majority vote) for the relevance filter"
            )
        return labels
    if cfg.dataset == "demo" and cfg.corpus == "demo":
        return load_gold("demo")
    raise ConfigError(
        f"relevance_filter {cfg.relevance_filter!r} needs labels: set labels = 'path/to/labels.jsonl' "
        "(only the demo dataset has default gold labels)"
    )
