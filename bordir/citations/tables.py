"""Tidy citation tables for a set of cells, with flags, settings and a signature.

:func:`build_tables` turns :class:`~.rates.CellStats` per cell into a
:class:`CitationTables`:

* ``rates``: one row per (cell keys…, ``query_lang``, ``doc_lang``, ``rate``),
  ``rate`` being ``pooled`` or ``per_query`` (both always present);
* ``overall``: the same with every query language pooled (``query_lang`` ``*``);
* ``answers``: one row per cell with the answer-level shares (no citation,
  out-of-range citations …) and their intervals.

Flags (:func:`~.flags.assign_flags`) are Holm-corrected across every tested cell of the
output, per query language and pooled, both rate variants: one family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pandas as pd

from .._io.json_write import jsonable
from .._io.markdown import md_text
from .._version import __version__
from ..signature import Signature
from ..stats.rate import rate_method
from .flags import MIN_CELL_CLUSTERS, TOO_FEW, assign_flags
from .rates import CellStats
from .ratio import summarize_cell, summarize_scalars
from .ratio_test import RATIO_TEST
from .resample import EXACT_LIMIT, bootstrap_sums
from .resource import RESOURCE_ORDER, divergence_table, resource_level, spread_by_resource
from .table_text import ci_text, flag_text, markdown_rates, pct

__all__ = [
    "CitationTables",
    "build_tables",
    "markdown_rates",
    "ANSWER_RATES",
    "ALL_LANGS",
    "pct",
    "ci_text",
    "jsonable",
    "flag_text",
    "RESOURCE_ORDER",
    "resource_level",
    "divergence_table",
    "spread_by_resource",
]

ALL_LANGS = "*"
"""The ``query_lang`` of the rows that pool every query language."""

ANSWER_RATES: tuple[tuple[str, str, str], ...] = (
    ("no_citation_rate", "with_docs-citing", "with_docs"),
    ("out_of_range_rate", "with_out_of_range", "answers"),
)
"""Answer-level shares: (name, numerator, denominator) of per-answer sums."""


@dataclass(frozen=True)
class CitationTables:
    """Citation / inclusion rates, ratios, flags and answer-level shares.

    Attributes:
        keys: the cell key columns before ``query_lang`` (``model``, ``mode``; or ``group``).
        rates: per query language (see the module docs).
        overall: every query language pooled.
        answers: answer-level shares per cell (query language, and ``*``).
        settings: resamples, seed, interval, adjustment, clusters, definitions.
        signature: what produced the numbers.
    """

    keys: tuple[str, ...]
    rates: pd.DataFrame = field(repr=False)
    overall: pd.DataFrame = field(repr=False)
    answers: pd.DataFrame = field(repr=False)
    settings: dict[str, Any] = field(repr=False)
    signature: Signature

    def __repr__(self) -> str:
        return (
            f"CitationTables(keys={self.keys}, rows={len(self.rates)}, flagged={len(self.flagged())}, "
            f"signature={str(self.signature)!r})"
        )

    def flagged(self, *, overall: bool = False) -> pd.DataFrame:
        """Rows with a flag (``over`` / ``under``)."""
        t = self.overall if overall else self.rates
        return t[t["flag"].notna()] if len(t) else t

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: settings, signature and the three tables as lists of records."""

        def recs(df: pd.DataFrame) -> list[dict[str, Any]]:
            return cast(
                "list[dict[str, Any]]",
                jsonable(df.astype(object).where(df.notna(), None).to_dict(orient="records")),
            )

        return cast(
            "dict[str, Any]",
            jsonable(
                {
                    "settings": self.settings,
                    "signature": str(self.signature),
                    "rates": recs(self.rates),
                    "overall": recs(self.overall),
                    "answers": recs(self.answers),
                }
            ),
        )

    def to_markdown(self, *, overall_only: bool = False) -> str:
        """Markdown tables (×100 for rates), one per cell group; pooled and per-query side by side."""
        parts = []
        frames = [self.overall] if overall_only else [self.overall, self.rates]
        for df in frames:
            if len(df) == 0:
                continue
            for key, g in df.groupby(list(self.keys), sort=False) if self.keys else [((), df)]:
                key = key if isinstance(key, tuple) else (key,)
                title = " · ".join(f"{k} {md_text(v)}" for k, v in zip(self.keys, key)) or "all"
                parts.append(
                    f"**{title}**"
                    + (" — all query languages pooled" if df is self.overall else "")
                    + "\n"
                )
                parts.append(markdown_rates(g))
        return "\n".join(parts)


