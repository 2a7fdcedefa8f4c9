"""Agreement between label sets: accuracy, per-class and macro F1, Cohen's κ, Krippendorff's α, majority vote.

Two label sets (human vs LLM, or two humans) are compared on the pairs both
labelled, per **dimension** and per **group** (all pairs, then each query
language):

* ``relevance`` — the three relevance levels;
* ``relevance_binary`` — relevant + partially relevant vs not relevant (the
  paper's relevant / non-relevant split);
* ``viewpoint`` — claimant name, ``neutral`` or ``not_applicable``;
* ``viewpoint_on_relevant`` — viewpoint on the pairs both sets judged (partially) relevant.

With the confusion matrix ``M`` (rows: set A, the reference; columns: set B)
of ``n`` pairs and classes ``c``:

* accuracy ``= Σ_c M_cc / n``;
* per-class ``F1_c = 2·M_cc / (row_c + col_c)`` (A as reference: precision
  over B's labels, recall over A's); classes in neither set are left out;
* macro F1 = the unweighted mean of ``F1_c`` over the classes in A or B;
* Cohen's ``κ = (p_o − p_e) / (1 − p_e)`` with ``p_o`` the accuracy and
  ``p_e = Σ_c (row_c / n)(col_c / n)``; undefined when ``p_e = 1``.

For two or more annotators with missing values, Krippendorff's α (nominal):
each pair is a unit; a unit with ``m_u ≥ 2`` values adds ``(n_uc·n_uk − [c=k]·n_uc) / (m_u − 1)``
to the coincidence matrix ``o``; with ``n_c = Σ_k o_ck`` and ``n = Σ_c n_c``,
``α = 1 − (n − 1)·(n − Σ_c o_cc) / (n² − Σ_c n_c²)``.

**Intervals** are percentile bootstrap intervals. The per-cluster confusion
(or coincidence) matrices are the sufficient statistics, computed once; every
resample re-weights them. Clusters are territories by default (the same
territory's pairs in several languages move together), or queries, or single
pairs. A group with a single cluster (one territory's query in one language)
resamples its pairs instead, and says so (``resampled``); intervals from few
clusters are rough. The seed (``seed=``, else ``$BORDIR_SEED``, else 12345) is
in the signature.

Example:
    >>> a = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
    >>> b = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
    >>> accuracy(a, b), round(cohen_kappa(a, b), 4), round(macro_f1(a, b), 4)
    (0.7, 0.5522, 0.6984)
    >>> round(krippendorff_alpha([[x, y] for x, y in zip(a, b)]), 4)
    0.5714
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..metrics.signature import Signature
from ..metrics.uncertainty import bootstrap_weights, resolve_seed
from .io import LabelSet, query_info
from .schema import NOT_APPLICABLE, RELEVANT_LEVELS, Label

__all__ = [
    "DIMENSIONS",
    "CLUSTERS",
    "accuracy",
    "f1_scores",
    "macro_f1",
    "cohen_kappa",
    "krippendorff_alpha",
    "confusion",
    "AgreementReport",
    "compare",
    "reliability",
    "majority_vote",
]

DIMENSIONS: tuple[str, ...] = ("relevance", "relevance_binary", "viewpoint", "viewpoint_on_relevant")
CLUSTERS: tuple[str, ...] = ("territory", "query", "pair")
DEFAULT_DIMENSIONS = ("relevance", "viewpoint")
Cluster = Literal["territory", "query", "pair"]


# --- statistics of confusion / coincidence matrices (vectorised over leading axes) -----------


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _acc_m(m: np.ndarray) -> np.ndarray:
    return _div(np.trace(m, axis1=-2, axis2=-1), m.sum(axis=(-2, -1)))


def _f1_m(m: np.ndarray) -> np.ndarray:
    tp = np.diagonal(m, axis1=-2, axis2=-1)
    return _div(2 * tp, m.sum(axis=-1) + m.sum(axis=-2))


def _macro_m(m: np.ndarray) -> np.ndarray:
    f1 = _f1_m(m)
    with np.errstate(invalid="ignore"):
        ok = ~np.isnan(f1)
        return np.where(ok.any(axis=-1), np.nansum(f1, axis=-1) / np.maximum(ok.sum(axis=-1), 1), np.nan)


def _kappa_m(m: np.ndarray) -> np.ndarray:
    n = m.sum(axis=(-2, -1))
    po = _acc_m(m)
    pe = _div((m.sum(axis=-1) * m.sum(axis=-2)).sum(axis=-1), n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isclose(pe, 1.0) | np.isnan(pe), np.nan, (po - pe) / (1 - pe))


def _alpha_o(o: np.ndarray) -> np.ndarray:
    nc = o.sum(axis=-1)
    n = nc.sum(axis=-1)
    disagree = n - np.trace(o, axis1=-2, axis2=-1)
    expected = n * n - (nc * nc).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((expected > 0) & (n > 1), 1 - (n - 1) * disagree / np.where(expected > 0, expected, 1),
                        np.nan)


def _classes(*seqs: Sequence[Any]) -> list[Any]:
    return sorted({x for s in seqs for x in s if x is not None}, key=str)


def confusion(a: Sequence[Any], b: Sequence[Any], classes: Sequence[Any] | None = None) -> tuple[np.ndarray, list]:
    """The confusion matrix of two label sequences (rows: ``a``, columns: ``b``) and its class order."""
    if len(a) != len(b):
        raise ConfigError(f"label sequences differ in length: {len(a)} vs {len(b)}")
    classes = list(classes) if classes is not None else _classes(a, b)
    index = {c: i for i, c in enumerate(classes)}
    m = np.zeros((len(classes), len(classes)))
    for x, y in zip(a, b):
        m[index[x], index[y]] += 1
    return m, classes


def _num(x: np.ndarray) -> float | None:
    v = float(x)
    return None if np.isnan(v) else v


def accuracy(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Share of positions where ``a`` and ``b`` agree (None for empty input)."""
    return _num(_acc_m(confusion(a, b)[0]))


