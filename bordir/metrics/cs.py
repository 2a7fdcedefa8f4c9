"""Concurrence scores (CS): per-territory sufficient statistics and their aggregates.

CS is 1 when two answers name the same country. For one (model, mode, run),
each territory *t* has:

* ``Responses_d``: its claimant-language answers as English country names,
  keyed by query language. The control answer enters as ``en`` only when
  ``en`` is one of the territory's claimant languages (``fix_responses_d``).
* ``Response_en``: the control (English) answer; ``controller`` and its
  language ``controller_code``.

From them, :func:`territory_stats` computes one row of sufficient statistics
(numerators, denominators, skipped counts). Every aggregate is a *pure
function of that table* (a ratio of column sums, optionally weighted), so a
bootstrap resample is just a weight vector over territories:

* KB CS = Σ kb / #territories with a known controller (and, under the strict
  policy, an answered control query);
* Control CS = Σ control / #territories with a controller-language answer;
* Non-control CS = mean over territories of the per-territory mean agreement
  of the other claimant-language answers with the controller (macro);
* ΔCS = (Control − Non-control) / Non-control, undefined (``None``) when
  Non-control CS is 0; ΔCS unnormalised = Control − Non-control;
* Cst CS = mean over territories with ≥ 1 pair of the share of agreeing
  answer pairs; Cst CS unk: the same over Unknown-controller territories.

Example:
    >>> row, items = territory_stats("X", "A", "a", {"a": "A", "b": "B", "c": "A"}, "A")
    >>> row["kb_num"], row["control_num"], row["nc_agree"], row["nc_n"], row["cst_agree"], row["cst_pairs"]
    (1.0, 1.0, 1, 2, 1, 3)
    >>> table = pd.DataFrame([row])
    >>> s = aggregate(table)
    >>> s["non_control_cs"].value, s["delta_cs"].value, round(s["cst_cs"].value, 4)
    (0.5, 1.0, 0.3333)
    >>> s["kb_cs"].frac
    '1/1'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..records import UNKNOWN
from .responses import (
    GROUP_KEYS,
    Policy,
    TableKey,
    answer_control,
    answer_pick,
    check_policy,
    validate_responses,
)
from .signature import Signature

if TYPE_CHECKING:  # pragma: no cover
    from ..dataset import BorderLines

__all__ = [
    "RATIO_METRICS",
    "DERIVED_METRICS",
    "METRICS",
    "TERRITORY_COLUMNS",
    "ITEM_COLUMNS",
    "Score",
    "TerritoryStats",
    "TableKey",
    "is_missing",
    "fix_responses_d",
    "territory_stats",
    "build_stats",
    "territory_tables",
    "metric_value",
    "aggregate",
]

RATIO_METRICS: Mapping[str, tuple[str, str]] = {
    "kb_cs": ("kb_num", "kb_den"),
    "control_cs": ("control_num", "control_den"),
    "non_control_cs": ("nc_num", "nc_den"),
    "cst_cs": ("cst_num", "cst_den"),
    "cst_cs_unknown": ("cst_unk_num", "cst_unk_den"),
}
"""Metrics that are Σ numerator / Σ denominator over territories (table columns)."""

DERIVED_METRICS: tuple[str, ...] = ("delta_cs", "delta_cs_abs")
"""Metrics computed from Control CS and Non-control CS."""

METRICS: tuple[str, ...] = (
    "kb_cs",
    "control_cs",
    "non_control_cs",
    "delta_cs",
    "delta_cs_abs",
    "cst_cs",
    "cst_cs_unknown",
)
"""Every metric name, in reporting order."""

METRIC_BOUNDS: dict[str, tuple[float, float]] = {
    "kb_cs": (0.0, 1.0),
    "control_cs": (0.0, 1.0),
    "non_control_cs": (0.0, 1.0),
    "cst_cs": (0.0, 1.0),
    "cst_cs_unknown": (0.0, 1.0),
    "delta_cs_abs": (-1.0, 1.0),
    "delta_cs": (-1.0, math.inf),
}
"""The range of each metric; intervals over runs are clipped to it."""

TERRITORY_COLUMNS: tuple[str, ...] = (
    "territory", "controller", "controller_code", "controller_known",
    "n_queries", "n_claimant", "n_missing",
    "kb_num", "kb_den", "kb_skipped",
    "control_num", "control_den", "control_skipped",
    "nc_agree", "nc_n", "nc_skipped", "nc_num", "nc_den",
    "cst_agree", "cst_pairs", "cst_skipped", "cst_num", "cst_den",
    "cst_unk_num", "cst_unk_den",
    "rc_n", "rc_en_n",
)  # fmt: skip
"""Columns of the per-territory table (one row per territory).

