"""Run a testbed: build the instances, call every model through the response cache and executor, score, write.

:func:`run_testbed` writes into ``out_dir``:

* ``testbed.json`` — what ran (config, seeds, data identity, instruction
  sources, counts, questions left out and why), written first with
  ``status: running`` and last with ``status: complete`` (``bordir report``
  recognises a testbed directory by it);
* ``results.jsonl`` — one line per (model, instance) *as each call finishes*
  (prediction, error, cache status, tokens); a re-run keeps the lines of the
  current plan and calls only what is missing, through the same SQLite
  response cache as ``bordir run`` (nothing is billed twice);
* ``items.parquet`` — the per-item table (:mod:`~bordir.testbeds.items`);
* ``scores.json`` — every metric per model × language × setting × noise rate
  under both policies, with cluster-bootstrap intervals, paired comparisons
  (Holm) and signatures (:mod:`~bordir.testbeds.metrics`);
* ``predictions/<model>/<lang>.<setting>.jsonl`` — RGB-format prediction files;
* ``judge.jsonl`` — with a judge (``judge``), its reply per (model, instance),
  written and resumed the same way (:mod:`~bordir.testbeds.judge`).

Data: ``rgb:FILE`` (an RGB JSON-lines file), ``demo`` (the bundled dataset and
corpus) or a corpus spec for :func:`bordir.load_corpus` (queries and
controllers from ``dataset``, default the demo dataset).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .._atomic import atomic_write_parquet, atomic_write_text
from .._json import write_json
from .._version import __version__
from ..errors import ConfigError
from ..metrics.uncertainty import DEFAULT_RESAMPLES, resolve_seed
from .construct import RGB_SEED, Instance, Question, make_instance
from .instructions import RGB_LANG_ALIASES, get_instruction
from .items import rgb_records, score_items
from .prompt import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, request_for
from .territorial import SETTINGS, TESTBEDS, territorial_questions

__all__ = [
    "TestbedConfig",
    "DEFAULT_RATIOS",
    "plan",
    "run_testbed",
    "TESTBED_JSON",
    "load_questions",
]

TESTBED_JSON = "testbed.json"
DEFAULT_RATIOS: dict[str, tuple[float, ...]] = {
    "noise": (0.0, 0.2, 0.4, 0.6, 0.8),
    "rejection": (1.0,),
    "integration": (0.0, 0.2, 0.4),
    "counterfactual": (0.0,),
}
_KIND_OF = {
    "noise": "noise",
    "rejection": "noise",
    "integration": "integration",
    "counterfactual": "fact",
}


@dataclass(frozen=True)
class TestbedConfig:
    """One testbed run (keyword-only; see ``bordir testbed --help``).

    Attributes:
        testbed: ``noise``, ``rejection``, ``integration`` or ``counterfactual``.
        data: ``rgb:FILE``, ``demo`` or a corpus spec.
        models: ``provider/model`` strings.
        langs: query languages to keep (territorial data); RGB files: the file's language.
        ratios: noise rates (default per testbed; rejection is always 1).
        passage_num: documents per prompt (RGB: 5).
        seed: instance seed (default ``$BORDIR_SEED`` or 12345; RGB uses 2333).
        seeding: ``bordir`` (seed per question) or ``rgb`` (``random.seed(seed)`` before every instance).
        temperature, max_tokens: generation settings (RGB's temperature default: 0.7).
        limit: at most this many questions per language (None: all).
        dataset: for a corpus spec: ``demo`` or ``borderlines:PATH``.
        policy: the policy of the headline numbers and comparisons (default ``rgb``
            for RGB files, ``bordir`` for territorial data); both are always computed.
        cache: response-cache file (default: bordir's).
        concurrency: calls in flight.
        n_resamples: bootstrap resamples and permutations.
        correct_rate: counterfactual: share of correct positives (RGB ``--correct_rate``).
        max_negatives: territorial: negatives kept per question.
        judge: ``provider/model`` of an LLM judge for RGB's Rej* (rejection) and
            ED* / CR* (counterfactual); None: no judge.
    """

    __test__ = False  # not a pytest test class

    testbed: str
    data: str
    models: tuple[str, ...]
    langs: tuple[str, ...] = ()
    ratios: tuple[float, ...] | None = None
    passage_num: int = 5
    seed: int | None = None
    seeding: str = "bordir"
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    limit: int | None = None
    dataset: str = "demo"
    policy: str | None = None
    cache: str | None = None
    concurrency: int | None = None
    n_resamples: int = DEFAULT_RESAMPLES
    correct_rate: float = 0.0
    max_negatives: int = 20
    judge: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.testbed not in TESTBEDS:
            raise ConfigError(f"unknown testbed {self.testbed!r}; known: {', '.join(TESTBEDS)}")
        if not self.models:
            raise ConfigError("give at least one model (--model provider/name)")
        if self.seeding not in ("bordir", "rgb"):
            raise ConfigError(f"seeding must be 'bordir' or 'rgb', got {self.seeding!r}")
        for r in self.ratios or ():
            if not 0 <= r <= 1:
                raise ConfigError(f"noise ratio {r} is outside [0, 1]")

    @property
    def is_rgb(self) -> bool:
        return self.data.startswith("rgb:")

    @property
    def resolved_seed(self) -> int:
        return (
            resolve_seed(self.seed)
            if not (self.seeding == "rgb" and self.seed is None)
            else RGB_SEED
        )

    @property
    def resolved_ratios(self) -> tuple[float, ...]:
        if self.testbed == "rejection":
            return (1.0,)
        return tuple(self.ratios) if self.ratios else DEFAULT_RATIOS[self.testbed]

    @property
    def resolved_policy(self) -> str:
        return self.policy or ("rgb" if self.is_rgb else "bordir")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(
            seed=self.resolved_seed,
            ratios=list(self.resolved_ratios),
            policy=self.resolved_policy,
            models=list(self.models),
            langs=list(self.langs),
        )
        return d


def _load_dataset(spec: str) -> Any:
    from ..loaders import load_borderlines, load_demo

    if spec == "demo":
        return load_demo()
    if spec.startswith("borderlines:"):
        return load_borderlines(spec.partition(":")[2])
    raise ConfigError(f"unknown dataset {spec!r}; use 'demo' or 'borderlines:PATH'")


def _load_corpus(spec: str) -> Any:
    import bordir

    loader = getattr(bordir, "load_corpus", None)  # any corpus source bordir reads (bordir.corpus)
    if loader is not None:
        return loader(spec)
    if spec == "demo":
        from ..loaders import load_demo_corpus

        return load_demo_corpus()
    raise ConfigError(
        f"corpus {spec!r}: this bordir has no load_corpus(); use --data demo or rgb:FILE"
    )


def load_questions(
    cfg: TestbedConfig, setting: str
) -> tuple[list[Question], list[dict[str, str]], dict[str, Any]]:
    """The questions of one setting, the queries left out, and the data's identity."""
    seed = cfg.resolved_seed
    if cfg.is_rgb:
        from .rgb_data import infer_kind, infer_lang, load_rgb

        path = Path(cfg.data.partition(":")[2])
        kind = infer_kind(path)
        if kind != _KIND_OF[cfg.testbed]:
            raise ConfigError(
                f"{path.name} is an RGB {kind} file (by its name, as RGB decides); the {cfg.testbed} "
                f"testbed needs an RGB {_KIND_OF[cfg.testbed]} file (en.json / zh_refine.json, "
                "*_int.json, *_fact.json)"
            )
        lang = cfg.langs[0] if cfg.langs else infer_lang(path)
        lang = RGB_LANG_ALIASES.get(lang, lang)
        get_instruction(lang)
        qs = [
            Question.from_rgb(q, lang=lang, source=f"rgb:{path.name}")
            for q in load_rgb(path, kind=kind)
        ]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return qs, [], {"source": f"rgb:{path.name}", "hash": f"sha256-{digest}", "lang": lang}
    ds = _load_dataset(cfg.dataset if cfg.data != "demo" else "demo")
    corpus = _load_corpus(cfg.data)
    qs, skipped = territorial_questions(
        ds,
        corpus,
        cfg.testbed,
        seed=seed,
        langs=cfg.langs or None,
        xling=setting.endswith("-xling"),
        max_negatives=cfg.max_negatives,
        source=cfg.data,
    )
    ident = {
        "source": cfg.data,
        "dataset": ds.name,
        "dataset_hash": ds.content_hash(),
        "corpus_hash": corpus.content_hash(),
        "hash": corpus.content_hash(),
    }
    return qs, skipped, ident


def _limit(qs: list[Question], limit: int | None) -> list[Question]:
    if limit is None:
        return qs
    seen: dict[str, int] = {}
    out = []
    for q in qs:
        if seen.get(q.lang, 0) < limit:
            seen[q.lang] = seen.get(q.lang, 0) + 1
            out.append(q)
    return out


def plan(cfg: TestbedConfig) -> tuple[list[Instance], list[dict[str, str]], dict[str, Any]]:
    """Every instance of the run, the questions left out, and the data identity."""
    settings = (
        ("counterfactual", "nodocs")
        if cfg.testbed == "counterfactual"
        else ((cfg.testbed,) if cfg.is_rgb else SETTINGS[cfg.testbed])
    )
    instances: list[Instance] = []
    skipped: list[dict[str, str]] = []
    ident: dict[str, Any] = {}
    for setting in settings:
        qs, sk, ident = load_questions(cfg, setting)
        skipped += [dict(s, setting=setting) for s in sk]
        qs = _limit(qs, cfg.limit)
        ratios = (0.0,) if setting == "nodocs" else cfg.resolved_ratios
        for q in qs:
            for r in ratios:
                instances.append(
                    make_instance(
                        q,
                        cfg.testbed,
                        setting,
                        r,
                        seed=cfg.resolved_seed,
                        seeding=cfg.seeding,  # type: ignore[arg-type]
                        passage_num=0 if setting == "nodocs" else cfg.passage_num,
                        correct_rate=cfg.correct_rate,
                    )
                )
    if not instances:
        raise ConfigError(
            f"the {cfg.testbed} testbed has no instance on {cfg.data} "
            f"(languages: {', '.join(cfg.langs) or 'all'}); {len(skipped)} queries were left out"
        )
    return instances, skipped, ident


def _read_results(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line torn by a crash: its call is in the cache and is re-read
    return out


def _safe(model: str) -> str:
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

            def on_result(request: Any, result: Any, by_key: dict = by_key) -> None:
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
                concurrency=cfg.concurrency,
                progress=progress,
                desc=f"{backend_model} {label}",
                on_result=on_result,
            )
    return kept, calls


def _judge_plan(
    cfg: TestbedConfig, instances: list[Instance], results: list[dict[str, Any]]
) -> dict:
    """The judge calls: rejection instances, and counterfactual instances with documents (RGB Rej*, ED*)."""
    from .judge import JUDGED_TESTBEDS, judge_request

    if not cfg.judge or cfg.testbed not in JUDGED_TESTBEDS:
        return {}
    by_id = {i.instance_id: i for i in instances}
    planned = {}
    for r in results:
        inst = by_id.get(r["instance_id"])
        if inst is None or r.get("error") is not None or inst.setting == "nodocs":
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


def run_testbed(
    cfg: TestbedConfig,
    out_dir: str | os.PathLike[str],
    *,
    progress: bool = True,
    backends: Mapping[str, Any] | None = None,
) -> Path:
    """Run ``cfg`` into ``out_dir`` (resumable; see the module docs) and return ``out_dir``."""
    from ..experiment.provenance import git_revision, now_iso, package_versions
    from ..generation.cache import ResponseCache
    from .comparisons import comparisons
    from .metrics import summarize

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    instances, skipped, ident = plan(cfg)
    langs = sorted({i.question.lang for i in instances})
    info: dict[str, Any] = {
        "kind": "bordir-testbed",
        "bordir_version": __version__,
        "status": "running",
        "started": now_iso(),
        "config": cfg.to_dict(),
        "data": ident,
        "git_revision": git_revision(),
        "packages": package_versions(),
        "instructions": {lang: get_instruction(lang).source for lang in langs},
        "instances": len(instances),
        "skipped": skipped,
    }
    write_json(info, out / TESTBED_JSON)

    planned = {
        (m, i.instance_id): request_for(
            i,
            model=m,
            temperature=cfg.temperature,
            seed=cfg.resolved_seed,
            max_tokens=cfg.max_tokens,
        )
        for m in cfg.models
        for i in instances
    }
    cache = ResponseCache(cfg.cache) if cfg.cache else ResponseCache()
    backends = dict(backends or {})
    kept, calls = _call_all(
        out / "results.jsonl",
        planned,
        cache=cache,
        cfg=cfg,
        backends=backends,
        progress=progress,
        label=cfg.testbed,
    )
    judged: dict[tuple[str, str], dict[str, Any]] = {}
    judge_plan = _judge_plan(cfg, instances, kept)
    if judge_plan:
        jkept, jcalls = _call_all(
            out / "judge.jsonl",
            judge_plan,
            cache=cache,
            cfg=cfg,
            backends=backends,
            progress=progress,
            label="judge",
        )
        judged = {
            (r["model"], r["instance_id"]): {"reply": r["prediction"], "error": r["error"]}
            for r in jkept
        }
        info["judge_calls"] = jcalls

    items = score_items(instances, kept, judged)
    atomic_write_parquet(out / "items.parquet", items)
    fields = {
        "data": ident.get("hash"),
        "k": cfg.passage_num,
        "seed": cfg.resolved_seed,
        "seeding": cfg.seeding,
        "temp": cfg.temperature,
        "judge": cfg.judge,
    }
    groups = summarize(items, n_resamples=cfg.n_resamples, seed=None, fields=fields)
    comps = comparisons(items, cfg.resolved_policy, n_resamples=cfg.n_resamples, fields=fields)
    write_json(
        {
            "policy": cfg.resolved_policy,
            "policies": ["rgb", "bordir"],
            "groups": groups,
            "comparisons": comps,
            "n_resamples": cfg.n_resamples,
            "bootstrap_seed": resolve_seed(None),
        },
        out / "scores.json",
    )
    for (model, lang, setting), g in items.groupby(["model", "lang", "setting"]):
        path = out / "predictions" / _safe(model) / f"{lang}.{setting}.jsonl"
        atomic_write_text(
            path,
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rgb_records(instances, g)),
        )
    info.update(status="complete", finished=now_iso(), calls=calls, items=len(items))
    write_json(info, out / TESTBED_JSON)
    return out


def load_items(out_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """The per-item table of a finished testbed directory."""
    return pd.read_parquet(Path(out_dir) / "items.parquet")