def f1_scores(a: Sequence[Any], b: Sequence[Any]) -> dict[Any, float]:
    """Per-class F1 with ``a`` as the reference (``2·TP / (2·TP + FP + FN)``), for the classes in a or b."""
    m, classes = confusion(a, b)
    return {c: float(v) for c, v in zip(classes, _f1_m(m))}


def macro_f1(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Unweighted mean of the per-class F1 over the classes in ``a`` or ``b``."""
    return _num(_macro_m(confusion(a, b)[0]))


def cohen_kappa(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Cohen's κ; None when chance agreement is 1 (both raters used one and the same class)."""
    return _num(_kappa_m(confusion(a, b)[0]))


def _coincidence(units: Sequence[Sequence[Any]], classes: Sequence[Any]) -> np.ndarray:
    """Per-unit coincidence matrices, shape (units, C, C) (zeros for units with fewer than two values)."""
    index = {c: i for i, c in enumerate(classes)}
    counts = np.zeros((len(units), len(classes)))
    for u, values in enumerate(units):
        for v in values:
            if v is not None:
                counts[u, index[v]] += 1
    m = counts.sum(axis=1)
    outer = counts[:, :, None] * counts[:, None, :]
    outer -= np.einsum("uc,cd->ucd", counts, np.eye(len(classes)))
    scale = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    return outer * scale[:, None, None]


def krippendorff_alpha(units: Sequence[Sequence[Any]]) -> float | None:
    """Krippendorff's α for nominal labels: one row per unit, one value per coder (None = missing).

    Units with fewer than two values do not count. None when there is no
    variation at all (every value the same) or fewer than two paired values.
    """
    classes = _classes(*units)
    if not classes:
        return None
    return _num(_alpha_o(_coincidence(units, classes).sum(axis=0)))


# --- label sets ------------------------------------------------------------------------------


def _value(label: Label, dimension: str) -> str | None:
    if label.outcome != "labelled":
        return None
    if dimension == "relevance":
        return label.relevance
    if dimension == "relevance_binary":
        return "relevant" if label.relevance in RELEVANT_LEVELS else "not_relevant"
    if dimension == "viewpoint":
        return label.viewpoint
    if dimension == "viewpoint_on_relevant":
        return label.viewpoint if label.relevance in RELEVANT_LEVELS else None
    raise ConfigError(f"unknown label dimension {dimension!r}; known: {', '.join(DIMENSIONS)}")


def _check_dimensions(dimensions: Sequence[str] | str) -> tuple[str, ...]:
    dims = tuple(d.strip() for d in dimensions.split(",")) if isinstance(dimensions, str) else tuple(dimensions)
    bad = [d for d in dims if d not in DIMENSIONS]
    if bad or not dims:
        raise ConfigError(f"unknown label dimension(s) {', '.join(bad) or '(none given)'}; known: {', '.join(DIMENSIONS)}")
    return dims


def _aligned(sets: Sequence[LabelSet]) -> pd.DataFrame:
    """One row per pair labelled (in any outcome) by any set: pair keys, territory, query_lang, one Label per set."""
    pairs: dict[tuple[str, str, str], list[Label | None]] = {}
    for i, s in enumerate(sets):
        s.single()
        for l in s:
            pairs.setdefault(l.pair, [None] * len(sets))[i] = l
    dataset = next((s.dataset for s in sets if s.dataset is not None), None)
    rows = []
    for (qid, lang, doc), labels in pairs.items():
        territory, qlang = query_info(qid, dataset)
        rows.append({"query_id": qid, "doc_lang": lang, "doc_id": doc, "territory": territory,
                     "query_lang": qlang, "labels": labels})
    return pd.DataFrame(rows, columns=["query_id", "doc_lang", "doc_id", "territory", "query_lang", "labels"])


def _cluster_ids(frame: pd.DataFrame, cluster: str) -> np.ndarray:
    if cluster == "territory":
        keys = frame["territory"]
    elif cluster == "query":
        keys = frame["query_id"]
    elif cluster == "pair":
        return np.arange(len(frame))
    else:
        raise ConfigError(f"unknown cluster {cluster!r}; use one of {', '.join(CLUSTERS)}")
    return pd.factorize(keys)[0]


def _percentile(values: np.ndarray, conf: float) -> tuple[float | None, float | None, int]:
    ok = values[~np.isnan(values)]
    if len(ok) == 0:
        return None, None, len(values)
    a = (1 - conf) / 2
    lo, hi = np.quantile(ok, [a, 1 - a])
    return float(lo), float(hi), int(len(values) - len(ok))


@dataclass(frozen=True)
class AgreementReport:
    """Agreement statistics as a tidy table, with what produced them.

    Attributes:
        rows: one dict per (dimension, group, statistic): ``estimate``, ``low``,
            ``high`` (percentile interval), ``n_pairs``, ``n_clusters`` and ``resampled`` (the unit
            resampled: the requested cluster, or ``pair`` when the group has a single cluster),
            ``n_undefined`` (resamples where the statistic was undefined).
        counts: pair counts (labelled by each set, by all, missing outcomes).
        signature: what produced the numbers.
        names: the label sets' names, in order.
    """

    rows: list[dict[str, Any]]
    counts: dict[str, Any]
    signature: Signature
    names: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        cols = ["dimension", "group", "statistic", "estimate", "low", "high", "n_pairs", "n_clusters", "resampled",
                "n_undefined"]
        return pd.DataFrame(self.rows, columns=cols)

    def value(self, dimension: str, statistic: str, group: str = "all") -> float | None:
        """The estimate of one statistic (``accuracy``, ``macro_f1``, ``kappa``, ``alpha``, ``f1[<class>]``)."""
        for r in self.rows:
            if (r["dimension"], r["group"], r["statistic"]) == (dimension, group, statistic):
                return r["estimate"]
        raise KeyError((dimension, group, statistic))

    def as_dict(self) -> dict[str, Any]:
        return {"names": list(self.names), "counts": self.counts, "settings": self.settings, "rows": self.rows,
                "signature": str(self.signature)}


_PAIR_STATS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "accuracy": _acc_m, "macro_f1": _macro_m, "kappa": _kappa_m,
}


