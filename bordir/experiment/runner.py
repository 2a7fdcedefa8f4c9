"""The mode-comparison runner: retrieve, prompt, call, parse — one row per (query, mode, model, run).

:func:`execute_grid` computes a run in memory (what :func:`bordir.run` returns
as a :class:`~bordir.experiment.run.Run`); with a run directory it also writes,
as it goes (:mod:`~bordir.experiment.record`):

* ``hits.parquet`` — the retrieval run (all modes, ``depth`` hits, skips in its
  metadata; each hit with its passage's title, revision id and fetch time);
* ``responses.parquet`` — one row per (query, mode, model, run): the rendered
  prompt, raw text, parsed outcome and choice, cited documents, the prompt's
  document ids, languages, titles, revision ids and fetch times, tokens, latency, cache
  status, the error if the call failed, and the row's signature;
* ``run.json`` — config, package versions, git revision, dataset / corpus /
  retrieval signatures and hashes, the response cache's path, start and end
  time, call counts, skipped queries, and ``status`` (``incomplete`` until the
  last write).

Every call goes through the response cache (always: the default is
``$BORDIR_CACHE/responses.sqlite3``) and is stored the moment it finishes, so an
interrupted run loses at most the calls in flight and a re-run re-bills nothing.

Each row's signature is built by :func:`run_signature` through the one
:class:`~bordir.metrics.signature.Signature` class: mode, the retriever with its
parameters (fusion, balanced, depth), k, the relevance filter, model, prompt
format, system prompt, instruction language, temperature, runs, policy, the
dataset hash, the corpus hash and the bordir version.

Backends that score options (``local/…`` rank classification) are called once
per (query, mode): the option scores do not depend on the seed, and each run
samples its answer from the softmax over options at the configured
temperature with the run's seed.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..corpus import Corpus
from ..dataset import BorderLines
from ..metrics.signature import Signature
from ..records import Query
from ..retrieval.modes import Mode
from .config import ExperimentConfig
from .inputs import load_inputs, load_labels_of, select_queries

__all__ = [
    "run_experiment",
    "execute_grid",
    "prepare",
    "run_signature",
    "load_inputs",
    "RESPONSE_COLUMNS",
    "Prepared",
    "GridResult",
]

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


@dataclass
class _Item:
    query: Query
    mode: str
    docs: tuple  # tuple[Document, ...]
    request: Any  # GenerationRequest
    runs: tuple[tuple[int, int], ...]  # (run index, seed) served by this request
    provenance: tuple[
        tuple[str, str, str], ...
    ] = ()  # (title, revision_id, fetched_at) per document
    order: Any = None  # OptionOrder the (permuted) query is asked in; None: the given order


@dataclass
class Prepared:
    """Inputs of the generation step: queries, modes, retrieved documents, skips."""

    dataset: BorderLines
    corpus: Corpus
    queries: list[Query]
    modes: list[Mode]
    retrieval: Any  # RetrievalRun | None
    docs_by: dict[tuple[str, str], tuple]
    skipped: dict[tuple[str, str], str]
    provenance_by: dict[tuple[str, str], tuple] | None = None


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
    retriever: str | None = None,
    inputs: tuple[BorderLines, Corpus] | None = None,
) -> Prepared:
    """Load data, retrieve for every IR mode, and map each (query, mode) to its prompt documents."""
    from ..generation.types import Document
    from ..retrieval.run import retrieve

    ds, corpus = inputs if inputs is not None else load_inputs(cfg)
    queries = select_queries(cfg, ds)
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
    docs_by: dict[tuple[str, str], tuple] = {}
    prov_by: dict[tuple[str, str], tuple] = {}
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
    return Prepared(ds, corpus, queries, modes, retrieval, docs_by, skipped, prov_by)


def _items(
    cfg: ExperimentConfig,
    ds: BorderLines,
    queries: list[Query],
    mode: Mode,
    model: str,
    rank: bool,
    docs_by: dict,
    skipped: dict,
    provenance_by: dict | None = None,
) -> list[_Item]:
    """The calls one (model, mode) needs; queries without documents are added to ``skipped``."""
    from ..generation.prompts import build_request, nationalist_country

    items: list[_Item] = []
    for q in queries:
        if (q.query_id, mode.value) in skipped:
            continue
        docs = () if mode is Mode.NO_IR else docs_by.get((q.query_id, mode.value), ())
        if mode is not Mode.NO_IR and not docs:
            skipped[(q.query_id, mode.value)] = (
                "no documents in the mode's languages for this territory"
            )
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
        )
        for order, pq in _query_orders(
            cfg, q, mode
        ):  # the given order first; pq: the permuted query
            if rank:  # option scores do not depend on the seed: one call, every run samples from it
                req = build_request(pq, docs, temperature=0.0, seed=None, **common)
                items.append(
                    _Item(pq, mode.value, docs, req, tuple(enumerate(cfg.seeds)), prov, order)
                )
            else:
                for run, seed in enumerate(cfg.seeds):
                    req = build_request(pq, docs, temperature=cfg.temperature, seed=seed, **common)
                    items.append(_Item(pq, mode.value, docs, req, ((run, seed),), prov, order))
    return items


def _query_orders(cfg: ExperimentConfig, q: Query, mode: Mode) -> list[tuple[Any, Query]]:
    """``(order, permuted query)`` for every option order ``q`` is asked in under ``mode`` (given first).

    A query whose text cannot be permuted (no BorderLines or demo query) is asked in the given order only.
    """
    from .orders import OptionOrder, OrderError, orders_for, permute_query

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


def _rows(cfg, it: _Item, res, sig: str, rank: bool) -> list[dict[str, Any]]:
    from ..generation.backends.local import choose_option
    from ..generation.parse import parse_answer, parse_citation_response

    q = it.query
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
        elif cfg.response_format == "citation":
            pc = parse_citation_response(
                res.text, q, len(it.docs), documents=it.docs, policy=cfg.policy
            )
            row.update(
                outcome=pc.answer.outcome,
                choice=pc.answer.choice,
                raw_text=res.text,
                cited_doc_ids=[it.docs[i].doc_id for i in pc.cited],
                n_cited_dropped=pc.dropped_out_of_range,
            )
        else:
            pa = parse_answer(res.text, q, policy=cfg.policy)
            row.update(outcome=pa.outcome, choice=pa.choice, raw_text=res.text)
        row["choice_name"] = q.claimants[row["choice"]] if row["choice"] >= 0 else ""
        out.append(row)
    return [_in_given_order(r, it) for r in out]


def _in_given_order(row: dict[str, Any], it: _Item) -> dict[str, Any]:
    """``choice`` and ``option_logprobs`` back in the given option order; ``option_order``, ``choice_position``."""
    from .orders import OptionOrder, row_in_given_order

    order = it.order if it.order is not None else OptionOrder.identity(len(it.query.options))
    return row_in_given_order(row, order)


def responses_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The responses table of ``rows`` in canonical order (model, mode, query, run)."""
    df = pd.DataFrame(rows, columns=RESPONSE_COLUMNS)
    return df.sort_values(["model", "mode", "query_id", "run"], kind="stable").reset_index(
        drop=True
    )


