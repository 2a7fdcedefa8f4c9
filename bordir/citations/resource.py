"""Citation rates by resource level: each language's level, the cited-vs-included divergence per language and its spread per level."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = ["RESOURCE_ORDER", "resource_level", "divergence_table", "spread_by_resource"]


RESOURCE_ORDER: tuple[str, ...] = ("high", "medium", "low", "unknown")


def resource_level(code: str) -> str:
    """The registry's resource level of a language code (``unknown`` when not in the registry)."""
    from ..languages import registry

    reg = registry()
    return reg[code].resource if code in reg else "unknown"


def divergence_table(
    rates: pd.DataFrame, keys: Sequence[str], *, rate: str = "pooled"
) -> pd.DataFrame:
    """How far citations stray from inclusion, per query language, with its resource level.

    ``divergence`` is the total variation distance between the citation and the
    inclusion distributions over document languages, ½ Σ |citation_rate −
    inclusion_rate_citing| (0: cited exactly as included; 1: disjoint).
    ``max_abs_diff`` is the largest single-language gap.

    >>> t = pd.DataFrame({"query_lang": ["sw", "sw"], "doc_lang": ["en", "sw"], "rate": ["pooled"] * 2,
    ...                   "citation_rate": [0.8, 0.2], "inclusion_rate_citing": [0.5, 0.5]})
    >>> divergence_table(t, ())[["query_lang", "resource", "divergence"]].to_dict("records")
    [{'query_lang': 'sw', 'resource': 'low', 'divergence': 0.3}]
    """
    t = rates[(rates["rate"] == rate) & rates["citation_rate"].notna()]
    out = []
    for key, g in t.groupby([*keys, "query_lang"], sort=True):
        key = key if isinstance(key, tuple) else (key,)
        diff = (g["citation_rate"] - g["inclusion_rate_citing"]).abs()
        rec = dict(zip([*keys, "query_lang"], key))
        rec.update(
            resource=resource_level(str(rec["query_lang"])),
            divergence=round(float(diff.sum() / 2), 12),
            max_abs_diff=float(diff.max()),
        )
        out.append(rec)
    return pd.DataFrame(
        out, columns=[*keys, "query_lang", "resource", "divergence", "max_abs_diff"]
    )


def spread_by_resource(
    rates: pd.DataFrame, keys: Sequence[str], *, rate: str = "pooled"
) -> pd.DataFrame:
    """Per resource level of the query language: how many query languages, and the mean, sd and max divergence."""
    d = divergence_table(rates, keys, rate=rate)
    rows = []
    for key, g in d.groupby([*keys, "resource"], sort=False) if len(d) else []:
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip([*keys, "resource"], key)),
                "n_query_langs": len(g),
                "divergence_mean": float(g["divergence"].mean()),
                "divergence_sd": float(g["divergence"].std(ddof=1)) if len(g) > 1 else None,
                "divergence_max": float(g["divergence"].max()),
            }
        )
    out = pd.DataFrame(
        rows,
        columns=[
            *keys,
            "resource",
            "n_query_langs",
            "divergence_mean",
            "divergence_sd",
            "divergence_max",
        ],
    )
    if len(out):
        out["_o"] = out["resource"].map({r: i for i, r in enumerate(RESOURCE_ORDER)})
        out = (
            out.sort_values([*keys, "_o"], kind="stable").drop(columns="_o").reset_index(drop=True)
        )
    return out
