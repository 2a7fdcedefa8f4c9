"""The report's plots (``plots/``), drawn with matplotlib's Agg renderer from ``metrics.json``.

* ``scores``: KB CS, Cst CS and ΔCS (unnormalised, Control − Non-control: the
  headline) per mode, one panel per metric, grouped bars per model with the 95 %
  small-sample interval over territories as error bars (``terr95``; ``†`` above
  a bar whose interval rests on fewer than ``MIN_CLUSTERS`` territories);
* ``languages``: per model, heatmaps of Control CS and Non-control CS per
  query language × mode (mean over runs; grey where undefined);
* ``outcomes``: per model, the share of each outcome per mode (stacked bars)
  and the answered rate per query language × mode.

Each is saved as PNG and SVG. matplotlib (the ``stats`` extra) is imported
only here, through the object-oriented API (no pyplot, no global backend).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._extras import require
from .._plotstyle import PLOT_RC
from ..metrics.registry import metric_label
from ..metrics.responses import FREE_ANSWER_OUTCOMES, OUTCOMES
from ..metrics.summary.names import HEADLINE

__all__ = ["PLOTS", "write_plots"]

PLOTS: Mapping[str, str] = {
    "scores": "KB CS, Cst CS and ΔCS (Control − Non-control) per retrieval mode and model",
    "languages": "Control CS and Non-control CS per query language and mode",
    "outcomes": "Outcome rates per mode, and answered rate per query language and mode",
}
"""Plot file stems and what each shows."""

PNG_DPI = 110
"""The resolution of every PNG plot."""

_OUTCOME_COLOURS = {
    "answered": "#4c9a5b",
    "refused": "#e08a2c",
    "multiple": "#8a63b8",
    "echo": "#5b8fc7",
    "unparsed": "#9e9e9e",
    "failed": "#d0443e",
    # free answers (the open format)
    "several": "#b07cc6",
    "controller_only": "#5b8fd0",
    "refusal": "#f0b35a",
    "other_country": "#7a5230",
    "empty": "#d9d9d9",
}


def load_matplotlib() -> Any:
    """matplotlib with its ``figure`` module (the ``stats`` extra), or the error naming the install."""
    mpl = require("matplotlib", "stats", purpose="report plots")
    require("matplotlib.figure", "stats", purpose="report plots")
    return mpl


def clipped_titles(fig: Any, *, draw: bool = False) -> list[str]:
    """The axes titles and the suptitle that do not fit inside ``fig`` once it is drawn.

    ``draw=True`` renders the pixels too (Agg, at ``fig.dpi``), so that a caller can save them without
    drawing the figure again.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas: Any = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    if draw:
        canvas.draw()  # the layout engine places the titles; the pixels are the PNG's
    else:
        fig.draw_without_rendering()  # the layout engine places the titles (no pixels drawn)
    renderer = canvas.get_renderer()
    box = fig.bbox
    out = []
    texts = [t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title)]
    if getattr(fig, "_suptitle", None) is not None:
        texts.append(fig._suptitle)
    for text in texts:
        if not text.get_text() or not text.get_visible():
            continue
        ext = text.get_window_extent(renderer)
        if ext.x0 < box.x0 - 1 or ext.x1 > box.x1 + 1 or ext.y1 > box.y1 + 1:
            out.append(text.get_text())
    return out


