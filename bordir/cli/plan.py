"""``bordir plan``: territories or runs needed to detect a target difference between modes (a thin layer over :func:`bordir.runner.plan.plan`)."""

from __future__ import annotations

import click

from . import _decorators as opt
from ._output import echo_lines


@click.command("plan")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--target-mde",
    type=click.FloatRange(min=0.0, min_open=True, max=1.0),
    default=0.05,
    show_default=True,
    help="The difference between two modes to detect (CS units: 0.05 = 5 points).",
)
@click.option(
    "--run",
    "run_dir",
    type=click.Path(file_okay=False),
    help="A finished run of the design: estimate territory and run-to-run variance from it.",
)
@click.option(
    "--alpha",
    type=click.FloatRange(min=0.0, max=1.0, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
)
@click.option(
    "--power",
    type=click.FloatRange(min=0.0, max=1.0, min_open=True, max_open=True),
    default=0.8,
    show_default=True,
)
@opt.json("Print the plan as JSON (with signatures).")
def plan_cmd(
    config: str,
    target_mde: float,
    run_dir: str | None,
    alpha: float,
    power: float,
    as_json: bool,
) -> None:
    """For every query language and metric of CONFIG: the MDE it gives now, and the territories (or runs) needed."""
    from ..experiment.config import load_config
    from ..runner.plan import plan
    from ..signature import Signature
    from ._output import echo_json, echo_table

    cfg = load_config(config)
    table = plan(cfg, target_mde, run_dir=run_dir, alpha=alpha, power=power)
    sig = Signature.build(
        "plan",
        target=target_mde,
        alpha=alpha,
        power=power,
        test="signflip-exact",
        runs=len(cfg.seeds),
        src="run" if run_dir else "planning",
    )
    if as_json:
        echo_json({"signature": str(sig), "plan": table.to_dict(orient="records")})
        return

    from .._io.percent import pct as _pct

    def pct(x: float | None) -> str:
        return _pct(x, missing="undetectable")

    rows = [
        (
            r.query_lang,
            r.metric,
            r.n_territories,
            pct(r.mde),
            f"{r.sd:.2f}",
            "-" if r.territories_needed is None else r.territories_needed,
            "-" if r.runs_needed is None else r.runs_needed,
        )
        for r in table.itertuples()
    ]
    echo_table(
        [
            "query lang",
            "metric",
            "territories",
            "MDE now",
            "σ_d",
            f"territories for {100 * target_mde:g}",
            f"runs for {100 * target_mde:g}",
        ],
        rows,
    )
    n_ok = sum(m is not None and m <= target_mde + 1e-9 for m in table["mde"])
    click.echo(
        f"{n_ok} of {len(table)} cells already detect a {100 * target_mde:g}-point difference "
        f"(α = {alpha}, power {power}; paired sign-flip test, exact under the binary paired design)"
    )
    click.echo(table["note"].iloc[0] if len(table) else "")
    echo_lines(f"signature: {sig}")
