"""The per-language section's plots: forest plots of mode comparisons and language × mode heatmaps.

For each model (index *i* in the run's model order):

* ``perlang_forest_<i>``: one panel per (mode pair, directional measure): one
  row per query language, the paired difference and its 95 % cluster-bootstrap
  interval, sorted by effect; significant after Holm in colour, judged but not
  significant in dark grey, too few territories in light grey (point only,
  count in the label), undefined languages listed without a point;
* ``perlang_heatmap_<i>``: one panel per per-language measure, query language ×
  mode, mean over runs (grey where undefined).

matplotlib (the ``stats`` extra) is imported only here, through the
object-oriented API, as in :mod:`bordir.report.plots`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._plotstyle import PLOT_RC
from ..metrics.perlang.measures import PERLANG_MEASURES, PERLANG_NAMES
from .plots import heatmap, load_matplotlib, save_figure

__all__ = ["PERLANG_PLOTS", "write_perlang_plots"]

PERLANG_PLOTS: Mapping[str, str] = {
    "forest": "{model}: per-language differences between modes (95% paired cluster-bootstrap CI from 30 "
    "territories, the point alone below; grey: too few territories to judge)",
    "heatmap": "{model}: every per-language measure per query language and mode (mean over runs, ×100)",
}
_SIG, _NS, _THIN = "#1f5fa8", "#555555", "#b8b8b8"


def _forest_panel(ax: Any, rows: pd.DataFrame, title: str) -> None:
    judged = rows[rows["status"] == "judged"].sort_values("diff")
    thin = rows[rows["status"] == "too few to judge"].sort_values("diff")
    undef = rows[rows["status"] == "undefined"].sort_values("group")
    order = [*undef.to_dict("records"), *thin.to_dict("records"), *judged.to_dict("records")]
    labels = []
    for r in order:
        n = f"{r['n_territories']}" if r["status"] != "undefined" else "n/a"
        labels.append(
            f"{r['group']} ({n})" + (" *" if r["status"] == "judged" and r["significant"] else "")
        )
    y = np.arange(len(order))
    status = np.array([r["status"] for r in order], dtype=object)
    sig = np.array([bool(r["significant"]) for r in order], dtype=bool)
    diff = np.array([r["diff"] for r in order], dtype=float)
    lo = np.array([r["ci_low"] for r in order], dtype=float)
    hi = np.array([r["ci_high"] for r in order], dtype=float)
    has_ci = ~np.isnan(lo) & ~np.isnan(hi)
    for sel, colour in (((status == "judged") & sig, _SIG), ((status == "judged") & ~sig, _NS)):
        bare = (
            sel & ~has_ci
        )  # judged without an interval (fewer than 30 territories): the point alone
        if bare.any():
            ax.plot(diff[bare], y[bare], "o", color=colour, ms=4, linestyle="none")
        sel = sel & has_ci
        if sel.any():  # one errorbar call per colour: few artists, fast to draw
            ax.errorbar(
                diff[sel],
                y[sel],
                xerr=[diff[sel] - lo[sel], hi[sel] - diff[sel]],
                fmt="o",
                color=colour,
                ms=4,
                capsize=2,
                elinewidth=1,
            )
    thin = status == "too few to judge"
    if thin.any():
        ax.plot(diff[thin], y[thin], "o", mfc="none", color=_THIN, ms=4, linestyle="none")
    ax.axvline(0, color="#444444", linewidth=0.6)
    ax.set_yticks(np.arange(len(order)), labels, fontsize=7)
    for tick, r in zip(ax.get_yticklabels(), order):
        tick.set_color("#222222" if r["status"] == "judged" else "#9a9a9a")
    ax.set_ylim(-0.7, max(len(order), 1) - 0.3)
    ax.set_xlim(-1.05, 1.05)
    ax.set_xticks([-1, -0.5, 0, 0.5, 1], ["−100", "−50", "0", "+50", "+100"], fontsize=7)
    ax.set_title(title, fontsize=8)
    ax.grid(axis="x", color="#e5e5e5", linewidth=0.6)
    ax.set_axisbelow(True)


def _forest(
    cmp: pd.DataFrame,
    model: str,
    pairs: Sequence[tuple[str, str]],
    mpl: Any,
    n_resamples: int,
    seed: int,
    min_territories: int,
    measures: Sequence[str],
) -> Any:
    sub = cmp[(cmp["model"] == model) & (cmp["by"] == "query_lang")]
    n_langs = max(int(sub["group"].nunique()), 1)
    metrics = list(measures)
    width, row = 3.6 * len(metrics) + 0.6, 0.75 + 0.17 * n_langs
    height = 1.0 + max(len(pairs), 1) * row
    shape, spacing = (max(len(pairs), 1), len(metrics)), (0.75 / 3.6, 0.55 / (row - 0.55))
    fig, axes = _fixed_grid(mpl, (width, height), shape, (0.75, 0.15, 0.85, 0.45), spacing)
    for i, (a, b) in enumerate(pairs):
        for j, metric in enumerate(metrics):
            rows = sub[(sub["a"] == a) & (sub["b"] == b) & (sub["metric"] == metric)]
            _forest_panel(axes[i, j], rows, f"{PERLANG_MEASURES[metric].label}: {b} − {a}")
            if i == len(pairs) - 1:
                axes[i, j].set_xlabel("difference, points (×100)", fontsize=7)
    _top_title(
        fig,
        f"{model}: per query language (paired territories in brackets; * significant after Holm)\n"
        f"95% paired cluster bootstrap from 30 territories ({n_resamples} resamples, seed {seed}; not "
        f"adjusted for multiplicity); grey: fewer than {min_territories} territories, not tested",
        8,
    )
    return fig


def _fixed_grid(
    mpl: Any,
    size: tuple[float, float],
    shape: tuple[int, int],
    margins: tuple[float, float, float, float],
    spacing: tuple[float, float],
) -> tuple[Any, np.ndarray]:
    """A figure of ``size`` inches with a ``shape`` grid of axes, its margins fixed in inches.

    ``margins`` are (left, right, top, bottom) in inches; ``spacing`` is matplotlib's (wspace,
    hspace). Fixed margins instead of a layout engine: constrained layout re-measures every tick
    label many times.
    """
    width, height = size
    left, right, top, bottom = margins
    fig = mpl.figure.Figure(figsize=(width, height))
    grid = {
        "left": left / width,
        "right": 1 - right / width,
        "top": 1 - top / height,
        "bottom": bottom / height,
        "wspace": spacing[0],
        "hspace": spacing[1],
    }
    return fig, np.atleast_2d(fig.subplots(*shape, squeeze=False, gridspec_kw=grid))


def _top_title(fig: Any, text: str, fontsize: float) -> None:
    """The figure's title, its top 0.12 inch below the figure's (the margins are fixed: :func:`_fixed_grid`)."""
    fig.suptitle(text, fontsize=fontsize, y=1 - 0.12 / fig.get_figheight(), va="top")


def _heatmap(means: pd.DataFrame, model: str, modes: Sequence[str], mpl: Any) -> Any:
    sub = means[means["model"] == model]
    langs = sorted(set(sub["query_lang"])) or ["-"]
    li, mi = {l: i for i, l in enumerate(langs)}, {m: i for i, m in enumerate(modes)}
    cols = 4
    nrows = math.ceil(len(PERLANG_NAMES) / cols)
    panel_w, panel_h = 0.9 + 0.5 * len(modes), 0.9 + 0.2 * len(langs)
    width, height = cols * panel_w + 1.6, nrows * panel_h + 0.7
    spacing = (0.5 / (panel_w - 0.5), 0.9 / (panel_h - 0.9))
    fig, axes = _fixed_grid(mpl, (width, height), (nrows, cols), (0.75, 1.3, 0.6, 0.75), spacing)
    cmap = mpl.colormaps["viridis"].with_extremes(bad="#e6e6e6")
    im = None
    for k, name in enumerate(PERLANG_NAMES):
        ax = axes[k // cols, k % cols]
        grid = np.full((len(langs), len(modes)), np.nan)
        m = sub[sub["metric"] == name]
        for r in m.itertuples():
            if r.mode in mi and not pd.isna(r.mean):
                grid[li[r.query_lang], mi[r.mode]] = r.mean
        im = heatmap(ax, grid, langs, list(modes), cmap, PERLANG_MEASURES[name].label)
        if k % cols == 0:
            ax.set_ylabel("query language")
    for k in range(len(PERLANG_NAMES), nrows * cols):
        axes[k // cols, k % cols].set_visible(False)
    if im is not None:
        cax = fig.add_axes((1 - 1.0 / width, 0.3, 0.18 / width, 0.4))
        fig.colorbar(im, cax=cax, label="share (×100 in cells)")
    _top_title(fig, f"{model}: per-language measures, mean over runs (grey: undefined)", 9)
    return fig


def write_perlang_plots(
    means: pd.DataFrame,
    cmp: pd.DataFrame,
    models: Sequence[str],
    modes: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    out_dir: str | Path,
    *,
    measures: Sequence[str],
    min_territories: int,
    n_resamples: int,
    seed: int,
) -> dict[str, tuple[Path, Path]]:
    """Draw the forest plot (when there are pairs) and the heatmap of every model; ``{stem: (png, svg)}``.

    ``measures``: the directional measures of the forest plot, one column of panels each.
    """
    mpl = load_matplotlib()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, tuple[Path, Path]] = {}
    with mpl.rc_context(PLOT_RC):
        for i, model in enumerate(models):
            if pairs and len(cmp):
                fig = _forest(cmp, model, pairs, mpl, n_resamples, seed, min_territories, measures)
                paths[f"perlang_forest_{i}"] = save_figure(fig, out, f"perlang_forest_{i}")
            paths[f"perlang_heatmap_{i}"] = save_figure(
                _heatmap(means, model, modes, mpl), out, f"perlang_heatmap_{i}"
            )
    return paths
