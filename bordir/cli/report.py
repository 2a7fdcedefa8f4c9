"""``bordir report``: metrics.json, tables, plots and report.html for a run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._io.json_read import read_json
from . import _decorators as opt
from ._output import echo_json

_REFERENCE = "delta_cs_norm"  # normalized ΔCS, shown for reference only


def _shown() -> tuple[str, ...]:
    """The headline metrics, then every plugin's CS metric (the metric registry)."""
    from ..metrics.registry import headline_metrics

    return headline_metrics()


def _label(metric: str) -> str:
    """The terminal label of ``metric`` (the metric registry)."""
    from ..metrics.registry import metric_label

    return metric_label(metric, "text_label")


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=str))
@opt.resamples(2000, "Cluster-bootstrap resamples and permutations.", dest="n_resamples")
@opt.seed(opt.PERMUTATION_SEED_HELP)
@opt.json("Print the headline metrics as JSON (with signatures).")
@opt.switch(
    "--plots/--no-plots",
    True,
    "Draw the plots (PNG and SVG). --no-plots writes the same numbers, tables and page without "
    "figures, in a fraction of the time (the page says they were left out).",
)
def report_cmd(
    run_dir: str, n_resamples: int, seed: int | None, as_json: bool, plots: bool
) -> None:
    """Write metrics.json, tables/, plots/ and report.html into RUN_DIR (written by `bordir run`)."""
    from ..report.dispatch import build_any_report

    record, path = build_any_report(run_dir, n_resamples=n_resamples, seed=seed, plots=plots)
    if record.kind == "testbed":  # the record says which kind the directory is
        from .testbed import print_judge_calibration, print_scores

        page = path
        scores = read_json(page.parent / "scores.json")
        if as_json:
            echo_json({"report": str(page), **scores})
        else:
            print_scores(scores)
            print_judge_calibration(scores)
            click.echo(f"report: {page}")
        return
    metrics = read_json(path.parent / "metrics.json")
    results = metrics["results"]
    if as_json:
        keep = (
            "mean",
            "ci95",
            "terr95",
            "boot95",
            "n_runs",
            "note",
            "signature",
            "undefined",
            "unstable",
        )

        def entry(e: dict[str, Any], label: str) -> dict[str, Any]:
            out = {k: e[k] for k in keep if k in e}
            out["label"] = label
            out["warning"] = (e.get("territory_interval") or {}).get("warning")
            return out

        echo_json(
            {
                "report": str(path),
                "metrics": str(path.parent / "metrics.json"),
                "signature": metrics["signature"],
                "headline_delta": "delta_cs",
                "results": {
                    model: {
                        mode: {
                            m: entry(
                                cell["metrics"][m],
                                "normalized (reference)" if m == _REFERENCE else _label(m),
                            )
                            for m in (*_shown(), _REFERENCE)
                        }
                        for mode, cell in modes.items()
                    }
                    for model, modes in results.items()
                },
                "warnings": metrics["warnings"],
            }
        )
        return
    print_summary(path)


def print_summary(path: Path, *, signature: bool = True, warnings: bool = True) -> None:
    """The report's summary in at most 100 characters a line: the findings that hold, the headline (KB / Cst / ΔCS, mean and interval over territories), what cannot be judged, the dropped pairs, the warnings count, the signature and the report's path (:func:`bordir.report.summary.summary_lines`)."""
    from ..report.summary import summary_lines
    from ._output import WIDTH, echo_lines

    metrics = read_json(Path(path).parent / "metrics.json")
    for line in summary_lines(metrics, width=WIDTH, max_findings=3, max_caveats=2):
        click.echo(line)
    n_warn = len(metrics.get("warnings") or [])
    if n_warn and warnings:
        click.echo(f"{n_warn} warning(s): see the report (Warnings)")
    if signature:
        echo_lines(f"signature: {metrics['signature']}")
    click.echo(f"report: {Path(path)}")
