"""``bordir testbed score --format nomiracl``: the terminal tables (both policies side by side, disagreements)."""

from __future__ import annotations

from typing import Any

import click

from ..stats.rate import format_rate
from ._output import echo_lines, echo_table

__all__ = ["print_nomiracl"]


def _cell(m: dict[str, Any]) -> str:
    """Both policies' cells in one format: ×100 with one decimal, the 95 % score interval, (count/n)."""
    from ..stats.rate import rate_interval

    if m["value"] is None:
        return f"– ({m['count']}/{m['n']})"
    ci = rate_interval(m["count"], m["n"])  # NoMIRACL's value is count/n where it computes one
    return format_rate(m["value"], ci.low, ci.high, m["count"], m["n"], too_few=ci.too_few)


def _nomiracl_cell(block: dict[str, Any] | None, key: str) -> str:
    if not block or "error" in block:
        return "n/a"
    m = block[key]
    if m.get("reported") is False:  # ConfusionMetric never computed it: not a 0
        return f"–† ({m['count']}/{m['n']})"
    return _cell(m)


def _bordir_cell(block: dict[str, Any] | None, key: str) -> str:
    if not block:
        return "n/a"
    return _cell(block[key])


def print_nomiracl(result: dict[str, Any], *, examples: int = 3) -> None:
    """The rates per file and model under both policies, then where the policies disagree."""
    rows = []
    for g in result["groups"]:
        err = "hallucination_rate" if g["subset"] == "non_relevant" else "error_rate"
        rows.append(
            (
                g["lang"],
                "non-rel" if g["subset"] == "non_relevant" else "rel",
                g["model"],
                g["n"],
                _nomiracl_cell(g["nomiracl"], err),
                _nomiracl_cell(g["nomiracl"], "invalid_rate"),
                _bordir_cell(g["bordir"], err),
                _bordir_cell(g["bordir"], "invalid_rate"),
            )
        )
    echo_table(
        [
            "lang",
            "subset",
            "model",
            "n",
            "halluc/err (nomiracl)",
            "invalid (nomiracl)",
            "halluc/err (bordir)",
            "invalid (bordir)",
        ],
        rows,
    )
    click.echo(
        "×100 [95% score interval] (count/n); halluc on the non-relevant subset, err on the relevant one. nomiracl: "
        "NoMIRACL's postprocess and ConfusionMetric, as its evaluation script reports them; bordir: "
        "refusals and affirmations in the query language and English (docs/testbeds.md)."
    )
    if any(
        g["nomiracl"]
        and any(isinstance(m, dict) and m.get("reported") is False for m in g["nomiracl"].values())
        for g in result["groups"]
    ):
        click.echo(
            "–† not computed: NoMIRACL's ConfusionMetric computes the rate only when the subset's "
            "right reply occurs at least once, and here it never does (its evaluation script then "
            "fills the cell with 0.0); (count/n) is the fraction of replies."
        )
    dis = result["disagreements"]
    click.echo("")
    if not dis:
        click.echo("The two policies read every reply the same way.")
    else:
        click.echo("Where the policies disagree (nomiracl → bordir), by language and model:")
        echo_table(
            ["lang", "subset", "model", "replies", "most frequent"],
            [
                (
                    d["lang"],
                    "non-rel" if d["subset"] == "non_relevant" else "rel",
                    d["model"],
                    f"{d['count']}/{d['n']}",
                    "; ".join(f"{k} {v}" for k, v in list(d["pairs"].items())[:3]),
                )
                for d in dis
            ],
        )
        shown = 0
        for d in dis:
            for ex in d["examples"][:examples]:
                reply = str(ex["reply"]).replace("\n", " ")
                reply = reply if len(reply) <= 70 else reply[:67] + "…"
                click.echo(
                    f"  {d['lang']} {d['model']} {ex['query_id']} (line {ex['line']}): {reply!r} "
                    f"→ {ex['nomiracl'] or 'not text'} / {ex['bordir']}"
                )
                shown += 1
                if shown >= 12:
                    break
            if shown >= 12:
                click.echo("  … more examples in --json")
                break
    for w in result["warnings"]:
        click.echo(f"bordir: warning: {w}", err=True)
    echo_lines(f"signature: {result['signature']}")
