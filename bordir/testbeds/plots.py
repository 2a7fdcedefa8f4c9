"""Accuracy against the noise ratio, per model and language (matplotlib, the ``stats`` extra).

One figure per testbed run with more than one noise rate: a panel per
language (and ``all``), a line per model × setting (same-language noise solid,
cross-lingual noise dashed), 95 % cluster-bootstrap error bars. Saved as PNG
and SVG; matplotlib is imported only here, through its object-oriented API.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._extras import require
from .._plotstyle import PLOT_RC
from .testbed import NODOCS, is_xling

__all__ = ["write_noise_plot", "PLOT_NAME"]

PLOT_NAME = "accuracy_vs_noise"


def write_noise_plot(
    groups: Sequence[Mapping[str, Any]], policy: str, out_dir: str | Path
) -> tuple[Path, Path] | None:
    """Draw accuracy vs noise ratio from ``scores.json`` groups; None when there is a single ratio."""
    import warnings

    rows = [
        g for g in groups if "accuracy" in g["metrics"].get(policy, {}) and g["setting"] != NODOCS
    ]
    if len({g["noise_rate"] for g in rows}) < 2:
        return None
    mpl = require("matplotlib", "stats", purpose="testbed plots")
    require("matplotlib.figure", "stats", purpose="testbed plots")
    langs = sorted({g["lang"] for g in rows}, key=lambda x: (x == "all", x))
    ncol = min(4, len(langs))
    nrow = math.ceil(len(langs) / ncol)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with mpl.rc_context(PLOT_RC):
        fig = mpl.figure.Figure(figsize=(3.3 * ncol, 2.8 * nrow), layout="constrained")
        axes = fig.subplots(nrow, ncol, squeeze=False)
        for ax, lang in zip(axes.ravel(), langs):
            sub = [g for g in rows if g["lang"] == lang]
            for model, setting in sorted({(g["model"], g["setting"]) for g in sub}):
                line = sorted(
                    (g for g in sub if g["model"] == model and g["setting"] == setting),
                    key=lambda g: g["noise_rate"],
                )
                xs = [g["noise_rate"] for g in line]
                acc = [g["metrics"][policy]["accuracy"] for g in line]
                ys = [a["value"] if a["value"] is not None else float("nan") for a in acc]
                lo = [y - a["ci95"][0] if a["ci95"][0] is not None else 0 for y, a in zip(ys, acc)]
                hi = [a["ci95"][1] - y if a["ci95"][1] is not None else 0 for y, a in zip(ys, acc)]
                ax.errorbar(
                    xs,
                    ys,
                    yerr=[lo, hi],
                    marker="o",
                    ms=3,
                    capsize=2,
                    ls="--" if is_xling(setting) else "-",
                    label=f"{model} · {setting}",
                )
            ax.set_title(lang)
            ax.set_ylim(-0.02, 1.02)
            ax.set_xlabel("noise ratio")
            ax.set_ylabel(f"accuracy ({policy})")
        for ax in axes.ravel()[len(langs) :]:
            ax.set_visible(False)
        axes.ravel()[0].legend(fontsize=7, loc="lower left")
        png, svg = out / f"{PLOT_NAME}.png", out / f"{PLOT_NAME}.svg"
        with warnings.catch_warnings():  # a model or language name in a script DejaVu lacks
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            fig.savefig(png, dpi=110, metadata={"Software": None})
            fig.savefig(svg, metadata={"Date": None, "Creator": None})
    return png, svg