def _group_frames(frame: pd.DataFrame, by: str | None) -> list[tuple[str, pd.DataFrame]]:
    out = [("all", frame)]
    if by:
        if by not in ("query_lang", "doc_lang"):
            raise ConfigError(f"by must be 'query_lang', 'doc_lang' or None, not {by!r}")
        for g, sub in frame.groupby(by, sort=True):
            out.append((str(g), sub))
    return out


def _boot_rows(dimension: str, group: str, stats: dict[str, Callable[[np.ndarray], np.ndarray]],
               per_cluster: np.ndarray, n_pairs: int, n_resamples: int, seed: int, conf: float,
               per_class: tuple[list, Callable[[np.ndarray], np.ndarray]] | None,
               unit: str) -> list[dict[str, Any]]:
    total = per_cluster.sum(axis=0)
    boot = None
    if n_resamples > 0 and len(per_cluster) > 0:
        w = bootstrap_weights(len(per_cluster), n_resamples, np.random.default_rng(seed)).astype(float)
        boot = np.einsum("bg,gij->bij", w, per_cluster)
    rows = []

    def add(name: str, est: float | None, samples: np.ndarray | None) -> None:
        lo = hi = None
        n_undef = 0
        if samples is not None:
            lo, hi, n_undef = _percentile(samples, conf)
        rows.append({"dimension": dimension, "group": group, "statistic": name, "estimate": est, "low": lo,
                     "high": hi, "n_pairs": n_pairs, "n_clusters": len(per_cluster), "resampled": unit,
                     "n_undefined": n_undef})

    for name, fn in stats.items():
        add(name, _num(fn(total)) if n_pairs else None, fn(boot) if boot is not None else None)
    if per_class is not None:
        classes, fn = per_class
        est = fn(total)
        samples = fn(boot) if boot is not None else None
        for i, c in enumerate(classes):
            add(f"f1[{c}]", _num(est[i]) if n_pairs else None, samples[:, i] if samples is not None else None)
    return rows


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
    """Accuracy, per-class F1, macro F1 and Cohen's κ of ``b`` against ``a``, with bootstrap intervals.

    Args:
        a: the reference labels (e.g. gold / human); one annotator.
        b: the compared labels (e.g. an LLM's); one annotator.
        dimensions: names from :data:`DIMENSIONS` (list or comma-separated).
        by: also report per ``query_lang`` (default) or ``doc_lang``; None: overall only.
        cluster: resampling unit: ``territory`` (default), ``query`` or ``pair``.
        n_resamples: bootstrap resamples (0: no intervals).
        seed: bootstrap seed (default ``$BORDIR_SEED`` or 12345).
        conf: interval level.

    Pairs count when both sets labelled them (outcome ``labelled``); the counts
    say how many were only in one set or had no label (unparsed / failed).
    """
    return _pairwise_or_alpha([a, b], dimensions=dimensions, by=by, cluster=cluster, n_resamples=n_resamples,
                              seed=seed, conf=conf, alpha_only=False)


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
    """Krippendorff's α (nominal) over two or more label sets, missing labels allowed, with bootstrap intervals.

    Every pair labelled by at least two sets is a unit; ``n_pairs`` counts them.
    """
    if len(sets) < 2:
        raise ConfigError(f"reliability needs at least two label sets, got {len(sets)}")
    return _pairwise_or_alpha(list(sets), dimensions=dimensions, by=by, cluster=cluster, n_resamples=n_resamples,
                              seed=seed, conf=conf, alpha_only=True)


