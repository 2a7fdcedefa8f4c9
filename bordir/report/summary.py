"""What a report leads with: the findings that hold, what cannot be judged and why, the dropped pairs.

:func:`report_summary` reads a finished ``metrics.json`` dict and returns its
``summary`` (stored in ``metrics.json``); :func:`summary_html` renders it at the
top of ``report.html`` and :func:`summary_lines` in the terminal (``bordir demo``,
``bordir report``), at most 100 characters a line. Every sentence is built from
the numbers, with its interval:

* **findings** — a position bias whose excess over re-sampling (answers changing between two runs in
  one order, paired by query; or the deterministic rate, from option scores or at temperature 0)
  is significant, and then the letter the model favours; every comparison with ``no_ir`` whose Holm-adjusted
  p is below 0.05, every per-language difference judged significant;
* **cannot be judged** — comparisons whose intervals all include 0, intervals
  resting on fewer territories than they need, values that are undefined, languages
  with too few territories;
* **dropped** — the (query, mode) pairs the grid left out, by cause.

Example:
    >>> s = report_summary({"results": {}, "comparisons": [], "notes": [], "warnings": [],
    ...                     "run": {"dropped": {"pairs": 10, "n": 0, "causes": []}}})
    >>> dropped = s["dropped"]
    >>> s["findings"], dropped["n"]
    ([], 0)
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from .._io.texttable import clip, text_table

__all__ = ["report_summary", "summary_html", "summary_lines", "headline_rows", "headline_caption"]

ALPHA = 0.05
"""Family-wise level of the comparisons a finding cites (Holm-adjusted p below it)."""


def _pts(x: float | None, signed: bool = False) -> str:
    if x is None or x != x:
        return "n/a"
    return f"{100 * x:+.1f}" if signed else f"{100 * x:.1f}"


def _ci(lo: float | None, hi: float | None, signed: bool = False) -> str:
    if lo is None or lo != lo:
        return "[-]"
    top = "∞" if hi is None else _pts(hi, signed)
    return f"[{_pts(lo, signed)}, {top}]"


def _label(metric: str) -> str:
    from ..metrics.registry import metric_label

    return metric_label(metric)


def _order_findings(metrics: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(findings, cannot judge) on option order.

    A position bias is a finding only when its excess over re-sampling (or its deterministic
    rate) is significant, and so is a favoured letter.
    """
    from .sentences import excess_sentence

    block = metrics.get("option_order") or {}
    found, quiet = [], []
    biased = set()
    for r in block.get("position_bias_excess") or []:
        text = excess_sentence(r)
        if r.get("significant"):
            found.append(text)
            biased.add(str(r.get("model")))
        else:
            quiet.append(text)
    letters: dict[str, list[Mapping[str, Any]]] = {}
    for r in block.get("pick_rates_letter") or []:
        letters.setdefault(str(r["model"]), []).append(r)
    for model, rows in letters.items():
        top = max(rows, key=lambda r: r.get("rate") or 0)
        if (
            model in biased  # a favoured letter without a significant order effect is content
            and top.get("rate")
            and top.get("uniform")
            and top["rate"] > 1.5 * top["uniform"]
        ):
            found.append(
                f"{model} picks option {top['letter']} in {_pts(top['rate'])} % of "
                f"{top['n_answers']} answers (by chance: {_pts(top['uniform'])} %)."
            )
    return found, quiet


