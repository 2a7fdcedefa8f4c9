"""Contextual calibration for rank classification: option scores under a content-free query.

Rank classification (``local/…``) scores every option label by its
teacher-forced log-likelihood. Part of that score is the model's prior for the
label itself (letter A, a familiar country name), whatever the question. Following
contextual calibration (Zhao et al., 2021, "Calibrate before use"), bordir asks the
same options, in the same order and with the same system prompt and
instruction, under a **content-free query**: the query text replaced by
``N/A`` and no documents (the ``no_ir`` prompt). The calibrated score of option
*i* is

    lp_cal(i) = lp(i) − lp_cf(i)

(in log space, the diagonal ``W = diag(p_cf)⁻¹`` of the paper; the softmax renormalises),
and the calibrated choice is :func:`~bordir.generation.choice.choose_option`
on ``lp_cal`` with the run's temperature and seed, exactly as for the raw scores.

One content-free call per (query, option order, model): it does not depend on the
mode (no documents) nor on the seed. The calibration is named ``cf:na-noir`` in
signatures (:data:`CALIBRATION`).

Example:
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> req = content_free_request(ds.query("Crimea_uk"), "reversed", model="local/gemma-3-270m",
    ...                            countries=ds.countries)
    >>> req.options, req.messages[1].content.split("Query: ")[1].splitlines()[0]
    (('A) Україна', 'B) Росія'), 'N/A')
    >>> from bordir.metrics.order.rules import calibrated_logprobs  # the scoring side
    >>> calibrated_logprobs([-1.0, -2.0], [-0.5, -3.0])
    [-0.5, 1.0]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from ..option_orders import OptionOrder, permute_query
from ..records import Country, Query

__all__ = [
    "CALIBRATION",
    "CONTENT_FREE_TEXT",
    "CALIBRATION_COLUMNS",
    "content_free_query",
    "content_free_request",
    "run_calibration",
]

CONTENT_FREE_TEXT = "N/A"
"""The content-free query text (Zhao et al.'s first content-free input)."""
CALIBRATION = "cf:na-noir"
"""The calibration's name in signatures: content-free text ``N/A``, no documents."""
CALIBRATION_COLUMNS = (
    "model",
    "query_id",
    "option_order",
    "cf_logprobs",
    "error",
    "cached",
    "calibration",
)
"""The table :func:`run_calibration` returns: one row per (model, query, order); ``cf_logprobs`` in given option
order. (The runner stores ``cf_logprobs`` on the given-order response rows instead.)"""


def content_free_query(query: Query, order: OptionOrder | str = "given") -> Query:
    """``query`` in ``order`` with its text replaced by :data:`CONTENT_FREE_TEXT` (options kept)."""
    return replace(permute_query(query, order), text=CONTENT_FREE_TEXT)


def content_free_request(
    query: Query,
    order: OptionOrder | str = "given",
    *,
    model: str,
    system: str = "vanilla",
    instruction_lang: str = "en",
    max_tokens: int | None = None,
    countries: Mapping[str, Country | str] | None = None,
) -> Any:
    """The :class:`~bordir.generation.types.GenerationRequest` of the content-free query (no documents)."""
    from ..generation.prompts import build_request

    return build_request(
        content_free_query(query, order),
        (),
        model=model,
        temperature=0.0,
        seed=None,
        max_tokens=max_tokens,
        response_format="direct",
        system=system,
        instruction_lang=instruction_lang,
        no_ir=True,
        countries=countries,
    )


def run_calibration(
    backend: Any,
    triples: Sequence[tuple[Query, OptionOrder, Query]],
    *,
    model: str,
    system: str = "vanilla",
    instruction_lang: str = "en",
    countries: Mapping[str, Country | str] | None = None,
    cache: Any = None,
    concurrency: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """Score every (query, order) of ``triples`` under the content-free query (cached like any call).

    Args:
        backend: a rank-classification backend (``supports_rank_classification``).
        triples: ``(given query, order, permuted query)`` as :func:`~bordir.option_orders.ordered_queries`
            returns them.
        model: the model name the requests carry (the backend's).
        system: the system prompt of the run's requests.
        instruction_lang: the language of the prompt's instructions.
        countries: country names by code, as the run's prompts name the options.
        cache: a response cache (None: no cache).
        concurrency: calls in flight at most.
        progress: show a progress bar.

    Returns:
        A table with :data:`CALIBRATION_COLUMNS`; ``cf_logprobs`` in the given option order (None on failure).
    """
    from ..generation.call_limits import ExecutorOptions
    from ..generation.executor import execute

    seen: dict[tuple[str, str], tuple[Query, OptionOrder]] = {}
    for q, order, _ in triples:
        seen.setdefault((q.query_id, str(order)), (q, order))
    reqs = [
        content_free_request(
            q, o, model=model, system=system, instruction_lang=instruction_lang, countries=countries
        )
        for q, o in seen.values()
    ]
    results = (
        execute(
            backend,
            reqs,
            cache=cache,
            options=ExecutorOptions(concurrency=concurrency),
            progress=progress,
            desc=f"{model} content-free",
        )
        if reqs
        else []
    )
    rows = []
    for (qid, name), (_q, order), res in zip(seen.keys(), seen.values(), results):
        lp = res.option_logprobs
        rows.append(
            {
                "model": model,
                "query_id": qid,
                "option_order": name,
                "cf_logprobs": list(order.to_given_order(list(lp)))
                if res.ok and lp is not None
                else None,
                "error": res.error
                if not res.ok
                else (None if lp is not None else "no option scores"),
                "cached": bool(res.cached),
                "calibration": CALIBRATION,
            }
        )
    return pd.DataFrame(rows, columns=list(CALIBRATION_COLUMNS))