def _pairwise_or_alpha(sets: list[LabelSet], *, dimensions, by, cluster, n_resamples, seed, conf,
                       alpha_only: bool) -> AgreementReport:
    dims = _check_dimensions(dimensions)
    if cluster not in CLUSTERS:
        raise ConfigError(f"unknown cluster {cluster!r}; use one of {', '.join(CLUSTERS)}")
    if n_resamples < 0:
        raise ConfigError(f"n_resamples must be >= 0, got {n_resamples}")
    if not 0 < conf < 1:
        raise ConfigError(f"conf must be between 0 and 1, got {conf}")
    seed = resolve_seed(seed)
    names_list: list[str] = []
    for i, s in enumerate(sets):
        n = s.name or f"set{i + 1}"
        names_list.append(n if n not in names_list else f"{n}#{i + 1}")
    names = tuple(names_list)
    frame = _aligned(sets)
    labels = frame["labels"].tolist()
    counts: dict[str, Any] = {
        "pairs": len(frame),
        "labelled_by": {n: sum(1 for ls in labels if ls[i] is not None and ls[i].outcome == "labelled")
                        for i, n in enumerate(names)},
        "missing_outcome": {n: sum(1 for ls in labels if ls[i] is not None and ls[i].outcome != "labelled")
                            for i, n in enumerate(names)},
        "absent_from": {n: sum(1 for ls in labels if ls[i] is None) for i, n in enumerate(names)},
        "labelled_by_all": sum(1 for ls in labels if all(l is not None and l.outcome == "labelled" for l in ls)),
    }
    rows: list[dict[str, Any]] = []
    for dim in dims:
        values = [[None if l is None else _value(l, dim) for l in ls] for ls in labels]
        frame_d = frame.assign(values=values)
        if alpha_only:
            keep = [sum(v is not None for v in vs) >= 2 for vs in values]
        else:
            keep = [vs[0] is not None and vs[1] is not None for vs in values]
        frame_d = frame_d[keep].reset_index(drop=True)
        classes = _classes(*frame_d["values"].tolist()) if len(frame_d) else []
        for group, sub in _group_frames(frame_d, by):
            ids = _cluster_ids(sub, cluster)
            n_clusters = int(ids.max()) + 1 if len(ids) else 0
            unit = cluster
            if n_clusters < 2 and cluster != "pair":  # one cluster: resampling it is degenerate
                ids, n_clusters, unit = np.arange(len(sub)), len(sub), "pair"
            vals = sub["values"].tolist()
            if alpha_only:
                unit_o = _coincidence(vals, classes) if classes else np.zeros((len(vals), 0, 0))
                per_cluster = np.zeros((n_clusters, len(classes), len(classes)))
                np.add.at(per_cluster, ids, unit_o)
                rows += _boot_rows(dim, group, {"alpha": _alpha_o}, per_cluster, len(sub), n_resamples, seed,
                                   conf, None, unit)
            else:
                index = {c: i for i, c in enumerate(classes)}
                per_cluster = np.zeros((n_clusters, len(classes), len(classes)))
                if len(vals):
                    ai = np.array([index[v[0]] for v in vals])
                    bi = np.array([index[v[1]] for v in vals])
                    np.add.at(per_cluster, (ids, ai, bi), 1.0)
                present = per_cluster.sum(axis=0)
                present_classes = [c for i, c in enumerate(classes) if present[i].sum() + present[:, i].sum() > 0]
                keep_idx = [index[c] for c in present_classes]

                def f1_present(m: np.ndarray, _k=keep_idx) -> np.ndarray:
                    return _f1_m(m)[..., _k]

                rows += _boot_rows(dim, group, _PAIR_STATS, per_cluster, len(sub), n_resamples, seed, conf,
                                   (present_classes, f1_present), unit)
    name = "alpha" if alpha_only else "agreement"
    sig = Signature.build(name, sets="+".join(names).replace("|", "/"), dims=",".join(dims), by=by or "none",
                          cluster=cluster, boot=n_resamples, seed=seed, ci=f"percentile{int(round(conf * 100))}")
    settings = {"dimensions": list(dims), "by": by, "cluster": cluster, "n_resamples": n_resamples, "seed": seed,
                "conf": conf}
    return AgreementReport(rows=rows, counts=counts, signature=sig, names=names, settings=settings)


