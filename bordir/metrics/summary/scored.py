"""What the summary reads of a run: its responses table, its record (``run.json``), its config and dataset.

The summary is a pure function of these; it never opens a file. A run
directory read by :func:`bordir.experiment.rundir.read_run_dir` (a
:class:`~bordir.experiment.rundir.RunDir`) has them all, and so does the
in-memory :class:`~bordir.runner.result.Run` once its responses are validated
(:meth:`bordir.runner.result.Run.summary` builds that view).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...dataset import BorderLines
    from ..responses import Policy

__all__ = ["ScoredRun", "RunSettings", "info_section"]


class RunSettings(Protocol):
    """The settings of a run the summary names in its signatures (an ``ExperimentConfig`` has them)."""

    @property
    def retriever(self) -> str: ...
    @property
    def k(self) -> int: ...
    @property
    def relevance_filter(self) -> str: ...
    @property
    def response_format(self) -> str: ...
    @property
    def system(self) -> str: ...
    @property
    def temperature(self) -> float: ...
    @property
    def policy(self) -> Policy: ...
    @property
    def langs(self) -> tuple[str, ...]: ...
    @property
    def seeds(self) -> tuple[int, ...]: ...
    def to_dict(self) -> dict[str, Any]: ...


class ScoredRun(Protocol):
    """A run as the summary reads it: validated responses (given option order), record, config, dataset."""

    @property
    def path(self) -> Path: ...
    @property
    def info(self) -> Mapping[str, Any]: ...
    @property
    def config(self) -> RunSettings: ...
    @property
    def dataset(self) -> BorderLines: ...
    @property
    def responses(self) -> pd.DataFrame: ...
    @property
    def models(self) -> list[str]: ...
    @property
    def modes(self) -> list[str]: ...


def info_section(info: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``info[key]`` when it is a table, else ``{}`` (a record from an older or damaged run).

    >>> info_section({"grid": {"runs": 2}, "calls": 3}, "grid"), info_section({"calls": 3}, "calls")
    ({'runs': 2}, {})
    """
    value = info.get(key)
    return value if isinstance(value, dict) else {}
