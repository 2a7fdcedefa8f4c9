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
    from ...option_orders import OptionOrder

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
    keys = list(ITEM_KEYS)
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
    df = responses[[*keys, "territory", "query_lang", "is_control", "outcome", "choice"]].copy()
    df["option_order"] = orders_of(responses).to_numpy()
    df = df[
        df[keys].notna().all(axis=1).to_numpy()
    ]  # groupby's dropna: a row without a key has no item
    if df.empty:
        return pd.DataFrame(columns=cols)
    df = df.sort_values(keys, kind="stable")  # the groupby order; within an item, the rows' order
    items = df.drop_duplicates(keys, keep="first").set_index(keys)[
        ["territory", "query_lang", "is_control"]
    ]
    items["is_control"] = items["is_control"].astype(bool)
    items["n_orders"] = df.groupby(keys, sort=False)["option_order"].nunique()
    # picks: the last answered row of each (item, order) names its country
    ans = df[(df["outcome"] == "answered").to_numpy()]
    ans = ans.drop_duplicates([*keys, "option_order"], keep="last")
    ans = ans.assign(choice=ans["choice"].astype(int)).sort_values(
        [*keys, "option_order"], kind="stable"
    )
    ans["pick"] = ans["option_order"] + "=" + ans["choice"].astype(str)
    by_item = ans.groupby(keys, sort=False)
    items["n_answered"] = by_item.size()
    items["n_distinct"] = by_item["choice"].nunique()
    items["picks"] = by_item["pick"].agg(";".join)
    given = df[(df["option_order"] == "given").to_numpy()].drop_duplicates(keys, keep="first")
    items["given_choice"] = given.set_index(keys)["choice"].astype(int)
    items["n_answered"] = items["n_answered"].fillna(0).astype(int)
    items["n_distinct"] = items["n_distinct"].fillna(0).astype(int)
    items["picks"] = items["picks"].fillna("")
    items["given_choice"] = items["given_choice"].fillna(-1).astype(int)
    items["n_orders"] = items["n_orders"].astype(int)
    n_ans, n_ord, n_dist = items["n_answered"], items["n_orders"], items["n_distinct"]
    items["stable"] = (n_ord >= 2) & (n_ans == n_ord) & (n_dist == 1)
    items["changed"] = (n_ans >= 2) & (n_dist > 1)
    items["comparable"] = n_ans >= 2
    return items.reset_index()[cols]
