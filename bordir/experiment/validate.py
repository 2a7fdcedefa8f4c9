"""Checking an experiment configuration's values: their types, ranges and names.

Names are the ones registries define (modes, retriever, backend providers,
dataset, system prompt, languages); every error names the file and the field.
Used by :meth:`~bordir.experiment.config.ExperimentConfig.from_dict` and
:func:`~bordir.experiment.config.load_config`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from ..modes import Mode
from .seeds import seeds_for_runs

__all__ = ["check_values", "check_names", "check_mock_models"]


MAX_K = 1_000
"""Documents per prompt at most (BordIRLines uses up to 10)."""
MAX_TEMPERATURE = 2.0
"""Sampling temperature at most: OpenAI accepts [0, 2], Cohere [0, 1]."""


def check_values(data: dict[str, Any], where: str) -> dict[str, Any]:
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
            data["seeds"] = seeds_for_runs(runs)
    for name in ("repair", "balanced", "calibrate"):
        if name in data and not isinstance(data[name], bool):
            raise bad(name, "true or false")
    for name in (
        "dataset",
        "retriever",
        "response_format",
        "system",
        "instruction_lang",
        "policy",
        "relevance_filter",
    ):
        if name in data and (not isinstance(data[name], str) or not data[name].strip()):
            raise bad(name, "a non-empty string")
    for name in ("dataset_path", "labels", "cache", "fusion", "corpus"):
        if data.get(name) is not None and (
            not isinstance(data[name], str) or not data[name].strip()
        ):
            raise bad(
                name,
                {"fusion": "raw, minmax or rrf", "corpus": "'demo' or a path"}.get(
                    name, "a non-empty string (a path)"
                ),
            )
    if "option_orders" in data:
        from ..options import parse_schemes

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
    for name, lo, hi in (
        ("k", 1, MAX_K),
        ("max_tokens", 1, 1_000_000),
        ("concurrency", 1, 10_000),
        ("max_retries", 0, 100),
        ("max_consecutive_failures", 1, None),
        ("limit", 1, None),
    ):
        value = data.get(name)
        if value is not None and (not is_int(value) or value < lo):
            raise bad(name, f"an integer >= {lo}")
        if value is not None and hi is not None and value > hi:
            raise bad(name, f"an integer from {lo} to {hi:,}")
    if "temperature" in data and (not is_num(data["temperature"]) or data["temperature"] < 0):
        raise bad("temperature", "a finite number >= 0")
    if "temperature" in data and data["temperature"] > MAX_TEMPERATURE:
        raise bad(
            "temperature",
            f"a number from 0 to {MAX_TEMPERATURE:g} (the range the providers accept)",
        )
    if "temperature" in data:
        data["temperature"] = float(data["temperature"])
    for name in ("timeout", "deadline"):
        if data.get(name) is not None:
            if not is_num(data[name]) or data[name] <= 0:
                raise bad(name, "a positive number of seconds")
            data[name] = float(data[name])
    if data.get("response_format", "direct") not in ("direct", "citation", "open"):
        raise bad("response_format", "'direct', 'citation' or 'open'")
    if data.get("response_format") == "open":
        _check_open(data, where)
    from ..policies import PARSE_POLICIES
    from ..retrieval.fusion import FUSIONS

    if data.get("policy", "strict") not in PARSE_POLICIES:
        raise bad("policy", "'strict' or 'reference'")
    if data.get("fusion") is not None and data["fusion"] not in FUSIONS:
        raise bad("fusion", "raw, minmax or rrf")
    if "relevance_filter" in data:
        from ..annotations.use import RELEVANCE_FILTERS, parse_relevance_filter

        try:
            data["relevance_filter"] = parse_relevance_filter(data["relevance_filter"])
        except ConfigError:
            raise bad("relevance_filter", " | ".join(RELEVANCE_FILTERS)) from None
    check_names(data, where, bad)
    return data


def _check_open(data: dict[str, Any], where: str) -> None:
    """What the open format cannot serve: refused here, with the fix (never a default to option A)."""
    if data.get("policy", "strict") != "strict":
        raise ConfigError(
            f"{where}: field 'policy': response_format 'open' needs policy 'strict' (a free answer has "
            "no option A to fall back to: an answer naming no claimant stays its own outcome); "
            "remove policy or set it to 'strict'"
        )
    if str(data.get("instruction_lang", "en")).casefold() != "en":
        raise ConfigError(
            f"{where}: field 'instruction_lang': response_format 'open' has an English instruction only "
            "(the question itself is in the query's language); remove instruction_lang"
        )
    if data.get("option_orders", "given") != "given":
        raise ConfigError(
            f"{where}: field 'option_orders': response_format 'open' shows no options, so there is no "
            "order to vary; remove option_orders (or ask the direct format in other orders)"
        )
    if data.get("langs"):
        from ..generation.open_question import check_open_languages

        try:
            check_open_languages(list(data["langs"]))
        except ConfigError as exc:
            raise ConfigError(f"{where}: field 'langs': {exc}") from None


def check_names(data: dict[str, Any], where: str, bad: Callable[[str, str], ConfigError]) -> None:
    """Names that registries define: dataset, retriever, backend providers, system prompt, languages."""
    from ..loaders.catalog import DATASETS

    if "dataset" in data and data["dataset"] not in ("demo", "borderlines"):
        known = ", ".join(n for n in sorted(DATASETS) if n in ("demo", "borderlines"))
        raise bad("dataset", f"one of {known} (experiments need BorderLines-format queries)")
    if data.get("dataset", "demo") == "demo" and data.get("dataset_path"):
        raise bad("dataset_path", "nothing for the bundled demo dataset (remove dataset_path)")
    if "retriever" in data:
        from ..retrieval.base import available, base_retriever_name

        prefix = base_retriever_name(data["retriever"]).partition("/")[0]
        if prefix not in available():
            raise bad("retriever", f"one of {', '.join(available())} (providers as provider/model)")
    if "models" in data:
        from ..generation.backend import available_backends

        if not data["models"]:
            raise bad("models", "at least one provider/model")
        for m in data["models"]:
            provider, sep, name = m.partition("/")
            if not sep or not name or provider not in available_backends():
                from .._suggest import did_you_mean

                raise ConfigError(
                    f"{where}: field 'models': {m!r} is not provider/model with a known provider; "
                    f"providers: {', '.join(available_backends())}"
                    f"{did_you_mean(provider, available_backends(), n=2) if sep else ''}"
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


def check_mock_models(models: Any, where: str) -> None:
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
