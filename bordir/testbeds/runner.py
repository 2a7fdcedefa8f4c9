"""Run a testbed: build the instances, call every model through the response cache and executor, score, write.

:func:`run_testbed` writes into ``out_dir``:

* ``record.json`` — the run's record (kind ``testbed``;
  :class:`~bordir.runrecord.writer.RecordWriter`): incomplete until the last file is written;
* ``testbed.json`` — what ran (config, seeds, data identity, instruction
  sources, counts, questions left out and why), written first with
  ``status: running`` and last with ``status: complete``;
* ``results.jsonl`` — one line per (model, instance) *as each call finishes*
  (prediction, error, cache status, tokens); a re-run keeps the lines of the
  current plan and calls only what is missing, through the same SQLite
  response cache as ``bordir run`` (nothing is billed twice);
* ``items.parquet`` — the per-item table (:mod:`~bordir.testbeds.items`);
* ``scores.json`` — every metric per model × language × setting × noise rate
  under both policies, with cluster-bootstrap intervals, paired comparisons
  (Holm) and signatures (:mod:`~bordir.testbeds.metrics`);
* the files of the testbed's :class:`~bordir.testbeds.testbed.Engine`, whose questions,
  prompts, item table and rates these are: RGB's writes RGB-format prediction files
  ``predictions/<model>/<lang>.<setting>.jsonl`` (:mod:`~bordir.testbeds.rgb_engine`),
  NoMIRACL's also its result files under ``nomiracl/``;
* ``judge.jsonl`` — with a judge (``judge``), its reply per (model, instance),
  written and resumed the same way (:mod:`~bordir.testbeds.judge`).

Data: ``rgb:FILE`` (an RGB JSON-lines file), ``demo`` (the bundled dataset and
corpus) or a corpus spec for :func:`bordir.load_corpus` (queries and
controllers from ``dataset``, default the demo dataset).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.atomic import atomic_write_parquet, atomic_write_text
from .._io.json_read import loads
from .._io.json_write import write_json
from .._version import __version__
from ..signature import Signature
from ..stats import resolve_seed
from .config import TESTBED_JSON, TestbedConfig
from .construct import Instance
from .plan import load_questions, plan
from .testbed import NODOCS

__all__ = [
    "TestbedConfig",
    "plan",
    "run_testbed",
    "TESTBED_JSON",
    "load_questions",
]


def _read_results(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(loads(line))
        except json.JSONDecodeError:
            continue  # a line torn by a crash: its call is in the cache and is re-read
    return out


def model_dir_name(model: str) -> str:
    """A model name as a folder name (``openai/gpt-4o`` → ``openai__gpt-4o``)."""
    return model.replace("/", "__").replace(":", "_")


def _call_all(
    path: Path,
    planned: Mapping[tuple[str, str], Any],
    *,
    cache: Any,
    cfg: TestbedConfig,
    backends: dict[str, Any],
    progress: bool,
    label: str,
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Answer every planned (model, instance id) → request, resumably, appending to ``path`` as calls finish.

    Lines of ``path`` for the same request without an error are kept; the rest go
    through the executor and the response cache (which answers what was called before).
    """
    from ..generation.backend import get_backend
    from ..generation.call_limits import ExecutorOptions
    from ..generation.executor import execute

    kept = [
        r
        for r in _read_results(path)
        if r.get("error") is None
        and (r["model"], r["instance_id"]) in planned
        and planned[(r["model"], r["instance_id"])].cache_key() == r.get("request_key")
    ]
    done = {(r["model"], r["instance_id"]) for r in kept}
    atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
    calls = {"requests": 0, "cached": 0, "failed": 0, "resumed": len(kept)}
    todo: dict[str, list[tuple[str, str, Any]]] = {}
    for (m, iid), req in planned.items():
        if (m, iid) not in done:
            todo.setdefault(req.model, []).append((m, iid, req))
    with path.open("a", encoding="utf-8") as fh:
        for backend_model, rows in todo.items():
            by_key: dict[str, list[tuple[str, str]]] = {}
            for m, iid, req in rows:
                by_key.setdefault(req.cache_key(), []).append((m, iid))
            backend = backends.get(backend_model) or get_backend(backend_model)

            def on_result(request: Any, result: Any, by_key: dict[str, Any] = by_key) -> None:
                key = request.cache_key()
                for m, iid in by_key.get(key, ()):
                    rec = {
                        "model": m,
                        "instance_id": iid,
                        "request_key": key,
                        "prediction": result.text,
                        "error": result.error,
                        "cached": bool(result.cached),
                        "input_tokens": result.input_tokens,
                        "output_tokens": result.output_tokens,
                        "latency_s": result.latency_s,
                    }
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    fh.flush()
                    kept.append(rec)
                    calls["requests"] += 1
                    calls["cached"] += bool(result.cached)
                    calls["failed"] += result.error is not None

            execute(
                backend,
                [req for _, _, req in rows],
                cache=cache,
                options=ExecutorOptions(concurrency=cfg.concurrency),
                progress=progress,
                desc=f"{backend_model} {label}",
                on_result=on_result,
            )
    return kept, calls


