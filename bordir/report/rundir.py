"""The run directory the report reads, re-exported from :mod:`bordir.experiment.rundir`.

A run directory is written and read by the experiment stage (it holds the
config the experiment ran); the report reads it through this name too.

Example:
    >>> from bordir.experiment.rundir import RunDir as Same
    >>> RunDir is Same
    True
"""

from __future__ import annotations

from ..experiment.rundir import RESPONSES_FILE, RUN_JSON, RunDir, info_section, load_run

__all__ = ["RunDir", "load_run", "info_section", "RUN_JSON", "RESPONSES_FILE"]
