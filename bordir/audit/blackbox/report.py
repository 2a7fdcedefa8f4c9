"""Write a black-box audit: ``audit.json``, ``audit.md``, the CSV tables, ``answers.parquet`` / ``citations.parquet`` and the plots.

``citations.parquet`` holds every attributed URL with its answer's line, id, model and query
language, its domain, country, language, lists and the rule that decided each: what
``bordir view`` shows behind every cell. The record ``audit.json`` (``"kind": "blackbox"``) is
written by :func:`write_record` alone.
"""

from __future__ import annotations

import json
import math
import os
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..._io.markdown import md_code, md_text
from ..._io.percent import pct
from .run import BlackboxResult

_pct = partial(pct, missing="–")

__all__ = [
    "write_blackbox",
    "write_record",
    "render_markdown",
    "BLACKBOX_FILES",
    "BLACKBOX_OUTPUTS",
    "comparison_sentence",
]

BLACKBOX_FILES: tuple[str, ...] = (
    "audit.json", "audit.md", "answers.csv", "shares.csv", "claimants.csv", "comparisons.csv",
    "answers.parquet", "citations.parquet",
)  # fmt: skip


BLACKBOX_OUTPUTS = (*BLACKBOX_FILES, "plots", "skipped.jsonl")
"""What a black-box audit writes into its directory (moved aside together when audited again)."""


def _ci(lo: Any, hi: Any) -> str:
    if lo is None or hi is None or (isinstance(lo, float) and math.isnan(lo)):
        return "(too few to judge)"
    return f"[{_pct(lo)}, {_pct(hi)}]"


def measure_label(dimension: str, category: str) -> str:
    """What a measure's share is of, in words (``country``/``RU`` → ``from RU (Russia)``)."""
    if dimension == "country":
        from .countries import country_name

        return f"from {category} ({country_name(category)})"
    return {
        ("relation", "own"): "in the query's own language",
        ("relation", "en"): "in English",
        ("relation", "other"): "in another language",
        ("claimant", "own_claimant"): "from the claimant whose language is the query's",
        ("claimant", "other_claimant"): "from another claimant",
        ("claimant", "non_claimant"): "from no claimant",
    }.get((dimension, category), f"{dimension} {category}")


def comparison_sentence(r: Any) -> str:
    """One comparison row as a sentence ("m1: asked in ru, 41.0 % [33.2, 49.1] … difference …")."""
    what = measure_label(r.dimension, r.category)
    side = "asked in" if r.factor == "query_lang" else "model"
    head = (
        f"{r.fixed}: {side} {r.a}, {_pct(r.value_a)} % {_ci(r.low_a, r.high_a)} of sources are {what}; "
        f"{side} {r.b}, {_pct(r.value_b)} % {_ci(r.low_b, r.high_b)}"
    )
    if r.status != "judged":
        p10 = "–" if r.power_10 is None or pd.isna(r.power_10) else f"{r.power_10:.2f}"
        return f"{head}; {r.status} ({r.n_groups} paired question groups; power against 10 points {p10})"
    d = 100 * r.diff
    return (
        f"{head}; difference {d:+.1f} points [{100 * r.ci_low:+.1f}, {100 * r.ci_high:+.1f}], "
        f"p after Holm {r.p_holm:.3g} ({r.n_groups} paired question groups)"
    )


def write_record(result: BlackboxResult, out: Path) -> Path:
    """Write ``audit.json`` (the run record of a black-box audit)."""
    p = out / "audit.json"
    p.write_text(
        json.dumps(result.as_dict(), ensure_ascii=False, indent=2, allow_nan=False) + "\n",
        encoding="utf-8",
    )
    return p


def _table(df: pd.DataFrame, cols: list[str], heads: list[str]) -> list[str]:
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for r in df[cols].itertuples(index=False):
        lines.append("| " + " | ".join(md_text(x) for x in r) + " |")
    return lines


