"""``bordir report``: metrics.json, tables, plots and report.html for a run directory."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ._output import echo_json, echo_table

_REFERENCE = "delta_cs"  # normalized ΔCS, shown for reference only


def _shown() -> tuple[str, ...]:
    """The headline metrics, then every plugin's CS metric (the metric registry)."""
    from ..metrics.registry import headline_metrics

    return headline_metrics()


def _label(metric: str) -> str:
    """The terminal label of ``metric`` (the metric registry)."""
    from ..metrics.registry import metric_label

    return metric_label(metric, "text_label")


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def _ci(ci: list | None) -> str:
    if not ci or ci[0] is None:
        return "-"
    return f"[{_pct(ci[0])}, {'inf' if ci[1] is None else _pct(ci[1])}]"


def _terr(e: dict) -> str:
    few = (e.get("territory_interval") or {}).get("warning")
    return _ci(e.get("terr95")) + ("*" if few else "")


def _undef(e: dict) -> str:
    u = e.get("undefined") or {}
    share = u.get("resamples")
    return f"{u.get('runs', 0)}/{u.get('of_runs', '?')}" + (
        "" if share is None else f", {100 * share:.0f}%"
    )


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=str))
@click.option(
    "--resamples",
    "n_resamples",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Cluster-bootstrap resamples and permutations.",
)
@click.option(
    "--seed", type=int, help="Bootstrap / permutation seed (default: $BORDIR_SEED or 12345)."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the headline metrics as JSON (with signatures)."
)
def report_cmd(run_dir: str, n_resamples: int, seed: int | None, as_json: bool) -> None:
    """Write metrics.json, tables/, plots/ and report.html into RUN_DIR (written by `bordir run`)."""
    from ..report import build_report
    from ..report.testbeds import is_testbed_dir

    if is_testbed_dir(run_dir):  # a `bordir testbed` output directory (testbed.json)
        from ..report.testbeds import build_testbed_report
        from .testbed import print_scores

        page = build_testbed_report(run_dir)
        scores = json.loads((page.parent / "scores.json").read_text(encoding="utf-8"))
        if as_json:
            echo_json({"report": str(page), **scores})
        else:
            print_scores(scores)
            click.echo(f"report: {page}")
        return
    path = build_report(run_dir, n_resamples=n_resamples, seed=seed)
    metrics = json.loads((path.parent / "metrics.json").read_text(encoding="utf-8"))
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

        def entry(e: dict, label: str) -> dict:
            out = {k: e[k] for k in keep if k in e}
            out["label"] = label
            out["warning"] = (e.get("territory_interval") or {}).get("warning")
            return out

        echo_json(
            {
                "report": str(path),
                "metrics": str(path.parent / "metrics.json"),
                "signature": metrics["signature"],
                "headline_delta": "delta_cs_abs",
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


def print_summary(path: Path) -> None:
    """The KB / Cst / Delta CS (unnormalised) table with its intervals, the normalized ΔCS for reference, the
    small-sample warnings, the signature and the path of a built report."""
    metrics = json.loads((Path(path).parent / "metrics.json").read_text(encoding="utf-8"))
    results = metrics["results"]
    headers = ["model", "mode", "runs"]
    for m in _shown():
        headers += [_label(m), "t95", "terr95"]
    headers += ["undef.", _label(_REFERENCE)]
    rows = []
    for model, modes in results.items():
        for mode, cell in modes.items():
            row = [model, mode, cell["n_runs"]]
            for m in _shown():
                e = cell["metrics"][m]
                row += [_pct(e["mean"]), _ci(e["ci95"]), _terr(e)]
            ref = cell["metrics"][_REFERENCE]
            row += [
                _undef(cell["metrics"]["delta_cs_abs"]),
                _pct(ref["mean"]) + (" unstable" if ref.get("unstable") else ""),
            ]
            rows.append(row)
    echo_table(headers, rows)
    b = metrics["settings"]["boot95"]
    t = metrics["settings"].get("terr95") or {}
    click.echo(
        "values x100; Delta CS = Control CS - Non-control CS (unnormalised); t95: t-interval over runs "
        "(ddof=1); terr95: small-sample interval over territories (cluster Wilson / MOVER); "
        f"*: fewer than {t.get('min_clusters', 30)} territories contribute (coverage below 95%); undef.: "
        f"runs, and % of the {b['n_resamples']} cluster-bootstrap resamples (seed {b['seed']}), where Delta "
        "CS is undefined; Delta CS norm. (ref.): (Control - Non-control) / Non-control, for reference"
    )
    cells = sum(len(modes) for modes in results.values())
    few = [w for w in metrics["warnings"] if "rest on fewer than" in w]
    n_few = sum(
        any((e.get("territory_interval") or {}).get("warning") for e in cell["metrics"].values())
        for modes in results.values()
        for cell in modes.values()
    )
    if n_few:
        click.echo(
            f"warning: in {n_few} of {cells} model x mode cells, intervals over territories rest on "
            f"fewer than {t.get('min_clusters', 30)} territories (marked *) and cover less than 95% "
            f"({t.get('coverage', '')})"
        )
    unstable = [w for w in metrics["warnings"] if "is unstable" in w]
    for w in unstable:
        click.echo(f"warning: {w}")
    rest = len(metrics["warnings"]) - len(few) - len(unstable)
    if rest:
        click.echo(f"{rest} more warning(s); see the report")
    click.echo(f"signature: {metrics['signature']}")
    click.echo(f"report: {Path(path)}")