def _executor_options(cfg: ExperimentConfig) -> dict[str, Any]:
    """The operational settings the executor accepts (only those set, only parameters it has)."""
    from ..generation.executor import execute

    params = inspect.signature(execute).parameters
    out: dict[str, Any] = {"concurrency": cfg.concurrency}
    for name in ("timeout", "max_retries", "deadline", "max_consecutive_failures"):
        value = getattr(cfg, name)
        if value is not None and name in params:
            out[name] = value
    return out


@dataclass
class GridResult:
    """What :func:`execute_grid` computed: the inputs, the rows and the call counts."""

    prepared: Prepared
    rows: list[dict[str, Any]]
    calls: dict[str, int]
    usage: list[tuple[Any, Any, str]]
    cache_path: str
    failures: list[str]


def execute_grid(
    cfg: ExperimentConfig,
    *,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
    cache: Any = None,
    inputs: tuple[BorderLines, Corpus] | None = None,
    on_prepared: Callable[[Prepared], None] | None = None,
    on_batch: Callable[[list[dict[str, Any]]], None] | None = None,
) -> GridResult:
    """Run every (model, mode) of ``cfg``; call ``on_prepared`` after retrieval and ``on_batch`` after each batch."""
    from ..generation.backend import get_backend
    from ..generation.cache import ResponseCache
    from ..generation.executor import execute

    prep = prepare(cfg, progress=progress, inputs=inputs)
    if on_prepared is not None:
        on_prepared(prep)
    if cache is None or isinstance(cache, (str, Path)):
        cache = ResponseCache(cache if cache is not None else cfg.cache)
    rows: list[dict[str, Any]] = []
    calls = {"requests": 0, "cached": 0, "failed": 0}
    usage: list[tuple[Any, Any, str]] = []
    failures: list[str] = []
    backends = dict(backends or {})
    options = _executor_options(cfg)
    for model in cfg.models:
        backend = backends.get(model) or get_backend(model)
        rank = (
            getattr(backend, "supports_rank_classification", False)
            and cfg.response_format == "direct"
        )
        cf = (
            _calibrate(cfg, prep, backend, model, cache, calls, usage)
            if rank and cfg.calibrate
            else {}
        )
        for mode in prep.modes:
            items = _items(
                cfg,
                prep.dataset,
                prep.queries,
                mode,
                model,
                rank,
                prep.docs_by,
                prep.skipped,
                prep.provenance_by,
            )
            names = {id(it.request): _label(it) for it in items}
            results = execute(
                backend,
                [it.request for it in items],
                cache=cache,
                progress=progress,
                desc=f"{model} {mode.value}",
                label=lambda r, names=names: names.get(id(r), "?"),
                **options,
            )
            sig = str(run_signature(cfg, prep, model, mode.value))
            for it, res in zip(items, results):
                calls["requests"] += 1
                calls["cached"] += bool(res.cached)
                calls["failed"] += not res.ok
                if not res.ok:
                    failures.append(f"{_label(it)} ({model}): {res.error}")
                usage.append((it.request, res, it.query.lang))
                new = _rows(cfg, it, res, sig, rank)
                for r in new:
                    r["cf_logprobs"] = (
                        cf.get(it.query.query_id) if r["option_order"] == "given" else None
                    )
                rows.extend(new)
            if on_batch is not None:
                on_batch(rows)
    return GridResult(prep, rows, calls, usage, os.path.abspath(cache.path), failures)


