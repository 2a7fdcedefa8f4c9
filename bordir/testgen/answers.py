"""The answers of a test run read back: ``answers.jsonl`` and ``run.json`` of a ``bordir testrun`` directory.

:func:`read_answers` checks every row (an object with its ``config``, ``test_id`` and
``answer`` strings, ``retrieved`` a list of chunk ids, ``error`` a string or null) and the run's
``run.json``; ``bordir judge`` and the explorer read a test run through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._io.json_read import iter_json_objects, read_json, string_list

__all__ = ["read_answers"]


def read_answers(run_dir: str | Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(answer rows, run.json) of a ``testrun`` directory.

    Raises:
        DataError: a file is missing or malformed (a row that is not an object, a field of the
            wrong type, such as ``retrieved`` not a list of chunk ids), or there is no answer.
    """
    from ..errors import DataError

    d = Path(run_dir)
    path, meta_path = d / "answers.jsonl", d / "run.json"
    for p in (path, meta_path):
        if not p.is_file():
            raise DataError("not found: is this a `bordir testrun` output directory?", path=p)
    rows = []
    for lineno, rec in iter_json_objects(path):
        if not isinstance(rec, dict):
            raise DataError(
                f"expected a JSON object (one answer row), found {type(rec).__name__}",
                path=path,
                line=lineno,
            )
        for f in ("config", "test_id", "answer"):
            if not isinstance(rec.get(f), str):
                raise DataError("missing or not a string", path=path, line=lineno, field=f)
        string_list(
            rec.get("retrieved", []),
            expected="a list of chunk ids",
            bad_items="a non-string item",
            path=path,
            line=lineno,
            field="retrieved",
        )
        if rec.get("error") is not None and not isinstance(rec["error"], str):
            raise DataError("expected a string or null", path=path, line=lineno, field="error")
        rows.append(rec)
    if not rows:
        raise DataError(
            "has no answers (an empty answers file); run `bordir testrun TESTS --config … --out DIR`",
            path=path,
        )
    meta = read_json(meta_path)
    if not isinstance(meta, dict):
        raise DataError(
            f"expected a JSON object (what `bordir testrun` writes), found {type(meta).__name__}",
            path=meta_path,
        )
    for f in ("suite", "suite_signature"):
        if meta.get(f) is not None and not isinstance(meta[f], str):
            raise DataError("expected a string", path=meta_path, field=f)
    return rows, meta
