"""Citation metrics of an experiment run in the citation response format.

Input: the ``responses.parquet`` of ``bordir run`` with ``response_format =
"citation"`` — one row per (query, mode, model, run) with ``doc_ids`` /
``doc_langs`` (the prompt's documents), ``cited_doc_ids`` (in-range citations
of the explanation, with repeats) and ``n_cited_dropped`` (citations to
numbers outside the prompt).

Cells are (``model``, ``mode``, ``query_lang``), plus ``query_lang = "*"``
pooling every query language of a model and mode. Each (query, run) is one
answer; clusters are **territories**, so the answers about one territory in
all its languages and runs are resampled together. Failed calls, echoes (replies
that mostly copy their prompt or a document: outcome ``echo``, whose citations are the
copied text's) and prompts without documents (``no_ir``) are left out and counted in the
settings.

Answer-level shares per cell: ``no_citation_rate`` (answers with documents but
no in-range citation), ``out_of_range_rate`` (answers with at least one
citation outside the prompt; ``n_out_of_range`` counts those citations) and,
with viewpoint labels (:mod:`~bordir.citations.viewpoint`),
``viewpoint_agreement``.

Example:
    >>> df = pd.DataFrame({
    ...     "query_id": ["A_xx", "B_xx"], "territory": ["A", "B"], "query_lang": ["xx", "xx"],
    ...     "mode": ["rel_langs"] * 2, "model": ["m/x"] * 2, "run": [0, 0], "outcome": ["answered"] * 2,
    ...     "doc_ids": [["a1", "a2"], ["b1", "b2"]], "doc_langs": [["en", "xx"], ["en", "xx"]],
    ...     "cited_doc_ids": [["a1"], ["b1", "b2"]], "n_cited_dropped": [1, 0]})
    >>> t = experiment_citations(df, n_resamples=50, seed=1)
    >>> r = t.rates.query("doc_lang == 'en' and rate == 'pooled'").iloc[0]
    >>> float(r.citation_rate), float(r.inclusion_rate), float(r.ratio)
    (0.6666666666666666, 0.5, 1.3333333333333333)
    >>> a = t.answers.query("query_lang == 'xx'").iloc[0]
    >>> int(a.n_out_of_range), float(a.out_of_range_rate)
    (1, 0.5)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pandas as pd

from .._io.columns import require_columns
from ..stats import DEFAULT_RESAMPLES, resolve_seed
from .flags import MIN_CELL_CLUSTERS
from .rates import CellStats
from .tables import ALL_LANGS, ANSWER_RATES, CitationTables, build_tables
from .viewpoint import viewpoint_counts, viewpoint_lookup

__all__ = ["REQUIRED_COLUMNS", "KEY_COLUMNS", "experiment_citations", "answer_counts"]

REQUIRED_COLUMNS: tuple[str, ...] = (
    "query_id",
    "territory",
    "query_lang",
    "mode",
    "model",
    "run",
    "outcome",
    "doc_ids",
    "doc_langs",
    "cited_doc_ids",
    "n_cited_dropped",
)
KEY_COLUMNS: tuple[str, ...] = ("model", "mode", "query_lang")


def _lst(v: Any) -> list[Any]:
    if v is None or (isinstance(v, float) and v != v):
        return []
    return list(v)


def answer_counts(
    responses: pd.DataFrame, *, labels: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, tuple[str, ...], np.ndarray, np.ndarray, dict[str, int]]:
    """Per-answer sufficient statistics of a citation run.

    Returns:
        ``(answers, langs, included, cited, excluded)``: the kept rows (keys,
        territory and the extra per-answer counts), the document languages
        (columns), the ``(n, L)`` count matrices, and how many rows were left
        out and why.
    """
    require_columns(
        responses,
        REQUIRED_COLUMNS,
        path="responses",
        expected="expected the responses.parquet of a citation-format "
        'run (`bordir run` with response_format = "citation")',
        name_field=False,
    )
    df = responses.reset_index(drop=True)
    failed = (df["outcome"] == "failed").to_numpy()
    echo = (df["outcome"] == "echo").to_numpy()
    doc_ids = [_lst(v) for v in df["doc_ids"]]
    doc_langs = [_lst(v) for v in df["doc_langs"]]
    no_docs = np.array([len(d) == 0 for d in doc_ids])
    keep = ~failed & ~echo & ~no_docs
    excluded = {
        "failed": int(failed.sum()),
        "echo": int((echo & ~no_docs).sum()),
        "without_documents": int((~failed & no_docs).sum()),
    }
    lookup = viewpoint_lookup(labels) if labels is not None else None
    idx = np.flatnonzero(keep)
    langs = tuple(sorted({l for i in idx for l in doc_langs[i]}))
    li = {l: j for j, l in enumerate(langs)}
    inc = np.zeros((len(idx), len(langs)))
    cit = np.zeros((len(idx), len(langs)))
    oor = np.zeros(len(idx))
    agree = np.zeros(len(idx))
    labelled = np.zeros(len(idx))
    choice_names = df["choice_name"] if "choice_name" in df.columns else pd.Series([""] * len(df))
    outcomes = df["outcome"].to_numpy()
    for r, i in enumerate(idx):
        lang_of: dict[str, str] = {}
        for d, l in zip(doc_ids[i], doc_langs[i]):
            inc[r, li[l]] += 1
            lang_of.setdefault(str(d), l)
        cited = []
        unknown = 0
        for d in _lst(df.at[i, "cited_doc_ids"]):
            l = lang_of.get(str(d))
            if l is None:
                unknown += 1
                continue
            cit[r, li[l]] += 1
            cited.append((str(d), l))
        oor[r] = int(df.at[i, "n_cited_dropped"] or 0) + unknown
        if lookup is not None and outcomes[i] == "answered":
            agree[r], labelled[r] = viewpoint_counts(
                lookup, str(df.at[i, "query_id"]), str(choice_names.iat[i]), cited
            )
    answers = df.loc[
        idx, ["model", "mode", "query_lang", "territory", "query_id", "run"]
    ].reset_index(drop=True)
    answers["out_of_range"] = oor
    answers["with_out_of_range"] = (oor > 0).astype(float)
    if lookup is not None:
        answers["vp_agree"] = agree
        answers["vp_labelled"] = labelled
    return answers, langs, inc, cit, excluded


def experiment_citations(
    responses: pd.DataFrame,
    *,
    labels: pd.DataFrame | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    conf: float = 0.95,
    adjust: str = "holm",
    min_clusters: int = MIN_CELL_CLUSTERS,
) -> CitationTables:
    """Citation and inclusion rates, ratios with territory-bootstrap CIs and flags, per model × mode × query language.

    Args:
        responses: a citation-format run's responses (see the module docs).
        labels: optional viewpoint labels (:mod:`~bordir.citations.viewpoint`).
        n_resamples: resamples of the cluster bootstrap over territories.
        seed: bootstrap seed (default: ``$BORDIR_SEED`` or 12345).
        conf: confidence level of the intervals.
        adjust: ``holm`` or ``none`` (:mod:`~bordir.citations.flags`).
        min_clusters: cells with fewer territories are ``too few to judge`` (:mod:`~.flags`).
    """
    seed = resolve_seed(seed)
    answers, langs, inc, cit, excluded = answer_counts(responses, labels=labels)
    extra_cols = ["out_of_range", "with_out_of_range"] + (
        ["vp_agree", "vp_labelled"] if labels is not None else []
    )
    cells: dict[tuple[Any, ...], CellStats] = {}
    groups: list[tuple[tuple[Any, ...], np.ndarray]] = []
    for key, g in answers.groupby(list(KEY_COLUMNS), sort=True):
        groups.append((tuple(key), g.index.to_numpy()))
    for key, g in answers.groupby(["model", "mode"], sort=True):
        groups.append(((*key, ALL_LANGS), g.index.to_numpy()))
    for key, rows in groups:
        present = np.flatnonzero(inc[rows].sum(axis=0) > 0)
        cells[key] = CellStats.from_answers(
            [langs[j] for j in present],
            inc[np.ix_(rows, present)],
            cit[np.ix_(rows, present)],
            clusters=answers["territory"].to_numpy()[rows],
            extra={c: answers[c].to_numpy()[rows] for c in extra_cols},
        )
    answer_rates = list(ANSWER_RATES)
    if labels is not None:
        answer_rates.append(("viewpoint_agreement", "vp_agree", "vp_labelled"))
    counts = Counter(map(str, responses["mode"])) if "mode" in responses.columns else Counter()
    return build_tables(
        dict(sorted(cells.items(), key=lambda kv: tuple(map(str, kv[0])))),
        KEY_COLUMNS,
        n_resamples=n_resamples,
        seed=seed,
        conf=conf,
        adjust=adjust,
        min_clusters=min_clusters,
        cluster="territory",
        answer_rates=answer_rates,
        extra_settings={
            "source": "responses: cited_doc_ids (in-range citations of the explanation, with repeats), "
            "doc_ids/doc_langs (prompt documents), n_cited_dropped (out-of-range citations)",
            "excluded_rows": excluded,
            "responses_per_mode": dict(counts),
            "viewpoint_labels": labels is not None,
        },
        signature_name="citation_rates",
        signature_fields={"src": "experiment"},
    )