def _calibrate(
    cfg: ExperimentConfig,
    prep: Prepared,
    backend: Any,
    model: str,
    cache: Any,
    calls: dict[str, int],
    usage: list,
) -> dict[str, list[float] | None]:
    """Content-free option scores per query (given order), for contextual calibration (experiment.calibration)."""
    from .calibration import run_calibration
    from .orders import OptionOrder

    triples = [(q, OptionOrder.identity(len(q.options)), q) for q in prep.queries]
    table = run_calibration(
        backend,
        triples,
        model=model,
        system=cfg.system,
        instruction_lang=cfg.instruction_lang,
        countries=prep.dataset.countries,
        cache=cache,
        concurrency=cfg.concurrency,
    )
    # counted apart from the grid's requests: they add no response row
    calls["calibration"] = calls.get("calibration", 0) + len(table)
    calls["calibration_cached"] = calls.get("calibration_cached", 0) + int(table["cached"].sum())
    calls["calibration_failed"] = calls.get("calibration_failed", 0) + int(
        table["error"].notna().sum()
    )
    return dict(zip(table["query_id"], table["cf_logprobs"]))


def _label(it: _Item) -> str:
    runs = ",".join(str(r) for r, _ in it.runs)
    order = "" if it.order is None or it.order.is_given else f" order {it.order}"
    return f"{it.query.query_id} {it.mode}{order} run {runs}"


def run_experiment(
    cfg: ExperimentConfig,
    out_dir: str | Path,
    *,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
) -> Path:
    """Run the grid of ``cfg`` into ``out_dir`` (resumable; see module docs). Returns ``out_dir``."""
    from .run import run

    run(cfg, out=out_dir, progress=progress, backends=backends)
    return Path(out_dir)
