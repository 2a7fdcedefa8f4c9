"""The mode-comparison runner: retrieve, prompt, call, parse — one row per (query, mode, model, run).

``run_experiment(config, out_dir)`` writes:

* ``hits.parquet`` — the retrieval run (all modes, ``depth`` hits, skips in its metadata);
* ``responses.parquet`` — one row per (query, mode, model, run): the rendered
  prompt, raw text, parsed outcome and choice, cited documents, the
  prompt's document ids and languages, tokens, latency, cache status, the
  error if the call failed, and the run signature;
* ``run.json`` — config, package versions, git revision, dataset / corpus /
  retrieval signatures, start and end time, call counts, skipped queries.

Every call goes through the response cache and is stored the moment it
finishes, so an interrupted run loses at most the calls in flight and a re-run
re-bills nothing; ``responses.parquet`` is rewritten (atomically) after every
(model, mode) so partial progress is visible.

Backends that score options (``local/…`` rank classification) are called once
per (query, mode): the option scores do not depend on the seed, and each run
samples its answer from the softmax over options at the configured
temperature with the run's seed.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from .._version import __version__
from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import ConfigError
from ..modes import Mode
from ..records import Query
from .config import ExperimentConfig
from .provenance import git_revision, now_iso, package_versions

__all__ = ["run_experiment", "load_inputs", "RESPONSE_COLUMNS"]

RESPONSE_COLUMNS = [
    "query_id", "territory", "query_lang", "is_control", "mode", "model", "run", "seed", "temperature",
    "outcome", "choice", "choice_name", "raw_text", "prompt", "cited_doc_ids", "n_cited_dropped",
    "doc_ids", "doc_langs", "input_tokens", "output_tokens", "latency_s", "cached", "error",
    "option_logprobs", "signature",
]


def load_inputs(cfg: ExperimentConfig) -> tuple[BorderLines, Corpus]:
    """The dataset and corpus a config names."""
    from ..loaders import load_borderlines, load_demo, load_demo_corpus
    from ..loaders.demo import read_passages_jsonl

    if cfg.dataset == "demo":
        ds = load_demo()
    elif cfg.dataset == "borderlines":
        ds = load_borderlines(cfg.dataset_path, repair=cfg.repair)
    else:
        raise ConfigError(f"unknown dataset {cfg.dataset!r}; use 'demo' or 'borderlines' (with dataset_path)")
    corpus = load_demo_corpus() if cfg.corpus == "demo" else read_passages_jsonl(cfg.corpus)
    return ds, corpus


def _queries(cfg: ExperimentConfig, ds: BorderLines) -> list[Query]:
    if not cfg.langs:
        return list(ds.queries)
    qs = [q for q in ds.queries if q.lang in set(cfg.langs)]
    if not qs:
        raise ConfigError(f"no queries in language(s) {', '.join(cfg.langs)}; present: {', '.join(ds.query_langs)}")
    return qs


@dataclass
class _Item:
    query: Query
    mode: str
    docs: tuple  # tuple[Document, ...]
    request: Any  # GenerationRequest
    runs: tuple[tuple[int, int], ...]  # (run index, seed) served by this request


def _signature(cfg: ExperimentConfig, model: str, mode: str, ret_sig: str, data_hash: str) -> str:
    parts = [
        f"mode:{mode}", f"ret:{cfg.retriever}", f"k:{cfg.k}", *_filter_parts(cfg), f"gen:{model}",
        f"fmt:{cfg.response_format}",
        f"sys:{cfg.system}", f"temp:{cfg.temperature}", f"runs:{len(cfg.seeds)}", f"policy:{cfg.policy}",
        f"data:{data_hash}", f"version:{__version__}",
    ]
    return "|".join(parts)


def _filter_parts(cfg: ExperimentConfig) -> list[str]:
    """The relevance filter's signature fields: none for ``all``, else ``rel:…`` and the labels' hash."""
    if cfg.relevance_filter == "all":
        return []
    return [f"rel:{cfg.relevance_filter}", f"labels:{_load_labels(cfg).content_hash()}"]


@lru_cache(maxsize=4)
def _load_labels(cfg: ExperimentConfig):
    """The labels the relevance filter uses (config ``labels``, else the demo gold labels)."""
    from ..annotations.io import load_gold, load_labels

    if cfg.labels:
        ds, corpus = load_inputs(cfg)
        labels = load_labels(cfg.labels, dataset=ds, corpus=corpus)
        if len(labels.annotators) > 1:
            raise ConfigError(f"labels {cfg.labels} hold several annotators ({', '.join(labels.annotators)}); "
                              "write one label set (e.g. their majority vote) for the relevance filter")
        return labels
    if cfg.dataset == "demo" and cfg.corpus == "demo":
        return load_gold("demo")
    raise ConfigError(f"relevance_filter {cfg.relevance_filter!r} needs labels: set labels = 'path/to/labels.jsonl' "
                      "(only the demo dataset has default gold labels)")


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


def prepare(cfg: ExperimentConfig, *, progress: bool = True, retriever: str | None = None) -> Prepared:
    """Load data, retrieve for every IR mode, and map each (query, mode) to its prompt documents."""
    from ..generation.types import Document
    from ..retrieval.run import retrieve

    ds, corpus = load_inputs(cfg)
    queries = _queries(cfg, ds)
    modes = [Mode.parse(m) for m in cfg.modes]
    ir_modes = [m for m in modes if m is not Mode.NO_IR]
    retrieval = None
    if ir_modes:
        retrieval = retrieve(ds, corpus, retriever or cfg.retriever, ir_modes, k=cfg.k, depth=max(cfg.k, 50),
                             fusion=cfg.fusion, balanced=cfg.balanced, queries=queries, progress=progress)
    top = retrieval.top() if retrieval is not None else pd.DataFrame(columns=["query_id", "mode", "rank"])
    filtered_out: dict[tuple[str, str], str] = {}
    if retrieval is not None and cfg.relevance_filter != "all":
        from ..annotations.use import filter_hits

        kept = filter_hits(retrieval.hits, _load_labels(cfg), cfg.relevance_filter)
        top = kept[kept["rank"] <= cfg.k]
        left = set(zip(top["query_id"], top["mode"]))
        for qid, mode in dict.fromkeys(zip(retrieval.hits["query_id"], retrieval.hits["mode"])):
            if (qid, mode) not in left:
                filtered_out[(qid, mode)] = f"no documents left after relevance_filter={cfg.relevance_filter}"
    docs_by: dict[tuple[str, str], tuple] = {}
    for (qid, mode), g in top.sort_values("rank").groupby(["query_id", "mode"], sort=False):
        docs_by[(qid, mode)] = tuple(
            Document(i, d, l, corpus.get(l, d).text) for i, (d, l) in enumerate(zip(g["doc_id"], g["doc_lang"]))
        )
    skipped = {(s.query_id, s.mode): s.reason for s in (retrieval.skipped if retrieval else [])}
    skipped.update(filtered_out)
    return Prepared(ds, corpus, queries, modes, retrieval, docs_by, skipped)


def run_experiment(cfg: ExperimentConfig, out_dir: str | Path, *, progress: bool = True,
                   backends: dict[str, Any] | None = None) -> Path:
    """Run the grid of ``cfg`` into ``out_dir`` (resumable; see module docs). Returns ``out_dir``."""
    from ..generation.backend import get_backend
    from ..generation.cache import ResponseCache
    from ..generation.cost import summarize as summarize_cost
    from ..generation.executor import execute
    from ..generation.parse import parse_answer, parse_citation_response
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = now_iso()
    prep = prepare(cfg, progress=progress)
    ds, corpus, queries, modes = prep.dataset, prep.corpus, prep.queries, prep.modes
    retrieval, docs_by, skipped = prep.retrieval, prep.docs_by, prep.skipped
    if retrieval is not None:
        retrieval.to_parquet(out / "hits.parquet")

    cache = ResponseCache(cfg.cache) if cfg.cache else ResponseCache()
    data_hash = ds.content_hash()
    rows: list[dict[str, Any]] = []
    calls = {"requests": 0, "cached": 0, "failed": 0}
    usage: list[tuple[Any, Any, str]] = []
    backends = dict(backends or {})
    for model in cfg.models:
        backend = backends.get(model) or get_backend(model)
        rank = getattr(backend, "supports_rank_classification", False) and cfg.response_format == "direct"
        for mode in modes:
            items = _items(cfg, ds, queries, mode, model, rank, docs_by, skipped)
            results = execute(backend, [it.request for it in items], cache=cache, concurrency=cfg.concurrency,
                              progress=progress, desc=f"{model} {mode.value}")
            sig = _signature(cfg, model, mode.value, retrieval.signature if retrieval else "none", data_hash)
            for it, res in zip(items, results):
                calls["requests"] += 1
                calls["cached"] += bool(res.cached)
                calls["failed"] += not res.ok
                usage.append((it.request, res, it.query.lang))
                rows.extend(_rows(cfg, it, res, sig, rank, parse_answer, parse_citation_response))
            _write_responses(rows, out)
    _write_responses(rows, out)
    run_info = {
        "bordir_version": __version__,
        "config": cfg.to_dict(),
        "packages": package_versions(),
        "git_revision": git_revision(),
        "dataset": {"name": ds.name, "signature": ds.signature, "warnings": list(ds.warnings),
                    "repairs": list(ds.repairs)},
        "corpus": {"name": corpus.name, "hash": corpus.content_hash(), "passages": len(corpus)},
        "retrieval": {"signature": retrieval.signature if retrieval else None},
        "queries": len(queries),
        "responses": len(rows),
        "calls": calls,
        "cost": [dataclasses.asdict(r) for r in summarize_cost(usage)],
        "skipped": [{"query_id": q, "mode": m, "reason": r} for (q, m), r in sorted(skipped.items())],
        "started": started,
        "finished": now_iso(),
    }
    tmp = out / "run.json.tmp"
    tmp.write_text(json.dumps(run_info, ensure_ascii=False, indent=2), encoding="utf-8")
    os.replace(tmp, out / "run.json")
    return out


def _items(cfg: ExperimentConfig, ds: BorderLines, queries: list[Query], mode: Mode, model: str, rank: bool,
           docs_by: dict, skipped: dict) -> list[_Item]:
    """The calls one (model, mode) needs; queries without documents are added to ``skipped``."""
    from ..generation.prompts import build_request

    items: list[_Item] = []
    for q in queries:
        if (q.query_id, mode.value) in skipped:
            continue
        docs = () if mode is Mode.NO_IR else docs_by.get((q.query_id, mode.value), ())
        if mode is not Mode.NO_IR and not docs:
            skipped[(q.query_id, mode.value)] = "no documents in the mode's languages for this territory"
            continue
        common = dict(model=model, max_tokens=cfg.max_tokens, response_format=cfg.response_format,
                      system=cfg.system, instruction_lang=cfg.instruction_lang, no_ir=mode is Mode.NO_IR,
                      countries=ds.countries)
        if rank:  # option scores do not depend on the seed: one call, every run samples from it
            req = build_request(q, docs, temperature=0.0, seed=None, **common)
            items.append(_Item(q, mode.value, docs, req, tuple(enumerate(cfg.seeds))))
        else:
            for run, seed in enumerate(cfg.seeds):
                req = build_request(q, docs, temperature=cfg.temperature, seed=seed, **common)
                items.append(_Item(q, mode.value, docs, req, ((run, seed),)))
    return items


def _rows(cfg, it: _Item, res, sig: str, rank: bool, parse_answer, parse_citation_response) -> list[dict[str, Any]]:
    from ..generation.backends.local import choose_option

    q = it.query
    base = {
        "query_id": q.query_id, "territory": q.territory, "query_lang": q.lang, "is_control": q.is_control,
        "mode": it.mode, "model": it.request.model, "temperature": cfg.temperature,
        "prompt": json.dumps([[m.role, m.content] for m in it.request.messages], ensure_ascii=False),
        "doc_ids": [d.doc_id for d in it.docs], "doc_langs": [d.lang for d in it.docs],
        "input_tokens": res.input_tokens, "output_tokens": res.output_tokens, "latency_s": res.latency_s,
        "cached": bool(res.cached), "error": res.error,
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
            pc = parse_citation_response(res.text, q, len(it.docs), documents=it.docs, policy=cfg.policy)
            row.update(outcome=pc.answer.outcome, choice=pc.answer.choice, raw_text=res.text,
                       cited_doc_ids=[it.docs[i].doc_id for i in pc.cited], n_cited_dropped=pc.dropped_out_of_range)
        else:
            pa = parse_answer(res.text, q, policy=cfg.policy)
            row.update(outcome=pa.outcome, choice=pa.choice, raw_text=res.text)
        row["choice_name"] = q.claimants[row["choice"]] if row["choice"] >= 0 else ""
        out.append(row)
    return out


def _write_responses(rows: list[dict[str, Any]], out: Path) -> None:
    df = pd.DataFrame(rows, columns=RESPONSE_COLUMNS)
    df = df.sort_values(["model", "mode", "query_id", "run"], kind="stable").reset_index(drop=True)
    tmp = out / "responses.parquet.tmp"
    df.to_parquet(tmp, index=False)
    os.replace(tmp, out / "responses.parquet")
