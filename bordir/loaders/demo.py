"""The demo dataset shipped inside bordir (``bordir/data/demo``).

About a dozen real, well-known territorial disputes in the BorderLines file
layout (so it loads through :func:`~bordir.loaders.load_borderlines_files`),
with an English control query and a query in every claimant language, plus a
corpus of short encyclopedic paragraphs per (territory, language) written for
the project — not Wikipedia text (see ``bordir/data/demo/README.md``).

Example:
    >>> ds = load_demo()
    >>> ds.name, len(ds.territories) >= 10
    ('demo', True)
    >>> ds.validate()
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from .._resources import package_data
from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import DataError
from ..languages import registry
from ..records import Passage
from .borderlines_files import load_borderlines_files

__all__ = ["demo_dir", "load_demo", "load_demo_corpus", "read_passages_jsonl"]

PASSAGE_FIELDS = ("doc_id", "lang", "territory", "title", "section", "text")


def demo_dir() -> Path:
    """Directory of the bundled demo dataset."""
    return package_data("data", "demo")


@lru_cache(maxsize=1)
def load_demo() -> BorderLines:
    """Load the bundled demo dataset (validated)."""
    ds = load_borderlines_files(demo_dir(), name="demo")
    ds.validate()
    return ds


def read_passages_jsonl(path: str | Path, *, name: str = "") -> Corpus:
    """Read a JSONL file of passages (``doc_id, lang, territory, title, section, text`` + extra string fields).

    Every record is checked: a line that is not JSON, a missing or empty field, or
    an unknown language raises :class:`DataError` naming the line.
    """
    path = Path(path)
    reg = registry()
    passages: list[Passage] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"invalid JSON: {exc.msg}", path=path, line=lineno) from None
            if not isinstance(rec, dict):
                raise DataError("expected a JSON object per line", path=path, line=lineno)
            for f in ("doc_id", "lang", "text"):
                if not isinstance(rec.get(f), str) or not rec[f].strip():
                    raise DataError("missing or empty", path=path, line=lineno, field=f)
            reg.get_checked(rec["lang"], where=f"{path}:{lineno}")
            meta = tuple(sorted((k, str(v)) for k, v in rec.items() if k not in PASSAGE_FIELDS))
            passages.append(
                Passage(
                    doc_id=rec["doc_id"],
                    lang=rec["lang"],
                    text=rec["text"],
                    title=str(rec.get("title", "")),
                    territory=str(rec.get("territory", "")),
                    section=str(rec.get("section", "")),
                    meta=meta,
                )
            )
    return Corpus(passages, name=name, source=str(path))


@lru_cache(maxsize=1)
def load_demo_corpus() -> Corpus:
    """Load the bundled demo corpus."""
    return read_passages_jsonl(demo_dir() / "corpus" / "passages.jsonl", name="demo")