def _rows(
    cells: Mapping[tuple[Any, ...], CellStats],
    key_names: Sequence[str],
    *,
    n_resamples: int,
    seed: int,
    conf: float,
    answer_rates: Sequence[tuple[str, str, str]],
    method: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rate_rows, answer_rows = [], []
    for key, cell in cells.items():
        name = "|".join(f"{k}={v}" for k, v in zip(key_names, key))
        base = dict(zip(key_names, key))
        boot = bootstrap_sums(cell, n_resamples=n_resamples, seed=seed, name=name, method=method)
        for r in summarize_cell(cell, conf=conf, boot=boot):
            r["measure"] = f"CitationRatio(rate={r['rate']},lang={r['doc_lang']})"
            rate_rows.append({**base, **r})
        wanted = [
            a for a in answer_rates if all(p in cell.scalars for p in a[1].split("-") + [a[2]])
        ]
        answer_rows.append({**base, **summarize_scalars(cell, wanted, conf=conf, boot=boot)})
    return rate_rows, answer_rows


def build_tables(
    cells: Mapping[tuple[Any, ...], CellStats],
    key_names: Sequence[str],
    *,
    n_resamples: int,
    seed: int,
    conf: float = 0.95,
    adjust: str = "holm",
    min_clusters: int = MIN_CELL_CLUSTERS,
    cluster: str = "record",
    answer_rates: Sequence[tuple[str, str, str]] = ANSWER_RATES,
    extra_settings: Mapping[str, Any] | None = None,
    signature_name: str = "citation_rates",
    signature_fields: Mapping[str, Any] | None = None,
    method: str = "auto",
) -> CitationTables:
    """Summaries, intervals and flags for every cell.

    Args:
        cells: ``{(key…, query_lang): CellStats}``; keys with ``query_lang == "*"`` go to ``overall``.
        key_names: names of the key parts, ending with ``query_lang``.
        n_resamples: bootstrap resamples.
        seed: bootstrap seed.
        conf: confidence level.
        adjust: ``holm`` or ``none`` (:func:`~.flags.assign_flags`).
        min_clusters: cells with fewer clusters are ``too few to judge`` (:mod:`~.flags`).
        cluster: what a cluster is (``territory``, ``record``, a field name), for settings and signature.
        answer_rates: answer-level shares to report.
        method: ``auto``, ``multinomial`` (exact) or ``normal`` (:mod:`~.ratio`).
        extra_settings: more entries for the tables' ``settings`` (the caller's own options).
        signature_name: the name the tables' signature starts with.
        signature_fields: more fields of that signature (before ``cluster`` and ``boot``).
    """
    rate_rows, answer_rows = _rows(
        cells,
        key_names,
        n_resamples=n_resamples,
        seed=seed,
        conf=conf,
        answer_rates=answer_rates,
        method=method,
    )
    cols = [
        *key_names,
        "doc_lang",
        "rate",
        "measure",
        "n_clusters",
        "n_clusters_lang",
        "n_answers",
        "n_citing",
        "n_docs",
        "n_docs_citing",
        "n_citations",
        "inclusion_rate",
        "inclusion_rate_low",
        "inclusion_rate_high",
        "inclusion_rate_citing",
        "inclusion_rate_citing_low",
        "inclusion_rate_citing_high",
        "citation_rate",
        "citation_rate_low",
        "citation_rate_high",
        "ratio",
        "ratio_low",
        "ratio_high",
        "ratio_boot_low",
        "ratio_boot_high",
        "ratio_zero_width",
        "ratio_undefined",
        "p_value",
        "bootstrap",
    ]
    df = pd.DataFrame(rate_rows, columns=cols)
    ql = key_names[-1]
    per_lang = df[df[ql] != ALL_LANGS].reset_index(drop=True)
    overall = df[df[ql] == ALL_LANGS].reset_index(drop=True)
    # one Holm family: every tested cell of both tables and both rate variants, so that the chance of any false
    # flag anywhere in the output stays below 1 − conf (docs/citations.md)
    both = assign_flags(
        pd.concat([per_lang, overall], ignore_index=True),
        family=(),
        conf=conf,
        adjust=adjust,
        min_clusters=min_clusters,
    )
    per_lang = both.iloc[: len(per_lang)].reset_index(drop=True)
    overall = both.iloc[len(per_lang) :].reset_index(drop=True)
    answers = pd.DataFrame(answer_rows)
    settings = {
        "rates": {
            "pooled": "Σ citations to the language / Σ citations (and Σ documents of it / Σ documents)",
            "per_query": "mean over answers of the answer's share (citations: answers with ≥ 1 citation; "
            "inclusion: answers with ≥ 1 document)",
            "inclusion_rate": "share of the documents placed in prompts (all answers with documents)",
            "inclusion_rate_citing": "the same over answers with ≥ 1 citation: the ratio's denominator",
            "ratio": "citation_rate / inclusion_rate_citing",
        },
        "interval": f"rates and shares: continuity-corrected cluster Wilson ({rate_method(conf, clustered=True)}; "
        f"bordir.stats.rate_interval), clusters = {cluster}; the ratio's "
        f"interval: cluster score interval ({int(round(conf * 100))}%, Fieller-type; upper bound inf "
        "when the data do not bound it), its percentile interval in ratio_boot_low/high",
        "ratio_test": {
            "method": RATIO_TEST,
            "statistic": "T = Σ s_k / sqrt(Σ s_k²) over clusters, s_k the cluster's score of ratio = 1 "
            "(docs/citations.md), two-sided normal p",
        },
        "bootstrap": {
            "method": method,
            "methods_used": sorted(set(df["bootstrap"].dropna())) if len(df) else [],
            "exact_limit": EXACT_LIMIT,
            "note": "multinomial: clusters resampled exactly; normal: Gaussian draw of the cell sums with "
            "the bootstrap's mean and covariance (cells with many distinct profiles)",
        },
        "n_resamples": n_resamples,
        "seed": seed,
        "conf": conf,
        "cluster": cluster,
        "flags": {
            "rule": "over / under: the ratio's score interval lies above / below 1"
            + (
                " and the Holm-adjusted p-value (cluster score test of ratio = 1; Holm across every "
                "tested cell of the output: both tables, both rate variants) is below "
                f"{1 - conf:.2g}"
                if adjust == "holm"
                else ""
            )
            + f"; cells with fewer than {min_clusters} clusters: '{TOO_FEW}' (shown, not tested); "
            "a zero-width interval (every cluster alike) never flags",
            "adjust": adjust,
            "min_clusters": min_clusters,
            "too_few_to_judge": {
                "rates": int((per_lang["verdict"] == TOO_FEW).sum()) if len(per_lang) else 0,
                "overall": int((overall["verdict"] == TOO_FEW).sum()) if len(overall) else 0,
            },
            "tested_cells": {
                "rates": int(per_lang["tested"].sum()) if len(per_lang) else 0,
                "overall": int(overall["tested"].sum()) if len(overall) else 0,
            },
        },
        **dict(extra_settings or {}),
    }
    sig = Signature.build(
        signature_name,
        **dict(signature_fields or {}),
        cluster=cluster,
        boot=n_resamples,
        seed=seed,
        ci=rate_method(conf, clustered=True),
        adjust=adjust,
        min_clusters=min_clusters,
        version=__version__,
    )
    return CitationTables(tuple(key_names[:-1]), per_lang, overall, answers, settings, sig)
