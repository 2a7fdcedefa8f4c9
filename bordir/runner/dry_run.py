"""``--dry-run``: calls, tokens and cost per language and model, before spending anything.

Retrieval runs for real when it is free (``bm25``, local embedders) so the
prompts are the ones the run would send; for paid embedders, BM25 stands in to
size the prompts (said in the output). Token counts are estimated as characters / 4.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from ..experiment.config import ExperimentConfig

__all__ = ["dry_run", "max_tokens_note"]


def max_tokens_note(cfg: ExperimentConfig) -> str:
    """How the run's ``max_tokens`` was chosen, in one line.

    >>> max_tokens_note(ExperimentConfig.from_dict({"response_format": "open"}))  # doctest: +ELLIPSIS
    'max_tokens 256: the open format's default (a free answer: its verdict and a short ...'
    """
    from ..generation.prompts import DEFAULT_MAX_TOKENS

    fmt = cfg.response_format
    if cfg.max_tokens is not None:
        return f"max_tokens {cfg.max_tokens}: set in the config (the {fmt} format's default is {DEFAULT_MAX_TOKENS[fmt]})"
    why = {
        "direct": "BordIRLines' limit for a one-option answer",
        "citation": "BordIRLines' limit for cited documents, the option and an explanation",
        "open": "a free answer: its verdict and a short justification; BorderLines' free-text runs "
        "allowed 128 (English) / 512 (other languages); set max_tokens to change it",
    }[fmt]
    return f"max_tokens {DEFAULT_MAX_TOKENS[fmt]}: the {fmt} format's default ({why})"


def _api_retriever(name: str) -> bool:
    """True for a ``provider/<model>`` retriever (an embeddings API: a dry run calls none)."""
    from ..retrieval.base import RETRIEVERS

    prefix, sep, _ = name.partition("/")
    return (
        bool(sep)
        and prefix in RETRIEVERS
        and bool(RETRIEVERS.entry(prefix, load=False).meta.get("provider"))
    )


def _requests(cfg: ExperimentConfig, prep: Any) -> tuple[list[Any], list[str]]:
    """Every request the grid of ``cfg`` makes on ``prep``'s inputs, and the language of each."""
    from .grid import grid_items

    requests, langs = [], []
    for model in cfg.models:
        # backends are not built: a dry run needs no keys and loads no model
        rank = model.startswith("local/") and cfg.response_format == "direct"
        for mode in prep.modes:
            for it in grid_items(
                cfg, prep.dataset, prep.queries, mode, model, rank, prep.docs_by, dict(prep.skipped)
            ):
                requests.append(it.request)
                langs.append(it.query.lang)
        if rank and cfg.calibrate:  # one content-free call per query (contextual calibration)
            from .calibration import content_free_request

            for q in prep.queries:
                requests.append(
                    content_free_request(
                        q,
                        model=model,
                        system=cfg.system,
                        instruction_lang=cfg.instruction_lang,
                        countries=prep.dataset.countries,
                    )
                )
                langs.append(q.lang)
    return requests, langs


def dry_run(cfg: ExperimentConfig, *, batch: bool = False) -> pd.DataFrame:
    """One row per (model, language): calls, cached calls, estimated tokens and upper-bound cost.

    With ``batch``, models with a batch price are priced at it (``--submit batch``). ``attrs``
    hold ``pairs`` (queries × modes), ``dropped`` (every ``(query_id, mode, reason)`` the grid
    leaves out: no call is counted for them), ``power`` and, for paid embedders, ``note``.
    """
    from ..generation.cache import ResponseCache, default_cache_path
    from ..generation.cost import estimate
    from .grid import prepare

    stand_in = "bm25" if _api_retriever(cfg.retriever) else None
    prep = prepare(cfg, progress=False, retriever=stand_in)
    path = Path(cfg.cache).expanduser() if cfg.cache else default_cache_path()
    requests, langs = _requests(cfg, prep)
    if cfg.response_format == "open":  # the forced twin's calls too (bordir.experiment.twin)
        from ..experiment.twin import forced_twin

        more, more_langs = _requests(forced_twin(cfg), prep)
        requests, langs = requests + more, langs + more_langs
    # the cache is read, never created: a dry run on a machine without one writes nothing
    if path.is_file():
        with ResponseCache(path) as cache:
            est = estimate(requests, langs, cache=cache, batch=batch)
    else:
        est = estimate(requests, langs, cache=None, batch=batch)
    df = pd.DataFrame([asdict(r) for r in est.rows])
    # the grid as it will run: every (query, mode) pair it drops, with its cause (the same for
    # every model), and how many pairs there are in all
    df.attrs["pairs"] = len(prep.queries) * len(prep.modes)
    df.attrs["dropped"] = [(q, m, r) for (q, m), r in sorted(prep.skipped.items())]
    df.attrs["models"] = list(cfg.models)
    df.attrs["max_tokens"] = max_tokens_note(cfg)
    if cfg.response_format == "open":
        df.attrs["max_tokens"] += (
            "; the counts include the forced twin's direct-format calls (out/forced; 128 tokens each), "
            "which a direct run of the same experiment shares through the cache"
        )
    if stand_in:
        df.attrs["note"] = (
            f"prompts sized with bm25 retrieval instead of {cfg.retriever} (no embedding calls)"
        )
    from ..metrics.perlang.power import design_power

    df.attrs["power"] = design_power(prep.queries, prep.dataset, runs=len(cfg.seeds)).to_dict(
        orient="records"
    )
    return df
