"""``--dry-run``: calls, tokens and cost per language and model, before spending anything.

Retrieval runs for real when it is free (``bm25``, local embedders) so the
prompts are the ones the run would send; for paid embedders, BM25 stands in to
size the prompts (said in the output). Token counts are estimated as characters / 4.

A total is never silently partial. The (query, mode) pairs the corpus cannot serve (no passage
about the territory, or none in the mode's languages) get an estimate of their own, with ``k``
placeholder passages of :data:`ASSUMED_PASSAGE_CHARS` characters each (an assumption, stated in
the output); a corpus path that does not exist yet (not fetched) is estimated the same way for
every retrieving pair, so a study can be priced before its corpus is fetched. Pairs a mode does
not define (``swap_docs`` for English controls …) never run and cost nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..experiment.config import ExperimentConfig
from ..modes import SKIP_NO_DOCUMENTS, SKIP_NO_TERRITORY

__all__ = ["dry_run", "ASSUMED_PASSAGE_CHARS", "Unserved", "UNSERVED_CAUSES", "max_tokens_note"]

ASSUMED_PASSAGE_CHARS = 700
"""The passage length (characters, about 175 tokens) a dry run assumes where no passage exists yet.

About the median length of a Wikipedia paragraph that BordIRLines keeps; stated in every line that
uses it.
"""

UNSERVED_CAUSES = (SKIP_NO_TERRITORY, SKIP_NO_DOCUMENTS)
"""The skip causes that a (larger) corpus would serve: their pairs are estimated, not priced at 0."""


@dataclass(frozen=True)
class Unserved:
    """The estimate of the pairs the corpus cannot serve (yet), under a stated assumption.

    Attributes:
        pairs: (query, mode) pairs left out because the corpus has no passage for them.
        calls: the calls they would need (every model and run).
        max_cost_usd: their upper-bound cost; None when a model has no price.
        assumption: the assumption the estimate rests on, in words.
        corpus_missing: True when the corpus path does not exist at all (nothing was retrieved).
    """

    pairs: int
    calls: int
    max_cost_usd: float | None
    assumption: str
    corpus_missing: bool = False


def max_tokens_note(cfg: ExperimentConfig) -> str:
    """How the run's ``max_tokens`` was chosen, in one line.

    >>> print(max_tokens_note(ExperimentConfig.from_dict({"response_format": "open"})))  # doctest: +ELLIPSIS
    max_tokens 256: the open format's default (a free answer: its verdict and a short ...
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


def _corpus_missing(cfg: ExperimentConfig) -> bool:
    """True when the config names a corpus path that does not exist (not fetched yet)."""
    from ..experiment.inputs import corpus_spec

    spec = corpus_spec(cfg)
    return spec is not None and spec != "demo" and not Path(spec).expanduser().exists()


def _placeholder_docs(k: int, key: tuple[str, str]) -> tuple[Any, ...]:
    """``k`` stand-in passages of :data:`ASSUMED_PASSAGE_CHARS` characters, distinct per pair.

    Distinct, so that no two pairs count as one deduplicated call.
    """
    from ..generation.types import Document

    out = []
    for i in range(k):
        head = f"{key[0]} {key[1]} {i} "
        out.append(
            Document(i, f"assumed-{i}", "und", head + "x" * (ASSUMED_PASSAGE_CHARS - len(head)))
        )
    return tuple(out)


def _assumed_prepare(cfg: ExperimentConfig) -> Any:
    """The grid's inputs without a corpus: every retrieving pair gets ``k`` placeholder passages."""
    from ..corpus import Corpus
    from ..experiment.inputs import load_dataset_of, select_queries
    from ..modes import Mode, swap_skip_reason
    from .grid import Prepared

    ds = load_dataset_of(cfg)
    queries = select_queries(cfg, ds)
    modes = [Mode.parse(m) for m in cfg.modes]
    skipped: dict[tuple[str, str], str] = {}
    for mode in modes:
        if mode is not Mode.SWAP_DOCS:
            continue
        for q in queries:
            reason = swap_skip_reason(q, ds)
            if reason is not None:
                skipped[(q.query_id, mode.value)] = reason
    for mode in modes:  # every other retrieving pair waits for the corpus
        if mode is Mode.NO_IR:
            continue
        for q in queries:
            skipped.setdefault((q.query_id, mode.value), SKIP_NO_TERRITORY)
    return Prepared(ds, Corpus((), name="none"), queries, modes, None, {}, skipped)


def _requests(
    cfg: ExperimentConfig,
    prep: Any,
    docs_by: Any,
    skipped: Any,
    only: set[tuple[str, str]] | None = None,
) -> tuple[list[Any], list[str]]:
    """Every request of the grid over ``docs_by`` and its query language.

    Pairs in ``skipped`` are left out; with ``only``, only those pairs are kept.
    """
    from .grid import grid_items

    requests, langs = [], []
    for model in cfg.models:
        # backends are not built: a dry run needs no keys and loads no model
        rank = model.startswith("local/") and cfg.response_format == "direct"
        for mode in prep.modes:
            items = grid_items(
                cfg, prep.dataset, prep.queries, mode, model, rank, docs_by, dict(skipped)
            )
            for it in items:
                if only is not None and (it.query.query_id, it.mode) not in only:
                    continue
                requests.append(it.request)
                langs.append(it.query.lang)
        if rank and cfg.calibrate and only is None:
            from .calibration import content_free_request

            for q in prep.queries:  # one content-free call per query (contextual calibration)
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


