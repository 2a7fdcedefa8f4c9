"""NoMIRACL's result files: one JSON object per line, every model's raw reply to one query.

A line is ``{"query_id", "docids", "prompt", "template", "results": {model: reply}}``
(``nomiracl/util.py``, ``save_results_as_jsonl``). NoMIRACL's evaluation reads a file
with ``load_results_as_jsonl``: model → query id → reply, where a query id seen twice
keeps its **last** reply and a model missing from a line simply has no reply for that
query (its denominator is smaller). :meth:`ResultFile.outputs` does the same.

Where a file sits says what it holds (``results/baselines/{subset}/{lang}.{split}.vanilla_prompt.jsonl``,
``results/GPT-4/non-relevant/{lang}.{split}.non_relevant.vanilla_prompt.jsonl``):
:func:`infer_subset` reads the subset from a whole part of the file name (``.relevant.`` /
``.non_relevant.``) or from the whole name of the file's own folder (``relevant``,
``non_relevant``, ``non-relevant`` and the ``-final`` folders of NoMIRACL's GPT-4 results),
never from a folder further up nor from a name that merely starts so (``relevant_runs/``);
a name and a folder that disagree are refused. :func:`infer_lang` reads the language from
the name's first part.

A line whose ``results`` is empty (``{}``) holds no reply; such lines are counted in the
file's warnings.

:func:`result_record` writes a line in the same form (``bordir testbed nomiracl``'s
``nomiracl/`` files), so bordir's outputs are re-scored exactly as NoMIRACL's.

Example:
    >>> from pathlib import Path
    >>> infer_subset(Path("results/baselines/non_relevant/sw.test.vanilla_prompt.jsonl")), infer_lang(Path("sw.test.x.jsonl"))
    ('non_relevant', 'sw')
    >>> infer_subset(Path("results/GPT-4/relevant-final/zh.test.relevant.vanilla_prompt.jsonl"))
    'relevant'
    >>> infer_subset(Path("relevant_runs/baselines/sw.test.vanilla_prompt.jsonl")) is None
    True
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._io.json_read import iter_json_objects
from ...errors import ConfigError, DataError
from ...loaders.nomiracl import LANGUAGES, SPLITS, SUBSETS, bordir_code, nomiracl_code
from ...loaders.nomiracl_files import blank, some_ids

__all__ = [
    "RESULT_FIELDS",
    "ResultLine",
    "ResultFile",
    "infer_subset",
    "infer_lang",
    "infer_split",
    "read_result_file",
    "result_record",
    "dumps_line",
]

RESULT_FIELDS = ("query_id", "docids", "prompt", "template", "results")


_FOLDERS = {
    "relevant": "relevant",
    "relevant_final": "relevant",
    "non_relevant": "non_relevant",
    "non_relevant_final": "non_relevant",
    "nonrelevant": "non_relevant",
}
"""Folder names (case-folded, ``-`` as ``_``) that name a subset: NoMIRACL's ``results/`` folders."""


def _subset_of(name: str, names: dict[str, str]) -> str | None:
    return names.get(name.casefold().replace("-", "_"))


def infer_subset(path: Path) -> str | None:
    """The subset a whole part of the file name names, else the whole name of its folder (None: neither).

    Raises:
        ConfigError: the name and the folder name two different subsets.
    """
    by_name = {
        sub
        for part in path.name.split(".")
        if (sub := _subset_of(part, {s: s for s in SUBSETS})) is not None
    }
    by_folder = _subset_of(path.resolve().parent.name, _FOLDERS)
    if len(by_name) > 1 or (by_name and by_folder and by_folder not in by_name):
        said = sorted(by_name | ({by_folder} if by_folder else set()))
        raise ConfigError(
            f"{path}: its name and folder name two subsets ({', '.join(said)}); pass --subset"
        )
    return next(iter(by_name), None) or by_folder


def infer_lang(path: Path) -> str | None:
    """NoMIRACL's language code from the file name's first part (``sw.test…``), if it is one."""
    first = path.name.split(".")[0]
    try:
        return nomiracl_code(first)
    except ConfigError:
        return None


def infer_split(path: Path) -> str | None:
    """``test`` or ``dev`` from the file name's second part, if it is one."""
    parts = path.name.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in SPLITS else None


@dataclass(frozen=True, slots=True)
class ResultLine:
    """One line: a query and the replies of the models that answered it."""

    line: int
    query_id: str
    docids: tuple[str, ...]
    prompt: str | None
    template: str | None
    results: Mapping[str, Any]


@dataclass(frozen=True)
class ResultFile:
    """A parsed result file.

    Attributes:
        path: the file.
        subset: ``non_relevant`` or ``relevant``.
        code: NoMIRACL's language code; ``lang``: bordir's.
        split: ``test``/``dev`` if the name says, else None.
        lines: every line, in file order.
        digest: ``sha256-…`` of the file's bytes.
        subset_from, lang_from: ``path`` or ``option`` (how they were decided).
        warnings: what the file holds that scores nothing (lines without a reply), with lines.
    """

    path: Path
    subset: str
    code: str
    split: str | None
    lines: tuple[ResultLine, ...] = field(repr=False)
    digest: str
    subset_from: str = "path"
    lang_from: str = "path"
    warnings: tuple[str, ...] = ()

    @property
    def lang(self) -> str:
        return bordir_code(self.code)

    def outputs(self) -> dict[str, dict[str, Any]]:
        """``load_results_as_jsonl``: model → query id → reply (a repeated query id keeps its last reply).

        Models are in the order they first appear.
        """
        out: dict[str, dict[str, Any]] = {}
        for ln in self.lines:
            for model, reply in ln.results.items():
                out.setdefault(model, {})[ln.query_id] = reply
        return out

    def line_of(self) -> dict[str, int]:
        """Query id → the line its last record is on."""
        return {ln.query_id: ln.line for ln in self.lines}

    def prompts(self) -> dict[str, str | None]:
        """Query id → the prompt of its last record."""
        return {ln.query_id: ln.prompt for ln in self.lines}


