"""Hallucination rate against error rate, per language and model (matplotlib, the ``stats`` extra).

The trade-off is the finding: a model that never refuses has a low error rate
on the relevant subset and a high hallucination rate on the non-relevant one.
One panel per prompt setting (``vanilla``, ``native``); one point per (model,
language) with its 95 % cluster-bootstrap intervals on both axes, labelled with
the language code and coloured by model; the pooled ``all`` point is larger.
Saved as PNG and SVG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..._extras import require
from ..._plotstyle import PLOT_RC

__all__ = ["write_tradeoff_plot", "PLOT_NAME", "CAPTION"]

PLOT_NAME = "hallucination_vs_error"
CAPTION = (
    "Hallucination rate (non-relevant subset) against error rate (relevant subset) per language "
    "and model, {policy} policy, 95 % cluster-bootstrap intervals; the large point pools the "
    "languages (also plots/{name}.svg)."
)


def _point(
    groups: Sequence[Mapping[str, Any]], policy: str, model: str, lang: str, setting: str
) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
    err = hal = None
    for g in groups:
        if (g["model"], g["lang"], g["setting"]) != (model, lang, setting):
            continue
        ms = g["metrics"].get(policy, {})
        if g.get("subset") == "relevant" and ms.get("error_rate"):
            err = ms["error_rate"]
        if g.get("subset") == "non_relevant" and ms.get("hallucination_rate"):
            hal = ms["hallucination_rate"]
    if err is None or hal is None or err["value"] is None or hal["value"] is None:
        return None
    return err, hal


def _bar(m: Mapping[str, Any]) -> tuple[float, float]:
    lo, hi = m["ci95"]
    v = m["value"]
    return (v - lo if lo is not None else 0.0), (hi - v if hi is not None else 0.0)


def write_tradeoff_plot(
    groups: Sequence[Mapping[str, Any]], policy: str, out_dir: str | Path
) -> tuple[Path, Path, str] | None:
    """Draw the plot from ``scores.json`` groups; ``(png, svg, caption)``, or None without a point."""
    import warnings

    keys = sorted({(g["model"], g["lang"], g["setting"]) for g in groups})
    points = {k: p for k in keys if (p := _point(groups, policy, *k)) is not None}
    if not points:
        return None
    mpl = require("matplotlib", "stats", purpose="testbed plots")
    require("matplotlib.figure", "stats", purpose="testbed plots")
    settings = sorted({k[2] for k in points}, key=lambda s: (s != "vanilla", s))
    models = sorted({k[0] for k in points})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with mpl.rc_context(PLOT_RC):
        ncol = len(settings)
        fig = mpl.figure.Figure(figsize=(4.2 * ncol, 4.0), layout="constrained")
        axes = fig.subplots(1, ncol, squeeze=False)[0]
        colors = mpl.colormaps["tab10"]
        for ax, setting in zip(axes, settings):
            for mi, model in enumerate(models):
                for (m, lang, s), (err, hal) in points.items():
                    if m != model or s != setting:
                        continue
                    pooled = lang == "all"
                    ax.errorbar(
                        [err["value"]],
                        [hal["value"]],
                        xerr=[[_bar(err)[0]], [_bar(err)[1]]],
                        yerr=[[_bar(hal)[0]], [_bar(hal)[1]]],
                        fmt="o",
                        ms=7 if pooled else 3.5,
                        capsize=1.5,
                        elinewidth=0.6,
                        color=colors(mi % 10),
                        alpha=0.9 if pooled else 0.7,
                        label=model if pooled or not any(x[1] == "all" for x in points) else None,
                    )
                    if not pooled:
                        ax.annotate(
                            lang,
                            (err["value"], hal["value"]),
                            xytext=(3, 2),
                            textcoords="offset points",
                            fontsize=6,
                        )
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.plot([0, 1], [1, 0], ls=":", lw=0.6, color="grey")
            ax.set_title(setting)
            ax.set_xlabel(f"error rate, relevant subset ({policy})")
            ax.set_ylabel(f"hallucination rate, non-relevant subset ({policy})")
        handles, labels = axes[0].get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        if uniq:
            axes[0].legend(uniq.values(), uniq.keys(), fontsize=7, loc="upper right")
        png, svg = out / f"{PLOT_NAME}.png", out / f"{PLOT_NAME}.svg"
        with warnings.catch_warnings():  # a model or language name in a script DejaVu lacks
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            fig.savefig(png, dpi=110, metadata={"Software": None})
            fig.savefig(svg, metadata={"Date": None, "Creator": None})
    return png, svg, CAPTION.format(policy=policy, name=PLOT_NAME)
