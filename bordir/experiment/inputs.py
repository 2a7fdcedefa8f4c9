"""What a config names, loaded: the dataset, the corpus, the query subset and the relevance labels.

Every path into an experiment goes through :func:`load_inputs`, which uses the
one dataset loader (:func:`bordir.loaders.catalog.load_dataset`) and the one corpus
loader (:func:`bordir.corpus.load_corpus`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, cast

from ..errors import ConfigError, DataError

if TYPE_CHECKING:  # pragma: no cover
    from ..annotations.labelset import LabelSet
    from ..corpus import Corpus
    from ..dataset import BorderLines
    from ..records import Query
    from .config import ExperimentConfig

__all__ = [
    "load_inputs",
    "load_dataset_of",
    "corpus_spec",
    "load_corpus_of",
    "select_queries",
    "load_labels_of",
    "fetch_command",
]


def load_dataset_of(cfg: ExperimentConfig) -> BorderLines:
    """The dataset ``cfg`` names (``demo``, or ``borderlines`` from ``dataset_path`` or the hub)."""
    from ..loaders.catalog import load_dataset

    return cast("BorderLines", load_dataset(cfg.dataset, cfg.dataset_path, repair=cfg.repair))


def corpus_spec(cfg: ExperimentConfig) -> str | None:
    """The corpus ``cfg`` uses: its ``corpus``, else the dataset's own (the demo's), else None.

    None is only returned when no mode retrieves (``modes = ["no_ir"]``): any other dataset than
    the demo has no corpus of its own, and running it on the demo corpus silently would drop most
    (query, mode) pairs, so it is refused.

    Raises:
        ConfigError: a dataset other than the demo, an IR mode and no ``corpus`` (one line saying
            what to pass).
    """
    if cfg.corpus is not None:
        return cast("str | None", cfg.corpus)
    if cfg.dataset == "demo":
        return "demo"
    ir = [m for m in cfg.modes if m != "no_ir"]
    if not ir:
        return None
    where = cfg.source or "<config>"
    raise ConfigError(
        f"{where}: field 'corpus': missing; dataset {cfg.dataset!r} has no corpus of its own and the "
        f"modes {', '.join(ir)} retrieve documents: set corpus = 'PATH' (a `bordir corpus fetch` "
        "directory, passages .jsonl/.parquet/.csv or a BordIRLines all_docs.json) or pass "
        "--corpus PATH; corpus = 'demo' uses the 12-territory demo corpus on purpose (the pairs it "
        "cannot serve are counted and dropped), modes = ['no_ir'] needs none"
    )


def load_corpus_of(cfg: ExperimentConfig) -> Corpus:
    """The corpus ``cfg`` names (``demo``, a corpus directory, a passages file, raw articles …).

    Raises:
        ConfigError: no corpus where one is needed (:func:`corpus_spec`), or the path does not
            exist (the message names the config file and the field).
        DataError: the corpus is malformed.
    """
    from pathlib import Path

    from ..corpus import Corpus, load_corpus

    spec = corpus_spec(cfg)
    if spec is None:
        return Corpus((), name="none")
    if spec != "demo" and not Path(spec).exists():
        raise DataError(
            f"{spec!r} not found (no such file or directory, relative to {Path.cwd()}); expected "
            "'demo', a `bordir corpus fetch` directory, a passages .jsonl/.parquet/.csv or a "
            f"BordIRLines all_docs.json (`{fetch_command(cfg, spec)}` builds one)",
            path=cfg.source or "<config>",
            field="corpus",
        )
    return load_corpus(spec)


def fetch_command(cfg: ExperimentConfig, out: str) -> str:
    """The whole ``bordir corpus fetch`` command that builds the corpus ``cfg`` names at ``out``.

    BorderLines: the articles at the revision of the dataset's date (2023-05-15), as BordIRLines
    took them.

    Example:
        >>> from bordir.experiment.config import ExperimentConfig
        >>> cfg = ExperimentConfig.from_dict({"dataset": "borderlines", "dataset_path": "data/bl"})
        >>> fetch_command(cfg, "corpus/bordirlines")
        'bordir corpus fetch --dataset borderlines --path data/bl --as-of 2023-05-15 --out corpus/bordirlines'
    """
    parts = ["bordir corpus fetch", f"--dataset {cfg.dataset}"]
    if cfg.dataset_path:
        parts.append(f"--path {cfg.dataset_path}")
    if cfg.dataset == "borderlines":
        parts.append("--as-of 2023-05-15")
    parts.append(f"--out {out}")
    return " ".join(parts)


def load_inputs(cfg: ExperimentConfig) -> tuple[BorderLines, Corpus]:
    """The dataset and corpus a config names."""
    return load_dataset_of(cfg), load_corpus_of(cfg)


def select_queries(cfg: ExperimentConfig, ds: BorderLines) -> list[Query]:
    """The dataset's queries in the config's ``langs`` (all when empty), about its first ``limit`` territories (all when None; the dataset's territory order)."""
    queries = list(ds.queries)
    if cfg.limit is not None:
        first = {t.name for t in ds.territories[: cfg.limit]}
        queries = [q for q in queries if q.territory in first]
    if not cfg.langs:
        return queries
    qs = [q for q in queries if q.lang in set(cfg.langs)]
    if not qs:
        raise ConfigError(
            f"no queries in language(s) {', '.join(cfg.langs)}; present: {', '.join(ds.query_langs)}"
        )
    return qs


@lru_cache(maxsize=4)
def load_labels_of(cfg: ExperimentConfig) -> LabelSet:
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
    if cfg.dataset == "demo" and corpus_spec(cfg) == "demo":
        return load_gold("demo")
    raise ConfigError(
        f"relevance_filter {cfg.relevance_filter!r} needs labels: set labels = 'path/to/labels.jsonl' "
        "(only the demo dataset has default gold labels)"
    )
