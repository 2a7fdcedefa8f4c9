"""What ``bordir run --dry-run`` prints: a short plan by default, the per-language tables on request.

The default is what a user reads before paying, in a few lines a run (a suite of four runs fits in
25): calls and the upper-bound cost per model, the total (marked partial when the corpus cannot
serve every pair, with an estimate of the rest under a stated assumption), the dropped pairs by
cause, the power of a comparison between two modes on the pairs served, the dataset's warnings
and the repair policy. ``verbose`` adds the per-(model, language) table and the per-language
power table.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._io.texttable import text_table
from ..modes import SKIP_NO_TERRITORY, count_skips, describe_skips, short_cause

__all__ = [
    "run_lines",
    "dataset_line",
    "note_lines",
    "power_lines",
    "estimate_table_lines",
    "Totals",
    "totals",
]

WIDTH = 100


def _wrap(text: str, width: int = WIDTH, **kw: Any) -> list[str]:
    """``textwrap.wrap`` that never cuts a word (a path or a command stays whole)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False, **kw)


def _usd(x: float | None, digits: int = 2) -> str:
    return "no price" if x is None or x != x else f"${x:,.{digits}f}"


class Totals:
    """Calls and upper-bound cost of one dry run (what a suite adds up)."""

    def __init__(self, calls: int, cost: float, priced: bool, unserved_cost: float | None):
        self.calls, self.cost, self.priced, self.unserved_cost = calls, cost, priced, unserved_cost


def totals(table: pd.DataFrame) -> Totals:
    """The totals of a :func:`~bordir.runner.dry_run.dry_run` table."""
    costs = table["max_cost_usd"].dropna() if len(table) else pd.Series([], dtype=float)
    u = table.attrs.get("unserved")
    return Totals(
        int(table["calls"].sum()) if len(table) else 0,
        float(costs.sum()),
        len(costs) == len(table),
        None if u is None else u.max_cost_usd,
    )


def _dropped_lines(table: pd.DataFrame, verbose: bool) -> list[str]:
    """The dropped pairs by cause; the pairs a corpus would serve carry their estimate."""
    dropped = table.attrs.get("dropped", [])
    pairs = int(table.attrs.get("pairs", 0))
    u = table.attrs.get("unserved")
    estimate = ""
    if u is not None:
        estimate = f"{u.calls:,} calls, at most {_usd(u.max_cost_usd)} more if {u.assumption}" + (
            "; the corpus does not exist yet" if u.corpus_missing else ""
        )
    if verbose:
        out = describe_skips(dropped, pairs)
        if estimate:
            out += _wrap(
                f"the {u.pairs:,} pairs without passages: {estimate}", WIDTH, subsequent_indent="  "
            )
        return out
    if not dropped:
        return [f"dropped 0 of {pairs:,} (query, mode) pairs"]
    items = []
    for c in count_skips(dropped):
        item = f"{c.n:,} {short_cause(c.cause)}"
        if estimate and c.cause == SKIP_NO_TERRITORY:
            item += f" ({estimate})"
            estimate = ""
        items.append(item)
    if estimate:  # the pairs without passages in the mode's languages only
        items.append(f"without passages: {estimate}")
    text = f"dropped {len(dropped):,} of {pairs:,} (query, mode) pairs: " + ", ".join(items)
    return _wrap(text, WIDTH, subsequent_indent="  ")


def _total_lines(table: pd.DataFrame, batch: bool) -> list[str]:
    t = totals(table)
    cached = int(table["cached"].sum()) if len(table) else 0
    pairs, served = int(table.attrs.get("pairs", 0)), int(table.attrs.get("served", 0))
    line = (
        f"total: {t.calls:,} calls to make, {cached:,} cached; at most ${t.cost:,.4f}"
        + (" at batch prices" if batch else "")
        + ("" if t.priced else " (some models have no price)")
    )
    if table.attrs.get("unserved") is not None:  # pairs wait for passages: the total is partial
        line += f" for {served:,} of {pairs:,} pairs (partial)"
    return _wrap(line, WIDTH, subsequent_indent="  ")


def power_lines(table: pd.DataFrame, verbose: bool) -> list[str]:
    """One line on the power of a two-mode comparison (the per-language table with ``verbose``)."""
    records = table.attrs.get("power") or []
    modes = table.attrs.get("modes") or []
    if len(modes) < 2:
        return [f"power: one mode ({', '.join(modes) or '-'}): no comparison between modes to plan"]
    if not records:
        return []
    if verbose:
        return _power_table(records)
    pooled = {r["metric"]: r for r in records if r["query_lang"] == "*"}
    thin = sum(bool(r["thin"]) for r in records if r["query_lang"] != "*")
    cells = sum(r["query_lang"] != "*" for r in records)
    parts = [
        f"{name} {_mde(pooled[m]['mde'])} ({pooled[m]['n_territories']:,} terr.)"
        for m, name in (("kb_cs", "KB CS"), ("cst_cs", "Cst CS"))
        if m in pooled
    ]
    head = "power (MDE x100, two modes): " + ", ".join(parts)
    tail = f"{thin}/{cells} language cells thin"
    if len(head) + 2 + len(tail) <= WIDTH:
        return [f"{head}; {tail}"]
    # two lines cut between the pooled figures and the cells, never inside a phrase
    return [*_wrap(head + ";", WIDTH, subsequent_indent="  "), f"  {tail} (--verbose: each)"]


