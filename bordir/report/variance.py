"""The report's variance section: for every metric and mode, run-to-run vs territory share of the variance.

:func:`variance_section` computes :func:`bordir.metrics.intervals.variance.variance_table`
on the run's per-territory tables (given option order), writes
``tables/variance.{md,tex,csv}`` and returns the JSON (key ``variance``) and the
HTML section, which says per metric which component dominates and so whether more
runs or more territories would narrow the interval.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from .._io.json_write import jsonable
from ..citations.tables import ci_text, pct
from ..experiment.rundir import RunDir
from .orders import Section
from .tables import Table

__all__ = ["variance_section"]


def _label(metric: str) -> str:
    """The metric's report label, from the one metric registry (the name if it is not registered)."""
    from ..metrics.registry import METRIC_REGISTRY, metric_label

    return metric_label(metric) if metric in METRIC_REGISTRY else metric


def _num(x: Any) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def variance_section(run: RunDir, out: Path, *, n_resamples: int, seed: int | None) -> Section:
    """Compute and write the variance section (see the module docs)."""
    from ..metrics import territory_tables
    from ..metrics.intervals.variance import variance_table

    tables = territory_tables(run.responses, run.dataset, policy=run.config.policy, validate=False)
    df = variance_table(tables, n_resamples=min(n_resamples, 500), seed=seed)
    rows = []
    for r in df.itertuples():
        rows.append(
            (
                str(r.model),
                str(r.mode),
                _label(r.metric),
                str(r.n_territories),
                str(r.n_runs),
                f"{pct(_num(r.share_territory))} {ci_text(_num(r.share_territory_low), _num(r.share_territory_high))}",
                f"{pct(_num(r.share_run))} {ci_text(_num(r.share_run_low), _num(r.share_run_high))}",
                str(r.dominant or "n/a") + ("" if getattr(r, "clear", False) else " (unclear)")
                if r.dominant
                else "n/a",
                str(r.advice or ""),
            )
        )
    table = Table(
        "variance",
        "Share (×100) of the variance of each metric's mean that comes from territory sampling "
        "(which disputes were asked) and from run-to-run sampling (seed and temperature), from a crossed "
        "territory × run random-effects ANOVA of linearised per-territory values; 95% bootstrap over "
        "territories and runs. No judge is involved in CS metrics. See docs/methodology.md.",
        (
            "Model",
            "Mode",
            "Metric",
            "Territories",
            "Runs",
            "Territory share",
            "Run share",
            "Dominant",
            "Would help",
        ),
        tuple(rows),
        df.copy(),
        left=3,
    )
    files = list(table.write(out / "tables"))
    clear = df[df["clear"].fillna(False).astype(bool)] if "clear" in df.columns else df.iloc[0:0]
    dom = Counter(d for d in clear["dominant"] if isinstance(d, str))
    n_cells = int(df["dominant"].notna().sum())
    e = html.escape
    if dom:
        top, n = dom.most_common(1)[0]
        verdict = (
            f"<p><strong>{e(top)} sampling clearly dominates in {n} of {n_cells} metric × mode cells</strong>"
            f" (its share's 95% interval lies above one half): "
            f"{e({'territory': 'more territories', 'run': 'more runs'}.get(top, top))} would narrow those "
            f"intervals most. {n_cells - sum(dom.values())} cells have no clearly dominant component.</p>"
        )
    elif n_cells:
        verdict = (
            f"<p><strong>No component clearly dominates</strong> in any of the {n_cells} metric × mode cells "
            "(every dominant share's 95% interval reaches below one half): this design is too small to say "
            "whether more runs or more territories would help more.</p>"
        )
    else:
        verdict = "<p>Not enough territories to split the variance.</p>"
    shown = table.to_html()
    if not dom:  # nothing can be said cell by cell: the sentence, and the table folded
        shown = (
            f'<details class="unclear"><summary>The {len(rows)} rows, none clear (also '
            f"tables/variance.csv)</summary>{shown}</details>"
        )
    html_text = "\n".join(['<h2 id="variance">Where the variance comes from</h2>', verdict, shown])
    return Section({"variance": jsonable(df.to_dict(orient="records"))}, html_text, tuple(files))
