"""What ``bordir audit`` (white-box) prints: the flagged cells as a table, the flag rule, echoes and language mismatch.

Pure functions of the audit's tables that return text; the command only echoes them (wrapped to
the terminal). ``audit.md`` holds the same facts in full.

Example:
    >>> import pandas as pd
    >>> answers = pd.DataFrame({"group": ["m"], "query_lang": ["*"], "n_answers": [40], "n_echo": [3],
    ...     "language_match_rate": [0.9], "language_match_rate_low": [0.77],
    ...     "language_match_rate_high": [0.96], "n_lang_checked": [37], "n_lang_short": [0]})
    >>> for line in answer_notes(answers):
    ...     print(line)
    echoes (m): 3 of 40 answers mostly copy their query or documents: left out of the rates and the language match
    language mismatch (m): 10.0% [4.0, 23.0] of 37 answers not in the query's language
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .._io.percent import pct, pct_interval
from ..citations.table_text import ratio_text

__all__ = ["FLAGGED_HEADERS", "flagged_rows", "flag_rule", "answer_notes"]

FLAGGED_HEADERS = ("group", "query", "docs", "rate", "incl. %", "cited %", "ratio [95% CI]", "flag")
"""The columns of the flagged-cells table."""


def flagged_rows(flagged: pd.DataFrame) -> list[tuple[Any, ...]]:
    """One row per flagged cell, in :data:`FLAGGED_HEADERS` order."""
    return [
        (
            r.group,
            r.query_lang,
            r.doc_lang,
            r.rate,
            pct(r.inclusion_rate_citing),
            pct(r.citation_rate),
            ratio_text(r.ratio, r.ratio_low, r.ratio_high),
            r.flag,
        )
        for r in flagged.itertuples()
    ]


def flag_rule(n_flagged: int, settings: Mapping[str, Any]) -> str:
    """The sentence under the table: how many cells were tested and flagged, and the rule."""
    tested = settings["flags"]["tested_cells"]["rates"]
    return (
        f"{n_flagged} flagged of {tested} cells tested (query '*': every query language pooled): "
        "the ratio's interval lies above (over) or below (under) 1 and its Holm-adjusted p < 0.05; "
        f"a zero-width interval never flags; clusters = {settings['cluster']}, "
        f"{settings['n_resamples']} resamples, seed {settings['seed']} (the full rule: audit.md)"
    )


def answer_notes(answers: pd.DataFrame) -> list[str]:
    """Echoes, then the response-language mismatch rate (response language != query language), pooled."""
    pooled = answers[answers["query_lang"] == "*"]
    out = [
        f"echoes ({r.group}): {r.n_echo} of {r.n_answers} answers mostly copy their query or "
        "documents: left out of the rates and the language match"
        for r in pooled.itertuples()
        if getattr(r, "n_echo", 0)
    ]
    if "language_match_rate" not in answers.columns:
        return out
    for r in pooled.itertuples():
        short = int(getattr(r, "n_lang_short", 0) or 0)
        skipped = (
            f"; {short} answers too short to detect their language were skipped (audit.md)"
            if short
            else ""
        )
        if r.n_lang_checked:
            lo, hi = 1 - r.language_match_rate_high, 1 - r.language_match_rate_low
            out.append(
                f"language mismatch ({r.group}): {pct(1 - r.language_match_rate)}% "
                f"{pct_interval(lo, hi)} of {r.n_lang_checked} answers not in the query's "
                f"language{skipped}"
            )
        elif short:
            out.append(f"language match ({r.group}): not checked{skipped}")
    return out
