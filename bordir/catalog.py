"""The dataset catalog: names the CLI and configs accept, and :func:`load_dataset`, the one way to load them.

Every command and the experiment runner load datasets through
:func:`load_dataset` (and corpora through :func:`bordir.corpus.load_corpus`).

Example:
    >>> sorted(DATASETS)
    ['borderlines', 'bordirlines', 'demo']
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
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .registry import Registry

__all__ = [
    "DatasetEntry",
    "DATASETS",
    "get_dataset_entry",
    "load_dataset",
    "list_backends",
    "list_retrievers",
    "list_modes",
    "list_metrics",
    "list_datasets",
    "list_fusions",
    "list_policies",
]


@dataclass(frozen=True, slots=True)
class DatasetEntry:
    """One loadable dataset."""

    name: str
    description: str
    hub_id: str
    offline: bool
    """True if it ships with bordir (no download, no path needed)."""
    path_layout: str
    loader: str = ""
    """``pkg.mod:function`` called as ``function(path, revision)`` (datasets registered by plugins)."""


DATASETS: Registry[DatasetEntry] = Registry("dataset")
"""Every dataset :func:`load_dataset` accepts, by name (register a :class:`DatasetEntry` to add one)."""
for _e in (
    DatasetEntry(
        "borderlines",
        "BorderLines territorial disputes: 251 territories, 720 multiple-choice queries in 49 languages",
        "manestay/borderlines",
        False,
        "disputed_territories.csv, countries_info.json, prompts_mc_q/, terms/",
    ),
    DatasetEntry(
        "bordirlines",
        "BordIRLines retrieval results (openai / m3 hits per query and mode) and their Wikipedia paragraphs",
        "borderlines/bordirlines",
        False,
        "data/queries.tsv, data/{lang}/{system}/{mode}/{lang}_query_hits.tsv, data/all_docs.json",
    ),
    DatasetEntry(
        "demo",
        "bundled demo: 12 disputes, queries in every claimant language, a short multilingual corpus",
        "",
        True,
        "bundled (BorderLines layout + corpus/passages.jsonl)",
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

    Raises:
        ConfigError: an unknown name, or a path given for the bundled demo.
    """
    entry = get_dataset_entry(name)
    if entry.name == "demo":
        if path or revision:
            raise ConfigError("the demo dataset is bundled; path and revision do not apply to it")
        from .loaders.demo import load_demo

        return load_demo()
    if entry.name == "borderlines":
        from .loaders import load_borderlines

        return load_borderlines(
            None if path is None else os.fspath(path), repair=repair, revision=revision
        )
    if entry.name == "bordirlines":
        from .loaders.bordirlines import load_bordirlines

        return load_bordirlines(
            None if path is None else os.fspath(path), revision=revision, n_hits=n_hits
        )
    if not entry.loader:
        raise ConfigError(f"dataset {entry.name!r} names no loader (DatasetEntry.loader)")
    mod, _, attr = entry.loader.partition(":")
    return getattr(importlib.import_module(mod), attr)(path, revision)


# --------------------------------------------------------------------------------------------
# listings for `bordir list …`: every row comes from a registry, with a one-line description
# --------------------------------------------------------------------------------------------


def __getattr__(name: str) -> Any:
    if name == "MOCK_BEHAVIOURS":  # kept importable from here; it lives with the backend registry
        from .generation.backend import MOCK_BEHAVIOURS

        return MOCK_BEHAVIOURS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def list_backends() -> list[dict[str, str]]:
    """``name, description`` per backend provider (the generation registry); the mock's behaviours one each.

    Example:
        >>> rows = list_backends()
        >>> any(r["name"] == "mock/first" for r in rows), all(r["description"] for r in rows)
        (True, True)
    """
    from .generation.backend import BACKENDS

    rows: list[dict[str, str]] = []
    for e in sorted(BACKENDS.entries(), key=lambda e: e.name):
        if e.meta.get("variants"):  # the mock's behaviours: one row each
            rows.extend(
                {"name": n, "description": d, "kind": e.name} for n, d in e.meta["variants"].items()
            )
            continue
        rows.append(
            {"name": f"{e.name}/<model>", "description": e.description or e.name, "kind": "backend"}
        )
    return rows


def list_retrievers() -> list[dict[str, str]]:
    """``name, description`` per retriever of the retrieval registry."""
    from .retrieval.base import RETRIEVERS

    return [
        {
            "name": f"{e.name}/<model>" if e.meta.get("provider") else e.name,
            "description": e.description or e.name,
        }
        for e in sorted(RETRIEVERS.entries(), key=lambda e: e.name)
    ]


def list_modes() -> list[dict[str, str]]:
    """``name, alias, description`` per retrieval mode."""
    from .retrieval.modes import MODE_DESCRIPTIONS, Mode

    return [
        {
            "name": m.value,
            "alias": m.hub_name if m.hub_name != m.value else "",
            "description": MODE_DESCRIPTIONS[m],
        }
        for m in Mode
    ]


def list_metrics() -> list[dict[str, str]]:
    """``name, kind, label, bounds, description`` per metric of the metric registry."""
    from .metrics.registry import describe_metrics

    return describe_metrics()


def list_datasets() -> list[dict[str, str]]:
    """``name, source, description`` per catalog dataset."""
    return [
        {
            "name": e.name,
            "source": "bundled" if e.offline else f"hub {e.hub_id} or --path DIR",
            "description": e.description,
        }
        for e in (DATASETS.get(n) for n in DATASETS.names())
    ]


def list_fusions() -> list[dict[str, str]]:
    """``name, description`` per cross-language score fusion."""
    from .retrieval.fusion import FUSIONS

    return [{"name": e.name, "description": e.description} for e in FUSIONS.entries()]


def list_policies() -> list[dict[str, str]]:
    """``name, applies_to, description`` per scoring policy (parse and testbed policies)."""
    from .policies import describe_policies

    return describe_policies()
