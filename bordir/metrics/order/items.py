"""The per-item table of a run asked in several option orders: one row per (model, mode, run, query) with the country picked in each order."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines


__all__ = ["ITEM_KEYS", "orders_of", "given_order", "with_positions", "order_items"]


ITEM_KEYS: tuple[str, ...] = ("model", "mode", "run", "query_id")


def orders_of(df: pd.DataFrame) -> pd.Series:
    """``option_order`` as strings; a table without it, or a row with none, is in the given order."""
    if "option_order" not in df.columns:
        return pd.Series("given", index=df.index)
    return df["option_order"].where(df["option_order"].notna(), "given").astype(str)


def given_order(responses: pd.DataFrame) -> pd.DataFrame:
    """The rows asked in the given order (all rows of a table without ``option_order``)."""
    if "option_order" not in responses.columns:
        return responses
    return responses[(orders_of(responses) == "given").to_numpy()].reset_index(drop=True)


def _perm(name: str, n: int) -> tuple[int, ...]:
    from ...options import OptionOrder

    return OptionOrder.parse(name, n).perm


def with_positions(responses: pd.DataFrame, dataset: BorderLines | None = None) -> pd.DataFrame:
    """``responses`` with ``option_order``, ``n_options`` and ``choice_position`` filled in.

    ``n_options`` comes from ``dataset`` (the territory's claimants), else from ``option_logprobs``, else from
    the order's name; ``choice_position`` (−1 unless answered) from the order when the column is missing.
    """
    df = responses.copy()
    df["option_order"] = orders_of(df).to_numpy()
    if "n_options" not in df.columns:
        if dataset is not None:
            df["n_options"] = [len(dataset.territory(t).claimants) for t in df["territory"]]
        elif "option_logprobs" in df.columns:
            df["n_options"] = [len(x) if x is not None else 2 for x in df["option_logprobs"]]
        else:
            df["n_options"] = [len(o.split(",")) if "," in o else 2 for o in df["option_order"]]
    if "choice_position" not in df.columns or df["choice_position"].isna().any():
        pos = []
        for o, c, n in zip(df["option_order"], df["choice"], df["n_options"]):
            pos.append(-1 if int(c) < 0 else _perm(o, int(n)).index(int(c)))
        df["choice_position"] = pos
    answered = (df["outcome"] == "answered").to_numpy()
    df.loc[~answered, "choice_position"] = -1
    return df


def order_items(responses: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, mode, run, query): its picks per order, ``stable`` and ``changed`` (see module docs)."""
    df = responses.copy()
    df["option_order"] = orders_of(df).to_numpy()
    rows = []
    for key, g in df.groupby(list(ITEM_KEYS), sort=True):
        ans = g[g["outcome"] == "answered"]
        picks = dict(zip(ans["option_order"], ans["choice"].astype(int)))
        n_orders = int(g["option_order"].nunique())
        distinct = set(picks.values())
        given = g[g["option_order"] == "given"]
        rows.append(
            {
                **dict(zip(ITEM_KEYS, key)),
                "territory": g["territory"].iloc[0],
                "query_lang": g["query_lang"].iloc[0],
                "is_control": bool(g["is_control"].iloc[0]),
                "n_orders": n_orders,
                "n_answered": len(picks),
                "picks": ";".join(f"{o}={c}" for o, c in sorted(picks.items())),
                "given_choice": int(given["choice"].iloc[0]) if len(given) else -1,
                "stable": n_orders >= 2 and len(picks) == n_orders and len(distinct) == 1,
                "changed": len(picks) >= 2 and len(distinct) > 1,
                "comparable": len(picks) >= 2,
            }
        )
    cols = [
        *ITEM_KEYS,
        "territory",
        "query_lang",
        "is_control",
        "n_orders",
        "n_answered",
        "picks",
        "given_choice",
        "stable",
        "changed",
        "comparable",
    ]
    return pd.DataFrame(rows, columns=cols)