def _comparison_findings(metrics: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    found, quiet = [], []
    cmp = [c for c in metrics.get("comparisons") or [] if c.get("p_holm") is not None]
    sig = [c for c in cmp if c["p_holm"] < ALPHA and c.get("diff") is not None]
    for c in sorted(sig, key=lambda c: c["p_holm"]):
        ci = c.get("ci95") or [None, None]
        found.append(
            f"{c['model']}: {c['mode']} moves {_label(c['metric'])} by {_pts(c['diff'], True)} points "
            f"from no_ir {_ci(ci[0], ci[1], True)}, Holm p = {c['p_holm']:.3g} "
            f"({c['n_territories']} territories)."
        )
    if cmp and len(sig) < len(cmp):
        metrics_named = ", ".join(dict.fromkeys(_label(c["metric"]) for c in cmp))
        rest = [c for c in cmp if c not in sig]
        quiet.append(
            f"{len(cmp) - len(sig)} of {len(cmp)} comparisons of a mode with no_ir ({metrics_named}) "
            f"show no difference at the 5 % level after Holm "
            f"({_comparison_power(metrics, rest, len(cmp))})."
        )
    few = [c for c in metrics.get("comparisons") or [] if c.get("status") == "too few to judge"]
    if few:
        named = ", ".join(dict.fromkeys(_label(c["metric"]) for c in few))
        quiet.append(
            f"{len(few)} comparisons of a mode with no_ir ({named}) rest on fewer than 6 paired "
            "territories: too few to judge (p < 0.05 is out of reach)."
        )
    return found, quiet


def _comparison_power(
    metrics: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], family: int
) -> str:
    """The power the ``rows``' paired tests had against a 10- and a 20-point difference.

    The sign-flip test's power (:func:`bordir.metrics.perlang.power.power_at`) with each row's
    territories, at Holm's first level ``α / family`` (the most any of them had), with σ_d of the
    report's power table for the metric (all query languages pooled; the planning value when the
    table has none) and its runs' grid.
    """
    import pandas as pd

    from ..metrics.perlang.power import PLANNING_SD, power_at
    from .sentences import power_phrase

    table = {
        str(r.get("metric")): r
        for r in metrics.get("power") or []
        if r.get("query_lang") == "*" and r.get("sd") is not None
    }
    sds = [float(r["sd"]) for r in table.values()]
    fallback = max(sds) if sds else PLANNING_SD
    out = []
    for c in rows:
        t = table.get(str(c["metric"])) or {}
        sd = float(t.get("sd") or fallback)
        n = int(c.get("n_territories") or 0)
        out.append(
            {
                f"power_{e}": power_at(
                    n,
                    e / 100,
                    sigma_d=sd,
                    alpha=ALPHA / max(family, 1),
                    runs=int(t.get("runs") or 1),
                )
                if n
                else None
                for e in (10, 20)
            }
        )
    return power_phrase(pd.DataFrame(out)) if out else "power unknown"


