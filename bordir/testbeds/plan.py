"""What a testbed run asks: its questions (from an RGB file or a corpus), and the instances built from them (:func:`plan`)."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path
from typing import Any

from ..corpus import load_corpus
from ..errors import ConfigError, DataError
from ..loaders.catalog import load_dataset
from .config import TestbedConfig
from .construct import Instance, Question, make_instance
from .instructions import RGB_LANG_ALIASES, get_instruction
from .territorial import territorial_questions
from .testbed import NODOCS, is_xling

__all__ = ["load_questions", "plan", "dataset_of"]


def dataset_of(spec: str) -> Any:
    """The dataset of a testbed's ``dataset`` spec: ``NAME`` or ``NAME:PATH`` of the catalog.

    ``demo``, ``borderlines:PATH`` (a local BorderLines directory) or ``borderlines``
    (the hub), loaded by :func:`bordir.loaders.catalog.load_dataset`.
    """
    name, sep, path = spec.partition(":")
    return load_dataset(name, path if sep else None)


def load_questions(
    cfg: TestbedConfig, setting: str
) -> tuple[list[Question], list[dict[str, str]], dict[str, Any]]:
    """The questions of one setting, the queries left out, and the data's identity."""
    seed = cfg.resolved_seed
    if cfg.is_rgb:
        from .rgb_data import RGBDataWarning, infer_kind, infer_lang, load_rgb

        path = Path(cfg.data.partition(":")[2])
        kind, needed = infer_kind(path), cfg.spec.kind
        if kind != needed:
            raise ConfigError(
                f"{path.name} is an RGB {kind} file (by its name, as RGB decides); the {cfg.testbed} "
                f"testbed needs an RGB {needed} file (en.json / zh_refine.json, "
                "*_int.json, *_fact.json)"
            )
        lang = cfg.langs[0] if cfg.langs else infer_lang(path)
        lang = RGB_LANG_ALIASES.get(lang, lang)
        get_instruction(lang)
        with warnings.catch_warnings(
            record=True
        ) as caught:  # kept in testbed.json, printed by the CLI
            warnings.simplefilter("always", RGBDataWarning)
            rgb = load_rgb(path, kind=kind)
        data_warnings = []
        for w in caught:
            if issubclass(w.category, RGBDataWarning):
                data_warnings.append(str(w.message))
            else:  # not ours to keep: let it through
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        qs = [Question.from_rgb(q, lang=lang, source=f"rgb:{path.name}") for q in rgb]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        ident: dict[str, Any] = {
            "source": f"rgb:{path.name}",
            "hash": f"sha256-{digest}",
            "lang": lang,
        }
        if data_warnings:
            ident["warnings"] = data_warnings
        return qs, [], ident
    ds = dataset_of(cfg.dataset if cfg.data != "demo" else "demo")
    corpus = load_corpus(cfg.data)
    qs, skipped = territorial_questions(
        ds,
        corpus,
        cfg.testbed,
        seed=seed,
        langs=cfg.langs or None,
        xling=is_xling(setting),
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
    """Every instance of the run, the questions left out, and the data identity.

    A question without negative documents is not run at a noise ratio above 0 (its documents
    would all be positives, or none, reported under that ratio): from an RGB file that is an
    error naming the file and the question; a territorial question is left out at that ratio
    with the reason.
    """
    settings = cfg.spec.settings_for(rgb_file=cfg.is_rgb)
    instances: list[Instance] = []
    skipped: list[dict[str, str]] = []
    ident: dict[str, Any] = {}
    for setting in settings:
        qs, sk, ident = load_questions(cfg, setting)
        skipped += [dict(s, setting=setting) for s in sk]
        qs = _limit(qs, cfg.limit)
        ratios = (0.0,) if setting == NODOCS else cfg.resolved_ratios
        for q in qs:
            for r in ratios:
                if r > 0 and setting != NODOCS and cfg.passage_num > 0 and not q.negative:
                    # its documents would be positives only (or none), reported as noise r
                    why = f"no negative documents, so noise ratio {r:g} cannot be built"
                    if cfg.is_rgb:
                        raise DataError(
                            f"question {q.id!r} has {why} (its documents would all be "
                            f"positives); give it negatives, or run noise ratio 0 only",
                            path=cfg.data.partition(":")[2],
                            field="negative",
                        )
                    skipped.append({"query_id": q.id, "reason": why, "setting": setting})
                    continue
                instances.append(
                    make_instance(
                        q,
                        cfg.testbed,
                        setting,
                        r,
                        seed=cfg.resolved_seed,
                        seeding=cfg.seeding,  # type: ignore[arg-type]
                        passage_num=0 if setting == NODOCS else cfg.passage_num,
                        correct_rate=cfg.correct_rate,
                    )
                )
    if not instances:
        raise ConfigError(
            f"the {cfg.testbed} testbed has no instance on {cfg.data} "
            f"(languages: {', '.join(cfg.langs) or 'all'}); {len(skipped)} queries were left out"
        )
    return instances, skipped, ident