``rc_n`` / ``rc_en_n``: the number of distinct answers among the claimant-language
responses, without / with the control answer (the reference's "Response
Countries"; :mod:`bordir.metrics.response_countries`).
"""

ITEM_COLUMNS: tuple[str, ...] = ("territory", "query_lang", "role", "answer", "missing", "agree")
"""Columns of the per-answer table (one row per claimant-language answer).

``role`` is ``control``, ``non_control`` or ``unknown`` (controller Unknown);
``agree`` is 1.0 / 0.0 (answer == controller), NaN when missing or Unknown.
"""


def is_missing(value: Any) -> bool:
    """True for what the strict policy treats as no answer: None, NaN, ``"None"``, ``""``.

    Examples:
        >>> [is_missing(v) for v in (None, float("nan"), "None", "", "Chile")]
        [True, True, True, True, False]
    """
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value in ("None", "")


def fix_responses_d(
    responses_d: Mapping[str, Any], claimant_codes: Iterable[str]
) -> dict[str, Any]:
    """``calculate_CS.py``'s ``fix_responses_d``: drop ``en`` unless it is a claimant language.

    >>> fix_responses_d({"en": "A", "es": "B"}, ["es", "ar"])
    {'es': 'B'}
    >>> fix_responses_d({"en": "A", "es": "B"}, ["es", "en"])
    {'en': 'A', 'es': 'B'}
    """
    out = dict(responses_d)
    if "en" not in list(claimant_codes):
        out.pop("en", None)
    return out


def territory_stats(
    territory: str,
    controller: str,
    controller_code: str,
    responses_d: Mapping[str, Any],
    response_en: Any,
    *,
    skip_missing: bool = False,
    n_queries: int | None = None,
    countries: Iterable[str] = (),
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Sufficient statistics of one territory (``calculate_CS.py``, one loop iteration).

    Args:
        territory: its name.
        controller: English name of the controller, or ``"Unknown"``.
        controller_code: the controller's language code (``""`` if Unknown or
            not in the countries table).
        responses_d: claimant-language answers (already fixed: ``en`` only when
            it is a claimant language), query language → country name.
        response_en: the control answer (country name).
        skip_missing: strict policy: answers for which :func:`is_missing` holds
            are skipped (and counted) instead of compared literally.
        n_queries: responses behind this row; default ``len(responses_d ∪ {en})``.
        countries: names that are answers even where :func:`is_missing` would call
            them missing (a claimant literally named ``"None"``).

    Returns:
        The per-territory row (:data:`TERRITORY_COLUMNS`) and its per-answer
        items (:data:`ITEM_COLUMNS`).
    """
    known = controller != UNKNOWN

    real = frozenset(countries)

    def miss(v: Any) -> bool:
        return skip_missing and is_missing(v) and not (isinstance(v, str) and v in real)

    # KB: control answer == controller; excluded for Unknown controllers.
    kb_num = kb_den = kb_skipped = 0
    if known:
        if miss(response_en):
            kb_skipped = 1
        else:
            kb_den = 1
            kb_num = int(controller == response_en)

    control_num = control_den = control_skipped = 0
    nc_agree = nc_n = nc_skipped = 0
    items: list[dict[str, Any]] = []
    for lang, answer in responses_d.items():
        missing = miss(answer)
        if not known:
            role, agree = "unknown", math.nan
        else:
            role = "control" if lang == controller_code else "non_control"
            agree = math.nan if missing else float(controller == answer)
            if role == "control":
                if missing:
                    control_skipped += 1
                else:
                    control_den, control_num = 1, int(agree)
            elif missing:
                nc_skipped += 1
            else:
                nc_n += 1
                nc_agree += int(agree)
        items.append(
            {
                "territory": territory,
                "query_lang": lang,
                "role": role,
                "answer": None if missing else answer,
                "missing": missing,
                "agree": agree,
            }
        )

    values = list(responses_d.values())
    valid = [v for v in values if not miss(v)]
    all_pairs = len(values) * (len(values) - 1) // 2
    cst_pairs = len(valid) * (len(valid) - 1) // 2
    cst_agree = sum(a == b for a, b in combinations(valid, 2))
    cst_num = cst_agree / cst_pairs if cst_pairs else 0.0
    cst_den = int(cst_pairs > 0)

    # Response Countries (calculate_CS.py): distinct answers, without and with the control answer as "en"
    with_en = [v for v in {**responses_d, "en": response_en}.values() if not miss(v)]
    rc_n, rc_en_n = len(set(valid)), len(set(with_en))

    if n_queries is None:
        n_queries = len(responses_d) + (0 if "en" in responses_d else 1)
    row = {
        "territory": territory,
        "controller": controller,
        "controller_code": controller_code,
        "controller_known": known,
        "n_queries": int(n_queries),
        "n_claimant": len(values),
        "n_missing": len(values) - len(valid),
        "kb_num": float(kb_num),
        "kb_den": float(kb_den),
        "kb_skipped": kb_skipped,
        "control_num": float(control_num),
        "control_den": float(control_den),
        "control_skipped": control_skipped,
        "nc_agree": nc_agree,
        "nc_n": nc_n,
        "nc_skipped": nc_skipped,
        "nc_num": nc_agree / nc_n if nc_n else 0.0,
        "nc_den": float(nc_n > 0),
        "cst_agree": int(cst_agree),
        "cst_pairs": cst_pairs,
        "cst_skipped": all_pairs - cst_pairs,
        "cst_num": cst_num,
        "cst_den": float(cst_den),
        "cst_unk_num": cst_num if not known else 0.0,
        "cst_unk_den": float(cst_den if not known else 0),
        "rc_n": rc_n,
        "rc_en_n": rc_en_n,
    }
    return row, items


@dataclass(frozen=True)
class Score:
    """One aggregate with the counts behind it.

    Attributes:
        metric: name (:data:`METRICS`).
        value: the score as a fraction, or ``None`` when undefined.
        numerator: Σ of per-territory values (agreements for KB/Control; sum of
            per-territory means for the macro averages); ``None`` for ΔCS.
        denominator: territories that contribute (``None`` for ΔCS).
        items: answers (KB, Control, Non-control) or answer pairs (Cst) behind it.
        skipped: answers or pairs skipped as missing (strict policy).
        note: why a value is undefined, when it is.
    """

    metric: str
    value: float | None
    numerator: float | None = None
    denominator: int | None = None
    items: int | None = None
    skipped: int = 0
    note: str = ""

    @property
    def frac(self) -> str | None:
        """``"128/161"`` (numerator/denominator, as BorderLines prints KB and Control)."""
        if self.numerator is None or self.denominator is None:
            return None
        num = (
            int(self.numerator) if float(self.numerator).is_integer() else round(self.numerator, 4)
        )
        return f"{num}/{self.denominator}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "value": self.value,
            "numerator": self.numerator,
            "denominator": self.denominator,
            "items": self.items,
            "skipped": self.skipped,
            "note": self.note,
        }


