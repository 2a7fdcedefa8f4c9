"""Citation plots (matplotlib Agg, the ``stats`` extra), one panel per cell group (model · mode, or audit group).

* ``citation_inclusion``: for each query language, the inclusion distribution
  (left bar) and the citation distribution (right bar) over document
  languages, stacked; over- / under-cited languages are named above the bars
  (the BordIRLines figure);
* ``citation_ratio``: the citation ratio per query language × document
  language (log₂ colour scale, ``*`` marks a flag);
* ``citation_spread``: the divergence between citation and inclusion per query
  language, grouped by the query language's resource level.

All use the ``pooled`` rate unless told otherwise; the titles say which.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._extras import require
from .._plotstyle import PLOT_RC
from .tables import RESOURCE_ORDER, divergence_table

__all__ = ["CITATION_PLOTS", "write_citation_plots"]

CITATION_PLOTS: Mapping[str, str] = {
    "citation_inclusion": "Inclusion (left) vs citation (right) distribution over document languages, per query "
    "language (pooled rates; answers with at least one citation)",
    "citation_ratio": "Citation ratio (citation rate / inclusion rate) per query language and document language; "
    "* flagged (interval excludes 1)",
    "citation_spread": "Divergence of citation from inclusion (total variation distance) per query language, by "
    "resource level of the query language",
}
"""Plot file stems and what each shows."""

_RC = {**PLOT_RC, "font.size": 8}  # the citation figures hold more panels


def _mpl() -> Any:
    mpl = require("matplotlib", "stats", purpose="citation plots")
    require("matplotlib.figure", "stats", purpose="citation plots")
    return mpl


def _panels(df: pd.DataFrame, keys: Sequence[str]) -> list[tuple[str, pd.DataFrame]]:
    if not keys:
        return [("all", df)]
    out = []
    for key, g in df.groupby(list(keys), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        out.append((" · ".join(map(str, key)), g))
    return out


def _grid(fig: Any, n: int, ncols: int) -> list[Any]:
    ncols = max(1, min(ncols, n))
    nrows = int(np.ceil(n / ncols))
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return list(axes[:n])


def _colours(mpl: Any, langs: Sequence[str]) -> dict[str, Any]:
    cmap = mpl.colormaps["tab20"]
    order = [
        *range(0, 20, 2),
        *range(1, 20, 2),
    ]  # the ten distinct hues first, then their light variants
    return {l: cmap(order[i % 20]) for i, l in enumerate(langs)}


def _inclusion(df: pd.DataFrame, keys: Sequence[str], mpl: Any, rate: str) -> Any:
    d = df[df["rate"] == rate]
    panels = _panels(d, keys)
    langs = sorted(set(d["doc_lang"]))
    colours = _colours(mpl, langs)
    widest = max((d2["query_lang"].nunique() for _, d2 in panels), default=1)
    ncols = 1 if widest > 6 else 2
    n = max(len(panels), 1)
    fig = mpl.figure.Figure(
        figsize=(max(5.0, 0.9 * widest + 2.0) * ncols, 3.0 * int(np.ceil(n / ncols)) + 0.8),
        layout="constrained",
    )
    for ax, (title, g) in zip(_grid(fig, n, ncols), panels or [("none", d)]):
        qls = sorted(set(g["query_lang"]))
        x = np.arange(len(qls))
        for side, col, off in (
            ("inclusion", "inclusion_rate_citing", -0.2),
            ("citation", "citation_rate", 0.2),
        ):
            bottom = np.zeros(len(qls))
            for l in langs:
                h = np.array(
                    [
                        float(v.iloc[0])
                        if len(v := g[(g["query_lang"] == q) & (g["doc_lang"] == l)][col])
                        and pd.notna(v.iloc[0])
                        else 0.0
                        for q in qls
                    ]
                )
                ax.bar(
                    x + off,
                    h,
                    0.38,
                    bottom=bottom,
                    color=colours[l],
                    edgecolor="white",
                    linewidth=0.4,
                    label=l if side == "citation" else None,
                    hatch="//" if side == "inclusion" else None,
                )
                bottom += h
        for i, q in enumerate(qls):
            f = g[(g["query_lang"] == q) & g["flag"].notna()]
            marks = [f"{r.doc_lang}{'↑' if r.flag == 'over' else '↓'}" for r in f.itertuples()]
            if marks:
                ax.text(
                    i + 0.2,
                    1.02,
                    " ".join(marks),
                    ha="center",
                    va="bottom",
                    fontsize=6.5,
                    color="#b30000",
                )
        ax.set_xticks(x, qls)
        ax.set_ylim(0, 1.12)
        ax.set_ylabel("share")
        ax.set_xlabel("query language (left: inclusion, hatched; right: citation)")
        ax.set_title(title, fontsize=8.5)
    handles = [mpl.patches.Patch(color=colours[l], label=l) for l in langs]
    fig.legend(
        handles=handles, title="document language", loc="outside right center", frameon=False
    )
    fig.suptitle(
        f"Citation vs inclusion per document language ({rate} rates); ↑/↓ over/under-cited",
        fontsize=9,
    )
    return fig


def _ratio(df: pd.DataFrame, keys: Sequence[str], mpl: Any, rate: str) -> Any:
    d = df[df["rate"] == rate]
    panels = _panels(d, keys)
    langs = sorted(set(d["doc_lang"]))
    n = max(len(panels), 1)
    nql = max((g["query_lang"].nunique() for _, g in panels), default=1)
    ncols = 1 if len(langs) > 6 else 2
    fig = mpl.figure.Figure(
        figsize=(
            (1.2 + 0.55 * len(langs)) * ncols + 1.2,
            (0.9 + 0.3 * nql) * int(np.ceil(n / ncols)) + 0.8,
        ),
        layout="constrained",
    )
    cmap = mpl.colormaps["RdBu_r"].with_extremes(bad="#e6e6e6")
    im = None
    axes = _grid(fig, n, ncols)
    for ax, (title, g) in zip(axes, panels or [("none", d)]):
        qls = sorted(set(g["query_lang"]))
        grid = np.full((len(qls), len(langs)), np.nan)
        flags = np.full((len(qls), len(langs)), "", dtype=object)
        qi, li = {q: i for i, q in enumerate(qls)}, {l: j for j, l in enumerate(langs)}
        never = np.zeros((len(qls), len(langs)), dtype=bool)
        for r in g.itertuples():
            if pd.notna(r.ratio) and r.ratio > 0:
                grid[qi[r.query_lang], li[r.doc_lang]] = np.log2(r.ratio)
            elif pd.notna(
                r.ratio
            ):  # included but never cited: the bottom of the scale, not "no data"
                grid[qi[r.query_lang], li[r.doc_lang]] = -2.0
                never[qi[r.query_lang], li[r.doc_lang]] = True
            if isinstance(r.flag, str):
                flags[qi[r.query_lang], li[r.doc_lang]] = "*"
        im = ax.imshow(
            np.ma.masked_invalid(grid),
            cmap=cmap,
            vmin=-2,
            vmax=2,
            aspect="auto",
            interpolation="nearest",
        )
        if grid.size <= 600:
            for (i, j), v in np.ndenumerate(grid):
                if not np.isnan(v):
                    ax.text(
                        j,
                        i,
                        f"{0 if never[i, j] else 2**v:.2f}{flags[i, j]}",
                        ha="center",
                        va="center",
                        fontsize=6,
                        color="white" if abs(v) > 1.3 else "black",
                    )
        ax.set_xticks(np.arange(len(langs)), langs)
        ax.set_yticks(np.arange(len(qls)), qls)
        ax.set_xlabel("document language")
        ax.set_ylabel("query language")
        ax.set_title(title, fontsize=8.5)
        ax.spines[:].set_visible(False)
    if im is not None:
        fig.colorbar(
            im,
            ax=axes,
            shrink=0.7,
            label="log₂ citation ratio (0 = cited as included; ≤ −2 incl. never cited)",
        )
    fig.suptitle(
        f"Citation ratio ({rate} rates); * flagged; grey: ratio undefined (never included)",
        fontsize=9,
    )
    return fig


def _spread(df: pd.DataFrame, keys: Sequence[str], mpl: Any, rate: str) -> Any:
    div = divergence_table(df, keys, rate=rate)
    panels = _panels(div, keys) if len(div) else []
    fig = mpl.figure.Figure(figsize=(6.5, 3.6), layout="constrained")
    ax = fig.subplots()
    levels = [r for r in RESOURCE_ORDER if r in set(div["resource"])] or ["high", "medium", "low"]
    colours = mpl.colormaps["tab10"].colors
    width = 0.7 / max(len(panels), 1)
    for p, (title, g) in enumerate(panels):
        for i, lev in enumerate(levels):
            y = g.loc[g["resource"] == lev, "divergence"].to_numpy()
            qls = g.loc[g["resource"] == lev, "query_lang"].to_list()
            if len(y) == 0:
                continue
            xpos = i - 0.35 + width * (p + 0.5)
            jitter = np.linspace(-width * 0.3, width * 0.3, len(y)) if len(y) > 1 else np.zeros(1)
            ax.scatter(
                xpos + jitter,
                y,
                s=14,
                color=colours[p % 10],
                label=title
                if i == 0 or not ax.get_legend_handles_labels()[1].count(title)
                else None,
                zorder=3,
            )
            ax.hlines(
                np.median(y),
                xpos - width * 0.4,
                xpos + width * 0.4,
                color=colours[p % 10],
                linewidth=1.2,
            )
            if len(y) <= 12:
                for xx, yy, q in zip(xpos + jitter, y, qls):
                    ax.annotate(
                        q, (xx, yy), fontsize=5.5, xytext=(2, 2), textcoords="offset points"
                    )
    ax.set_xticks(np.arange(len(levels)), [f"{lev}-resource" for lev in levels])
    ax.set_ylabel("divergence ½Σ|citation − inclusion|")
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
    ax.set_axisbelow(True)
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    if len(uniq) > 1:
        ax.legend(uniq.values(), uniq.keys(), fontsize=6.5, frameon=False)
    ax.set_title(
        f"Spread of citation vs inclusion by resource level of the query language ({rate} rates; "
        "bar: median)",
        fontsize=8.5,
    )
    return fig


def write_citation_plots(
    rates: pd.DataFrame,
    keys: Sequence[str],
    out_dir: str | os.PathLike[str],
    *,
    rate: str = "pooled",
    names: Sequence[str] | None = None,
) -> dict[str, tuple[Path, Path]]:
    """Draw the plots of :data:`CITATION_PLOTS` (or ``names``) into ``out_dir`` as PNG and SVG.

    Args:
        rates: a per-query-language rates table (``CitationTables.rates``).
        keys: the columns that define panels (``model``, ``mode``; or ``group``).
        out_dir: the folder the PNG and SVG files go to (created if missing).
        rate: ``pooled`` or ``per_query``.
        names: the plots to draw (default: every one of :data:`CITATION_PLOTS`).
    """
    mpl = _mpl()
    require("matplotlib.patches", "stats", purpose="citation plots")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    makers = {
        "citation_inclusion": _inclusion,
        "citation_ratio": _ratio,
        "citation_spread": _spread,
    }
    paths = {}
    with mpl.rc_context(_RC):
        for name in names or CITATION_PLOTS:
            fig = makers[name](rates, keys, mpl, rate)
            png, svg = out / f"{name}.png", out / f"{name}.svg"
            fig.savefig(png, dpi=110, metadata={"Software": None})
            fig.savefig(svg, metadata={"Date": None, "Creator": None})
            paths[name] = (png, svg)
    return paths
