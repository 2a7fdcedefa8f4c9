"""Per-language measures: one item per claimant-language answer, then shares per query language.

:func:`perlang_items` turns a responses table into one row per
claimant-language response of each (model, mode, run): the non-control
queries, plus the English control query when English is one of the
territory's claimant languages (the ``Responses_d`` of ``calculate_CS.py``,
:func:`~bordir.metrics.cs.territory.fix_responses_d`). Each row has one column per
measure of :data:`~bordir.metrics.perlang.measures.PERLANG_MEASURES`, holding
1.0 / 0.0, or NaN where the measure is undefined for that answer:

* ``controller_agreement``: the answer names the controller (known
  controllers only). ``control_agreement`` is the same restricted to queries in
  the controller's language (Control CS of that language);
  ``non_control_agreement`` restricted to the other queries (Non-control CS).
* ``in_group_rate``: the answer names a claimant whose language (the countries
  table, as :meth:`~bordir.dataset.BorderLines.claimant_langs`) is the query
  language. Undefined when every claimant speaks it (Western Sahara in Arabic:
  every answer would be in-group).
* ``en_agreement``: the answer names the same country as the territory's
  English control answer in the same (model, mode, run); undefined when either
  is missing, and for the English query itself.
* ``refused_rate``, ``unparsed_rate``, ``multiple_rate``: the outcome, for every
  response (missing answers are counted here, not dropped).

Under the ``strict`` policy a non-answered response names no country (NaN in
the answer measures); under ``reference`` it is option A, and a non-answered
English control is ``"None"``, which agrees with nothing (as
:mod:`~bordir.metrics.responses` describes).

:func:`language_measures` averages the items per (model, mode, run, query
language), or per resource level of the language registry
(``by="resource"``). With one answer per territory and language in a run, the
share over items is also the mean over territories.

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> rows = [("Crimea_en", "en", True, 0), ("Crimea_ru", "ru", False, 0), ("Crimea_uk", "uk", False, 0),
    ...         ("Kuril_Islands_en", "en", True, 0), ("Kuril_Islands_ja", "ja", False, 1),
    ...         ("Kuril_Islands_ru", "ru", False, -1)]
    >>> df = pd.DataFrame([{"query_id": q, "territory": q.rsplit("_", 1)[0].replace("_", " "), "query_lang": l,
    ...     "is_control": c, "mode": "qlang", "model": "mock/x", "run": 0,
    ...     "outcome": "answered" if ch >= 0 else "refused", "choice": ch} for q, l, c, ch in rows])
    >>> items = perlang_items(df, ds)
    >>> items[["territory", "query_lang", "controller_agreement", "in_group_rate", "en_agreement"]]
           territory query_lang  controller_agreement  in_group_rate  en_agreement
    0         Crimea         ru                   1.0            1.0           1.0
    1         Crimea         uk                   1.0            0.0           1.0
    2  Kuril Islands         ja                   0.0            1.0           0.0
    3  Kuril Islands         ru                   NaN            NaN           NaN
    >>> m = language_measures(df, ds)
    >>> m.query("query_lang == 'ru' and metric == 'refused_rate'")[["value", "numerator", "denominator"]].to_dict("records")
    [{'value': 0.5, 'numerator': 1.0, 'denominator': 2}]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from ...errors import ConfigError
from ..responses import GROUP_KEYS, Policy, check_policy, validate_responses
from .measures import PERLANG_MEASURES, PERLANG_NAMES, get_measure

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = [
    "ITEM_COLUMNS",
    "MEASURE_COLUMNS",
    "GROUPINGS",
    "Grouping",
    "perlang_items",
    "group_of",
    "language_measures",
]

GROUPINGS: tuple[str, ...] = ("query_lang", "resource", "all")
Grouping = Literal["query_lang", "resource", "all"]
ITEM_COLUMNS: tuple[str, ...] = (
    *GROUP_KEYS, "territory", "query_lang", "outcome", "answer", "controller_lang", "is_controller_lang",
    *PERLANG_NAMES,
)  # fmt: skip
"""Columns of :func:`perlang_items` (``answer``: the English name of the country answered, or None)."""
MEASURE_COLUMNS: tuple[str, ...] = (
    *GROUP_KEYS, "query_lang", "metric", "value", "numerator", "denominator", "n_territories", "n_responses",
    "policy", "signature",
)  # fmt: skip
"""Columns of :func:`language_measures` (``query_lang`` is the resource level with ``by="resource"``)."""

_NONE = -2  # the reference policy's "None" control answer: defined, agrees with nothing


def _pick(outcome: str, choice: int, policy: str) -> int:
    """Claimant index a claimant-language response counts as (-1: no answer)."""
    if outcome == "answered":
        return int(choice)
    return 0 if policy == "reference" else -1


def perlang_items(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    policy: Policy = "strict",
    validate: bool = True,
) -> pd.DataFrame:
    """One row per claimant-language response with a 0/1/NaN column per measure (see the module docs).

    Args:
        responses: the per-item responses table (:mod:`~bordir.metrics.responses`).
        dataset: the dataset the responses are about.
        policy: ``strict`` (non-answered names nothing) or ``reference``.
        validate: check ``responses`` first (:func:`validate_responses`).

    Returns:
        A frame with :data:`ITEM_COLUMNS`, in the order of ``responses``.
    """
    check_policy(policy)
    df = validate_responses(responses, dataset) if validate else responses.reset_index(drop=True)
    terr_info: dict[str, tuple[Any, ...]] = {}
    for name in pd.unique(df["territory"]):
        t = dataset.territory(name)
        langs = [dataset.country_lang(c) for c in t.claimants]
        ctl = (
            t.claimants.index(t.controller)
            if t.controller_known and t.controller in t.claimants
            else -1
        )
        terr_info[name] = (
            t.claimants,
            t.controller_known,
            ctl,
            langs,
            dataset.controller_lang(name),
            "en" in dataset.claimant_langs(name),
        )

    # the English control answer of every (model, mode, run, territory)
    ctl_rows = df[df["is_control"]]
    en_pick: dict[tuple[Any, ...], int] = {}
    for key, outcome, choice in zip(
        zip(*(ctl_rows[c] for c in (*GROUP_KEYS, "territory"))),
        ctl_rows["outcome"],
        ctl_rows["choice"],
    ):
        en_pick[key] = (
            int(choice) if outcome == "answered" else (_NONE if policy == "reference" else -1)
        )

    rows: list[dict[str, Any]] = []
    cols = [
        df[c] for c in (*GROUP_KEYS, "territory", "query_lang", "is_control", "outcome", "choice")
    ]
    nan = math.nan
    for model, mode, run, terr, lang, is_ctl, outcome, choice in zip(*cols):
        claimants, known, ctl, langs, ctl_lang, en_claims = terr_info[terr]
        if is_ctl and not en_claims:
            continue  # the control query is not a claimant-language answer here (fix_responses_d)
        pick = _pick(outcome, choice, policy)
        answered = pick >= 0
        controller = nan if not (known and answered) else float(pick == ctl)
        own = [i for i, l in enumerate(langs) if l == lang]
        in_group = float(pick in own) if answered and own and len(own) < len(claimants) else nan
        en = en_pick.get((model, mode, run, terr), -1)
        en_agree = nan if is_ctl or not answered or en == -1 else float(pick == en)
        is_ctl_lang = bool(ctl_lang) and lang == ctl_lang
        rows.append(
            {
                "model": model,
                "mode": mode,
                "run": run,
                "territory": terr,
                "query_lang": lang,
                "outcome": outcome,
                "answer": claimants[pick] if answered else None,
                "controller_lang": ctl_lang,
                "is_controller_lang": is_ctl_lang,
                "controller_agreement": controller,
                "control_agreement": controller if is_ctl_lang else nan,
                "non_control_agreement": nan if is_ctl_lang else controller,
                "in_group_rate": in_group,
                "en_agreement": en_agree,
                "refused_rate": float(outcome == "refused"),
                "unparsed_rate": float(outcome == "unparsed"),
                "multiple_rate": float(outcome == "multiple"),
            }
        )
    return pd.DataFrame(rows, columns=list(ITEM_COLUMNS))


def group_of(codes: Sequence[str] | pd.Series, by: Grouping) -> np.ndarray:
    """The group of each query language: the code itself, its registry resource level (``unknown`` if none), or ``*`` for every language pooled (``all``).

    >>> group_of(["ru", "sw", "xx"], "resource").tolist()
    ['high', 'low', 'unknown']
    >>> group_of(["ru", "sw"], "all").tolist()
    ['*', '*']
    """
    if by not in GROUPINGS:
        raise ConfigError(f"unknown grouping {by!r}; known: {', '.join(GROUPINGS)}")
    codes = [str(c) for c in codes]
    if by == "query_lang":
        return np.asarray(codes, dtype=object)
    if by == "all":
        return np.asarray(["*"] * len(codes), dtype=object)
    from ...languages import registry

    reg = registry()
    level = {c: (reg[c].resource if c in reg else "") or "unknown" for c in set(codes)}
    return np.asarray([level[c] for c in codes], dtype=object)


def language_measures(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    policy: Policy = "strict",
    by: Grouping = "query_lang",
    metrics: Sequence[str] | None = None,
    items: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every per-language measure per (model, mode, run) and query language (or resource level).

    Args:
        responses: the responses table.
        dataset: its dataset.
        policy: scoring policy.
        by: ``query_lang`` or ``resource``.
        metrics: measure names (default: all of them).
        items: a precomputed :func:`perlang_items` table (``responses`` is then not read).

    Returns:
        A tidy frame with :data:`MEASURE_COLUMNS`: ``value`` = numerator /
        denominator (NaN when no item is defined), ``n_territories`` the
        territories behind the denominator, ``n_responses`` all the group's
        claimant-language responses, and each value's signature.
    """
    names = [get_measure(m).name for m in (metrics or PERLANG_NAMES)]
    it = perlang_items(responses, dataset, policy=policy) if items is None else items
    data_hash = dataset.content_hash()
    it = it.assign(_group=group_of(it["query_lang"], by))
    keys = [*GROUP_KEYS, "_group"]
    g = it.groupby(keys, sort=True)
    size = g.size()
    parts = []
    for name in names:  # one vectorised aggregation per measure
        defined = it[it[name].notna()]
        agg = defined.groupby(keys, sort=True).agg(
            numerator=(name, "sum"),
            denominator=(name, "size"),
            n_territories=("territory", "nunique"),
        )
        agg = agg.reindex(size.index, fill_value=0)
        agg["n_responses"] = size
        agg["metric"] = name
        parts.append(agg)
    if not parts or not len(size):
        return pd.DataFrame(columns=list(MEASURE_COLUMNS))
    df = pd.concat(parts).reset_index().rename(columns={"_group": "query_lang"})
    order = {n: i for i, n in enumerate(names)}
    df = df.sort_values(
        [*GROUP_KEYS, "query_lang", "metric"],
        key=lambda c: c.map(order) if c.name == "metric" else c,
        kind="stable",
        ignore_index=True,
    )
    den = df["denominator"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        df["value"] = np.where(
            den > 0, df["numerator"].to_numpy(dtype=float) / np.where(den > 0, den, 1), np.nan
        )
    df["numerator"] = df["numerator"].astype(float)
    for c in ("run", "denominator", "n_territories", "n_responses"):
        df[c] = df[c].astype(int)
    df["policy"] = policy
    field = "lang" if by == "query_lang" else "resource"
    df["signature"] = [
        str(
            PERLANG_MEASURES[m].signature(
                **{field: grp}, mode=mode, gen=model, run=run, policy=policy, data=data_hash
            )
        )
        for m, grp, mode, model, run in zip(
            df["metric"], df["query_lang"], df["mode"], df["model"], df["run"]
        )
    ]
    return df[list(MEASURE_COLUMNS)]
