"""A suite: several experiments in one TOML (a paper's grid), each run into its own directory.

An experiment file holds one experiment (:func:`~bordir.experiment.config.load_config`).
A suite file adds ``[[runs]]`` tables; each is the shared ``[experiment]`` table with
its own keys on top, and a ``name`` (the run's folder under ``--out``)::

    [suite]                      # optional: what the suite reproduces (shown, never used)
    name = "borderlines-2023"
    paper = "BorderLines, NAACL 2024, Table 2"

    [experiment]                 # shared by every run
    dataset = "borderlines"
    modes = ["no_ir"]

    [[runs]]
    name = "gpt4-vanilla"
    system = "vanilla"

    [[runs]]
    name = "gpt4-un"
    system = "un"

``bordir run SUITE --out DIR`` runs each into ``DIR/<name>`` (``--only NAME`` picks
some; ``--dry-run`` prints each run's calls, tokens and cost, then the total). Every run
is checked as an experiment file is, and an error names the run.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.toml"
    >>> _ = p.write_text('[experiment]\\nmodels = ["mock/first"]\\nmodes = ["no_ir"]\\n'
    ...                  '[[runs]]\\nname = "a"\\nsystem = "un"\\n[[runs]]\\nname = "b"\\n')
    >>> [(name, cfg.system) for name, cfg in load_suite(p).runs]
    [('a', 'un'), ('b', 'vanilla')]
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._io.toml import loads as toml_loads
from ..errors import ConfigError, DataError
from .config import ExperimentConfig, load_config

__all__ = ["Suite", "load_suite", "is_suite"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Suite:
    """The runs of a suite file (one unnamed run for a plain experiment file).

    Attributes:
        runs: ``(name, config)`` in file order.
        meta: the ``[suite]`` table (name, paper, note …), for display.
        path: the file.
    """

    runs: tuple[tuple[str, ExperimentConfig], ...]
    meta: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    @property
    def is_suite(self) -> bool:
        return bool(self.runs) and bool(self.runs[0][0])

    def only(self, names: list[str]) -> Suite:
        """The runs named ``names`` (in file order)."""
        known = [n for n, _ in self.runs]
        bad = [n for n in names if n not in known]
        if bad:
            raise ConfigError(
                f"{self.path}: no run named {', '.join(bad)}; the suite has {', '.join(known)}"
            )
        return Suite(tuple(r for r in self.runs if r[0] in names), self.meta, self.path)


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise DataError("file not found (expected an experiment .toml)", path=path)
    try:
        return toml_loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"invalid TOML: {exc}", path=path) from None
    except UnicodeDecodeError:
        raise DataError("not UTF-8 text (expected an experiment .toml)", path=path) from None


def is_suite(path: str | Path) -> bool:
    """True if the TOML at ``path`` has ``[[runs]]`` tables (a top-level ``runs = 3`` is a number of runs)."""
    return isinstance(_read(Path(path)).get("runs"), list)


def load_suite(path: str | Path) -> Suite:
    """The runs of ``path``: a suite's ``[[runs]]``, or the one experiment of a plain file."""
    path = Path(path)
    data = _read(path)
    if not isinstance(data.get("runs"), list):
        return Suite((("", load_config(path)),), {}, str(path))
    others = sorted(k for k in data if k not in ("suite", "experiment", "runs"))
    if others:
        raise ConfigError(
            f"{path}: key(s) {', '.join(others)} would be ignored; a suite has [suite], "
            "[experiment] and [[runs]]"
        )
    base = data.get("experiment", {})
    meta = data.get("suite", {})
    runs = data["runs"]
    if not isinstance(base, dict) or not isinstance(meta, dict):
        raise ConfigError(f"{path}: [experiment] and [suite] must be tables")
    if not runs or not all(isinstance(r, dict) for r in runs):
        raise ConfigError(f"{path}: 'runs' must be one or more [[runs]] tables")
    from .validate import check_mock_models

    out: list[tuple[str, ExperimentConfig]] = []
    for i, run in enumerate(runs, start=1):
        name = run.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise ConfigError(
                f"{path}: [[runs]] #{i}: field 'name': expected a folder name (letters, digits, "
                f"_ . -), found {name!r}"
            )
        if name in {n for n, _ in out}:
            raise ConfigError(f"{path}: [[runs]] #{i}: the name {name!r} is used twice")
        merged = {**base, **{k: v for k, v in run.items() if k != "name"}}
        where = f"{path} [[runs]] {name}"
        check_mock_models(merged.get("models"), where)
        out.append((name, ExperimentConfig.from_dict(merged, where=where).with_source(path)))
    return Suite(tuple(out), dict(meta), str(path))
