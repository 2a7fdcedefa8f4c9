"""bordir: measure how retrieval-augmented generation behaves across languages.

``import bordir`` is cheap: submodules (and their dependencies) load on first
use of a name.

Example:
    >>> import bordir
    >>> bordir.languages.get("iw").wiki
    'he'
    >>> bordir.load_demo().name
    'demo'
"""

from __future__ import annotations

import importlib

from ._version import __version__

TYPE_CHECKING = False
"""``typing.TYPE_CHECKING`` without importing :mod:`typing` (it would be most of ``import bordir``'s time)."""


_LAZY = {
    "languages": ("bordir.languages", None),
    "errors": ("bordir.errors", None),
    "BordirError": ("bordir.errors", "BordirError"),
    "ConfigError": ("bordir.errors", "ConfigError"),
    "DataError": ("bordir.errors", "DataError"),
    "MissingExtraError": ("bordir.errors", "MissingExtraError"),
    "UnknownLanguageError": ("bordir.errors", "UnknownLanguageError"),
    "Territory": ("bordir.records", "Territory"),
    "Country": ("bordir.records", "Country"),
    "Query": ("bordir.records", "Query"),
    "Passage": ("bordir.records", "Passage"),
    "Hit": ("bordir.records", "Hit"),
    "BorderLines": ("bordir.dataset", "BorderLines"),
    "Corpus": ("bordir.corpus", "Corpus"),
    "Mode": ("bordir.modes", "Mode"),
    "BordIRLines": ("bordir.loaders.bordirlines", "BordIRLines"),
    "load_borderlines": ("bordir.loaders", "load_borderlines"),
    "load_borderlines_files": ("bordir.loaders", "load_borderlines_files"),
    "load_borderlines_hub": ("bordir.loaders", "load_borderlines_hub"),
    "load_bordirlines": ("bordir.loaders", "load_bordirlines"),
    "load_demo": ("bordir.loaders", "load_demo"),
    "load_demo_corpus": ("bordir.loaders", "load_demo_corpus"),
    "load_dataset": ("bordir.loaders.catalog", "load_dataset"),
    "load_corpus": ("bordir.corpus", "load_corpus"),
    "retrieve": ("bordir.retrieval.run", "retrieve"),
    "get_backend": ("bordir.generation.backend", "get_backend"),
    "Experiment": ("bordir.experiment.config", "Experiment"),
    "ExperimentConfig": ("bordir.experiment.config", "ExperimentConfig"),
    "run": ("bordir.runner.run", "run"),
    "load_run": ("bordir.runner.result", "load_run"),
    "Run": ("bordir.runner.result", "Run"),
    "calibrate_judge": ("bordir.judging.calibrate", "calibrate_judge"),
    "Calibration": ("bordir.judging.calibration", "Calibration"),
}


__all__ = ["__version__", *_LAZY]
"""The public API: the version, then every lazy name (tests/test_public_api.py pins it)."""


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'bordir' has no attribute {name!r}") from None
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from . import errors as errors
    from . import languages as languages
    from .corpus import Corpus as Corpus
    from .corpus import load_corpus as load_corpus
    from .dataset import BorderLines as BorderLines
    from .errors import BordirError as BordirError
    from .errors import ConfigError as ConfigError
    from .errors import DataError as DataError
    from .errors import MissingExtraError as MissingExtraError
    from .errors import UnknownLanguageError as UnknownLanguageError
    from .experiment.config import Experiment as Experiment
    from .experiment.config import ExperimentConfig as ExperimentConfig
    from .generation.backend import get_backend as get_backend
    from .judging.calibrate import calibrate_judge as calibrate_judge
    from .judging.calibration import Calibration as Calibration
    from .loaders import load_borderlines as load_borderlines
    from .loaders import load_borderlines_files as load_borderlines_files
    from .loaders import load_borderlines_hub as load_borderlines_hub
    from .loaders import load_bordirlines as load_bordirlines
    from .loaders import load_demo as load_demo
    from .loaders import load_demo_corpus as load_demo_corpus
    from .loaders.bordirlines import BordIRLines as BordIRLines
    from .loaders.catalog import load_dataset as load_dataset
    from .modes import Mode as Mode
    from .records import Country as Country
    from .records import Hit as Hit
    from .records import Passage as Passage
    from .records import Query as Query
    from .records import Territory as Territory
    from .retrieval.run import retrieve as retrieve
    from .runner.result import Run as Run
    from .runner.result import load_run as load_run
    from .runner.run import run as run
