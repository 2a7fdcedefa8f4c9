"""The seeds of an experiment's runs: the BordIRLines paper seeds first, then fresh ones.

Example:
    >>> seeds_for_runs(3), len(seeds_for_runs(12)), seeds_for_runs(12)[-2:]
    ((4321, 2557, 2558), 12, (10000, 10001))
"""

from __future__ import annotations

__all__ = ["PAPER_SEEDS", "seeds_for_runs"]

PAPER_SEEDS = (4321, 2557, 2558, 2559, 2560, 2561, 2562, 2563, 2564, 2565)
"""The BordIRLines seeds: 4321 (default) and 2557–2565."""


def seeds_for_runs(runs: int) -> tuple[int, ...]:
    """The seeds of ``runs`` runs (``runs = n`` in a config): the paper seeds, then 10000, 10001 and so on."""
    extra = tuple(range(10_000, 10_000 + max(0, runs - len(PAPER_SEEDS))))
    return (PAPER_SEEDS + extra)[:runs]