def read_result_file(
    path: str | os.PathLike[str], *, subset: str | None = None, lang: str | None = None
) -> ResultFile:
    """Parse one result file; ``subset`` and ``lang`` override what its path says.

    Raises:
        ConfigError: the subset or language can be told neither from the path nor from the options.
        DataError: the file is missing, a line is not JSON, or lacks ``query_id`` / ``results``
            (file, line and field).
    """
    p = Path(path)
    if not p.is_file():
        raise DataError("file not found; expected a NoMIRACL result file (.jsonl)", path=p)
    if subset is not None and subset not in SUBSETS:
        raise ConfigError(f"--subset must be one of {', '.join(SUBSETS)}, got {subset!r}")
    sub = subset or infer_subset(p)
    if sub is None:
        raise ConfigError(
            f"{p}: cannot tell the subset from the path (no relevant / non_relevant part in its name, "
            "and its folder is not named relevant, non_relevant or non-relevant); pass --subset "
            "relevant or --subset non_relevant"
        )
    try:
        code = nomiracl_code(lang) if lang else infer_lang(p)
    except ConfigError as exc:
        raise ConfigError(f"--lang {lang!r} (the language of {p}): {exc}") from None
    if code is None:
        raise ConfigError(
            f"{p}: the file name does not start with a NoMIRACL language code "
            f"({', '.join(LANGUAGES)}); pass --lang"
        )
    lines: list[ResultLine] = []
    for lineno, rec in iter_json_objects(p):
        qid = rec.get("query_id")
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            raise DataError(
                f"missing or not a string; NoMIRACL result lines have {', '.join(RESULT_FIELDS)}",
                path=p,
                line=lineno,
                field="query_id",
            )
        if blank(str(qid)):
            raise DataError("the query id is empty", path=p, line=lineno, field="query_id")
        results = rec.get("results")
        if not isinstance(results, dict):
            raise DataError(
                "missing or not an object mapping model names to replies",
                path=p,
                line=lineno,
                field="results",
            )
        if any(blank(m) for m in results):
            raise DataError(
                "a model name is empty; results maps each model's name to its reply",
                path=p,
                line=lineno,
                field="results",
            )
        docids = rec.get("docids") or []
        if not isinstance(docids, list):
            raise DataError("expected a list of passage ids", path=p, line=lineno, field="docids")
        prompt = rec.get("prompt")
        lines.append(
            ResultLine(
                lineno,
                str(qid),
                tuple(str(d) for d in docids),
                prompt if isinstance(prompt, str) else None,
                rec.get("template") if isinstance(rec.get("template"), str) else None,
                results,
            )
        )
    if not lines:
        raise DataError("has no result lines", path=p)
    empty = [ln.line for ln in lines if not ln.results]
    warnings: tuple[str, ...] = (
        (
            f"{p}: {len(empty)} of {len(lines)} line(s) have no reply (results is empty): line(s) "
            f"{some_ids([str(n) for n in empty])}",
        )
        if empty
        else ()
    )
    warnings += _contradicting(p, lines)
    digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    return ResultFile(
        p,
        sub,
        code,
        infer_split(p),
        tuple(lines),
        f"sha256-{digest}",
        "option" if subset else "path",
        "option" if lang else "path",
        warnings,
    )


def _contradicting(p: Path, lines: Sequence[ResultLine]) -> tuple[str, ...]:
    """A warning naming the query ids on several lines whose replies differ (a repeat is not one)."""
    seen: dict[str, list[ResultLine]] = {}
    for ln in lines:
        seen.setdefault(ln.query_id, []).append(ln)
    bad = [
        f"{qid} (lines {', '.join(str(x.line) for x in lns)})"
        for qid, lns in seen.items()
        if len(lns) > 1
        and any(
            x.results.get(m, lns[0].results.get(m)) != lns[0].results.get(m, x.results.get(m))
            for x in lns[1:]
            for m in {*x.results, *lns[0].results}
        )
    ]
    if not bad:
        return ()
    return (
        f"{p}: {len(bad)} query id(s) are on several lines with different replies; NoMIRACL's "
        f"evaluation keeps the last line's (so does bordir): {some_ids(bad)}",
    )


def result_record(
    query_id: str,
    docids: Sequence[str],
    prompt: str | None,
    template: str,
    results: Mapping[str, str],
) -> dict[str, Any]:
    """One line of a result file, keys in NoMIRACL's order (``save_results_as_jsonl``)."""
    return {
        "query_id": query_id,
        "docids": list(docids),
        "prompt": prompt,
        "template": template,
        "results": dict(results),
    }


def dumps_line(record: Mapping[str, Any]) -> str:
    """``json.dumps(record, ensure_ascii=False) + "\\n"``, as NoMIRACL writes a line."""
    return json.dumps(record, ensure_ascii=False) + "\n"
