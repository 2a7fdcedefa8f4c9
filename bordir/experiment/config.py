"""Experiment configuration: what changes results (:class:`Experiment`) and how to run it (:class:`Operational`).

One TOML file (keys under ``[experiment]``, or at top level) plus overrides;
``docs/experiments.md`` documents every key::

    [experiment]
    dataset = "demo"                 # demo | borderlines (then set dataset_path)
    corpus = "demo"                  # demo | a corpus directory | passages .jsonl/.parquet/.csv | all_docs.json
                                     # (omitted: the demo's own; required for borderlines with IR modes)
    retriever = "bm25"
    modes = "all"
    k = 10
    models = ["local/gemma-3-270m"]
    response_format = "direct"       # direct | citation | open (the question without options)
    system = "vanilla"
    seeds = [4321, 2557, 2558, 2559, 2560, 2561, 2562, 2563, 2564, 2565]
    temperature = 0.5
    relevance_filter = "all"         # all | relevant | non-relevant (needs labels; demo: gold labels)
    concurrency = 8                  # operational: never enters a signature or the cache key
    timeout = 120                    # operational: seconds one attempt may take (then retried)

Every value is checked when the file is read: its type (``balanced = "no"`` is
an error, not ``True``; ``k = true`` is not ``1``), its range (``temperature``
finite and >= 0, ``runs`` >= 1, ``seeds`` non-empty) and its name (modes,
retriever, backend provider, dataset, system prompt, languages), and the
message names the file and the field.

:class:`Experiment` holds the settings that change results: they enter the
signatures and the response cache key. :class:`Operational` holds the rest
(concurrency, timeouts, retries, cache path). :class:`ExperimentConfig` joins
the two and reads and writes the flat TOML / ``run.json`` form; the values are
checked by :mod:`~bordir.experiment.validate`.

Example:
    >>> cfg = ExperimentConfig.from_dict({"models": ["mock/first"], "runs": 2, "concurrency": 4})
    >>> cfg.seeds, cfg.modes
    ((4321, 2557), ('no_ir', 'qlang', 'qlang+en', 'en_only', 'rel_langs', 'swap_docs'))
    >>> cfg.operational
    Operational(concurrency=4)
    >>> ExperimentConfig.from_dict({"k": 0})
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: <config>: field 'k': expected an integer >= 1, found 0
    >>> ExperimentConfig.from_dict({"balanced": "no"})
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: <config>: field 'balanced': expected true or false, found 'no'
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io.toml import loads as toml_loads
from ..errors import ConfigError, DataError
from ..modes import Mode
from .seeds import PAPER_SEEDS

if TYPE_CHECKING:  # pragma: no cover
    from ..generation.call_limits import ExecutorOptions

__all__ = [
    "Experiment",
    "Operational",
    "ExperimentConfig",
    "load_config",
    "OPERATIONAL_FIELDS",
]


def _repr(obj: Any) -> str:
    """``Name(field=value, …)`` showing only fields that differ from their defaults."""
    parts = []
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        default = f.default if f.default is not dataclasses.MISSING else None
        if v != default:
            parts.append(f"{f.name}={v!r}")
    return f"{type(obj).__name__}({', '.join(parts)})"


@dataclass(frozen=True, kw_only=True, repr=False)
class Experiment:
    """The settings that change results (they enter signatures and the cache key).

    Example:
        >>> Experiment(models=("mock/first",), k=3)
        Experiment(k=3, models=('mock/first',))
    """

    dataset: str = "demo"
    dataset_path: str | None = None
    repair: bool = False
    corpus: str | None = None
    """The corpus (``demo``, a directory, a passages file …); None: the dataset's own, which only the
    demo has (any other dataset with an IR mode is refused: :func:`~bordir.experiment.inputs.load_corpus_of`)."""
    retriever: str = "bm25"
    fusion: str | None = None
    balanced: bool = False
    modes: tuple[str, ...] = tuple(m.value for m in Mode)
    k: int = 10
    models: tuple[str, ...] = ("local/gemma-3-270m",)
    response_format: str = "direct"
    system: str = "vanilla"
    instruction_lang: str = "en"
    seeds: tuple[int, ...] = PAPER_SEEDS
    temperature: float = 0.5
    max_tokens: int | None = None
    """Default: 128 (direct) or 512 (citation), as in BordIRLines; 256 for open (a free answer)."""
    langs: tuple[str, ...] = ()
    """Query languages to keep (empty: all)."""
    limit: int | None = None
    """Keep only the queries about the dataset's first ``limit`` territories (a quick trial; in every
    signature as ``limit:N``). None: every territory."""
    policy: str = "strict"
    relevance_filter: str = "all"
    """all | relevant | non-relevant: filter the ranked hits by their labels before taking the top k."""
    labels: str | None = None
    """Relevance labels for the filter (.jsonl/.csv); default: the shipped gold labels when dataset is demo."""
    option_orders: str = "given"
    """given | reversed | cyclic | all (comma-separated for a union): the option orders each query is asked in
    (bordir.option_orders; the given order always first)."""
    order_modes: tuple[str, ...] = ()
    """The modes asked in the orders beyond the given one (empty: every mode)."""
    calibrate: bool = True
    """Rank classification: also score each query's options under a content-free query (contextual
    calibration, given order; column cf_logprobs). The calibrated rule removes an additive letter
    bias exactly at any temperature, and a mixture habit (letter A with probability π whatever the
    content) exactly at temperature 0 only: at 0.7 it keeps about 50–70 % of that habit's effect on
    KB / Control / Non-control CS and all of it on Cst CS at π = 0.2 (docs/methodology.md)."""

    __repr__ = _repr


@dataclass(frozen=True, kw_only=True, repr=False)
class Operational:
    """How a run is carried out; never part of a signature or the cache key.

    Example:
        >>> Operational(concurrency=2, timeout=30.0)
        Operational(concurrency=2, timeout=30.0)
    """

    concurrency: int = 8
    cache: str | None = None
    """Response cache path (default: $BORDIR_CACHE/responses.sqlite3, $BORDIR_CACHE defaulting to ~/.cache/bordir)."""
    timeout: float | None = None
    """Seconds one attempt may take; a hung attempt is cut and retried (None: the executor's default, 60 s)."""
    request_deadline: float | None = None
    """Seconds one request may take over all its attempts and waits (None: the executor's default, 300 s)."""
    max_retries: int | None = None
    """Retries of a transient failure (None: the executor's default, 6)."""
    deadline: float | None = None
    """Seconds one (model, mode) batch may take in all (None: no limit)."""
    max_consecutive_failures: int | None = None
    """Stop a (model, mode) after this many failed requests in a row (None: the executor's default, 10)."""

    __repr__ = _repr

    def executor_options(self) -> ExecutorOptions:
        """The executor's settings for one (model, mode) batch (unset values: the executor's defaults).

        Example:
            >>> Operational(concurrency=2, timeout=30.0).executor_options()
            ExecutorOptions(concurrency=2, timeout=30.0)
        """
        from ..generation.call_limits import ExecutorOptions

        return ExecutorOptions.given(  # unset values keep the executor's defaults
            concurrency=self.concurrency,
            deadline=self.deadline,
            timeout=self.timeout,
            request_deadline=self.request_deadline,
            max_retries=self.max_retries,
            max_consecutive_failures=self.max_consecutive_failures,
        )


OPERATIONAL_FIELDS = tuple(f.name for f in dataclasses.fields(Operational))
_EXPERIMENT_FIELDS = tuple(f.name for f in dataclasses.fields(Experiment))


class ExperimentConfig:
    """An experiment (:class:`Experiment`) and how to run it (:class:`Operational`).

    Build it from the two parts, or from flat keyword fields (checked as a
    config file would be). Attribute access is delegated, so ``cfg.k`` and
    ``cfg.concurrency`` work; :meth:`to_dict` gives the flat form written to
    ``run.json``. Immutable and hashable.

    Example:
        >>> ExperimentConfig(models=["mock/first"], k=3).experiment
        Experiment(k=3, models=('mock/first',))
    """

    __slots__ = ("experiment", "operational", "source")
    experiment: Experiment
    operational: Operational
    source: str | None
    """The file the config was read from (named in errors about its fields); not part of equality."""

    def __init__(
        self,
        experiment: Experiment | None = None,
        operational: Operational | None = None,
        **fields: Any,
    ) -> None:
        if fields:
            if experiment is not None or operational is not None:
                raise ConfigError(
                    "pass either Experiment/Operational objects or flat fields, not both"
                )
            built = ExperimentConfig.from_dict(fields, where="ExperimentConfig(...)")
            experiment, operational = built.experiment, built.operational
        object.__setattr__(
            self, "experiment", experiment if experiment is not None else Experiment()
        )
        object.__setattr__(
            self, "operational", operational if operational is not None else Operational()
        )
        object.__setattr__(self, "source", None)

    def with_source(self, source: str | os.PathLike[str] | None) -> ExperimentConfig:
        """The same config, remembering the file it came from (error messages name it)."""
        out = ExperimentConfig(self.experiment, self.operational)
        object.__setattr__(out, "source", None if source is None else str(source))
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ExperimentConfig is immutable; use override()")

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ExperimentConfig)
            and self.experiment == other.experiment
            and self.operational == other.operational
        )

    def __hash__(self) -> int:
        return hash((self.experiment, self.operational))

    def __getattr__(self, name: str) -> Any:
        for part in (Experiment, Operational):
            if name in part.__dataclass_fields__:
                return getattr(object.__getattribute__(self, part.__name__.lower()), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"ExperimentConfig({self.experiment!r}, {self.operational!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.experiment, self.operational, self.source))

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "<config>") -> ExperimentConfig:
        """Check and build from the flat form (TOML keys, ``run.json`` ``config``)."""
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a table of settings, found {type(data).__name__}")
        known = set(_EXPERIMENT_FIELDS) | set(OPERATIONAL_FIELDS) | {"runs"}
        unknown = sorted(set(data) - known)
        if unknown:
            from .._suggest import close_names

            def named(key: str) -> str:
                close = close_names(key, known, n=1)
                return f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key)

            raise ConfigError(
                f"{where}: unknown field(s) {', '.join(named(k) for k in unknown)}; "
                f"known: {', '.join(sorted(known))}"
            )
        from .validate import check_values

        data = check_values(data, where)
        exp = Experiment(**{k: v for k, v in data.items() if k in _EXPERIMENT_FIELDS})
        op = Operational(**{k: v for k, v in data.items() if k in OPERATIONAL_FIELDS})
        return cls(exp, op)

    @classmethod
    def coerce(cls, config: Any, *, where: str = "<config>") -> ExperimentConfig:
        """An :class:`ExperimentConfig` from one, an :class:`Experiment`, a dict or a TOML path."""
        if isinstance(config, ExperimentConfig):
            return config
        if isinstance(config, Experiment):  # checked like a config file
            return cls.from_dict(dataclasses.asdict(config), where="Experiment(...)")
        if isinstance(config, dict):
            return cls.from_dict(config, where=where)
        if isinstance(config, (str, Path)):
            return load_config(config)
        raise ConfigError(
            f"expected an Experiment, ExperimentConfig, dict or TOML path, found {type(config).__name__}"
        )

    def override(self, **changes: Any) -> ExperimentConfig:
        """A copy with overrides applied (None values are ignored)."""
        changes = {k: v for k, v in changes.items() if v is not None}
        merged = {**self.to_dict(), **changes}
        if "runs" in changes and "seeds" not in changes:
            merged.pop("seeds", None)  # --runs picks the first n paper seeds
        if (
            changes.get("dataset", self.dataset) != self.dataset
            and "corpus" not in changes
            and self.corpus == "demo"
        ):  # the demo corpus does not follow the dataset to another one: say which to use
            merged["corpus"] = None
        options = ", ".join(f"--{k.replace('_', '-')}" for k in changes)
        where = f"{self.source} with {options}" if self.source and options else "<overrides>"
        out = ExperimentConfig.from_dict(merged, where=where)
        return out.with_source(self.source if "corpus" not in changes else "--corpus")

    def to_dict(self) -> dict[str, Any]:
        """The flat form: every field of both parts."""
        return {**dataclasses.asdict(self.experiment), **dataclasses.asdict(self.operational)}


