"""The NoMIRACL testbed run: questions, prompts, the per-item table, rates, comparisons and files.

:class:`NoMIRACLEngine` is the :class:`~bordir.testbeds.testbed.Engine` of the
``nomiracl`` testbed; :func:`bordir.testbeds.runner.run_testbed` calls it through the
same response cache and executor as every testbed (resumable, nothing billed twice).

* **Questions**: per language (``--lang``, default all 18) and subset, the queries of
  ``load_dataset("nomiracl", PATH, lang=…, split=…)``; with ``--limit N`` NoMIRACL's own
  sample (:func:`~bordir.testbeds.nomiracl.sample.sample_ids`, ``max_sample_pool=N``,
  seeded with ``--seed``: 42 draws NoMIRACL's queries). As NoMIRACL's generation script, a
  query is prompted only when it has exactly 10 judged passages, all in the corpus (the
  others are listed as left out); its passages are ``title: text`` in judgment order.
* **Settings**: ``vanilla`` — NoMIRACL's prompt to the letter, one user message
  (:func:`~bordir.testbeds.nomiracl.template.vanilla_prompt`); ``native`` — bordir's
  instructions in the query's language (:mod:`bordir.testbeds.instructions`: answer from
  the documents or say the refusal sentence), for the languages that have one.
* **Items**: one row per (model, instance); the non-relevant subset has ``noise_rate`` 1
  (every passage non-relevant) and the relevant subset ``noise_rate`` 0 (``n_pos`` ≥ 1
  relevant passages; ``subset`` names it). Under the ``nomiracl`` policy a reply is
  NoMIRACL's label; under ``bordir``, :func:`~bordir.testbeds.nomiracl.reading.read_reply`.
  ``p_rejected`` is "I don't know", ``p_affirmed`` "answer present", ``p_correct`` the
  subset's right one.
* **Rates** (:mod:`bordir.testbeds.metrics`, cluster bootstrap over queries): hallucination
  rate (non-relevant: affirmed / n), error rate (relevant: refused / n), invalid rate
  (neither / n) and accuracy, each with its count; the ``nomiracl`` policy leaves failed
  calls out (NoMIRACL has none), ``bordir`` keeps them in n. Unlike NoMIRACL's script no
  rate is reported as 0 when it is not computed (``bordir testbed score --format nomiracl``
  reproduces that too).
* **Comparisons**: every pair of models per language, setting and subset, on the
  subset's error rate (hallucination / error), and ``vanilla`` against ``native``; paired
  by query, Holm across all (so across languages).
* **Files**: ``predictions/<model>/<lang>.<setting>.jsonl`` (for ``bordir view``) and
  ``nomiracl/{subset}/{lang}.{split}.{setting}_prompt.jsonl`` in NoMIRACL's result format,
  every model's reply per query (``bordir testbed score --format nomiracl`` re-scores them
  as NoMIRACL's own files).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..._io.atomic import atomic_write_text
from ...errors import ConfigError
from ...generation.types import GenerationRequest, Message
from ...loaders.catalog import load_dataset
from ...loaders.nomiracl import LANGUAGES, SPLITS, NoMIRACL, NoMIRACLQuery, nomiracl_code
from ..comparisons import PairedComparisons
from ..construct import Doc, Instance, Question
from ..instructions import get_instruction, instructions
from ..items import BASE_COLUMNS, base_row, latest_results
from ..metrics import summarize
from ..prompt import generation_request, instruction_messages
from ..runner import model_dir_name
from .reading import read_reply
from .results import dumps_line, result_record
from .sample import sample_ids
from .template import ANSWER, INVALID, NO_ANSWER, PASSAGES, TEMPLATE_NAME, passage_text, postprocess
from .template import vanilla_prompt as render_vanilla

__all__ = [
    "NoMIRACLEngine",
    "ENGINE",
    "SETTINGS",
    "POLICIES",
    "SUBSET_RATE",
    "HEADLINE",
    "ITEM_COLUMNS",
    "data_path",
]

SETTINGS = ("vanilla", "native")
POLICIES = ("nomiracl", "bordir")
SUBSET_RATE = {"non_relevant": 1.0, "relevant": 0.0}
"""Each subset's ``noise_rate`` in the item table."""
HEADLINE = {"non_relevant": "hallucination_rate", "relevant": "error_rate"}
"""The error rate of each subset (NoMIRACL: Hallucination, Error)."""
OUTCOME = {ANSWER: "answer", NO_ANSWER: "no_answer", INVALID: "invalid"}
"""The nomiracl policy's outcome names for NoMIRACL's labels."""
ITEM_COLUMNS = [
    *BASE_COLUMNS,
    *(
        f"{p}_{c}"
        for p in POLICIES
        for c in ("labels", "rejected", "fact", "correct", "outcome", "affirmed")
    ),
    "judge_reply",
    "judge_flag",
    "subset",
    "query_id",
]


