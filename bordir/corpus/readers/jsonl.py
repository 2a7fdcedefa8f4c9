"""Reader of a passages ``.jsonl``: one JSON object per line (columns in :mod:`._rows`)."""

from __future__ import annotations

from pathlib import Path

from ..._io.json_read import iter_json_objects
from ...errors import DataError
from ..base import Corpus
from ._rows import RowChecker

__all__ = ["read_passages_jsonl"]


def read_passages_jsonl(path: str | Path, *, name: str = "") -> Corpus:
    """Read a JSONL file of passages (``doc_id, lang, text`` + optional ``territory, title, section``, meta).

    Every record is checked: a line that is not JSON, a missing or empty field, a
    duplicate ``(lang, doc_id)`` or an unknown language raises :class:`DataError`
    naming the line. A UTF-8 byte-order mark is ignored.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "p.jsonl"
        >>> _ = p.write_text('{"doc_id": "a", "lang": "ca", "text": "Andorra és un país."}\\n{"doc_id": "b"}\\n')
        >>> read_passages_jsonl(p)
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: ...p.jsonl:2: field 'lang': missing or empty (required columns: doc_id, lang, text)
    """
    path = Path(path)
    checker = RowChecker(path)
    passages = [checker.passage(rec, lineno) for lineno, rec in iter_json_objects(path)]
    if not passages:
        raise DataError(
            "no passages (the file is empty); expected one JSON object per line", path=path
        )
    return Corpus(passages, name=name or path.stem, source=str(path))
