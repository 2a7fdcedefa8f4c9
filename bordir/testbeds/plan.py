"""What a testbed run asks: its questions (from an RGB file or a corpus), and the instances built from them (:func:`plan`)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .config import KIND_OF, TestbedConfig
from .construct import Instance, Question, make_instance
from .instructions import RGB_LANG_ALIASES, get_instruction
from .territorial import SETTINGS, territorial_questions

__all__ = ["load_questions", "plan"]


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
        if kind != KIND_OF[cfg.testbed]:
            raise ConfigError(
                f"{path.name} is an RGB {kind} file (by its name, as RGB decides); the {cfg.testbed} "
                f"testbed needs an RGB {KIND_OF[cfg.testbed]} file (en.json / zh_refine.json, "
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
