"""The grid's inputs: load and retrieve (:func:`prepare`), one :class:`GridItem` per call, the row signature.

:func:`prepare` loads the dataset and corpus, retrieves for every IR mode and
maps each (query, mode) to its prompt documents; :func:`grid_items` turns one
(model, mode) of a :class:`Prepared` into the generation requests it needs
(one per run, or one per (query, mode) for rank-classification backends, times
the option orders asked). :func:`run_signature` is the signature of every
response row of one (model, mode).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..corpus import Corpus
from ..dataset import BorderLines
from ..experiment.config import ExperimentConfig
from ..experiment.inputs import load_inputs, load_labels_of, select_queries
from ..modes import SKIP_NO_DOCUMENTS, SKIP_NO_TERRITORY, Mode
from ..records import Query
from ..signature import Signature

__all__ = [
    "GridItem",
    "Prepared",
    "prepare",
    "grid_items",
    "query_orders",
    "item_label",
    "run_signature",
    "check_open_queries",
]


@dataclass
class GridItem:
    """One call of the grid: a (permuted) query in one mode, its documents, the request and the runs it serves."""

    query: Query
    mode: str
    docs: tuple[Any, ...]  # tuple[Document, ...]
    request: Any  # GenerationRequest
    runs: tuple[tuple[int, int], ...]  # (run index, seed) served by this request
    provenance: tuple[
        tuple[str, str, str], ...
    ] = ()  # (title, revision_id, fetched_at) per document
    order: Any = None  # OptionOrder the (permuted) query is asked in; None: the given order


@dataclass
class Prepared:
    """Inputs of the generation step: queries, modes, retrieved documents, skips.

    ``skipped`` holds every (query_id, mode) the grid leaves out, with its cause (swap_docs
    undefined, no passage for the territory, none in the mode's languages, the relevance filter).
    """

    dataset: BorderLines
    corpus: Corpus
    queries: list[Query]
    modes: list[Mode]
    retrieval: Any  # RetrievalRun | None
    docs_by: dict[tuple[str, str], tuple[Any, ...]]
    skipped: dict[tuple[str, str], str]
    provenance_by: dict[tuple[str, str], tuple[Any, ...]] | None = None


def run_signature(cfg: ExperimentConfig, prep: Prepared, model: str, mode: str) -> Signature:
    """The signature of every response row of ``(model, mode)`` in a run of ``cfg`` on ``prep``'s inputs.

    Example:
        >>> from bordir.experiment.config import ExperimentConfig
        >>> cfg = ExperimentConfig.from_dict({"models": ["mock/first"], "modes": "no_ir", "runs": 2})
        >>> sig = run_signature(cfg, prepare(cfg, progress=False), "mock/first", "no_ir")
        >>> str(sig).startswith("responses|mode:no_ir|gen:mock/first|fmt:direct|sys:vanilla|ilang:en|temp:0.5|runs:2|")
        True
        >>> sig.get("corpus").startswith("sha256-"), sig.get("data").startswith("sha256-")
        (True, True)
    """
    ir = mode != Mode.NO_IR.value
    ret: dict[str, Any] = {}
    if ir and prep.retrieval is not None:
        params = dict(prep.retrieval.params)
        ret = {k: v for k, v in params.items() if k not in ("data", "corpus")}
        ret["k"] = cfg.k
        if cfg.relevance_filter != "all":
            ret.update(rel=cfg.relevance_filter, labels=load_labels_of(cfg).content_hash())
    return Signature.build(
        "responses",
        mode=mode,
        **ret,
        gen=model,
        fmt=cfg.response_format,
        sys=cfg.system,
        ilang=cfg.instruction_lang,
        temp=cfg.temperature,
        runs=len(cfg.seeds),
        limit=cfg.limit,
        policy=cfg.policy,
        orders=None if cfg.option_orders == "given" else cfg.option_orders,
        order_modes=",".join(cfg.order_modes)
        if cfg.option_orders != "given" and cfg.order_modes
        else None,
        data=prep.dataset.content_hash(),
        corpus=prep.corpus.content_hash(),
    )


def prepare(
    cfg: ExperimentConfig,
    *,
    progress: bool = True,
    retriever: Any = None,
    inputs: tuple[BorderLines, Corpus] | None = None,
) -> Prepared:
    """Load data, retrieve for every IR mode, and map each (query, mode) to its prompt documents.

    ``retriever``: a name or a built :class:`~bordir.retrieval.base.Retriever` to use
    instead of the config's (same name, so the same signature).
    """
    from ..generation.types import Document
    from ..retrieval.run import retrieve

    ds, corpus = inputs if inputs is not None else load_inputs(cfg)
    queries = select_queries(cfg, ds)
    if cfg.response_format == "open":
        check_open_queries(queries, ds)
    modes = [Mode.parse(m) for m in cfg.modes]
    ir_modes = [m for m in modes if m is not Mode.NO_IR]
    retrieval = None
    if ir_modes:
        retrieval = retrieve(
            ds,
            corpus,
            retriever or cfg.retriever,
            ir_modes,
            k=cfg.k,
            depth=max(cfg.k, 50),
            fusion=cfg.fusion,
            balanced=cfg.balanced,
            queries=queries,
            progress=progress,
        )
    top = (
        retrieval.top()
        if retrieval is not None
        else pd.DataFrame(columns=["query_id", "mode", "rank"])
    )
    filtered_out: dict[tuple[str, str], str] = {}
    if retrieval is not None and cfg.relevance_filter != "all":
        from ..annotations.use import filter_hits

        kept = filter_hits(retrieval.hits, load_labels_of(cfg), cfg.relevance_filter)
        top = kept[kept["rank"] <= cfg.k]
        left = set(zip(top["query_id"], top["mode"]))
        for qid, mode in dict.fromkeys(zip(retrieval.hits["query_id"], retrieval.hits["mode"])):
            if (qid, mode) not in left:
                filtered_out[(qid, mode)] = (
                    f"no documents left after relevance_filter={cfg.relevance_filter}"
                )
    docs_by: dict[tuple[str, str], tuple[Any, ...]] = {}
    prov_by: dict[tuple[str, str], tuple[Any, ...]] = {}
    for (qid, mode), g in top.sort_values("rank").groupby(["query_id", "mode"], sort=False):
        passages = [corpus.get(l, d) for d, l in zip(g["doc_id"], g["doc_lang"])]
        docs_by[(qid, mode)] = tuple(
            Document(i, p.doc_id, p.lang, p.text) for i, p in enumerate(passages)
        )
        prov_by[(qid, mode)] = tuple(
            (p.title, dict(p.meta).get("revision_id", ""), dict(p.meta).get("fetched_at", ""))
            for p in passages
        )
    skipped = {(s.query_id, s.mode): s.reason for s in (retrieval.skipped if retrieval else [])}
    skipped.update(filtered_out)
    if (
        ir_modes
    ):  # every IR pair without documents, with the real cause (counted, never dropped silently)
        covered = set(corpus.territories)
        for mode in ir_modes:
            for q in queries:
                key = (q.query_id, mode.value)
                if key not in docs_by and key not in skipped:
                    skipped[key] = (
                        SKIP_NO_TERRITORY if q.territory not in covered else SKIP_NO_DOCUMENTS
                    )
    return Prepared(ds, corpus, queries, modes, retrieval, docs_by, skipped, prov_by)


def check_open_queries(queries: list[Query], ds: BorderLines) -> None:
    """Plan time: every query language has an open question and every query its territory's name.

    Raises:
        ConfigError: naming the languages without a template, or the first query whose territory name
            cannot be read (with the fix), before any call is made.
    """
    from ..generation.open_question import check_open_languages, open_question, territory_names_of

    check_open_languages(sorted({q.lang for q in queries}))
    names = territory_names_of(ds)
    for q in queries:
        open_question(q, names=names)


def grid_items(
    cfg: ExperimentConfig,
    ds: BorderLines,
    queries: list[Query],
    mode: Mode,
    model: str,
    rank: bool,
    docs_by: dict[tuple[str, str], Any],
    skipped: dict[tuple[str, str], Any],
    provenance_by: dict[tuple[str, str], Any] | None = None,
) -> list[GridItem]:
    """The calls one (model, mode) needs; queries without documents are added to ``skipped``."""
    from ..generation.prompts import build_request, nationalist_country

    names = None
    if cfg.response_format == "open":
        from ..generation.open_question import territory_names_of

        names = territory_names_of(ds)
    items: list[GridItem] = []
    for q in queries:
        if (q.query_id, mode.value) in skipped:
            continue
        docs = () if mode is Mode.NO_IR else docs_by.get((q.query_id, mode.value), ())
        if mode is not Mode.NO_IR and not docs:
            skipped[(q.query_id, mode.value)] = SKIP_NO_DOCUMENTS
            continue
        prov = (provenance_by or {}).get((q.query_id, mode.value), ())
        common = dict(
            model=model,
            max_tokens=cfg.max_tokens,
            response_format=cfg.response_format,
            system=cfg.system,
            instruction_lang=cfg.instruction_lang,
            no_ir=mode is Mode.NO_IR,
            countries=ds.countries,
            country=nationalist_country(q, ds.countries),
            **({"territory_names": names} if names is not None else {}),
        )
        for order, pq in query_orders(
            cfg, q, mode
        ):  # the given order first; pq: the permuted query
            if rank:  # option scores do not depend on the seed: one call, every run samples from it
                req = build_request(pq, docs, temperature=0.0, seed=None, **common)
                items.append(
                    GridItem(pq, mode.value, docs, req, tuple(enumerate(cfg.seeds)), prov, order)
                )
            else:
                for run, seed in enumerate(cfg.seeds):
                    req = build_request(pq, docs, temperature=cfg.temperature, seed=seed, **common)
                    items.append(GridItem(pq, mode.value, docs, req, ((run, seed),), prov, order))
    return items


def query_orders(cfg: ExperimentConfig, q: Query, mode: Mode) -> list[tuple[Any, Query]]:
    """``(order, permuted query)`` for every option order ``q`` is asked in under ``mode`` (given first).

    A query whose text cannot be permuted (no BorderLines or demo query) is asked in the given order only.
    """
    from ..option_orders import OptionOrder, OrderError, orders_for, permute_query

    given = OptionOrder.identity(len(q.options))
    if cfg.option_orders == "given" or (cfg.order_modes and mode.value not in cfg.order_modes):
        return [(given, q)]
    out = []
    for order in orders_for(len(q.options), cfg.option_orders):
        try:
            out.append((order, permute_query(q, order)))
        except OrderError:
            return [(given, q)]
    return out


def item_label(it: GridItem) -> str:
    """The item as progress bars and errors name it (``Crimea_uk qlang order reversed run 0``)."""
    runs = ",".join(str(r) for r, _ in it.runs)
    order = "" if it.order is None or it.order.is_given else f" order {it.order}"
    return f"{it.query.query_id} {it.mode}{order} run {runs}"