def _mde(x: float | None) -> str:
    return "undetectable" if x is None or x != x else f"{100 * x:.1f}"


def _power_table(records: Sequence[Mapping[str, Any]]) -> list[str]:
    out = [
        "",
        "power per query language: minimum detectable difference (x100) between two modes, paired by "
        "territory (sign-flip test, alpha 0.05, power 0.8, planning sd 0.5; docs/methodology.md)",
    ]
    out += text_table(
        ["query lang", "metric", "territories", "MDE", ""],
        [
            (
                r["query_lang"],
                r["metric"],
                r["n_territories"],
                _mde(r["mde"]),
                "thin" if r["thin"] else "",
            )
            for r in records
        ],
    )
    thin = sum(bool(r["thin"]) for r in records if r["query_lang"] != "*")
    langs = sum(r["query_lang"] != "*" for r in records)
    out.append(
        f"{thin} of {langs} language cells are thin (< 10 territories); "
        "`bordir plan CONFIG --target-mde 0.05` says what a target would need"
    )
    return out


def estimate_table_lines(table: pd.DataFrame) -> list[str]:
    """The per-(model, language) table, its notes numbered under it (``--verbose``)."""
    shown = table.copy()
    notes: list[
        str
    ] = []  # a note repeated on every row of a model is printed once, under the table
    if "note" in shown.columns:
        for i, note in enumerate(shown["note"]):
            if isinstance(note, str) and note:
                if note not in notes:
                    notes.append(note)
                shown.iat[i, shown.columns.get_loc("note")] = f"[{notes.index(note) + 1}]"
    if "max_cost_usd" in shown.columns:
        shown["max_cost_usd"] = [
            "?" if c is None or c != c else f"{c:.4f}" for c in shown["max_cost_usd"]
        ]
    out = text_table(list(shown.columns), list(shown.itertuples(index=False)))
    return out + [f"[{n}] {note}" for n, note in enumerate(notes, 1)]


def dataset_line(table: pd.DataFrame) -> str:
    """The dataset, its warnings and the repair policy in force, in one line."""
    d = table.attrs.get("dataset") or {}
    warnings = list(d.get("warnings") or [])
    repair = (
        f"repair on ({len(d.get('repairs') or [])} applied)" if d.get("repair") else "repair off"
    )
    warn = f"{len(warnings)} warning(s)" + (" (bordir data info)" if warnings else "")
    line = (
        f"dataset {d.get('name', '?')}: {int(d.get('queries', 0)):,} queries, "
        f"{int(d.get('languages', 0))} languages, {warn}, {repair}"
    )
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def note_lines(table: pd.DataFrame) -> list[str]:
    """How the figures were estimated (printed once, last)."""
    out = ["tokens are estimated as characters / 4; output tokens at max_tokens (an upper bound)"]
    note = str(table.attrs.get("max_tokens") or "")
    if "open format" in note or "forced twin" in note:  # free answers are longer: say how
        out += _wrap(note, WIDTH, subsequent_indent="  ")
    if table.attrs.get("note"):
        out.append(str(table.attrs["note"]))
    return out


def run_lines(
    table: pd.DataFrame, *, verbose: bool = False, batch: bool = False, notes: bool = True
) -> list[str]:
    """Everything a dry run of one experiment prints (``notes``: the estimation notes at the end)."""
    out: list[str] = []
    if verbose:
        out += estimate_table_lines(table)
        out += power_lines(table, True)
        out.append("")
    by_model = list(table.groupby("model", sort=False)) if len(table) else []
    if by_model:
        shown = by_model if verbose or len(by_model) <= 5 else by_model[:4]
        for model, g in shown:
            cost = g["max_cost_usd"].dropna()
            out.append(
                f"{model}: {int(g['calls'].sum()):,} calls ({int(g['cached'].sum()):,} cached), "
                + (f"at most ${cost.sum():,.2f}" if len(cost) else "no price")
            )
        if len(shown) < len(by_model):
            out.append(f"… and {len(by_model) - len(shown)} more model(s) (--verbose)")
    u = table.attrs.get("unserved")
    if u is not None and u.corpus_missing:
        out += _wrap(
            f"corpus {table.attrs.get('corpus')!r} does not exist yet: every retrieving pair is "
            f"priced as if it were fetched (`{table.attrs.get('fetch')}`; `bordir run` refuses "
            "it until then)",
            WIDTH,
            subsequent_indent="  ",
        )
    out += _total_lines(table, batch)
    out += _dropped_lines(table, verbose)
    if not verbose:
        out += power_lines(table, False)
    if notes:
        out += note_lines(table)
    return out
