"""``bordir report``: metrics.json, tables, plots and report.html for a run directory."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ._output import echo_json, echo_table

_SHOWN = ("kb_cs", "cst_cs", "delta_cs")
_LABELS = {"kb_cs": "KB CS", "cst_cs": "Cst CS", "delta_cs": "Delta CS"}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def _ci(ci: list | None) -> str:
    return "-" if not ci or ci[0] is None else f"[{_pct(ci[0])}, {_pct(ci[1])}]"


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=str))
@click.option("--resamples", "n_resamples", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Cluster-bootstrap resamples and permutations.")
@click.option("--seed", type=int, help="Bootstrap / permutation seed (default: $BORDIR_SEED or 12345).")
@click.option("--json", "as_json", is_flag=True, help="Print the headline metrics as JSON (with signatures).")
def report_cmd(run_dir: str, n_resamples: int, seed: int | None, as_json: bool) -> None:
    """Write metrics.json, tables/, plots/ and report.html into RUN_DIR (written by `bordir run`)."""
    from ..report import build_report

    path = build_report(run_dir, n_resamples=n_resamples, seed=seed)
    metrics = json.loads((path.parent / "metrics.json").read_text(encoding="utf-8"))
    results = metrics["results"]
    if as_json:
        keep = ("mean", "ci95", "boot95", "n_runs", "note", "signature")
        echo_json({
            "report": str(path),
            "metrics": str(path.parent / "metrics.json"),
            "signature": metrics["signature"],
            "results": {model: {mode: {m: {k: cell["metrics"][m][k] for k in keep} for m in _SHOWN}
                                for mode, cell in modes.items()} for model, modes in results.items()},
            "warnings": metrics["warnings"],
        })
        return
    print_summary(path)


def print_summary(path: Path) -> None:
    """The KB / Cst / Delta CS table (with both CIs) of a built report, its signature and path."""
    metrics = json.loads((Path(path).parent / "metrics.json").read_text(encoding="utf-8"))
    results = metrics["results"]
    headers = ["model", "mode", "runs"]
    for m in _SHOWN:
        headers += [_LABELS[m], "t95", "boot95"]
    rows = []
    for model, modes in results.items():
        for mode, cell in modes.items():
            row = [model, mode, cell["n_runs"]]
            for m in _SHOWN:
                e = cell["metrics"][m]
                row += [_pct(e["mean"]), _ci(e["ci95"]), _ci(e["boot95"])]
            rows.append(row)
    echo_table(headers, rows)
    b = metrics["settings"]["boot95"]
    click.echo(f"values x100; t95: t-interval over runs (ddof=1); boot95: cluster bootstrap over territories "
               f"({b['n_resamples']} resamples, seed {b['seed']})")
    if metrics["warnings"]:
        click.echo(f"{len(metrics['warnings'])} warning(s); see the report")
    click.echo(f"signature: {metrics['signature']}")
    click.echo(f"report: {Path(path)}")