def _cols(
    table: pd.DataFrame | Mapping[str, np.ndarray], names: Iterable[str]
) -> dict[str, np.ndarray]:
    return {n: np.asarray(table[n], dtype=float) for n in names}


def _ratio(num: np.ndarray, den: np.ndarray, weights: np.ndarray | None) -> np.ndarray | float:
    if weights is None:
        s_num, s_den = num.sum(axis=-1), den.sum(axis=-1)
    else:
        s_num, s_den = (weights * num).sum(axis=-1), (weights * den).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s_den > 0, s_num / np.where(s_den > 0, s_den, 1), np.nan)


def metric_value(
    table: pd.DataFrame | Mapping[str, np.ndarray],
    metric: str,
    weights: np.ndarray | None = None,
) -> Any:
    """The value of ``metric`` on a per-territory table (NaN when undefined).

    Args:
        table: the per-territory table, or a mapping of its columns to arrays
            of shape ``(T,)`` or ``(B, T)`` (B alternative tables, as in a
            permutation test).
        metric: a name in :data:`METRICS`.
        weights: optional territory weights, shape ``(T,)`` or ``(B, T)``
            (bootstrap resample counts); they broadcast against the columns.

    Returns:
        A float (no batch axis) or an array with one value per resample.

    >>> t = pd.DataFrame({"kb_num": [1.0, 0.0, 0.0], "kb_den": [1.0, 1.0, 0.0]})
    >>> float(metric_value(t, "kb_cs"))
    0.5
    >>> metric_value(t, "kb_cs", weights=np.array([[2, 1, 0], [0, 3, 0]])).tolist()
    [0.6666666666666666, 0.0]
    """
    if metric in RATIO_METRICS:
        num, den = RATIO_METRICS[metric]
        c = _cols(table, (num, den))
        out = _ratio(c[num], c[den], weights)
    elif metric in DERIVED_METRICS:
        ctl = metric_value(table, "control_cs", weights)
        non = metric_value(table, "non_control_cs", weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            if metric == "delta_cs_abs":
                out = ctl - non
            else:
                out = np.where(non != 0, (ctl - non) / np.where(non != 0, non, 1), np.nan)
    else:
        raise ConfigError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    out = np.asarray(out, dtype=float)
    return float(out) if out.ndim == 0 else out


def _nan_to_none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def aggregate(table: pd.DataFrame) -> dict[str, Score]:
    """Every metric of :data:`METRICS` on a per-territory table, with its counts.

    ΔCS is ``None`` when Control or Non-control CS is undefined, and also when
    Non-control CS is 0 (the normalised difference divides by it); the
    unnormalised ΔCS is still reported then.
    """
    out: dict[str, Score] = {}
    item_cols = {"kb_cs": "kb_den", "control_cs": "control_den", "non_control_cs": "nc_n"}
    skip_cols = {
        "kb_cs": "kb_skipped",
        "control_cs": "control_skipped",
        "non_control_cs": "nc_skipped",
    }
    unknown = ~table["controller_known"].to_numpy(dtype=bool) if len(table) else np.zeros(0, bool)
    for name, (num, den) in RATIO_METRICS.items():
        value = _nan_to_none(metric_value(table, name))
        if name.startswith("cst"):
            rows = unknown if name == "cst_cs_unknown" else np.ones(len(table), bool)
            items = int(table["cst_pairs"].to_numpy()[rows].sum())
            skipped = int(table["cst_skipped"].to_numpy()[rows].sum())
        else:
            items = int(table[item_cols[name]].sum())
            skipped = int(table[skip_cols[name]].sum())
        denominator = int(table[den].sum())
        note = "" if value is not None else "no territory contributes"
        out[name] = Score(name, value, float(table[num].sum()), denominator, items, skipped, note)
    ctl, non = out["control_cs"].value, out["non_control_cs"].value
    if ctl is None or non is None:
        why = "Control CS or Non-control CS is undefined"
        out["delta_cs"] = Score("delta_cs", None, note=why)
        out["delta_cs_abs"] = Score("delta_cs_abs", None, note=why)
    else:
        note = "undefined: Non-control CS is 0" if non == 0 else ""
        out["delta_cs"] = Score("delta_cs", None if non == 0 else (ctl - non) / non, note=note)
        out["delta_cs_abs"] = Score("delta_cs_abs", ctl - non)
    return {m: out[m] for m in METRICS}


@dataclass(frozen=True)
class TerritoryStats:
    """The per-territory and per-answer tables of one (model, mode, run).

    Attributes:
        table: one row per territory (:data:`TERRITORY_COLUMNS`).
        items: one row per claimant-language answer (:data:`ITEM_COLUMNS`).
        policy: the scoring policy that produced them.
        key: ``{"model": …, "mode": …, "run": …}`` (empty for a legacy table).
    """

    table: pd.DataFrame
    items: pd.DataFrame
    policy: str
    key: Mapping[str, Any] = field(default_factory=dict)

    def scores(self) -> dict[str, Score]:
        """:func:`aggregate` of :attr:`table`."""
        return aggregate(self.table)

    def value(self, metric: str) -> float | None:
        return _nan_to_none(metric_value(self.table, metric))

    @property
    def n_queries(self) -> int:
        return int(self.table["n_queries"].sum())

    def signature(self, metric: str = "cs", **extra: Any) -> Signature:
        """The signature of a score computed from these statistics."""
        return Signature.build(
            metric,
            mode=self.key.get("mode"),
            gen=self.key.get("model"),
            run=self.key.get("run"),
            policy=self.policy,
            **extra,
        )

    def __repr__(self) -> str:
        key = ", ".join(f"{k}={v!r}" for k, v in self.key.items())
        return f"TerritoryStats({key}{', ' if key else ''}policy={self.policy!r}, territories={len(self.table)})"


def build_stats(
    rows: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]],
    *,
    policy: str,
    key: Mapping[str, Any] | None = None,
) -> TerritoryStats:
    """Assemble :class:`TerritoryStats` from :func:`territory_stats` results."""
    table = pd.DataFrame([r for r, _ in rows], columns=list(TERRITORY_COLUMNS))
    items = pd.DataFrame([i for _, its in rows for i in its], columns=list(ITEM_COLUMNS))
    return TerritoryStats(table=table, items=items, policy=policy, key=dict(key or {}))


