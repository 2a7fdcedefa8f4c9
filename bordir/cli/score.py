"""``bordir score``: concurrence scores from responses."""

from __future__ import annotations

from typing import Any

import click

from . import _options as opt
from ._output import echo_json, echo_table


def _ci_variants() -> tuple[str, ...]:
    from ..metrics.intervals.runs import CI_VARIANTS

    return CI_VARIANTS


def _policies() -> tuple[str, ...]:
    from ..policies import PARSE_POLICIES

    return PARSE_POLICIES.names()


def _labels() -> dict[str, str]:
    """Every CS metric of the metric registry (a plugin's too) with its paper label, in reporting order."""
    from ..metrics.registry import cs_metric_names, metric_label

    return {m: metric_label(m, "paper_label") for m in cs_metric_names()}


@click.group("score")
def score_group() -> None:
    """Score responses (BorderLines / BordIRLines concurrence scores)."""


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.3f}"


def _rc(mean: float | None, sd: float | None) -> str:
    return "-" if mean is None else f"{mean:.3f} ({'-' if sd is None else f'{sd:.3f}'})"


def _count(run: dict[str, Any], metric: str) -> str:
    c = run["counts"].get(metric)
    if c is None:
        return ""
    if metric in ("kb_cs", "control_cs"):
        return f"{int(c['numerator'])}/{c['denominator']}"
    unit = "pairs" if metric.startswith("cst") else "answers"
    return f"{c['denominator']} territories, {c['items']} {unit}"


@score_group.command("borderlines-table")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@opt.registry(
    "--policy",
    _policies,
    "reference",
    "reference: exactly calculate_CS.py; strict: None answers are missing (skipped, counted).",
)
@opt.registry(
    "--ci",
    _ci_variants,
    "t95",
    "Interval over runs: t95 (sample sd, ddof=1) or paper (population sd, as BordIRLines).",
)
@opt.resamples(
    0,
    "Also a cluster bootstrap over territories with this many resamples (0: off).",
    dest="n_resamples",
    minimum=0,
    name="--boot",
)
@opt.seed()
@opt.switch(
    "--clip/--no-clip", True, "Clip intervals over runs to each metric's range (as the reports do)."
)
@opt.json("Print JSON (values as fractions).")
def borderlines_table(
    files: tuple[str, ...],
    policy: str,
    ci: str,
    n_resamples: int,
    seed: int | None,
    clip: bool,
    as_json: bool,
) -> None:
    """Score BorderLines response_table.csv FILES (one per run), as calculate_CS.py does."""
    import warnings

    from ..metrics.legacy.response_table import LegacyTableWarning, score_legacy_tables

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LegacyTableWarning)  # printed below, one line each
        result = score_legacy_tables(
            files,
            policy=policy,  # type: ignore[arg-type]
            ci=ci,  # type: ignore[arg-type]
            n_resamples=n_resamples,
            seed=seed,
            clip=clip,
        )
    for r in result["runs"]:
        for w in r["warnings"]:
            click.echo(f"bordir: warning: {w}", err=True)
    if as_json:
        echo_json(result)
        return
    runs, summary = result["runs"], result["summary"]
    headers = ["metric", *(f"run {i}" for i in range(len(runs))), "mean", "95% CI"]
    if n_resamples:
        headers.append("boot 95% CI")
    rows = []
    for m, label in _labels().items():
        s = summary[m]
        ci_text = "-" if s["ci95"] is None else f"[{_pct(s['ci95'][0])}, {_pct(s['ci95'][1])}]"
        row = [label, *(_pct(r[m]) for r in runs), _pct(s["mean"]), ci_text]
        if n_resamples:
            b = s.get("boot95")
            # the normalised ΔCS resamples the counts pooled over runs: its estimate is not the mean
            est = f"{_pct(s['boot_estimate'])} " if s.get("boot_estimate") is not None else ""
            row.append("-" if b is None else f"{est}[{_pct(b[0])}, {_pct(b[1])}]")
        rows.append(row)
    rc = summary["response_countries"]
    for label, key in (("Response countries", ""), ("Response countries + en", "_en")):
        cells = [
            _rc(r["response_countries"][f"mean{key}"], r["response_countries"][f"sd{key}"])
            for r in runs
        ]
        ci_rc = rc[f"ci95{key}"]
        row = [
            label,
            *cells,
            _rc(rc[f"mean{key}"], rc[f"sd{key}"]),
            "-" if ci_rc is None else f"[{ci_rc[0]:.3f}, {ci_rc[1]:.3f}]",
        ]
        rows.append(row + (["-"] if n_resamples else []))
    echo_table(headers, rows)
    if any(summary[m].get("boot_estimate") is not None for m in _labels()):
        click.echo(
            "boot: the normalised ΔCS resamples the counts pooled over runs; its bootstrap column "
            "starts with that pooled estimate, which can differ from the mean of the runs"
        )
    click.echo(
        "values x100 (response countries: mean (sd) of distinct answers per territory); counts per run:"
    )
    for i, r in enumerate(runs):
        counts = "; ".join(f"{_labels()[m]} {_count(r, m)}" for m in r["counts"])
        click.echo(
            f"  run {i} ({r['file']}): {r['n_territories']} territories, {r['n_queries']} queries; {counts}"
        )
        for m, note in r.get("notes", {}).items():
            click.echo(f"    {_labels()[m]}: {note}")
    for m, label in _labels().items():
        if summary[m].get("note"):
            click.echo(f"  {label} over runs: {summary[m]['note']}")
        if summary[m].get("boot_estimate") is not None:
            click.echo(
                f"  {label} bootstrap: the ratio of the counts pooled over runs, "
                f"{_pct(summary[m]['boot_estimate'])}"
            )
        if summary[m].get("boot_note"):
            click.echo(f"  {label} bootstrap: {summary[m]['boot_note']}")
    click.echo(f"signature: {result['signature']}")
