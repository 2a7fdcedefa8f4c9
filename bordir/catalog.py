"""The listings of ``bordir list``: one row per registry entry, each with a one-line description.

Every row comes from a registry: backends (:data:`bordir.generation.backend.BACKENDS`),
retrievers, modes, metrics, datasets (:data:`bordir.loaders.catalog.DATASETS`),
fusions, policies and testbeds (:data:`bordir.testbeds.testbed.TESTBEDS`); the prompt templates
and system prompts the generation stage ships; the test-generation strategies. The stages are
imported inside each function, so that listing one registry loads only its stage.

Example:
    >>> names = [r["name"] for r in list_datasets()]
    >>> names
    ['borderlines', 'bordirlines', 'nomiracl', 'demo']
"""

from __future__ import annotations

__all__ = [
    "list_backends",
    "list_retrievers",
    "list_modes",
    "list_metrics",
    "list_datasets",
    "list_fusions",
    "list_policies",
    "list_testbeds",
    "list_prompts",
    "list_systems",
    "list_strategies",
    "list_publishers",
]


def list_backends() -> list[dict[str, str]]:
    """``name, description`` per backend provider (the generation registry); the mock's behaviours one each.

    Example:
        >>> rows = list_backends()
        >>> any(r["name"] == "mock/first" for r in rows), all(r["description"] for r in rows)
        (True, True)
    """
    from .generation.backend import BACKENDS

    rows: list[dict[str, str]] = []
    for e in sorted(BACKENDS.entries(), key=lambda e: e.name):
        if e.meta.get("variants"):  # the mock's behaviours: one row each
            rows.extend(
                {"name": n, "description": d, "kind": e.name} for n, d in e.meta["variants"].items()
            )
            continue
        rows.append(
            {"name": f"{e.name}/<model>", "description": e.description or e.name, "kind": "backend"}
        )
    return rows


def list_retrievers() -> list[dict[str, str]]:
    """``name, description`` per retriever of the retrieval registry."""
    from .retrieval.base import RETRIEVERS

    return [
        {
            "name": f"{e.name}/<model>" if e.meta.get("provider") else e.name,
            "description": e.description or e.name,
        }
        for e in sorted(RETRIEVERS.entries(), key=lambda e: e.name)
    ]


def list_modes() -> list[dict[str, str]]:
    """``name, alias, description`` per retrieval mode."""
    from .modes import MODE_DESCRIPTIONS, Mode

    return [
        {
            "name": m.value,
            "alias": m.hub_name if m.hub_name != m.value else "",
            "description": MODE_DESCRIPTIONS[m],
        }
        for m in Mode
    ]


def list_metrics() -> list[dict[str, str]]:
    """``name, kind, label, bounds, description`` per metric of the metric registry."""
    from .metrics.registry import describe_metrics

    return describe_metrics()


def list_datasets() -> list[dict[str, str]]:
    """``name, source, description`` per catalog dataset."""
    from .loaders.catalog import DATASETS

    return [
        {
            "name": e.name,
            "source": "bundled" if e.offline else f"hub {e.hub_id} or --path DIR",
            "description": e.description,
        }
        for e in (DATASETS.get(n) for n in DATASETS.names())
    ]


def list_fusions() -> list[dict[str, str]]:
    """``name, description`` per cross-language score fusion."""
    from .retrieval.fusion import FUSIONS

    return [{"name": e.name, "description": e.description} for e in FUSIONS.entries()]


def list_policies() -> list[dict[str, str]]:
    """``name, applies_to, description`` per scoring policy (parse and testbed policies)."""
    from .policies import describe_policies

    return describe_policies()


def list_testbeds() -> list[dict[str, str]]:
    """``name, kind, settings, ratios, judge, description`` per testbed of the testbed registry.

    Example:
        >>> ", ".join(r["name"] for r in list_testbeds())
        'counterfactual, integration, noise, nomiracl, rejection'
    """
    from .testbeds.testbed import describe_testbeds

    return describe_testbeds()


def list_prompts() -> list[dict[str, str]]:
    """``name, template, max_tokens, instruction_langs, description`` per prompt template (response format).

    Example:
        >>> ", ".join(r["name"] for r in list_prompts())
        'direct, citation, open'
    """
    from .generation.prompts import DEFAULT_MAX_TOKENS, RESPONSE_FORMATS, instruction_languages

    what = {
        "direct": "documents, the instruction, the query and its options; the answer is one option",
        "citation": "the same, asking for the cited documents, the chosen option and an explanation "
        "with <docN> tags",
        "open": "documents, an instruction and the territory question without options, in the "
        "query's language (49 languages); the free answer is resolved to a claimant or an outcome",
    }
    langs = ",".join(instruction_languages())
    return [
        {
            "name": fmt,
            "template": f"templates/{fmt}.txt",
            "max_tokens": str(DEFAULT_MAX_TOKENS[fmt]),
            "instruction_langs": langs if fmt == "direct" else "en",
            "description": what.get(fmt, ""),
        }
        for fmt in RESPONSE_FORMATS
    ]


def list_systems() -> list[dict[str, str]]:
    """``name, description`` per system prompt (the config's ``system``): its text, on one line.

    Example:
        >>> ", ".join(r["name"] for r in list_systems())
        'input_demo, nationalist, un, vanilla'
    """
    from .generation.prompts import system_prompts, template_text

    rows = []
    for name in system_prompts():
        rows.append(
            {"name": name, "description": " ".join(template_text(f"system/{name}.txt").split())}
        )
    return rows


def list_strategies() -> list[dict[str, str]]:
    """``name, description`` per test-generation strategy (``bordir testgen --strategies``).

    Example:
        >>> ", ".join(r["name"] for r in list_strategies())
        'complex, negative, coverage, baseline'
    """
    from .testgen.testcase import STRATEGIES, STRATEGY_DESCRIPTIONS

    return [{"name": s, "description": STRATEGY_DESCRIPTIONS.get(s, "")} for s in STRATEGIES]


def list_publishers() -> list[dict[str, str]]:
    """``domain, name, country, type, lang, source`` per entry of the black-box audit's publisher registry.

    Example:
        >>> rt = next(r for r in list_publishers() if r["domain"] == "rt.com")
        >>> rt["country"], rt["source"].startswith("https://")
        ('RU', True)
    """
    from .audit.blackbox.publishers import load_publishers

    reg = load_publishers()
    return [
        {"domain": p.domain, "name": p.name, "country": p.country or "(none)", "type": p.type,
         "lang": p.lang or ("subdomains" if p.lang_subdomains else ""), "source": p.source,
         "version": reg.version}
        for p in sorted(reg.entries.values(), key=lambda p: p.domain)
    ]  # fmt: skip