def data_path(spec: str) -> str | None:
    """The directory of a ``--data`` spec: ``nomiracl:PATH`` → PATH, ``nomiracl`` → None (the hub)."""
    name, sep, path = spec.partition(":")
    if name != "nomiracl" or (sep and not path):
        raise ConfigError(
            f"the nomiracl testbed reads --data nomiracl:PATH (NoMIRACL's files or the hub's rows) "
            f"or --data nomiracl (the hub); got {spec!r}"
        )
    return path or None


def _settings(text: str) -> tuple[str, ...]:
    out = tuple(dict.fromkeys(s.strip() for s in str(text).split(",") if s.strip()))
    bad = [s for s in out if s not in SETTINGS]
    if bad or not out:
        raise ConfigError(
            f"--settings takes {' and/or '.join(SETTINGS)} (comma-separated); got {text!r}"
        )
    return out


def _question(ds: NoMIRACL, q: NoMIRACLQuery, source: str) -> Question:
    docs = tuple(
        Doc(
            passage_text(p.title, p.text),
            p.doc_id,
            ds.lang,
            "positive" if dict(p.meta)["relevance"] != "0" else "negative",
        )
        for p in ds.passages(q)
    )
    qid = f"{ds.code}:{q.query_id}"
    return Question(
        id=qid,
        query=q.text,
        answer=(),
        lang=ds.lang,
        cluster=qid,
        kind="noise",
        positive=tuple(d for d in docs if d.kind == "positive"),
        negative=tuple(d for d in docs if d.kind == "negative"),
        source=source,
        meta=(
            ("code", ds.code),
            ("order", json.dumps([d.doc_id for d in docs])),
            ("query_id", q.query_id),
            ("split", ds.split),
            ("subset", q.subset),
        ),
    )


def _docs_in_order(q: Question) -> tuple[Doc, ...]:
    order = json.loads(dict(q.meta)["order"])
    by_id = {d.doc_id: d for d in (*q.positive, *q.negative)}
    return tuple(by_id[i] for i in order)


