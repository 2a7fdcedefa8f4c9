"""An experiment run in memory: :func:`run` → :class:`Run` (responses, hits, run info), saved and loaded exactly.

Example (the notebook path; ``docs/quickstart.md`` has the full version)::

    >>> import bordir, tempfile
    >>> cache = tempfile.mkdtemp() + "/responses.sqlite3"
    >>> r = bordir.run({"models": ["mock/first"], "modes": ["no_ir", "qlang"], "runs": 2, "k": 2}, cache=cache,
    ...                progress=False)
    >>> r
    Run(models=1, modes=2, responses=136, failed=0)
    >>> r.info["cache"]["path"] == cache
    True
    >>> d = tempfile.mkdtemp()
    >>> back = bordir.load_run(r.save(d))
    >>> back.responses.equals(r.responses), back.info == r.info
    (True, True)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

from ..experiment.config import ExperimentConfig
from .result import Run

__all__ = ["run", "run_experiment"]


def run(
    config: Any,
    cache: str | os.PathLike[str] | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
    executor: str = "local",
    address: str | None = None,
    batch: bool = False,
    poll: float = 30.0,
) -> Run:
    """Run an experiment and return it in memory (and, with ``out``, write it there as it goes).

    Args:
        config: an :class:`~bordir.experiment.config.Experiment`, an
            :class:`~bordir.experiment.config.ExperimentConfig`, a dict of config
            keys, or the path of a TOML file.
        cache: the response cache file (default: the config's ``cache``, else
            ``$BORDIR_CACHE/responses.sqlite3``). The cache is always used: a re-run
            re-bills nothing. Its path is recorded in ``run.info["cache"]``.
        out: a run directory to write (locked against a second writer; marked
            incomplete until the end; resumable through the cache).
        progress: show progress bars.
        backends: ``{model: backend}`` to use instead of building them.
        executor: a name of :data:`~bordir.runner.executors.EXECUTORS`: ``"local"`` or ``"ray"`` (the grid sharded over a Ray cluster; same
            rows; see ``docs/scale.md``).
        address: the Ray cluster for ``executor="ray"`` (default: ``$RAY_ADDRESS``,
            else a local one).
        batch: send the uncached calls through the provider's batch API (about half the
            price; needs ``out``), wait for them, polling every ``poll`` seconds, and write the
            run as online calls would (see ``docs/batch.md`` and :mod:`bordir.runner.batch`).
        poll: seconds between two looks at the pending batches (with ``batch``).

    An ``open`` run also runs its forced twin (the same experiment in the direct format,
    :func:`~bordir.experiment.twin.forced_twin`) first, into ``out/forced``: the forced-vs-free gap
    pairs the two. Its calls are a direct run's, served from the cache when one was made.
    """
    cfg = ExperimentConfig.coerce(config)
    if cache is not None:
        cfg = cfg.override(cache=os.fspath(cache))
    if (
        cfg.response_format == "open"
    ):  # the forced twin first, into out/forced (bordir.experiment.twin)
        from ..experiment.twin import FORCED_DIR, forced_twin

        run(
            forced_twin(cfg),
            out=None if out is None else Path(out) / FORCED_DIR,
            progress=progress,
            backends=backends,
            executor=executor,
            address=address,
            batch=batch,
            poll=poll,
        )
    if batch:
        from .batch.collect import run_batched

        return cast("Run", run_batched(cfg, out, backends=backends, poll=poll, progress=progress))
    from .online import run_online

    return run_online(
        cfg, out, progress=progress, backends=backends, executor=executor, address=address
    )


def run_experiment(
    cfg: ExperimentConfig,
    out_dir: str | Path,
    *,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
    executor: str = "local",
    address: str | None = None,
) -> Path:
    """Run the grid of ``cfg`` into ``out_dir`` (resumable; see module docs). Returns ``out_dir``."""
    kw: dict[str, Any] = {} if executor == "local" else {"executor": executor, "address": address}
    run(cfg, out=out_dir, progress=progress, backends=backends, **kw)
    return Path(out_dir)
