"""``bordir run … --submit batch`` / ``--collect [--wait]``: a thin layer over :mod:`bordir.runner.batch`.

Exit status: 0 when submitted, or collected with every call answered; 1 when a
collected call failed (``--submit batch`` again re-submits exactly those); 2 on
an error (one line); 3 when ``--collect`` finds a batch still pending.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from pathlib import Path

    from ..experiment.config import ExperimentConfig

__all__ = ["run_batch"]


def run_batch(
    cfg: ExperimentConfig,
    out_dir: str | Path,
    *,
    submit: str | None,
    collect: bool,
    wait: bool,
    poll: float,
    progress: bool,
) -> None:
    """Submit (``submit="batch"``) and/or collect the batches of run directory ``out_dir``."""
    from ..errors import ConfigError
    from ..runner.batch import PENDING_EXIT
    from ..runner.batch import collect as collect_batches
    from ..runner.batch import submit as submit_batches

    if wait and not (submit or collect):
        raise ConfigError("--wait needs --submit batch or --collect")
    if not 0 < poll <= 86_400:  # also refuses nan
        raise ConfigError(
            f"--poll must be a number of seconds > 0 and <= 86400 (a day), got {poll!r}"
        )
    if submit:
        rep = submit_batches(cfg, out_dir, progress=progress)
        for batch_id in rep.recovered:
            click.echo(f"recorded batch {batch_id} (its creation had been interrupted)")
        for batch_id, model, n in rep.batches:
            click.echo(f"submitted batch {batch_id} ({model}, {n} requests)")
        click.echo(
            f"{rep.submitted} requests submitted; skipped {rep.cached} cached, {rep.pending} in "
            f"pending batches, {rep.answered} already answered by a batch; state: {rep.state}"
        )
        if rep.online_models:
            click.echo(
                f"no batch API for {', '.join(rep.online_models)}: --collect calls them online"
            )
        if not wait:
            click.echo(
                "collect with: bordir run CONFIG --out DIR --collect  (add --wait to block until done)"
            )
            return
    rep2 = collect_batches(
        cfg, out_dir, wait=wait, poll=poll, progress=progress, require_batches=not submit
    )
    s = rep2.summary
    if rep2.pending:
        for batch_id, status, done, total in rep2.pending:
            click.echo(f"batch {batch_id}: {status} ({done} of {total} requests done)")
        click.echo(
            f"{len(rep2.pending)} of {s['batches']} batches still pending; nothing written yet. "
            "Run --collect again later, or add --wait",
            err=True,
        )
        raise click.exceptions.Exit(PENDING_EXIT)
    result = rep2.run
    info = result.info
    calls = info["calls"]
    click.echo(
        f"collected {len(rep2.collected)} batches ({s['completed']} of {s['submitted']} requests "
        f"answered, {s['failed']} failed over all batches of this run)"
    )
    click.echo(
        f"wrote {result.path / 'responses.parquet'} ({info['responses']} rows) and {result.path / 'run.json'}"
    )
    if calls["failed"]:
        click.echo(
            f"{calls['failed']} of {calls['requests']} calls failed (outcome 'failed'; the first: "
            f"{info['failures'][0] if info['failures'] else '?'}); `--submit batch` again "
            "re-submits exactly those",
            err=True,
        )
        raise click.exceptions.Exit(1)