def fit_titles(fig: Any, *, draw: bool = False) -> None:
    """Wrap (then shrink, then wrap narrower) every title that would be clipped at the figure's edge.

    With ``draw=True`` the figure's canvas holds the rendered pixels of the fitted layout on return.
    """
    import textwrap

    for _ in range(12):
        clipped = set(clipped_titles(fig, draw=draw))
        if not clipped:
            return
        texts = [t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title)]
        if getattr(fig, "_suptitle", None) is not None:
            texts.append(fig._suptitle)
        for text in texts:
            if text.get_text() not in clipped:
                continue
            s = text.get_text()
            longest = max(len(line) for line in s.split("\n"))
            if "\n" not in s and len(s) > 20:
                text.set_text(textwrap.fill(s, width=max(20, len(s) // 2 + 4)))
            elif float(text.get_fontsize()) > 6.5:
                text.set_fontsize(max(float(text.get_fontsize()) * 0.85, 6.0))
            elif longest > 12:
                flat = " ".join(s.split())
                text.set_text(textwrap.fill(flat, width=max(12, int(longest / 1.4))))


def save_figure(fig: Any, out: Path, name: str) -> tuple[Path, Path]:
    """Write ``fig`` as ``out/name.png`` (at ``PNG_DPI``) and ``out/name.svg`` without timestamps; returns both paths.

    A title that would be clipped at the figure's edge is wrapped (:func:`fit_titles`). The figure is
    drawn once for both files' layout and the PNG's pixels, and once more as SVG.
    """
    from matplotlib.image import imsave

    png, svg = out / f"{name}.png", out / f"{name}.svg"
    fig.set_dpi(PNG_DPI)
    fit_titles(fig, draw=True)
    # The canvas holds the fitted figure's pixels: the PNG is written from them, and the layout is kept
    # as placed for the SVG (each draw would otherwise run the layout engine again).
    no_software: dict[str, Any] = {"Software": None}  # no version string in the file
    imsave(png, fig.canvas.buffer_rgba(), format="png", dpi=PNG_DPI, metadata=no_software)
    fig.set_layout_engine("none")
    fig.savefig(svg, metadata={"Date": None, "Creator": None})
    return png, svg


def _scores(metrics: Mapping[str, Any], mpl: Any) -> Any:
    models, modes = metrics["models"], metrics["modes"]
    fig = mpl.figure.Figure(figsize=(4.2 * len(HEADLINE), 3.9), layout="constrained")
    axes = fig.subplots(1, len(HEADLINE))
    x = np.arange(len(modes))
    width = 0.8 / max(len(models), 1)
    colours = mpl.colormaps["tab10"].colors
    for ax, metric in zip(np.atleast_1d(axes), HEADLINE):
        for i, model in enumerate(models):
            cells = metrics["results"].get(model, {})
            means, lo, hi, few = [], [], [], []
            for mode in modes:
                e = cells.get(mode, {}).get("metrics", {}).get(metric, {})
                m, b = e.get("mean"), e.get("terr95") or e.get("boot95")
                ok_b = b is not None and b[0] is not None and b[1] is not None
                means.append(np.nan if m is None else m)
                lo.append(0.0 if m is None or not ok_b else max(m - b[0], 0.0))
                hi.append(0.0 if m is None or not ok_b else max(b[1] - m, 0.0))
                few.append(bool((e.get("territory_interval") or {}).get("warning")))
            pos = x - 0.4 + width * (i + 0.5)
            ok = ~np.isnan(means)
            ax.bar(
                pos[ok],
                np.asarray(means)[ok],
                width,
                yerr=[np.asarray(lo)[ok], np.asarray(hi)[ok]],
                capsize=2,
                color=colours[i % len(colours)],
                label=model,
                error_kw={"linewidth": 0.8},
            )
            for p_, m_, h_, f_ in zip(pos, means, hi, few):
                if f_ and not np.isnan(m_):
                    ax.text(p_, m_ + h_, "†", ha="center", va="bottom", fontsize=7, color="#8a4b00")
            for p in pos[~ok]:
                ax.text(
                    p,
                    0.02,
                    "n/a",
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    color="#666666",
                )
        ax.axhline(0, color="#444444", linewidth=0.6)
        ax.set_title(metric_label(metric))
        ax.set_xticks(x, modes, rotation=30, ha="right")
        ax.set_ylabel(
            "Control − Non-control (fraction)" if metric == "delta_cs" else "score (fraction)"
        )
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
    t = metrics["settings"].get("terr95") or {}
    fig.suptitle(
        f"Mean over runs; error bars: 95% small-sample interval over territories (cluster Wilson; MOVER "
        f"for ΔCS); †: fewer than {t.get('min_clusters', 30)} territories contribute, coverage below 95%",
        fontsize=9,
    )
    fig.legend(
        *np.atleast_1d(axes)[0].get_legend_handles_labels(),
        loc="outside lower center",
        ncols=min(len(models), 4),
        frameon=False,
    )
    return fig


def heatmap(
    ax: Any, values: np.ndarray, rows: Sequence[str], cols: Sequence[str], cmap: Any, title: str
) -> Any:
    """Draw ``values`` (shares in [0, 1], NaN blank) on ``ax`` with row and column labels; returns the image."""
    im = ax.imshow(
        np.ma.masked_invalid(values),
        cmap=cmap,
        vmin=0.0,
        vmax=1.0,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_xticks(np.arange(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(np.arange(len(rows)), rows)
    ax.set_title(title, fontsize=9)
    ax.spines[:].set_visible(False)
    if values.size <= 400:
        for (r, c), v in np.ndenumerate(values):
            if not np.isnan(v):
                red, green, blue, _ = cmap(float(v))
                dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
                ax.text(
                    c,
                    r,
                    f"{100 * v:.0f}",
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="white" if dark else "black",
                )
    return im


def _cmap(mpl: Any, name: str) -> Any:
    return mpl.colormaps[name].with_extremes(bad="#e6e6e6")


def _per_lang(
    metrics: Mapping[str, Any], key: str
) -> tuple[list[str], list[str], list[Mapping[str, Any]], list[str]]:
    """The models, the modes, the per-language records under ``key`` and their query languages (``-``: none)."""
    recs = metrics[key]
    langs = sorted({r["query_lang"] for r in recs}) or ["-"]
    return metrics["models"], metrics["modes"], recs, langs


def _lang_mode_grid(
    recs: Sequence[Mapping[str, Any]],
    model: str,
    langs: Sequence[str],
    modes: Sequence[str],
    key: str,
    stat: str | None = None,
) -> np.ndarray:
    """``r[key]`` (or ``r[key][stat]``) of ``model``'s records as a (query language × mode) grid; NaN where none."""
    li, mi = {l: i for i, l in enumerate(langs)}, {m: i for i, m in enumerate(modes)}
    grid = np.full((len(langs), len(modes)), np.nan)
    for r in recs:
        if r["model"] == model and r["mode"] in mi:
            v = r[key] if stat is None else r[key][stat]
            if v is not None:
                grid[li[r["query_lang"]], mi[r["mode"]]] = v
    return grid


def _languages(metrics: Mapping[str, Any], mpl: Any) -> Any:
    models, modes, recs, langs = _per_lang(metrics, "languages")
    cmap = _cmap(mpl, "viridis")
    size = (2 * (1.4 + 0.62 * len(modes)) + 1.0, 0.8 + len(models) * (0.9 + 0.24 * len(langs)))
    fig = mpl.figure.Figure(figsize=size, layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(models), 2, squeeze=False))
    im = None
    for row, model in enumerate(models):
        for col, key in enumerate(("control_cs", "non_control_cs")):
            grid = _lang_mode_grid(recs, model, langs, modes, key, "mean")
            im = heatmap(axes[row, col], grid, langs, modes, cmap, f"{model}: {metric_label(key)}")
            axes[row, col].set_ylabel("query language" if col == 0 else "")
    if im is not None:
        fig.colorbar(im, ax=axes, shrink=0.6, label="share naming the controller (×100 in cells)")
    return fig


def _outcomes(metrics: Mapping[str, Any], mpl: Any) -> Any:
    models, modes, per_lang, langs = _per_lang(metrics, "outcomes")
    cmap = _cmap(mpl, "RdYlGn")
    fig = mpl.figure.Figure(
        figsize=(11.5, 0.8 + len(models) * (1.0 + 0.24 * max(len(langs), 8))), layout="constrained"
    )
    axes = np.atleast_2d(fig.subplots(len(models), 2, squeeze=False, width_ratios=[1, 1.2]))
    im = None
    for row, model in enumerate(models):
        ax = axes[row, 0]
        overall = {r["mode"]: r for r in metrics["outcomes_overall"] if r["model"] == model}
        x = np.arange(len(modes))
        bottom = np.zeros(len(modes))
        shown = [
            *OUTCOMES,
            *(o for o in FREE_ANSWER_OUTCOMES if any(f"rate_{o}" in r for r in overall.values())),
        ]
        for o in shown:
            h = np.array([overall[m].get(f"rate_{o}", 0.0) if m in overall else 0.0 for m in modes])
            ax.bar(x, h, 0.7, bottom=bottom, color=_OUTCOME_COLOURS[o], label=o)
            bottom += h
        ax.set_xticks(x, modes, rotation=30, ha="right")
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of responses")
        ax.set_title(f"{model}: outcomes per mode", fontsize=9)
        grid = _lang_mode_grid(per_lang, model, langs, modes, "rate_answered")
        im = heatmap(
            axes[row, 1], grid, langs, modes, cmap, f"{model}: answered rate per query language"
        )
        axes[row, 1].set_ylabel("query language")
    if im is not None:
        fig.colorbar(im, ax=axes[:, 1], shrink=0.6, label="answered (×100 in cells)")
    fig.legend(
        *axes[0, 0].get_legend_handles_labels(),
        loc="outside lower center",
        ncols=len(OUTCOMES),
        frameon=False,
    )
    return fig


def write_plots(
    metrics: Mapping[str, Any], out_dir: str | os.PathLike[str]
) -> dict[str, tuple[Path, Path]]:
    """Draw every plot of :data:`PLOTS` into ``out_dir``; returns ``{name: (png, svg)}``."""
    mpl = load_matplotlib()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    makers = {"scores": _scores, "languages": _languages, "outcomes": _outcomes}
    paths = {}
    with mpl.rc_context(PLOT_RC):
        for name in PLOTS:
            paths[name] = save_figure(makers[name](metrics, mpl), out, name)
    return paths
