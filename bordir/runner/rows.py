"""Response rows: one dict per (query, mode, model, run) from a call's result, and the table of them.

:data:`RESPONSE_COLUMNS` is the responses table's schema; :func:`build_rows` parses
one call's result into its rows (one per run it serves), in the given option
order; :func:`responses_frame` is the table in canonical order.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pandas as pd

from .grid import GridItem

if TYPE_CHECKING:
    from ..experiment.config import ExperimentConfig
    from ..generation.types import GenerationResult

__all__ = ["RESPONSE_COLUMNS", "SORT_KEYS", "build_rows", "in_given_order", "responses_frame"]

RESPONSE_COLUMNS = [
    "query_id",
    "territory",
    "query_lang",
    "is_control",
    "mode",
    "model",
    "run",
    "seed",
    "temperature",
    "outcome",
    "choice",
    "choice_name",
    "raw_text",
    "prompt",
    "cited_doc_ids",
    "n_cited_dropped",
    "doc_ids",
    "doc_langs",
    "doc_titles",
    "doc_revision_ids",
    "doc_fetched_at",
    "input_tokens",
    "output_tokens",
    "latency_s",
    "cached",
    "error",
    "option_logprobs",
    "option_order",
    "choice_position",
    "cf_logprobs",
    "signature",
]
"""Every column of ``responses.parquet``, in order (scoring reads only
:data:`bordir.metrics.responses.SCORING_COLUMNS` of them)."""

#: the canonical order of the responses table (stable: a query's option orders keep theirs)
SORT_KEYS = ["model", "mode", "query_id", "run"]


def build_rows(
    cfg: ExperimentConfig,
    it: GridItem,
    res: GenerationResult,
    sig: str,
    rank: bool,
    *,
    dataset: Any = None,
) -> list[dict[str, Any]]:
    """The response rows of one call's result: one per run it serves, in the given option order.

    An ``open`` answer is resolved (:mod:`bordir.generation.parse.free`, with ``dataset``'s names):
    ``outcome`` is ``answered`` for one claimant, else the resolver's outcome (``several``,
    ``controller_only``, ``refusal``, ``other_country``, ``unparsed``, ``echo`` — a copy of the
    prompt or its documents —, ``empty``).
    """
    from ..generation.choice import choose_option
    from ..generation.parse import PromptParts, parse_answer, parse_citation_response

    q = it.query
    prompt = PromptParts.of_messages(
        it.request.messages, documents=(d.text for d in it.docs), expected=q.options
    )
    base = {
        "query_id": q.query_id,
        "territory": q.territory,
        "query_lang": q.lang,
        "is_control": q.is_control,
        "mode": it.mode,
        "model": it.request.model,
        "temperature": cfg.temperature,
        "prompt": json.dumps(
            [[m.role, m.content] for m in it.request.messages], ensure_ascii=False
        ),
        "doc_ids": [d.doc_id for d in it.docs],
        "doc_langs": [d.lang for d in it.docs],
        "doc_titles": [t for t, _, _ in it.provenance],
        "doc_revision_ids": [r for _, r, _ in it.provenance],
        "doc_fetched_at": [f for _, _, f in it.provenance],
        "input_tokens": res.input_tokens,
        "output_tokens": res.output_tokens,
        "latency_s": res.latency_s,
        "cached": bool(res.cached),
        "error": res.error,
        "option_logprobs": list(res.option_logprobs) if res.option_logprobs is not None else None,
        "signature": sig,
    }
    out = []
    for run, seed in it.runs:
        row = dict(base, run=run, seed=seed, cited_doc_ids=[], n_cited_dropped=0)
        if not res.ok:
            row.update(outcome="failed", choice=-1, raw_text="")
        elif rank and res.option_logprobs is not None:
            choice = choose_option(list(res.option_logprobs), cfg.temperature, seed)
            row.update(outcome="answered", choice=choice, raw_text=q.option_label(choice))
        elif cfg.response_format == "open":
            from ..generation.parse.free import resolver_for

            fr = resolver_for(dataset).resolve(res.text, q, prompt=prompt)  # an echo is echo
            outcome = "answered" if fr.outcome == "claimant" else fr.outcome
            row.update(outcome=outcome, choice=fr.index if outcome == "answered" else -1)
            row.update(raw_text=res.text)
        elif cfg.response_format == "citation":
            pc = parse_citation_response(
                res.text, q, len(it.docs), documents=it.docs, policy=cfg.policy, prompt=prompt
            )
            row.update(
                outcome=pc.answer.outcome,
                choice=pc.answer.choice,
                raw_text=res.text,
                cited_doc_ids=[it.docs[i].doc_id for i in pc.cited],
                n_cited_dropped=pc.dropped_out_of_range,
            )
        else:
            pa = parse_answer(res.text, q, policy=cfg.policy, prompt=prompt)
            row.update(outcome=pa.outcome, choice=pa.choice, raw_text=res.text)
        row["choice_name"] = q.claimants[row["choice"]] if row["choice"] >= 0 else ""
        out.append(row)
    return [in_given_order(r, it) for r in out]


def in_given_order(row: dict[str, Any], it: GridItem) -> dict[str, Any]:
    """``choice`` and ``option_logprobs`` back in the given option order; ``option_order``, ``choice_position``."""
    from ..option_orders import OptionOrder, row_in_given_order

    order = it.order if it.order is not None else OptionOrder.identity(len(it.query.options))
    return row_in_given_order(row, order)


def responses_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The responses table of ``rows`` in canonical order (model, mode, query, run)."""
    df = pd.DataFrame(rows, columns=RESPONSE_COLUMNS)
    return df.sort_values(SORT_KEYS, kind="stable").reset_index(drop=True)
