"""MEMERAG: native-speaker faithfulness labels of RAG answers in de, en, es, fr, hi, as judge-calibration items.

MEMERAG (Cruz Blandón et al. 2025, amazon-science/MEMERAG; CC BY-NC 4.0, research use)
gives per language one JSON object per line: ``query_id``, ``query`` (asked natively),
``context`` (a list of ``{"text": …}`` passages) and ``answer``, a list of sentences with
``sentence``, ``sentence_id`` and ``factuality`` ∈ {``Supported``, ``Not Supported``,
``Challenging to determine``}. Each sentence is one item (``<lang>/<query_id>/<sentence_id>``),
its question the cluster.

:func:`load_memerag` reads a directory of ``<lang>.jsonl`` files, one such file, or the
upstream ``data/`` directory holding the variants (``variant`` chooses; it is required when
several are there):

* ``memerag`` — ``memerag/``: one label per sentence;
* ``majority`` — the labels of the majority vote over five annotators; the folder is
  ``memerag_ext_w_majority_vote/`` on disk and ``memerag_ext_w_majority_voting/`` in the
  upstream README: both names are read;
* ``ext`` — ``memerag_ext/``: five annotators per sentence. A sentence's labels are read from
  ``factuality`` as a list (annotators ``a1`` … in order) or an object (annotator → label), or
  from ``annotations``, a list of objects with ``factuality`` (and ``annotator``); the reference
  label is their plurality (a tie leaves the sentence out of the agreement, counted).

``Challenging to determine`` is kept as its own label; the agreement leaves it out by default,
as MEMERAG does, and counts it. A record without context, a label outside the three, or a
missing field is one :class:`~bordir.errors.DataError` naming the file, the line and the field.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError
from ..stats import plurality
from .faithfulness import CHALLENGING, NOT_SUPPORTED, SUPPORTED
from .items import ItemSet, JudgeItem, content_hash

__all__ = ["LABELS", "VARIANT_DIRS", "load_memerag", "memerag_files"]

LABELS: tuple[str, ...] = (SUPPORTED, NOT_SUPPORTED, CHALLENGING)
"""MEMERAG's faithfulness labels."""

VARIANT_DIRS: dict[str, tuple[str, ...]] = {
    "memerag": ("memerag",),
    "majority": ("memerag_ext_w_majority_vote", "memerag_ext_w_majority_voting"),
    "ext": ("memerag_ext",),
}
"""Each variant's folder name(s) in the upstream ``data/`` directory."""


def _variant_of(directory: Path) -> str | None:
    return next((v for v, names in VARIANT_DIRS.items() if directory.name in names), None)


def memerag_files(
    path: str | os.PathLike[str], variant: str | None = None
) -> tuple[str, list[Path]]:
    """``(variant, files)``: the ``<lang>.jsonl`` files ``path`` names (see the module docs).

    Raises:
        DataError: ``path`` does not exist or holds no ``<lang>.jsonl`` file.
        ConfigError: an unknown ``variant``, or several variants and none chosen.
    """
    p = Path(path)
    if variant is not None and variant not in VARIANT_DIRS:
        raise ConfigError(f"unknown MEMERAG variant {variant!r}; known: {', '.join(VARIANT_DIRS)}")
    if p.is_file():
        return variant or _variant_of(p.parent) or "memerag", [p]
    if not p.is_dir():
        raise DataError("no such file or directory; expected MEMERAG's <lang>.jsonl files", path=p)
    here = sorted(p.glob("*.jsonl"))
    if here:
        return variant or _variant_of(p) or "memerag", here
    found = {v: d for v, names in VARIANT_DIRS.items() for n in names if (d := p / n).is_dir()}
    if variant is None:
        if len(found) > 1:
            raise ConfigError(
                f"{p} holds several MEMERAG variants ({', '.join(sorted(found))}); choose one "
                "with --variant (memerag: one label per sentence; majority: the majority of five "
                "annotators; ext: the five annotators)"
            )
        variant = next(iter(found), None)
    if variant is None or variant not in found:
        want = " or ".join(f"{n}/" for n in VARIANT_DIRS.get(variant or "memerag", ()))
        raise DataError(f"holds no <lang>.jsonl file and no {want} folder", path=p)
    files = sorted(found[variant].glob("*.jsonl"))
    if not files:
        raise DataError("holds no <lang>.jsonl file", path=found[variant])
    return variant, files


def _label(value: Any, path: Path, line: int, field: str) -> str:
    if not isinstance(value, str) or value.strip() not in LABELS:
        raise DataError(
            f"expected one of {', '.join(repr(l) for l in LABELS)}, found {value!r}",
            path=path,
            line=line,
            field=field,
        )
    return value.strip()


