"""``bordir compare RUN_DIR --formats``: an open run's free answers against its forced twin."""

from __future__ import annotations

import json
from functools import partial

import click

from .._io.percent import pct
from ._output import echo_table

_pct = partial(pct, missing="-")


def compare_formats(
    run_dir: str,
    min_territories: int,
    resamples: int,
    seed: int | None,
    alpha: float,
    as_json: bool,
) -> None:
    """Print :func:`bordir.metrics.free.gap.language_gap` of ``run_dir`` and its ``forced/`` twin."""
    from .._io.json_write import jsonable
    from ..errors import DataError
    from ..experiment.rundir import read_run_dir
    from ..experiment.twin import FORCED_DIR, twin_dir
    from ..metrics.free import language_gap, pair_items

    run = read_run_dir(run_dir)
    if run.config.response_format != "open":
        raise DataError(
            f"response_format is {run.config.response_format!r}; --formats compares an open run "
            '(response_format = "open") with its forced twin',
            path=run.path / "run.json",
        )
    twin = twin_dir(run.path)
    if twin is None:
        raise DataError(
            f"no forced twin: {FORCED_DIR}/responses.parquet is missing; re-run `bordir run CONFIG "
            "--out DIR` (it resumes and writes the twin, served from the cache)",
            path=run.path / FORCED_DIR,
        )
    items = pair_items(read_run_dir(twin).responses, run.responses, run.dataset)
    table = language_gap(
        items, resamples=resamples, seed=seed, min_territories=min_territories, alpha=alpha,
        data_hash=run.dataset.content_hash(),
    )  # fmt: skip
    if as_json:
        doc = {"run_dir": str(run.path), "forced": str(twin), "rows": table.to_dict("records")}
        click.echo(json.dumps(jsonable(doc), ensure_ascii=False, indent=2, allow_nan=False))
        return
    rows = [
        (
            r.model, r.mode, r.query_lang, r.n_territories, _pct(r.switch_rate), _pct(r.agree_forced),
            _pct(r.agree_free), _pct(r.gap, True),
            "-" if r.gap_low != r.gap_low else f"[{_pct(r.gap_low, True)}, {_pct(r.gap_high, True)}]",
            "-" if r.p_holm != r.p_holm else f"{r.p_holm:.4f}", r.status,
            f"{100 * r.power_10:.0f}/{100 * r.power_20:.0f}",
        )
        for r in table.itertuples()
    ]  # fmt: skip
    echo_table(
        ["model", "mode", "lang", "territories", "switch", "agree forced", "agree free",
         "gap (free − forced)", "95% CI", "p_holm", "status", "power 10/20"],
        rows,
    )  # fmt: skip
    click.echo("lang * = every language pooled; agreement = naming the controller; ×100")