# --- majority vote ---------------------------------------------------------------------------


def _plurality(votes: list[str]) -> tuple[str | None, int]:
    if not votes:
        return None, 0
    ranked = Counter(votes).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None, ranked[0][1]
    return ranked[0]


def majority_vote(sets: LabelSet | Sequence[LabelSet], *, name: str = "majority", min_votes: int = 1) -> LabelSet:
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
    frame = _aligned(parts)
    out: list[Label] = []
    ties = few = 0
    for _, row in frame.iterrows():
        labelled = [l for l in row["labels"] if l is not None and l.outcome == "labelled"]
        if len(labelled) < max(1, min_votes):
            few += 1
            continue
        rel, k = _plurality([l.relevance for l in labelled])
        if rel is None:
            ties += 1
            continue
        if rel == "not_relevant":
            vp, kv, nv = NOT_APPLICABLE, k, k
        else:
            vvotes = [l.viewpoint for l in labelled if l.relevance in RELEVANT_LEVELS]
            vp, kv = _plurality(vvotes)
            nv = len(vvotes)
            if vp is None:
                ties += 1
                continue
        note = f"relevance {k}/{len(labelled)}; viewpoint {kv}/{nv}"
        out.append(Label(row["query_id"], row["doc_lang"], row["doc_id"], rel, vp, name, note=note))
    dataset = next((p.dataset for p in parts if p.dataset is not None), None)
    voters = [p.annotators[0] if p.annotators else p.name for p in parts]
    return LabelSet(out, name=name, source="majority vote", dataset=dataset,
                    meta={"ties": ties, "too_few_votes": few, "annotators": voters})
