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

import os
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

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
    "MOCK_BEHAVIOURS",
    "METRIC_DESCRIPTIONS",
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


DATASETS: dict[str, DatasetEntry] = {
    e.name: e
    for e in (
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
    )
}


def get_dataset_entry(name: str, *, where: str = "") -> DatasetEntry:
    """The catalog entry ``name``; the error lists the known names (prefixed by ``where``)."""
    try:
        return DATASETS[name]
    except (KeyError, TypeError):
        prefix = f"{where}: " if where else ""
        raise ConfigError(
            f"{prefix}unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}"
        ) from None


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
    from .loaders.bordirlines import load_bordirlines

    return load_bordirlines(path, revision=revision, n_hits=n_hits)


# --------------------------------------------------------------------------------------------
# listings for `bordir list …`: every row comes from a registry, with a one-line description
# --------------------------------------------------------------------------------------------

MOCK_BEHAVIOURS: dict[str, str] = {
    "mock/echo": "answers with the last user message (for prompt tests)",
    "mock/first": "always answers the first option label, A)",
    "mock/fixed:<text>": "always answers <text> verbatim",
    "mock/planted:<langs>[@<dir>]": "planted per-language behaviour: follows the documents for <langs> "
    "(own claimant / controller), a seeded uniform baseline otherwise",
}
"""The mock backend's behaviours (``bordir/generation/backends/mock.py``); unit tests only, never evidence."""

METRIC_DESCRIPTIONS: dict[str, str] = {
    "kb_cs": "knowledge-base CS: English control answers that name the controller",
    "control_cs": "answers in the controller's language that name the controller",
    "non_control_cs": "answers in the other claimants' languages that name the controller",
    "delta_cs": "(Control CS - Non-control CS) / Non-control CS: the relative gap",
    "delta_cs_abs": "Control CS - Non-control CS (unnormalised)",
    "cst_cs": "consistency: pairs of a territory's answers (across languages) that agree",
    "cst_cs_unknown": "consistency CS on territories whose controller is Unknown",
}
"""The concurrence scores of :data:`bordir.metrics.METRICS`."""


def _first_line(obj: Any) -> str:
    doc = (getattr(obj, "__doc__", None) or "").strip()
    return doc.splitlines()[0].strip() if doc else ""


def list_backends() -> list[dict[str, str]]:
    """``name, description`` per backend provider (the generation registry), then the mock's behaviours.

    Example:
        >>> rows = list_backends()
        >>> any(r["name"] == "mock/first" for r in rows), all(r["description"] for r in rows)
        (True, True)
    """
    import importlib

    reg = importlib.import_module("bordir.generation.backend")

    rows = []
    for provider in reg.available_backends():
        if provider in reg._BUILTIN and provider not in reg._REGISTRY:
            try:
                importlib.import_module(reg._BUILTIN[provider])
            except ImportError:  # a missing SDK is imported lazily inside the backend, but be safe
                pass
        factory = reg._REGISTRY.get(provider)
        if provider == "mock":
            rows.extend(
                {"name": n, "description": d, "kind": "mock"} for n, d in MOCK_BEHAVIOURS.items()
            )
            continue
        rows.append(
            {
                "name": f"{provider}/<model>",
                "description": _first_line(factory) or provider,
                "kind": "backend",
            }
        )
    return rows


def list_retrievers() -> list[dict[str, str]]:
    """``name, description`` per retriever of the retrieval registry."""
    import importlib

    from .retrieval import base

    rows = []
    for name in base.available():
        if name in base._BUILTIN_MODULES and name not in base._REGISTRY:
            importlib.import_module(base._BUILTIN_MODULES[name])
        factory = base._REGISTRY.get(name)
        shown = f"{name}/<model>" if name in ("openai", "cohere") else name
        rows.append({"name": shown, "description": _first_line(factory) or name})
    return rows


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
    """``name, kind, description`` per metric: the CS metrics, then the per-language measures."""
    from .metrics.cs import METRICS
    from .metrics.perlang_measures import PERLANG_MEASURES

    rows = [
        {"name": m, "kind": "cs", "description": METRIC_DESCRIPTIONS.get(m, "")} for m in METRICS
    ]
    rows += [
        {"name": m.name, "kind": "per-language", "description": f"{m.label}: higher = {m.toward}"}
        for m in PERLANG_MEASURES.values()
    ]
    return rows


def list_datasets() -> list[dict[str, str]]:
    """``name, source, description`` per catalog dataset."""
    return [
        {
            "name": e.name,
            "source": "bundled" if e.offline else f"hub {e.hub_id} or --path DIR",
            "description": e.description,
        }
        for e in DATASETS.values()
    ]