def _perlang_findings(metrics: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    block = metrics.get("perlang") or {}
    rows = [r for r in block.get("comparisons") or [] if r.get("by") == "query_lang"]
    if not rows:
        return [], []
    found = []
    for r in sorted((r for r in rows if r.get("significant")), key=lambda r: r.get("p_holm") or 1)[
        :5
    ]:
        label = (block.get("settings") or {}).get("labels", {}).get(r["metric"], r["metric"])
        found.append(
            f"{r['model']}, {r['group']} queries: {label} moves {_pts(r['diff'], True)} points from "
            f"{r['a']} to {r['b']} {_ci(r.get('ci_low'), r.get('ci_high'), True)}, Holm p = "
            f"{r['p_holm']:.3g} ({r['n_territories']} territories)."
        )
    langs = sorted({str(r["group"]) for r in rows})
    thin = sorted({str(r["group"]) for r in rows if r.get("status") != "judged"})
    need = (block.get("settings") or {}).get("min_territories", 30)
    quiet = []
    if thin:
        import pandas as pd

        from .sentences import power_phrase

        every = len(thin) == len(langs)
        which = f"all {len(langs)}" if every else f"{len(thin)} of {len(langs)}"
        named = "" if every else f" ({', '.join(thin[:12])}{', …' if len(thin) > 12 else ''})"
        thin_rows = pd.DataFrame([r for r in rows if r.get("status") != "judged"])
        quiet.append(
            f"Per-language differences: {which} query languages have fewer than {need} paired "
            f"territories{named}: too few to judge ({power_phrase(thin_rows, tested=False)})."
        )
    judged = [r for r in rows if r.get("status") == "judged" and not r.get("significant")]
    if judged:
        import pandas as pd

        from .sentences import power_phrase

        quiet.append(
            f"Per-language differences: {len(judged)} judged comparison(s) show no difference at the "
            f"5 % level after Holm ({power_phrase(pd.DataFrame(judged))})."
        )
    return found, quiet


def _interval_caveats(metrics: Mapping[str, Any]) -> list[str]:
    out = []
    n = [
        (e.get("territory_interval") or {}).get("n_clusters")
        for modes in (metrics.get("results") or {}).values()
        for cell in modes.values()
        for e in cell["metrics"].values()
        if (e.get("territory_interval") or {}).get("warning")
    ]
    counts = [x for x in n if isinstance(x, int)]
    if counts:
        need = ((metrics.get("settings") or {}).get("terr95") or {}).get("min_clusters", 30)
        lo, hi = min(counts), max(counts)
        span = f"{lo}" if lo == hi else f"{lo}–{hi}"
        out.append(
            f"Intervals over territories rest on {span} territories (fewer than {need}): they cover "
            "less than 95 % (marked * or †; docs/metrics.md gives the measured coverage)."
        )
    runs = {
        cell.get("n_runs")
        for modes in (metrics.get("results") or {}).values()
        for cell in modes.values()
    }
    if 1 in runs:
        out.append("One run: no interval over runs (t95 needs at least 2).")
    for note in metrics.get("notes") or []:
        if "not compared" in note:
            continue
        # a sentence starts with a capital, a model name ("mock/first / qlang: …") as it is spelt
        first = note.split(" ", 1)[0]
        out.append(note if not note or "/" in first else note[0].upper() + note[1:])
    for w in metrics.get("warnings") or []:
        if "is unstable" in w or "failed" in w or "incomplete" in w:
            out.append(w)
    return out


def report_summary(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """``{"findings": [...], "cannot_judge": [...], "dropped": {...}}`` of a ``metrics.json`` dict."""
    order, order_quiet = _order_findings(metrics)
    cmp_found, cmp_quiet = _comparison_findings(metrics)
    pl_found, pl_quiet = _perlang_findings(metrics)
    dropped = dict(
        (metrics.get("run") or {}).get("dropped") or {"pairs": None, "n": 0, "causes": []}
    )
    return {
        "findings": [*order, *cmp_found, *pl_found],
        "cannot_judge": [*order_quiet, *cmp_quiet, *pl_quiet, *_interval_caveats(metrics)],
        "dropped": dropped,
    }


def headline_rows(metrics: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The headline metrics per (model, mode): mean and interval over territories, ×100 (``*``: few)."""
    from ..metrics.registry import headline_metrics

    shown = headline_metrics()
    results = metrics.get("results") or {}
    many = len(results) > 1
    headers = [*(["model"] if many else []), "mode", *(_label(m) for m in shown)]
    rows = []
    for model, modes in results.items():
        for mode, cell in modes.items():
            row = [*([model] if many else []), mode]
            for m in shown:
                e = cell["metrics"].get(m) or {}
                terr = e.get("terr95") or [None, None]
                few = "*" if (e.get("territory_interval") or {}).get("warning") else ""
                mean = _pts(e.get("mean"))
                row.append(mean if mean == "n/a" else f"{mean} {_ci(terr[0], terr[1])}{few}")
            rows.append(row)
    return headers, rows


def headline_caption(metrics: Mapping[str, Any], *, short: bool = False) -> str:
    """What the headline table's numbers are (its ΔCS is the unnormalised one, the headline)."""
    need = ((metrics.get("settings") or {}).get("terr95") or {}).get("min_clusters", 30)
    if short:  # one terminal line
        return (
            f"×100, mean over runs [95% CI over territories]; *: < {need} territories; "
            "ΔCS = Control − Non-control CS"
        )
    return (
        f"×100, mean over runs [95 % interval over territories]; *: fewer than {need} territories, "
        "the interval covers less than 95 %; ΔCS = Control CS − Non-control CS (unnormalised; the "
        "normalised ΔCS of the papers is in the ΔCS table, for reference)."
    )


def _dropped_lines(dropped: Mapping[str, Any], width: int, *, compact: bool = True) -> list[str]:
    from ..modes import describe_skips

    causes = dropped.get("causes") or []
    skips = [
        ("", mode, c["cause"])
        for c in causes
        for mode, n in (c.get("modes") or {}).items()
        for _ in range(int(n))
    ]
    pairs = dropped.get("pairs")
    n = pairs if isinstance(pairs, int) else len(skips)
    return describe_skips(skips, n, width=width, compact=compact)


def _cell(text: str) -> str:
    head, sep, ci = text.partition(" [")
    if not sep:
        return html.escape(text)
    return f'{html.escape(head)} <span class="ci">{html.escape("[" + ci)}</span>'


def summary_html(summary: Mapping[str, Any], metrics: Mapping[str, Any]) -> str:
    """The ``<section id="summary">`` at the top of ``report.html``."""
    e = html.escape

    def ul(items: Sequence[str], cls: str) -> str:
        if not items:
            return '<p class="none">None.</p>'
        return f'<ul class="{cls}">' + "".join(f"<li>{e(i)}</li>" for i in items) + "</ul>"

    headers, rows = headline_rows(metrics)
    table = (
        '<table class="data" id="table-summary"><thead><tr>'
        + "".join(
            f'<th class="{"t" if i < len(headers) - 3 else "n"}">{e(h)}</th>'
            for i, h in enumerate(headers)
        )
        + "</tr></thead><tbody>"
        + "".join(
            "<tr>"
            + "".join(
                f'<td class="{"t" if i < len(r) - 3 else "n"}">{_cell(v)}</td>'
                for i, v in enumerate(r)
            )
            + "</tr>"
            for r in rows
        )
        + "</tbody></table>"
    )
    drop = _dropped_lines(summary.get("dropped") or {}, width=200, compact=False)
    return (
        '<section id="summary" class="summary">'
        '<h2 id="summary-findings">Summary</h2>'
        "<h3>Findings that hold</h3>"
        + ul(summary.get("findings") or [], "findings")
        + f"<h3>Headline, ×100, with the 95 % interval over territories</h3>{table}"
        + f'<p class="caption">{e(headline_caption(metrics))}</p>'
        + "<h3>What cannot be judged, and why</h3>"
        + ul(summary.get("cannot_judge") or [], "cannot")
        + "<h3>Dropped (query, mode) pairs</h3>"
        + f"<p>{e(drop[0])}</p>"
        + (ul([d.strip() for d in drop[1:]], "dropped") if len(drop) > 1 else "")
        + "</section>"
    )


def _wrap(text: str, width: int, indent: str = "  ") -> list[str]:
    import textwrap

    return textwrap.wrap(text, width=width, initial_indent="- ", subsequent_indent=indent) or [""]


def summary_lines(
    metrics: Mapping[str, Any], *, width: int = 100, max_findings: int = 4, max_caveats: int = 3
) -> list[str]:
    """The summary for a terminal: findings, the headline table, caveats and drops, ≤ ``width`` wide."""
    summary = metrics.get("summary") or report_summary(metrics)
    out: list[str] = []
    findings = list(summary.get("findings") or [])
    more = len(findings) - max_findings
    out.append(
        "findings" + (f" ({len(findings)}; the report's Summary lists all):" if more > 0 else ":")
    )
    for f in findings[:max_findings]:
        out += _wrap(f, width)
    if not findings:
        out.append("- none that hold at the 5 % level (see below)")
    headers, rows = headline_rows(metrics)
    out += [clip(line, width) for line in text_table(headers, rows)]
    out.append(headline_caption(metrics, short=True))
    caveats = list(summary.get("cannot_judge") or [])
    if caveats:
        more = len(caveats) - max_caveats
        out.append(
            "cannot be judged"
            + (f" ({len(caveats)}; the report's Summary lists all):" if more > 0 else ":")
        )
        for c in caveats[:max_caveats]:
            out += _wrap(c, width)
    out += _dropped_lines(summary.get("dropped") or {}, width)
    return [line[:width] for line in out]
