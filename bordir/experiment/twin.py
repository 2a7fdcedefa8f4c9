"""An open run's forced twin: the same experiment asked in the direct format, written beside it.

The forced-vs-free gap compares, for every (territory, query language, run, mode, model), the
claimant a free answer names with the option the forced (multiple-choice) question chose. An
``open`` run therefore asks the forced question too: :func:`forced_twin` is its configuration (the
direct format, its own ``max_tokens`` default, everything else the same: the same queries,
documents, seeds and models) and :data:`FORCED_DIR` the sub-directory it is written to. The twin's
requests are exactly those of a direct run of the same experiment, so the response cache serves
them to either without a second call.

Example:
    >>> from bordir.experiment.config import ExperimentConfig
    >>> cfg = ExperimentConfig.from_dict({"models": ["mock/first"], "response_format": "open", "max_tokens": 300})
    >>> t = forced_twin(cfg)
    >>> t.response_format, t.max_tokens, t.models
    ('direct', None, ('mock/first',))
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .config import Experiment, ExperimentConfig

__all__ = ["FORCED_DIR", "forced_twin", "twin_dir"]

FORCED_DIR = "forced"
"""The sub-directory of an open run that holds its forced (direct-format) twin run."""


def forced_twin(cfg: ExperimentConfig) -> ExperimentConfig:
    """The direct-format experiment paired with the open-format ``cfg`` (see the module docs)."""
    exp: Experiment = dataclasses.replace(cfg.experiment, response_format="direct", max_tokens=None)
    return ExperimentConfig(exp, cfg.operational).with_source(cfg.source)


def twin_dir(run_dir: str | Path) -> Path | None:
    """The forced twin's directory of an open run directory, or None when it has none."""
    path = Path(run_dir) / FORCED_DIR
    return path if (path / "responses.parquet").is_file() else None