def _annotations(
    s: dict[str, Any], path: Path, line: int, where: str
) -> tuple[tuple[str, str], ...]:
    """A sentence's ``(annotator, label)`` pairs (one pair for a single label)."""
    fact = s.get("factuality")
    if isinstance(fact, str):
        return (("gold", _label(fact, path, line, f"{where}.factuality")),)
    if isinstance(fact, list) and fact:
        return tuple(
            (f"a{i}", _label(v, path, line, f"{where}.factuality[{i - 1}]"))
            for i, v in enumerate(fact, 1)
        )
    if isinstance(fact, dict) and fact:
        return tuple(
            (str(k), _label(v, path, line, f"{where}.factuality.{k}")) for k, v in fact.items()
        )
    anns = s.get("annotations")
    if isinstance(anns, list) and anns and all(isinstance(a, dict) for a in anns):
        return tuple(
            (
                str(a.get("annotator", f"a{i}")),
                _label(a.get("factuality"), path, line, f"{where}.annotations[{i - 1}].factuality"),
            )
            for i, a in enumerate(anns, 1)
        )
    raise DataError(
        "expected a label (a string), a list or object of labels, or 'annotations', found "
        f"{type(fact).__name__ if fact is not None else 'nothing'}",
        path=path,
        line=line,
        field=f"{where}.factuality",
    )


def _text(rec: dict[str, Any], key: str, path: Path, line: int, field: str | None = None) -> str:
    value = rec.get(key)
    if not isinstance(value, str) or not value.strip():
        found = "nothing" if value is None else repr(value)[:40]
        raise DataError(
            f"expected a non-empty string, found {found}", path=path, line=line, field=field or key
        )
    return value


def _context(rec: dict[str, Any], path: Path, line: int) -> tuple[str, ...]:
    ctx = rec.get("context")
    if isinstance(ctx, str):
        ctx = [{"text": ctx}]
    texts = [
        (c.get("text") if isinstance(c, dict) else c)
        for c in (ctx if isinstance(ctx, list) else [])
    ]
    kept = [t for t in texts if isinstance(t, str) and t.strip()]
    if not kept:
        raise DataError(
            'the item has no context: expected a non-empty list of {"text": …} passages '
            "(a judge cannot check faithfulness without them)",
            path=path,
            line=line,
            field="context",
        )
    return tuple(kept)


def _read_file(path: Path, lang: str) -> Iterable[JudgeItem]:
    from .._io.json_read import iter_json_objects

    for line, rec in iter_json_objects(path):
        qid = rec.get("query_id")
        if not isinstance(qid, (str, int)) or isinstance(qid, bool) or str(qid) == "":
            raise DataError(
                f"expected a query id, found {qid!r}", path=path, line=line, field="query_id"
            )
        question = _text(rec, "query", path, line)
        context = _context(rec, path, line)
        answer = rec.get("answer")
        if not isinstance(answer, list) or not answer:
            raise DataError(
                "expected a non-empty list of sentences", path=path, line=line, field="answer"
            )
        for i, s in enumerate(answer):
            where = f"answer[{i}]"
            if not isinstance(s, dict):
                raise DataError(
                    f"expected an object, found {type(s).__name__}",
                    path=path,
                    line=line,
                    field=where,
                )
            text = _text(s, "sentence", path, line, f"{where}.sentence")
            sid = s.get("sentence_id", i)
            anns = _annotations(s, path, line, where)
            label = anns[0][1] if len(anns) == 1 else plurality([l for _, l in anns])[0]
            yield JudgeItem(
                item_id=f"{lang}/{qid}/{sid}",
                lang=lang,
                question=question,
                context=context,
                text=text,
                label=label,
                annotations=anns,
                cluster=f"{lang}/{qid}",
                source=f"{path}:{line}",
            )


def load_memerag(
    path: str | os.PathLike[str],
    *,
    variant: str | None = None,
    langs: Iterable[str] | None = None,
) -> ItemSet:
    """The MEMERAG items under ``path`` (see the module docs), in file and sentence order.

    Args:
        path: a directory of ``<lang>.jsonl`` files, one such file, or the upstream ``data/``.
        variant: ``memerag``, ``majority`` or ``ext`` (default: what ``path`` holds).
        langs: read only these languages (default: every file).

    Raises:
        DataError: a file is malformed (the message names the file, the line and the field).
        ConfigError: an unknown variant or language, or a language asked for that has no file.
    """
    from ..languages import get as language

    variant, files = memerag_files(path, variant)
    by_lang = {f.stem: f for f in files}
    for code in by_lang:
        try:
            language(code)
        except ConfigError:
            raise DataError(
                "the file name is not a language code (expected <lang>.jsonl, e.g. hi.jsonl)",
                path=by_lang[code],
            ) from None
    wanted = sorted(by_lang) if langs is None else list(dict.fromkeys(langs))
    missing = [l for l in wanted if l not in by_lang]
    if missing:
        raise ConfigError(
            f"MEMERAG ({variant}) has no {missing[0]}.jsonl; it has: {', '.join(sorted(by_lang))}"
        )
    items: list[JudgeItem] = []
    seen: dict[str, str] = {}
    for lang in wanted:
        for it in _read_file(by_lang[lang], lang):
            if it.item_id in seen:
                raise DataError(
                    f"sentence {it.item_id} is given twice (first at {seen[it.item_id]})",
                    path=by_lang[lang],
                    line=int(it.source.rsplit(":", 1)[1]),
                    field="answer.sentence_id",
                )
            seen[it.item_id] = it.source
            items.append(it)
    ident = content_hash(by_lang[l].read_bytes() for l in wanted)
    name = {"memerag": "memerag", "majority": "memerag_majority", "ext": "memerag_ext"}[variant]
    return ItemSet(
        items,
        name=name,
        ident=ident,
        path=str(path),
        meta={"variant": variant, "files": [str(by_lang[l]) for l in wanted]},
    )
