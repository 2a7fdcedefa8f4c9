"""A threshold per language on the judge's score: fitted on a calibration split of the questions, reported on the held-out split.

Where the judge gives a score (a rank-classification backend's log-probability difference,
or a ``score`` in its JSON reply), a threshold ``t`` turns it into a label (score > t:
positive). Per language the questions are split at random (seeded, by question, so that
sentences of one answer stay together) into a calibration share ``fraction`` and the rest;
``t`` is the midpoint between two adjacent scores that maximises balanced accuracy on the
calibration split (Youden's J), the tie nearest to 0 first; the held-out split reports the
agreement with ``t`` and, for comparison, of the judge's own labels on the same questions.
An item without a score (unparseable) counts against the judge, as everywhere.

Example:
    >>> best_threshold([-2.0, -1.0, 1.0, 3.0], ["N", "N", "S", "S"], labels=("S", "N"))
    0.0
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["split_questions", "best_threshold", "apply_threshold"]


def split_questions(
    clusters: Sequence[str], fraction: float, rng: np.random.Generator
) -> tuple[set[str], set[str]]:
    """``(calibration questions, held-out questions)``: a random share ``fraction`` of the distinct questions, rounded."""
    names = sorted(set(clusters))
    order = rng.permutation(len(names))
    k = int(round(fraction * len(names)))
    cal = {names[i] for i in order[:k]}
    return cal, set(names) - cal


def best_threshold(
    scores: Sequence[float | None], human: Sequence[str], *, labels: tuple[str, str]
) -> float | None:
    """The threshold maximising balanced accuracy on these items (None: no scores, or one class only)."""
    pos, _ = labels
    pairs = [(float(s), h == pos) for s, h in zip(scores, human) if s is not None]
    n_pos = sum(p for _, p in pairs)
    n_neg = len(pairs) - n_pos
    if not n_pos or not n_neg:
        return None
    values = np.unique([s for s, _ in pairs])
    cands = np.concatenate([[values[0] - 1.0], (values[:-1] + values[1:]) / 2, [values[-1] + 1.0]])
    s = np.array([x for x, _ in pairs])
    y = np.array([p for _, p in pairs])
    above = s[None, :] > cands[:, None]
    sens = (above & y).sum(axis=1) / n_pos
    spec = (~above & ~y).sum(axis=1) / n_neg
    ba = (sens + spec) / 2
    best = np.flatnonzero(np.isclose(ba, ba.max()))
    return float(cands[best[np.argmin(np.abs(cands[best]))]])


def apply_threshold(
    scores: Sequence[float | None], threshold: float, *, labels: tuple[str, str]
) -> list[str | None]:
    """Each score's label under ``threshold`` (None where there is no score)."""
    pos, neg = labels
    return [None if s is None else (pos if s > threshold else neg) for s in scores]
