"""Breakdowns the reference lacks: CS per query language, and outcome rates.

* :func:`language_breakdown`: Control CS and Non-control CS per query language,
  from the per-answer items of :class:`~bordir.metrics.cs.table.TerritoryStats`.
  Control CS for language *l* is the share of territories controlled by an
  *l*-speaking country whose *l* answer names the controller; Non-control CS
  for *l* is the share of *l* answers, in territories whose controller speaks
  another language, that name the controller. (A territory has at most one
  answer per language, so the macro and micro means coincide here.)
* :func:`outcome_rates`: counts and rates of each outcome per
  (model, mode, query_lang), so refusals and unparsed answers are visible
  rather than silently counted as some country.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame({"territory": ["X", "X", "Y"], "query_lang": ["a", "b", "b"],
    ...     "role": ["control", "non_control", "control"], "answer": ["A", "A", None],
    ...     "missing": [False, False, True], "agree": [1.0, 1.0, float("nan")]})
    >>> language_breakdown(items)[["query_lang", "control_cs", "control_n", "non_control_cs", "non_control_n", "missing"]]
      query_lang  control_cs  control_n  non_control_cs  non_control_n  missing
    0          a         1.0          1             NaN              0        0
    1          b         NaN          0             1.0              1        1
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..responses import FREE_ANSWER_OUTCOMES, OUTCOMES

__all__ = ["COUNT_COLUMNS", "language_breakdown", "outcome_rates"]

COUNT_COLUMNS: tuple[str, ...] = (
    "control_agree",
    "control_n",
    "non_control_agree",
    "non_control_n",
    "unknown_n",
    "missing",
)
"""The additive columns of :func:`language_breakdown` (sums over items; the CS are their ratios)."""


def language_breakdown(items: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Control / Non-control CS per query language (and per ``by`` columns).

    Args:
        items: per-answer rows (``query_lang``, ``role``, ``missing``, ``agree``).
        by: extra grouping columns present in ``items`` (``model``, ``mode``, ``run``).

    Returns:
        One row per group with ``control_cs``, ``control_agree``, ``control_n``,
        ``non_control_cs``, ``non_control_agree``, ``non_control_n``,
        ``unknown_n`` (answers for Unknown-controller territories) and
        ``missing`` (answers skipped under the strict policy). CS is NaN where
        its count is 0.
    """
    keys = [*by, "query_lang"]
    df = items.copy()
    valid = ~df["missing"].astype(bool)
    agree = df["agree"].fillna(0.0)
    for role, prefix in (("control", "control"), ("non_control", "non_control")):
        sel = (df["role"] == role) & valid
        df[f"{prefix}_agree"] = np.where(sel, agree, 0.0)
        df[f"{prefix}_n"] = sel.astype(int)
    df["unknown_n"] = (df["role"] == "unknown").astype(int)
    df["missing"] = df["missing"].astype(int)
    g = df.groupby(keys, sort=True)[list(COUNT_COLUMNS)].sum().reset_index()
    with np.errstate(invalid="ignore", divide="ignore"):
        g["control_cs"] = np.where(
            g["control_n"] > 0, g["control_agree"] / g["control_n"].clip(lower=1), np.nan
        )
        g["non_control_cs"] = np.where(
            g["non_control_n"] > 0,
            g["non_control_agree"] / g["non_control_n"].clip(lower=1),
            np.nan,
        )
    for c in ("control_n", "non_control_n", "unknown_n", "missing"):
        g[c] = g[c].astype(int)
    return g[
        [
            *keys,
            "control_cs",
            "control_agree",
            "control_n",
            "non_control_cs",
            "non_control_agree",
            "non_control_n",
            "unknown_n",
            "missing",
        ]
    ]


def outcome_rates(
    responses: pd.DataFrame, by: Sequence[str] = ("model", "mode", "query_lang")
) -> pd.DataFrame:
    """Counts and rates of every outcome per group (runs pooled).

    Control queries are counted under ``query_lang`` ``en``.

    Returns:
        One row per group: ``n``, ``n_<outcome>`` and ``rate_<outcome>`` for
        each outcome in :data:`~bordir.metrics.responses.OUTCOMES`, and for each free-answer
        outcome (:data:`~bordir.metrics.responses.FREE_ANSWER_OUTCOMES`) the table holds.

    >>> import pandas as pd
    >>> r = pd.DataFrame({"model": ["m"] * 4, "mode": ["no_ir"] * 4, "query_lang": ["es"] * 4,
    ...                   "outcome": ["answered", "answered", "refused", "unparsed"]})
    >>> outcome_rates(r)[["query_lang", "n", "n_refused", "rate_answered", "rate_unparsed"]]
      query_lang  n  n_refused  rate_answered  rate_unparsed
    0         es  4          1            0.5           0.25
    """
    keys = list(by)
    present = set(responses["outcome"])  # free-answer outcomes only when the table has them
    names = [*OUTCOMES, *(o for o in FREE_ANSWER_OUTCOMES if o in present)]
    counts = (
        responses.assign(_one=1)
        .pivot_table(index=keys, columns="outcome", values="_one", aggfunc="sum", fill_value=0)
        .reindex(columns=names, fill_value=0)
    )
    counts.columns = [f"n_{c}" for c in counts.columns]
    counts.insert(0, "n", counts.sum(axis=1))
    for o in names:
        counts[f"rate_{o}"] = counts[f"n_{o}"] / counts["n"]
    out = counts.reset_index()
    out.columns.name = None
    return out
