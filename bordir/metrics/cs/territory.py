"""One territory's sufficient statistics, computed row by row from its answers (the definition).

For one (model, mode, run), territory *t* has ``Responses_d`` (its claimant-language
answers as English country names, keyed by query language; ``en`` only when ``en``
is a claimant language, :func:`fix_responses_d`) and ``Response_en`` (the control
answer). :func:`territory_stats` turns them into one row of
:data:`TERRITORY_COLUMNS` (numerators, denominators, skipped counts) and one item
per answer (:data:`ITEM_COLUMNS`), exactly as one loop iteration of
``calculate_CS.py``. It is the readable definition; whole tables are computed by the
vectorised engine (:mod:`bordir.metrics.cs.columnar`), which a differential test holds
to this function.

Example:
    >>> row, items = territory_stats("X", "A", "a", {"a": "A", "b": "B", "c": "A"}, "A")
    >>> row["kb_num"], row["control_num"], row["nc_agree"], row["nc_n"], row["cst_agree"], row["cst_pairs"]
    (1.0, 1.0, 1, 2, 1, 3)
    >>> ", ".join(i["role"] for i in items)
    'control, non_control, non_control'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import Any

from ...records import UNKNOWN

__all__ = ["TERRITORY_COLUMNS", "ITEM_COLUMNS", "is_missing", "fix_responses_d", "territory_stats"]

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
Countries"; :mod:`bordir.metrics.cs.response_countries`).
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
