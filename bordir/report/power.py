"""The report's power section: per query language and metric, territories and the minimum detectable difference.

:func:`power_section` computes :func:`bordir.metrics.perlang.power_tables.observed_power` on the
run's responses (given option order; σ_d observed on each IR mode vs ``no_ir``),
writes ``tables/power.{md,tex,csv}`` and ``plots/power.{png,svg}`` (MDE per
language; thin languages hatched, undetectable ones marked), and returns the JSON
for ``metrics.json`` (key ``power``) and the HTML section.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._io.json_write import jsonable
from ..citations.tables import pct
from ..experiment.rundir import RunDir
from ..metrics.registry import METRIC_REGISTRY, metric_label
from .orders import Section, figure_html
from .tables import Table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["power_section", "power_table", "POWER_PLOT"]

POWER_PLOT = "power"


def _label(metric: str) -> str:
    """The report label of ``metric`` (the metric registry; the name itself for another)."""
    return metric_label(metric) if metric in METRIC_REGISTRY else metric


def power_table(df: pd.DataFrame, *, caption_source: str) -> Table:
    """The power table (display ×100) of a :data:`~bordir.metrics.perlang.power.POWER_COLUMNS` frame."""
    rows = []
    for r in df.itertuples():
        mde = (
            "undetectable"
            if r.mde is None or (isinstance(r.mde, float) and np.isnan(r.mde))
            else pct(r.mde)
        )
        rows.append(
            (
                str(r.query_lang),
                _label(r.metric),
                str(r.n_territories),
                f"{r.sd:.2f}",
                r.sd_source,
                mde,
                "thin" if r.thin else "",
            )
        )
    caption = (
        "Minimum detectable difference (×100) between two modes, paired by territory: the smallest effect "
        "the sign-flip test detects with power 0.8 at α = 0.05 (two-sided), exact under the binary paired "
        f"design (normal approximation above 400 territories). σ_d: {caption_source}. Thin: fewer than 10 "
        "territories; undetectable: no effect up to 100 points reaches that power (with ≤ 5 territories "
        "the test can never reject). * = all query languages pooled. See docs/methodology.md."
    )
    return Table(
        "power",
        caption,
        ("Query lang", "Metric", "Territories", "σ_d", "σ_d from", "MDE", ""),
        tuple(rows),
        df.copy(),
        left=2,
    )


def _plot(df: pd.DataFrame, out: Path) -> tuple[Path, Path]:
    from .._plotstyle import PLOT_RC
    from .plots import load_matplotlib, save_figure

    mpl = load_matplotlib()
    metrics = list(dict.fromkeys(df["metric"]))
    with mpl.rc_context(PLOT_RC):
        fig = mpl.figure.Figure(
            figsize=(max(5.0, 0.32 * df["query_lang"].nunique() + 2), 2.4 * len(metrics)),
            layout="constrained",
        )
        axes = np.atleast_1d(fig.subplots(len(metrics), 1, squeeze=False)[:, 0])
        for ax, metric in zip(axes, metrics):
            g = df[df["metric"] == metric]
            x = np.arange(len(g))
            vals = 100 * np.array(  # ×100, the table's units
                [1.0 if v is None or np.isnan(v) else v for v in g["mde"].astype(float)]
            )
            und = np.array([v is None or np.isnan(v) for v in g["mde"].astype(float)])
            bars = ax.bar(x, vals, color=np.where(und, "#d9d9d9", "#4c72b0"))
            for b, thin in zip(bars, g["thin"]):
                if thin:
                    b.set_hatch("//")
            for xi in x[und]:
                ax.text(xi, 50, "undetectable", rotation=90, ha="center", va="center", fontsize=6)
            ax.set_xticks(x, g["query_lang"], fontsize=7)
            ax.set_ylim(0, 100)
            ax.set_ylabel("MDE (points, ×100)")
            ax.set_title(
                f"{_label(metric)}: minimum detectable difference (hatched: < 10 territories)",
                fontsize=9,
            )
        out.mkdir(parents=True, exist_ok=True)
        return save_figure(fig, out, POWER_PLOT)


def power_section(run: RunDir, out: Path, *, draw: bool = True) -> Section:
    """Compute and write the power section of a run (see the module docs); ``draw=False``: no plot."""
    from ..metrics.perlang.power_tables import observed_power

    df = observed_power(run.responses, run.dataset)
    table = power_table(
        df,
        caption_source="observed SD of the per-territory differences (runs pooled), median over "
        "the IR modes compared with no_ir; the planning value 0.5 where no comparison exists",
    )
    files = list(table.write(out / "tables"))
    parts = ['<h2 id="power">Power per language</h2>']
    n_thin = int(df["thin"].sum())
    n_und = int((~df["detectable"]).sum())
    parts.append(
        f"<p>{n_thin} of {len(df)} cells are thin (&lt; 10 territories); {n_und} cannot detect any "
        "difference between two modes. A mode difference in those cells is not evidence either way.</p>"
    )
    parts.append(table.to_html())
    if len(df) and draw:
        png, svg = _plot(df, out / "plots")
        files += [png, svg]
        parts.append(
            figure_html(
                POWER_PLOT,
                png,
                "Minimum detectable difference per query language and metric, ×100 as in the table",
            )
        )
    return Section(
        {"power": jsonable(df.to_dict(orient="records"))}, "\n".join(parts), tuple(files)
    )
