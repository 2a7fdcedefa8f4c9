"""Checking an experiment configuration's values: their types, ranges and names.

Each field is checked as its description says (:data:`~bordir.experiment.fields.FIELDS`: kind,
range, choices). Names are the ones registries define (modes, retriever, backend providers,
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
from .fields import FIELDS, MAX_K, MAX_TEMPERATURE, Field
from .seeds import seeds_for_runs

__all__ = ["check_values", "check_names", "check_mock_models", "MAX_K", "MAX_TEMPERATURE"]


def check_values(data: dict[str, Any], where: str) -> dict[str, Any]:
    """Type-, range- and name-check a flat config dict; return it normalised (tuples, canonical names).

    Each field is checked as :data:`~bordir.experiment.fields.FIELDS` describes it (its kind,
    range and choices); the names registries define are checked last (:func:`check_names`).
    """
    data = dict(data)

    def bad(name: str, expected: str) -> ConfigError:
        return ConfigError(f"{where}: field {name!r}: expected {expected}, found {data[name]!r}")

    runs = data.pop("runs", None)
    if runs is not None:
        data["runs"] = runs
        if not _is_int(runs) or runs < 1:
            raise bad("runs", "an integer >= 1")
        del data["runs"]
        if "seeds" not in data:
            data["seeds"] = seeds_for_runs(runs)
    for f in FIELDS:
        if f.name in data:
            data[f.name] = _CHECKS[f.kind](f, data[f.name], where, bad)
    if data.get("response_format") == "citation" and "no_ir" in data.get("modes", ("no_ir",)):
        said = "includes no_ir" if "modes" in data else "is not set, so every mode runs, no_ir too"
        raise ConfigError(
            f"{where}: field 'modes': {said}, whose prompt has no documents, but the citation "
            'format (response_format = "citation") asks the model to cite them; list the modes '
            'without no_ir (e.g. modes = ["qlang", "rel_langs"]), or use response_format = "direct"'
        )
    if data.get("response_format") == "open":
        _check_open(data, where)
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


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


Bad = Callable[[str, str], ConfigError]


def _bool(f: Field, v: Any, where: str, bad: Bad) -> Any:
    if not isinstance(v, bool):
        raise bad(f.name, f.expected())
    return v


def _text(f: Field, v: Any, where: str, bad: Bad) -> Any:
    if not isinstance(v, str) or not v.strip():
        raise bad(f.name, f.expected())
    return v


def _path(f: Field, v: Any, where: str, bad: Bad) -> Any:
    return None if v is None else _text(f, v, where, bad)


def _int(f: Field, v: Any, where: str, bad: Bad) -> Any:
    if v is not None and (not _is_int(v) or v < (f.lo or 0)):
        raise bad(f.name, f"an integer >= {f.lo}")
    if v is not None and f.hi is not None and v > f.hi:
        raise bad(f.name, f.expected())
    return v


def _seconds(f: Field, v: Any, where: str, bad: Bad) -> Any:
    if v is None:
        return None
    if not _is_num(v) or v <= 0:
        raise bad(f.name, f.expected())
    return float(v)


def _number(f: Field, v: Any, where: str, bad: Bad) -> Any:
    if not _is_num(v) or v < 0:
        raise bad(f.name, f.expected())
    if v > MAX_TEMPERATURE:
        raise bad(
            f.name, f"a number from 0 to {MAX_TEMPERATURE:g} (the range the providers accept)"
        )
    return float(v)


def _choice(f: Field, v: Any, where: str, bad: Bad) -> Any:
    if v is None and f.name == "fusion":  # None: the retriever's own
        return None
    if not isinstance(v, str) or v not in f.allowed():
        raise bad(f.name, f.expected())
    return v


def _names(v: Any, name: str, bad: Bad, *, all_modes: bool = False) -> tuple[Any, ...]:
    """A list, or a comma-separated string, as a tuple."""
    if all_modes and isinstance(v, str):
        v = [m.value for m in Mode] if v.strip() == "all" else v.split(",")
    if isinstance(v, str):
        v = [x.strip() for x in v.split(",") if x.strip()]
    if not isinstance(v, (list, tuple)):
        raise bad(name, "a list")
    return tuple(v)


def _special(f: Field, v: Any, where: str, bad: Bad) -> Any:
    """A field with its own parser: modes, models, seeds, languages, option orders, the filter."""
    name = f.name
    try:
        if name == "option_orders":
            from ..option_orders import parse_schemes

            return parse_schemes(v)
        if name == "relevance_filter":
            from ..annotations.use import RELEVANCE_FILTERS, parse_relevance_filter

            _text(f, v, where, bad)
            try:
                return parse_relevance_filter(v)
            except ConfigError:
                raise bad(name, " | ".join(RELEVANCE_FILTERS)) from None
        if name == "order_modes":
            v = [x for x in v.split(",") if x] if isinstance(v, str) else v
            if not isinstance(v, (list, tuple)):
                raise bad(name, "a list of modes")
            return tuple(dict.fromkeys(Mode.parse(m).value for m in v))
        out = _names(v, name, bad, all_modes=name == "modes")
        if name == "seeds":
            if not out:
                raise bad(name, "a non-empty list of integers (or set runs)")
            if not all(_is_int(s) for s in out):
                raise bad(name, "a list of integers")
            if len(set(out)) != len(out):
                raise bad(name, "distinct integers (a repeated seed repeats a run)")
            return out
        if not all(isinstance(x, str) and x.strip() for x in out):
            raise bad(name, "a list of non-empty strings")
        if name == "modes":
            if not out:
                raise bad(name, "at least one mode ('all' or e.g. ['qlang', 'rel_langs'])")
            return tuple(dict.fromkeys(Mode.parse(m).value for m in out))
        return out
    except ConfigError as exc:
        if str(exc).startswith(f"{where}: field "):
            raise
        raise ConfigError(f"{where}: field {name!r}: {exc}") from None


_CHECKS: dict[str, Callable[[Field, Any, str, Bad], Any]] = {
    "bool": _bool,
    "text": _text,
    "path": _path,
    "int": _int,
    "seconds": _seconds,
    "number": _number,
    "choice": _choice,
    "special": _special,
}


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