def load_config(path: str | Path) -> ExperimentConfig:
    """Read an experiment TOML (keys under ``[experiment]``, or all at top level)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found (expected an experiment .toml)", path=path)
    try:
        data = toml_loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"invalid TOML: {exc}", path=path) from None
    except UnicodeDecodeError:
        raise DataError("not UTF-8 text (expected an experiment .toml)", path=path) from None
    if isinstance(data.get("runs"), list):  # [[runs]] tables (``runs = 3`` is the number of runs)
        raise ConfigError(
            f"{path} is a suite of runs ([[runs]]): `bordir run` runs each into --out/<name>; in "
            "Python, bordir.experiment.suite.load_suite reads it"
        )
    if "experiment" in data:
        others = sorted(k for k in data if k != "experiment")
        if others:
            raise ConfigError(
                f"{path}: key(s) {', '.join(others)} outside [experiment] would be ignored; "
                "put every setting under [experiment] (or drop the [experiment] header)"
            )
        data = data["experiment"]
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: 'experiment' must be a table ([experiment])")
    if not data:
        raise ConfigError(
            f"{path}: no settings found; an empty file would run the whole default grid "
            "(local/gemma-3-270m, 10 runs, 6 modes): write the settings under [experiment]"
        )
    from .validate import check_mock_models

    check_mock_models(data.get("models"), str(path))
    return ExperimentConfig.from_dict(data, where=str(path)).with_source(path)


def _rebuild(
    experiment: Experiment, operational: Operational, source: str | None
) -> ExperimentConfig:
    """Unpickle an :class:`ExperimentConfig` (the Ray executor ships configs to its workers)."""
    return ExperimentConfig(experiment, operational).with_source(source)