def _judge_plan(
    cfg: TestbedConfig, instances: list[Instance], results: list[dict[str, Any]]
) -> dict[tuple[str, str], Any]:
    """The judge calls: rejection instances, and counterfactual instances with documents (RGB Rej*, ED*)."""
    from .judge import is_judged, judge_request

    if not cfg.judge or not is_judged(cfg.testbed):
        return {}
    by_id = {i.instance_id: i for i in instances}
    planned = {}
    for r in results:
        inst = by_id.get(r["instance_id"])
        if inst is None or r.get("error") is not None or inst.setting == NODOCS:
            continue
        pred = (
            r["prediction"].replace(" ", "")
            if inst.question.lang in ("zh", "zhs", "zht")
            else r["prediction"]
        )
        planned[(r["model"], inst.instance_id)] = judge_request(
            cfg.testbed, inst.question.query, pred, model=cfg.judge
        )
    return planned


def _calibration(cfg: TestbedConfig, langs: Sequence[str]) -> Any:
    """The calibration file of ``cfg``, checked against its judge and languages (None without one)."""
    if not cfg.calibration:
        return None
    from ..judging.calibration import Calibration
    from .calibration import check_calibration

    cal = Calibration.load(cfg.calibration)
    check_calibration(cal, testbed=cfg.testbed, judge=cfg.judge, langs=langs)
    return cal


