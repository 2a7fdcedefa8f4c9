"""Writing a run directory: the run's files through the one record writer.

:class:`RunDirWriter` is the :class:`~bordir.runrecord.writer.RecordWriter` of the ``run``
kind (``bordir run``, ``Run.save``, the batch collector), used as a context manager:

1. **Lock.** The exclusive run-directory lock (``DIR/.bordir-run.lock``) for the whole run; a
   second writer, or a ``bordir report`` / ``view`` reading the directory, is refused at once.
   The caller checks its inputs (backends, keys, formats) before :meth:`RunDirWriter.start`.
2. **Incomplete first.** :meth:`RunDirWriter.start` marks ``record.json`` incomplete and moves
   the previous output set aside together into ``previous/`` (the old record, ``run.json``,
   ``metrics.json``, ``tables/``, ``plots/``, ``report.html``, ``view.html``), then writes an
   incomplete ``run.json``. :func:`bordir.experiment.rundir.read_run_dir` refuses an
   incomplete directory.
3. **Atomic writes.** ``hits.parquet``, ``responses.parquet`` and ``run.json`` go through
   :mod:`bordir._io.atomic` (unique temporary names, fsync, rename).
4. **Complete last.** :meth:`RunDirWriter.finish` writes the final ``run.json`` and the
   complete record (counts, the digests of the three files, the dataset and corpus hashes).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.atomic import atomic_write_parquet, atomic_write_text
from .._io.json_write import jsonable
from ..errors import DataError
from ..runrecord.lock import LOCK_FILE
from ..runrecord.record import RunRecord
from ..runrecord.writer import RecordWriter
from ..signature import Signature

__all__ = ["RunDirWriter", "LOCK_FILE", "write_run_json", "write_responses", "run_signature_of"]

RUN_FILES = ("run.json", "responses.parquet", "hits.parquet")
"""What a run writes into its directory (their digests are in the record)."""


def write_run_json(info: dict[str, Any], out: Path) -> Path:
    """Write ``run.json`` atomically (strict JSON)."""
    text = json.dumps(jsonable(info), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    return atomic_write_text(out / "run.json", text)


def write_responses(df: pd.DataFrame, out: Path) -> Path:
    """Write ``responses.parquet`` atomically."""
    return atomic_write_parquet(out / "responses.parquet", df)


def run_signature_of(info: dict[str, Any]) -> str:
    """The run's signature in its record: grid, dataset and corpus hashes, version.

    Example:
        >>> run_signature_of({"grid": {"models": ["mock/first"], "modes": ["no_ir"], "runs": 2}})  # doctest: +ELLIPSIS
        'run|models:mock/first|modes:no_ir|runs:2|version:...'
    """
    grid = info.get("grid") or {}
    return str(
        Signature.build(
            "run",
            models="+".join(grid.get("models") or ()) or None,
            modes="+".join(grid.get("modes") or ()) or None,
            runs=grid.get("runs"),
            data=(info.get("dataset") or {}).get("hash"),
            corpus=(info.get("corpus") or {}).get("hash"),
        )
    )


class RunDirWriter(RecordWriter):
    """Exclusive writer of one run directory (see module docs).

    Example:
        >>> import tempfile
        >>> from bordir.errors import ConfigError
        >>> d = tempfile.mkdtemp()
        >>> with RunDirWriter(d) as w1:
        ...     try:
        ...         RunDirWriter(d).__enter__()
        ...     except ConfigError as exc:
        ...         print(str(exc).split(";")[0].endswith("is being written by another bordir process (pid "
        ...                                                + str(os.getpid()) + ")"))
        True
    """

    def __init__(self, out: str | os.PathLike[str]) -> None:
        super().__init__(out, "run", aside=("run.json",))

    @staticmethod
    def preflight(out: str | os.PathLike[str]) -> None:
        """Raise the error :meth:`__enter__` would raise for ``out``'s path, touching nothing.

        For a command to say what is wrong with ``--out`` before it spends time (or prints a plan).
        """
        path = Path(out)
        if path.exists() and not path.is_dir():
            raise DataError("exists and is not a directory; pass another --out", path=path)
        parent = path
        while not parent.exists():
            parent = parent.parent
        if not parent.is_dir():
            raise DataError(
                f"cannot create the run directory: {parent} is not a directory", path=path
            )
        if not os.access(parent, os.W_OK | os.X_OK):
            raise DataError("cannot create the run directory: Permission denied", path=path)

    def __enter__(self) -> RunDirWriter:
        super().__enter__()
        return self

    def start(self, info: dict[str, Any], *, inputs: dict[str, Any] | None = None) -> None:  # type: ignore[override]
        """Mark the directory incomplete, move the previous set aside, write an incomplete ``run.json``."""
        super().start(info.get("config") or {}, inputs=inputs)
        write_run_json({**info, "status": "incomplete"}, self.out)

    def hits(self, retrieval: Any) -> None:
        retrieval.to_parquet(self.out / "hits.parquet")

    def responses(self, df: pd.DataFrame) -> None:
        write_responses(df, self.out)

    def finish(self, info: dict[str, Any]) -> RunRecord:  # type: ignore[override]
        """Write the complete ``run.json``, then the complete record."""
        write_run_json({**info, "status": "complete"}, self.out)
        calls = info.get("calls") or {}
        return super().finish(
            files=RUN_FILES,
            signature=run_signature_of(info),
            counts={
                "queries": info.get("queries"),
                "responses": info.get("responses"),
                **{f"calls_{k}": v for k, v in calls.items()},
            },
            inputs={
                k: (info.get(k) or {}).get("hash")
                for k in ("dataset", "corpus")
                if (info.get(k) or {}).get("hash")
            },
        )
