"""Which report an output directory gets: the kind in its record → the function that writes it.

:data:`REPORTS` maps a kind (``run``, ``testbed``; ``kind/flavour`` for a variant) to the
function that writes its report; the kinds whose report is written by their own command (a
test run's by ``bordir judge``, an audit's by ``bordir audit``) say so and where it is.
:func:`report_of` looks a directory up by its record, never by its file names.

Example:
    >>> REPORTS.names()
    ('run', 'testbed', 'testrun', 'audit')
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..registry import Registry
from ..runrecord.record import RunRecord, read_record

__all__ = ["REPORTS", "Reporter", "report_of", "build_any_report"]

Reporter = Callable[..., Path]
"""``(path, *, n_resamples, seed, plots) -> report.html``."""

REPORTS: Registry[Reporter] = Registry("kind of output directory")
"""Kind (or ``kind/flavour``) → :data:`Reporter`."""

REPORTS.register("run", module="bordir.report:build_report", description="a `bordir run` directory")
REPORTS.register(
    "testbed",
    module="bordir.report.testbeds:build_testbed_report",
    description="a `bordir testbed` directory",
)


@REPORTS.register("testrun", description="a `bordir testrun` directory: judged by `bordir judge`")
def _testrun(path: str | os.PathLike[str], **_: Any) -> Path:
    raise DataError(
        "a test run (`bordir testrun`), not an experiment run: `bordir judge "
        f"{path} --judge MODEL` writes its verdicts, fail rates and summary.json; "
        f"`bordir view {path}` shows every answer",
        path=path,
    )


@REPORTS.register("audit", description="a `bordir audit` directory: its report is audit.md")
def _audit(path: str | os.PathLike[str], **_: Any) -> Path:
    raise DataError(
        f"an audit output (`bordir audit`): its report is {Path(path) / 'audit.md'}; "
        f"`bordir view {path}` shows every record",
        path=path,
    )


def report_of(record: RunRecord) -> Reporter:
    """The report of a directory with ``record``: its ``kind/flavour`` entry, else its kind's."""
    for name in record.dispatch:
        if name in REPORTS:
            return REPORTS.get(name)
    return REPORTS.get(record.kind)


def build_any_report(path: str | os.PathLike[str], **kwargs: Any) -> tuple[RunRecord, Path]:
    """Write the report of the output directory ``path``, whatever its kind; ``(record, report.html)``.

    Raises:
        DataError: no record, or a kind whose report another command writes.
    """
    record = read_record(path)
    return record, report_of(record)(path, **kwargs)
