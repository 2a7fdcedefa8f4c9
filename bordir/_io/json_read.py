"""The one JSON reader of bordir: JSON-lines files, whole JSON files and :func:`loads` under both.

Every JSON text bordir reads from a file (or a server) goes through :func:`loads`, so one rule holds
everywhere: what Python's parser cannot read is ``not valid JSON: <why>`` with the file and the
line, never an internal error. That includes a value nested too deeply for the parser (a line of
100,000 ``[``: ``not valid JSON: nested too deeply``; the parser recurses once per level and stops
near Python's recursion limit, about 1,000 levels) and an integer longer than Python converts
(``not valid JSON: a number with more than 4300 digits``).

Blank lines are skipped; a UTF-8 byte-order mark on the first line is dropped; a file that is not UTF-8
(gzip, UTF-16, Latin-1 …) gets :func:`bordir.errors.undecodable`'s hint.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.jsonl"
    >>> _ = p.write_text('{"a": 1}\\n\\n{"a": 2}\\n' + "[" * 100_000 + "\\n", encoding="utf-8")
    >>> try:
    ...     list(iter_json_objects(p))
    ... except DataError as err:
    ...     print(str(err).replace(str(p), "x.jsonl"))
    x.jsonl:4: not valid JSON: nested too deeply (column 129)
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

from ..errors import DataError, undecodable

__all__ = [
    "NESTED_TOO_DEEPLY",
    "iter_json_objects",
    "json_object_lines",
    "loads",
    "not_valid",
    "read_json",
    "string_list",
]

NESTED_TOO_DEEPLY = "nested too deeply"
"""The reason of a JSON text nested deeper than :data:`MAX_DEPTH` (:func:`loads`)."""

MAX_DEPTH = 128
"""The deepest nesting of arrays and objects bordir reads (serde_json's default limit too).

bordir's own files nest fewer than ten levels; Python's parser reads about 1,000, but a value
600 levels deep already makes ``repr`` or ``json.dumps`` of it (a report of a ``run.json``)
exceed the recursion limit."""

_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|[\[\]{}]')
_NOT_STRUCTURE = re.compile(r'[^"\[\]{}]+')
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _deepest(doc: str) -> int:
    """Where ``doc`` first nests deeper than :data:`MAX_DEPTH`, else where it first reaches its deepest."""
    limit = MAX_DEPTH
    depth = deepest = at = 0
    for m in _BRACKETS.finditer(doc):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, m.start()
                if depth > limit:
                    break
        elif c in "]}":
            depth -= 1
    return at


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``, with every failure to read it a :class:`json.JSONDecodeError`.

    ``json.loads`` itself raises :class:`RecursionError` for a text nested deeper than the
    parser goes and a plain :class:`ValueError` for an integer of more than 4,300 digits; here
    both are a :class:`json.JSONDecodeError` (``msg``: :data:`NESTED_TOO_DEEPLY`, or ``a number
    with more than 4300 digits``; its ``lineno`` where it happens), so every reader reports them
    as it reports a syntax error. A ``bytes`` text that is not UTF-8 still raises
    :class:`UnicodeDecodeError` (readers name the encoding problem).

    Example:
        >>> loads('{"a": [1]}')
        {'a': [1]}
        >>> try:
        ...     loads("[" * 100_000)
        ... except json.JSONDecodeError as exc:
        ...     print(exc.msg)
        nested too deeply
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except UnicodeDecodeError:
        raise
    except RecursionError:
        doc = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        raise json.JSONDecodeError(NESTED_TOO_DEEPLY, doc, _deepest(doc)) from None
    except ValueError as exc:  # int(): more digits than sys.get_int_max_str_digits()
        doc = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        limit = sys.get_int_max_str_digits()
        m = re.search(rf"\d{{{limit + 1},}}", doc)
        msg = f"a number with more than {limit} digits" if "digits" in str(exc) else str(exc)
        raise json.JSONDecodeError(msg, doc, m.start() if m else 0) from None
    if isinstance(value, (dict, list)) and _too_deep(text):
        doc = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        raise json.JSONDecodeError(NESTED_TOO_DEEPLY, doc, _deepest(doc))
    return value


def _too_deep(text: str | bytes | bytearray) -> bool:
    """True when the valid JSON ``text`` nests arrays and objects more than :data:`MAX_DEPTH` deep.

    Counting brackets is enough for most texts (no more than :data:`MAX_DEPTH` of them); else the
    strings are taken out (their escaped backslashes and quotes first) and the nesting of what is
    left is measured, in C-speed passes over the text.

    >>> _too_deep("[" * 129 + "]" * 129), _too_deep("[" * 128 + "]" * 128), _too_deep('["[[[' + "[" * 200 + '"]')
    (True, False, False)
    """
    if isinstance(text, (bytes, bytearray)):
        if text.count(b"[") + text.count(b"{") <= MAX_DEPTH:
            return False
        text = bytes(text).decode("utf-8", "replace")
    elif text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    bare = _NOT_STRUCTURE.sub("", text.replace("\\\\", "").replace('\\"', ""))
    structure = "".join(bare.split('"')[::2])  # what stands outside the strings: brackets only
    if structure.count("[") + structure.count("{") <= MAX_DEPTH:
        return False
    return max(accumulate(map(_STEP.__getitem__, structure))) > MAX_DEPTH


def not_valid(exc: json.JSONDecodeError) -> str:
    """The one wording of a JSON text bordir cannot read: ``not valid JSON: <why>``.

    Example:
        >>> try:
        ...     loads("{oops")
        ... except json.JSONDecodeError as exc:
        ...     print(not_valid(exc))
        not valid JSON: Expecting property name enclosed in double quotes
    """
    return f"not valid JSON: {exc.msg}"


def read_json(
    path: str | os.PathLike[str], *, missing: str | None = None, hint: str | None = None
) -> Any:
    """The JSON value of the file ``path`` (UTF-8, with or without a byte-order mark).

    Args:
        path: the file.
        missing: what the file should be, said when it does not exist ("file not found; …");
            None: a missing or unreadable file raises the :class:`OSError` of ``open``.
        hint: added to the message of a malformed file (how to get a good one).

    Raises:
        DataError: the file is missing or cannot be read (with ``missing``), is not UTF-8 or is
            not JSON (the message names the file and the line).
    """
    path = Path(path)
    if missing is not None and not path.is_file():
        raise DataError(f"file not found; {missing}", path=path)
    tail = f"; {hint}" if hint else ""
    try:
        return loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise DataError(f"{not_valid(exc)}{tail}", path=path, line=exc.lineno) from None
    except UnicodeDecodeError:
        raise undecodable(path) from None
    except OSError as exc:
        if missing is None:  # the caller handles what open() raises
            raise
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None


def iter_json_objects(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for every non-blank line of ``path``.

    Raises:
        DataError: the file cannot be read, is not UTF-8, or a line is not one JSON object
            (the message names the file and the 1-based line).
    """
    path = Path(path)
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None

    def decoded(lines: Iterable[bytes]) -> Iterator[tuple[int, str]]:
        for lineno, raw in enumerate(lines, start=1):
            try:
                yield lineno, raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError:
                raise undecodable(path) from None

    with fh:
        yield from json_object_lines(
            decoded(fh),
            path,
            invalid=lambda exc: f"{not_valid(exc)} (column {exc.colno})",
            not_object=lambda rec: f"expected a JSON object per line, found {type(rec).__name__}",
        )


def json_object_lines(
    lines: Iterable[tuple[int, str]],
    path: str | os.PathLike[str],
    *,
    invalid: Callable[[json.JSONDecodeError], str],
    not_object: Callable[[Any], str],
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for every non-blank line of ``lines`` (numbered lines of ``path``).

    Args:
        lines: ``(line number, text)`` pairs, read lazily (an error of line n comes after line n − 1).
        path: the file, for the errors.
        invalid: the message of a line that is not JSON, from its decoding error (a line nested
            too deeply or with an over-long number too: :func:`loads`).
        not_object: the message of a line whose JSON value (given) is not an object.

    Raises:
        DataError: a line is not JSON, or not a JSON object (the message names the file and the line).

    Example:
        >>> list(json_object_lines([(1, '{"a": 1}'), (2, "  "), (3, "[]")], "x.jsonl",
        ...     invalid=lambda exc: exc.msg, not_object=lambda v: f"found {type(v).__name__}"))
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: x.jsonl:3: found list
    """
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            rec = loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(invalid(exc), path=path, line=lineno) from None
        if not isinstance(rec, dict):
            raise DataError(not_object(rec), path=path, line=lineno)
        yield lineno, rec


def string_list(
    value: Any,
    *,
    expected: str,
    bad_items: str,
    path: str | os.PathLike[str],
    line: int,
    field: str,
) -> list[str]:
    """``value``, a field of a JSON record, when it is a list of strings.

    Args:
        value: the field's value.
        expected: what the field should be (``"a list of strings"``).
        bad_items: what a list with a non-string item holds (``"non-string items"``).
        path: the file, for the error.
        line: its line, for the error.
        field: the field, for the error.

    Raises:
        DataError: ``value`` is not a list (``expected …, found int``), or holds a non-string
            item (``expected …, found list with …``).

    Example:
        >>> string_list([1], expected="a list of ids", bad_items="a non-string item", path="x.jsonl",
        ...             line=3, field="ids")
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: x.jsonl:3: field 'ids': expected a list of ids, found list with a non-string item
    """
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise DataError(
            f"expected {expected}, found {type(value).__name__}"
            + ("" if not isinstance(value, list) else f" with {bad_items}"),
            path=path,
            line=line,
            field=field,
        )
    return value
