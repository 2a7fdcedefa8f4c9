"""NoMIRACL's query sample, ported line by line: ``NoMIRACLDataLoader.load_data_sample``.

``nomiracl/dataset/data_loader.py``: the relevant and non-relevant query ids (in
judgment order) are balanced by the two ratios, capped at ``max_sample_pool`` each,
then ``random.seed(seed)`` once and ``random.sample`` of the relevant ids, then of
the non-relevant ids (the second draw continues the first one's random state; bordir
draws from a ``random.Random(seed)`` of its own, which gives the same ids).
NoMIRACL's defaults are ratios 0.5 / 0.5 and seed 42; its README loads
``max_sample_pool=250``.

Example:
    >>> rel, non = sample_ids([f"r{i}" for i in range(5)], [f"n{i}" for i in range(8)], max_sample_pool=3)
    >>> len(rel), len(non), rel == sample_ids([f"r{i}" for i in range(5)], [f"n{i}" for i in range(8)], max_sample_pool=3)[0]
    (3, 3, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["sample_ids", "NOMIRACL_SAMPLE_SEED"]

NOMIRACL_SAMPLE_SEED = 42
"""``load_data_sample``'s ``random_seed`` default."""


def sample_ids(
    relevant: Sequence[str],
    non_relevant: Sequence[str],
    *,
    relevant_ratio: float = 0.5,
    non_relevant_ratio: float = 0.5,
    max_sample_pool: int | None = None,
    seed: int = NOMIRACL_SAMPLE_SEED,
) -> tuple[list[str], list[str]]:
    """``(relevant ids, non-relevant ids)`` as ``load_data_sample`` draws them."""
    relevant_samples = len(relevant)
    non_relevant_samples = len(non_relevant)
    if relevant_ratio == 0.0 or non_relevant_ratio == 0.0:
        if relevant_ratio == 0.0:
            relevant_samples = 0
        if non_relevant_ratio == 0.0:
            non_relevant_samples = 0
    else:
        hyp_non_relevant = int(relevant_samples * (non_relevant_ratio / relevant_ratio))
        hyp_relevant = int(non_relevant_samples * (relevant_ratio / non_relevant_ratio))
        if hyp_relevant > len(relevant):
            hyp_relevant = len(relevant)
            non_relevant_samples = int(hyp_relevant * (non_relevant_ratio / relevant_ratio))
        if hyp_non_relevant > len(non_relevant):
            hyp_non_relevant = len(non_relevant)
            relevant_samples = int(hyp_non_relevant * (relevant_ratio / non_relevant_ratio))
        if (relevant_samples + hyp_non_relevant) > (hyp_relevant + non_relevant_samples):
            non_relevant_samples = hyp_non_relevant
        else:
            relevant_samples = hyp_relevant
    if max_sample_pool is not None:
        relevant_samples = min(relevant_samples, max_sample_pool)
        non_relevant_samples = min(non_relevant_samples, max_sample_pool)
    rng = random.Random(seed)  # the original seeds the global generator: the same draws
    rel = rng.sample(list(relevant), relevant_samples)
    non = rng.sample(list(non_relevant), non_relevant_samples)
    return rel, non
