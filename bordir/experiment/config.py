"""Experiment configuration: what changes results (:class:`Experiment`) and how to run it (:class:`Operational`).

One TOML file (keys under ``[experiment]``, or at top level) plus overrides;
``docs/experiments.md`` documents every key::

    [experiment]
    dataset = "demo"                 # demo | borderlines (then set dataset_path)
    corpus = "demo"                  # demo | a corpus directory | passages .jsonl/.parquet/.csv | all_docs.json
    retriever = "bm25"
    modes = "all"
    k = 10
    models = ["local/gemma-3-270m"]
    response_format = "direct"       # direct | citation
    system = "vanilla"
    seeds = [4321, 2557, 2558, 2559, 2560, 2561, 2562, 2563, 2564, 2565]
    temperature = 0.5
    relevance_filter = "all"         # all | relevant | non-relevant (needs labels; demo: gold labels)
    concurrency = 8                  # operational: never enters a signature or the cache key
    timeout = 120                    # operational: seconds per request over all its retries

Every value is checked when the file is read: its type (``balanced = "no"`` is
an error, not ``True``; ``k = true`` is not ``1``), its range (``temperature``
finite and >= 0, ``runs`` >= 1, ``seeds`` non-empty) and its name (modes,
retriever, backend provider, dataset, system prompt, languages), and the
message names the file and the field.

:class:`Experiment` holds the settings that change results: they enter the
signatures and the response cache key. :class:`Operational` holds the rest
(concurrency, timeouts, retries, cache path). :class:`ExperimentConfig` joins
the two and reads and writes the flat TOML / ``run.json`` form.

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
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError
from ..retrieval.modes import Mode

__all__ = [
    "Experiment",
    "Operational",
    "ExperimentConfig",
    "PAPER_SEEDS",
    "load_config",
    "OPERATIONAL_FIELDS",
]

PAPER_SEEDS = (4321, 2557, 2558, 2559, 2560, 2561, 2562, 2563, 2564, 2565)
"""The BordIRLines seeds: 4321 (default) and 2557–2565."""


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
    corpus: str = "demo"
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
    """Default: 128 (direct) or 512 (citation), as in BordIRLines."""
    langs: tuple[str, ...] = ()
    """Query languages to keep (empty: all)."""
    policy: str = "strict"
    relevance_filter: str = "all"
    """all | relevant | non-relevant: filter the ranked hits by their labels before taking the top k."""
    labels: str | None = None
    """Relevance labels for the filter (.jsonl/.csv); default: the shipped gold labels when dataset is demo."""
    option_orders: str = "given"
    """given | reversed | cyclic | all (comma-separated for a union): the option orders each query is asked in
    (bordir.experiment.orders; the given order always first)."""
    order_modes: tuple[str, ...] = ()
    """The modes asked in the orders beyond the given one (empty: every mode)."""
    calibrate: bool = True
    """Rank classification: also score each query's options under a content-free query (contextual
    calibration, given order; column cf_logprobs)."""

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
    """Seconds one request may take over all its attempts (None: the executor's default)."""
    max_retries: int | None = None
    """Retries of a transient failure (None: the executor's default)."""
    deadline: float | None = None
    """Seconds one (model, mode) batch may take in all (None: no limit)."""
    max_consecutive_failures: int | None = None
    """Stop a (model, mode) after this many failed requests in a row (None: never)."""

    __repr__ = _repr


OPERATIONAL_FIELDS = tuple(f.name for f in dataclasses.fields(Operational))
_EXPERIMENT_FIELDS = tuple(f.name for f in dataclasses.fields(Experiment))


def _check(data: dict[str, Any], where: str) -> dict[str, Any]:
    """Type-, range- and name-check a flat config dict; return it normalised (tuples, canonical names)."""
    data = dict(data)

    def bad(name: str, expected: str) -> ConfigError:
        return ConfigError(f"{where}: field {name!r}: expected {expected}, found {data[name]!r}")

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def is_num(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    runs = data.pop("runs", None)
    if runs is not None:
        data["runs"] = runs
        if not is_int(runs) or runs < 1:
            raise bad("runs", "an integer >= 1")
        del data["runs"]
        if "seeds" not in data:
            extra = tuple(range(10_000, 10_000 + max(0, runs - len(PAPER_SEEDS))))
            data["seeds"] = (PAPER_SEEDS + extra)[:runs]
    for name in ("repair", "balanced", "calibrate"):
        if name in data and not isinstance(data[name], bool):
            raise bad(name, "true or false")
    for name in (
        "dataset",
        "corpus",
        "retriever",
        "response_format",
        "system",
        "instruction_lang",
        "policy",
        "relevance_filter",
    ):
        if name in data and (not isinstance(data[name], str) or not data[name].strip()):
            raise bad(name, "a non-empty string")
    for name in ("dataset_path", "labels", "cache", "fusion"):
        if data.get(name) is not None and (
            not isinstance(data[name], str) or not data[name].strip()
        ):
            raise bad(
                name, "a non-empty string (a path)" if name != "fusion" else "raw, minmax or rrf"
            )
    if "option_orders" in data:
        from .orders import parse_schemes

        try:
            data["option_orders"] = parse_schemes(data["option_orders"])
        except ConfigError as exc:
            raise ConfigError(f"{where}: field 'option_orders': {exc}") from None
    if "order_modes" in data:
        v = data["order_modes"]
        v = [x for x in v.split(",") if x] if isinstance(v, str) else v
        if not isinstance(v, (list, tuple)):
            raise bad("order_modes", "a list of modes")
        try:
            data["order_modes"] = tuple(dict.fromkeys(Mode.parse(m).value for m in v))
        except ConfigError as exc:
            raise ConfigError(f"{where}: field 'order_modes': {exc}") from None
    for name in ("modes", "models", "seeds", "langs"):
        if name in data:
            v = data[name]
            if name == "modes" and isinstance(v, str):
                v = [m.value for m in Mode] if v.strip() == "all" else v.split(",")
            if isinstance(v, str):
                v = [x.strip() for x in v.split(",") if x.strip()]
            if not isinstance(v, (list, tuple)):
                raise bad(name, "a list")
            data[name] = tuple(v)
    for name in ("modes", "models", "langs"):
        if name in data and not all(isinstance(x, str) and x.strip() for x in data[name]):
            raise bad(name, "a list of non-empty strings")
    if "modes" in data:
        if not data["modes"]:
            raise bad("modes", "at least one mode ('all' or e.g. ['qlang', 'rel_langs'])")
        try:
            data["modes"] = tuple(dict.fromkeys(Mode.parse(m).value for m in data["modes"]))
        except ConfigError as exc:
            raise ConfigError(f"{where}: field 'modes': {exc}") from None
    if "seeds" in data:
        seeds = data["seeds"]
        if not seeds:
            raise bad("seeds", "a non-empty list of integers (or set runs)")
        if not all(is_int(s) for s in seeds):
            raise bad("seeds", "a list of integers")
        if len(set(seeds)) != len(seeds):
            raise bad("seeds", "distinct integers (a repeated seed repeats a run)")
    for name, lo in (
        ("k", 1),
        ("max_tokens", 1),
        ("concurrency", 1),
        ("max_retries", 0),
        ("max_consecutive_failures", 1),
    ):
        if data.get(name) is not None and (not is_int(data[name]) or data[name] < lo):
            raise bad(name, f"an integer >= {lo}")
    if "temperature" in data and (not is_num(data["temperature"]) or data["temperature"] < 0):
        raise bad("temperature", "a finite number >= 0")
    if "temperature" in data:
        data["temperature"] = float(data["temperature"])
    for name in ("timeout", "deadline"):
        if data.get(name) is not None:
            if not is_num(data[name]) or data[name] <= 0:
                raise bad(name, "a positive number of seconds")
            data[name] = float(data[name])
    if data.get("response_format", "direct") not in ("direct", "citation"):
        raise bad("response_format", "'direct' or 'citation'")
    if data.get("policy", "strict") not in ("strict", "reference"):
        raise bad("policy", "'strict' or 'reference'")
    if data.get("fusion") is not None and data["fusion"] not in ("raw", "minmax", "rrf"):
        raise bad("fusion", "raw, minmax or rrf")
    if "relevance_filter" in data:
        from ..annotations.use import RELEVANCE_FILTERS, parse_relevance_filter

        try:
            data["relevance_filter"] = parse_relevance_filter(data["relevance_filter"])
        except ConfigError:
            raise bad("relevance_filter", " | ".join(RELEVANCE_FILTERS)) from None
    _check_names(data, where, bad)
    return data


def _check_names(data: dict[str, Any], where: str, bad) -> None:
    """Names that registries define: dataset, retriever, backend providers, system prompt, languages."""
    from ..catalog import DATASETS

    if "dataset" in data and data["dataset"] not in ("demo", "borderlines"):
        known = ", ".join(n for n in sorted(DATASETS) if n != "bordirlines")
        raise bad("dataset", f"one of {known} (experiments need BorderLines-format queries)")
    if data.get("dataset", "demo") == "demo" and data.get("dataset_path"):
        raise bad("dataset_path", "nothing for the bundled demo dataset (remove dataset_path)")
    if "retriever" in data:
        from ..retrieval.base import available

        prefix = data["retriever"].partition("/")[0]
        if prefix not in available():
            raise bad("retriever", f"one of {', '.join(available())} (providers as provider/model)")
    if "models" in data:
        from ..generation.backend import available_backends

        if not data["models"]:
            raise bad("models", "at least one provider/model")
        for m in data["models"]:
            provider, sep, name = m.partition("/")
            if not sep or not name or provider not in available_backends():
                raise ConfigError(
                    f"{where}: field 'models': {m!r} is not provider/model with a known provider; "
                    f"providers: {', '.join(available_backends())}"
                )
    if "system" in data:
        from ..generation.prompts import system_prompts

        if data["system"] not in system_prompts():
            raise bad("system", f"one of {', '.join(system_prompts())}")
    if "langs" in data or "instruction_lang" in data:
        from ..languages import registry

        reg = registry()
        codes = []
        for code in data.get("langs", ()):
            codes.append(reg.resolve(code, where=f"{where}: field 'langs'").code)
        if "langs" in data:
            data["langs"] = tuple(dict.fromkeys(codes))
        if "instruction_lang" in data:
            data["instruction_lang"] = reg.resolve(
                data["instruction_lang"], where=f"{where}: field 'instruction_lang'"
            ).code


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

    __slots__ = ("experiment", "operational")
    experiment: Experiment
    operational: Operational

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

    def __reduce__(self):
        return (ExperimentConfig, (self.experiment, self.operational))

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "<config>") -> ExperimentConfig:
        """Check and build from the flat form (TOML keys, ``run.json`` ``config``)."""
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a table of settings, found {type(data).__name__}")
        known = set(_EXPERIMENT_FIELDS) | set(OPERATIONAL_FIELDS) | {"runs"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        data = _check(data, where)
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
        return ExperimentConfig.from_dict(merged, where="<overrides>")

    def to_dict(self) -> dict[str, Any]:
        """The flat form: every field of both parts."""
        return {**dataclasses.asdict(self.experiment), **dataclasses.asdict(self.operational)}


def load_config(path: str | Path) -> ExperimentConfig:
    """Read an experiment TOML (keys under ``[experiment]``, or all at top level)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found (expected an experiment .toml)", path=path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"invalid TOML: {exc}", path=path) from None
    except UnicodeDecodeError:
        raise DataError("not UTF-8 text (expected an experiment .toml)", path=path) from None
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
    _check_mock_models(data.get("models"), str(path))
    return ExperimentConfig.from_dict(data, where=str(path))


def _check_mock_models(models: Any, where: str) -> None:
    """A misspelt ``mock/…`` behaviour in a config file would answer "" to every call: refuse it.

    Only files are checked: Python callers may pass their own backends under ``mock/…`` names
    (``run_experiment(..., backends={...})``).
    """
    if not isinstance(models, (list, tuple)):
        return
    from ..generation.backends.mock import MockBackend

    for m in models:
        if isinstance(m, str) and m.startswith("mock/"):
            try:
                MockBackend(m.removeprefix("mock/"))
            except ConfigError as exc:
                raise ConfigError(f"{where}: field 'models': {exc}") from None
