"""``bordir compare``: two modes (or two models) per query language or resource level, for a run directory.

A thin layer over :func:`bordir.metrics.perlang.compare.compare_by` and
:func:`~bordir.metrics.perlang.compare.compare_models_by`. ``--modes A,B``
reports how answers move from A to B: Δ = B − A, the sign rule of the library
(``compare_by(A, B)``, ``Run.compare(A, B)``; ``docs/metrics.md``). Every row names the
sides as given: ``a`` is A (``value_a`` its value, ``n_territories_a`` …), ``b`` is B,
and ``diff`` = ``value_b − value_a``.
"""

from __future__ import annotations

import json
import math
from functools import partial
from typing import Any

import click

from .._io.percent import pct
from . import _decorators as opt
from ._output import echo_table

_pct = partial(pct, missing="-")


def _pair(value: str, what: str) -> tuple[str, str]:
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if len(parts) != 2:
        raise click.BadParameter(
            f"expected two {what} separated by a comma (e.g. qlang,rel_langs), found {value!r}"
        )
    return parts[0], parts[1]


def _power(p10: Any, p20: Any) -> str:
    """``power 10/20`` of a row, in percent."""
    if any(x is None or (isinstance(x, float) and math.isnan(x)) for x in (p10, p20)):
        return "-"
    return f"{100 * p10:.0f}/{100 * p20:.0f}"


def _p(x: Any) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


