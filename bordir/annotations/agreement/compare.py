"""Agreement of label sets, per dimension and group, with cluster-bootstrap intervals: ``compare`` and ``reliability``.

Two label sets (human vs LLM, or two humans) are compared on the pairs both
labelled, per **dimension** and per **group** (all pairs, then each query
language):

* ``relevance`` — the three relevance levels (ordered: nominal *and* ordinal statistics);
* ``relevance_binary`` — relevant + partially relevant vs not relevant (the
  paper's relevant / non-relevant split);
* ``viewpoint`` — claimant name, ``neutral`` or ``not_applicable`` (nominal only);
* ``viewpoint_on_relevant`` — viewpoint on the pairs both sets judged (partially) relevant.

:func:`compare` gives accuracy, macro F1, per-class F1 and Cohen's κ, and for
the ordered dimensions the weighted κ (``kappa_linear``, ``kappa_quadratic``);
:func:`reliability` gives Krippendorff's α (``alpha``) and, for the ordered
dimensions, the ordinal α (``alpha_ordinal``).

Clusters are territories by default (the same territory's pairs in several
languages move together), or queries, or single pairs. A group with a single
cluster (one territory's query in one language) resamples its pairs instead,
and says so (``resampled``); intervals from few clusters are rough. The seed
(``seed=``, else ``$BORDIR_SEED``, else 12345) is in the signature.

Example:
    >>> from bordir.annotations.schema import Label
    >>> from bordir.annotations.labelset import LabelSet
    >>> levels = ["relevant", "partially_relevant", "not_relevant", "relevant"]
    >>> other = ["relevant", "relevant", "partially_relevant", "not_relevant"]
    >>> def labels(values, who):
    ...     return LabelSet([Label("Crimea_en", "en", f"d{i}", v, "not_applicable" if v == "not_relevant"
    ...                            else "neutral", who) for i, v in enumerate(values)], name=who)
    >>> r = compare(labels(levels, "a"), labels(other, "b"), dimensions="relevance", n_resamples=0)
    >>> r.value("relevance", "kappa") < r.value("relevance", "kappa_linear")
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Literal

import numpy as np

from ...errors import ConfigError
from ...signature import Signature
from ...stats import resolve_seed
from ...stats.alpha import alpha_o, alpha_ordinal_o, coincidence
from ...stats.confusion import acc_m, class_order, f1_m, macro_m
from ...stats.kappa import WEIGHTS, kappa_m, weight_matrix, weighted_kappa_m
from ..labelset import LabelSet
from .pairs import (
    CLUSTERS,
    DEFAULT_DIMENSIONS,
    ORDINAL_LEVELS,
    aligned,
    check_dimensions,
    cluster_ids,
    group_frames,
    label_value,
)
from .report import AgreementReport, boot_rows

__all__ = ["compare", "reliability", "Cluster"]

Cluster = Literal["territory", "query", "pair"]

_PAIR_STATS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "accuracy": acc_m,
    "macro_f1": macro_m,
    "kappa": kappa_m,
}


def compare(
    a: LabelSet,
    b: LabelSet,
    *,
    dimensions: Sequence[str] | str = DEFAULT_DIMENSIONS,
    by: str | None = "query_lang",
    cluster: Cluster = "territory",
    n_resamples: int = 1000,
    seed: int | None = None,
    conf: float = 0.95,
) -> AgreementReport:
    """Accuracy, per-class F1, macro F1, Cohen's κ (and weighted κ) of ``b`` against ``a``, with bootstrap intervals.

    Args:
        a: the reference labels (e.g. gold / human); one annotator.
        b: the compared labels (e.g. an LLM's); one annotator.
        dimensions: names from :data:`~bordir.annotations.agreement.DIMENSIONS` (list or comma-separated).
        by: also report per ``query_lang`` (default) or ``doc_lang``; None: overall only.
        cluster: resampling unit: ``territory`` (default), ``query`` or ``pair``.
        n_resamples: bootstrap resamples (0: no intervals).
        seed: bootstrap seed (default ``$BORDIR_SEED`` or 12345).
        conf: interval level.

    Pairs count when both sets labelled them (outcome ``labelled``); the counts
    say how many were only in one set or had no label (unparsed / failed). For
    the ordered dimensions (``relevance``, ``relevance_binary``) the rows also hold
    ``kappa_linear`` and ``kappa_quadratic``.
    """
    return _pairwise_or_alpha(
        [a, b],
        dimensions=dimensions,
        by=by,
        cluster=cluster,
        n_resamples=n_resamples,
        seed=seed,
        conf=conf,
        alpha_only=False,
    )


def reliability(
    sets: Sequence[LabelSet],
    *,
    dimensions: Sequence[str] | str = DEFAULT_DIMENSIONS,
    by: str | None = "query_lang",
    cluster: Cluster = "territory",
    n_resamples: int = 1000,
    seed: int | None = None,
    conf: float = 0.95,
) -> AgreementReport:
    """Krippendorff's α (nominal, and ordinal for ordered dimensions) over two or more label sets, with intervals.

    Missing labels are allowed: every pair labelled by at least two sets is a
    unit; ``n_pairs`` counts them.
    """
    if len(sets) < 2:
        raise ConfigError(f"reliability needs at least two label sets, got {len(sets)}")
    return _pairwise_or_alpha(
        list(sets),
        dimensions=dimensions,
        by=by,
        cluster=cluster,
        n_resamples=n_resamples,
        seed=seed,
        conf=conf,
        alpha_only=True,
    )


def _classes_for(dim: str, values: list[list[Any]]) -> tuple[list[Any], bool]:
    """The class order of a dimension and whether it is ordinal (all values among its ordered levels)."""
    present = class_order(*values) if values else []
    levels = ORDINAL_LEVELS.get(dim)
    if levels is not None and set(present) <= set(levels):
        return list(levels), True
    return present, False


def _names(sets: Sequence[LabelSet]) -> tuple[str, ...]:
    out: list[str] = []
    for i, s in enumerate(sets):
        n = s.name or f"set{i + 1}"
        out.append(n if n not in out else f"{n}#{i + 1}")
    return tuple(out)


def _pairwise_or_alpha(
    sets: list[LabelSet],
    *,
    dimensions: Sequence[str] | str,
    by: str | None,
    cluster: Cluster,
    n_resamples: int,
    seed: int | None,
    conf: float,
    alpha_only: bool,
) -> AgreementReport:
    dims = check_dimensions(dimensions)
    if cluster not in CLUSTERS:
        raise ConfigError(f"unknown cluster {cluster!r}; use one of {', '.join(CLUSTERS)}")
    if n_resamples < 0:
        raise ConfigError(f"n_resamples must be >= 0, got {n_resamples}")
    if not 0 < conf < 1:
        raise ConfigError(f"conf must be between 0 and 1, got {conf}")
    seed = resolve_seed(seed)
    names = _names(sets)
    frame = aligned(sets)
    labels = frame["labels"].tolist()
    counts: dict[str, Any] = {
        "pairs": len(frame),
        "labelled_by": {
            n: sum(1 for ls in labels if ls[i] is not None and ls[i].outcome == "labelled")
            for i, n in enumerate(names)
        },
        "missing_outcome": {
            n: sum(1 for ls in labels if ls[i] is not None and ls[i].outcome != "labelled")
            for i, n in enumerate(names)
        },
        "absent_from": {n: sum(1 for ls in labels if ls[i] is None) for i, n in enumerate(names)},
        "labelled_by_all": sum(
            1 for ls in labels if all(l is not None and l.outcome == "labelled" for l in ls)
        ),
    }
    rows: list[dict[str, Any]] = []
    for dim in dims:
        values = [[None if l is None else label_value(l, dim) for l in ls] for ls in labels]
        frame_d = frame.assign(values=values)
        if alpha_only:
            keep = [sum(v is not None for v in vs) >= 2 for vs in values]
        else:
            keep = [vs[0] is not None and vs[1] is not None for vs in values]
        frame_d = frame_d[keep].reset_index(drop=True)
        classes, ordinal = _classes_for(dim, frame_d["values"].tolist() if len(frame_d) else [])
        for group, sub in group_frames(frame_d, by):
            ids = cluster_ids(sub, cluster)
            n_clusters = int(ids.max()) + 1 if len(ids) else 0
            unit = cluster
            if n_clusters < 2 and cluster != "pair":  # one cluster: resampling it is degenerate
                ids, n_clusters, unit = np.arange(len(sub)), len(sub), "pair"
            vals = sub["values"].tolist()
            if alpha_only:
                unit_o = coincidence(vals, classes) if classes else np.zeros((len(vals), 0, 0))
                per_cluster = np.zeros((n_clusters, len(classes), len(classes)))
                np.add.at(per_cluster, ids, unit_o)
                stats: dict[str, Callable[[np.ndarray], np.ndarray]] = {"alpha": alpha_o}
                if ordinal:
                    stats["alpha_ordinal"] = alpha_ordinal_o
                rows += boot_rows(
                    dim, group, stats, per_cluster, len(sub), n_resamples, seed, conf, None, unit
                )
            else:
                index = {c: i for i, c in enumerate(classes)}
                per_cluster = np.zeros((n_clusters, len(classes), len(classes)))
                if len(vals):
                    ai = np.array([index[v[0]] for v in vals])
                    bi = np.array([index[v[1]] for v in vals])
                    np.add.at(per_cluster, (ids, ai, bi), 1.0)
                present = per_cluster.sum(axis=0)
                present_classes = [
                    c for i, c in enumerate(classes) if present[i].sum() + present[:, i].sum() > 0
                ]
                keep_idx = [index[c] for c in present_classes]

                def f1_present(m: np.ndarray, _k: list[int] = keep_idx) -> np.ndarray:
                    return f1_m(m)[..., _k]

                stats = dict(_PAIR_STATS)
                if ordinal:
                    for w in WEIGHTS:
                        stats[f"kappa_{w}"] = partial(
                            weighted_kappa_m, w=weight_matrix(len(classes), w)
                        )
                rows += boot_rows(
                    dim,
                    group,
                    stats,
                    per_cluster,
                    len(sub),
                    n_resamples,
                    seed,
                    conf,
                    (present_classes, f1_present),
                    unit,
                )
    name = "alpha" if alpha_only else "agreement"
    sig = Signature.build(
        name,
        sets="+".join(names).replace("|", "/"),
        dims=",".join(dims),
        by=by or "none",
        cluster=cluster,
        boot=n_resamples,
        seed=seed,
        ci=f"percentile{int(round(conf * 100))}",
    )
    settings = {
        "dimensions": list(dims),
        "by": by,
        "cluster": cluster,
        "n_resamples": n_resamples,
        "seed": seed,
        "conf": conf,
        "ordinal": {d: list(ORDINAL_LEVELS[d]) for d in dims if d in ORDINAL_LEVELS},
    }
    return AgreementReport(rows=rows, counts=counts, signature=sig, names=names, settings=settings)
