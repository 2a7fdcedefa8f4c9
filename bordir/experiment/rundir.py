"""A run directory as ``bordir run`` writes it: ``run.json`` and ``responses.parquet``.

:func:`read_run_dir` reads both, rebuilds the config and the dataset it names
(:func:`bordir.experiment.inputs.load_inputs`), and validates the responses
against that dataset. It refuses, each time with a one-line
:class:`~bordir.errors.DataError` naming the file and what disagrees:

* a directory without a complete record of a ``bordir run`` (``record.json``: another kind of
  run, or one interrupted or still running), or whose files are not the ones it records
  (:func:`~bordir.runrecord.record.require_complete`);
* a dataset (or, with ``check_corpus``, a corpus) whose content hash differs from
  the one ``run.json`` records — the files changed since the run;
* a ``responses.parquet`` that disagrees with its record: another row count, or
  models, modes or runs outside the recorded grid;
* a ``hits.parquet`` whose signature is not the one ``run.json`` records.

Example:
    >>> read_run_dir("/nonexistent/run")
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: /nonexistent/run: not a run directory; expected a directory with run.json and responses.parquet, as `bordir run CONFIG --out DIR` writes
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import pandas as pd

from .._io.json_read import read_json
from ..errors import BordirError, ConfigError, DataError
from ..metrics.responses import SCORING_COLUMNS, validate_responses
from ..metrics.summary.scored import info_section

if TYPE_CHECKING:  # pragma: no cover
    from ..dataset import BorderLines
    from .config import ExperimentConfig

__all__ = [
    "RunDir",
    "read_run_dir",
    "check_run_info",
    "check_row_count",
    "RUN_JSON",
    "RESPONSES_FILE",
]

RUN_JSON = "run.json"
RESPONSES_FILE = "responses.parquet"


class _Hashed(Protocol):
    def content_hash(self) -> str: ...


_H = TypeVar("_H", bound=_Hashed)
_EXPECTED = f"expected a directory with {RUN_JSON} and {RESPONSES_FILE}, as `bordir run CONFIG --out DIR` writes"


@dataclass(frozen=True)
class RunDir:
    """What a run directory holds.

    Attributes:
        path: the directory.
        info: ``run.json`` as a dict.
        config: the run's :class:`~bordir.experiment.config.ExperimentConfig`.
        dataset: the dataset the config names.
        responses: the validated responses (metrics columns, plus ``signature``
            when the file has it).
    """

    path: Path
    info: dict[str, Any]
    config: ExperimentConfig
    dataset: BorderLines
    responses: pd.DataFrame

    def __repr__(self) -> str:
        return (
            f"RunDir({str(self.path)!r}, dataset={self.dataset.name!r}, models={len(self.models)}, "
            f"modes={len(self.modes)}, responses={len(self.responses)})"
        )

    @property
    def models(self) -> list[str]:
        """Models in config order (then any others present in the responses)."""
        present = list(dict.fromkeys(self.responses["model"]))
        return [m for m in self.config.models if m in present] + [
            m for m in present if m not in self.config.models
        ]

    @property
    def modes(self) -> list[str]:
        """Modes in config order (then any others present in the responses)."""
        present = list(dict.fromkeys(self.responses["mode"]))
        return [m for m in self.config.modes if m in present] + [
            m for m in present if m not in self.config.modes
        ]


def _read_info(path: Path) -> dict[str, Any]:
    return check_run_info(read_json(path, missing=_EXPECTED), path)


def check_run_info(info: Any, path: Path) -> dict[str, Any]:
    """``info``, the parsed ``run.json`` at ``path``, once it is an object with a ``config`` object.

    Raises:
        DataError: it is not (the message names ``path`` and the ``config`` field).
    """
    if not isinstance(info, dict) or not isinstance(info.get("config"), dict):
        raise DataError(
            "expected a JSON object with a 'config' object (as `bordir run` writes)",
            path=path,
            field="config",
        )
    return info


def _read_responses(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise DataError(f"file not found; {_EXPECTED}", path=path)
    try:
        df = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types for a broken file
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"not a readable parquet file: {first}", path=path) from None
    if len(df) == 0:
        raise DataError(
            "has no responses; the run produced none (re-run `bordir run`, which resumes)",
            path=path,
        )
    return df


def check_row_count(info: dict[str, Any], rows: int, info_path: Path, resp_path: Path) -> None:
    """Refuse a responses table of ``rows`` rows when ``run.json`` (``info``) records another count.

    Raises:
        DataError: the counts differ (the directory mixes two runs); the message names ``resp_path``.
    """
    n = info.get("responses")
    if isinstance(n, int) and n != rows:
        raise DataError(
            f"has {rows} rows but {info_path.name} records {n}; the directory mixes two runs "
            "(re-run `bordir run` into it, or into a fresh --out)",
            path=resp_path,
        )


def _check_record(
    info: dict[str, Any], raw: pd.DataFrame, cfg: ExperimentConfig, info_path: Path, resp_path: Path
) -> None:
    """The table agrees with its record: row count and grid (models, modes, runs)."""
    check_row_count(info, len(raw), info_path, resp_path)
    grid = info_section(info, "grid")
    models = grid.get("models") or list(cfg.models)
    modes = grid.get("modes") or list(cfg.modes)
    for col, allowed in (("model", models), ("mode", modes)):
        if col in raw.columns:
            extra = sorted(set(map(str, raw[col].unique())) - set(allowed))
            if extra:
                raise DataError(
                    f"{col}(s) {', '.join(extra)} are not in the grid {info_path.name} records "
                    f"({', '.join(allowed)}); the directory mixes two runs",
                    path=resp_path,
                    field=col,
                )
    n_runs = grid.get("runs") or len(cfg.seeds)
    if "run" in raw.columns and len(raw) and int(raw["run"].max()) >= n_runs:
        raise DataError(
            f"run {int(raw['run'].max())} is outside the {n_runs} runs {info_path.name} records; "
            "the directory mixes two runs",
            path=resp_path,
            field="run",
        )


def _check_hits(info: dict[str, Any], path: Path) -> None:
    recorded = (
        (info.get("hits") or {}).get("signature") if isinstance(info.get("hits"), dict) else None
    )
    if not recorded:
        return
    hits_path = path / "hits.parquet"
    if not hits_path.is_file():
        raise DataError(
            f"missing, but {RUN_JSON} records hits with signature {recorded}", path=hits_path
        )
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(hits_path).metadata or {}
    except Exception as exc:  # pyarrow raises several types for a broken file
        raise DataError(
            f"not a readable parquet file: {str(exc).splitlines()[0] if str(exc) else exc}",
            path=hits_path,
        ) from None
    found = meta.get(b"bordir.signature", b"").decode()
    if found != recorded:
        raise DataError(
            f"signature {found or '(none)'} differs from {recorded} recorded in {RUN_JSON}; the "
            "directory mixes two runs",
            path=hits_path,
        )


def _check_hash(kind: str, recorded: Any, found: str, info_path: Path, where: str) -> None:
    if recorded and recorded != found:
        raise DataError(
            f"the {kind} changed since the run: {info_path.name} records {recorded}, {where} now "
            f"hashes to {found}; restore the {kind} files or re-run",
            path=info_path,
            field=kind,
        )


def _load_checked(
    kind: str, load: Callable[[], _H], info: dict[str, Any], info_path: Path, where: str
) -> _H:
    """What ``load`` returns (the run's dataset or corpus), refused when it fails or its hash is not the record's."""
    try:
        loaded = load()
    except BordirError as exc:
        raise DataError(f"cannot load the {kind} its config names: {exc}", path=info_path) from None
    _check_hash(kind, info_section(info, kind).get("hash"), loaded.content_hash(), info_path, where)
    return loaded


def read_run_dir(run_dir: str | os.PathLike[str], *, check_corpus: bool = False) -> RunDir:
    """Read and check a run directory (see the module docs for what is refused).

    Args:
        run_dir: a directory written by ``bordir run``.
        check_corpus: also reload the corpus and compare its hash with the record.

    Raises:
        DataError: the directory, its record, ``run.json`` or ``responses.parquet`` is
            missing or malformed, the run is incomplete, the responses do not fit the dataset,
            or the record and the files disagree.
    """
    from ..runrecord.lock import DirLock
    from ..runrecord.record import require_complete

    path = Path(run_dir)
    if not path.is_dir():
        raise DataError(f"not a run directory; {_EXPECTED}", path=path)
    with DirLock(path, shared=True):  # no run changes the files while they are read
        require_complete(path, kind="run")
        return _read(path, check_corpus)


def _read(path: Path, check_corpus: bool) -> RunDir:
    from .config import ExperimentConfig
    from .inputs import load_corpus_of, load_dataset_of

    info_path = path / RUN_JSON
    info = _read_info(info_path)
    try:
        cfg = ExperimentConfig.from_dict(info["config"], where=str(info_path))
    except ConfigError as exc:
        raise DataError(str(exc)) from None  # the message names run.json and the field
    dataset = _load_checked(
        "dataset",
        lambda: load_dataset_of(cfg),
        info,
        info_path,
        f"dataset {cfg.dataset!r}" + (f" at {cfg.dataset_path}" if cfg.dataset_path else ""),
    )
    if check_corpus and info_section(info, "corpus").get("hash"):
        _load_checked(
            "corpus", lambda: load_corpus_of(cfg), info, info_path, f"corpus {cfg.corpus!r}"
        )
    resp_path = path / RESPONSES_FILE
    raw = _read_responses(resp_path)
    _check_record(info, raw, cfg, info_path, resp_path)
    _check_hits(info, path)
    if (
        "option_order" in raw.columns
    ):  # asked in several option orders: the metrics use the given order
        from ..metrics.order.items import given_order

        raw = given_order(raw)
    try:
        responses = validate_responses(raw, dataset)
    except DataError as exc:
        raise DataError(exc.message, path=resp_path, field=exc.field) from None
    keep = [*SCORING_COLUMNS, *(["signature"] if "signature" in responses.columns else [])]
    return RunDir(path=path, info=info, config=cfg, dataset=dataset, responses=responses[keep])