def territory_tables(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    policy: Policy = "strict",
    validate: bool = True,
) -> dict[TableKey, TerritoryStats]:
    """Per-territory statistics for every (model, mode, run) of a responses table.

    A territory is scored in a group when the group has at least one response
    for it. ``Responses_d`` holds its non-control answers by query language,
    plus the control answer as ``en`` when ``en`` is a claimant language
    (``dataset.claimant_langs``); ``Response_en`` is the control answer (under
    the reference policy a missing control row is ``"None"``, as in the
    reference, where the lookup fails). Territories appear in dataset order.

    Returns:
        ``{TableKey(model, mode, run): TerritoryStats}`` sorted by key; a
        :class:`~bordir.metrics.responses.TableKey` is a named tuple, so
        ``for (model, mode, run), stats in tables.items()`` still works.
    """
    check_policy(policy)
    df = validate_responses(responses, dataset) if validate else responses
    skip = policy == "strict"
    order = {t.name: i for i, t in enumerate(dataset.territories)}
    out: dict[TableKey, TerritoryStats] = {}
    for (model, mode, run), group in sorted(
        df.groupby(list(GROUP_KEYS), sort=False), key=lambda kv: kv[0]
    ):
        key = TableKey(str(model), str(mode), int(run))
        rows = []
        by_terr = sorted(group.groupby("territory", sort=False), key=lambda kv: order[kv[0]])
        for name, g in by_terr:
            terr = dataset.territory(name)
            claim_codes = dataset.claimant_langs(name)
            responses_d: dict[str, Any] = {}
            response_en: Any = "None" if policy == "reference" else None
            for lang, ctl, outcome, choice in sorted(
                zip(g["query_lang"], g["is_control"], g["outcome"], g["choice"]),
                key=lambda r: (r[0], r[1]),
            ):
                if ctl:
                    response_en = answer_control(outcome, int(choice), terr.claimants, policy)
                responses_d[lang] = answer_pick(outcome, int(choice), terr.claimants, policy)
            responses_d = fix_responses_d(responses_d, claim_codes)
            rows.append(
                territory_stats(
                    name,
                    terr.controller,
                    dataset.controller_lang(name),
                    responses_d,
                    response_en,
                    skip_missing=skip,
                    n_queries=len(g),
                    countries=terr.claimants,
                )
            )
        out[key] = build_stats(rows, policy=policy, key=key._asdict())
    return out
