"""The passages-file record: documented columns, checked one row at a time with file and line.

Columns of a passages file (``.jsonl`` keys, ``.csv``/``.tsv``/``.parquet`` columns):

==============  =========  ===========================================================
``doc_id``      required   unique within its language
``lang``        required   a language code (any Wikipedia language; aliases such as
                           ``he``, ``zh-Hans`` or ``pt-BR`` are stored canonical)
``text``        required   the passage
``territory``   optional   the territory whose pool holds the passage
``title``       optional   the article title
``section``     optional   the section heading
anything else   optional   provenance kept as string meta (``revision_id``,
                           ``fetched_at``, ``page_id`` …); empty values are dropped
==============  =========  ===========================================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...records import Passage

__all__ = ["PASSAGE_FIELDS", "REQUIRED", "RowChecker"]

PASSAGE_FIELDS = ("doc_id", "lang", "territory", "title", "section", "text")
REQUIRED = ("doc_id", "lang", "text")


def _empty(v: Any) -> bool:
    return (
        v is None
        or (isinstance(v, float) and math.isnan(v))
        or (isinstance(v, str) and not v.strip())
    )


def _text(v: Any) -> str:
    if _empty(v):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


class RowChecker:
    """Turns records into :class:`Passage`, raising :class:`DataError` at the first bad row.

    Example:
        >>> c = RowChecker("p.csv")
        >>> c.passage({"doc_id": "1", "lang": "de", "text": "Berlin ist groß.", "revision_id": 7}, 2).meta
        (('revision_id', '7'),)
        >>> c.passage({"doc_id": "1", "lang": "de", "text": "Doppelt."}, 3)
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: p.csv:3: field 'doc_id': duplicate document '1' in language 'de' (first at line 2)
    """

    def __init__(self, path: str | Path) -> None:
        from ...languages import registry

        self.path = Path(path)
        self._reg = registry()
        self._seen: dict[tuple[str, str], int] = {}

    def passage(self, rec: Mapping[str, Any], line: int) -> Passage:
        for f in REQUIRED:
            v = rec.get(f)
            if _empty(v) or not isinstance(v, (str, int)) or isinstance(v, bool):
                raise DataError(
                    f"missing or empty (required columns: {', '.join(REQUIRED)})",
                    path=self.path,
                    line=line,
                    field=f,
                )
        for f in ("doc_id", "lang", "text", "territory", "title", "section"):
            if isinstance(rec.get(f), str) and "\x00" in rec[f]:
                raise DataError("contains a NUL character", path=self.path, line=line, field=f)
        lang = self._reg.resolve(
            str(rec["lang"]).strip(), where=f"{self.path}:{line}: field 'lang'"
        ).code
        doc_id = _text(rec["doc_id"]).strip()
        key = (lang, doc_id)
        if key in self._seen:
            raise DataError(
                f"duplicate document {doc_id!r} in language {lang!r} (first at line {self._seen[key]})",
                path=self.path,
                line=line,
                field="doc_id",
            )
        self._seen[key] = line
        meta = tuple(
            sorted(
                (str(k), _text(v))
                for k, v in rec.items()
                if k not in PASSAGE_FIELDS and not _empty(v)
            )
        )
        return Passage(
            doc_id=doc_id,
            lang=lang,
            text=str(rec["text"]),
            title=_text(rec.get("title")),
            territory=_text(rec.get("territory")),
            section=_text(rec.get("section")),
            meta=meta,
        )
