"""Forced and free answers side by side: one item per (model, mode, query, run), and the outcome rates.

:func:`pair_items` joins a forced (direct-format) responses table with a free (open-format) one on
``(model, mode, query_id, run)``: the same territory, query language, documents and seed asked
both ways. Each item has

* ``forced_choice`` / ``free_choice``: the claimant index each names (−1: none);
* ``free_outcome``: the resolver's outcome (``claimant``, ``several``, ``controller_only``,
  ``refusal``, ``other_country``, ``unparsed``, ``empty``; ``failed`` when the call failed);
* ``free_named``: 1.0 when the free answer names one claimant, else 0.0;
* ``same``: 1.0 when both name the same claimant, 0.0 when they name different ones (a **switch**),
  NaN unless both name one;
* ``forced_agree`` / ``free_agree``: 1.0 / 0.0 whether the answer names the controller (known
  controllers only), on the items where **both** name a claimant, else NaN: the pairs of the
  forced-vs-free gap.

How each free outcome enters the CS metrics (``docs/free_answers.md``): only ``claimant`` names a
country. ``several``, ``controller_only``, ``refusal``, ``other_country``, ``unparsed`` and
``empty`` are *missing* in KB, Control, Non-control, Δ and Cst CS (the strict policy: skipped and
counted, never option A), and each has its own rate (:func:`free_outcome_rates`).

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> base = {"query_id": "Crimea_uk", "territory": "Crimea", "query_lang": "uk", "is_control": False,
    ...         "mode": "no_ir", "model": "m", "run": 0}
    >>> forced = pd.DataFrame([{**base, "outcome": "answered", "choice": 0}])
    >>> free = pd.DataFrame([{**base, "outcome": "answered", "choice": 1}])
    >>> pair_items(forced, free, ds)[["same", "forced_agree", "free_agree"]].to_dict("records")
    [{'same': 0.0, 'forced_agree': 1.0, 'free_agree': 0.0}]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...errors import DataError
from ...generation.parse.free.outcome import FREE_OUTCOMES

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = ["ITEM_COLUMNS", "FREE_RATE_OUTCOMES", "pair_items", "free_outcome_rates"]

KEYS = ["model", "mode", "query_id", "run"]
ITEM_COLUMNS: tuple[str, ...] = (
    *KEYS, "territory", "query_lang", "is_control", "forced_outcome", "forced_choice",
    "free_outcome", "free_choice", "free_named", "same", "forced_agree", "free_agree",
)  # fmt: skip
FREE_RATE_OUTCOMES: tuple[str, ...] = (*FREE_OUTCOMES, "failed")
"""The resolver's outcomes, and ``failed`` for a call that failed."""


def _free_outcome(outcome: pd.Series) -> pd.Series:
    return outcome.where(outcome != "answered", "claimant")


def pair_items(forced: pd.DataFrame, free: pd.DataFrame, dataset: BorderLines) -> pd.DataFrame:
    """One row per (model, mode, query, run) both tables have (see the module docs).

    Raises:
        DataError: a table lacks a column, or has a (model, mode, query, run) twice.
    """
    need = [*KEYS, "territory", "query_lang", "is_control", "outcome", "choice"]
    for name, df in (("forced", forced), ("free", free)):
        missing = [c for c in need if c not in df.columns]
        if missing:
            raise DataError(
                f"no column {', '.join(missing)}; expected a responses table ({', '.join(need)})",
                path=f"<{name} responses>",
            )
        if df.duplicated(KEYS).any():
            row = df[df.duplicated(KEYS)].iloc[0]
            raise DataError(
                f"(model, mode, query_id, run) = ({row['model']}, {row['mode']}, {row['query_id']}, "
                f"{row['run']}) occurs twice; one answer per query and run is expected",
                path=f"<{name} responses>",
            )
    a = forced[need].rename(columns={"outcome": "forced_outcome", "choice": "forced_choice"})
    b = free[[*KEYS, "outcome", "choice"]].rename(
        columns={"outcome": "free_outcome", "choice": "free_choice"}
    )
    df = a.merge(b, on=KEYS, how="inner")
    df["free_outcome"] = _free_outcome(df["free_outcome"])
    fc = df["forced_choice"].to_numpy(dtype=int)
    fr = df["free_choice"].to_numpy(dtype=int)
    f_ok = (df["forced_outcome"] == "answered").to_numpy() & (fc >= 0)
    r_ok = (df["free_outcome"] == "claimant").to_numpy() & (fr >= 0)
    both = f_ok & r_ok
    df["free_named"] = r_ok.astype(float)
    df["same"] = np.where(both, (fc == fr).astype(float), np.nan)
    controller = []
    for terr in df["territory"]:
        t = dataset.territory(terr)
        controller.append(t.claimants.index(t.controller) if t.controller in t.claimants else -1)
    ctl = np.asarray(controller, dtype=int)
    known = both & (ctl >= 0)
    df["forced_agree"] = np.where(known, (fc == ctl).astype(float), np.nan)
    df["free_agree"] = np.where(known, (fr == ctl).astype(float), np.nan)
    return df[list(ITEM_COLUMNS)].sort_values(KEYS, kind="stable").reset_index(drop=True)


def free_outcome_rates(
    free: pd.DataFrame, by: tuple[str, ...] = ("model", "mode", "query_lang")
) -> pd.DataFrame:
    """Counts and rates of every free outcome per group (runs pooled): ``n``, ``n_<o>``, ``rate_<o>``."""
    outcome = _free_outcome(free["outcome"])
    df = free[list(by)].assign(_o=outcome, _one=1)
    table = df.pivot_table(index=list(by), columns="_o", values="_one", aggfunc="sum", fill_value=0)
    table = table.reindex(columns=list(FREE_RATE_OUTCOMES), fill_value=0)
    n = table.sum(axis=1)
    out = pd.DataFrame({"n": n})
    for o in FREE_RATE_OUTCOMES:
        out[f"n_{o}"] = table[o]
        out[f"rate_{o}"] = table[o] / n.where(n > 0)
    return out.reset_index()