def _unserved(cfg: ExperimentConfig, prep: Any, *, batch: bool, missing: bool) -> Unserved | None:
    """The estimate of the pairs dropped for want of passages (None when there are none)."""
    from ..generation.cost import estimate

    waiting = {key for key, reason in prep.skipped.items() if reason in UNSERVED_CAUSES}
    if not waiting:
        return None
    docs_by = {key: _placeholder_docs(cfg.k, key) for key in waiting}
    others = {key: r for key, r in prep.skipped.items() if key not in waiting}
    # only the waiting pairs: the served ones (and no_ir) are in the main estimate
    requests, langs = _requests(cfg, prep, docs_by, others, only=waiting)
    est = estimate(requests, langs, cache=None, batch=batch)
    assumption = f"k = {cfg.k} passages of ~{ASSUMED_PASSAGE_CHARS} characters each (assumed)"
    return Unserved(len(waiting), est.calls, est.max_cost_usd, assumption, corpus_missing=missing)


def dry_run(cfg: ExperimentConfig, *, batch: bool = False) -> pd.DataFrame:
    """One row per (model, language): calls, cached calls, estimated tokens and upper-bound cost.

    With ``batch``, models with a batch price are priced at it (``--submit batch``). ``attrs``
    hold ``pairs`` (queries × modes), ``served`` (the pairs the rows price), ``dropped`` (every
    ``(query_id, mode, reason)`` the grid leaves out: no call is counted for them in the rows),
    ``unserved`` (an :class:`Unserved` estimate of the dropped pairs a corpus would serve, or
    None), ``modes``, ``dataset`` (name, queries, languages, warnings, repairs, repair),
    ``power`` (on the pairs served in every mode) and, for paid embedders, ``note``.
    """
    from ..generation.cache import ResponseCache, default_cache_path
    from ..generation.cost import estimate
    from .grid import prepare

    missing = _corpus_missing(cfg)
    stand_in = "bm25" if _api_retriever(cfg.retriever) else None
    prep = _assumed_prepare(cfg) if missing else prepare(cfg, progress=False, retriever=stand_in)
    path = Path(cfg.cache).expanduser() if cfg.cache else default_cache_path()
    requests, langs = _requests(cfg, prep, prep.docs_by, prep.skipped)
    if cfg.response_format == "open":  # the forced twin's calls too (bordir.experiment.twin)
        from ..experiment.twin import forced_twin

        more, more_langs = _requests(forced_twin(cfg), prep, prep.docs_by, prep.skipped)
        requests, langs = requests + more, langs + more_langs
    # the cache is read, never created: a dry run on a machine without one writes nothing
    if path.is_file():
        with ResponseCache(path) as cache:
            est = estimate(requests, langs, cache=cache, batch=batch)
    else:
        est = estimate(requests, langs, cache=None, batch=batch)
    df = pd.DataFrame([asdict(r) for r in est.rows])
    if df.empty:
        df = pd.DataFrame(columns=[f for f in _ROW_FIELDS])
    # the grid as it will run: every (query, mode) pair it drops, with its cause (the same for
    # every model), and how many pairs there are in all
    pairs = len(prep.queries) * len(prep.modes)
    df.attrs["pairs"] = pairs
    df.attrs["served"] = pairs - len(prep.skipped)
    df.attrs["dropped"] = [(q, m, r) for (q, m), r in sorted(prep.skipped.items())]
    df.attrs["unserved"] = _unserved(cfg, prep, batch=batch, missing=missing)
    df.attrs["models"] = list(cfg.models)
    df.attrs["max_tokens"] = max_tokens_note(cfg)
    if cfg.response_format == "open":
        df.attrs["max_tokens"] += (
            "; the counts include the forced twin's direct-format calls (out/forced; 128 tokens each), "
            "which a direct run of the same experiment shares through the cache"
        )
    df.attrs["corpus"] = cfg.corpus
    if missing:
        from ..experiment.inputs import fetch_command

        df.attrs["fetch"] = fetch_command(cfg, str(cfg.corpus))
    df.attrs["modes"] = [m.value for m in prep.modes]
    ds = prep.dataset
    df.attrs["dataset"] = {
        "name": ds.name,
        "queries": len(ds.queries),
        "languages": len(ds.query_langs),
        "warnings": list(ds.warnings),
        "repairs": list(ds.repairs),
        "repair": bool(cfg.repair),
    }
    if stand_in and not missing:
        df.attrs["note"] = (
            f"prompts sized with bm25 retrieval instead of {cfg.retriever} (no embedding calls)"
        )
    from ..metrics.perlang.power_tables import design_power

    # the power of a comparison between two modes: the queries served in two modes or more
    # (with no corpus yet: the pairs the corpus would serve, the assumption of the estimate)
    gap = set() if not missing else {k for k, r in prep.skipped.items() if r in UNSERVED_CAUSES}
    served = [
        q
        for q in prep.queries
        if sum(
            (q.query_id, m.value) not in prep.skipped or (q.query_id, m.value) in gap
            for m in prep.modes
        )
        >= 2
    ]
    df.attrs["power_queries"] = len(served)
    df.attrs["power"] = (
        design_power(served, ds, runs=len(cfg.seeds)).to_dict(orient="records")
        if len(prep.modes) >= 2
        else []
    )
    return df


_ROW_FIELDS = (
    "model",
    "lang",
    "requests",
    "calls",
    "cached",
    "input_tokens",
    "max_output_tokens",
    "max_cost_usd",
    "note",
)
