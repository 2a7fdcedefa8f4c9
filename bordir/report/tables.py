"""The report's tables (``tables/``), each a :class:`~bordir.report.table.Table` (Markdown, LaTeX, CSV, HTML).

* ``main``: KB CS, Cst CS and ΔCS (unnormalised, the headline) per model and
  mode, each as mean over runs with its t-interval, and the small-sample
  interval over territories (``†`` when fewer than ``MIN_CLUSTERS``
  territories contribute), with the share of undefined runs and resamples;
* ``delta``: Control CS, Non-control CS, ΔCS and the normalised ΔCS
  ("normalized (reference)") with its log-scale interval, undefined shares and
  an ``unstable`` mark;
* ``comparisons``: every IR mode against ``no_ir`` per model: the paired
  difference with its bootstrap CI, the permutation p-value and its Holm
  adjustment;
* ``response_countries``: BorderLines' "#resp. countries (σ)", with and
  without the control answer (:mod:`bordir.metrics.cs.response_countries`).

Displayed values are ×100 (as the papers print them); the CSV holds the
fractions. Every caption names the interval methods and the test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..metrics.intervals.smallsample import ci_pair
from ..metrics.registry import METRIC_REGISTRY, metric_label
from ..metrics.summary.names import BASELINE, HEADLINE
from .table import Table, fmt_ci, fmt_mean_ci, fmt_p, fmt_value, latex_escape, write_tables
from .view_links import cmp_link, cs_link, minuend

__all__ = [
    "Table",
    "build_tables",
    "write_tables",
    "latex_escape",
    "fmt_value",
    "fmt_ci",
    "fmt_p",
    "main_table",
    "delta_table",
    "comparisons_table",
    "response_countries_table",
    "FEW",
]


def _methods(metrics: Mapping[str, Any]) -> tuple[str, str]:
    s = metrics["settings"]
    b = s["boot95"]
    runs = "t-interval over runs (sample σ, ddof = 1)"
    boot = (
        f"percentile cluster bootstrap over territories (territories resampled with replacement, jointly "
        f"across runs; {b['n_resamples']} resamples, seed {b['seed']})"
    )
    return runs, boot


FEW = "†"
"""Marks an interval over fewer territories than ``MIN_CLUSTERS``."""


def _terr(e: Mapping[str, Any]) -> str:
    """The small-sample interval over territories, ``†`` when few territories contribute."""
    ti = e.get("territory_interval") or {}
    return fmt_ci(e.get("terr95")) + (FEW if ti.get("warning") else "")


def _undef(e: Mapping[str, Any]) -> str:
    u = e.get("undefined") or {}
    share = u.get("resamples")
    runs = f"{u.get('runs', 0)}/{u.get('of_runs', '?')} runs"
    return runs if share is None else f"{runs}, {100 * share:.1f}% resamples"


def _min_clusters(metrics: Mapping[str, Any]) -> int:
    return int((metrics["settings"].get("terr95") or {}).get("min_clusters", 30))


def _terr_caption(metrics: Mapping[str, Any]) -> str:
    t = metrics["settings"].get("terr95") or {}
    return (
        f"terr95: 95% small-sample interval over territories ({t.get('method', 'cluster Wilson / MOVER')}). "
        f"{FEW}: fewer than {_min_clusters(metrics)} territories contribute, so intervals over territories "
        f"cover less than 95% ({t.get('coverage', '')})."
    )


def main_table(metrics: Mapping[str, Any]) -> Table:
    """KB / Cst / ΔCS (unnormalised, the headline) per (model, mode) with their intervals."""
    runs_ci, boot_ci = _methods(metrics)
    headers = ["Model", "Mode", "Runs", "Terr."]
    for m in HEADLINE:
        headers += [f"{metric_label(m)} [t95]", f"{metric_label(m)} terr95"]
    headers.append("ΔCS undef.")
    rows, data, links = [], [], []
    for model, modes in metrics["results"].items():
        for mode, cell in modes.items():
            row = [model, mode, str(cell["n_runs"]), str(cell["n_territories"])]
            link: list[str | None] = [None] * 4
            rec: dict[str, Any] = {
                "model": model,
                "mode": mode,
                "n_runs": cell["n_runs"],
                "n_territories": cell["n_territories"],
                "n_responses": cell["n_responses"],
            }
            for m in HEADLINE:
                e = cell["metrics"][m]
                row += [fmt_mean_ci(e["mean"], e["ci95"]), _terr(e)]
                link += [cs_link(model, mode, m, e["mean"]), None]
                ci, boot = e["ci95"] or [None, None], e["boot95"] or [None, None]
                terr = e.get("terr95") or [None, None]
                ti = e.get("territory_interval") or {}
                rec.update(
                    {
                        f"{m}_mean": e["mean"],
                        f"{m}_t_low": ci[0],
                        f"{m}_t_high": ci[1],
                        f"{m}_terr_low": terr[0],
                        f"{m}_terr_high": terr[1],
                        f"{m}_n_clusters": ti.get("n_clusters"),
                        f"{m}_few_clusters": bool(ti.get("warning")),
                        f"{m}_boot_low": boot[0],
                        f"{m}_boot_high": boot[1],
                    }
                )
            d = cell["metrics"]["delta_cs"]
            row.append(_undef(d))
            rec.update(
                {
                    "delta_cs_undefined_runs": (d.get("undefined") or {}).get("runs"),
                    "delta_cs_undefined_resamples": (d.get("undefined") or {}).get("resamples"),
                }
            )
            rec["signature"] = cell["signature"]
            rows.append(tuple(row))
            links.append((*link, None))
            data.append(rec)
    caption = (
        f"KB CS, Cst CS and ΔCS = Control CS − Non-control CS (unnormalised, the headline; the normalised "
        f"form is in the delta table) per model and retrieval mode, ×100 (policy "
        f"{metrics['settings']['policy']}). [t95]: mean over runs and 95% {runs_ci}. "
        f"{_terr_caption(metrics)} ΔCS undef.: runs, and share of the resamples of the {boot_ci}, where "
        "ΔCS is undefined (its intervals leave them out). Runs, Terr.: runs and territories scored. n/a: "
        "undefined (KB CS for swap_docs, whose English control queries are skipped)."
    )
    return Table(
        "main", caption, tuple(headers), tuple(rows), pd.DataFrame(data), links=tuple(links)
    )


def delta_table(metrics: Mapping[str, Any]) -> Table:
    """Control, Non-control, ΔCS and the normalised ΔCS (reference) with undefined shares and instability."""
    runs_ci, boot_ci = _methods(metrics)
    ref = metric_label("delta_cs_norm")
    headers = (
        "Model",
        "Mode",
        "Control CS terr95",
        "Non-control CS terr95",
        "ΔCS [t95]",
        "ΔCS terr95",
        "ΔCS undef.",
        f"{ref} [t95]",
        f"{ref} terr95",
        f"{ref} undef.",
        "unstable",
    )
    rows, data, links = [], [], []
    for model, modes in metrics["results"].items():
        for mode, cell in modes.items():
            ms = cell["metrics"]
            c, n, d, r = ms["control_cs"], ms["non_control_cs"], ms["delta_cs"], ms["delta_cs_norm"]
            links.append(
                (
                    None,
                    None,
                    cs_link(model, mode, "control_cs", c["mean"]),
                    cs_link(model, mode, "non_control_cs", n["mean"]),
                    cs_link(model, mode, "delta_cs", d["mean"]),
                    None,
                    None,
                    cs_link(model, mode, "delta_cs_norm", r["mean"]),
                )
            )
            rows.append(
                (
                    model,
                    mode,
                    f"{fmt_value(c['mean'])} {_terr(c)}",
                    f"{fmt_value(n['mean'])} {_terr(n)}",
                    fmt_mean_ci(d["mean"], d["ci95"]),
                    _terr(d),
                    _undef(d),
                    fmt_mean_ci(r["mean"], r["ci95"]),
                    f"{fmt_value(r.get('pooled'))} {_terr(r)}",  # the pooled ratio: terr95's estimate
                    _undef(r),
                    "yes" if r.get("unstable") else "",
                )
            )
            ru = r.get("undefined") or {}
            terr = r.get("terr95") or [None, None]
            data.append(
                {
                    "model": model,
                    "mode": mode,
                    "control_cs": c["mean"],
                    "non_control_cs": n["mean"],
                    "delta_cs": d["mean"],
                    "delta_cs_norm": r["mean"],
                    "delta_cs_norm_pooled": r.get("pooled"),
                    "delta_cs_norm_terr_low": terr[0],
                    "delta_cs_norm_terr_high": terr[1],
                    "delta_cs_norm_undefined_runs": ru.get("runs"),
                    "delta_cs_norm_undefined_resamples": ru.get("resamples"),
                    "unstable": bool(r.get("unstable")),
                    "signature": cell["signature"],
                }
            )
    caption = (
        f"Control CS, Non-control CS and ΔCS per model and mode, ×100, with the normalised ΔCS = "
        f"(Control − Non-control) / Non-control, {ref}: kept for comparison with BorderLines and "
        "BordIRLines; it ranges over [−100, ∞) and is undefined when Non-control CS is 0. [t95]: "
        f"{runs_ci}, over the runs where it is defined, beside the mean of the per-run values. "
        f"{_terr_caption(metrics)} For {ref}, terr95 is the MOVER interval of log(Control / "
        "Non-control), back-transformed (∞: not bounded above), beside its own estimate: the ratio of "
        "the counts pooled over runs (which can differ from the mean of the per-run ratios). undef.: "
        f"runs, and share of the resamples of the {boot_ci}, where it is undefined or infinite. "
        f"unstable: Non-control CS's terr95 comes below "
        f"{100 * float((metrics['settings'].get('terr95') or {}).get('unstable_non_control', 0.1)):.0f}."
    )
    return Table("delta", caption, headers, tuple(rows), pd.DataFrame(data), links=tuple(links))


def comparisons_table(metrics: Mapping[str, Any]) -> Table:
    """Every IR mode against ``no_ir``: paired difference, CI, p, Holm-adjusted p (the names of ``bordir compare``)."""
    from ..metrics.intervals.paired_rule import DEFAULT_MIN_TERRITORIES, MIN_INTERVAL_TERRITORIES

    s = metrics["settings"]["comparisons"]
    cmp = metrics["comparisons"]
    headers = (
        "Model",
        "Metric",
        "A",
        "B",
        "A value",
        "B value",
        "Δ (B − A) [95% CI]",
        "p",
        "p (Holm)",
        "Terr.",
        "Status",
    )
    rows = tuple(
        (
            c["model"],
            metric_label(c["metric"]) if c["metric"] in METRIC_REGISTRY else c["metric"],
            c["a"],
            c["b"],
            fmt_value(c["value_a"]),
            fmt_value(c["value_b"]),
            f"{fmt_value(c['diff'])} {fmt_ci(ci_pair(c['ci_low'], c['ci_high']))}",
            fmt_p(c["p_value"]),
            fmt_p(c["p_holm"]),
            str(c["n_territories"]),
            c["status"],
        )
        for c in cmp
    )
    cols = [
        "model",
        "metric",
        "a",
        "b",
        "value_a",
        "value_b",
        "diff",
        "ci_low",
        "ci_high",
        "ci_refused",
        "p_value",
        "p_holm",
        "significant",
        "status",
        "n_territories",
        "signature",
    ]
    data = pd.DataFrame([{k: c[k] for k in cols} for c in cmp], columns=cols)
    caption = (
        f"Each retrieval mode (B) against {BASELINE} (A), per model, on the territories both share (runs "
        f"pooled per territory), ×100. Δ: the difference B − A (effect size, in CS points) with its 95% "
        f"paired cluster-bootstrap CI ({metrics['settings']['boot95']['n_resamples']} resamples, seed "
        f"{s['seed']}), given from {MIN_INTERVAL_TERRITORIES} paired territories (it under-covers below). "
        f"p: two-sided paired permutation test (the two modes swapped within random territories, "
        f"{s['n_permutations']} permutations, p = (c + 1) / (n + 1)), exact at any size; fewer than "
        f"{DEFAULT_MIN_TERRITORIES} paired territories cannot reach p < 0.05 and are too few to judge. "
        f"p (Holm): Holm step-down correction across the judged comparisons in this table."
    )
    links = tuple(
        (None,) * 6
        + (
            cmp_link(
                c["model"],
                c["metric"],
                *minuend(c["a"], c["b"], c["value_a"], c["value_b"], c["diff"]),
                c["diff"],
            ),
        )
        for c in cmp
    )
    return Table("comparisons", caption, headers, rows, data, left=4, links=links)


def response_countries_table(metrics: Mapping[str, Any]) -> Table:
    """BorderLines' "#resp. countries (σ)": distinct answers per territory, without and with the control answer."""
    headers = (
        "Model",
        "Mode",
        "Resp. countries (σ)",
        "Resp. countries + en (σ)",
        "[t95]",
        "+ en [t95]",
    )
    rows, data = [], []

    def ms(mean: float | None, sd: float | None) -> str:
        return "n/a" if mean is None else f"{mean:.3f} ({'n/a' if sd is None else f'{sd:.3f}'})"

    def ci(c: Sequence[float] | None) -> str:
        return "n/a" if not c else f"[{c[0]:.3f}, {c[1]:.3f}]"

    for model, modes in metrics["results"].items():
        for mode, cell in modes.items():
            rc = cell.get("response_countries")
            if rc is None:
                continue
            rows.append(
                (
                    model,
                    mode,
                    ms(rc["mean"], rc["sd"]),
                    ms(rc["mean_en"], rc["sd_en"]),
                    ci(rc["ci95"]),
                    ci(rc["ci95_en"]),
                )
            )
            data.append(
                {
                    "model": model,
                    "mode": mode,
                    **{k: rc[k] for k in ("mean", "sd", "mean_en", "sd_en", "n_runs", "signature")},
                }
            )
    caption = (
        "Response countries per model and mode (BorderLines Table 2): the number of distinct countries a "
        "territory's claimant-language answers name, mean over territories (σ, ddof = 1, the mean of the "
        "runs' σ); + en: with the control answer. 1 = the same answer in every language. [t95]: t-interval "
        "of the per-run means over runs (ddof = 1)."
    )
    return Table("response_countries", caption, headers, tuple(rows), pd.DataFrame(data))


def build_tables(metrics: Mapping[str, Any]) -> list[Table]:
    """The report's tables, in display order."""
    return [
        main_table(metrics),
        delta_table(metrics),
        comparisons_table(metrics),
        response_countries_table(metrics),
    ]
