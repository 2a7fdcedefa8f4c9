"""``bordir runs DIR…``: a leaderboard over run directories (model × mode × metric, with intervals)."""

from __future__ import annotations

import math
from typing import Any

import click

from .._io.percent import pct as _pct
from . import _decorators as opt
from ._output import echo_json, echo_table


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


@click.command("runs")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=str))
@opt.repeatable(
    "--metric",
    "metrics",
    "CS metric to show (repeatable; default the headline: kb_cs, cst_cs, delta_cs).",
)
@click.option("--sort", "sort_by", help="Sort the rows by this metric's mean, highest first.")
@opt.resamples(
    1000, "Bootstrap resamples for a directory without metrics.json (nothing is written)."
)
@opt.seed("Their seed (default: $BORDIR_SEED or 12345).")
@opt.json("Print every row as JSON, with its signature.")
def runs_cmd(
    dirs: tuple[str, ...],
    metrics: tuple[str, ...],
    sort_by: str | None,
    resamples: int,
    seed: int | None,
    as_json: bool,
) -> None:
    """A leaderboard of the run directories DIRS: one row per (run, model, mode), the headline metrics ×100 as mean [95% interval over territories] (* fewer than 30 territories).

    Reads each directory's metrics.json (`bordir report`), or computes the numbers in memory.
    """
    from ..errors import ConfigError, DataError
    from ..metrics.registry import headline_metrics
    from ..report.leaderboard import leaderboard

    wanted = list(metrics) or list(headline_metrics())
    if sort_by and sort_by not in wanted:  # refused before any directory is read
        raise ConfigError(f"--sort {sort_by!r} is not shown; shown: {', '.join(wanted)}")
    table = leaderboard(list(dirs), metrics=list(metrics) or None, n_resamples=resamples, seed=seed)
    for d, why in table.attrs.get("left_out", []):
        click.echo(f"left out {d}: {why}", err=True)
    if table.empty:
        raise DataError(
            f"no run to show: the {len(dirs)} director{'y' if len(dirs) == 1 else 'ies'} given "
            "hold no complete `bordir run` whose outputs match its record (above: why)"
        )
    if as_json:
        echo_json(table.to_dict("records"))
        return
    shown = list(dict.fromkeys(table["metric"]))
    wide: dict[tuple[str, str, str], dict[str, Any]] = {}
    why_none: list[str] = []  # why a number has no interval, each said once under the table
    for r in table.to_dict("records"):
        key = (r["run"], r["model"], r["mode"])
        cell = wide.setdefault(key, {"runs": r["n_runs"]})
        few = "*" if r["few_territories"] else ""
        interval = (
            "" if _missing(r["terr_low"]) else f" [{_pct(r['terr_low'])}, {_pct(r['terr_high'])}]"
        )
        if r.get("no_interval"):
            if r["no_interval"] not in why_none:
                why_none.append(r["no_interval"])
            interval = f" †{why_none.index(r['no_interval']) + 1}"
        cell[r["metric"]] = _pct(r["mean"]) + ("" if _missing(r["mean"]) else interval + few)
        cell[f"_{r['metric']}"] = None if _missing(r["mean"]) else r["mean"]
    keys = list(wide)
    if sort_by:  # highest first; undefined last

        def score(k: tuple[str, str, str]) -> float:
            v = wide[k].get(f"_{sort_by}")
            return -math.inf if v is None else float(v)

        keys.sort(key=score, reverse=True)
    labels = dict(zip(table["metric"], table["label"]))
    echo_table(
        ["run", "model", "mode", "runs", *(labels[m] for m in shown)],
        [
            (k[0], k[1], k[2], wide[k]["runs"], *(wide[k].get(m, "n/a") for m in shown))
            for k in keys
        ],
    )
    from ..report.summary import headline_caption

    click.echo(headline_caption({}, short=True))
    for n, why in enumerate(why_none, 1):
        click.echo(f"†{n} no interval over territories: {why}")
    click.echo("the signature of every number: --json")
