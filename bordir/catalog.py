"""The dataset catalog: names the CLI and configs accept, and how to load them.

Example:
    >>> sorted(DATASETS)
    ['borderlines', 'bordirlines', 'demo']
    >>> DATASETS["demo"].offline
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError

__all__ = ["DatasetEntry", "DATASETS", "get_dataset_entry"]


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


def get_dataset_entry(name: str) -> DatasetEntry:
    try:
        return DATASETS[name]
    except KeyError:
        raise ConfigError(f"unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}") from None
