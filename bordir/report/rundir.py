"""A run directory as ``bordir run`` writes it: ``run.json`` and ``responses.parquet``.

:func:`load_run` reads both, rebuilds the config and the dataset it names
(:func:`bordir.experiment.runner.load_inputs`), and validates the responses
against that dataset. Every problem is a one-line
:class:`~bordir.errors.DataError` naming the file.

Example:
    >>> load_run("/nonexistent/run")
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: /nonexistent/run: not a run directory; expected a directory with run.json and responses.parquet, as `bordir run CONFIG --out DIR` writes
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import BordirError, ConfigError, DataError
from ..metrics.responses import RESPONSE_COLUMNS, validate_responses

if TYPE_CHECKING:  # pragma: no cover
    from ..dataset import BorderLines
    from ..experiment.config import ExperimentConfig

__all__ = ["RunDir", "load_run", "RUN_JSON", "RESPONSES_FILE"]

RUN_JSON = "run.json"
RESPONSES_FILE = "responses.parquet"
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
        return (f"RunDir({str(self.path)!r}, dataset={self.dataset.name!r}, models={len(self.models)}, "
                f"modes={len(self.modes)}, responses={len(self.responses)})")

    @property
    def models(self) -> list[str]:
        """Models in config order (then any others present in the responses)."""
        present = list(dict.fromkeys(self.responses["model"]))
        return [m for m in self.config.models if m in present] + [m for m in present if m not in self.config.models]

    @property
    def modes(self) -> list[str]:
        """Modes in config order (then any others present in the responses)."""
        present = list(dict.fromkeys(self.responses["mode"]))
        return [m for m in self.config.modes if m in present] + [m for m in present if m not in self.config.modes]


def _read_info(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise DataError(f"file not found; {_EXPECTED}", path=path)
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read: {exc}", path=path) from None
    if not isinstance(info, dict) or not isinstance(info.get("config"), dict):
        raise DataError("expected a JSON object with a 'config' object (as `bordir run` writes)", path=path,
                        field="config")
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
        raise DataError("has no responses; the run produced none (re-run `bordir run`, which resumes)", path=path)
    return df


def load_run(run_dir: str | os.PathLike[str]) -> RunDir:
    """Read and check a run directory.

    Raises:
        DataError: the directory, ``run.json`` or ``responses.parquet`` is
            missing or malformed, or the responses do not fit the dataset.
    """
    from ..experiment.config import ExperimentConfig
    from ..experiment.runner import load_inputs

    path = Path(run_dir)
    if not path.is_dir():
        raise DataError(f"not a run directory; {_EXPECTED}", path=path)
    info_path = path / RUN_JSON
    info = _read_info(info_path)
    try:
        cfg = ExperimentConfig.from_dict(info["config"], where=str(info_path))
    except ConfigError as exc:
        raise DataError(str(exc)) from None  # the message names run.json and the field
    try:
        dataset, _ = load_inputs(cfg)
    except BordirError as exc:
        raise DataError(f"cannot load the dataset its config names: {exc}", path=info_path) from None
    resp_path = path / RESPONSES_FILE
    raw = _read_responses(resp_path)
    try:
        responses = validate_responses(raw, dataset)
    except DataError as exc:
        raise DataError(exc.message, path=resp_path, field=exc.field) from None
    keep = [*RESPONSE_COLUMNS, *(["signature"] if "signature" in responses.columns else [])]
    return RunDir(path=path, info=info, config=cfg, dataset=dataset, responses=responses[keep])