@click.command("compare")
@click.argument("run_dir", type=click.Path(path_type=str))
@click.option("--modes", help="Two modes A,B: Δ = B − A per group (e.g. qlang,rel_langs).")
@click.option("--models", help="Two models A,B compared in --mode instead: Δ = B − A.")
@click.option("--mode", "mode", help="With --models: the mode both models are compared in.")
@opt.choice(
    "--by",
    ["query_lang", "resource", "all"],
    "query_lang",
    "One row per query language, per resource level of the language registry, or one row "
    "with every language pooled (all).",
)
@click.option(
    "--metric",
    default=None,
    help="Per-language measure (default controller_agreement); see docs/metrics.md.",
)
@click.option(
    "--model", help="Only this model (default: every model of the run, each corrected on its own)."
)
@click.option(
    "--min-territories",
    type=click.IntRange(min=1),
    default=None,
    help="Groups with fewer paired territories are 'too few to judge' (default: the fewest at "
    "which the sign-flip test can reach --alpha, 6 at 0.05).",
)
@opt.resamples(2000, "Bootstrap resamples and random sign flips.")
@opt.seed(opt.PERMUTATION_SEED_HELP)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Family-wise error rate (Holm across the groups of each comparison).",
)
@click.option(
    "--formats",
    is_flag=True,
    help="RUN_DIR is an open run: compare its free answers with its forced twin (RUN_DIR/forced) per "
    "query language: switch rate, agreement with the controller, the gap (free − forced).",
)
@opt.json("Print JSON (every row with its signature).")
def compare_cmd(
    run_dir: str,
    formats: bool,
    modes: str | None,
    models: str | None,
    mode: str | None,
    by: str,
    metric: str | None,
    model: str | None,
    min_territories: int | None,
    resamples: int,
    seed: int | None,
    alpha: float,
    as_json: bool,
) -> None:
    """Compare two modes (or two models) of RUN_DIR per query language, with intervals and Holm-adjusted p.

    With --formats: an open run's free answers against its forced twin (the forced-vs-free gap).

    Each row: the measure under A and B on the territories both have, Δ = B − A, a sign-flip
    permutation p-value and its Holm adjustment across the groups, and from 30 paired territories the
    95% paired cluster-bootstrap interval. Groups with too few territories are listed, not tested.
    """
    from .._io.json_write import jsonable
    from ..errors import ConfigError
    from ..experiment.rundir import read_run_dir
    from ..metrics.intervals.paired_rule import MIN_INTERVAL_TERRITORIES, resolve_min_territories
    from ..metrics.perlang.compare import compare_by, compare_models_by
    from ..metrics.perlang.measures import DEFAULT_MEASURE, get_measure
    from ..stats import resolve_seed

    metric = get_measure(metric or DEFAULT_MEASURE).name
    min_t = resolve_min_territories(min_territories, alpha)
    if formats:
        from ._formats import compare_formats

        compare_formats(run_dir, min_t, resamples, seed, alpha, as_json)
        return
    if (modes is None) == (models is None):
        raise ConfigError(
            "give either --modes A,B (two modes) or --models A,B with --mode M (two models)"
        )
    run = read_run_dir(run_dir)
    seed = resolve_seed(seed)
    common: dict[str, Any] = dict(
        by=by,
        metric=metric,
        resamples=resamples,
        seed=seed,
        min_territories=min_t,
        policy=run.config.policy,
        alpha=alpha,
    )
    if modes is not None:
        if mode is not None:
            raise ConfigError("--mode goes with --models; with --modes use --model to pick a model")
        from ..modes import Mode

        a, b = (Mode.parse(m).value for m in _pair(modes, "modes"))
        table = compare_by(run.responses, run.dataset, a, b, model=model, **common)
        what = f"{b} − {a}"
    elif models is not None:  # exactly one of --modes / --models, checked above
        if mode is None:
            raise ConfigError("--models A,B needs --mode M (the mode both models are compared in)")
        if model is not None:
            raise ConfigError("--model goes with --modes; with --models name both models there")
        a, b = _pair(models, "models")
        table = compare_models_by(run.responses, run.dataset, a, b, mode=mode, **common)
        what = f"{b} − {a} in {mode}"
    measure = get_measure(metric)
    if as_json:
        doc = {
            "run_dir": str(run.path),
            "metric": metric,
            "label": measure.label,
            "by": by,
            "diff": what,
            "min_territories": min_t,
            "alpha": alpha,
            "resamples": resamples,
            "seed": seed,
            "power_effects": [0.10, 0.20],
            "rows": table.to_dict("records"),
        }
        click.echo(json.dumps(jsonable(doc), ensure_ascii=False, indent=2, allow_nan=False))
        return
    rows: list[tuple[Any, ...]] = []
    for r in table.itertuples():
        where = r.model if r.factor == "mode" else r.mode
        ci = "-" if math.isnan(r.ci_low) else f"[{_pct(r.ci_low, True)}, {_pct(r.ci_high, True)}]"
        rows.append(
            (
                where,
                r.group,
                r.n_territories,
                _pct(r.value_a),
                _pct(r.value_b),
                _pct(r.diff, True),
                ci,
                _p(r.p_value),
                _p(r.p_holm),
                "*" if r.significant else "",
                r.status,
                "" if r.significant else _power(r.power_10, r.power_20),
            )
        )
    side = "model" if modes is not None else "mode"
    echo_table(
        [
            side,
            by,
            "terr.",
            a,
            b,
            f"Δ ({what})",
            "95% CI",
            "p",
            "p (Holm)",
            "",
            "status",
            "power 10/20",
        ],
        rows,
    )
    from ._output import echo_lines, split_line

    note = (
        f"{measure.label} ({metric}), ×100. p: sign-flip permutation test, (c+1)/(n+1), exact at any "
        f"size; Holm across the judged groups of each {side}; * : p (Holm) < {alpha:g}. Groups with "
        f"fewer than {min_t} paired territories are too few to judge (p < {alpha:g} is out of reach). "
        f"95% CI: paired cluster bootstrap over the group's territories ({resamples} resamples, seed "
        f"{seed}), from {MIN_INTERVAL_TERRITORIES} paired territories (it under-covers below: '-'). "
        "power 10/20: the power (%) the group's test had "
        f"against a true difference of 10 / 20 points (judged: at {alpha:g}/m, m groups judged together; "
        f"too few: a test at {alpha:g} alone); a group not significant with low power is no evidence of "
        "no difference."
    )
    for line in split_line(note, sep=" ", indent=""):
        click.echo(line)
    if len(table):
        first = table["signature"].iloc[0]
        echo_lines(f"signature (first row; each row has its own in --json): {first}")
