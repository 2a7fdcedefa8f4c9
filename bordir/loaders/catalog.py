"""The dataset catalog: names the CLI and configs accept, and :func:`load_dataset`, the one way to load them.

Every command and the experiment runner load datasets through
:func:`load_dataset` (and corpora through :func:`bordir.corpus.load_corpus`).
``bordir list datasets`` prints it (:func:`bordir.catalog.list_datasets`).

Example:
    >>> sorted(DATASETS)
    ['borderlines', 'bordirlines', 'demo', 'nomiracl']
    >>> DATASETS["demo"].offline
    True
    >>> load_dataset("demo").name
    'demo'
    >>> load_dataset("demo", path="x")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: the demo dataset is bundled; path and revision do not apply to it
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..registry import Registry

__all__ = ["DatasetEntry", "DATASETS", "get_dataset_entry", "load_dataset"]


@dataclass(frozen=True, slots=True)
class DatasetEntry:
    """One loadable dataset."""

    name: str
    description: str
    hub_id: str
    offline: bool
    """True if it ships with bordir (no download, no path needed)."""
    path_layout: str
    loader: str | Callable[..., Any] = ""
    """The loader, or ``pkg.mod:function`` naming it: called as ``loader(path, revision,
    repair=…, n_hits=…)`` and the :attr:`options` given (``path`` a string or None; a loader
    ignores the common options it has none of)."""
    options: tuple[str, ...] = ()
    """Options only this dataset takes (``lang``, ``split``); another dataset refuses them."""


def _load_demo(path: str | None, revision: str | None, **_: Any) -> Any:
    if path or revision:
        raise ConfigError("the demo dataset is bundled; path and revision do not apply to it")
    from .demo import load_demo

    return load_demo()


def _load_borderlines(
    path: str | None, revision: str | None, *, repair: bool = False, **_: Any
) -> Any:
    from .borderlines import load_borderlines

    return load_borderlines(path, repair=repair, revision=revision)


def _load_bordirlines(path: str | None, revision: str | None, *, n_hits: int = 10, **_: Any) -> Any:
    from .bordirlines import load_bordirlines

    return load_bordirlines(path, revision=revision, n_hits=n_hits)


def _load_nomiracl(
    path: str | None,
    revision: str | None,
    *,
    lang: str | None = None,
    split: str | None = None,
    **_: Any,
) -> Any:
    from .nomiracl import SPLITS, load_nomiracl

    if not lang:
        raise ConfigError(
            "NoMIRACL is loaded one language at a time: pass lang= (ar, bn, de, en, es, fa, fi, fr, "
            "hi, id, ja, ko, ru, sw, te, th, yo, zh)"
        )
    if split is None:
        raise ConfigError(f"pass split= one of {', '.join(SPLITS)} (NoMIRACL's paper uses test)")
    return load_nomiracl(path, lang=lang, split=split, revision=revision)


DATASETS: Registry[DatasetEntry] = Registry("dataset")
"""Every dataset :func:`load_dataset` accepts, by name (register a :class:`DatasetEntry` to add one)."""
for _e in (
    DatasetEntry(
        "borderlines",
        "BorderLines territorial disputes: 251 territories, 720 multiple-choice queries in 49 languages",
        "manestay/borderlines",
        False,
        "disputed_territories.csv, countries_info.json, prompts_mc_q/, terms/",
        _load_borderlines,
    ),
    DatasetEntry(
        "bordirlines",
        "BordIRLines retrieval results (openai / m3 hits per query and mode) and their Wikipedia paragraphs",
        "borderlines/bordirlines",
        False,
        "data/queries.tsv, data/{lang}/{system}/{mode}/{lang}_query_hits.tsv, data/all_docs.json",
        _load_bordirlines,
    ),
    DatasetEntry(
        "nomiracl",
        "NoMIRACL: 18 languages, queries whose judged passages are all non-relevant or include a relevant one",
        "miracl/nomiracl",
        False,
        "corpus.jsonl, topics/{split}.{subset}.tsv, qrels/{split}.{subset}.tsv per language (or data/{language}/)",
        _load_nomiracl,
        options=("lang", "split"),
    ),
    DatasetEntry(
        "demo",
        "bundled demo: 12 disputes, queries in every claimant language, a short multilingual corpus",
        "",
        True,
        "bundled (BorderLines layout + corpus/passages.jsonl)",
        _load_demo,
    ),
):
    DATASETS.register(_e.name, _e, description=_e.description)


def get_dataset_entry(name: str, *, where: str = "") -> DatasetEntry:
    """The catalog entry ``name``; the error lists the known names (prefixed by ``where``)."""
    if not isinstance(name, str) or name not in DATASETS:
        prefix = f"{where}: " if where else ""
        raise ConfigError(
            f"{prefix}unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}"
        ) from None
    return DATASETS.get(name)


def load_dataset(
    name: str,
    path: str | os.PathLike[str] | None = None,
    revision: str | None = None,
    *,
    repair: bool = False,
    n_hits: int = 10,
    lang: str | None = None,
    split: str | None = None,
) -> Any:
    """Load catalog dataset ``name``.

    Args:
        name: ``demo`` (bundled), ``borderlines`` (a :class:`~bordir.dataset.BorderLines`)
            or ``bordirlines`` (a :class:`~bordir.loaders.bordirlines.BordIRLines`).
        path: a local directory in the dataset's file layout; without it, the hub
            (needs ``bordir[hub]``).
        revision: hub revision to pin (when no ``path``).
        repair: BorderLines: apply the documented repairs (recorded in ``repairs``).
        n_hits: BordIRLines: hits kept per (query, system, mode).
        lang: NoMIRACL: the language (``sw``, ``swahili`` or a bordir code); required there,
            refused by the other datasets.
        split: NoMIRACL: ``test`` or ``dev``; required there, refused by the other datasets.

    Raises:
        ConfigError: an unknown name, a path given for the bundled demo, or an option the
            dataset does not take.
    """
    entry = get_dataset_entry(name)
    loader = entry.loader
    if isinstance(loader, str) and loader:
        mod, _, attr = loader.partition(":")
        loader = getattr(importlib.import_module(mod), attr)
    if not callable(loader):
        raise ConfigError(f"dataset {entry.name!r} names no loader (DatasetEntry.loader)")
    extra = {k: v for k, v in (("lang", lang), ("split", split)) if v is not None}
    refused = [k for k in extra if k not in entry.options]
    if refused:
        raise ConfigError(
            f"the {entry.name} dataset takes no {' or '.join(refused)} option"
            + (f" (it takes {', '.join(entry.options)})" if entry.options else "")
        )
    return loader(
        None if path is None else os.fspath(path), revision, repair=repair, n_hits=n_hits, **extra
    )