class NoMIRACLEngine:
    """The NoMIRACL testbed's planner, prompts and scoring (see the module docs)."""

    policies: tuple[str, ...] = POLICIES
    default_policy: str = "nomiracl"

    # --- what runs ---------------------------------------------------------------------------
    def plan(self, cfg: Any) -> tuple[list[Instance], list[dict[str, str]], dict[str, Any]]:
        if cfg.passage_num != PASSAGES:
            raise ConfigError(
                f"NoMIRACL's vanilla prompt has exactly {PASSAGES} passages; "
                f"pass passage_num={PASSAGES} (--passages {PASSAGES}), got {cfg.passage_num}"
            )
        path = data_path(cfg.data)
        split = str(cfg.extra.get("split", "test"))
        if split not in SPLITS:
            raise ConfigError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
        settings = _settings(cfg.extra.get("settings", ",".join(SETTINGS)))
        codes = list(dict.fromkeys(nomiracl_code(x) for x in cfg.langs)) or list(LANGUAGES)
        instances: list[Instance] = []
        skipped: list[dict[str, str]] = []
        hashes: dict[str, str] = {}
        warnings: list[str] = []
        seed = cfg.resolved_seed
        for code in codes:
            ds = load_dataset("nomiracl", path, lang=code, split=split)
            hashes[code] = ds.content_hash()
            warnings += [f"{code}: {w}" for w in ds.warnings]
            non = [q.query_id for q in ds.subset("non_relevant")]
            rel = [q.query_id for q in ds.subset("relevant")]
            if cfg.limit is not None:
                rel, non = sample_ids(rel, non, max_sample_pool=cfg.limit, seed=seed)
            native = "native" in settings and ds.lang in instructions()
            if "native" in settings and not native:
                skipped.append(
                    {
                        "query_id": f"{code}:*",
                        "reason": f"no bordir instruction in {ds.lang}: the native setting leaves "
                        "the language out",
                        "setting": "native",
                    }
                )
            for subset, ids in (("non_relevant", non), ("relevant", rel)):
                by_id = {q.query_id: q for q in ds.subset(subset)}
                for qid in ids:
                    q = by_id[qid]
                    reason = ""
                    if len(q.judgments) != PASSAGES:
                        reason = (
                            f"{len(q.judgments)} judged passages; NoMIRACL prompts a query only "
                            f"with {PASSAGES}"
                        )
                    elif ds.missing(q):
                        reason = (
                            f"{len(ds.missing(q))} of its judged passages are not in the corpus"
                        )
                    if reason:
                        skipped.append(
                            {"query_id": f"{code}:{qid}", "reason": reason, "setting": subset}
                        )
                        continue
                    question = _question(ds, q, cfg.data)
                    docs = _docs_in_order(question)
                    for setting in settings:
                        if setting == "native" and not native:
                            continue
                        instances.append(
                            Instance(
                                question,
                                "nomiracl",
                                setting,
                                SUBSET_RATE[subset],
                                PASSAGES,
                                docs,
                                seed,
                            )
                        )
        if not instances:
            raise ConfigError(
                f"the nomiracl testbed has no query to ask on {cfg.data} ({', '.join(codes)}, "
                f"{split}); {len(skipped)} were left out"
            )
        blob = json.dumps(sorted(hashes.items())).encode()
        ident: dict[str, Any] = {
            "source": cfg.data,
            "dataset": "nomiracl",
            "split": split,
            "settings": list(settings),
            "languages": hashes,
            "sample": None
            if cfg.limit is None
            else {"max_sample_pool": cfg.limit, "ratios": [0.5, 0.5], "seed": seed},
            "hash": f"sha256-{hashlib.sha256(blob).hexdigest()[:16]}",
        }
        if warnings:
            ident["warnings"] = warnings
        return instances, skipped, ident

    def request(
        self,
        instance: Instance,
        *,
        model: str,
        temperature: float = 0.1,
        seed: int | None = None,
        max_tokens: int = 50,
    ) -> GenerationRequest:
        """``vanilla``: NoMIRACL's prompt as one user message; ``native``: bordir's instruction and template."""
        q = instance.question
        texts = [d.text for d in instance.docs]
        if instance.setting == "native":
            messages = instruction_messages(q.query, q.lang, texts)
        else:
            messages = (Message("user", render_vanilla(q.query, texts)),)
        return generation_request(
            messages, model=model, temperature=temperature, seed=seed, max_tokens=max_tokens
        )

    def instructions(self, instances: Sequence[Instance]) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in instances:
            lang = i.question.lang
            src = "vanilla: NoMIRACL's English prompt"
            if any(j.setting == "native" and j.question.lang == lang for j in instances):
                src += f"; native: {get_instruction(lang).source}"
            out[lang] = src
        return dict(sorted(out.items()))

    # --- scoring -----------------------------------------------------------------------------
    def items(
        self,
        instances: Sequence[Instance],
        results: Sequence[Mapping[str, Any]],
        judged: Any = None,
    ) -> pd.DataFrame:
        by_id, latest = latest_results(instances, results)
        rows = []
        for (model, iid), r in latest.items():
            inst = by_id[iid]
            q = inst.question
            meta = dict(q.meta)
            subset = meta["subset"]
            pred = r.get("prediction")
            row = base_row(model, inst, r)
            failed = row["failed"]
            row.update(
                {
                    "judge_reply": None,
                    "judge_flag": None,
                    "subset": subset,
                    "query_id": meta["query_id"],
                }
            )
            echo = tuple(m.content for m in self.request(inst, model=model).messages)
            docs = [d.text for d in inst.docs]
            reading = read_reply(
                pred, q.lang, setting=inst.setting, failed=failed, echo=echo, documents=docs
            )
            label = None if failed or reading.outcome == "echo" else postprocess(pred or "")
            outcome = "failed" if failed else "echo" if label is None else OUTCOME[label]
            for p, rejected, affirmed, out, labels in (
                (
                    "nomiracl",
                    label == NO_ANSWER,
                    label == ANSWER,
                    outcome,
                    [] if label is None else [label],
                ),
                ("bordir", reading.refused, reading.affirmed, reading.outcome, [reading.outcome]),
            ):
                right = rejected if subset == "non_relevant" else affirmed
                row.update(
                    {
                        f"{p}_labels": json.dumps(labels, ensure_ascii=False),
                        f"{p}_rejected": bool(rejected),
                        f"{p}_fact": False,
                        f"{p}_correct": bool(right),
                        f"{p}_outcome": out,
                        f"{p}_affirmed": bool(affirmed),
                    }
                )
            rows.append(row)
        df = pd.DataFrame(rows, columns=ITEM_COLUMNS)
        return df.sort_values(
            ["model", "setting", "lang", "noise_rate", "question_id"], kind="stable"
        ).reset_index(drop=True)

    def summarize(
        self, items: pd.DataFrame, *, n_resamples: int, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        groups = summarize(
            items, policies=POLICIES, n_resamples=n_resamples, seed=None, fields=fields
        )
        for g in groups:
            g["subset"] = "non_relevant" if g["noise_rate"] == 1.0 else "relevant"
            for p in POLICIES:
                g["metrics"][p].pop("rejection_rate", None)  # the accuracy there, said twice
        return groups

    def comparisons(
        self, items: pd.DataFrame, policy: str, *, n_resamples: int, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        if items.empty:
            return []
        found = PairedComparisons(policy, n_resamples=n_resamples, fields=fields)
        add = found.add

        for (lang, setting, r), g in items.groupby(["lang", "setting", "noise_rate"]):
            subset = "non_relevant" if r == 1.0 else "relevant"
            for ma, mb in itertools.combinations(sorted(g["model"].unique()), 2):
                add(
                    g[g["model"] == ma],
                    g[g["model"] == mb],
                    HEADLINE[subset],
                    ma,
                    mb,
                    lang=lang,
                    testbed="nomiracl",
                    setting=setting,
                    subset=subset,
                )
        for (model, lang, r), g in items.groupby(["model", "lang", "noise_rate"]):
            subset = "non_relevant" if r == 1.0 else "relevant"
            if {"vanilla", "native"} <= set(g["setting"]):
                add(
                    g[g["setting"] == "vanilla"],
                    g[g["setting"] == "native"],
                    HEADLINE[subset],
                    "vanilla",
                    "native",
                    gen=model,
                    lang=lang,
                    testbed="nomiracl",
                    subset=subset,
                )
        return found.adjusted()

    # --- files -------------------------------------------------------------------------------
    def write(
        self, out: Path, instances: Sequence[Instance], items: pd.DataFrame, cfg: Any
    ) -> None:
        by_id = {i.instance_id: i for i in instances}
        for (model, lang, setting), g in items.groupby(["model", "lang", "setting"]):
            recs = []
            for row in g.itertuples(index=False):
                inst = by_id[row.instance_id]
                recs.append(
                    {
                        "id": inst.question.id,
                        "query_id": row.query_id,
                        "subset": row.subset,
                        "query": inst.question.query,
                        "ans": [],
                        "label": json.loads(row.nomiracl_labels),
                        "prediction": row.prediction,
                        "docs": [d.text for d in inst.docs],
                        "noise_rate": inst.noise_rate,
                        "factlabel": 0,
                    }
                )
            path = out / "predictions" / model_dir_name(model) / f"{lang}.{setting}.jsonl"
            atomic_write_text(path, "".join(dumps_line(r) for r in recs))
        answered = items[~items["failed"]]
        replies: dict[str, dict[str, str]] = {}
        for row in answered.itertuples(index=False):
            replies.setdefault(row.instance_id, {})[row.model] = row.prediction
        files: dict[Path, list[str]] = {}
        for inst in instances:  # the run's order; a model without a reply has no entry
            meta = dict(inst.question.meta)
            path = (
                out
                / "nomiracl"
                / meta["subset"]
                / f"{meta['code']}.{meta['split']}.{inst.setting}_prompt.jsonl"
            )
            got = replies.get(inst.instance_id)
            if not got:
                files.setdefault(path, [])
                continue
            user = self.request(inst, model="x").messages[-1].content
            files.setdefault(path, []).append(
                dumps_line(
                    result_record(
                        meta["query_id"],
                        [d.doc_id for d in inst.docs],
                        user,
                        TEMPLATE_NAME if inst.setting == "vanilla" else inst.setting,
                        got,
                    )
                )
            )
        for path, lines in files.items():
            atomic_write_text(path, "".join(lines))

    def plot(self, groups: Sequence[Mapping[str, Any]], policy: str, out_dir: Any) -> Any:
        from .plots import write_tradeoff_plot

        return write_tradeoff_plot(groups, policy, out_dir)


ENGINE = NoMIRACLEngine()
