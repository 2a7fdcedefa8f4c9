"""One label per pair by majority (plurality) vote over annotators (:func:`bordir.stats.plurality`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import ConfigError
from ...stats.majority import plurality
from ..labelset import LabelSet
from ..schema import NOT_APPLICABLE, RELEVANT_LEVELS, Label
from .pairs import aligned

__all__ = ["majority_vote"]


def majority_vote(
    sets: LabelSet | Sequence[LabelSet], *, name: str = "majority", min_votes: int = 1
) -> LabelSet:
    """One label per pair by majority (plurality) vote over annotators.

    Relevance is the most frequent level among the annotators who labelled the
    pair; a tie leaves the pair out. When it is ``not_relevant`` the viewpoint
    is ``not_applicable``; otherwise the viewpoint is the most frequent among the
    annotators who judged the pair (partially) relevant (a tie leaves the pair out).
    Pairs with fewer than ``min_votes`` labels are left out. ``.meta`` counts the
    left-out pairs (``ties``, ``too_few_votes``).

    Args:
        sets: one label set with several annotators, or several single-annotator sets.
        name: the ``annotator`` of the result.
        min_votes: labels a pair needs.

    Examples:
        >>> from bordir.annotations.schema import Label
        >>> ls = LabelSet([Label("Q_en", "en", "d1", "relevant", "A", "x"),
        ...                Label("Q_en", "en", "d1", "partially_relevant", "A", "y"),
        ...                Label("Q_en", "en", "d1", "relevant", "neutral", "z"),
        ...                Label("Q_en", "en", "d2", "relevant", "A", "x"),
        ...                Label("Q_en", "en", "d2", "not_relevant", "not_applicable", "y"),
        ...                Label("Q_en", "en", "d2", "partially_relevant", "neutral", "z")])
        >>> m = majority_vote(ls)
        >>> [(l.doc_id, l.relevance, l.viewpoint, l.note) for l in m]
        [('d1', 'relevant', 'A', 'relevance 2/3; viewpoint 2/3')]
        >>> m.meta
        {'ties': 1, 'too_few_votes': 0, 'annotators': ['x', 'y', 'z']}
    """
    if isinstance(sets, LabelSet):
        parts = sets.split_annotators()
    else:
        parts = [p for s in sets for p in (s.split_annotators() if len(s.annotators) > 1 else [s])]
    if not parts:
        raise ConfigError("majority_vote needs at least one label set")
    frame = aligned(parts)
    out: list[Label] = []
    ties = few = 0
    for _, row in frame.iterrows():
        labelled = [l for l in row["labels"] if l is not None and l.outcome == "labelled"]
        if len(labelled) < max(1, min_votes):
            few += 1
            continue
        rel, k = plurality([l.relevance for l in labelled])
        if rel is None:
            ties += 1
            continue
        vp: str | None
        if rel == "not_relevant":
            vp, kv, nv = NOT_APPLICABLE, k, k
        else:
            vvotes = [l.viewpoint for l in labelled if l.relevance in RELEVANT_LEVELS]
            vp, kv = plurality(vvotes)
            nv = len(vvotes)
            if vp is None:
                ties += 1
                continue
        note = f"relevance {k}/{len(labelled)}; viewpoint {kv}/{nv}"
        out.append(Label(row["query_id"], row["doc_lang"], row["doc_id"], rel, vp, name, note=note))
    dataset = next((p.dataset for p in parts if p.dataset is not None), None)
    voters = [p.annotators[0] if p.annotators else p.name for p in parts]
    return LabelSet(
        out,
        name=name,
        source="majority vote",
        dataset=dataset,
        meta={"ties": ties, "too_few_votes": few, "annotators": voters},
    )