def run_testbed(
    cfg: TestbedConfig,
    out_dir: str | os.PathLike[str],
    *,
    progress: bool = True,
    backends: Mapping[str, Any] | None = None,
) -> Path:
    """Run ``cfg`` into ``out_dir`` (resumable; see the module docs) and return ``out_dir``.

    The questions are planned and every backend built (keys present) before the directory
    changes; then it is written under its record (:class:`~bordir.runrecord.writer.RecordWriter`,
    kind ``testbed``): incomplete until the last file.
    """
    from ..generation.cache import ResponseCache
    from ..provenance import git_revision, now_iso, package_versions
    from ..runrecord.writer import RecordWriter

    out = Path(out_dir)
    engine = cfg.spec.run_engine  # RGB's, or a testbed's own (NoMIRACL)
    instances, skipped, ident = engine.plan(cfg)
    langs = sorted({i.question.lang for i in instances})
    calibration = _calibration(cfg, langs)  # refused before any call or write
    planned = {
        (m, i.instance_id): engine.request(
            i,
            model=m,
            temperature=cfg.temperature,
            seed=cfg.resolved_seed,
            max_tokens=cfg.max_tokens,
        )
        for m in cfg.models
        for i in instances
    }
    built = _backends(cfg, planned, backends)  # a missing key fails here, before any write
    info: dict[str, Any] = {
        "kind": "bordir-testbed",
        "bordir_version": __version__,
        "status": "running",
        "started": now_iso(),
        "config": cfg.to_dict(),
        "data": ident,
        "git_revision": git_revision(),
        "packages": package_versions(),
        "instructions": engine.instructions(instances),
        "instances": len(instances),
        "skipped": skipped,
    }
    with RecordWriter(out, "testbed") as w:
        w.start(info["config"], inputs={"data": ident.get("hash")})
        write_json(info, out / TESTBED_JSON)
        cache = ResponseCache(cfg.cache) if cfg.cache else ResponseCache()
        call_all = functools.partial(
            _call_all, cache=cache, cfg=cfg, backends=built, progress=progress
        )  # the answers, then the judge's calls
        kept, calls = call_all(out / "results.jsonl", planned, label=cfg.testbed)
        judged: dict[tuple[str, str], dict[str, Any]] = {}
        judge_plan = _judge_plan(cfg, instances, kept)
        if judge_plan:
            jkept, jcalls = call_all(out / "judge.jsonl", judge_plan, label="judge")
            judged = {
                (r["model"], r["instance_id"]): {"reply": r["prediction"], "error": r["error"]}
                for r in jkept
            }
            info["judge_calls"] = jcalls
        items = engine.items(instances, kept, judged)
        atomic_write_parquet(out / "items.parquet", items)
        fields = {
            "data": ident.get("hash"),
            "k": cfg.passage_num,
            "seed": cfg.resolved_seed,
            "seeding": cfg.seeding,
            "temp": cfg.temperature,
            "judge": cfg.judge,
        }
        scores: dict[str, Any] = {
            "policy": cfg.resolved_policy,
            "policies": list(cfg.policies),
            "groups": engine.summarize(items, n_resamples=cfg.n_resamples, fields=fields),
            "comparisons": engine.comparisons(
                items, cfg.resolved_policy, n_resamples=cfg.n_resamples, fields=fields
            ),
            "n_resamples": cfg.n_resamples,
            "bootstrap_seed": resolve_seed(None),
        }
        if cfg.judge and cfg.spec.judge is not None:
            from .calibration import judge_calibration_block

            scores["judge_calibration"] = judge_calibration_block(
                items,
                calibration,
                testbed=cfg.testbed,
                correct=cfg.correct,
                n_resamples=cfg.n_resamples,
                seed=resolve_seed(None),
            )
        write_json(scores, out / "scores.json")
        engine.write(out, instances, items, cfg)
        info.update(status="complete", finished=now_iso(), calls=calls, items=len(items))
        write_json(info, out / TESTBED_JSON)
        w.finish(
            files=TESTBED_FILES,
            signature=str(
                Signature.build(
                    "testbed", testbed=cfg.testbed, models="+".join(cfg.models), **fields
                )
            ),
            counts={"instances": len(instances), "items": len(items), **calls},
        )
    return out


TESTBED_FILES = (
    TESTBED_JSON,
    "results.jsonl",
    "judge.jsonl",
    "items.parquet",
    "scores.json",
    "predictions",
    "nomiracl",
)
"""What a testbed run writes into its directory (their digests are in its record)."""


def _backends(
    cfg: TestbedConfig, planned: Mapping[tuple[str, str], Any], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A built backend per model the run calls (the judge's too): a missing key fails here."""
    from ..generation.backend import get_backend
    from .judge import is_judged

    out = dict(given or {})
    names = {req.model for req in planned.values()}
    if cfg.judge and is_judged(cfg.testbed):
        names.add(cfg.judge)
    for name in sorted(names):
        if name not in out:
            out[name] = get_backend(name)
    return out


def load_items(out_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """The per-item table of a finished testbed directory."""
    return pd.read_parquet(Path(out_dir) / "items.parquet")