def render_markdown(result: BlackboxResult, *, top: int = 8) -> str:
    """The Markdown report (see ``docs/audit.md``)."""
    s, st = result.summary, result.settings
    lines = [
        "# Citation audit (black box: answers and cited URLs)",
        "",
        f"Log {md_code(Path(str(s['log'])).name)} ({s['format']}): {s['records']} records, {s['valid']} answers audited, "
        f"{s['skipped']} skipped; {s['urls_given']} URLs given, {s['urls']} distinct URLs attributed "
        f"({s['urls_repeated_in_answer']} repeats within an answer counted once, {s['urls_skipped']} bad URLs skipped).",
        "",
        f"Signature: `{result.signature}`",
        "",
        "## Definitions",
        "",
        "- A **share** is the cited URLs of a category over all cited URLs of the cell (a URL counted once per answer).",
        f"- Intervals: {st['interval']}, level {st['conf']}; {s['cluster_note']}.",
        f"- Cells with fewer than {st['min_clusters']} clusters citing anything are **too few to judge** (no interval).",
        f"- `unattributed`: no rule gave a country (or a language); {s['unattributed_country']} URLs have no country, "
        f"{s['unresolved_redirects']} of them unresolved redirects.",
        f"- Publisher registry {st['publishers']['version']} ({st['publishers']['entries']} entries); Public Suffix List: {st['psl']}.",
        "",
        "## Answers",
        "",
    ]
    a = result.answers.copy()
    a["citing"] = [
        f"{_pct(x)} {_ci(lo, hi)}" for x, lo, hi in zip(a.citing_share, a.citing_low, a.citing_high)
    ]
    a["per answer"] = [f"{x:.2f}" for x in a.urls_per_answer]
    keys = [c for c in ("model", "query_lang", "month") if c in a.columns]
    lines += _table(a, [*keys, "n_answers", "citing", "per answer", "n_dup", "n_bad_urls", "n_qlang_detected"],
                    [*keys, "answers", "citing ≥ 1 % [95% CI]", "URLs per answer", "repeats", "bad URLs", "language detected"])  # fmt: skip
    sh = result.shares
    for dim, title in (("country", "Source countries"), ("lang", "Source languages"), ("relation", "Own language vs English vs other"),
                       ("claimant", "Claimant countries (territorial questions)"), ("list", "User lists")):  # fmt: skip
        d = sh[sh.dimension == dim]
        if not len(d):
            continue
        lines += [
            "",
            f"## {title}",
            "",
            f"Shares × 100 with their intervals; the {top} largest per cell, and `unattributed`.",
            "",
        ]
        rank = d.groupby(keys, sort=False)["count"].rank(method="first", ascending=False)
        keep = d[(rank <= top) | (d.category == "unattributed")].sort_values(
            [*keys, "count"], ascending=[True] * len(keys) + [False], kind="stable"
        )
        keep = keep.assign(
            share_ci=[
                f"{_pct(x)} {_ci(lo, hi)}" for x, lo, hi in zip(keep.share, keep.low, keep.high)
            ]
        )
        lines += _table(
            keep,
            [*keys, "category", "count", "n_urls", "share_ci"],
            [*keys, dim, "URLs", "of", "share % [95% CI]"],
        )
    c = result.comparisons
    lines += ["", "## Comparisons", ""]
    if s.get("comparisons_note"):
        lines += [md_text(s["comparisons_note"]), ""]
    if len(c):
        lines += [f"Paired by question group; Holm over each family (one model or language, one measure); compared countries: "
                  f"{md_text(', '.join(s['compared_countries']) or 'none')} ({md_text(s['compared_countries_why'])}).", ""]  # fmt: skip
        for r in c.itertuples():
            mark = "**" if r.status == "judged" and r.significant else ""
            lines.append(f"- {mark}{md_text(comparison_sentence(r))}{mark}")
    if s["skipped_by_reason"] or s["urls_skipped_by_reason"]:
        lines += ["", "## Skipped", "", "| what | reason | count | first |", "|---|---|---|---|"]
        for what, block in (
            ("record", s["skipped_by_reason"]),
            ("URL", s["urls_skipped_by_reason"]),
        ):
            for reason, v in block.items():
                first = "; ".join(
                    f"line {e['line']} {e.get('field') or ''}: {e['message']}"
                    for e in v["examples"][:2]
                )
                lines.append(f"| {what} | {md_text(reason)} | {v['count']} | {md_text(first)} |")
    return "\n".join(lines) + "\n"


_SLICE = 500_000
"""URLs written to ``citations.parquet`` at a time (their strings are built a slice at a time)."""


def write_citations(result: BlackboxResult, path: Path) -> None:
    """``citations.parquet``: every attributed URL with its attribution and its answer's line, id, model, query language."""
    ans = result.data.answers
    urls = result.data.url_table
    writer = None
    try:
        for start in range(0, max(urls.num_rows, 1), _SLICE):
            stop = min(start + _SLICE, urls.num_rows)
            cit = urls.table(start, stop)
            take = pa.array(urls.answer[start:stop])
            for k in ("line", "id", "model", "query_lang"):
                cit = cit.append_column(k, ans[k].take(take))
            if writer is None:
                writer = pq.ParquetWriter(path, cit.schema)
            writer.write_table(cit)
    finally:
        if writer is not None:
            writer.close()


def write_blackbox(
    result: BlackboxResult, out_dir: str | os.PathLike[str], *, plots: bool = True
) -> dict[str, Path]:
    """Write every file into ``out_dir``; returns ``{name: path}`` (plots as ``plot:<name>``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"audit.json": write_record(result, out)}
    (out / "audit.md").write_text(render_markdown(result), encoding="utf-8")
    paths["audit.md"] = out / "audit.md"
    for name, df in (("answers.csv", result.answers), ("shares.csv", result.shares),
                     ("claimants.csv", result.claimants), ("comparisons.csv", result.comparisons)):  # fmt: skip
        df.to_csv(out / name, index=False)
        paths[name] = out / name
    ans = result.data.answers
    pq.write_table(ans, out / "answers.parquet")
    paths["answers.parquet"] = out / "answers.parquet"
    write_citations(result, out / "citations.parquet")
    paths["citations.parquet"] = out / "citations.parquet"
    if plots:
        from .plots import write_plots

        for name, p in write_plots(result, out / "plots").items():
            paths[f"plot:{name}"] = p
    return paths
