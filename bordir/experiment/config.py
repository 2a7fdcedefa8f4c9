"""Experiment configuration: one TOML file plus overrides.

Example file (``docs/experiments.md`` documents every key)::

    [experiment]
    dataset = "demo"                 # demo | borderlines (then set dataset_path)
    corpus = "demo"                  # demo | path to a passages .jsonl
    retriever = "bm25"
    modes = "all"
    k = 10
    models = ["local/gemma-3-270m"]
    response_format = "direct"       # direct | citation
    system = "vanilla"
    seeds = [4321, 2557, 2558, 2559, 2560, 2561, 2562, 2563, 2564, 2565]
    temperature = 0.5
    relevance_filter = "all"         # all | relevant | non-relevant (needs labels; demo: gold labels)

Example:
    >>> cfg = ExperimentConfig.from_dict({"models": ["mock/first"], "runs": 2})
    >>> cfg.seeds, cfg.modes
    ((4321, 2557), ('no_ir', 'qlang', 'qlang+en', 'en_only', 'rel_langs', 'swap_docs'))
    >>> ExperimentConfig.from_dict({"k": 0})
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: <config>: field 'k': expected an integer >= 1, found 0
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError
from ..modes import Mode

__all__ = ["ExperimentConfig", "PAPER_SEEDS", "load_config"]

PAPER_SEEDS = (4321, 2557, 2558, 2559, 2560, 2561, 2562, 2563, 2564, 2565)
"""The BordIRLines seeds: 4321 (default) and 2557–2565."""


@dataclass(frozen=True)
class ExperimentConfig:
    """Everything that defines an experiment grid (query languages × modes × models × runs)."""

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
    concurrency: int = 8
    cache: str | None = None
    """Response cache path (default: $BORDIR_CACHE/responses.sqlite3, $BORDIR_CACHE defaulting to ~/.cache/bordir)."""
    relevance_filter: str = "all"
    """all | relevant | non-relevant: filter the ranked hits by their labels before taking the top k."""
    labels: str | None = None
    """Relevance labels for the filter (.jsonl/.csv); default: the shipped gold labels when dataset is demo."""

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "<config>") -> ExperimentConfig:
        data = dict(data)
        known = {f.name for f in dataclasses.fields(cls)} | {"runs"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")

        def bad(fieldname: str, expected: str) -> ConfigError:
            return ConfigError(f"{where}: field {fieldname!r}: expected {expected}, found {data[fieldname]!r}")

        runs = data.pop("runs", None)
        if runs is not None:
            if not isinstance(runs, int) or runs < 1:
                raise bad("runs", "an integer >= 1")
            if "seeds" not in data:
                if runs > len(PAPER_SEEDS):
                    data["seeds"] = PAPER_SEEDS + tuple(range(10_000, 10_000 + runs - len(PAPER_SEEDS)))
                else:
                    data["seeds"] = PAPER_SEEDS[:runs]
        for name in ("modes", "models", "seeds", "langs"):
            if name in data:
                v = data[name]
                if name == "modes" and isinstance(v, str):
                    v = [m.value for m in Mode] if v == "all" else v.split(",")
                if isinstance(v, str):
                    v = [x for x in v.split(",") if x]
                if not isinstance(v, (list, tuple)):
                    raise bad(name, "a list")
                data[name] = tuple(v)
        if "modes" in data:
            data["modes"] = tuple(Mode.parse(m).value for m in data["modes"])
        for name in ("k", "max_tokens", "concurrency"):
            if data.get(name) is not None and (not isinstance(data[name], int) or data[name] < 1):
                raise bad(name, "an integer >= 1")
        if "temperature" in data and (not isinstance(data["temperature"], (int, float)) or data["temperature"] < 0):
            raise bad("temperature", "a number >= 0")
        if data.get("response_format", "direct") not in ("direct", "citation"):
            raise bad("response_format", "'direct' or 'citation'")
        if data.get("policy", "strict") not in ("strict", "reference"):
            raise bad("policy", "'strict' or 'reference'")
        if "relevance_filter" in data:
            from ..annotations.use import RELEVANCE_FILTERS, parse_relevance_filter

            try:
                data["relevance_filter"] = parse_relevance_filter(data["relevance_filter"])
            except ConfigError:
                raise bad("relevance_filter", " | ".join(RELEVANCE_FILTERS)) from None
        if "seeds" in data and not all(isinstance(s, int) for s in data["seeds"]):
            raise bad("seeds", "a list of integers")
        if not data.get("models", ("x",)):
            raise bad("models", "at least one provider/model")
        return cls(**data)

    def override(self, **changes: Any) -> ExperimentConfig:
        """A copy with CLI overrides applied (None values are ignored)."""
        changes = {k: v for k, v in changes.items() if v is not None}
        merged = {**dataclasses.asdict(self), **changes}
        if "runs" in changes and "seeds" not in changes:
            del merged["seeds"]  # --runs picks the first n paper seeds
        return ExperimentConfig.from_dict(merged, where="<overrides>")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_config(path: str | Path) -> ExperimentConfig:
    """Read an experiment TOML (keys at top level or under ``[experiment]``)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found (expected an experiment .toml)", path=path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"invalid TOML: {exc}", path=path) from None
    data = data.get("experiment", data)
    return ExperimentConfig.from_dict(data, where=str(path))
