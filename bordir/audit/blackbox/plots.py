"""Plots of a black-box audit: source-country shares per query language (stacked, with intervals) and claimant-source shares.

* ``source_countries`` — one panel per model, one bar per query language: the shares of its
  cited sources by country, stacked (the :data:`TOP` countries most cited over the panel, then
  ``other``, then ``unattributed``); each country's share is drawn with its interval as an
  error bar at the middle of its segment (none for a cell too few to judge);
* ``claimant_sources`` — one panel per model: per query language, the share of its sources
  from the claimant whose language is the query's, from another claimant and from no claimant,
  each with its interval (territorial questions only).

PNG and SVG, matplotlib (the ``stats`` extra), the style of every bordir plot.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from ..._extras import require
from ..._plotstyle import PLOT_RC
from .run import BlackboxResult

__all__ = ["write_plots", "TOP", "PLOTS"]

TOP = 8
PLOTS: tuple[str, ...] = ("source_countries", "claimant_sources")
_COLOURS = [
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
]


def _save(fig: Any, out: Path, name: str) -> Path:
    png, svg = out / f"{name}.png", out / f"{name}.svg"
    fig.savefig(png, dpi=110, metadata={"Software": None})
    fig.savefig(svg, metadata={"Date": None, "Creator": None})
    return png


def _countries(sh: pd.DataFrame, mpl: Any) -> Any:
    d = sh[(sh.dimension == "country") & (sh.query_lang != "*")]
    models = sorted(d.model.unique())
    fig = mpl.figure.Figure(figsize=(8, 2.6 * len(models) + 0.6))
    axes = fig.subplots(len(models), 1, squeeze=False)
    for ax, m in zip(axes[:, 0], models):
        dm = d[d.model == m]
        tops = [
            c
            for c in dm[dm.category != "unattributed"]
            .groupby("category")["count"]
            .sum()
            .sort_values(ascending=False)
            .index[:TOP]
        ]
        langs = sorted(dm.query_lang.unique())
        bottoms = [0.0] * len(langs)
        for k, cat in enumerate([*tops, "other", "unattributed"]):
            vals: list[float] = []
            errs: list[list[float]] = [[], []]
            for lang in langs:
                cell = dm[dm.query_lang == lang]
                if cat == "other":
                    v = float(cell[~cell.category.isin([*tops, "unattributed"])].share.sum())
                    lo = hi = math.nan
                else:
                    row = cell[cell.category == cat]
                    v = float(row.share.iloc[0]) if len(row) else 0.0
                    lo = float(row.low.iloc[0]) if len(row) else math.nan
                    hi = float(row.high.iloc[0]) if len(row) else math.nan
                vals.append(v)
                errs[0].append(0.0 if math.isnan(lo) else v - lo)
                errs[1].append(0.0 if math.isnan(hi) else hi - v)
            colour = (
                "#bab0ac"
                if cat == "other"
                else ("#dddddd" if cat == "unattributed" else _COLOURS[k % len(_COLOURS)])
            )
            ax.bar(
                langs,
                vals,
                bottom=bottoms,
                color=colour,
                label=cat,
                edgecolor="white",
                linewidth=0.5,
            )
            mids = [b + v / 2 for b, v in zip(bottoms, vals)]
            shown = [
                i for i, v in enumerate(vals) if v > 0
            ]  # a category a bar does not have: no bar to mark
            if cat != "other" and shown:
                ax.errorbar(
                    [langs[i] for i in shown],
                    [mids[i] for i in shown],
                    yerr=[[errs[0][i] for i in shown], [errs[1][i] for i in shown]],
                    fmt="none",
                    ecolor="#333333",
                    elinewidth=0.7,
                    capsize=2,
                )
            bottoms = [b + v for b, v in zip(bottoms, vals)]
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of sources")
        ax.set_title(
            f"{m}: source countries per query language (error bars: 95% cluster Wilson intervals)",
            fontsize=8.5,
        )
        ax.legend(
            fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False
        )
    fig.tight_layout()
    return fig


def _claimants(sh: pd.DataFrame, mpl: Any) -> Any | None:
    d = sh[(sh.dimension == "claimant") & (sh.query_lang != "*")]
    if not len(d):
        return None
    models = sorted(d.model.unique())
    fig = mpl.figure.Figure(figsize=(8, 2.4 * len(models) + 0.4))
    axes = fig.subplots(len(models), 1, squeeze=False)
    cats = ["own_claimant", "other_claimant", "non_claimant", "unattributed"]
    for ax, m in zip(axes[:, 0], models):
        dm = d[d.model == m]
        langs = sorted(dm.query_lang.unique())
        width = 0.8 / len(cats)
        for k, cat in enumerate(cats):
            xs, ys, lo_e, hi_e = [], [], [], []
            for i, lang in enumerate(langs):
                row = dm[(dm.query_lang == lang) & (dm.category == cat)]
                if not len(row):
                    continue
                v, lo, hi = (
                    float(row.share.iloc[0]),
                    float(row.low.iloc[0]),
                    float(row.high.iloc[0]),
                )
                xs.append(i + (k - 1.5) * width)
                ys.append(v)
                lo_e.append(0.0 if math.isnan(lo) else v - lo)
                hi_e.append(0.0 if math.isnan(hi) else hi - v)
            ax.bar(xs, ys, width=width, color=_COLOURS[k], label=cat.replace("_", " "))
            ax.errorbar(
                xs, ys, yerr=[lo_e, hi_e], fmt="none", ecolor="#333333", elinewidth=0.7, capsize=2
            )
        ax.set_xticks(range(len(langs)), langs)
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of sources")
        ax.set_title(
            f"{m}: sources from the claimants per query language (95% cluster Wilson intervals)",
            fontsize=8.5,
        )
        ax.legend(fontsize=7, ncol=4, frameon=False)
    fig.tight_layout()
    return fig


def write_plots(result: BlackboxResult, out_dir: Path) -> dict[str, Path]:
    """Draw :data:`PLOTS` into ``out_dir`` (PNG and SVG); returns ``{name: png}`` (a plot without data is skipped)."""
    mpl = require("matplotlib", "stats", purpose="audit plots")
    require("matplotlib.figure", "stats", purpose="audit plots")
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    with mpl.rc_context(PLOT_RC):
        if len(result.shares):
            fig = _countries(result.shares, mpl)
            paths["source_countries"] = _save(fig, out_dir, "source_countries")
        fig2 = _claimants(result.shares, mpl)
        if fig2 is not None:
            paths["claimant_sources"] = _save(fig2, out_dir, "claimant_sources")
    return paths
